//! Deep and shallow clones through RTTI, and deep equality (`rtti_eq`): sharing, cycles and
//! `Weak`s inside the cloned subgraph re-linked to the clones, pointers leaving it and assets kept,
//! objects of every declaration style; then the same over random graphs (quickcheck).

#[path = "../examples/common/level.rs"]
mod level;
#[path = "common/random_graph.rs"]
mod random_graph;

use quickcheck::{quickcheck, TestResult};
use random_graph::{addr, build, cut_outward_weaks, node, reachable, unlink, Base, Kind, Node, Texture};
use reflectable::clone::{CloneError, Cloner};
use reflectable::diff::rtti_eq;
use reflectable::field::SharedObject;
use reflectable::serializer::BinarySerializer;
use reflectable::{Reflectable, Registry, RttiTypeBuilder};
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

#[test]
fn a_deep_clone_keeps_sharing_and_relinks_cycles_and_weaks() {
    let root = node(0);
    let (a, b) = (node(1), node(2));
    root.borrow_mut().children = vec![a.clone(), b.clone(), a.clone()];
    a.borrow_mut().weak = Rc::downgrade(&root);
    b.borrow_mut().kind = Kind::Linked(Some(root.clone())); // a strong cycle
    b.borrow_mut().named.insert(7, a.clone());
    b.borrow_mut().layers = vec![vec![a.clone(), b.clone()]];

    let copy = Cloner::new().clone_handle(&root).unwrap();
    rtti_eq(&root, &copy).unwrap();
    let children = copy.borrow().children.clone();
    assert!(Rc::ptr_eq(&children[0], &children[2]));
    assert!(![&root, &a, &b].iter().any(|original| children.iter().any(|c| Rc::ptr_eq(c, original))));
    assert!(Rc::ptr_eq(&children[0].borrow().weak.upgrade().unwrap(), &copy));
    assert!(matches!(&children[1].borrow().kind, Kind::Linked(Some(back)) if Rc::ptr_eq(back, &copy)));
    assert!(Rc::ptr_eq(&children[1].borrow().named[&7], &children[0]));
    assert!(Rc::ptr_eq(&children[1].borrow().layers[0][1], &children[1]));
    assert_eq!(children[1].borrow().base, Base::default());
    unlink(&reachable(&copy));
    unlink(&reachable(&root));
}

#[test]
fn pointers_leaving_the_subgraph_and_assets_keep_their_targets() {
    let outside = node(9);
    let stone = Rc::new(Texture { path: "stone.png".into() });
    let root = node(0);
    let child = node(1);
    child.borrow_mut().weak = Rc::downgrade(&outside); // leaves the subgraph
    child.borrow_mut().asset = Some(stone.clone());
    root.borrow_mut().children.push(child);

    let copy = Cloner::new().clone_handle(&root).unwrap();
    let child = copy.borrow().children[0].clone();
    assert!(Rc::ptr_eq(&child.borrow().weak.upgrade().unwrap(), &outside));
    assert!(Rc::ptr_eq(child.borrow().asset.as_ref().unwrap(), &stone));

    // With no flag shared, the asset is cloned like the rest.
    let copy = Cloner::new().share_flags(0).clone_handle(&root).unwrap();
    let asset = copy.borrow().children[0].borrow().asset.clone().unwrap();
    assert!(!Rc::ptr_eq(&asset, &stone));
    assert_eq!(asset.path, "stone.png");
}

#[test]
fn a_shallow_clone_copies_the_object_and_keeps_every_pointer() {
    let root = node(0);
    let child = node(1);
    root.borrow_mut().children = vec![child.clone()];
    root.borrow_mut().kind = Kind::Tagged { tag: "t".into(), weights: vec![1.0, 2.0] };
    let copy = Cloner::new().shallow().clone_handle(&root).unwrap();
    assert!(!Rc::ptr_eq(&copy, &root));
    assert!(Rc::ptr_eq(&copy.borrow().children[0], &child));
    assert!(matches!(&copy.borrow().kind, Kind::Tagged { tag, weights } if tag == "t" && weights == &[1.0, 2.0]));

    let value = Cloner::new().shallow().clone_value(&*root.borrow()).unwrap();
    assert!(Rc::ptr_eq(&value.children[0], &child));
    assert_eq!(value.label, "n0");
}

#[test]
fn a_level_clones_whole_or_with_its_resources_shared() {
    let (level, stats) = level::build_level(2_000, 7);
    let copy = reflectable::clone::deep_clone(&level).unwrap();
    rtti_eq(&level, &copy).unwrap();
    assert_eq!(reflectable::to_vec(&level).unwrap(), reflectable::to_vec(&copy).unwrap());
    assert!(!Rc::ptr_eq(level.root.as_ref().unwrap(), copy.root.as_ref().unwrap()));

    // Textures and meshes shared by type: the clone points at the originals'.
    let cloner =
        Cloner::new().share_type(level::Texture::rtti_static().id()).share_type(level::Mesh::rtti_static().id());
    let copy = cloner.clone_value(&level).unwrap();
    rtti_eq(&level, &copy).unwrap();
    let meshes = |level: &level::Level| -> HashSet<usize> {
        let walker = reflectable::rtti::GraphWalker::new();
        let mut out = HashSet::new();
        walker
            .walk(level, |visit| {
                if visit.object.rtti().id() == level::Mesh::rtti_static().id() {
                    out.insert(visit.shared.unwrap().addr());
                }
                Ok::<_, std::convert::Infallible>(reflectable::rtti::Flow::Continue)
            })
            .unwrap();
        out
    };
    assert!(!meshes(&level).is_empty());
    assert_eq!(meshes(&level), meshes(&copy));
    assert!(stats.scene_objects > 0);
    reflectable::rtti::break_cycles(&copy);
    reflectable::rtti::break_cycles(&level);
}

#[derive(Reflectable, Default)]
#[rtti(id = 570_010)]
struct Leaf {
    #[rtti(id = 1)]
    data: Vec<u16>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 570_011)]
struct Middle {
    #[rtti(id = 1)]
    leaves: Vec<Rc<Leaf>>,
    #[rtti(id = 2)]
    locked: Option<Arc<Mutex<Leaf>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 570_012)]
struct Top {
    #[rtti(id = 1)]
    middles: Vec<Rc<Middle>>,
}

#[test]
fn immutable_pointees_are_built_after_what_they_point_at() {
    let leaf = Rc::new(Leaf { data: vec![1, 2, 3] });
    let locked = Arc::new(Mutex::new(Leaf { data: vec![4] }));
    let middle = Rc::new(Middle { leaves: vec![leaf.clone(), leaf.clone()], locked: Some(locked.clone()) });
    let top = Top { middles: vec![middle.clone(), middle.clone()] };
    let copy = reflectable::clone::deep_clone(&top).unwrap();
    rtti_eq(&top, &copy).unwrap();
    assert!(Rc::ptr_eq(&copy.middles[0], &copy.middles[1]));
    assert!(!Rc::ptr_eq(&copy.middles[0], &middle));
    let leaves = &copy.middles[0].leaves;
    assert!(Rc::ptr_eq(&leaves[0], &leaves[1]) && !Rc::ptr_eq(&leaves[0], &leaf));
    assert!(!Arc::ptr_eq(copy.middles[0].locked.as_ref().unwrap(), &locked));
    assert_eq!(copy.middles[0].locked.as_ref().unwrap().lock().unwrap().data, [4]);
}

thread_local! {
    static FINISHED: Cell<usize> = const { Cell::new(0) };
}

#[derive(Reflectable, Default)]
#[rtti(id = 570_020, hooks)]
struct Cached {
    #[rtti(id = 1)]
    words: Vec<String>,
    #[rtti(skip)]
    total: usize,
}

impl reflectable::rtti::RttiHooks for Cached {
    fn on_deserialization_ended(&mut self, _: &mut dyn std::any::Any) {
        self.total = self.words.iter().map(String::len).sum();
        FINISHED.with(|count| count.set(count.get() + 1));
    }
}

#[test]
fn a_clone_runs_the_load_hooks_so_skipped_state_is_rebuilt() {
    let original = Cached { words: vec!["ab".into(), "cde".into()], total: 5 };
    let before = FINISHED.with(Cell::get);
    let copy = reflectable::clone::deep_clone(&original).unwrap();
    assert_eq!(copy.total, 5);
    assert_eq!(FINISHED.with(Cell::get), before + 1);
}

#[test]
fn objects_of_builder_types_and_runtime_types_clone_too() {
    // A file read without its types: every object is a runtime object.
    let root = node(0);
    let child = node(1);
    child.borrow_mut().weak = Rc::downgrade(&root);
    root.borrow_mut().children = vec![child.clone(), child];
    let bytes = reflectable::to_vec(&root).unwrap();
    let empty = Registry::new();
    let serializer = BinarySerializer::with_registry(&empty).keep_unknown_types(true);
    let object: Rc<RefCell<dyn Reflectable>> = serializer.decode(&bytes).unwrap();
    assert_eq!(object.borrow().rtti().name(), "Node");
    let copy = Cloner::with_registry(&empty).clone_handle(&object).unwrap();
    rtti_eq(&object, &copy).unwrap();
    assert!(!Rc::ptr_eq(&object, &copy));
    let writer = reflectable::serializer::BinarySerializer::with_registry(&empty);
    assert_eq!(writer.encode(&copy).unwrap(), bytes);
    unlink(&reachable(&root));

    // A type declared without a constructor cannot be cloned, and says so.
    struct Fixed;
    impl Reflectable for Fixed {
        fn rtti(&self) -> &'static reflectable::RttiType {
            Self::rtti_static()
        }
        fn rtti_static() -> &'static reflectable::RttiType {
            static RTTI: once_cell::sync::Lazy<reflectable::RttiType> =
                once_cell::sync::Lazy::new(|| RttiTypeBuilder::<Fixed>::new(570_030, "Fixed").build().unwrap());
            &RTTI
        }
    }
    let error = Cloner::new().clone_object(&Fixed).unwrap_err();
    assert!(matches!(&error, CloneError::NoConstructor { type_name } if type_name == "Fixed"), "{error}");
}

#[test]
fn rtti_eq_reports_the_first_difference_with_its_path() {
    let a = node(0);
    let b = node(0);
    a.borrow_mut().children = vec![node(1), node(2)];
    b.borrow_mut().children = vec![node(1), node(3)];
    let difference = rtti_eq(&a, &b).unwrap_err();
    assert_eq!(difference.to_string(), "at children[1].value: different values");

    // A cycle against an equal-looking chain: the shapes differ.
    let cycle = node(5);
    cycle.borrow_mut().children = vec![cycle.clone()];
    let chain = node(5);
    let tail = node(5);
    chain.borrow_mut().children = vec![tail];
    assert!(rtti_eq(&cycle, &chain).is_err());
    assert!(rtti_eq(&cycle, &cycle).is_ok());
    unlink(&[cycle]);

    // Variants, and floats by their stored form.
    let tagged = |w: f32| Node { kind: Kind::Tagged { tag: "t".into(), weights: vec![w] }, ..Node::default() };
    assert!(rtti_eq(&tagged(f32::NAN), &tagged(f32::NAN)).is_ok());
    assert!(rtti_eq(&tagged(0.0), &tagged(-0.0)).is_err());
    let difference = rtti_eq(&tagged(1.0), &Node::default()).unwrap_err();
    assert_eq!(difference.to_string(), "at kind: variant `Tagged` and variant `Empty`");
}

quickcheck! {
    fn a_clone_equals_its_original_and_shares_nothing_inside(values: Vec<(i64, String)>, edges: Vec<(u8, u8, u8)>, edit: u8) -> TestResult {
        if values.is_empty() {
            return TestResult::discard();
        }
        let nodes = build(&values, &edges);
        // A `Weak` leaving the subgraph keeps its original target (tested above), through which
        // the original graph is reachable again: the clone would not equal it.
        cut_outward_weaks(&nodes);
        let inside: HashSet<usize> = reachable(&nodes[0]).iter().map(addr).collect();
        let copy = Cloner::new().clone_handle(&nodes[0]).unwrap();
        let equal = rtti_eq(&nodes[0], &copy).is_ok();
        let same_bytes = reflectable::to_vec(&nodes[0]).unwrap() == reflectable::to_vec(&copy).unwrap();
        let cloned = reachable(&copy);
        let disjoint = cloned.iter().all(|node| !inside.contains(&addr(node)));
        // Weak links point into the clone, or (leaving the subgraph) at the original target.
        let weaks = cloned.iter().all(|node| match node.borrow().weak.upgrade() {
            Some(target) => !inside.contains(&addr(&target)) || cloned.iter().any(|c| Rc::ptr_eq(c, &target)),
            None => true,
        });
        // An edit anywhere in the clone makes the graphs differ.
        let edited = &cloned[edit as usize % cloned.len()];
        let value = edited.borrow().value.wrapping_add(1);
        edited.borrow_mut().value = value;
        let differ = rtti_eq(&nodes[0], &copy).is_err();
        unlink(&cloned);
        unlink(&nodes);
        TestResult::from_bool(equal && same_bytes && disjoint && weaks && differ)
    }

    fn rtti_eq_agrees_with_equal_encodings(values: Vec<(i64, String)>, edges: Vec<(u8, u8, u8)>, other_edges: Vec<(u8, u8, u8)>) -> TestResult {
        if values.is_empty() {
            return TestResult::discard();
        }
        let (a, b) = (build(&values, &edges), build(&values, &other_edges));
        let bytes = |nodes: &[Rc<RefCell<Node>>]| reflectable::to_vec(&nodes[0]).unwrap();
        let agree = rtti_eq(&a[0], &b[0]).is_ok() == (bytes(&a) == bytes(&b));
        unlink(&a);
        unlink(&b);
        TestResult::from_bool(agree)
    }
}

#[test]
fn a_shared_object_clones_into_its_own_family() {
    let root = SharedObject::new_concrete(Arc::new(Mutex::new(Leaf { data: vec![9] })));
    let copy = Cloner::new().clone_shared(&root).unwrap();
    assert_eq!(copy.family(), root.family());
    rtti_eq(&root, &copy).unwrap();
    let leaf: Arc<Mutex<Leaf>> = copy.cast().unwrap();
    assert_eq!(leaf.lock().unwrap().data, [9]);
}

#[test]
fn a_dynamic_graph_clones_deep() {
    use reflectable::dynamic::DynamicGraph;
    let root = node(0);
    let child = node(1);
    child.borrow_mut().kind = Kind::Linked(Some(root.clone())); // a cycle
    root.borrow_mut().children = vec![child.clone(), child];
    let bytes = reflectable::to_vec(&root).unwrap();
    unlink(&reachable(&root));

    let graph = DynamicGraph::from_bytes(&bytes).unwrap();
    let copy = graph.clone();
    assert!(copy == graph);
    assert!(copy.objects().iter().all(|c| graph.objects().iter().all(|o| !c.ptr_eq(o))), "no object shared");
    assert_eq!(copy.to_bytes().unwrap(), bytes);
    copy.root().borrow_mut().own_mut().set(1, &5i64).unwrap();
    assert!(copy != graph, "the copy changes alone");
    assert_eq!(graph.to_bytes().unwrap(), bytes);
}
