//! Properties of dynamic graphs and their JSON form over random object graphs (quickcheck): a
//! stream read without its types writes back byte for byte, also through JSON; and typed ->
//! dynamic -> typed and typed -> JSON -> typed give the same graph, sharing, cycles and `Weak`s
//! included.

use quickcheck::{quickcheck, TestResult};
use reflectable::dynamic::DynamicGraph;
use reflectable::Reflectable;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use std::rc::{Rc, Weak};

#[derive(Reflectable, Default, Debug, Clone)]
#[rtti(id = 560_000)]
enum Kind {
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
#[rtti(id = 560_001)]
struct Base {
    #[rtti(id = 1)]
    serial: u64,
}

#[derive(Reflectable, Default)]
#[rtti(id = 560_002)]
struct Node {
    #[rtti(base)]
    base: Base,
    #[rtti(id = 1)]
    value: i64,
    #[rtti(id = 2)]
    label: String,
    #[rtti(id = 3)]
    children: Vec<Rc<RefCell<Node>>>,
    #[rtti(id = 4)]
    weak: Weak<RefCell<Node>>,
    #[rtti(id = 5, embedded)]
    kind: Kind,
    #[rtti(id = 6)]
    named: BTreeMap<u32, Rc<RefCell<Node>>>,
    #[rtti(id = 7)]
    layers: Vec<Vec<Rc<RefCell<Node>>>>,
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Node({})", self.value)
    }
}

/// Random edges between `values.len()` nodes; `op` picks what each edge becomes.
fn build(values: &[(i64, String)], edges: &[(u8, u8, u8)]) -> Vec<Rc<RefCell<Node>>> {
    let nodes: Vec<Rc<RefCell<Node>>> = values
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

fn strong_targets(node: &Node) -> Vec<Rc<RefCell<Node>>> {
    let mut out: Vec<_> =
        node.children.iter().chain(node.named.values()).chain(node.layers.iter().flatten()).cloned().collect();
    if let Kind::Linked(Some(link)) = &node.kind {
        out.push(link.clone());
    }
    out
}

fn reachable(root: &Rc<RefCell<Node>>) -> Vec<Rc<RefCell<Node>>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut pending = vec![root.clone()];
    while let Some(node) = pending.pop() {
        if seen.insert(Rc::as_ptr(&node) as usize) {
            pending.extend(strong_targets(&node.borrow()));
            out.push(node);
        }
    }
    out
}

fn unlink(nodes: &[Rc<RefCell<Node>>]) {
    for node in nodes {
        let mut node = node.borrow_mut();
        node.children.clear();
        node.named.clear();
        node.layers.clear();
        node.kind = Kind::Empty;
    }
}

quickcheck! {
    fn any_stream_writes_back_byte_for_byte(values: Vec<(i64, String)>, edges: Vec<(u8, u8, u8)>, checksum: bool) -> TestResult {
        if values.is_empty() {
            return TestResult::discard();
        }
        let nodes = build(&values, &edges);
        let bytes = reflectable::serializer::BinarySerializer::new()
            .checksum(checksum)
            .encode_to_vec(reflectable::serializer::Root::shared(&nodes[0]), &mut ())
            .unwrap();
        unlink(&nodes);
        let graph = DynamicGraph::from_bytes(&bytes).unwrap();
        TestResult::from_bool(graph.to_bytes().unwrap() == bytes)
    }

    fn any_stream_converts_to_json_and_back_byte_for_byte(values: Vec<(i64, String)>, edges: Vec<(u8, u8, u8)>, checksum: bool) -> TestResult {
        if values.is_empty() {
            return TestResult::discard();
        }
        let nodes = build(&values, &edges);
        let bytes = reflectable::serializer::BinarySerializer::new()
            .checksum(checksum)
            .encode_to_vec(reflectable::serializer::Root::shared(&nodes[0]), &mut ())
            .unwrap();
        unlink(&nodes);
        let text = reflectable::json::from_bytes(&bytes).unwrap();
        let graph = reflectable::json::graph_from_str(&text).unwrap();
        TestResult::from_bool(graph == DynamicGraph::from_bytes(&bytes).unwrap() && graph.to_bytes().unwrap() == bytes)
    }

    fn typed_to_json_to_typed_keeps_the_graph(values: Vec<(i64, String)>, edges: Vec<(u8, u8, u8)>) -> TestResult {
        typed_round_trip(&values, &edges, |nodes| {
            let text = reflectable::json::to_string(nodes).unwrap();
            reflectable::json::JsonReader::new().read_shared::<Rc<RefCell<Node>>>(&text).unwrap()
        })
    }

    fn typed_to_dynamic_to_typed_keeps_the_graph(values: Vec<(i64, String)>, edges: Vec<(u8, u8, u8)>) -> TestResult {
        typed_round_trip(&values, &edges, |nodes| DynamicGraph::from_typed(nodes).unwrap().to_typed_shared().unwrap())
    }
}

/// Builds a random graph, takes it through `convert`, and checks the result is the same graph.
fn typed_round_trip(
    values: &[(i64, String)],
    edges: &[(u8, u8, u8)],
    convert: impl Fn(&Rc<RefCell<Node>>) -> (Rc<RefCell<Node>>, reflectable::serializer::DecodeReport),
) -> TestResult {
    if values.is_empty() {
        return TestResult::discard();
    }
    let nodes = build(values, edges);
    // A weak link to a node nothing holds strongly is dead after a typed decode, by design.
    let alive: HashSet<usize> = reachable(&nodes[0]).iter().map(|node| Rc::as_ptr(node) as usize).collect();
    for node in &nodes {
        let dead = node.borrow().weak.upgrade().is_some_and(|target| !alive.contains(&(Rc::as_ptr(&target) as usize)));
        if dead {
            node.borrow_mut().weak = Weak::new();
        }
    }
    let bytes = reflectable::to_vec(&nodes[0]).unwrap();
    let (back, report) = convert(&nodes[0]);
    // Equal graphs encode equally (the encoding numbers objects by identity, so sharing,
    // cycles and weak targets are compared too), and re-reading loses nothing.
    let same = reflectable::to_vec(&back).unwrap() == bytes;
    let lossless =
        report.events().all(|(event, _)| matches!(event, reflectable::serializer::DecodeEvent::ObjectsUnreached));
    let counts = reachable(&back).len() == reachable(&nodes[0]).len();
    unlink(&reachable(&back));
    unlink(&nodes);
    TestResult::from_bool(same && lossless && counts)
}
