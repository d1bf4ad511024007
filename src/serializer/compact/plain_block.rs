//! The program's own plain types in a compact stream: the *plain block* describes each one a
//! walked signature names (its parts, in order), so that any reader can take its compact elements
//! apart without the program (`FORMAT.md`, "Compact streams").
//!
//! ```text
//! plain-block = PLAIN_MARK count:u32 (type-id:u32 parts:u16 (sig-len:u8 sig:u32{sig-len}){parts}){count} length:u32
//! ```

use crate::plain::described::{builtin_leaf_size as leaf_size, derived, PlainLayout};
use crate::plain::signature::{is_well_formed, split_type, Sig};
use crate::plain::{type_ids as id, Reader, FIRST_USER_PLAIN_TYPE_ID};
use crate::wire::error::{corrupt, DecodeError};
use ahash::AHashMap;
use std::cell::Cell;

/// First word of the plain block: the bytes `C8 50 4C 4E` (`"\xC8PLN"`).
pub const PLAIN_MARK: u32 = u32::from_le_bytes([0xC8, b'P', b'L', b'N']);
/// Bytes of a plain block that describes nothing: mark, count, length.
pub(super) const EMPTY_BLOCK: usize = 12;

/// What the block says about one type.
struct Described {
    parts: Vec<Vec<u32>>,
    /// Its size, once worked out: `Some(Some(n))` static, `Some(None)` dynamic.
    size: Cell<Option<Option<Option<u32>>>>,
}

/// The plain types a stream describes, by ID, in block order.
#[derive(Default)]
pub(crate) struct PlainTypes {
    types: AHashMap<u32, Described>,
    order: Vec<u32>,
}

impl PlainTypes {
    /// The block at `input[start..end]`, checked: a mark, a count and length that agree, user
    /// type IDs each described once, well-formed signatures.
    pub(super) fn read(input: &[u8], start: usize, end: usize) -> Result<Self, DecodeError> {
        let length_at = end.checked_sub(4).filter(|&at| at >= start + 8);
        let length = length_at.map(|at| u32::from_le_bytes(input[at..end].try_into().expect("a word")) as usize);
        if length != Some(end - start) {
            return Err(corrupt(start, "a plain block whose length word is not its length"));
        }
        let mut reader = Reader::new(&input[..end - 4]);
        reader.skip(start)?;
        if reader.read_u32()? != PLAIN_MARK {
            return Err(corrupt(start, "a compact stream's plain block does not start with its mark"));
        }
        // An entry takes at least 6 bytes.
        let count = reader.read_count(6)?;
        let mut types = PlainTypes::default();
        for _ in 0..count {
            let at = reader.offset();
            let type_id = reader.read_u32()?;
            if type_id < FIRST_USER_PLAIN_TYPE_ID || types.types.contains_key(&type_id) {
                return Err(corrupt(at, "a plain block entry for a built-in type, or twice for one type"));
            }
            let [low, high] = reader.take_array()?;
            let mut parts = Vec::new();
            for _ in 0..u16::from_le_bytes([low, high]) {
                let sig_at = reader.offset();
                let [len] = reader.take_array()?;
                let words = reader.take(usize::from(len) * 4)?;
                let sig: Vec<u32> =
                    words.chunks_exact(4).map(|word| u32::from_le_bytes(word.try_into().expect("4 bytes"))).collect();
                if !is_well_formed(&sig) {
                    return Err(corrupt(sig_at, "a malformed signature in the plain block"));
                }
                parts.push(sig);
            }
            types.insert(type_id, parts);
        }
        reader.expect_end()?;
        Ok(types)
    }

    /// The program's descriptions of the user types `signatures` name, and of those their parts
    /// name in turn: what the encoder writes in the block.
    pub(super) fn of_program<'s>(signatures: impl Iterator<Item = &'s [u32]>) -> Self {
        let mut types = PlainTypes::default();
        let mut queue: Vec<Vec<u32>> = signatures.map(<[u32]>::to_vec).collect();
        while let Some(sig) = queue.pop() {
            for type_id in user_ids(&sig) {
                if types.types.contains_key(&type_id) {
                    continue;
                }
                let parts = match derived(type_id) {
                    Some(PlainLayout::Struct(fields)) => fields.iter().map(|(_, sig)| sig.clone()).collect(),
                    Some(PlainLayout::Tuple(fields)) => fields.clone(),
                    Some(PlainLayout::Enum(_)) => vec![vec![id::U32]],
                    None => continue,
                };
                // A part's signature longer than a block entry holds leaves the type undescribed.
                if parts.iter().any(|sig| sig.len() > usize::from(u8::MAX)) || parts.len() > usize::from(u16::MAX) {
                    continue;
                }
                queue.extend(parts.iter().cloned());
                types.insert(type_id, parts);
            }
        }
        types
    }

    fn insert(&mut self, type_id: u32, parts: Vec<Vec<u32>>) {
        self.order.push(type_id);
        self.types.insert(type_id, Described { parts, size: Cell::new(None) });
    }

    /// Appends the block.
    pub(super) fn write(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&PLAIN_MARK.to_le_bytes());
        out.extend_from_slice(&(self.order.len() as u32).to_le_bytes());
        for type_id in &self.order {
            let parts = &self.types[type_id].parts;
            out.extend_from_slice(&type_id.to_le_bytes());
            out.extend_from_slice(&(parts.len() as u16).to_le_bytes());
            for sig in parts {
                out.push(sig.len() as u8);
                sig.iter().for_each(|word| out.extend_from_slice(&word.to_le_bytes()));
            }
        }
        let length = (out.len() - start + 4) as u32;
        out.extend_from_slice(&length.to_le_bytes());
    }

    /// The parts of described type `type_id`.
    pub(super) fn parts(&self, type_id: u32) -> Option<&[Vec<u32>]> {
        self.types.get(&type_id).map(|described| described.parts.as_slice())
    }

    /// The size of `sig`'s type when every type in it is one the format defines or this block
    /// describes: `Some(Some(n))` static of `n` bytes, `Some(None)` dynamic; `None` otherwise.
    /// Types nested more than [`MAX_NESTING`] deep (through signatures and descriptions) count
    /// as undescribed, so that a hostile block cannot make this recurse without bound.
    pub(super) fn size(&self, sig: &[u32]) -> Option<Option<u32>> {
        self.size_in(sig, 0)
    }

    fn size_in(&self, sig: &[u32], depth: usize) -> Option<Option<u32>> {
        if depth > MAX_NESTING {
            return None;
        }
        let (node, _, _) = split_type(sig)?;
        Some(match node {
            Sig::Leaf(type_id) => match leaf_size(type_id) {
                Some(size) => size,
                None => self.described_size(type_id, depth + 1)?,
            },
            Sig::Seq(_, elem) => {
                self.size_in(elem, depth + 1)?;
                None
            }
            Sig::Map(_, key, value) => {
                self.size_in(key, depth + 1)?;
                self.size_in(value, depth + 1)?;
                None
            }
            Sig::Option(inner) => self.size_in(inner, depth + 1)?.and_then(|n| (n < 255).then_some(n + 1)),
            Sig::Array(len, elem) => {
                self.size_in(elem, depth + 1)?.and_then(|n| n.checked_mul(len).filter(|&total| total <= 255))
            }
            Sig::Tuple(_, parts) => self.sum(crate::plain::signature::split_all(parts).into_iter(), depth + 1)?,
        })
    }

    fn sum<'s>(&self, parts: impl Iterator<Item = &'s [u32]>, depth: usize) -> Option<Option<u32>> {
        let mut total = Some(0u32);
        for part in parts {
            total = match (total, self.size_in(part, depth)?) {
                (Some(sum), Some(n)) => Some(sum.saturating_add(n)).filter(|&n| n <= 255),
                _ => None,
            };
        }
        Some(total)
    }

    /// A described type's size, worked out once. A type met again while its own size is being
    /// worked out (one that holds itself through a sequence) counts as dynamic there, so that
    /// every block, even a hostile one, gives one answer.
    fn described_size(&self, type_id: u32, depth: usize) -> Option<Option<u32>> {
        let described = self.types.get(&type_id)?;
        if let Some(size) = described.size.get() {
            return size;
        }
        // Meanwhile, it counts as described and dynamic.
        described.size.set(Some(Some(None)));
        let size = self.sum(described.parts.iter().map(Vec::as_slice), depth);
        described.size.set(Some(size));
        size
    }
}

/// How deeply signatures and descriptions may nest (each sequence, map, option, array, tuple and
/// described type one level) before a type counts as undescribed: far beyond what programs
/// declare, and within any thread's stack.
pub(super) const MAX_NESTING: usize = 256;

impl PlainTypes {
    /// The size of a leaf type: the format's, else a described type's as worked out already
    /// (`None`: neither defines it).
    pub(super) fn leaf_size(&self, type_id: u32) -> Option<Option<u32>> {
        leaf_size(type_id).or_else(|| self.described_size_of(type_id)?)
    }

    /// A described type's size as [`size`](Self::size) worked it out (`None` if it never did,
    /// or the block does not describe the type).
    pub(super) fn described_size_of(&self, type_id: u32) -> Option<Option<Option<u32>>> {
        self.types.get(&type_id).map(|described| described.size.get().flatten())
    }
}

/// The user type IDs `sig` names.
fn user_ids(sig: &[u32]) -> Vec<u32> {
    // Array lengths and tuple arities are not type IDs: split the signature to skip them.
    fn visit(sig: &[u32], found: &mut Vec<u32>) {
        let Some((node, _, _)) = split_type(sig) else { return };
        match node {
            Sig::Leaf(type_id) if type_id >= FIRST_USER_PLAIN_TYPE_ID => found.push(type_id),
            Sig::Leaf(_) => {}
            Sig::Seq(_, elem) | Sig::Option(elem) | Sig::Array(_, elem) => visit(elem, found),
            Sig::Map(_, key, value) => {
                visit(key, found);
                visit(value, found);
            }
            Sig::Tuple(_, parts) => {
                crate::plain::signature::split_all(parts).into_iter().for_each(|part| visit(part, found))
            }
        }
    }
    let mut found = Vec::new();
    visit(sig, &mut found);
    found
}
