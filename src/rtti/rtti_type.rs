//! [`RttiType`]: the descriptor of one reflectable type.

use super::field_table::FieldTable;
use super::variant::{RttiVariant, Variants};
use super::{Migration, Reflectable, Registry, TypeData};
use crate::field::{ElemShape, Family, RttiField, SharedObject};
use crate::rtti::UnknownFields;
use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// A lifecycle hook: the object and the caller's context.
pub type Hook = Box<dyn Fn(&dyn Any, &mut dyn Any) + Send + Sync>;
/// A lifecycle hook that may change the object (deserialization).
pub type HookMut = Box<dyn Fn(&mut dyn Any, &mut dyn Any) + Send + Sync>;

/// The serialization hooks of a type (Banshee's `onSerializationStarted` and friends). Each gets
/// the object (as `&dyn Any` of the type that registered it) and the context the caller passed
/// to the serializer.
#[derive(Default)]
pub struct Hooks {
    pub(crate) serialization_started: Option<Hook>,
    pub(crate) serialization_ended: Option<Hook>,
    pub(crate) deserialization_started: Option<HookMut>,
    pub(crate) deserialization_ended: Option<HookMut>,
}

/// How a derived type reaches the base object it embeds.
pub(crate) struct BaseLink {
    pub(crate) rtti: BaseRtti,
    pub(crate) get: BaseGetter,
    pub(crate) get_mut: BaseGetterMut,
}

/// The base's descriptor: a Rust type's, reached on first use (its `Lazy` may not be built yet
/// when the derived type is), or one defined at run time, which exists before its derived types.
pub(crate) enum BaseRtti {
    Static(fn() -> &'static RttiType),
    Defined(&'static RttiType),
}

/// How a type reaches its [`UnknownFields`] member (`#[rtti(unknown)]`).
pub(crate) struct UnknownLink {
    pub(crate) get: UnknownGetter,
    pub(crate) get_mut: UnknownGetterMut,
}

type UnknownGetter = Box<dyn Fn(&dyn Any) -> Option<&UnknownFields> + Send + Sync>;
type UnknownGetterMut = Box<dyn Fn(&mut dyn Any) -> Option<&mut UnknownFields> + Send + Sync>;

type BaseGetter = Box<dyn Fn(&dyn Any) -> Option<&dyn Reflectable> + Send + Sync>;
type BaseGetterMut = Box<dyn Fn(&mut dyn Any) -> Option<&mut dyn Reflectable> + Send + Sync>;
/// Makes fresh default instances: boxed, or straight into a shared allocation of a family (no
/// intermediate box to allocate, move out of and free).
pub(crate) struct Constructor {
    pub(crate) boxed: Box<dyn Fn() -> Box<dyn Reflectable> + Send + Sync>,
    pub(crate) shared: Box<dyn Fn(Family) -> SharedObject + Send + Sync>,
}
/// Puts a fresh object into a shared allocation of a family.
pub(crate) type MakeShared = fn(Family, Box<dyn Reflectable>) -> Result<SharedObject, Box<dyn Reflectable>>;

/// [`SharedObject::concrete`] of the type's Rust type.
pub(crate) type Concrete = fn(&SharedObject) -> Option<SharedObject>;

/// Writes a `Weak` to the type's Rust type that points at nothing into `out`, an
/// `Option<Weak<..>>` of one of the five families; leaves any other `out` alone. A generic
/// pointer slot cannot call `Weak::new` (its pointee may be unsized); the descriptor of a sized
/// type can, without making an object.
pub(crate) type NullWeak = fn(&mut dyn Any);

/// The run-time descriptor of a reflectable type: name, numeric ID, base type, fields,
/// constructor and hooks.
///
/// ```
/// use reflectable::{Reflectable, Registry};
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9_981_001)]
/// struct Crate {
///     #[rtti(id = 1)]
///     label: String,
///     #[rtti(id = 2)]
///     weight: f32,
/// }
///
/// let rtti = Crate::rtti_static();
/// assert_eq!((rtti.name(), rtti.id()), ("Crate", 9_981_001));
/// let names: Vec<&str> = rtti.fields().iter().map(|field| field.name()).collect();
/// assert_eq!(names, ["label", "weight"]);
///
/// // Objects by ID, and their fields without naming the type.
/// let mut object = Registry::global().create(9_981_001).unwrap();
/// let weight = object.rtti().field_by_name("weight").unwrap();
/// weight.set(&mut *object, 12.5f32).unwrap();
/// assert_eq!(object.cast::<Crate>().unwrap().weight, 12.5);
/// ```
pub struct RttiType {
    pub(crate) id: u32,
    pub(crate) name: Cow<'static, str>,
    pub(crate) rust_type: TypeId,
    pub(crate) rust_name: &'static str,
    pub(crate) size: usize,
    pub(crate) base: Option<BaseLink>,
    /// Where the stored fields the type lacks are kept, when it keeps them.
    unknown: Option<UnknownLink>,
    fields: FieldTable,
    variants: Option<Variants>,
    pub(crate) create: Option<Constructor>,
    pub(crate) make_shared: MakeShared,
    concrete: Concrete,
    null_weak: NullWeak,
    pub(crate) hooks: Hooks,
    pub(crate) migrations: Vec<Migration>,
    /// What the schema module computes of the type once: its fingerprint, its schema table entry.
    schema_cache: SchemaCache,
    /// What the modules that use the type attached to it (the derive's generated code, a
    /// program's own data).
    data: TypeData,
    /// Whether the fields are described in declaration order (a derived type without `extend`).
    in_declaration_order: bool,
    /// Whether this is an instantiation of a generic type (`Handle<Texture>`), built on first
    /// use rather than submitted to the global registry by its own declaration.
    instantiation: bool,
    /// The index in `fields` of the type's own asset key field (`rtti/asset.rs`).
    asset_key: Option<usize>,
    /// The index in `fields` of the type's own identity field (`rtti/identity.rs`).
    identity: Option<usize>,
    /// The identity field of this type or a base, with its declaring type, found on first use.
    chain_identity: OnceLock<Option<(&'static RttiType, &'static RttiField)>>,
    /// Whether this type or a base has an asset key, found on first use (a base's descriptor
    /// may be built after this one).
    is_asset: OnceLock<bool>,
    /// Which deserialization hooks this type or a base has ([`RttiType::chain_hooks`]), found on
    /// first use: the decoder asks for every object it builds.
    chain_hooks: OnceLock<u8>,
    /// A number unique to this descriptor in the process, counting from 0: lets an encoder mark
    /// the types it has met in a bit set instead of a hash set.
    ordinal: u32,
}

/// The next [`RttiType::ordinal`].
static NEXT_ORDINAL: AtomicU32 = AtomicU32::new(0);

/// Per-type results of [`crate::schema`], computed on first use.
#[derive(Default)]
pub(crate) struct SchemaCache {
    pub(crate) fingerprint: OnceLock<u64>,
    pub(crate) table_entry: OnceLock<Box<[u8]>>,
}

impl fmt::Debug for RttiType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RttiType")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("base", &self.base().map(RttiType::name))
            .field("fields", &self.fields.all())
            .field("variants", &self.variants())
            .field("abstract", &self.is_abstract())
            .finish()
    }
}

impl RttiType {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn assemble(
        id: u32,
        name: Cow<'static, str>,
        rust_type: TypeId,
        rust_name: &'static str,
        size: usize,
        base: Option<BaseLink>,
        unknown: Option<UnknownLink>,
        fields: Vec<RttiField>,
        variants: Option<Variants>,
        create: Option<Constructor>,
        (make_shared, concrete, null_weak): (MakeShared, Concrete, NullWeak),
        hooks: Hooks,
        migrations: Vec<Migration>,
    ) -> Self {
        RttiType {
            id,
            name,
            rust_type,
            rust_name,
            size,
            base,
            unknown,
            fields: FieldTable::new(fields),
            variants,
            create,
            make_shared,
            concrete,
            null_weak,
            hooks,
            migrations,
            schema_cache: SchemaCache::default(),
            data: TypeData::default(),
            in_declaration_order: false,
            instantiation: false,
            asset_key: None,
            identity: None,
            chain_identity: OnceLock::new(),
            is_asset: OnceLock::new(),
            chain_hooks: OnceLock::new(),
            ordinal: NEXT_ORDINAL.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// The value of type `D` attached to the type (see [`RttiTypeBuilder::data`](crate::RttiTypeBuilder::data)).
    #[inline]
    pub fn data<D: Any>(&self) -> Option<&D> {
        self.data.get()
    }

    /// Whether [`fields`](RttiType::fields) (and each variant's) are in the order the Rust type
    /// declares them, which is the order its drop lets go of them: true of a derived type (the
    /// derive adds them in that order, and generated code covers exactly them), unknown of one
    /// made with the builder.
    #[inline]
    pub(crate) fn fields_in_declaration_order(&self) -> bool {
        self.in_declaration_order
    }

    /// Attaches `data`; `in_declaration_order` when the fields are described as declared.
    pub(crate) fn set_data(&mut self, data: TypeData, in_declaration_order: bool) {
        self.data = data;
        self.in_declaration_order = in_declaration_order;
    }

    /// Whether the type is an asset (see [`is_asset`](Self::is_asset)), remembered.
    #[inline]
    pub(crate) fn cached_is_asset(&'static self, find: impl FnOnce() -> bool) -> bool {
        *self.is_asset.get_or_init(find)
    }

    /// Which deserialization hooks this type or one of its bases has: bit 0 `started`, bit 1
    /// `ended` (`lifecycle.rs`), found once.
    #[inline]
    pub(crate) fn chain_hooks(&'static self) -> u8 {
        *self.chain_hooks.get_or_init(|| {
            self.chain().fold(0, |bits, rtti| {
                bits | u8::from(rtti.hooks.has_deserialization_started())
                    | u8::from(rtti.hooks.has_deserialization_ended()) << 1
            })
        })
    }

    /// The type's own asset key field (see `rtti/asset.rs`).
    pub(crate) fn own_asset_key(&self) -> Option<&RttiField> {
        self.asset_key.map(|index| &self.fields()[index])
    }
    pub(crate) fn set_asset_key(&mut self, index: usize) {
        self.asset_key = Some(index);
    }

    /// The type's own identity field (see `rtti/identity.rs`).
    pub(crate) fn own_identity(&self) -> Option<&RttiField> {
        self.identity.map(|index| &self.fields()[index])
    }
    pub(crate) fn set_identity(&mut self, index: usize) {
        self.identity = Some(index);
    }

    /// The identity field of the type's chain (see [`identity_field`](Self::identity_field)),
    /// remembered.
    #[inline]
    pub(crate) fn cached_identity(
        &'static self,
        find: impl FnOnce() -> Option<(&'static RttiType, &'static RttiField)>,
    ) -> Option<(&'static RttiType, &'static RttiField)> {
        *self.chain_identity.get_or_init(find)
    }

    /// Whether this is an instantiation of a generic type (see the field).
    pub(crate) fn is_instantiation(&self) -> bool {
        self.instantiation
    }
    pub(crate) fn mark_instantiation(&mut self) {
        self.instantiation = true;
    }

    /// This descriptor's number in the process (see the field).
    #[inline]
    pub(crate) fn ordinal(&self) -> u32 {
        self.ordinal
    }

    pub(crate) fn schema_cache(&self) -> &SchemaCache {
        &self.schema_cache
    }

    /// The stable numeric type ID.
    pub fn id(&self) -> u32 {
        self.id
    }
    /// The type's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// `TypeId` of the Rust type.
    pub fn rust_type(&self) -> TypeId {
        self.rust_type
    }
    /// Rust path of the type.
    pub fn rust_name(&self) -> &'static str {
        self.rust_name
    }
    /// `size_of` the Rust type: what one instance takes before any heap data it owns.
    pub fn instance_size(&self) -> usize {
        self.size
    }
    /// The base type, if this type derives from one.
    pub fn base(&self) -> Option<&'static RttiType> {
        self.base.as_ref().map(|base| match base.rtti {
            BaseRtti::Static(rtti) => rtti(),
            BaseRtti::Defined(rtti) => rtti,
        })
    }
    /// This type, then its base, then the base's base, and so on.
    pub fn chain(&'static self) -> impl Iterator<Item = &'static RttiType> {
        std::iter::successors(Some(self), |rtti| rtti.base())
    }
    /// `true` when `ancestor` is this type or one of its bases.
    pub fn is_subclass_of(&'static self, ancestor: &RttiType) -> bool {
        self.chain().any(|rtti| rtti.id == ancestor.id)
    }
    /// Types registered in the global registry whose direct base is this type.
    pub fn derived_types(&self) -> &'static [&'static RttiType] {
        Registry::global().derived_types(self.id)
    }
    /// This type's own fields, in declaration order (base fields belong to the base's descriptor;
    /// an enum's fields belong to its variants, see [`fields_of`](RttiType::fields_of)).
    pub fn fields(&self) -> &[RttiField] {
        self.fields.all()
    }
    /// The type's own fields with their indexes.
    #[inline]
    pub(crate) fn field_table(&self) -> &FieldTable {
        &self.fields
    }
    /// Position of the field with `id` in [`fields`](RttiType::fields), in O(1).
    #[inline]
    pub fn field_index(&self, id: u16) -> Option<usize> {
        self.fields.index(id)
    }
    /// The field with `id`, in O(1).
    #[inline]
    pub fn field(&self, id: u16) -> Option<&RttiField> {
        self.fields.by_id(id)
    }
    /// The field named `name`, in O(1).
    pub fn field_by_name(&self, name: &str) -> Option<&RttiField> {
        self.fields.by_name(name)
    }
    /// The fields `object` (of this type) has now: the type's own fields for a struct, the fields
    /// of the variant the object holds for an enum.
    #[inline]
    pub fn fields_of(&self, object: &dyn Reflectable) -> &[RttiField] {
        match &self.variants {
            None => self.fields.all(),
            Some(variants) => variants.active(object).map_or(&[], RttiVariant::fields),
        }
    }
    /// The field named `name` that `object` (of this type) has now, in O(1): one of the type's
    /// own for a struct, of the variant the object holds for an enum.
    pub fn field_of(&self, object: &dyn Reflectable, name: &str) -> Option<&RttiField> {
        match &self.variants {
            None => self.fields.by_name(name),
            Some(variants) => variants.active(object)?.field_by_name(name),
        }
    }
    /// `true` for an enum type: its fields belong to its [`variants`](RttiType::variants).
    pub fn is_enum(&self) -> bool {
        self.variants.is_some()
    }
    /// For a stored variant ID this enum does not have: resets `object` to the type's default and
    /// runs the variant migration registered for `stored_id`, if any; returns the variant the
    /// stored fields go to (`None`: they are skipped).
    pub(crate) fn unknown_variant(&self, object: &mut dyn Reflectable, stored_id: u32) -> Option<&RttiVariant> {
        self.variants.as_ref()?.fall_back(object, stored_id)
    }
    /// `true` when the enum registered a variant migration for a stored variant `stored_id`.
    pub fn has_variant_migration(&self, stored_id: u32) -> bool {
        self.variants.as_ref().is_some_and(|variants| variants.has_migration(stored_id))
    }

    /// The type's own fields, then every variant's: all the fields it declares, whichever
    /// variant an object holds.
    pub(crate) fn every_field(&self) -> impl Iterator<Item = &RttiField> + '_ {
        self.fields().iter().chain(self.variants().iter().flat_map(|variant| variant.fields()))
    }

    /// The types this type's own fields declare they hold (embedded objects and pointer
    /// targets of exactly one type, in its variants' fields too), in field order, with repeats;
    /// trait objects declare no type. What [`Registry::register`] follows to register the
    /// generic instantiations a type holds.
    pub fn held_types(&self) -> impl Iterator<Item = &'static RttiType> + '_ {
        self.every_field().filter_map(|field| match field.shape().elem {
            ElemShape::Embedded(declared) | ElemShape::Pointer { declared, .. } => declared.rtti(),
            ElemShape::Plain(_) => None,
        })
    }
    /// An enum's variants in declaration order; empty for a struct.
    pub fn variants(&self) -> &[RttiVariant] {
        self.variants.as_ref().map_or(&[], |variants| &variants.list)
    }
    /// The variant with `id`, in O(1); `None` for a struct or an unknown ID.
    #[inline]
    pub fn variant(&self, id: u32) -> Option<&RttiVariant> {
        self.variants.as_ref()?.get(id)
    }
    /// The variant named `name`.
    pub fn variant_by_name(&self, name: &str) -> Option<&RttiVariant> {
        self.variants().iter().find(|variant| variant.name() == name)
    }
    /// The variant `object` (of this enum type) holds; `None` for a struct or an object of
    /// another type.
    #[inline]
    pub fn active_variant(&self, object: &dyn Reflectable) -> Option<&RttiVariant> {
        self.variants.as_ref()?.active(object)
    }
    /// `true` for abstract types (no constructor).
    pub fn is_abstract(&self) -> bool {
        self.create.is_none()
    }
    /// A fresh default instance; `None` for abstract types.
    pub fn create(&self) -> Option<Box<dyn Reflectable>> {
        self.create.as_ref().map(|create| (create.boxed)())
    }
    /// A fresh default instance in a shared allocation of `family` (`Rc<RefCell<T>>` and so on);
    /// `None` for abstract types.
    pub fn create_shared(&self, family: Family) -> Option<SharedObject> {
        self.create.as_ref().map(|create| (create.shared)(family))
    }
    /// Puts a freshly created object of this type into a shared allocation of `family`
    /// (`Rc<RefCell<T>>` and so on), or gives it back when it is not of this type.
    pub fn make_shared(
        &self,
        family: Family,
        object: Box<dyn Reflectable>,
    ) -> Result<SharedObject, Box<dyn Reflectable>> {
        (self.make_shared)(family, object)
    }
    /// `shared` (an object of this type) as a handle to the Rust type, when it is held through an
    /// erased `Rc<RefCell<dyn Reflectable>>` (a kept field's) and not borrowed mutably now.
    pub(crate) fn concrete_handle(&self, shared: &SharedObject) -> Option<SharedObject> {
        (self.concrete)(shared)
    }
    /// A `Weak` of family `W` (`rc::Weak<RefCell<T>>`, ...) to this type that points at nothing;
    /// `None` when `W` is not a `Weak` to this type's Rust type.
    pub(crate) fn null_weak<W: 'static>(&self) -> Option<W> {
        let mut out: Option<W> = None;
        (self.null_weak)(&mut out);
        out
    }
    /// The base object embedded in `object` (which must be of this type).
    pub fn base_of<'a>(&self, object: &'a dyn Reflectable) -> Option<&'a dyn Reflectable> {
        self.base.as_ref().and_then(|base| (base.get)(object))
    }
    /// The base object embedded in `object`, mutably.
    pub fn base_of_mut<'a>(&self, object: &'a mut dyn Reflectable) -> Option<&'a mut dyn Reflectable> {
        self.base.as_ref().and_then(|base| (base.get_mut)(object))
    }
    /// `true` when the type keeps stored fields it lacks (an [`UnknownFields`] member).
    pub fn keeps_unknown_fields(&self) -> bool {
        self.unknown.is_some()
    }
    /// The stored fields `object` (of this type) keeps that its type lacks, when the type keeps
    /// them.
    pub fn unknown_fields<'a>(&self, object: &'a dyn Reflectable) -> Option<&'a UnknownFields> {
        self.unknown.as_ref().and_then(|unknown| (unknown.get)(object))
    }
    /// The kept stored fields of `object`, mutably.
    pub fn unknown_fields_mut<'a>(&self, object: &'a mut dyn Reflectable) -> Option<&'a mut UnknownFields> {
        self.unknown.as_ref().and_then(|unknown| (unknown.get_mut)(object))
    }
    /// The migration handler for stored field `id`, if one is registered.
    pub fn migration(&self, id: u16) -> Option<&Migration> {
        self.migrations.iter().find(|migration| migration.field_id == id)
    }

    /// Every migration registered for stored field `id` (one per stored type it handles).
    pub fn migrations_for(&self, id: u16) -> impl Iterator<Item = &Migration> {
        self.migrations.iter().filter(move |migration| migration.field_id == id)
    }
    /// The type's hooks.
    pub(crate) fn hooks(&self) -> &Hooks {
        &self.hooks
    }
    /// The sections of `object`: its own type with the object itself first, then each embedded
    /// base object with its type. (Rust has no inheritance: a derived type embeds its base.)
    pub fn sections(object: &dyn Reflectable) -> impl Iterator<Item = (&'static RttiType, &dyn Reflectable)> {
        Self::sections_from(object.rtti(), object)
    }

    /// [`sections`](Self::sections) of an object whose type the caller already has (finding a
    /// generic instantiation's descriptor costs a lookup).
    pub(crate) fn sections_from<'a>(
        rtti: &'static RttiType,
        object: &'a dyn Reflectable,
    ) -> impl Iterator<Item = (&'static RttiType, &'a dyn Reflectable)> {
        std::iter::successors(Some((rtti, object)), |&(rtti, section)| {
            rtti.base_of(section).map(|base| (base.rtti(), base))
        })
    }

    /// Section number `index` of `object`, mutably: 0 is the object itself, 1 its embedded base,
    /// 2 the base's base, and so on. `None` past the end of the chain.
    pub fn section_mut(object: &mut dyn Reflectable, index: usize) -> Option<&mut dyn Reflectable> {
        let mut current = object;
        for _ in 0..index {
            let rtti = current.rtti();
            current = rtti.base_of_mut(current)?;
        }
        Some(current)
    }
}

impl Hooks {
    /// `true` when `on_deserialization_started` is set.
    pub fn has_deserialization_started(&self) -> bool {
        self.deserialization_started.is_some()
    }
    /// `true` when `on_deserialization_ended` is set.
    pub fn has_deserialization_ended(&self) -> bool {
        self.deserialization_ended.is_some()
    }
    /// Calls `on_serialization_started`, if any.
    pub fn serialization_started(&self, object: &dyn Any, context: &mut dyn Any) {
        if let Some(hook) = &self.serialization_started {
            hook(object, context)
        }
    }
    /// Calls `on_serialization_ended`, if any.
    pub fn serialization_ended(&self, object: &dyn Any, context: &mut dyn Any) {
        if let Some(hook) = &self.serialization_ended {
            hook(object, context)
        }
    }
    /// Calls `on_deserialization_started`, if any.
    pub fn deserialization_started(&self, object: &mut dyn Any, context: &mut dyn Any) {
        if let Some(hook) = &self.deserialization_started {
            hook(object, context)
        }
    }
    /// Calls `on_deserialization_ended`, if any.
    pub fn deserialization_ended(&self, object: &mut dyn Any, context: &mut dyn Any) {
        if let Some(hook) = &self.deserialization_ended {
            hook(object, context)
        }
    }
}
