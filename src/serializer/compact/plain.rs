//! Plain elements between their normal and compact forms (`FORMAT.md`, "Compact plain
//! elements"), driven by the signature and the stream's plain block alone.
//!
//! A compact stream walks a plain field's elements when every type in its signature is one the
//! format defines (numbers, strings, paths, sequences, maps, options, arrays, tuples, addresses,
//! glam) or one its plain block describes (the program's derived types): then any reader can take
//! them apart, with or without the program. Fields holding other plain types (hand-written
//! codecs) keep their normal bytes behind a varint length (`Class::Framed`).

use super::described::PlainTypes;
use super::Output;
use crate::plain::{type_ids as id, varint, PlainError, Reader, DYNAMIC_SIZE_PREFIX, MAX_PLAIN_DEPTH};
use crate::schema::describe::{split_all, split_type, Sig};
use crate::serializer::error::{corrupt, DecodeError};

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

/// What a walked element is, by its signature.
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
    Tuple(&'s [u32]),
    /// A dynamic type the plain block describes: its parts in turn.
    Described(&'s [Vec<u32>]),
}

/// Walks elements of the types a stream's plain block and the format define.
pub(super) struct Walker<'t> {
    pub types: &'t PlainTypes,
    /// Described types entered and not yet left: a type may hold itself, so this bounds the
    /// recursion a hostile stream can ask for.
    depth: usize,
}

impl<'t> Walker<'t> {
    pub(super) fn new(types: &'t PlainTypes) -> Self {
        Walker { types, depth: 0 }
    }

    fn walk<'s>(&self, sig: &'s [u32]) -> Result<Walk<'s>, DecodeError>
    where
        't: 's,
    {
        // The field's class was chosen from this signature, so it is always defined here.
        let undefined = || corrupt(0, "a walked signature names a type the stream does not describe");
        if let Some(leaf) = VarintLeaf::of(sig) {
            return Ok(Walk::Varint(leaf));
        }
        if let Some(size) = self.types.size(sig).ok_or_else(undefined)? {
            return Ok(Walk::Fixed(size));
        }
        let (node, _, _) = split_type(sig).ok_or_else(undefined)?;
        Ok(match node {
            Sig::Leaf(id::STRING | id::PATH_BUF | id::SERDE) => Walk::Bytes,
            Sig::Leaf(type_id) => Walk::Described(self.types.parts(type_id).ok_or_else(undefined)?),
            Sig::Seq(_, elem) => Walk::Seq(elem),
            Sig::Map(_, key, value) => Walk::Map(key, value),
            Sig::Option(inner) => Walk::Option(inner),
            Sig::Array(len, elem) => Walk::Repeat(len, elem),
            Sig::Tuple(_, parts) => Walk::Tuple(parts),
        })
    }

    /// Static elements that keep their bytes: `count` of them are one copy.
    fn fixed_elem(&self, sig: &[u32]) -> Option<usize> {
        match (VarintLeaf::of(sig), self.types.size(sig)) {
            (None, Some(Some(size))) => Some(size as usize),
            _ => None,
        }
    }

    /// Fewest bytes a compact element of `sig` takes, for checking counts: its size when it
    /// keeps its bytes, 0 for one that may take none (both go against the zero-size allowance),
    /// else 1.
    fn compact_min(&self, sig: &[u32]) -> usize {
        match self.fixed_elem(sig) {
            Some(size) => size,
            None if self.types.may_be_empty(sig) => 0,
            None => 1,
        }
    }

    fn normal_min(&self, sig: &[u32]) -> usize {
        match self.types.size(sig) {
            Some(Some(size)) => size as usize,
            _ => DYNAMIC_SIZE_PREFIX,
        }
    }

    /// Enters a described type's value, refused past [`MAX_PLAIN_DEPTH`] levels.
    fn enter(&mut self, reader: &Reader<'_>) -> Result<(), DecodeError> {
        self.depth += 1;
        if self.depth > MAX_PLAIN_DEPTH {
            let limit = MAX_PLAIN_DEPTH;
            return Err(PlainError::TooDeep { offset: reader.offset(), limit }.into());
        }
        Ok(())
    }

    /// `count` normal elements of `sig` to compact ones.
    fn elems_to_compact(
        &mut self,
        sig: &[u32],
        count: usize,
        reader: &mut Reader<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), DecodeError> {
        if let Some(size) = self.fixed_elem(sig) {
            out.extend_from_slice(reader.take(count.saturating_mul(size))?);
            return Ok(());
        }
        for _ in 0..count {
            self.elem_to_compact(sig, reader, out)?;
        }
        Ok(())
    }

    /// `count` compact elements of `sig` to normal ones.
    fn elems_to_normal(
        &mut self,
        sig: &[u32],
        count: usize,
        reader: &mut Reader<'_>,
        out: &mut Output,
    ) -> Result<(), DecodeError> {
        if let Some(size) = self.fixed_elem(sig) {
            out.extend(reader.take(count.saturating_mul(size))?);
            return out.check(reader.offset());
        }
        for _ in 0..count {
            self.elem_to_normal(sig, reader, out)?;
        }
        Ok(())
    }

    /// One normal element of `sig` (a dynamic one with its size prefix) to its compact element.
    pub(super) fn elem_to_compact(
        &mut self,
        sig: &[u32],
        reader: &mut Reader<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), DecodeError> {
        match self.walk(sig)? {
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
                self.content_to_compact(shape, &mut content, out)?;
                content.expect_end()?;
                reader.rejoin(&content);
                Ok(())
            }
        }
    }

    fn content_to_compact(
        &mut self,
        shape: Walk<'_>,
        reader: &mut Reader<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), DecodeError> {
        match shape {
            Walk::Bytes => {
                let bytes = reader.take(reader.remaining())?;
                varint::write_u64(bytes.len() as u64, out);
                out.extend_from_slice(bytes);
            }
            Walk::Seq(elem) => {
                let count = reader.read_count(self.normal_min(elem))?;
                varint::write_u64(count as u64, out);
                self.elems_to_compact(elem, count, reader, out)?;
            }
            Walk::Map(key, value) => {
                let count = reader.read_count(self.normal_min(key) + self.normal_min(value))?;
                varint::write_u64(count as u64, out);
                for _ in 0..count {
                    self.elem_to_compact(key, reader, out)?;
                    self.elem_to_compact(value, reader, out)?;
                }
            }
            Walk::Option(inner) => {
                let at = reader.offset();
                match reader.take(1)?[0] {
                    0 => out.push(0),
                    1 => {
                        out.push(1);
                        self.elem_to_compact(inner, reader, out)?;
                    }
                    _ => return Err(corrupt(at, "an option's tag is neither 0 nor 1")),
                }
            }
            Walk::Repeat(len, elem) => self.elems_to_compact(elem, len as usize, reader, out)?,
            Walk::Tuple(parts) => {
                for part in split_all(parts) {
                    self.elem_to_compact(part, reader, out)?;
                }
            }
            Walk::Described(parts) => {
                self.enter(reader)?;
                for part in parts {
                    self.elem_to_compact(part, reader, out)?;
                }
                self.depth -= 1;
            }
            Walk::Varint(_) | Walk::Fixed(_) => unreachable!("static elements have no content of their own"),
        }
        Ok(())
    }

    /// One compact element of `sig` to its normal element (a dynamic one with its size prefix).
    pub(super) fn elem_to_normal(
        &mut self,
        sig: &[u32],
        reader: &mut Reader<'_>,
        out: &mut Output,
    ) -> Result<(), DecodeError> {
        match self.walk(sig)? {
            Walk::Varint(leaf) => Ok(leaf.to_normal(reader, out)?),
            Walk::Fixed(size) => {
                out.extend(reader.take(size as usize)?);
                Ok(())
            }
            shape => {
                let at = out.reserve_word();
                self.content_to_normal(shape, reader, out)?;
                out.patch_size(at, reader.offset())
            }
        }
    }

    fn content_to_normal(
        &mut self,
        shape: Walk<'_>,
        reader: &mut Reader<'_>,
        out: &mut Output,
    ) -> Result<(), DecodeError> {
        match shape {
            Walk::Bytes => {
                let len = reader.read_compact_count(1)?;
                out.extend(reader.take(len)?);
            }
            Walk::Seq(elem) => {
                let count = reader.read_compact_count(self.compact_min(elem))?;
                out.word(count as u32);
                self.elems_to_normal(elem, count, reader, out)?;
            }
            Walk::Map(key, value) => {
                let count = reader.read_compact_count(self.compact_min(key) + self.compact_min(value))?;
                out.word(count as u32);
                for _ in 0..count {
                    self.elem_to_normal(key, reader, out)?;
                    self.elem_to_normal(value, reader, out)?;
                }
            }
            Walk::Option(inner) => {
                let at = reader.offset();
                match reader.take(1)?[0] {
                    0 => out.extend(&[0]),
                    1 => {
                        out.extend(&[1]);
                        self.elem_to_normal(inner, reader, out)?;
                    }
                    _ => return Err(corrupt(at, "an option's tag is neither 0 nor 1")),
                }
            }
            Walk::Repeat(len, elem) => self.elems_to_normal(elem, len as usize, reader, out)?,
            Walk::Tuple(parts) => {
                for part in split_all(parts) {
                    self.elem_to_normal(part, reader, out)?;
                }
            }
            Walk::Described(parts) => {
                self.enter(reader)?;
                for part in parts {
                    self.elem_to_normal(part, reader, out)?;
                }
                self.depth -= 1;
            }
            Walk::Varint(_) | Walk::Fixed(_) => unreachable!("static elements have no content of their own"),
        }
        out.check(reader.offset())
    }
}
