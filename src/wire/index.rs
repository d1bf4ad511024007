//! The index of top-level objects: where each starts and its type, by instance ID. The root comes
//! first as instance 1; the others may come in any order (FORMAT.md, "Object order"), and the
//! stream's IDs must be 1 to the number of objects, each once. Each entry costs at least 8 input
//! bytes, so the index never outgrows the input.
//!
//! A version 5 stream records each top-level object's length after its first type header, so the
//! index jumps from object to object; an older one is walked header by header (`skip`).

use super::error::{corrupt, DecodeError, DecodeErrorKind};
use super::format::{TypeHeader, NULL_TYPE_ID, OBJECT_BIT, TYPE_HEADER_SIZE, WORD_SIZE};
use super::limits::Limits;
use super::skip::skip_object;
use super::{read_stream_header, type_header};
use crate::plain::Reader;

/// Where a top-level object starts, and its type.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IndexEntry {
    /// Offset of its first type header.
    pub offset: usize,
    /// Where it ends, as its recorded length says (version 5); 0 when the stream records none (the
    /// object then ends where the next one starts).
    end: usize,
    /// Its type ID.
    pub type_id: u32,
    /// Its instance ID.
    instance: u32,
}

impl IndexEntry {
    /// A reader over the object in `data` (the stream's objects), past its first type header and
    /// its length: up to its recorded end, or to the end of the objects when none is recorded
    /// (an object's walk then stops at the next one's header).
    pub(crate) fn body<'d>(&self, data: &'d [u8]) -> Result<Reader<'d>, DecodeError> {
        let (end, header) = match self.end {
            0 => (data.len(), TYPE_HEADER_SIZE),
            end => (end, TYPE_HEADER_SIZE + WORD_SIZE),
        };
        let mut reader = Reader::new(&data[..end]);
        reader.skip(self.offset + header)?;
        Ok(reader)
    }

    /// Checks that an object's walk (`reader`, from [`IndexEntry::body`]) stopped at its recorded
    /// end, and not at a top-level header inside its bytes.
    pub(crate) fn check_end(&self, reader: &Reader<'_>) -> Result<(), DecodeError> {
        if self.end != 0 && reader.offset() != self.end {
            return Err(corrupt(reader.offset(), "an object ends before its recorded length"));
        }
        Ok(())
    }

    /// Whether the stream records where the object ends (version 5).
    pub(crate) fn has_length(&self) -> bool {
        self.end != 0
    }

    /// Its instance ID.
    pub(crate) fn instance(&self) -> u32 {
        self.instance
    }
}

/// Indexes every top-level object of the stream. `recorded`: how many the trailer says it holds,
/// which sizes the index at once (never beyond what the input could hold: a hostile count costs
/// nothing). `lengths`: the objects record their lengths (version 5).
pub(crate) fn index(
    data: &[u8],
    limits: &Limits,
    recorded: Option<u32>,
    lengths: bool,
) -> Result<Vec<IndexEntry>, DecodeError> {
    let mut reader = Reader::new(data);
    read_stream_header(&mut reader)?;
    let mut entries = Vec::with_capacity(capacity(data, limits, recorded));
    index_rest(&mut reader, &mut entries, limits, lengths)?;
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
pub(crate) fn root_entry(data: &[u8], limits: &Limits, lengths: bool) -> Result<IndexEntry, DecodeError> {
    let mut reader = Reader::new(data);
    read_stream_header(&mut reader)?;
    if reader.is_empty() {
        return Err(DecodeError::new(DecodeErrorKind::NoRoot, reader.offset()));
    }
    let mut entries = Vec::new();
    next_entry(&mut reader, &mut entries, limits, lengths)?;
    Ok(entries[0])
}

/// Indexes the top-level objects from `reader` to the end, after those in `entries` (the root's
/// at least), and puts the entries in instance ID order.
pub(crate) fn index_rest(
    reader: &mut Reader<'_>,
    entries: &mut Vec<IndexEntry>,
    limits: &Limits,
    lengths: bool,
) -> Result<(), DecodeError> {
    while !reader.is_empty() {
        let header = next_entry(reader, entries, limits, lengths)?;
        match entries.last().filter(|entry| entry.has_length()) {
            // Checked against the input when the entry was made; the object's own walk checks
            // that its fields end there.
            Some(entry) => {
                reader.skip(entry.end - reader.offset())?;
                if !reader.is_empty() && !at_object(reader) {
                    let at = entry.offset + TYPE_HEADER_SIZE;
                    return Err(corrupt(at, "an object's recorded length does not end where the next object starts"));
                }
            }
            None => skip_object(reader, header.instance, false, 0, limits)?,
        }
    }
    by_instance(entries)
}

/// Walks the objects of `entries` that `walked` says no decode has read (version 5 indexes jump
/// over them), so that a corrupt object is reported wherever it is. They spend the zero-size
/// allowance the decode left (`zero_sized_left`), as a version 3 index walk spends one allowance
/// on every object; what is left is returned.
pub(crate) fn check_unwalked(
    data: &[u8],
    entries: &[IndexEntry],
    walked: impl Fn(usize) -> bool,
    zero_sized_left: usize,
    limits: &Limits,
) -> Result<usize, DecodeError> {
    let mut left = zero_sized_left;
    for (at, entry) in entries.iter().enumerate() {
        if entry.has_length() && !walked(at) {
            let mut reader = entry.body(data)?.with_zero_sized_left(left);
            skip_object(&mut reader, entry.instance, false, 0, limits)?;
            entry.check_end(&reader)?;
            left = reader.zero_sized_left();
        }
    }
    Ok(left)
}

/// Reads a top-level object's length word (version 5; `reader` past its first type header) and
/// returns where the object ends, checked against the bytes left.
pub(crate) fn object_end(reader: &mut Reader<'_>) -> Result<usize, DecodeError> {
    let at = reader.offset();
    let length = reader.read_u32()? as usize;
    if length > reader.remaining() {
        return Err(corrupt(at, "an object's recorded length runs past the objects"));
    }
    Ok(reader.offset() + length)
}

/// Whether `reader` is at a top-level object's first type header.
fn at_object(reader: &Reader<'_>) -> bool {
    let header = reader.peek_u32().filter(|word| word & OBJECT_BIT != 0).map(|word| TypeHeader::unpack(word, 0));
    reader.remaining() >= TYPE_HEADER_SIZE && header.is_some_and(|header| !header.base && header.instance != 0)
}

/// Puts `entries` in instance ID order, checking that the IDs are 1 to their count, each once.
/// Streams written breadth first are in order already, and cost one pass.
fn by_instance(entries: &mut Vec<IndexEntry>) -> Result<(), DecodeError> {
    let count = entries.len();
    if entries.iter().enumerate().all(|(at, entry)| entry.instance as usize == at + 1) {
        return Ok(());
    }
    const EMPTY: IndexEntry = IndexEntry { offset: usize::MAX, end: 0, type_id: 0, instance: 0 };
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

/// Reads and checks a top-level object's type header (and its length, `lengths`) and appends its
/// entry.
fn next_entry(
    reader: &mut Reader<'_>,
    entries: &mut Vec<IndexEntry>,
    limits: &Limits,
    lengths: bool,
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
    let end = if lengths { object_end(reader)? } else { 0 };
    entries.push(IndexEntry { offset, end, type_id: header.type_id, instance: header.instance });
    Ok(header)
}
