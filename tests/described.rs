//! `Patch::apply_described`: a patch applied with each change in words, as `reflectable diff`
//! prints them: fields set (before and after, as text), elements and objects gained and lost,
//! objects named by identity or by path.

use reflectable::diff::{diff, rtti_eq, AppliedChange};
use reflectable::rtti::Registry;
use reflectable::Reflectable;
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Reflectable, Default, Debug, Clone)]
#[rtti(id = 964_401)]
struct Transform {
    #[rtti(id = 1)]
    position: [f32; 2],
}

#[derive(Reflectable, Default, Debug, Clone)]
#[rtti(id = 964_402)]
struct Part {
    #[rtti(id = 1, identity)]
    id: u32,
    #[rtti(id = 2)]
    name: String,
}

#[derive(Reflectable, Default, Debug, Clone)]
#[rtti(id = 964_403)]
enum Shape {
    #[default]
    #[rtti(id = 1)]
    Dot,
    #[rtti(id = 2)]
    Line {
        #[rtti(id = 1)]
        length: u32,
    },
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 964_404)]
struct Node {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2, embedded)]
    transform: Transform,
    #[rtti(id = 3, embedded)]
    parts: Vec<Part>,
    #[rtti(id = 4)]
    children: Vec<Rc<RefCell<Node>>>,
    #[rtti(id = 5)]
    target: Option<Rc<RefCell<Node>>>,
    #[rtti(id = 6, embedded)]
    shape: Shape,
}

fn node(name: &str) -> Rc<RefCell<Node>> {
    Rc::new(RefCell::new(Node { name: name.into(), ..Node::default() }))
}

fn part(id: u32, name: &str) -> Part {
    Part { id, name: name.into() }
}

/// Applies `diff(old, new)` to `old`, described; checks it applied in full.
fn described(old: &mut Node, new: &Node) -> Vec<String> {
    let (report, changes) = diff(&*old, new).unwrap().apply_described(old, Registry::global());
    assert!(report.is_complete(), "{report}");
    rtti_eq(&*old, new).unwrap();
    changes.iter().map(AppliedChange::to_string).collect()
}

#[test]
fn fields_are_described_with_their_values_before_and_after() {
    let mut old = Node { name: "a".into(), ..Node::default() };
    let new = Node { name: "b".into(), transform: Transform { position: [1.0, 2.0] }, ..Node::default() };
    assert_eq!(described(&mut old, &new), ["$.name: \"a\" -> \"b\"", "$.transform.position: [0.0, 0.0] -> [1.0, 2.0]"]);
}

#[test]
fn elements_held_by_value_are_named_by_identity() {
    let mut old = Node { parts: vec![part(1, "arm"), part(2, "leg")], ..Node::default() };
    let new = Node { parts: vec![part(2, "left leg"), part(3, "tail")], ..Node::default() };
    let changes = described(&mut old, &new);
    assert_eq!(
        changes,
        ["$.parts[0].name: \"leg\" -> \"left leg\"", "$.parts[1]: added (Part#3)", "$.parts[0]: removed (Part#1)",],
        "{changes:#?}"
    );
}

#[test]
fn pointers_gain_and_lose_objects_and_new_objects_are_one_line() {
    let (a, b) = (node("a"), node("b"));
    let mut old = Node { children: vec![a.clone(), b.clone()], target: Some(a.clone()), ..Node::default() };
    let fresh = node("fresh");
    fresh.borrow_mut().name = "fresh, with fields".into();
    let new = Node { children: vec![b.clone(), fresh], target: Some(b.clone()), ..Node::default() };
    let changes = described(&mut old, &new);
    assert!(changes.contains(&"$.children[0]: removed (Node)".to_owned()), "{changes:#?}");
    assert!(changes.contains(&"$.children[1]: added (new Node)".to_owned()), "{changes:#?}");
    assert!(changes.contains(&"$.target: Node at $.children[0] -> Node at $.children[1]".to_owned()), "{changes:#?}");
    assert!(
        !changes.iter().any(|change| change.contains("fresh")),
        "a new object's fields are not listed: {changes:#?}"
    );
}

#[test]
fn a_variant_switch_is_one_change_then_its_fields() {
    let mut old = Node::default();
    let new = Node { shape: Shape::Line { length: 3 }, ..Node::default() };
    let changes = described(&mut old, &new);
    assert_eq!(changes.first().map(String::as_str), Some("$.shape.variant: Dot -> Line"), "{changes:#?}");
}

#[test]
fn an_empty_patch_describes_nothing() {
    let mut old = Node { name: "same".into(), ..Node::default() };
    let new = Node { name: "same".into(), ..Node::default() };
    assert!(described(&mut old, &new).is_empty());
}

#[derive(Reflectable, Default)]
#[rtti(id = 964_405)]
struct Link {
    #[rtti(id = 1, identity)]
    id: u64,
    #[rtti(id = 2)]
    next: Option<std::sync::Arc<std::sync::Mutex<Link>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 964_406)]
struct Chain {
    #[rtti(id = 1)]
    links: Vec<std::sync::Arc<std::sync::Mutex<Link>>>,
}

/// A `Mutex` object whose pointer the patch points at itself: described without locking it
/// twice (the description names objects when none is being written).
#[test]
fn an_object_pointing_at_itself_is_described_without_a_deadlock() {
    use std::sync::{Arc, Mutex};
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let old_link = Arc::new(Mutex::new(Link { id: 1, next: None }));
        let mut old = Chain { links: vec![old_link.clone()] };
        let new_link = Arc::new(Mutex::new(Link { id: 1, next: None }));
        new_link.lock().unwrap().next = Some(new_link.clone());
        let new = Chain { links: vec![new_link.clone()] };
        let (report, changes) = diff(&old, &new).unwrap().apply_described(&mut old, Registry::global());
        let lines: Vec<String> = changes.iter().map(AppliedChange::to_string).collect();
        new_link.lock().unwrap().next = None;
        old_link.lock().unwrap().next = None;
        sender.send((report.is_complete(), lines)).unwrap();
    });
    let (complete, lines) = receiver.recv_timeout(std::time::Duration::from_secs(20)).expect("no deadlock");
    assert!(complete);
    assert_eq!(lines, ["Link#1.next: null -> Link#1"]);
}

/// An object the patch creates is named as it ends up, identity included.
#[test]
fn a_created_object_is_named_by_its_identity() {
    let mut old = Node { parts: vec![part(1, "a")], ..Node::default() };
    let new = Node { parts: vec![part(1, "a"), part(7, "fresh")], ..Node::default() };
    assert_eq!(described(&mut old, &new), ["$.parts[1]: added (Part#7)"]);
    #[derive(Reflectable, Default)]
    #[rtti(id = 964_407)]
    struct Holder {
        #[rtti(id = 1)]
        links: Vec<std::sync::Arc<std::sync::Mutex<Link>>>,
    }
    let mut old = Holder::default();
    let new = Holder { links: vec![std::sync::Arc::new(std::sync::Mutex::new(Link { id: 9, next: None }))] };
    let (_, changes) = diff(&old, &new).unwrap().apply_described(&mut old, Registry::global());
    assert_eq!(changes[0].to_string(), "$.links[0]: added (Link#9)");
}

/// Objects that only moved within an array are one change: the order.
#[test]
fn an_array_reordered_is_one_change() {
    let (a, b) = (node("a"), node("b"));
    let mut old =
        Node { children: vec![a.clone(), b.clone()], parts: vec![part(1, "x"), part(2, "y")], ..Node::default() };
    let new = Node { children: vec![b, a], parts: vec![part(2, "y"), part(1, "x")], ..Node::default() };
    let mut changes = described(&mut old, &new);
    changes.sort();
    assert_eq!(changes, ["$.children: reordered", "$.parts: reordered"]);
}

#[derive(Reflectable, Default)]
#[rtti(id = 964_408)]
struct Back {
    #[rtti(id = 1)]
    value: u32,
    #[rtti(id = 2)]
    back: std::sync::Weak<std::sync::Mutex<Back>>,
}

/// A caller that holds the old root locked (diffing and patching through its guard) while the
/// new graph points back at it by a `Weak`: no walk of the diff or the description locks it.
#[test]
fn a_root_held_locked_is_never_locked_again() {
    use std::sync::{Arc, Mutex};
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let root = Arc::new(Mutex::new(Back { value: 1, back: std::sync::Weak::new() }));
        root.lock().unwrap().back = Arc::downgrade(&root);
        let mut guard = root.lock().unwrap();
        let new = Back { value: 2, back: Arc::downgrade(&root) };
        let patch = diff(&*guard, &new).unwrap();
        let (report, changes) = patch.apply_described(&mut *guard, Registry::global());
        sender.send((report.is_complete(), changes.len(), guard.value)).unwrap();
    });
    let (complete, changes, value) = receiver.recv_timeout(std::time::Duration::from_secs(20)).expect("no deadlock");
    assert!(complete);
    assert_eq!((changes, value), (1, 2));
}
