//! Compact streams (`FORMAT.md`, "Compact streams"): exact bytes of the worked example, exact
//! transcoding both ways, every decoder reading them as it reads the normal form, and hostile
//! compact input refused at its offset.

#[path = "common/door.rs"]
mod door;
#[path = "common/fuzz_model.rs"]
mod fuzz_model;
#[path = "../examples/common/level.rs"]
mod level;
#[path = "common/random_graph.rs"]
mod random_graph;

use door::{door, Door, Frame, Lock};
use quickcheck::{QuickCheck, TestResult};
use reflectable::dynamic::DynamicGraph;
use reflectable::serializer::compact::{to_compact, to_normal};
use reflectable::serializer::format::TRAILER_SIZE;
use reflectable::serializer::{BinarySerializer, DecodeErrorKind, EncodeError, Encoding, Limits};
use reflectable::Reflectable;
use std::cell::RefCell;
use std::rc::Rc;

fn compact() -> BinarySerializer<'static> {
    BinarySerializer::new().encoding(Encoding::Compact)
}

/// The schema table of a version 3 stream (the 234 bytes before its trailer in FORMAT.md).
fn table_of(normal: &[u8]) -> &[u8] {
    let size = reflectable::schema::Schema::size_in_stream(normal).unwrap();
    &normal[normal.len() - TRAILER_SIZE - size..normal.len() - TRAILER_SIZE]
}

/// FORMAT.md's worked example in compact form, byte for byte.
#[test]
fn the_worked_example_is_byte_exact() {
    let normal = reflectable::to_vec(&door()).unwrap();
    let bytes = compact().encode(&door()).unwrap();
    let mut expected = vec![
        0x52, 0x46, 0x4C, 0x42, 0x04, 0x00, 0x00, 0x00, // "RFLB", version 4
        0x04, // type reference 4: the table's first entry, Door (instance 1)
        0x1F, // presence: all five fields; bit 0 is `open` itself
        0x03, b'o', b'a', b'k', // name: length 3
        0x02, 0x02, 0x03, // hinges: 2 elements, 2 and 3
        0x05, 0x01, 0x50, // frame: Frame, presence 01, width 80
        0x02, // lock: instance 2
        0x06, 0x01, 0xB4, 0x24, // Lock (instance 2): presence 01, code 0x1234
    ];
    // The plain block: no plain types of the program's own to describe.
    expected.extend_from_slice(&[0xC8, b'P', b'L', b'N', 0, 0, 0, 0, 12, 0, 0, 0]);
    let table = table_of(&normal);
    assert_eq!(table.len(), 234);
    expected.extend_from_slice(table);
    let length = (expected.len() + TRAILER_SIZE) as u64;
    expected.extend_from_slice(&[0xC8, 0x45, 0x4E, 0x44, 0x02, 0, 0, 0, 0x02, 0, 0, 0]);
    expected.extend_from_slice(&length.to_le_bytes());
    expected.extend_from_slice(&[0, 0, 0, 0]);
    assert_eq!(bytes, expected);
    assert_eq!(bytes.len(), 295);
    assert_eq!(to_normal(&bytes).unwrap(), normal);
    assert_eq!(to_compact(&normal).unwrap(), bytes);
    assert_eq!(reflectable::from_slice::<Door>(&bytes).unwrap(), door());
}

/// A value whose fields are all zero or empty keeps only the embedded frame's type reference.
#[test]
fn zero_fields_are_left_out() {
    let bytes = compact().encode(&Door::default()).unwrap();
    assert_eq!(&bytes[8..14], [0x04, 0x08, 0x05, 0x00, 0xC8, b'P']);
    assert_eq!(reflectable::from_slice::<Door>(&bytes).unwrap(), Door::default());
    let _ = (Frame::default(), Lock::default());
}

/// Every sample stream (every field kind, enums, lists, maps, cycles, `Weak`s, a level) turns
/// compact and back to exactly its bytes, and decodes to the same graph either way.
#[test]
fn samples_transcode_exactly_and_decode_alike() {
    let serializer = BinarySerializer::new();
    for normal in fuzz_model::sample_encodings().into_iter().filter(|bytes| bytes[4] != 4) {
        let Ok(bytes) = to_compact(&normal) else {
            // Only the fingerprint-table sample has no schema table to go by.
            assert!(reflectable::schema::Schema::of_stream(&normal).is_err());
            continue;
        };
        assert!(bytes.len() < normal.len(), "{} bytes against {}", bytes.len(), normal.len());
        let back = to_normal(&bytes).unwrap();
        if normal[4] == 5 {
            // A compact stream turns back into version 3: the objects without their lengths.
            assert_eq!(back[4], 3);
            assert!(back.len() < normal.len());
            assert_eq!(to_compact(&back).unwrap(), bytes);
        } else {
            assert_eq!(back, normal);
        }
        assert_eq!(to_compact(&bytes).unwrap(), bytes, "a compact stream stays as it is");
        assert_eq!(to_normal(&normal).unwrap(), normal, "a normal stream stays as it is");
        let again = |input: &[u8]| {
            let (root, report) = serializer.decode_with_report::<Box<dyn reflectable::Reflectable>>(input).unwrap();
            let written = serializer.encode(&*root).unwrap();
            reflectable::rtti::break_cycles(&*root);
            (written, report.to_string())
        };
        assert_eq!(again(&bytes), again(&normal));
        let graph = DynamicGraph::from_bytes(&bytes).unwrap();
        assert_eq!(graph.encoding(), Encoding::Compact);
        assert_eq!(graph.to_bytes().unwrap(), bytes, "a dynamic graph writes a compact stream back as it was");
    }
}

/// A level graph: smaller, and back with its sharing (`Rc::ptr_eq`) and every value.
#[test]
fn a_level_keeps_its_identity() {
    let (original, _) = level::build_level(400, 7);
    let normal = reflectable::to_vec(&original).unwrap();
    let bytes = compact().encode(&original).unwrap();
    assert!(bytes.len() * 10 < normal.len() * 7, "{} bytes against {}", bytes.len(), normal.len());
    let decoded: level::Level = reflectable::from_slice(&bytes).unwrap();
    level::compare_levels(&original, &decoded).unwrap();
    let objects = level::scene_objects(&decoded);
    let shared = objects.iter().any(|object| Rc::strong_count(object) > 1);
    assert!(shared, "the level shares objects");
    assert_eq!(reflectable::to_vec(&decoded).unwrap(), normal);
    level::break_cycles(&original);
    level::break_cycles(&decoded);
}

/// Random graphs, with sharing, cycles and `Weak`s: compact and back is the identity, and the
/// decoded graph is the one the normal stream gives.
#[test]
fn random_graphs_transcode_exactly() {
    fn property(values: Vec<(i64, String)>, edges: Vec<(u8, u8, u8)>) -> TestResult {
        if values.is_empty() {
            return TestResult::discard();
        }
        let nodes = random_graph::build(&values, &edges);
        let normal = reflectable::to_vec(&nodes[0]).unwrap();
        let bytes = compact().encode(&nodes[0]).unwrap();
        random_graph::unlink(&nodes);
        let written = |input: &[u8]| {
            let decoded: Rc<RefCell<random_graph::Node>> = reflectable::from_slice(input).unwrap();
            let written = reflectable::to_vec(&decoded).unwrap();
            random_graph::unlink(&random_graph::reachable(&decoded));
            written
        };
        TestResult::from_bool(to_normal(&bytes).unwrap() == normal && written(&bytes) == written(&normal))
    }
    QuickCheck::new().quickcheck(property as fn(_, _) -> TestResult);
}

/// Every prefix of a compact stream, and every single-byte change, is refused or read without
/// a panic (the fuzz model decodes each every way); a cut one is always refused.
#[test]
fn damaged_compact_streams_never_crash() {
    let bytes = compact().encode(&door()).unwrap();
    for cut in 0..bytes.len() {
        assert!(reflectable::from_slice::<Door>(&bytes[..cut]).is_err());
        fuzz_model::exercise(&bytes[..cut]);
    }
    // The objects end where the table starts; every change there is past the checksum-free
    // trailer's notice, so each reaches the transcoder.
    for at in 8..25 {
        for flip in [0x01, 0x80, 0xFF] {
            let mut damaged = bytes.clone();
            damaged[at] ^= flip;
            fuzz_model::exercise(&damaged);
        }
    }
}

fn kind_of(bytes: &[u8]) -> (String, Option<usize>) {
    let error = reflectable::from_slice::<Door>(bytes).unwrap_err();
    (error.kind().to_string(), error.offset())
}

/// Hostile compact objects: each refused with its reason at its offset.
#[test]
fn hostile_compact_objects_are_refused_where_they_fail() {
    let good = compact().encode(&door()).unwrap();
    let objects = 8..25;
    let with = |patch: &dyn Fn(&mut Vec<u8>)| {
        let mut objects_only = good[objects.clone()].to_vec();
        patch(&mut objects_only);
        let mut bytes = good[..8].to_vec();
        bytes.extend_from_slice(&objects_only);
        bytes.extend_from_slice(&good[25..good.len() - TRAILER_SIZE]);
        let length = (bytes.len() + TRAILER_SIZE) as u64;
        bytes.extend_from_slice(&good[good.len() - TRAILER_SIZE..good.len() - 12]);
        bytes.extend_from_slice(&length.to_le_bytes());
        bytes.extend_from_slice(&[0; 4]);
        bytes
    };
    let corrupt = |what: &'static str, at: usize| (DecodeErrorKind::Corrupt(what).to_string(), Some(at));
    // An overlong varint: the width 80 written as `D0 00`.
    let overlong = with(&|o| o.splice(11..12, [0xD0, 0x00]).for_each(drop));
    assert_eq!(kind_of(&overlong).1, Some(19), "{:?}", kind_of(&overlong));
    // A presence bit past Door's five fields.
    assert_eq!(kind_of(&with(&|o| o[1] = 0x3F)), corrupt("presence bits set past a section's fields", 9));
    // A field marked present that holds zeros: the width 0, written.
    assert_eq!(kind_of(&with(&|o| o[11] = 0)), corrupt("a field marked present holds only zero bytes", 19));
    // A type reference past the table.
    assert_eq!(kind_of(&with(&|o| o[9] = 0x07)), corrupt("an embedded object's type reference", 17));
    assert_eq!(kind_of(&with(&|o| o[0] = 0x01)), corrupt("a top-level object's type reference", 8));
    // A pointer to instance 3, when the next new one is 2.
    assert_eq!(
        kind_of(&with(&|o| o[12] = 0x03)),
        corrupt("a pointer to an object not met before must name the next instance ID", 20)
    );
    // The lock written twice: nothing leads to a third object.
    assert_eq!(kind_of(&with(&|o| o.extend_from_slice(&[0x06, 0x00]))), corrupt("an object no pointer leads to", 25));
}

/// Errors found in the normal twin point into the compact stream: here a name that is not
/// UTF-8, at its field's start.
#[test]
fn errors_point_into_the_compact_stream() {
    let mut bytes = compact().encode(&door()).unwrap();
    bytes[11] = 0xFF;
    let error = reflectable::from_slice::<Door>(&bytes).unwrap_err();
    assert!(matches!(error.kind(), DecodeErrorKind::Plain(_)), "{error}");
    assert_eq!(error.offset(), Some(10), "{error}");
}

/// A compact stream may stand for a far larger normal one (a bit for a field of zeros); its
/// normal twin is capped at 8x its length plus 64 KiB, or by `max_allocation`.
#[test]
fn expansion_is_bounded() {
    #[derive(Reflectable, Default, Debug)]
    #[rtti(id = 9961)]
    struct Wide {
        #[rtti(id = 1)]
        a: [u64; 31],
        #[rtti(id = 2)]
        b: [u64; 31],
        #[rtti(id = 3)]
        c: [u64; 31],
        #[rtti(id = 4)]
        d: [u64; 31],
    }
    #[derive(Reflectable, Default, Debug)]
    #[rtti(id = 9962)]
    struct Many {
        #[rtti(id = 1, embedded)]
        all: Vec<Wide>,
    }
    let many = Many { all: (0..2000).map(|_| Wide::default()).collect() };
    let bytes = compact().encode(&many).unwrap();
    let normal = reflectable::to_vec(&many).unwrap();
    assert!(normal.len() > 8 * bytes.len() + (1 << 16), "{} against {}", normal.len(), bytes.len());
    let error = reflectable::from_slice::<Many>(&bytes).unwrap_err();
    assert!(matches!(error.kind(), DecodeErrorKind::AllocationLimit { .. }), "{error}");
    let roomy = BinarySerializer::new().limits(Limits { max_allocation: Some(1 << 30), ..Limits::default() });
    let back: Many = roomy.decode(&bytes).unwrap();
    assert_eq!(back.all.len(), 2000);
}

/// What the compact form cannot say is refused, never written wrong: a stream without a schema
/// table, and a dynamic graph with an object nothing points to.
#[test]
fn what_compact_cannot_express_is_refused() {
    let omitted = BinarySerializer::new().encoding(Encoding::Compact).schema_table(false);
    assert!(matches!(omitted.encode(&door()), Err(EncodeError::NotCompact(_))));
    let mut graph = DynamicGraph::from_bytes(&reflectable::to_vec(&door()).unwrap()).unwrap();
    let stray = graph.objects()[1].borrow().clone();
    graph.add(stray);
    graph.set_encoding(Encoding::Compact);
    let error = graph.to_bytes().unwrap_err();
    assert!(matches!(&error, EncodeError::NotCompact(inner) if matches!(inner.kind(), DecodeErrorKind::NotCompact(_))));
}

/// A bool of a normal stream that is neither 0 nor 1 is refused at its own byte, also inside an
/// array; and `to_normal` checks a normal stream's header and trailer before handing it back.
#[test]
fn transcoding_errors_name_their_byte() {
    #[derive(Reflectable, Default, Debug)]
    #[rtti(id = 9963)]
    struct Flags {
        #[rtti(id = 1)]
        flags: Vec<bool>,
    }
    let mut bytes =
        reflectable::to_vec(&Flags { flags: vec![true, false, true, true, false, true, true, true, false] }).unwrap();
    let array = [9, 0, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 0];
    let at = bytes.windows(array.len()).position(|window| window == array).expect("the array's bytes") + 4 + 8;
    bytes[at] = 2;
    let error = to_compact(&bytes).unwrap_err();
    assert!(matches!(error.kind(), DecodeErrorKind::NotCompact(_)), "{error}");
    assert_eq!(error.offset(), Some(at), "{error}");

    let normal = reflectable::to_vec(&door()).unwrap();
    assert_eq!(to_normal(&normal).unwrap(), normal);
    assert!(to_normal(&normal[..normal.len() - 1]).is_err(), "a cut stream is refused");
    assert!(to_normal(b"not a stream at all").is_err());
}

#[derive(reflectable::PlainType, Clone, Debug, PartialEq, Default)]
#[plain(id = 9965)]
struct Item {
    name: String,
    count: u32,
    tags: Vec<u16>,
}

#[derive(reflectable::PlainType, Clone, Debug, PartialEq, Default)]
#[plain(id = 9966)]
struct Tree {
    label: String,
    children: Vec<Tree>,
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 9967)]
struct Chest {
    #[rtti(id = 1)]
    items: Vec<Item>,
    #[rtti(id = 2)]
    tree: Tree,
}

fn chest(depth: usize) -> Chest {
    let items = (0..50).map(|n| Item { name: format!("item {n}"), count: n * 3, tags: vec![n as u16; 3] }).collect();
    let mut tree = Tree { label: "leaf".into(), children: Vec::new() };
    for level in 0..depth {
        tree = Tree { label: format!("level {level}"), children: vec![tree, Tree::default()] };
    }
    Chest { items, tree }
}

/// The program's derived plain types are described in the plain block and walked: their
/// integers become varints, their strings lose their size words.
#[test]
fn derived_plain_values_are_walked_compact() {
    let value = chest(20);
    let normal = reflectable::to_vec(&value).unwrap();
    let bytes = compact().encode(&value).unwrap();
    assert!(bytes.len() * 2 < normal.len(), "{} against {}", bytes.len(), normal.len());
    // The tree is walked, not framed: its first label follows its length at once.
    let label = bytes.windows(8).position(|window| window == b"level 19").unwrap_or(0);
    assert!(label > 0 && bytes[label - 1] == 8, "the tree's label is a walked string");
    assert_eq!(reflectable::from_slice::<Chest>(&bytes).unwrap(), value);
    assert_eq!(to_normal(&bytes).unwrap(), normal);
    // The block describes both types, each once.
    let block_mark = bytes.windows(4).position(|window| window == b"\xC8PLN").unwrap();
    assert_eq!(bytes[block_mark + 4..block_mark + 8], 2u32.to_le_bytes());
    // Read without the types, written back the same.
    let graph = DynamicGraph::from_bytes(&bytes).unwrap();
    assert_eq!(graph.to_bytes().unwrap(), bytes);
    let json = reflectable::json::from_bytes(&bytes).unwrap();
    assert_eq!(reflectable::json::to_bytes(&json).unwrap(), bytes);
}

/// A derived plain type that holds itself nests at most 128 deep, as the typed readers allow.
#[test]
fn recursive_plain_values_nest_as_deep_as_the_typed_reader_allows() {
    let deep = chest(200);
    let error = compact().encode(&deep).unwrap_err();
    assert!(matches!(&error, EncodeError::NotCompact(inner) if matches!(inner.kind(), DecodeErrorKind::Plain(_))));
    let fine = chest(100);
    let bytes = compact().encode(&fine).unwrap();
    assert_eq!(reflectable::from_slice::<Chest>(&bytes).unwrap(), fine);
}

/// A malformed plain block is refused before any object is read.
#[test]
fn a_malformed_plain_block_is_refused() {
    let bytes = compact().encode(&chest(2)).unwrap();
    let mark = bytes.windows(4).position(|window| window == b"\xC8PLN").unwrap();
    let refused = |patch: &dyn Fn(&mut Vec<u8>), what: &str| {
        let mut damaged = bytes.clone();
        patch(&mut damaged);
        let error = reflectable::from_slice::<Chest>(&damaged).unwrap_err();
        assert!(error.to_string().contains(what), "{error}");
        assert!(error.offset().is_some_and(|offset| offset >= mark), "{error}");
    };
    refused(&|b| b[mark + 1] = b'X', "does not start with its mark");
    // The first entry's type ID made a built-in one.
    refused(&|b| b[mark + 8..mark + 12].copy_from_slice(&20u32.to_le_bytes()), "built-in type");
    // The second entry given the first one's ID.
    let second = {
        let first_parts = u16::from_le_bytes([bytes[mark + 12], bytes[mark + 13]]);
        let mut at = mark + 14;
        for _ in 0..first_parts {
            at += 1 + 4 * usize::from(bytes[at]);
        }
        at
    };
    refused(&|b| b.copy_within(mark + 8..mark + 12, second), "twice");
    // A signature cut short: `Vec` with no element type.
    refused(&|b| b[mark + 14] = 0, "");
}

/// The no-schema variant: a fingerprint table in place of the schema table (FORMAT.md, "Compact
/// streams"), for messages between programs built with the same types.
#[test]
fn the_no_schema_variant_reads_only_into_the_same_types() {
    use reflectable::serializer::SchemaTable;
    let message = BinarySerializer::new().encoding(Encoding::Compact).schema_table(SchemaTable::Fingerprints);
    let bytes = message.encode(&door()).unwrap();
    let schema_bytes = compact().encode(&door()).unwrap();
    // The same objects and plain block, then the 48-byte fingerprint table of FORMAT.md.
    let mut expected = schema_bytes[..37].to_vec();
    expected.extend_from_slice(&[0xC8, b'F', b'P', b'T', 3, 0, 0, 0]);
    for (type_id, fingerprint) in
        [(1000u32, 0xF23D4D3DF8ACC8BFu64), (1001, 0x45E93DDC7D2565C8), (1002, 0xBFB4D0E2DD4BD27C)]
    {
        expected.extend_from_slice(&type_id.to_le_bytes());
        expected.extend_from_slice(&fingerprint.to_le_bytes());
    }
    expected.extend_from_slice(&[48, 0, 0, 0]);
    expected.extend_from_slice(&[
        0xC8, 0x45, 0x4E, 0x44, 0x02, 0, 0, 0, 0x02, 0, 0, 0, 109, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ]);
    assert_eq!(bytes, expected);
    assert_eq!(bytes.len(), 109);
    assert_eq!(message.decode::<Door>(&bytes).unwrap(), door());
    assert_eq!(reflectable::from_slice::<Door>(&bytes).unwrap(), door());
    // Without the types there is nothing to walk the objects by.
    let error = DynamicGraph::from_bytes(&bytes).unwrap_err();
    assert_eq!((error.kind(), error.offset()), (&DecodeErrorKind::NoSchema, Some(37)));
    assert!(matches!(to_normal(&bytes).unwrap_err().kind(), DecodeErrorKind::NoSchema));

    // A reader whose `Lock` has another field is refused before anything is built.
    mod other {
        #[derive(reflectable::Reflectable, Default, Debug)]
        #[rtti(id = 1002, name = "Lock", no_register)]
        pub struct Lock {
            #[rtti(id = 1)]
            pub code: u32,
            #[rtti(id = 2)]
            pub spare: u32,
        }
    }
    let mut registry = reflectable::Registry::new();
    registry.register_type::<Door>().unwrap();
    registry.register_type::<Frame>().unwrap();
    registry.register_type::<other::Lock>().unwrap();
    let error = BinarySerializer::with_registry(&registry)
        .decode::<Box<dyn reflectable::Reflectable>>(&bytes)
        .map(drop)
        .unwrap_err();
    match error.kind() {
        DecodeErrorKind::FingerprintMismatch {
            type_id: 1002, recorded: 0xBFB4D0E2DD4BD27C, running: Some(_), ..
        } => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(error.offset(), Some(37 + 8 + 24));
}

/// The plain block of `bytes` (a compact stream) replaced by `block`'s entries: `(type ID,
/// parts)`.
fn with_block(bytes: &[u8], objects: &[u8], entries: &[(u32, Vec<Vec<u32>>)]) -> Vec<u8> {
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let end = bytes.len() - TRAILER_SIZE;
    let table = end - word(end - 4);
    let mut out = bytes[..8].to_vec();
    out.extend_from_slice(objects);
    let block = out.len();
    out.extend_from_slice(b"\xC8PLN");
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for (type_id, parts) in entries {
        out.extend_from_slice(&type_id.to_le_bytes());
        out.extend_from_slice(&(parts.len() as u16).to_le_bytes());
        for sig in parts {
            out.push(sig.len() as u8);
            sig.iter().for_each(|word| out.extend_from_slice(&word.to_le_bytes()));
        }
    }
    let length = (out.len() - block + 4) as u32;
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(&bytes[table..end]);
    let length = (out.len() + TRAILER_SIZE) as u64;
    out.extend_from_slice(&[0xC8, 0x45, 0x4E, 0x44, 0x02, 0, 0, 0, 1, 0, 0, 0]);
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out
}

/// Hostile plain blocks cannot make the transcoder recurse without bound: a type that is an
/// option of an option ... of itself, and a chain of 100,000 types each holding the next.
#[test]
fn hostile_plain_blocks_nest_within_bounds() {
    let bytes = compact().encode(&chest(1)).unwrap();
    // Chest, with only `tree` (field 2) present: option tags all the way down.
    let mut objects = vec![0x04, 0x02];
    objects.extend(std::iter::repeat_n(0x01, 40_000));
    let mut options = vec![36; 254];
    options.push(9966);
    let nested = with_block(&bytes, &objects, &[(9966, vec![options])]);
    let chain: Vec<(u32, Vec<Vec<u32>>)> = (0..100_000u32)
        .map(|n| (10_000 + n, vec![vec![if n == 99_999 { 20 } else { 10_001 + n }]]))
        .chain([(9966, vec![vec![10_000]])])
        .collect();
    let chained = with_block(&bytes, &objects, &chain);
    // A thread's default 2 MiB stack, as a program's worker threads have.
    std::thread::spawn(move || {
        for hostile in [nested, chained] {
            assert!(reflectable::from_slice::<Chest>(&hostile).is_err());
            assert!(to_normal(&hostile).is_err());
            assert!(DynamicGraph::from_bytes(&hostile).is_err());
        }
    })
    .join()
    .unwrap();
}

/// A plain block too short to hold its own length is refused, not a panic (a JSON document
/// carries one).
#[test]
fn a_json_document_with_a_hostile_plain_block_is_refused() {
    let bytes = compact().encode(&chest(1)).unwrap();
    let json = reflectable::json::from_bytes(&bytes).unwrap();
    for block in ["", "AA==", "yFBMTgAAAAAMAAAA", "yFBMTgAAAAANAAAA"] {
        let mut document: serde_json::Value = serde_json::from_str(&json).unwrap();
        document["plain_block"] = serde_json::Value::String(block.into());
        let result = reflectable::json::to_bytes(&document.to_string());
        // Only the well-formed empty block (mark, no types, length 12) is taken.
        assert_eq!(result.is_ok(), block == "yFBMTgAAAAAMAAAA", "{block}: {result:?}");
    }
}

/// Elements whose compact form takes no bytes (an empty array of strings) count against the
/// zero-size allowance, not the bytes left, so a long array of them transcodes back.
#[test]
fn elements_of_no_compact_bytes_transcode_back() {
    #[derive(Reflectable, Default, Debug, PartialEq)]
    #[rtti(id = 9968)]
    struct Empties {
        #[rtti(id = 1)]
        none: Vec<[String; 0]>,
        #[rtti(id = 2)]
        pairs: Vec<([String; 0], Vec<u8>)>,
    }
    let value = Empties { none: vec![[]; 5000], pairs: vec![([], vec![1]); 3] };
    let bytes = compact().encode(&value).unwrap();
    assert!(bytes.len() < 400, "{}", bytes.len());
    assert_eq!(reflectable::from_slice::<Empties>(&bytes).unwrap(), value);
    assert_eq!(to_normal(&bytes).unwrap(), reflectable::to_vec(&value).unwrap());
}
