//! [`RuntimeObject`]: an instance of a type defined at run time.

use crate::field::{Accessor, FieldError};
use crate::rtti::{Reflectable, RttiType, RttiTypeBuilder};
use std::any::Any;
use std::sync::{Arc, OnceLock};

use super::reserved::RUNTIME_OBJECT_TYPE_ID;

/// An object of a type defined at run time (see [`TypeDescription`](crate::runtime::TypeDescription)):
/// one storage slot per field of its own type, and the embedded base object when the type has a
/// base. It is a [`Reflectable`] like any Rust object: its descriptor lists its fields, which are
/// read and written through [`RttiField`](crate::field::RttiField) as for derived types, it goes
/// into `Box<dyn Reflectable>` and `Rc<RefCell<dyn Reflectable>>` fields, and the serializer saves
/// and loads it with the rest of a graph.
///
/// ```
/// use reflectable::runtime::{FieldDescription, PlainSlot, TypeDescription};
/// use reflectable::Registry;
///
/// let spinner = TypeDescription::new(9400, "Spinner")
///     .field(FieldDescription::plain(1, "speed", PlainSlot::of::<f32>()))
///     .define()
///     .unwrap();
/// let mut registry = Registry::new();
/// registry.register(spinner).unwrap();
///
/// let mut object = registry.create_by_name("Spinner").unwrap();
/// let speed = object.rtti().field_by_name("speed").unwrap();
/// speed.set(&mut *object, 2.5f32).unwrap();
/// assert_eq!(speed.get::<f32>(&*object).unwrap(), 2.5);
/// ```
pub struct RuntimeObject {
    rtti: &'static RttiType,
    /// For an enum, the ID of the variant held (whose fields `slots` holds); 0 otherwise.
    variant: u32,
    slots: Box<[Box<dyn Any>]>,
    base: Option<Box<dyn Reflectable>>,
}

impl std::fmt::Debug for RuntimeObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeObject")
            .field("type", &self.rtti.name())
            .field("id", &self.rtti.id())
            .field("variant", &self.variant)
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl RuntimeObject {
    pub(crate) fn new(
        rtti: &'static RttiType,
        variant: u32,
        slots: Box<[Box<dyn Any>]>,
        base: Option<Box<dyn Reflectable>>,
    ) -> Self {
        RuntimeObject { rtti, variant, slots, base }
    }

    /// For an object of an enum type, the ID of the variant it holds; 0 otherwise.
    pub(crate) fn variant_id(&self) -> u32 {
        self.variant
    }

    /// A fresh object of `rtti`; `None` when `rtti` is not a type defined at run time.
    pub fn create(rtti: &RttiType) -> Option<RuntimeObject> {
        rtti.create()?.downcast_box::<RuntimeObject>().ok().map(|object| *object)
    }

    /// The embedded base object, for a type with a base.
    pub fn base(&self) -> Option<&dyn Reflectable> {
        self.base.as_deref()
    }

    /// The embedded base object, mutably.
    pub fn base_mut(&mut self) -> Option<&mut dyn Reflectable> {
        self.base.as_deref_mut()
    }

    /// A clone of the single field `name` (of this type, the variant it holds, or a base; else
    /// a field a compiled base keeps for a newer build), typed: what
    /// [`RttiField::get`](crate::field::RttiField::get) gives, found by name along the chain.
    pub fn get<T: Any + Clone>(&self, name: &str) -> Result<T, FieldError> {
        match super::visit::slot_by_name(self, name) {
            Some(slot) => slot.field.get(slot.owner),
            None => Err(self.no_such_field(name)),
        }
    }

    /// Sets the single field `name`, found as [`get`](Self::get) finds it.
    pub fn set<T: Any>(&mut self, name: &str, value: T) -> Result<(), FieldError> {
        let rtti = self.rtti;
        match super::visit::slot_by_name_mut(self, name) {
            Some(slot) => slot.field.set(slot.owner, value),
            None => Err(FieldError::NoSuchField { field: name.to_owned(), type_name: rtti.name().to_owned() }),
        }
    }

    #[cold]
    fn no_such_field(&self, name: &str) -> FieldError {
        FieldError::NoSuchField { field: name.to_owned(), type_name: self.rtti.name().to_owned() }
    }

    /// `true` when this object is of the type `owner` holds: the one guard before any slot or
    /// base is reached.
    fn is_of(&self, owner: &OnceLock<&'static RttiType>) -> bool {
        owner.get().is_some_and(|owner| std::ptr::eq(self.rtti, *owner))
    }

    /// Whether slot `at` is laid out in this object: it is of the slot's type and, for a
    /// variant's slot, holds that variant.
    fn check(&self, at: &SlotAt) -> Result<(), FieldError> {
        if !self.is_of(&at.owner) {
            return Err(FieldError::wrong_owner::<Self>());
        }
        match at.variant {
            Some(variant) if variant != self.variant => Err(FieldError::inactive_variant()),
            _ => Ok(()),
        }
    }

    /// Slot `at` as a `C`.
    pub(crate) fn slot<C: 'static>(&self, at: &SlotAt) -> Result<&C, FieldError> {
        self.check(at)?;
        self.slots.get(at.index).and_then(|slot| slot.downcast_ref()).ok_or_else(FieldError::wrong_owner::<Self>)
    }

    /// Slot `at` as a `C`, mutably.
    pub(crate) fn slot_mut<C: 'static>(&mut self, at: &SlotAt) -> Result<&mut C, FieldError> {
        self.check(at)?;
        self.slots.get_mut(at.index).and_then(|slot| slot.downcast_mut()).ok_or_else(FieldError::wrong_owner::<Self>)
    }
}

/// The descriptor a type is being defined with, set once it exists: fields check that an object
/// is of their type before they reach into its slots (two runtime types share the Rust type
/// `RuntimeObject`, so the owner check every field makes cannot tell them apart).
pub(crate) type Owner = Arc<OnceLock<&'static RttiType>>;

/// Where a field's value lives in the objects of a type defined at run time: slot `index` of
/// objects of `owner`'s type, of those holding `variant` for a field of an enum's variant.
#[derive(Clone)]
pub(crate) struct SlotAt {
    pub(crate) owner: Owner,
    pub(crate) variant: Option<u32>,
    pub(crate) index: usize,
}

/// The accessor of the slot `at`.
pub(crate) fn slot_accessor<C: 'static>(at: SlotAt) -> Accessor<RuntimeObject, C> {
    let at_mut = at.clone();
    Accessor::Slot {
        get: Box::new(move |object: &RuntimeObject| object.slot(&at)),
        get_mut: Box::new(move |object: &mut RuntimeObject| object.slot_mut(&at_mut)),
    }
}

/// The base object of an object of `owner`'s type.
pub(crate) fn base_of<'a>(
    object: &'a RuntimeObject,
    owner: &OnceLock<&'static RttiType>,
) -> Option<&'a dyn Reflectable> {
    object.is_of(owner).then_some(object.base.as_deref())?
}

/// Mutable [`base_of`].
pub(crate) fn base_of_mut<'a>(
    object: &'a mut RuntimeObject,
    owner: &OnceLock<&'static RttiType>,
) -> Option<&'a mut dyn Reflectable> {
    match object.is_of(owner) {
        true => object.base.as_deref_mut(),
        false => None,
    }
}

impl Reflectable for RuntimeObject {
    fn rtti(&self) -> &'static RttiType {
        self.rtti
    }

    /// A placeholder: an abstract type named `RuntimeObject` that is never registered or written.
    /// Runtime objects go into fields declared `dyn Reflectable`; each one's own descriptor is
    /// [`rtti`](Reflectable::rtti).
    fn rtti_static() -> &'static RttiType {
        static RTTI: once_cell::sync::Lazy<RttiType> = once_cell::sync::Lazy::new(|| {
            RttiTypeBuilder::<RuntimeObject>::built_in(RUNTIME_OBJECT_TYPE_ID, "RuntimeObject")
                .build()
                .expect("a type without fields is valid")
        });
        &RTTI
    }
}
