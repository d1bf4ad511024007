//! Deep and shallow clones of object graphs through RTTI, with no byte round trip: Banshee's
//! `BinaryCloner`, for any reflectable object (derived, builder-declared, defined at run time).
//!
//! A **deep** clone copies the object and the *subgraph* it owns: every object it reaches through
//! strong pointers. Inside the subgraph, sharing is kept (two pointers to one object point at one
//! clone), and cycles and `Weak`s are re-linked to the clones. Pointers that leave the subgraph
//! (a `Weak` to an object outside it) keep pointing at the originals. Pointers to *assets* are
//! shared, not cloned: those to objects of asset types (types with an asset key, see
//! [`AssetKey`](crate::rtti::AssetKey)), those in fields flagged [`ASSET`] (or the flags given
//! to [`Cloner::share_flags`]), and those to objects of the types given to
//! [`Cloner::share_type`]. A **shallow** clone copies the object (and what it holds by value) and
//! keeps every pointer.
//!
//! Fields marked `#[rtti(skip)]` are not reflected, so a clone has their `Default`; the clone's
//! `on_deserialization_started` / `on_deserialization_ended` hooks run as after a load, with `()`
//! as the context, so a type that rebuilds such state on load rebuilds it here too.
//!
//! ```
//! use reflectable::clone::Cloner;
//! use reflectable::field::ASSET;
//! use reflectable::Reflectable;
//! use std::cell::RefCell;
//! use std::rc::{Rc, Weak};
//!
//! #[derive(Reflectable, Default)]
//! #[rtti(id = 9800)]
//! struct Texture {
//!     #[rtti(id = 1)]
//!     path: String,
//! }
//!
//! #[derive(Reflectable, Default)]
//! #[rtti(id = 9801)]
//! struct Entity {
//!     #[rtti(id = 1)]
//!     name: String,
//!     #[rtti(id = 2)]
//!     children: Vec<Rc<RefCell<Entity>>>,
//!     #[rtti(id = 3)]
//!     parent: Weak<RefCell<Entity>>,
//!     #[rtti(id = 4, flags = ASSET)]
//!     texture: Option<Rc<Texture>>,
//! }
//!
//! let stone = Rc::new(Texture { path: "stone.png".into() });
//! let root = Rc::new(RefCell::new(Entity { name: "wall".into(), ..Default::default() }));
//! let brick = Rc::new(RefCell::new(Entity { name: "brick".into(), texture: Some(stone.clone()), ..Default::default() }));
//! brick.borrow_mut().parent = Rc::downgrade(&root);
//! root.borrow_mut().children = vec![brick.clone(), brick.clone()];
//!
//! let copy = Cloner::new().clone_handle(&root).unwrap();
//! let children = copy.borrow().children.clone();
//! assert!(Rc::ptr_eq(&children[0], &children[1]), "sharing is kept");
//! assert!(!Rc::ptr_eq(&children[0], &brick), "the subgraph is cloned");
//! let child = children[0].borrow();
//! assert_eq!(child.name, "brick");
//! assert!(Rc::ptr_eq(&child.parent.upgrade().unwrap(), &copy), "the Weak is re-linked to the clone");
//! assert!(Rc::ptr_eq(child.texture.as_ref().unwrap(), &stone), "assets are shared");
//!
//! // A shallow clone copies the root's own fields and keeps every pointer.
//! let shallow = Cloner::new().shallow().clone_handle(&root).unwrap();
//! assert!(Rc::ptr_eq(&shallow.borrow().children[0], &brick));
//! ```

mod run;

use crate::field::{FieldError, RttiField, SharedHandle, SharedObject, ASSET};
use crate::rtti::{Reflectable, Registry, RttiType};
use run::Run;
use thiserror::Error;

/// Why a clone could not be made.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CloneError {
    /// An object's type cannot make fresh instances (abstract, or declared without a default
    /// constructor).
    #[error("cannot clone a `{type_name}`: the type has no constructor")]
    NoConstructor {
        /// The type.
        type_name: String,
    },
    /// A field could not be read or written (a `RefCell` borrowed elsewhere, a poisoned lock).
    #[error("`{type_name}.{field}`: {source}")]
    Field {
        /// The type declaring the field.
        type_name: String,
        /// The field.
        field: String,
        /// What went wrong.
        #[source]
        source: FieldError,
    },
    /// A field refused the clone it was given (a trait object field whose cast the registry
    /// does not know).
    #[error("`{type_name}.{field}` cannot hold the clone of an object it held")]
    Refused {
        /// The type declaring the field.
        type_name: String,
        /// The field.
        field: String,
    },
    /// A shared object could not be read (a `RefCell` borrowed mutably elsewhere, a poisoned
    /// lock).
    #[error("a shared object could not be read: {0}")]
    Pointee(#[source] FieldError),
    /// A shared root's allocation could not be made into the handle asked for.
    #[error("the clone of the root is not a `{handle}`")]
    RootHandle {
        /// The Rust name of the handle type.
        handle: &'static str,
    },
}

impl CloneError {
    /// Names a field in an error about it (its names copied only when there is an error).
    pub(super) fn field<'a>(rtti: &'a RttiType, field: &'a RttiField) -> impl Fn(FieldError) -> CloneError + 'a {
        move |source| CloneError::Field { type_name: rtti.name().to_owned(), field: field.name().to_owned(), source }
    }
}

/// Clones objects and graphs through RTTI; see the [module docs](self).
///
/// ```
/// use reflectable::clone::Cloner;
/// use reflectable::Reflectable;
/// use std::rc::Rc;
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_970_003)]
/// # struct Mesh { #[rtti(id = 1)] vertices: Vec<f32> }
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_970_004)]
/// # struct Model { #[rtti(id = 1)] name: String, #[rtti(id = 2)] mesh: Option<Rc<Mesh>> }
///
/// let mesh = Rc::new(Mesh { vertices: vec![1.0, 2.0] });
/// let model = Model { name: "crate".into(), mesh: Some(mesh.clone()) };
///
/// let deep = Cloner::new().clone_value(&model).unwrap();
/// assert!(!Rc::ptr_eq(deep.mesh.as_ref().unwrap(), &mesh), "deep by default: the mesh is copied");
/// assert_eq!(deep.mesh.unwrap().vertices, [1.0, 2.0]);
///
/// // Meshes shared like assets: the clone points at the same one.
/// let cloner = Cloner::new().share_type(Mesh::rtti_static().id());
/// let copy = cloner.clone_value(&model).unwrap();
/// assert!(Rc::ptr_eq(copy.mesh.as_ref().unwrap(), &mesh));
///
/// // Any object, through `dyn Reflectable`.
/// let boxed = cloner.clone_object(&model).unwrap();
/// assert_eq!(boxed.cast::<Model>().unwrap().name, "crate");
/// ```
#[derive(Clone)]
pub struct Cloner<'r> {
    registry: &'r Registry,
    deep: bool,
    share_flags: u64,
    shared_types: Vec<u32>,
}

impl std::fmt::Debug for Cloner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cloner")
            .field("deep", &self.deep)
            .field("share_flags", &self.share_flags)
            .field("shared_types", &self.shared_types)
            .finish_non_exhaustive()
    }
}

impl Default for Cloner<'static> {
    fn default() -> Self {
        Cloner::new()
    }
}

impl Cloner<'static> {
    /// A deep cloner sharing pointers in fields flagged [`ASSET`], casting trait objects with
    /// the global registry.
    pub fn new() -> Self {
        Cloner::with_registry(Registry::global())
    }
}

impl<'r> Cloner<'r> {
    /// A deep cloner that casts trait objects with `registry`.
    pub fn with_registry(registry: &'r Registry) -> Self {
        Cloner { registry, deep: true, share_flags: ASSET, shared_types: Vec::new() }
    }

    /// Makes the clones shallow: the object and what it holds by value are copied, every pointer
    /// keeps its target.
    pub fn shallow(mut self) -> Self {
        self.deep = false;
        self
    }

    /// Pointer fields with any of `flags` keep their targets (default [`ASSET`]; 0 clones
    /// through every pointer but those to objects of asset types, which are always kept: a
    /// clone never copies an asset).
    pub fn share_flags(mut self, flags: u64) -> Self {
        self.share_flags = flags;
        self
    }

    /// Pointers to objects of type `type_id`, or of a type derived from it, keep their targets.
    pub fn share_type(mut self, type_id: u32) -> Self {
        self.shared_types.push(type_id);
        self
    }

    /// A clone of `object` (a deep or shallow one, as configured).
    pub fn clone_object(&self, object: &dyn Reflectable) -> Result<Box<dyn Reflectable>, CloneError> {
        Run::new(self).root_object(object)
    }

    /// A clone of `object`, typed.
    pub fn clone_value<T: Reflectable>(&self, object: &T) -> Result<T, CloneError> {
        let clone = self.clone_object(object)?;
        Ok(*clone.downcast_box::<T>().unwrap_or_else(|_| unreachable!("a clone has its original's type")))
    }

    /// A clone of the object in a shared allocation, in a new allocation of the same family. A
    /// pointer inside the subgraph back to `root` points at the clone.
    pub fn clone_shared(&self, root: &SharedObject) -> Result<SharedObject, CloneError> {
        Run::new(self).root_shared(root)
    }

    /// [`clone_shared`](Self::clone_shared) for a typed handle (`Rc<RefCell<T>>`, `Arc<T>`, ...).
    pub fn clone_handle<H: SharedHandle>(&self, root: &H) -> Result<H, CloneError> {
        let clone = self.clone_shared(&SharedObject::new(root.clone()))?;
        clone.cast_in::<H>(self.registry).ok_or(CloneError::RootHandle { handle: std::any::type_name::<H>() })
    }

    pub(super) fn shares_field(&self, field: &RttiField) -> bool {
        field.flags() & self.share_flags != 0
    }

    /// Whether pointers to `target` keep it: an asset, or of a type given to
    /// [`share_type`](Self::share_type). The target is read only when the registry has asset
    /// types or types were given.
    pub(super) fn shares_type(&self, target: &SharedObject) -> bool {
        (Registry::global().has_assets() || self.registry.has_assets() || !self.shared_types.is_empty())
            && target
                .read(|object| {
                    let rtti = object.rtti();
                    rtti.is_asset() || rtti.chain().any(|rtti| self.shared_types.contains(&rtti.id()))
                })
                .unwrap_or(false)
    }
}

/// A deep clone of `object` with the default [`Cloner`].
///
/// ```
/// use reflectable::Reflectable;
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9802)]
/// struct Note {
///     #[rtti(id = 1)]
///     text: String,
/// }
/// let copy = reflectable::clone::deep_clone(&Note { text: "hi".into() }).unwrap();
/// assert_eq!(copy.text, "hi");
/// ```
pub fn deep_clone<T: Reflectable>(object: &T) -> Result<T, CloneError> {
    Cloner::new().clone_value(object)
}

/// A shallow clone of `object`: its own fields copied, every pointer kept.
///
/// ```
/// use reflectable::clone::{deep_clone, shallow_clone};
/// use std::rc::Rc;
/// # use reflectable::Reflectable;
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_970_001)]
/// # struct Leaf { #[rtti(id = 1)] n: u32 }
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_970_002)]
/// # struct Pair { #[rtti(id = 1)] name: String, #[rtti(id = 2)] leaf: Option<Rc<Leaf>> }
///
/// let leaf = Rc::new(Leaf { n: 7 });
/// let pair = Pair { name: "a".into(), leaf: Some(leaf.clone()) };
///
/// let shallow = shallow_clone(&pair).unwrap();
/// assert_eq!(shallow.name, "a");
/// assert!(Rc::ptr_eq(shallow.leaf.as_ref().unwrap(), &leaf), "the pointer is kept");
///
/// let deep = deep_clone(&pair).unwrap();
/// assert!(!Rc::ptr_eq(deep.leaf.as_ref().unwrap(), &leaf), "a deep clone copies the leaf");
/// assert_eq!(deep.leaf.unwrap().n, 7);
/// ```
pub fn shallow_clone<T: Reflectable>(object: &T) -> Result<T, CloneError> {
    Cloner::new().shallow().clone_value(object)
}
