//! Variable-length integers for the compact element form: unsigned LEB128 (seven bits per byte,
//! lowest group first, bit 7 set on every byte but the last), with signed values zig-zag mapped
//! first so that small negative numbers stay short.
//!
//! Only the canonical form reads: no overlong encoding (a last byte of zero after the first), and
//! no bits beyond the value's width. So every value has exactly one encoding, and a compact
//! element re-encodes to the bytes it came from.

use super::{PlainError, Reader};

/// The writer for one width. (A byte pushed at a time measured faster than building the varint
/// on the stack and appending it once.)
macro_rules! write_varint {
    ($(#[$doc:meta])* $name:ident, $word:ty) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(mut value: $word, out: &mut Vec<u8>) {
            while value >= 0x80 {
                out.push(value as u8 | 0x80);
                value >>= 7;
            }
            out.push(value as u8);
        }
    };
}

write_varint!(
    /// Appends `value` as an unsigned LEB128 varint.
    write_u64, u64
);
write_varint!(
    /// Appends a 128-bit `value` as an unsigned LEB128 varint.
    write_u128, u128
);

/// Bytes [`write_u64`] appends for `value` (what the round-trip tests check).
#[cfg(test)]
const fn len_u64(value: u64) -> usize {
    let bits = 64 - (value | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// The canonical-form reader for one width: `bits` is the value's width (8 up to the word's).
macro_rules! read_varint {
    ($(#[$doc:meta])* $name:ident, $word:ty, $($bits:ident)?) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(reader: &mut Reader<'_>, $($bits: u32)?) -> Result<$word, PlainError> {
            $(debug_assert!($bits >= 8, "a varint of at least 8 bits");)?
            let bits: u32 = read_varint!(@bits $word $(, $bits)?);
            let start = reader.offset();
            let rest = reader.rest();
            // One byte is the common case: small counts, lengths and values.
            if let Some(&byte) = rest.first() {
                if byte < 0x80 {
                    reader.skip(1)?;
                    return Ok(<$word>::from(byte));
                }
            }
            let mut value: $word = 0;
            let mut shift = 0u32;
            for (i, &byte) in rest.iter().enumerate() {
                let group = <$word>::from(byte & 0x7F);
                if shift + 7 > bits && group >> (bits - shift) != 0 {
                    return Err(PlainError::Invalid { offset: start, what: "varint larger than its type" });
                }
                value |= group << shift;
                if byte < 0x80 {
                    if byte == 0 {
                        return Err(PlainError::Invalid { offset: start, what: "overlong varint" });
                    }
                    reader.skip(i + 1)?;
                    return Ok(value);
                }
                shift += 7;
                if shift >= bits {
                    return Err(PlainError::Invalid { offset: start, what: "varint larger than its type" });
                }
            }
            Err(PlainError::UnexpectedEnd { offset: start, needed: rest.len() + 1, available: rest.len() })
        }
    };
    (@bits $word:ty, $bits:ident) => { $bits.min(<$word>::BITS) };
    (@bits $word:ty) => { <$word>::BITS };
}

read_varint!(
    /// Reads an unsigned varint of at most `bits` bits (8 to 64; fewer than 8 is a caller's bug,
    /// caught by a debug assertion) in canonical form.
    read_u64, u64, bits
);
read_varint!(
    /// Reads an unsigned 128-bit varint in canonical form.
    read_u128, u128,
);

/// Zig-zag maps a signed value to an unsigned one: 0, -1, 1, -2... become 0, 1, 2, 3...
#[inline]
pub const fn zigzag_i64(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

/// The inverse of [`zigzag_i64`].
#[inline]
pub const fn unzigzag_i64(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

/// [`zigzag_i64`] for 128-bit values.
#[inline]
pub const fn zigzag_i128(value: i128) -> u128 {
    ((value << 1) ^ (value >> 127)) as u128
}

/// The inverse of [`zigzag_i128`].
#[inline]
pub const fn unzigzag_i128(value: u128) -> i128 {
    ((value >> 1) as i128) ^ -((value & 1) as i128)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    fn encoded(value: u64) -> Vec<u8> {
        let mut out = Vec::new();
        write_u64(value, &mut out);
        out
    }

    #[test]
    fn known_encodings() {
        assert_eq!(encoded(0), [0x00]);
        assert_eq!(encoded(127), [0x7F]);
        assert_eq!(encoded(128), [0x80, 0x01]);
        assert_eq!(encoded(0x1234), [0xB4, 0x24]);
        assert_eq!(encoded(u64::MAX), [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]);
        assert_eq!([zigzag_i64(0), zigzag_i64(-1), zigzag_i64(1), zigzag_i64(-2)], [0, 1, 2, 3]);
        assert_eq!(zigzag_i64(i64::MIN), u64::MAX);
    }

    #[test]
    fn non_canonical_forms_are_refused() {
        let read = |bytes: &[u8], bits| read_u64(&mut Reader::new(bytes), bits);
        assert!(matches!(read(&[0x80, 0x00], 64), Err(PlainError::Invalid { what: "overlong varint", .. })));
        assert!(matches!(read(&[0xFF, 0x80, 0x00], 64), Err(PlainError::Invalid { what: "overlong varint", .. })));
        // 2^16 does not fit 16 bits; neither does a fourth byte.
        assert!(matches!(read(&[0x80, 0x80, 0x04], 16), Err(PlainError::Invalid { offset: 0, .. })));
        assert!(read(&[0xFF, 0xFF, 0x03], 16).is_ok());
        assert!(matches!(read(&[0x80, 0x80, 0x80, 0x00], 16), Err(PlainError::Invalid { .. })));
        // u64::MAX with the tenth byte's spare bits set.
        let mut too_wide = encoded(u64::MAX);
        *too_wide.last_mut().unwrap() = 0x03;
        assert!(matches!(read(&too_wide, 64), Err(PlainError::Invalid { .. })));
        assert!(matches!(read(&[0x80, 0x80], 64), Err(PlainError::UnexpectedEnd { offset: 0, .. })));
        assert!(matches!(read(&[], 64), Err(PlainError::UnexpectedEnd { .. })));
        assert!(matches!(read_u128(&mut Reader::new(&[0x80, 0x00])), Err(PlainError::Invalid { .. })));
    }

    quickcheck! {
        fn u64_round_trips(value: u64, bits_above: u8) -> bool {
            let bits = (64 - value.leading_zeros()).max(8) + u32::from(bits_above) % 8;
            let bits = bits.min(64);
            let bytes = encoded(value);
            let mut reader = Reader::new(&bytes);
            bytes.len() == len_u64(value) && read_u64(&mut reader, bits) == Ok(value) && reader.is_empty()
        }

        fn u128_round_trips(high: u64, low: u64) -> bool {
            let value = (u128::from(high) << 64) | u128::from(low);
            let mut bytes = Vec::new();
            write_u128(value, &mut bytes);
            let mut reader = Reader::new(&bytes);
            read_u128(&mut reader) == Ok(value) && reader.is_empty()
        }

        fn zigzag_round_trips(value: i64, high: i64) -> bool {
            let wide = (i128::from(high) << 64) | i128::from(value as u64);
            unzigzag_i64(zigzag_i64(value)) == value && unzigzag_i128(zigzag_i128(wide)) == wide
        }

        fn any_bytes_read_canonically(bytes: Vec<u8>, bits: u8) -> bool {
            let bits = [8, 16, 32, 64][usize::from(bits) % 4];
            let mut reader = Reader::new(&bytes);
            match read_u64(&mut reader, bits) {
                Ok(value) => {
                    let used = bytes.len() - reader.remaining();
                    encoded(value) == bytes[..used] && (bits == 64 || value >> bits == 0)
                }
                Err(_) => true,
            }
        }
    }
}
