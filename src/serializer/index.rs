//! The index of top-level objects: where each starts and its type. Instance IDs must run 1, 2, 3,
//! ... in stream order. Each entry costs at least 8 input bytes, so the index never outgrows the
//! input.

use super::error::{corrupt, DecodeError, DecodeErrorKind};
use super::format::{TypeHeader, NULL_TYPE_ID};
use super::skip::skip_object;
use super::wire::{read_stream_header, type_header};
use super::Limits;
use crate::plain::Reader;

/// Where a top-level object starts, and its type.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IndexEntry {
    /// Offset of its first type header.
    pub offset: usize,
    /// Its type ID.
    pub type_id: u32,
}

/// Indexes every top-level object of the stream.
pub(crate) fn index(data: &[u8], limits: &Limits) -> Result<Vec<IndexEntry>, DecodeError> {
    let mut reader = Reader::new(data);
    read_stream_header(&mut reader)?;
    let mut entries = Vec::new();
    index_rest(&mut reader, &mut entries, limits)?;
    if entries.is_empty() {
        return Err(DecodeError::new(DecodeErrorKind::NoRoot, reader.offset()));
    }
    Ok(entries)
}

/// The root's entry alone (its type header checked, its body not read), so that a stream whose
/// root points at nothing can be decoded without a pass over the root first.
pub(crate) fn root_entry(data: &[u8], limits: &Limits) -> Result<IndexEntry, DecodeError> {
    let mut reader = Reader::new(data);
    read_stream_header(&mut reader)?;
    if reader.is_empty() {
        return Err(DecodeError::new(DecodeErrorKind::NoRoot, reader.offset()));
    }
    let mut entries = Vec::new();
    next_entry(&mut reader, &mut entries, limits)?;
    Ok(entries[0])
}

/// Indexes the top-level objects from `reader` to the end, after those in `entries`.
pub(crate) fn index_rest(
    reader: &mut Reader<'_>,
    entries: &mut Vec<IndexEntry>,
    limits: &Limits,
) -> Result<(), DecodeError> {
    while !reader.is_empty() {
        let header = next_entry(reader, entries, limits)?;
        skip_object(reader, header.instance, false, 0, limits)?;
    }
    Ok(())
}

/// Reads and checks a top-level object's type header and appends its entry.
fn next_entry(
    reader: &mut Reader<'_>,
    entries: &mut Vec<IndexEntry>,
    limits: &Limits,
) -> Result<TypeHeader, DecodeError> {
    let offset = reader.offset();
    let header = type_header(reader)?;
    let expected = entries.len() as u32 + 1;
    if header.base {
        return Err(corrupt(offset, "base section without an object"));
    }
    if header.instance != expected {
        let kind = DecodeErrorKind::InstanceOutOfSequence { expected, found: header.instance };
        return Err(DecodeError::new(kind, offset));
    }
    if header.type_id == NULL_TYPE_ID {
        return Err(corrupt(offset, "top-level object with the null type"));
    }
    if entries.len() == limits.max_objects {
        return Err(DecodeError::new(DecodeErrorKind::TooManyObjects { limit: limits.max_objects }, offset));
    }
    entries.push(IndexEntry { offset, type_id: header.type_id });
    Ok(header)
}
