//! [`RttiTypeBuilder`]: declares a type's RTTI by hand, Banshee style. The derive uses it too.

mod variants;

use super::rtti_type::{BaseLink, BaseRtti, Constructor, Hooks, UnknownLink};
use super::variant::{ActiveVariant, VariantMigration};
use super::{Migration, Reflectable, RttiError, RttiType, TypeData, NULL_TYPE_ID, VARIANT_TAG_FIELD_ID};
use crate::containers::{add_map_field, ObjectMap, FIRST_RESERVED_TYPE_ID};
use crate::field::{
    Accessor, Container, ElemShape, EmbeddedSlot, Family, FieldAccess, FieldImpl, One, PointerSlot, RttiField, Shape,
    SharedObject,
};
use crate::plain::{Native, PlainCodec, PlainType, MAX_INLINE_SIZE};
use crate::rtti::UnknownFields;
use variants::PendingVariant;

use ahash::AHashMap;
use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::cell::RefCell;
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::{Arc, Mutex, RwLock};

/// Builds the [`RttiType`] of `T`.
///
/// Fields are added in declaration order with a unique ID and name. Direct fields borrow a member
/// (`|t| &t.x`, `|t| &mut t.x`); computed fields (`*_computed`) are a getter/setter pair whose
/// stored form may differ from the in-memory one.
///
/// ```
/// use once_cell::sync::Lazy;
/// use reflectable::{Reflectable, RttiType, RttiTypeBuilder};
///
/// #[derive(Default)]
/// struct Texture {
///     width: u32,
///     pixels: Vec<u8>,
/// }
///
/// impl Reflectable for Texture {
///     fn rtti(&self) -> &'static RttiType {
///         Self::rtti_static()
///     }
///     fn rtti_static() -> &'static RttiType {
///         static RTTI: Lazy<RttiType> = Lazy::new(|| {
///             RttiTypeBuilder::<Texture>::new(9200, "Texture")
///                 .default_constructor()
///                 .plain(1, "width", |t| &t.width, |t| &mut t.width)
///                 // Stored run-length encoded, expanded on load.
///                 .plain_computed(2, "pixels",
///                     |t: &Texture| rle_encode(&t.pixels),
///                     |t: &mut Texture, stored: Vec<(u8, u32)>| t.pixels = rle_decode(&stored))
///                 .build()
///                 .expect("valid RTTI")
///         });
///         &RTTI
///     }
/// }
/// reflectable::register_type!(Texture);
///
/// fn rle_encode(bytes: &[u8]) -> Vec<(u8, u32)> {
///     let mut runs: Vec<(u8, u32)> = Vec::new();
///     for &b in bytes {
///         match runs.last_mut() {
///             Some((value, count)) if *value == b => *count += 1,
///             _ => runs.push((b, 1)),
///         }
///     }
///     runs
/// }
/// fn rle_decode(runs: &[(u8, u32)]) -> Vec<u8> {
///     runs.iter().flat_map(|&(b, n)| std::iter::repeat(b).take(n as usize)).collect()
/// }
///
/// let mut texture = Texture { width: 4, pixels: vec![7, 7, 7, 9] };
/// let pixels = Texture::rtti_static().field_by_name("pixels").unwrap();
/// assert_eq!(pixels.get::<Vec<(u8, u32)>>(&texture).unwrap(), vec![(7, 3), (9, 1)]);
/// pixels.set(&mut texture, vec![(1u8, 2u32)]).unwrap();
/// assert_eq!(texture.pixels, vec![1, 1]);
/// ```
pub struct RttiTypeBuilder<T> {
    id: u32,
    name: Cow<'static, str>,
    base: Option<BaseLink>,
    unknown: Option<UnknownLink>,
    fields: Vec<RttiField>,
    create: Option<Constructor>,
    hooks: Hooks,
    migrations: Vec<Migration>,
    /// For an enum: which variant an object holds, and the variants declared so far (fields
    /// added after a variant belong to it).
    active: Option<ActiveVariant>,
    variants: Vec<PendingVariant>,
    variant_migrations: Vec<VariantMigration>,
    /// The constructor, kept to reset an enum to its default variant in place.
    make_default: Option<Arc<dyn Fn() -> T + Send + Sync>>,
    /// Set for the format's built-in types (lists, maps), which alone may use the reserved IDs.
    built_in: bool,
    /// See [`instance_size`](Self::instance_size).
    size: Option<usize>,
    /// What the program attached ([`data`](Self::data)).
    data: TypeData,
    /// See [`asset_key`](Self::asset_key).
    asset_key: Option<u16>,
    /// See [`identity`](Self::identity).
    identity: Option<u16>,
    /// What the derive attached for the fields and variants it declared (its generated code),
    /// and how many those are.
    derived: Option<(TypeData, usize)>,
    _type: PhantomData<fn() -> T>,
}

impl<T: Reflectable> RttiTypeBuilder<T> {
    /// Starts a type with its stable numeric ID and name. Without a constructor
    /// ([`default_constructor`](Self::default_constructor) or [`constructor`](Self::constructor)) the
    /// type is abstract.
    pub fn new(id: u32, name: impl Into<Cow<'static, str>>) -> Self {
        RttiTypeBuilder {
            id,
            name: name.into(),
            base: None,
            unknown: None,
            fields: Vec::new(),
            create: None,
            hooks: Hooks::default(),
            migrations: Vec::new(),
            active: None,
            variants: Vec::new(),
            variant_migrations: Vec::new(),
            make_default: None,
            built_in: false,
            size: None,
            data: TypeData::default(),
            asset_key: None,
            identity: None,
            derived: None,
            _type: PhantomData,
        }
    }

    /// A builder for one of the format's built-in types, whose IDs no other type may use.
    pub(crate) fn built_in(id: u32, name: impl Into<Cow<'static, str>>) -> Self {
        RttiTypeBuilder { built_in: true, ..Self::new(id, name) }
    }

    /// Fresh instances are `T::default()`.
    pub fn default_constructor(self) -> Self
    where
        T: Default,
    {
        self.constructor(T::default)
    }

    /// Fresh instances come from `create`.
    pub fn constructor(mut self, create: impl Fn() -> T + Send + Sync + 'static) -> Self {
        let create = Arc::new(create);
        let boxed = create.clone();
        self.make_default = Some(create.clone());
        self.create = Some(Constructor {
            boxed: Box::new(move || Box::new(boxed())),
            shared: Box::new(move |family| shared_of(family, create())),
        });
        self
    }

    /// Makes the type an asset, keyed by its field `field_id` (a single `u64`, `u128` or
    /// `String`): pointers to its objects, and to objects of types derived from it, are saved as
    /// asset references holding the key, never as the object (see [`AssetKey`](super::AssetKey)).
    /// `#[rtti(id = N, asset_key)]` on the field does this in the derive.
    pub fn asset_key(mut self, field_id: u16) -> Self {
        self.asset_key = Some(field_id);
        self
    }

    /// Names field `field_id` (a single plain value of a fixed size of at most 16 bytes: a `u64`,
    /// a `u128` or a `[u8; 16]` UUID) as what identifies the type's objects for good: two objects
    /// of the type with equal identities are one object, edited, and [`diff`](crate::diff::diff)
    /// pairs them so (see `rtti/identity.rs`). `#[rtti(id = N, identity)]` on the field does this
    /// in the derive.
    pub fn identity(mut self, field_id: u16) -> Self {
        self.identity = Some(field_id);
        self
    }

    /// `T` derives from `B` by embedding a `B` that `get`/`get_mut` reach.
    pub fn base<B: Reflectable>(mut self, get: fn(&T) -> &B, get_mut: fn(&mut T) -> &mut B) -> Self {
        self.base = Some(BaseLink {
            rtti: BaseRtti::Static(B::rtti_static),
            get: Box::new(move |object: &dyn Any| object.downcast_ref::<T>().map(|t| get(t) as &dyn Reflectable)),
            get_mut: Box::new(move |object: &mut dyn Any| {
                object.downcast_mut::<T>().map(|t| get_mut(t) as &mut dyn Reflectable)
            }),
        });
        self
    }

    /// `T` keeps the stored fields it lacks in the [`UnknownFields`] member `get` reaches, and
    /// writes them back when saved (what `#[rtti(unknown)]` declares). Not for an enum.
    pub fn unknown_fields(mut self, get: fn(&T) -> &UnknownFields, get_mut: fn(&mut T) -> &mut UnknownFields) -> Self {
        self.unknown = Some(UnknownLink {
            get: Box::new(move |object: &dyn Any| object.downcast_ref::<T>().map(get)),
            get_mut: Box::new(move |object: &mut dyn Any| object.downcast_mut::<T>().map(get_mut)),
        });
        self
    }

    /// `T` derives from a type defined at run time (or any type whose descriptor exists already),
    /// its base object reached by closures.
    pub(crate) fn defined_base(
        mut self,
        rtti: &'static RttiType,
        get: impl Fn(&T) -> Option<&dyn Reflectable> + Send + Sync + 'static,
        get_mut: impl Fn(&mut T) -> Option<&mut dyn Reflectable> + Send + Sync + 'static,
    ) -> Self {
        self.base = Some(BaseLink {
            rtti: BaseRtti::Defined(rtti),
            get: Box::new(move |object: &dyn Any| object.downcast_ref::<T>().and_then(&get)),
            get_mut: Box::new(move |object: &mut dyn Any| object.downcast_mut::<T>().and_then(&get_mut)),
        });
        self
    }

    /// What one instance takes, when more than `size_of::<T>()` (storage laid out at run time).
    pub(crate) fn instance_size(mut self, size: usize) -> Self {
        self.size = Some(size);
        self
    }

    /// The field list being added to: the last variant's for an enum, the type's otherwise.
    fn current_fields(&mut self) -> &mut Vec<RttiField> {
        match self.variants.last_mut() {
            Some(variant) => &mut variant.fields,
            None => &mut self.fields,
        }
    }

    fn push(mut self, id: u16, name: impl Into<Cow<'static, str>>, access: FieldAccess) -> Self {
        self.current_fields().push(RttiField::new(id, name, 0, access));
        self
    }

    /// Sets the flags of the field added last (e.g. [`SKIP_REFERENCE_SEARCH`](crate::field::SKIP_REFERENCE_SEARCH)).
    pub fn flags(mut self, flags: u64) -> Self {
        if let Some(field) = self.current_fields().last_mut() {
            field.set_flags(flags);
        }
        self
    }

    /// Adds a plain field of any shape and accessor; `fill` makes new elements when an array grows.
    pub fn add_plain<C: 'static, S: Shape<C>>(
        self,
        id: u16,
        name: impl Into<Cow<'static, str>>,
        access: Accessor<T, C>,
        fill: Option<fn() -> S::Elem>,
    ) -> Self
    where
        S::Elem: PlainType,
    {
        self.add_plain_with::<C, S, Native>(id, name, access, fill)
    }

    /// Adds a plain field whose elements are stored through the codec `K` (see [`PlainCodec`]):
    /// for element types that cannot implement [`PlainType`].
    pub fn add_plain_with<C: 'static, S: Shape<C>, K: PlainCodec<S::Elem>>(
        self,
        id: u16,
        name: impl Into<Cow<'static, str>>,
        access: Accessor<T, C>,
        fill: Option<fn() -> S::Elem>,
    ) -> Self {
        self.push(id, name, FieldAccess::Plain(Box::new(FieldImpl::<T, C, S, K>::new(access, fill))))
    }

    /// Adds a plain field with its own access implementation (a type kept from a stream stores
    /// elements of types the program lacks as bytes).
    pub(crate) fn add_plain_access(
        self,
        id: u16,
        name: impl Into<Cow<'static, str>>,
        access: Box<dyn crate::field::PlainAccess>,
    ) -> Self {
        self.push(id, name, FieldAccess::Plain(access))
    }

    /// Adds an embedded field of any shape and accessor.
    pub fn add_embedded<C: 'static, S: Shape<C>>(
        self,
        id: u16,
        name: impl Into<Cow<'static, str>>,
        access: Accessor<T, C>,
        fill: Option<fn() -> S::Elem>,
    ) -> Self
    where
        S::Elem: EmbeddedSlot,
    {
        self.push(id, name, FieldAccess::Embedded(Box::new(FieldImpl::<T, C, S>::new(access, fill))))
    }

    /// Adds a pointer field of any shape and accessor.
    pub fn add_pointer<C: 'static, S: Shape<C>>(
        self,
        id: u16,
        name: impl Into<Cow<'static, str>>,
        access: Accessor<T, C>,
        fill: Option<fn() -> S::Elem>,
    ) -> Self
    where
        S::Elem: PointerSlot,
    {
        self.push(id, name, FieldAccess::Pointer(Box::new(FieldImpl::<T, C, S>::new(access, fill))))
    }

    /// Adds a map field of any accessor: a map whose values are objects or pointers
    /// (`HashMap<String, Rc<RefCell<Material>>>`), written as a map object (see
    /// [`containers`](crate::containers)).
    pub fn add_map<M: ObjectMap>(self, id: u16, name: &'static str, access: Accessor<T, M>) -> Self {
        add_map_field(self, id, name, access)
    }

    /// A map member whose values are objects or pointers.
    pub fn object_map<M: ObjectMap>(
        self,
        id: u16,
        name: &'static str,
        get: fn(&T) -> &M,
        get_mut: fn(&mut T) -> &mut M,
    ) -> Self {
        self.add_map(id, name, Accessor::Direct { get, get_mut })
    }

    /// A plain member.
    pub fn plain<C: PlainType>(
        self,
        id: u16,
        name: impl Into<Cow<'static, str>>,
        get: fn(&T) -> &C,
        get_mut: fn(&mut T) -> &mut C,
    ) -> Self {
        self.add_plain::<C, One>(id, name, Accessor::Direct { get, get_mut }, None)
    }

    /// A plain value computed by `get` on save and handed to `set` on load.
    pub fn plain_computed<C: PlainType>(
        self,
        id: u16,
        name: impl Into<Cow<'static, str>>,
        get: impl Fn(&T) -> C + Send + Sync + 'static,
        set: impl Fn(&mut T, C) + Send + Sync + 'static,
    ) -> Self {
        self.add_plain::<C, One>(id, name, Accessor::Computed { get: Box::new(get), set: Box::new(set) }, None)
    }

    /// A plain array (`Vec`, `[T; N]`, `SmallVec`) computed by `get` on save and handed to `set`
    /// on load: the array form of [`plain_computed`](Self::plain_computed).
    pub fn plain_array_computed<C: Container>(
        self,
        id: u16,
        name: impl Into<Cow<'static, str>>,
        get: impl Fn(&T) -> C + Send + Sync + 'static,
        set: impl Fn(&mut T, C) + Send + Sync + 'static,
    ) -> Self
    where
        C::Elem: PlainType + Default,
    {
        let access = Accessor::Computed { get: Box::new(get), set: Box::new(set) };
        self.add_plain::<C, C::Shape>(id, name, access, Some(C::Elem::default))
    }

    /// An array member (`Vec`, `[T; N]`, `SmallVec`) of plain elements.
    pub fn plain_array<C: Container>(
        self,
        id: u16,
        name: impl Into<Cow<'static, str>>,
        get: fn(&T) -> &C,
        get_mut: fn(&mut T) -> &mut C,
    ) -> Self
    where
        C::Elem: PlainType + Default,
    {
        self.add_plain::<C, C::Shape>(id, name, Accessor::Direct { get, get_mut }, Some(C::Elem::default))
    }

    /// A plain member stored through the codec `K`, for a type that cannot implement
    /// [`PlainType`] (see [`PlainCodec`]); what `#[rtti(id = N, with = K)]` declares:
    /// `.plain_with::<UuidCodec, _>(1, "id", |a| &a.id, |a| &mut a.id)`.
    pub fn plain_with<K: PlainCodec<C>, C: 'static>(
        self,
        id: u16,
        name: impl Into<Cow<'static, str>>,
        get: fn(&T) -> &C,
        get_mut: fn(&mut T) -> &mut C,
    ) -> Self {
        self.add_plain_with::<C, One, K>(id, name, Accessor::Direct { get, get_mut }, None)
    }

    /// An array member (`Vec`, `[T; N]`, `SmallVec`) whose elements are stored through the codec
    /// `K`. Without a `Default` element type, the field cannot be resized through reflection.
    pub fn plain_array_with<K: PlainCodec<C::Elem>, C: Container>(
        self,
        id: u16,
        name: impl Into<Cow<'static, str>>,
        get: fn(&T) -> &C,
        get_mut: fn(&mut T) -> &mut C,
    ) -> Self {
        self.add_plain_with::<C, C::Shape, K>(id, name, Accessor::Direct { get, get_mut }, None)
    }

    /// An embedded member: a reflectable object stored by value (`T`, `Option<T>`, `Box<dyn Trait>`, ...).
    pub fn reflectable<C: EmbeddedSlot>(
        self,
        id: u16,
        name: impl Into<Cow<'static, str>>,
        get: fn(&T) -> &C,
        get_mut: fn(&mut T) -> &mut C,
    ) -> Self {
        self.add_embedded::<C, One>(id, name, Accessor::Direct { get, get_mut }, None)
    }

    /// An array member of embedded objects.
    pub fn embedded_array<C: Container>(
        self,
        id: u16,
        name: impl Into<Cow<'static, str>>,
        get: fn(&T) -> &C,
        get_mut: fn(&mut T) -> &mut C,
    ) -> Self
    where
        C::Elem: EmbeddedSlot,
    {
        self.add_embedded::<C, C::Shape>(id, name, Accessor::Direct { get, get_mut }, None)
    }

    /// A shared-pointer member (`Rc<T>`, `Option<Rc<RefCell<dyn Trait>>>`, `Weak<...>`, ...).
    pub fn pointer<C: PointerSlot>(
        self,
        id: u16,
        name: impl Into<Cow<'static, str>>,
        get: fn(&T) -> &C,
        get_mut: fn(&mut T) -> &mut C,
    ) -> Self {
        self.add_pointer::<C, One>(id, name, Accessor::Direct { get, get_mut }, None)
    }

    /// An array member of shared pointers.
    pub fn pointer_array<C: Container>(
        self,
        id: u16,
        name: impl Into<Cow<'static, str>>,
        get: fn(&T) -> &C,
        get_mut: fn(&mut T) -> &mut C,
    ) -> Self
    where
        C::Elem: PointerSlot,
    {
        self.add_pointer::<C, C::Shape>(id, name, Accessor::Direct { get, get_mut }, None)
    }

    /// Called before the object is encoded.
    pub fn on_serialization_started(mut self, hook: impl Fn(&T, &mut dyn Any) + Send + Sync + 'static) -> Self {
        self.hooks.serialization_started = Some(typed_hook(hook));
        self
    }
    /// Called after the object is encoded.
    pub fn on_serialization_ended(mut self, hook: impl Fn(&T, &mut dyn Any) + Send + Sync + 'static) -> Self {
        self.hooks.serialization_ended = Some(typed_hook(hook));
        self
    }
    /// Called on a fresh object before its fields are decoded.
    pub fn on_deserialization_started(mut self, hook: impl Fn(&mut T, &mut dyn Any) + Send + Sync + 'static) -> Self {
        self.hooks.deserialization_started = Some(typed_hook_mut(hook));
        self
    }
    /// Called once the object and every object it points at are decoded (bases before derived).
    pub fn on_deserialization_ended(mut self, hook: impl Fn(&mut T, &mut dyn Any) + Send + Sync + 'static) -> Self {
        self.hooks.deserialization_ended = Some(typed_hook_mut(hook));
        self
    }

    /// Hands a stored plain field `field_id` of the old type `Old` to `migrate` when the type no
    /// longer has that field, or has given it another type. A retyped field migrates without loss:
    ///
    /// ```
    /// use reflectable::{Reflectable, RttiTypeBuilder};
    ///
    /// // Version 1 stored `position: [f32; 3]` as field 2; version 2 keeps a grid cell instead.
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9400, extend = Unit::migrations)]
    /// struct Unit {
    ///     #[rtti(id = 3)]
    ///     grid: [i32; 2],
    /// }
    ///
    /// impl Unit {
    ///     fn migrations(builder: RttiTypeBuilder<Unit>) -> RttiTypeBuilder<Unit> {
    ///         builder.migrate_plain::<[f32; 3]>(2, |unit, [x, _, z]| unit.grid = [x.round() as i32, z.round() as i32])
    ///     }
    /// }
    /// assert!(Unit::rtti_static().migration(2).is_some());
    /// ```
    pub fn migrate_plain<Old: PlainType>(
        mut self,
        field_id: u16,
        migrate: impl Fn(&mut T, Old) + Send + Sync + 'static,
    ) -> Self {
        self.migrations.push(Migration::plain::<T, Old>(field_id, false, move |object, values| {
            if let Some(value) = values.into_iter().next() {
                migrate(object, value)
            }
        }));
        self
    }

    /// Like [`migrate_plain`](Self::migrate_plain) for a stored plain array field.
    pub fn migrate_plain_array<Old: PlainType>(
        mut self,
        field_id: u16,
        migrate: impl Fn(&mut T, Vec<Old>) + Send + Sync + 'static,
    ) -> Self {
        self.migrations.push(Migration::plain::<T, Old>(field_id, true, migrate));
        self
    }

    /// Hands a stored embedded field `field_id` (decoded as whatever type it was stored as;
    /// `None` when empty or of a type this program lacks) to `migrate`.
    pub fn migrate_embedded(
        mut self,
        field_id: u16,
        migrate: impl Fn(&mut T, Option<Box<dyn Reflectable>>) + Send + Sync + 'static,
    ) -> Self {
        self.migrations.push(Migration::embedded::<T>(field_id, false, move |object, values| {
            migrate(object, values.into_iter().next().flatten())
        }));
        self
    }

    /// Like [`migrate_embedded`](Self::migrate_embedded) for a stored array field.
    pub fn migrate_embedded_array(
        mut self,
        field_id: u16,
        migrate: impl Fn(&mut T, Vec<Option<Box<dyn Reflectable>>>) + Send + Sync + 'static,
    ) -> Self {
        self.migrations.push(Migration::embedded::<T>(field_id, true, migrate));
        self
    }

    /// Applies `extend` to the builder: how `#[rtti(extend = path)]` adds migrations, hooks or
    /// computed fields to a derived type.
    pub fn extend(self, extend: impl FnOnce(Self) -> Self) -> Self {
        extend(self)
    }

    /// Checks the declaration and builds the descriptor.
    ///
    /// Fails on type ID 0 (reserved for the null type), a duplicate field ID or name, or a plain
    /// field whose static size does not fit the field header's 8-bit size (such a type must
    /// declare itself dynamic).
    pub fn build(mut self) -> Result<RttiType, RttiError> {
        let type_name = self.name.to_string();
        if self.id == NULL_TYPE_ID {
            return Err(RttiError::ReservedTypeId { type_name });
        }
        if self.id >= FIRST_RESERVED_TYPE_ID && !self.built_in {
            return Err(RttiError::BuiltInTypeId { type_name, id: self.id });
        }
        check_fields(&type_name, &self.fields, false)?;
        if self.unknown.is_some() && self.active.is_some() {
            return Err(RttiError::UnknownFieldsInEnum { type_name });
        }
        // Counted before the variants are assembled out of the builder.
        let declared = self.declared();
        let variants = match self.active.take() {
            None if self.variants.is_empty() => None,
            None => return Err(RttiError::NotAnEnum { type_name }),
            Some(active) => Some(self.assemble_variants(&type_name, active)?),
        };
        // Generated code covers the fields and variants the derive declared; a type that gained
        // more (through `extend`) is walked instead.
        let derived = self.derived.filter(|&(_, count)| count == declared).map(|(data, _)| data);
        let mut rtti = RttiType::assemble(
            self.id,
            self.name,
            TypeId::of::<T>(),
            std::any::type_name::<T>(),
            self.size.unwrap_or(std::mem::size_of::<T>()),
            self.base,
            self.unknown,
            self.fields,
            variants,
            self.create,
            (make_shared::<T>, SharedObject::concrete::<T>, null_weak::<T>),
            self.hooks,
            self.migrations,
        );
        let in_declaration_order = derived.is_some();
        let mut data = derived.unwrap_or_default();
        data.extend(self.data);
        rtti.set_data(data, in_declaration_order);
        if let Some(field_id) = self.asset_key {
            let index = rtti.fields().iter().position(|field| field.id() == field_id);
            match index.filter(|&index| crate::rtti::can_be_key(&rtti.fields()[index])) {
                Some(index) => rtti.set_asset_key(index),
                None => return Err(RttiError::BadAssetKey { type_name, field_id }),
            }
        }
        if let Some(field_id) = self.identity {
            let index = rtti.fields().iter().position(|field| field.id() == field_id);
            match index.filter(|&index| crate::rtti::identity::can_be_identity(&rtti.fields()[index])) {
                Some(index) => {
                    crate::rtti::identity::note_declared();
                    rtti.set_identity(index);
                }
                None => return Err(RttiError::BadIdentity { type_name, field_id }),
            }
        }
        Ok(rtti)
    }

    /// Attaches `value` to the type, for whoever reads it back through [`RttiType::data`];
    /// replaces a value of the same type. A program can attach its own values (an editor's widget
    /// for the type, say), one per Rust type, found by that type; the crate attaches the code the
    /// derive generated in the same way.
    ///
    /// ```
    /// use reflectable::{Reflectable, RttiTypeBuilder};
    ///
    /// /// How an editor shows a type.
    /// struct Icon(&'static str);
    ///
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9_400, extend = Lamp::icon)]
    /// struct Lamp {
    ///     #[rtti(id = 1)]
    ///     lit: bool,
    /// }
    ///
    /// impl Lamp {
    ///     fn icon(builder: RttiTypeBuilder<Self>) -> RttiTypeBuilder<Self> {
    ///         builder.data(Icon("bulb"))
    ///     }
    /// }
    ///
    /// assert_eq!(Lamp::rtti_static().data::<Icon>().map(|icon| icon.0), Some("bulb"));
    /// ```
    pub fn data<D: Any + Send + Sync>(mut self, value: D) -> Self {
        self.data.insert(value);
        self
    }

    /// Attaches `data`, about the fields and variants declared so far (the code the derive
    /// generated for them: the serializer and diff use it instead of walking their
    /// descriptors); a type that gains more (through `extend`) keeps none of it. The derive
    /// reaches it through `__private::generated_code`.
    pub(crate) fn derived_data(mut self, data: TypeData) -> Self {
        self.derived = Some((data, self.declared()));
        self
    }

    /// How many fields and variants are declared so far.
    fn declared(&self) -> usize {
        self.fields.len() + self.variants.iter().map(|variant| 1 + variant.fields.len()).sum::<usize>()
    }
}

/// Field IDs and names are unique, static sizes fit a field header, and in an enum's variant no
/// field has ID 0, which its stream uses for the variant tag.
fn check_fields(type_name: &str, fields: &[RttiField], in_variant: bool) -> Result<(), RttiError> {
    let type_name = || type_name.to_owned();
    let mut ids: AHashMap<u16, &str> = AHashMap::new();
    let mut names: AHashMap<&str, u16> = AHashMap::new();
    for field in fields {
        if in_variant && field.id() == VARIANT_TAG_FIELD_ID {
            return Err(RttiError::ReservedFieldId { type_name: type_name(), field: field.name().to_owned() });
        }
        if let Some(first) = ids.insert(field.id(), field.name()) {
            return Err(RttiError::DuplicateFieldId {
                type_name: type_name(),
                id: field.id(),
                first: first.to_owned(),
                second: field.name().to_owned(),
            });
        }
        if let Some(first) = names.insert(field.name(), field.id()) {
            return Err(RttiError::DuplicateFieldName {
                type_name: type_name(),
                name: field.name().to_owned(),
                first,
                second: field.id(),
            });
        }
        if let ElemShape::Plain(info) = field.shape().elem {
            if let Some(size) = info.static_size.filter(|&size| size > MAX_INLINE_SIZE) {
                return Err(RttiError::StaticSizeTooLarge {
                    type_name: type_name(),
                    field: field.name().to_owned(),
                    size,
                });
            }
        }
    }
    Ok(())
}

fn typed_hook<T: 'static>(hook: impl Fn(&T, &mut dyn Any) + Send + Sync + 'static) -> super::rtti_type::Hook {
    Box::new(move |object, context| {
        if let Some(object) = object.downcast_ref::<T>() {
            hook(object, context)
        }
    })
}

fn typed_hook_mut<T: 'static>(
    hook: impl Fn(&mut T, &mut dyn Any) + Send + Sync + 'static,
) -> super::rtti_type::HookMut {
    Box::new(move |object, context| {
        if let Some(object) = object.downcast_mut::<T>() {
            hook(object, context)
        }
    })
}

fn make_shared<T: Reflectable>(
    family: Family,
    object: Box<dyn Reflectable>,
) -> Result<SharedObject, Box<dyn Reflectable>> {
    Ok(shared_of(family, *object.downcast_box::<T>()?))
}

/// See [`NullWeak`](super::rtti_type::NullWeak).
fn null_weak<T: Reflectable>(out: &mut dyn Any) {
    fn put<W: 'static>(out: &mut dyn Any, weak: impl FnOnce() -> W) -> bool {
        out.downcast_mut::<Option<W>>().map(|out| *out = Some(weak())).is_some()
    }
    let _ = put(out, std::rc::Weak::<RefCell<T>>::new)
        || put(out, std::rc::Weak::<T>::new)
        || put(out, std::sync::Weak::<T>::new)
        || put(out, std::sync::Weak::<Mutex<T>>::new)
        || put(out, std::sync::Weak::<RwLock<T>>::new);
}

/// `value` in a shared allocation of `family`.
fn shared_of<T: Reflectable>(family: Family, value: T) -> SharedObject {
    match family {
        Family::Rc => SharedObject::new_concrete(Rc::new(value)),
        Family::RcRefCell => SharedObject::new_concrete(Rc::new(RefCell::new(value))),
        Family::Arc => SharedObject::new_concrete(Arc::new(value)),
        Family::ArcMutex => SharedObject::new_concrete(Arc::new(Mutex::new(value))),
        Family::ArcRwLock => SharedObject::new_concrete(Arc::new(RwLock::new(value))),
    }
}
