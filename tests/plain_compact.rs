//! The compact element form of plain values (`PlainType::write_compact`): round trips of every
//! built-in and derived type, exact byte layouts, one encoding per value, and hostile input.

use quickcheck::{quickcheck, TestResult};
use reflectable::plain::{write_elem, PlainCodec, PlainError, PlainType, Reader};
use reflectable::PlainType;
use smallvec::SmallVec;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt::Debug;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

fn compact<T: PlainType>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    value.write_compact(&mut out);
    out
}

fn normal<T: PlainType>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    write_elem(value, &mut out);
    out
}

fn decode<T: PlainType>(bytes: &[u8]) -> Result<T, PlainError> {
    let mut reader = Reader::new(bytes);
    let value = T::read_compact(&mut reader)?;
    reader.expect_end()?;
    Ok(value)
}

/// Writes compact, reads back, and checks that the value writes the same bytes again in both
/// forms (compared by bytes, which also holds for NaN floats). A type whose compact element is
/// its normal content must write exactly that.
fn round_trips<T: PlainType + Debug>(value: T) -> bool {
    let bytes = compact(&value);
    if let Some(n) = T::COMPACT_SIZE {
        assert_eq!(Some(n), T::STATIC_SIZE, "a fixed compact element is the normal content");
        assert_eq!(bytes, normal(&value), "{value:?}: a fixed compact element is the normal content");
    }
    assert!(bytes.len() >= T::COMPACT_MIN_SIZE, "{value:?}: {} bytes, under the minimum", bytes.len());
    match decode::<T>(&bytes) {
        Ok(back) => compact(&back) == bytes && normal(&back) == normal(&value),
        Err(error) => panic!("{value:?} failed to decode from {bytes:02X?}: {error}"),
    }
}

/// For maps and sets, whose element order in memory may differ: equality after the round trip.
fn round_trips_eq<T: PlainType + Debug + PartialEq>(value: T) -> bool {
    let bytes = compact(&value);
    decode::<T>(&bytes).as_ref() == Ok(&value) && compact(&decode::<T>(&bytes).unwrap()) == bytes
}

#[derive(PlainType, Debug, Clone, Copy, PartialEq)]
#[plain(id = 1600)]
struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

#[derive(PlainType, Debug, Clone, Copy, PartialEq)]
#[plain(id = 1601)]
enum Mode {
    Walk = 2,
    Fly,
}

/// Dynamic: its fields, each in compact form.
#[derive(PlainType, Debug, Clone, PartialEq)]
#[plain(id = 1602)]
struct Named {
    tag: u32,
    name: String,
    mode: Mode,
    at: Vec3,
    counts: Vec<i64>,
}

/// Static: its normal bytes, although `u32`s alone are varints.
#[derive(PlainType, Debug, Clone, Copy, PartialEq)]
#[plain(id = 1603)]
struct Span(u32, u32);

/// Dynamic because it is too large to be static (over 255 bytes), with nothing dynamic in it.
#[derive(PlainType, Debug, Clone, PartialEq)]
#[plain(id = 1604)]
struct Wide {
    first: [u8; 200],
    second: [u16; 40],
}

/// Dynamic, and its compact element can be empty: the count of a `Vec` of them is checked
/// against the zero-size allowance, not the input.
#[derive(PlainType, Debug, Clone, PartialEq)]
#[plain(id = 1605)]
struct Nothing {
    none: [String; 0],
}

/// A hand-written dynamic type without a compact form of its own: framed.
#[derive(Debug, Clone, PartialEq)]
struct Words(Vec<u32>);

impl PlainType for Words {
    const TYPE_ID: u32 = 1606;
    const STATIC_SIZE: Option<u32> = None;

    fn size(&self) -> usize {
        4 * self.0.len()
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.0.iter().for_each(|word| out.extend_from_slice(&word.to_le_bytes()));
    }
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        let mut words = Vec::new();
        while !reader.is_empty() {
            words.push(u32::from_le_bytes(reader.take_array()?));
        }
        Ok(Words(words))
    }
}

/// A codec for a foreign type (a stand-in): static, so its content in both forms.
struct Celsius(i16);
struct CelsiusCodec;

impl PlainCodec<Celsius> for CelsiusCodec {
    const TYPE_ID: u32 = 1607;
    const STATIC_SIZE: Option<u32> = Some(2);

    fn size(_: &Celsius) -> usize {
        2
    }
    fn write(value: &Celsius, out: &mut Vec<u8>) {
        out.extend_from_slice(&value.0.to_le_bytes());
    }
    fn read(reader: &mut Reader<'_>) -> Result<Celsius, PlainError> {
        Ok(Celsius(i16::from_le_bytes(reader.take_array()?)))
    }
}

quickcheck! {
    fn integers(unsigned: (u8, u16, u32, u64, u128), signed: (i8, i16, i32, i64, i128)) -> bool {
        round_trips(unsigned.0) && round_trips(unsigned.1) && round_trips(unsigned.2) && round_trips(unsigned.3)
            && round_trips(unsigned.4) && round_trips(signed.0) && round_trips(signed.1)
            && round_trips(signed.2) && round_trips(signed.3) && round_trips(signed.4)
            && round_trips(unsigned) && round_trips(signed)
    }
    fn other_scalars(floats: (f32, f64), other: (usize, isize, bool, char)) -> bool {
        round_trips(floats.0) && round_trips(floats.1) && round_trips(other.0) && round_trips(other.1)
            && round_trips(other.2) && round_trips(other.3) && round_trips((floats, other))
    }
    fn strings_and_paths(a: String, b: Vec<String>, c: Option<String>, path: String) -> bool {
        round_trips(a) && round_trips(b) && round_trips(c) && round_trips(PathBuf::from(path))
    }
    fn sequences(a: Vec<u32>, b: VecDeque<i16>, c: Vec<Vec<u8>>, d: Vec<f64>, e: Vec<bool>) -> bool {
        let small: SmallVec<[u64; 2]> = a.iter().map(|&n| u64::from(n) << 20).collect();
        round_trips(a) && round_trips(b) && round_trips(c) && round_trips(d) && round_trips(e) && round_trips(small)
    }
    fn maps_and_sets(a: HashMap<u32, String>, b: BTreeMap<String, Vec<u16>>, c: HashSet<i64>, d: BTreeSet<char>) -> bool {
        round_trips_eq(a) && round_trips_eq(b) && round_trips_eq(c) && round_trips_eq(d)
    }
    fn options_and_boxes(a: Option<u32>, b: Option<Option<bool>>, c: Box<i32>, d: Vec<Option<u8>>, e: Option<Vec<i16>>) -> bool {
        round_trips(a) && round_trips(b) && round_trips(c) && round_trips(d) && round_trips(e)
            && round_trips(Box::new(String::from("boxed")))
    }
    fn arrays(a: u32, b: Vec<u8>, c: String) -> bool {
        let mut wide = [0u32; 80];
        wide.iter_mut().enumerate().for_each(|(i, word)| *word = a.rotate_left(i as u32));
        round_trips([a, a ^ 1, a / 3, 7]) && round_trips(wide) && round_trips([b.clone(), b])
            && round_trips([c.clone(), c])
    }
    fn std_types(secs: u64, nanos: u32, v4: u32, port: u16) -> bool {
        let duration = Duration::new(secs, nanos % 1_000_000_000);
        let address = SocketAddr::new(IpAddr::V4(Ipv4Addr::from(v4)), port);
        round_trips(duration) && round_trips(UNIX_EPOCH + Duration::from_secs(secs % (1 << 40)))
            && round_trips(address) && round_trips((address.ip(), vec![duration]))
    }
    fn derived(tag: u32, name: String, counts: Vec<i64>, x: f32, spans: Vec<(u32, u32)>) -> bool {
        let named = Named { tag, name, mode: Mode::Fly, at: Vec3 { x, y: -x, z: 0.5 }, counts };
        let spans: Vec<Span> = spans.into_iter().map(|(a, b)| Span(a, b)).collect();
        round_trips(named.clone()) && round_trips(vec![named]) && round_trips(spans) && round_trips(Mode::Walk)
    }
    fn framed(words: Vec<u32>, degrees: Vec<i16>) -> bool {
        let back: Words = decode(&compact(&Words(words.clone()))).unwrap();
        let mut bytes = Vec::new();
        for degree in &degrees {
            CelsiusCodec::write_compact(&Celsius(*degree), &mut bytes);
        }
        let mut reader = Reader::new(&bytes);
        let read: Vec<i16> =
            degrees.iter().map(|_| CelsiusCodec::read_compact(&mut reader).unwrap().0).collect();
        back == Words(words) && read == degrees && bytes.len() == 2 * degrees.len() && reader.is_empty()
    }

    /// Any bytes: an error or a value that re-encodes to exactly the bytes it was read from.
    fn random_bytes_read_canonically(bytes: Vec<u8>) -> bool {
        canonical::<u64>(&bytes) && canonical::<i32>(&bytes) && canonical::<(char, i16, bool)>(&bytes)
            && canonical::<String>(&bytes) && canonical::<Vec<String>>(&bytes)
            && canonical::<Option<Vec<u16>>>(&bytes) && canonical::<[String; 3]>(&bytes)
            && canonical::<[u32; 80]>(&bytes) && canonical::<Named>(&bytes) && canonical::<Vec<Nothing>>(&bytes)
            && canonical::<BTreeMap<u8, Vec<i128>>>(&bytes) && canonical::<Words>(&bytes)
            && canonical::<Vec<Option<(u8, u32)>>>(&bytes)
    }

    fn every_cut_of_a_value_is_an_error(value: (Vec<String>, BTreeMap<u8, Vec<u16>>, Option<char>, i64)) -> TestResult {
        let bytes = compact(&value);
        for cut in 0..bytes.len() {
            if decode::<(Vec<String>, BTreeMap<u8, Vec<u16>>, Option<char>, i64)>(&bytes[..cut]).is_ok() {
                return TestResult::error(format!("{value:?} decoded from {cut} of its {} bytes", bytes.len()));
            }
        }
        TestResult::passed()
    }
}

/// Reads `T` from the start of `bytes`: an error, or a value whose compact bytes are the ones read
/// (unless a stand-in was read for a value this build lacks, such as an unknown enum variant).
fn canonical<T: PlainType + Debug>(bytes: &[u8]) -> bool {
    let mut reader = Reader::new(bytes);
    match T::read_compact(&mut reader) {
        Ok(_) if reader.substitutions() > 0 => true,
        Ok(value) => {
            let used = &bytes[..bytes.len() - reader.remaining()];
            assert_eq!(compact(&value), used, "{value:?} re-encodes differently");
            true
        }
        Err(_) => true,
    }
}

#[test]
fn exact_layouts() {
    // Varints: seven bits a byte, low group first; signed values zig-zag mapped.
    assert_eq!(compact(&0u32), [0x00]);
    assert_eq!(compact(&0x1234u16), [0xB4, 0x24]);
    assert_eq!(compact(&u64::MAX), [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]);
    assert_eq!(compact(&-1i32), [0x01]);
    assert_eq!(compact(&64i64), [0x80, 0x01]);
    assert_eq!(compact(&i128::MIN).len(), 19);
    assert_eq!(compact(&300usize), [0xAC, 0x02]);
    assert_eq!(compact(&-2isize), [0x03]);
    assert_eq!(compact(&'é'), [0xE9, 0x01]);
    // Bytes, floats and bools keep their bytes.
    assert_eq!(compact(&(0xABu8, -1i8, true)), [0xAB, 0xFF, 0x01]);
    assert_eq!(compact(&1.5f32), 1.5f32.to_le_bytes());
    // Static composites keep their normal content, varint-able parts included.
    assert_eq!(compact(&(1u32, 2u32)), [1, 0, 0, 0, 2, 0, 0, 0]);
    assert_eq!(compact(&Some(7u16)), [1, 7, 0]);
    assert_eq!(compact(&None::<u16>), [0, 0, 0]);
    assert_eq!(compact(&Span(1, 2)), [1, 0, 0, 0, 2, 0, 0, 0]);
    assert_eq!(compact(&Mode::Fly), [3, 0, 0, 0]);
    assert_eq!(compact(&Duration::new(1, 2)), normal(&Duration::new(1, 2)));
    // Strings and sequences: a varint length or count, no per-element sizes.
    assert_eq!(compact(&String::from("oak")), [3, b'o', b'a', b'k']);
    assert_eq!(compact(&vec![String::from("a"), String::new()]), [2, 1, b'a', 0]);
    assert_eq!(compact(&vec![1u32, 300]), [2, 1, 0xAC, 0x02]);
    assert_eq!(compact(&vec![1.0f32]), [1, 0x00, 0x00, 0x80, 0x3F]);
    assert_eq!(compact(&vec![true, false]), [2, 1, 0]);
    assert_eq!(compact(&VecDeque::from([5i16, -5])), [2, 10, 9]);
    // Maps: count, then key and value; hash maps in the order of their keys' bytes.
    assert_eq!(
        compact(&BTreeMap::from([(2u8, String::from("b")), (1, String::from("a"))])),
        [2, 1, 1, b'a', 2, 1, b'b']
    );
    assert_eq!(compact(&HashMap::from([(300u32, 0u8), (1, 1), (2, 2)])), [3, 1, 1, 2, 2, 0xAC, 0x02, 0]);
    assert_eq!(compact(&HashSet::from([128u16, 1])), [2, 1, 0x80, 0x01]);
    // Dynamic options are a tag, then the value; dynamic arrays and tuples their parts.
    assert_eq!(compact(&Some(String::from("x"))), [1, 1, b'x']);
    assert_eq!(compact(&None::<String>), [0]);
    assert_eq!(compact(&[String::from("a"), String::from("b")]), [1, b'a', 1, b'b']);
    assert_eq!(compact(&(7u16, String::from("d"))), [7, 1, b'd']);
    assert_eq!(compact(&Box::new(9u64)), [9]);
    // A dynamic derived struct is its fields in order.
    let named =
        Named { tag: 1, name: "n".into(), mode: Mode::Walk, at: Vec3 { x: 0.0, y: 0.0, z: 0.0 }, counts: vec![-1] };
    let mut expected = vec![1, 1, b'n', 2, 0, 0, 0];
    expected.extend_from_slice(&[0; 12]);
    expected.extend_from_slice(&[1, 1]);
    assert_eq!(compact(&named), expected);
    // A hand-written dynamic type is framed: its normal content after a varint length.
    assert_eq!(compact(&Words(vec![1, 2])), [8, 1, 0, 0, 0, 2, 0, 0, 0]);
    // A struct too wide to be static is its fields, each static here: normal bytes throughout.
    let wide = Wide { first: [9; 200], second: [300; 40] };
    assert_eq!(compact(&wide), normal(&wide)[4..]);
    // A dynamic array of varint-able elements is its elements' varints.
    assert_eq!(compact(&[300u32; 80])[..4], [0xAC, 0x02, 0xAC, 0x02]);
}

#[test]
fn compact_is_smaller_where_it_should_be() {
    let value = (7u16, String::from("door"), vec![300u32, 5]);
    assert_eq!(compact(&value), [7, 4, b'd', b'o', b'o', b'r', 2, 0xAC, 0x02, 5]);
    assert_eq!(normal(&value).len(), 30);
    let counts: Vec<u64> = (0..1000).collect();
    assert_eq!(compact(&counts).len(), 2 + 128 + 872 * 2);
    assert_eq!(normal(&counts).len(), 4 + 4 + 8000);
}

#[test]
fn non_canonical_and_invalid_bytes_are_errors_with_offsets() {
    let invalid = |result: Result<(), PlainError>, at: usize, text: &str| match result {
        Err(PlainError::Invalid { offset, what }) => {
            assert_eq!((offset, what), (at, text));
        }
        other => panic!("expected `{text}` at {at}, got {other:?}"),
    };
    let read = |bytes: &[u8]| -> Result<(), PlainError> { decode::<Vec<u32>>(bytes).map(drop) };
    invalid(read(&[1, 0x80, 0x00]), 1, "overlong varint");
    invalid(read(&[1, 0x80, 0x80, 0x80, 0x80, 0x10]), 1, "varint larger than its type");
    invalid(decode::<u16>(&[0xFF, 0xFF, 0x04]).map(drop), 0, "varint larger than its type");
    invalid(decode::<i16>(&[0x80, 0x80, 0x04]).map(drop), 0, "varint larger than its type");
    invalid(decode::<char>(&[0x80, 0x80, 0xC4, 0x00]).map(drop), 0, "overlong varint");
    invalid(decode::<char>(&[0x80, 0xB0, 0x03]).map(drop), 0, "not a Unicode scalar value");
    invalid(decode::<String>(&[2, 0xC3, 0x28]).map(drop), 1, "string is not valid UTF-8");
    invalid(decode::<Vec<String>>(&[1, 0x80, 0x00]).map(drop), 1, "overlong varint");
    invalid(decode::<Option<String>>(&[2]).map(drop), 0, "Option tag is neither 0 nor 1");
    invalid(decode::<Option<u16>>(&[0, 1, 0]).map(drop), 1, "None with nonzero padding");
    invalid(decode::<bool>(&[2]).map(drop), 0, "bool byte is neither 0 nor 1");
    // A count larger than the bytes left, at the count's offset.
    assert_eq!(
        decode::<Vec<u32>>(&[0x90, 0x4E, 1, 2]),
        Err(PlainError::LengthTooLarge { offset: 0, claimed: 10_000, available: 2 })
    );
    assert!(matches!(decode::<String>(&[5, b'a']), Err(PlainError::LengthTooLarge { offset: 0, claimed: 5, .. })));
    // A count over 32 bits is refused however many bytes follow.
    assert!(matches!(decode::<Vec<u8>>(&[0x80, 0x80, 0x80, 0x80, 0x10]), Err(PlainError::Invalid { offset: 0, .. })));
    // A framed value must be consumed exactly by its content.
    assert_eq!(
        decode::<Words>(&[5, 1, 0, 0, 0, 2]),
        Err(PlainError::UnexpectedEnd { offset: 5, needed: 4, available: 1 })
    );
    // Empty elements are checked against the zero-size allowance, not the input.
    let nothing = compact(&vec![Nothing { none: [] }, Nothing { none: [] }]);
    assert_eq!(nothing, [2]);
    assert_eq!(decode::<Vec<Nothing>>(&nothing).unwrap().len(), 2);
    assert!(matches!(
        decode::<Vec<Nothing>>(&[0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
        Err(PlainError::TooManyZeroSized { offset: 0, .. })
    ));
}

#[test]
fn a_huge_claimed_count_allocates_nothing_it_cannot_justify() {
    // 2^32 - 1 strings claimed by 5 bytes: refused before any allocation.
    let bytes = [0xFF, 0xFF, 0xFF, 0xFF, 0x0F];
    assert!(matches!(decode::<Vec<String>>(&bytes), Err(PlainError::LengthTooLarge { .. })));
    assert!(matches!(decode::<HashMap<u64, u64>>(&bytes), Err(PlainError::LengthTooLarge { .. })));
    assert!(matches!(decode::<BTreeSet<u8>>(&bytes), Err(PlainError::LengthTooLarge { .. })));
}

/// A plain type that holds itself.
#[derive(PlainType, Debug, Clone, PartialEq, Default)]
#[plain(id = 1608)]
struct Tree {
    children: Vec<Tree>,
}

fn tree(depth: usize) -> Tree {
    (0..depth).fold(Tree::default(), |child, _| Tree { children: vec![child] })
}

#[test]
fn recursive_types_nest_only_so_deep_in_both_forms() {
    use reflectable::plain::{read_elem, MAX_PLAIN_DEPTH};
    // The deepest tree the limit admits reads back in both forms; one level more is refused.
    let deepest = tree(MAX_PLAIN_DEPTH - 1);
    assert_eq!(decode::<Tree>(&compact(&deepest)).unwrap(), deepest);
    assert_eq!(read_elem::<Tree>(&mut Reader::new(&normal(&deepest))).unwrap(), deepest);
    let deeper = tree(MAX_PLAIN_DEPTH);
    assert!(matches!(decode::<Tree>(&compact(&deeper)), Err(PlainError::TooDeep { limit: MAX_PLAIN_DEPTH, .. })));
    assert!(matches!(
        read_elem::<Tree>(&mut Reader::new(&normal(&deeper))),
        Err(PlainError::TooDeep { limit: MAX_PLAIN_DEPTH, .. })
    ));
    // A million levels in a million bytes (each `01`, one child, then a childless `00`) is an
    // error, not a stack overflow.
    let mut hostile = vec![1u8; 1_000_000];
    hostile.push(0);
    assert!(matches!(decode::<Tree>(&hostile), Err(PlainError::TooDeep { offset: 128, .. })));
    // The same, read by the type's signature.
    let mut signature = Vec::new();
    Tree::signature(&mut signature);
    let by_signature = reflectable::text::PlainValue::read_compact(&signature, &mut Reader::new(&hostile));
    assert!(matches!(by_signature, Err(reflectable::text::TextError::TooDeep { limit: 64 })));
    let mut normal_hostile = Vec::new();
    for level in 0..100_000u32 {
        let size = 12 * (100_000 - level) + 12;
        normal_hostile.extend_from_slice(&size.to_le_bytes());
        normal_hostile.extend_from_slice(&(size - 4).to_le_bytes());
        normal_hostile.extend_from_slice(&1u32.to_le_bytes());
    }
    normal_hostile.extend_from_slice(&[12, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0]);
    assert!(matches!(read_elem::<Tree>(&mut Reader::new(&normal_hostile)), Err(PlainError::TooDeep { .. })));
    let by_signature = reflectable::text::PlainValue::read(&signature, None, 1, false, &normal_hostile);
    assert!(matches!(by_signature, Err(reflectable::text::TextError::TooDeep { limit: 64 })));
}
