//! Plain values in JSON, by their type's signature: numbers as numbers, except 64- and 128-bit
//! integers as strings and non-finite floats as `"NaN"` / `"Infinity"` / `"-Infinity"`; bytes
//! (`Vec<u8>`, values of types this program cannot take apart) as base64; structs as objects,
//! sequences, arrays and tuples as arrays, `None` as `null`, and maps as objects when their keys
//! are strings, else as arrays of `[key, value]` pairs (protobuf's JSON conventions, so tools in
//! JavaScript lose no precision).

use crate::plain::described::{derived, lanes, PlainLayout};
use crate::plain::signature::{split_type, Sig};
use crate::plain::type_ids as id;
use crate::text::PlainValue;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use serde_json::{Map, Number, Value};

/// `value`, of type `sig`, as JSON.
pub(crate) fn to_json(sig: &[u32], value: &PlainValue) -> Value {
    let node = split_type(sig).map(|(node, _, _)| node);
    match (node, value) {
        (_, PlainValue::Bool(value)) => Value::Bool(*value),
        (Some(Sig::Leaf(leaf)), PlainValue::Int(value)) if is_wide(leaf) => Value::String(value.to_string()),
        (Some(Sig::Leaf(leaf)), PlainValue::UInt(value)) if is_wide(leaf) => Value::String(value.to_string()),
        (_, PlainValue::Int(value)) => {
            i64::try_from(*value).map_or_else(|_| Value::String(value.to_string()), Value::from)
        }
        (_, PlainValue::UInt(value)) => {
            u64::try_from(*value).map_or_else(|_| Value::String(value.to_string()), Value::from)
        }
        // Through its shortest text: `0.1f32` is `0.1`, not `0.10000000149011612`.
        (_, PlainValue::F32(value)) => float(value.to_string().parse().unwrap_or(f64::NAN)),
        (_, PlainValue::F64(value)) => float(*value),
        (_, PlainValue::Char(value)) => Value::String(value.to_string()),
        (_, PlainValue::Str(value)) => Value::String(value.clone()),
        (_, PlainValue::Variant(name)) => Value::String(name.to_string()),
        (_, PlainValue::Raw(bytes)) => Value::String(BASE64.encode(bytes)),
        (_, PlainValue::Opt(None)) => Value::Null,
        (Some(Sig::Option(inner)), PlainValue::Opt(Some(value))) => match split_type(inner) {
            // `Some(None)` must differ from `None`: an option of an option wraps its `Some`.
            Some((Sig::Option(_), _, _)) => Value::Array(vec![to_json(inner, value)]),
            _ => to_json(inner, value),
        },
        (Some(Sig::Seq(_, elem)), PlainValue::Seq(values)) => match bytes_of(elem, values) {
            Some(bytes) => Value::String(BASE64.encode(bytes)),
            None => Value::Array(values.iter().map(|value| to_json(elem, value)).collect()),
        },
        (Some(Sig::Array(_, elem)), PlainValue::Seq(values)) => {
            Value::Array(values.iter().map(|value| to_json(elem, value)).collect())
        }
        (Some(Sig::Map(_, key, value_sig)), PlainValue::Map(entries)) => map_to_json(key, value_sig, entries),
        (node, PlainValue::Seq(values)) => {
            let parts = part_sigs(node);
            let sig = |at: usize| parts.get(at).map_or(&[][..], Vec::as_slice);
            Value::Array(values.iter().enumerate().map(|(at, value)| to_json(sig(at), value)).collect())
        }
        (node, PlainValue::Struct(parts)) => {
            let sigs = part_sigs(node);
            let sig = |at: usize| sigs.get(at).map_or(&[][..], Vec::as_slice);
            let object =
                parts.iter().enumerate().map(|(at, (name, value))| (name.to_string(), to_json(sig(at), value)));
            Value::Object(object.collect())
        }
        (_, PlainValue::Map(entries)) => map_to_json(&[], &[], entries),
        (_, PlainValue::Opt(Some(value))) => to_json(&[], value),
    }
}

fn map_to_json(key: &[u32], value_sig: &[u32], entries: &[(PlainValue, PlainValue)]) -> Value {
    // Member names must be plain strings that cannot be taken for this form's own `$` keys.
    let named = entries.iter().all(|(key, _)| matches!(key, PlainValue::Str(name) if !name.starts_with('$')));
    if named {
        let object: Map<String, Value> = entries
            .iter()
            .map(|(key, value)| match key {
                PlainValue::Str(name) => (name.clone(), to_json(value_sig, value)),
                _ => unreachable!("checked above"),
            })
            .collect();
        // Keys repeated in the stored map cannot all be members: pairs keep them.
        if object.len() == entries.len() {
            return Value::Object(object);
        }
    }
    Value::Array(entries.iter().map(|(k, v)| Value::Array(vec![to_json(key, k), to_json(value_sig, v)])).collect())
}

/// The parts' signatures of a leaf type taken apart as a struct or a tuple.
fn part_sigs(node: Option<Sig<'_>>) -> Vec<Vec<u32>> {
    let Some(Sig::Leaf(leaf)) = node else { return Vec::new() };
    match leaf {
        id::DURATION | id::SYSTEM_TIME => vec![vec![wide_part(leaf)], vec![id::U32]],
        _ => match (lanes(leaf), derived(leaf)) {
            (Some(lanes), _) => vec![vec![lanes.lane]; lanes.count],
            (None, Some(PlainLayout::Struct(fields))) => fields.iter().map(|(_, sig)| sig.clone()).collect(),
            (None, Some(PlainLayout::Tuple(fields))) => fields.clone(),
            _ => Vec::new(),
        },
    }
}

/// The seconds of a `Duration` (`u64`) or a `SystemTime` (`i64`).
fn wide_part(leaf: u32) -> u32 {
    if leaf == id::DURATION {
        id::U64
    } else {
        id::I64
    }
}

fn is_wide(leaf: u32) -> bool {
    matches!(leaf, id::U64 | id::I64 | id::U128 | id::I128 | id::USIZE | id::ISIZE)
}

fn is_u8(sig: &[u32]) -> bool {
    sig == [id::U8]
}

/// The bytes of a `u8` sequence.
fn bytes_of(elem: &[u32], values: &[PlainValue]) -> Option<Vec<u8>> {
    if !is_u8(elem) {
        return None;
    }
    values
        .iter()
        .map(|value| if let PlainValue::UInt(byte) = value { u8::try_from(*byte).ok() } else { None })
        .collect()
}

fn float(value: f64) -> Value {
    match Number::from_f64(value) {
        Some(number) => Value::Number(number),
        None if value.is_nan() => Value::String("NaN".into()),
        None if value > 0.0 => Value::String("Infinity".into()),
        None => Value::String("-Infinity".into()),
    }
}
