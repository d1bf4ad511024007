//! Graphs whose drop recurses deep, decoded with the default limits on the main thread and on a
//! worker thread of 2 MiB (what `std::thread::spawn` gives): whatever loads drops there, and
//! whatever could not drop is refused (issue 40, point 1; SECURITY.md "Why the drop is played
//! through").
//!
//! libtest runs tests on 2 MiB threads, so this binary has its own `main` (`harness = false`):
//! each case runs on the main thread and on a spawned one. CI runs it in debug and release
//! builds; a stack overflow aborts the process, which fails the run.

#[path = "../examples/common/level.rs"]
mod level;
#[path = "common/stack_mark.rs"]
mod stack_mark;

use reflectable::serializer::{BinarySerializer, DecodeErrorKind, Limits};
use reflectable::Reflectable;
use stack_mark::{chain_bytes, measured_drop, on_both, release, sole, StackMark, Thread};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Mutex, RwLock};

// ---- a route: a long chain a program builds and drops itself --------------------------------

#[derive(Reflectable, Default)]
#[rtti(id = 470_000)]
struct Waypoint {
    #[rtti(id = 1)]
    position: [f32; 3],
    #[rtti(id = 2)]
    next: Option<Rc<RefCell<Waypoint>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 470_001)]
struct Route {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    start: Option<Rc<RefCell<Waypoint>>>,
}

fn route(waypoints: usize) -> Route {
    let mut next = None;
    for n in (0..waypoints).rev() {
        next = Some(Rc::new(RefCell::new(Waypoint { position: [n as f32, 0.0, 0.0], next })));
    }
    Route { name: "patrol".into(), start: next }
}

/// A 20,000-waypoint route, which a program can build and drop on its main thread, loads there
/// with the default limits; on a 2 MiB thread it loads and drops in release builds, and in debug
/// builds (several times the stack per link) it is refused.
fn a_long_route(thread: Thread) {
    let built = route(20_000);
    let bytes = BinarySerializer::new().encode(&built).expect("encode");
    if thread == Thread::Main {
        // Dropped by recursion: the route is what a program can build and drop on its main thread.
        drop(built);
    } else {
        let mut at = built.start;
        while let Some(waypoint) = at {
            at = waypoint.borrow_mut().next.take();
        }
    }
    match BinarySerializer::new().decode::<Route>(&bytes) {
        Ok(loaded) => {
            let mut length = 0;
            let mut at = loaded.start.clone();
            while let Some(waypoint) = at {
                length += 1;
                at = waypoint.borrow().next.clone();
            }
            assert_eq!(length, 20_000);
            drop(loaded);
        }
        Err(error) => {
            assert!(thread == Thread::Small && !release(), "{thread:?}: {error}");
            assert!(matches!(error.kind(), DecodeErrorKind::DropTooDeep { length: 20_001, .. }), "{error}");
        }
    }
}

// ---- the README's level ----------------------------------------------------------------------

/// The level at `objects`, saved, loaded with the default limits and dropped: as built (its
/// camera cycles keep it alive until `break_cycles`), and with the cameras that close a cycle
/// turned away, so the drop frees the whole tree by recursion.
fn the_level(objects: usize, thread: Thread) {
    let (level, _) = level::build_level(objects, 42);
    let serializer = BinarySerializer::new();
    let bytes = serializer.encode(&level).expect("encode");
    let loaded: level::Level = serializer.decode(&bytes).unwrap_or_else(|e| panic!("{objects}, {thread:?}: {e}"));
    level::break_cycles(&loaded);
    drop(loaded);

    cut_camera_cycles(&level);
    let bytes = serializer.encode(&level).expect("encode");
    level::break_cycles(&level);
    let loaded: level::Level = serializer.decode(&bytes).unwrap_or_else(|e| panic!("{objects}, {thread:?}: {e}"));
    let root = Rc::downgrade(loaded.root.as_ref().expect("a root"));
    drop(loaded);
    assert!(root.upgrade().is_none(), "the drop freed the scene");
}

/// Points each camera that follows its own object or an ancestor of it nowhere, leaving the cross
/// links into other branches: no strong cycle is left.
fn cut_camera_cycles(level: &level::Level) {
    for object in level::scene_objects(level) {
        let ancestors = |target: &Rc<RefCell<level::SceneObject>>| {
            let mut at = Some(object.clone());
            while let Some(current) = at {
                if Rc::ptr_eq(&current, target) {
                    return true;
                }
                at = current.borrow().parent.upgrade();
            }
            false
        };
        for component in &object.borrow().components {
            let mut component = component.borrow_mut();
            if let Some(camera) = component.downcast_mut::<level::Camera>() {
                if camera.target.as_ref().is_some_and(ancestors) {
                    camera.target = None;
                }
            }
        }
    }
}

// ---- hostile chains, one per pointer family --------------------------------------------------

#[derive(Reflectable, Default)]
#[rtti(id = 470_010)]
struct MutableLink {
    #[rtti(id = 1)]
    next: Option<Rc<RefCell<MutableLink>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 470_011)]
struct ImmutableLink {
    #[rtti(id = 1)]
    next: Option<Rc<ImmutableLink>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 470_012)]
struct MutexLink {
    #[rtti(id = 1)]
    next: Option<Arc<Mutex<MutexLink>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 470_013)]
struct RwLockLink {
    #[rtti(id = 1)]
    next: Option<Arc<RwLock<RwLockLink>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 470_014)]
struct ArcLink {
    #[rtti(id = 1)]
    next: Option<Arc<ArcLink>>,
}

/// Through a map's values.
#[derive(Reflectable, Default)]
#[rtti(id = 470_015)]
struct MapLink {
    #[rtti(id = 1)]
    next: HashMap<String, Rc<RefCell<MapLink>>>,
}

/// Through a list.
#[derive(Reflectable, Default)]
#[rtti(id = 470_016)]
struct ListLink {
    #[rtti(id = 1)]
    next: Vec<Rc<RefCell<ListLink>>>,
}

/// Through an enum's variant.
#[derive(Reflectable, Default)]
#[rtti(id = 470_017)]
enum EnumLink {
    #[default]
    #[rtti(id = 1)]
    End,
    #[rtti(id = 2)]
    Next {
        #[rtti(id = 1)]
        next: Rc<RefCell<EnumLink>>,
    },
}

/// Decodes a stream with the default limits and drops the result.
type Decode = fn(&[u8]) -> Result<(), reflectable::serializer::DecodeError>;

/// A chain long enough to overflow the stack of whoever drops it (a million links in release
/// builds; 200,000 in debug builds, where each link takes several times the stack): decoding it
/// with the default limits is refused, or loads only where it drops.
fn hostile_chains(thread: Thread) {
    let links = if release() { 1_000_000 } else { 200_000 };
    let cases: Vec<(&str, Vec<u8>, Decode)> = vec![
        (
            "Rc<RefCell<_>>",
            chain_bytes(
                links,
                |n| MutableLink { next: Some(Rc::new(RefCell::new(n))) },
                |n| n.next.take().and_then(sole),
            ),
            |bytes| BinarySerializer::new().decode::<MutableLink>(bytes).map(drop),
        ),
        (
            "Rc<_>",
            chain_bytes(
                links,
                |n| ImmutableLink { next: Some(Rc::new(n)) },
                |n| n.next.take().and_then(|n| Rc::try_unwrap(n).ok()),
            ),
            |bytes| BinarySerializer::new().decode::<ImmutableLink>(bytes).map(drop),
        ),
        (
            "Arc<Mutex<_>>",
            chain_bytes(
                links,
                |n| MutexLink { next: Some(Arc::new(Mutex::new(n))) },
                |n| n.next.take().and_then(|n| Arc::try_unwrap(n).ok()).map(|n| n.into_inner().expect("not poisoned")),
            ),
            |bytes| BinarySerializer::new().decode::<MutexLink>(bytes).map(drop),
        ),
        (
            "Arc<RwLock<_>>",
            chain_bytes(
                links,
                |n| RwLockLink { next: Some(Arc::new(RwLock::new(n))) },
                |n| n.next.take().and_then(|n| Arc::try_unwrap(n).ok()).map(|n| n.into_inner().expect("not poisoned")),
            ),
            |bytes| BinarySerializer::new().decode::<RwLockLink>(bytes).map(drop),
        ),
        (
            "Arc<_>",
            chain_bytes(
                links,
                |n| ArcLink { next: Some(Arc::new(n)) },
                |n| n.next.take().and_then(|n| Arc::try_unwrap(n).ok()),
            ),
            |bytes| BinarySerializer::new().decode::<ArcLink>(bytes).map(drop),
        ),
        (
            "a map's values",
            chain_bytes(
                links,
                |n| MapLink { next: HashMap::from([("next".to_owned(), Rc::new(RefCell::new(n)))]) },
                |n| n.next.drain().next().and_then(|(_, n)| sole(n)),
            ),
            |bytes| BinarySerializer::new().decode::<MapLink>(bytes).map(drop),
        ),
        (
            "a list",
            chain_bytes(links, |n| ListLink { next: vec![Rc::new(RefCell::new(n))] }, |n| n.next.pop().and_then(sole)),
            |bytes| BinarySerializer::new().decode::<ListLink>(bytes).map(drop),
        ),
        (
            "an enum's variant",
            chain_bytes(
                links,
                |n| EnumLink::Next { next: Rc::new(RefCell::new(n)) },
                |n| match std::mem::take(n) {
                    EnumLink::Next { next } => sole(next),
                    EnumLink::End => None,
                },
            ),
            |bytes| BinarySerializer::new().decode::<EnumLink>(bytes).map(drop),
        ),
    ];
    for (family, bytes, decode) in cases {
        let error = decode(&bytes).expect_err(family);
        let DecodeErrorKind::DropTooDeep { length, stack, limit } = *error.kind() else {
            panic!("{family}, {thread:?}: {error}")
        };
        assert_eq!(length, links + 1, "{family}");
        assert!(stack > limit, "{family}");
    }
}

// ---- the estimate covers the real drop, for any graph -----------------------------------------

/// A node of a random graph: pointers of each kind a drop lets go of differently (a single one, a
/// list, a map's values), with a mark first so each node notes the stack when it is dropped.
#[derive(Reflectable, Default)]
#[rtti(id = 470_030)]
struct Node {
    #[rtti(skip)]
    _mark: StackMark,
    #[rtti(id = 1)]
    first: Option<Rc<RefCell<Node>>>,
    #[rtti(id = 2)]
    many: Vec<Rc<RefCell<Node>>>,
    #[rtti(id = 3)]
    by_key: HashMap<u32, Rc<RefCell<Node>>>,
    #[rtti(id = 4)]
    last: Option<Rc<RefCell<Node>>>,
}

/// A random graph of up to 64 nodes from `seed`: the root by value and shared nodes, each
/// pointing only at nodes made after it (so the drop frees them all), sharing at random.
fn random_graph(seed: u64) -> Node {
    let mut state = seed | 1;
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    let count = 2 + next(63);
    let shared: Vec<Rc<RefCell<Node>>> = (0..count).map(|_| Rc::default()).collect();
    let fill = |node: &mut Node, from: usize, next: &mut dyn FnMut(usize) -> usize| {
        let pick = |next: &mut dyn FnMut(usize) -> usize| {
            (from + 1 < count).then(|| shared[from + 1 + next(count - from - 1)].clone())
        };
        node.first = pick(next).filter(|_| next(3) > 0);
        node.many = (0..next(4)).filter_map(|_| pick(next)).collect();
        node.by_key = (0..next(4)).filter_map(|key| pick(next).map(|target| (key as u32, target))).collect();
        node.last = pick(next).filter(|_| next(3) > 0);
    };
    for (index, node) in shared.iter().enumerate() {
        fill(&mut node.borrow_mut(), index, &mut next);
    }
    let mut root = Node::default();
    fill(&mut root, 0, &mut next);
    root
}

/// For random graphs: what the decoder charges for dropping the decoded graph (read from its
/// refusal under a limit of 0) is at least the stack the drop then takes. This is what makes the
/// order the decoder assumes (declared fields, list elements, maps in any order) safe.
fn the_estimate_covers_any_drop(_: Thread) {
    let mut worst: f64 = 0.0;
    for seed in 1..=300u64 {
        let graph = random_graph(seed);
        let bytes = BinarySerializer::new().encode(&graph).expect("encode");
        drop(graph);
        let tight = Limits { max_drop_stack: Some(0), ..Limits::default() };
        let estimate = match BinarySerializer::new().limits(tight).decode::<Box<dyn reflectable::Reflectable>>(&bytes) {
            Ok(root) => {
                drop(root);
                0
            }
            Err(error) => match *error.kind() {
                DecodeErrorKind::DropTooDeep { stack, .. } => stack,
                _ => panic!("seed {seed}: {error}"),
            },
        };
        let decoded: Node = BinarySerializer::new().decode(&bytes).expect("decode");
        let measured = measured_drop(decoded);
        assert!(estimate >= measured, "seed {seed}: {estimate} bytes estimated, {measured} taken");
        if measured > 0 {
            worst = worst.max(estimate as f64 / measured as f64);
        }
    }
    println!("  300 graphs: the estimate is at most {worst:.1}x what the drop takes");
}

fn main() {
    on_both("the estimate covers any drop", the_estimate_covers_any_drop);
    on_both("a 20,000-waypoint route", a_long_route);
    on_both("hostile chains of every pointer family", hostile_chains);
    on_both("the level at 100,000 objects", |thread| the_level(100_000, thread));
    if release() {
        on_both("the level at 1,000,000 objects", |thread| the_level(1_000_000, thread));
    }
}
