//! The compact element form (described in the [module documentation](super#compact-elements)):
//! the defaults [`PlainType`](super::PlainType)'s compact methods fall back to, and the sizes the
//! derive sums.

use super::{varint, PlainError, Reader};

/// Writes a length or count as a varint.
///
/// # Panics
/// When `len` is 2^32 or more, which the format's counts and lengths cannot describe.
#[inline]
pub(crate) fn write_len(len: usize, what: &str, out: &mut Vec<u8>) {
    let len = u32::try_from(len).unwrap_or_else(|_| panic!("{what} must be smaller than 2^32"));
    varint::write_u64(u64::from(len), out);
}

/// The compact form of a type that has no form of its own: its normal content when `static_size`
/// is set, else framed (a varint length, then the normal content). `size` and `write` are the
/// type's normal ones.
#[inline]
pub(crate) fn write_default(
    static_size: Option<u32>,
    size: impl FnOnce() -> usize,
    write: impl FnOnce(&mut Vec<u8>),
    out: &mut Vec<u8>,
) {
    if static_size.is_none() {
        write_len(size(), "a framed plain value", out);
    }
    write(out)
}

/// Reads what [`write_default`] wrote, with the type's normal `read`.
#[inline]
pub(crate) fn read_default<T>(
    static_size: Option<u32>,
    reader: &mut Reader<'_>,
    read: impl FnOnce(&mut Reader<'_>) -> Result<T, PlainError>,
) -> Result<T, PlainError> {
    if static_size.is_some() {
        return read(reader);
    }
    let len = reader.read_compact_count(1)?;
    let mut content = reader.sub_reader(len)?;
    let value = read(&mut content)?;
    content.expect_end()?;
    reader.rejoin(&content);
    Ok(value)
}

/// The fewest bytes one compact element takes, for a type whose compact element is `compact_size`
/// bytes when that is set: one byte otherwise (a varint, a length, a count or a tag).
pub const fn default_min_size(compact_size: Option<u32>) -> usize {
    match compact_size {
        Some(n) => n as usize,
        None => 1,
    }
}

/// The sum of parts' [`PlainType::COMPACT_MIN_SIZE`](super::PlainType::COMPACT_MIN_SIZE), for tuples and derived structs.
pub const fn sum_min_sizes(parts: &[usize]) -> usize {
    let mut total = 0usize;
    let mut i = 0;
    while i < parts.len() {
        total = total.saturating_add(parts[i]);
        i += 1;
    }
    total
}
