//! Sizes of plain elements, for the field code, the derive and the decoders that step over values
//! without their types.

use super::{min_elem_size_with, Native, PlainError, PlainType, Reader, DYNAMIC_SIZE_PREFIX, MAX_INLINE_SIZE};

/// Smallest number of bytes one element of `T` occupies on the wire, so that an element count
/// read from the input can be checked against the bytes that remain. 0 for a type of static size
/// 0, whose counts [`Reader::read_count`] checks against its zero-size allowance instead.
#[inline]
pub const fn min_elem_size<T: PlainType>() -> usize {
    min_elem_size_with::<Native, T>()
}

/// Skips one element of a plain type whose static size is `static_size` (`None` = dynamic),
/// without knowing the type. Used to step over fields a reader does not understand.
pub fn skip_elem(reader: &mut Reader<'_>, static_size: Option<u32>) -> Result<(), PlainError> {
    match static_size {
        Some(n) => reader.skip(n as usize),
        None => {
            let start = reader.offset();
            let total = reader.read_u32()? as usize;
            if total < DYNAMIC_SIZE_PREFIX {
                return Err(PlainError::Invalid { offset: start, what: "dynamic size smaller than its own prefix" });
            }
            reader.skip(total - DYNAMIC_SIZE_PREFIX)
        }
    }
}

/// Sums static sizes at compile time: `Some(total)` when every part is static, else `None`.
/// Used by `#[derive(PlainType)]` and the tuple impls.
pub const fn sum_static_sizes(parts: &[Option<u32>]) -> Option<u32> {
    let mut total: u32 = 0;
    let mut i = 0;
    while i < parts.len() {
        match parts[i] {
            Some(n) => total += n,
            None => return None,
        }
        i += 1;
    }
    Some(total)
}

/// A static size, or dynamic when it does not fit a field header's 8-bit inline size. Composite
/// types (tuples, arrays, derived structs) pass their summed size through this.
pub const fn inline_or_dynamic(size: Option<u32>) -> Option<u32> {
    match size {
        Some(n) if n <= MAX_INLINE_SIZE => Some(n),
        _ => None,
    }
}
