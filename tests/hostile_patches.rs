//! Hostile patches of shapes a mutation rarely finds (issue 38's review): elements of no size
//! spread over many edits, and a chain of created objects too long to drop.

use reflectable::diff::{diff, ApplyProblemKind, Patch};
use reflectable::Reflectable;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

#[derive(Reflectable, Default)]
#[rtti(id = 7_701_001)]
struct Node {
    #[rtti(id = 1)]
    n: u32,
    #[rtti(id = 2)]
    next: Option<Rc<RefCell<Node>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 7_701_002)]
struct Root {
    #[rtti(id = 1)]
    head: Option<Rc<RefCell<Node>>>,
    #[rtti(id = 2)]
    zs: Vec<[u8; 0]>,
}

/// The JSON document of `diff(old, new)` in the graph form (the patch's own members, as
/// patches were once saved, which `Patch::from_json` still reads), to edit.
fn patch_document(old: &Root, new: &Root) -> Value {
    serde_json::from_str(&reflectable::json::to_string(&diff(old, new).unwrap()).unwrap()).unwrap()
}

/// Each edit may hold many elements of no size, but the whole patch only as many as one stream
/// may: a 2 KB patch of nine edits of 2^24 such elements took 7 s to apply.
#[test]
fn elements_of_no_size_share_one_allowance_across_the_patch() {
    let mut doc = patch_document(&Root::default(), &Root { zs: vec![[]; 1], ..Root::default() });
    doc["objects"][0]["objects"][0]["body"]["plain"][0]["count"] = (1u32 << 24).into();
    let one = serde_json::to_string(&doc).unwrap();
    Patch::from_json(&one).expect("one edit may hold the whole allowance");

    let edits = doc["objects"][0]["objects"].as_array_mut().unwrap();
    let mut created = edits[0].clone();
    created["origin"] = json!([2, 0, 1]);
    created["body"]["fresh"] = true.into();
    edits.extend(std::iter::repeat_n(created, 8));
    let many = serde_json::to_string(&doc).unwrap();
    let started = Instant::now();
    let error = Patch::from_json(&many).expect_err("nine edits of the whole allowance");
    assert!(error.to_string().contains("elements of no size"), "{error}");
    assert!(error.to_string().contains("objects[1].body.plain[0].count"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(2));
}

/// A patch that links a longer chain of strong pointers than a drop can follow is refused whole,
/// as the decoder refuses such a stream: 20,000 created nodes, each the next one's `next`,
/// applied and then dropped on a 2 MiB thread overflowed its stack.
#[test]
fn a_patch_that_links_too_long_a_chain_is_refused_before_anything_changes() {
    let second = Rc::new(RefCell::new(Node { n: 2, next: None }));
    let first = Rc::new(RefCell::new(Node { n: 1, next: Some(second) }));
    let mut doc = patch_document(&Root::default(), &Root { head: Some(first), ..Root::default() });
    let edits = doc["objects"][0]["objects"].as_array_mut().unwrap();
    let mut created = edits[1].clone();
    created["body"]["plain"] = json!([]);
    edits.truncate(1);
    let links = 20_000;
    for i in 0..links {
        let mut edit = created.clone();
        edit["body"]["pointers"][0]["elements"] = json!([[0, if i + 1 < links { i + 3 } else { 0 }]]);
        edits.push(edit);
    }
    let bytes = Patch::from_json(&serde_json::to_string(&doc).unwrap()).unwrap().0.to_bytes().unwrap();
    let outcome = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let (patch, _) = Patch::from_bytes(&bytes).unwrap();
            let mut root = Root::default();
            let report = patch.apply(&mut root);
            let untouched = root.head.is_none();
            drop(root);
            (report, untouched)
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
    let (report, untouched) = outcome;
    assert!(untouched, "nothing applied");
    match report.problems() {
        [problem] => match &problem.kind {
            ApplyProblemKind::Malformed { why, .. } => assert!(why.contains("chain of 20001 objects"), "{why}"),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }

    // A chain this (2 MiB) thread can drop (2,000 links) applies in full.
    let edits = doc["objects"][0]["objects"].as_array_mut().unwrap();
    edits.truncate(2_001);
    edits[2_000]["body"]["pointers"][0]["elements"] = json!([[0, 0]]);
    let (patch, _) = Patch::from_json(&serde_json::to_string(&doc).unwrap()).unwrap();
    let mut root = Root::default();
    let report = patch.apply(&mut root);
    assert!(report.is_complete(), "{report}");
    let mut length = 0;
    let mut at = root.head.clone();
    while let Some(node) = at {
        length += 1;
        at = node.borrow().next.clone();
    }
    assert_eq!(length, 2_000);
}
