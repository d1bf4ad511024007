//! Numbers, `bool`, `char` and `Duration`.

use super::{type_ids, PlainError, PlainType, Reader};
use std::time::Duration;

/// Integers and floats: fixed little-endian bytes; slices are one bulk copy on little-endian hosts.
macro_rules! number {
    ($($t:ty => $id:expr),* $(,)?) => {$(
        impl PlainType for $t {
            const TYPE_ID: u32 = $id;
            const STATIC_SIZE: Option<u32> = Some(std::mem::size_of::<$t>() as u32);

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

number! {
    u8 => type_ids::U8, u16 => type_ids::U16, u32 => type_ids::U32, u64 => type_ids::U64,
    u128 => type_ids::U128, i8 => type_ids::I8, i16 => type_ids::I16, i32 => type_ids::I32,
    i64 => type_ids::I64, i128 => type_ids::I128, f32 => type_ids::F32, f64 => type_ids::F64,
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
                <$t>::try_from(<$wire>::read(reader)?)
                    .map_err(|_| PlainError::Invalid { offset, what: "value does not fit this platform's pointer size" })
            }
            #[inline]
            fn same(&self, other: &Self) -> Option<bool> {
                Some(self == other)
            }
        }
    )*};
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
