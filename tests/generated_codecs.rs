//! The code `#[derive(Reflectable)]` generates to write and read a struct's fields writes exactly
//! the bytes the descriptor walk writes, and reads exactly what it reads: every field kind and
//! shape, codecs, bases, kept unknown fields, generics, the level graph, random graphs
//! (quickcheck), and streams whose fields leave the generated reader mid-object (another order,
//! fields missing or added). The rest of the suites run on both paths in CI: the all-features
//! run has the `walked-codecs` feature, which makes walking the default (see `.ci/run`).

#[path = "../examples/common/level.rs"]
mod level;
#[path = "common/random_graph.rs"]
mod random_graph;

use quickcheck::quickcheck;
use reflectable::plain::{PlainCodec, PlainError, Reader};
use reflectable::rtti::AsRoot;
use reflectable::serializer::{BinarySerializer, EncodeError};
use reflectable::{Reflectable, UnknownFields};
use smallvec::SmallVec;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::sync::{Arc, Mutex};

fn serializer(generated: bool) -> BinarySerializer<'static> {
    BinarySerializer::new().generated_codecs(generated)
}

/// The stream written both ways, which must agree; read back both ways, the two graphs must write
/// the same bytes again.
fn both_ways<R: AsRoot + ?Sized>(root: &R) -> Vec<u8> {
    let generated = serializer(true).encode(root).unwrap();
    let walked = serializer(false).encode(root).unwrap();
    assert_eq!(generated, walked, "generated code and the descriptor walk wrote different bytes");
    let shared = matches!(root.as_root(), reflectable::rtti::Root::Shared(_));
    let again = [true, false].map(|reader| {
        let reader = serializer(reader);
        if !shared {
            return serializer(false)
                .encode(&*reader.decode::<Box<dyn reflectable::Reflectable>>(&generated).unwrap())
                .unwrap();
        }
        let back = reader.decode::<Rc<RefCell<dyn Reflectable>>>(&generated).unwrap();
        let again = serializer(false).encode(&back).unwrap();
        reflectable::rtti::break_cycles(&back);
        again
    });
    assert_eq!(again[0], again[1], "the graphs read back both ways wrote different bytes");
    generated
}

/// Stores a `u16` big-endian: a codec field, with its own bytes.
struct BigEndian;

impl PlainCodec<u16> for BigEndian {
    const TYPE_ID: u32 = 0x7A5E_0001;
    const STATIC_SIZE: Option<u32> = Some(2);
    fn size(_: &u16) -> usize {
        2
    }
    fn write(value: &u16, out: &mut Vec<u8>) {
        out.extend_from_slice(&value.to_be_bytes());
    }
    fn read(reader: &mut Reader<'_>) -> Result<u16, PlainError> {
        let bytes = reader.take(2)?;
        Ok(u16::from_be_bytes([bytes[0], bytes[1]]))
    }
}

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 980_001)]
struct Part {
    #[rtti(id = 1)]
    mass: f32,
}

#[derive(Reflectable, Default)]
#[rtti(id = 980_002)]
struct Root {
    #[rtti(base)]
    base: Part,
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    samples: Vec<f32>,
    #[rtti(id = 3)]
    colour: [u8; 4],
    #[rtti(id = 4)]
    small: SmallVec<[u32; 2]>,
    #[rtti(id = 5)]
    maybe: Option<String>,
    #[rtti(id = 6, embedded)]
    part: Part,
    #[rtti(id = 7, embedded)]
    parts: Vec<Part>,
    #[rtti(id = 8, embedded)]
    any: Option<Box<dyn Reflectable>>,
    #[rtti(id = 9)]
    shared: Option<Rc<RefCell<Root>>>,
    #[rtti(id = 10)]
    many: Vec<Rc<Part>>,
    #[rtti(id = 11)]
    back: Weak<RefCell<Root>>,
    #[rtti(id = 12)]
    locked: Option<Arc<Mutex<Part>>>,
    #[rtti(id = 13, with = BigEndian)]
    port: u16,
    #[rtti(id = 14, with = BigEndian)]
    ports: Vec<u16>,
    #[rtti(skip)]
    _cache: u64,
}

#[derive(Reflectable, Default)]
#[rtti(id = 980_003)]
struct Pair(#[rtti(id = 1)] u8, #[rtti(id = 2, embedded)] Part);

#[derive(Reflectable, Default)]
#[rtti(id = 980_004)]
struct Empty;

#[derive(Reflectable, Default)]
#[rtti(id = 980_005)]
struct Kept {
    #[rtti(id = 1)]
    known: i32,
    #[rtti(unknown)]
    kept: UnknownFields,
}

#[derive(Reflectable, Default)]
#[rtti(id = 980_006)]
struct Boxed<T: Reflectable + Default> {
    #[rtti(id = 1, embedded)]
    value: T,
}
reflectable::register_type!(Boxed<Part>);

#[test]
fn derived_structs_have_generated_code_and_enums_do_not() {
    for rtti in [Root::rtti_static(), Pair::rtti_static(), Empty::rtti_static(), Boxed::<Part>::rtti_static()] {
        assert!(rtti.has_generated_codec(), "{}", rtti.name());
    }
    assert!(!random_graph::Node::rtti_static().has_generated_codec(), "a map field is walked");
    assert!(!level::Projection::rtti_static().has_generated_codec(), "an enum is walked");
}

#[test]
fn every_field_kind_and_shape_writes_the_same_bytes() {
    let root = Rc::new(RefCell::new(Root {
        base: Part { mass: 2.5 },
        name: "gate".into(),
        samples: vec![1.0, -0.0, f32::NAN],
        colour: [1, 2, 3, 4],
        small: SmallVec::from_slice(&[7, 8, 9]),
        maybe: Some("yes".into()),
        part: Part { mass: 1.0 },
        parts: vec![Part { mass: 3.0 }, Part::default()],
        any: Some(Box::new(Part { mass: 9.0 })),
        many: {
            let shared = Rc::new(Part { mass: 4.0 });
            vec![shared.clone(), shared]
        },
        locked: Some(Arc::new(Mutex::new(Part { mass: 5.0 }))),
        port: 0x1234,
        ports: vec![1, 2],
        ..Default::default()
    }));
    let child = Rc::new(RefCell::new(Root { back: Rc::downgrade(&root), ..Default::default() }));
    root.borrow_mut().shared = Some(child.clone());
    let bytes = both_ways(&root);
    // The codec wrote big-endian: the generated path went through it, not the value's own type.
    assert!(bytes.windows(2).any(|pair| pair == [0x12, 0x34]));
    both_ways(&Pair(5, Part { mass: 1.5 }));
    both_ways(&Empty);
    both_ways(&Kept { known: -3, ..Default::default() });
    both_ways(&Boxed { value: Part { mass: 6.0 } });
    child.borrow_mut().shared = None;
}

#[test]
fn errors_name_the_same_field_both_ways() {
    // An object borrowed mutably elsewhere cannot be read: both paths fail the same way.
    let child = Rc::new(RefCell::new(Root::default()));
    let root = Root { shared: Some(child.clone()), ..Default::default() };
    let _held = child.borrow_mut();
    let errors: Vec<String> = [true, false]
        .into_iter()
        .map(|generated| {
            let serializer = BinarySerializer::new().generated_codecs(generated);
            let error: EncodeError = serializer.encode(&root).unwrap_err();
            error.to_string()
        })
        .collect();
    assert_eq!(errors[0], errors[1]);
}

#[test]
fn a_level_graph_writes_the_same_bytes() {
    let (level, _) = level::build_level(500, 11);
    both_ways(&level);
    level::break_cycles(&level);
}

quickcheck! {
    fn random_graphs_write_the_same_bytes(values: Vec<(i64, String)>, edges: Vec<(u8, u8, u8)>) -> bool {
        if values.is_empty() {
            return true;
        }
        let nodes = random_graph::build(&values, &edges);
        both_ways(&nodes[0]);
        random_graph::unlink(&nodes);
        true
    }
}

/// Type 980_010 as an older build wrote it: its fields in another order, one the reader lacks
/// (5), one it lacks itself (4). Not registered: the reader's `Wide` has the ID.
#[derive(Reflectable, Default)]
#[rtti(id = 980_010, name = "Wide", no_register)]
struct OldWide {
    #[rtti(id = 1)]
    a: u32,
    #[rtti(id = 2)]
    b: String,
    #[rtti(id = 5)]
    gone: u64,
    #[rtti(id = 3)]
    c: Vec<f32>,
    #[rtti(id = 6, embedded)]
    part: Part,
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 980_010)]
struct Wide {
    #[rtti(id = 1)]
    a: u32,
    #[rtti(id = 2)]
    b: String,
    #[rtti(id = 3)]
    c: Vec<f32>,
    #[rtti(id = 4)]
    d: i16,
    #[rtti(id = 6, embedded)]
    part: Part,
}

#[test]
fn a_stream_that_leaves_the_generated_reader_mid_object_reads_the_same_both_ways() {
    let old = OldWide { a: 7, b: "seven".into(), gone: 99, c: vec![1.5, 2.5], part: Part { mass: 3.0 } };
    let expected = Wide { a: 7, b: "seven".into(), c: vec![1.5, 2.5], d: 0, part: Part { mass: 3.0 } };
    // With a schema table the stream says the type changed, and the evolution plan reads it; without
    // one (a version 2 stream) the generated reader takes fields 1 and 2, then meets 5 and hands
    // the rest to the descriptor walk.
    for table in [true, false] {
        let bytes = BinarySerializer::new().schema_table(table).encode(&old).unwrap();
        let read: Vec<(Wide, String)> = [true, false]
            .into_iter()
            .map(|generated| {
                let (wide, report) = serializer(generated).decode_with_report::<Wide>(&bytes).unwrap();
                (wide, report.to_string())
            })
            .collect();
        assert_eq!(read[0].0, expected, "schema table: {table}");
        assert_eq!(read[0], read[1], "schema table: {table}");
        assert!(!read[0].1.is_empty(), "the dropped field is reported: {}", read[0].1);
    }
}

#[test]
fn decode_errors_name_the_same_place_both_ways() {
    let bytes = serializer(true).encode(&Wide { b: "x".repeat(40), c: vec![1.0; 8], ..Default::default() }).unwrap();
    // Every cut and every flipped byte inside the object: both readers fail or succeed alike, with
    // the same message (offset, type and field).
    for at in 8..bytes.len() - 24 {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0xA5;
        let decode = |generated: bool, input: &[u8]| {
            let serializer = BinarySerializer::new().generated_codecs(generated).checksum(false);
            serializer.decode::<Wide>(input).map(|wide| format!("{wide:?}")).map_err(|error| error.to_string())
        };
        assert_eq!(decode(true, &flipped), decode(false, &flipped), "byte {at} flipped");
        assert_eq!(decode(true, &bytes[..at]), decode(false, &bytes[..at]), "cut at {at}");
    }
}

/// The `walked-codecs` feature (CI's all-features run) is what puts the suites on the walked path.
#[test]
fn the_walked_codecs_feature_decides_the_default_path() {
    let serializer = reflectable::serializer::BinarySerializer::new();
    assert_eq!(serializer.uses_generated_codecs(), !cfg!(feature = "walked-codecs"));
    assert!(!serializer.generated_codecs(false).uses_generated_codecs());
}
