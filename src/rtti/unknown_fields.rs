//! Fields of a known type that the running program lacks, kept through load and save: a newer
//! build wrote them, an older build that declares an [`UnknownFields`] member keeps them and
//! writes them back, so the newer build finds them again.

use super::runtime_object::RuntimeObject;
use super::{Reflectable, RttiType};
use crate::field::RttiField;
use std::any::Any;
use std::fmt;

/// The stored fields of an object that its type does not declare, kept by a decode and written
/// back by the next save.
///
/// Declare one as a member with `#[rtti(unknown)]` (or
/// [`RttiTypeBuilder::unknown_fields`](crate::RttiTypeBuilder::unknown_fields)). When a stream
/// describes the type with fields the running type lacks (a newer build added them), the decoder
/// keeps them here instead of skipping them; the encoder writes them back in the object's section
/// and describes them in the type's schema entry, exactly as they were stored. Plain values keep
/// their stored type (or bytes, for a plain type the program lacks), pointers keep the identity of
/// their targets in the graph, embedded objects come back as objects.
///
/// Only a stream that describes its types (format version 3, the default) says enough to keep
/// a field; from older streams, unknown fields are skipped and reported as before. Fields of a
/// type's base are kept by the base's own member. A field the running type has, retyped beyond
/// conversion, is skipped and reported, never kept beside it.
///
/// ```
/// use reflectable::serializer::BinarySerializer;
/// use reflectable::{Reflectable, Registry, UnknownFields};
///
/// mod newer {
///     use reflectable::Reflectable;
///     #[derive(Reflectable, Default)]
///     #[rtti(id = 9510, name = "Lamp", no_register)]
///     pub struct Lamp {
///         #[rtti(id = 1)]
///         pub on: bool,
///         #[rtti(id = 2)]
///         pub hue: f32, // the older build does not have it
///     }
/// }
///
/// #[derive(Reflectable, Default, Debug)]
/// #[rtti(id = 9510, name = "Lamp", no_register)]
/// struct Lamp {
///     #[rtti(id = 1)]
///     on: bool,
///     #[rtti(unknown)]
///     kept: UnknownFields,
/// }
///
/// let (mut old, mut new) = (Registry::new(), Registry::new());
/// old.register_type::<Lamp>().unwrap();
/// new.register_type::<newer::Lamp>().unwrap();
///
/// let (older, newer) = (BinarySerializer::with_registry(&old), BinarySerializer::with_registry(&new));
/// let bytes = newer.encode(&newer::Lamp { on: true, hue: 0.25 }).unwrap();
/// let (mut lamp, report) = older.decode_with_report::<Lamp>(&bytes).unwrap();
/// assert!(report.is_empty()); // nothing dropped
/// assert_eq!(lamp.kept.object().unwrap().get::<f32>("hue"), Ok(0.25));
///
/// lamp.on = false; // the older build edits what it knows, and saves
/// let saved = older.encode(&lamp).unwrap();
/// let (lamp, report) = newer.decode_with_report::<newer::Lamp>(&saved).unwrap();
/// assert!(report.is_empty());
/// assert_eq!((lamp.on, lamp.hue), (false, 0.25));
/// ```
///
/// Not `Clone` or `PartialEq`: kept objects are `dyn Reflectable` values, which have neither.
#[derive(Default)]
pub struct UnknownFields {
    kept: Option<Kept>,
}

struct Kept {
    /// The set of kept fields (`runtime::KeptFields`: what the type model needs of it is `rtti`).
    fields: &'static (dyn Any + Send + Sync),
    /// The runtime type the kept fields make up.
    rtti: &'static RttiType,
    object: RuntimeObject,
}

impl UnknownFields {
    /// No kept fields.
    pub const fn new() -> Self {
        UnknownFields { kept: None }
    }

    /// `true` when no fields are kept.
    pub fn is_empty(&self) -> bool {
        self.kept.is_none()
    }

    /// The kept fields, described as their stream described them.
    pub fn fields(&self) -> &'static [RttiField] {
        self.kept.as_ref().map_or(&[], |kept| kept.rtti.fields())
    }

    /// The kept fields as one object of a runtime type that declares them: read them (and
    /// change them) through RTTI, like any object's.
    pub fn object(&self) -> Option<&RuntimeObject> {
        self.kept.as_ref().map(|kept| &kept.object)
    }

    /// The kept fields as one object, mutably.
    pub fn object_mut(&mut self) -> Option<&mut RuntimeObject> {
        self.kept.as_mut().map(|kept| &mut kept.object)
    }

    /// Forgets the kept fields: the next save writes only what the type declares.
    pub fn clear(&mut self) {
        self.kept = None;
    }

    /// The kept set and its values, for the encoder.
    /// The kept field set (as `runtime` made it) and the object holding their values.
    pub(crate) fn kept_set(&self) -> Option<(&'static (dyn Any + Send + Sync), &RuntimeObject)> {
        self.kept.as_ref().map(|kept| (kept.fields, &kept.object))
    }

    /// Keeps `object`, whose type `rtti` the field set `fields` makes up.
    pub(crate) fn set_kept_set(
        &mut self,
        fields: &'static (dyn Any + Send + Sync),
        rtti: &'static RttiType,
        object: RuntimeObject,
    ) {
        self.kept = Some(Kept { fields, rtti, object });
    }

    /// The object holding the values of field set `fields` (of type `rtti`), made empty first
    /// when another set (or none) is kept.
    pub(crate) fn object_for_set(
        &mut self,
        fields: &'static (dyn Any + Send + Sync),
        rtti: &'static RttiType,
    ) -> &mut RuntimeObject {
        if !self.kept.as_ref().is_some_and(|kept| std::ptr::addr_eq(kept.fields, fields)) {
            let object = RuntimeObject::create(rtti).expect("a kept field set is a concrete type");
            self.kept = Some(Kept { fields, rtti, object });
        }
        &mut self.kept.as_mut().expect("just set").object
    }
}

impl fmt::Debug for UnknownFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_map();
        if let Some(kept) = &self.kept {
            for field in kept.rtti.fields() {
                let length = field.len(&kept.object as &dyn Reflectable).ok();
                list.entry(&format_args!("{} (id {})", field.name(), field.id()), &Length(length, field.is_array()));
            }
        }
        list.finish()
    }
}

/// How `Debug` shows a kept field: its kind of content, not its value (values are any type).
struct Length(Option<usize>, bool);

impl fmt::Debug for Length {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Length(Some(length), true) => write!(f, "[{length} elements]"),
            _ => f.write_str(".."),
        }
    }
}
