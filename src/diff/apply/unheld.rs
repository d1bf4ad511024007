//! Objects a patch created that nothing holds. A valid patch points at every object it creates;
//! a damaged or hostile one can create objects that only point at each other, and dropping the
//! applier's handles would leak such a cycle. They are found by trial deletion over the created
//! objects alone (no walk of the graph): an object held from outside the created set (by the
//! graph, or by the caller) is live, and so is every created object a live one points at; the
//! rest is held only by the applier and by each other, and their pointers are cleared. Each is
//! reported: what the patch made is gone (a valid patch whose only pointers to an object are
//! `Weak`s makes one such, when the target it named was an object outside the patched graph).
//! So is an object the patch found and edited that only the applier holds at the end: it stood
//! for an object of the new graph, and is gone.

use super::{Applier, ApplyProblemKind};
use crate::diff::patch::Origin;
use crate::field::SharedObject;
use crate::rtti::graph::{clear_shared, strong_targets};
use ahash::AHashMap;

impl Applier<'_> {
    /// Clears the pointers of the created objects nothing outside them holds.
    pub(super) fn release_unheld(&mut self) {
        // Borrowed, not cloned: a clone of a `SharedObject` is one more strong handle.
        let (edits, created): (Vec<usize>, Vec<&SharedObject>) = (self.patch.objects.iter().zip(&self.handles))
            .enumerate()
            .filter(|(_, (edit, _))| matches!(edit.origin, Origin::Created { .. }))
            .filter_map(|(at, (_, handle))| Some((at, handle.as_ref()?)))
            .unzip();
        let mut gone = Vec::new();
        if !created.is_empty() {
            let position: AHashMap<usize, usize> = created.iter().enumerate().map(|(at, c)| (c.addr(), at)).collect();
            // Strong pointers between created objects; an object that cannot be read counts as held.
            let mut targets: Vec<Vec<usize>> = vec![Vec::new(); created.len()];
            let mut from_created = vec![0usize; created.len()];
            let mut unreadable = vec![false; created.len()];
            for (at, object) in created.iter().enumerate() {
                let read = object.read(|object| {
                    strong_targets(object, &mut |identity| {
                        if let Some(&target) = position.get(&identity) {
                            targets[at].push(target);
                            from_created[target] += 1;
                        }
                    })
                });
                unreadable[at] = !matches!(read, Ok(Ok(())));
            }
            // Held from outside: more strong handles than the applier's own (one per created object)
            // and the created objects' pointers.
            let mut live: Vec<bool> = (0..created.len())
                .map(|at| unreadable[at] || created[at].strong_count() > 1 + from_created[at])
                .collect();
            let mut stack: Vec<usize> = (0..created.len()).filter(|&at| live[at]).collect();
            while let Some(at) = stack.pop() {
                for &target in &targets[at] {
                    if !live[target] {
                        live[target] = true;
                        stack.push(target);
                    }
                }
            }
            for ((object, live), &edit) in created.iter().zip(live).zip(&edits) {
                if !live {
                    clear_shared(object);
                    gone.push(edit);
                }
            }
        }
        // A found object stands for an object of the new graph: one the patch leaves held by
        // nothing but the applier (its last strong pointer replaced, only `Weak`s left) is gone
        // too.
        for (at, (edit, handle)) in self.patch.objects.iter().zip(&self.handles).enumerate() {
            let found = matches!(edit.origin, Origin::Found { .. } | Origin::External);
            if found && handle.as_ref().is_some_and(|handle| handle.strong_count() == 1) {
                gone.push(at);
            }
        }
        for edit in gone {
            self.problem(edit, None, ApplyProblemKind::Unheld);
        }
    }
}
