//! `GraphWalker`: every reachable object once, with its path; flags, `Weak`s, early ends and
//! errors as the caller asks; random graphs visited exactly as built.

use quickcheck::{quickcheck, TestResult};
use reflectable::field::{FieldError, SharedObject};
use reflectable::rtti::{break_cycles, Flow, GraphWalker, PathStep, WalkError};
use reflectable::Reflectable;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

const PREVIEW: u64 = 1 << 20;

#[derive(Reflectable, Default, Clone, Debug, PartialEq)]
#[rtti(id = 730_001)]
struct Tag {
    #[rtti(id = 1)]
    name: String,
}

#[derive(Reflectable, Default)]
#[rtti(id = 730_002)]
struct Base {
    #[rtti(id = 1, embedded)]
    badge: Tag,
}

#[derive(Reflectable, Default)]
#[rtti(id = 730_003)]
struct Node {
    #[rtti(base)]
    base: Base,
    #[rtti(id = 1)]
    label: u32,
    #[rtti(id = 2, embedded)]
    tags: Vec<Tag>,
    #[rtti(id = 3)]
    children: Vec<Rc<RefCell<Node>>>,
    #[rtti(id = 4)]
    parent: Weak<RefCell<Node>>,
    #[rtti(id = 5, embedded, flags = PREVIEW)]
    preview: Option<Tag>,
}

fn node(label: u32) -> Rc<RefCell<Node>> {
    let tags = vec![Tag { name: format!("t{label}") }];
    Rc::new(RefCell::new(Node { label, tags, ..Default::default() }))
}

/// root -> a, b; a -> c; b -> c (shared) and b -> root (a cycle); every node's parent is a Weak.
fn diamond() -> Rc<RefCell<Node>> {
    let (root, a, b, c) = (node(0), node(1), node(2), node(3));
    root.borrow_mut().children = vec![a.clone(), b.clone()];
    a.borrow_mut().children = vec![c.clone()];
    b.borrow_mut().children = vec![c.clone(), root.clone()];
    for child in [&a, &b, &c] {
        child.borrow_mut().parent = Rc::downgrade(&root);
    }
    root.borrow_mut().preview = Some(Tag { name: "preview".into() });
    root
}

/// Labels of the nodes visited and the paths of the tags, in visit order.
fn visit_all(walker: GraphWalker, root: &Rc<RefCell<Node>>) -> (Vec<u32>, Vec<String>) {
    let (mut labels, mut tags) = (Vec::new(), Vec::new());
    walker
        .walk_shared(&SharedObject::new(root.clone()), |visit| {
            if let Some(node) = visit.object.downcast_ref::<Node>() {
                labels.push(node.label);
            }
            if let Some(tag) = visit.object.downcast_ref::<Tag>() {
                tags.push(format!("{} = {}", visit.path, tag.name));
            }
            Ok::<_, ()>(Flow::Continue)
        })
        .unwrap();
    (labels, tags)
}

#[test]
fn each_object_once_with_the_path_that_first_reached_it() {
    let root = diamond();
    let (labels, tags) = visit_all(GraphWalker::new(), &root);
    assert_eq!(labels, [0, 1, 2, 3], "breadth first over shared objects, c once, the cycle closed");
    assert_eq!(
        tags,
        [
            "tags[0] = t0",
            "preview = preview",
            "badge = ", // the base section's field, after the type's own
            "children[0].tags[0] = t1",
            "children[0].badge = ",
            "children[1].tags[0] = t2",
            "children[1].badge = ",
            "children[0].children[0].tags[0] = t3",
            "children[0].children[0].badge = ",
        ]
    );
    break_cycles(&*root.borrow());
}

#[test]
fn flagged_fields_are_skipped_on_request() {
    let root = diamond();
    let (_, tags) = visit_all(GraphWalker::new().skip_flags(PREVIEW), &root);
    assert!(!tags.iter().any(|tag| tag.contains("preview")), "{tags:?}");
    break_cycles(&*root.borrow());
}

#[test]
fn weaks_are_followed_on_request() {
    let root = diamond();
    let orphan_parent = node(9);
    root.borrow_mut().parent = Rc::downgrade(&orphan_parent);
    let (labels, _) = visit_all(GraphWalker::new(), &root);
    assert!(!labels.contains(&9), "a Weak is not followed by default");
    let (labels, _) = visit_all(GraphWalker::new().follow_weak(true), &root);
    assert_eq!(labels, [0, 1, 2, 9, 3]);
    break_cycles(&*root.borrow());
}

#[test]
fn a_visitor_can_stop_skip_and_fail() {
    let root = diamond();
    let shared = SharedObject::new(root.clone());
    // Skipping node 1's fields: c is still reached through b.
    let mut labels = Vec::new();
    GraphWalker::new()
        .walk_shared(&shared, |visit| {
            let Some(node) = visit.object.downcast_ref::<Node>() else { return Ok::<_, ()>(Flow::Continue) };
            labels.push(node.label);
            Ok(if node.label == 1 { Flow::SkipFields } else { Flow::Continue })
        })
        .unwrap();
    assert_eq!(labels, [0, 1, 2, 3]);
    // Stopping at node 2.
    let mut seen = 0;
    GraphWalker::new()
        .walk_shared(&shared, |visit| {
            seen += 1;
            let stop = visit.object.downcast_ref::<Node>().is_some_and(|node| node.label == 2);
            Ok::<_, ()>(if stop { Flow::Stop } else { Flow::Continue })
        })
        .unwrap();
    assert_eq!(seen, 1 + 3 + 1 + 2 + 1, "root and its three tags, a and its two, then b");
    // The visitor's error ends the walk and comes back as it was.
    let error = GraphWalker::new()
        .walk_shared(&shared, |visit| match visit.object.downcast_ref::<Tag>() {
            Some(tag) if tag.name == "t1" => Err(format!("bad tag at {}", visit.path)),
            _ => Ok(Flow::Continue),
        })
        .unwrap_err();
    assert!(matches!(&error, WalkError::Visitor(message) if message == "bad tag at children[0].tags[0]"), "{error}");
    break_cycles(&*root.borrow());
}

#[test]
fn a_pointee_borrowed_elsewhere_is_an_error_with_its_path() {
    let root = diamond();
    let c = root.borrow().children[0].borrow().children[0].clone();
    let _held = c.borrow_mut();
    let error = GraphWalker::new().walk(&*root.borrow(), |_| Ok::<_, ()>(Flow::Continue)).unwrap_err();
    match &error {
        WalkError::Field { path, source } => {
            assert_eq!(path.to_string(), "children[0].children[0]");
            assert_eq!(path.steps()[1], PathStep::Index(0));
            assert!(matches!(source, FieldError::Borrowed), "{source:?}");
        }
        other => panic!("{other:?}"),
    }
    drop(_held);
    break_cycles(&*root.borrow());
}

#[test]
fn find_collects_every_value_of_a_type() {
    let root = diamond();
    // A root by value that is not in the graph: the walker cannot know that a reference it is
    // given lives in a shared allocation (`walk_shared` is for that).
    let holder = Node { children: vec![root.clone()], ..Default::default() };
    let found = GraphWalker::new().find::<Tag>(&holder).unwrap();
    let names: Vec<_> = found.iter().map(|(tag, _)| tag.name.as_str()).filter(|name| !name.is_empty()).collect();
    assert_eq!(names, ["t0", "preview", "t1", "t2", "t3"]);
    let (_, path) = found.iter().find(|(tag, _)| tag.name == "t3").unwrap();
    assert_eq!(path.to_string(), "children[0].children[0].children[0].tags[0]");
    break_cycles(&*root.borrow());
}

#[test]
fn a_long_chain_costs_no_stack() {
    let head = node(0);
    let mut tail = head.clone();
    for label in 1..200_000 {
        let next = node(label);
        tail.borrow_mut().children.push(next.clone());
        tail = next;
    }
    let mut count = 0;
    GraphWalker::new()
        .walk_shared(&SharedObject::new(head.clone()), |visit| {
            count += usize::from(visit.object.is::<Node>());
            Ok::<_, ()>(Flow::Continue)
        })
        .unwrap();
    assert_eq!(count, 200_000);
    // Dropping a long chain recurses in `Rc`'s own drop: unlink it first.
    let mut next = Some(head);
    while let Some(current) = next {
        next = current.borrow_mut().children.pop();
    }
}

quickcheck! {
    /// Random edges among n nodes: the walk visits exactly the nodes reachable from node 0 by
    /// strong edges, each once.
    fn visits_exactly_the_reachable_nodes(edges: Vec<(u8, u8)>, n: u8) -> TestResult {
        let n = usize::from(n % 24) + 1;
        let nodes: Vec<_> = (0..n as u32).map(node).collect();
        for &(from, to) in &edges {
            let (from, to) = (usize::from(from) % n, usize::from(to) % n);
            nodes[from].borrow_mut().children.push(nodes[to].clone());
        }
        let mut reachable = vec![false; n];
        let mut stack = vec![0];
        while let Some(at) = stack.pop() {
            if !std::mem::replace(&mut reachable[at], true) {
                stack.extend(nodes[at].borrow().children.iter().map(|child| child.borrow().label as usize));
            }
        }
        let mut visits: HashMap<u32, usize> = HashMap::new();
        GraphWalker::new()
            .walk_shared(&SharedObject::new(nodes[0].clone()), |visit| {
                if let Some(node) = visit.object.downcast_ref::<Node>() {
                    *visits.entry(node.label).or_default() += 1;
                }
                Ok::<_, ()>(Flow::Continue)
            })
            .unwrap();
        let expected: HashMap<u32, usize> =
            (0..n).filter(|&at| reachable[at]).map(|at| (at as u32, 1)).collect();
        for node in &nodes {
            node.borrow_mut().children.clear();
        }
        TestResult::from_bool(visits == expected)
    }
}
