//! Random object graphs for property tests (quickcheck): nodes with a base, an enum with data,
//! child lists, a `Weak`, a map and nested lists of shared nodes, and an asset pointer; built from
//! random values and edges, so sharing, cycles and `Weak`s come in every shape.

#![allow(dead_code)]

use reflectable::field::ASSET;
use reflectable::Reflectable;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use std::rc::{Rc, Weak};

#[derive(Reflectable, Default, Debug, Clone)]
#[rtti(id = 570_000)]
pub enum Kind {
    #[default]
    #[rtti(id = 1)]
    Empty,
    #[rtti(id = 2)]
    Tagged {
        #[rtti(id = 1)]
        tag: String,
        #[rtti(id = 2)]
        weights: Vec<f32>,
    },
    #[rtti(id = 3)]
    Linked(#[rtti(id = 1)] Option<Rc<RefCell<Node>>>),
}

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 570_001)]
pub struct Base {
    #[rtti(id = 1)]
    pub serial: u64,
}

#[derive(Reflectable, Default)]
#[rtti(id = 570_002)]
pub struct Node {
    #[rtti(base)]
    pub base: Base,
    #[rtti(id = 1)]
    pub value: i64,
    #[rtti(id = 2)]
    pub label: String,
    #[rtti(id = 3)]
    pub children: Vec<Rc<RefCell<Node>>>,
    #[rtti(id = 4)]
    pub weak: Weak<RefCell<Node>>,
    #[rtti(id = 5, embedded)]
    pub kind: Kind,
    #[rtti(id = 6)]
    pub named: BTreeMap<u32, Rc<RefCell<Node>>>,
    #[rtti(id = 7)]
    pub layers: Vec<Vec<Rc<RefCell<Node>>>>,
    #[rtti(id = 8, flags = ASSET)]
    pub asset: Option<Rc<Texture>>,
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Node({})", self.value)
    }
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 570_003, name = "AssetTexture")]
pub struct Texture {
    #[rtti(id = 1)]
    pub path: String,
}

/// A node with a value and a label made from it.
pub fn node(value: i64) -> Rc<RefCell<Node>> {
    Rc::new(RefCell::new(Node { value, label: format!("n{value}"), ..Node::default() }))
}

/// The address of a shared allocation: its identity.
pub fn addr<T: ?Sized>(rc: &Rc<T>) -> usize {
    Rc::as_ptr(rc) as *const () as usize
}

/// Random edges between `values.len()` nodes; `op` picks what each edge becomes.
pub fn build(values: &[(i64, String)], edges: &[(u8, u8, u8)]) -> Vec<Rc<RefCell<Node>>> {
    let nodes: Vec<_> = values
        .iter()
        .enumerate()
        .map(|(i, (value, label))| {
            Rc::new(RefCell::new(Node {
                base: Base { serial: i as u64 },
                value: *value,
                label: label.clone(),
                kind: match value.rem_euclid(3) {
                    0 => Kind::Empty,
                    1 => Kind::Tagged { tag: label.clone(), weights: vec![*value as f32; i % 4] },
                    _ => Kind::Linked(None),
                },
                ..Node::default()
            }))
        })
        .collect();
    let n = nodes.len();
    for &(from, to, op) in edges {
        let (from, to) = (&nodes[from as usize % n], nodes[to as usize % n].clone());
        let mut from = from.borrow_mut();
        match op % 5 {
            0 | 1 => from.children.push(to),
            2 => from.weak = Rc::downgrade(&to),
            3 => {
                from.named.insert(u32::from(op), to);
            }
            _ => match &mut from.kind {
                Kind::Linked(link) => *link = Some(to),
                _ => from.layers.push(vec![to]),
            },
        }
    }
    nodes
}

/// The nodes `node` holds strongly.
pub fn strong_targets(node: &Node) -> Vec<Rc<RefCell<Node>>> {
    let mut out: Vec<_> =
        node.children.iter().chain(node.named.values()).chain(node.layers.iter().flatten()).cloned().collect();
    if let Kind::Linked(Some(link)) = &node.kind {
        out.push(link.clone());
    }
    out
}

/// Every node the root holds strongly, the root first.
pub fn reachable(root: &Rc<RefCell<Node>>) -> Vec<Rc<RefCell<Node>>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut pending = vec![root.clone()];
    while let Some(node) = pending.pop() {
        if seen.insert(addr(&node)) {
            pending.extend(strong_targets(&node.borrow()));
            out.push(node);
        }
    }
    out
}

/// Cuts `Weak`s to nodes the root does not hold strongly: a clone keeps such a link to the
/// original, through which the original graph is reachable again.
pub fn cut_outward_weaks(nodes: &[Rc<RefCell<Node>>]) {
    let inside: HashSet<usize> = reachable(&nodes[0]).iter().map(addr).collect();
    for node in nodes {
        if node.borrow().weak.upgrade().is_some_and(|target| !inside.contains(&addr(&target))) {
            node.borrow_mut().weak = Weak::new();
        }
    }
}

/// Breaks the strong cycles so the test does not leak.
pub fn unlink(nodes: &[Rc<RefCell<Node>>]) {
    for node in nodes {
        let mut node = node.borrow_mut();
        node.children.clear();
        node.named.clear();
        node.layers.clear();
        node.kind = Kind::Empty;
    }
}
