//! Plain values in JSON, by their type's signature: numbers as numbers, except 64- and 128-bit
//! integers as strings and non-finite floats as `"NaN"` / `"Infinity"` / `"-Infinity"`; bytes
//! (`Vec<u8>`, values of types this program cannot take apart) as base64; structs as objects,
//! sequences, arrays and tuples as arrays, `None` as `null`, and maps as objects when their keys
//! are strings, else as arrays of `[key, value]` pairs (protobuf's JSON conventions, so tools in
//! JavaScript lose no precision).

use crate::plain::type_ids as id;
use crate::schema::describe::{split_all, split_type, Sig};
use crate::text::{derived, lanes, PlainLayout, PlainValue};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use serde_json::{Map, Number, Value};
use std::borrow::Cow;

/// `value`, of type `sig`, as JSON.
pub(super) fn to_json(sig: &[u32], value: &PlainValue) -> Value {
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

/// A JSON value of type `sig`, as a [`PlainValue`] the text codec writes (and checks).
pub(super) fn from_json(sig: &[u32], value: &Value) -> Result<PlainValue, String> {
    let (node, _, _) = split_type(sig).ok_or("a value of a type this file does not describe")?;
    match node {
        Sig::Leaf(leaf) => leaf_from_json(leaf, value),
        Sig::Seq(_, elem) => match value {
            Value::String(text) if is_u8(elem) => {
                let bytes = BASE64.decode(text).map_err(|error| format!("bad base64: {error}"))?;
                Ok(PlainValue::Seq(bytes.into_iter().map(|byte| PlainValue::UInt(byte.into())).collect()))
            }
            _ => seq_from_json(value, |_| elem),
        },
        Sig::Array(_, elem) => seq_from_json(value, |_| elem),
        Sig::Tuple(_, parts) => {
            let parts = split_all(parts);
            seq_from_json(value, |at| parts.get(at).copied().unwrap_or(&[]))
        }
        Sig::Map(_, key, value_sig) => {
            let entries = match value {
                Value::Object(object) => object
                    .iter()
                    .map(|(name, value)| Ok((key_from_str(key, name)?, from_json(value_sig, value)?)))
                    .collect::<Result<_, String>>()?,
                Value::Array(pairs) => pairs
                    .iter()
                    .map(|pair| match pair.as_array().map(Vec::as_slice) {
                        Some([k, v]) => Ok((from_json(key, k)?, from_json(value_sig, v)?)),
                        _ => Err(format!("expected a [key, value] pair, found {pair}")),
                    })
                    .collect::<Result<_, String>>()?,
                other => return Err(format!("expected a map (an object or a list of pairs), found {other}")),
            };
            Ok(PlainValue::Map(entries))
        }
        Sig::Option(inner) => match (value, split_type(inner)) {
            (Value::Null, _) => Ok(PlainValue::Opt(None)),
            (Value::Array(wrapped), Some((Sig::Option(_), _, _))) if wrapped.len() == 1 => {
                Ok(PlainValue::Opt(Some(Box::new(from_json(inner, &wrapped[0])?))))
            }
            (_, Some((Sig::Option(_), _, _))) => Err(format!("expected null or [value], found {value}")),
            _ => Ok(PlainValue::Opt(Some(Box::new(from_json(inner, value)?)))),
        },
    }
}

fn leaf_from_json(leaf: u32, value: &Value) -> Result<PlainValue, String> {
    let expected = |what: &str| format!("expected {what}, found {value}");
    Ok(match leaf {
        id::U8 | id::U16 | id::U32 | id::U64 | id::U128 | id::USIZE => PlainValue::UInt(match value {
            Value::Number(number) => number.as_u64().ok_or_else(|| expected("an unsigned integer"))?.into(),
            Value::String(text) => text.parse().map_err(|_| expected("an unsigned integer"))?,
            _ => return Err(expected("an unsigned integer")),
        }),
        id::I8 | id::I16 | id::I32 | id::I64 | id::I128 | id::ISIZE => PlainValue::Int(match value {
            Value::Number(number) => number.as_i64().ok_or_else(|| expected("an integer"))?.into(),
            Value::String(text) => text.parse().map_err(|_| expected("an integer"))?,
            _ => return Err(expected("an integer")),
        }),
        id::F32 => PlainValue::F32(float_from_json(value).ok_or_else(|| expected("a number"))? as f32),
        id::F64 => PlainValue::F64(float_from_json(value).ok_or_else(|| expected("a number"))?),
        id::BOOL => PlainValue::Bool(value.as_bool().ok_or_else(|| expected("true or false"))?),
        id::CHAR => {
            let mut chars = value.as_str().ok_or_else(|| expected("a character"))?.chars();
            match (chars.next(), chars.next()) {
                (Some(char), None) => PlainValue::Char(char),
                _ => return Err(expected("one character")),
            }
        }
        id::STRING | id::PATH_BUF | id::IPV4_ADDR | id::IPV6_ADDR | id::IP_ADDR | id::SOCKET_ADDR => {
            PlainValue::Str(value.as_str().ok_or_else(|| expected("a string"))?.to_owned())
        }
        id::DURATION | id::SYSTEM_TIME => {
            struct_from_json(value, &[("secs", vec![wide_part(leaf)]), ("nanos", vec![id::U32])])?
        }
        _ => match (lanes(leaf), derived(leaf)) {
            (Some(lanes), _) => match lanes.names {
                Some(names) => {
                    let parts: Vec<_> = names.iter().map(|&name| (name, vec![lanes.lane])).collect();
                    struct_from_json(value, &parts)?
                }
                None => seq_from_json(value, |_| std::slice::from_ref(&lanes.lane))?,
            },
            (None, Some(PlainLayout::Struct(fields))) => {
                let parts: Vec<_> = fields.iter().map(|(name, sig)| (*name, sig.clone())).collect();
                struct_from_json(value, &parts)?
            }
            (None, Some(PlainLayout::Tuple(fields))) => {
                seq_from_json(value, |at| fields.get(at).map_or(&[], Vec::as_slice))?
            }
            (None, Some(PlainLayout::Enum(_))) => match value {
                Value::String(name) => PlainValue::Variant(Cow::Owned(name.clone())),
                Value::Number(number) => PlainValue::UInt(number.as_u64().ok_or_else(|| expected("a variant"))?.into()),
                _ => return Err(expected("a variant's name")),
            },
            (None, None) => {
                let text = value.as_str().ok_or_else(|| expected("base64 bytes"))?;
                PlainValue::Raw(BASE64.decode(text).map_err(|error| format!("bad base64: {error}"))?)
            }
        },
    })
}

fn seq_from_json<'s>(value: &Value, sig: impl Fn(usize) -> &'s [u32]) -> Result<PlainValue, String> {
    let values = value.as_array().ok_or_else(|| format!("expected a list, found {value}"))?;
    Ok(PlainValue::Seq(
        values.iter().enumerate().map(|(at, value)| from_json(sig(at), value)).collect::<Result<_, _>>()?,
    ))
}

fn struct_from_json(value: &Value, parts: &[(&'static str, Vec<u32>)]) -> Result<PlainValue, String> {
    let object = value.as_object().ok_or_else(|| format!("expected an object, found {value}"))?;
    if let Some(extra) = object.keys().find(|key| !parts.iter().any(|(name, _)| name == key)) {
        return Err(format!("no part `{extra}`"));
    }
    let parts = parts.iter().map(|(name, sig)| {
        let value = object.get(*name).ok_or_else(|| format!("part `{name}` is missing"))?;
        Ok((Cow::Borrowed(*name), from_json(sig, value)?))
    });
    Ok(PlainValue::Struct(parts.collect::<Result<_, String>>()?))
}

/// A map key written as an object's member name.
fn key_from_str(key: &[u32], name: &str) -> Result<PlainValue, String> {
    match split_type(key) {
        Some((Sig::Leaf(id::STRING | id::PATH_BUF), _, _)) => Ok(PlainValue::Str(name.to_owned())),
        _ => from_json(key, &Value::String(name.to_owned())),
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

fn float_from_json(value: &Value) -> Option<f64> {
    match value {
        Value::Number(number) => number.as_f64(),
        Value::String(text) => match text.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}
