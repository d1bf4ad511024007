//! The types and routines the fuzz targets (`fuzz/`) and the regression test
//! (`tests/fuzz_regressions.rs`) share: a rich set of registered types (every field kind, a base
//! chain, trait objects, cycles), seed encodings, and "decode this any way you can".
//!
//! The including crate declares `level` (examples/common/level.rs) beside this module.
#![allow(dead_code)]

use crate::level;
use reflectable::field::SharedObject;
use reflectable::plain::Reader;
use reflectable::rtti::break_cycles;
use reflectable::serializer::format::{Trailer, STREAM_HEADER_SIZE, TRAILER_CHECKSUM, TRAILER_SIZE};
use reflectable::serializer::{BinarySerializer, Limits, SchemaTable};
use reflectable::{reflect_trait, register_type, PlainType, Reflectable, RttiTypeBuilder};
use smallvec::SmallVec;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::{Rc, Weak};
use std::sync::{Arc, Mutex, RwLock};

pub trait Gadget: Reflectable {}
reflect_trait!(Gadget);

#[derive(Reflectable, Default, Debug, Clone)]
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

/// A plain type that holds itself: its nesting is bounded by `plain::MAX_PLAIN_DEPTH`, not by
/// the stack.
#[derive(PlainType, Default, Debug, Clone, PartialEq)]
#[plain(id = 7003)]
pub struct Nest {
    pub tag: u8,
    pub children: Vec<Nest>,
}

/// A hasher with a fixed seed: sample encodings (and so seeds and mutations) are the same every run.
pub type Fixed = std::hash::BuildHasherDefault<std::collections::hash_map::DefaultHasher>;

/// A reflectable enum: unit, tuple and struct variants whose fields include pointers (mutable and
/// immutable), embedded objects (one of them the enum itself) and plain arrays. A stored variant 9
/// (which no build ever wrote) migrates to `Relay`, whose field is an immutable pointer: the
/// stored fields after the tag then go to a variant the immutable pre-scan did not see.
#[derive(Reflectable, Default, Clone)]
#[rtti(id = 700_020, extend = Signal::migrations)]
pub enum Signal {
    #[default]
    #[rtti(id = 1)]
    Off,
    #[rtti(id = 2)]
    Pulse(#[rtti(id = 1)] u32, #[rtti(id = 2)] Vec<u16>, #[rtti(id = 3)] Option<Rc<RefCell<Gear>>>),
    #[rtti(id = 3)]
    Wave {
        #[rtti(id = 1, embedded)]
        spring: Spring,
        #[rtti(id = 2)]
        samples: Vec<f32>,
        #[rtti(id = 3)]
        source: Option<Rc<Spring>>,
        #[rtti(id = 4)]
        next: Option<Rc<RefCell<Signal>>>,
        #[rtti(id = 5, embedded)]
        inner: Option<Box<Signal>>,
        #[rtti(id = 6, embedded)]
        springs: Vec<Spring>,
    },
    #[rtti(id = 4)]
    Relay(#[rtti(id = 1)] Option<Rc<Signal>>),
}

impl Signal {
    fn migrations(builder: RttiTypeBuilder<Self>) -> RttiTypeBuilder<Self> {
        builder.migrate_variant(9, |signal| *signal = Signal::Relay(None))
    }
}

/// A generic type, registered at one instantiation (`Tagged<Spring>`) and not at the other
/// (`Tagged<Gear>`: the decoder finds it only through the type a field declares).
#[derive(Reflectable, Default)]
#[rtti(id = 700_021)]
pub struct Tagged<T: Reflectable + Default> {
    #[rtti(id = 1)]
    pub label: String,
    #[rtti(id = 2, embedded)]
    pub value: T,
    #[rtti(id = 3)]
    pub shared: Option<Rc<RefCell<T>>>,
    #[rtti(id = 4, embedded)]
    pub signal: Signal,
}

register_type!(Tagged<Spring>);

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
    #[rtti(id = 50, embedded)]
    pub signal: Signal,
    #[rtti(id = 51, embedded)]
    pub signals: Vec<Signal>,
    #[rtti(id = 52)]
    pub shared_signals: Vec<Rc<RefCell<Signal>>>,
    #[rtti(id = 53, embedded)]
    pub tagged_spring: Tagged<Spring>,
    #[rtti(id = 54, embedded)]
    pub tagged_gear: Tagged<Gear>,
    #[rtti(id = 55)]
    pub tagged_gear_rc: Option<Rc<Tagged<Gear>>>,
    #[rtti(id = 56)]
    pub tagged_springs: Vec<Rc<RefCell<Tagged<Spring>>>>,
    #[rtti(id = 57)]
    pub by_name: HashMap<String, Rc<RefCell<Machine>>, Fixed>,
    #[rtti(id = 58, embedded)]
    pub signal_map: BTreeMap<u32, Signal>,
    #[rtti(id = 59)]
    pub layers: Vec<Vec<Rc<RefCell<Gear>>>>,
    #[rtti(id = 60)]
    pub maybe_list: Option<Vec<Rc<Spring>>>,
    #[rtti(id = 61)]
    pub holes: Vec<Option<Rc<RefCell<Gear>>>>,
    #[rtti(id = 62, embedded)]
    pub tagged_lists: Vec<Vec<Tagged<Gear>>>,
}

/// An asset, referred to by its path: pointers to it are saved as its key.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 700_040)]
pub struct Blueprint {
    #[rtti(id = 1, asset_key)]
    pub path: String,
    #[rtti(id = 2)]
    pub parts: Vec<u32>,
}

/// Holds assets through typed, `Weak` and trait-object pointers.
#[derive(Reflectable, Default)]
#[rtti(id = 700_041)]
pub struct Depot {
    #[rtti(id = 1)]
    pub blueprints: Vec<Rc<Blueprint>>,
    #[rtti(id = 2)]
    pub latest: Weak<Blueprint>,
    #[rtti(id = 3)]
    pub any: Option<Rc<dyn Reflectable>>,
}

/// The asset manager of the fuzz model: a blueprint for any path, none for other keys.
pub fn find_asset(key: &reflectable::rtti::AssetKey, _type_id: u32) -> Option<SharedObject> {
    match key {
        reflectable::rtti::AssetKey::Path(path) => {
            Some(SharedObject::new_concrete(Rc::new(Blueprint { path: path.clone(), parts: vec![1] })))
        }
        _ => None,
    }
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
    // Enums: a shared one, one pointing at itself, an immutable chain of them, one in a generic.
    let pulse = Rc::new(RefCell::new(Signal::Pulse(7, vec![1, 2], Some(gear.clone()))));
    let looped = Rc::new(RefCell::new(Signal::Off));
    let relay = Rc::new(Signal::Relay(Some(Rc::new(Signal::Relay(Some(Rc::new(Signal::Pulse(
        1,
        vec![9],
        Some(gear.clone()),
    ))))))));
    *looped.borrow_mut() = Signal::Wave {
        spring: Spring { stiffness: 6.0, label: "wave".into() },
        samples: vec![0.5, 1.5],
        source: Some(spring.clone()),
        next: Some(looped.clone()),
        inner: Some(Box::new(Signal::Relay(Some(relay.clone())))),
        springs: vec![Spring::default(), Spring { stiffness: 1.0, label: "w".into() }],
    };
    let wave = |label: &str| Signal::Wave {
        spring: Spring { stiffness: 0.25, label: label.into() },
        samples: vec![2.0],
        source: Some(spring.clone()),
        next: Some(pulse.clone()),
        inner: Some(Box::new(Signal::Pulse(3, vec![4, 5], None))),
        springs: Vec::new(),
    };
    let tagged_gear = |label: &str| Tagged {
        label: label.into(),
        value: Gear { part: Part { serial: 3 }, teeth: 9, meshes_with: vec![other.clone()] },
        shared: Some(gear.clone()),
        signal: Signal::Pulse(2, vec![], Some(gear.clone())),
    };
    let tagged_spring = Rc::new(RefCell::new(Tagged {
        label: "tagged spring".into(),
        value: Spring { stiffness: 4.0, label: "tagged".into() },
        shared: Some(Rc::new(RefCell::new(Spring::default()))),
        signal: Signal::Relay(Some(relay.clone())),
    }));
    // The inner machine holds itself through a map value: a cycle through a map object.
    machine.borrow_mut().by_name.insert("self".into(), machine.clone());
    machine.borrow_mut().signal = Signal::Pulse(11, vec![], Some(gear.clone()));
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
        cells: vec![other.clone(), gear.clone(), other.clone()],
        pair: [Some(spring.clone()), Some(spring.clone())],
        any_cell: Some(gear.clone()),
        machines: vec![machine.clone(), machine.clone()],
        signal: wave("root wave"),
        signals: vec![Signal::Off, Signal::Pulse(4, vec![8; 3], Some(gear.clone())), wave("in a vec")],
        shared_signals: vec![pulse.clone(), looped.clone(), pulse.clone()],
        tagged_spring: Tagged {
            label: "embedded".into(),
            value: Spring { stiffness: 5.0, label: "tagged by value".into() },
            shared: None,
            signal: Signal::Off,
        },
        tagged_gear: tagged_gear("embedded gear"),
        tagged_gear_rc: Some(Rc::new(tagged_gear("shared gear"))),
        tagged_springs: vec![tagged_spring.clone(), tagged_spring],
        by_name: [("inner".to_owned(), machine.clone()), ("again".to_owned(), machine.clone())].into_iter().collect(),
        signal_map: BTreeMap::from([
            (1, Signal::Pulse(1, vec![1], None)),
            (5, Signal::Off),
            (
                9,
                Signal::Wave {
                    spring: Spring::default(),
                    samples: vec![],
                    source: None,
                    next: Some(looped),
                    inner: None,
                    springs: vec![],
                },
            ),
            (12, Signal::Relay(Some(relay))),
        ]),
        layers: vec![vec![gear.clone(), gear.clone()], vec![], vec![gear.clone()]],
        maybe_list: Some(vec![spring.clone(), Rc::new(Spring { stiffness: 8.0, label: "listed".into() })]),
        holes: vec![None, Some(gear.clone()), None],
        tagged_lists: vec![vec![tagged_gear("listed gear"), Tagged::default()], vec![]],
    };
    machine.borrow_mut().machines.push(machine.clone());
    let (small_level, _) = level::build_level(12, 3);
    let hall = Rc::new(Blueprint { path: "hall.bp".into(), parts: vec![1, 2, 3] });
    let depot = Depot {
        blueprints: vec![hall.clone(), Rc::new(Blueprint { path: "tower.bp".into(), parts: vec![] }), hall.clone()],
        latest: Rc::downgrade(&hall),
        any: Some(hall),
    };
    vec![Box::new(root), Box::new(small_level), Box::new(Motor { rpm: 1, ..Motor::default() }), Box::new(depot)]
}

/// The seed encodings: every sample value, encoded, the first one again with a checksum, then
/// fingerprint-table and compact forms, every sample in version 5, and the first one last with
/// every type's fingerprint changed ([`with_foreign_fingerprints`]).
/// (Their cycles are broken afterwards.)
pub fn sample_encodings() -> Vec<Vec<u8>> {
    let serializer = BinarySerializer::new();
    let checksummed = BinarySerializer::new().checksum(true);
    let mut encodings = Vec::new();
    for (index, value) in sample_values().into_iter().enumerate() {
        encodings.push(serializer.encode(&*value).expect("samples encode"));
        if index == 0 {
            encodings.push(checksummed.encode(&*value).expect("samples encode"));
        }
        break_cycles(&*value);
    }
    // A fingerprint table in place of the schema table (`SchemaTable::Fingerprints`): a seed for
    // its check, and for reading objects no table describes.
    let listed = BinarySerializer::new().schema_table(SchemaTable::Fingerprints);
    let first = sample_values().into_iter().next().expect("a sample");
    encodings.push(listed.encode(&*first).expect("samples encode"));
    break_cycles(&*first);
    // Compact streams (version 4) of the first sample and of the level, for the compact
    // transcoder and every decoder behind it.
    for index in [0, 2] {
        let compact = reflectable::serializer::compact::to_compact(&encodings[index]).expect("samples go compact");
        encodings.push(compact);
    }
    // And the first one compact with a fingerprint table (the no-schema variant).
    let message = BinarySerializer::new()
        .schema_table(SchemaTable::Fingerprints)
        .encoding(reflectable::serializer::Encoding::Compact);
    let first = sample_values().into_iter().next().expect("a sample");
    encodings.push(message.encode(&*first).expect("samples encode"));
    break_cycles(&*first);
    // Version 5 (a length after each top-level object's header) of every sample: for the length
    // checks, the index that jumps, and the walk of what no pointer reaches.
    let v5 = BinarySerializer::new().format_version(5);
    for value in sample_values() {
        encodings.push(v5.encode(&*value).expect("samples encode"));
        break_cycles(&*value);
    }
    encodings.push(with_foreign_fingerprints(&encodings[0]));
    encodings
}

/// The compact samples among [`sample_encodings`]: what `decode_compact` frames its input with.
pub fn compact_samples() -> Vec<Vec<u8>> {
    sample_encodings().into_iter().filter(|bytes| bytes[4] == 4).collect()
}

/// `objects` as the objects of compact stream `sample`: its header, then `objects`, then its
/// plain block, schema table and a trailer recording `count` objects and the true length. So
/// arbitrary bytes reach the compact transcoder (and, when they transcode, every decoder)
/// rather than stopping at the trailer.
pub fn compact_framed(sample: &[u8], objects: &[u8], count: u32) -> Vec<u8> {
    let block = STREAM_HEADER_SIZE + compact_objects(sample).len();
    let end = sample.len() - TRAILER_SIZE;
    let mut bytes = sample[..STREAM_HEADER_SIZE].to_vec();
    bytes.extend_from_slice(objects);
    bytes.extend_from_slice(&sample[block..end]);
    let length = (bytes.len() + TRAILER_SIZE) as u64;
    let trailer =
        Trailer { flags: reflectable::serializer::format::TRAILER_COMPACT, objects: count, length, checksum: 0 };
    bytes.extend_from_slice(&trailer.to_bytes());
    bytes
}

/// The objects of compact stream `sample`: what lies between its header and its plain block.
pub fn compact_objects(sample: &[u8]) -> &[u8] {
    let word = |at: usize| u32::from_le_bytes(sample[at..at + 4].try_into().unwrap()) as usize;
    let end = sample.len() - TRAILER_SIZE;
    let table = end - word(end - 4);
    let block = table - word(table - 4);
    &sample[STREAM_HEADER_SIZE..block]
}

/// `decode_compact`: the first byte picks a compact sample, the rest are its objects
/// ([`compact_framed`]). Decoded every way ([`exercise`], which also checks that a dynamic graph
/// writes the compact stream back byte for byte); when the object count is what failed, again
/// with the count the decoder found, so that the objects are read through.
pub fn exercise_compact(data: &[u8], samples: &[Vec<u8>]) {
    let Some((&which, objects)) = data.split_first() else { return };
    let sample = &samples[which as usize % samples.len()];
    let bytes = compact_framed(sample, objects, 1);
    exercise(&bytes);
    if let Err(error) = reflectable::serializer::compact::to_normal(&bytes) {
        assert!(error.offset().is_some_and(|offset| offset <= bytes.len()), "{error}");
    }
    if let Err(error) = BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(&bytes) {
        if let reflectable::serializer::DecodeErrorKind::ObjectCountMismatch { found, .. } = error.kind() {
            exercise(&compact_framed(sample, objects, *found as u32));
        }
    }
}

/// A version 3 stream whose schema table gives every type another fingerprint (the first byte
/// flipped): the table no longer matches the running types, so every type is read through the
/// evolved path (a plan per type), which then reads every field as it is. A seed for that path.
pub fn with_foreign_fingerprints(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let end = out.len() - TRAILER_SIZE;
    let word = |out: &[u8], at: usize| u32::from_le_bytes(out[at..at + 4].try_into().unwrap()) as usize;
    let start = end - word(&out, end - 4);
    // Mark, count, then entries: length word, type ID, fingerprint, ...
    let mut entry = start + 8;
    for _ in 0..word(&out, start + 4) {
        out[entry + 8] ^= 1;
        entry += 4 + word(&out, entry);
    }
    out
}

/// The trailer at the end of `bytes`, when there is one, and where it starts.
fn trailer(bytes: &[u8]) -> Option<(usize, Trailer)> {
    let end = bytes.len().checked_sub(TRAILER_SIZE).filter(|&end| end >= STREAM_HEADER_SIZE)?;
    Some((end, Trailer::from_bytes(bytes[end..].try_into().ok()?)?))
}

/// The objects of a version 2 or 3 stream as a version 1 stream (no schema table, no trailer),
/// so that whatever a fuzzer does to a body reaches the body's decoder, not only the trailer and
/// table checks; `None` for anything that does not end with a trailer. A version 3 stream's table
/// is found by the length word before the trailer; when that does not fit, only the trailer goes.
pub fn without_trailer(bytes: &[u8]) -> Option<Vec<u8>> {
    let version = bytes.get(4..8)?;
    if version != 2u32.to_le_bytes() && version != 3u32.to_le_bytes() {
        return None;
    }
    let (end, _) = trailer(bytes)?;
    let mut objects_end = end;
    if version == 3u32.to_le_bytes() && end >= STREAM_HEADER_SIZE + 4 {
        let length = u32::from_le_bytes(bytes[end - 4..end].try_into().ok()?) as usize;
        if let Some(start) = end.checked_sub(length).filter(|&start| start >= STREAM_HEADER_SIZE) {
            objects_end = start;
        }
    }
    let mut v1 = bytes[..objects_end].to_vec();
    v1[4..8].copy_from_slice(&1u32.to_le_bytes());
    Some(v1)
}

/// `bytes` with its trailer's length set to the input's actual length (the object count as it
/// is, the checksum flag cleared), so that bytes a fuzzer inserted into or deleted from a schema
/// table reach the table's parser instead of the length check; `None` when the input does not
/// end with a trailer or the trailer already has nothing to fix.
pub fn with_actual_length(bytes: &[u8]) -> Option<Vec<u8>> {
    if bytes.get(4..8) == Some(&5u32.to_le_bytes()[..]) {
        return with_actual_length_v5(bytes);
    }
    let (end, mut found) = trailer(bytes)?;
    if found.length == bytes.len() as u64 && found.flags & TRAILER_CHECKSUM == 0 {
        return None;
    }
    found.length = bytes.len() as u64;
    found.flags &= !TRAILER_CHECKSUM;
    found.checksum = 0;
    let mut fixed = bytes.to_vec();
    fixed[end..].copy_from_slice(&found.to_bytes());
    Some(fixed)
}

/// [`with_actual_length`] of a version 5 stream, whose 56-byte trailer also records where the
/// table starts and its CRC: set from the table's own length word (when it fits), so a changed
/// table or a resized stream reaches the table's parser and the objects' decoder.
fn with_actual_length_v5(bytes: &[u8]) -> Option<Vec<u8>> {
    const SIZE: usize = 56;
    let end = bytes.len().checked_sub(SIZE).filter(|&end| end >= STREAM_HEADER_SIZE + 4)?;
    if bytes[end..end + 4] != [0xC8, b'E', b'N', b'D'] {
        return None;
    }
    let mut fixed = bytes.to_vec();
    fixed[end + 12..end + 20].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
    fixed[end + 4] &= !(TRAILER_CHECKSUM as u8);
    fixed[end + 52..end + 56].fill(0);
    let table_length = u32::from_le_bytes(bytes[end - 4..end].try_into().ok()?) as usize;
    if let Some(start) = end.checked_sub(table_length).filter(|&start| start >= STREAM_HEADER_SIZE) {
        fixed[end + 20..end + 28].copy_from_slice(&(start as u64).to_le_bytes());
        fixed[end + 44..end + 48].copy_from_slice(&crc32fast::hash(&bytes[start..end]).to_le_bytes());
    }
    (fixed != bytes).then_some(fixed)
}

/// Decodes `bytes` every way the API offers (root by value, in each shared family, with tight
/// limits), re-encodes whatever decodes, and breaks the cycles of everything it built; then the
/// same for the input with its trailer's length fixed ([`with_actual_length`]) and for the
/// stream's objects alone ([`without_trailer`]). Must never panic, whatever the bytes.
pub fn exercise(bytes: &[u8]) {
    decode_every_way(bytes);
    dynamic_writes_back(bytes);
    kept_without_types(bytes);
    kept_by_slim_types(bytes);
    let _ = reflectable::schema::Schema::of_stream(bytes);
    if let Some(fixed) = with_actual_length(bytes) {
        decode_every_way(&fixed);
        let _ = reflectable::schema::Schema::of_stream(&fixed);
    }
    if let Some(body) = without_trailer(bytes) {
        decode_every_way(&body);
    }
}

/// `written` is `bytes` again, or (for a stream whose objects are not in the writers'
/// depth-first order) the same graph with its objects in that order, which writes back exactly.
pub fn same_stream(written: &[u8], bytes: &[u8]) {
    use reflectable::dynamic::DynamicGraph;
    if written != bytes {
        let (graph, reread) = (DynamicGraph::from_bytes(bytes).unwrap(), DynamicGraph::from_bytes(written).unwrap());
        assert_eq!(reread, graph, "objects written in another order are the same graph");
        assert_eq!(reread.to_bytes().unwrap(), written, "a stream in the writers' order writes back exactly");
    }
}

/// Whatever the dynamic decoder reads, it writes back byte for byte (up to the order of its
/// objects, see `same_stream`); within tight limits too.
pub fn dynamic_writes_back(bytes: &[u8]) {
    if let Ok(graph) = reflectable::dynamic::DynamicGraph::from_bytes(bytes) {
        same_stream(&graph.to_bytes().expect("a read graph writes"), bytes);
        // What `reflectable dump` shows: plain values taken apart by the types the (possibly
        // hostile) schema table claims; a value that does not read as its type is an error.
        for object in graph.objects() {
            let object = object.borrow();
            for (section, field) in object.fields() {
                let shown = section.plain_value(field).map(|value| value.to_string());
                let fast = section.plain_text(field).map(|text| text.to_string());
                assert_eq!(shown.ok(), fast.ok(), "plain_text shows what plain_value shows");
            }
        }
    }
    let tight = TIGHT;
    let _ = reflectable::serializer::BinarySerializer::new()
        .limits(tight)
        .decode::<reflectable::dynamic::DynamicGraph>(bytes);
}

/// Decoding with no types at all, keeping every described type as a runtime-defined one: nothing
/// may panic, and what loads saves and loads again.
pub fn kept_without_types(bytes: &[u8]) {
    keeping_save_reloads(&reflectable::Registry::new(), bytes);
}

/// Decodes `bytes` with `registry`, keeping unknown types and fields; whatever loads and saves
/// must load again.
fn keeping_save_reloads(registry: &reflectable::Registry, bytes: &[u8]) {
    let serializer = BinarySerializer::with_registry(registry).keep_unknown_types(true);
    if let Ok(root) = serializer.decode::<Box<dyn reflectable::Reflectable>>(bytes) {
        if let Ok(again) = serializer.encode(&*root) {
            let reloaded =
                serializer.decode::<Box<dyn reflectable::Reflectable>>(&again).expect("a save of kept data loads");
            break_cycles(&*reloaded);
        }
        break_cycles(&*root);
    }
}

/// An older build of two sample types, with fewer fields and a member keeping the rest.
mod slim {
    use super::Part;
    use reflectable::{Reflectable, UnknownFields};

    #[derive(Reflectable, Default)]
    #[rtti(id = 700_000, name = "Spring", no_register)]
    pub struct Spring {
        #[rtti(id = 2)]
        pub label: String,
        #[rtti(unknown)]
        pub kept: UnknownFields,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 700_002, name = "Gear", no_register)]
    pub struct Gear {
        #[rtti(base)]
        pub part: Part,
        #[rtti(unknown)]
        pub kept: UnknownFields,
    }
}

/// Decoding with the slimmer build ([`slim`]), keeping unknown fields and types: nothing may
/// panic, and what loads saves and loads again.
pub fn kept_by_slim_types(bytes: &[u8]) {
    let mut registry = reflectable::Registry::new();
    registry.register_type::<slim::Spring>().expect("slim types register");
    registry.register_type::<slim::Gear>().expect("slim types register");
    registry.register_type::<Part>().expect("slim types register");
    keeping_save_reloads(&registry, bytes);
}

fn decode_every_way(bytes: &[u8]) {
    let serializer = BinarySerializer::new();
    // Derived types' generated readers and the descriptor walk read every input alike: the same
    // graph (written back the same) or the same error.
    let walked = BinarySerializer::new().generated_codecs(false);
    let written =
        [&serializer, &walked].map(|reader| match reader.decode::<Box<dyn reflectable::Reflectable>>(bytes) {
            Ok(root) => {
                let written = serializer.encode(&*root).map_err(|error| error.to_string());
                break_cycles(&*root);
                Ok(written)
            }
            Err(error) => Err(error.to_string()),
        });
    assert_eq!(written[0], written[1], "the generated readers and the descriptor walk disagree");
    if let Ok(root) = serializer.decode::<Rc<RefCell<Machine>>>(bytes) {
        let _ = serializer.encode(&root);
        clear_shared(&SharedObject::new(root));
    }
    if let Ok(root) = serializer.decode::<Rc<RefCell<level::SceneObject>>>(bytes) {
        clear_shared(&SharedObject::new(root));
    }
    if let Ok(root) = serializer.decode::<Arc<Mutex<dyn Gadget>>>(bytes) {
        clear_shared(&SharedObject::new(root));
    }
    let _ = serializer.decode::<Rc<Spring>>(bytes);
    // Asset references found through an asset manager.
    let assets = BinarySerializer::new().assets(&find_asset);
    if let Ok(root) = assets.decode::<Box<dyn reflectable::Reflectable>>(bytes) {
        break_cycles(&*root);
    }
    let tight = TIGHT;
    if let Ok(root) = BinarySerializer::new().limits(tight).decode::<Box<dyn reflectable::Reflectable>>(bytes) {
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

/// Decodes `data` as several plain types, in the normal and in the compact element form. Whatever
/// decodes must decode again after re-encoding (in both forms), and, except for maps and sets
/// (duplicate keys, order), re-encode to the very bytes it came from.
pub fn plain_round_trips(data: &[u8]) {
    use reflectable::plain::{read_elem_with, write_elem_with, PlainCodec};
    type Write<T> = fn(&T, &mut Vec<u8>);
    type Read<T> = fn(&mut Reader<'_>) -> Result<T, reflectable::plain::PlainError>;
    fn check<T: reflectable::plain::PlainType + std::fmt::Debug>(data: &[u8], canonical: bool) {
        check_with::<reflectable::plain::Native, T>(data, canonical)
    }
    fn check_with<K: PlainCodec<T>, T: std::fmt::Debug>(data: &[u8], canonical: bool) {
        let normal: (Write<T>, Read<T>) = (write_elem_with::<K, T>, read_elem_with::<K, T>);
        let compact: (Write<T>, Read<T>) = (K::write_compact, K::read_compact);
        for (read_from, other) in [(normal, compact), (compact, normal)] {
            let mut reader = Reader::new(data);
            let Ok(value) = read_from.1(&mut reader) else { continue };
            let consumed = &data[..data.len() - reader.remaining()];
            let mut again = Vec::new();
            read_from.0(&value, &mut again);
            if canonical && reader.substitutions() == 0 {
                assert_eq!(again, consumed, "{value:?} re-encodes differently");
            }
            // The value re-encodes and reads back in both forms.
            for form in [read_from, other] {
                let mut bytes = Vec::new();
                form.0(&value, &mut bytes);
                let mut reader = Reader::new(&bytes);
                form.1(&mut reader).expect("a re-encoded value decodes");
                assert!(reader.is_empty());
            }
        }
        compact_by_signature::<K, T>(data, canonical);
    }
    /// What the typed compact codec reads, the signature-driven reader reads too, to the same
    /// end, and writes back the same bytes (it keeps a map's stored order; the typed codec sorts).
    fn compact_by_signature<K: PlainCodec<T>, T: std::fmt::Debug>(data: &[u8], canonical: bool) {
        let mut signature = Vec::new();
        K::signature(&mut signature);
        let mut typed = Reader::new(data);
        let Ok(value) = K::read_compact(&mut typed) else { return };
        if typed.substitutions() > 0 {
            return;
        }
        let mut by_signature = Reader::new(data);
        let taken = match reflectable::text::PlainValue::read_compact(&signature, &mut by_signature) {
            Ok(taken) => taken,
            // Taken apart, a value shows fewer elements of no size, and nests less deeply, than
            // a typed decoder admits.
            Err(_)
                if reflectable::plain::ZERO_SIZED_ALLOWANCE - typed.zero_sized_left()
                    > reflectable::text::MAX_ZERO_SIZED_SHOWN =>
            {
                return
            }
            Err(reflectable::text::TextError::TooDeep { .. }) => return,
            Err(error) => panic!("{value:?} read typed, not by its signature: {error}"),
        };
        assert_eq!(typed.remaining(), by_signature.remaining(), "{value:?} read to another end by its signature");
        let consumed = &data[..data.len() - typed.remaining()];
        let mut again = Vec::new();
        taken.write_compact(&signature, &mut again).expect("a value read writes back");
        if canonical {
            assert_eq!(again, consumed, "{taken} written back by its signature");
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
    check::<Nest>(data, true);
    check::<std::time::Duration>(data, true);
    check::<(std::time::SystemTime, std::net::IpAddr, std::net::SocketAddr)>(data, true);
    check::<Vec<std::path::PathBuf>>(data, true);
    check::<SmallVec<[f64; 2]>>(data, true);
    check::<BTreeMap<u8, String>>(data, false);
    check::<HashMap<u16, Vec<u8>>>(data, false);
    check::<HashSet<i32>>(data, false);
    #[cfg(feature = "glam")]
    check::<(glam::Vec3, glam::Quat, glam::Mat4, glam::Affine3A, glam::IVec2, glam::Vec3A)>(data, true);
    // Serde values through postcard: std types only (no derive here), none recursive (postcard
    // does not bound nesting, SECURITY.md). Not checked for canonical form: postcard accepts a
    // `char` written as a longer string, for one (found by this target), and maps re-encode in
    // their own order.
    #[cfg(feature = "serde")]
    check_with::<reflectable::plain::SerdeCodec, (Vec<String>, Option<u32>, (i64, bool, char))>(data, false);
    #[cfg(feature = "serde")]
    check_with::<reflectable::plain::SerdeCodec, BTreeMap<String, Vec<f32>>>(data, false);
}

fn clear_shared(root: &SharedObject) {
    for shared in reflectable::rtti::reachable_shared(root) {
        if let Ok(cleared) = shared.write(reflectable::rtti::clear_pointers) {
            cleared.expect("the model's pointer fields can all be cleared");
        }
    }
}

/// Text read as a value of one of several types (the first byte picks it): whatever reads, shown
/// again, reads back to the same text; nothing panics. Then the same text is set into every plain
/// field of a sample object, which takes it or leaves the field unchanged.
pub fn text_reads_back(data: &[u8]) {
    use reflectable::plain::PlainType;
    fn sig<T: PlainType>() -> Vec<u32> {
        let mut out = Vec::new();
        T::signature(&mut out);
        out
    }
    let Some((&which, text)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(text);
    let signatures = [
        sig::<u32>(),
        sig::<i128>(),
        sig::<f32>(),
        sig::<String>(),
        sig::<char>(),
        sig::<Vec<Option<f64>>>(),
        sig::<HashMap<String, (i8, bool)>>(),
        sig::<Record>(),
        sig::<[Mode; 3]>(),
        sig::<(char, String, u128)>(),
        sig::<Option<Box<Marker>>>(),
        sig::<std::time::Duration>(),
        sig::<std::net::SocketAddr>(),
        sig::<BTreeMap<u8, Vec<Record>>>(),
    ];
    let signature = &signatures[usize::from(which) % signatures.len()];
    if let Ok(value) = reflectable::text::parse(signature, &text) {
        let shown = value.to_string();
        let again = reflectable::text::parse(signature, &shown).expect("shown text reads back");
        assert_eq!(again.to_string(), shown, "the text form is stable");
    }
    let mut machine = Machine::default();
    for field in Machine::rtti_static().fields() {
        let before = field.to_text(&machine).ok();
        if field.set_from_text(&mut machine, &text).is_err() {
            assert_eq!(field.to_text(&machine).ok(), before, "a refused text changes nothing");
        }
    }
}

/// The JSON form, both ways (the first byte picks): a stream that reads converts to JSON and back
/// to exactly its bytes; arbitrary text read as a document, dynamic or as the example level or
/// the sample machine (maps, enums, nested lists, shared pointers), gives a graph that writes,
/// or an error, never a panic.
pub fn json_reads_back(data: &[u8]) {
    use reflectable::dynamic::DynamicGraph;
    use reflectable::json;
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode % 2 == 0 {
        if let Ok(graph) = DynamicGraph::from_bytes(rest) {
            let text = graph.to_json().expect("a read graph has a JSON form");
            let back = DynamicGraph::from_json(&text).expect("its JSON reads back");
            same_stream(&back.to_bytes().expect("it writes"), rest);
        }
        return;
    }
    let text = String::from_utf8_lossy(rest);
    let reader = json::JsonReader::new();
    if let Ok(graph) = reader.read::<reflectable::dynamic::DynamicGraph>(&text).map(|(graph, _)| graph) {
        if let Ok(bytes) = graph.to_bytes() {
            let _ = DynamicGraph::from_bytes(&bytes);
        }
    }
    if let Ok((level, _)) = reader.read::<level::Level>(&text) {
        break_cycles(&level);
    }
    if let Ok((machine, _)) = reader.read::<Machine>(&text) {
        let _ = reflectable::to_vec(&machine);
        break_cycles(&machine);
    }
}

/// The `json` target's seeds, named: every sample stream ([`sample_encodings`], the decode seeds)
/// behind the stream mode byte (`sample-*.bin.stream`), and the sample values' JSON text behind
/// the text mode byte, printed compact (the fuzzer's inputs are short), with its schema table
/// (`text-*.json`) and without, as a hand-written document naming the program's types would be
/// (`untyped-*.json`).
pub fn json_seeds() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (index, bytes) in sample_encodings().into_iter().enumerate() {
        out.push((format!("sample-{index}.bin.stream"), [[0].as_slice(), &bytes].concat()));
    }
    for (index, value) in sample_values().into_iter().enumerate() {
        let text = reflectable::json::to_string(&*value).expect("samples have a JSON form");
        break_cycles(&*value);
        let mut document: serde_json::Value = serde_json::from_str(&text).expect("their JSON parses");
        let typed = serde_json::to_vec(&document).expect("JSON prints");
        document.as_object_mut().expect("a document").remove("types");
        let untyped = serde_json::to_vec(&document).expect("JSON prints");
        out.push((format!("text-{index}.json"), [[1].as_slice(), &typed].concat()));
        out.push((format!("untyped-{index}.json"), [[1].as_slice(), &untyped].concat()));
    }
    out
}

/// A structure-aware mutation of a `json` target input: JSON text ([`mutate_json`] behind its
/// mode byte); a stream sometimes turned into its JSON text (so streams the fuzzer finds become
/// documents to mutate). `None` otherwise (the fuzzer mutates those byte by byte).
pub fn mutate_json_input(data: &[u8], seed: u64) -> Option<Vec<u8>> {
    let (&mode, rest) = data.split_first()?;
    if mode % 2 == 0 {
        if level::Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1).below(8) != 0 {
            return None;
        }
        let text = reflectable::json::from_bytes(rest).ok()?;
        return Some([[1].as_slice(), text.as_bytes()].concat());
    }
    let text = mutate_json(std::str::from_utf8(rest).ok()?, seed)?;
    Some([[mode].as_slice(), text.as_bytes()].concat())
}

/// What a node of a JSON document is, and the member it is the value of.
struct JsonNode {
    key: Option<String>,
    kind: JsonKind,
    /// Inside the document's `objects` (not its schema table or header).
    object: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum JsonKind {
    Number,
    String,
    Array,
    Object,
    Other,
}

/// The document's nodes in pre-order (the order [`json_node`] counts them in).
fn json_nodes(value: &serde_json::Value, key: Option<&str>, object: bool, out: &mut Vec<JsonNode>) {
    use serde_json::Value;
    let kind = match value {
        Value::Number(_) => JsonKind::Number,
        Value::String(_) => JsonKind::String,
        Value::Array(_) => JsonKind::Array,
        Value::Object(_) => JsonKind::Object,
        _ => JsonKind::Other,
    };
    out.push(JsonNode { key: key.map(str::to_owned), kind, object });
    let top = out.len() == 1;
    match value {
        Value::Array(items) => items.iter().for_each(|item| json_nodes(item, None, object, out)),
        Value::Object(members) => {
            for (key, item) in members {
                json_nodes(item, Some(key), object || top && key == "objects", out);
            }
        }
        _ => {}
    }
}

/// Node `n` of the document, in pre-order.
fn json_node(value: &mut serde_json::Value, n: usize) -> Option<&mut serde_json::Value> {
    fn walk<'a>(value: &'a mut serde_json::Value, n: &mut usize) -> Option<&'a mut serde_json::Value> {
        if *n == 0 {
            return Some(value);
        }
        *n -= 1;
        match value {
            serde_json::Value::Array(items) => items.iter_mut().find_map(|item| walk(item, n)),
            serde_json::Value::Object(members) => members.values_mut().find_map(|item| walk(item, n)),
            _ => None,
        }
    }
    walk(value, &mut { n })
}

/// How many nodes `value` has.
fn json_size(value: &serde_json::Value) -> usize {
    1 + match value {
        serde_json::Value::Array(items) => items.iter().map(json_size).sum(),
        serde_json::Value::Object(members) => members.values().map(json_size).sum(),
        _ => 0,
    }
}

/// What the printer does besides printing: repeat one member of one object (JSON the parser
/// keeps only the last of), print one node as raw text (numbers past what `serde_json` holds).
#[derive(Default)]
struct JsonPrint {
    duplicate: Option<(usize, usize)>,
    raw: Option<(usize, String)>,
}

impl JsonPrint {
    fn print(&self, value: &serde_json::Value) -> String {
        let mut out = String::new();
        self.write(value, &mut 0, &mut out);
        out
    }

    fn write(&self, value: &serde_json::Value, at: &mut usize, out: &mut String) {
        use serde_json::Value;
        let me = *at;
        *at += 1;
        if let Some((_, raw)) = self.raw.as_ref().filter(|(n, _)| *n == me) {
            out.push_str(raw);
            *at += json_size(value) - 1;
            return;
        }
        match value {
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.write(item, at, out);
                }
                out.push(']');
            }
            Value::Object(members) => {
                out.push('{');
                for (i, (key, item)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    let key = serde_json::to_string(key).expect("a key prints");
                    out.push_str(&key);
                    out.push(':');
                    self.write(item, at, out);
                    if self.duplicate == Some((me, i)) {
                        out.push(',');
                        out.push_str(&key);
                        out.push(':');
                        out.push_str(&serde_json::to_string(item).expect("a value prints"));
                    }
                }
                out.push('}');
            }
            scalar => out.push_str(&serde_json::to_string(scalar).expect("a value prints")),
        }
    }
}

/// A structure-aware mutation of JSON text: parsed (`None` if it does not parse), one to three
/// changes among numbers (boundaries, one off, `$ref`s to other objects or none, counts),
/// `$type`/`$variant` names swapped or made up, a member duplicated or an unknown one added or
/// one removed, a node nested deeper, array elements duplicated, removed or swapped, a subtree
/// copied over another, base64 bytes edited, numbers past 64 bits; printed compact.
pub fn mutate_json(text: &str, seed: u64) -> Option<String> {
    use base64::Engine;
    use serde_json::{json, Value};
    let mut document: Value = serde_json::from_str(text).ok()?;
    let mut rng = level::Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    rng.next();
    let mut print = JsonPrint::default();
    for _ in 0..1 + rng.below(3) {
        let mut nodes = Vec::new();
        json_nodes(&document, None, false, &mut nodes);
        // Mostly the objects: a schema table changed reads as nothing much.
        let objects_only = rng.below(8) != 0 && nodes.iter().any(|node| node.object);
        let names: Vec<String> = {
            let mut names = Vec::new();
            collect_names(&document, &mut names);
            names
        };
        let ids: Vec<u64> = {
            let mut ids = Vec::new();
            collect_ids(&document, &mut ids);
            ids
        };
        let pick = |rng: &mut level::Rng, want: &dyn Fn(&JsonNode) -> bool| {
            let matching: Vec<usize> =
                (0..nodes.len()).filter(|&n| (nodes[n].object || !objects_only) && want(&nodes[n])).collect();
            (!matching.is_empty()).then(|| matching[rng.below(matching.len())])
        };
        let is_ref = |node: &JsonNode| matches!(node.key.as_deref(), Some("$ref" | "$id"));
        match rng.below(14) {
            // Numbers, most of all: counts, indices, IDs, references.
            0..=3 => {
                let Some(n) = pick(&mut rng, &|node| node.kind == JsonKind::Number) else { continue };
                let new = if is_ref(&nodes[n]) && !ids.is_empty() && rng.bool() {
                    json!(ids[rng.below(ids.len())])
                } else {
                    let old = json_node(&mut document, n).and_then(|v| v.as_i64()).unwrap_or(0);
                    match rng.below(12) {
                        0 => json!(0),
                        1 => json!(1),
                        2 => json!(old.wrapping_sub(1)),
                        3 => json!(old.wrapping_add(1)),
                        4 => json!(u32::MAX),
                        5 => json!(u64::from(u32::MAX) + 1),
                        6 => json!(-1),
                        7 => json!(u64::MAX),
                        8 => json!(i64::MIN),
                        9 => json!(old.wrapping_mul(2)),
                        10 => json!(0.5),
                        _ => json!(1u64 << rng.below(64)),
                    }
                };
                *json_node(&mut document, n)? = new;
            }
            // A `$ref` where a value was, or a `$ref`'s value a string.
            4 => {
                let Some(n) = pick(&mut rng, &|node| node.key.is_some()) else { continue };
                let target = ids.get(rng.below(ids.len().max(1))).copied().unwrap_or(1);
                *json_node(&mut document, n)? = match rng.below(3) {
                    0 => json!({ "$ref": target }),
                    1 => json!({ "$ref": target.to_string() }),
                    _ => json!({ "$ref": target, "$id": target }),
                };
            }
            // Type and variant names: another the document has, one it lacks, an ID.
            5 => {
                let keys = |node: &JsonNode| matches!(node.key.as_deref(), Some("$type" | "$variant" | "name"));
                let Some(n) = pick(&mut rng, &keys) else { continue };
                *json_node(&mut document, n)? = match rng.below(4) {
                    0 | 1 if !names.is_empty() => json!(names[rng.below(names.len())]),
                    2 => json!("Unknown"),
                    _ => json!(rng.below(1 << 20)),
                };
            }
            // A member repeated (printed twice).
            6 => {
                let Some(n) = pick(&mut rng, &|node| node.kind == JsonKind::Object) else { continue };
                let members = json_node(&mut document, n)?.as_object()?.len();
                if members > 0 {
                    print.duplicate = Some((n, rng.below(members)));
                }
            }
            // An unknown member, or one the format reserves, added.
            7 => {
                let Some(n) = pick(&mut rng, &|node| node.kind == JsonKind::Object) else { continue };
                let key = ["unknown", "$unknown", "$wire", "$ref", "$id", "$bases", "$count", "$bytes", "$variant"]
                    [rng.below(9)];
                let value = match rng.below(4) {
                    0 => json!(null),
                    1 => json!(rng.below(4)),
                    2 => json!("plain:4"),
                    _ => json!({}),
                };
                json_node(&mut document, n)?.as_object_mut()?.insert(key.to_owned(), value);
            }
            // A node nested deeper: in arrays, or as a member of an object.
            8 => {
                let Some(n) = pick(&mut rng, &|_| true) else { continue };
                let node = json_node(&mut document, n)?;
                let mut value = node.take();
                let most = if rng.below(8) == 0 { 40 } else { 3 };
                for _ in 0..1 + rng.below(most) {
                    value = if rng.bool() { json!([value]) } else { json!({ "$type": "Tile", "value": value }) };
                }
                *node = value;
            }
            // Array elements duplicated, removed, swapped.
            9 => {
                let Some(n) = pick(&mut rng, &|node| node.kind == JsonKind::Array) else { continue };
                let items = json_node(&mut document, n)?.as_array_mut()?;
                let len = items.len();
                match rng.below(3) {
                    0 if len > 0 => {
                        let item = items[rng.below(len)].clone();
                        items.insert(rng.below(len + 1), item);
                    }
                    1 if len > 0 => {
                        items.remove(rng.below(len));
                    }
                    _ if len > 1 => items.swap(rng.below(len), rng.below(len)),
                    _ => items.push(json!(0)),
                }
            }
            // A subtree copied over another.
            10 => {
                let (Some(from), Some(to)) = (pick(&mut rng, &|_| true), pick(&mut rng, &|_| true)) else { continue };
                let from = json_node(&mut document, from)?.clone();
                *json_node(&mut document, to)? = from;
            }
            // A member removed, or a value made null, a bool, empty.
            11 => {
                let Some(n) = pick(&mut rng, &|node| node.kind == JsonKind::Object) else { continue };
                let object = json_node(&mut document, n)?.as_object_mut()?;
                if !object.is_empty() {
                    let key = object.keys().nth(rng.below(object.len()))?.clone();
                    if rng.bool() {
                        object.shift_remove(&key);
                    } else {
                        let value = [json!(null), json!(true), json!(""), json!([]), json!({})][rng.below(5)].clone();
                        object.insert(key, value);
                    }
                }
            }
            // Base64 bytes (element bytes, stored forms) edited.
            12 => {
                let Some(n) = pick(&mut rng, &|node| node.kind == JsonKind::String) else { continue };
                let node = json_node(&mut document, n)?;
                let engine = base64::engine::general_purpose::STANDARD;
                let Some(mut bytes) = node.as_str().and_then(|s| engine.decode(s).ok()) else { continue };
                match rng.below(3) {
                    0 if bytes.len() >= 4 => {
                        let at = rng.below(bytes.len() - 3);
                        let word = [0, 1, u32::MAX, 0x7FFF_FFFF, bytes.len() as u32][rng.below(5)];
                        bytes[at..at + 4].copy_from_slice(&word.to_le_bytes());
                    }
                    1 => bytes = bytes.repeat(2),
                    _ => bytes.truncate(rng.below(bytes.len() + 1)),
                }
                *node = json!(engine.encode(bytes));
            }
            // A number no 64-bit integer holds, or not quite a number.
            _ => {
                let Some(n) = pick(&mut rng, &|node| node.kind == JsonKind::Number) else { continue };
                let raw =
                    ["18446744073709551616", "-9223372036854775809", "1e999", "-0", "1.0", "4294967296e0", "0.0e-5"]
                        [rng.below(7)];
                print.raw = Some((n, raw.to_owned()));
            }
        }
    }
    Some(print.print(&document))
}

/// The type and variant names a document uses or describes.
fn collect_names(value: &serde_json::Value, out: &mut Vec<String>) {
    use serde_json::Value;
    match value {
        Value::Array(items) => items.iter().for_each(|item| collect_names(item, out)),
        Value::Object(members) => {
            for (key, item) in members {
                if let ("$type" | "$variant" | "name", Value::String(name)) = (key.as_str(), item) {
                    if out.len() < 256 && !out.contains(name) {
                        out.push(name.clone());
                    }
                }
                collect_names(item, out);
            }
        }
        _ => {}
    }
}

/// The `$id`s of a document's objects.
fn collect_ids(value: &serde_json::Value, out: &mut Vec<u64>) {
    use serde_json::Value;
    match value {
        Value::Array(items) => items.iter().for_each(|item| collect_ids(item, out)),
        Value::Object(members) => {
            if let Some(id) = members.get("$id").and_then(Value::as_u64) {
                out.push(id);
            }
            members.values().for_each(|item| collect_ids(item, out));
        }
        _ => {}
    }
}

/// Limits small enough that fuzzed streams reach every refusal, the drop check's included.
const TIGHT: Limits =
    Limits { max_depth: 4, max_objects: 8, max_array_len: 16, max_allocation: Some(4096), max_drop_stack: Some(512) };
