//! Running deserialization hooks, for the decoder and the cloner alike: started before an
//! object's fields, ended after the whole graph, bases before derived types.

use crate::rtti::{Reflectable, RttiType};
use smallvec::SmallVec;
use std::any::Any;

/// Calls `f` on each section of `object`, bases first.
#[inline(never)]
fn sections_base_first(object: &mut dyn Reflectable, mut f: impl FnMut(&'static RttiType, &mut dyn Reflectable)) {
    let chain: SmallVec<[&'static RttiType; 4]> = object.rtti().chain().collect();
    for (index, rtti) in chain.iter().enumerate().rev() {
        f(rtti, RttiType::section_mut(object, index).expect("the chain came from the object"));
    }
}

/// Runs the `deserialization_started` hooks, bases first; `true` when there were any.
#[inline]
pub(crate) fn start_hooks(object: &mut dyn Reflectable, context: &mut dyn Any) -> bool {
    let any = object.rtti().chain_hooks() & 1 != 0;
    if any {
        sections_base_first(object, |rtti, section| rtti.hooks().deserialization_started(section, context));
    }
    any
}

/// `true` when `rtti` or one of its bases has a `deserialization_ended` hook.
#[inline]
pub(crate) fn has_end_hooks(rtti: &'static RttiType) -> bool {
    rtti.chain_hooks() & 2 != 0
}

/// Runs the `deserialization_ended` hooks, bases first; `true` when there were any.
#[inline]
pub(crate) fn finish_hooks(object: &mut dyn Reflectable, context: &mut dyn Any) -> bool {
    let any = has_end_hooks(object.rtti());
    if any {
        sections_base_first(object, |rtti, section| rtti.hooks().deserialization_ended(section, context));
    }
    any
}
