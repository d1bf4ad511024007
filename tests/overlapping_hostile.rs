//! Hostile *overlapping* diffs (issue 42, [prefab-merge]), written by a reviewer trying to break the fix. The new graph shares
//! allocations with the old one; some old objects are held from outside. The rule checked:
//! after `apply(old, diff(old, new))` the report is complete exactly when `rtti_eq(old, new)`
//! holds, and no object held from outside the old graph (by the test, by the new graph, by an
//! object only the test keeps alive) is rewritten in place into another object.

use reflectable::diff::{diff, rtti_eq, Patch};
use reflectable::Reflectable;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[path = "common/overlap_model.rs"]
mod overlap_model;
use overlap_model::{Mode, Node, Part, Prop, N};

fn node(name: &str, children: Vec<N>) -> N {
    Rc::new(RefCell::new(Node { name: name.into(), children, ..Node::default() }))
}

fn name(n: &N) -> String {
    n.borrow().name.clone()
}

fn child_names(n: &N) -> Vec<String> {
    n.borrow().children.iter().map(name).collect()
}

/// Diff, apply to `old` (shared root), and return (complete, rtti_eq ok, report text).
fn round(old: &N, new: &N) -> (bool, Result<(), String>, String, Patch) {
    let patch = diff(old, new).unwrap();
    let report = patch.apply_shared(old);
    let eq = rtti_eq(old, new).map_err(|d| d.to_string());
    (report.is_complete(), eq, report.to_string(), patch)
}

/// Breaks strong cycles so the tests do not leak (not needed for correctness).
fn unlink(nodes: &[&N]) {
    for n in nodes {
        if let Ok(mut n) = n.try_borrow_mut() {
            n.children.clear();
            n.other.clear();
            n.map.clear();
            n.part = None;
            n.mode = Mode::Idle;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// F1: an old object moved under an object the patch creates, while a shared allocation also
// points at it: `explore_shared` skips it (it already has a place, unpaired), `resolve_target`
// creates a copy, the report says complete, `rtti_eq` says "shared differently".
#[test]
fn f1_moved_under_created_object_while_behind_a_shared_allocation() {
    let x = node("x", vec![]);
    let s = node("s", vec![x.clone()]);
    let old = node("root", vec![s.clone(), x.clone()]);
    let y = node("y", vec![x.clone()]);
    let new = node("root", vec![s.clone()]);
    new.borrow_mut().other = vec![y.clone()];
    let (complete, eq, report, patch) = round(&old, &new);
    eprintln!("patch: {patch:?}");
    assert_eq!(complete, eq.is_ok(), "report: {report}; rtti_eq: {eq:?}");
    unlink(&[&old, &new, &s, &x, &y]);
}

// The same without the shared allocation: no rtti_eq failure, but the patch points at a copy of
// `x` where the new graph holds `x` itself (identity lost; rtti_eq cannot see it).
#[test]
fn f1b_moved_under_created_object_is_a_copy() {
    let x = node("x", vec![]);
    let old = node("root", vec![x.clone()]);
    let y = node("y", vec![x.clone()]);
    let new = node("root", vec![]);
    new.borrow_mut().other = vec![y.clone()];
    let (complete, eq, report, _) = round(&old, &new);
    assert_eq!(complete, eq.is_ok(), "report: {report}; rtti_eq: {eq:?}");
    let after = old.borrow().other[0].clone();
    let very = Rc::ptr_eq(&after.borrow().children[0], &x);
    unlink(&[&old, &new, &x, &y]);
    assert!(very, "the patched y's child is a copy of x, not x (which the new graph holds)");
}

// ---------------------------------------------------------------------------------------------
// F2: an old object `z` that a shared allocation `s` also holds (so it is in the new graph, as
// itself) is paired by equal fingerprint with a fresh new `w` of the same name: the patch rewrites
// `z` in place (drops its child), which changes the new graph too.
#[test]
fn f2_content_match_rewrites_an_object_the_new_graph_holds() {
    let leaf = node("leaf", vec![]);
    let z = node("z", vec![leaf.clone()]);
    let s = node("s", vec![z.clone()]);
    let old = node("root", vec![s.clone(), z.clone()]);
    let w = node("z", vec![]);
    let new = node("root", vec![s.clone(), w.clone()]);
    let (complete, eq, report, patch) = round(&old, &new);
    eprintln!("patch: {patch:?}");
    let z_children = child_names(&z);
    unlink(&[&old, &new, &s, &z, &w, &leaf]);
    assert_eq!(complete, eq.is_ok(), "report: {report}; rtti_eq: {eq:?}");
    assert_eq!(z_children, ["leaf"], "z (held by s, in the new graph) was rewritten in place");
}

// F2b (no overlap, by design?): an old object held by the caller is paired with a fresh new one
// of the same plain values and loses its children: only its fingerprint (plain values) matched.
#[test]
#[ignore = "open question, issue 42: objects of equal plain values pair as one object, whatever they point at, until objects have identities"]
fn f2b_content_match_rewrites_an_object_held_by_the_caller() {
    let leaf = node("leaf", vec![]);
    let a = node("a", vec![leaf.clone()]);
    let b = node("a", vec![]);
    let old = node("root", vec![a.clone()]);
    let new = node("root", vec![b.clone()]);
    let (complete, eq, report, _) = round(&old, &new);
    assert_eq!(complete, eq.is_ok(), "report: {report}; rtti_eq: {eq:?}");
    let a_children = child_names(&a);
    unlink(&[&old, &new, &a, &b, &leaf]);
    assert_eq!(a_children, ["leaf"], "a (held by the caller) was rewritten into b");
}

// ---------------------------------------------------------------------------------------------
// F3: held.rs walks two levels of neighbours through `Weak`s too, and counts the elements of
// objects outside the old graph as the old graph's own: `omega` (kept alive only by the test,
// reached from `x` by a Weak) holds `x`, so `x` looks explained and is guessed for `y`.
#[test]
#[ignore = "known defect, issue 42: an old object the new graph reaches only through a Weak, or the old root held by the new graph, is still edited in place"]
fn f3_a_holder_reached_by_a_weak_counts_as_inside() {
    let x = node("x", vec![]);
    let omega = node("omega", vec![x.clone()]);
    x.borrow_mut().link = Rc::downgrade(&omega);
    let old = node("root", vec![x]);
    let y = node("y", vec![]);
    let new = node("root", vec![y.clone()]);
    // Only the old root and omega (which the test keeps alive) hold x now.
    let (complete, eq, report, _) = round(&old, &new);
    let x = omega.borrow().children[0].clone();
    let x_name = name(&x);
    unlink(&[&old, &new, &x, &y, &omega]);
    assert_eq!(complete, eq.is_ok(), "report: {report}; rtti_eq: {eq:?}");
    assert_eq!(x_name, "x", "x, held by omega (outside the old graph), was renamed");
}

// F4: like F3, but the holder is an object of the *new* graph: applying the patch to the old
// graph changes the new one.
#[test]
#[ignore = "known defect, issue 42: an old object the new graph reaches only through a Weak, or the old root held by the new graph, is still edited in place"]
fn f4_a_holder_in_the_new_graph_reached_by_a_weak() {
    let x = node("x", vec![]);
    let m = node("m", vec![x.clone()]);
    x.borrow_mut().link = Rc::downgrade(&m);
    let old = node("root", vec![x]);
    let y = node("y", vec![]);
    let new = node("root", vec![y.clone(), m.clone()]);
    // No handle (not even a Weak) of the test's to x: its address only.
    let x_addr = Rc::as_ptr(&m.borrow().children[0]) as usize;
    let (complete, eq, report, patch) = round(&old, &new);
    eprintln!("{patch:?}");
    let m_child = m.borrow().children.first().map(|c| (name(c), Rc::as_ptr(c) as usize == x_addr));
    unlink(&[&old, &new, &y, &m]);
    assert_eq!(complete, eq.is_ok(), "report: {report}; rtti_eq: {eq:?}");
    assert_eq!(
        m_child,
        Some(("x".to_string(), true)),
        "x, held by the new graph through m, was rewritten (or m edited)"
    );
}

// ---------------------------------------------------------------------------------------------
// Edge cases.

/// The new root holds the old root: the old root is edited in place, so the new graph changes
/// with it; rtti_eq cannot hold, and the report must not say complete.
#[test]
#[ignore = "known defect, issue 42: an old object the new graph reaches only through a Weak, or the old root held by the new graph, is still edited in place"]
fn e1_new_root_holds_the_old_root() {
    let a = node("a", vec![]);
    let old = node("root", vec![a.clone()]);
    let new = node("root2", vec![old.clone()]);
    let (complete, eq, report, _) = round(&old, &new);
    unlink(&[&old, &new, &a]);
    assert_eq!(complete, eq.is_ok(), "report: {report}; rtti_eq: {eq:?}");
}

/// A self-cycle kept, another made, one cut; the cycle's node held from outside.
#[test]
fn e2_self_cycles() {
    let c = node("c", vec![]);
    c.borrow_mut().children.push(c.clone());
    let old = node("root", vec![c.clone()]);
    let d = node("d", vec![]);
    d.borrow_mut().children.push(d.clone());
    let new = node("root", vec![d.clone(), c.clone()]);
    let (complete, eq, report, _) = round(&old, &new);
    let c_name = name(&c);
    unlink(&[&old, &new, &c, &d]);
    assert_eq!(complete, eq.is_ok(), "report: {report}; rtti_eq: {eq:?}");
    assert!(complete, "{report}");
    assert_eq!(c_name, "c");
}

/// A chain `x -> d1 -> ... -> d{depth} -> x` under the root; returns the root and a `Weak` to x.
fn chain(top: &str, depth: usize) -> (N, Weak<RefCell<Node>>) {
    let x = node(top, vec![]);
    let mut last = x.clone();
    for i in 1..=depth {
        let d = node(&format!("d{i}"), vec![]);
        last.borrow_mut().children.push(d.clone());
        last = d;
    }
    last.borrow_mut().children.push(x.clone());
    let weak = Rc::downgrade(&x);
    (node("root", vec![x]), weak)
}

/// Breaks the chain's cycle.
fn cut_chain(root: &N) {
    let mut next = root.borrow().children.first().cloned();
    let mut seen = 0;
    while let Some(n) = next {
        next = n.borrow().children.first().cloned();
        n.borrow_mut().children.clear();
        seen += 1;
        if seen > 100 {
            break;
        }
    }
    root.borrow_mut().children.clear();
}

/// A guess candidate whose extra pointer comes from deep in its own subtree (the last node of
/// a chain under it holds it strongly): not explained by the two-level walk, taken tentatively,
/// and confirmed once compared (nothing created). With an outside holder too, refused after a
/// restart (x not renamed).
#[test]
fn e3_extra_pointer_from_deep_in_the_own_subtree() {
    for depth in [1, 2, 4, 8] {
        for outside in [false, true] {
            // No handle of the test's, not even a `Weak` (which counts as a pointer), unless
            // `outside`.
            let (old, x) = chain("x", depth);
            let (new, _) = chain("y", depth);
            let held = outside.then(|| x.upgrade().unwrap());
            let x = if outside {
                x
            } else {
                drop(x);
                Weak::new()
            };
            let (complete, eq, report, patch) = round(&old, &new);
            let x_name = x.upgrade().map(|x| name(&x));
            let created = format!("{patch:?}").matches("Created").count();
            cut_chain(&old);
            cut_chain(&new);
            drop(held);
            let what = format!("depth {depth}, outside {outside}");
            assert_eq!(complete, eq.is_ok(), "{what}: report: {report}; rtti_eq: {eq:?}");
            assert!(complete, "{what}: {report}");
            if outside {
                assert_eq!(x_name.as_deref(), Some("x"), "{what}: x held from outside was renamed");
                assert!(created > 0);
            } else {
                assert_eq!(created, 0, "{what}: nothing is held outside: x is edited, nothing created");
            }
        }
    }
}

/// Many wrong guesses: n old children held from outside, n new ones of other names. The diff
/// must end quickly, with a patch of n created objects, not rewrite any.
#[test]
fn e4_many_wrong_guesses() {
    let n = 2000;
    let xs: Vec<N> = (0..n).map(|i| node(&format!("x{i}"), vec![node(&format!("c{i}"), vec![])])).collect();
    let ys: Vec<N> = (0..n).map(|i| node(&format!("y{i}"), vec![node(&format!("c{i}"), vec![])])).collect();
    let old = node("root", xs.clone());
    let new = node("root", ys.clone());
    let start = Instant::now();
    let patch = diff(&old, &new).unwrap();
    let held_time = start.elapsed();
    // Baseline: the same diff with nothing held from outside.
    let old2 = node("root", (0..n).map(|i| node(&format!("x{i}"), vec![node(&format!("c{i}"), vec![])])).collect());
    let start = Instant::now();
    let patch2 = diff(&old2, &new).unwrap();
    let free_time = start.elapsed();
    eprintln!(
        "held: {held_time:?} ({} objects), free: {free_time:?} ({} objects)",
        patch.objects_changed(),
        patch2.objects_changed()
    );
    let report = patch.apply_shared(&old);
    assert!(report.is_complete(), "{report}");
    rtti_eq(&old, &new).unwrap();
    assert!(xs.iter().enumerate().all(|(i, x)| name(x) == format!("x{i}")), "a held x was renamed");
    assert!(held_time < Duration::from_secs(30), "{held_time:?}");
}

/// Arc<Mutex<_>> graphs that overlap: a diff must finish (a hang is a deadlock).
#[derive(Reflectable, Default)]
#[rtti(id = 942_010)]
pub struct Locked {
    #[rtti(id = 1)]
    pub name: String,
    #[rtti(id = 2)]
    pub children: Vec<Arc<Mutex<Locked>>>,
    #[rtti(id = 3)]
    pub link: std::sync::Weak<Mutex<Locked>>,
}

type L = Arc<Mutex<Locked>>;

fn locked(name: &str, children: Vec<L>) -> L {
    Arc::new(Mutex::new(Locked { name: name.into(), children, ..Locked::default() }))
}

fn in_time(what: &'static str, f: impl FnOnce() -> Result<(), String> + Send + 'static) {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let result = f();
        let _ = done.send(result);
    });
    match finished.recv_timeout(Duration::from_secs(20)) {
        Ok(Ok(())) => {}
        Ok(Err(why)) => panic!("{what}: {why}"),
        Err(_) => panic!("{what}: hung (deadlock?) or panicked"),
    }
}

fn locked_round(old: &L, new: &L) -> Result<(), String> {
    let patch = diff(old, new).map_err(|e| e.to_string())?;
    let report = patch.apply_shared(old);
    let eq = rtti_eq(old, new).map_err(|d| d.to_string());
    if report.is_complete() != eq.is_ok() {
        return Err(format!("report: {report}; rtti_eq: {eq:?}"));
    }
    Ok(())
}

#[test]
fn e5_locked_root_diffed_with_itself() {
    in_time("diff(m, m)", || {
        let m = locked("root", vec![locked("a", vec![])]);
        let patch = diff(&m, &m).map_err(|e| e.to_string())?;
        if !patch.is_empty() {
            return Err(format!("not empty: {patch:?}"));
        }
        Ok(())
    });
}

#[test]
fn e6a_locked_shared_subtree() {
    in_time("shared subtree", || {
        let x = locked("x", vec![]);
        let s = locked("s", vec![x.clone()]);
        let old = locked("root", vec![s.clone(), x.clone()]);
        let new = locked("root", vec![s.clone(), locked("y", vec![x.clone()])]);
        new.lock().unwrap().link = Arc::downgrade(&x);
        locked_round(&old, &new)
    });
}

#[test]
#[ignore = "known defect, issue 42: an old object the new graph reaches only through a Weak, or the old root held by the new graph, is still edited in place"]
fn e6b_locked_new_root_holds_old_root() {
    in_time("new root holds old root", || {
        let old = locked("root", vec![locked("a", vec![])]);
        let new = locked("root", vec![old.clone()]);
        let r = locked_round(&old, &new);
        old.lock().unwrap().children.clear();
        r
    });
}

#[test]
fn e6c_locked_old_root_holds_new_root() {
    in_time("old root holds new root", || {
        let new = locked("root", vec![locked("b", vec![])]);
        let old = locked("root", vec![new.clone(), locked("c", vec![])]);
        locked_round(&old, &new)
    });
}

#[test]
fn e6d_locked_guess_held_outside() {
    in_time("guess held outside (restart)", || {
        let x = locked("x", vec![locked("c", vec![])]);
        let old = locked("root", vec![x.clone()]);
        let new = locked("root", vec![locked("y", vec![locked("c", vec![])])]);
        locked_round(&old, &new)?;
        if x.lock().unwrap().name != "x" {
            return Err("x renamed".into());
        }
        Ok(())
    });
}

#[test]
fn e6e_locked_weak_back_to_guessed() {
    in_time("weak back to a guessed locked node", || {
        let x = locked("x", vec![]);
        let c = locked("c", vec![]);
        c.lock().unwrap().link = Arc::downgrade(&x);
        x.lock().unwrap().children.push(c.clone());
        let s = locked("s", vec![x.clone()]);
        let old = locked("root", vec![s.clone(), x.clone()]);
        let new = locked("root", vec![s.clone(), locked("y", vec![])]);
        locked_round(&old, &new)
    });
}

/// Wrong guesses revealed one per try: each refused guess `x_r` is an orphan that a moved
/// object `t_r` of its name takes, whose comparison makes the next guess (`x_{r+1}` for
/// `y_{r+1}`), held from outside too. Every try is a diff of the whole graph, so `k` such
/// steps cost `k` diffs of the ballast.
fn restart_chain(k: usize, ballast: usize) -> (N, N, Vec<N>) {
    let xs: Vec<N> = (0..=k).map(|r| node(&format!("x{r}"), vec![])).collect();
    for r in 0..k {
        xs[r].borrow_mut().children.push(xs[r + 1].clone());
    }
    let ts: Vec<N> = (0..=k).map(|r| node(&format!("x{r}"), vec![node(&format!("y{}", r + 1), vec![])])).collect();
    for r in 0..k {
        ts[r].borrow_mut().other.push(ts[r + 1].clone());
    }
    let b_old: Vec<N> = (0..ballast).map(|i| node(&format!("b{i}"), vec![node("leaf", vec![])])).collect();
    let b_new: Vec<N> = (0..ballast).map(|i| node(&format!("b{i}"), vec![node("leaf", vec![])])).collect();
    let old = node("root", vec![xs[0].clone()]);
    old.borrow_mut().map.insert("ballast".into(), node("ballast", b_old));
    let new = node("root", vec![node("y0", vec![])]);
    new.borrow_mut().other = vec![ts[0].clone()];
    new.borrow_mut().map.insert("ballast".into(), node("ballast", b_new));
    (old, new, xs)
}

#[test]
fn e7_restarts_one_per_try() {
    let mut times = Vec::new();
    for k in [1, 50, 200] {
        let (old, new, xs) = restart_chain(k, 3000);
        let start = Instant::now();
        let patch = diff(&old, &new).unwrap();
        let took = start.elapsed();
        let report = patch.apply_shared(&old);
        let eq = rtti_eq(&old, &new).map_err(|d| d.to_string());
        eprintln!(
            "k {k}: diff {took:?}, {} objects in the patch, complete {}, rtti_eq {eq:?}",
            patch.objects_changed(),
            report.is_complete()
        );
        assert_eq!(report.is_complete(), eq.is_ok(), "{report}");
        times.push(took);
        for x in &xs {
            x.borrow_mut().children.clear();
        }
    }
    assert!(times[2] < times[0] * 20, "{times:?}: the diff's cost grows with the number of tries");
}

/// `explore_shared` paths through what a shared allocation holds by value: a map value, an
/// enum's pointer, a trait object's pointer. The patch must point at the very object.
#[test]
fn e8_explored_paths_through_maps_enums_and_trait_objects() {
    for how in ["map", "enum", "dyn", "weak", "nested"] {
        let z = node("z", vec![]);
        let s = node("s", vec![]);
        match how {
            "map" => {
                s.borrow_mut().map.insert("k".into(), z.clone());
                s.borrow_mut().map.insert("j".into(), node("j", vec![]));
            }
            "enum" => s.borrow_mut().mode = Mode::Follow(Some(z.clone())),
            "dyn" => {
                let prop: Rc<RefCell<dyn Part>> =
                    Rc::new(RefCell::new(Prop { label: "p".into(), to: Some(z.clone()) }));
                s.borrow_mut().part = Some(prop);
            }
            "weak" => {
                // Held by the old root strongly through another shared allocation, reached
                // from s by a Weak.
                s.borrow_mut().link = Rc::downgrade(&z);
            }
            _ => {
                let inner = node("inner", vec![]);
                inner.borrow_mut().map.insert("deep".into(), z.clone());
                s.borrow_mut().mode = Mode::Follow(Some(inner));
            }
        }
        let keep = node("keep", vec![z.clone()]);
        let old = node("root", vec![s.clone()]);
        if how == "weak" {
            old.borrow_mut().other = vec![keep.clone()];
        }
        let new = node("root", vec![s.clone()]);
        new.borrow_mut().other = if how == "weak" { vec![keep.clone(), z.clone()] } else { vec![z.clone()] };
        let (complete, eq, report, patch) = round(&old, &new);
        let very = old.borrow().other.last().is_some_and(|o| Rc::ptr_eq(o, &z));
        let created = format!("{patch:?}").matches("Created").count();
        unlink(&[&old, &new, &s, &z, &keep]);
        assert_eq!(complete, eq.is_ok(), "{how}: report: {report}; rtti_eq: {eq:?}");
        assert!(complete, "{how}: {report}");
        assert!(very && created == 0, "{how}: the patch points at a copy of z ({created} created): {patch:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// F5: one pointer field holds, in the new graph, both the very old allocation `a` and a fresh
// `b` of a's plain values (its name): the alignment may match a with b by content rather than
// with itself, edit `a` into `b` and point the new graph's `a` element at a copy of a.
#[test]
fn f5_identity_loses_to_a_content_match_in_one_field() {
    for a_first in [true, false] {
        let a = node("a", vec![]);
        let old = node("root", vec![a.clone()]);
        let b = node("a", vec![node("leaf", vec![])]);
        let new = node("root", if a_first { vec![a.clone(), b.clone()] } else { vec![b.clone(), a.clone()] });
        let a_addr = Rc::as_ptr(&a) as usize;
        drop(a);
        let (complete, eq, report, _) = round(&old, &new);
        let a_still = new.borrow().children.iter().find(|c| Rc::as_ptr(c) as usize == a_addr).map(child_names);
        unlink(&[&old, &new, &b]);
        assert_eq!(complete, eq.is_ok(), "a first {a_first}: report: {report}; rtti_eq: {eq:?}");
        assert_eq!(a_still, Some(vec![]), "a first {a_first}: a (in the new graph) was rewritten into b");
    }
}

// F6: an old object only a `Weak` of the root and its own self-cycle lead to is guessed to be
// the new link target (its self-pointer explains its count); the edit drops the cycle, the
// object dies, the link is dead: "applied in full", yet rtti_eq fails. (apply reports Unheld only
// for objects it creates, not for found objects its edits leave unheld.)
#[test]
fn f6_an_edited_object_only_weaks_lead_to_dies_unreported() {
    let a = node("a", vec![]);
    a.borrow_mut().children.push(a.clone());
    let old = node("root", vec![]);
    old.borrow_mut().link = Rc::downgrade(&a);
    drop(a);
    let y = node("y", vec![]);
    let new = node("root", vec![]);
    new.borrow_mut().link = Rc::downgrade(&y);
    let (complete, eq, report, _) = round(&old, &new);
    let alive = old.borrow().link.upgrade().map(|a| name(&a));
    if let Some(a) = old.borrow().link.upgrade() {
        a.borrow_mut().children.clear();
    }
    assert_eq!(complete, eq.is_ok(), "report: {report}; rtti_eq: {eq:?}; link leads to {alive:?}");
    drop(y);
}

// F6b: the same without a cycle: `a` is held by the root's children and its link; the new root
// drops the child and links to `y`, which only the caller holds. `a` (whose two pointers the old
// graph explains) is guessed to be `y` and edited; the edit drops its last strong holder; it
// dies; "applied in full", rtti_eq fails ("a null pointer and a pointer").
#[test]
fn f6b_a_guessed_object_the_patch_leaves_unheld() {
    let a = node("a", vec![]);
    let old = node("root", vec![a.clone()]);
    old.borrow_mut().link = Rc::downgrade(&a);
    drop(a);
    let y = node("y", vec![]);
    let new = node("root", vec![]);
    new.borrow_mut().link = Rc::downgrade(&y);
    let (complete, eq, report, patch) = round(&old, &new);
    assert_eq!(complete, eq.is_ok(), "report: {report}; rtti_eq: {eq:?}; patch: {patch:?}");
    drop(y);
}

// F7: nothing edited at all. The old graph points at `z` twice (the root, and `s`); the new graph
// holds `s` (so `z` behind it) and, where the old root held `z`, an equal copy `z2`. The diff
// pairs `z` with `z2` by content and finds nothing to do: an empty patch, "applied in full", and
// rtti_eq says "shared differently" (rightly: the new graph has two objects where the old one
// has one). The mirror image of issue 42's defect C.
#[test]
fn f7_a_copy_where_the_old_graph_shares_is_not_seen() {
    let z = node("z", vec![]);
    let s = node("s", vec![z.clone()]);
    let old = node("root", vec![s.clone(), z]);
    let z2 = node("z", vec![]);
    let new = node("root", vec![s.clone(), z2.clone()]);
    let (complete, eq, report, patch) = round(&old, &new);
    unlink(&[&old, &new, &s, &z2]);
    assert_eq!(complete, eq.is_ok(), "report: {report}; rtti_eq: {eq:?}; patch empty: {}", patch.is_empty());
}

// F8: the new root points, where the old one held `a`, at `z`, an old object the old graph
// reaches only behind `s`, which both graphs share. `s` is paired with itself in the very
// alignment that compares `z`, after the new keys were taken, so `z` is not yet known to be an
// old object: `a` is guessed to be `z` (an edit of a), renamed, and the root points at the
// renamed `a` instead of at `z`. "applied in full"; rtti_eq: shared differently. (With arrays of
// one length, the cheap element-by-element pass pairs `s` first and explores it in time: the
// new array here is one longer.)
#[test]
fn f8_a_target_behind_a_shared_allocation_paired_in_the_same_field_is_guessed() {
    let z = node("z", vec![]);
    let s = node("s", vec![z.clone()]);
    let old = node("root", vec![s.clone(), node("a", vec![])]);
    let new = node("root", vec![s.clone(), z.clone(), s.clone()]);
    let (complete, eq, report, patch) = round(&old, &new);
    let very = Rc::ptr_eq(&old.borrow().children[1], &z);
    unlink(&[&old, &new, &s, &z]);
    assert_eq!(complete, eq.is_ok(), "report: {report}; rtti_eq: {eq:?}; patch: {patch:?}");
    assert!(very, "the root's second child is not z itself");
}

/// Paths through a `HashMap` (the diff's places, and `explore_shared`'s) name an element by its
/// index in the map's iteration order; applied to a clone of the old graph (a map rebuilt), the
/// index may name another entry.
#[test]
fn e9_map_paths_applied_to_a_clone() {
    let old = node("root", vec![]);
    let new = node("root", vec![]);
    for i in 0..32 {
        old.borrow_mut().map.insert(format!("k{i}"), node(&format!("v{i}"), vec![node("leaf", vec![])]));
        // The same, but every value's child renamed: an edit inside each map value.
        new.borrow_mut().map.insert(format!("k{i}"), node(&format!("v{i}"), vec![node(&format!("leaf{i}"), vec![])]));
    }
    let patch = diff(&old, &new).unwrap();
    let target = reflectable::clone::Cloner::new().clone_handle(&old).unwrap();
    let report = patch.apply_shared(&target);
    let eq = rtti_eq(&target, &new).map_err(|d| d.to_string());
    assert_eq!(report.is_complete(), eq.is_ok(), "report: {report}; rtti_eq: {eq:?}");
    assert!(report.is_complete(), "{report}");
}

// ---------------------------------------------------------------------------------------------
// F9 (found by `p4_closed_complete_when_nothing_needs_an_outside_object`, 2026-11-28): a `Weak`
// compared before the shared allocation that holds its target. The root's `link` leads to `x`,
// an old object the new graph holds only behind `s`, an allocation both graphs share, which the
// diff meets later (under a created object). Named when the link was compared, `x` looked new:
// the patch created a copy for it that nothing held. A `Weak`'s unknown target is now named
// after every created object has its body.
#[test]
fn f9_weak_met_before_the_shared_allocation_holding_its_target() {
    let x = node("x", vec![]);
    let s = node("s", vec![x.clone()]);
    let old = node("root", vec![s.clone()]);
    let t = node("t", vec![s.clone()]);
    let new = node("root", vec![t.clone()]);
    new.borrow_mut().link = Rc::downgrade(&x);
    let (complete, eq, report, patch) = round(&old, &new);
    eprintln!("patch: {patch:?}");
    assert!(complete, "report: {report}");
    assert_eq!(eq, Ok(()));
    assert!(Rc::ptr_eq(&old.borrow().link.upgrade().unwrap(), &x), "the link leads to x itself");
    unlink(&[&old, &new, &s, &x, &t]);
}

// ---------------------------------------------------------------------------------------------
// G3 (found reviewing F9's fix; older than it): an object in an `Arc<Mutex<_>>` leaves one field
// and the new graph names it from another. The moved-object pass compared the very allocation
// with itself, locking its `Mutex` twice: `diff` never returned.
#[derive(Reflectable, Default)]
#[rtti(id = 942_090)]
struct MutexPair {
    #[rtti(id = 1)]
    a: Vec<Arc<Mutex<MutexPair>>>,
    #[rtti(id = 2)]
    b: Vec<Arc<Mutex<MutexPair>>>,
}

#[test]
fn g3_an_object_moving_between_fields_in_a_mutex_is_itself() {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let s = Arc::new(Mutex::new(MutexPair::default()));
        let old = Arc::new(Mutex::new(MutexPair { a: vec![s.clone()], b: Vec::new() }));
        let new = Arc::new(Mutex::new(MutexPair { a: Vec::new(), b: vec![s.clone()] }));
        let patch = diff(&old, &new).unwrap();
        let report = patch.apply_shared(&old);
        let same = Arc::ptr_eq(&old.lock().unwrap().b[0], &s);
        done.send((report.is_complete(), rtti_eq(&old, &new).is_ok(), same)).unwrap();
    });
    let result = finished.recv_timeout(Duration::from_secs(60)).expect("diff returns");
    assert_eq!(result, (true, true, true));
}
