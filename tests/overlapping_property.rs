//! Property test over *overlapping* graphs (issue 42, [prefab-merge]; quickcheck), written by a reviewer trying to break the fix.
//!
//! An old graph of `Rc<RefCell<Node>>` (strong children, a `Weak` link, a trait-object part that
//! points back into the graph, a `HashMap<String, _>`, an enum that may point at a node) is
//! built from random edges. The new graph is a structural copy of it that *shares* some
//! allocations with it (those nodes are the very same `Rc`s, pointing at old nodes as they do),
//! then edited: renames, children added, removed, moved and retargeted, links, map entries,
//! enum and part retargeted — each target being a node of the new graph, an old node itself
//! (so the new graph holds more old allocations), a fresh node, or a node only the test holds,
//! or null. Some old nodes are held from outside (by the test). The test holds no other handle,
//! not even a `Weak` (a `Weak` counts as a pointer from outside). Then
//! `apply_shared(old, diff(old, new))`, and:
//!
//! 1. `report.is_complete() == rtti_eq(old, new).is_ok()`;
//! 2. the new graph is not changed by the apply: every object reachable from the new root
//!    (strongly or by `Weak`) other than the old root has the same name, pointers and part as
//!    before (an allocation both graphs hold never needs editing: it is the same in both);
//! 3. an old node other than the root (which the patch edits in place) held from outside keeps its name (no guess rewrote it into another node), and
//!    one that the patched graph no longer reaches is not changed at all;
//! 4. when every `Weak` of the new graph leads to a node the new root holds strongly and the new
//!    graph does not hold the old root, the report is complete (the patch can always create
//!    what it cannot find).
//!
//! Checks 1-4 are each a property below; `QUICKCHECK_TESTS` sets the number of cases.

use quickcheck::{QuickCheck, TestResult};
use reflectable::diff::{diff, rtti_eq};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::{Rc, Weak};

#[path = "common/overlap_model.rs"]
mod overlap_model;
use overlap_model::{Mode, Node, Part, Prop, N};

fn node(name: String) -> N {
    Rc::new(RefCell::new(Node { name, ..Node::default() }))
}

fn addr(n: &N) -> usize {
    Rc::as_ptr(n) as *const () as usize
}

fn prop(label: String, to: Option<N>) -> Rc<RefCell<dyn Part>> {
    Rc::new(RefCell::new(Prop { label, to }))
}

/// The part's label and target, read through reflection-free downcasting: parts are `Prop`s.
fn part_of(n: &Node) -> Option<(usize, String, Option<usize>)> {
    let part = n.part.as_ref()?;
    let at = Rc::as_ptr(part) as *const () as usize;
    let borrowed = part.borrow();
    let prop = borrowed.downcast_ref::<Prop>().expect("parts are Props");
    Some((at, prop.label.clone(), prop.to.as_ref().map(addr)))
}

fn part_target(n: &Node) -> Option<N> {
    let part = n.part.as_ref()?;
    let borrowed = part.borrow();
    borrowed.downcast_ref::<Prop>().and_then(|p| p.to.clone())
}

/// Every node `n` points at strongly.
fn strong(n: &Node) -> Vec<N> {
    let mut out: Vec<N> = n.children.clone();
    out.extend(n.map.values().cloned());
    if let Mode::Follow(Some(to)) = &n.mode {
        out.push(to.clone());
    }
    out.extend(part_target(n));
    out
}

/// Nodes reachable from `roots`, strongly only or through `Weak`s too.
fn reach(roots: &[N], weak: bool) -> Vec<N> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut pending: Vec<N> = roots.to_vec();
    while let Some(n) = pending.pop() {
        if seen.insert(addr(&n)) {
            let b = n.borrow();
            pending.extend(strong(&b));
            if weak {
                pending.extend(b.link.upgrade());
            }
            drop(b);
            out.push(n);
        }
    }
    out
}

/// What a node is: name, pointers by address, part.
fn snap(n: &N) -> String {
    let b = n.borrow();
    let mode = match &b.mode {
        Mode::Idle => "idle".to_string(),
        Mode::Tag { tag } => format!("tag {tag}"),
        Mode::Follow(to) => format!("follow {:?}", to.as_ref().map(addr)),
    };
    let map: BTreeMap<&String, usize> = b.map.iter().map(|(k, v)| (k, addr(v))).collect();
    format!(
        "{} children {:?} link {:x} map {:?} mode {} part {:?}",
        b.name,
        b.children.iter().map(addr).collect::<Vec<_>>(),
        // By address, dead or alive: a link whose target died is not a link rewritten.
        b.link.as_ptr() as *const () as usize,
        map,
        mode,
        part_of(&b)
    )
}

/// Breaks every strong cycle among `nodes` (the test does not leak).
fn unlink(nodes: &[N]) {
    for n in nodes {
        if let Ok(mut n) = n.try_borrow_mut() {
            n.children.clear();
            n.map.clear();
            n.mode = Mode::Idle;
            n.part = None;
        }
    }
}

/// One case: the graphs, what the test holds, and what it needs to check.
struct Case {
    old: N,
    new: N,
    /// Old nodes held from outside (by the test).
    held: Vec<N>,
    /// Nodes only the test holds (targets of the new graph's links and pointers).
    outside: Vec<N>,
    /// Whether some `Weak` of the new graph leads to a node its root does not hold strongly.
    loose_weaks: bool,
    /// Whether the new graph holds the old root.
    holds_old_root: bool,
    /// Whether an old node that nothing reaches (not the old root, the new root or the test)
    /// stays alive in a strong cycle: the known failure f6 of tests/review_overlap.rs.
    leaked_cycle: bool,
}

/// Builds a case. `share` bit i: old node i is the very allocation in the new graph (not node
/// 0, the root). `held` bit i: the test holds old node i.
///
/// `closed`: the shared nodes are closed under pointers (an old node a shared node points at is
/// shared too), and edits point at old nodes only where they are shared, so the new graph never
/// reaches both an old node and its copy (the known failure f2 of tests/review_overlap.rs).
fn build(n: u8, edges: &[(u8, u8, u8)], share: u32, edits: &[(u8, u8, u8, u8)], held: u32, closed: bool) -> Case {
    let n = 1 + n as usize % 8;
    let old: Vec<N> = (0..n).map(|i| node(format!("n{i}"))).collect();
    for &(from, to, op) in edges {
        let (from, to) = (&old[from as usize % n], old[to as usize % n].clone());
        let mut f = from.borrow_mut();
        match op % 6 {
            0 | 1 => f.children.push(to),
            2 => f.link = Rc::downgrade(&to),
            3 => {
                f.map.insert(format!("k{}", op % 4), to);
            }
            4 => f.mode = Mode::Follow(Some(to)),
            _ => f.part = Some(prop(format!("p{}", op % 3), Some(to))),
        }
    }
    let index: HashMap<usize, usize> = old.iter().enumerate().map(|(i, o)| (addr(o), i)).collect();
    let mut share: Vec<bool> = (0..n).map(|i| i != 0 && share & (1 << i) != 0).collect();
    if closed {
        // Close the shared set under pointers (strong and weak); if that takes in the root,
        // share nothing.
        loop {
            let mut grew = false;
            for i in 0..n {
                if !share[i] {
                    continue;
                }
                let b = old[i].borrow();
                let mut to = strong(&b);
                to.extend(b.link.upgrade());
                for t in to {
                    let j = index[&addr(&t)];
                    if !share[j] {
                        share[j] = true;
                        grew = true;
                    }
                }
            }
            if !grew {
                break;
            }
        }
        if share[0] {
            share = vec![false; n];
        }
    }
    let shared = |i: usize| share[i];
    // The structural copy: shared nodes are the old allocations themselves.
    let copies: Vec<N> = (0..n).map(|i| if shared(i) { old[i].clone() } else { node(format!("n{i}")) }).collect();
    let map = |o: &N| -> N {
        match index.get(&addr(o)) {
            Some(&i) => copies[i].clone(),
            None => o.clone(),
        }
    };
    for i in (0..n).filter(|&i| !shared(i)) {
        let o = old[i].borrow();
        let mut c = copies[i].borrow_mut();
        c.children = o.children.iter().map(map).collect();
        c.link = o.link.upgrade().map_or_else(Weak::new, |t| Rc::downgrade(&map(&t)));
        c.map = o.map.iter().map(|(k, v)| (k.clone(), map(v))).collect();
        c.mode = match &o.mode {
            Mode::Idle => Mode::Idle,
            Mode::Tag { tag } => Mode::Tag { tag: tag.clone() },
            Mode::Follow(to) => Mode::Follow(to.as_ref().map(map)),
        };
        c.part = part_of(&o).map(|(_, label, _)| prop(label, part_target(&o).as_ref().map(map)));
    }
    // Edits, on copies only (a shared node edited would be edited in both graphs).
    let editable: Vec<usize> = (0..n).filter(|&i| !shared(i)).collect();
    let mut outside: Vec<N> = Vec::new();
    let mut fresh = 0;
    for &(op, at, to, value) in edits {
        let at = editable[at as usize % editable.len()];
        let target = {
            let j = to as usize % n;
            match value % 5 {
                0 | 1 => Some(copies[j].clone()),
                // The old node itself: the new graph holds one more old allocation.
                2 if !closed => Some(old[j].clone()),
                2 => Some(copies[j].clone()),
                3 => {
                    fresh += 1;
                    Some(node(format!("fresh{fresh}")))
                }
                _ => {
                    let o = node(format!("outside{}", outside.len()));
                    outside.push(o.clone());
                    Some(o)
                }
            }
        };
        let mut c = copies[at].borrow_mut();
        let position = |len: usize| if len == 0 { 0 } else { (value as usize / 5) % len };
        match op % 10 {
            0 => c.name.push('!'),
            1 => {
                let p = position(c.children.len() + 1);
                c.children.insert(p, target.unwrap());
            }
            2 if !c.children.is_empty() => {
                let p = position(c.children.len());
                c.children.remove(p);
            }
            3 => c.link = if value % 7 == 0 { Weak::new() } else { Rc::downgrade(&target.unwrap()) },
            4 => {
                c.map.insert(format!("k{}", value % 4), target.unwrap());
            }
            5 => {
                c.map.remove(&format!("k{}", value % 4));
            }
            6 => {
                c.mode = match value % 3 {
                    0 => Mode::Idle,
                    1 => Mode::Tag { tag: format!("t{value}") },
                    _ => Mode::Follow(target),
                }
            }
            7 => c.part = if value % 4 == 0 { None } else { Some(prop(format!("q{value}"), target)) },
            8 if c.children.len() >= 2 => {
                let moved = c.children.remove(0);
                c.children.push(moved);
            }
            9 if !c.children.is_empty() => {
                let p = position(c.children.len());
                c.children[p] = target.unwrap();
            }
            _ => {}
        }
    }
    let held: Vec<N> = (0..n).filter(|&i| held & (1 << i) != 0).map(|i| old[i].clone()).collect();
    let (old_root, new_root) = (old[0].clone(), copies[0].clone());
    let mut roots = vec![old_root.clone(), new_root.clone()];
    roots.extend(held.iter().cloned());
    let live: HashSet<usize> = reach(&roots, false).iter().map(addr).collect();
    let leaked_cycle = old.iter().filter(|o| !live.contains(&addr(o))).any(|o| {
        let inner = reach(&strong(&o.borrow()), false);
        inner.iter().any(|x| Rc::ptr_eq(x, o))
    });
    // Every other handle of the test's goes: old nodes held by nothing die.
    drop((old, copies));
    let strongly: HashSet<usize> = reach(std::slice::from_ref(&new_root), false).iter().map(addr).collect();
    let all_new = reach(std::slice::from_ref(&new_root), true);
    let loose_weaks = all_new.iter().any(|x| x.borrow().link.upgrade().is_some_and(|t| !strongly.contains(&addr(&t))));
    let holds_old_root = all_new.iter().any(|x| Rc::ptr_eq(x, &old_root));
    drop(all_new);
    Case { old: old_root, new: new_root, held, outside, loose_weaks, holds_old_root, leaked_cycle }
}

/// Snapshots of what `root` reaches (strongly or by `Weak`), by address; no handle is kept (a
/// handle of the test's would count as a pointer from outside and change what the diff does).
fn snapshots(root: &N) -> HashMap<usize, String> {
    reach(std::slice::from_ref(root), true).iter().map(|x| (addr(x), snap(x))).collect()
}

/// What went wrong in a case, checked as the module's doc says (`None`: nothing). Check 6
/// (identity): an old allocation both graphs held before is still in the patched graph (else
/// the patch made a copy of it: failure f1 of tests/review_overlap.rs). Check 7: report a
/// failure of check 1 only where checks 2 and 6 hold (to find failures of other kinds).
fn run(case: Case, checks: &[u8]) -> Option<String> {
    let Case { old, new, held, outside, loose_weaks, holds_old_root, .. } = case;
    let mut new_before = snapshots(&new);
    new_before.remove(&addr(&old));
    let old_before: HashSet<usize> = snapshots(&old).into_keys().collect();
    let held_snaps: Vec<(N, String, String)> =
        held.iter().map(|h| (h.clone(), h.borrow().name.clone(), snap(h))).collect();

    let patch = match diff(&old, &new) {
        Ok(patch) => patch,
        Err(error) => return Some(format!("diff failed: {error}")),
    };
    let report = patch.apply_shared(&old);
    let eq = rtti_eq(&old, &new).map_err(|d| d.to_string());
    let new_after = snapshots(&new);
    let old_after: HashSet<usize> = snapshots(&old).into_keys().collect();
    let mut problems = Vec::new();
    let mut changed = Vec::new();
    for (at, before) in &new_before {
        match new_after.get(at) {
            Some(after) if after == before => {}
            // Gone: it died (a `Weak` of the new graph led to it, and the patched old graph no
            // longer holds it), or its holder changed, which that holder's snapshot shows.
            None => {}
            after => changed.push(format!("2: an object of the new graph changed: {before} -> {after:?}")),
        }
    }
    let lost: Vec<String> = new_before
        .iter()
        .filter(|(at, _)| old_before.contains(at) && !old_after.contains(at))
        .map(|(_, before)| format!("6: the patched graph holds a copy of {before}, not it"))
        .collect();
    let other_kind = !checks.contains(&7) || (changed.is_empty() && lost.is_empty());
    if checks.contains(&1) && report.is_complete() != eq.is_ok() && other_kind {
        problems.push(format!("1: report '{report}' but rtti_eq {eq:?}"));
    }
    if checks.contains(&2) {
        problems.extend(changed);
    }
    if checks.contains(&6) {
        problems.extend(lost);
    }
    if checks.contains(&3) {
        for (h, name, before) in held_snaps.iter().filter(|(h, ..)| !Rc::ptr_eq(h, &old)) {
            let now = snap(h);
            if &h.borrow().name != name {
                problems.push(format!("3: held {name} renamed: {before} -> {now}"));
            } else if !old_after.contains(&addr(h)) && !new_before.contains_key(&addr(h)) && &now != before {
                problems.push(format!("3: held {name}, no longer in either graph, changed: {before} -> {now}"));
            }
        }
    }
    if checks.contains(&4) && !loose_weaks && !holds_old_root && !report.is_complete() {
        problems.push(format!("4: incomplete though nothing needs an outside object: {report}"));
    }
    drop(held_snaps);
    let mut everything = reach(&[old, new], true);
    everything.extend(reach(&held, true));
    everything.extend(reach(&outside, true));
    unlink(&everything);
    if problems.is_empty() {
        None
    } else {
        Some(format!("{}\npatch: {patch:?}", problems.join("\n")))
    }
}

fn property(
    checks: &[u8],
    closed: bool,
    n: u8,
    edges: Vec<(u8, u8, u8)>,
    share: u32,
    edits: Vec<(u8, u8, u8, u8)>,
    held: u32,
) -> TestResult {
    let case = build(n, &edges, share, &edits, held, closed);
    let known = (case.holds_old_root && std::env::var("REVIEW_OLD_ROOT").is_err())
        || (closed && case.leaked_cycle && std::env::var("REVIEW_LEAKED").is_err());
    let known = known || (checks.contains(&5) && case.loose_weaks);
    if known {
        // Known failures (tests/review_overlap.rs: e1, the old root is edited in place, so a
        // new graph that holds it changes with it; f6, in closed mode). Left out so the rest
        // can be found.
        let Case { old, new, held, outside, .. } = case;
        let mut everything = reach(&[old, new], true);
        everything.extend(reach(&held, true));
        everything.extend(reach(&outside, true));
        unlink(&everything);
        return TestResult::discard();
    }
    match run(case, checks) {
        None => TestResult::passed(),
        Some(why) => TestResult::error(why),
    }
}

type Prop5 = fn(u8, Vec<(u8, u8, u8)>, u32, Vec<(u8, u8, u8, u8)>, u32) -> TestResult;

fn check(f: Prop5) {
    let tests = std::env::var("QUICKCHECK_TESTS").ok().and_then(|t| t.parse().ok()).unwrap_or(300);
    QuickCheck::new().tests(tests).max_tests(tests * 10).quickcheck(f);
}

#[test]
#[ignore = "known defects, issue 42: the cases of tests/overlapping_hostile.rs that are ignored"]
fn p1_complete_exactly_when_rtti_eq() {
    check(|n, e, s, d, h| property(&[1], false, n, e, s, d, h));
}

#[test]
#[ignore = "known defects, issue 42: the cases of tests/overlapping_hostile.rs that are ignored"]
fn p2_the_new_graph_is_untouched() {
    check(|n, e, s, d, h| property(&[2], false, n, e, s, d, h));
}

#[test]
fn p3_held_old_nodes_are_not_rewritten() {
    check(|n, e, s, d, h| property(&[3], false, n, e, s, d, h));
}

#[test]
#[ignore = "known defects, issue 42: the cases of tests/overlapping_hostile.rs that are ignored"]
fn p4_complete_when_nothing_needs_an_outside_object() {
    check(|n, e, s, d, h| property(&[4], false, n, e, s, d, h));
}

// The same over graphs whose shared part is closed under pointers (see `build`).

#[test]
#[ignore = "known defects, issue 42: the cases of tests/overlapping_hostile.rs that are ignored"]
fn p1_closed_complete_exactly_when_rtti_eq() {
    check(|n, e, s, d, h| property(&[1], true, n, e, s, d, h));
}

#[test]
#[ignore = "known defects, issue 42: the cases of tests/overlapping_hostile.rs that are ignored"]
fn p2_closed_the_new_graph_is_untouched() {
    check(|n, e, s, d, h| property(&[2], true, n, e, s, d, h));
}

#[test]
fn p3_closed_held_old_nodes_are_not_rewritten() {
    check(|n, e, s, d, h| property(&[3], true, n, e, s, d, h));
}

#[test]
fn p4_closed_complete_when_nothing_needs_an_outside_object() {
    check(|n, e, s, d, h| property(&[4], true, n, e, s, d, h));
}

/// Check 1 where no `Weak` of the new graph leads outside what its root holds (the known
/// failure f6b left out).
#[test]
#[ignore = "known defects, issue 42: the cases of tests/overlapping_hostile.rs that are ignored"]
fn p1_closed_no_loose_weaks() {
    check(|n, e, s, d, h| property(&[1, 5], true, n, e, s, d, h));
}

/// Check 1 and 2 on open graphs where no `Weak` of the new graph leads outside what its root
/// holds.
#[test]
#[ignore = "known defects, issue 42: the cases of tests/overlapping_hostile.rs that are ignored"]
fn p12_open_no_loose_weaks() {
    check(|n, e, s, d, h| property(&[1, 2, 5], false, n, e, s, d, h));
}

/// Check 1 where checks 2 and 6 hold (failures of other kinds than f1/f2/f7), no loose weaks,
/// closed graphs.
#[test]
#[ignore = "known defects, issue 42: the cases of tests/overlapping_hostile.rs that are ignored"]
fn p1_other_kinds() {
    check(|n, e, s, d, h| property(&[1, 5, 7], true, n, e, s, d, h));
}

/// Check 6 (identity kept), open graphs.
#[test]
#[ignore = "known defects, issue 42: the cases of tests/overlapping_hostile.rs that are ignored"]
fn p6_identity() {
    check(|n, e, s, d, h| property(&[6], false, n, e, s, d, h));
}

/// The case CI's run of `p4_closed_complete_when_nothing_needs_an_outside_object` found on
/// 2026-11-28 (a `Weak` named before the shared allocation holding its target was met; F9 of
/// tests/overlapping_hostile.rs), kept so every run tries it.
#[test]
fn p4_closed_weak_met_before_its_shared_holder() {
    let case = property(
        &[4],
        true,
        95,
        vec![(51, 170, 0), (2, 1, 0), (0, 26, 0)],
        4,
        vec![(33, 0, 25, 5), (69, 0, 179, 0)],
        0,
    );
    assert!(!case.is_failure(), "{case:?}");
}
