//! Finding and editing the schema table of a real version 3 stream (`src/schema/table.rs` has its
//! grammar), for tests that corrupt one part of it and check the decoder names that part.
#![allow(dead_code)]

use reflectable::serializer::format::{FieldHeader, Trailer, WireKind, TRAILER_SIZE};

/// Where the parts of one field entry are.
#[derive(Debug, Clone)]
pub struct FieldAt {
    /// The field header word.
    pub at: usize,
    pub flags_at: usize,
    pub sig_len_at: usize,
    pub name_at: usize,
    pub sig_at: usize,
    pub sig_len: usize,
}

/// Where the parts of one variant are.
#[derive(Debug, Clone)]
pub struct VariantAt {
    /// The variant ID.
    pub at: usize,
    pub fields: Vec<FieldAt>,
}

/// Where the parts of one type entry are.
#[derive(Debug, Clone)]
pub struct EntryAt {
    /// The entry's length word.
    pub at: usize,
    /// Just past the entry.
    pub end: usize,
    pub type_id: u32,
    pub fingerprint_at: usize,
    pub flags_at: usize,
    pub name_at: usize,
    pub fields_count_at: usize,
    pub fields: Vec<FieldAt>,
    pub variants_count_at: usize,
    pub variants: Vec<VariantAt>,
}

/// A stream's schema table: `start` is its mark, `end` where the trailer starts.
#[derive(Debug, Clone)]
pub struct TableAt {
    pub start: usize,
    pub end: usize,
    pub entries: Vec<EntryAt>,
}

impl TableAt {
    pub fn entry(&self, type_id: u32) -> &EntryAt {
        self.entries.iter().find(|entry| entry.type_id == type_id).expect("the table describes the type")
    }
    pub fn contains(&self, offset: usize) -> bool {
        (self.start..self.end).contains(&offset)
    }
}

pub fn word(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn half(bytes: &[u8], at: usize) -> usize {
    usize::from(u16::from_le_bytes([bytes[at], bytes[at + 1]]))
}

/// Parses the table of a well-formed stream (panics on anything else: test input only).
pub fn table(bytes: &[u8]) -> TableAt {
    let end = bytes.len() - TRAILER_SIZE;
    let start = end - word(bytes, end - 4) as usize;
    let mut at = start + 8;
    let entries = (0..word(bytes, start + 4)).map(|_| entry(bytes, &mut at)).collect();
    TableAt { start, end, entries }
}

fn entry(bytes: &[u8], at: &mut usize) -> EntryAt {
    let start = *at;
    let end = start + 4 + word(bytes, start) as usize;
    let name_at = start + 4 + 4 + 8 + 1 + 4;
    *at = name_at + 2 + half(bytes, name_at);
    let fields_count_at = *at;
    let own_fields = fields(bytes, at);
    let variants_count_at = *at;
    *at += 4;
    let variants = (0..word(bytes, variants_count_at))
        .map(|_| {
            let variant_at = *at;
            *at += 4;
            *at += 2 + half(bytes, *at);
            VariantAt { at: variant_at, fields: fields(bytes, at) }
        })
        .collect();
    assert_eq!(*at, end, "the entry ends where its length says");
    EntryAt {
        at: start,
        end,
        type_id: word(bytes, start + 4),
        fingerprint_at: start + 8,
        flags_at: start + 16,
        name_at,
        fields_count_at,
        fields: own_fields,
        variants_count_at,
        variants,
    }
}

fn fields(bytes: &[u8], at: &mut usize) -> Vec<FieldAt> {
    let count = word(bytes, *at);
    *at += 4;
    (0..count)
        .map(|_| {
            let field_at = *at;
            let header = FieldHeader::unpack(word(bytes, field_at)).unwrap().unwrap();
            let flags = bytes[field_at + 4];
            let sig_len = usize::from(bytes[field_at + 5]);
            let name_at = field_at + 6;
            let sig_at = name_at + 2 + half(bytes, name_at);
            *at = sig_at + 4 * sig_len;
            if !matches!(header.shape.kind, WireKind::Plain(_)) {
                *at += if flags & 2 == 0 { 4 } else { 2 + half(bytes, *at) };
            }
            FieldAt { at: field_at, flags_at: field_at + 4, sig_len_at: field_at + 5, name_at, sig_at, sig_len }
        })
        .collect()
}

/// `bytes` with `remove` bytes at `at` replaced by `insert`, the lengths that cover the change
/// fixed: the table's, the trailer's, and the length word of the entry at `entry` (when given).
pub fn splice(bytes: &[u8], at: usize, remove: usize, insert: &[u8], entry: Option<usize>) -> Vec<u8> {
    let delta = insert.len() as i64 - remove as i64;
    let mut out = [&bytes[..at], insert, &bytes[at + remove..]].concat();
    let adjust = |out: &mut Vec<u8>, at: usize| {
        let fixed = (word(out, at) as i64 + delta) as u32;
        out[at..at + 4].copy_from_slice(&fixed.to_le_bytes());
    };
    if let Some(entry) = entry {
        adjust(&mut out, entry);
    }
    let end = out.len() - TRAILER_SIZE;
    adjust(&mut out, end - 4);
    fix_trailer(out)
}

/// `bytes` with its trailer's length set to its actual length.
pub fn fix_trailer(mut bytes: Vec<u8>) -> Vec<u8> {
    let end = bytes.len() - TRAILER_SIZE;
    let mut trailer = Trailer::from_bytes(bytes[end..].try_into().unwrap()).expect("a trailer");
    trailer.length = bytes.len() as u64;
    bytes[end..].copy_from_slice(&trailer.to_bytes());
    bytes
}

/// `bytes` with `new` written over the bytes at `at`.
pub fn set(bytes: &[u8], at: usize, new: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + new.len()].copy_from_slice(new);
    out
}

/// `bytes` with the word at `at` replaced.
pub fn set_word(bytes: &[u8], at: usize, value: u32) -> Vec<u8> {
    set(bytes, at, &value.to_le_bytes())
}
