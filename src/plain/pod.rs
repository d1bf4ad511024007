//! Bulk slice copies for plain-old-data types (`#[derive(PlainType)]` with `#[plain(pod)]`).
//!
//! On a little-endian host the wire form of a `bytemuck::Pod` plain type whose wire size equals its
//! memory size (checked at compile time by the derive) is its memory image, so a whole slice is
//! one copy. Big-endian hosts take the element-by-element path.

use super::{read_elem, write_elem, PlainError, PlainType, Reader};

/// Appends the wire form of `values`.
pub fn write_slice<T: PlainType + bytemuck::Pod>(values: &[T], out: &mut Vec<u8>) {
    if cfg!(target_endian = "little") {
        out.extend_from_slice(bytemuck::cast_slice(values));
    } else {
        values.iter().for_each(|value| write_elem(value, out));
    }
}

/// Whether two slices write the same bytes: they do exactly when their memory images are equal
/// (on a big-endian host too, whose wire bytes are each lane's reversed).
#[inline]
pub fn same_slice<T: PlainType + bytemuck::Pod>(a: &[T], b: &[T]) -> Option<bool> {
    Some(a.len() == b.len() && bytemuck::cast_slice::<T, u8>(a) == bytemuck::cast_slice::<T, u8>(b))
}

/// Reads `count` values appended to `out`.
pub fn read_slice<T: PlainType + bytemuck::Pod>(
    reader: &mut Reader<'_>,
    count: usize,
    out: &mut Vec<T>,
) -> Result<(), PlainError> {
    if cfg!(target_endian = "little") {
        let bytes = reader.take(count.saturating_mul(std::mem::size_of::<T>()))?;
        match bytemuck::try_cast_slice::<u8, T>(bytes) {
            // Input aligned for `T` (the usual case: what comes before an array is words): one
            // pass, where zeroing the vector first would be a second one over fresh memory.
            Ok(values) => out.extend_from_slice(values),
            // Unaligned input: copied into the (aligned) vector's bytes.
            Err(_) => {
                let start = out.len();
                out.resize(start + count, T::zeroed());
                bytemuck::cast_slice_mut::<T, u8>(&mut out[start..]).copy_from_slice(bytes);
            }
        }
        Ok(())
    } else {
        for _ in 0..count {
            out.push(read_elem(reader)?);
        }
        Ok(())
    }
}
