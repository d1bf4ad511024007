//! Numbers, `bool`, `char` and `Duration`.

use super::{type_ids, varint, PlainError, PlainType, Reader};
use std::time::Duration;

/// Integers and floats: fixed little-endian bytes; slices are one bulk copy on little-endian hosts.
macro_rules! number {
    ($($t:ty => $id:expr, $compact:ident);* $(;)?) => {$(
        impl PlainType for $t {
            const TYPE_ID: u32 = $id;
            const STATIC_SIZE: Option<u32> = Some(std::mem::size_of::<$t>() as u32);
            compact_number!($compact, $t);

            #[inline]
            fn size(&self) -> usize {
                std::mem::size_of::<$t>()
            }
            #[inline]
            fn write(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
                Ok(<$t>::from_le_bytes(reader.take_array()?))
            }
            fn write_slice(values: &[Self], out: &mut Vec<u8>) {
                if cfg!(target_endian = "little") {
                    out.extend_from_slice(bytemuck::cast_slice(values));
                } else {
                    values.iter().for_each(|v| v.write(out));
                }
            }
            fn read_slice(reader: &mut Reader<'_>, count: usize, out: &mut Vec<Self>) -> Result<(), PlainError> {
                let bytes = reader.take(count * std::mem::size_of::<$t>())?;
                out.reserve(count);
                out.extend(bytes.chunks_exact(std::mem::size_of::<$t>()).map(|chunk| {
                    let mut array = [0u8; std::mem::size_of::<$t>()];
                    array.copy_from_slice(chunk);
                    <$t>::from_le_bytes(array)
                }));
                Ok(())
            }
            /// Bit for bit, as the bytes written are.
            #[inline]
            fn same(&self, other: &Self) -> Option<bool> {
                Some(bytemuck::bytes_of(self) == bytemuck::bytes_of(other))
            }
            #[inline]
            fn same_slice(a: &[Self], b: &[Self]) -> Option<bool> {
                Some(bytemuck::cast_slice::<Self, u8>(a) == bytemuck::cast_slice::<Self, u8>(b))
            }
        }
    )*};
}

/// The compact form of a number: `fixed` keeps its bytes (`u8`, `i8`, floats); the wider integers
/// are varints, signed ones zig-zag mapped first.
macro_rules! compact_number {
    (fixed, $t:ty) => {};
    (unsigned, $t:ty) => {
        const COMPACT_SIZE: Option<u32> = None;
        #[inline]
        fn write_compact(&self, out: &mut Vec<u8>) {
            varint::write_u64(u64::from(*self), out)
        }
        #[inline]
        fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
            // The read checks the width, so the cast keeps every bit.
            Ok(varint::read_u64(reader, <$t>::BITS)? as $t)
        }
    };
    (signed, $t:ty) => {
        const COMPACT_SIZE: Option<u32> = None;
        #[inline]
        fn write_compact(&self, out: &mut Vec<u8>) {
            varint::write_u64(varint::zigzag_i64(i64::from(*self)), out)
        }
        #[inline]
        fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
            // A zig-zag value of `BITS` bits maps back into the type's range.
            Ok(varint::unzigzag_i64(varint::read_u64(reader, <$t>::BITS)?) as $t)
        }
    };
    (unsigned128, $t:ty) => {
        const COMPACT_SIZE: Option<u32> = None;
        #[inline]
        fn write_compact(&self, out: &mut Vec<u8>) {
            varint::write_u128(*self, out)
        }
        #[inline]
        fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
            varint::read_u128(reader)
        }
    };
    (signed128, $t:ty) => {
        const COMPACT_SIZE: Option<u32> = None;
        #[inline]
        fn write_compact(&self, out: &mut Vec<u8>) {
            varint::write_u128(varint::zigzag_i128(*self), out)
        }
        #[inline]
        fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
            Ok(varint::unzigzag_i128(varint::read_u128(reader)?))
        }
    };
}

number! {
    u8 => type_ids::U8, fixed; u16 => type_ids::U16, unsigned; u32 => type_ids::U32, unsigned;
    u64 => type_ids::U64, unsigned; u128 => type_ids::U128, unsigned128; i8 => type_ids::I8, fixed;
    i16 => type_ids::I16, signed; i32 => type_ids::I32, signed; i64 => type_ids::I64, signed;
    i128 => type_ids::I128, signed128; f32 => type_ids::F32, fixed; f64 => type_ids::F64, fixed;
}

/// `usize`/`isize` travel as 64 bits so files move between 32- and 64-bit hosts.
macro_rules! pointer_sized {
    ($($t:ty as $wire:ty => $id:expr),*) => {$(
        impl PlainType for $t {
            const TYPE_ID: u32 = $id;
            const STATIC_SIZE: Option<u32> = Some(8);

            fn size(&self) -> usize {
                8
            }
            fn write(&self, out: &mut Vec<u8>) {
                (*self as $wire).write(out);
            }
            fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
                let offset = reader.offset();
                from_wire(offset, <$wire>::read(reader)?)
            }
            const COMPACT_SIZE: Option<u32> = None;
            fn write_compact(&self, out: &mut Vec<u8>) {
                (*self as $wire).write_compact(out);
            }
            fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
                let offset = reader.offset();
                from_wire(offset, <$wire>::read_compact(reader)?)
            }
            #[inline]
            fn same(&self, other: &Self) -> Option<bool> {
                Some(self == other)
            }
        }
    )*};
}

/// The `usize`/`isize` of a 64-bit wire value read at `offset`, when this platform's pointer size
/// holds it.
fn from_wire<W, T: TryFrom<W>>(offset: usize, wire: W) -> Result<T, PlainError> {
    T::try_from(wire)
        .map_err(|_| PlainError::Invalid { offset, what: "value does not fit this platform's pointer size" })
}

pointer_sized!(usize as u64 => type_ids::USIZE, isize as i64 => type_ids::ISIZE);

impl PlainType for bool {
    const TYPE_ID: u32 = type_ids::BOOL;
    const STATIC_SIZE: Option<u32> = Some(1);

    fn size(&self) -> usize {
        1
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        let offset = reader.offset();
        match reader.take_array::<1>()?[0] {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(PlainError::Invalid { offset, what: "bool byte is neither 0 nor 1" }),
        }
    }
    #[inline]
    fn same(&self, other: &Self) -> Option<bool> {
        Some(self == other)
    }
}

impl PlainType for char {
    const TYPE_ID: u32 = type_ids::CHAR;
    const STATIC_SIZE: Option<u32> = Some(4);

    fn size(&self) -> usize {
        4
    }
    fn write(&self, out: &mut Vec<u8>) {
        u32::from(*self).write(out);
    }
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        let offset = reader.offset();
        char::from_u32(u32::read(reader)?).ok_or(PlainError::Invalid { offset, what: "not a Unicode scalar value" })
    }
    const COMPACT_SIZE: Option<u32> = None;
    fn write_compact(&self, out: &mut Vec<u8>) {
        u32::from(*self).write_compact(out)
    }
    fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        let offset = reader.offset();
        char::from_u32(u32::read_compact(reader)?)
            .ok_or(PlainError::Invalid { offset, what: "not a Unicode scalar value" })
    }
    #[inline]
    fn same(&self, other: &Self) -> Option<bool> {
        Some(self == other)
    }
}

impl PlainType for Duration {
    const TYPE_ID: u32 = type_ids::DURATION;
    const STATIC_SIZE: Option<u32> = Some(12);

    fn size(&self) -> usize {
        12
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.as_secs().write(out);
        self.subsec_nanos().write(out);
    }
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        let offset = reader.offset();
        let secs = u64::read(reader)?;
        let nanos = u32::read(reader)?;
        if nanos >= 1_000_000_000 {
            return Err(PlainError::Invalid { offset, what: "Duration nanoseconds out of range" });
        }
        Ok(Duration::new(secs, nanos))
    }
    #[inline]
    fn same(&self, other: &Self) -> Option<bool> {
        Some(self == other)
    }
}
