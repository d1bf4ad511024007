//! Whole-graph operations through RTTI: the shared objects reachable from a root, and tearing down
//! reference cycles (which `Rc`/`Arc` cannot free on their own).

use super::{Reflectable, Registry, RttiType};
use crate::field::{FieldAccess, FieldError, SharedHandle, SharedObject};
use crate::runtime::UnknownFields;
use ahash::AHashSet;
use once_cell::sync::Lazy;

/// Every shared object reachable from `root` through pointer fields (strong, and `Weak`s whose
/// target is alive; kept [`UnknownFields`] included), each once, in breadth-first order. An object borrowed mutably elsewhere is
/// listed but its own pointers are not followed.
///
/// ```
/// use reflectable::rtti::reachable_shared;
/// use reflectable::Reflectable;
/// use std::rc::Rc;
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9600)]
/// struct Tree {
///     #[rtti(id = 1)]
///     children: Vec<Rc<Tree>>,
/// }
///
/// let leaf = Rc::new(Tree::default());
/// let tree = Tree { children: vec![leaf.clone(), leaf, Rc::new(Tree::default())] };
/// assert_eq!(reachable_shared(&tree).len(), 2);
/// ```
pub fn reachable_shared(root: &dyn Reflectable) -> Vec<SharedObject> {
    let mut walk = Walk::new(true);
    walk.root(root);
    walk.drain()
}

/// [`reachable_shared`] from a root held in a shared allocation (listed first).
pub fn reachable_from_shared(root: &SharedObject) -> Vec<SharedObject> {
    Walk::new(true).with_shared_root(root).drain()
}

/// Addresses of the shared objects reachable from `root` (or `shared_root`) through strong
/// pointers only: what keeps a decoded graph alive.
pub(crate) fn strongly_reachable(
    root: Option<&dyn Reflectable>,
    shared_root: Option<&SharedObject>,
) -> AHashSet<usize> {
    strong_identities(root, shared_root, None)
}

/// [`strongly_reachable`] for an encoder's subtree save: the objects its stream will hold. The
/// shared allocation containing the address `unread` (a root passed by reference, which the
/// caller may hold locked) is not read: the encoder refuses a pointer to it anyway. Objects
/// behind their only pointer are left out, as in every walk: no `Weak` leads to them.
pub(crate) fn strong_identities(
    root: Option<&dyn Reflectable>,
    shared_root: Option<&SharedObject>,
    unread: Option<usize>,
) -> AHashSet<usize> {
    let mut walk = Walk::new(false);
    walk.unread = unread;
    if let Some(root) = root {
        walk.root(root);
    }
    if let Some(shared) = shared_root {
        walk = walk.with_shared_root(shared);
    }
    walk.drain_walk().seen
}

/// Why a field of a section's own type cannot refuse the section as its owner: the descriptor's
/// fields were built for that Rust type (a `Reflectable` impl returning another type's descriptor
/// breaks this, and is a bug in that impl).
const OWN_FIELDS: &str = "a section's own fields accept it as their owner";

struct Walk {
    seen: AHashSet<usize>,
    found: Vec<SharedObject>,
    follow_weak: bool,
    /// An address whose allocation is listed but not read (see [`strong_identities`]).
    unread: Option<usize>,
}

impl Walk {
    fn new(follow_weak: bool) -> Self {
        Walk { seen: AHashSet::new(), found: Vec::new(), follow_weak, unread: None }
    }

    fn with_shared_root(mut self, root: &SharedObject) -> Self {
        if self.seen.insert(root.addr()) {
            self.found.push(root.clone());
        }
        self
    }

    /// Follows the pointers of every object found, including those found on the way.
    fn drain(self) -> Vec<SharedObject> {
        self.drain_walk().found
    }

    fn drain_walk(mut self) -> Self {
        let mut next = 0;
        while next < self.found.len() {
            let shared = self.found[next].clone();
            next += 1;
            if self.unread.is_some_and(|address| shared.contains(address)) {
                continue;
            }
            // An object borrowed mutably elsewhere is listed, but its pointers cannot be read.
            let _borrowed_elsewhere = shared.read(|object| self.root(object)).is_err();
        }
        self
    }

    fn root(&mut self, object: &dyn Reflectable) {
        self.object(object).expect(OWN_FIELDS);
    }

    fn object(&mut self, object: &dyn Reflectable) -> Result<(), FieldError> {
        for (rtti, section) in RttiType::sections(object) {
            for field in rtti.fields_of(section) {
                match field.access() {
                    FieldAccess::Plain(_) => {}
                    FieldAccess::Embedded(values) => {
                        let mut result = Ok(());
                        values.for_each(section, &mut |value| {
                            if let (Some(value), Ok(())) = (value, &result) {
                                result = self.object(value);
                            }
                        })?;
                        result?;
                    }
                    FieldAccess::Pointer(pointers) if self.follow_weak || !pointers.is_weak() => {
                        pointers.for_each(section, &mut |identity, only_pointer, handle| {
                            // An object behind its only pointer cannot be met again.
                            if identity.is_some_and(|identity| only_pointer || self.seen.insert(identity)) {
                                self.found.extend(handle());
                            }
                        })?;
                    }
                    FieldAccess::Pointer(_) => {}
                }
            }
            // Kept unknown fields hold pointers too: what only they reach is still held.
            if let Some(kept) = rtti.unknown_fields(section).and_then(UnknownFields::object) {
                self.object(kept)?;
            }
        }
        Ok(())
    }
}

/// Empties every pointer field of `object` and of the objects it holds by value: arrays become
/// empty and optional pointers `None`. A non-optional pointer keeps its value, and so does a
/// fixed-size array of pointers (`[Rc<T>; N]`), which cannot be emptied.
pub fn clear_pointers(object: &mut dyn Reflectable) -> Result<(), FieldError> {
    let mut index = 0;
    while let Some(section) = RttiType::section_mut(object, index) {
        let rtti = section.rtti();
        for field in rtti.fields_of(section) {
            match field.access() {
                FieldAccess::Pointer(pointers) => {
                    let targets: &[Option<&SharedObject>] = if field.is_array() { &[] } else { &[None] };
                    match pointers.store(section, targets, &NO_CASTS) {
                        Ok(_) | Err(FieldError::FixedLength { .. }) => {}
                        Err(error) => return Err(error.in_field(field.name())),
                    }
                }
                FieldAccess::Embedded(values) => {
                    for index in 0..values.len(section)? {
                        let mut result = Ok(());
                        values.with_value_mut(section, index, &mut |value| {
                            if let Some(value) = value {
                                result = clear_pointers(value);
                            }
                        })?;
                        result?;
                    }
                }
                FieldAccess::Plain(_) => {}
            }
        }
        if let Some(kept) = rtti.unknown_fields_mut(section).and_then(UnknownFields::object_mut) {
            clear_pointers(kept)?;
        }
        index += 1;
    }
    Ok(())
}

/// Storing nulls casts nothing: an empty registry serves (made once; a registry's hash maps seed
/// themselves, which costs more than the clearing).
static NO_CASTS: Lazy<Registry> = Lazy::new(Registry::new);

/// Breaks every reference cycle reachable from `root`: clears the pointer fields of each
/// reachable object that can be changed (behind `RefCell`, `Mutex` or `RwLock`), so the graph is
/// freed once its last outside handle goes. Call it on a graph with strong cycles you are done with.
///
/// ```
/// use reflectable::rtti::break_cycles;
/// use reflectable::Reflectable;
/// use std::cell::RefCell;
/// use std::rc::Rc;
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9601)]
/// struct Node {
///     #[rtti(id = 1)]
///     next: Option<Rc<RefCell<Node>>>,
/// }
///
/// let a = Rc::new(RefCell::new(Node::default()));
/// a.borrow_mut().next = Some(a.clone());
/// let root = Node { next: Some(a.clone()) };
/// break_cycles(&root);
/// assert_eq!(Rc::strong_count(&a), 2, "only `a` and `root` hold it now");
/// ```
pub fn break_cycles(root: &dyn Reflectable) {
    clear_all(reachable_shared(root));
}

/// [`break_cycles`] for a graph whose root lives in a shared allocation (`Rc<RefCell<Scene>>`,
/// `Arc<Mutex<Scene>>`, ...): the root's own pointers are cleared too. This is how a decoded
/// graph with a shared root is torn down; it never recurses, however long its chains.
///
/// ```
/// use reflectable::rtti::break_cycles_shared;
/// use reflectable::Reflectable;
/// use std::cell::RefCell;
/// use std::rc::Rc;
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9602)]
/// struct Scene {
///     #[rtti(id = 1)]
///     me: Option<Rc<RefCell<Scene>>>,
/// }
///
/// let scene = Rc::new(RefCell::new(Scene::default()));
/// scene.borrow_mut().me = Some(scene.clone());
/// break_cycles_shared(&scene);
/// assert_eq!(Rc::strong_count(&scene), 1);
/// ```
pub fn break_cycles_shared<H: SharedHandle>(root: &H) {
    clear_all(reachable_from_shared(&SharedObject::new(root.clone())));
}

/// Clears the pointers of every object in `objects` that can be changed. Immutable pointees
/// (`Rc<T>`, `Arc<T>`) and objects borrowed elsewhere keep theirs: there is nothing to clear
/// through a shared reference.
fn clear_all(objects: Vec<SharedObject>) {
    objects.iter().for_each(clear_shared);
}

/// Clears the pointers of one shared object, if it can be changed (see [`clear_all`]).
pub(crate) fn clear_shared(shared: &SharedObject) {
    if let Ok(result) = shared.write(clear_pointers) {
        result.expect(OWN_FIELDS);
    }
}
