//! The type registry: every type by numeric ID, by name and by Rust `TypeId`.

use super::{Reflectable, RttiError, RttiType};
use crate::containers::FIRST_RESERVED_TYPE_ID;
use crate::field::{cast, CastTable, SharedHandle};
use crate::rtti::runtime_object::RuntimeObject;

use ahash::{AHashMap, AHashSet};
use once_cell::sync::Lazy;
use std::any::TypeId;

/// One `inventory` submission: a way to reach a type's descriptor. Made by the derive and by
/// [`register_type!`](crate::register_type).
pub struct TypeRegistration {
    /// The descriptor, or the error its declaration has.
    pub rtti: fn() -> Result<&'static RttiType, &'static RttiError>,
}

inventory::collect!(TypeRegistration);

/// Submits a hand-declared type to the global registry (the derive does this by itself).
///
/// ```
/// use once_cell::sync::Lazy;
/// use reflectable::{Reflectable, RttiType, RttiTypeBuilder};
///
/// #[derive(Default)]
/// struct Marker;
///
/// impl Reflectable for Marker {
///     fn rtti(&self) -> &'static RttiType {
///         Self::rtti_static()
///     }
///     fn rtti_static() -> &'static RttiType {
///         static RTTI: Lazy<RttiType> =
///             Lazy::new(|| RttiTypeBuilder::<Marker>::new(9300, "Marker").default_constructor().build().unwrap());
///         &RTTI
///     }
/// }
/// reflectable::register_type!(Marker);
///
/// assert!(reflectable::Registry::global().create(9300).unwrap().is::<Marker>());
/// ```
#[macro_export]
macro_rules! register_type {
    ($type:ty) => {
        $crate::__private::inventory::submit! {
            $crate::__private::TypeRegistration { rtti: || Ok(<$type as $crate::Reflectable>::rtti_static()) }
        }
    };
    ($type:ty, id = $id:expr) => {
        $crate::__private::inventory::submit! {
            $crate::__private::InstantiationId { rust_type: || ::core::any::TypeId::of::<$type>(), id: $id }
        }
        $crate::register_type!($type);
    };
}

/// A set of types, each reachable by ID, name and Rust type.
///
/// [`Registry::global`] holds every type submitted through `inventory` (the derive does that);
/// build your own with [`Registry::new`] for tests, tools or runtime-defined types.
#[derive(Default, Clone)]
pub struct Registry {
    by_id: AHashMap<u32, &'static RttiType>,
    by_name: AHashMap<&'static str, &'static RttiType>,
    by_rust: AHashMap<TypeId, &'static RttiType>,
    derived: AHashMap<u32, Vec<&'static RttiType>>,
    casts: CastTable,
    /// Whether any registered type is an asset (see `rtti/asset.rs`).
    assets: bool,
}

static GLOBAL: Lazy<Registry> = Lazy::new(|| {
    let mut registry = Registry::new();
    let mut errors = Vec::new();
    for registration in inventory::iter::<TypeRegistration> {
        match (registration.rtti)() {
            Ok(rtti) => {
                if let Err(error) = registry.register(rtti) {
                    errors.push(error.to_string());
                }
            }
            Err(error) => errors.push(error.to_string()),
        }
    }
    // A clash met again through each type that holds the clashing type is one problem.
    errors.sort();
    errors.dedup();
    if !errors.is_empty() {
        let instantiations = if errors.iter().any(|error| error.contains('<')) {
            " A generic instantiation's ID is derived from its arguments' and can collide with \
             another's: give one its own with `register_type!(Handle<Texture>, id = N)`."
        } else {
            ""
        };
        panic!(
            "reflectable: the global type registry cannot start:\n  - {}\nEvery type needs a unique \
             `#[rtti(id = ...)]` and name, and every field a unique ID and name within its type.{instantiations}",
            errors.join("\n  - ")
        );
    }
    for derived in registry.derived.values_mut() {
        derived.sort_by_key(|rtti| rtti.id());
    }
    registry
});

impl Registry {
    /// An empty registry. It knows the trait casts submitted for
    /// [`RuntimeObject`] (`register_trait_impl!(RuntimeObject => YourTrait)`), so objects of types
    /// defined at run time or kept from a stream go into `dyn YourTrait` fields.
    pub fn new() -> Self {
        let mut registry = Self::default();
        for cast in cast::submitted_for(TypeId::of::<RuntimeObject>()) {
            registry.casts.add(cast);
        }
        registry
    }

    /// The registry of every type submitted through `inventory`, built on first use.
    ///
    /// # Panics
    /// On first use, when two submitted types share an ID or a name, or a type's declaration is
    /// invalid; the message lists every such problem.
    pub fn global() -> &'static Registry {
        &GLOBAL
    }

    /// Adds `rtti`, its base chain, and the generic instantiations it holds by declared type
    /// (embedded objects, pointer targets, the elements of lists and maps, the fields of enum
    /// variants), found through the types it holds, transitively: `Handle<Texture>` becomes known
    /// wherever a type holding it is, with no `register_type!` of its own. (Other held types are
    /// not added: each derived type registers itself, unless it says `no_register`.) Adding the same
    /// descriptor twice is harmless; another type with the same ID or name is an error naming
    /// both. (Type ID 0 cannot arrive here: the builder, which makes every descriptor, refuses
    /// it.)
    ///
    /// ```
    /// use reflectable::{Reflectable, Registry};
    /// # use std::marker::PhantomData;
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9_983_001)]
    /// struct Texture { #[rtti(id = 1)] path: String }
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9_983_002)]
    /// struct Handle<T: Default> { #[rtti(id = 1)] key: u64, #[rtti(skip)] kind: PhantomData<T> }
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9_983_003)]
    /// struct Material { #[rtti(id = 1, embedded)] albedo: Handle<Texture> }
    ///
    /// let mut registry = Registry::new();
    /// registry.register_type::<Material>().unwrap();
    /// assert!(registry.by_name("Handle<Texture>").is_some());
    /// // The global registry knows it the same way, from `Material`'s derive.
    /// assert!(Registry::global().create_by_name("Handle<Texture>").is_some());
    /// ```
    pub fn register(&mut self, rtti: &'static RttiType) -> Result<(), RttiError> {
        // Everything is checked before anything is added: a registration that fails leaves the
        // registry as it was.
        let mut planned: Vec<&'static RttiType> = Vec::new();
        self.plan_chain(rtti, true, &mut planned)?;
        let mut walked: AHashSet<*const RttiType> = AHashSet::new();
        let mut queue: Vec<&'static RttiType> = rtti.chain().collect();
        while let Some(holder) = queue.pop() {
            for held in holder.held_types() {
                if !walked.insert(held as *const RttiType)
                    || self.holds(held)
                    || planned.iter().any(|p| std::ptr::eq(*p, held))
                {
                    // Registered before (so walked then), or planned here (and walked here).
                    continue;
                }
                // Only instantiations are added: every other derived type registers itself, and
                // one that does not (`no_register`) is kept out on purpose. The walk goes through
                // both, to the instantiations they hold.
                if held.is_instantiation() && held.id() < FIRST_RESERVED_TYPE_ID {
                    self.plan_chain(held, false, &mut planned)?;
                }
                queue.extend(held.chain());
            }
        }
        for rtti in planned {
            self.insert(rtti);
        }
        Ok(())
    }

    /// `true` when this very descriptor is registered.
    fn holds(&self, rtti: &'static RttiType) -> bool {
        self.by_id.get(&rtti.id()).is_some_and(|known| std::ptr::eq(*known, rtti))
    }

    /// Adds to `planned` the types of `rtti`'s chain this registry lacks, after checking each
    /// against the registry and the plan. Built-in types are refused when given by the caller
    /// (`explicit`); met through a field, they end the chain.
    fn plan_chain(
        &self,
        rtti: &'static RttiType,
        explicit: bool,
        planned: &mut Vec<&'static RttiType>,
    ) -> Result<(), RttiError> {
        for rtti in rtti.chain() {
            if rtti.id() >= FIRST_RESERVED_TYPE_ID {
                if !explicit {
                    return Ok(());
                }
                return Err(RttiError::BuiltInTypeId { type_name: rtti.name().to_owned(), id: rtti.id() });
            }
            if self.holds(rtti) || planned.iter().any(|p| std::ptr::eq(*p, rtti)) {
                continue;
            }
            let same_id =
                self.by_id.get(&rtti.id()).copied().or_else(|| planned.iter().copied().find(|p| p.id() == rtti.id()));
            if let Some(existing) = same_id {
                return Err(RttiError::DuplicateTypeId {
                    id: rtti.id(),
                    first: existing.rust_name().to_owned(),
                    second: rtti.rust_name().to_owned(),
                });
            }
            let same_name = self
                .by_name
                .get(rtti.name())
                .copied()
                .or_else(|| planned.iter().copied().find(|p| p.name() == rtti.name()));
            if let Some(existing) = same_name {
                return Err(RttiError::DuplicateTypeName {
                    name: rtti.name().to_owned(),
                    first: existing.id(),
                    second: rtti.id(),
                });
            }
            planned.push(rtti);
        }
        Ok(())
    }

    /// Adds one checked type.
    fn insert(&mut self, rtti: &'static RttiType) {
        let name: &'static str = match &rtti.name {
            std::borrow::Cow::Borrowed(name) => name,
            std::borrow::Cow::Owned(name) => name.as_str(),
        };
        self.by_id.insert(rtti.id(), rtti);
        self.by_name.insert(name, rtti);
        // Types defined at run time share one Rust type; none of them stands for it.
        if rtti.rust_type() != TypeId::of::<RuntimeObject>() {
            self.by_rust.insert(rtti.rust_type(), rtti);
        }
        for cast in cast::submitted_for(rtti.rust_type()) {
            self.casts.add(cast);
        }
        if let Some(base) = rtti.base() {
            self.derived.entry(base.id()).or_default().push(rtti);
        }
        self.assets |= rtti.own_asset_key().is_some();
    }

    /// `true` when a registered type is an asset (has an asset key): what a tool asks before
    /// reading objects to find out whether they are.
    pub(crate) fn has_assets(&self) -> bool {
        self.assets
    }

    /// Adds `T` and its base chain.
    pub fn register_type<T: Reflectable>(&mut self) -> Result<(), RttiError> {
        self.register(T::rtti_static())
    }

    /// The type with numeric ID `id`.
    #[inline]
    pub fn get(&self, id: u32) -> Option<&'static RttiType> {
        self.by_id.get(&id).copied()
    }
    /// The type named `name`.
    pub fn by_name(&self, name: &str) -> Option<&'static RttiType> {
        self.by_name.get(name).copied()
    }
    /// The descriptor of the Rust type `T`, if registered.
    pub fn of<T: 'static>(&self) -> Option<&'static RttiType> {
        self.by_rust.get(&TypeId::of::<T>()).copied()
    }
    /// A fresh instance of the type with ID `id`; `None` when unknown or abstract.
    pub fn create(&self, id: u32) -> Option<Box<dyn Reflectable>> {
        self.get(id)?.create()
    }
    /// A fresh instance of the type named `name`; `None` when unknown or abstract.
    pub fn create_by_name(&self, name: &str) -> Option<Box<dyn Reflectable>> {
        self.by_name(name)?.create()
    }
    /// A fresh instance of the type with ID `id` in the shared handle `H` the program keeps it
    /// in, trait objects included: what an editor's "Add component" makes. `None` when the type
    /// is unknown or abstract, or does not fit `H` (not the type, nor cast to the trait by
    /// `implements(...)`).
    ///
    /// ```
    /// use reflectable::prelude::*;
    /// use std::cell::RefCell;
    /// use std::rc::Rc;
    ///
    /// trait Component: Reflectable {}
    /// reflect_trait!(Component);
    ///
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9_982_001, implements(Component))]
    /// struct Light {
    ///     #[rtti(id = 1)]
    ///     watts: f32,
    /// }
    /// impl Component for Light {}
    ///
    /// let registry = Registry::global();
    /// let light: Rc<RefCell<dyn Component>> = registry.create_shared_by_name("Light").unwrap();
    /// assert!(light.borrow().as_reflectable().is::<Light>());
    /// let by_id: Rc<RefCell<Light>> = registry.create_shared(9_982_001).unwrap();
    /// assert_eq!(by_id.borrow().watts, 0.0);
    /// assert!(registry.create_shared_by_name::<Rc<RefCell<Light>>>("Nothing").is_none());
    /// ```
    pub fn create_shared<H: SharedHandle>(&self, id: u32) -> Option<H> {
        self.get(id)?.create_shared(H::FAMILY)?.cast_in(self)
    }
    /// [`create_shared`](Self::create_shared) of the type named `name`.
    pub fn create_shared_by_name<H: SharedHandle>(&self, name: &str) -> Option<H> {
        self.by_name(name)?.create_shared(H::FAMILY)?.cast_in(self)
    }
    /// The trait casts of the registered types.
    pub(crate) fn casts(&self) -> &CastTable {
        &self.casts
    }
    /// How many trait casts the registered types bring (`implements(...)`,
    /// `register_trait_impl!`), one per trait and handle form (`Box`, and each shared family):
    /// how objects of these types go into `dyn Trait` fields when decoded through this registry.
    pub fn cast_count(&self) -> usize {
        self.casts.len()
    }
    /// Types whose direct base is the type with ID `id`.
    pub fn derived_types(&self, id: u32) -> &[&'static RttiType] {
        self.derived.get(&id).map_or(&[], Vec::as_slice)
    }
    /// Every registered type, in no particular order.
    pub fn types(&self) -> impl Iterator<Item = &'static RttiType> + '_ {
        self.by_id.values().copied()
    }
    /// Number of registered types.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }
    /// `true` when nothing is registered.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }
}
