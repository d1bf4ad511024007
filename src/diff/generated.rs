//! What `#[derive(Reflectable)]` generates for a diff: per struct, one function that tells whether
//! two objects' plain fields are equal, each compared through its static type (the way
//! [`PlainAccess::same`](crate::field::PlainAccess::same) compares one field through its erased
//! accessor). A diff compares every pair of objects' plain values, usually equal, first: this is
//! its commonest question, answered here without a descriptor walk or a dynamic call per field.
//! The functions below are the one generated code calls, one per builder step of a plain field.

use crate::field::{Container, One, Shape};
use crate::plain::{Native, PlainCodec, PlainType};
use std::any::Any;

/// Whether two objects of a derived struct have equal plain fields (its own, not its base's):
/// `None` when a field's type cannot tell without writing its value out (the caller then
/// compares field by field) or an object is not of the struct.
pub type GeneratedSame = fn(&dyn Any, &dyn Any) -> Option<bool>;

/// The elements of two containers of shape `S`, compared through codec `K`: the one comparison
/// of plain values, for the erased accessors and for generated code.
#[inline(always)]
pub(crate) fn same_plains<C, S: Shape<C>, K: PlainCodec<S::Elem>>(a: &C, b: &C) -> Option<bool> {
    match (S::ARRAY, S::as_slice(a), S::as_slice(b)) {
        (false, [a], [b]) => K::same(a, b),
        (_, a, b) => K::same_slice(a, b),
    }
}

/// A plain member.
#[doc(hidden)]
#[inline(always)]
pub fn same_plain<C: PlainType>(a: &C, b: &C) -> Option<bool> {
    same_plains::<C, One, Native>(a, b)
}

/// A plain array member.
#[doc(hidden)]
#[inline(always)]
pub fn same_plain_array<C: Container>(a: &C, b: &C) -> Option<bool>
where
    C::Elem: PlainType,
{
    same_plains::<C, C::Shape, Native>(a, b)
}

/// A member stored through the codec `K`.
#[doc(hidden)]
#[inline(always)]
pub fn same_plain_with<C: 'static, K: PlainCodec<C>>(a: &C, b: &C) -> Option<bool> {
    same_plains::<C, One, K>(a, b)
}

/// An array member whose elements are stored through the codec `K`.
#[doc(hidden)]
#[inline(always)]
pub fn same_plain_with_array<C: Container, K: PlainCodec<C::Elem>>(a: &C, b: &C) -> Option<bool> {
    same_plains::<C, C::Shape, K>(a, b)
}

/// The two objects as the struct `O`, for generated code.
#[doc(hidden)]
#[inline(always)]
pub fn generated_pair<'a, O: 'static>(a: &'a dyn Any, b: &'a dyn Any) -> Option<(&'a O, &'a O)> {
    Some((a.downcast_ref::<O>()?, b.downcast_ref::<O>()?))
}
