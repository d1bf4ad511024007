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

/// Index of a node in a [`Plan`].
pub(super) type NodeId = u32;

/// How one walked type is written, worked out once from its signature (and the plain block).
enum Node {
    Varint(VarintLeaf),
    /// A static type: its normal bytes, this many.
    Fixed(usize),
    /// Strings, paths and serde values: bytes, counted.
    Bytes,
    /// Sequences; the fewest bytes one element takes in each form, for checking counts.
    Seq {
        elem: NodeId,
        normal_min: usize,
        compact_min: usize,
    },
    Map {
        key: NodeId,
        value: NodeId,
        normal_min: usize,
        compact_min: usize,
    },
    /// A dynamic `Option`.
    Option(NodeId),
    /// A dynamic array: its length, then its element type.
    Repeat(u32, NodeId),
    /// A dynamic tuple: each part in turn.
    Tuple(Vec<NodeId>),
    /// A dynamic type the plain block describes: its parts in turn.
    Described(Vec<NodeId>),
}

/// The walked types of a stream, compiled: a field's class names its node, so the walk does no
/// signature parsing per element. Described types are compiled once each (so a type that holds
/// itself is a loop in the plan, bounded by the walker's depth).
#[derive(Default)]
pub(super) struct Plan {
    nodes: Vec<Node>,
    described: ahash::AHashMap<u32, NodeId>,
}

impl Plan {
    /// The node of `sig`, whose size `types` must define ([`PlainTypes::size`] is `Some`).
    pub(super) fn compile(&mut self, types: &PlainTypes, sig: &[u32]) -> NodeId {
        if let Some(leaf) = VarintLeaf::of(sig) {
            return self.push(Node::Varint(leaf));
        }
        if let Some(Some(size)) = types.size(sig) {
            return self.push(Node::Fixed(size as usize));
        }
        let Some((node, _, _)) = split_type(sig) else { return self.push(Node::Bytes) };
        // The fewest bytes one element takes, normal and compact, to check counts against.
        let mins = |plan: &Plan, types: &PlainTypes, elem: &[u32], id: NodeId| match plan.nodes[id as usize] {
            Node::Fixed(size) => (size, size),
            Node::Varint(leaf) => ((leaf.bits / 8) as usize, 1),
            _ => (DYNAMIC_SIZE_PREFIX, usize::from(!types.may_be_empty(elem))),
        };
        match node {
            Sig::Leaf(id::STRING | id::PATH_BUF | id::SERDE) => self.push(Node::Bytes),
            Sig::Leaf(type_id) => {
                if let Some(&known) = self.described.get(&type_id) {
                    return known;
                }
                let at = self.push(Node::Described(Vec::new()));
                self.described.insert(type_id, at);
                let parts: Vec<NodeId> =
                    types.parts(type_id).unwrap_or_default().iter().map(|part| self.compile(types, part)).collect();
                self.nodes[at as usize] = Node::Described(parts);
                at
            }
            Sig::Seq(_, elem) => {
                let elem_id = self.compile(types, elem);
                let (normal_min, compact_min) = mins(self, types, elem, elem_id);
                self.push(Node::Seq { elem: elem_id, normal_min, compact_min })
            }
            Sig::Map(_, key, value) => {
                let (key_id, value_id) = (self.compile(types, key), self.compile(types, value));
                let (key_normal, key_compact) = mins(self, types, key, key_id);
                let (value_normal, value_compact) = mins(self, types, value, value_id);
                self.push(Node::Map {
                    key: key_id,
                    value: value_id,
                    normal_min: key_normal + value_normal,
                    compact_min: key_compact + value_compact,
                })
            }
            Sig::Option(inner) => {
                let inner = self.compile(types, inner);
                self.push(Node::Option(inner))
            }
            Sig::Array(len, elem) => {
                let elem = self.compile(types, elem);
                self.push(Node::Repeat(len, elem))
            }
            Sig::Tuple(_, parts) => {
                let parts = split_all(parts).into_iter().map(|part| self.compile(types, part)).collect();
                self.push(Node::Tuple(parts))
            }
        }
    }

    fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        (self.nodes.len() - 1) as NodeId
    }

    fn fixed(&self, node: NodeId) -> Option<usize> {
        match self.nodes[node as usize] {
            Node::Fixed(size) => Some(size),
            _ => None,
        }
    }
}

/// Walks elements by a [`Plan`], from one form to the other.
pub(super) struct Walker<'p> {
    plan: &'p Plan,
    /// Described types entered and not yet left: a type may hold itself, so this bounds the
    /// recursion a hostile stream can ask for.
    depth: usize,
}

impl<'p> Walker<'p> {
    pub(super) fn new(plan: &'p Plan) -> Self {
        Walker { plan, depth: 0 }
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

    /// `count` normal elements of `node` to compact ones.
    fn elems_to_compact(
        &mut self,
        node: NodeId,
        count: usize,
        reader: &mut Reader<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), DecodeError> {
        if let Some(size) = self.plan.fixed(node) {
            out.extend_from_slice(reader.take(count.saturating_mul(size))?);
            return Ok(());
        }
        for _ in 0..count {
            self.elem_to_compact(node, reader, out)?;
        }
        Ok(())
    }

    /// `count` compact elements of `node` to normal ones.
    fn elems_to_normal(
        &mut self,
        node: NodeId,
        count: usize,
        reader: &mut Reader<'_>,
        out: &mut Output,
    ) -> Result<(), DecodeError> {
        if let Some(size) = self.plan.fixed(node) {
            out.extend(reader.take(count.saturating_mul(size))?);
            return out.check(reader.offset());
        }
        for _ in 0..count {
            self.elem_to_normal(node, reader, out)?;
        }
        Ok(())
    }

    /// One normal element (a dynamic one with its size prefix) to its compact element.
    pub(super) fn elem_to_compact(
        &mut self,
        node: NodeId,
        reader: &mut Reader<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), DecodeError> {
        let plan = self.plan;
        match &plan.nodes[node as usize] {
            Node::Varint(leaf) => Ok(leaf.to_compact(reader, out)?),
            Node::Fixed(size) => {
                out.extend_from_slice(reader.take(*size)?);
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
        shape: &Node,
        reader: &mut Reader<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), DecodeError> {
        match shape {
            Node::Bytes => {
                let bytes = reader.take(reader.remaining())?;
                varint::write_u64(bytes.len() as u64, out);
                out.extend_from_slice(bytes);
            }
            &Node::Seq { elem, normal_min, .. } => {
                let count = reader.read_count(normal_min)?;
                varint::write_u64(count as u64, out);
                self.elems_to_compact(elem, count, reader, out)?;
            }
            &Node::Map { key, value, normal_min, .. } => {
                let count = reader.read_count(normal_min)?;
                varint::write_u64(count as u64, out);
                for _ in 0..count {
                    self.elem_to_compact(key, reader, out)?;
                    self.elem_to_compact(value, reader, out)?;
                }
            }
            &Node::Option(inner) => {
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
            &Node::Repeat(len, elem) => self.elems_to_compact(elem, len as usize, reader, out)?,
            Node::Tuple(parts) => {
                for &part in parts {
                    self.elem_to_compact(part, reader, out)?;
                }
            }
            Node::Described(parts) => {
                self.enter(reader)?;
                for &part in parts {
                    self.elem_to_compact(part, reader, out)?;
                }
                self.depth -= 1;
            }
            Node::Varint(_) | Node::Fixed(_) => unreachable!("static elements have no content of their own"),
        }
        Ok(())
    }

    /// One compact element to its normal element (a dynamic one with its size prefix).
    pub(super) fn elem_to_normal(
        &mut self,
        node: NodeId,
        reader: &mut Reader<'_>,
        out: &mut Output,
    ) -> Result<(), DecodeError> {
        let plan = self.plan;
        match &plan.nodes[node as usize] {
            Node::Varint(leaf) => Ok(leaf.to_normal(reader, out)?),
            Node::Fixed(size) => {
                out.extend(reader.take(*size)?);
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
        shape: &Node,
        reader: &mut Reader<'_>,
        out: &mut Output,
    ) -> Result<(), DecodeError> {
        match shape {
            Node::Bytes => {
                let len = reader.read_compact_count(1)?;
                out.extend(reader.take(len)?);
            }
            &Node::Seq { elem, compact_min, .. } => {
                let count = reader.read_compact_count(compact_min)?;
                out.word(count as u32);
                self.elems_to_normal(elem, count, reader, out)?;
            }
            &Node::Map { key, value, compact_min, .. } => {
                let count = reader.read_compact_count(compact_min)?;
                out.word(count as u32);
                for _ in 0..count {
                    self.elem_to_normal(key, reader, out)?;
                    self.elem_to_normal(value, reader, out)?;
                }
            }
            &Node::Option(inner) => {
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
            &Node::Repeat(len, elem) => self.elems_to_normal(elem, len as usize, reader, out)?,
            Node::Tuple(parts) => {
                for &part in parts {
                    self.elem_to_normal(part, reader, out)?;
                }
            }
            Node::Described(parts) => {
                self.enter(reader)?;
                for &part in parts {
                    self.elem_to_normal(part, reader, out)?;
                }
                self.depth -= 1;
            }
            Node::Varint(_) | Node::Fixed(_) => unreachable!("static elements have no content of their own"),
        }
        out.check(reader.offset())
    }
}
