//! [`RttiField`]: one reflected field, and dynamic access to it for any kind.

use super::Declared;
use super::{
    ElemShape, EmbeddedAccess, ErasedElems, FieldAccess, FieldError, FieldKind, FieldShape, PlainAccess, PointerAccess,
    SharedObject, WireShape,
};
use crate::containers::{Element, MapEntries, MapValue, MAP_TYPE_ID};
use crate::plain::PlainType;
use crate::rtti::{Reflectable, RttiType};
use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::fmt;

/// One reflected field of a type.
pub struct RttiField {
    id: u16,
    name: Cow<'static, str>,
    flags: u64,
    shape: FieldShape,
    wire: WireShape,
    access: FieldAccess,
    trait_check: Option<TraitCheck>,
    /// For a pointer field declaring one type, whether that type is an asset: known once asked
    /// (the type's descriptor may not exist yet when the field's is built).
    asset_target: std::sync::OnceLock<bool>,
}

/// What a pointer field declaring one type points at (see [`RttiField::declared_asset`]).
pub(crate) enum DeclaredAsset {
    NotAsset,
    Asset(&'static RttiType),
}

/// A field declaring a user trait object (`Box<dyn Component>`, `Rc<RefCell<dyn Component>>`):
/// the handle the decoder casts its objects into, and the trait's name. The encoder refuses an
/// object the registry cannot cast into `to`, which would otherwise load as null.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TraitCheck {
    /// The trait object's type; `None` for `dyn Reflectable`, which every type casts into.
    pub(crate) to: Option<TypeId>,
    pub(crate) trait_name: &'static str,
}

impl fmt::Debug for RttiField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RttiField")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("shape", &self.shape)
            .field("flags", &self.flags)
            .finish()
    }
}

impl RttiField {
    /// A field from its parts; normally made by the derive or [`crate::rtti::RttiTypeBuilder`].
    /// Its [`FieldShape`] is computed here, once.
    pub fn new(id: u16, name: impl Into<Cow<'static, str>>, flags: u64, access: FieldAccess) -> Self {
        let elem = match &access {
            FieldAccess::Plain(access) => ElemShape::Plain(access.info()),
            FieldAccess::Embedded(access) => ElemShape::Embedded(access.declared()),
            FieldAccess::Pointer(access) => {
                ElemShape::Pointer { declared: access.declared(), family: access.family(), weak: access.is_weak() }
            }
        };
        let array = match &access {
            FieldAccess::Plain(access) => access.is_array(),
            FieldAccess::Embedded(access) => access.is_array(),
            FieldAccess::Pointer(access) => access.is_array(),
        };
        let shape = FieldShape { array, elem };
        let to = match &access {
            FieldAccess::Plain(_) => None,
            FieldAccess::Embedded(access) => access.trait_target(),
            FieldAccess::Pointer(access) => access.trait_target(),
        };
        let trait_check = match elem {
            ElemShape::Embedded(Declared::Trait(trait_name))
            | ElemShape::Pointer { declared: Declared::Trait(trait_name), .. } => Some(TraitCheck { to, trait_name }),
            _ => None,
        };
        let asset_target = std::sync::OnceLock::new();
        RttiField { id, name: name.into(), flags, shape, wire: shape.wire(), access, trait_check, asset_target }
    }

    /// For a pointer field declaring exactly one type: whether that type is an asset (pointers
    /// to it are saved as references), remembered. `None` for trait objects and other fields.
    #[inline]
    pub(crate) fn declared_asset(&self) -> Option<DeclaredAsset> {
        match self.shape.elem {
            ElemShape::Pointer { declared: Declared::Type(rtti), .. } => {
                Some(match *self.asset_target.get_or_init(|| rtti().is_asset()) {
                    true => DeclaredAsset::Asset(rtti()),
                    false => DeclaredAsset::NotAsset,
                })
            }
            _ => None,
        }
    }

    /// The check the encoder makes of each object in a trait-object field (`None` for the others):
    /// that a reader can create it and cast it back.
    #[inline]
    pub(crate) fn trait_check(&self) -> Option<&TraitCheck> {
        self.trait_check.as_ref()
    }

    /// The field's unique ID within its type.
    pub fn id(&self) -> u16 {
        self.id
    }
    /// The field's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    pub(crate) fn set_flags(&mut self, flags: u64) {
        self.flags = flags;
    }
    /// The field's flags ([`SKIP_REFERENCE_SEARCH`](super::SKIP_REFERENCE_SEARCH) and user bits).
    pub fn flags(&self) -> u64 {
        self.flags
    }
    /// `true` when every bit of `flag` is set.
    pub fn has_flag(&self, flag: u64) -> bool {
        self.flags & flag == flag
    }
    /// What the field holds: kind, array, element type.
    pub fn shape(&self) -> &FieldShape {
        &self.shape
    }
    /// What a stream records of the field's shape (see [`WireShape`]).
    #[inline]
    pub fn wire_shape(&self) -> WireShape {
        self.wire
    }
    /// The field's kind.
    pub fn kind(&self) -> FieldKind {
        self.shape.kind()
    }
    /// `true` for `Vec`, `[T; N]` and `SmallVec` fields.
    pub fn is_array(&self) -> bool {
        self.shape.array
    }
    /// `true` for a getter/setter pair (computed stored form).
    pub fn is_computed(&self) -> bool {
        self.erased().is_computed()
    }
    /// Rust name of one element's type.
    pub fn elem_type_name(&self) -> &'static str {
        self.erased().elem_type_name()
    }
    /// `size_of` one element.
    pub fn elem_size(&self) -> usize {
        self.erased().elem_size()
    }
    /// Kind-specific access (used by serializers and graph walks).
    pub fn access(&self) -> &FieldAccess {
        &self.access
    }
    /// The plain access, if this is a plain field.
    pub fn as_plain(&self) -> Option<&dyn PlainAccess> {
        match &self.access {
            FieldAccess::Plain(access) => Some(access.as_ref()),
            _ => None,
        }
    }
    /// The embedded access, if this is an embedded field.
    pub fn as_embedded(&self) -> Option<&dyn EmbeddedAccess> {
        match &self.access {
            FieldAccess::Embedded(access) => Some(access.as_ref()),
            _ => None,
        }
    }
    /// The pointer access, if this is a pointer field.
    pub fn as_pointer(&self) -> Option<&dyn PointerAccess> {
        match &self.access {
            FieldAccess::Pointer(access) => Some(access.as_ref()),
            _ => None,
        }
    }

    fn erased(&self) -> &dyn ErasedElems {
        match &self.access {
            FieldAccess::Plain(access) => access.as_ref(),
            FieldAccess::Embedded(access) => access.as_ref(),
            FieldAccess::Pointer(access) => access.as_ref(),
        }
    }

    /// Names this field in an error from its implementation.
    fn named(&self) -> impl Fn(FieldError) -> FieldError + '_ {
        |error| error.in_field(&self.name)
    }

    #[cold]
    fn wrong_kind(&self) -> FieldError {
        FieldError::WrongKind { field: self.name.to_string(), kind: self.kind() }
    }

    #[cold]
    fn wrong_type(&self) -> FieldError {
        FieldError::WrongType { field: self.name.to_string(), expected: self.elem_type_name() }
    }

    /// Number of elements: 1 for a single value, the length for an array.
    pub fn len(&self, owner: &dyn Reflectable) -> Result<usize, FieldError> {
        self.erased().len(owner).map_err(self.named())
    }

    /// Resizes an array field (`Vec`, `SmallVec`); new elements are `Default`. Fixed-size forms
    /// accept only their own length.
    pub fn resize(&self, owner: &mut dyn Reflectable, len: usize) -> Result<(), FieldError> {
        self.erased().resize(owner, len).map_err(self.named())
    }

    /// Runs `f` on element `index` as `&dyn Any` (the element's own Rust type: a plain value, an
    /// embedded object or its slot, or a pointer handle).
    pub fn with_elem<R>(
        &self,
        owner: &dyn Reflectable,
        index: usize,
        f: impl FnOnce(&dyn Any) -> R,
    ) -> Result<R, FieldError> {
        let mut f = Some(f);
        let mut result = None;
        self.erased().with_elem(owner, index, &mut |elem| result = f.take().map(|f| f(elem))).map_err(self.named())?;
        Ok(result.expect("with_elem calls its closure once on success"))
    }

    /// A clone of element `index` (0 for a single field), typed. For pointer fields this clones the
    /// shared handle.
    pub fn get_elem<T: Any + Clone>(&self, owner: &dyn Reflectable, index: usize) -> Result<T, FieldError> {
        self.with_elem(owner, index, |elem| elem.downcast_ref::<T>().cloned())?.ok_or_else(|| self.wrong_type())
    }

    /// A clone of a single field's value, typed.
    pub fn get<T: Any + Clone>(&self, owner: &dyn Reflectable) -> Result<T, FieldError> {
        self.get_elem(owner, 0)
    }

    /// Replaces element `index` with `value`.
    pub fn set_elem<T: Any>(&self, owner: &mut dyn Reflectable, index: usize, value: T) -> Result<(), FieldError> {
        self.erased().set_elem(owner, index, &mut Some(value)).map_err(self.named())
    }

    /// Replaces a single field's value.
    pub fn set<T: Any>(&self, owner: &mut dyn Reflectable, value: T) -> Result<(), FieldError> {
        self.set_elem(owner, 0, value)
    }

    /// Borrows element `index` of an embedded field (`None` for an empty `Option`).
    pub fn with_embedded<R>(
        &self,
        owner: &dyn Reflectable,
        index: usize,
        f: impl FnOnce(Option<&dyn Reflectable>) -> R,
    ) -> Result<R, FieldError> {
        let access = self.as_embedded().ok_or_else(|| self.wrong_kind())?;
        let mut f = Some(f);
        let mut result = None;
        access.with_value(owner, index, &mut |value| result = f.take().map(|f| f(value))).map_err(self.named())?;
        Ok(result.expect("with_value calls its closure once on success"))
    }

    /// Mutably borrows element `index` of an embedded field.
    pub fn with_embedded_mut<R>(
        &self,
        owner: &mut dyn Reflectable,
        index: usize,
        f: impl FnOnce(Option<&mut dyn Reflectable>) -> R,
    ) -> Result<R, FieldError> {
        let access = self.as_embedded().ok_or_else(|| self.wrong_kind())?;
        let mut f = Some(f);
        let mut result = None;
        access.with_value_mut(owner, index, &mut |value| result = f.take().map(|f| f(value))).map_err(self.named())?;
        Ok(result.expect("with_value_mut calls its closure once on success"))
    }

    /// Borrows the object element `index` of a pointer field points at (through its `RefCell` or
    /// lock; a `Weak` is upgraded). `f` gets `None` for a null or dead pointer.
    pub fn with_pointee<R>(
        &self,
        owner: &dyn Reflectable,
        index: usize,
        f: impl FnOnce(Option<&dyn Reflectable>) -> R,
    ) -> Result<R, FieldError> {
        match self.shared(owner, index)? {
            Some(handle) => handle.read(|object| f(Some(object))),
            None => Ok(f(None)),
        }
    }

    /// Mutably borrows the pointee of element `index` (needs `RefCell`, `Mutex` or `RwLock`).
    pub fn with_pointee_mut<R>(
        &self,
        owner: &dyn Reflectable,
        index: usize,
        f: impl FnOnce(Option<&mut dyn Reflectable>) -> R,
    ) -> Result<R, FieldError> {
        match self.shared(owner, index)? {
            Some(handle) => handle.write(|object| f(Some(object))),
            None => Ok(f(None)),
        }
    }

    /// `true` for a map field (values that are objects or pointers, see [`containers`](crate::containers)).
    pub fn is_map(&self) -> bool {
        matches!(self.shape.elem, ElemShape::Embedded(Declared::Type(rtti)) if !self.shape.array && rtti().id() == MAP_TYPE_ID)
    }

    /// Runs `f` on a map field's entries, typed.
    fn with_entries<K: PlainType, V: Element, R>(
        &self,
        owner: &dyn Reflectable,
        f: impl FnOnce(&MapEntries<K, V>) -> R,
    ) -> Result<R, FieldError> {
        self.with_embedded(owner, 0, |entries| entries.and_then(|entries| entries.downcast_ref().map(f)))?
            .ok_or_else(|| self.wrong_type())
    }

    /// Runs `f` on a map field's entries, typed and mutably; the map is rebuilt from them after.
    fn with_entries_mut<K: PlainType, V: Element, R>(
        &self,
        owner: &mut dyn Reflectable,
        f: impl FnOnce(&mut MapEntries<K, V>) -> R,
    ) -> Result<R, FieldError> {
        self.with_embedded_mut(owner, 0, |entries| entries.and_then(|entries| entries.downcast_mut().map(f)))?
            .ok_or_else(|| self.wrong_type())
    }

    /// The keys of a map field, in the order the format writes them.
    ///
    /// A map field is reached through its entries (see [`MapEntries`]): every `map_*` call copies
    /// the map's keys and values out and, for changes, builds the map again from them. That is
    /// linear in the map (and clones embedded values): right for editors and tools, not for a
    /// per-frame loop, which should use the map itself.
    ///
    /// ```
    /// use reflectable::Reflectable;
    /// use std::collections::HashMap;
    /// use std::rc::Rc;
    ///
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9500)]
    /// struct Material {
    ///     #[rtti(id = 1)]
    ///     shininess: f32,
    /// }
    ///
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9501)]
    /// struct Library {
    ///     #[rtti(id = 1)]
    ///     materials: HashMap<String, Rc<Material>>,
    /// }
    ///
    /// let mut library = Library::default();
    /// let field = Library::rtti_static().field_by_name("materials").unwrap();
    /// assert!(field.is_map());
    /// field.map_insert(&mut library, "gold".to_string(), Rc::new(Material { shininess: 0.9 })).unwrap();
    /// assert_eq!(field.map_keys::<String>(&library).unwrap(), ["gold"]);
    /// let gold: Rc<Material> = field.map_get(&library, &"gold".to_string()).unwrap().unwrap();
    /// assert_eq!(gold.shininess, 0.9);
    /// assert!(field.map_remove::<String, Rc<Material>>(&mut library, &"gold".to_string()).unwrap().is_some());
    /// assert!(library.materials.is_empty());
    /// ```
    pub fn map_keys<K: PlainType + Clone>(&self, owner: &dyn Reflectable) -> Result<Vec<K>, FieldError> {
        let mut keys = None;
        self.with_embedded(owner, 0, |entries| {
            if let Some(entries) = entries {
                // The value type is not known here: read the keys field through RTTI.
                let field = entries.rtti().field(1);
                keys = field.and_then(|field| {
                    (0..field.len(entries).ok()?).map(|i| field.get_elem::<K>(entries, i).ok()).collect()
                });
            }
        })?;
        keys.ok_or_else(|| self.wrong_type())
    }

    /// A clone of the value under `key` in a map field (for pointers, a clone of the handle).
    pub fn map_get<K: PlainType + PartialEq, V: Element + Clone>(
        &self,
        owner: &dyn Reflectable,
        key: &K,
    ) -> Result<Option<V>, FieldError> {
        self.with_entries(owner, |entries: &MapEntries<K, V>| {
            entries.keys.iter().position(|k| k == key).and_then(|i| entries.values.get(i)?.0.clone())
        })
    }

    /// Puts `value` under `key` in a map field; returns the value it replaces.
    pub fn map_insert<K: PlainType + PartialEq, V: Element>(
        &self,
        owner: &mut dyn Reflectable,
        key: K,
        value: V,
    ) -> Result<Option<V>, FieldError> {
        self.with_entries_mut(owner, |entries: &mut MapEntries<K, V>| {
            match entries.keys.iter().position(|k| *k == key) {
                Some(i) if i < entries.values.len() => {
                    std::mem::replace(&mut entries.values[i], MapValue(Some(value))).0
                }
                _ => {
                    entries.keys.push(key);
                    entries.values.push(MapValue(Some(value)));
                    None
                }
            }
        })
    }

    /// Takes the value under `key` out of a map field.
    pub fn map_remove<K: PlainType + PartialEq, V: Element>(
        &self,
        owner: &mut dyn Reflectable,
        key: &K,
    ) -> Result<Option<V>, FieldError> {
        self.with_entries_mut(owner, |entries: &mut MapEntries<K, V>| {
            let i = entries.keys.iter().position(|k| k == key).filter(|&i| i < entries.values.len())?;
            entries.keys.remove(i);
            entries.values.remove(i).0
        })
    }

    /// A type-erased strong handle to the pointee of element `index` (`None` when null or dead).
    pub fn shared(&self, owner: &dyn Reflectable, index: usize) -> Result<Option<SharedObject>, FieldError> {
        let access = self.as_pointer().ok_or_else(|| self.wrong_kind())?;
        access.shared(owner, index).map_err(self.named())
    }
}
