//! Field descriptors: one [`RttiField`] per reflected member, in one of three kinds, each also as
//! an array.
//!
//! | kind | element types | file |
//! |---|---|---|
//! | [`FieldKind::Plain`] | any [`PlainType`](crate::plain::PlainType) | `plain.rs` |
//! | [`FieldKind::Embedded`] | `T: Reflectable`, `Box<dyn Reflectable>`, `Box<dyn UserTrait>`, `Option` of these | `embedded.rs` |
//! | [`FieldKind::Pointer`] | `Rc<T>`, `Rc<RefCell<T>>`, `Arc<T>`, `Arc<Mutex<T>>`, `Arc<RwLock<T>>`, their `Weak`s, `Option` of the strong ones; `T` may be `dyn UserTrait` | `pointer.rs` |
//!
//! A field reaches its storage through an accessor (a real member, or a getter/setter pair for
//! computed data; `access.rs`) and holds its elements in a shape (a single value, or a
//! [`Container`]: `Vec`, `[T; N]`, `SmallVec`); `erased.rs` joins the two into the one field implementation. What a field holds is
//! described once, when its type is built, by a [`FieldShape`] (`shape.rs`). The dynamic access
//! methods of [`RttiField`] (`rtti_field.rs`) work the same for every combination, and report a
//! wrong owner, kind or element type as a [`FieldError`].

pub(crate) mod access;
pub(crate) mod cast;
mod elems;
pub(crate) mod embedded;
mod erased;
mod error;
mod plain;
mod pointer;
mod rtti_field;
mod shape;
mod shared_object;

pub(crate) use access::VecShape;
pub use access::{Accessor, Container, One, Shape};
pub(crate) use cast::CastTable;
pub(crate) use elems::{embedded_elems, pointer_elems, read_plain};
pub use embedded::{EmbeddedAccess, EmbeddedSlot};
pub use erased::ErasedElems;
pub(crate) use erased::FieldImpl;
pub use error::FieldError;
pub use plain::PlainAccess;
pub(crate) use plain::{same_plains, write_plain};
pub use pointer::{Family, PointerAccess, PointerSlot, SharedHandle};
pub use rtti_field::RttiField;
pub(crate) use rtti_field::{DeclaredAsset, TraitCheck};
pub use shape::{Declared, ElemShape, FieldKind, FieldShape, PlainInfo, WireKind, WireShape};
pub use shared_object::SharedObject;
pub(crate) use shared_object::{HandleKind, HandleSlot};

pub(crate) use erased::{elem_at, elem_at_mut, owner_mut, owner_ref};

/// Flag bit: the field is left out of reference searches such as collecting resource dependencies
/// (Banshee's `SkipInReferenceSearch`). Bits 0 to 7 of [`RttiField::flags`] are the crate's; the
/// others are the user's.
pub const SKIP_REFERENCE_SEARCH: u64 = 1 << 0;

/// Flag bit: the field's pointers are references to assets (textures, meshes) that a deep clone
/// shares instead of copying (see [`Cloner`](crate::clone::Cloner)).
pub const ASSET: u64 = 1 << 1;

/// Kind-specific access, boxed once per field.
pub enum FieldAccess {
    /// A plain field.
    Plain(Box<dyn PlainAccess>),
    /// An embedded field.
    Embedded(Box<dyn EmbeddedAccess>),
    /// A pointer field.
    Pointer(Box<dyn PointerAccess>),
}
