//! The compact element form: what a plain value becomes where size matters more than a layout
//! that can be skipped without the type (network messages; compact streams).
//!
//! - Integers of 16 bits or more, `usize`, `isize` and `char` are LEB128 varints ([`varint`]),
//!   signed ones zig-zag mapped first.
//! - Every other type of static size keeps its normal content: `u8`, floats, `bool`, and static
//!   composites (`(u32, u32)`, `[f32; 3]`, `Option<u16>`, static derives, glam types). They stay
//!   fixed-size, so slices of them are still one copy.
//! - `String` and `PathBuf` are a varint length, then the bytes.
//! - Sequences and sets are a varint count, then each element in compact form; maps a varint
//!   count, then each key and value. Hash maps and sets are written in the order of their keys'
//!   compact bytes, so the bytes do not depend on a hasher's seed.
//! - A dynamic `Option` is a tag byte (0 or 1), then the value; dynamic arrays and tuples, and
//!   dynamic `#[derive(PlainType)]` structs, are their parts in order; `Box<T>` is `T`.
//! - Any other dynamic type (a hand-written [`PlainType`] or [`PlainCodec`], serde values) is
//!   *framed*: a varint length, then its normal content.
//!
//! There are no per-element size prefixes: a compact element is delimited by its own structure.
//! Every varint must be canonical and fit its type, so each value has one compact encoding.
//!
//! ```
//! use reflectable::plain::{read_elem_compact, write_elem, write_elem_compact, Reader};
//!
//! let value = (7u16, String::from("door"), vec![300u32, 5]);
//! let mut compact = Vec::new();
//! write_elem_compact(&value, &mut compact);
//! // 7, then "door" with its length, then the count 2 and the two varints.
//! assert_eq!(compact, [7, 4, b'd', b'o', b'o', b'r', 2, 0xAC, 0x02, 5]);
//!
//! let mut normal = Vec::new();
//! write_elem(&value, &mut normal);
//! assert_eq!(normal.len(), 30);
//!
//! let back: (u16, String, Vec<u32>) = read_elem_compact(&mut Reader::new(&compact)).unwrap();
//! assert_eq!(back, value);
//! ```
//!
//! [`varint`]: super::varint

use super::{varint, PlainCodec, PlainError, PlainType, Reader};

/// Appends `value` in the compact element form (see the [module](self) documentation).
///
/// # Panics
/// When a collection has 2^32 elements or more, or a string or framed value is 4 GiB or more.
#[inline]
pub fn write_elem_compact<T: PlainType>(value: &T, out: &mut Vec<u8>) {
    value.write_compact(out)
}

/// Reads one element written by [`write_elem_compact`].
#[inline]
pub fn read_elem_compact<T: PlainType>(reader: &mut Reader<'_>) -> Result<T, PlainError> {
    T::read_compact(reader)
}

/// [`write_elem_compact`] for a value stored through the codec `K`.
///
/// # Panics
/// As [`write_elem_compact`].
#[inline]
pub fn write_elem_compact_with<K: PlainCodec<T> + ?Sized, T>(value: &T, out: &mut Vec<u8>) {
    K::write_compact(value, out)
}

/// [`read_elem_compact`] for a value stored through the codec `K`.
#[inline]
pub fn read_elem_compact_with<K: PlainCodec<T> + ?Sized, T>(reader: &mut Reader<'_>) -> Result<T, PlainError> {
    K::read_compact(reader)
}

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

/// The sum of parts' [`PlainType::COMPACT_MIN_SIZE`], for tuples and derived structs.
pub const fn sum_min_sizes(parts: &[usize]) -> usize {
    let mut total = 0usize;
    let mut i = 0;
    while i < parts.len() {
        total = total.saturating_add(parts[i]);
        i += 1;
    }
    total
}
