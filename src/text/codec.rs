//! Wire bytes and [`PlainValue`]s, both ways, driven by the type's signature (`FORMAT.md`,
//! "Plain content"): one reading of the format for every tool that shows or edits values, with or
//! without the Rust types.

use super::compact_element;
use super::memo;
use super::{PlainValue, TextError};
use crate::plain::described::{builtin_leaf_size, derived, lanes, Lanes, PlainLayout};
use crate::plain::signature::Sig;
use crate::plain::{inline_or_dynamic, type_ids as id, PlainType, Reader, DYNAMIC_SIZE_PREFIX};
use std::borrow::Cow;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// The static size of the type `sig` describes: `Ok(None)` when dynamic, an error when this
/// program cannot take the type apart (a plain type of another program, a codec's).
pub(crate) fn static_size(sig: &[u32]) -> Result<Option<u32>, TextError> {
    memo::static_size(sig, || work_out_static_size(sig))
}

fn work_out_static_size(sig: &[u32]) -> Result<Option<u32>, TextError> {
    let (node, _, _) = memo::split(sig).ok_or_else(|| undescribed(sig))?;
    Ok(match node {
        Sig::Leaf(type_id) => leaf_size(type_id).ok_or_else(|| undescribed(sig))?,
        Sig::Seq(..) | Sig::Map(..) => None,
        Sig::Option(inner) => static_size(inner)?.and_then(|n| inline_or_dynamic(Some(1 + n))),
        Sig::Array(len, elem) => match static_size(elem)? {
            Some(n) if u64::from(n) * u64::from(len) <= 255 => Some(n * len),
            _ => None,
        },
        Sig::Tuple(_, parts) => sum(&memo::split_all(parts))?,
    })
}

fn sum(parts: &[&[u32]]) -> Result<Option<u32>, TextError> {
    let mut total = 0u32;
    for part in parts {
        match static_size(part)? {
            Some(n) => total = total.saturating_add(n),
            None => return Ok(None),
        }
    }
    Ok(inline_or_dynamic(Some(total)))
}

/// The size of a leaf: the format's own types, then the program's derived plain types (glam's
/// lanes are the format's).
fn leaf_size(type_id: u32) -> Option<Option<u32>> {
    if let Some(size) = builtin_leaf_size(type_id) {
        return Some(size);
    }
    Some(match derived(type_id)? {
        PlainLayout::Enum(_) => Some(4),
        PlainLayout::Struct(fields) => sum(&fields.iter().map(|(_, sig)| sig.as_slice()).collect::<Vec<_>>()).ok()?,
        PlainLayout::Tuple(fields) => sum(&fields.iter().map(Vec::as_slice).collect::<Vec<_>>()).ok()?,
    })
}

/// The types of the parts of a value of type `sig` that has parts (a tuple, a derived struct,
/// a glam vector, a `Duration`), in order; none for other types.
pub(crate) fn parts_of(sig: &[u32]) -> Vec<Vec<u32>> {
    match memo::split(sig) {
        Some((Sig::Tuple(_, parts), _, _)) => memo::split_all(parts).into_iter().map(<[u32]>::to_vec).collect(),
        Some((Sig::Leaf(id::DURATION), _, _)) => vec![vec![id::U64], vec![id::U32]],
        Some((Sig::Leaf(id::SYSTEM_TIME), _, _)) => vec![vec![id::I64], vec![id::U32]],
        Some((Sig::Leaf(type_id), _, _)) => match (lanes(type_id), derived(type_id)) {
            (Some(lanes), _) => vec![vec![lanes.lane]; lanes.count],
            (None, Some(PlainLayout::Struct(fields))) => fields.iter().map(|(_, sig)| sig.clone()).collect(),
            (None, Some(PlainLayout::Tuple(fields))) => fields.clone(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The fewest bytes an element of type `sig` takes: a count read from the input is checked
/// against it before anything is allocated.
fn min_size(sig: &[u32]) -> Result<usize, TextError> {
    Ok(static_size(sig)?.map_or(DYNAMIC_SIZE_PREFIX, |size| size as usize))
}

#[cold]
pub(super) fn undescribed(sig: &[u32]) -> TextError {
    TextError::Undescribed { signature: sig.to_vec() }
}

/// The element form the parts of a value are in: normal (`read_value`, `u32` counts) or compact
/// (`compact.rs`, varint counts). A value's content is read and written by one piece of code
/// whichever form its parts take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    Normal,
    Compact,
}

impl Form {
    fn read(self, sig: &[u32], reader: &mut Reader<'_>) -> Result<PlainValue, TextError> {
        match self {
            Form::Normal => read_value(sig, reader),
            Form::Compact => compact_element::read_value(sig, reader),
        }
    }

    fn write(self, sig: &[u32], value: &PlainValue, out: &mut Vec<u8>) -> Result<(), TextError> {
        match self {
            Form::Normal => write_value(sig, value, out),
            Form::Compact => compact_element::write_value(sig, value, out),
        }
    }

    fn min_size(self, sig: &[u32]) -> Result<usize, TextError> {
        match self {
            Form::Normal => min_size(sig),
            Form::Compact => compact_element::min_size(sig),
        }
    }

    fn read_count(self, reader: &mut Reader<'_>, min_elem_size: usize) -> Result<usize, TextError> {
        Ok(match self {
            Form::Normal => reader.read_count(min_elem_size)?,
            Form::Compact => reader.read_compact_count(min_elem_size)?,
        })
    }

    fn write_count(self, len: usize, out: &mut Vec<u8>) -> Result<(), TextError> {
        let len = count_of(len)?;
        match self {
            Form::Normal => out.extend_from_slice(&len.to_le_bytes()),
            Form::Compact => crate::plain::varint::write_u64(u64::from(len), out),
        }
        Ok(())
    }
}

/// Reads one element of type `sig` (its content, after a size prefix when the type is dynamic).
pub(crate) fn read_value(sig: &[u32], reader: &mut Reader<'_>) -> Result<PlainValue, TextError> {
    match static_size(sig)? {
        Some(_) => read_content(sig, reader, Form::Normal),
        None => {
            let size = reader.read_u32()? as usize;
            let mut content = reader.sub_reader(size.saturating_sub(DYNAMIC_SIZE_PREFIX))?;
            let value = read_content(sig, &mut content, Form::Normal)?;
            content.expect_end()?;
            reader.rejoin(&content);
            Ok(value)
        }
    }
}

/// How many elements of no size one value taken apart may hold. The wire form spends no bytes on
/// them (a decoder only counts them), but each becomes a tree node and text: a few bytes of a
/// hostile file must not claim millions of them.
pub const MAX_ZERO_SIZED_SHOWN: usize = 1 << 16;

/// How deeply one value taken apart may nest: every container (sequence, map, option, array,
/// tuple) and derived struct on the way down counts one level. Each level is a few calls of the
/// walker, whose frames are large; at this depth it stays far inside a thread's 2 MiB stack, even
/// in a debug build. (The typed readers, whose frames are small, admit `MAX_PLAIN_DEPTH` derived
/// levels.) A derived type that holds a `Vec` of itself takes two levels per level of its own.
/// Deeper values are refused with `TextError::TooDeep`; tools keep them as bytes.
pub const MAX_SHOWN_DEPTH: usize = 64;

/// Reads `count` elements of type `sig` from `bytes` (a plain field's stored elements) into one
/// value (`array`: a list of them). Elements of a type this program cannot take apart come as
/// their bytes, delimited by `static_size` (the field header's) or their size prefix.
pub(crate) fn read_field(
    sig: &[u32],
    static_size: Option<u8>,
    count: usize,
    array: bool,
    bytes: &[u8],
) -> Result<PlainValue, TextError> {
    memo::scope(sig, || read_field_elements(sig, static_size, count, array, bytes))
}

fn read_field_elements(
    sig: &[u32],
    static_size: Option<u8>,
    count: usize,
    array: bool,
    bytes: &[u8],
) -> Result<PlainValue, TextError> {
    // Each element takes a byte, or is one of the few of no size a value may show.
    if count > bytes.len().saturating_add(MAX_ZERO_SIZED_SHOWN) {
        return Err(TextError::Corrupt(format!("{count} elements in {} bytes", bytes.len())));
    }
    let mut reader = Reader::new(bytes).with_zero_sized_left(MAX_ZERO_SIZED_SHOWN);
    reader.limit_depth(MAX_SHOWN_DEPTH);
    let mut values = Vec::with_capacity(count.min(bytes.len()));
    for _ in 0..count {
        let start = reader.clone();
        let value = match read_value(sig, &mut reader) {
            Err(TextError::Undescribed { .. }) => {
                reader = start;
                let content = match static_size {
                    Some(size) => reader.take(usize::from(size))?,
                    None => {
                        let size = reader.read_u32()? as usize;
                        reader.take(size.saturating_sub(DYNAMIC_SIZE_PREFIX))?
                    }
                };
                PlainValue::Raw(content.to_vec())
            }
            other => other?,
        };
        values.push(value);
    }
    reader.expect_end()?;
    match array {
        true => Ok(PlainValue::Seq(values)),
        false => values.pop().ok_or_else(|| TextError::Corrupt("a single field without its value".into())),
    }
}

/// Reads the content of a value of type `sig` (for a dynamic type, `reader` holds exactly it).
/// `form` is how the parts are written: counts, and elements of sequences, maps, options, arrays,
/// tuples and derived structs.
pub(super) fn read_content(sig: &[u32], reader: &mut Reader<'_>, form: Form) -> Result<PlainValue, TextError> {
    let (node, _, _) = memo::split(sig).ok_or_else(|| undescribed(sig))?;
    match node {
        Sig::Leaf(type_id) => read_leaf(type_id, sig, reader, form),
        // A container is one level deeper (see `MAX_SHOWN_DEPTH`).
        node => reader.nested(|reader| read_container(node, sig, reader, form)),
    }
}

fn read_container(node: Sig<'_>, sig: &[u32], reader: &mut Reader<'_>, form: Form) -> Result<PlainValue, TextError> {
    Ok(match node {
        Sig::Leaf(_) => unreachable!("leaves are read by `read_leaf`"),
        Sig::Seq(_, elem) => {
            let count = form.read_count(reader, form.min_size(elem)?)?;
            PlainValue::Seq((0..count).map(|_| form.read(elem, reader)).collect::<Result<_, _>>()?)
        }
        Sig::Map(_, key, value) => {
            let count = form.read_count(reader, form.min_size(key)?.saturating_add(form.min_size(value)?))?;
            let entries = (0..count).map(|_| Ok((form.read(key, reader)?, form.read(value, reader)?)));
            PlainValue::Map(entries.collect::<Result<_, TextError>>()?)
        }
        Sig::Option(inner) => match reader.take_array::<1>()?[0] {
            0 => {
                if let Some(n) = static_size(sig)? {
                    reader.skip(n as usize - 1)?;
                }
                PlainValue::Opt(None)
            }
            1 => PlainValue::Opt(Some(Box::new(form.read(inner, reader)?))),
            tag => return Err(TextError::Corrupt(format!("Option tag {tag}"))),
        },
        Sig::Array(len, elem) => {
            let len = admit_array(len, form.min_size(elem)?, reader)?;
            PlainValue::Seq((0..len).map(|_| form.read(elem, reader)).collect::<Result<_, _>>()?)
        }
        Sig::Tuple(_, parts) => PlainValue::Seq(
            memo::split_all(parts).into_iter().map(|part| form.read(part, reader)).collect::<Result<_, _>>()?,
        ),
    })
}

/// Checks the length of an array type against what is left to read, and returns it. The length
/// comes from the signature, which a file may claim: it is checked against the bytes left (or the
/// allowance for elements of no size) as a stored count is.
pub(super) fn admit_array(len: u32, min_elem_size: usize, reader: &mut Reader<'_>) -> Result<usize, TextError> {
    let len = len as usize;
    match min_elem_size {
        0 if len > reader.zero_sized_left() => {
            Err(TextError::Corrupt(format!("an array of {len} elements of no size")))
        }
        0 => {
            reader.set_zero_sized_left(reader.zero_sized_left() - len);
            Ok(len)
        }
        min if len.saturating_mul(min) > reader.remaining() => {
            Err(TextError::Corrupt(format!("an array of {len} elements in {} bytes", reader.remaining())))
        }
        _ => Ok(len),
    }
}

fn read_leaf(type_id: u32, sig: &[u32], reader: &mut Reader<'_>, form: Form) -> Result<PlainValue, TextError> {
    fn typed<T: PlainType>(reader: &mut Reader<'_>) -> Result<T, TextError> {
        Ok(T::read(reader)?)
    }
    Ok(match type_id {
        id::U8 => PlainValue::UInt(typed::<u8>(reader)?.into()),
        id::U16 => PlainValue::UInt(typed::<u16>(reader)?.into()),
        id::U32 => PlainValue::UInt(typed::<u32>(reader)?.into()),
        id::U64 | id::USIZE => PlainValue::UInt(typed::<u64>(reader)?.into()),
        id::U128 => PlainValue::UInt(typed::<u128>(reader)?),
        id::I8 => PlainValue::Int(typed::<i8>(reader)?.into()),
        id::I16 => PlainValue::Int(typed::<i16>(reader)?.into()),
        id::I32 => PlainValue::Int(typed::<i32>(reader)?.into()),
        id::I64 | id::ISIZE => PlainValue::Int(typed::<i64>(reader)?.into()),
        id::I128 => PlainValue::Int(typed::<i128>(reader)?),
        id::F32 => PlainValue::F32(typed(reader)?),
        id::F64 => PlainValue::F64(typed(reader)?),
        id::BOOL => PlainValue::Bool(typed(reader)?),
        id::CHAR => PlainValue::Char(typed(reader)?),
        id::STRING => PlainValue::Str(typed(reader)?),
        id::PATH_BUF => {
            let bytes = reader.take(reader.remaining())?;
            match std::str::from_utf8(bytes) {
                Ok(text) => PlainValue::Str(text.to_owned()),
                Err(_) => PlainValue::Raw(bytes.to_vec()),
            }
        }
        id::DURATION => {
            let duration: std::time::Duration = typed(reader)?;
            parts([("secs", PlainValue::UInt(duration.as_secs().into())), ("nanos", nanos(duration.subsec_nanos()))])
        }
        id::SYSTEM_TIME => {
            let secs = i64::from_le_bytes(reader.take_array()?);
            let nanos_value = u32::from_le_bytes(reader.take_array()?);
            parts([("secs", PlainValue::Int(secs.into())), ("nanos", nanos(nanos_value))])
        }
        id::IPV4_ADDR => PlainValue::Str(typed::<Ipv4Addr>(reader)?.to_string()),
        id::IPV6_ADDR => PlainValue::Str(typed::<Ipv6Addr>(reader)?.to_string()),
        id::IP_ADDR => PlainValue::Str(typed::<IpAddr>(reader)?.to_string()),
        id::SOCKET_ADDR => PlainValue::Str(socket_text(typed::<SocketAddr>(reader)?)),
        id::SERDE => PlainValue::Raw(reader.take(reader.remaining())?.to_vec()),
        _ => match (lanes(type_id), derived(type_id)) {
            (Some(lanes), _) => read_lanes(&lanes, reader)?,
            (None, Some(layout)) => read_derived(layout, reader, form)?,
            (None, None) => return Err(undescribed(sig)),
        },
    })
}

/// A socket address as text: Rust's form (`[fe80::1%2]:80`), which has no place for an IPv6
/// address's flow info, so a nonzero one follows it (`[fe80::1%2]:80, flowinfo 7`) rather than
/// being dropped.
fn socket_text(address: SocketAddr) -> String {
    match address {
        SocketAddr::V6(v6) if v6.flowinfo() != 0 => format!("{address}, flowinfo {}", v6.flowinfo()),
        _ => address.to_string(),
    }
}

/// Reads what [`socket_text`] writes.
pub(super) fn parse_socket(text: &str) -> Option<SocketAddr> {
    match text.split_once(", flowinfo ") {
        None => text.parse().ok(),
        Some((address, flowinfo)) => match address.parse().ok()? {
            SocketAddr::V6(mut v6) => {
                v6.set_flowinfo(flowinfo.parse().ok()?);
                Some(SocketAddr::V6(v6))
            }
            SocketAddr::V4(_) => None,
        },
    }
}

fn nanos(value: u32) -> PlainValue {
    PlainValue::UInt(value.into())
}

fn parts<const N: usize>(parts: [(&'static str, PlainValue); N]) -> PlainValue {
    PlainValue::Struct(parts.into_iter().map(|(name, value)| (Cow::Borrowed(name), value)).collect())
}

fn read_lanes(lanes: &Lanes, reader: &mut Reader<'_>) -> Result<PlainValue, TextError> {
    let values = (0..lanes.count)
        .map(|_| read_leaf(lanes.lane, &[lanes.lane], reader, Form::Normal))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(match lanes.names {
        Some(names) => PlainValue::Struct(names.iter().map(|&name| Cow::Borrowed(name)).zip(values).collect()),
        None => PlainValue::Seq(values),
    })
}

/// One level of nesting deeper, as the derived type's own reader goes: a described type may hold
/// itself (through a `Vec`).
fn read_derived(layout: &'static PlainLayout, reader: &mut Reader<'_>, form: Form) -> Result<PlainValue, TextError> {
    reader.nested(|reader| read_derived_parts(layout, reader, form))
}

fn read_derived_parts(
    layout: &'static PlainLayout,
    reader: &mut Reader<'_>,
    form: Form,
) -> Result<PlainValue, TextError> {
    Ok(match layout {
        PlainLayout::Struct(fields) => PlainValue::Struct(
            fields
                .iter()
                .map(|(name, sig)| Ok((Cow::Borrowed(*name), form.read(sig, reader)?)))
                .collect::<Result<_, TextError>>()?,
        ),
        PlainLayout::Tuple(fields) => {
            PlainValue::Seq(fields.iter().map(|sig| form.read(sig, reader)).collect::<Result<_, _>>()?)
        }
        PlainLayout::Enum(variants) => {
            let discriminant = u32::from_le_bytes(reader.take_array()?);
            match variants.iter().find(|(_, value)| *value == discriminant) {
                Some((name, _)) => PlainValue::Variant(Cow::Borrowed(name)),
                None => PlainValue::UInt(discriminant.into()),
            }
        }
    })
}

/// Appends `value` as one element of type `sig` (a size prefix first when the type is dynamic).
pub(crate) fn write_value(sig: &[u32], value: &PlainValue, out: &mut Vec<u8>) -> Result<(), TextError> {
    match static_size(sig)? {
        Some(_) => write_content(sig, value, out, Form::Normal),
        None => {
            let start = out.len();
            out.extend_from_slice(&[0; DYNAMIC_SIZE_PREFIX]);
            write_content(sig, value, out, Form::Normal)?;
            let size = u32::try_from(out.len() - start).map_err(|_| TextError::Corrupt("a value over 4 GiB".into()))?;
            out[start..start + DYNAMIC_SIZE_PREFIX].copy_from_slice(&size.to_le_bytes());
            Ok(())
        }
    }
}

/// Appends the content of `value` as a value of type `sig` (without a size prefix).
pub(super) fn write_content(sig: &[u32], value: &PlainValue, out: &mut Vec<u8>, form: Form) -> Result<(), TextError> {
    let (node, _, _) = memo::split(sig).ok_or_else(|| undescribed(sig))?;
    let mismatch = || TextError::mismatch(sig, value);
    match (node, value) {
        (Sig::Leaf(type_id), _) => write_leaf(type_id, sig, value, out, form)?,
        (Sig::Seq(head, elem), PlainValue::Seq(values)) => {
            form.write_count(values.len(), out)?;
            if form == Form::Compact && head == id::HASH_SET {
                let entries = values.iter().map(|value| (value, None));
                by_compact_key(entries, elem, &[], out)?;
            } else {
                values.iter().try_for_each(|value| form.write(elem, value, out))?;
            }
        }
        (Sig::Map(head, key, value_sig), PlainValue::Map(entries)) => {
            form.write_count(entries.len(), out)?;
            if form == Form::Compact && head == id::HASH_MAP {
                by_compact_key(entries.iter().map(|(key, value)| (key, Some(value))), key, value_sig, out)?;
            } else {
                for (key_value, entry) in entries {
                    form.write(key, key_value, out)?;
                    form.write(value_sig, entry, out)?;
                }
            }
        }
        (Sig::Option(inner), PlainValue::Opt(option)) => match option {
            Some(inner_value) => {
                out.push(1);
                form.write(inner, inner_value, out)?;
            }
            None => {
                out.push(0);
                if let Some(n) = static_size(sig)? {
                    out.resize(out.len() + n as usize - 1, 0);
                }
            }
        },
        // A bare value where an option is wanted is `Some` of it.
        (Sig::Option(inner), _) => {
            out.push(1);
            form.write(inner, value, out)?;
        }
        (Sig::Array(len, elem), PlainValue::Seq(values)) if values.len() == len as usize => {
            values.iter().try_for_each(|value| form.write(elem, value, out))?;
        }
        (Sig::Tuple(_, parts), PlainValue::Seq(values)) => {
            let parts = memo::split_all(parts);
            if parts.len() != values.len() {
                return Err(mismatch());
            }
            parts.iter().zip(values).try_for_each(|(part, value)| form.write(part, value, out))?;
        }
        _ => return Err(mismatch()),
    }
    Ok(())
}

/// Writes hash set elements or hash map entries (`value` set) in compact form, in the order of
/// their keys' compact bytes: the order `PlainType::write_compact` gives them, so a value taken
/// apart and written compact again has the typed codec's bytes whatever order it listed them in.
fn by_compact_key<'v>(
    entries: impl Iterator<Item = (&'v PlainValue, Option<&'v PlainValue>)>,
    key_sig: &[u32],
    value_sig: &[u32],
    out: &mut Vec<u8>,
) -> Result<(), TextError> {
    let mut written = Vec::new();
    for (key, value) in entries {
        let mut key_bytes = Vec::new();
        compact_element::write_value(key_sig, key, &mut key_bytes)?;
        let mut value_bytes = Vec::new();
        if let Some(value) = value {
            compact_element::write_value(value_sig, value, &mut value_bytes)?;
        }
        written.push((key_bytes, value_bytes));
    }
    written.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    for (key, value) in written {
        out.extend_from_slice(&key);
        out.extend_from_slice(&value);
    }
    Ok(())
}

/// A count or length that fits the format's `u32`s.
pub(super) fn count_of(len: usize) -> Result<u32, TextError> {
    u32::try_from(len).map_err(|_| TextError::Corrupt("more than 2^32 elements".into()))
}

fn write_leaf(type_id: u32, sig: &[u32], value: &PlainValue, out: &mut Vec<u8>, form: Form) -> Result<(), TextError> {
    let mismatch = || TextError::mismatch(sig, value);
    fn int<T: TryFrom<i128> + TryFrom<u128>>(value: &PlainValue) -> Option<T> {
        match value {
            PlainValue::Int(value) => T::try_from(*value).ok(),
            PlainValue::UInt(value) => T::try_from(*value).ok(),
            _ => None,
        }
    }
    macro_rules! put {
        ($t:ty) => {{
            let value: $t = int(value).ok_or_else(mismatch)?;
            value.write(out)
        }};
    }
    match (type_id, value) {
        (id::U8, _) => put!(u8),
        (id::U16, _) => put!(u16),
        (id::U32, _) => put!(u32),
        (id::U64 | id::USIZE, _) => put!(u64),
        (id::U128, _) => put!(u128),
        (id::I8, _) => put!(i8),
        (id::I16, _) => put!(i16),
        (id::I32, _) => put!(i32),
        (id::I64 | id::ISIZE, _) => put!(i64),
        (id::I128, _) => put!(i128),
        (id::F32, PlainValue::F32(value)) => value.write(out),
        // Written as f32 only when exact: a value is never silently changed.
        (id::F32, PlainValue::F64(value)) if f64::from(*value as f32) == *value || value.is_nan() => {
            (*value as f32).write(out)
        }
        (id::F32, PlainValue::Int(_) | PlainValue::UInt(_)) => float_of_int(value, sig)?.write(out),
        (id::F64, PlainValue::F64(value)) => value.write(out),
        (id::F64, PlainValue::F32(value)) => f64::from(*value).write(out),
        (id::F64, PlainValue::Int(_) | PlainValue::UInt(_)) => {
            let float = float_of_int(value, sig)?;
            f64::from(float).write(out)
        }
        (id::BOOL, PlainValue::Bool(value)) => value.write(out),
        (id::CHAR, PlainValue::Char(value)) => value.write(out),
        (id::STRING | id::PATH_BUF, PlainValue::Str(text)) => out.extend_from_slice(text.as_bytes()),
        (id::PATH_BUF | id::SERDE, PlainValue::Raw(bytes)) => out.extend_from_slice(bytes),
        (id::DURATION, PlainValue::Struct(_)) => {
            let secs: u64 = value.part("secs").and_then(int).ok_or_else(mismatch)?;
            let nanos: u32 =
                value.part("nanos").and_then(int).filter(|&n: &u32| n < 1_000_000_000).ok_or_else(mismatch)?;
            std::time::Duration::new(secs, nanos).write(out)
        }
        (id::SYSTEM_TIME, PlainValue::Struct(_)) => {
            let secs: i64 = value.part("secs").and_then(int).ok_or_else(mismatch)?;
            let nanos: u32 =
                value.part("nanos").and_then(int).filter(|&n: &u32| n < 1_000_000_000).ok_or_else(mismatch)?;
            out.extend_from_slice(&secs.to_le_bytes());
            out.extend_from_slice(&nanos.to_le_bytes());
        }
        (id::IPV4_ADDR, PlainValue::Str(text)) => text.parse::<Ipv4Addr>().map_err(|_| mismatch())?.write(out),
        (id::IPV6_ADDR, PlainValue::Str(text)) => text.parse::<Ipv6Addr>().map_err(|_| mismatch())?.write(out),
        (id::IP_ADDR, PlainValue::Str(text)) => text.parse::<IpAddr>().map_err(|_| mismatch())?.write(out),
        (id::SOCKET_ADDR, PlainValue::Str(text)) => parse_socket(text).ok_or_else(mismatch)?.write(out),
        _ => match (lanes(type_id), derived(type_id)) {
            (Some(lanes), _) => write_lanes(&lanes, sig, value, out)?,
            (None, Some(layout)) => write_derived(layout, sig, value, out, form)?,
            (None, None) => return Err(undescribed(sig)),
        },
    }
    Ok(())
}

/// An integer written into a float field: only when the float holds it exactly.
fn float_of_int(value: &PlainValue, sig: &[u32]) -> Result<f32, TextError> {
    let exact = match value {
        PlainValue::Int(value) => i32::try_from(*value).ok().filter(|v| v.unsigned_abs() <= 1 << 24).map(|v| v as f32),
        PlainValue::UInt(value) => u32::try_from(*value).ok().filter(|&v| v <= 1 << 24).map(|v| v as f32),
        _ => None,
    };
    exact.ok_or_else(|| TextError::mismatch(sig, value))
}

fn write_lanes(lanes: &Lanes, sig: &[u32], value: &PlainValue, out: &mut Vec<u8>) -> Result<(), TextError> {
    let values: Vec<&PlainValue> = match (lanes.names, value) {
        (Some(names), PlainValue::Struct(_)) => names
            .iter()
            .map(|name| value.part(name))
            .collect::<Option<_>>()
            .ok_or_else(|| TextError::mismatch(sig, value))?,
        (_, PlainValue::Seq(values)) => values.iter().collect(),
        _ => return Err(TextError::mismatch(sig, value)),
    };
    if values.len() != lanes.count {
        return Err(TextError::mismatch(sig, value));
    }
    values.into_iter().try_for_each(|lane| write_leaf(lanes.lane, &[lanes.lane], lane, out, Form::Normal))
}

fn write_derived(
    layout: &PlainLayout,
    sig: &[u32],
    value: &PlainValue,
    out: &mut Vec<u8>,
    form: Form,
) -> Result<(), TextError> {
    let mismatch = || TextError::mismatch(sig, value);
    match (layout, value) {
        (PlainLayout::Struct(fields), PlainValue::Struct(parts)) if parts.len() == fields.len() => {
            for (name, field_sig) in fields {
                form.write(field_sig, value.part(name).ok_or_else(mismatch)?, out)?;
            }
        }
        (PlainLayout::Tuple(fields), PlainValue::Seq(values)) if values.len() == fields.len() => {
            fields.iter().zip(values).try_for_each(|(field_sig, value)| form.write(field_sig, value, out))?;
        }
        (PlainLayout::Enum(variants), PlainValue::Variant(name)) => {
            let (_, discriminant) = variants.iter().find(|(variant, _)| variant == name).ok_or_else(mismatch)?;
            out.extend_from_slice(&discriminant.to_le_bytes());
        }
        _ => return Err(mismatch()),
    }
    Ok(())
}

/// A value's elements read back with the program's own codec: proves `bytes` hold exactly
/// `count` elements of `T` (what a field's `read` will accept).
#[cfg(test)]
pub(crate) fn read_typed<T: PlainType>(bytes: &[u8]) -> Result<T, TextError> {
    let mut reader = Reader::new(bytes);
    let value = crate::plain::read_elem::<T>(&mut reader)?;
    reader.expect_end()?;
    Ok(value)
}

/// `value` as one element, with the program's own codec (for tests comparing both ways).
#[cfg(test)]
pub(crate) fn write_typed<T: PlainType>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    crate::plain::write_elem(value, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plain::signature::sig;

    /// Bytes written by the type's own codec are read into a value and written back the same,
    /// and that value read by the codec is the original.
    fn both_ways<T: PlainType + PartialEq + std::fmt::Debug>(value: T) {
        let bytes = write_typed(&value);
        let signature = sig::<T>();
        let taken = read_value(&signature, &mut Reader::new(&bytes)).unwrap();
        let mut again = Vec::new();
        write_value(&signature, &taken, &mut again).unwrap();
        assert_eq!(again, bytes, "{taken}");
        assert_eq!(read_typed::<T>(&again).unwrap(), value);
    }

    #[test]
    fn socket_addresses_keep_their_flow_info() {
        use std::net::{Ipv6Addr, SocketAddrV6};
        let with_flow = SocketAddr::V6(SocketAddrV6::new(Ipv6Addr::LOCALHOST, 80, 7, 3));
        both_ways(with_flow);
        both_ways(SocketAddr::V6(SocketAddrV6::new(Ipv6Addr::LOCALHOST, 80, 0, 3)));
        both_ways(SocketAddr::from(([10, 0, 0, 1], 443)));
        assert_eq!(socket_text(with_flow), "[::1%3]:80, flowinfo 7");
        assert_eq!(parse_socket("10.0.0.1:1, flowinfo 7"), None, "IPv4 has no flow info");
        assert_eq!(parse_socket("[::1]:1, flowinfo x"), None);
    }

    #[test]
    fn values_take_apart_and_rebuild_to_the_same_bytes() {
        both_ways(Some([7u8; 300])); // dynamic: over the 255-byte inline size
        both_ways(None::<[u8; 4]>); // static: the tag and zero padding
        both_ways(Some(None::<String>));
        both_ways(((1u8, -2i64), vec![Some('x'), None], "s".to_string()));
        both_ways(std::time::Duration::new(9, 999_999_999));
        both_ways(vec![vec![0.25f32], vec![]]);
        both_ways(std::collections::BTreeMap::from([(3u16, vec![true]), (1, vec![])]));
        both_ways(vec![[0u8; 0]; 1000]); // elements of no size, against the reader's allowance
    }

    #[test]
    fn elements_of_no_size_are_shown_only_so_many() {
        let signature = sig::<Vec<[u8; 0]>>();
        let few = write_typed(&vec![[0u8; 0]; 1000]);
        assert!(read_field(&signature, None, 1, false, &few).is_ok());
        // Four bytes claiming 16M elements: the typed decoder's allowance admits them, showing
        // them would take a tree node each.
        let mut many = Vec::new();
        write_value(&signature, &PlainValue::Seq(Vec::new()), &mut many).unwrap();
        many[4..8].copy_from_slice(&(1u32 << 24).to_le_bytes());
        assert!(matches!(read_field(&signature, None, 1, false, &many), Err(TextError::Corrupt(_))));
    }

    #[test]
    fn array_lengths_a_signature_claims_are_checked() {
        // `[[u8; 0]; 4_000_000_000]` and `[u32; 1_000_000]` claimed over a few bytes.
        let no_size = [id::ARRAY, 4_000_000_000, id::ARRAY, 0, id::U8];
        assert!(matches!(read_field(&no_size, Some(0), 1, false, &[]), Err(TextError::Corrupt(_))));
        let numbers = [id::ARRAY, 1_000_000, id::U32];
        assert!(matches!(read_field(&numbers, None, 1, false, &[4, 0, 0, 0]), Err(TextError::Corrupt(_))));
        both_ways([[0u8; 0]; 7]);
        // A field's own count, over no bytes (a stream's array of a type nobody describes).
        assert!(matches!(read_field(&[], Some(0), 1 << 24, true, &[]), Err(TextError::Corrupt(_))));
    }

    #[test]
    fn long_signatures_over_many_elements_read_in_time_linear_in_the_value() {
        // `Vec<[[..[u8; 1]..; 1]; 1]>`, 60 arrays deep, 20,000 elements: each node's facts are
        // worked out once per value, not once per element (seconds, before).
        let mut deep = vec![id::VEC];
        for _ in 0..60 {
            deep.extend([id::ARRAY, 1]);
        }
        deep.push(id::U8);
        let mut bytes = (4 + 4 + 20_000u32).to_le_bytes().to_vec(); // the element's size
        bytes.extend(20_000u32.to_le_bytes());
        bytes.extend((0..20_000).map(|i| i as u8));
        let value = crate::text::PlainValue::read(&deep, None, 1, false, &bytes).unwrap();
        let mut again = Vec::new();
        crate::text::write_value(&deep, &value, &mut again).unwrap();
        assert_eq!(again, bytes);
    }

    #[test]
    fn sizes_match_the_codecs() {
        fn same<T: PlainType>() {
            assert_eq!(static_size(&sig::<T>()).unwrap(), T::STATIC_SIZE, "{}", std::any::type_name::<T>());
        }
        same::<Option<[u16; 3]>>();
        same::<[u8; 255]>();
        same::<[u8; 256]>();
        same::<(u8, Option<u32>, char)>();
        same::<Option<String>>();
        same::<std::net::SocketAddr>();
        same::<std::time::SystemTime>();
    }
}
