//! Skipping what a reader does not understand: one field's data, an embedded object, or a whole
//! top-level object, by the headers alone (no type model).

use super::error::DecodeError;
use super::format::{FieldHeader, WireKind, WORD_SIZE};
use super::limits::Limits;
use super::{check_depth, embedded_header, field_count, walk_object, Item};
use crate::plain::{skip_elem, Reader};

/// Skips one field's data (its header already read), inside an object nested `depth` deep.
pub(crate) fn skip_field(
    reader: &mut Reader<'_>,
    header: &FieldHeader,
    depth: usize,
    limits: &Limits,
) -> Result<(), DecodeError> {
    let count = field_count(reader, header, limits)?;
    match header.shape.kind {
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

/// Skips an embedded object, header included.
fn skip_embedded(reader: &mut Reader<'_>, depth: usize, limits: &Limits) -> Result<(), DecodeError> {
    check_depth(reader, depth, limits)?;
    match embedded_header(reader)? {
        Some(_) => skip_object(reader, 0, true, depth, limits),
        None => Ok(()),
    }
}

/// Skips the rest of an object whose first type header was read (see [`walk_object`]).
pub(crate) fn skip_object(
    reader: &mut Reader<'_>,
    instance: u32,
    embedded: bool,
    depth: usize,
    limits: &Limits,
) -> Result<(), DecodeError> {
    walk_object(reader, instance, embedded, |reader, item| match item {
        Item::Field(header) => skip_field(reader, &header, depth, limits),
        Item::Section(_) => Ok(()),
    })
}
