//! Field descriptors: one [`RttiField`] per reflected member, in one of three kinds, each also as
//! an array.
//!
//! | kind | element types | file |
//! |---|---|---|
//! | [`FieldKind::Plain`] | any [`PlainType`] | `plain.rs` |
//! | [`FieldKind::Embedded`] | `T: Reflectable`, `Box<dyn Reflectable>`, `Box<dyn UserTrait>`, `Option` of these | `embedded.rs` |
//! | [`FieldKind::Pointer`] | `Rc<T>`, `Rc<RefCell<T>>`, `Arc<T>`, `Arc<Mutex<T>>`, `Arc<RwLock<T>>`, their `Weak`s, `Option` of the strong ones; `T` may be `dyn UserTrait` | `pointer.rs` |
//!
//! A field reaches its storage through an [`Accessor`] (a real member, or a getter/setter pair for
//! computed data) and holds its elements in a [`Shape`] (a single value, `Vec`, `[T; N]`,
//! `SmallVec`). The dynamic access methods of [`RttiField`] work the same for every combination.

mod access;
mod cast;
mod embedded;
mod plain;
mod pointer;

pub use access::{Accessor, ArrayShape, Container, Getter, One, Setter, Shape, SmallVecShape, VecShape};
pub use cast::{TraitCast, TraitCastFn};
pub use embedded::{boxed_trait_object, EmbeddedAccess, EmbeddedSlot};
pub use plain::PlainAccess;
pub use pointer::{Family, PointerAccess, PointerSlot, PointerVisitor, SharedHandle, SharedObject, UpcastFn};

use crate::plain::{PlainError, PlainType};
use crate::rtti::{Reflectable, RttiType};
use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::fmt;
use thiserror::Error;

/// Flag bit: the field is left out of reference searches such as collecting resource dependencies
/// (Banshee's `SkipInReferenceSearch`). The other bits of [`RttiField::flags`] are the user's.
pub const SKIP_REFERENCE_SEARCH: u64 = 1 << 0;

/// The three field kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// Copied through a [`PlainType`] codec.
    Plain,
    /// Another reflectable object stored by value.
    Embedded,
    /// A shared pointer to a reflectable object; identity and sharing are preserved.
    Pointer,
}

/// What a reflectable or pointer field declares its elements to be.
#[derive(Clone, Copy)]
pub enum Declared {
    /// Exactly this type.
    Type(fn() -> &'static RttiType),
    /// Any registered type implementing the named trait (`"Reflectable"` for `dyn Reflectable`).
    Trait(&'static str),
}

impl Declared {
    /// The declared type, or `None` for a trait object.
    pub fn rtti(&self) -> Option<&'static RttiType> {
        match self {
            Declared::Type(rtti) => Some(rtti()),
            Declared::Trait(_) => None,
        }
    }
}

impl fmt::Debug for Declared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Declared::Type(rtti) => write!(f, "Type({})", rtti().name()),
            Declared::Trait(name) => write!(f, "dyn {name}"),
        }
    }
}

/// Codec facts about a plain field's element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlainInfo {
    /// The [`PlainType::TYPE_ID`].
    pub type_id: u32,
    /// The [`PlainType::STATIC_SIZE`] (`None` = dynamic size).
    pub static_size: Option<u32>,
}

impl PlainInfo {
    /// The facts for `T`.
    pub const fn of<T: PlainType>() -> Self {
        PlainInfo { type_id: T::TYPE_ID, static_size: T::STATIC_SIZE }
    }
}

/// What a field's elements are.
#[derive(Debug, Clone, Copy)]
pub enum ElemInfo {
    /// A plain value.
    Plain(PlainInfo),
    /// An embedded object (a reflectable object stored by value).
    Embedded(Declared),
    /// A shared pointer of the given family; `weak` for `Weak` handles.
    Pointer {
        /// What it points at.
        declared: Declared,
        /// The handle family.
        family: Family,
        /// `true` for `Weak` handles.
        weak: bool,
    },
}

/// Dynamic field access failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FieldError {
    /// The object passed is not of the type that owns the field.
    #[error("field `{field}` belongs to `{owner}`, not to the object given")]
    WrongOwner {
        /// Field name.
        field: String,
        /// Rust name of the owning type.
        owner: &'static str,
    },
    /// The value's Rust type is not the field's element type.
    #[error("field `{field}` holds `{expected}` elements, not the type given")]
    WrongType {
        /// Field name.
        field: String,
        /// Rust name of the element type.
        expected: &'static str,
    },
    /// The operation does not apply to this field's kind.
    #[error("field `{field}` is a {kind:?} field; the operation needs another kind")]
    WrongKind {
        /// Field name.
        field: String,
        /// The field's kind.
        kind: FieldKind,
    },
    /// The element index is past the end.
    #[error("index {index} out of range for a field of {len} elements")]
    OutOfRange {
        /// Requested index.
        index: usize,
        /// Elements present.
        len: usize,
    },
    /// The container has a fixed number of elements.
    #[error("the field holds exactly {expected} elements, not {got}")]
    FixedLength {
        /// Length it must have.
        expected: usize,
        /// Length asked for.
        got: usize,
    },
    /// The element type has no default to fill new slots with.
    #[error("elements of this field cannot be created empty: no Default")]
    NoDefault,
    /// The field cannot hold `None`.
    #[error("this field cannot hold a null value")]
    NotNullable,
    /// A `RefCell` was already borrowed in a conflicting way.
    #[error("the pointee is already borrowed")]
    Borrowed,
    /// A `Mutex`/`RwLock` was poisoned by a panic.
    #[error("the pointee's lock is poisoned")]
    Poisoned,
    /// The pointer family gives only shared access (`Rc<T>`, `Arc<T>`).
    #[error("`Rc<T>`/`Arc<T>` pointees are immutable; use `Rc<RefCell<T>>` or a lock")]
    NotMutable,
    /// A plain value read through the field failed to decode.
    #[error(transparent)]
    Plain(#[from] PlainError),
    /// A plain value's encoding had another size than its type declares.
    #[error("plain type {type_name} wrote {written} bytes but declares a static size of {declared}")]
    SizeMismatch {
        /// Rust name of the plain type.
        type_name: &'static str,
        /// Declared static size.
        declared: u32,
        /// Bytes actually written.
        written: usize,
    },
}

/// The operations every field supports, whatever its kind. Owners are passed as `&dyn Any` (an
/// upcast `&dyn Reflectable`) and downcast once per call.
pub trait ErasedElems: Send + Sync {
    /// `TypeId` of the owning type.
    fn owner_type(&self) -> TypeId;
    /// Rust name of the owning type.
    fn owner_type_name(&self) -> &'static str;
    /// `TypeId` of one element.
    fn elem_type(&self) -> TypeId;
    /// Rust name of one element type.
    fn elem_type_name(&self) -> &'static str;
    /// `size_of` one element: what each element of an array takes in its container.
    fn elem_size(&self) -> usize;
    /// `true` for array forms.
    fn is_array(&self) -> bool;
    /// `true` for a getter/setter field.
    fn is_computed(&self) -> bool;
    /// Number of elements (1 for a single value).
    fn len(&self, owner: &dyn Any) -> Option<usize>;
    /// Changes the number of elements.
    fn resize(&self, owner: &mut dyn Any, len: usize) -> Result<(), FieldError>;
    /// Runs `f` on element `index` as `&dyn Any`. `Ok(false)` when the owner has the wrong type.
    fn with_elem(&self, owner: &dyn Any, index: usize, f: &mut dyn FnMut(&dyn Any)) -> Result<bool, FieldError>;
    /// Moves the value out of `value` (a `&mut Option<Elem>`) into element `index`.
    fn set_elem(&self, owner: &mut dyn Any, index: usize, value: &mut dyn Any) -> Result<bool, FieldError>;
}

/// Kind-specific access, boxed once per field.
pub enum FieldAccess {
    /// A plain field.
    Plain(Box<dyn PlainAccess>),
    /// An embedded field.
    Embedded(Box<dyn EmbeddedAccess>),
    /// A reflectable-pointer field.
    Pointer(Box<dyn PointerAccess>),
}

/// One reflected field of a type.
pub struct RttiField {
    id: u16,
    name: Cow<'static, str>,
    flags: u64,
    access: FieldAccess,
}

impl fmt::Debug for RttiField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RttiField")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("kind", &self.kind())
            .field("array", &self.is_array())
            .field("elem", &self.elem_info())
            .field("flags", &self.flags)
            .finish()
    }
}

impl RttiField {
    /// A field from its parts; normally made by the derive or [`crate::rtti::RttiTypeBuilder`].
    pub fn new(id: u16, name: impl Into<Cow<'static, str>>, flags: u64, access: FieldAccess) -> Self {
        RttiField { id, name: name.into(), flags, access }
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
    /// The field's flags ([`SKIP_REFERENCE_SEARCH`] and user bits).
    pub fn flags(&self) -> u64 {
        self.flags
    }
    /// `true` when every bit of `flag` is set.
    pub fn has_flag(&self, flag: u64) -> bool {
        self.flags & flag == flag
    }
    /// The field's kind.
    pub fn kind(&self) -> FieldKind {
        match self.access {
            FieldAccess::Plain(_) => FieldKind::Plain,
            FieldAccess::Embedded(_) => FieldKind::Embedded,
            FieldAccess::Pointer(_) => FieldKind::Pointer,
        }
    }
    /// `true` for `Vec`, `[T; N]` and `SmallVec` fields.
    pub fn is_array(&self) -> bool {
        self.erased().is_array()
    }
    /// `true` for a getter/setter pair (computed stored form).
    pub fn is_computed(&self) -> bool {
        self.erased().is_computed()
    }
    /// What the elements are.
    pub fn elem_info(&self) -> ElemInfo {
        match &self.access {
            FieldAccess::Plain(access) => ElemInfo::Plain(access.info()),
            FieldAccess::Embedded(access) => ElemInfo::Embedded(access.declared()),
            FieldAccess::Pointer(access) => {
                ElemInfo::Pointer { declared: access.declared(), family: access.family(), weak: access.is_weak() }
            }
        }
    }
    /// Rust name of one element's type.
    pub fn elem_type_name(&self) -> &'static str {
        self.erased().elem_type_name()
    }
    /// `size_of` one element.
    pub fn elem_size(&self) -> usize {
        self.erased().elem_size()
    }
    /// Kind-specific access (used by serializers).
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

    fn wrong_owner(&self) -> FieldError {
        FieldError::WrongOwner { field: self.name.to_string(), owner: self.erased().owner_type_name() }
    }

    fn wrong_kind(&self) -> FieldError {
        FieldError::WrongKind { field: self.name.to_string(), kind: self.kind() }
    }

    fn wrong_type(&self) -> FieldError {
        FieldError::WrongType { field: self.name.to_string(), expected: self.elem_type_name() }
    }

    fn check<T>(&self, result: Result<bool, FieldError>, value: Option<T>) -> Result<T, FieldError> {
        match (result?, value) {
            (false, _) => Err(self.wrong_owner()),
            (true, Some(value)) => Ok(value),
            (true, None) => Err(self.wrong_type()),
        }
    }

    /// Number of elements: 1 for a single value, the length for an array.
    pub fn len(&self, owner: &dyn Reflectable) -> Result<usize, FieldError> {
        self.erased().len(owner).ok_or_else(|| self.wrong_owner())
    }

    /// Resizes an array field (`Vec`, `SmallVec`); new elements are `Default`. Fixed-size forms
    /// accept only their own length.
    pub fn resize(&self, owner: &mut dyn Reflectable, len: usize) -> Result<(), FieldError> {
        if self.erased().owner_type() != (*owner).type_id() {
            return Err(self.wrong_owner());
        }
        self.erased().resize(owner, len)
    }

    /// Runs `f` on element `index` as `&dyn Any` (the element's own Rust type: a plain value, a
    /// embedded object or its slot, or a pointer handle).
    pub fn with_elem<R>(
        &self,
        owner: &dyn Reflectable,
        index: usize,
        f: impl FnOnce(&dyn Any) -> R,
    ) -> Result<R, FieldError> {
        let mut f = Some(f);
        let mut result = None;
        let found = self.erased().with_elem(owner, index, &mut |elem| result = f.take().map(|f| f(elem)));
        self.check(found, result)
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
        let mut slot = Some(value);
        let found = self.erased().set_elem(owner, index, &mut slot);
        self.check(found, if slot.is_none() { Some(()) } else { None })
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
        let found = access.with_value(owner, index, &mut |value| result = f.take().map(|f| f(value)));
        self.check(found, result)
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
        let found = access.with_value_mut(owner, index, &mut |value| result = f.take().map(|f| f(value)));
        self.check(found, result)
    }

    /// Borrows the object element `index` of a pointer field points at (through its `RefCell` or
    /// lock; a `Weak` is upgraded). `f` gets `None` for a null or dead pointer.
    pub fn with_pointee<R>(
        &self,
        owner: &dyn Reflectable,
        index: usize,
        f: impl FnOnce(Option<&dyn Reflectable>) -> R,
    ) -> Result<R, FieldError> {
        let handle = self.shared(owner, index)?;
        match handle {
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

    /// A type-erased strong handle to the pointee of element `index` (`None` when null or dead).
    pub fn shared(&self, owner: &dyn Reflectable, index: usize) -> Result<Option<SharedObject>, FieldError> {
        let access = self.as_pointer().ok_or_else(|| self.wrong_kind())?;
        let mut handle = None;
        let found = access.shared(owner, index, &mut |shared| handle = shared);
        self.check(found, Some(()))?;
        Ok(handle)
    }
}

/// Element `index` of `elems`, or [`FieldError::OutOfRange`].
#[inline]
pub(crate) fn elem_at<E>(elems: &[E], index: usize) -> Result<&E, FieldError> {
    elems.get(index).ok_or(FieldError::OutOfRange { index, len: elems.len() })
}

/// Mutable [`elem_at`].
#[inline]
pub(crate) fn elem_at_mut<E>(elems: &mut [E], index: usize) -> Result<&mut E, FieldError> {
    let len = elems.len();
    elems.get_mut(index).ok_or(FieldError::OutOfRange { index, len })
}

/// Downcasts an owner for a field implementation.
#[inline]
pub(crate) fn owner_ref<O: 'static>(owner: &dyn Any) -> Option<&O> {
    owner.downcast_ref::<O>()
}

/// Mutable [`owner_ref`].
#[inline]
pub(crate) fn owner_mut<O: 'static>(owner: &mut dyn Any) -> Option<&mut O> {
    owner.downcast_mut::<O>()
}

/// The field implementation shared by all kinds: an accessor, a shape and an optional default
/// element for growing arrays. The kind-specific traits are implemented for it in the kind files.
pub struct FieldImpl<O, C, S: Shape<C>> {
    pub(crate) access: Accessor<O, C>,
    pub(crate) fill: Option<fn() -> S::Elem>,
}

impl<O, C, S: Shape<C>> FieldImpl<O, C, S> {
    /// A field implementation; `fill` makes new elements when an array grows.
    pub fn new(access: Accessor<O, C>, fill: Option<fn() -> S::Elem>) -> Self {
        FieldImpl { access, fill }
    }
}

impl<O: 'static, C: 'static, S: Shape<C>> ErasedElems for FieldImpl<O, C, S>
where
    Self: Send + Sync,
{
    fn owner_type(&self) -> TypeId {
        TypeId::of::<O>()
    }
    fn owner_type_name(&self) -> &'static str {
        std::any::type_name::<O>()
    }
    fn elem_type(&self) -> TypeId {
        TypeId::of::<S::Elem>()
    }
    fn elem_type_name(&self) -> &'static str {
        std::any::type_name::<S::Elem>()
    }
    fn elem_size(&self) -> usize {
        std::mem::size_of::<S::Elem>()
    }
    fn is_array(&self) -> bool {
        S::ARRAY
    }
    fn is_computed(&self) -> bool {
        self.access.is_computed()
    }
    fn len(&self, owner: &dyn Any) -> Option<usize> {
        owner_ref::<O>(owner).map(|owner| self.access.with(owner, |c| S::as_slice(c).len()))
    }
    fn resize(&self, owner: &mut dyn Any, len: usize) -> Result<(), FieldError> {
        let Some(owner) = owner_mut::<O>(owner) else {
            return Ok(());
        };
        match self.fill {
            Some(fill) => self.access.modify(owner, |c| S::resize(c, len, fill)),
            None => {
                let current = self.access.with(owner, |c| S::as_slice(c).len());
                if current == len {
                    Ok(())
                } else if S::ARRAY {
                    Err(FieldError::NoDefault)
                } else {
                    Err(FieldError::FixedLength { expected: 1, got: len })
                }
            }
        }
    }
    fn with_elem(&self, owner: &dyn Any, index: usize, f: &mut dyn FnMut(&dyn Any)) -> Result<bool, FieldError> {
        let Some(owner) = owner_ref::<O>(owner) else {
            return Ok(false);
        };
        self.access.with(owner, |c| {
            let elem = elem_at(S::as_slice(c), index)?;
            f(elem);
            Ok(true)
        })
    }
    fn set_elem(&self, owner: &mut dyn Any, index: usize, value: &mut dyn Any) -> Result<bool, FieldError> {
        let Some(owner) = owner_mut::<O>(owner) else {
            return Ok(false);
        };
        let Some(value) = value.downcast_mut::<Option<S::Elem>>() else {
            return Ok(true);
        };
        self.access.modify(owner, |c| {
            let slot = elem_at_mut(S::as_mut_slice(c), index)?;
            if let Some(value) = value.take() {
                *slot = value;
            }
            Ok(true)
        })
    }
}
