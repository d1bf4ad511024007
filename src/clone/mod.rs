//! Deep and shallow clones of object graphs through RTTI, with no byte round trip: Banshee's
//! `BinaryCloner`, for any reflectable object (derived, builder-declared, defined at run time).
//!
//! A **deep** clone copies the object and the *subgraph* it owns: every object it reaches through
//! strong pointers. Inside the subgraph, sharing is kept (two pointers to one object point at one
//! clone), and cycles and `Weak`s are re-linked to the clones. Pointers that leave the subgraph
//! (a `Weak` to an object outside it) keep pointing at the originals. Pointers to *assets* are
//! shared, not cloned: those in fields flagged [`ASSET`](crate::field::ASSET) (or the flags given
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

use crate::field::{FieldAccess, FieldError, RttiField, SharedHandle, SharedObject, ASSET};
use crate::plain::Reader;
use crate::rtti::lifecycle::{finish_hooks, has_end_hooks, start_hooks};
use crate::rtti::{Reflectable, Registry, RttiType};
use crate::runtime::{RuntimeObject, UnknownFields};
use ahash::AHashMap;
use smallvec::SmallVec;
use std::collections::VecDeque;
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
    fn field(rtti: &RttiType, field: &RttiField) -> impl Fn(FieldError) -> CloneError {
        let (type_name, field) = (rtti.name().to_owned(), field.name().to_owned());
        move |source| CloneError::Field { type_name: type_name.clone(), field: field.clone(), source }
    }
}

/// Clones objects and graphs through RTTI; see the [module docs](self).
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
    /// through every pointer).
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
        let mut run = Run::new(self);
        run.discover_from(object)?;
        run.build()?;
        let rtti = object.rtti();
        let mut clone = rtti.create().ok_or_else(|| no_constructor(rtti))?;
        start_hooks(&mut *clone, &mut ());
        run.fill(object, &mut *clone)?;
        run.finish(Some(&mut *clone));
        Ok(clone)
    }

    /// A clone of `object`, typed.
    pub fn clone_value<T: Reflectable>(&self, object: &T) -> Result<T, CloneError> {
        let clone = self.clone_object(object)?;
        Ok(*crate::rtti::downcast_box::<T>(clone).unwrap_or_else(|_| unreachable!("a clone has its original's type")))
    }

    /// A clone of the object in a shared allocation, in a new allocation of the same family. A
    /// pointer inside the subgraph back to `root` points at the clone.
    pub fn clone_shared(&self, root: &SharedObject) -> Result<SharedObject, CloneError> {
        let mut run = Run::new(self);
        run.member(root.clone(), true)?;
        run.discover()?;
        run.build()?;
        let clone = run.clones[0].clone().expect("the root is built");
        run.finish(None);
        Ok(clone)
    }

    /// [`clone_shared`](Self::clone_shared) for a typed handle (`Rc<RefCell<T>>`, `Arc<T>`, ...).
    pub fn clone_handle<H: SharedHandle>(&self, root: &H) -> Result<H, CloneError> {
        let clone = self.clone_shared(&SharedObject::new(root.clone()))?;
        clone.cast_in::<H>(self.registry).ok_or(CloneError::RootHandle { handle: std::any::type_name::<H>() })
    }

    fn shares_field(&self, field: &RttiField) -> bool {
        field.flags() & self.share_flags != 0
    }

    fn shares_type(&self, target: &SharedObject) -> bool {
        !self.shared_types.is_empty()
            && target
                .read(|object| object.rtti().chain().any(|rtti| self.shared_types.contains(&rtti.id())))
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
pub fn shallow_clone<T: Reflectable>(object: &T) -> Result<T, CloneError> {
    Cloner::new().shallow().clone_value(object)
}

/// One clone in progress.
struct Run<'c, 'r> {
    cloner: &'c Cloner<'r>,
    /// The subgraph's shared objects, in the order found.
    members: Vec<SharedObject>,
    /// Each member's allocation address, to its index.
    index: AHashMap<usize, u32>,
    /// Each member's clone: made up front for the mutable families, after its immutable
    /// dependencies for `Rc<T>` and `Arc<T>`.
    clones: Vec<Option<SharedObject>>,
    /// Members still to scan for pointers.
    queue: VecDeque<u32>,
    /// Plain values pass through this buffer in their stored form.
    scratch: Vec<u8>,
    /// Clones whose end hooks run last.
    to_finish: Vec<SharedObject>,
}

/// Up to a few pointers of one field: most pointer fields hold one or a handful.
type Targets = SmallVec<[Option<SharedObject>; 4]>;

impl<'c, 'r> Run<'c, 'r> {
    fn new(cloner: &'c Cloner<'r>) -> Self {
        Run {
            cloner,
            members: Vec::new(),
            index: AHashMap::new(),
            clones: Vec::new(),
            queue: VecDeque::new(),
            scratch: Vec::new(),
            to_finish: Vec::new(),
        }
    }

    /// Adds `object` to the subgraph (once).
    fn member(&mut self, object: SharedObject, root: bool) -> Result<(), CloneError> {
        let addr = object.addr();
        if self.index.contains_key(&addr) || (!root && self.cloner.shares_type(&object)) {
            return Ok(());
        }
        self.index.insert(addr, self.members.len() as u32);
        self.queue.push_back(self.members.len() as u32);
        self.members.push(object);
        self.clones.push(None);
        Ok(())
    }

    /// Finds the subgraph under a by-value root.
    fn discover_from(&mut self, object: &dyn Reflectable) -> Result<(), CloneError> {
        if self.cloner.deep {
            let mut targets = Vec::new();
            strong_targets(self.cloner, object, &mut targets)?;
            for target in targets {
                self.member(target, false)?;
            }
        }
        self.discover()
    }

    /// Scans queued members until the subgraph is complete (a shallow clone scans nothing).
    fn discover(&mut self) -> Result<(), CloneError> {
        let mut targets = Vec::new();
        while let Some(next) = self.queue.pop_front() {
            if !self.cloner.deep {
                continue;
            }
            let cloner = self.cloner;
            self.members[next as usize]
                .read(|object| strong_targets(cloner, object, &mut targets))
                .map_err(CloneError::Pointee)??;
            for target in targets.drain(..) {
                self.member(target, false)?;
            }
        }
        Ok(())
    }

    /// Makes every member's clone: mutable ones first (empty), so that any field can point at
    /// them, then the immutable ones (complete), then fills the mutable ones.
    fn build(&mut self) -> Result<(), CloneError> {
        for (member, clone) in self.members.iter().zip(&mut self.clones) {
            let family = member.family();
            if family.is_mutable() {
                let rtti = member.read(|object| object.rtti()).map_err(CloneError::Pointee)?;
                *clone = Some(rtti.create_shared(family).ok_or_else(|| no_constructor(rtti))?);
            }
        }
        for index in 0..self.members.len() {
            if self.clones[index].is_none() {
                self.build_immutable(index)?;
            }
        }
        for index in 0..self.members.len() {
            let member = self.members[index].clone();
            if !member.family().is_mutable() {
                continue;
            }
            let clone = self.clones[index].clone().expect("made above");
            member
                .read(|source| {
                    clone.write(|target| {
                        start_hooks(target, &mut ());
                        self.fill(source, target)
                    })
                })
                .and_then(|written| written)
                .map_err(CloneError::Pointee)??;
            if has_end_hooks(clone.read(|object| object.rtti()).map_err(CloneError::Pointee)?) {
                self.to_finish.push(clone);
            }
        }
        Ok(())
    }

    /// Builds immutable member `index` after the immutable members it points at (an explicit
    /// stack: a long chain of `Rc`s costs heap, not call stack). Immutable objects cannot form a
    /// strong cycle; a `Weak` back into one being built keeps pointing at the original.
    fn build_immutable(&mut self, index: usize) -> Result<(), CloneError> {
        let mut building = vec![false; self.members.len()];
        let mut stack = vec![(index, false)];
        building[index] = true;
        let mut targets = Vec::new();
        while let Some(frame) = stack.last_mut() {
            let current = frame.0;
            if !frame.1 {
                frame.1 = true;
                let cloner = self.cloner;
                self.members[current]
                    .read(|object| strong_targets(cloner, object, &mut targets))
                    .map_err(CloneError::Pointee)??;
                for target in targets.drain(..) {
                    if let Some(&need) = self.index.get(&target.addr()) {
                        let need = need as usize;
                        if self.clones[need].is_none() && !building[need] {
                            building[need] = true;
                            stack.push((need, false));
                        }
                    }
                }
                continue;
            }
            stack.pop();
            let member = self.members[current].clone();
            let rtti = member.read(|object| object.rtti()).map_err(CloneError::Pointee)?;
            let mut object = rtti.create().ok_or_else(|| no_constructor(rtti))?;
            start_hooks(&mut *object, &mut ());
            member.read(|source| self.fill(source, &mut *object)).map_err(CloneError::Pointee)??;
            // Nothing can change an immutable object once shared: its end hooks run now.
            finish_hooks(&mut *object, &mut ());
            let shared = rtti.make_shared(member.family(), object);
            self.clones[current] = Some(shared.unwrap_or_else(|_| unreachable!("a fresh object fits its own type")));
        }
        Ok(())
    }

    /// A clone of an object held by value, complete with its hooks.
    fn clone_embedded(&mut self, source: &dyn Reflectable) -> Result<Box<dyn Reflectable>, CloneError> {
        let rtti = source.rtti();
        let mut object = rtti.create().ok_or_else(|| no_constructor(rtti))?;
        start_hooks(&mut *object, &mut ());
        self.fill(source, &mut *object)?;
        finish_hooks(&mut *object, &mut ());
        Ok(object)
    }

    /// Copies every field of `source` into `target`, a fresh object of the same type.
    fn fill(&mut self, source: &dyn Reflectable, target: &mut dyn Reflectable) -> Result<(), CloneError> {
        for (depth, (rtti, section)) in RttiType::sections(source).enumerate() {
            let into = RttiType::section_mut(target, depth).expect("a clone has its original's chain");
            if let Some(variant) = rtti.active_variant(section) {
                variant.activate(into).map_err(|source| CloneError::Field {
                    type_name: rtti.name().to_owned(),
                    field: variant.name().to_owned(),
                    source,
                })?;
            }
            for field in rtti.fields_of(section) {
                self.copy_field(rtti, field, section, into)?;
            }
            if let Some((fields, kept)) = rtti.unknown_fields(section).and_then(UnknownFields::kept) {
                let copy = self.clone_embedded(kept)?;
                let copy = crate::rtti::downcast_box::<RuntimeObject>(copy)
                    .unwrap_or_else(|_| unreachable!("a clone has its original's type"));
                if let Some(unknown) = rtti.unknown_fields_mut(into) {
                    unknown.set_kept(fields, *copy);
                }
            }
        }
        Ok(())
    }

    fn copy_field(
        &mut self,
        rtti: &'static RttiType,
        field: &RttiField,
        source: &dyn Reflectable,
        target: &mut dyn Reflectable,
    ) -> Result<(), CloneError> {
        let error = CloneError::field(rtti, field);
        let refused = match field.access() {
            FieldAccess::Plain(plain) => {
                self.scratch.clear();
                let count = plain.write(source, &mut self.scratch).map_err(&error)?;
                plain.read(target, count, &mut Reader::new(&self.scratch)).map_err(&error)?;
                0
            }
            FieldAccess::Embedded(values) => {
                let mut clones = Vec::new();
                let mut failed = None;
                values
                    .for_each(source, &mut |value| match value.map(|value| self.clone_embedded(value)).transpose() {
                        Ok(clone) => clones.push(clone),
                        Err(error) => failed = failed.take().or(Some(error)),
                    })
                    .map_err(&error)?;
                if let Some(failed) = failed {
                    return Err(failed);
                }
                values.store(target, clones, self.cloner.registry).map_err(&error)?
            }
            FieldAccess::Pointer(pointers) => {
                let keep = !self.cloner.deep || self.cloner.shares_field(field);
                let mut targets = Targets::new();
                pointers
                    .for_each(source, &mut |addr, _, handle| {
                        let mapped = match addr {
                            None => None,
                            Some(_) if keep => handle(),
                            Some(addr) => match self.index.get(&addr) {
                                Some(&member) => self.clones[member as usize].clone().or_else(handle),
                                None => handle(),
                            },
                        };
                        targets.push(mapped);
                    })
                    .map_err(&error)?;
                let targets: SmallVec<[Option<&SharedObject>; 4]> = targets.iter().map(Option::as_ref).collect();
                pointers.store(target, &targets, self.cloner.registry).map_err(&error)?
            }
        };
        if refused > 0 {
            return Err(CloneError::Refused { type_name: rtti.name().to_owned(), field: field.name().to_owned() });
        }
        Ok(())
    }

    /// Runs the end hooks of the shared clones, then the root's.
    fn finish(&mut self, root: Option<&mut dyn Reflectable>) {
        for clone in self.to_finish.drain(..) {
            // A clone nobody else holds yet cannot be borrowed elsewhere.
            let _ = clone.write(|object| finish_hooks(object, &mut ()));
        }
        if let Some(root) = root {
            finish_hooks(root, &mut ());
        }
    }
}

fn no_constructor(rtti: &RttiType) -> CloneError {
    CloneError::NoConstructor { type_name: rtti.name().to_owned() }
}

/// Appends the targets of `object`'s strong pointers that the clone follows (not `Weak`s, not
/// fields sharing their targets), in it and in what it holds by value.
fn strong_targets(cloner: &Cloner, object: &dyn Reflectable, out: &mut Vec<SharedObject>) -> Result<(), CloneError> {
    for (rtti, section) in RttiType::sections(object) {
        for field in rtti.fields_of(section) {
            let error = CloneError::field(rtti, field);
            match field.access() {
                FieldAccess::Plain(_) => {}
                FieldAccess::Embedded(values) => {
                    let mut result = Ok(());
                    values
                        .for_each(section, &mut |value| {
                            if let (Some(value), Ok(())) = (value, &result) {
                                result = strong_targets(cloner, value, out);
                            }
                        })
                        .map_err(&error)?;
                    result?;
                }
                FieldAccess::Pointer(pointers) if !pointers.is_weak() && !cloner.shares_field(field) => {
                    pointers
                        .for_each(section, &mut |addr, _, handle| out.extend(addr.and_then(|_| handle())))
                        .map_err(&error)?;
                }
                FieldAccess::Pointer(_) => {}
            }
        }
        if let Some(kept) = rtti.unknown_fields(section).and_then(|kept| kept.object()) {
            strong_targets(cloner, kept, out)?;
        }
    }
    Ok(())
}
