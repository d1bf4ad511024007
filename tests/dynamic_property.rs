//! Properties of dynamic graphs and their JSON form over random object graphs (quickcheck): a
//! stream read without its types writes back byte for byte, also through JSON; and typed ->
//! dynamic -> typed and typed -> JSON -> typed give the same graph, sharing, cycles and `Weak`s
//! included.

#[path = "common/random_graph.rs"]
mod random_graph;

use quickcheck::{quickcheck, TestResult};
use random_graph::{build, reachable, unlink, Node};
use reflectable::dynamic::DynamicGraph;
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::{Rc, Weak};

quickcheck! {
    fn any_stream_writes_back_byte_for_byte(values: Vec<(i64, String)>, edges: Vec<(u8, u8, u8)>, checksum: bool) -> TestResult {
        if values.is_empty() {
            return TestResult::discard();
        }
        let nodes = build(&values, &edges);
        let bytes = reflectable::serializer::BinarySerializer::new()
            .checksum(checksum)
            .encode(&nodes[0])
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
            .encode(&nodes[0])
            .unwrap();
        unlink(&nodes);
        let text = reflectable::json::from_bytes(&bytes).unwrap();
        let graph = DynamicGraph::from_json(&text).unwrap();
        TestResult::from_bool(graph == DynamicGraph::from_bytes(&bytes).unwrap() && graph.to_bytes().unwrap() == bytes)
    }

    fn typed_to_json_to_typed_keeps_the_graph(values: Vec<(i64, String)>, edges: Vec<(u8, u8, u8)>) -> TestResult {
        typed_round_trip(&values, &edges, |nodes| {
            let text = reflectable::json::to_string(nodes).unwrap();
            reflectable::json::JsonReader::new().read::<Rc<RefCell<Node>>>(&text).unwrap()
        })
    }

    fn typed_to_dynamic_to_typed_keeps_the_graph(values: Vec<(i64, String)>, edges: Vec<(u8, u8, u8)>) -> TestResult {
        typed_round_trip(&values, &edges, |nodes| DynamicGraph::from_typed(nodes).unwrap().to_typed().unwrap())
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
