//! The dependency walk of `examples/collect_dependencies.rs`, shared with the tests that run it
//! over other graphs (runtime-defined types among them): every `ResourceHandle` reachable from a
//! root, through by-value objects and pointers (each shared object once, cycles included), except
//! under fields flagged `SKIP_REFERENCE_SEARCH`. It never names a level type.
#![allow(dead_code)]

use super::level::ResourceHandle;
use reflectable::field::SKIP_REFERENCE_SEARCH;
use reflectable::rtti::{Flow, GraphWalker, WalkError};
use reflectable::Reflectable;
use std::collections::HashSet;
use std::convert::Infallible;

/// What a walk found: the handles, and the identities of the shared objects it went through.
#[derive(Default)]
pub struct Walk {
    pub handles: Vec<ResourceHandle>,
    pub visited: HashSet<usize>,
}

impl Walk {
    /// Visits `root` and everything reachable from it.
    pub fn run(root: &dyn Reflectable) -> Result<Walk, WalkError<Infallible>> {
        let mut walk = Walk::default();
        GraphWalker::new().skip_flags(SKIP_REFERENCE_SEARCH).walk(root, |visit| {
            walk.visited.extend(visit.shared.map(|shared| shared.addr()));
            let Some(handle) = visit.object.downcast_ref::<ResourceHandle>() else { return Ok(Flow::Continue) };
            walk.handles.push(handle.clone());
            Ok(Flow::SkipFields)
        })?;
        Ok(walk)
    }
}
