//! The index of top-level objects: where each starts and its type, by instance ID. The root comes
//! first as instance 1; the others may come in any order (FORMAT.md, "Object order"), and the
//! stream's IDs must be 1 to the number of objects, each once. Each entry costs at least 8 input
//! bytes, so the index never outgrows the input.

use super::error::{corrupt, DecodeError, DecodeErrorKind};
use super::format::{TypeHeader, NULL_TYPE_ID, TYPE_HEADER_SIZE};
use super::limits::Limits;
use super::skip::skip_object;
use super::{read_stream_header, type_header};
use crate::plain::Reader;

/// Where a top-level object starts, and its type.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IndexEntry {
    /// Offset of its first type header.
    pub offset: usize,
    /// Its type ID.
    pub type_id: u32,
    /// Its instance ID.
    instance: u32,
}

/// Indexes every top-level object of the stream. `recorded`: how many the trailer says it holds,
/// which sizes the index at once (never beyond what the input could hold: a hostile count costs
/// nothing).
pub(crate) fn index(data: &[u8], limits: &Limits, recorded: Option<u32>) -> Result<Vec<IndexEntry>, DecodeError> {
    let mut reader = Reader::new(data);
    read_stream_header(&mut reader)?;
    let mut entries = Vec::with_capacity(capacity(data, limits, recorded));
    index_rest(&mut reader, &mut entries, limits)?;
    if entries.is_empty() {
        return Err(DecodeError::new(DecodeErrorKind::NoRoot, reader.offset()));
    }
    Ok(entries)
}

/// Room for `recorded` entries, as far as `data` can hold that many objects.
pub(crate) fn capacity(data: &[u8], limits: &Limits, recorded: Option<u32>) -> usize {
    let possible = (data.len() / TYPE_HEADER_SIZE).min(limits.max_objects);
    recorded.map_or(0, |recorded| (recorded as usize).min(possible))
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

/// Indexes the top-level objects from `reader` to the end, after those in `entries` (the root's
/// at least), and puts the entries in instance ID order.
pub(crate) fn index_rest(
    reader: &mut Reader<'_>,
    entries: &mut Vec<IndexEntry>,
    limits: &Limits,
) -> Result<(), DecodeError> {
    while !reader.is_empty() {
        let header = next_entry(reader, entries, limits)?;
        skip_object(reader, header.instance, false, 0, limits)?;
    }
    by_instance(entries)
}

/// Puts `entries` in instance ID order, checking that the IDs are 1 to their count, each once.
/// Streams written breadth first are in order already, and cost one pass.
fn by_instance(entries: &mut Vec<IndexEntry>) -> Result<(), DecodeError> {
    let count = entries.len();
    if entries.iter().enumerate().all(|(at, entry)| entry.instance as usize == at + 1) {
        return Ok(());
    }
    const EMPTY: IndexEntry = IndexEntry { offset: usize::MAX, type_id: 0, instance: 0 };
    let mut placed = vec![EMPTY; count];
    for entry in entries.iter() {
        let at = entry.instance as usize - 1;
        let kind = match placed.get(at) {
            None => DecodeErrorKind::InstanceOutOfRange { id: entry.instance, count },
            Some(slot) if slot.instance != 0 => DecodeErrorKind::DuplicateInstance { id: entry.instance },
            Some(_) => {
                placed[at] = *entry;
                continue;
            }
        };
        return Err(DecodeError::new(kind, entry.offset));
    }
    *entries = placed;
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
    if header.base {
        return Err(corrupt(offset, "base section without an object"));
    }
    // The root is instance 1 and comes first; the others have a top-level ID (0 is embedded).
    if (entries.is_empty() && header.instance != 1) || header.instance == 0 {
        let kind = DecodeErrorKind::InstanceOutOfSequence { expected: 1, found: header.instance };
        return Err(DecodeError::new(kind, offset));
    }
    if header.type_id == NULL_TYPE_ID {
        return Err(corrupt(offset, "top-level object with the null type"));
    }
    if entries.len() == limits.max_objects {
        return Err(DecodeError::new(DecodeErrorKind::TooManyObjects { limit: limits.max_objects }, offset));
    }
    entries.push(IndexEntry { offset, type_id: header.type_id, instance: header.instance });
    Ok(header)
}
