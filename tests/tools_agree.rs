//! The tools that look inside objects agree on what an object holds, kept unknown fields
//! included: an older build loads graphs a newer build wrote (fields it lacks kept by
//! `#[rtti(unknown)]` members, enum variants, maps, shared and cyclic pointers, some held only in
//! kept fields), and then `rtti_eq` fails exactly when `diff` finds changes, `apply` of that
//! patch makes the graphs equal and makes the first save to the second's bytes, and a clone
//! equals its original.

use quickcheck::{quickcheck, TestResult};
use reflectable::clone::Cloner;
use reflectable::diff::{diff, rtti_eq, Patch};
use reflectable::serializer::BinarySerializer;
use reflectable::{Reflectable, Registry, UnknownFields};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// The older build: what it knows of each type, and a member keeping the rest.
#[derive(Reflectable, Default)]
#[rtti(id = 731_001, name = "Scene", no_register)]
struct Scene {
    #[rtti(id = 1)]
    nodes: Vec<Rc<RefCell<Node>>>,
    #[rtti(id = 2, embedded)]
    mode: Mode,
    #[rtti(id = 3)]
    weights: BTreeMap<String, f32>,
    #[rtti(unknown)]
    kept: UnknownFields,
}

#[derive(Reflectable, Default)]
#[rtti(id = 731_002, name = "Node", no_register)]
struct Node {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    next: Option<Rc<RefCell<Node>>>,
    #[rtti(unknown)]
    kept: UnknownFields,
}

/// Both builds have it.
#[derive(Reflectable, Default)]
#[rtti(id = 731_003, name = "Mode", no_register)]
enum Mode {
    #[default]
    #[rtti(id = 1)]
    Idle,
    #[rtti(id = 2)]
    Moving {
        #[rtti(id = 1)]
        speed: f32,
    },
    #[rtti(id = 3)]
    Held {
        #[rtti(id = 1)]
        by: Option<Rc<RefCell<Node>>>,
    },
}

/// Objects held by value that keep unknown fields.
#[derive(Reflectable, Default)]
#[rtti(id = 731_004, name = "Holder", no_register)]
struct Holder {
    #[rtti(id = 1, embedded)]
    part: Part,
    #[rtti(id = 2, embedded)]
    parts: Vec<Part>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 731_005, name = "Part", no_register)]
struct Part {
    #[rtti(id = 1)]
    size: u32,
    #[rtti(unknown)]
    kept: UnknownFields,
}

mod newer {
    use reflectable::Reflectable;

    #[derive(Reflectable, Default)]
    #[rtti(id = 731_004, name = "Holder", no_register)]
    pub struct Holder {
        #[rtti(id = 1, embedded)]
        pub part: Part,
        #[rtti(id = 2, embedded)]
        pub parts: Vec<Part>,
    }

    #[derive(Reflectable, Default, Clone)]
    #[rtti(id = 731_005, name = "Part", no_register)]
    pub struct Part {
        #[rtti(id = 1)]
        pub size: u32,
        #[rtti(id = 2)]
        pub hue: f32,
    }
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::rc::Rc;

    #[derive(Reflectable, Default)]
    #[rtti(id = 731_001, name = "Scene", no_register)]
    pub struct Scene {
        #[rtti(id = 1)]
        pub nodes: Vec<Rc<RefCell<Node>>>,
        #[rtti(id = 2, embedded)]
        pub mode: Mode,
        #[rtti(id = 3)]
        pub weights: BTreeMap<String, f32>,
        // New below: kept by the older build.
        #[rtti(id = 4)]
        pub title: String,
        /// Nodes only this field may reach.
        #[rtti(id = 5)]
        pub spare: Vec<Rc<RefCell<Node>>>,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 731_002, name = "Node", no_register)]
    pub struct Node {
        #[rtti(id = 1)]
        pub name: String,
        #[rtti(id = 2)]
        pub next: Option<Rc<RefCell<Node>>>,
        // New below.
        #[rtti(id = 3)]
        pub hue: f32,
        #[rtti(id = 4)]
        pub tags: Vec<String>,
        #[rtti(id = 5)]
        pub buddy: Option<Rc<RefCell<Node>>>,
        #[rtti(id = 6)]
        pub marks: BTreeMap<u32, f32>,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 731_003, name = "Mode", no_register)]
    pub enum Mode {
        #[default]
        #[rtti(id = 1)]
        Idle,
        #[rtti(id = 2)]
        Moving {
            #[rtti(id = 1)]
            speed: f32,
        },
        #[rtti(id = 3)]
        Held {
            #[rtti(id = 1)]
            by: Option<Rc<RefCell<Node>>>,
        },
    }
}

fn older_build() -> Registry {
    let mut registry = Registry::new();
    registry.register_type::<Scene>().unwrap();
    registry.register_type::<Node>().unwrap();
    registry.register_type::<Mode>().unwrap();
    registry.register_type::<Holder>().unwrap();
    registry.register_type::<Part>().unwrap();
    registry
}

fn newer_build() -> Registry {
    let mut registry = Registry::new();
    registry.register_type::<newer::Scene>().unwrap();
    registry.register_type::<newer::Node>().unwrap();
    registry.register_type::<newer::Mode>().unwrap();
    registry.register_type::<newer::Holder>().unwrap();
    registry.register_type::<newer::Part>().unwrap();
    registry
}

/// A newer build's graph, as data: nodes by index, pointers as indices.
#[derive(Clone, Debug)]
struct Plan {
    nodes: Vec<NodePlan>,
    scene_nodes: Vec<usize>,
    spare: Vec<usize>,
    mode: (u8, f32, Option<usize>),
    weights: BTreeMap<String, f32>,
    title: String,
}

#[derive(Clone, Debug)]
struct NodePlan {
    name: String,
    next: Option<usize>,
    hue: f32,
    tags: Vec<String>,
    buddy: Option<usize>,
    marks: BTreeMap<u32, f32>,
}

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

/// A word, for names, tags and keys (some equal, some empty).
fn word(rng: &mut Rng) -> String {
    rng.pick(&["oak", "ash", "elm", "yew", ""]).to_string()
}

/// A node of `nodes`, or none.
fn index(rng: &mut Rng, nodes: usize) -> Option<usize> {
    (nodes > 0 && rng.chance(60)).then(|| rng.below(nodes))
}

fn random_node(rng: &mut Rng, nodes: usize) -> NodePlan {
    NodePlan {
        name: word(rng),
        next: index(rng, nodes),
        hue: rng.below(3) as f32 / 2.0,
        tags: (0..rng.below(3)).map(|_| word(rng)).collect(),
        buddy: index(rng, nodes),
        marks: (0..rng.below(3)).map(|_| (rng.below(4) as u32, rng.below(3) as f32)).collect(),
    }
}

fn random_plan(rng: &mut Rng) -> Plan {
    let count = 1 + rng.below(5);
    let nodes = (0..count).map(|_| random_node(rng, count)).collect();
    Plan {
        nodes,
        scene_nodes: (0..rng.below(4)).map(|_| rng.below(count)).collect(),
        spare: (0..rng.below(3)).map(|_| rng.below(count)).collect(),
        mode: (rng.below(3) as u8, rng.below(3) as f32, index(rng, count)),
        weights: (0..rng.below(3)).map(|_| (word(rng), rng.below(3) as f32)).collect(),
        title: word(rng),
    }
}

/// `plan` with a few random changes: to fields both builds know, to fields only the newer one
/// has, to pointers, or a node added.
fn mutate(rng: &mut Rng, plan: &Plan) -> Plan {
    let mut plan = plan.clone();
    for _ in 0..rng.below(3) {
        let count = plan.nodes.len();
        let node = rng.below(count);
        match rng.below(12) {
            0 => plan.nodes[node].name = word(rng),
            1 => plan.nodes[node].next = index(rng, count),
            2 => plan.nodes[node].hue += 1.0,
            3 => plan.nodes[node].tags.push(word(rng)),
            4 => plan.nodes[node].buddy = index(rng, count),
            5 => {
                plan.nodes[node].marks.insert(rng.below(4) as u32, 9.0);
            }
            6 => plan.title.push('!'),
            7 => plan.spare.push(rng.below(count)),
            8 => plan.mode = (rng.below(3) as u8, rng.below(3) as f32, index(rng, count)),
            9 => {
                plan.weights.insert(word(rng), 7.0);
            }
            10 => {
                let added = random_node(rng, count + 1);
                plan.nodes.push(added);
                plan.spare.push(count);
            }
            _ => plan.scene_nodes.push(rng.below(count)),
        }
    }
    plan
}

/// The newer build's graph of `plan`, saved.
fn save(plan: &Plan, registry: &Registry) -> Vec<u8> {
    let nodes: Vec<Rc<RefCell<newer::Node>>> = plan.nodes.iter().map(|_| Rc::default()).collect();
    for (node, at) in plan.nodes.iter().zip(&nodes) {
        let mut at = at.borrow_mut();
        at.name = node.name.clone();
        at.next = node.next.map(|i| nodes[i].clone());
        at.hue = node.hue;
        at.tags = node.tags.clone();
        at.buddy = node.buddy.map(|i| nodes[i].clone());
        at.marks = node.marks.clone();
    }
    let mode = match plan.mode {
        (0, ..) => newer::Mode::Idle,
        (1, speed, _) => newer::Mode::Moving { speed },
        (_, _, by) => newer::Mode::Held { by: by.map(|i| nodes[i].clone()) },
    };
    let scene = newer::Scene {
        nodes: plan.scene_nodes.iter().map(|&i| nodes[i].clone()).collect(),
        mode,
        weights: plan.weights.clone(),
        title: plan.title.clone(),
        spare: plan.spare.iter().map(|&i| nodes[i].clone()).collect(),
    };
    let bytes = BinarySerializer::with_registry(registry).encode(&scene).unwrap();
    // The plans may link nodes in strong cycles.
    reflectable::rtti::break_cycles(&scene);
    bytes
}

fn load(bytes: &[u8], registry: &Registry) -> Scene {
    let (scene, report) = BinarySerializer::with_registry(registry).decode_with_report::<Scene>(bytes).unwrap();
    assert!(report.is_empty(), "{report}");
    scene
}

/// Checks every promise above for two graphs; `Err` says which failed.
fn agree(a: Plan, b: Plan) -> Result<(), String> {
    let (old, new) = (older_build(), newer_build());
    let (mut x, y) = (load(&save(&a, &new), &old), load(&save(&b, &new), &old));
    let older = BinarySerializer::with_registry(&old);

    let clone = Cloner::with_registry(&old).clone_value(&x).map_err(|e| format!("clone: {e}"))?;
    rtti_eq(&clone, &x).map_err(|e| format!("a clone differs from its original {e}"))?;
    reflectable::rtti::break_cycles(&clone);

    let equal = rtti_eq(&x, &y);
    let patch = diff(&x, &y).map_err(|e| format!("diff: {e}"))?;
    if equal.is_ok() != patch.is_empty() {
        return Err(format!("rtti_eq says {equal:?} but the patch has {} changes", patch.objects_changed()));
    }
    // The patch survives its own save and load, as bytes and as JSON.
    let (from_bytes, _) = Patch::from_bytes(&patch.to_bytes().unwrap()).map_err(|e| format!("patch bytes: {e}"))?;
    let (from_json, _) = Patch::from_json(&patch.to_json().unwrap()).map_err(|e| format!("patch JSON: {e}"))?;
    if from_bytes != patch || from_json != patch {
        return Err("the patch changed through its own save".into());
    }
    let report = patch.apply_with(&mut x, &old);
    if !report.is_complete() {
        return Err(format!("apply: {report}"));
    }
    rtti_eq(&x, &y).map_err(|e| format!("after apply, the graphs differ {e}"))?;
    if older.encode(&x).unwrap() != older.encode(&y).unwrap() {
        return Err("after apply, the graphs save differently".into());
    }
    for scene in [&x, &y] {
        reflectable::rtti::break_cycles(scene);
    }
    Ok(())
}

#[test]
fn graphs_that_differ_only_in_kept_fields() {
    // The reproduction from issue 39: two saves differing in a field the older build lacks.
    let mut rng = Rng::new(7);
    let mut a = random_plan(&mut rng);
    a.scene_nodes.push(0);
    let mut b = a.clone();
    b.nodes[0].hue += 1.0;
    let (old, new) = (older_build(), newer_build());
    let (x, y) = (load(&save(&a, &new), &old), load(&save(&b, &new), &old));
    let difference = rtti_eq(&x, &y).unwrap_err();
    assert!(difference.to_string().contains("hue"), "{difference}");
    assert!(!diff(&x, &y).unwrap().is_empty());
    agree(a.clone(), b).unwrap();

    // Kept fields holding the only pointers to a node.
    let mut c = a.clone();
    c.spare = vec![0, 0];
    agree(a, c).unwrap();
}

#[test]
fn a_patch_gives_a_created_object_its_kept_fields() {
    let mut rng = Rng::new(11);
    let a = random_plan(&mut rng);
    let mut b = a.clone();
    let mut added = random_node(&mut rng, a.nodes.len());
    added.tags = vec!["new".into()];
    added.hue = 3.5;
    b.nodes.push(added);
    b.spare.push(b.nodes.len() - 1);
    b.scene_nodes.push(b.nodes.len() - 1);
    agree(a, b).unwrap();
}

#[test]
fn random_graphs_agree() {
    fn property(seed: u64) -> TestResult {
        let mut rng = Rng::new(seed);
        let a = random_plan(&mut rng);
        let b = if rng.chance(20) { random_plan(&mut rng) } else { mutate(&mut rng, &a) };
        match agree(a.clone(), b.clone()) {
            Ok(()) => TestResult::passed(),
            Err(why) => TestResult::error(format!("{why}\n a = {a:?}\n b = {b:?}")),
        }
    }
    quickcheck(property as fn(u64) -> TestResult);
}

#[test]
fn kept_fields_of_objects_held_by_value() {
    let (old, new) = (older_build(), newer_build());
    let (older, newer) = (BinarySerializer::with_registry(&old), BinarySerializer::with_registry(&new));
    let holder = |hue: f32, second: f32| newer::Holder {
        part: newer::Part { size: 1, hue },
        parts: vec![newer::Part { size: 2, hue: 0.5 }, newer::Part { size: 3, hue: second }],
    };
    let load = |value: &newer::Holder| -> Holder { older.decode(&newer.encode(value).unwrap()).unwrap() };
    for (a, b) in [(holder(0.0, 0.0), holder(1.0, 0.0)), (holder(0.0, 0.0), holder(0.0, 2.0))] {
        let (mut x, y) = (load(&a), load(&b));
        rtti_eq(&x, &y).unwrap_err();
        let patch = diff(&x, &y).unwrap();
        assert!(!patch.is_empty());
        assert!(patch.apply_with(&mut x, &old).is_complete());
        rtti_eq(&x, &y).unwrap();
        assert_eq!(older.encode(&x).unwrap(), older.encode(&y).unwrap());
    }
}

/// The patch that creates a node with kept fields, as JSON to tamper with, and the graph it
/// applies to.
fn patch_creating_a_node() -> (Scene, serde_json::Value) {
    let mut rng = Rng::new(11);
    let a = random_plan(&mut rng);
    let mut b = a.clone();
    b.nodes.push(random_node(&mut rng, a.nodes.len()));
    b.spare.push(b.nodes.len() - 1);
    let (old, new) = (older_build(), newer_build());
    let (x, y) = (load(&save(&a, &new), &old), load(&save(&b, &new), &old));
    // The graph form of the patch (its own members), which `Patch::from_json` still reads.
    let json = reflectable::json::to_string(&diff(&x, &y).unwrap()).unwrap();
    (x, serde_json::from_str(&json).unwrap())
}

/// Every kept edit's field list in `patch` (JSON), for `f` to change.
fn kept_sets(patch: &mut serde_json::Value, f: &mut dyn FnMut(&mut Vec<serde_json::Value>)) {
    match patch {
        serde_json::Value::Object(map) => {
            if map.get("$type").and_then(|t| t.as_str()) == Some("PatchKept") {
                if let Some(serde_json::Value::Array(fields)) = map.get_mut("fields") {
                    f(fields);
                }
            }
            map.values_mut().for_each(|value| kept_sets(value, f));
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|value| kept_sets(value, f)),
        _ => {}
    }
}

/// A change to a kept set's field list.
type Tamper = fn(&mut Vec<serde_json::Value>);

#[test]
fn hostile_kept_sets_are_reported_and_the_graph_still_saves() {
    let old = older_build();
    let tamperings: [(&str, Tamper); 5] = [
        ("a declared field's ID", |fields| fields[0]["id"] = 1.into()),
        ("one ID twice", |fields| {
            let first = fields[0].clone();
            fields.push(first);
        }),
        ("a plain type that contradicts its size", |fields| {
            let hue = fields.iter_mut().find(|field| field["name"] == "hue").unwrap();
            hue["signature"] = serde_json::json!([20]);
        }),
        ("a weak plain field", |fields| fields[0]["weak"] = true.into()),
        ("one name twice", |fields| {
            let name = fields[0]["name"].clone();
            fields[1]["name"] = name;
        }),
    ];
    let (mut refused, mut applied) = (0, 0);
    for (what, tamper) in tamperings {
        let (mut x, mut json) = patch_creating_a_node();
        let mut found = false;
        kept_sets(&mut json, &mut |fields| {
            tamper(fields);
            found = true;
        });
        assert!(found, "the patch has a kept set");
        // A set no schema table could hold is refused with the patch, as a stream's table
        // entry would be; what is wrong only against the type it lands in shows when applied.
        let patch = match Patch::from_json(&json.to_string()) {
            Ok((patch, _)) => patch,
            Err(error) => {
                assert!(error.to_string().contains(".kept[0].fields"), "{what}: {error}");
                reflectable::rtti::break_cycles(&x);
                refused += 1;
                continue;
            }
        };
        let report = patch.apply_with(&mut x, &old);
        assert!(!report.is_complete(), "{what}: applied in full");
        assert!(report.to_string().contains("kept unknown fields"), "{what}: {report}");
        assert!(!report.to_string().contains("sets of kept fields already"), "{what}: {report}");
        BinarySerializer::with_registry(&old).encode(&x).unwrap_or_else(|e| panic!("{what}: {e}"));
        reflectable::rtti::break_cycles(&x);
        applied += 1;
    }
    assert_eq!((refused, applied), (3, 2), "three sets no table holds, two that clash with the type");
}

#[test]
fn a_patch_may_name_only_so_many_kept_sets() {
    let (_, mut json) = patch_creating_a_node();
    // Copies of the created object's edit, each keeping its own set.
    let patch = json["objects"].as_array_mut().unwrap().iter_mut().find(|object| object["$type"] == "Patch").unwrap();
    let objects = patch["objects"].as_array_mut().unwrap();
    let created = objects.iter().find(|edit| edit["origin"][0] == 2).unwrap().clone();
    for n in 0..70 {
        let mut copy = created.clone();
        kept_sets(&mut copy, &mut |fields| fields[0]["name"] = format!("field{n}").into());
        objects.push(copy);
    }
    let error = Patch::from_json(&json.to_string()).unwrap_err();
    assert!(error.to_string().contains("different sets of kept fields"), "{error}");
}
