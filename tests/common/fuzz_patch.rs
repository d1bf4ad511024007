//! Patches for the `patch` fuzz target and its regression replay: a patch is data that may come
//! from anywhere (a saved override, a network peer), so any bytes or JSON read as one must apply
//! with a report, never a panic, and leave a graph that still saves.

use crate::level::{build_level, scene_objects as objects, Level, SceneObject};
use reflectable::clone::deep_clone;
use reflectable::diff::{apply, diff, Patch};
use reflectable::rtti::break_cycles;
use std::cell::RefCell;
use std::rc::Rc;

/// The graph every patch applies to.
fn sample_level() -> Level {
    build_level(24, 5).0
}

/// Real patches of the sample level (renames, a removed subtree, a moved object, an added one),
/// as bytes and as JSON: the fuzzer's seeds, each behind its mode byte.
pub fn sample_patches() -> Vec<Vec<u8>> {
    let level = sample_level();
    let edits: [fn(&Level); 3] = [
        |level| objects(level).iter().step_by(3).for_each(|o| o.borrow_mut().name.push('!')),
        |level| {
            let all = objects(level);
            all[1].borrow_mut().children.clear();
            let moved = all[all.len() - 1].clone();
            all[0].borrow_mut().children.push(moved);
        },
        |level| {
            let root = level.root.clone().expect("a root");
            let added = Rc::new(RefCell::new(SceneObject { name: "added".into(), ..SceneObject::default() }));
            added.borrow_mut().parent = Rc::downgrade(&root);
            root.borrow_mut().children.insert(0, added);
        },
    ];
    let mut out = Vec::new();
    for edit in edits {
        let edited = deep_clone(&level).expect("the level clones");
        edit(&edited);
        let patch = diff(&level, &edited).expect("levels diff");
        out.push([[0].as_slice(), &patch.to_bytes().expect("a patch saves")].concat());
        out.push([[1].as_slice(), patch.to_json().expect("a patch saves").as_bytes()].concat());
        break_cycles(&edited);
    }
    break_cycles(&level);
    out
}

/// `data` read as a patch (its first byte even: the binary form, odd: JSON) and applied to the
/// sample level: a report, never a panic; the level still saves (or refuses with an error). The
/// level's scene objects hold strong cycles (cameras following their own object), so those a
/// patch detaches from the level are torn down by hand, as an editor deleting them would; the
/// objects the patch created must not need it (`tests/memory.rs` checks nothing is left).
pub fn patch_applies(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else { return };
    let patch = if mode % 2 == 0 {
        Patch::from_bytes(rest).ok()
    } else {
        Patch::from_json(&String::from_utf8_lossy(rest)).ok()
    };
    let Some((patch, _)) = patch else { return };
    let mut level = sample_level();
    let originals = objects(&level);
    let _report = apply(&mut level, &patch);
    let _ = reflectable::to_vec(&level);
    break_cycles(&level);
    originals.iter().for_each(reflectable::rtti::break_cycles_shared);
}
