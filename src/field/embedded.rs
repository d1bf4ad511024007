//! Embedded fields: another reflectable object stored by value inside its owner, possibly polymorphic
//! (`Box<dyn Reflectable>`, `Box<dyn UserTrait>`) or optional.

use super::elems::embedded_elems;
use super::{elem_at, elem_at_mut, owner_mut, owner_ref, Declared, ErasedElems, FieldError, FieldImpl, Shape};
use crate::rtti::{Reflectable, Registry};
use std::any::{Any, TypeId};

/// A type that can hold one embedded object (a reflectable object stored by value).
///
/// Implemented for every `T: Reflectable`, for `Box<dyn Reflectable>`, for `Option` of any slot,
/// and, through [`reflect_trait!`](crate::reflect_trait), for `Box<dyn UserTrait>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be stored as an embedded object",
    label = "`{Self}` does not implement `EmbeddedSlot`",
    note = "an embedded field holds a `#[derive(Reflectable)]` struct, a `Box` of one, `Box<dyn Reflectable>`, `Box<dyn YourTrait>`, or an `Option` of these",
    note = "for `Box<dyn YourTrait>`, call `reflect_trait!(YourTrait)` once, next to the trait; for a struct, add `#[derive(Reflectable)]` to it; a value type is a plain field instead: `#[derive(PlainType)]` on the type, no `embedded` on the field"
)]
pub trait EmbeddedSlot: 'static + Sized {
    /// What the slot declares it holds.
    fn declared() -> Declared;
    /// The held object (`None` for an empty `Option`).
    fn value(&self) -> Option<&dyn Reflectable>;
    /// The held object, mutably.
    fn value_mut(&mut self) -> Option<&mut dyn Reflectable>;
    /// A slot holding `object` (`None` = empty). `None` when the object's type does not fit;
    /// `registry` casts it to a trait object.
    fn from_object(object: Option<Box<dyn Reflectable>>, registry: &Registry) -> Option<Self>;
    /// The handle a decoder casts an object into to fill this slot (`Box<dyn UserTrait>`), for
    /// slots of a user trait: the encoder refuses objects it could not cast back. `None` for
    /// concrete types and `dyn Reflectable`, which take any object they are given.
    fn trait_target() -> Option<TypeId> {
        None
    }
}

impl<T: Reflectable> EmbeddedSlot for T {
    fn declared() -> Declared {
        Declared::Type(T::rtti_static)
    }
    fn value(&self) -> Option<&dyn Reflectable> {
        Some(self)
    }
    fn value_mut(&mut self) -> Option<&mut dyn Reflectable> {
        Some(self)
    }
    fn from_object(object: Option<Box<dyn Reflectable>>, _: &Registry) -> Option<Self> {
        let any: Box<dyn Any> = object?;
        any.downcast::<T>().ok().map(|boxed| *boxed)
    }
}

impl<T: EmbeddedSlot> EmbeddedSlot for Option<T> {
    fn declared() -> Declared {
        T::declared()
    }
    fn value(&self) -> Option<&dyn Reflectable> {
        self.as_ref().and_then(T::value)
    }
    fn value_mut(&mut self) -> Option<&mut dyn Reflectable> {
        self.as_mut().and_then(T::value_mut)
    }
    fn from_object(object: Option<Box<dyn Reflectable>>, registry: &Registry) -> Option<Self> {
        match object {
            None => Some(None),
            object => T::from_object(object, registry).map(Some),
        }
    }
    fn trait_target() -> Option<TypeId> {
        T::trait_target()
    }
}

impl EmbeddedSlot for Box<dyn Reflectable> {
    fn declared() -> Declared {
        Declared::Trait("Reflectable")
    }
    fn value(&self) -> Option<&dyn Reflectable> {
        Some(&**self)
    }
    fn value_mut(&mut self) -> Option<&mut dyn Reflectable> {
        Some(&mut **self)
    }
    fn from_object(object: Option<Box<dyn Reflectable>>, _: &Registry) -> Option<Self> {
        object
    }
}

/// The [`EmbeddedSlot::from_object`] of `Box<dyn UserTrait>`: finds the cast `registry` knows for
/// the object's concrete type. Used by [`reflect_trait!`](crate::reflect_trait).
pub fn boxed_trait_object<B: 'static>(object: Option<Box<dyn Reflectable>>, registry: &Registry) -> Option<B> {
    let object = object?;
    let concrete = <dyn Any>::type_id(&*object as &dyn Any);
    let cast = registry.casts().find(concrete, TypeId::of::<B>())?;
    let mut out: Option<B> = None;
    cast.boxed(object, &mut out);
    out
}

/// Access to an embedded field.
pub trait EmbeddedAccess: ErasedElems {
    /// What the elements are declared to be.
    fn declared(&self) -> Declared;
    /// Runs `f` on element `index`.
    fn with_value(
        &self,
        owner: &dyn Any,
        index: usize,
        f: &mut dyn FnMut(Option<&dyn Reflectable>),
    ) -> Result<(), FieldError>;
    /// Runs `f` on element `index`, mutably.
    fn with_value_mut(
        &self,
        owner: &mut dyn Any,
        index: usize,
        f: &mut dyn FnMut(Option<&mut dyn Reflectable>),
    ) -> Result<(), FieldError>;
    /// Runs `f` on every element in order (one accessor call for the whole field).
    fn for_each(&self, owner: &dyn Any, f: &mut dyn FnMut(Option<&dyn Reflectable>)) -> Result<(), FieldError>;
    /// Replaces the elements with `objects`. An object whose type the slot cannot hold becomes
    /// empty where the slot is optional and is dropped otherwise; a single field left without a
    /// value keeps the one it had. `registry` casts objects to trait objects. Returns how many
    /// objects could not be held.
    fn store(
        &self,
        owner: &mut dyn Any,
        objects: Vec<Option<Box<dyn Reflectable>>>,
        registry: &Registry,
    ) -> Result<usize, FieldError>;
    /// [`EmbeddedSlot::trait_target`] of the elements.
    fn trait_target(&self) -> Option<TypeId>;
}

impl<O, C, S> EmbeddedAccess for FieldImpl<O, C, S>
where
    O: 'static,
    C: 'static,
    S: Shape<C>,
    S::Elem: EmbeddedSlot,
    Self: Send + Sync,
{
    fn declared(&self) -> Declared {
        S::Elem::declared()
    }

    fn trait_target(&self) -> Option<TypeId> {
        S::Elem::trait_target()
    }

    fn with_value(
        &self,
        owner: &dyn Any,
        index: usize,
        f: &mut dyn FnMut(Option<&dyn Reflectable>),
    ) -> Result<(), FieldError> {
        self.access.try_with(owner_ref::<O>(owner)?, |container| {
            f(elem_at(S::as_slice(container), index)?.value());
            Ok(())
        })
    }

    fn with_value_mut(
        &self,
        owner: &mut dyn Any,
        index: usize,
        f: &mut dyn FnMut(Option<&mut dyn Reflectable>),
    ) -> Result<(), FieldError> {
        self.access.try_modify(owner_mut::<O>(owner)?, |container| {
            f(elem_at_mut(S::as_mut_slice(container), index)?.value_mut());
            Ok(())
        })
    }

    fn for_each(&self, owner: &dyn Any, f: &mut dyn FnMut(Option<&dyn Reflectable>)) -> Result<(), FieldError> {
        let owner = owner_ref::<O>(owner)?;
        self.access.with(owner, |container| S::as_slice(container).iter().for_each(|elem| f(elem.value())))
    }

    fn store(
        &self,
        owner: &mut dyn Any,
        objects: Vec<Option<Box<dyn Reflectable>>>,
        registry: &Registry,
    ) -> Result<usize, FieldError> {
        let owner = owner_mut::<O>(owner)?;
        let (elems, refused) = embedded_elems::<S::Elem>(S::ARRAY, objects, registry);
        if elems.changes() {
            self.access.try_modify(owner, |container| elems.store::<C, S>(container))?;
        }
        Ok(refused)
    }
}
