//! Whole-graph operations through RTTI: the shared objects reachable from a root, and tearing down
//! reference cycles (which `Rc`/`Arc` cannot free on their own).

use super::visit::{self, Slot, SlotMut};
use super::walker::{Borrowed, Flow, GraphWalker, Run, Visit};
use super::{AsRoot, Reflectable, Registry, Root};
use crate::field::{FieldAccess, FieldError, SharedObject};
use ahash::AHashSet;
use once_cell::sync::Lazy;
use std::convert::Infallible;

/// Every shared object reachable from `root` through pointer fields (strong, and `Weak`s whose
/// target is alive; kept [`UnknownFields`](super::UnknownFields) included), each once, in
/// breadth-first order. A root held in a shared allocation (`&Rc<RefCell<Scene>>`, a
/// [`SharedObject`]) is listed first. An object borrowed mutably elsewhere is listed but its own
/// pointers are not followed.
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
pub fn reachable_shared<R: AsRoot + ?Sized>(root: &R) -> Vec<SharedObject> {
    let found = match root.as_root() {
        Root::Object(object) => walk_all(true, Some(object), None, None),
        Root::Shared(shared) => walk_all(true, None, Some(&shared), None),
    };
    found.found.unwrap_or_default()
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
    walk_all(false, root, shared_root, unread).seen
}

/// What one of the crate's own walks found: the identities it met and the shared objects.
struct Found {
    seen: AHashSet<usize>,
    found: Option<Vec<SharedObject>>,
}

/// Walks everything reachable (through `Weak`s too when `follow_weak`), listing what it meets:
/// objects it cannot read (borrowed elsewhere) are listed, not entered.
fn walk_all(
    follow_weak: bool,
    root: Option<&dyn Reflectable>,
    shared_root: Option<&SharedObject>,
    unread: Option<usize>,
) -> Found {
    let mut visitor = |_: &Visit<'_>| Ok::<_, Infallible>(Flow::Continue);
    let mut run = Run::new(GraphWalker::new().follow_weak(follow_weak), &mut visitor, Borrowed::Pass);
    run.unread = unread;
    run.found = Some(Vec::new());
    run.paths = false;
    if let Some(shared) = shared_root {
        run.shared_root(shared);
    }
    // A field that cannot be read (a lock poisoned under the walk) ends the walk: what it
    // found so far is what these walks can know.
    let _ = root.map_or(Ok(()), |root| run.root(root)).and_then(|()| run.drain());
    Found { seen: std::mem::take(&mut run.seen), found: run.found.take() }
}

/// Empties every pointer field of `object` and of the objects it holds by value: arrays become
/// empty, optional pointers `None`, and a fixed-size array of optional pointers
/// (`[Option<Rc<T>>; N]`) all `None`. A non-optional pointer keeps its value, and so does a
/// fixed-size array of them (`[Rc<T>; N]`), which cannot be emptied.
///
/// ```
/// use reflectable::rtti::clear_pointers;
/// use std::rc::Rc;
/// # use reflectable::Reflectable;
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_970_008)]
/// # struct Leaf { #[rtti(id = 1)] n: u32 }
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_970_009)]
/// # struct Node { #[rtti(id = 1)] name: String, #[rtti(id = 2)] children: Vec<Rc<Leaf>>,
/// #     #[rtti(id = 3)] first: Option<Rc<Leaf>>, #[rtti(id = 4)] pinned: Rc<Leaf> }
///
/// let leaf = Rc::new(Leaf { n: 1 });
/// let mut node = Node {
///     name: "n".into(),
///     children: vec![leaf.clone(), leaf.clone()],
///     first: Some(leaf.clone()),
///     pinned: leaf.clone(),
/// };
/// clear_pointers(&mut node).unwrap();
/// assert!(node.children.is_empty() && node.first.is_none());
/// assert!(Rc::ptr_eq(&node.pinned, &leaf), "a non-optional pointer keeps its value");
/// assert_eq!((node.name.as_str(), Rc::strong_count(&leaf)), ("n", 2));
/// ```
pub fn clear_pointers(object: &mut dyn Reflectable) -> Result<(), FieldError> {
    visit::for_each_slot_mut(object, |slot| {
        let SlotMut { field, owner, .. } = slot;
        match field.access() {
            FieldAccess::Pointer(pointers) => {
                let targets: &[Option<&SharedObject>] = if field.is_array() { &[] } else { &[None] };
                let stored = match pointers.store(owner, targets, &NO_CASTS) {
                    Err(FieldError::FixedLength { expected, .. }) => {
                        pointers.store(owner, &vec![None; expected], &NO_CASTS)
                    }
                    stored => stored,
                };
                match stored {
                    Ok(_) | Err(FieldError::NotNullable) => Ok(()),
                    Err(error) => Err(error.in_field(field.name())),
                }
            }
            FieldAccess::Embedded(values) => {
                for index in 0..values.len(owner)? {
                    let mut result = Ok(());
                    values.with_value_mut(owner, index, &mut |value| {
                        if let Some(value) = value {
                            result = clear_pointers(value);
                        }
                    })?;
                    result?;
                }
                Ok(())
            }
            FieldAccess::Plain(_) => Ok(()),
        }
    })
}

/// Calls `f` with the identity of every target of a strong pointer in `object` (its own fields,
/// the objects it holds by value and its kept unknown fields; `Weak`s are left out), once per
/// pointer. Stops at the first field that cannot be read.
pub(crate) fn strong_targets(object: &dyn Reflectable, f: &mut dyn FnMut(usize)) -> Result<(), FieldError> {
    pointer_targets(object, false, &mut |addr, _| f(addr))
}

/// Takes a strong handle to a pointer element's target.
pub(crate) type Take<'a> = &'a dyn Fn() -> Option<SharedObject>;

/// Calls `f` for every pointer element of `object` (its own fields, the objects it holds by
/// value and its kept unknown fields; `Weak`s too when `weak`) that leads somewhere: the target's
/// identity, and a way to take a strong handle to it. Stops at the first field that cannot be
/// read.
pub(crate) fn pointer_targets(
    object: &dyn Reflectable,
    weak: bool,
    f: &mut dyn FnMut(usize, Take<'_>),
) -> Result<(), FieldError> {
    for Slot { field, owner, .. } in visit::slots(object) {
        match field.access() {
            FieldAccess::Pointer(pointers) if weak || !pointers.is_weak() => {
                pointers.for_each(owner, &mut |addr, _, take| {
                    if let Some(addr) = addr {
                        f(addr, take)
                    }
                })?
            }
            FieldAccess::Embedded(values) => {
                let mut result = Ok(());
                values.for_each(owner, &mut |value| {
                    if let (Some(value), Ok(())) = (value, &result) {
                        result = pointer_targets(value, weak, f);
                    }
                })?;
                result?;
            }
            FieldAccess::Pointer(_) | FieldAccess::Plain(_) => {}
        }
    }
    Ok(())
}

/// Storing nulls casts nothing: an empty registry serves (made once; a registry's hash maps seed
/// themselves, which costs more than the clearing).
static NO_CASTS: Lazy<Registry> = Lazy::new(Registry::new);

/// Breaks every reference cycle reachable from `root`: clears the pointer fields of each
/// reachable object that can be changed (behind `RefCell`, `Mutex` or `RwLock`), so the graph is
/// freed once its last outside handle goes. Call it on a graph with strong cycles you are done with.
/// A root held in a shared allocation (`&Rc<RefCell<Scene>>`, `&Arc<Mutex<Scene>>`, ...) has its
/// own pointers cleared too: this is how a decoded graph with a shared root is torn down. It never
/// recurses, however long the graph's chains.
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
///
/// A shared root:
///
/// ```
/// use reflectable::rtti::break_cycles;
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
/// break_cycles(&scene);
/// assert_eq!(Rc::strong_count(&scene), 1);
/// ```
pub fn break_cycles<R: AsRoot + ?Sized>(root: &R) {
    clear_all(reachable_shared(root));
}

/// Clears the pointers of every object in `objects` that can be changed. Immutable pointees
/// (`Rc<T>`, `Arc<T>`) and objects borrowed elsewhere keep theirs: there is nothing to clear
/// through a shared reference.
fn clear_all(objects: Vec<SharedObject>) {
    objects.iter().for_each(clear_shared);
}

/// Why a field of a section's own type cannot refuse the section as its owner: the descriptor's
/// fields were built for that Rust type (a `Reflectable` impl returning another type's descriptor
/// breaks this, and is a bug in that impl).
const OWN_FIELDS: &str = "a section's own fields accept it as their owner";

/// Clears the pointers of one shared object, if it can be changed (see [`clear_all`]).
pub(crate) fn clear_shared(shared: &SharedObject) {
    if let Ok(result) = shared.write(clear_pointers) {
        result.expect(OWN_FIELDS);
    }
}
