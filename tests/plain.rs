//! Plain codecs: round trips of every plain type, exact byte layouts, and hostile input.

use quickcheck::{quickcheck, TestResult};
use reflectable::plain::{elem_size, read_elem, write_elem, PlainError, PlainType, Reader};
use reflectable::PlainType;
use smallvec::SmallVec;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt::Debug;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn encode<T: PlainType>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    write_elem(value, &mut out);
    out
}

fn decode<T: PlainType>(bytes: &[u8]) -> Result<T, PlainError> {
    let mut reader = Reader::new(bytes);
    let value = read_elem(&mut reader)?;
    reader.expect_end()?;
    Ok(value)
}

/// Encodes, checks the size prediction, decodes, and checks the value comes back (compared by
/// re-encoding, which also holds for NaN floats).
fn round_trips<T: PlainType + Debug>(value: T) -> bool {
    let bytes = encode(&value);
    if bytes.len() != elem_size(&value) {
        return false;
    }
    if let Some(size) = T::STATIC_SIZE {
        if bytes.len() != size as usize {
            return false;
        }
    }
    match decode::<T>(&bytes) {
        Ok(back) => encode(&back) == bytes,
        Err(error) => panic!("{value:?} failed to decode: {error}"),
    }
}

fn round_trips_eq<T: PlainType + Debug + PartialEq>(value: T) -> bool {
    let bytes = encode(&value);
    bytes.len() == elem_size(&value) && decode::<T>(&bytes).as_ref() == Ok(&value)
}

quickcheck! {
    fn integers(unsigned: (u8, u16, u32, u64), signed: (u128, i8, i16, i32)) -> bool {
        round_trips_eq((unsigned, signed))
    }
    fn more_numbers(wide: (i64, i128, f32, f64), other: (usize, isize, bool, char)) -> bool {
        round_trips((wide, other))
    }
    fn durations(secs: u64, nanos: u32) -> bool {
        round_trips_eq(Duration::new(secs / 2, nanos % 1_000_000_000))
    }
    fn strings(a: String, b: Vec<String>, c: Option<String>) -> bool {
        round_trips_eq((a, b, c))
    }
    fn sequences(a: Vec<u32>, b: VecDeque<i16>, c: Vec<Vec<u8>>, d: Vec<f64>) -> bool {
        round_trips_eq((a, b, c)) && round_trips(d)
    }
    fn maps(a: HashMap<u32, String>, b: BTreeMap<String, Vec<u16>>) -> bool {
        round_trips_eq((a, b))
    }
    fn sets(a: HashSet<i64>, b: BTreeSet<String>) -> bool {
        round_trips_eq((a, b))
    }
    fn options_and_boxes(a: Option<u32>, b: Option<Option<bool>>, c: Box<i32>, d: Vec<Option<u8>>) -> bool {
        round_trips_eq((a, b, c, d))
    }
    fn arrays(a: u32, b: Vec<u8>) -> bool {
        let small: [u32; 4] = [a, a.wrapping_add(1), 0, u32::MAX];
        let large: [u64; 40] = std::array::from_fn(|i| i as u64 * u64::from(a));
        let strings: [String; 2] = [a.to_string(), String::new()];
        let smallvec: SmallVec<[u8; 4]> = SmallVec::from_vec(b);
        round_trips_eq((small, strings)) && round_trips_eq(large) && round_trips_eq(smallvec)
    }
    fn derived(x: f32, y: f32, z: f32, tag: u8, name: String) -> bool {
        round_trips(Vec3 { x, y, z })
            && round_trips(vec![Vec3 { x, y, z }; tag as usize % 5])
            && round_trips_eq(Named { tag, name, mode: if tag % 2 == 0 { Mode::Walk } else { Mode::Fly } })
    }
    fn random_bytes_never_panic(bytes: Vec<u8>) -> TestResult {
        let _ = decode::<String>(&bytes);
        let _ = decode::<Vec<String>>(&bytes);
        let _ = decode::<HashMap<u32, Vec<u8>>>(&bytes);
        let _ = decode::<BTreeMap<String, Option<char>>>(&bytes);
        let _ = decode::<(bool, char, Duration, Vec<Vec3>)>(&bytes);
        let _ = decode::<[String; 3]>(&bytes);
        let _ = decode::<Named>(&bytes);
        let _ = decode::<Vec<Mode>>(&bytes);
        TestResult::passed()
    }
    fn mutated_encodings_never_panic(value: (Vec<String>, BTreeMap<u8, Vec<u16>>, Option<char>), flips: Vec<(usize, u8)>) -> bool {
        let mut bytes = encode(&value);
        for (position, mask) in flips {
            if !bytes.is_empty() {
                let len = bytes.len();
                bytes[position % len] ^= mask;
            }
        }
        let _ = decode::<(Vec<String>, BTreeMap<u8, Vec<u16>>, Option<char>)>(&bytes);
        true
    }
}

#[derive(PlainType, Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[plain(id = 1500, pod)]
#[repr(C)]
struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

#[derive(PlainType, Debug, Clone, Copy, PartialEq)]
#[plain(id = 1501)]
enum Mode {
    Walk = 2,
    Fly,
}

#[derive(PlainType, Debug, Clone, PartialEq)]
#[plain(id = 1502)]
struct Named {
    tag: u8,
    name: String,
    mode: Mode,
}

#[derive(PlainType, Debug, Clone, Copy, PartialEq)]
#[plain(id = 1503)]
struct Pair(u16, bool);

#[test]
fn exact_layouts_are_little_endian() {
    assert_eq!(encode(&0x0102_0304u32), [4, 3, 2, 1]);
    assert_eq!(encode(&-2i16), [0xfe, 0xff]);
    assert_eq!(encode(&1.0f32), 1.0f32.to_le_bytes());
    assert_eq!(encode(&true), [1]);
    assert_eq!(encode(&'A'), [0x41, 0, 0, 0]);
    assert_eq!(encode(&usize::MAX), [0xff; 8]);
    // Dynamic: u32 size counting itself, then the content.
    assert_eq!(encode(&String::from("hi")), [6, 0, 0, 0, b'h', b'i']);
    assert_eq!(encode(&vec![1u16, 2]), [12, 0, 0, 0, 2, 0, 0, 0, 1, 0, 2, 0]);
    assert_eq!(
        encode(&vec![String::from("a")]),
        [13, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, b'a'],
        "each dynamic element carries its own size"
    );
    // Static options are fixed-size: a tag then the value or zeros.
    assert_eq!(encode(&Some(7u16)), [1, 7, 0]);
    assert_eq!(encode(&None::<u16>), [0, 0, 0]);
    assert_eq!(<Option<u16> as PlainType>::STATIC_SIZE, Some(3));
    assert_eq!(encode(&None::<String>), [5, 0, 0, 0, 0]);
    // Tuples and derived structs: fields in order.
    assert_eq!(encode(&(1u8, 2u16)), [1, 2, 0]);
    assert_eq!(encode(&Pair(0x0304, true)), [4, 3, 1]);
    assert_eq!(<Pair as PlainType>::STATIC_SIZE, Some(3));
    assert_eq!(encode(&Vec3 { x: 1.0, y: 0.0, z: 0.0 })[..4], 1.0f32.to_le_bytes());
    assert_eq!(encode(&Mode::Fly), [3, 0, 0, 0]);
    assert_eq!(<Named as PlainType>::STATIC_SIZE, None);
    // Large fixed arrays become dynamic (the field header's size byte holds at most 255).
    assert_eq!(<[u8; 255] as PlainType>::STATIC_SIZE, Some(255));
    assert_eq!(<[u8; 256] as PlainType>::STATIC_SIZE, None);
    assert_eq!(encode(&[7u8; 256]).len(), 4 + 256);
}

#[test]
fn pod_bulk_copy_matches_field_by_field_encoding() {
    let values: Vec<Vec3> = (0..100).map(|i| Vec3 { x: i as f32, y: -(i as f32), z: 0.5 }).collect();
    let mut bulk = Vec::new();
    Vec3::write_slice(&values, &mut bulk);
    let mut one_by_one = Vec::new();
    for value in &values {
        value.write(&mut one_by_one);
    }
    assert_eq!(bulk, one_by_one);
    // Read back from every offset within a word, into a vector that already holds one value: the
    // input need not be aligned (offsets 1-3 take the unaligned copy, 0 and 4 the aligned one).
    // Words keep the buffer aligned for `Vec3`'s `f32`s.
    for shift in 0..=4 {
        let mut words = vec![0u32; (bulk.len() + shift).div_ceil(4)];
        let buffer: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
        buffer[shift..shift + bulk.len()].copy_from_slice(&bulk);
        let mut reader = Reader::new(&buffer[..shift + bulk.len()]);
        reader.skip(shift).unwrap();
        let mut back = vec![Vec3 { x: 9.0, y: 9.0, z: 9.0 }];
        Vec3::read_slice(&mut reader, values.len(), &mut back).unwrap();
        assert_eq!(back[0], Vec3 { x: 9.0, y: 9.0, z: 9.0 }, "shift {shift}");
        assert_eq!(back[1..], values[..], "shift {shift}");
        assert_eq!(reader.remaining(), 0, "shift {shift}");
    }
}

#[test]
fn hostile_counts_are_errors_not_allocations() {
    // 20 bytes claiming 4 billion elements.
    let mut bytes = vec![20, 0, 0, 0, 0xff, 0xff, 0xff, 0xff];
    bytes.resize(20, 0);
    let error = decode::<Vec<u64>>(&bytes).unwrap_err();
    assert_eq!(error, PlainError::LengthTooLarge { offset: 4, claimed: u32::MAX as u64, available: 12 });
    assert!(decode::<Vec<String>>(&bytes).is_err());
    assert!(decode::<HashMap<u8, u8>>(&bytes).is_err());
    assert!(decode::<Vec<[u8; 0]>>(&bytes).is_err(), "over the zero-size allowance");
    // A dynamic size larger than the input.
    assert!(matches!(decode::<String>(&[0xff, 0xff, 0xff, 0x7f, b'a']), Err(PlainError::LengthTooLarge { .. })));
    // A dynamic size smaller than its own prefix.
    assert!(matches!(decode::<String>(&[2, 0, 0, 0]), Err(PlainError::Invalid { offset: 0, .. })));
}

#[test]
fn invalid_values_are_errors_with_offsets() {
    assert_eq!(decode::<bool>(&[2]), Err(PlainError::Invalid { offset: 0, what: "bool byte is neither 0 nor 1" }));
    assert!(matches!(decode::<char>(&0xD800u32.to_le_bytes()), Err(PlainError::Invalid { .. })));
    assert!(matches!(decode::<String>(&[6, 0, 0, 0, 0xff, 0xfe]), Err(PlainError::Invalid { offset: 4, .. })));
    assert!(matches!(decode::<Option<u8>>(&[9, 0]), Err(PlainError::Invalid { .. })));
    // An unknown discriminant reads as the first (or `#[default]`) variant, noted on the reader.
    let mut reader = Reader::new(&[0, 0, 0, 0]);
    assert_eq!(read_elem::<Mode>(&mut reader), Ok(Mode::Walk));
    assert_eq!(reader.substitutions(), 1);
    let mut reader = Reader::new(&[3, 0, 0, 0]);
    assert_eq!(read_elem::<Mode>(&mut reader), Ok(Mode::Fly));
    assert_eq!(reader.substitutions(), 0);
    let mut bytes = 5u64.to_le_bytes().to_vec();
    bytes.extend_from_slice(&2_000_000_000u32.to_le_bytes());
    assert!(matches!(decode::<Duration>(&bytes), Err(PlainError::Invalid { offset: 0, .. })));
    assert!(matches!(decode::<u32>(&[1, 2]), Err(PlainError::UnexpectedEnd { offset: 0, needed: 4, available: 2 })));
    // Trailing bytes inside a dynamic element.
    assert!(matches!(decode::<Vec<u8>>(&[10, 0, 0, 0, 1, 0, 0, 0, 7, 8]), Err(PlainError::TrailingBytes { .. })));
}

quickcheck! {
    fn addresses(v4: u32, v6: u128, port: u16, flowinfo: u32, scope_id: u32) -> bool {
        let v4 = Ipv4Addr::from(v4);
        let v6 = Ipv6Addr::from(v6);
        round_trips_eq((v4, v6, IpAddr::V4(v4), IpAddr::V6(v6)))
            && round_trips_eq(SocketAddr::V4(SocketAddrV4::new(v4, port)))
            && round_trips_eq(SocketAddr::V6(SocketAddrV6::new(v6, port, flowinfo, scope_id)))
    }
    fn system_times(secs: i64, nanos: u32) -> bool {
        let offset = Duration::new(secs.unsigned_abs() / 2, nanos % 1_000_000_000);
        let time = if secs < 0 { UNIX_EPOCH - offset } else { UNIX_EPOCH + offset };
        round_trips_eq(time)
    }
    fn paths(text: String, raw: Vec<u8>) -> bool {
        #[cfg(unix)]
        let raw_round_trips = {
            use std::os::unix::ffi::OsStrExt;
            round_trips_eq(PathBuf::from(std::ffi::OsStr::from_bytes(&raw)))
        };
        // Elsewhere a path is Unicode, which `text` covers.
        #[cfg(not(unix))]
        let raw_round_trips = {
            let _ = raw;
            true
        };
        round_trips_eq(PathBuf::from(text)) && raw_round_trips
    }
    fn random_bytes_never_panic_as_std_types(bytes: Vec<u8>) -> TestResult {
        let _ = decode::<(SystemTime, IpAddr, SocketAddr)>(&bytes);
        let _ = decode::<Vec<PathBuf>>(&bytes);
        let _ = decode::<Vec<SocketAddr>>(&bytes);
        TestResult::passed()
    }
}

#[test]
fn std_types_have_these_exact_layouts() {
    assert_eq!(encode(&Ipv4Addr::new(192, 168, 0, 1)), [192, 168, 0, 1]);
    let v6: Ipv6Addr = "2001:db8::1".parse().unwrap();
    assert_eq!(encode(&v6), v6.octets());
    let mut v4_in_ip = vec![4, 10, 0, 0, 7];
    v4_in_ip.resize(17, 0);
    assert_eq!(encode(&IpAddr::V4(Ipv4Addr::new(10, 0, 0, 7))), v4_in_ip);
    assert_eq!(encode(&IpAddr::V6(v6))[..1], [6]);
    let socket = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 7), 0x1f90));
    let mut expected = v4_in_ip.clone();
    expected.extend_from_slice(&[0x90, 0x1f, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(encode(&socket), expected);
    assert_eq!(<SocketAddr as PlainType>::STATIC_SIZE, Some(27));
    // 1.5 s before the epoch: seconds -2, then 0.5 s forward.
    let before = UNIX_EPOCH - Duration::from_millis(1500);
    let mut expected = (-2i64).to_le_bytes().to_vec();
    expected.extend_from_slice(&500_000_000u32.to_le_bytes());
    assert_eq!(encode(&before), expected);
    assert_eq!(encode(&(UNIX_EPOCH + Duration::new(3, 4))), [3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0]);
    assert_eq!(encode(&PathBuf::from("a/b")), [7, 0, 0, 0, b'a', b'/', b'b']);
}

#[test]
fn invalid_std_values_are_errors_with_offsets() {
    let mut bytes = 5i64.to_le_bytes().to_vec();
    bytes.extend_from_slice(&1_000_000_000u32.to_le_bytes());
    assert_eq!(
        decode::<SystemTime>(&bytes),
        Err(PlainError::Invalid { offset: 0, what: "SystemTime nanoseconds out of range" })
    );
    assert!(matches!(decode::<SystemTime>(&bytes[..11]), Err(PlainError::UnexpectedEnd { .. })));

    let mut ip = vec![5];
    ip.resize(17, 0);
    assert_eq!(
        decode::<IpAddr>(&ip),
        Err(PlainError::Invalid { offset: 0, what: "IP address version is neither 4 nor 6" })
    );
    ip[0] = 4;
    ip[16] = 1;
    assert!(matches!(decode::<IpAddr>(&ip), Err(PlainError::Invalid { offset: 5, .. })), "nonzero padding");
    assert!(matches!(decode::<Ipv6Addr>(&[0; 15]), Err(PlainError::UnexpectedEnd { .. })));

    let mut socket = encode(&SocketAddr::from(([1, 2, 3, 4], 80)));
    socket[22] = 1;
    assert!(matches!(decode::<SocketAddr>(&socket), Err(PlainError::Invalid { offset: 19, .. })), "v4 with a flow");

    // Not UTF-8: exact bytes on unix, an error where paths must be Unicode.
    let path = decode::<PathBuf>(&[6, 0, 0, 0, 0xff, b'x']);
    #[cfg(unix)]
    assert_eq!(encode(&path.unwrap()), [6, 0, 0, 0, 0xff, b'x']);
    #[cfg(not(unix))]
    assert!(matches!(path, Err(PlainError::Invalid { offset: 4, .. })));
}

/// `same` either cannot tell (`None`) or says what comparing the written bytes says; a value is
/// never different from itself.
fn same_agrees<T: PlainType>(a: &T, b: &T) -> bool {
    let written = encode(a) == encode(b);
    a.same(b).is_none_or(|same| same == written) && a.same(a) != Some(false)
}

quickcheck! {
    fn same_says_what_the_written_bytes_say(bits: Vec<u32>, flip: usize, pick: u8, text: String) -> bool {
        // `b` is `a`, or `a` with one bit of one word flipped: equal and unequal pairs, NaNs and
        // signed zeros among them.
        let mut other = bits.clone();
        if pick % 2 == 1 && !other.is_empty() {
            let at = flip % other.len();
            other[at] ^= 1 << (pick % 32);
        }
        let floats = |words: &[u32]| words.iter().map(|&w| f32::from_bits(w)).collect::<Vec<f32>>();
        let (fa, fb) = (floats(&bits), floats(&other));
        let vec3s = |f: &[f32]| f.chunks_exact(3).map(|c| Vec3 { x: c[0], y: c[1], z: c[2] }).collect::<Vec<_>>();
        let firsts = |f: &[f32]| (f.len() >= 3).then(|| [f[0], f[1], f[2]]);
        let mut other_text = text.clone();
        if pick % 4 == 1 {
            other_text.push(char::from(b'a' + pick % 26));
        }
        let named = |words: &[u32], name: &str| Named {
            tag: words.first().map_or(0, |&w| w as u8),
            name: name.to_owned(),
            mode: if words.len() % 2 == 0 { Mode::Walk } else { Mode::Fly },
        };
        fa.iter().zip(&fb).all(|(a, b)| same_agrees(a, b))
            && bits.iter().zip(&other).all(|(&a, &b)| same_agrees(&f64::from_bits(u64::from(a) << 32 | 1), &f64::from_bits(u64::from(b) << 32 | 1)))
            && same_agrees(&fa, &fb)
            && same_agrees(&bits, &other)
            && same_agrees(&vec3s(&fa), &vec3s(&fb))
            && same_agrees(&firsts(&fa), &firsts(&fb))
            && same_agrees(&text, &other_text)
            && same_agrees(&named(&bits, &text), &named(&other, &other_text))
            && same_agrees(&(text.clone(), bits.len() as u8), &(other_text.clone(), other.len() as u8))
            && same_agrees(&SmallVec::<[u32; 4]>::from_vec(bits.clone()), &SmallVec::from_vec(other.clone()))
            && same_agrees(&Box::new(Pair(bits.len() as u16, true)), &Box::new(Pair(other.len() as u16, true)))
    }
}

#[test]
fn built_in_and_derived_types_tell_sameness_without_writing() {
    assert_eq!(0.0f32.same(&-0.0), Some(false));
    assert_eq!(f64::NAN.same(&f64::NAN), Some(true));
    assert_eq!('x'.same(&'x'), Some(true));
    assert_eq!(Duration::from_millis(3).same(&Duration::from_millis(4)), Some(false));
    assert_eq!(Some([1.0f32; 3]).same(&None), Some(false));
    assert_eq!(vec![Vec3::default(); 2].same(&vec![Vec3::default(); 2]), Some(true));
    assert_eq!(Mode::Walk.same(&Mode::Fly), Some(false));
    let named = Named { tag: 1, name: "a".into(), mode: Mode::Fly };
    assert_eq!(named.same(&Named { name: "b".into(), ..named.clone() }), Some(false));
    assert_eq!(named.same(&named.clone()), Some(true));
    assert_eq!((1u8, String::from("x")).same(&(1, String::from("x"))), Some(true));
    // Types that do not say leave the caller to compare bytes.
    assert_eq!(PathBuf::from("a").same(&PathBuf::from("a")), None);
    assert_eq!(vec![PathBuf::from("a")].same(&vec![PathBuf::from("b")]), None);
}

/// A plain type that holds itself, in a field of an object.
#[derive(PlainType, Debug, Clone, PartialEq, Default)]
#[plain(id = 1504)]
struct Tree {
    children: Vec<Tree>,
}

#[derive(reflectable::Reflectable, Default)]
#[rtti(id = 1505)]
struct Forest {
    #[rtti(id = 1)]
    tree: Tree,
}

#[test]
fn a_stream_cannot_nest_plain_values_past_the_limit() {
    use reflectable::serializer::DecodeErrorKind;
    let tree = |depth: usize| (0..depth).fold(Tree::default(), |child, _| Tree { children: vec![child] });
    let shallow = Forest { tree: tree(100) };
    let back: Forest = reflectable::from_slice(&reflectable::to_vec(&shallow).unwrap()).unwrap();
    assert_eq!(back.tree, shallow.tree);
    // Writing is the program's own business; reading a file this deep is refused, at the value.
    let bytes = reflectable::to_vec(&Forest { tree: tree(300) }).unwrap();
    let error = reflectable::from_slice::<Forest>(&bytes).err().expect("too deep");
    assert!(matches!(error.kind(), DecodeErrorKind::Plain(PlainError::TooDeep { limit: 128, .. })), "{error}");
}
