//! Plain types: values copied through a fixed codec, like Banshee's `RTTIPlainType`.
//!
//! A plain value is written as its *content* (little-endian, whatever the platform). When the type
//! has a static size the content is exactly [`PlainType::STATIC_SIZE`] bytes. A dynamic-size type is
//! written as an *element*: a `u32` size that counts itself, then the content, so that any reader can
//! skip a value it does not understand. [`write_elem`], [`read_elem`] and [`elem_size`] produce and
//! consume that element form; they need no reflection and suit hand-written network messages.
//!
//! ```
//! use reflectable::plain::{read_elem, write_elem, elem_size, Reader};
//!
//! let value = (7u16, String::from("door"), vec![1.5f32, 2.5]);
//! let mut bytes = Vec::new();
//! write_elem(&value, &mut bytes);
//! assert_eq!(bytes.len(), elem_size(&value));
//!
//! let mut reader = Reader::new(&bytes);
//! let back: (u16, String, Vec<f32>) = read_elem(&mut reader).unwrap();
//! assert_eq!(back, value);
//! ```
//!
//! # Compact elements
//!
//! Where size matters more than a layout that can be skipped without the type (network messages;
//! compact streams), [`PlainType::write_compact`] and [`PlainType::read_compact`] write and read
//! the *compact* element form:
//!
//! - Integers of 16 bits or more, `usize`, `isize` and `char` are LEB128 varints (seven bits per
//!   byte, lowest group first), signed ones zig-zag mapped first so that small negative numbers
//!   stay short. Only the canonical form reads: no overlong encoding and no bits beyond the
//!   value's width.
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
//! There are no per-element size prefixes: a compact element is delimited by its own structure,
//! and each value has one compact encoding.
//!
//! ```
//! use reflectable::plain::{write_elem, PlainType, Reader};
//!
//! let value = (7u16, String::from("door"), vec![300u32, 5]);
//! let mut compact = Vec::new();
//! value.write_compact(&mut compact);
//! // 7, then "door" with its length, then the count 2 and the two varints.
//! assert_eq!(compact, [7, 4, b'd', b'o', b'o', b'r', 2, 0xAC, 0x02, 5]);
//!
//! let mut normal = Vec::new();
//! write_elem(&value, &mut normal);
//! assert_eq!(normal.len(), 30);
//!
//! let back = <(u16, String, Vec<u32>)>::read_compact(&mut Reader::new(&compact)).unwrap();
//! assert_eq!(back, value);
//! ```

mod bytes;
mod codec;
mod collections;
pub(crate) mod compact;
pub(crate) mod described;
#[cfg(feature = "glam")]
mod glam;
pub(crate) mod pod;
mod primitives;
mod reader;
#[cfg(feature = "serde")]
mod serde;
pub(crate) mod signature;
pub(crate) mod sizes;
mod std_types;
pub(crate) mod varint;

pub use bytes::PlainBytes;
pub(crate) use codec::{elem_size_with, min_elem_size_with};
pub use codec::{read_elem_with, write_elem_with, Native, PlainCodec};
pub use reader::{PlainError, Reader, MAX_PLAIN_DEPTH, ZERO_SIZED_ALLOWANCE};
#[cfg(feature = "serde")]
pub use serde::SerdeCodec;
pub(crate) use sizes::{inline_or_dynamic, min_elem_size, skip_elem, sum_static_sizes};

/// Size in bytes of the `u32` that prefixes every dynamic-size element.
pub const DYNAMIC_SIZE_PREFIX: usize = 4;

/// Largest static content size a field header can carry inline (its 8-bit size byte).
/// A type with a larger static size must declare itself dynamic.
pub const MAX_INLINE_SIZE: u32 = 255;

/// A value type with a fixed binary codec.
///
/// Implemented for integers, floats, `bool`, `char`, `String`, `Duration`, `SystemTime`,
/// `PathBuf`, IP and socket addresses, the std collections, `Option`, `Box`, arrays, tuples up to
/// 8 and `SmallVec`; with the `glam` feature, for glam's vectors, quaternions and matrices. User
/// structs and fieldless enums get it from `#[derive(PlainType)]`. A type of another crate is
/// stored through a [`PlainCodec`] instead (`#[rtti(id = N, with = Codec)]`), or through serde
/// with the `serde` feature (`#[rtti(id = N, serde)]`).
///
/// Encoding a collection of 2^32 or more elements, or a dynamic value of 4 GiB or more, panics:
/// the wire's `u32` counts and sizes cannot describe them. (An array *field* that long is an
/// encode error instead.)
///
/// Contract: [`write`](PlainType::write) appends exactly [`size`](PlainType::size) bytes, and
/// [`read`](PlainType::read) consumes exactly what `write` produced. For a static-size type `size`
/// always equals `STATIC_SIZE`. Implementations must never panic on malformed input: return a
/// [`PlainError`] instead, and never allocate more than the remaining input can justify.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a plain type",
    label = "`{Self}` does not implement `PlainType`",
    note = "if `{Self}` is a reflectable struct stored by value, mark the field `#[rtti(id = N, embedded)]`: a field is plain unless it is marked, or its type is a pointer (`Rc`, `Arc`, `Weak`) or a `Box<dyn Trait>`",
    note = "if `{Self}` is a value type of your own, add `#[derive(PlainType)]` to it; for a type of another crate, store it through a codec, `#[rtti(id = N, with = Codec)]` (see `PlainCodec`), or `#[rtti(id = N, serde)]` with the `serde` feature; or leave the field out with `#[rtti(skip)]`"
)]
pub trait PlainType: Sized + 'static {
    /// Stable numeric ID of this plain type, recorded in field descriptors: FORMAT.md lists
    /// the built-in types' (`<u32 as PlainType>::TYPE_ID` is 3); a type of your own takes one
    /// from [`FIRST_USER_PLAIN_TYPE_ID`] upward.
    const TYPE_ID: u32;
    /// `Some(n)` when every value's content is exactly `n` bytes; `None` for dynamic size.
    const STATIC_SIZE: Option<u32>;

    /// Content size in bytes of this value (without the dynamic-size prefix).
    fn size(&self) -> usize;
    /// Appends the content bytes of this value.
    fn write(&self, out: &mut Vec<u8>);
    /// Reads one value's content. For dynamic types the reader is limited to the content.
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError>;

    /// Appends this type's *signature*: its [`TYPE_ID`](PlainType::TYPE_ID), then what the type
    /// is built from, so that `Vec<u32>` and `Vec<f32>` differ (`[VEC, U32]`, `[VEC, F32]`).
    /// A stream's schema records the signature of every plain field; a decoder compares it with
    /// its own to tell a retyped field from an unchanged one. Leaf types keep this default;
    /// generic containers push their ID, then their parameters' signatures (arrays and tuples
    /// their length first). `FORMAT.md` lists the built-in forms.
    fn signature(out: &mut Vec<u32>) {
        out.push(Self::TYPE_ID);
    }

    /// Appends the contents of many values. Types whose in-memory form equals their wire form
    /// (plain-old-data on a little-endian host) override this with one bulk copy.
    fn write_slice(values: &[Self], out: &mut Vec<u8>) {
        for value in values {
            write_elem(value, out);
        }
    }

    /// Reads `count` elements appended to `out`; the bulk counterpart of [`write_slice`](PlainType::write_slice).
    /// The caller has already checked that the input can hold `count` elements.
    fn read_slice(reader: &mut Reader<'_>, count: usize, out: &mut Vec<Self>) -> Result<(), PlainError> {
        for _ in 0..count {
            out.push(read_elem(reader)?);
        }
        Ok(())
    }

    /// `Some(n)` when this type's compact element (see [the module documentation](self#compact-elements)) is its normal content, `n`
    /// bytes: the default for every static type. `None` when the compact element has a form of
    /// its own: integers of 16 bits or more and `char` (varints), and dynamic types. A type that
    /// overrides [`write_compact`](PlainType::write_compact) sets it to `None`.
    const COMPACT_SIZE: Option<u32> = Self::STATIC_SIZE;
    /// The fewest bytes one compact element takes, so that a count read from the input can be
    /// checked against the bytes that remain. By default `COMPACT_SIZE`, else 1; composites whose
    /// parts may all be empty (a dynamic `[String; 0]`) say less.
    const COMPACT_MIN_SIZE: usize = compact::default_min_size(Self::COMPACT_SIZE);

    /// Appends this value as a compact element. The default: the normal content for a static
    /// type, else the content *framed* by a varint length.
    #[inline]
    fn write_compact(&self, out: &mut Vec<u8>) {
        compact::write_default(Self::STATIC_SIZE, || self.size(), |out| self.write(out), out)
    }

    /// Reads one compact element, as [`write_compact`](PlainType::write_compact) wrote it.
    #[inline]
    fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        compact::read_default(Self::STATIC_SIZE, reader, Self::read)
    }

    /// Appends many compact elements: one bulk [`write_slice`](PlainType::write_slice) when the
    /// compact element is the normal content, else element by element.
    #[inline]
    fn write_compact_slice(values: &[Self], out: &mut Vec<u8>) {
        if Self::COMPACT_SIZE.is_some() {
            Self::write_slice(values, out);
        } else {
            values.iter().for_each(|value| value.write_compact(out));
        }
    }

    /// Reads `count` compact elements appended to `out`; the bulk counterpart of
    /// [`write_compact_slice`](PlainType::write_compact_slice). The caller has already checked
    /// the count against the input ([`Reader::read_compact_count`] with `COMPACT_MIN_SIZE`).
    #[inline]
    fn read_compact_slice(reader: &mut Reader<'_>, count: usize, out: &mut Vec<Self>) -> Result<(), PlainError> {
        if Self::COMPACT_SIZE.is_some() {
            return Self::read_slice(reader, count, out);
        }
        for _ in 0..count {
            out.push(Self::read_compact(reader)?);
        }
        Ok(())
    }

    /// Whether `self` and `other` write the same bytes, when the type can tell without writing
    /// them: numbers compare bit for bit (`0.0` and `-0.0` differ, a NaN equals itself).
    /// `None`, the default, leaves the caller to write both and compare the bytes. The diff asks
    /// this of every plain value of every pair of objects it compares, so a type worth diffing
    /// quickly answers it.
    ///
    /// ```
    /// use reflectable::plain::PlainType;
    ///
    /// assert_eq!(1.5f32.same(&1.5), Some(true));
    /// assert_eq!(0.0f32.same(&-0.0), Some(false));
    /// assert_eq!(f32::NAN.same(&f32::NAN), Some(true));
    /// assert_eq!(vec![1u8, 2].same(&vec![1, 2, 3]), Some(false));
    /// ```
    #[inline]
    fn same(&self, other: &Self) -> Option<bool> {
        let _ = other;
        None
    }

    /// [`same`](PlainType::same) over two slices: the same length and every element the same.
    /// Plain-old-data types override it with one comparison of the memory.
    #[inline]
    fn same_slice(a: &[Self], b: &[Self]) -> Option<bool> {
        if a.len() != b.len() {
            return Some(false);
        }
        same_parts(a.iter().zip(b).map(|(x, y)| x.same(y)))
    }
}

/// Combines the answers of [`PlainType::same`] for the parts of a value, in order:
/// `Some(false)` at the first part that differs (the rest are not asked), else `Some(true)` when
/// every part could tell, else `None`.
///
/// ```
/// use reflectable::plain::same_parts;
///
/// assert_eq!(same_parts([Some(true), None, Some(false)]), Some(false));
/// assert_eq!(same_parts([Some(true), None]), None);
/// assert_eq!(same_parts([Some(true), Some(true)]), Some(true));
/// ```
#[inline]
pub fn same_parts(parts: impl IntoIterator<Item = Option<bool>>) -> Option<bool> {
    let mut known = true;
    for part in parts {
        match part {
            Some(false) => return Some(false),
            Some(true) => {}
            None => known = false,
        }
    }
    known.then_some(true)
}

/// Bytes [`write_elem`] appends for `value`: the content, plus the size prefix for dynamic types.
///
/// ```
/// use reflectable::plain::{elem_size, write_elem};
///
/// assert_eq!(elem_size(&7u32), 4, "static: the content alone");
/// assert_eq!(elem_size(&[1.0f32; 3]), 12);
/// let name = String::from("door");
/// assert_eq!(elem_size(&name), 4 + 4, "dynamic: the size prefix, then the content");
///
/// let mut out = Vec::new();
/// write_elem(&(name, 7u32), &mut out);
/// assert_eq!(out.len(), elem_size(&(String::from("door"), 7u32)));
/// ```
#[inline]
pub fn elem_size<T: PlainType>(value: &T) -> usize {
    elem_size_with::<Native, T>(value)
}

/// Appends `value` as one element: the content, preceded for dynamic types by a `u32` size that
/// counts itself.
///
/// ```
/// use reflectable::plain::write_elem;
///
/// let mut out = Vec::new();
/// write_elem(&0x0102u16, &mut out);
/// assert_eq!(out, [0x02, 0x01], "a static value: its little-endian content");
///
/// out.clear();
/// write_elem(&String::from("hi"), &mut out);
/// assert_eq!(out, [6, 0, 0, 0, b'h', b'i'], "a dynamic one: its size, prefix included, then the content");
/// ```
///
/// # Panics
/// When a dynamic value is larger than 4 GiB, which the `u32` size cannot describe.
#[inline]
pub fn write_elem<T: PlainType>(value: &T, out: &mut Vec<u8>) {
    write_elem_with::<Native, T>(value, out)
}

/// Reads one element written by [`write_elem`]. A dynamic element must be consumed exactly by its
/// content; anything left over is an error.
///
/// ```
/// use reflectable::plain::{read_elem, write_elem, PlainError, Reader};
///
/// let mut bytes = Vec::new();
/// write_elem(&vec![1u16, 2, 3], &mut bytes);
/// write_elem(&true, &mut bytes);
///
/// let mut reader = Reader::new(&bytes);
/// assert_eq!(read_elem::<Vec<u16>>(&mut reader).unwrap(), [1, 2, 3]);
/// assert!(read_elem::<bool>(&mut reader).unwrap());
/// assert!(reader.is_empty());
///
/// // Input that ends early is an error, never a panic.
/// let short = read_elem::<Vec<u16>>(&mut Reader::new(&bytes[..5]));
/// assert!(matches!(short, Err(PlainError::LengthTooLarge { offset: 4, .. })));
/// ```
#[inline]
pub fn read_elem<T: PlainType>(reader: &mut Reader<'_>) -> Result<T, PlainError> {
    read_elem_with::<Native, T>(reader)
}

/// Numeric IDs of the built-in plain types, as FORMAT.md lists them. Outside this crate a
/// built-in type's ID is its [`PlainType::TYPE_ID`] (`<u32 as PlainType>::TYPE_ID`); user types
/// take IDs from [`FIRST_USER_PLAIN_TYPE_ID`] upward.
pub(crate) mod type_ids {
    #![allow(missing_docs)]
    pub const U8: u32 = 1;
    pub const U16: u32 = 2;
    pub const U32: u32 = 3;
    pub const U64: u32 = 4;
    pub const U128: u32 = 5;
    pub const I8: u32 = 6;
    pub const I16: u32 = 7;
    pub const I32: u32 = 8;
    pub const I64: u32 = 9;
    pub const I128: u32 = 10;
    pub const F32: u32 = 11;
    pub const F64: u32 = 12;
    pub const BOOL: u32 = 13;
    pub const CHAR: u32 = 14;
    pub const USIZE: u32 = 15;
    pub const ISIZE: u32 = 16;
    pub const STRING: u32 = 20;
    pub const DURATION: u32 = 21;
    pub const VEC: u32 = 30;
    pub const VEC_DEQUE: u32 = 31;
    pub const HASH_MAP: u32 = 32;
    pub const BTREE_MAP: u32 = 33;
    pub const HASH_SET: u32 = 34;
    pub const BTREE_SET: u32 = 35;
    pub const OPTION: u32 = 36;
    // 37 is unused: a `Box<T>` is written as its `T`.
    pub const ARRAY: u32 = 38;
    pub const TUPLE: u32 = 39;
    pub const SMALL_VEC: u32 = 40;
    // std types beyond numbers and strings.
    pub const SYSTEM_TIME: u32 = 22;
    pub const PATH_BUF: u32 = 23;
    pub const IPV4_ADDR: u32 = 24;
    pub const IPV6_ADDR: u32 = 25;
    pub const IP_ADDR: u32 = 26;
    pub const SOCKET_ADDR: u32 = 27;
    /// A serde value as a postcard payload (`SerdeCodec`, feature `serde`).
    pub const SERDE: u32 = 50;
    // glam (feature `glam`).
    pub const GLAM_VEC2: u32 = 100;
    pub const GLAM_VEC3: u32 = 101;
    pub const GLAM_VEC3A: u32 = 102;
    pub const GLAM_VEC4: u32 = 103;
    pub const GLAM_IVEC2: u32 = 104;
    pub const GLAM_IVEC3: u32 = 105;
    pub const GLAM_IVEC4: u32 = 106;
    pub const GLAM_UVEC2: u32 = 107;
    pub const GLAM_UVEC3: u32 = 108;
    pub const GLAM_UVEC4: u32 = 109;
    pub const GLAM_DVEC2: u32 = 110;
    pub const GLAM_DVEC3: u32 = 111;
    pub const GLAM_DVEC4: u32 = 112;
    pub const GLAM_QUAT: u32 = 113;
    pub const GLAM_DQUAT: u32 = 114;
    pub const GLAM_MAT2: u32 = 115;
    pub const GLAM_MAT3: u32 = 116;
    pub const GLAM_MAT3A: u32 = 117;
    pub const GLAM_MAT4: u32 = 118;
    pub const GLAM_DMAT4: u32 = 119;
    pub const GLAM_AFFINE2: u32 = 120;
    pub const GLAM_AFFINE3A: u32 = 121;
}

/// First plain type ID free for user types (`#[derive(PlainType)]`).
pub const FIRST_USER_PLAIN_TYPE_ID: u32 = 1000;
