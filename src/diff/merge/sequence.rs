//! Two edits of one array, made from one base, merged element by element: the rule every kind of
//! array follows (pointers, objects held by value, plain elements). An edit is either *in place*
//! (old elements changed where they are) or a *rebuild* (the new array, listing the old elements
//! it keeps, in order, and the new ones between them). The merge keeps an old element when
//! neither side removed it, puts each side's insertions after the old element they follow (ours
//! first when both insert at one place), and reports a conflict when one side removes what the
//! other edits, keeping ours' choice.

use ahash::AHashSet;
use std::collections::BTreeMap;

/// One element of an array edit.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Item<E, N> {
    /// Old element `index`, kept, with its change if any.
    Old(u32, Option<E>),
    /// A new element.
    New(N),
}

/// An array edit in the common form.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Edit<E, N> {
    pub(super) rebuild: bool,
    pub(super) items: Vec<Item<E, N>>,
}

/// What an array's kind decides for the merge.
pub(super) trait Rules<E, N> {
    /// Both sides changed old element `index`: the merged change (conflicts noted).
    fn both(&mut self, index: u32, ours: E, theirs: E) -> E;
    /// One side removed old element `index` and the other changed it, or something it holds:
    /// noted as a conflict.
    fn removed_edited(&mut self, index: u32, removed_by_ours: bool);
    /// Both sides rebuilt the array in ways that cannot be combined (one of them moves
    /// elements): noted as a conflict of the whole field.
    fn whole(&mut self);
    /// Both sides replaced old elements from `index` on with different ones: noted as a
    /// conflict.
    fn replaced(&mut self, index: u32);
    /// Whether elements are values, which a change replaces in place (a plain element changed
    /// is one removed and one inserted at its place), rather than objects, which are removed
    /// and inserted in their own right.
    fn values(&self) -> bool {
        false
    }
    /// One side's change of old element `index`, the other side having none there: what it
    /// becomes (the other side may still reach through the element, so a change inside it can
    /// conflict).
    fn alone(&mut self, index: u32, change: E, ours: bool) -> E {
        let _ = (index, ours);
        change
    }
    /// Whether a side's change of an element changes anything.
    fn changes(&self, edit: &E) -> bool;
    /// Whether a change puts another element in the old one's place (a pointer retargeted), so
    /// that what the old element held is removed from there.
    fn replaces(&self, edit: &E) -> bool;
}

/// The merge of `ours` and `theirs`. `reached_ours` and `reached_theirs` are the old elements
/// through which each side edits other objects (a removal of one of them is a conflict too).
pub(super) fn merge<E: Clone + PartialEq, N: Clone + PartialEq>(
    rules: &mut impl Rules<E, N>,
    ours: Edit<E, N>,
    theirs: Edit<E, N>,
    reached_ours: &AHashSet<u32>,
    reached_theirs: &AHashSet<u32>,
) -> Edit<E, N> {
    match (ours.rebuild, theirs.rebuild) {
        (false, false) => in_place(rules, ours, theirs, reached_ours, reached_theirs),
        (true, false) => onto_rebuild(rules, ours, theirs, true, (reached_ours, reached_theirs)),
        (false, true) => onto_rebuild(rules, theirs, ours, false, (reached_theirs, reached_ours)),
        (true, true) if ours == theirs => ours,
        (true, true) if !in_order(&ours) || !in_order(&theirs) => {
            rules.whole();
            ours
        }
        (true, true) => both_rebuilt(rules, ours, theirs, reached_ours, reached_theirs),
    }
}

/// Both in place: each old element changed by either side, by both merged. An element one side
/// replaces and the other reaches through is a conflict: ours' choice stands.
fn in_place<E, N>(
    rules: &mut impl Rules<E, N>,
    ours: Edit<E, N>,
    theirs: Edit<E, N>,
    reached_ours: &AHashSet<u32>,
    reached_theirs: &AHashSet<u32>,
) -> Edit<E, N> {
    let mut by_index: BTreeMap<u32, (Option<E>, Option<E>)> = BTreeMap::new();
    for (side, edit) in [(0, ours), (1, theirs)] {
        for item in edit.items {
            if let Item::Old(index, Some(change)) = item {
                let slot = by_index.entry(index).or_default();
                if side == 0 {
                    slot.0 = Some(change);
                } else {
                    slot.1 = Some(change);
                }
            }
        }
    }
    let items = by_index.into_iter().filter_map(|(index, pair)| {
        let change = match pair {
            (Some(ours), Some(theirs)) => rules.both(index, ours, theirs),
            (Some(ours), None) => {
                if rules.replaces(&ours) && reached_theirs.contains(&index) {
                    rules.removed_edited(index, true);
                }
                rules.alone(index, ours, true)
            }
            (None, Some(theirs)) if rules.replaces(&theirs) && reached_ours.contains(&index) => {
                rules.removed_edited(index, false);
                return None;
            }
            (None, Some(theirs)) => rules.alone(index, theirs, false),
            (None, None) => return None,
        };
        Some(Item::Old(index, Some(change)))
    });
    Edit { rebuild: false, items: items.collect() }
}

/// One side's rebuild with the other's changes in place carried onto the elements it keeps. An
/// element the rebuild removed and the other side changed is a conflict: ours' choice stands (a
/// removal by ours, or ours' changed element put back after the kept element before it).
fn onto_rebuild<E: Clone, N>(
    rules: &mut impl Rules<E, N>,
    rebuilt: Edit<E, N>,
    in_place: Edit<E, N>,
    rebuilt_is_ours: bool,
    (reached_rebuilt, reached_in_place): (&AHashSet<u32>, &AHashSet<u32>),
) -> Edit<E, N> {
    let mut changes: BTreeMap<u32, E> = BTreeMap::new();
    for item in in_place.items {
        if let Item::Old(index, Some(change)) = item {
            changes.insert(index, change);
        }
    }
    let kept: AHashSet<u32> = rebuilt.items.iter().filter_map(|item| old_index(item)).collect();
    let mut items = Vec::with_capacity(rebuilt.items.len());
    for item in rebuilt.items {
        items.push(match item {
            Item::Old(index, change) => {
                let mut other = changes.remove(&index);
                if other.as_ref().is_some_and(|other| rules.replaces(other)) && reached_rebuilt.contains(&index) {
                    // The other side replaces what the rebuilding side reaches through it.
                    rules.removed_edited(index, !rebuilt_is_ours);
                    if rebuilt_is_ours {
                        other = None;
                    }
                }
                let change = match (change, other) {
                    (Some(mine), Some(other)) if rebuilt_is_ours => Some(rules.both(index, mine, other)),
                    (Some(mine), Some(other)) => Some(rules.both(index, other, mine)),
                    (Some(mine), None) => Some(rules.alone(index, mine, rebuilt_is_ours)),
                    (None, Some(other)) => Some(rules.alone(index, other, !rebuilt_is_ours)),
                    (None, None) => None,
                };
                Item::Old(index, change)
            }
            new => new,
        });
    }
    let mut removed: Vec<u32> = changes.keys().copied().collect();
    removed
        .extend(reached_in_place.iter().copied().filter(|index| !kept.contains(index) && !changes.contains_key(index)));
    removed.sort_unstable();
    for index in removed {
        rules.removed_edited(index, rebuilt_is_ours);
        if !rebuilt_is_ours {
            // Ours changed it and theirs removed it: ours' element stays, before the kept element
            // after it (the rebuild keeps old elements in order, so the place is one), after what
            // the rebuild inserts there, as a merge of two rebuilds places it.
            let at =
                items.iter().position(|item| old_index(item).is_some_and(|kept| kept > index)).unwrap_or(items.len());
            items.insert(at, Item::Old(index, changes.remove(&index)));
        }
    }
    Edit { rebuild: true, items }
}

/// Both rebuilt, each keeping old elements in order: the three-way merge of two sequences.
fn both_rebuilt<E: Clone, N: PartialEq>(
    rules: &mut impl Rules<E, N>,
    ours: Edit<E, N>,
    theirs: Edit<E, N>,
    reached_ours: &AHashSet<u32>,
    reached_theirs: &AHashSet<u32>,
) -> Edit<E, N> {
    let (mut ours_kept, mut ours_new) = split(ours);
    let (mut theirs_kept, mut theirs_new) = split(theirs);
    settle_replacements(rules, (&ours_kept, &ours_new), (&mut theirs_kept, &mut theirs_new));
    let mut olds: Vec<u32> = ours_kept.keys().chain(theirs_kept.keys()).copied().collect();
    // Elements both removed are gone; one that ours removed and theirs reached is a conflict.
    olds.extend(reached_theirs.iter().filter(|index| !ours_kept.contains_key(index)));
    olds.extend(reached_ours.iter().filter(|index| !theirs_kept.contains_key(index)));
    olds.extend(ours_new.keys().chain(theirs_new.keys()).flatten());
    olds.sort_unstable();
    olds.dedup();
    let mut items = Vec::new();
    let mut inserted = |items: &mut Vec<Item<E, N>>, after: Option<u32>| {
        items.extend(ours_new.remove(&after).into_iter().flatten().map(Item::New));
        items.extend(theirs_new.remove(&after).into_iter().flatten().map(Item::New));
    };
    inserted(&mut items, None);
    for index in olds {
        let kept = match (ours_kept.remove(&index), theirs_kept.remove(&index)) {
            (Some(ours), Some(theirs)) => Some(match (ours, theirs) {
                (Some(ours), Some(theirs)) => Some(rules.both(index, ours, theirs)),
                (Some(ours), None) => Some(rules.alone(index, ours, true)),
                (None, Some(theirs)) => Some(rules.alone(index, theirs, false)),
                (None, None) => None,
            }),
            (Some(ours), None) => {
                let edited = ours.as_ref().is_some_and(|change| rules.changes(change)) || reached_ours.contains(&index);
                if edited {
                    rules.removed_edited(index, false);
                    Some(ours)
                } else {
                    None
                }
            }
            (None, theirs) => {
                let edited = theirs.flatten().is_some_and(|change| rules.changes(&change));
                if edited || reached_theirs.contains(&index) {
                    rules.removed_edited(index, true);
                }
                None
            }
        };
        if let Some(change) = kept {
            items.push(Item::Old(index, change));
        }
        inserted(&mut items, Some(index));
    }
    Edit { rebuild: true, items }
}

/// A stretch of old elements a rebuild replaces: those between two it keeps (`lo..hi`), and what
/// it puts there, after the kept element `anchor`.
struct Hunk {
    anchor: Option<u32>,
    lo: u32,
    hi: u32,
}

/// The stretches a rebuild changes: for each kept element (and the start), the old elements up
/// to the next kept one that it removes (those past the last kept one as far as `end`, the
/// elements known to exist), with whether it inserts there.
fn hunks<E, N>(kept: &BTreeMap<u32, Option<E>>, new: &BTreeMap<Option<u32>, Vec<N>>, end: u32) -> Vec<(Hunk, bool)> {
    let anchors = std::iter::once(None).chain(kept.keys().map(|&index| Some(index)));
    let mut nexts = kept.keys().copied().chain(std::iter::once(end));
    anchors
        .map(|anchor| {
            let lo = anchor.map_or(0, |index| index + 1);
            let hi = nexts.next().unwrap_or(end).max(lo);
            (Hunk { anchor, lo, hi }, new.get(&anchor).is_some_and(|new| !new.is_empty()))
        })
        .filter(|(hunk, inserts)| hunk.lo < hunk.hi || *inserts)
        .collect()
}

/// The same change of one stretch made by both sides is made once. For values, where both sides
/// changed one stretch of old elements and one of them put something in its place, the two
/// changes are one only if they are the same; otherwise the conflict keeps ours: theirs'
/// removals there are undone and its insertions there dropped. (Removals alone, or insertions
/// alone, combine; so do objects removed and inserted.)
#[allow(clippy::type_complexity)]
fn settle_replacements<E, N: PartialEq>(
    rules: &mut impl Rules<E, N>,
    (ours_kept, ours_new): (&BTreeMap<u32, Option<E>>, &BTreeMap<Option<u32>, Vec<N>>),
    (theirs_kept, theirs_new): (&mut BTreeMap<u32, Option<E>>, &mut BTreeMap<Option<u32>, Vec<N>>),
) {
    let known =
        ours_kept.keys().chain(theirs_kept.keys()).chain(ours_new.keys().flatten()).chain(theirs_new.keys().flatten());
    let end = known.max().map_or(0, |&most| most + 1);
    let ours_hunks = hunks(ours_kept, ours_new, end);
    let theirs_hunks = hunks(theirs_kept, theirs_new, end);
    for (theirs, theirs_inserts) in &theirs_hunks {
        for (ours, ours_inserts) in &ours_hunks {
            let (lo, hi) = (ours.lo.max(theirs.lo), ours.hi.min(theirs.hi));
            let same_place = ours.anchor == theirs.anchor;
            let same = same_place && ours.lo == theirs.lo && ours.hi == theirs.hi;
            let same_insertions = same_place && ours_new.get(&ours.anchor) == theirs_new.get(&theirs.anchor);
            if same && same_insertions {
                // One change, made by both.
                theirs_new.remove(&theirs.anchor);
                continue;
            }
            if same_place && *ours_inserts && *theirs_inserts && ours.lo == ours.hi && theirs.lo == theirs.hi {
                // Insertions alone at one place: both kept, ours first, unless they are one.
                continue;
            }
            let replaces = (*ours_inserts && ours.lo < ours.hi) || (*theirs_inserts && theirs.lo < theirs.hi);
            if lo < hi && replaces && rules.values() {
                rules.replaced(lo);
                for index in theirs.lo..theirs.hi {
                    if ours_kept.contains_key(&index) {
                        theirs_kept.insert(index, None);
                    }
                }
                theirs_new.remove(&theirs.anchor);
            }
        }
    }
}

/// A rebuild's kept old elements (with their changes) and its new elements, each group by the
/// old element it follows (`None`: the start).
#[allow(clippy::type_complexity)]
fn split<E, N>(edit: Edit<E, N>) -> (BTreeMap<u32, Option<E>>, BTreeMap<Option<u32>, Vec<N>>) {
    let (mut kept, mut new) = (BTreeMap::new(), BTreeMap::<Option<u32>, Vec<N>>::new());
    let mut after = None;
    for item in edit.items {
        match item {
            Item::Old(index, change) => {
                kept.insert(index, change);
                after = Some(index);
            }
            Item::New(element) => new.entry(after).or_default().push(element),
        }
    }
    (kept, new)
}

fn old_index<E, N>(item: &Item<E, N>) -> Option<u32> {
    match item {
        Item::Old(index, _) => Some(*index),
        Item::New(_) => None,
    }
}

/// Whether a rebuild keeps its old elements in their order (moves none).
fn in_order<E, N>(edit: &Edit<E, N>) -> bool {
    let olds: Vec<u32> = edit.items.iter().filter_map(old_index).collect();
    olds.windows(2).all(|pair| pair[0] < pair[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Elements are letters; a change is a string, and two different changes conflict.
    #[derive(Default)]
    struct Letters {
        conflicts: Vec<String>,
    }

    impl Rules<String, char> for Letters {
        fn both(&mut self, index: u32, ours: String, theirs: String) -> String {
            if ours != theirs {
                self.conflicts.push(format!("both {index}"));
            }
            ours
        }
        fn removed_edited(&mut self, index: u32, removed_by_ours: bool) {
            self.conflicts.push(format!("removed {index} by {}", if removed_by_ours { "ours" } else { "theirs" }));
        }
        fn whole(&mut self) {
            self.conflicts.push("whole".into());
        }
        fn replaced(&mut self, index: u32) {
            self.conflicts.push(format!("replaced {index}"));
        }
        fn values(&self) -> bool {
            true
        }
        fn changes(&self, edit: &String) -> bool {
            !edit.is_empty()
        }
        fn replaces(&self, _: &String) -> bool {
            false
        }
    }

    /// A rebuild from a pattern over a base of `0..`: a digit keeps that old element, a digit
    /// followed by `*` keeps and changes it, a letter is new.
    fn rebuild(pattern: &str) -> Edit<String, char> {
        let mut items = Vec::new();
        for c in pattern.chars() {
            match c {
                '0'..='9' => items.push(Item::Old(c.to_digit(10).unwrap(), None)),
                '*' => {
                    if let Some(Item::Old(index, change)) = items.last_mut() {
                        *change = Some(format!("edit {index}"));
                    }
                }
                _ => items.push(Item::New(c)),
            }
        }
        Edit { rebuild: true, items }
    }

    fn shown(edit: &Edit<String, char>) -> String {
        let item = |item: &Item<String, char>| match item {
            Item::Old(index, None) => index.to_string(),
            Item::Old(index, Some(_)) => format!("{index}*"),
            Item::New(c) => c.to_string(),
        };
        edit.items.iter().map(item).collect()
    }

    fn merged(ours: &str, theirs: &str) -> (String, Vec<String>) {
        let mut rules = Letters::default();
        let none = AHashSet::new();
        let edit = merge(&mut rules, rebuild(ours), rebuild(theirs), &none, &none);
        (shown(&edit), rules.conflicts)
    }

    #[test]
    fn insertions_at_one_place_are_both_kept_ours_first() {
        assert_eq!(merged("01a23", "01b23"), ("01ab23".into(), vec![]));
        assert_eq!(merged("x0123", "0123y"), ("x0123y".into(), vec![]));
    }

    #[test]
    fn a_removal_by_either_side_removes() {
        assert_eq!(merged("023", "013"), ("03".into(), vec![]));
        assert_eq!(merged("0123", "0a3"), ("0a3".into(), vec![]));
    }

    #[test]
    fn a_removal_of_what_the_other_side_changed_is_a_conflict_and_ours_stands() {
        assert_eq!(merged("0123", "01*23"), ("01*23".into(), vec![]));
        assert_eq!(merged("023", "01*23"), ("023".into(), vec!["removed 1 by ours".to_string()]));
        assert_eq!(merged("01*23", "023"), ("01*23".into(), vec!["removed 1 by theirs".to_string()]));
    }

    #[test]
    fn one_element_replaced_differently_by_both_is_a_conflict_and_ours_stands() {
        assert_eq!(merged("0a2", "0b2"), ("0a2".into(), vec!["replaced 1".to_string()]));
        // A replacement against a removal of the same element.
        assert_eq!(merged("0a2", "02"), ("0a2".into(), vec!["replaced 1".to_string()]));
        assert_eq!(merged("02", "0b2"), ("02".into(), vec!["replaced 1".to_string()]));
        // The same replacement on both sides is made once; other changes still combine.
        assert_eq!(merged("0a2", "0a2x"), ("0a2x".into(), vec![]));
        assert_eq!(merged("0a23", "012b"), ("0a2b".into(), vec![]));
    }

    #[test]
    fn the_same_insertion_on_both_sides_is_made_once() {
        assert_eq!(merged("01x2", "01x2"), ("01x2".into(), vec![]));
        assert_eq!(merged("012x", "012xy"), ("012xxy".into(), vec![]), "insertions alone are both kept");
        assert_eq!(merged("012x", "012y"), ("012xy".into(), vec![]));
    }

    #[test]
    fn moves_on_both_sides_that_differ_conflict_whole() {
        assert_eq!(merged("2013", "0123a"), ("2013".into(), vec!["whole".to_string()]));
        assert_eq!(merged("2013", "2013"), ("2013".into(), vec![]));
    }

    #[test]
    fn changes_in_place_are_carried_onto_the_other_sides_rebuild() {
        let mut rules = Letters::default();
        let none = AHashSet::new();
        let in_place = Edit {
            rebuild: false,
            items: vec![Item::Old(1, Some("edit 1".into())), Item::Old(2, Some("edit 2".into()))],
        };
        let edit = merge(&mut rules, in_place, rebuild("1a3"), &none, &none);
        assert_eq!(shown(&edit), "1*a2*3");
        assert_eq!(rules.conflicts, vec!["removed 2 by theirs".to_string()]);
    }
}
