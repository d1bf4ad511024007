//! Decoded elements on their way into a field's container: what the decoder produces for each
//! field kind, stored by one function whether the container is reached through the field's
//! erased access or, in generated code, as a member.

use super::access::Shape;
use super::embedded::EmbeddedSlot;
use super::error::FieldError;
use super::pointer::PointerSlot;
use super::shared_object::SharedObject;
use crate::plain::{min_elem_size_with, read_elem_with, PlainCodec, PlainError, Reader};
use crate::rtti::{Reflectable, Registry};

/// Elements ready to go into a field.
pub(crate) enum Elems<E> {
    /// Nothing for a single field to take: it keeps its value.
    Keep,
    /// A single field's value.
    One(E),
    /// An array field's elements, replacing the ones it had.
    Many(Vec<E>),
}

impl<E> Elems<E> {
    /// `false` for [`Elems::Keep`]: the container need not be reached (a setter not called).
    #[inline(always)]
    pub(crate) fn changes(&self) -> bool {
        !matches!(self, Elems::Keep)
    }

    /// Puts the elements into `container`, of shape `S`.
    #[inline(always)]
    pub(crate) fn store<C, S: Shape<C, Elem = E>>(self, container: &mut C) -> Result<(), FieldError> {
        match self {
            Elems::Keep => Ok(()),
            Elems::One(elem) => {
                if let Some(slot) = S::as_mut_slice(container).first_mut() {
                    *slot = elem;
                }
                Ok(())
            }
            Elems::Many(elems) => S::store(container, elems),
        }
    }
}

/// Reads `count` elements of a plain field (`array` or a single value) through codec `K`,
/// refusing a count the input cannot hold before allocating for it.
#[inline]
pub(crate) fn read_plain<E, K: PlainCodec<E>>(
    array: bool,
    count: usize,
    reader: &mut Reader<'_>,
) -> Result<Elems<E>, FieldError> {
    if count.saturating_mul(min_elem_size_with::<K, E>()) > reader.remaining() {
        return Err(PlainError::LengthTooLarge {
            offset: reader.offset(),
            claimed: count as u64,
            available: reader.remaining(),
        }
        .into());
    }
    if !array && count == 1 {
        return Ok(Elems::One(read_elem_with::<K, E>(reader)?));
    }
    let mut elems = Vec::with_capacity(count);
    K::read_slice(reader, count, &mut elems)?;
    Ok(Elems::Many(elems))
}

/// The slots for decoded objects of an embedded field: an object whose type the slot cannot hold
/// makes an optional slot empty and is dropped otherwise. Also returns how many were refused.
pub(crate) fn embedded_elems<E: EmbeddedSlot>(
    array: bool,
    objects: Vec<Option<Box<dyn Reflectable>>>,
    registry: &Registry,
) -> (Elems<E>, usize) {
    let mut refused = 0;
    let mut convert = |object: Option<Box<dyn Reflectable>>| {
        let present = object.is_some();
        let slot = E::from_object(object, registry);
        refused += usize::from(present && slot.is_none());
        slot.or_else(|| E::from_object(None, registry))
    };
    let elems = match array {
        false => objects.into_iter().next().and_then(&mut convert).map_or(Elems::Keep, Elems::One),
        true => Elems::Many(objects.into_iter().filter_map(&mut convert).collect()),
    };
    (elems, refused)
}

/// The elements of a pointer field pointing at decoded `targets`: a target the element cannot
/// point at (another type, a trait it lacks) is refused, and so is a null the element cannot
/// hold (a bare `Rc`, a `Weak` to a trait object). Also returns how many were refused: an array
/// never closes up over an element it cannot take without saying so.
#[inline]
pub(crate) fn pointer_elems<E: PointerSlot>(
    array: bool,
    targets: &[Option<&SharedObject>],
    registry: &Registry,
) -> (Elems<E>, usize) {
    let mut refused = 0;
    let mut convert = |target: &Option<&SharedObject>| {
        let handle = target.and_then(|target| target.cast_in::<E::Handle>(registry));
        let elem = E::from_handle(handle.as_ref());
        // A single field keeps its value instead of a null it cannot hold: nothing is lost.
        refused += usize::from(if target.is_some() { handle.is_none() } else { array && elem.is_none() });
        elem
    };
    let elems = match array {
        false => targets.first().and_then(&mut convert).map_or(Elems::Keep, Elems::One),
        true => Elems::Many(targets.iter().filter_map(&mut convert).collect()),
    };
    (elems, refused)
}
