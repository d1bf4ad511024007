//! Plain maps patched entry by entry (issue 42 point 3): an override holds only the keys an
//! instance changed, so a prefab's later change to another key survives re-applying it.

use quickcheck::{QuickCheck, TestResult};
use reflectable::diff::{diff, rtti_eq, AppliedChange, Patch};
use reflectable::rtti::Registry;
use reflectable::Reflectable;
use std::collections::{BTreeMap, HashMap};

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 964_601)]
struct Mover {
    #[rtti(id = 1)]
    parameters: HashMap<String, f32>,
    #[rtti(id = 2)]
    ordered: BTreeMap<u32, String>,
}

fn mover(parameters: &[(&str, f32)]) -> Mover {
    let parameters = parameters.iter().map(|&(k, v)| (k.to_owned(), v)).collect();
    Mover { parameters, ..Mover::default() }
}

/// The case: the instance changed `speed`; the prefab then set `jump`; the instance
/// rebuilt from the new prefab and its overrides has both.
#[test]
fn an_override_of_one_key_keeps_the_prefabs_other_keys() {
    let prefab = mover(&[("speed", 5.0), ("jump", 1.0)]);
    let instance = mover(&[("speed", 7.0), ("jump", 1.0)]);
    let overrides = Patch::from_bytes(&diff(&prefab, &instance).unwrap().to_bytes().unwrap()).unwrap().0;
    let mut rebuilt = mover(&[("speed", 5.0), ("jump", 3.0)]);
    let report = overrides.apply(&mut rebuilt);
    assert!(report.is_complete(), "{report}");
    assert_eq!(rebuilt, mover(&[("speed", 7.0), ("jump", 3.0)]));
}

#[test]
fn keys_added_and_removed_are_described_one_by_one() {
    let mut old = mover(&[("speed", 5.0), ("gravity", 9.8)]);
    let new = mover(&[("speed", 7.0), ("dash", 2.5)]);
    let (report, changes) = diff(&old, &new).unwrap().apply_described(&mut old, Registry::global());
    assert!(report.is_complete(), "{report}");
    assert_eq!(old, new);
    let mut lines: Vec<String> = changes.iter().map(AppliedChange::to_string).collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "$.parameters[\"dash\"]: added (2.5)",
            "$.parameters[\"gravity\"]: removed (9.8)",
            "$.parameters[\"speed\"]: 5.0 -> 7.0",
        ]
    );
}

/// Removing a key the target no longer has, or setting one it lacks, is no problem: the patch
/// says what the entries become.
#[test]
fn an_override_applies_to_a_map_that_changed_since() {
    let prefab = mover(&[("speed", 5.0), ("gravity", 9.8)]);
    let instance = mover(&[("speed", 5.0)]);
    let overrides = diff(&prefab, &instance).unwrap();
    let mut changed = mover(&[("jump", 1.0)]);
    assert!(overrides.apply(&mut changed).is_complete());
    assert_eq!(changed, mover(&[("jump", 1.0)]));
}

/// Entries of another plain type than the field's are reported, never applied.
#[test]
fn entries_of_another_type_are_a_problem_not_a_panic() {
    #[derive(Reflectable, Default, Debug, Clone, PartialEq)]
    #[rtti(id = 964_601, name = "Mover", no_register)]
    struct Retyped {
        #[rtti(id = 2)]
        ordered: BTreeMap<u32, u32>,
    }
    let old = Mover { ordered: [(1, "a".to_owned())].into(), ..Mover::default() };
    let new = Mover { ordered: [(1, "b".to_owned())].into(), ..Mover::default() };
    let patch = diff(&old, &new).unwrap();
    let mut target = Retyped { ordered: [(1, 7)].into() };
    let report = patch.apply(&mut target);
    assert!(!report.is_complete());
    assert!(report.to_string().contains("BTreeMap"), "{report}");
    assert_eq!(target.ordered, [(1, 7)].into());
}

/// Property: random maps, random edits; the patch applied gives the new map, and applied to a
/// third map (a prefab changed since) changes only the keys the edit changed.
#[test]
fn per_key_patches_touch_only_their_keys() {
    fn property(old: BTreeMap<u8, u8>, new: BTreeMap<u8, u8>, third: BTreeMap<u8, u8>) -> TestResult {
        let to_map = |m: &BTreeMap<u8, u8>| m.iter().map(|(k, v)| (format!("k{k}"), f32::from(*v))).collect();
        let (old_m, new_m, third_m): (HashMap<String, f32>, HashMap<String, f32>, HashMap<String, f32>) =
            (to_map(&old), to_map(&new), to_map(&third));
        let a = Mover { parameters: old_m.clone(), ..Mover::default() };
        let b = Mover { parameters: new_m.clone(), ..Mover::default() };
        let patch = diff(&a, &b).unwrap();
        let mut applied = a.clone();
        if !patch.apply(&mut applied).is_complete() || rtti_eq(&applied, &b).is_err() {
            return TestResult::error("the patch does not give the new map");
        }
        let mut other = Mover { parameters: third_m.clone(), ..Mover::default() };
        if !patch.apply(&mut other).is_complete() {
            return TestResult::error("incomplete on a third map");
        }
        let mut expected = third_m;
        for key in old_m.keys().chain(new_m.keys()) {
            match (old_m.get(key), new_m.get(key)) {
                (Some(x), Some(y)) if x == y => {}
                (_, Some(y)) => drop(expected.insert(key.clone(), *y)),
                (Some(_), None) => drop(expected.remove(key)),
                (None, None) => {}
            }
        }
        if other.parameters != expected {
            return TestResult::error(format!("{:?} != {expected:?}", other.parameters));
        }
        TestResult::passed()
    }
    type Maps = BTreeMap<u8, u8>;
    QuickCheck::new().quickcheck(property as fn(Maps, Maps, Maps) -> TestResult);
}

/// Values are compared by their stored bytes: `-0.0` is a change from `0.0`, and an unchanged
/// `NaN` is no change (so an override never carries it over a prefab's newer value).
#[test]
fn float_values_compare_by_their_bytes() {
    let mut old = mover(&[("a", 0.0)]);
    let new = mover(&[("a", -0.0)]);
    assert!(diff(&old, &new).unwrap().apply(&mut old).is_complete());
    assert!(old.parameters["a"].is_sign_negative());
    rtti_eq(&old, &new).unwrap();

    let prefab = mover(&[("a", f32::NAN), ("b", 1.0)]);
    let instance = mover(&[("a", f32::NAN), ("b", 2.0)]);
    let mut newer_prefab = mover(&[("a", 5.0), ("b", 1.0)]);
    assert!(diff(&prefab, &instance).unwrap().apply(&mut newer_prefab).is_complete());
    assert_eq!(newer_prefab, mover(&[("a", 5.0), ("b", 2.0)]));
}

/// A patch that edits one map twice is malformed (each edit would rewrite the whole map).
#[cfg(feature = "json")]
#[test]
fn a_map_edited_twice_is_malformed() {
    let patch = diff(&mover(&[("a", 1.0)]), &mover(&[("a", 2.0)])).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&patch.to_json().unwrap()).unwrap();
    fn twice(value: &mut serde_json::Value) -> bool {
        match value {
            serde_json::Value::Object(members) => {
                // The readable form: a body's changes, the map's the one with `from`.
                if let Some(serde_json::Value::Array(changes)) = members.get_mut("changes") {
                    if let Some(map) = changes.iter().find(|change| change.get("from").is_some()).cloned() {
                        changes.push(map);
                        return true;
                    }
                }
                members.values_mut().any(twice)
            }
            serde_json::Value::Array(items) => items.iter_mut().any(twice),
            _ => false,
        }
    }
    assert!(twice(&mut json), "{json}");
    let error = Patch::from_json(&json.to_string()).unwrap_err();
    assert!(error.to_string().contains("edited twice"), "{error}");
}
