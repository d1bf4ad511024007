//! Types kept from a stream: when a decoder meets an object whose type the program lacks, and the
//! stream's schema table describes that type, the type is defined from its stored schema and the
//! object loads as a [`RuntimeObject`](super::RuntimeObject) instead of being dropped. Saved
//! again, it writes the same fields and the same schema entry, so a newer program reading the
//! file finds its objects intact.

use super::{FieldDescription, PlainSlot, TypeDescription, VariantDescription};
use crate::containers::{LIST_ITEMS_FIELD_ID, LIST_TYPE_ID, MAP_KEYS_FIELD_ID, MAP_TYPE_ID, MAP_VALUES_FIELD_ID};
use crate::field::WireKind;
use crate::rtti::{Registry, RttiType, RttiTypeBuilder};
use crate::schema::table::schema_entry;
use crate::schema::{FieldSchema, TypeSchema};
use ahash::AHashMap;
use once_cell::sync::Lazy;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// How many distinct stored types (and sets of unknown fields) a process keeps. Descriptors live as long as the program, so
/// streams describing ever new types (hostile ones) must not grow memory without end: past this
/// many, objects of further unknown types are dropped and reported, as without keeping.
pub const MAX_KEPT_TYPES: usize = 4096;

/// How long a chain of unknown bases a kept type may have.
const MAX_KEPT_CHAIN: usize = 64;

/// How many kept types and kept field sets the process has defined (each is leaked).
static DEFINED: AtomicUsize = AtomicUsize::new(0);

/// A kept type's schema entry, and the address of its base's descriptor (0 without a base).
type KeptKey = (Box<[u8]>, usize);

/// Kept types by their schema entry and base: the same stored type is defined once per process.
static KEPT: Lazy<Mutex<AHashMap<KeptKey, &'static RttiType>>> = Lazy::new(Default::default);

/// The descriptor of type `type_id` as `stored` (the stream's schema table) describes it, for a
/// type `registry` lacks; `None` when the stream does not describe it, or its chain is too long,
/// or the process keeps [`MAX_KEPT_TYPES`] already. A stored abstract type is kept as a concrete
/// one: its section of a kept object needs a value like any other. That holds for an abstract
/// base the program has too (it cannot build one): the section is a kept copy of the stored
/// type, of the same ID, so a save describes that ID once when the program's type still agrees
/// with the stream, and refuses ([`EncodeError::TypeIdClash`](crate::serializer::EncodeError))
/// when it does not.
pub(crate) fn kept_type(
    type_id: u32,
    stored: &dyn Fn(u32) -> Option<TypeSchema>,
    registry: &Registry,
) -> Option<&'static RttiType> {
    define(type_id, stored, registry, 0)
}

fn define(
    type_id: u32,
    stored: &dyn Fn(u32) -> Option<TypeSchema>,
    registry: &Registry,
    depth: usize,
) -> Option<&'static RttiType> {
    if depth > MAX_KEPT_CHAIN {
        return None;
    }
    let schema = stored(type_id)?;
    let base = match schema.base {
        None => None,
        Some(base) => match registry.get(base) {
            Some(known) if !known.is_abstract() => Some(known),
            _ => Some(define(base, stored, registry, depth + 1)?),
        },
    };
    let entry = schema_entry(&schema);
    let key = (entry.into_boxed_slice(), base.map_or(0, |base| base as *const RttiType as usize));
    let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(rtti) = kept.get(&key) {
        return Some(rtti);
    }
    if DEFINED.load(Ordering::Relaxed) >= MAX_KEPT_TYPES {
        return None;
    }
    let mut description = TypeDescription::new(schema.id, schema.name.clone());
    if let Some(base) = base {
        description = description.base(base);
    }
    for field in &schema.fields {
        description = description.field(field_description(field));
    }
    if let Some(identity) = schema.fields.iter().find(|field| field.identity) {
        description = description.identity(identity.id);
    }
    for variant in &schema.variants {
        let kept = VariantDescription::new(variant.id, variant.name.clone());
        description =
            description.variant(variant.fields.iter().fold(kept, |v, field| v.field(field_description(field))));
    }
    let rtti = description.define().ok()?;
    // The stored entry, not one computed from the kept fields (which declare any type where the
    // writer declared its own): what is saved describes the type as its program does.
    let cache = rtti.schema_cache();
    let _ = cache.table_entry.set(key.0.clone());
    let _ = cache.fingerprint.set(schema.fingerprint);
    kept.insert(key, rtti);
    DEFINED.fetch_add(1, Ordering::Relaxed);
    Some(rtti)
}

/// A kept field's description, from its stored schema: plain values of a type the program has
/// are read as that type, others kept as their bytes; objects and pointers accept any type.
fn field_description(field: &FieldSchema) -> FieldDescription {
    let (id, name) = (field.id, field.name.clone());
    let described = match field.shape.kind {
        WireKind::Plain(size) => match PlainSlot::with_signature(&field.signature) {
            Some(slot) => FieldDescription::plain(id, name, slot),
            None => FieldDescription::raw_plain(id, name, field.signature.clone(), size.map(u32::from)),
        },
        WireKind::Embedded => FieldDescription::embedded(id, name),
        WireKind::Pointer if field.weak => FieldDescription::weak(id, name),
        WireKind::Pointer => FieldDescription::pointer(id, name),
    };
    if field.shape.array {
        described.array()
    } else {
        described
    }
}

/// The fields of one stored type that its running type lacks, kept by an
/// [`UnknownFields`](super::UnknownFields) member: a runtime type holding them, and their stored
/// descriptions, which a save writes into the running type's schema entry.
#[derive(Debug)]
pub(crate) struct KeptFields {
    pub(crate) rtti: &'static RttiType,
    pub(crate) stored: Box<[FieldSchema]>,
}

/// An [`UnknownFields`](super::UnknownFields) member's kept set, typed: the type model keeps it
/// without knowing its type.
impl super::UnknownFields {
    /// The kept field set and the object holding their values.
    pub(crate) fn kept(&self) -> Option<(&'static KeptFields, &super::RuntimeObject)> {
        let (fields, object) = self.kept_set()?;
        Some((fields.downcast_ref::<KeptFields>()?, object))
    }

    /// Keeps `object`, the values of the field set `fields`.
    pub(crate) fn set_kept(&mut self, fields: &'static KeptFields, object: super::RuntimeObject) {
        self.set_kept_set(fields, fields.rtti, object);
    }

    /// The object holding the values of `fields`, made empty first when another set is kept.
    pub(crate) fn object_for(&mut self, fields: &'static KeptFields) -> &mut super::RuntimeObject {
        self.object_for_set(fields, fields.rtti)
    }
}

/// Field sets kept per (stored entry of the set, running type's descriptor address).
static KEPT_FIELDS: Lazy<Mutex<AHashMap<KeptKey, &'static KeptFields>>> = Lazy::new(Default::default);

/// The kept field set of `stored` fields of `owner` (a running type that lacks them), defined
/// once per process; or why not: past [`MAX_KEPT_TYPES`] (counted with the kept types), or fields
/// no type can have (two of one name, say).
pub(crate) fn kept_fields(owner: &'static RttiType, stored: Vec<FieldSchema>) -> Result<&'static KeptFields, String> {
    let schema = TypeSchema {
        id: owner.id(),
        name: format!("{} (unknown fields)", owner.name()),
        base: None,
        is_enum: false,
        is_abstract: false,
        fields: stored,
        variants: Vec::new(),
        fingerprint: 0,
    };
    let entry = schema_entry(&schema);
    let key = (entry.into_boxed_slice(), owner as *const RttiType as usize);
    let mut sets = KEPT_FIELDS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(set) = sets.get(&key) {
        return Ok(set);
    }
    if DEFINED.load(Ordering::Relaxed) >= MAX_KEPT_TYPES {
        return Err(format!("the process keeps {MAX_KEPT_TYPES} sets of kept fields already"));
    }
    let description = schema
        .fields
        .iter()
        .fold(TypeDescription::new(schema.id, schema.name.clone()), |d, field| d.field(field_description(field)));
    let rtti = description.define().map_err(|error| format!("the kept fields cannot be defined: {error}"))?;
    let set: &'static KeptFields = Box::leak(Box::new(KeptFields { rtti, stored: schema.fields.into() }));
    sets.insert(key, set);
    DEFINED.fetch_add(1, Ordering::Relaxed);
    Ok(set)
}

/// What a stored list or map object holds, read from its field headers: the keys' element kind
/// (a map's), and whether its items or values are embedded objects or pointers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ContainerShape {
    pub(crate) type_id: u32,
    pub(crate) keys: Option<WireKind>,
    pub(crate) elems: WireKind,
}

/// Container types kept per shape.
static KEPT_CONTAINERS: Lazy<Mutex<AHashMap<ContainerShape, &'static RttiType>>> = Lazy::new(Default::default);

/// A type for list or map objects of `shape` nested in data this program lacks the types of: the
/// format fixes their layout (`FORMAT.md`, "Containers of objects") and their headers tell the
/// rest, so they load as [`RuntimeObject`](super::RuntimeObject)s with the container's type ID
/// and save back byte for byte. Keys of a type the program cannot know (the stream describes a
/// map's keys only in the field that holds it) are kept as their bytes; pointer values as strong
/// pointers (whether they were `Weak`s is not stored). `None` for another type ID or past
/// [`MAX_KEPT_TYPES`].
pub(crate) fn kept_container(shape: ContainerShape) -> Option<&'static RttiType> {
    let elems = |id, name| match shape.elems {
        WireKind::Embedded => Some(FieldDescription::embedded(id, name).array()),
        WireKind::Pointer => Some(FieldDescription::pointer(id, name).array()),
        WireKind::Plain(_) => None,
    };
    let description = match (shape.type_id, shape.keys) {
        (LIST_TYPE_ID, None) => TypeDescription::new(LIST_TYPE_ID, "List").field(elems(LIST_ITEMS_FIELD_ID, "items")?),
        (MAP_TYPE_ID, Some(WireKind::Plain(size))) => TypeDescription::new(MAP_TYPE_ID, "Map")
            .field(FieldDescription::raw_plain(MAP_KEYS_FIELD_ID, "keys", Vec::new(), size.map(u32::from)).array())
            .field(elems(MAP_VALUES_FIELD_ID, "values")?),
        _ => return None,
    };
    let mut kept = KEPT_CONTAINERS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(rtti) = kept.get(&shape) {
        return Some(rtti);
    }
    if DEFINED.load(Ordering::Relaxed) >= MAX_KEPT_TYPES {
        return None;
    }
    let builder = RttiTypeBuilder::built_in(shape.type_id, description.name().to_owned());
    let rtti = description.define_as(builder).ok()?;
    kept.insert(shape, rtti);
    DEFINED.fetch_add(1, Ordering::Relaxed);
    Some(rtti)
}
