//! The types and routines the fuzz targets (`fuzz/`) and the regression test
//! (`tests/fuzz_regressions.rs`) share: a rich set of registered types (every field kind, a base
//! chain, trait objects, cycles), seed encodings, and "decode this any way you can".
//!
//! The including crate declares `level` (examples/common/level.rs) beside this module.
#![allow(dead_code)]

use crate::level;
use reflectable::field::SharedObject;
use reflectable::plain::{read_elem, write_elem, Reader};
use reflectable::rtti::break_cycles;
use reflectable::serializer::{BinarySerializer, Limits, MemorySerializer};
use reflectable::{reflect_trait, PlainType, Reflectable};
use smallvec::SmallVec;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::{Rc, Weak};
use std::sync::{Arc, Mutex, RwLock};

pub trait Gadget: Reflectable {}
reflect_trait!(Gadget);

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 700_000, implements(Gadget))]
pub struct Spring {
    #[rtti(id = 1)]
    pub stiffness: f32,
    #[rtti(id = 2)]
    pub label: String,
}
impl Gadget for Spring {}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 700_001, abstract)]
pub struct Part {
    #[rtti(id = 1)]
    pub serial: u64,
}

#[derive(Reflectable, Default)]
#[rtti(id = 700_002, implements(Gadget))]
pub struct Gear {
    #[rtti(base)]
    pub part: Part,
    #[rtti(id = 1)]
    pub teeth: u16,
    #[rtti(id = 2)]
    pub meshes_with: Vec<Rc<RefCell<dyn Gadget>>>,
}
impl Gadget for Gear {}

#[derive(Reflectable, Default)]
#[rtti(id = 700_003, implements(Gadget))]
pub struct Motor {
    #[rtti(base)]
    pub gear: Gear,
    #[rtti(id = 1)]
    pub rpm: u32,
    #[rtti(id = 2, embedded)]
    pub spare: Option<Box<Motor>>,
}
impl Gadget for Motor {}

#[derive(PlainType, Default, Debug, Clone, Copy, PartialEq)]
#[plain(id = 7000)]
pub enum Mode {
    #[default]
    Idle,
    Run = 3,
    Stop,
}

#[derive(PlainType, Default, Debug, Clone, PartialEq)]
#[plain(id = 7001)]
pub struct Record {
    pub id: u32,
    pub name: String,
    pub tags: Vec<String>,
    pub mode: Mode,
}

/// A plain type of static size 0: arrays of it take no bytes.
#[derive(PlainType, Default, Debug, Clone, Copy, PartialEq)]
#[plain(id = 7002)]
pub struct Marker;

/// A hasher with a fixed seed: sample encodings (and so seeds and mutations) are the same every run.
pub type Fixed = std::hash::BuildHasherDefault<std::collections::hash_map::DefaultHasher>;

/// Every field kind and form.
#[derive(Reflectable, Default)]
#[rtti(id = 700_010)]
pub struct Machine {
    #[rtti(id = 1)]
    pub name: String,
    #[rtti(id = 2)]
    pub numbers: (u8, i16, u32, i64, f32, f64, bool, char),
    #[rtti(id = 3)]
    pub records: Vec<Record>,
    #[rtti(id = 4)]
    pub table: HashMap<String, Vec<u32>, Fixed>,
    #[rtti(id = 5)]
    pub sorted: BTreeMap<u16, Option<String>>,
    #[rtti(id = 6)]
    pub set: HashSet<u64, Fixed>,
    #[rtti(id = 7, array)]
    pub fixed: [i32; 4],
    #[rtti(id = 8)]
    pub small: SmallVec<[u16; 2]>,
    #[rtti(id = 9)]
    pub modes: Vec<Mode>,
    #[rtti(id = 10)]
    pub markers: Vec<Marker>,
    #[rtti(id = 11)]
    pub marker_lists: Vec<Vec<Marker>>,
    #[rtti(id = 20, embedded)]
    pub spring: Spring,
    #[rtti(id = 21, embedded)]
    pub maybe_spring: Option<Spring>,
    #[rtti(id = 22)]
    pub gadget: Option<Box<dyn Gadget>>,
    #[rtti(id = 23)]
    pub any: Option<Box<dyn Reflectable>>,
    #[rtti(id = 24, embedded)]
    pub springs: Vec<Spring>,
    #[rtti(id = 25)]
    pub gadgets: Vec<Box<dyn Gadget>>,
    #[rtti(id = 26, embedded)]
    pub motor: Option<Box<Motor>>,
    #[rtti(id = 40)]
    pub rc: Option<Rc<Spring>>,
    #[rtti(id = 41)]
    pub cell: Option<Rc<RefCell<Gear>>>,
    #[rtti(id = 42)]
    pub arc: Option<Arc<Spring>>,
    #[rtti(id = 43)]
    pub mutex: Option<Arc<Mutex<dyn Gadget>>>,
    #[rtti(id = 44)]
    pub rwlock: Option<Arc<RwLock<Spring>>>,
    #[rtti(id = 45)]
    pub weak: Weak<RefCell<Gear>>,
    #[rtti(id = 46)]
    pub cells: Vec<Rc<RefCell<dyn Gadget>>>,
    #[rtti(id = 47)]
    pub pair: [Option<Rc<Spring>>; 2],
    #[rtti(id = 48)]
    pub any_cell: Option<Rc<RefCell<dyn Reflectable>>>,
    #[rtti(id = 49)]
    pub machines: Vec<Rc<RefCell<Machine>>>,
}

/// A few values covering every type above, with sharing and cycles.
pub fn sample_values() -> Vec<Box<dyn Reflectable>> {
    let gear = Rc::new(RefCell::new(Gear { part: Part { serial: 7 }, teeth: 12, meshes_with: vec![] }));
    let other: Rc<RefCell<dyn Gadget>> = Rc::new(RefCell::new(Motor {
        gear: Gear { part: Part { serial: 8 }, teeth: 30, meshes_with: vec![gear.clone()] },
        rpm: 1200,
        spare: Some(Box::new(Motor { rpm: 5, ..Motor::default() })),
    }));
    gear.borrow_mut().meshes_with.push(other.clone());
    let spring = Rc::new(Spring { stiffness: 2.5, label: "s".into() });
    let machine = Rc::new(RefCell::new(Machine::default()));
    let root = Machine {
        name: "root".into(),
        numbers: (1, -2, 3, -4, 0.5, 0.25, true, 'x'),
        records: vec![Record { id: 1, name: "r".into(), tags: vec!["a".into()], mode: Mode::Run }],
        table: [("k".to_owned(), vec![1, 2]), ("j".to_owned(), vec![])].into_iter().collect(),
        sorted: BTreeMap::from([(1, Some("one".into())), (2, None)]),
        set: [5, 6, 7].into_iter().collect(),
        fixed: [1, 2, 3, 4],
        small: SmallVec::from_slice(&[1, 2, 3]),
        modes: vec![Mode::Idle, Mode::Stop],
        markers: vec![Marker; 5],
        marker_lists: vec![vec![Marker; 2], Vec::new()],
        spring: Spring { stiffness: 1.0, label: "by value".into() },
        maybe_spring: Some(Spring::default()),
        gadget: Some(Box::new(Spring { stiffness: 3.0, label: "boxed".into() })),
        any: Some(Box::new(Gear::default())),
        springs: vec![Spring::default(), Spring { stiffness: 9.0, label: String::new() }],
        gadgets: vec![Box::new(Motor::default()), Box::new(Spring::default())],
        motor: Some(Box::new(Motor { rpm: 60, ..Motor::default() })),
        rc: Some(spring.clone()),
        cell: Some(gear.clone()),
        arc: Some(Arc::new(Spring::default())),
        mutex: Some(Arc::new(Mutex::new(Spring::default()))),
        rwlock: Some(Arc::new(RwLock::new(Spring::default()))),
        weak: Rc::downgrade(&gear),
        cells: vec![other.clone(), gear.clone(), other],
        pair: [Some(spring.clone()), Some(spring)],
        any_cell: Some(gear),
        machines: vec![machine.clone(), machine.clone()],
    };
    machine.borrow_mut().machines.push(machine.clone());
    let (small_level, _) = level::build_level(12, 3);
    vec![Box::new(root), Box::new(small_level), Box::new(Motor { rpm: 1, ..Motor::default() })]
}

/// The seed encodings: every sample value, encoded, and the first one again with a checksum.
/// (Their cycles are broken afterwards.)
pub fn sample_encodings() -> Vec<Vec<u8>> {
    let serializer = MemorySerializer::new();
    let checksummed = MemorySerializer::with(BinarySerializer::new().checksum(true));
    let mut encodings = Vec::new();
    for (index, value) in sample_values().into_iter().enumerate() {
        encodings.push(serializer.encode(&*value).expect("samples encode"));
        if index == 0 {
            encodings.push(checksummed.encode(&*value).expect("samples encode"));
        }
        break_cycles(&*value);
    }
    encodings
}

/// A version 2 stream as version 1 would have written it (no trailer), so that whatever a fuzzer
/// does to a body reaches the body's decoder, not only the trailer check; `None` for anything
/// that is not a version 2 stream with room for a trailer.
pub fn without_trailer(bytes: &[u8]) -> Option<Vec<u8>> {
    use reflectable::serializer::format::{STREAM_HEADER_SIZE, TRAILER_SIZE};
    if bytes.len() < STREAM_HEADER_SIZE + TRAILER_SIZE || bytes[4..8] != 2u32.to_le_bytes() {
        return None;
    }
    let mut v1 = bytes[..bytes.len() - TRAILER_SIZE].to_vec();
    v1[4..8].copy_from_slice(&1u32.to_le_bytes());
    Some(v1)
}

/// Decodes `bytes` every way the API offers (root by value, in each shared family, with tight
/// limits), re-encodes whatever decodes, and breaks the cycles of everything it built; then the
/// same for the stream's body alone ([`without_trailer`]). Must never panic, whatever the bytes.
pub fn exercise(bytes: &[u8]) {
    decode_every_way(bytes);
    if let Some(body) = without_trailer(bytes) {
        decode_every_way(&body);
    }
}

fn decode_every_way(bytes: &[u8]) {
    let serializer = MemorySerializer::new();
    if let Ok(root) = serializer.decode(bytes) {
        let _ = serializer.encode(&*root);
        break_cycles(&*root);
    }
    if let Ok(root) = serializer.decode_shared::<Rc<RefCell<Machine>>>(bytes) {
        let _ = serializer.encode(&root);
        clear_shared(&SharedObject::new(root));
    }
    if let Ok(root) = serializer.decode_shared::<Rc<RefCell<level::SceneObject>>>(bytes) {
        clear_shared(&SharedObject::new(root));
    }
    if let Ok(root) = serializer.decode_shared::<Arc<Mutex<dyn Gadget>>>(bytes) {
        clear_shared(&SharedObject::new(root));
    }
    let _ = serializer.decode_shared::<Rc<Spring>>(bytes);
    let tight =
        Limits { max_depth: 4, max_objects: 8, max_array_len: 16, max_allocation: Some(4096), max_pointer_chain: 2 };
    if let Ok(root) = BinarySerializer::new().limits(tight).decode(bytes, &mut ()) {
        break_cycles(&*root);
    }
}

/// Applies `ops` (position, value, operation) to a copy of `seed`.
pub fn mutate(seed: &[u8], ops: &[u8]) -> Vec<u8> {
    let mut bytes = seed.to_vec();
    for op in ops.chunks_exact(4) {
        if bytes.is_empty() {
            break;
        }
        let at = u16::from_le_bytes([op[0], op[1]]) as usize % bytes.len();
        match op[3] % 5 {
            0 => bytes[at] = op[2],
            1 => bytes[at] ^= 1 << (op[2] % 8),
            2 => bytes.insert(at, op[2]),
            3 => {
                bytes.remove(at);
            }
            _ => {
                // Overwrite a whole word: counts, sizes, IDs and headers live in words.
                let at = at & !3;
                let word = u32::from(op[2]) * 0x0101_0101;
                if at + 4 <= bytes.len() {
                    bytes[at..at + 4].copy_from_slice(&word.to_le_bytes());
                }
            }
        }
    }
    bytes
}

/// Decodes `data` as several plain types. Whatever decodes must decode again after re-encoding,
/// and, except for maps and sets (duplicate keys, order), re-encode to the very bytes it came from.
pub fn plain_round_trips(data: &[u8]) {
    fn check<T: reflectable::plain::PlainType + std::fmt::Debug>(data: &[u8], canonical: bool) {
        let mut reader = Reader::new(data);
        if let Ok(value) = read_elem::<T>(&mut reader) {
            let consumed = &data[..data.len() - reader.remaining()];
            let mut again = Vec::new();
            write_elem(&value, &mut again);
            if canonical {
                assert_eq!(again, consumed, "{value:?} re-encodes differently");
            }
            let mut reader = Reader::new(&again);
            read_elem::<T>(&mut reader).expect("a re-encoded value decodes");
            assert!(reader.is_empty());
        }
    }
    check::<u64>(data, true);
    check::<(bool, char, i16)>(data, true);
    check::<String>(data, true);
    check::<Vec<String>>(data, true);
    check::<Option<Vec<u16>>>(data, true);
    check::<Option<(u8, u32)>>(data, true);
    check::<[String; 3]>(data, true);
    check::<[u32; 80]>(data, true);
    check::<Record>(data, true);
    check::<Vec<Mode>>(data, true);
    check::<Vec<Vec<Marker>>>(data, true);
    check::<std::time::Duration>(data, true);
    check::<(std::time::SystemTime, std::net::IpAddr, std::net::SocketAddr)>(data, true);
    check::<Vec<std::path::PathBuf>>(data, true);
    check::<SmallVec<[f64; 2]>>(data, true);
    check::<BTreeMap<u8, String>>(data, false);
    check::<HashMap<u16, Vec<u8>>>(data, false);
    check::<HashSet<i32>>(data, false);
}

fn clear_shared(root: &SharedObject) {
    for shared in reflectable::rtti::reachable_from_shared(root) {
        if let Ok(cleared) = shared.write(reflectable::rtti::clear_pointers) {
            cleared.expect("the model's pointer fields can all be cleared");
        }
    }
}
