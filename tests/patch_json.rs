//! The readable JSON form of a patch (issue 42, point 4): it names types and fields, shows plain
//! values as text, and converts back into the same binary patch.

#[path = "common/fuzz_model.rs"]
mod fuzz_model;
#[path = "common/fuzz_patch.rs"]
mod fuzz_patch;
#[path = "../examples/common/level.rs"]
mod level;

use quickcheck::{QuickCheck, TestResult};
use reflectable::diff::{diff, diff_external, Patch};
use reflectable::field::SharedObject;
use reflectable::json::JsonError;
use reflectable::Reflectable;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

#[test]
fn every_sample_patch_converts_back_to_the_same_bytes() {
    for (n, patch) in fuzz_patch::sample_patch_values().iter().enumerate() {
        let text = patch.to_json().unwrap();
        let (back, report) = Patch::from_json(&text).unwrap_or_else(|error| panic!("patch {n}: {error}\n{text}"));
        assert!(report.is_empty());
        assert_eq!(&back, patch, "patch {n}");
        assert_eq!(back.to_bytes().unwrap(), patch.to_bytes().unwrap(), "patch {n}");
    }
}

/// Patches the fuzzer's mutator makes of the seeds, those that read from bytes: each converts to
/// JSON and back to the same bytes, whatever its counts, runs, indices and values became.
#[test]
fn mutated_patches_convert_back_to_the_same_bytes() {
    fn property(pick: usize, mutation: u64, rounds: u8) -> TestResult {
        thread_local!(static SEEDS: Vec<Vec<u8>> = fuzz_patch::sample_patch_bytes());
        let mut bytes = SEEDS.with(|seeds| seeds[pick % seeds.len()].clone());
        for round in 0..1 + rounds % 4 {
            if let Some(next) = fuzz_patch::mutate_patch(&bytes, mutation.wrapping_add(u64::from(round))) {
                bytes = next;
            }
        }
        let Ok((patch, _)) = Patch::from_bytes(&bytes) else { return TestResult::discard() };
        let text = patch.to_json().unwrap();
        match Patch::from_json(&text) {
            Ok((back, _)) if back.to_bytes().unwrap() == patch.to_bytes().unwrap() => TestResult::passed(),
            Ok(_) => TestResult::error(format!("another patch read back from\n{text}")),
            Err(error) => TestResult::error(format!("{error}\n{text}")),
        }
    }
    QuickCheck::new().tests(400).max_tests(4000).quickcheck(property as fn(usize, u64, u8) -> TestResult);
}

#[derive(Reflectable, Default, Clone, Debug)]
#[rtti(id = 342_001)]
struct Enemy {
    #[rtti(id = 1, identity)]
    id: u64,
    #[rtti(id = 2)]
    name: String,
    #[rtti(id = 3)]
    parameters: HashMap<String, f32>,
    #[rtti(id = 4)]
    waypoints: Vec<[f32; 2]>,
    #[rtti(id = 5)]
    loot: BTreeMap<u32, String>,
    #[rtti(id = 6)]
    target: Option<u64>,
    #[rtti(id = 7)]
    minions: Vec<Rc<RefCell<Enemy>>>,
}

fn enemy(id: u64, name: &str) -> Rc<RefCell<Enemy>> {
    Rc::new(RefCell::new(Enemy {
        id,
        name: name.into(),
        parameters: [("speed".to_owned(), 5.0), ("jump".to_owned(), 1.25)].into(),
        waypoints: vec![[0.0, 0.0], [1.0, 2.0], [3.5, -1.0]],
        loot: [(1, "gold".to_owned())].into(),
        target: Some(7),
        ..Enemy::default()
    }))
}

/// Issue 42's overrides: a key of a map, a name, values in the middle of an array, an option
/// cleared, an object found by its identity, one created. Every one is readable text.
#[test]
fn overrides_read_as_text() {
    let old = enemy(1, "boss");
    old.borrow_mut().minions = vec![enemy(2, "minion a"), enemy(3, "minion b")];
    let new = enemy(1, "boss");
    {
        let mut new = new.borrow_mut();
        new.parameters.insert("speed".into(), 7.0);
        new.waypoints.insert(1, [9.0, 9.0]);
        new.target = None;
        let renamed = enemy(3, "player_2");
        new.minions = vec![enemy(2, "minion a"), renamed, enemy(4, "summoned")];
    }
    let patch = diff(&old, &new).unwrap();
    let text = patch.to_json().unwrap();
    for expected in [
        r#"{"field": "parameters", "from": {"speed": 5.0}, "to": {"speed": 7.0}}"#,
        r#"{"field": "target", "to": null}"#,
        r#"{"insert": [[9.0, 9.0]]}"#,
        r#"{"field": "name", "to": "player_2"}"#,
        r#""identity": "3""#,
        r#""created": "Rc<RefCell>""#,
    ] {
        assert!(text.contains(expected), "{expected} in\n{text}");
    }
    assert!(!text.contains("\"bytes\"") && !text.contains("$bytes"), "no stored values:\n{text}");
    assert!(text.len() < 4000, "{} bytes", text.len());
    let (back, _) = Patch::from_json(&text).unwrap();
    assert_eq!(back.to_bytes().unwrap(), patch.to_bytes().unwrap());
    let target = enemy(1, "boss");
    target.borrow_mut().minions = vec![enemy(2, "minion a"), enemy(3, "minion b")];
    assert!(back.apply_shared(&target).is_complete());
    reflectable::diff::rtti_eq(&target, &new).unwrap();
}

/// A document names everything it needs in `types`: a program without the types reads it. And
/// a patch of types this program lacks is written by number, its values stored.
#[test]
fn a_document_reads_without_the_types() {
    let text = r#"{
      "format": "reflectable-patch/1",
      "types": [
        {"id": 999001, "name": "Ghost", "fields": [
          {"id": 1, "name": "name", "wire": "plain:dyn", "signature": [20]},
          {"id": 2, "name": "scores", "wire": "plain:4[]", "signature": [3]},
          {"id": 3, "name": "haunts", "wire": "pointer[]", "declared": 999001}
        ]}
      ],
      "objects": [
        {"edit": 0, "type": "Ghost", "changes": [
          {"field": "name", "to": "boo"},
          {"field": "scores", "splice": [{"keep": [0, 2]}, {"insert": [7, 8]}]},
          {"field": "haunts", "targets": [{"keep": 1}, {"to": 1}, {"to": null}]}
        ]},
        {"edit": 1, "type": 999001, "created": "Rc<RefCell>", "fresh": true}
      ]
    }"#;
    let (patch, _) = Patch::from_json(text).unwrap();
    assert_eq!(patch.objects_created(), 1);
    // Written again by a program without `Ghost`: by number, values stored; and back.
    let again = patch.to_json().unwrap();
    assert!(again.contains(r#""type": 999001"#) && again.contains(r#""bytes": "#), "{again}");
    let (back, _) = Patch::from_json(&again).unwrap();
    assert_eq!(back, patch);
    assert_eq!(back.to_bytes().unwrap(), patch.to_bytes().unwrap());
}

/// Patches saved as JSON before the readable form (the JSON form of a graph) still load.
#[test]
fn patches_saved_in_the_graph_form_still_load() {
    let (old, new) = (enemy(1, "a"), enemy(1, "b"));
    let patch = diff(&old, &new).unwrap();
    let graph_form = reflectable::json::to_string(&patch).unwrap();
    assert!(graph_form.contains("reflectable-json/1"));
    let (back, _) = Patch::from_json(&graph_form).unwrap();
    assert_eq!(back, patch);
}

#[test]
fn external_references_are_readable_and_convert_back() {
    let texture = enemy(99, "asset");
    let new = enemy(1, "boss");
    new.borrow_mut().minions.push(texture.clone());
    let key = |object: &SharedObject| (object.addr() == SharedObject::new(texture.clone()).addr()).then_some(u64::MAX);
    let patch = diff_external(&enemy(1, "boss"), &new, &key).unwrap();
    let text = patch.to_json().unwrap();
    assert!(text.contains(r#""external": "18446744073709551615""#), "{text}");
    let (back, _) = Patch::from_json(&text).unwrap();
    assert_eq!(back.externals().collect::<Vec<_>>(), [(u64::MAX, 342_001)]);
    assert_eq!(back.to_bytes().unwrap(), patch.to_bytes().unwrap());
}

/// Hostile documents: each refused with where and why, never a panic.
#[test]
fn hostile_documents_are_refused_with_their_place() {
    let base = |changes: &str| {
        format!(
            r#"{{"format": "reflectable-patch/1", "types": [{{"id": 342001, "name": "Enemy", "fields": [
              {{"id": 2, "name": "name", "wire": "plain:dyn", "signature": [20]}},
              {{"id": 7, "name": "minions", "wire": "pointer[]", "declared": 342001}}]}}],
              "objects": [{{"edit": 0, "type": "Enemy", "changes": [{changes}]}}]}}"#
        )
    };
    let cases: [(&str, &str); 12] = [
        (r#"{"field": "name", "to": 5}"#, "objects[0].changes[0].to"),
        (r#"{"field": "nom", "to": "x"}"#, "objects[0].changes[0].field"),
        (r#"{"field": "name", "to": "x", "extra": 1}"#, "unknown field"),
        (r#"{"field": "name", "to": "x", "to": "y"}"#, "duplicate field"),
        (r#"{"field": "name", "bytes": "!!", "plain_type": 20, "count": 1}"#, "objects[0].changes[0].bytes"),
        (r#"{"field": "name", "to": "x", "targets": []}"#, "objects[0].changes[0]"),
        (
            r#"{"field": "minions", "targets": [{"to": 7}]}"#,
            "at `objects[0].changes[0].targets[0]`: target 8 names no edit",
        ),
        (r#"{"field": "minions", "targets": [{}]}"#, "objects[0].changes[0].targets[0]"),
        (r#"{"field": "minions", "point": [{"element": 0}]}"#, "objects[0].changes[0].point[0]"),
        (r#"{"field": 70000, "to": 1}"#, "past u16"),
        (r#"{"section": "Nobody", "keep_fields": []}"#, "no type named `Nobody`"),
        (r#"{"field": "name", "splice": [{"keep": [0, 1], "insert": ["a"]}]}"#, "objects[0].changes[0].splice[0]"),
    ];
    for (change, expected) in cases {
        let text = base(change);
        match Patch::from_json(&text) {
            Ok(_) => panic!("{change} was read"),
            Err(error) => assert!(error.to_string().contains(expected), "{change}: {error}"),
        }
    }
    // Nesting past serde_json's limit, and text that is not JSON: errors with a line and column.
    let deep = format!(r#"{{"format": "reflectable-patch/1", "objects": [{}]}}"#, "[".repeat(100_000));
    assert!(matches!(Patch::from_json(&deep), Err(JsonError::Syntax { .. })));
    let error = Patch::from_json("{\"format\": \"reflectable-patch/1\",\n \"objects\": [}").unwrap_err();
    assert!(matches!(error, JsonError::Syntax { line: 2, .. }), "{error}");
}

/// Review findings: nesting past what a patch's bytes hold, a map change's signature, a type
/// named as the built-in map is.
#[test]
fn deep_nesting_and_long_signatures_are_refused_not_overflowed() {
    let mut body = String::from(r#"{"type":1}"#);
    for _ in 0..500 {
        body = format!(r#"{{"type":1,"changes":[{{"field":1,"edit":[{{"old":0,"body":{body}}}]}}]}}"#);
    }
    let text = format!(r#"{{"format":"reflectable-patch/1","objects":[{body}]}}"#);
    // On a small stack, as a tool's worker thread may have.
    let outcome = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || Patch::from_json(&text).map(drop).map_err(|error| error.to_string()))
        .unwrap()
        .join()
        .unwrap();
    assert!(outcome.unwrap_err().contains("nested more than 41 deep"));

    let sig = format!("[{}1]", "36, ".repeat(3000));
    let text = format!(
        r#"{{"format":"reflectable-patch/1","objects":[{{"type":1,"changes":[{{"field":1,"signature":{sig},"from":{{"$bytes":"AA=="}},"to":{{"$bytes":"AA=="}}}}]}}]}}"#
    );
    let error = Patch::from_json(&text).unwrap_err().to_string();
    assert!(error.contains("signature of 3001 words"), "{error}");
}

/// The deepest nesting a document may hold saves as bytes, and reads back the same (one level
/// more would pass the stream's depth limit of 128 objects).
#[test]
fn the_deepest_document_saves() {
    let mut body = String::from(r#"{"type":1}"#);
    for _ in 0..41 {
        body = format!(r#"{{"type":1,"changes":[{{"field":1,"edit":[{{"old":0,"body":{body}}}]}}]}}"#);
    }
    let text = format!(r#"{{"format":"reflectable-patch/1","objects":[{body}]}}"#);
    let (patch, _) = Patch::from_json(&text).unwrap();
    let bytes = patch.to_bytes().unwrap();
    assert_eq!(Patch::from_bytes(&bytes).unwrap().0, patch);
    assert_eq!(Patch::from_json(&patch.to_json().unwrap()).unwrap().0, patch);
}

/// A patch's own rules broken in a document are named where the document has them.
#[test]
fn a_broken_rule_is_named_at_its_place_in_the_document() {
    let text = r#"{"format": "reflectable-patch/1", "objects": [
        {"edit": 0, "type": 1, "changes": [
            {"field": 1, "to": 1, "plain_type": 3, "count": 1, "bytes": "AQAAAA=="},
            {"field": 2, "elements": [{"old": 0}, {"body": {"type": 2, "changes": [
                {"field": 3, "point": [{"element": 0, "to": null}, {"element": 0, "to": null}]}]}}]}
        ]}
    ]}"#;
    // (`to` beside `bytes` is two kinds of value: refused as such first.)
    let error = Patch::from_json(text).unwrap_err().to_string();
    assert!(error.contains("objects[0].changes[0]"), "{error}");
    let text = text.replace(r#""to": 1, "#, "");
    let error = Patch::from_json(&text).unwrap_err().to_string();
    assert!(error.contains("at `objects[0].changes[1].elements[1].body.changes[0].point[1]`"), "{error}");
}
