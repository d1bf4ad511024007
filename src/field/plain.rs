//! Plain fields: values copied through a [`PlainCodec`]: their own [`PlainType`](crate::plain::PlainType)
//! impl ([`Native`](crate::plain::Native)), or the codec a field names (`with = Codec`). Both take
//! this one path, so a codec field has the header, size rules and bulk copies of any plain field.

use super::elems::read_plain;
use super::{owner_mut, owner_ref, ErasedElems, FieldError, FieldImpl, PlainInfo, Shape};
use crate::plain::{write_elem_with, PlainCodec, Reader};
use std::any::Any;

/// The elements of two containers of shape `S`, compared through codec `K`: the one comparison
/// of plain values, for the erased accessors and for generated code.
#[inline(always)]
pub(crate) fn same_plains<C, S: Shape<C>, K: PlainCodec<S::Elem>>(a: &C, b: &C) -> Option<bool> {
    match (S::ARRAY, S::as_slice(a), S::as_slice(b)) {
        (false, [a], [b]) => K::same(a, b),
        (_, a, b) => K::same_slice(a, b),
    }
}

/// Bytes reserved beyond a plain array's own, for what the encoder writes after it.
const HEADROOM: usize = 64;

/// Appends the elements of a plain field's `container` in element form (see
/// [`crate::plain::write_elem`]), through codec `K`; arrays of plain-old-data go out in one bulk
/// copy. Returns the element count. What every plain field writes, through its erased access or
/// its type's generated code.
#[inline]
pub(crate) fn write_plain<C, S: Shape<C>, K: PlainCodec<S::Elem>>(
    container: &C,
    out: &mut Vec<u8>,
) -> Result<usize, FieldError> {
    let elems = S::as_slice(container);
    let start = out.len();
    if let (true, Some(size)) = (S::ARRAY, K::STATIC_SIZE) {
        // A large array is copied in one go, and the buffer grows to exactly its size; the few
        // bytes after it (headers, the stream's trailer) would then reallocate and copy the whole
        // buffer. Room for them is reserved with the array.
        out.reserve(elems.len() * size as usize + HEADROOM);
    }
    if S::ARRAY {
        K::write_slice(elems, out);
    } else {
        // One element: its fixed-size write inlines, where a bulk copy of a slice whose length is
        // only known at run time costs a `memcpy` call.
        elems.iter().for_each(|elem| write_elem_with::<K, _>(elem, out));
    }
    match K::STATIC_SIZE {
        Some(size) if out.len() - start != size as usize * elems.len() => Err(FieldError::SizeMismatch {
            type_name: std::any::type_name::<S::Elem>(),
            declared: size,
            written: (out.len() - start) / elems.len().max(1),
        }),
        _ => Ok(elems.len()),
    }
}

/// Access to a plain field's values in their wire form.
pub trait PlainAccess: ErasedElems {
    /// Codec facts about the element type.
    fn info(&self) -> PlainInfo;

    /// Appends the element type's signature (see [`PlainType::signature`](crate::plain::PlainType::signature)).
    fn signature(&self, out: &mut Vec<u32>);

    /// Appends every element in element form (see [`crate::plain::write_elem`]); arrays of
    /// plain-old-data go out in one bulk copy. Returns the element count.
    fn write(&self, owner: &dyn Any, out: &mut Vec<u8>) -> Result<usize, FieldError>;

    /// Reads `count` elements (1 for a single field) and stores them in the field. The count is
    /// checked against the bytes left before anything is allocated.
    fn read(&self, owner: &mut dyn Any, count: usize, reader: &mut Reader<'_>) -> Result<(), FieldError>;

    /// Whether the field writes the same elements in `a` and `b` (two owners of its type), when
    /// that can be told without writing them (see [`PlainType::same`](crate::plain::PlainType::same));
    /// `Ok(None)`, the default, leaves the caller to compare what [`write`](PlainAccess::write)
    /// appends for each.
    fn same(&self, a: &dyn Any, b: &dyn Any) -> Result<Option<bool>, FieldError> {
        let _ = (a, b);
        Ok(None)
    }
}

impl<O, C, S, K> PlainAccess for FieldImpl<O, C, S, K>
where
    O: 'static,
    C: 'static,
    S: Shape<C>,
    K: PlainCodec<S::Elem>,
    Self: Send + Sync,
{
    fn info(&self) -> PlainInfo {
        PlainInfo { type_id: K::TYPE_ID, static_size: K::STATIC_SIZE }
    }

    fn signature(&self, out: &mut Vec<u32>) {
        K::signature(out)
    }

    fn write(&self, owner: &dyn Any, out: &mut Vec<u8>) -> Result<usize, FieldError> {
        self.access.try_with(owner_ref::<O>(owner)?, |container| write_plain::<C, S, K>(container, out))
    }

    fn read(&self, owner: &mut dyn Any, count: usize, reader: &mut Reader<'_>) -> Result<(), FieldError> {
        let owner = owner_mut::<O>(owner)?;
        let elems = read_plain::<S::Elem, K>(S::ARRAY, count, reader)?;
        self.access.try_modify(owner, |container| elems.store::<C, S>(container))
    }

    #[inline]
    fn same(&self, a: &dyn Any, b: &dyn Any) -> Result<Option<bool>, FieldError> {
        let (a, b) = (owner_ref::<O>(a)?, owner_ref::<O>(b)?);
        self.access.try_with(a, |a| self.access.with(b, |b| same_plains::<C, S, K>(a, b)))
    }
}
