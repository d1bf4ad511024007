//! Diff and patch of *overlapping* graphs: the new graph shares allocations with the old one, as
//! an undo snapshot or a prefab instance does (`Cloner` keeps pointers that leave the cloned
//! subtree pointing at live objects). Issue 42's reproductions: after `apply(old, diff(old,
//! new))`, `rtti_eq(old, new)` holds when the report says "applied in full", and no object held
//! from outside the patched graph is rewritten in place into another object.

use reflectable::diff::{diff, rtti_eq};
use reflectable::Reflectable;
use std::cell::RefCell;
use std::rc::{Rc, Weak};

#[derive(Reflectable, Default)]
#[rtti(id = 342_001)]
struct Cell {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    next: Option<Rc<RefCell<Cell>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 342_002)]
struct Refs {
    #[rtti(id = 1)]
    a: Option<Rc<RefCell<Cell>>>,
    #[rtti(id = 2)]
    b: Option<Rc<RefCell<Cell>>>,
}

fn cell(name: &str, next: Option<Rc<RefCell<Cell>>>) -> Rc<RefCell<Cell>> {
    Rc::new(RefCell::new(Cell { name: name.into(), next }))
}

/// Defect C: `y` is reachable in both graphs only behind `x`, an allocation both share. The
/// patch must point `b` at that `y`, not at a copy of it.
#[test]
fn an_object_behind_a_shared_allocation_is_found_not_copied() {
    let y = cell("y", None);
    let x = cell("x", Some(y.clone()));
    let mut old = Refs { a: Some(x.clone()), b: None };
    let new = Refs { a: Some(x.clone()), b: Some(y.clone()) };
    let patch = diff(&old, &new).unwrap();
    let report = patch.apply(&mut old);
    assert!(report.is_complete(), "{report}");
    rtti_eq(&old, &new).unwrap();
    assert!(Rc::ptr_eq(old.b.as_ref().unwrap(), &y), "b points at the very y that x points at");
    assert_eq!(y.borrow().name, "y");
}

/// `rtti_eq` compares the sharing of objects both graphs hold: a copy where the other graph
/// shares is a difference.
#[test]
fn rtti_eq_sees_sharing_behind_a_shared_allocation() {
    let y = cell("y", None);
    let x = cell("x", Some(y.clone()));
    let copied = Refs { a: Some(x.clone()), b: Some(cell("y", None)) };
    let shared = Refs { a: Some(x), b: Some(y) };
    let difference = rtti_eq(&copied, &shared).unwrap_err();
    assert!(difference.to_string().contains("shared differently"), "{difference}");
}

#[derive(Reflectable, Default)]
#[rtti(id = 342_003)]
struct Node {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    children: Vec<Rc<RefCell<Node>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 342_004)]
struct Link {
    #[rtti(id = 1)]
    to: Weak<RefCell<Node>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 342_005)]
struct StrongLink {
    #[rtti(id = 1)]
    to: Option<Rc<RefCell<Node>>>,
}

fn node(name: &str, children: Vec<Rc<RefCell<Node>>>) -> Rc<RefCell<Node>> {
    Rc::new(RefCell::new(Node { name: name.into(), children }))
}

/// Defect B: pointing a link at `b`, an object outside the old graph, must not rewrite `a` (held
/// from outside too) into a copy of `b`.
#[test]
fn retargeting_never_rewrites_an_object_held_from_outside() {
    let leaf = node("leaf", vec![]);
    let a = node("a", vec![leaf.clone()]);
    let b = node("b", vec![]);

    let mut old = StrongLink { to: Some(a.clone()) };
    let new = StrongLink { to: Some(b.clone()) };
    let report = diff(&old, &new).unwrap().apply(&mut old);
    assert_eq!((a.borrow().name.as_str(), a.borrow().children.len()), ("a", 1), "a is untouched");
    assert!(report.is_complete(), "{report}");
    rtti_eq(&old, &new).unwrap();

    // Through a `Weak`, a copy of `b` would die at once: the patch cannot make the link, and the
    // report must say so rather than "applied in full".
    let mut old = Link { to: Rc::downgrade(&a) };
    let new = Link { to: Rc::downgrade(&b) };
    let report = diff(&old, &new).unwrap().apply(&mut old);
    assert_eq!((a.borrow().name.as_str(), a.borrow().children.len()), ("a", 1), "a is untouched");
    assert_eq!(report.is_complete(), rtti_eq(&old, &new).is_ok(), "{report}");
    assert!(!report.is_complete(), "a Weak to a copy nothing holds cannot be applied: {report}");

    // From a null `Weak`, likewise.
    let mut old = Link::default();
    let report = diff(&old, &new).unwrap().apply(&mut old);
    assert_eq!(report.is_complete(), rtti_eq(&old, &new).is_ok(), "{report}");
    drop(leaf);
}
