//! The operations every field supports whatever its kind ([`ErasedElems`]), and the one field
//! implementation ([`FieldImpl`]) the kind files (`plain.rs`, `embedded.rs`, `pointer.rs`) add
//! their kind's access to.
//!
//! Owners arrive as `&dyn Any` (an upcast `&dyn Reflectable`) and are downcast once per call; an
//! owner of another type is [`FieldError::WrongOwner`], a value of another type
//! [`FieldError::WrongType`]: errors, never sentinels.

use super::{Accessor, FieldError, Shape};
use crate::plain::Native;
use std::any::{Any, TypeId};
use std::marker::PhantomData;

/// The operations every field supports, whatever its kind.
pub trait ErasedElems: Send + Sync {
    /// `TypeId` of the owning type.
    fn owner_type(&self) -> TypeId;
    /// Rust name of the owning type.
    fn owner_type_name(&self) -> &'static str;
    /// Rust name of one element type.
    fn elem_type_name(&self) -> &'static str;
    /// `size_of` one element: what each element of an array takes in its container.
    fn elem_size(&self) -> usize;
    /// `true` for array forms.
    fn is_array(&self) -> bool;
    /// `true` for a getter/setter field.
    fn is_computed(&self) -> bool;
    /// Number of elements (1 for a single value).
    fn len(&self, owner: &dyn Any) -> Result<usize, FieldError>;
    /// Changes the number of elements.
    fn resize(&self, owner: &mut dyn Any, len: usize) -> Result<(), FieldError>;
    /// Runs `f` on element `index` as `&dyn Any`.
    fn with_elem(&self, owner: &dyn Any, index: usize, f: &mut dyn FnMut(&dyn Any)) -> Result<(), FieldError>;
    /// Moves the value out of `value` (a `&mut Option<Elem>`) into element `index`.
    fn set_elem(&self, owner: &mut dyn Any, index: usize, value: &mut dyn Any) -> Result<(), FieldError>;
}

/// Element `index` of `elems`, or [`FieldError::OutOfRange`].
#[inline]
pub(crate) fn elem_at<E>(elems: &[E], index: usize) -> Result<&E, FieldError> {
    elems.get(index).ok_or(FieldError::OutOfRange { index, len: elems.len() })
}

/// Mutable [`elem_at`].
#[inline]
pub(crate) fn elem_at_mut<E>(elems: &mut [E], index: usize) -> Result<&mut E, FieldError> {
    let len = elems.len();
    elems.get_mut(index).ok_or(FieldError::OutOfRange { index, len })
}

/// The owner as an `O`, or [`FieldError::WrongOwner`].
#[inline]
pub(crate) fn owner_ref<O: 'static>(owner: &dyn Any) -> Result<&O, FieldError> {
    owner.downcast_ref::<O>().ok_or_else(FieldError::wrong_owner::<O>)
}

/// Mutable [`owner_ref`].
#[inline]
pub(crate) fn owner_mut<O: 'static>(owner: &mut dyn Any) -> Result<&mut O, FieldError> {
    owner.downcast_mut::<O>().ok_or_else(FieldError::wrong_owner::<O>)
}

/// The field implementation shared by all kinds: an accessor, a shape and an optional default
/// element for growing arrays. The kind-specific traits are implemented for it in the kind files.
/// `K` is the [`PlainCodec`](crate::plain::PlainCodec) of a plain field's elements: their own
/// `PlainType` ([`Native`]) unless the field names another (`with = Codec`); other kinds ignore it.
pub struct FieldImpl<O, C, S: Shape<C>, K = Native> {
    pub(crate) access: Accessor<O, C>,
    pub(crate) fill: Option<fn() -> S::Elem>,
    codec: PhantomData<fn() -> K>,
}

impl<O, C, S: Shape<C>, K> FieldImpl<O, C, S, K> {
    /// A field implementation; `fill` makes new elements when an array grows.
    pub fn new(access: Accessor<O, C>, fill: Option<fn() -> S::Elem>) -> Self {
        FieldImpl { access, fill, codec: PhantomData }
    }
}

impl<O: 'static, C: 'static, S: Shape<C>, K: 'static> ErasedElems for FieldImpl<O, C, S, K>
where
    Self: Send + Sync,
{
    fn owner_type(&self) -> TypeId {
        TypeId::of::<O>()
    }
    fn owner_type_name(&self) -> &'static str {
        std::any::type_name::<O>()
    }
    fn elem_type_name(&self) -> &'static str {
        std::any::type_name::<S::Elem>()
    }
    fn elem_size(&self) -> usize {
        std::mem::size_of::<S::Elem>()
    }
    fn is_array(&self) -> bool {
        S::ARRAY
    }
    fn is_computed(&self) -> bool {
        self.access.is_computed()
    }
    fn len(&self, owner: &dyn Any) -> Result<usize, FieldError> {
        self.access.with(owner_ref::<O>(owner)?, |c| S::as_slice(c).len())
    }
    fn resize(&self, owner: &mut dyn Any, len: usize) -> Result<(), FieldError> {
        let owner = owner_mut::<O>(owner)?;
        match self.fill {
            Some(fill) => self.access.try_modify(owner, |c| S::resize(c, len, fill)),
            None => {
                let current = self.access.with(owner, |c| S::as_slice(c).len())?;
                if current == len {
                    Ok(())
                } else if S::ARRAY {
                    Err(FieldError::NoDefault)
                } else {
                    Err(FieldError::FixedLength { expected: 1, got: len })
                }
            }
        }
    }
    fn with_elem(&self, owner: &dyn Any, index: usize, f: &mut dyn FnMut(&dyn Any)) -> Result<(), FieldError> {
        self.access.try_with(owner_ref::<O>(owner)?, |c| {
            f(elem_at(S::as_slice(c), index)?);
            Ok(())
        })
    }
    fn set_elem(&self, owner: &mut dyn Any, index: usize, value: &mut dyn Any) -> Result<(), FieldError> {
        let owner = owner_mut::<O>(owner)?;
        let value = value.downcast_mut::<Option<S::Elem>>().ok_or_else(FieldError::wrong_type::<S::Elem>)?;
        self.access.try_modify(owner, |c| {
            let slot = elem_at_mut(S::as_mut_slice(c), index)?;
            if let Some(value) = value.take() {
                *slot = value;
            }
            Ok(())
        })
    }
}
