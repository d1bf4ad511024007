//! Three-way merge of object graphs: [`merge`] (and [`merge_with`] for graphs of types defined
//! at run time) combines what two sides changed from one base, the way a version control system
//! merges two branches of a scene file.
//!
//! Both sides are diffed against the base (as [`diff`](super::diff) does, so objects are paired by declared
//! identity, by allocation, then by content, and arrays aligned). The two patches are combined
//! per object, per field, per map key and per aligned array element, and the combination is
//! applied to a copy of the base:
//! - a change only one side made is taken;
//! - elements both sides insert at one place are both kept, ours first;
//! - where both sides change one thing differently, or one side changes what the other removed,
//!   a [`MergeConflict`] is reported and ours' change stands.
//!
//! The merged graph is always a whole graph of the base's type, conflicts or not.

mod combine;
mod holders;
mod sequence;

use super::apply::{located, located_handles, names, ApplyReport};
use super::generate::diff_by_element;
use super::DiffError;
use crate::clone::{CloneError, Cloner};
use crate::field::SharedObject;
use crate::rtti::{Reflectable, Registry};
use ahash::AHashMap;
use std::fmt;

/// What [`merge`] made: the merged graph, the conflicts (where ours' change was kept), and the
/// report of applying the combined changes to the base's copy.
#[derive(Debug)]
#[non_exhaustive]
pub struct Merged<T> {
    /// The base with both sides' changes.
    pub graph: T,
    /// Each place both sides changed differently, or one changed what the other removed.
    pub conflicts: Vec<MergeConflict>,
    /// What the combined changes could not do to the base's copy (complete unless a side's
    /// change cannot be expressed as a patch; see [`ApplyReport`]).
    pub report: ApplyReport,
}

impl<T> Merged<T> {
    /// No conflict, and every change applied.
    pub fn is_clean(&self) -> bool {
        self.conflicts.is_empty() && self.report.is_complete()
    }
}

/// A place both sides of a [`merge`] changed: named as [`AppliedChange`](super::AppliedChange)
/// names a change, with what base, ours and theirs hold there as text where the change shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MergeConflict {
    /// The object: `Type#identity` when its type declares an identity, else its path in the base.
    pub object: String,
    /// The field from the object (`name`, `parameters["speed"]`, `children[2]`), empty for the
    /// object as a whole.
    pub field: String,
    /// What kind of conflict.
    pub kind: ConflictKind,
    /// The base's value, as text, where a side's change shows it.
    pub base: Option<String>,
    /// Ours' value (kept in the merged graph).
    pub ours: Option<String>,
    /// Theirs' value (not taken).
    pub theirs: Option<String>,
}

/// Why a place is in conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConflictKind {
    /// Both sides changed it, differently.
    Changed,
    /// Ours removed it (or the element that holds it); theirs changed it.
    RemovedByOurs,
    /// Theirs removed it; ours changed it.
    RemovedByTheirs,
}

impl fmt::Display for MergeConflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = match self.field.is_empty() {
            true => self.object.clone(),
            false => format!("{}.{}", self.object, self.field),
        };
        let shown = |value: &Option<String>| value.clone().unwrap_or_else(|| "changed".to_owned());
        let to = |value: &Option<String>| value.as_ref().map_or_else(String::new, |value| format!(" to {value}"));
        match self.kind {
            ConflictKind::Changed => write!(
                f,
                "{at}: base {}, ours {}, theirs {} (ours kept)",
                self.base.as_deref().unwrap_or("?"),
                shown(&self.ours),
                shown(&self.theirs)
            ),
            ConflictKind::RemovedByOurs => {
                write!(f, "{at}: ours removed it, theirs changed it{} (removed)", to(&self.theirs))
            }
            ConflictKind::RemovedByTheirs => {
                write!(f, "{at}: theirs removed it, ours changed it{} (ours kept)", to(&self.ours))
            }
        }
    }
}

/// Why two graphs could not be merged at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MergeError {
    /// A side could not be compared with the base (roots of another type, or an object that
    /// cannot be read).
    #[error("{side} cannot be compared with the base: {source}")]
    Diff {
        /// `ours` or `theirs`.
        side: &'static str,
        /// Why.
        #[source]
        source: DiffError,
    },
    /// The base could not be copied to receive the changes.
    #[error("the base cannot be copied: {0}")]
    Clone(#[from] CloneError),
}

/// Merges what `ours` and `theirs` changed from `base` into a new graph (see the module's docs).
///
/// ```
/// use reflectable::diff::merge;
/// use reflectable::Reflectable;
/// use std::collections::BTreeMap;
///
/// #[derive(Reflectable, Default, Clone, Debug, PartialEq)]
/// #[rtti(id = 9862)]
/// struct Lamp {
///     #[rtti(id = 1)]
///     watts: f32,
///     #[rtti(id = 2)]
///     color: String,
///     #[rtti(id = 3)]
///     tags: BTreeMap<String, u32>,
/// }
///
/// let base = Lamp { watts: 40.0, color: "white".into(), ..Default::default() };
/// let ours = Lamp { watts: 60.0, ..base.clone() };
/// let mut theirs = Lamp { color: "amber".into(), ..base.clone() };
/// theirs.tags.insert("hall".into(), 1);
///
/// let merged = merge(&base, &ours, &theirs).unwrap();
/// assert!(merged.is_clean());
/// assert_eq!((merged.graph.watts, merged.graph.color.as_str()), (60.0, "amber"));
/// assert_eq!(merged.graph.tags["hall"], 1);
///
/// // Both change the watts: ours is kept, and the conflict says what each side holds.
/// let theirs = Lamp { watts: 25.0, ..base.clone() };
/// let merged = merge(&base, &ours, &theirs).unwrap();
/// assert_eq!(merged.graph.watts, 60.0);
/// assert_eq!(merged.conflicts[0].to_string(), "$.watts: base 40.0, ours 60.0, theirs 25.0 (ours kept)");
/// ```
pub fn merge<T: Reflectable>(base: &T, ours: &T, theirs: &T) -> Result<Merged<T>, MergeError> {
    let registry = Registry::global();
    let mut graph = Cloner::new().clone_value(base)?;
    let (conflicts, report) = merge_into(base, ours, theirs, &mut graph, registry)?;
    Ok(Merged { graph, conflicts, report })
}

/// [`merge`] for type-erased graphs (objects of types defined at run time, a file loaded without
/// its program), creating objects and casting trait objects with `registry`.
pub fn merge_with(
    base: &dyn Reflectable,
    ours: &dyn Reflectable,
    theirs: &dyn Reflectable,
    registry: &Registry,
) -> Result<Merged<Box<dyn Reflectable>>, MergeError> {
    let mut graph = Cloner::with_registry(registry).clone_object(base)?;
    let (conflicts, report) = merge_into(base, ours, theirs, &mut *graph, registry)?;
    Ok(Merged { graph, conflicts, report })
}

/// Merges into `target`, a copy of `base`.
fn merge_into(
    base: &dyn Reflectable,
    ours: &dyn Reflectable,
    theirs: &dyn Reflectable,
    target: &mut dyn Reflectable,
    registry: &Registry,
) -> Result<(Vec<MergeConflict>, ApplyReport), MergeError> {
    let ours_patch = diff_by_element(base, ours).map_err(|source| MergeError::Diff { side: "ours", source })?;
    let theirs_patch = diff_by_element(base, theirs).map_err(|source| MergeError::Diff { side: "theirs", source })?;
    let ours_side = combine::Side { patch: &ours_patch, keys: located(&ours_patch, base, registry) };
    let theirs_side = combine::Side { patch: &theirs_patch, keys: located(&theirs_patch, base, registry) };
    // Each side's needed objects that the other side's changes leave unheld: conflicts, found
    // exactly here, and kept (ours) or left out (theirs) where the base held them.
    let theirs_gone = removed_by(&ours_patch, &theirs_patch, base, registry)?;
    let ours_gone = removed_by(&theirs_patch, &ours_patch, base, registry)?;
    let lost = |side: &combine::Side<'_>, gone: &[bool]| -> Vec<usize> {
        let needed = combine::needed(side.patch);
        (0..gone.len()).filter(|&index| gone[index] && needed[index]).filter_map(|index| side.keys[index]).collect()
    };
    let (ours_lost, theirs_lost) = (lost(&ours_side, &ours_gone), lost(&theirs_side, &theirs_gone));
    let mut holders = None;
    let (mut extra_ours, extra_theirs) = if ours_lost.is_empty() && theirs_lost.is_empty() {
        Default::default()
    } else {
        let holders = holders.get_or_insert_with(|| holders::strong_holders(base));
        (holders::reach_of(&ours_lost, holders), holders::reach_of(&theirs_lost, holders))
    };
    let (mut merged, mut conflicts) =
        combine::combine(&ours_side, &theirs_side, (&theirs_gone, extra_ours.clone(), extra_theirs.clone()), registry);
    // Changes left out for a conflict can take with them what made another change whole: theirs
    // moved an object into a parent ours removed, and its removal from the old parent alone would
    // lose the object. An object both sides still hold that the merge would not is kept where the
    // base held it (ours' place), as ours' conflicting objects are. Each round keeps more.
    for _ in 0..4 {
        if conflicts.is_empty() {
            break;
        }
        let lost = lost_by_merging(base, [&ours_patch, &theirs_patch], &merged, registry)?;
        if lost.is_empty() {
            break;
        }
        let holders = holders.get_or_insert_with(|| holders::strong_holders(base));
        extra_ours = combine::with(extra_ours, holders::reach_of(&lost, holders));
        let extra = (&theirs_gone[..], extra_ours.clone(), extra_theirs.clone());
        (merged, conflicts) = combine::combine(&ours_side, &theirs_side, extra, registry);
    }
    // Objects are named only when there are conflicts: a name is a path, as long as the graph is
    // deep.
    let named: AHashMap<usize, String> = match conflicts.iter().any(|(key, _)| key.is_some_and(|key| key != 0)) {
        true => names(base)
            .into_iter()
            .map(|(addr, (path, name))| (addr, if name.contains('#') { name } else { path }))
            .collect(),
        false => AHashMap::new(),
    };
    let mut conflicts: Vec<MergeConflict> = conflicts
        .into_iter()
        .map(|(key, mut conflict)| {
            if let Some(key) = key {
                conflict.object = named.get(&key).cloned().unwrap_or_else(|| "$".to_owned());
            }
            conflict
        })
        .collect();
    let report = merged.apply_with(target, registry);
    if !conflicts.is_empty() {
        describe(&mut conflicts, base, (&ours_patch, &theirs_patch), registry)?;
    }
    Ok((conflicts, report))
}

/// For each edit of `edits`, whether its object is one of the base's that `remover`'s patch leaves
/// no longer held: found in a copy of the base, then `remover` applied to the copy, then looked
/// for among the objects its root holds. Exact where a patch's paths are not (an object moved
/// elsewhere is still held; one reached another way is not).
fn removed_by(
    remover: &super::Patch,
    edits: &super::Patch,
    base: &dyn Reflectable,
    registry: &Registry,
) -> Result<Vec<bool>, MergeError> {
    let mut copy = Cloner::with_registry(registry).clone_object(base)?;
    // Held through the apply, so no address is reused by an object the patch makes.
    let found = located_handles(edits, &*copy, registry);
    let _ = remover.apply_with(&mut *copy, registry);
    let held: ahash::AHashSet<usize> = strongly_held(&*copy).iter().map(SharedObject::addr).collect();
    let gone = found.iter().map(|handle| handle.as_ref().is_some_and(|handle| !held.contains(&handle.addr())));
    let gone = gone.collect();
    drop(found);
    drop_flat(copy);
    Ok(gone)
}

/// The base objects (by address) that both sides still hold and `merged` applied to the base
/// would not: lost by combining the sides' changes.
fn lost_by_merging(
    base: &dyn Reflectable,
    sides: [&super::Patch; 2],
    merged: &super::Patch,
    registry: &Registry,
) -> Result<Vec<usize>, MergeError> {
    let [ours, theirs] = sides;
    let (held_ours, held_theirs) = (held_after(ours, base, registry)?, held_after(theirs, base, registry)?);
    let held_merged = held_after(merged, base, registry)?;
    let mut lost: Vec<usize> =
        held_ours.intersection(&held_theirs).filter(|addr| !held_merged.contains(*addr)).copied().collect();
    lost.sort_unstable();
    Ok(lost)
}

/// The base objects (by address) still held once `patch` is applied to a copy of the base. The
/// copy's objects are matched to the base's by walking both, in one order, before the apply.
fn held_after(
    patch: &super::Patch,
    base: &dyn Reflectable,
    registry: &Registry,
) -> Result<ahash::AHashSet<usize>, MergeError> {
    let mut copy = Cloner::with_registry(registry).clone_object(base)?;
    let originals = strongly_held(base);
    // Held through the apply, so no address is reused by an object the patch makes.
    let copies = strongly_held(&*copy);
    let base_of: AHashMap<usize, usize> =
        copies.iter().zip(&originals).map(|(copy, original)| (copy.addr(), original.addr())).collect();
    drop(originals);
    let _ = patch.apply_with(&mut *copy, registry);
    let held = strongly_held(&*copy).iter().filter_map(|object| base_of.get(&object.addr()).copied()).collect();
    drop(copies);
    drop_flat(copy);
    Ok(held)
}

/// The shared objects the root holds through strong pointers, in the walk's order (one order for
/// a graph and its clone).
fn strongly_held(root: &dyn Reflectable) -> Vec<SharedObject> {
    use crate::rtti::{Flow, GraphWalker};
    let mut found = Vec::new();
    // A graph that cannot be read whole (an object locked elsewhere) is as far as it was read.
    let _ = GraphWalker::new().walk(root, |visit| {
        if let Some(shared) = visit.shared {
            found.push(shared.clone());
        }
        Ok::<_, std::convert::Infallible>(Flow::Continue)
    });
    found
}

/// Drops a copy the merge made without recursing down its chains: every editable object's
/// pointers are cleared first, so each drops alone (a 100,000-link list would otherwise overflow
/// the stack as Rust drops it link by link).
fn drop_flat(copy: Box<dyn Reflectable>) {
    let objects = crate::rtti::graph::reachable_shared(&*copy);
    for object in &objects {
        crate::rtti::graph::clear_shared(object);
    }
    drop(copy);
    drop(objects);
}

/// A side's described changes: what the field held and holds, by object and field.
type Described = AHashMap<(String, String), (Option<String>, Option<String>)>;

/// Fills in what base, ours and theirs hold at each conflict, from each side's patch applied,
/// described, to a copy of the base.
fn describe(
    conflicts: &mut [MergeConflict],
    base: &dyn Reflectable,
    (ours, theirs): (&super::Patch, &super::Patch),
    registry: &Registry,
) -> Result<(), MergeError> {
    let cloner = Cloner::with_registry(registry);
    let changes = |patch: &super::Patch| -> Result<Described, MergeError> {
        let mut copy = cloner.clone_object(base)?;
        let (_, changes) = patch.apply_described(&mut *copy, registry);
        drop_flat(copy);
        Ok(changes.into_iter().map(|change| ((change.object, change.field), (change.from, change.to))).collect())
    };
    let (ours, theirs) = (changes(ours)?, changes(theirs)?);
    for conflict in conflicts {
        let at = (conflict.object.clone(), conflict.field.clone());
        let (ours, theirs) = (ours.get(&at), theirs.get(&at));
        conflict.base = ours.or(theirs).and_then(|(from, _)| from.clone());
        conflict.ours = ours.and_then(|(_, to)| to.clone()).or_else(|| removed(conflict.kind, true));
        conflict.theirs = theirs.and_then(|(_, to)| to.clone()).or_else(|| removed(conflict.kind, false));
    }
    Ok(())
}

/// What a side that removed the place holds there.
fn removed(kind: ConflictKind, ours: bool) -> Option<String> {
    match (kind, ours) {
        (ConflictKind::RemovedByOurs, true) | (ConflictKind::RemovedByTheirs, false) => Some("removed".to_owned()),
        _ => None,
    }
}
