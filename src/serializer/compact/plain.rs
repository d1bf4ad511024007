//! Plain elements between their normal and compact forms (`FORMAT.md`, "Compact plain
//! elements"), driven by the signature and the stream's plain block alone.
//!
//! A compact stream walks a plain field's elements when every type in its signature is one the
//! format defines (numbers, strings, paths, sequences, maps, options, arrays, tuples, addresses,
//! glam) or one its plain block describes (the program's derived types): then any reader can take
//! them apart, with or without the program. Fields holding other plain types (hand-written
//! codecs) keep their normal bytes behind a varint length (`Class::Framed`).

use super::plain_block::{PlainTypes, MAX_NESTING};
use super::Output;
use crate::plain::signature::{split_all, split_type, Sig};
use crate::plain::{type_ids as id, varint, PlainError, Reader, DYNAMIC_SIZE_PREFIX, MAX_PLAIN_DEPTH};
use crate::wire::error::{corrupt, DecodeError};
use crate::wire::WireWrite;

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
/// itself is a loop in the plan, bounded by the walker's depth). Compiling is linear in the
/// signatures and descriptions it reads.
#[derive(Default)]
pub(super) struct Plan {
    nodes: Vec<Node>,
    /// Whether each node's compact element may take no bytes (an empty array, a tuple or
    /// described type of such): counts of them go against the zero-size allowance.
    empty: Vec<bool>,
    described: ahash::AHashMap<u32, NodeId>,
}

impl Plan {
    /// The node of `sig`, whose size `types` defines ([`PlainTypes::size`] is `Some`); `None`
    /// when it nests more than [`MAX_NESTING`] deep (which only a hostile block can make it do:
    /// sizes worked out once per described type can add up past that bound).
    pub(super) fn compile(&mut self, types: &PlainTypes, sig: &[u32]) -> Option<NodeId> {
        self.compile_in(types, sig, 0)
    }

    fn compile_in(&mut self, types: &PlainTypes, sig: &[u32], depth: usize) -> Option<NodeId> {
        if depth > MAX_NESTING {
            return None;
        }
        if let Some(leaf) = VarintLeaf::of(sig) {
            return Some(self.push(Node::Varint(leaf), false));
        }
        let (node, _, _) = split_type(sig)?;
        let depth = depth + 1;
        // Each node's size follows from its parts' (as `PlainTypes::size` works it out), so
        // compiling reads every signature once.
        let id = match node {
            Sig::Leaf(id::STRING | id::PATH_BUF | id::SERDE) => self.push(Node::Bytes, false),
            Sig::Leaf(type_id) => match types.leaf_size(type_id)? {
                Some(size) => self.push(Node::Fixed(size as usize), size == 0),
                None => return self.described(types, type_id, depth),
            },
            Sig::Seq(_, elem) => {
                let elem = self.compile_in(types, elem, depth)?;
                let (normal_min, compact_min) = self.mins(elem);
                self.push(Node::Seq { elem, normal_min, compact_min }, false)
            }
            Sig::Map(_, key, value) => {
                let (key, value) = (self.compile_in(types, key, depth)?, self.compile_in(types, value, depth)?);
                let ((key_normal, key_compact), (value_normal, value_compact)) = (self.mins(key), self.mins(value));
                let (normal_min, compact_min) = (key_normal + value_normal, key_compact + value_compact);
                self.push(Node::Map { key, value, normal_min, compact_min }, false)
            }
            Sig::Option(inner) => {
                let inner = self.compile_in(types, inner, depth)?;
                match self.static_size(inner) {
                    Some(size) if size < 255 => self.push(Node::Fixed(size + 1), false),
                    _ => self.push(Node::Option(inner), false),
                }
            }
            Sig::Array(len, elem) => {
                let elem = self.compile_in(types, elem, depth)?;
                match self.static_size(elem).and_then(|size| size.checked_mul(len as usize)) {
                    Some(total) if total <= 255 => self.push(Node::Fixed(total), total == 0),
                    _ => {
                        let empty = len == 0 || self.empty[elem as usize];
                        self.push(Node::Repeat(len, elem), empty)
                    }
                }
            }
            Sig::Tuple(_, parts) => {
                let parts = split_all(parts)
                    .into_iter()
                    .map(|part| self.compile_in(types, part, depth))
                    .collect::<Option<Vec<NodeId>>>()?;
                let sizes: Option<usize> = parts.iter().map(|&part| self.static_size(part)).sum();
                match sizes {
                    Some(total) if total <= 255 => self.push(Node::Fixed(total), total == 0),
                    _ => {
                        let empty = parts.iter().all(|&part| self.empty[part as usize]);
                        self.push(Node::Tuple(parts), empty)
                    }
                }
            }
        };
        Some(id)
    }

    /// The node of a described type, compiled once: static ones keep their bytes, dynamic ones
    /// are their parts. Until its parts are compiled, a type met inside itself counts as dynamic
    /// and taking bytes, as its size does.
    fn described(&mut self, types: &PlainTypes, type_id: u32, depth: usize) -> Option<NodeId> {
        if let Some(&known) = self.described.get(&type_id) {
            return Some(known);
        }
        if let Some(Some(size)) = types.described_size_of(type_id)? {
            let id = self.push(Node::Fixed(size as usize), size == 0);
            self.described.insert(type_id, id);
            return Some(id);
        }
        let at = self.push(Node::Described(Vec::new()), false);
        self.described.insert(type_id, at);
        let parts = types
            .parts(type_id)?
            .iter()
            .map(|part| self.compile_in(types, part, depth))
            .collect::<Option<Vec<NodeId>>>()?;
        self.empty[at as usize] = parts.iter().all(|&part| self.empty[part as usize]);
        self.nodes[at as usize] = Node::Described(parts);
        Some(at)
    }

    /// A node's static size: its bytes, or a varint's normal width.
    fn static_size(&self, node: NodeId) -> Option<usize> {
        match self.nodes[node as usize] {
            Node::Fixed(size) => Some(size),
            Node::Varint(leaf) => Some((leaf.bits / 8) as usize),
            _ => None,
        }
    }

    /// The fewest bytes one element of `node` takes, normal and compact, to check counts against.
    fn mins(&self, node: NodeId) -> (usize, usize) {
        match self.nodes[node as usize] {
            Node::Fixed(size) => (size, size),
            Node::Varint(leaf) => ((leaf.bits / 8) as usize, 1),
            _ => (DYNAMIC_SIZE_PREFIX, usize::from(!self.empty[node as usize])),
        }
    }

    /// The fewest compact bytes one element of `node` takes (0: it counts against the zero-size
    /// allowance).
    pub(super) fn compact_min(&self, node: NodeId) -> usize {
        self.mins(node).1
    }

    fn push(&mut self, node: Node, empty: bool) -> NodeId {
        self.nodes.push(node);
        self.empty.push(empty);
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
pub(super) struct ElementWalk<'p> {
    plan: &'p Plan,
    /// Described types entered and not yet left: a type may hold itself, so this bounds the
    /// recursion a hostile stream can ask for, as the typed readers bound it.
    depth: usize,
    /// Dynamic values of any kind entered and not yet left: each is a few frames of recursion.
    nesting: usize,
}

/// How deeply dynamic values may nest in one walked element (each sequence, map, option, array,
/// tuple and described value one level): room for [`MAX_PLAIN_DEPTH`] described levels of a few
/// containers each, and a bound on the walker's stack.
pub const MAX_WALK_NESTING: usize = 4 * MAX_PLAIN_DEPTH;

impl<'p> ElementWalk<'p> {
    pub(super) fn new(plan: &'p Plan) -> Self {
        ElementWalk { plan, depth: 0, nesting: 0 }
    }

    /// Enters a dynamic value, refused past [`MAX_WALK_NESTING`] levels.
    fn nest(&mut self, reader: &Reader<'_>) -> Result<(), DecodeError> {
        self.nesting += 1;
        if self.nesting > MAX_WALK_NESTING {
            return Err(PlainError::TooDeep { offset: reader.offset(), limit: MAX_WALK_NESTING }.into());
        }
        Ok(())
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
                self.nest(reader)?;
                self.content_to_compact(shape, &mut content, out)?;
                self.nesting -= 1;
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
                self.nest(reader)?;
                self.content_to_normal(shape, reader, out)?;
                self.nesting -= 1;
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
