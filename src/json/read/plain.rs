//! Plain values from JSON, written into their stored bytes while the text is read: no tree of
//! values in between, so a document of a million numbers costs their bytes and nothing more.
//! The conventions are those [`super::super::plain`] writes: 64- and 128-bit integers may be
//! strings, non-finite floats are `"NaN"` / `"Infinity"` / `"-Infinity"`, `u8` sequences may be
//! base64, structs are objects, sequences, arrays and tuples lists, `None` is `null`, and maps are
//! objects (string member names) or lists of `[key, value]` pairs.
//!
//! Leaves become a small [`PlainValue`] each and go through the text codec's writer, which checks
//! their range; everything around them (sequences, maps, options, tuples, derived structs) is
//! written here, in the order the normal form lays it out (`FORMAT.md`, "Plain content").

use super::Key;
use crate::plain::described::{derived, lanes, PlainLayout};
use crate::plain::signature::{split_all, split_type, Sig};
use crate::plain::type_ids as id;
use crate::plain::DYNAMIC_SIZE_PREFIX;
use crate::text::{cut, static_size, write_value, PlainValue, EXCERPT};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Unexpected, Visitor};
use std::borrow::Cow;
use std::fmt;

/// Writes one plain value of type `sig` in element form (with its size prefix when the type
/// has no static size) to `out`.
pub(crate) struct PlainSeed<'o, 's> {
    pub(crate) sig: &'s [u32],
    pub(crate) out: &'o mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for PlainSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        let PlainSeed { sig, out } = self;
        let (node, _, _) = split_type(sig).ok_or_else(|| de::Error::custom(undescribed(sig)))?;
        if let Sig::Leaf(leaf) = node {
            if let (None, Some(layout @ (PlainLayout::Struct(_) | PlainLayout::Tuple(_)))) =
                (lanes(leaf), derived(leaf))
            {
                return prefixed(sig, out, |out| d.deserialize_any(DerivedVisitor { layout, out }));
            }
            let value = d.deserialize_any(LeafVisitor { leaf })?;
            return write_value(sig, &value, out).map_err(de::Error::custom);
        }
        prefixed(sig, out, |out| match node {
            Sig::Option(inner) => d.deserialize_option(OptionVisitor { sig, inner, out }),
            _ => d.deserialize_any(ContainerVisitor { node, out }),
        })
    }
}

/// Runs `write` between a size prefix and its patching when `sig` has no static size.
fn prefixed<E: de::Error>(
    sig: &[u32],
    out: &mut Vec<u8>,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
) -> Result<(), E> {
    if static_size(sig).map_err(E::custom)?.is_some() {
        return write(out);
    }
    let start = out.len();
    out.extend_from_slice(&[0; DYNAMIC_SIZE_PREFIX]);
    write(out)?;
    let size = u32::try_from(out.len() - start).map_err(|_| E::custom("a value over 4 GiB"))?;
    out[start..start + DYNAMIC_SIZE_PREFIX].copy_from_slice(&size.to_le_bytes());
    Ok(())
}

fn undescribed(sig: &[u32]) -> String {
    format!("a value of a type this document does not describe ({})", crate::text::type_name(sig))
}

/// A count's placeholder, filled by [`end_count`] once the elements are written.
fn start_count(out: &mut Vec<u8>) -> usize {
    out.extend_from_slice(&[0; 4]);
    out.len() - 4
}

fn end_count<E: de::Error>(out: &mut [u8], at: usize, count: usize) -> Result<(), E> {
    let count = u32::try_from(count).map_err(|_| E::custom("more than 2^32 elements"))?;
    out[at..at + 4].copy_from_slice(&count.to_le_bytes());
    Ok(())
}

/// What an error quotes of a value it did not expect: a short excerpt, never the whole value.
fn found(unexpected: Unexpected<'_>) -> String {
    match unexpected {
        Unexpected::Str(text) => format!("the string \"{}\"", cut(text, EXCERPT)),
        other => other.to_string(),
    }
}

fn expected<E: de::Error>(what: &str, unexpected: Unexpected<'_>) -> E {
    E::custom(format!("expected {what}, found {}", found(unexpected)))
}

/// Sequences, maps, fixed arrays and tuples.
struct ContainerVisitor<'o, 's> {
    node: Sig<'s>,
    out: &'o mut Vec<u8>,
}

impl<'de> Visitor<'de> for ContainerVisitor<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.node {
            Sig::Seq(_, elem) if elem == [id::U8] => f.write_str("a list or base64 bytes"),
            Sig::Map(..) => f.write_str("a map (an object or a list of pairs)"),
            _ => f.write_str("a list"),
        }
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<(), E> {
        match self.node {
            Sig::Seq(_, elem) if elem == [id::U8] => {
                let bytes = BASE64.decode(text).map_err(|error| E::custom(format!("bad base64: {error}")))?;
                let at = start_count(self.out);
                self.out.extend_from_slice(&bytes);
                end_count(self.out, at, bytes.len())
            }
            _ => Err(de::Error::invalid_type(Unexpected::Str(&cut(text, EXCERPT)), &self)),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let out = self.out;
        match self.node {
            Sig::Seq(_, elem) => {
                let at = start_count(out);
                let mut count = 0usize;
                while seq.next_element_seed(PlainSeed { sig: elem, out })?.is_some() {
                    count += 1;
                }
                end_count(out, at, count)
            }
            Sig::Array(len, elem) => exactly(&mut seq, len as usize, |_| elem, out),
            Sig::Tuple(_, parts) => {
                let parts = split_all(parts);
                exactly(&mut seq, parts.len(), |at| parts[at], out)
            }
            Sig::Map(_, key, value) => {
                let at = start_count(out);
                let mut count = 0usize;
                // Pairs may repeat a key: a stored map that does is written this way.
                while seq.next_element_seed(PairSeed { key, value, out })?.is_some() {
                    count += 1;
                }
                end_count(out, at, count)
            }
            Sig::Leaf(_) | Sig::Option(_) => unreachable!("leaves and options have their own visitors"),
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Sig::Map(_, key_sig, value_sig) = self.node else {
            return Err(de::Error::invalid_type(Unexpected::Map, &self));
        };
        let out = self.out;
        let at = start_count(out);
        // Where each key's bytes are, to refuse a member name given twice.
        let mut keys: Vec<(u32, u32)> = Vec::new();
        while let Some(Key(name)) = map.next_key::<Key<'de>>()? {
            let start = out.len();
            write_key(key_sig, &name, out)?;
            keys.push((start as u32, (out.len() - start) as u32));
            map.next_value_seed(PlainSeed { sig: value_sig, out })?;
        }
        end_count(out, at, keys.len())?;
        let key_bytes = |&(start, len): &(u32, u32)| &out[start as usize..(start + len) as usize];
        keys.sort_unstable_by(|a, b| key_bytes(a).cmp(key_bytes(b)));
        if let Some(pair) = keys.windows(2).find(|pair| key_bytes(&pair[0]) == key_bytes(&pair[1])) {
            let name = String::from_utf8_lossy(key_bytes(&pair[0])).into_owned();
            return Err(de::Error::custom(format!("the map lists a key twice ({})", cut(&name, EXCERPT))));
        }
        Ok(())
    }
}

/// A map key written as an object's member name: a string key as it is, any other key read
/// from the name's text (`"7"` for a `u32`).
pub(super) fn write_key<E: de::Error>(sig: &[u32], name: &str, out: &mut Vec<u8>) -> Result<(), E> {
    PlainSeed { sig, out }.deserialize(de::value::StrDeserializer::<E>::new(name))
}

/// Exactly `len` elements, the `n`th of type `sig(n)`.
fn exactly<'de, 's, A: SeqAccess<'de>>(
    seq: &mut A,
    len: usize,
    sig: impl Fn(usize) -> &'s [u32],
    out: &mut Vec<u8>,
) -> Result<(), A::Error> {
    for n in 0..len {
        if seq.next_element_seed(PlainSeed { sig: sig(n), out })?.is_none() {
            return Err(de::Error::invalid_length(n, &format!("a list of {len}").as_str()));
        }
    }
    if seq.next_element::<IgnoredAny>()?.is_some() {
        return Err(de::Error::custom(format!("more than {len} elements")));
    }
    Ok(())
}

/// The parts of a struct written as an object, in any order: each named part once (`read` reads
/// the value of part `at`), no other, none missing. In the order of `names`.
fn by_name<'de, A: MapAccess<'de>, T>(
    map: &mut A,
    names: &[&str],
    mut read: impl FnMut(&mut A, usize) -> Result<T, A::Error>,
) -> Result<Vec<T>, A::Error> {
    let mut values: Vec<Option<T>> = names.iter().map(|_| None).collect();
    while let Some(Key(name)) = map.next_key::<Key<'de>>()? {
        let Some(at) = names.iter().position(|part| *part == name) else {
            return Err(de::Error::custom(format!("no part `{}`", cut(&name, EXCERPT))));
        };
        if values[at].is_some() {
            return Err(de::Error::custom(format!("part `{name}` is given twice")));
        }
        values[at] = Some(read(map, at)?);
    }
    (names.iter().zip(values))
        .map(|(name, value)| value.ok_or_else(|| de::Error::custom(format!("part `{name}` is missing"))))
        .collect()
}

/// A `[key, value]` pair of a map written as a list.
struct PairSeed<'o, 's> {
    key: &'s [u32],
    value: &'s [u32],
    out: &'o mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for PairSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for PairSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a [key, value] pair")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let (key, value) = (self.key, self.value);
        exactly(&mut seq, 2, |n| if n == 0 { key } else { value }, self.out)
    }
}

/// `Option<T>`: `null`, or the value (an option of an option wraps its `Some` in a list, so
/// that `Some(None)` differs from `None`).
struct OptionVisitor<'o, 's> {
    sig: &'s [u32],
    inner: &'s [u32],
    out: &'o mut Vec<u8>,
}

impl<'de> Visitor<'de> for OptionVisitor<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("null or a value")
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.out.push(0);
        // A `None` of a static size fills it.
        if let Some(size) = static_size(self.sig).map_err(E::custom)? {
            self.out.resize(self.out.len() + size as usize - 1, 0);
        }
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.visit_none()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.out.push(1);
        match split_type(self.inner) {
            Some((Sig::Option(_), _, _)) => d.deserialize_seq(WrappedSome { inner: self.inner, out: self.out }),
            _ => PlainSeed { sig: self.inner, out: self.out }.deserialize(d),
        }
    }
}

/// The `[value]` of an option's `Some` when the value is itself an option.
struct WrappedSome<'o, 's> {
    inner: &'s [u32],
    out: &'o mut Vec<u8>,
}

impl<'de> Visitor<'de> for WrappedSome<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("null or [value]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let inner = self.inner;
        exactly(&mut seq, 1, |_| inner, self.out)
    }
}

/// A derived plain struct (an object of its parts, in any order) or tuple (a list of them),
/// written part after part in the order the type declares them.
struct DerivedVisitor<'o> {
    layout: &'static PlainLayout,
    out: &'o mut Vec<u8>,
}

impl<'de> Visitor<'de> for DerivedVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.layout {
            PlainLayout::Struct(_) => f.write_str("an object of the struct's parts"),
            _ => f.write_str("a list of the tuple's parts"),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let PlainLayout::Tuple(parts) = self.layout else {
            return Err(de::Error::invalid_type(Unexpected::Seq, &self));
        };
        exactly(&mut seq, parts.len(), |n| &parts[n], self.out)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let PlainLayout::Struct(parts) = self.layout else {
            return Err(de::Error::invalid_type(Unexpected::Map, &self));
        };
        // Each part into its own bytes, then all in the declared order.
        let names: Vec<&str> = parts.iter().map(|(name, _)| *name).collect();
        let written = by_name(&mut map, &names, |map, at| {
            let mut bytes = Vec::new();
            map.next_value_seed(PlainSeed { sig: &parts[at].1, out: &mut bytes })?;
            Ok(bytes)
        })?;
        written.iter().for_each(|bytes| self.out.extend_from_slice(bytes));
        Ok(())
    }
}

/// A leaf value as a [`PlainValue`]: a number, a string, a `bool`, a `char`, a variant's name,
/// or a small struct of leaves (a `Duration`, a glam vector).
struct LeafVisitor {
    leaf: u32,
}

struct LeafSeed {
    leaf: u32,
}

impl<'de> DeserializeSeed<'de> for LeafSeed {
    type Value = PlainValue;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<PlainValue, D::Error> {
        d.deserialize_any(LeafVisitor { leaf: self.leaf })
    }
}

fn is_unsigned(leaf: u32) -> bool {
    matches!(leaf, id::U8 | id::U16 | id::U32 | id::U64 | id::U128 | id::USIZE)
}

fn is_signed(leaf: u32) -> bool {
    matches!(leaf, id::I8 | id::I16 | id::I32 | id::I64 | id::I128 | id::ISIZE)
}

/// The parts of a leaf written as a struct: `(name, leaf type)`.
fn struct_parts(leaf: u32) -> Option<Vec<(&'static str, u32)>> {
    match leaf {
        id::DURATION => Some(vec![("secs", id::U64), ("nanos", id::U32)]),
        id::SYSTEM_TIME => Some(vec![("secs", id::I64), ("nanos", id::U32)]),
        _ => {
            let lanes = lanes(leaf)?;
            Some(lanes.names?.iter().map(|&name| (name, lanes.lane)).collect())
        }
    }
}

impl<'de> Visitor<'de> for LeafVisitor {
    type Value = PlainValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let leaf = self.leaf;
        let what = match leaf {
            _ if is_unsigned(leaf) => "an unsigned integer",
            _ if is_signed(leaf) => "an integer",
            id::F32 | id::F64 => "a number",
            id::BOOL => "true or false",
            id::CHAR => "one character",
            id::STRING | id::PATH_BUF | id::IPV4_ADDR | id::IPV6_ADDR | id::IP_ADDR | id::SOCKET_ADDR => "a string",
            id::SERDE => "base64 bytes",
            _ => match (lanes(leaf), derived(leaf)) {
                (Some(_), _) => "a list or an object of the vector's lanes",
                (None, Some(PlainLayout::Enum(_))) => "a variant's name",
                _ if struct_parts(leaf).is_some() => "an object of `secs` and `nanos`",
                _ => return write!(f, "a value of plain type {leaf}"),
            },
        };
        f.write_str(what)
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<PlainValue, E> {
        match self.leaf {
            id::BOOL => Ok(PlainValue::Bool(value)),
            _ => Err(self.refuse(Unexpected::Bool(value))),
        }
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<PlainValue, E> {
        match self.leaf {
            leaf if is_unsigned(leaf) || is_signed(leaf) => Ok(PlainValue::UInt(value.into())),
            id::F32 | id::F64 => self.float(value as f64),
            _ => Err(self.refuse(Unexpected::Unsigned(value))),
        }
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<PlainValue, E> {
        match self.leaf {
            // The writer checks the range (a negative number is no unsigned one).
            leaf if is_unsigned(leaf) || is_signed(leaf) => Ok(PlainValue::Int(value.into())),
            id::F32 | id::F64 => self.float(value as f64),
            _ => Err(self.refuse(Unexpected::Signed(value))),
        }
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<PlainValue, E> {
        match self.leaf {
            id::F32 | id::F64 => self.float(value),
            _ => Err(self.refuse(Unexpected::Float(value))),
        }
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<PlainValue, E> {
        let leaf = self.leaf;
        let refuse = || self.refuse(Unexpected::Str(text));
        match leaf {
            _ if is_unsigned(leaf) => text.parse().map(PlainValue::UInt).map_err(|_| refuse()),
            _ if is_signed(leaf) => text.parse().map(PlainValue::Int).map_err(|_| refuse()),
            id::F32 | id::F64 => match text {
                "NaN" => self.float(f64::NAN),
                "Infinity" => self.float(f64::INFINITY),
                "-Infinity" => self.float(f64::NEG_INFINITY),
                _ => Err(refuse()),
            },
            id::CHAR => {
                let mut chars = text.chars();
                match (chars.next(), chars.next()) {
                    (Some(char), None) => Ok(PlainValue::Char(char)),
                    _ => Err(refuse()),
                }
            }
            id::STRING | id::PATH_BUF | id::IPV4_ADDR | id::IPV6_ADDR | id::IP_ADDR | id::SOCKET_ADDR => {
                Ok(PlainValue::Str(text.to_owned()))
            }
            id::SERDE => {
                BASE64.decode(text).map(PlainValue::Raw).map_err(|error| E::custom(format!("bad base64: {error}")))
            }
            _ => match (lanes(leaf), derived(leaf)) {
                (None, Some(PlainLayout::Enum(_))) => Ok(PlainValue::Variant(Cow::Owned(text.to_owned()))),
                _ => Err(refuse()),
            },
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PlainValue, A::Error> {
        let Some(lanes) = lanes(self.leaf) else {
            return Err(self.refuse(Unexpected::Seq));
        };
        let mut values = Vec::with_capacity(lanes.count);
        while let Some(value) = seq.next_element_seed(LeafSeed { leaf: lanes.lane })? {
            if values.len() == lanes.count {
                return Err(de::Error::custom(format!("more than {} lanes", lanes.count)));
            }
            values.push(value);
        }
        Ok(PlainValue::Seq(values))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PlainValue, A::Error> {
        let Some(parts) = struct_parts(self.leaf) else {
            return Err(self.refuse(Unexpected::Map));
        };
        let names: Vec<&str> = parts.iter().map(|(name, _)| *name).collect();
        let values = by_name(&mut map, &names, |map, at| map.next_value_seed(LeafSeed { leaf: parts[at].1 }))?;
        Ok(PlainValue::Struct(names.into_iter().map(Cow::Borrowed).zip(values).collect()))
    }
}

impl LeafVisitor {
    fn refuse<E: de::Error>(&self, unexpected: Unexpected<'_>) -> E {
        match self.taken_apart() {
            true => expected(&self.to_string(), unexpected),
            false => E::custom(not_taken_apart(self.leaf)),
        }
    }

    /// Whether this program knows the leaf's parts (or it has none).
    fn taken_apart(&self) -> bool {
        let leaf = self.leaf;
        is_unsigned(leaf)
            || is_signed(leaf)
            || matches!(
                leaf,
                id::F32
                    | id::F64
                    | id::BOOL
                    | id::CHAR
                    | id::STRING
                    | id::PATH_BUF
                    | id::IPV4_ADDR
                    | id::IPV6_ADDR
                    | id::IP_ADDR
                    | id::SOCKET_ADDR
                    | id::SERDE
            )
            || lanes(leaf).is_some()
            || derived(leaf).is_some()
            || struct_parts(leaf).is_some()
    }

    /// A float as its field's type: a finite number too large for an `f32` is refused, not
    /// stored as infinity (rounding to the nearest `f32` is fine: the writer does it too).
    fn float<E: de::Error>(&self, value: f64) -> Result<PlainValue, E> {
        if self.leaf == id::F64 {
            return Ok(PlainValue::F64(value));
        }
        let narrow = value as f32;
        if value.is_finite() && narrow.is_infinite() {
            return Err(E::custom(format!("{value} is out of the range of an f32")));
        }
        Ok(PlainValue::F32(narrow))
    }
}

impl fmt::Display for LeafVisitor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.expecting(f)
    }
}

/// Why a value of a program's own plain type cannot be read here.
fn not_taken_apart(leaf: u32) -> String {
    format!(
        "plain type {leaf} is one this program cannot take apart: a document written by the program that \
         defines it shows its parts, and only a program with that type reads them back (`JsonReader` there); \
         elsewhere give the field in its stored form, {{\"$count\": …, \"$bytes\": \"base64\"}}"
    )
}
