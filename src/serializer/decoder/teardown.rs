//! What the decoder lets go of: the objects of a failed decode (pointers cleared, then dropped
//! parents first so no drop frees a whole chain), the orphans of a successful one (the same),
//! and a graph whose drop would recurse deeper than the stack allows (`drop_depth.rs`).

use super::drop_depth::link_stack;
use super::strong_edges::{Link, StrongEdges, StrongGraph};
use super::{Decoder, State};
use crate::field::SharedObject;
use crate::rtti::{graph, Reflectable};
use crate::serializer::DecodeEvent;
use crate::wire::error::{DecodeError, DecodeErrorKind};

impl Decoder<'_, '_> {
    /// After a failure: empties the pointer fields of every changeable object built so far, so
    /// that cycles among them cannot keep the abandoned graph alive, then lets go of the objects
    /// parents first, so that no drop frees a whole chain at once, however long a chain (or
    /// deeply nested a link) the stream built.
    pub(super) fn release(&mut self) {
        self.release_except(&Default::default());
        self.drop_parents_first();
    }

    /// Marks instance `index` as the target of a `Weak`.
    #[inline]
    pub(super) fn weak_target(&mut self, index: usize) {
        if self.weak_targets.len() <= index {
            self.weak_targets.resize(self.states.len().max(index + 1), false);
        }
        self.weak_targets[index] = true;
    }

    /// After success: reports the targets of `Weak`s that nothing in the result holds strongly
    /// (the decoder's handle is the last: an object a save reached through a `Weak` alone, one
    /// an asset held, a caller's object made fresh for a `Weak`), which letting go frees, so
    /// those `Weak`s are dead after the load. Then, when the decoder's handle is the last one to
    /// some object (such a target, or one held by a pointer a field stored twice replaced), lets
    /// go of its handles parents first, as after a failure. Otherwise letting go frees nothing.
    pub(super) fn let_go(&mut self) -> Result<(), DecodeError> {
        let last = |state: &State| match state {
            State::Ready(shared) | State::External(shared) => shared.strong_count() == 1,
            _ => false,
        };
        let unheld = self.weak_targets.iter().zip(&self.states).skip(1).filter(|&(&weak, state)| weak && last(state));
        let unheld = unheld.count();
        self.record(DecodeEvent::ObjectsUnheld, unheld as u64, self.data.len())?;
        let orphans =
            self.states.iter().skip(1).any(|state| matches!(state, State::Ready(shared) if shared.strong_count() == 1));
        if orphans {
            self.drop_parents_first();
        }
        Ok(())
    }

    /// Drops the decoder's handles each before those of the objects it points at, by the
    /// pointers the objects hold (the stored ones may be more, or, after a hook, others): each
    /// drop then frees at most its own object.
    fn drop_parents_first(&mut self) {
        let order = self.walked_graph(None, Link::anywhere()).parents_first();
        let mut states: Vec<Option<State>> = std::mem::take(&mut self.states).into_iter().map(Some).collect();
        for index in order {
            states[index as usize] = None;
        }
    }

    /// The stored strong pointers as a graph, built on first use.
    fn strong_graph(&mut self) -> &StrongGraph {
        let count = self.states.len();
        self.strong_graph.get_or_insert_with(|| self.strong_edges.graph(count))
    }

    /// Which instances the root holds through the stored strong pointers, found on first use.
    fn reached(&mut self) -> &[bool] {
        if self.reached.is_none() {
            self.reached = Some(self.strong_graph().reachable_from_root());
        }
        self.reached.as_deref().unwrap_or_default()
    }

    /// Empties the pointer fields of every changeable object built that is not in `keep`.
    fn release_except(&self, keep: &ahash::AHashSet<usize>) {
        for state in &self.states {
            if let State::Ready(shared) = state {
                if !keep.contains(&shared.addr()) {
                    graph::clear_shared(shared);
                }
            }
        }
    }

    /// After success: releases built objects the result does not hold strongly, if there can be
    /// any, so their cycles cannot leak.
    pub(super) fn sweep_orphans(&mut self, root: Option<&dyn Reflectable>, shared_root: Option<&SharedObject>) {
        if self.orphans_possible || (self.weak_built && self.hooks_ran) {
            self.release_except(&graph::strongly_reachable(root, shared_root));
        } else if self.weak_built {
            self.reached();
            let reached = self.reached.as_deref().unwrap_or_default();
            for (state, &reached) in self.states.iter().zip(reached) {
                if let (State::Ready(shared), false) = (state, reached) {
                    graph::clear_shared(shared);
                }
            }
        }
    }

    /// Refuses a graph whose drop would take more stack than
    /// [`Limits::drop_stack_limit`](crate::serializer::Limits::drop_stack_limit) allows, played
    /// through on the stored pointers (`drop_depth.rs`). Those are the graph's own unless
    /// something else changed it: a hook, a migration, a refused or overwritten pointer (told by
    /// the objects' reference counts); then the pointers are gathered from the objects
    /// themselves, in no known order. `root` is the root by value (a shared root is instance 0).
    pub(super) fn check_drop(&mut self, root: Option<&dyn Reflectable>) -> Result<(), DecodeError> {
        let worst = self.strong_edges.worst_link();
        let Some(worst) = worst else { return Ok(()) };
        // A drop recurses through each object once at most, and through each pointer.
        let links = (self.strong_edges.len() + 1).min(self.states.len());
        let limit = self.limits.drop_stack_limit();
        if links.saturating_mul(link_stack(worst)) <= limit {
            return Ok(());
        }
        let deepest = if self.hooks_ran || self.orphans_possible || !self.counts_match() {
            // Objects the root does not reach are let go of before the caller has the graph
            // (orphans, however they came about): they hold nothing at the drop.
            let walked = self.walked_graph(root, worst);
            let live = walked.reachable_from_root();
            walked.drop_depth(0, Some(&live))
        } else {
            if self.weak_built {
                self.reached();
            }
            let graph = self.strong_graph.as_ref().expect("built by counts_match");
            graph.drop_depth(0, self.reached.as_deref())
        };
        if deepest.stack > limit {
            let kind = DecodeErrorKind::DropTooDeep { length: deepest.objects, stack: deepest.stack, limit };
            return Err(DecodeError::new(kind, None));
        }
        Ok(())
    }

    /// Whether every built object is held by the decoder and by the stored pointers to it, and
    /// nothing else.
    fn counts_match(&mut self) -> bool {
        let count = self.states.len();
        let mut holders = vec![1usize; count];
        let graph = self.strong_graph();
        for node in 0..count as u32 {
            for &target in graph.targets(node) {
                holders[target as usize] += 1;
            }
        }
        self.states.iter().zip(holders).skip(1).all(|(state, holders)| match state {
            State::Ready(shared) => shared.strong_count() == holders,
            _ => true,
        })
    }

    /// The strong pointers of the built objects as they are, every one at `worst`'s cost and in
    /// no known order.
    fn walked_graph(&self, root: Option<&dyn Reflectable>, worst: Link) -> StrongGraph {
        let index: ahash::AHashMap<usize, usize> = self
            .states
            .iter()
            .enumerate()
            .filter_map(|(index, state)| match state {
                State::Ready(shared) => Some((shared.addr(), index)),
                _ => None,
            })
            .collect();
        let anywhere = Link::at(None, worst.nesting(), worst.is_array_element());
        let mut edges = StrongEdges::default();
        let mut gather = |from: usize, object: &dyn Reflectable| {
            // A field that cannot be read holds nothing the drop could follow further.
            let _ = graph::strong_targets(object, &mut |addr| {
                if let Some(&to) = index.get(&addr) {
                    edges.push_at(from, to, anywhere);
                }
            });
        };
        if let Some(root) = root {
            gather(0, root);
        }
        for (from, state) in self.states.iter().enumerate() {
            if let State::Ready(shared) = state {
                let _ = shared.read(|object| gather(from, object));
            }
        }
        edges.graph(self.states.len())
    }
}
