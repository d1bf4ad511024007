//! Whole-graph operations through RTTI: the shared objects reachable from a root, and tearing down
//! reference cycles (which `Rc`/`Arc` cannot free on their own).

use super::{Reflectable, RttiType};
use crate::field::{FieldAccess, SharedObject};
use ahash::AHashSet;

/// Every shared object reachable from `root` through pointer fields (strong, and `Weak`s whose
/// target is alive), each once, in breadth-first order. An object borrowed mutably elsewhere is
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
    walk.object(root);
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
    let mut walk = Walk::new(false);
    if let Some(root) = root {
        walk.object(root);
    }
    if let Some(shared) = shared_root {
        walk = walk.with_shared_root(shared);
    }
    let walk = walk.drain_walk();
    walk.seen
}

struct Walk {
    seen: AHashSet<usize>,
    found: Vec<SharedObject>,
    follow_weak: bool,
}

impl Walk {
    fn new(follow_weak: bool) -> Self {
        Walk { seen: AHashSet::new(), found: Vec::new(), follow_weak }
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
            let _ = shared.read(|object| self.object(object));
            next += 1;
        }
        self
    }

    fn object(&mut self, object: &dyn Reflectable) {
        RttiType::for_each_section(object, |rtti, section| {
            for field in rtti.fields() {
                match field.access() {
                    FieldAccess::Plain(_) => {}
                    FieldAccess::Embedded(values) => {
                        values.for_each(section, &mut |value| {
                            if let Some(value) = value {
                                self.object(value);
                            }
                        });
                    }
                    FieldAccess::Pointer(pointers) if self.follow_weak || !pointers.is_weak() => {
                        pointers.for_each(section, &mut |identity, only_pointer, handle| {
                            // An object behind its only pointer cannot be met again.
                            if identity.is_some_and(|identity| only_pointer || self.seen.insert(identity)) {
                                self.found.extend(handle());
                            }
                        });
                    }
                    FieldAccess::Pointer(_) => {}
                }
            }
        });
    }
}

/// Empties every pointer field of `object` and of the objects it holds by value: arrays become
/// empty and optional pointers `None`; a non-optional pointer keeps its value.
pub fn clear_pointers(object: &mut dyn Reflectable) {
    let mut section = Some(object);
    while let Some(current) = section {
        let rtti = current.rtti();
        for field in rtti.fields() {
            match field.access() {
                FieldAccess::Pointer(pointers) => {
                    let targets: &[Option<&SharedObject>] = if field.is_array() { &[] } else { &[None] };
                    let _ = pointers.store(current, targets);
                }
                FieldAccess::Embedded(values) => {
                    for index in 0..field.len(current).unwrap_or(0) {
                        let _ = values.with_value_mut(current, index, &mut |value| {
                            if let Some(value) = value {
                                clear_pointers(value);
                            }
                        });
                    }
                }
                FieldAccess::Plain(_) => {}
            }
        }
        section = rtti.base_of_mut(current);
    }
}

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
    for shared in reachable_shared(root) {
        let _ = shared.write(clear_pointers);
    }
}
