//! Diff and patch: `apply(clone(a), diff(a, b))` is `rtti_eq` to `b` over random graphs and
//! random edits (quickcheck); moves, retargets and inserts are expressed as such; patches survive
//! renames and added fields, report what they cannot do, save as bytes and JSON, and never panic
//! on hostile input.

#[path = "../examples/common/level.rs"]
mod level;
#[path = "common/random_graph.rs"]
mod random_graph;

use quickcheck::{quickcheck, TestResult};
use random_graph::{build, cut_outward_weaks, node, reachable, unlink, Kind, Node};
use reflectable::clone::Cloner;
use reflectable::diff::{diff, diff_walked, rtti_eq, ApplyProblemKind, Patch};
use reflectable::Reflectable;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

type Shared = Rc<RefCell<Node>>;

/// One random edit of the graph under `root`: `op` picks what, `at` and `to` which nodes.
fn edit(root: &Shared, (op, at, to, value): (u8, u8, u8, i64)) {
    let nodes = reachable(root);
    let at = &nodes[at as usize % nodes.len()];
    let to = nodes[to as usize % nodes.len()].clone();
    let mut node = at.borrow_mut();
    let position = |len: usize| if len == 0 { 0 } else { value.unsigned_abs() as usize % (len + 1) };
    match op % 12 {
        0 => node.value = value,
        1 => node.label.push('!'),
        2 => {
            let at = position(node.children.len());
            node.children.insert(at, to);
        }
        3 => {
            let at = position(node.children.len());
            node.children.insert(at, random_graph::node(value));
        }
        4 if !node.children.is_empty() => {
            let at = position(node.children.len() - 1);
            node.children.remove(at);
        }
        5 if node.children.len() >= 2 => {
            // A move.
            let at = position(node.children.len() - 1);
            let moved = node.children.remove(at);
            node.children.push(moved);
        }
        6 => node.weak = Rc::downgrade(&to),
        7 => {
            node.kind = match value.rem_euclid(3) {
                0 => Kind::Empty,
                1 => Kind::Tagged { tag: format!("t{value}"), weights: vec![value as f32; 2] },
                _ => Kind::Linked(Some(to)),
            }
        }
        8 => {
            node.named.insert(value as u32 % 8, to);
        }
        9 => {
            let key = value as u32 % 8;
            node.named.remove(&key);
        }
        10 => node.base.serial = value as u64,
        _ => node.layers.push(vec![to, random_graph::node(value)]),
    }
}

/// Cuts `Weak`s to nodes the root does not hold (a patch cannot keep an object alive that only
/// something outside the graph holds).
fn settle(root: &Shared) {
    let inside: std::collections::HashSet<usize> = reachable(root).iter().map(random_graph::addr).collect();
    for node in reachable(root) {
        let dead = node.borrow().weak.upgrade().is_some_and(|t| !inside.contains(&random_graph::addr(&t)));
        if dead {
            node.borrow_mut().weak = std::rc::Weak::new();
        }
    }
}

fn clone(root: &Shared) -> Shared {
    Cloner::new().clone_handle(root).unwrap()
}

/// A random graph (its outward `Weak`s cut) and a clone of it with `edits` made.
fn graph_and_edited(
    values: &[(i64, String)],
    edges: &[(u8, u8, u8)],
    edits: &[(u8, u8, u8, i64)],
) -> (Vec<Shared>, Shared) {
    let a = build(values, edges);
    cut_outward_weaks(&a);
    let b = clone(&a[0]);
    for &step in edits {
        edit(&b, step);
    }
    settle(&b);
    (a, b)
}

quickcheck! {
    fn a_patch_turns_a_into_b(values: Vec<(i64, String)>, edges: Vec<(u8, u8, u8)>, edits: Vec<(u8, u8, u8, i64)>) -> TestResult {
        if values.is_empty() {
            return TestResult::discard();
        }
        let (a, b) = graph_and_edited(&values, &edges, &edits);
        let patch = diff(&a[0], &b).unwrap();
        let target = clone(&a[0]);
        let report = patch.apply_shared(&target);
        let applied = report.is_complete() && rtti_eq(&target, &b).is_ok();
        if !applied {
            eprintln!("report: {report}\ndifference: {:?}\npatch: {patch:?}", rtti_eq(&target, &b).err());
        }
        // Saved and loaded, the patch is the same patch.
        let bytes = patch.to_bytes().unwrap();
        let (loaded, lost) = Patch::from_bytes(&bytes).unwrap();
        let (from_json, json_lost) = Patch::from_json(&patch.to_json().unwrap()).unwrap();
        let saved = loaded == patch && from_json == patch && lost.is_empty() && json_lost.is_empty();
        let nothing = diff(&a[0], &a[0]).unwrap().is_empty() && diff(&a[0], &clone(&a[0])).unwrap().is_empty();
        for root in [&target, &b] {
            unlink(&reachable(root));
        }
        unlink(&a);
        TestResult::from_bool(applied && saved && nothing)
    }

    /// Pointer fields compared through generated code make the patch that walking them through
    /// their descriptors makes, whatever the edits (moves, retargets, inserts, weak and enum
    /// pointers, maps).
    fn generated_pointer_comparison_makes_the_walked_patch(values: Vec<(i64, String)>, edges: Vec<(u8, u8, u8)>, edits: Vec<(u8, u8, u8, i64)>) -> TestResult {
        if values.is_empty() {
            return TestResult::discard();
        }
        let (a, b) = graph_and_edited(&values, &edges, &edits);
        let same = diff(&a[0], &b).unwrap() == diff_walked(&a[0], &b).unwrap();
        unlink(&reachable(&b));
        unlink(&a);
        TestResult::from_bool(same)
    }

    fn hostile_patches_are_reported_never_a_panic(values: Vec<(i64, String)>, edges: Vec<(u8, u8, u8)>, edits: Vec<(u8, u8, u8, i64)>, damage: Vec<(u16, u8)>) -> TestResult {
        if values.is_empty() || damage.is_empty() {
            return TestResult::discard();
        }
        let (a, b) = graph_and_edited(&values, &edges, &edits);
        let mut bytes = diff(&a[0], &b).unwrap().to_bytes().unwrap();
        for &(at, byte) in &damage {
            let at = at as usize % bytes.len();
            bytes[at] = byte;
        }
        if let Ok((patch, _)) = Patch::from_bytes(&bytes) {
            let target = clone(&a[0]);
            let _ = patch.apply_shared(&target);
            unlink(&reachable(&target));
        }
        unlink(&reachable(&b));
        unlink(&a);
        TestResult::passed()
    }
}

#[test]
fn a_move_is_one_pointer_edit_and_a_retarget_creates_nothing() {
    let root = node(0);
    let (x, y, z) = (node(1), node(2), node(3));
    root.borrow_mut().children = vec![x, y, z];
    let edited = clone(&root);
    {
        let mut node = edited.borrow_mut();
        let first = node.children.remove(0);
        node.children.push(first);
        // A link to another object of the graph, not an edit of whatever it pointed at.
        let target = node.children[1].clone();
        node.kind = Kind::Linked(Some(target));
    }
    let patch = diff(&root, &edited).unwrap();
    assert_eq!(patch.objects_changed(), 1, "{patch:?}");
    assert_eq!(patch.objects_created(), 0);
    let target = clone(&root);
    assert!(patch.apply_shared(&target).is_complete());
    rtti_eq(&target, &edited).unwrap();
    for root in [root, edited, target] {
        unlink(&reachable(&root));
    }
}

/// Objects only one pointer leads to are compared without being recorded (see
/// `diff/generate/places.rs`) until something needs where they are: an edit deep in a chain of
/// them, and an array that goes to the general alignment after its first elements were compared
/// that way, must still address the right elements.
#[test]
fn edits_inside_singly_held_objects_address_the_right_elements() {
    let root = node(0);
    let (a, b, c) = (node(1), node(2), node(3));
    let (deep, deeper) = (node(4), node(5));
    deep.borrow_mut().children = vec![node(6), deeper];
    c.borrow_mut().children = vec![node(7), deep];
    root.borrow_mut().children = vec![a, b, c];
    let edited = clone(&root);
    {
        let node = edited.borrow();
        // A value two levels under the third child, through its second elements.
        let deep = node.children[2].borrow().children[1].clone();
        deep.borrow().children[1].borrow_mut().value = 50;
        // The second child changes: the first was compared before the root's children field
        // turns out to need the general alignment, which then guesses the second is edited.
        node.children[1].borrow_mut().value = 20;
    }
    let patch = diff(&root, &edited).unwrap();
    assert_eq!(patch.objects_changed(), 2, "{patch:?}");
    assert_eq!(patch.objects_created(), 0, "{patch:?}");
    let target = clone(&root);
    let report = patch.apply_shared(&target);
    assert!(report.is_complete(), "{report}");
    rtti_eq(&target, &edited).unwrap();
    let values = |root: &Shared| reachable(root).iter().map(|n| n.borrow().value).collect::<Vec<_>>();
    assert_eq!(values(&target), values(&edited));
    for root in [root, edited, target] {
        unlink(&reachable(&root));
    }
}

#[test]
fn an_insert_into_a_long_plain_array_is_a_small_patch() {
    #[derive(Reflectable, Default)]
    #[rtti(id = 571_000)]
    struct Samples {
        #[rtti(id = 1)]
        values: Vec<u32>,
    }
    let old = Samples { values: (0..10_000).collect() };
    let mut new = Samples { values: old.values.clone() };
    new.values.insert(5_000, 7);
    new.values.remove(100);
    let patch = diff(&old, &new).unwrap();
    // The array is 40 KB; the patch holds three runs and one element (beside the format's
    // description of the patch types, some 700 bytes).
    let size = patch.to_bytes().unwrap().len();
    assert!(size < 1_000, "{size} bytes");
    let mut target = Samples { values: old.values.clone() };
    assert!(patch.apply(&mut target).is_complete());
    assert_eq!(target.values, new.values);
}

mod v1 {
    use reflectable::Reflectable;
    #[derive(Reflectable, Default)]
    #[rtti(id = 571_010, name = "Lamp", no_register)]
    pub struct Lamp {
        #[rtti(id = 1)]
        pub on: bool,
        #[rtti(id = 2)]
        pub name: String,
    }
}

mod v2 {
    use reflectable::Reflectable;
    #[derive(Reflectable, Default)]
    #[rtti(id = 571_010, name = "Lamp", no_register)]
    pub struct Lamp {
        #[rtti(id = 1)]
        pub is_on: bool, // renamed
        #[rtti(id = 2)]
        pub label: String, // renamed
        #[rtti(id = 3)]
        pub hue: f32, // added
    }
}

#[test]
fn patches_survive_renames_and_added_fields_and_report_what_is_gone() {
    let patch = diff(&v1::Lamp { on: false, name: "a".into() }, &v1::Lamp { on: true, name: "b".into() }).unwrap();
    let mut lamp = v2::Lamp { is_on: false, label: "a".into(), hue: 0.5 };
    assert!(patch.apply(&mut lamp).is_complete());
    assert_eq!((lamp.is_on, lamp.label.as_str(), lamp.hue), (true, "b", 0.5));

    // Made by the newer build, applied by the older one: the field it lacks is reported.
    let patch = diff(&v2::Lamp::default(), &v2::Lamp { is_on: true, label: String::new(), hue: 0.25 }).unwrap();
    let mut lamp = v1::Lamp::default();
    let report = patch.apply(&mut lamp);
    assert!(lamp.on, "what it can apply, it applies");
    assert_eq!(report.problems().len(), 1, "{report}");
    assert_eq!(report.problems()[0].kind, ApplyProblemKind::Gone);
    assert!(report.to_string().contains("571010.3"), "{report}");

    // A patch for another type is refused, not applied by accident.
    let patch = diff(&Node::default(), &Node { value: 3, ..Node::default() }).unwrap();
    let report = patch.apply(&mut lamp);
    assert!(matches!(report.problems()[0].kind, ApplyProblemKind::TypeMismatch { expected: 570_002, .. }), "{report}");
}

#[test]
fn a_patch_of_a_level_reapplies_one_percent_of_edits() {
    let (level, _) = level::build_level(1_000, 3);
    let mut edited = reflectable::clone::deep_clone(&level).unwrap();
    let mut objects = Vec::new();
    reflectable::rtti::GraphWalker::new()
        .walk(&edited, |visit| {
            if let (Some(shared), "SceneObject") = (visit.shared, visit.object.rtti().name()) {
                objects.push(shared.clone());
            }
            Ok::<_, std::convert::Infallible>(reflectable::rtti::Flow::Continue)
        })
        .unwrap();
    for object in objects.iter().step_by(100) {
        object
            .write(|object| {
                let field = object.rtti().field_by_name("name").unwrap();
                field.set(object, "renamed".to_string()).unwrap();
            })
            .unwrap();
    }
    edited.name = "edited level".into();
    let patch = diff(&level, &edited).unwrap();
    assert_eq!(patch.objects_changed(), 1 + objects.len().div_ceil(100));
    assert_eq!(patch.objects_created(), 0);
    let mut target = reflectable::clone::deep_clone(&level).unwrap();
    let report = patch.apply(&mut target);
    assert!(report.is_complete(), "{report}");
    rtti_eq(&target, &edited).unwrap();
    for level in [&level, &edited, &target] {
        level::break_cycles(level);
    }
}

/// Cuts the parents of a level's scene objects that its root does not hold (through children
/// and camera targets): a removed subtree's cycles keep such parents alive outside the level.
fn settle_parents(level: &level::Level) {
    let mut inside: Vec<Rc<RefCell<level::SceneObject>>> = level.root.iter().cloned().collect();
    let mut seen: std::collections::HashSet<*const RefCell<level::SceneObject>> =
        inside.iter().map(Rc::as_ptr).collect();
    let mut next = 0;
    while next < inside.len() {
        let object = inside[next].clone();
        let object = object.borrow();
        let targets = object.components.iter().filter_map(|component| {
            component.borrow().downcast_ref::<level::Camera>().and_then(|camera| camera.target.clone())
        });
        for reached in object.children.iter().cloned().chain(targets.collect::<Vec<_>>()) {
            if seen.insert(Rc::as_ptr(&reached)) {
                inside.push(reached);
            }
        }
        next += 1;
    }
    for object in &inside {
        let outside = object.borrow().parent.upgrade().is_some_and(|parent| !seen.contains(&Rc::as_ptr(&parent)));
        if outside {
            object.borrow_mut().parent = std::rc::Weak::new();
        }
    }
}

/// Levels (whose types all have generated code) with random edits: children and components
/// reordered, children moved and removed, components shared between objects, objects renamed.
/// The patch applies, and comparing the pointer fields through generated code makes the patch
/// the descriptor walk makes.
fn level_edits_make_the_walked_patch(seed: u8, edits: Vec<(u8, u16, u16)>) -> bool {
    let (level, _) = level::build_level(40, u64::from(seed) + 1);
    let mut edited = reflectable::clone::deep_clone(&level).unwrap();
    let objects = level::scene_objects(&edited);
    for (op, i, j) in edits {
        let (a, b) = (&objects[usize::from(i) % objects.len()], &objects[usize::from(j) % objects.len()]);
        match op % 7 {
            0 => a.borrow_mut().name.push('!'),
            1 => a.borrow_mut().children.reverse(),
            2 => {
                // Moved to the end of another object's children (unless that would make a
                // cycle of children).
                let moved = a.borrow_mut().children.pop();
                if let Some(child) = moved {
                    let below = level::scene_objects(&level::Level { root: Some(child.clone()), ..Default::default() });
                    let target = if below.iter().any(|o| Rc::ptr_eq(o, b)) { a } else { b };
                    child.borrow_mut().parent = Rc::downgrade(target);
                    target.borrow_mut().children.push(child);
                }
            }
            3 => a.borrow_mut().components.reverse(),
            4 if !Rc::ptr_eq(a, b) => {
                let shared = b.borrow().components.first().cloned();
                a.borrow_mut().components.extend(shared);
            }
            4 => b.borrow_mut().transform.scale[0] += 1.0,
            5 => {
                // A camera may still hold it: then it stays in the graph, without a parent.
                let removed = a.borrow_mut().children.pop();
                if let Some(child) = removed {
                    child.borrow_mut().parent = std::rc::Weak::new();
                }
            }
            _ => edited.name.push('!'),
        }
    }
    // Nothing outside the graph holds its objects, and no parent outside it is pointed at (a
    // patch cannot keep alive what only a cycle cut off from the level holds).
    drop(objects);
    settle_parents(&edited);
    let patch = diff(&level, &edited).unwrap();
    let same = patch == diff_walked(&level, &edited).unwrap();
    let mut target = reflectable::clone::deep_clone(&level).unwrap();
    let report = patch.apply(&mut target);
    let applied = report.is_complete() && rtti_eq(&target, &edited).is_ok();
    for level in [&level, &edited, &target] {
        level::break_cycles(level);
    }
    same && applied
}

quickcheck! {
    fn level_edits_make_the_walked_patch_quickcheck(seed: u8, edits: Vec<(u8, u16, u16)>) -> bool {
        level_edits_make_the_walked_patch(seed, edits)
    }
}

/// A case the property found: an alignment matched a component to the one another object now
/// shares, and the comparison of an earlier match paired that one elsewhere first; the match was
/// kept as if it still held, and the other object kept its old component.
#[test]
fn a_match_undone_by_an_earlier_pair_is_dropped() {
    assert!(level_edits_make_the_walked_patch(62, vec![(1, 0, 0), (3, 22607, 0), (4, 13727, 54144)]));
}

/// A node behind a lock: reading one that is being compared again would deadlock.
#[derive(Reflectable, Default)]
#[rtti(id = 580_100)]
struct Locked {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    children: Vec<Arc<Mutex<Locked>>>,
}

fn locked(name: &str, children: Vec<Arc<Mutex<Locked>>>) -> Arc<Mutex<Locked>> {
    Arc::new(Mutex::new(Locked { name: name.into(), children }))
}

/// Diffs `old` and `new` on another thread, failing (not hanging) if it does not finish.
fn diff_in_time(old: Arc<Mutex<Locked>>, new: Arc<Mutex<Locked>>) {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let patch = diff(&old, &new).unwrap();
        let target = Cloner::new().clone_handle(&old).unwrap();
        let report = patch.apply_shared(&target);
        assert!(report.is_complete(), "{report}");
        rtti_eq(&target, &new).unwrap();
        done.send(()).unwrap();
    });
    finished.recv_timeout(std::time::Duration::from_secs(20)).expect("the diff finished (no deadlock, no panic)");
}

#[test]
fn graphs_that_share_locked_objects_diff_without_reading_one_twice() {
    // The new root points at the old root, which is locked while the roots are compared.
    let a = locked("a", vec![]);
    let old = locked("root", vec![a.clone()]);
    diff_in_time(old.clone(), locked("root", vec![old.clone()]));
    // The old root points at the new root, locked as the new side of that comparison.
    let new = locked("root", vec![locked("b", vec![])]);
    diff_in_time(locked("root", vec![new.clone()]), new);
}

/// A shared leaf the shapes below point at.
#[derive(Reflectable, Default)]
#[rtti(id = 580_200)]
struct Leaf {
    #[rtti(id = 1)]
    value: i32,
}

/// The leaves as the helpers below hold them (fields spell the type out: the derive reads it).
type SharedLeaf = Rc<RefCell<Leaf>>;

/// A base section with a pointer field of its own.
#[derive(Reflectable, Default)]
#[rtti(id = 580_201)]
struct Held {
    #[rtti(id = 1)]
    serial: u32,
    #[rtti(id = 2)]
    first: Option<Rc<RefCell<Leaf>>>,
}

/// Pointer fields in every variant shape, after plain ones.
#[derive(Reflectable, Default)]
#[rtti(id = 580_202)]
enum Choice {
    #[default]
    #[rtti(id = 1)]
    Nothing,
    #[rtti(id = 2)]
    Named {
        #[rtti(id = 1)]
        label: String,
        #[rtti(id = 2)]
        target: Option<Rc<RefCell<Leaf>>>,
    },
    #[rtti(id = 3)]
    Tuple(#[rtti(id = 1)] u8, #[rtti(id = 2)] Vec<Rc<RefCell<Leaf>>>),
}

/// A tuple struct: its pointer field is its second member.
#[derive(Reflectable, Default)]
#[rtti(id = 580_203)]
struct Wrap(#[rtti(id = 1)] u8, #[rtti(id = 2)] Vec<Rc<RefCell<Leaf>>>);

/// A generic type.
#[derive(Reflectable, Default)]
#[rtti(id = 580_204)]
struct Pair<T: Reflectable + Default> {
    #[rtti(id = 1)]
    left: Option<Rc<RefCell<T>>>,
    #[rtti(id = 2)]
    right: Option<Rc<RefCell<T>>>,
}

reflectable::register_type!(Pair<Leaf>);

/// Members generated code does not reach (skipped, base) before and between pointer fields.
#[derive(Reflectable, Default)]
#[rtti(id = 580_205)]
struct Shapes {
    // Never read: it is here to be left out of the comparison.
    #[allow(dead_code)]
    #[rtti(skip)]
    cache: u64,
    #[rtti(base)]
    held: Held,
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    many: Vec<Rc<RefCell<Leaf>>>,
    #[rtti(id = 3, embedded)]
    choice: Choice,
    #[rtti(id = 4)]
    one: Option<Rc<RefCell<Leaf>>>,
    #[rtti(id = 5)]
    wrap: Option<Rc<RefCell<Wrap>>>,
    #[rtti(id = 6)]
    pair: Option<Rc<RefCell<Pair<Leaf>>>>,
}

/// Shapes over a pool of leaves, its pointers picked by `picks`.
fn shapes(picks: &[u8]) -> Shapes {
    let leaves: Vec<SharedLeaf> = (0..6).map(|value| Rc::new(RefCell::new(Leaf { value }))).collect();
    let mut pick = picks.iter().copied().cycle();
    let mut leaf = || pick.next().map(|p| leaves[usize::from(p) % leaves.len()].clone());
    let many = (0..3).filter_map(|_| leaf()).collect();
    let choice = match leaf().map(|l| l.borrow().value % 3) {
        Some(1) => Choice::Named { label: "n".into(), target: leaf() },
        Some(2) => Choice::Tuple(7, (0..2).filter_map(|_| leaf()).collect()),
        _ => Choice::Nothing,
    };
    Shapes {
        cache: 9,
        held: Held { serial: 1, first: leaf() },
        name: "shapes".into(),
        many,
        choice,
        one: leaf(),
        wrap: Some(Rc::new(RefCell::new(Wrap(3, (0..2).filter_map(|_| leaf()).collect())))),
        pair: Some(Rc::new(RefCell::new(Pair { left: leaf(), right: leaf() }))),
    }
}

/// One edit of `shapes`: a pointer retargeted, an array reordered or grown, a variant changed, a
/// leaf's value changed.
fn edit_shapes(shapes: &mut Shapes, (op, pick): (u8, u8)) {
    let leaves: Vec<SharedLeaf> = shapes.many.iter().chain(&shapes.one).chain(&shapes.held.first).cloned().collect();
    let Some(leaf) = leaves.get(usize::from(pick) % leaves.len().max(1)).cloned() else { return };
    match op % 9 {
        0 => shapes.held.first = Some(leaf),
        1 => shapes.many.reverse(),
        2 => shapes.many.push(leaf),
        3 => shapes.one = None,
        4 => shapes.choice = Choice::Named { label: "m".into(), target: Some(leaf) },
        5 => shapes.choice = Choice::Tuple(7, vec![leaf.clone(), leaf]),
        6 => shapes.wrap.as_ref().unwrap().borrow_mut().1.insert(0, leaf),
        7 => shapes.pair.as_ref().unwrap().borrow_mut().right = Some(leaf),
        _ => leaf.borrow_mut().value += 10,
    }
}

quickcheck! {
    /// Skipped and base members, enum variants, tuple structs and generic types: comparing their
    /// pointer fields through generated code makes the walk's patch, and it applies.
    fn every_shape_of_pointer_field_makes_the_walked_patch(picks: Vec<u8>, edits: Vec<(u8, u8)>) -> TestResult {
        if picks.is_empty() {
            return TestResult::discard();
        }
        let old = shapes(&picks);
        let mut new = reflectable::clone::deep_clone(&old).unwrap();
        for &step in &edits {
            edit_shapes(&mut new, step);
        }
        let patch = diff(&old, &new).unwrap();
        let same = patch == diff_walked(&old, &new).unwrap();
        let mut target = reflectable::clone::deep_clone(&old).unwrap();
        let applied = patch.apply(&mut target).is_complete() && rtti_eq(&target, &new).is_ok();
        TestResult::from_bool(same && applied && diff(&old, &old).unwrap().is_empty())
    }
}
