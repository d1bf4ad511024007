//! [`PlainCodec`]: a plain codec for a type that is not a [`PlainType`], named by the field that
//! stores it (`#[rtti(id = N, with = Codec)]`), and the element helpers every plain value goes
//! through, whichever codec it has.
//!
//! The orphan rule keeps a crate from implementing `PlainType` (ours) for a type it does not own
//! either (`uuid::Uuid`, `chrono::NaiveDate`). A codec is a type of the user's own that implements
//! `PlainCodec<Foreign>`, so the rule does not apply. A [`PlainType`] is itself stored through a
//! codec, [`Native`], which forwards to its own impl: the field code and the element helpers have
//! one path for both.

use super::{PlainError, PlainType, Reader, DYNAMIC_SIZE_PREFIX};

/// Stores values of `T` as plain content, for a type `T` that cannot implement [`PlainType`].
///
/// The same contract as [`PlainType`]: [`write`](PlainCodec::write) appends exactly
/// [`size`](PlainCodec::size) bytes (`STATIC_SIZE` bytes for a static codec), and
/// [`read`](PlainCodec::read) consumes exactly what `write` produced, returns a [`PlainError`] for
/// malformed input instead of panicking, and never allocates more than the input justifies. The
/// field header, the dynamic-size prefix and the rules old readers skip by are the ones of any
/// plain field: a reader that does not know the codec skips the field by its size.
///
/// A codec is a type, not a module of functions, so that one codec can serve many types (a
/// generic impl, like `SerdeCodec`'s for every `Serialize` type, feature `serde`), its facts
/// are constants the field header is computed from, and a codec that does not fit the field's type
/// is a compile error at the field.
///
/// # Example
///
/// A type from another crate (here a stand-in, `Uuid`), stored in a field through a codec:
///
/// ```
/// use reflectable::plain::{PlainCodec, PlainError, Reader, FIRST_USER_PLAIN_TYPE_ID};
/// use reflectable::Reflectable;
///
/// # mod uuid { #[derive(Clone, Copy, Debug, Default, PartialEq)] pub struct Uuid(pub u128); }
/// use uuid::Uuid;
///
/// /// `Uuid` as its 16 bytes.
/// struct UuidCodec;
///
/// impl PlainCodec<Uuid> for UuidCodec {
///     const TYPE_ID: u32 = FIRST_USER_PLAIN_TYPE_ID + 1;
///     const STATIC_SIZE: Option<u32> = Some(16);
///
///     fn size(_: &Uuid) -> usize {
///         16
///     }
///     fn write(value: &Uuid, out: &mut Vec<u8>) {
///         out.extend_from_slice(&value.0.to_le_bytes());
///     }
///     fn read(reader: &mut Reader<'_>) -> Result<Uuid, PlainError> {
///         Ok(Uuid(u128::from_le_bytes(reader.take_array()?)))
///     }
///     // Optional: lets a diff compare two values without writing them out.
///     fn same(a: &Uuid, b: &Uuid) -> Option<bool> {
///         Some(a == b)
///     }
/// }
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9700)]
/// struct Asset {
///     #[rtti(id = 1, with = UuidCodec)]
///     id: Uuid,
///     #[rtti(id = 2, with = UuidCodec)] // an array field: the codec stores each element
///     dependencies: Vec<Uuid>,
/// }
///
/// let asset = Asset { id: Uuid(7), dependencies: vec![Uuid(8), Uuid(9)] };
/// let bytes = reflectable::to_vec(&asset).unwrap();
/// let back: Asset = reflectable::from_slice(&bytes).unwrap();
/// assert_eq!((back.id, back.dependencies), (Uuid(7), vec![Uuid(8), Uuid(9)]));
///
/// // To reflection, the field holds `Uuid` values.
/// let id = Asset::rtti_static().field_by_name("id").unwrap();
/// assert_eq!(id.get::<Uuid>(&asset).unwrap(), Uuid(7));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a plain codec for `{T}`",
    label = "`{Self}` does not implement `PlainCodec<{T}>`",
    note = "`#[rtti(with = Codec)]` names a type implementing `PlainCodec` for the field's type, or for its element type when the field is a `Vec`, `SmallVec` or `[T; N]`"
)]
pub trait PlainCodec<T>: 'static {
    /// Stable numeric ID of the plain type this codec writes, recorded in field descriptors
    /// (see [`PlainType::TYPE_ID`](super::PlainType::TYPE_ID)).
    const TYPE_ID: u32;
    /// `Some(n)` when every value's content is exactly `n` bytes (at most 255); `None` for
    /// dynamic size.
    const STATIC_SIZE: Option<u32>;

    /// Content size in bytes of `value` (without the dynamic-size prefix).
    fn size(value: &T) -> usize;
    /// Appends the content bytes of `value`.
    fn write(value: &T, out: &mut Vec<u8>);
    /// Reads one value's content. For a dynamic codec the reader is limited to the content.
    fn read(reader: &mut Reader<'_>) -> Result<T, PlainError>;

    /// Appends the signature of what this codec writes (see [`PlainType::signature`]): by
    /// default its [`TYPE_ID`](PlainCodec::TYPE_ID) alone.
    fn signature(out: &mut Vec<u32>) {
        out.push(Self::TYPE_ID);
    }

    /// Appends the contents of many values: element by element unless overridden.
    fn write_slice(values: &[T], out: &mut Vec<u8>) {
        for value in values {
            write_elem_with::<Self, T>(value, out);
        }
    }

    /// Reads `count` elements appended to `out`. The caller has already checked that the input
    /// can hold `count` elements.
    fn read_slice(reader: &mut Reader<'_>, count: usize, out: &mut Vec<T>) -> Result<(), PlainError> {
        for _ in 0..count {
            out.push(read_elem_with::<Self, T>(reader)?);
        }
        Ok(())
    }

    /// `Some(n)` when the compact element is the normal content, `n` bytes (see
    /// [`PlainType::COMPACT_SIZE`]); a codec that overrides
    /// [`write_compact`](PlainCodec::write_compact) sets it to `None`.
    const COMPACT_SIZE: Option<u32> = Self::STATIC_SIZE;
    /// The fewest bytes one compact element takes (see [`PlainType::COMPACT_MIN_SIZE`]).
    const COMPACT_MIN_SIZE: usize = super::compact::default_min_size(Self::COMPACT_SIZE);

    /// Appends `value` as a compact element: by default its normal content, framed by a varint
    /// length when the codec is dynamic (see [compact elements](super#compact-elements)).
    #[inline]
    fn write_compact(value: &T, out: &mut Vec<u8>) {
        super::compact::write_default(Self::STATIC_SIZE, || Self::size(value), |out| Self::write(value, out), out)
    }

    /// Reads one compact element, as [`write_compact`](PlainCodec::write_compact) wrote it.
    #[inline]
    fn read_compact(reader: &mut Reader<'_>) -> Result<T, PlainError> {
        super::compact::read_default(Self::STATIC_SIZE, reader, Self::read)
    }

    /// Appends many compact elements: one bulk [`write_slice`](PlainCodec::write_slice) when the
    /// compact element is the normal content, else element by element.
    #[inline]
    fn write_compact_slice(values: &[T], out: &mut Vec<u8>) {
        if Self::COMPACT_SIZE.is_some() {
            Self::write_slice(values, out);
        } else {
            values.iter().for_each(|value| Self::write_compact(value, out));
        }
    }

    /// Reads `count` compact elements appended to `out`. The caller has already checked the count
    /// against the input.
    #[inline]
    fn read_compact_slice(reader: &mut Reader<'_>, count: usize, out: &mut Vec<T>) -> Result<(), PlainError> {
        if Self::COMPACT_SIZE.is_some() {
            return Self::read_slice(reader, count, out);
        }
        for _ in 0..count {
            out.push(Self::read_compact(reader)?);
        }
        Ok(())
    }

    /// Whether `a` and `b` write the same bytes, when the codec can tell without writing them
    /// (see [`PlainType::same`]); `None`, the default, has the caller compare written bytes.
    #[inline]
    fn same(a: &T, b: &T) -> Option<bool> {
        let _ = (a, b);
        None
    }

    /// [`same`](PlainCodec::same) over two slices: the same length and every element the same.
    #[inline]
    fn same_slice(a: &[T], b: &[T]) -> Option<bool> {
        if a.len() != b.len() {
            return Some(false);
        }
        super::same_parts(a.iter().zip(b).map(|(x, y)| Self::same(x, y)))
    }
}

/// The codec of a [`PlainType`]: its own impl. Every plain field without `with` uses it.
///
/// ```
/// use reflectable::plain::{write_elem, Native, PlainCodec, PlainType, Reader};
///
/// assert_eq!(<Native as PlainCodec<u32>>::TYPE_ID, <u32 as PlainType>::TYPE_ID);
/// assert_eq!(<Native as PlainCodec<String>>::STATIC_SIZE, None);
///
/// let mut out = Vec::new();
/// <Native as PlainCodec<u32>>::write(&7, &mut out);
/// let mut same = Vec::new();
/// write_elem(&7u32, &mut same);
/// assert_eq!(out, same);
/// let back: u32 = Native::read(&mut Reader::new(&out)).unwrap();
/// assert_eq!(back, 7);
/// ```
pub struct Native;

impl<T: PlainType> PlainCodec<T> for Native {
    const TYPE_ID: u32 = T::TYPE_ID;
    const STATIC_SIZE: Option<u32> = T::STATIC_SIZE;
    const COMPACT_SIZE: Option<u32> = T::COMPACT_SIZE;
    const COMPACT_MIN_SIZE: usize = T::COMPACT_MIN_SIZE;

    #[inline(always)]
    fn size(value: &T) -> usize {
        value.size()
    }
    #[inline(always)]
    fn write(value: &T, out: &mut Vec<u8>) {
        value.write(out)
    }
    #[inline(always)]
    fn read(reader: &mut Reader<'_>) -> Result<T, PlainError> {
        T::read(reader)
    }
    fn signature(out: &mut Vec<u32>) {
        T::signature(out)
    }
    #[inline(always)]
    fn write_slice(values: &[T], out: &mut Vec<u8>) {
        T::write_slice(values, out)
    }
    #[inline(always)]
    fn read_slice(reader: &mut Reader<'_>, count: usize, out: &mut Vec<T>) -> Result<(), PlainError> {
        T::read_slice(reader, count, out)
    }
    #[inline(always)]
    fn write_compact(value: &T, out: &mut Vec<u8>) {
        value.write_compact(out)
    }
    #[inline(always)]
    fn read_compact(reader: &mut Reader<'_>) -> Result<T, PlainError> {
        T::read_compact(reader)
    }
    #[inline(always)]
    fn write_compact_slice(values: &[T], out: &mut Vec<u8>) {
        T::write_compact_slice(values, out)
    }
    #[inline(always)]
    fn read_compact_slice(reader: &mut Reader<'_>, count: usize, out: &mut Vec<T>) -> Result<(), PlainError> {
        T::read_compact_slice(reader, count, out)
    }
    #[inline(always)]
    fn same(a: &T, b: &T) -> Option<bool> {
        a.same(b)
    }
    #[inline(always)]
    fn same_slice(a: &[T], b: &[T]) -> Option<bool> {
        T::same_slice(a, b)
    }
}

/// [`min_elem_size`](super::min_elem_size) for values stored through the codec `K`.
#[inline]
pub const fn min_elem_size_with<K: PlainCodec<T> + ?Sized, T>() -> usize {
    match K::STATIC_SIZE {
        Some(n) => n as usize,
        None => DYNAMIC_SIZE_PREFIX,
    }
}

/// [`elem_size`](super::elem_size) for a value stored through the codec `K`.
#[inline]
pub fn elem_size_with<K: PlainCodec<T> + ?Sized, T>(value: &T) -> usize {
    match K::STATIC_SIZE {
        Some(n) => n as usize,
        None => DYNAMIC_SIZE_PREFIX + K::size(value),
    }
}

/// [`write_elem`](super::write_elem) for a value stored through the codec `K`.
///
/// ```
/// use reflectable::plain::{write_elem, write_elem_with, Native};
/// # use reflectable::plain::{PlainCodec, PlainError, Reader};
/// # mod units { #[derive(Debug, PartialEq)] pub struct Meters(pub f32); }
/// # use units::Meters;
/// # struct MetersCodec;
/// # impl PlainCodec<Meters> for MetersCodec {
/// #     const TYPE_ID: u32 = 9_970_101;
/// #     const STATIC_SIZE: Option<u32> = Some(4);
/// #     fn size(_: &Meters) -> usize { 4 }
/// #     fn write(value: &Meters, out: &mut Vec<u8>) { out.extend_from_slice(&value.0.to_le_bytes()) }
/// #     fn read(r: &mut Reader<'_>) -> Result<Meters, PlainError> { Ok(Meters(f32::from_le_bytes(r.take_array()?))) }
/// # }
///
/// // `MetersCodec` (hidden) stores a foreign `Meters(f32)` as its 4 bytes.
/// let mut out = Vec::new();
/// write_elem_with::<MetersCodec, _>(&Meters(1.5), &mut out);
/// assert_eq!(out, 1.5f32.to_le_bytes());
///
/// // A plain type's own codec is `Native`: what `write_elem` uses.
/// let (mut a, mut b) = (Vec::new(), Vec::new());
/// write_elem_with::<Native, _>(&String::from("hi"), &mut a);
/// write_elem(&String::from("hi"), &mut b);
/// assert_eq!(a, b);
/// ```
///
/// # Panics
/// When a dynamic value is larger than 4 GiB, which the `u32` size cannot describe.
#[inline]
pub fn write_elem_with<K: PlainCodec<T> + ?Sized, T>(value: &T, out: &mut Vec<u8>) {
    if K::STATIC_SIZE.is_none() {
        let total = DYNAMIC_SIZE_PREFIX + K::size(value);
        let total = u32::try_from(total).expect("a dynamic plain value must be smaller than 4 GiB");
        out.extend_from_slice(&total.to_le_bytes());
    }
    K::write(value, out);
}

/// [`read_elem`](super::read_elem) for a value stored through the codec `K`.
///
/// ```
/// use reflectable::plain::{read_elem_with, write_elem_with};
/// # use reflectable::plain::{PlainCodec, PlainError, Reader};
/// # mod units { #[derive(Debug, PartialEq)] pub struct Meters(pub f32); }
/// # use units::Meters;
/// # struct MetersCodec;
/// # impl PlainCodec<Meters> for MetersCodec {
/// #     const TYPE_ID: u32 = 9_970_102;
/// #     const STATIC_SIZE: Option<u32> = Some(4);
/// #     fn size(_: &Meters) -> usize { 4 }
/// #     fn write(value: &Meters, out: &mut Vec<u8>) { out.extend_from_slice(&value.0.to_le_bytes()) }
/// #     fn read(r: &mut Reader<'_>) -> Result<Meters, PlainError> { Ok(Meters(f32::from_le_bytes(r.take_array()?))) }
/// # }
///
/// // `MetersCodec` (hidden) stores a foreign `Meters(f32)` as its 4 bytes.
/// let mut bytes = Vec::new();
/// write_elem_with::<MetersCodec, _>(&Meters(1.5), &mut bytes);
/// write_elem_with::<MetersCodec, _>(&Meters(-2.0), &mut bytes);
///
/// let mut reader = Reader::new(&bytes);
/// assert_eq!(read_elem_with::<MetersCodec, Meters>(&mut reader).unwrap(), Meters(1.5));
/// assert_eq!(read_elem_with::<MetersCodec, Meters>(&mut reader).unwrap(), Meters(-2.0));
/// assert!(read_elem_with::<MetersCodec, Meters>(&mut reader).is_err(), "the input is used up");
/// ```
#[inline]
pub fn read_elem_with<K: PlainCodec<T> + ?Sized, T>(reader: &mut Reader<'_>) -> Result<T, PlainError> {
    if K::STATIC_SIZE.is_some() {
        return K::read(reader);
    }
    let start = reader.offset();
    let total = reader.read_u32()? as usize;
    if total < DYNAMIC_SIZE_PREFIX {
        return Err(PlainError::Invalid { offset: start, what: "dynamic size smaller than its own prefix" });
    }
    let mut content = reader.sub_reader(total - DYNAMIC_SIZE_PREFIX)?;
    let value = K::read(&mut content)?;
    content.expect_end()?;
    reader.rejoin(&content);
    Ok(value)
}
