//! Plain elements of the types the format defines, between their normal and compact forms
//! (`FORMAT.md`, "Compact plain elements"), driven by the signature alone.
//!
//! A compact stream walks a plain field's elements only when every type in its signature is one
//! the format defines (numbers, strings, paths, sequences, maps, options, arrays, tuples,
//! addresses, glam): then any reader can take them apart, with or without the program's types.
//! Fields holding a program's own plain types keep their normal bytes behind a varint length
//! (`Class::Framed`), which needs no description.

use super::Output;
use crate::plain::{inline_or_dynamic, type_ids as id, varint, PlainError, Reader, DYNAMIC_SIZE_PREFIX};
use crate::schema::describe::{split_all, split_type, Sig};
use crate::serializer::error::{corrupt, DecodeError};
use crate::text::lanes;

/// A signature's type when the format defines it: `Some(Some(n))` static of size `n`,
/// `Some(None)` dynamic; `None` when it names a type the format does not define (a program's
/// own), anywhere inside.
pub(super) fn format_size(sig: &[u32]) -> Option<Option<u32>> {
    let (node, _, _) = split_type(sig)?;
    Some(match node {
        Sig::Leaf(type_id) => leaf_size(type_id)?,
        Sig::Seq(_, elem) => {
            format_size(elem)?;
            None
        }
        Sig::Map(_, key, value) => {
            format_size(key)?;
            format_size(value)?;
            None
        }
        Sig::Option(inner) => format_size(inner)?.and_then(|n| inline_or_dynamic(Some(1 + n))),
        Sig::Array(len, elem) => match format_size(elem)? {
            Some(n) if u64::from(n) * u64::from(len) <= 255 => Some(n * len),
            _ => None,
        },
        Sig::Tuple(_, parts) => {
            let mut total = Some(0u32);
            for part in split_all(parts) {
                total = match (total, format_size(part)?) {
                    (Some(sum), Some(n)) => Some(sum.saturating_add(n)),
                    _ => None,
                };
            }
            total.and_then(|n| inline_or_dynamic(Some(n)))
        }
    })
}

fn leaf_size(type_id: u32) -> Option<Option<u32>> {
    Some(match type_id {
        id::U8 | id::I8 | id::BOOL => Some(1),
        id::U16 | id::I16 => Some(2),
        id::U32 | id::I32 | id::F32 | id::CHAR | id::IPV4_ADDR => Some(4),
        id::U64 | id::I64 | id::F64 | id::USIZE | id::ISIZE => Some(8),
        id::U128 | id::I128 | id::IPV6_ADDR => Some(16),
        id::DURATION | id::SYSTEM_TIME => Some(12),
        id::IP_ADDR => Some(17),
        id::SOCKET_ADDR => Some(27),
        id::STRING | id::PATH_BUF | id::SERDE => None,
        _ => {
            let lanes = lanes(type_id)?;
            Some(lanes.count as u32 * leaf_size(lanes.lane)??)
        }
    })
}

/// An integer leaf written as a varint: its width in bits and whether it is zig-zag mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct VarintLeaf {
    pub bits: u32,
    pub signed: bool,
}

impl VarintLeaf {
    /// The leaf a one-word signature names, if it is written as a varint.
    pub(super) fn of(sig: &[u32]) -> Option<Self> {
        let &[type_id] = sig else { return None };
        let (bits, signed) = match type_id {
            id::U16 => (16, false),
            id::U32 | id::CHAR => (32, false),
            id::U64 | id::USIZE => (64, false),
            id::U128 => (128, false),
            id::I16 => (16, true),
            id::I32 => (32, true),
            id::I64 | id::ISIZE => (64, true),
            id::I128 => (128, true),
            _ => return None,
        };
        Some(VarintLeaf { bits, signed })
    }

    /// Normal bytes (`bits / 8`, little-endian) to a varint.
    #[inline]
    pub(super) fn to_compact(self, reader: &mut Reader<'_>, out: &mut Vec<u8>) -> Result<(), PlainError> {
        let bytes = reader.take((self.bits / 8) as usize)?;
        let mut word = [0u8; 16];
        word[..bytes.len()].copy_from_slice(bytes);
        let raw = u128::from_le_bytes(word);
        if self.bits <= 64 {
            let value = match self.signed {
                // Sign-extended first: zig-zag of a narrow value fits its width.
                true => varint::zigzag_i64(((raw as u64) << (64 - self.bits)) as i64 >> (64 - self.bits)),
                false => raw as u64,
            };
            varint::write_u64(value, out);
        } else {
            let value = if self.signed { varint::zigzag_i128(raw as i128) } else { raw };
            varint::write_u128(value, out);
        }
        Ok(())
    }

    /// A varint to normal bytes.
    #[inline]
    pub(super) fn to_normal(self, reader: &mut Reader<'_>, out: &mut Output) -> Result<(), PlainError> {
        let size = (self.bits / 8) as usize;
        let value = if self.bits <= 64 {
            let value = varint::read_u64(reader, self.bits)?;
            match self.signed {
                true => varint::unzigzag_i64(value) as u128,
                false => u128::from(value),
            }
        } else {
            let value = varint::read_u128(reader)?;
            if self.signed {
                varint::unzigzag_i128(value) as u128
            } else {
                value
            }
        };
        out.extend(&value.to_le_bytes()[..size]);
        Ok(())
    }
}

/// What a walked element is, by its signature (format-defined types only).
enum Walk<'s> {
    Varint(VarintLeaf),
    Fixed(u32),
    /// Strings, paths and serde values: bytes, counted.
    Bytes,
    Seq(&'s [u32]),
    Map(&'s [u32], &'s [u32]),
    Option(&'s [u32]),
    /// A dynamic array: its length, then its element type.
    Repeat(u32, &'s [u32]),
    /// A dynamic tuple: each part in turn.
    Parts(Vec<&'s [u32]>),
}

fn walk(sig: &[u32]) -> Result<Walk<'_>, DecodeError> {
    // The field's class was chosen from this signature, so it is always defined here.
    let undefined = || corrupt(0, "a walked signature names a type the format does not define");
    if let Some(leaf) = VarintLeaf::of(sig) {
        return Ok(Walk::Varint(leaf));
    }
    if let Some(size) = format_size(sig).ok_or_else(undefined)? {
        return Ok(Walk::Fixed(size));
    }
    let (node, _, _) = split_type(sig).ok_or_else(undefined)?;
    Ok(match node {
        Sig::Leaf(_) => Walk::Bytes,
        Sig::Seq(_, elem) => Walk::Seq(elem),
        Sig::Map(_, key, value) => Walk::Map(key, value),
        Sig::Option(inner) => Walk::Option(inner),
        Sig::Array(len, elem) => Walk::Repeat(len, elem),
        Sig::Tuple(_, parts) => Walk::Parts(split_all(parts)),
    })
}

/// Fewest bytes a compact element of `sig` takes, for checking counts: its size when static and
/// not a varint (0 goes against the zero-size allowance), else 1.
fn compact_min(sig: &[u32]) -> usize {
    match (VarintLeaf::of(sig), format_size(sig)) {
        (None, Some(Some(size))) => size as usize,
        _ => 1,
    }
}

fn normal_min(sig: &[u32]) -> usize {
    match format_size(sig) {
        Some(Some(size)) => size as usize,
        _ => DYNAMIC_SIZE_PREFIX,
    }
}

/// Static elements that keep their bytes: `count` of them are one copy.
fn fixed_elem(sig: &[u32]) -> Option<usize> {
    match (VarintLeaf::of(sig), format_size(sig)) {
        (None, Some(Some(size))) => Some(size as usize),
        _ => None,
    }
}

/// `count` normal elements of `sig` to compact ones.
fn elems_to_compact(sig: &[u32], count: usize, reader: &mut Reader<'_>, out: &mut Vec<u8>) -> Result<(), DecodeError> {
    if let Some(size) = fixed_elem(sig) {
        out.extend_from_slice(reader.take(count.saturating_mul(size))?);
        return Ok(());
    }
    for _ in 0..count {
        elem_to_compact(sig, reader, out)?;
    }
    Ok(())
}

/// `count` compact elements of `sig` to normal ones.
fn elems_to_normal(sig: &[u32], count: usize, reader: &mut Reader<'_>, out: &mut Output) -> Result<(), DecodeError> {
    if let Some(size) = fixed_elem(sig) {
        out.extend(reader.take(count.saturating_mul(size))?);
        return out.check(reader.offset());
    }
    for _ in 0..count {
        elem_to_normal(sig, reader, out)?;
    }
    Ok(())
}

/// One normal element of `sig` (a dynamic one with its size prefix) to its compact element.
pub(super) fn elem_to_compact(sig: &[u32], reader: &mut Reader<'_>, out: &mut Vec<u8>) -> Result<(), DecodeError> {
    match walk(sig)? {
        Walk::Varint(leaf) => Ok(leaf.to_compact(reader, out)?),
        Walk::Fixed(size) => {
            out.extend_from_slice(reader.take(size as usize)?);
            Ok(())
        }
        shape => {
            let at = reader.offset();
            let size = reader.read_u32()? as usize;
            let len = size
                .checked_sub(DYNAMIC_SIZE_PREFIX)
                .ok_or_else(|| corrupt(at, "a dynamic element's size is less than its prefix"))?;
            let mut content = reader.sub_reader(len)?;
            content_to_compact(shape, &mut content, out)?;
            content.expect_end()?;
            reader.rejoin(&content);
            Ok(())
        }
    }
}

fn content_to_compact(shape: Walk<'_>, reader: &mut Reader<'_>, out: &mut Vec<u8>) -> Result<(), DecodeError> {
    match shape {
        Walk::Bytes => {
            let bytes = reader.take(reader.remaining())?;
            varint::write_u64(bytes.len() as u64, out);
            out.extend_from_slice(bytes);
        }
        Walk::Seq(elem) => {
            let count = reader.read_count(normal_min(elem))?;
            varint::write_u64(count as u64, out);
            elems_to_compact(elem, count, reader, out)?;
        }
        Walk::Map(key, value) => {
            let count = reader.read_count(normal_min(key) + normal_min(value))?;
            varint::write_u64(count as u64, out);
            for _ in 0..count {
                elem_to_compact(key, reader, out)?;
                elem_to_compact(value, reader, out)?;
            }
        }
        Walk::Option(inner) => {
            let at = reader.offset();
            match reader.take(1)?[0] {
                0 => out.push(0),
                1 => {
                    out.push(1);
                    elem_to_compact(inner, reader, out)?;
                }
                _ => return Err(corrupt(at, "an option's tag is neither 0 nor 1")),
            }
        }
        Walk::Repeat(len, elem) => elems_to_compact(elem, len as usize, reader, out)?,
        Walk::Parts(parts) => {
            for part in parts {
                elem_to_compact(part, reader, out)?;
            }
        }
        Walk::Varint(_) | Walk::Fixed(_) => unreachable!("static elements have no content of their own"),
    }
    Ok(())
}

/// One compact element of `sig` to its normal element (a dynamic one with its size prefix).
pub(super) fn elem_to_normal(sig: &[u32], reader: &mut Reader<'_>, out: &mut Output) -> Result<(), DecodeError> {
    match walk(sig)? {
        Walk::Varint(leaf) => Ok(leaf.to_normal(reader, out)?),
        Walk::Fixed(size) => {
            out.extend(reader.take(size as usize)?);
            Ok(())
        }
        shape => {
            let at = out.reserve_word();
            content_to_normal(shape, reader, out)?;
            out.patch_size(at, reader.offset())
        }
    }
}

fn content_to_normal(shape: Walk<'_>, reader: &mut Reader<'_>, out: &mut Output) -> Result<(), DecodeError> {
    match shape {
        Walk::Bytes => {
            let len = reader.read_compact_count(1)?;
            out.extend(reader.take(len)?);
        }
        Walk::Seq(elem) => {
            let count = reader.read_compact_count(compact_min(elem))?;
            out.word(count as u32);
            elems_to_normal(elem, count, reader, out)?;
        }
        Walk::Map(key, value) => {
            let count = reader.read_compact_count(compact_min(key) + compact_min(value))?;
            out.word(count as u32);
            for _ in 0..count {
                elem_to_normal(key, reader, out)?;
                elem_to_normal(value, reader, out)?;
            }
        }
        Walk::Option(inner) => {
            let at = reader.offset();
            match reader.take(1)?[0] {
                0 => out.extend(&[0]),
                1 => {
                    out.extend(&[1]);
                    elem_to_normal(inner, reader, out)?;
                }
                _ => return Err(corrupt(at, "an option's tag is neither 0 nor 1")),
            }
        }
        Walk::Repeat(len, elem) => elems_to_normal(elem, len as usize, reader, out)?,
        Walk::Parts(parts) => {
            for part in parts {
                elem_to_normal(part, reader, out)?;
            }
        }
        Walk::Varint(_) | Walk::Fixed(_) => unreachable!("static elements have no content of their own"),
    }
    out.check(reader.offset())
}
