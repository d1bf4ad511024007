//! Reading the stream's structure without a type model: headers, skipping fields, embedded objects
//! and sections, and the index of top-level objects. The decoder skips whatever it does not
//! understand with these, and builds its object table with [`index`].

use super::error::{DecodeError, DecodeErrorKind};
use super::format::{
    FieldHeader, TypeHeader, WireKind, MAGIC, NULL_TYPE_ID, OBJECT_BIT, STREAM_HEADER_SIZE, VERSION, WORD_SIZE,
};
use super::Limits;
use crate::plain::{skip_elem, Reader};

/// Why a run of fields ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The input ended.
    End,
    /// A terminator was read.
    Terminator,
    /// A type header follows (not consumed).
    TypeHeader,
}

pub(crate) fn corrupt(offset: usize, what: &'static str) -> DecodeError {
    DecodeError::new(offset, DecodeErrorKind::Corrupt(what))
}

/// Checks the magic and version.
pub(crate) fn stream_header(reader: &mut Reader<'_>) -> Result<(), DecodeError> {
    let found = &reader.rest()[..reader.remaining().min(STREAM_HEADER_SIZE)];
    if found.len() < MAGIC.len() || found[..MAGIC.len()] != MAGIC {
        return Err(DecodeError::new(0, DecodeErrorKind::BadMagic { found: found[..found.len().min(4)].to_vec() }));
    }
    reader.skip(MAGIC.len())?;
    let version = reader.read_u32()?;
    if version != VERSION {
        return Err(DecodeError::new(MAGIC.len(), DecodeErrorKind::UnsupportedVersion { version }));
    }
    Ok(())
}

/// Reads a type header; the next word must have [`OBJECT_BIT`] set.
pub(crate) fn type_header(reader: &mut Reader<'_>) -> Result<TypeHeader, DecodeError> {
    let offset = reader.offset();
    let meta = reader.read_u32()?;
    if meta & OBJECT_BIT == 0 {
        return Err(corrupt(offset, "expected a type header, found a field header"));
    }
    Ok(TypeHeader::unpack(meta, reader.read_u32()?))
}

/// Reads the next field header, or reports why the run of fields ends.
#[inline]
pub(crate) fn next_field(reader: &mut Reader<'_>) -> Result<Result<FieldHeader, Stop>, DecodeError> {
    let Some(word) = reader.peek_u32() else {
        return if reader.is_empty() {
            Ok(Err(Stop::End))
        } else {
            Err(corrupt(reader.offset(), "stray bytes at the end of the stream"))
        };
    };
    if word & OBJECT_BIT != 0 {
        return Ok(Err(Stop::TypeHeader));
    }
    let offset = reader.offset();
    reader.skip(WORD_SIZE)?;
    match FieldHeader::unpack(word) {
        Ok(Some(header)) => Ok(Ok(header)),
        Ok(None) => Ok(Err(Stop::Terminator)),
        Err(what) => Err(corrupt(offset, what)),
    }
}

/// The element count of a field: for arrays read, then checked against the bytes left and the
/// array length limit; 1 otherwise.
#[inline]
pub(crate) fn field_count(
    reader: &mut Reader<'_>,
    header: &FieldHeader,
    limits: &Limits,
) -> Result<usize, DecodeError> {
    if !header.array {
        return Ok(1);
    }
    let offset = reader.offset();
    let len = reader.read_count(header.min_elem_size())?;
    if len > limits.max_array_len {
        return Err(DecodeError::new(offset, DecodeErrorKind::ArrayTooLong { len, limit: limits.max_array_len }));
    }
    Ok(len)
}

/// Skips one field's data (its header already read).
pub(crate) fn skip_field(
    reader: &mut Reader<'_>,
    header: &FieldHeader,
    depth: usize,
    limits: &Limits,
) -> Result<(), DecodeError> {
    let count = field_count(reader, header, limits)?;
    match header.kind {
        WireKind::Plain(Some(size)) => reader.skip(usize::from(size) * count)?,
        WireKind::Plain(None) => {
            for _ in 0..count {
                skip_elem(reader, None)?;
            }
        }
        WireKind::Pointer => reader.skip(WORD_SIZE * count)?,
        WireKind::Embedded => {
            for _ in 0..count {
                skip_embedded(reader, depth + 1, limits)?;
            }
        }
    }
    Ok(())
}

/// Skips fields up to the next type header, terminator or end.
pub(crate) fn skip_fields(reader: &mut Reader<'_>, depth: usize, limits: &Limits) -> Result<Stop, DecodeError> {
    loop {
        match next_field(reader)? {
            Ok(header) => skip_field(reader, &header, depth, limits)?,
            Err(stop) => return Ok(stop),
        }
    }
}

pub(crate) fn check_depth(reader: &Reader<'_>, depth: usize, limits: &Limits) -> Result<(), DecodeError> {
    if depth > limits.max_depth {
        Err(DecodeError::new(reader.offset(), DecodeErrorKind::TooDeep { limit: limits.max_depth }))
    } else {
        Ok(())
    }
}

/// Skips an embedded object, header included.
pub(crate) fn skip_embedded(reader: &mut Reader<'_>, depth: usize, limits: &Limits) -> Result<(), DecodeError> {
    check_depth(reader, depth, limits)?;
    let offset = reader.offset();
    let header = type_header(reader)?;
    if header.instance != 0 || header.base {
        return Err(corrupt(offset, "an embedded object must start with instance 0 and no base bit"));
    }
    if header.type_id == NULL_TYPE_ID {
        return Ok(());
    }
    skip_sections(reader, 0, true, depth, limits)
}

/// Skips the sections of an object whose first type header was read: fields, then base sections
/// (type headers with the base bit and the same instance), up to its end. An embedded object
/// (`embedded`) ends at its terminator, a top-level one at the next object's header or the end.
pub(crate) fn skip_sections(
    reader: &mut Reader<'_>,
    instance: u32,
    embedded: bool,
    depth: usize,
    limits: &Limits,
) -> Result<(), DecodeError> {
    loop {
        let stop = skip_fields(reader, depth, limits)?;
        if next_section(reader, stop, instance, embedded)?.is_none() {
            return Ok(());
        }
    }
}

/// What follows a run of an object's fields that ended at `stop`: `Some(header)` (consumed) when
/// another base section of the same object opens; `None` when the object ends (at its terminator
/// if embedded, else at the end or before the next top-level object's header). Anything else is
/// corrupt.
pub(crate) fn next_section(
    reader: &mut Reader<'_>,
    stop: Stop,
    instance: u32,
    embedded: bool,
) -> Result<Option<TypeHeader>, DecodeError> {
    match stop {
        Stop::Terminator if embedded => Ok(None),
        Stop::Terminator => Err(corrupt(reader.offset(), "terminator outside an embedded object")),
        Stop::End if embedded => Err(corrupt(reader.offset(), "embedded object without a terminator")),
        Stop::End => Ok(None),
        Stop::TypeHeader => {
            let header = TypeHeader::unpack(reader.peek_u32().unwrap_or(0), 0);
            match (header.base, embedded) {
                (true, _) if header.instance == instance => type_header(reader).map(Some),
                (true, _) => Err(corrupt(reader.offset(), "base section of another instance")),
                (false, true) => Err(corrupt(reader.offset(), "embedded object without a terminator")),
                (false, false) => Ok(None),
            }
        }
    }
}

/// Where a top-level object starts, and its type.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IndexEntry {
    /// Offset of its first type header.
    pub offset: usize,
    /// Its type ID.
    pub type_id: u32,
}

/// Finds every top-level object: instance IDs must run 1, 2, 3, ... Each entry costs at least 8
/// input bytes, so the index never outgrows the input.
pub(crate) fn index(data: &[u8], limits: &Limits) -> Result<Vec<IndexEntry>, DecodeError> {
    let mut reader = Reader::new(data);
    stream_header(&mut reader)?;
    let mut entries = Vec::new();
    index_rest(&mut reader, &mut entries, limits)?;
    if entries.is_empty() {
        return Err(DecodeError::new(reader.offset(), DecodeErrorKind::NoRoot));
    }
    Ok(entries)
}

/// The root's entry alone (its type header checked, its body not read), so that a stream whose
/// root points at nothing can be decoded without a pass over the root first.
pub(crate) fn root_entry(data: &[u8], limits: &Limits) -> Result<IndexEntry, DecodeError> {
    let mut reader = Reader::new(data);
    stream_header(&mut reader)?;
    if reader.is_empty() {
        return Err(DecodeError::new(reader.offset(), DecodeErrorKind::NoRoot));
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
        skip_sections(reader, header.instance, false, 0, limits)?;
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
        return Err(DecodeError::new(
            offset,
            DecodeErrorKind::InstanceOutOfSequence { expected, found: header.instance },
        ));
    }
    if header.type_id == NULL_TYPE_ID {
        return Err(corrupt(offset, "top-level object with the null type"));
    }
    if entries.len() == limits.max_objects {
        return Err(DecodeError::new(offset, DecodeErrorKind::TooManyObjects { limit: limits.max_objects }));
    }
    entries.push(IndexEntry { offset, type_id: header.type_id });
    Ok(header)
}
