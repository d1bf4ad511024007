//! Random schema evolution: a writer and a reader built at run time with random fields (added,
//! removed, retyped among fifteen plain types), random values written by one and read by the
//! other. Every reader field either holds exactly the value FORMAT.md's conversion rules give,
//! or keeps its default and the report names the field: never a reinterpreted value.

use quickcheck::{quickcheck, TestResult};
use reflectable::serializer::{BinarySerializer, DecodeEvent, SkipReason};
use reflectable::{Reflectable, Registry, RttiType, RttiTypeBuilder};
use std::collections::BTreeMap;
use std::sync::OnceLock;

const TYPE_ID: u32 = 640_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    U8,
    U16,
    U32,
    U64,
    I8,
    I32,
    I64,
    F32,
    F64,
    Bool,
    Str,
    OptU32,
    OptStr,
    VecU16,
    VecI64,
}

const KINDS: [Kind; 15] = [
    Kind::U8,
    Kind::U16,
    Kind::U32,
    Kind::U64,
    Kind::I8,
    Kind::I32,
    Kind::I64,
    Kind::F32,
    Kind::F64,
    Kind::Bool,
    Kind::Str,
    Kind::OptU32,
    Kind::OptStr,
    Kind::VecU16,
    Kind::VecI64,
];

#[derive(Clone, Debug, PartialEq)]
enum Val {
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    I8(i8),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Bool(bool),
    Str(String),
    OptU32(Option<u32>),
    OptStr(Option<String>),
    VecU16(Vec<u16>),
    VecI64(Vec<i64>),
}

/// An object of a type defined at run time: its descriptor, and the value of each field.
struct Bag {
    rtti: &'static RttiType,
    slots: BTreeMap<u16, Val>,
}

impl Reflectable for Bag {
    fn rtti(&self) -> &'static RttiType {
        self.rtti
    }
    fn rtti_static() -> &'static RttiType {
        static EMPTY: OnceLock<&'static RttiType> = OnceLock::new();
        EMPTY.get_or_init(|| build(&[]))
    }
}

macro_rules! slot {
    ($builder:expr, $id:expr, $variant:ident, $ty:ty) => {{
        let id = $id;
        $builder.plain_computed::<$ty>(
            id,
            format!("f{id}"),
            move |bag: &Bag| match bag.slots.get(&id) {
                Some(Val::$variant(value)) => value.clone(),
                _ => Default::default(),
            },
            move |bag: &mut Bag, value| {
                bag.slots.insert(id, Val::$variant(value));
            },
        )
    }};
}

macro_rules! array_slot {
    ($builder:expr, $id:expr, $variant:ident, $elem:ty) => {{
        let id = $id;
        let get = move |bag: &Bag| match bag.slots.get(&id) {
            Some(Val::$variant(value)) => value.clone(),
            _ => Vec::new(),
        };
        let set = move |bag: &mut Bag, value: Vec<$elem>| {
            bag.slots.insert(id, Val::$variant(value));
        };
        $builder.plain_array_computed::<Vec<$elem>>(id, format!("f{id}"), get, set)
    }};
}

/// A type with `fields`, built and leaked (the registry holds `'static` descriptors).
fn build(fields: &[(u16, Kind)]) -> &'static RttiType {
    let cell: &'static OnceLock<&'static RttiType> = Box::leak(Box::new(OnceLock::new()));
    let mut builder = RttiTypeBuilder::<Bag>::new(TYPE_ID, "Bag")
        .constructor(move || Bag { rtti: cell.get().expect("set after building"), slots: BTreeMap::new() });
    for &(id, kind) in fields {
        builder = match kind {
            Kind::U8 => slot!(builder, id, U8, u8),
            Kind::U16 => slot!(builder, id, U16, u16),
            Kind::U32 => slot!(builder, id, U32, u32),
            Kind::U64 => slot!(builder, id, U64, u64),
            Kind::I8 => slot!(builder, id, I8, i8),
            Kind::I32 => slot!(builder, id, I32, i32),
            Kind::I64 => slot!(builder, id, I64, i64),
            Kind::F32 => slot!(builder, id, F32, f32),
            Kind::F64 => slot!(builder, id, F64, f64),
            Kind::Bool => slot!(builder, id, Bool, bool),
            Kind::Str => slot!(builder, id, Str, String),
            Kind::OptU32 => slot!(builder, id, OptU32, Option<u32>),
            Kind::OptStr => slot!(builder, id, OptStr, Option<String>),
            Kind::VecU16 => array_slot!(builder, id, VecU16, u16),
            Kind::VecI64 => array_slot!(builder, id, VecI64, i64),
        };
    }
    let rtti: &'static RttiType = Box::leak(Box::new(builder.build().expect("a valid type")));
    cell.set(rtti).ok();
    rtti
}

/// A small deterministic generator, so a failing seed reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn random_value(kind: Kind, rng: &mut Rng) -> Val {
    let bits = rng.next();
    match kind {
        Kind::U8 => Val::U8(bits as u8),
        Kind::U16 => Val::U16(bits as u16),
        Kind::U32 => Val::U32(bits as u32),
        Kind::U64 => Val::U64(bits),
        Kind::I8 => Val::I8(bits as i8),
        Kind::I32 => Val::I32(bits as i32),
        Kind::I64 => Val::I64(bits as i64),
        Kind::F32 => Val::F32((bits as i32) as f32 / 8.0),
        Kind::F64 => Val::F64((bits as i64) as f64 / 1024.0),
        Kind::Bool => Val::Bool(bits & 1 == 1),
        Kind::Str => Val::Str(format!("s{}", bits % 1000)),
        Kind::OptU32 => Val::OptU32((bits & 1 == 1).then_some((bits >> 8) as u32)),
        Kind::OptStr => Val::OptStr((bits & 1 == 1).then(|| format!("o{}", bits % 100))),
        Kind::VecU16 => Val::VecU16((0..bits % 4).map(|i| (bits >> (i * 8)) as u16).collect()),
        Kind::VecI64 => Val::VecI64((0..bits % 4).map(|i| (bits >> i) as i64 - (1 << 40)).collect()),
    }
}

/// An integer's class: (signed, bits).
fn integer(value: &Val) -> Option<(bool, u32, i128)> {
    Some(match *value {
        Val::U8(v) => (false, 8, v.into()),
        Val::U16(v) => (false, 16, v.into()),
        Val::U32(v) => (false, 32, v.into()),
        Val::U64(v) => (false, 64, v.into()),
        Val::I8(v) => (true, 8, v.into()),
        Val::I32(v) => (true, 32, v.into()),
        Val::I64(v) => (true, 64, v.into()),
        _ => return None,
    })
}

/// The value `stored` becomes in a field of kind `to`, by FORMAT.md's lossless conversions;
/// `None` when none applies (the field is then skipped and reported). Written from the rules,
/// not from the decoder.
fn expected(stored: &Val, to: Kind) -> Option<Val> {
    if let Some((signed, bits, v)) = integer(stored) {
        let widen_int = |to_signed: bool, to_bits: u32| match (signed, to_signed) {
            (false, false) | (true, true) => to_bits >= bits,
            (false, true) => to_bits > bits,
            (true, false) => false,
        };
        return match to {
            Kind::U16 if widen_int(false, 16) => Some(Val::U16(v as u16)),
            Kind::U32 if widen_int(false, 32) => Some(Val::U32(v as u32)),
            Kind::U64 if widen_int(false, 64) => Some(Val::U64(v as u64)),
            Kind::U8 if widen_int(false, 8) => Some(Val::U8(v as u8)),
            Kind::I8 if widen_int(true, 8) => Some(Val::I8(v as i8)),
            Kind::I32 if widen_int(true, 32) => Some(Val::I32(v as i32)),
            Kind::I64 if widen_int(true, 64) => Some(Val::I64(v as i64)),
            Kind::F32 if bits <= 16 => Some(Val::F32(v as f32)),
            Kind::F64 if bits <= 32 => Some(Val::F64(v as f64)),
            Kind::OptU32 if widen_int(false, 32) => Some(Val::OptU32(Some(v as u32))),
            Kind::VecU16 if widen_int(false, 16) => Some(Val::VecU16(vec![v as u16])),
            Kind::VecI64 if widen_int(true, 64) => Some(Val::VecI64(vec![v as i64])),
            _ => None,
        };
    }
    match (stored, to) {
        (Val::F32(v), Kind::F32) => Some(Val::F32(*v)),
        (Val::F32(v), Kind::F64) => Some(Val::F64(f64::from(*v))),
        (Val::F64(v), Kind::F64) => Some(Val::F64(*v)),
        (Val::Bool(v), Kind::Bool) => Some(Val::Bool(*v)),
        (Val::Str(v), Kind::Str) => Some(Val::Str(v.clone())),
        (Val::Str(v), Kind::OptStr) => Some(Val::OptStr(Some(v.clone()))),
        (Val::OptU32(v), Kind::OptU32) => Some(Val::OptU32(*v)),
        (Val::OptStr(v), Kind::OptStr) => Some(Val::OptStr(v.clone())),
        (Val::VecU16(v), Kind::VecU16) => Some(Val::VecU16(v.clone())),
        (Val::VecU16(v), Kind::VecI64) => Some(Val::VecI64(v.iter().map(|&x| x.into()).collect())),
        (Val::VecI64(v), Kind::VecI64) => Some(Val::VecI64(v.clone())),
        _ => None,
    }
}

fn random_fields(rng: &mut Rng) -> Vec<(u16, Kind)> {
    let mut fields = Vec::new();
    for id in 1..=6u16 {
        if rng.below(4) != 0 {
            fields.push((id, KINDS[rng.below(KINDS.len() as u64) as usize]));
        }
    }
    fields
}

fn evolve(seed: u64) -> TestResult {
    let mut rng = Rng(seed | 1);
    let writer_fields = random_fields(&mut rng);
    // Half the time the reader keeps some of the writer's fields as they are.
    let mut reader_fields = random_fields(&mut rng);
    if rng.below(2) == 0 {
        for &(id, kind) in &writer_fields {
            if rng.below(2) == 0 {
                reader_fields.retain(|&(known, _)| known != id);
                reader_fields.push((id, kind));
            }
        }
    }
    let writer = build(&writer_fields);
    let reader = build(&reader_fields);
    let stored: BTreeMap<u16, Val> =
        writer_fields.iter().map(|&(id, kind)| (id, random_value(kind, &mut rng))).collect();
    let bytes = reflectable::to_vec(&Bag { rtti: writer, slots: stored.clone() }).expect("encodes");
    // Half the time the stream is compact: the same rules apply to it.
    let bytes = match seed & 2 {
        0 => bytes,
        _ => reflectable::serializer::compact::to_compact(&bytes).expect("goes compact"),
    };

    let mut registry = Registry::new();
    registry.register(reader).expect("registers");
    let (root, report) = BinarySerializer::with_registry(&registry)
        .decode_with_report::<Box<dyn reflectable::Reflectable>>(&bytes)
        .expect("decodes");
    let Ok(bag) = root.downcast_box::<Bag>() else { return TestResult::error("the root is not a bag") };

    let skipped = |id: u16| {
        report.events().any(|(event, _)| matches!(event, DecodeEvent::FieldSkipped { field_id, .. } if *field_id == id))
    };
    for &(id, kind) in &reader_fields {
        let got = bag.slots.get(&id);
        match stored.get(&id).map(|value| (value, expected(value, kind))) {
            None => {
                if got.is_some() {
                    return TestResult::error(format!("field {id}: set, but the writer had no such field"));
                }
            }
            Some((_, Some(want))) => {
                if got != Some(&want) {
                    return TestResult::error(format!("field {id}: {got:?}, expected {want:?}\n{report}"));
                }
            }
            Some((value, None)) => {
                if got.is_some() || !skipped(id) {
                    return TestResult::error(format!(
                        "field {id}: stored {value:?}, reader {kind:?}: got {got:?}, reported: {}\n{report}",
                        skipped(id)
                    ));
                }
            }
        }
    }
    for &(id, _) in &writer_fields {
        let removed = !reader_fields.iter().any(|&(known, _)| known == id);
        let reported = report.events().any(|(event, _)| {
            matches!(event, DecodeEvent::FieldSkipped { field_id, why: SkipReason::NotInType, .. } if *field_id == id)
        });
        if removed && !reported {
            return TestResult::error(format!("field {id} was removed and not reported\n{report}"));
        }
    }
    TestResult::passed()
}

#[test]
fn random_schema_pairs_convert_or_report_never_reinterpret() {
    quickcheck(evolve as fn(u64) -> TestResult);
}

#[test]
fn identical_schemas_read_everything_with_an_empty_report() {
    let fields: Vec<(u16, Kind)> = KINDS.iter().enumerate().map(|(i, &kind)| (i as u16 + 1, kind)).collect();
    let (writer, reader) = (build(&fields), build(&fields));
    let mut rng = Rng(7);
    let slots: BTreeMap<u16, Val> = fields.iter().map(|&(id, kind)| (id, random_value(kind, &mut rng))).collect();
    let bytes = reflectable::to_vec(&Bag { rtti: writer, slots: slots.clone() }).unwrap();
    let mut registry = Registry::new();
    registry.register(reader).unwrap();
    let (root, report) = BinarySerializer::with_registry(&registry)
        .decode_with_report::<Box<dyn reflectable::Reflectable>>(&bytes)
        .unwrap();
    assert!(report.is_empty(), "{report}");
    assert_eq!(root.downcast_box::<Bag>().ok().unwrap().slots, slots);
}
