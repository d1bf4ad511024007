//! Round trips through the binary serializer: every plain type and field kind, a 10,000-object
//! level with its sharing, shared roots, hooks, every pointer family with cycles, streaming sinks,
//! and random graphs.

#[path = "../examples/common/level.rs"]
mod level;

use quickcheck::{quickcheck, TestResult};
use reflectable::rtti::RttiHooks;
use reflectable::serializer::BinarySerializer;
use reflectable::{reflect_trait, PlainType, Reflectable};
use smallvec::SmallVec;
use std::any::Any;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::{Rc, Weak};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

pub trait Shape: Reflectable {
    fn area(&self) -> f32;
}
reflect_trait!(Shape);

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 410_000, implements(Shape))]
struct Square {
    #[rtti(id = 1)]
    side: f32,
}
impl Shape for Square {
    fn area(&self) -> f32 {
        self.side * self.side
    }
}

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 410_001, implements(Shape))]
struct Circle {
    #[rtti(id = 1)]
    radius: f32,
    #[rtti(id = 2)]
    label: String,
}
impl Shape for Circle {
    fn area(&self) -> f32 {
        3.0 * self.radius * self.radius
    }
}

#[derive(PlainType, Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[plain(id = 1600, pod)]
#[repr(C)]
struct Vertex {
    position: [f32; 3],
    uv: [f32; 2],
}

#[derive(PlainType, Debug, Clone, Copy, PartialEq, Default)]
#[plain(id = 1601)]
enum Weather {
    #[default]
    Clear,
    Rain,
    Snow = 10,
}

/// Every plain type the crate supports.
#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 410_010)]
struct Plains {
    #[rtti(id = 1)]
    numbers: (u8, u16, u32, u64, u128, i8, i16, i32),
    #[rtti(id = 2)]
    more: (i64, i128, f32, f64, usize, isize, bool, char),
    #[rtti(id = 3)]
    text: String,
    #[rtti(id = 4)]
    duration: Duration,
    #[rtti(id = 5)]
    deque: VecDeque<i32>,
    #[rtti(id = 6)]
    hash_map: HashMap<String, u32>,
    #[rtti(id = 7)]
    btree_map: BTreeMap<u8, Vec<String>>,
    #[rtti(id = 8)]
    hash_set: HashSet<u64>,
    #[rtti(id = 9)]
    btree_set: BTreeSet<char>,
    #[rtti(id = 10)]
    option: Option<u16>,
    #[rtti(id = 11)]
    nested_option: Option<Option<String>>,
    #[rtti(id = 12)]
    boxed: Box<u64>,
    #[rtti(id = 13)]
    array: [u32; 4],
    #[rtti(id = 14)]
    big_array: Vec<[u8; 40]>,
    #[rtti(id = 15)]
    small: SmallVec<[u16; 4]>,
    #[rtti(id = 16)]
    vertices: Vec<Vertex>,
    #[rtti(id = 17)]
    weather: Weather,
    #[rtti(id = 18)]
    strings: Vec<String>,
    #[rtti(id = 19, array)]
    fixed: [i16; 3],
    #[rtti(id = 20, plain)]
    whole: Vec<Option<bool>>,
    #[rtti(id = 21)]
    empty: Vec<u8>,
}

fn plains() -> Plains {
    Plains {
        numbers: (1, 2, 3, 4, u128::MAX, -1, -2, -3),
        more: (i64::MIN, -5, 1.5, f64::EPSILON, usize::MAX, isize::MIN, true, 'λ'),
        text: "héllo".into(),
        duration: Duration::new(5, 7),
        deque: VecDeque::from([1, -1, 7]),
        hash_map: HashMap::from([("a".to_owned(), 1), ("bb".to_owned(), 2)]),
        btree_map: BTreeMap::from([(1, vec!["x".to_owned()]), (2, vec![])]),
        hash_set: HashSet::from([1, 99, u64::MAX]),
        btree_set: BTreeSet::from(['a', 'z']),
        option: Some(9),
        nested_option: Some(None),
        boxed: Box::new(77),
        array: [4, 3, 2, 1],
        big_array: vec![std::array::from_fn(|i| i as u8); 9],
        small: SmallVec::from_slice(&[1, 2, 3, 4, 5]),
        vertices: (0..50).map(|i| Vertex { position: [i as f32, 0.5, -1.0], uv: [0.25, 0.75] }).collect(),
        weather: Weather::Snow,
        strings: vec!["one".into(), String::new(), "three".into()],
        fixed: [-1, 0, 1],
        whole: vec![Some(true), None, Some(false)],
        empty: Vec::new(),
    }
}

#[test]
fn every_plain_type_round_trips() {
    let serializer = BinarySerializer::new();
    let value = plains();
    let back: Plains = serializer.decode(&serializer.encode(&value).unwrap()).unwrap();
    assert_eq!(back, value);
    let default: Plains = serializer.decode(&serializer.encode(&Plains::default()).unwrap()).unwrap();
    assert_eq!(default, Plains::default());
}

/// Every reflectable and pointer form.
#[derive(Reflectable, Default)]
#[rtti(id = 410_020)]
struct Kinds {
    #[rtti(id = 1, embedded)]
    square: Square,
    #[rtti(id = 2, embedded)]
    maybe: Option<Circle>,
    #[rtti(id = 3)]
    any: Option<Box<dyn Reflectable>>,
    #[rtti(id = 4)]
    shape: Option<Box<dyn Shape>>,
    #[rtti(id = 5, embedded)]
    squares: Vec<Square>,
    #[rtti(id = 6, embedded)]
    pair: [Circle; 2],
    #[rtti(id = 7, embedded)]
    small: SmallVec<[Square; 2]>,
    #[rtti(id = 8)]
    shapes: Vec<Box<dyn Shape>>,
    #[rtti(id = 9, embedded)]
    chain: Option<Box<Kinds>>,
    #[rtti(id = 20)]
    rc: Option<Rc<Square>>,
    #[rtti(id = 21)]
    rc_cell: Option<Rc<RefCell<Circle>>>,
    #[rtti(id = 22)]
    arc: Option<Arc<Square>>,
    #[rtti(id = 23)]
    arc_mutex: Option<Arc<Mutex<Circle>>>,
    #[rtti(id = 24)]
    arc_rwlock: Option<Arc<RwLock<Square>>>,
    #[rtti(id = 25)]
    weak: Weak<RefCell<Circle>>,
    #[rtti(id = 26)]
    dyn_cells: Vec<Rc<RefCell<dyn Shape>>>,
    #[rtti(id = 27)]
    dyn_arcs: [Option<Arc<dyn Shape>>; 2],
    #[rtti(id = 28)]
    small_ptrs: SmallVec<[Rc<Square>; 2]>,
    #[rtti(id = 29)]
    dyn_mutex: Option<Arc<Mutex<dyn Shape>>>,
    #[rtti(id = 30)]
    dyn_rwlock: Option<Arc<RwLock<dyn Shape>>>,
    #[rtti(id = 31)]
    any_rc: Option<Rc<dyn Reflectable>>,
    #[rtti(id = 32)]
    weak_arc: std::sync::Weak<Mutex<Circle>>,
    #[rtti(id = 33)]
    strong_rc: Rc<Square>,
}

fn circle(radius: f32, label: &str) -> Circle {
    Circle { radius, label: label.into() }
}

#[test]
fn every_field_kind_round_trips_with_sharing() {
    let shared_square = Rc::new(Square { side: 2.0 });
    let shared_circle = Rc::new(RefCell::new(circle(1.0, "shared")));
    let shared_mutex = Arc::new(Mutex::new(circle(3.0, "locked")));
    let dyn_square: Rc<RefCell<dyn Shape>> = Rc::new(RefCell::new(Square { side: 5.0 }));
    let dyn_arc: Arc<dyn Shape> = Arc::new(circle(4.0, "arc"));
    let kinds = Kinds {
        square: Square { side: 1.0 },
        maybe: Some(circle(2.0, "maybe")),
        any: Some(Box::new(Square { side: 3.0 })),
        shape: Some(Box::new(circle(6.0, "boxed"))),
        squares: vec![Square { side: 7.0 }, Square { side: 8.0 }],
        pair: [circle(1.0, "left"), circle(2.0, "right")],
        small: SmallVec::from_vec(vec![Square { side: 9.0 }; 3]),
        shapes: vec![Box::new(Square { side: 10.0 }), Box::new(circle(11.0, "in vec"))],
        chain: Some(Box::new(Kinds { square: Square { side: 42.0 }, ..Kinds::default() })),
        rc: Some(shared_square.clone()),
        rc_cell: Some(shared_circle.clone()),
        arc: Some(Arc::new(Square { side: 12.0 })),
        arc_mutex: Some(shared_mutex.clone()),
        arc_rwlock: Some(Arc::new(RwLock::new(Square { side: 13.0 }))),
        weak: Rc::downgrade(&shared_circle),
        dyn_cells: vec![dyn_square.clone(), Rc::new(RefCell::new(circle(14.0, "cell"))), dyn_square.clone()],
        dyn_arcs: [Some(dyn_arc.clone()), Some(dyn_arc.clone())],
        small_ptrs: SmallVec::from_vec(vec![shared_square.clone(); 3]),
        dyn_mutex: Some(Arc::new(Mutex::new(Square { side: 15.0 }))),
        dyn_rwlock: Some(Arc::new(RwLock::new(circle(16.0, "rw")))),
        any_rc: Some(Rc::new(circle(17.0, "any"))),
        weak_arc: Arc::downgrade(&shared_mutex),
        strong_rc: shared_square.clone(),
    };
    let serializer = BinarySerializer::new();
    let back: Kinds = serializer.decode(&serializer.encode(&kinds).unwrap()).unwrap();

    assert_eq!(back.square, kinds.square);
    assert_eq!(back.maybe, kinds.maybe);
    assert_eq!(back.any.as_ref().unwrap().downcast_ref::<Square>(), Some(&Square { side: 3.0 }));
    assert_eq!(back.shape.as_ref().unwrap().downcast_ref::<Circle>(), Some(&circle(6.0, "boxed")));
    assert_eq!(back.squares, kinds.squares);
    assert_eq!(back.pair, kinds.pair);
    assert_eq!(back.small, kinds.small);
    assert_eq!(back.shapes.iter().map(|s| s.area()).collect::<Vec<_>>(), [100.0, 363.0]);
    assert_eq!(back.chain.as_ref().unwrap().square.side, 42.0);

    // Values behind pointers.
    assert_eq!(**back.rc.as_ref().unwrap(), Square { side: 2.0 });
    assert_eq!(*back.rc_cell.as_ref().unwrap().borrow(), circle(1.0, "shared"));
    assert_eq!(**back.arc.as_ref().unwrap(), Square { side: 12.0 });
    assert_eq!(*back.arc_mutex.as_ref().unwrap().lock().unwrap(), circle(3.0, "locked"));
    assert_eq!(*back.arc_rwlock.as_ref().unwrap().read().unwrap(), Square { side: 13.0 });
    assert_eq!(back.dyn_cells.iter().map(|s| s.borrow().area()).collect::<Vec<_>>(), [25.0, 588.0, 25.0]);
    assert_eq!(back.dyn_mutex.as_ref().unwrap().lock().unwrap().area(), 225.0);
    assert_eq!(back.dyn_rwlock.as_ref().unwrap().read().unwrap().area(), 768.0);
    assert_eq!(back.any_rc.as_ref().unwrap().downcast_ref::<Circle>(), Some(&circle(17.0, "any")));

    // Sharing: the same allocation wherever it was shared.
    let square = back.rc.as_ref().unwrap();
    assert!(Rc::ptr_eq(square, &back.strong_rc));
    assert!(back.small_ptrs.iter().all(|p| Rc::ptr_eq(p, square)));
    assert!(Rc::ptr_eq(&back.weak.upgrade().unwrap(), back.rc_cell.as_ref().unwrap()));
    assert!(Arc::ptr_eq(&back.weak_arc.upgrade().unwrap(), back.arc_mutex.as_ref().unwrap()));
    assert!(Rc::ptr_eq(&back.dyn_cells[0], &back.dyn_cells[2]));
    assert!(!Rc::ptr_eq(&back.dyn_cells[0], &back.dyn_cells[1]));
    let [a, b] = &back.dyn_arcs;
    assert!(Arc::ptr_eq(a.as_ref().unwrap(), b.as_ref().unwrap()));
    // And not with the originals: the decoded graph is new.
    assert!(!Rc::ptr_eq(square, &shared_square));
}

#[test]
fn a_ten_thousand_object_level_round_trips_with_its_sharing() {
    let (original, stats) = level::build_level(10_000, 3);
    let serializer = BinarySerializer::new();
    let bytes = serializer.encode(&original).unwrap();
    let decoded: level::Level = serializer.decode(&bytes).unwrap();
    let shared = level::compare_levels(&original, &decoded).unwrap();
    assert_eq!(shared, stats.shared_objects, "distinct allocations before and after");
    assert_eq!(stats.scene_objects, 10_000);
    // A second round trip of the decoded level gives the same bytes.
    assert_eq!(serializer.encode(&decoded).unwrap(), bytes);
    level::break_cycles(&original);
    level::break_cycles(&decoded);
}

#[test]
fn a_shared_root_keeps_pointers_to_itself() {
    let (level, _) = level::build_level(50, 9);
    let root = level.root.clone().unwrap();
    let serializer = BinarySerializer::new();
    let bytes = serializer.encode(&root).unwrap();
    let back: Rc<RefCell<level::SceneObject>> = serializer.decode(&bytes).unwrap();
    let child = back.borrow().children[0].clone();
    assert!(Rc::ptr_eq(&child.borrow().parent.upgrade().unwrap(), &back), "a child's weak parent is the root");
    let as_level = level::Level { root: Some(back.clone()), ..level::Level::default() };
    let original = level::Level { root: Some(root), ..level::Level::default() };
    level::compare_levels(&original, &as_level).unwrap();
    // Decoding the same stream with the root by value: pointers to the root become null.
    let boxed: level::SceneObject = serializer.decode(&bytes).unwrap();
    assert!(boxed.children[0].borrow().parent.upgrade().is_none());
    level::break_cycles(&original);
    level::break_cycles(&as_level);
    boxed.children.iter().for_each(|child| child.borrow_mut().components.clear());
}

/// Hooks record their calls in the context.
#[derive(Reflectable, Default)]
#[rtti(id = 410_030, hooks)]
struct Base {
    #[rtti(id = 1)]
    value: u8,
}

#[derive(Reflectable, Default)]
#[rtti(id = 410_031, hooks)]
struct Derived {
    #[rtti(base)]
    base: Base,
    #[rtti(id = 1)]
    child: Option<Rc<RefCell<Derived>>>,
    #[rtti(id = 2)]
    seen_child_value: u8,
}

fn log(context: &mut dyn Any, entry: String) {
    if let Some(log) = context.downcast_mut::<Vec<String>>() {
        log.push(entry);
    }
}

impl RttiHooks for Base {
    fn on_serialization_started(&self, context: &mut dyn Any) {
        log(context, format!("save base {}", self.value));
    }
    fn on_deserialization_ended(&mut self, context: &mut dyn Any) {
        log(context, format!("loaded base {}", self.value));
    }
}

impl RttiHooks for Derived {
    fn on_serialization_started(&self, context: &mut dyn Any) {
        log(context, format!("save derived {}", self.base.value));
    }
    fn on_serialization_ended(&self, context: &mut dyn Any) {
        log(context, format!("saved derived {}", self.base.value));
    }
    fn on_deserialization_started(&mut self, context: &mut dyn Any) {
        log(context, format!("loading derived (value still {})", self.base.value));
    }
    fn on_deserialization_ended(&mut self, context: &mut dyn Any) {
        // By now every object it points at is decoded too.
        self.seen_child_value = self.child.as_ref().map_or(0, |child| child.borrow().base.value);
        log(context, format!("loaded derived {}", self.base.value));
    }
}

#[test]
fn hooks_run_with_the_callers_context_bases_first() {
    let child = Rc::new(RefCell::new(Derived { base: Base { value: 2 }, ..Derived::default() }));
    let root = Derived { base: Base { value: 1 }, child: Some(child), ..Derived::default() };
    let context = RefCell::new(Vec::<String>::new());
    let serializer = BinarySerializer::new().context(&context);
    let bytes = serializer.encode(&root).unwrap();
    let log = context.take();
    assert_eq!(
        log,
        ["save derived 1", "saved derived 1", "save base 1", "save derived 2", "saved derived 2", "save base 2"]
    );

    let back: Derived = serializer.decode(&bytes).unwrap();
    let log = context.take();
    assert_eq!(back.seen_child_value, 2);
    assert_eq!(
        log,
        [
            "loading derived (value still 0)",
            "loading derived (value still 0)",
            "loaded base 2",
            "loaded derived 2",
            "loaded base 1",
            "loaded derived 1",
        ]
    );
}

/// Cycles through every mutable family: `Rc<RefCell>` rings, and `Send + Sync` rings behind locks.
#[derive(Reflectable, Default)]
#[rtti(id = 410_040)]
struct Ring {
    #[rtti(id = 1)]
    id: u32,
    #[rtti(id = 2)]
    next: Option<Rc<RefCell<Ring>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 410_041)]
struct SyncRing {
    #[rtti(id = 1)]
    id: u32,
    #[rtti(id = 2)]
    next_mutex: Option<Arc<Mutex<SyncRing>>>,
    #[rtti(id = 3)]
    next_rwlock: Option<Arc<RwLock<SyncRing>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 410_042)]
struct Rings {
    #[rtti(id = 1)]
    cell: Option<Rc<RefCell<Ring>>>,
    #[rtti(id = 2)]
    mutex: Option<Arc<Mutex<SyncRing>>>,
    #[rtti(id = 3)]
    rwlock: Option<Arc<RwLock<SyncRing>>>,
}

#[test]
fn strong_cycles_close_in_every_mutable_family() {
    // Rc<RefCell>: a -> b -> a.
    let a = Rc::new(RefCell::new(Ring { id: 1, next: None }));
    let b = Rc::new(RefCell::new(Ring { id: 2, next: Some(a.clone()) }));
    a.borrow_mut().next = Some(b.clone());
    // Arc<Mutex>: a self-loop. Arc<RwLock>: c -> d -> c.
    let m = Arc::new(Mutex::new(SyncRing { id: 3, ..SyncRing::default() }));
    m.lock().unwrap().next_mutex = Some(m.clone());
    let c = Arc::new(RwLock::new(SyncRing { id: 4, ..SyncRing::default() }));
    let d = Arc::new(RwLock::new(SyncRing { id: 5, next_rwlock: Some(c.clone()), ..SyncRing::default() }));
    c.write().unwrap().next_rwlock = Some(d.clone());
    let root = Rings { cell: Some(a.clone()), mutex: Some(m.clone()), rwlock: Some(c.clone()) };

    let serializer = BinarySerializer::new();
    let back: Rings = serializer.decode(&serializer.encode(&root).unwrap()).unwrap();
    let a2 = back.cell.clone().unwrap();
    let b2 = a2.borrow().next.clone().unwrap();
    assert_eq!((a2.borrow().id, b2.borrow().id), (1, 2));
    assert!(Rc::ptr_eq(b2.borrow().next.as_ref().unwrap(), &a2));
    let m2 = back.mutex.clone().unwrap();
    assert!(Arc::ptr_eq(m2.lock().unwrap().next_mutex.as_ref().unwrap(), &m2));
    let c2 = back.rwlock.clone().unwrap();
    let d2 = c2.read().unwrap().next_rwlock.clone().unwrap();
    assert_eq!(d2.read().unwrap().id, 5);
    assert!(Arc::ptr_eq(d2.read().unwrap().next_rwlock.as_ref().unwrap(), &c2));

    for ring in [&a, &a2] {
        ring.borrow_mut().next = None;
    }
    for ring in [&m, &m2] {
        ring.lock().unwrap().next_mutex = None;
    }
    for ring in [&c, &c2] {
        ring.write().unwrap().next_rwlock = None;
    }
}

/// An immutable DAG: `Rc<T>` nodes shared by several parents.
#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 410_050)]
struct Dag {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    children: Vec<Rc<Dag>>,
}

#[test]
fn immutable_dags_are_decoded_before_they_are_shared() {
    let leaf = Rc::new(Dag { name: "leaf".into(), children: vec![] });
    let left = Rc::new(Dag { name: "left".into(), children: vec![leaf.clone()] });
    let right = Rc::new(Dag { name: "right".into(), children: vec![leaf.clone(), leaf.clone()] });
    let root = Dag { name: "root".into(), children: vec![left, right.clone(), right] };
    let serializer = BinarySerializer::new();
    let back: Dag = serializer.decode(&serializer.encode(&root).unwrap()).unwrap();
    assert_eq!(back, root);
    assert!(Rc::ptr_eq(&back.children[1], &back.children[2]));
    let leaf = &back.children[0].children[0];
    assert!(Rc::ptr_eq(leaf, &back.children[1].children[0]));
    assert_eq!(Rc::strong_count(leaf), 3);

    // A shared immutable root too.
    let shared = Rc::new(root);
    let back: Rc<Dag> = serializer.decode(&serializer.encode(&shared).unwrap()).unwrap();
    assert_eq!(*back, *shared);
}

#[test]
fn streaming_sinks_produce_the_same_bytes() {
    let (level, _) = level::build_level(300, 5);
    let serializer = BinarySerializer::new().flush_threshold(1000);
    let expected = serializer.encode(&level).unwrap();

    let mut written = Vec::new();
    let total = serializer.encode_to_writer(&level, &mut written).unwrap();
    assert_eq!((total as usize, &written), (expected.len(), &expected));

    for size in [1, 7, 64, 4096] {
        let mut buffer = vec![0u8; size];
        let mut chunks: Vec<Vec<u8>> = Vec::new();
        let total = serializer
            .encode_to_buffer(&level, &mut buffer, &mut |chunk| {
                chunks.push(chunk.to_vec());
                Ok(())
            })
            .unwrap();
        assert_eq!(total as usize, expected.len());
        assert!(chunks.iter().all(|chunk| chunk.len() <= size));
        assert!(chunks[..chunks.len() - 1].iter().all(|chunk| chunk.len() == size), "full buffers until the last");
        assert_eq!(chunks.concat(), expected);
    }
    level::break_cycles(&level);
}

#[test]
fn weak_only_targets_live_as_long_as_someone_holds_them() {
    #[derive(Reflectable, Default)]
    #[rtti(id = 410_060)]
    struct Watcher {
        #[rtti(id = 1)]
        watched: Weak<RefCell<Square>>,
    }
    let square = Rc::new(RefCell::new(Square { side: 3.0 }));
    let watcher = Watcher { watched: Rc::downgrade(&square) };
    let serializer = BinarySerializer::new();
    let bytes = serializer.encode(&watcher).unwrap();
    let table = reflectable::schema::Schema::size_in_stream(&bytes).unwrap();
    assert_eq!(
        bytes.len(),
        8 + 16 + 16 + table + 24,
        "stream header, the watcher, its target, the schema, the trailer"
    );
    // Nothing in the decoded graph holds the target strongly: the weak pointer is dead afterwards.
    let back: Watcher = serializer.decode(&bytes).unwrap();
    assert!(back.watched.upgrade().is_none());
    // A dead weak pointer is written as null.
    drop(square);
    let bytes = serializer.encode(&watcher).unwrap();
    let table = reflectable::schema::Schema::size_in_stream(&bytes).unwrap();
    assert_eq!(bytes.len(), 8 + 16 + table + 24, "stream header, the watcher alone, the schema, the trailer");
}

/// Random graphs: nodes with strong children (cycles allowed), weak links and shared leaves.
#[derive(Reflectable, Default)]
#[rtti(id = 410_070)]
struct Node {
    #[rtti(id = 1)]
    value: i64,
    #[rtti(id = 2)]
    label: String,
    #[rtti(id = 3)]
    children: Vec<Rc<RefCell<Node>>>,
    #[rtti(id = 4)]
    weak: Weak<RefCell<Node>>,
    #[rtti(id = 5)]
    leaf: Option<Rc<Square>>,
    #[rtti(id = 6)]
    payload: Option<Box<dyn Shape>>,
}

fn build_graph(values: &[(i64, String)], edges: &[(u8, u8)], weak: &[(u8, u8)]) -> Vec<Rc<RefCell<Node>>> {
    let leaves: Vec<Rc<Square>> = (0..3).map(|i| Rc::new(Square { side: i as f32 })).collect();
    let nodes: Vec<Rc<RefCell<Node>>> = values
        .iter()
        .enumerate()
        .map(|(i, (value, label))| {
            Rc::new(RefCell::new(Node {
                value: *value,
                label: label.clone(),
                leaf: (value % 2 == 0).then(|| leaves[i % 3].clone()),
                payload: (value % 3 == 0).then(|| Box::new(circle(*value as f32, label)) as Box<dyn Shape>),
                ..Node::default()
            }))
        })
        .collect();
    let n = nodes.len();
    for &(from, to) in edges {
        let child = nodes[to as usize % n].clone();
        nodes[from as usize % n].borrow_mut().children.push(child);
    }
    for &(from, to) in weak {
        nodes[from as usize % n].borrow_mut().weak = Rc::downgrade(&nodes[to as usize % n]);
    }
    nodes
}

/// Compares two graphs from their roots: same values, and a one-to-one pairing of allocations.
fn same_graph(a: &Rc<RefCell<Node>>, b: &Rc<RefCell<Node>>) -> Result<usize, String> {
    let mut identity = level::Identity::default();
    let mut visited = HashSet::new();
    let mut pending = vec![(a.clone(), b.clone())];
    let addr = |rc: &Rc<RefCell<Node>>| Rc::as_ptr(rc) as usize;
    while let Some((x, y)) = pending.pop() {
        identity.link(addr(&x), addr(&y))?;
        if !visited.insert(addr(&x)) {
            continue;
        }
        let (x, y) = (x.borrow(), y.borrow());
        if x.value != y.value || x.label != y.label || x.children.len() != y.children.len() {
            return Err(format!("node {} differs", x.value));
        }
        match (&x.leaf, &y.leaf) {
            (Some(lx), Some(ly)) if **lx == **ly => {
                identity.link(Rc::as_ptr(lx) as usize, Rc::as_ptr(ly) as usize)?;
            }
            (None, None) => {}
            _ => return Err("leaf differs".into()),
        }
        if x.payload.as_ref().map(|p| p.area()) != y.payload.as_ref().map(|p| p.area()) {
            return Err("payload differs".into());
        }
        match (x.weak.upgrade(), y.weak.upgrade()) {
            (Some(wx), Some(wy)) => pending.push((wx, wy)),
            (None, None) => {}
            _ => return Err("weak differs".into()),
        }
        pending.extend(x.children.iter().cloned().zip(y.children.iter().cloned()));
    }
    Ok(identity.len())
}

fn drop_graph(nodes: &[Rc<RefCell<Node>>]) {
    nodes.iter().for_each(|node| node.borrow_mut().children.clear());
}

fn reachable(root: &Rc<RefCell<Node>>) -> Vec<Rc<RefCell<Node>>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut pending = vec![root.clone()];
    while let Some(node) = pending.pop() {
        if seen.insert(Rc::as_ptr(&node) as usize) {
            pending.extend(node.borrow().children.iter().cloned());
            out.push(node);
        }
    }
    out
}

/// Encodes the graph under `root` and decodes it: it must come back as it was (at least `count`
/// nodes paired) and encode again to the same bytes. The decoded graph is torn down.
/// In format versions 3 and 5 (whose objects record their lengths) alike.
fn round_trips(root: &Rc<RefCell<Node>>, count: usize) -> TestResult {
    for version in [3, 5] {
        let serializer = BinarySerializer::new().format_version(version);
        let bytes = serializer.encode(root).unwrap();
        let back: Rc<RefCell<Node>> = serializer.decode(&bytes).unwrap();
        let result = same_graph(root, &back);
        let again = serializer.encode(&back).unwrap();
        drop_graph(&reachable(&back));
        match result {
            Ok(pairs) if again == bytes && pairs >= count => {}
            Ok(pairs) => {
                let equal = again == bytes;
                return TestResult::error(format!(
                    "version {version}: {pairs} pairs for {count} nodes, re-encoding equal: {equal}"
                ));
            }
            Err(error) => return TestResult::error(format!("version {version}: {error}")),
        }
    }
    TestResult::passed()
}

/// Sets the `Weak` of `sources[from]` to `targets[to]` for each pair (indices wrap around).
fn link_weakly(sources: &[Rc<RefCell<Node>>], targets: &[Rc<RefCell<Node>>], weak: &[(u8, u8)]) {
    for &(from, to) in weak {
        let target = Rc::downgrade(&targets[to as usize % targets.len()]);
        sources[from as usize % sources.len()].borrow_mut().weak = target;
    }
}

quickcheck! {
    fn random_graphs_round_trip(values: Vec<(i64, String)>, edges: Vec<(u8, u8)>, weak: Vec<(u8, u8)>) -> TestResult {
        if values.is_empty() {
            return TestResult::discard();
        }
        let nodes = build_graph(&values, &edges, &[]);
        // Weak links only to nodes the root reaches strongly: a weak link to anything else is
        // dead after decoding, by design (nothing in the decoded graph owns its target).
        let alive = reachable(&nodes[0]);
        link_weakly(&nodes, &alive, &weak);
        let result = round_trips(&nodes[0], alive.len());
        drop_graph(&nodes);
        result
    }

    // The encoder forgets an object once it has met every pointer to it (its strong and weak
    // counts). Held only by the graph (no list of nodes outside it), every count is the graph's
    // own, so objects are forgotten as early as possible: sharing, cycles and `Weak`s must
    // still come back as they were.
    fn graphs_held_only_by_their_root_round_trip(values: Vec<(i64, String)>, edges: Vec<(u8, u8)>, weak: Vec<(u8, u8)>) -> TestResult {
        if values.is_empty() {
            return TestResult::discard();
        }
        let nodes = build_graph(&values, &edges, &[]);
        let alive = reachable(&nodes[0]);
        link_weakly(&alive, &alive, &weak);
        let root = nodes[0].clone();
        let count = alive.len();
        let unreachable: Vec<_> = nodes.into_iter().filter(|node| !alive.iter().any(|a| Rc::ptr_eq(a, node))).collect();
        drop_graph(&unreachable);
        drop((alive, unreachable));
        let result = round_trips(&root, count);
        drop_graph(&reachable(&root));
        result
    }
}

#[test]
fn random_graphs_without_dangling_weak_links_always_compare_equal() {
    // Deterministic variant: weak links only to nodes reachable by strong edges.
    for seed in 1..200u64 {
        let mut rng = level::Rng::new(seed);
        let n = 1 + rng.below(40);
        let values: Vec<(i64, String)> = (0..n).map(|i| (rng.next() as i64, format!("n{i}"))).collect();
        // A spanning chain keeps every node reachable; extra edges add sharing and cycles.
        let mut edges: Vec<(u8, u8)> = (1..n).map(|i| (rng.below(i) as u8, i as u8)).collect();
        edges.extend((0..rng.below(2 * n)).map(|_| (rng.below(n) as u8, rng.below(n) as u8)));
        let weak: Vec<(u8, u8)> = (0..rng.below(n)).map(|_| (rng.below(n) as u8, rng.below(n) as u8)).collect();
        let nodes = build_graph(&values, &edges, &weak);
        let serializer = BinarySerializer::new();
        let back: Rc<RefCell<Node>> = serializer.decode(&serializer.encode(&nodes[0]).unwrap()).unwrap();
        let pairs = same_graph(&nodes[0], &back).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(pairs >= n, "seed {seed}: every node is paired");
        drop_graph(&reachable(&back));
        drop_graph(&nodes);
    }
}

#[test]
fn shared_object_handles_round_trip_as_roots() {
    let square: Rc<RefCell<dyn Shape>> = Rc::new(RefCell::new(Square { side: 6.0 }));
    let serializer = BinarySerializer::new();
    let bytes = serializer.encode(&square.clone()).unwrap();
    let back: Rc<RefCell<Square>> = serializer.decode(&bytes).unwrap();
    assert_eq!(back.borrow().side, 6.0);
}

#[test]
fn decoding_from_a_reader_matches_decoding_from_a_slice() {
    let dag = Dag { name: "read".into(), children: vec![Rc::new(Dag::default())] };
    let bytes = BinarySerializer::new().encode(&dag).unwrap();
    let mut reader = std::io::Cursor::new(bytes);
    let back = BinarySerializer::new().decode_from_reader::<Box<dyn reflectable::Reflectable>>(&mut reader).unwrap();
    assert_eq!(back.downcast_ref::<Dag>(), Some(&dag));
}

/// A hand-written plain type whose encoding breaks its own static size.
#[derive(Default, Clone)]
struct Liar(u8);

impl reflectable::plain::PlainType for Liar {
    const TYPE_ID: u32 = 1700;
    const STATIC_SIZE: Option<u32> = Some(1);
    fn size(&self) -> usize {
        1
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&[self.0, self.0]);
    }
    fn read(reader: &mut reflectable::plain::Reader<'_>) -> Result<Self, reflectable::plain::PlainError> {
        Ok(Liar(reader.take_array::<1>()?[0]))
    }
}

#[derive(Reflectable, Default)]
#[rtti(id = 410_080)]
struct HoldsLiar {
    #[rtti(id = 1)]
    liar: Liar,
}

#[test]
fn a_plain_value_larger_than_its_declared_size_is_an_encode_error() {
    let error = BinarySerializer::new().encode(&HoldsLiar::default()).unwrap_err();
    match error {
        reflectable::serializer::EncodeError::Field { type_name, field, source } => {
            assert_eq!((type_name, field), ("HoldsLiar", "liar"));
            assert!(matches!(source, reflectable::field::FieldError::SizeMismatch { declared: 1, written: 2, .. }));
        }
        other => panic!("{other}"),
    }
}

/// An immutable linked list far longer than the depth limit: built without recursion.
#[derive(Reflectable, Default)]
#[rtti(id = 410_090)]
struct Cons {
    #[rtti(id = 1)]
    value: u32,
    #[rtti(id = 2)]
    next: Option<Rc<Cons>>,
}

#[test]
fn long_immutable_chains_decode() {
    let mut list: Option<Rc<Cons>> = None;
    for value in (0..10_000).rev() {
        list = Some(Rc::new(Cons { value, next: list }));
    }
    let root = Cons { value: u32::MAX, next: list };
    // More than a test thread's 2 MiB stack could drop recursively in a debug build: a program
    // that drops such graphs with care lifts the limit.
    let limits = reflectable::serializer::Limits { max_drop_stack: Some(usize::MAX), ..Default::default() };
    let serializer = BinarySerializer::new().limits(limits);
    let bytes = serializer.encode(&root).unwrap();
    let tight = reflectable::serializer::Limits { max_drop_stack: Some(100_000), ..Default::default() };
    assert!(
        BinarySerializer::new().limits(tight).decode::<Box<dyn reflectable::Reflectable>>(&bytes).is_err(),
        "over 100 kB"
    );
    let back: Cons = serializer.decode(&bytes).unwrap();
    let mut count = 0;
    let mut node = back.next.clone();
    while let Some(current) = node {
        assert_eq!(current.value, count);
        count += 1;
        node = current.next.clone();
    }
    assert_eq!(count, 10_000);
    // Drop the lists iteratively: a recursive drop of 10,000 nodes could overflow a test thread.
    for list in [root.next, back.next] {
        let mut node = list;
        while let Some(current) = node {
            node = Rc::try_unwrap(current).ok().and_then(|mut cons| cons.next.take());
        }
    }
}

// ---- a root passed by reference -----------------------------------------------------------

#[derive(Reflectable, Default)]
#[rtti(id = 200_090)]
struct SceneRoot {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    children: Vec<Rc<RefCell<SceneChild>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 200_091)]
struct SceneChild {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    parent: Weak<RefCell<SceneRoot>>,
}

fn scene_with_parents() -> Rc<RefCell<SceneRoot>> {
    let root = Rc::new(RefCell::new(SceneRoot { name: "root".into(), children: Vec::new() }));
    for name in ["a", "b"] {
        let child = SceneChild { name: name.into(), parent: Rc::downgrade(&root) };
        root.borrow_mut().children.push(Rc::new(RefCell::new(child)));
    }
    root
}

/// Saving a tree by its root object used to write the root twice (once by value, once behind
/// the children's `Weak` parents) and load with dead parents. Passing the handle saves it as the
/// shared root; passing the object while the graph points back at it is an error.
#[test]
fn a_root_saved_by_its_handle_keeps_its_parent_links() {
    let root = scene_with_parents();
    let error = reflectable::to_vec(&*root.borrow()).unwrap_err();
    assert!(
        matches!(error, reflectable::serializer::EncodeError::RootBehindPointer { type_name: "SceneRoot" }),
        "{error}"
    );

    let bytes = reflectable::to_vec(&root).unwrap();
    let back: Rc<RefCell<SceneRoot>> = reflectable::from_slice(&bytes).unwrap();
    assert_eq!(back.borrow().name, "root");
    for child in &back.borrow().children {
        let parent = child.borrow().parent.upgrade().expect("the parent is alive");
        assert!(Rc::ptr_eq(&parent, &back), "the parent is the loaded root itself");
    }
    // Three objects, each written once: the root, then its two children.
    assert_eq!(
        BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(&bytes).unwrap().rtti().name(),
        "SceneRoot"
    );
    let again = reflectable::to_vec(&back).unwrap();
    assert_eq!(again, bytes);
}

// ---- zero-size plain elements -------------------------------------------------------------

/// A fieldless plain type: static size 0, nothing on the wire.
#[derive(PlainType, Default, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[plain(id = 2090)]
struct Marker;

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 200_095)]
struct Markers {
    #[rtti(id = 1)]
    array: Vec<Marker>,
    #[rtti(id = 2, plain)]
    whole: Vec<Marker>,
    #[rtti(id = 3)]
    nested: Vec<(u8, Vec<Marker>)>,
    #[rtti(id = 4)]
    one: Marker,
}

/// Arrays of zero-size elements encoded (a count, no content) but could not be read back: the
/// count check assumed at least a byte per element.
#[test]
fn arrays_of_zero_size_plain_elements_round_trip() {
    let markers = Markers {
        array: vec![Marker; 100],
        whole: vec![Marker; 70_000],
        nested: vec![(1, vec![Marker; 3]), (2, Vec::new())],
        one: Marker,
    };
    let bytes = reflectable::to_vec(&markers).unwrap();
    assert_eq!(reflectable::from_slice::<Markers>(&bytes).unwrap(), markers);
}

// ---- deterministic output -----------------------------------------------------------------

#[derive(Reflectable, Default)]
#[rtti(id = 200_096)]
struct Inventory {
    #[rtti(id = 1)]
    counts: HashMap<String, u32>,
    #[rtti(id = 2)]
    tags: HashSet<u64>,
    #[rtti(id = 3)]
    nested: HashMap<u16, HashSet<String>>,
    /// Maps of objects: their values are written (and numbered) in key order too.
    #[rtti(id = 4)]
    items: HashMap<String, Rc<RefCell<Item>>>,
    #[rtti(id = 5)]
    by_slot: ahash::AHashMap<u32, Vec<Rc<RefCell<Item>>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 200_099)]
struct Item {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    related: HashMap<u8, Rc<RefCell<Item>>>,
}

/// A map-heavy value; each `HashMap`/`HashSet` gets its own random hasher seed.
fn inventory() -> Inventory {
    let items: Vec<_> =
        (0..50).map(|i| Rc::new(RefCell::new(Item { name: format!("item-{i}"), related: HashMap::new() }))).collect();
    for (i, item) in items.iter().enumerate() {
        // Each item relates to a few later ones: shared values, reached in key order.
        item.borrow_mut().related =
            (1..4u8).filter_map(|k| Some((k, items.get(i + k as usize * 3)?.clone()))).collect();
    }
    Inventory {
        counts: (0..200).map(|i| (format!("item-{i}"), i * 7)).collect(),
        tags: (0..300).map(|i| i * 0x9E37_79B9).collect(),
        nested: (0..40).map(|i| (i, (0..i).map(|j| format!("{j}")).collect())).collect(),
        items: items.iter().rev().map(|item| (item.borrow().name.clone(), item.clone())).collect(),
        by_slot: (0..20u32)
            .map(|slot| (slot * 11, items.iter().skip(slot as usize).step_by(7).cloned().collect()))
            .collect(),
    }
}

const DETERMINISM_CHILD: &str = "REFLECTABLE_TEST_PRINT_INVENTORY";

/// Not a test: prints the encoding for `hash_maps_and_sets_encode_the_same_bytes_in_every_process`.
#[test]
#[ignore = "helper process, run by hash_maps_and_sets_encode_the_same_bytes_in_every_process"]
fn print_inventory_encoding() {
    if std::env::var_os(DETERMINISM_CHILD).is_some() {
        let hex: String = reflectable::to_vec(&inventory()).unwrap().iter().map(|b| format!("{b:02x}")).collect();
        println!("inventory bytes: {hex}");
    }
}

/// Hash maps and sets are written in the order of their keys' encoded bytes: the same graph
/// gives the same bytes whatever the hashers' seeds, here and in another process.
#[test]
fn hash_maps_and_sets_encode_the_same_bytes_in_every_process() {
    let bytes = reflectable::to_vec(&inventory()).unwrap();
    for _ in 0..5 {
        assert_eq!(reflectable::to_vec(&inventory()).unwrap(), bytes, "another seed, the same bytes");
    }
    let back: Inventory = reflectable::from_slice(&bytes).unwrap();
    assert_eq!(back.counts, inventory().counts);
    assert_eq!(back.nested, inventory().nested);
    assert_eq!(back.items.len(), 50);
    assert!(Rc::ptr_eq(&back.items["item-3"], &back.items["item-0"].borrow().related[&1]));
    assert!(Rc::ptr_eq(&back.by_slot[&0][1], &back.items["item-7"]));

    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["print_inventory_encoding", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env(DETERMINISM_CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&child.stdout);
    let hex = stdout.lines().find_map(|line| line.split("inventory bytes: ").nth(1)).expect("the child printed");
    let expected: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, expected, "another process wrote other bytes");
}

#[derive(Reflectable, Default)]
#[rtti(id = 200_097)]
struct LockedScene {
    #[rtti(id = 1)]
    children: Vec<Arc<Mutex<LockedChild>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 200_098)]
struct LockedChild {
    #[rtti(id = 1)]
    parent: std::sync::Weak<Mutex<LockedScene>>,
}

/// Saving a root by reference from inside its lock, while the graph points back at it: the
/// encoder knows the root by address without locking it again (which deadlocked).
#[test]
fn a_root_saved_from_inside_its_lock_is_an_error_not_a_deadlock() {
    let scene = Arc::new(Mutex::new(LockedScene::default()));
    let child = LockedChild { parent: Arc::downgrade(&scene) };
    scene.lock().unwrap().children.push(Arc::new(Mutex::new(child)));
    let (done, result) = std::sync::mpsc::channel();
    let saving = scene.clone();
    std::thread::spawn(move || {
        let guard = saving.lock().unwrap();
        let outcome = reflectable::to_vec(&*guard).map(drop).map_err(|error| error.to_string());
        done.send(outcome).unwrap();
    });
    let outcome = result.recv_timeout(Duration::from_secs(20)).expect("the save returned");
    assert!(outcome.unwrap_err().contains("LockedScene"), "RootBehindPointer names the root");
    assert!(reflectable::to_vec(&scene).is_ok(), "by its handle it saves");
}
