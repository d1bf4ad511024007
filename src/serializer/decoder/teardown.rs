//! What the decoder lets go of: the objects of a failed decode (pointers cleared, then dropped
//! parents first so no drop frees a whole chain), the orphans of a successful one, and a graph
//! whose chain of strong pointers is too long to drop.

use super::strong_edges::StrongGraph;
use super::{Decoder, State};
use crate::field::SharedObject;
use crate::rtti::{graph, Reflectable};
use crate::serializer::error::{DecodeError, DecodeErrorKind};

/// Objects few enough that freeing them all in one cascade needs no care: far below any stack's
/// limit.
const SHORT_CHAIN: usize = 256;

impl Decoder<'_, '_> {
    /// After a failure: empties the pointer fields of every changeable object built so far, so
    /// that cycles among them cannot keep the abandoned graph alive, then lets go of the objects
    /// parents first, so that no drop frees a whole chain at once (however long a chain the
    /// stream built, even one over [`Limits::max_pointer_chain`]).
    pub(super) fn release(&mut self) {
        self.release_except(&Default::default());
        if self.states.len() > SHORT_CHAIN {
            let order = self.strong_graph().parents_first();
            let mut states: Vec<Option<State>> = std::mem::take(&mut self.states).into_iter().map(Some).collect();
            for index in order {
                states[index as usize] = None;
            }
        }
    }

    /// The stored strong pointers as a graph, built on first use.
    fn strong_graph(&mut self) -> &StrongGraph {
        let count = self.states.len();
        self.strong_graph.get_or_insert_with(|| self.strong_edges.graph(count))
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

    /// After success: releases built objects the result does not hold strongly, if there can be any.
    pub(super) fn sweep_orphans(&mut self, root: Option<&dyn Reflectable>, shared_root: Option<&SharedObject>) {
        if self.orphans_possible || (self.weak_built && self.hooks_ran) {
            self.release_except(&graph::strongly_reachable(root, shared_root));
        } else if self.weak_built {
            let reached = self.strong_graph().reachable_from_root();
            for (state, reached) in self.states.iter().zip(reached) {
                if let (State::Ready(shared), false) = (state, reached) {
                    graph::clear_shared(shared);
                }
            }
        }
    }

    /// Refuses a graph whose longest chain of strong pointers is longer than
    /// [`Limits::max_pointer_chain`]: dropping it would recurse once per link. A graph with no
    /// more objects than the limit cannot hold such a chain, and is not searched.
    pub(super) fn check_chains(&mut self) -> Result<(), DecodeError> {
        let limit = self.limits.max_pointer_chain;
        if self.states.len() <= limit {
            return Ok(());
        }
        let longest = self.strong_graph().longest_chain();
        if longest > limit {
            return Err(DecodeError::new(DecodeErrorKind::PointerChainTooLong { length: longest, limit }, None));
        }
        Ok(())
    }
}
