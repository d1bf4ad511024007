//! The dependency walk of `examples/collect_dependencies.rs`, shared with the tests that run it
//! over other graphs (runtime-defined types among them): it follows reflectable fields into
//! by-value objects and pointer fields into shared objects (each visited once, cycles included),
//! collects every `ResourceHandle`, and honours the `SKIP_REFERENCE_SEARCH` flag. It never names
//! a level type.
#![allow(dead_code)]

use super::level::ResourceHandle;
use reflectable::field::{FieldAccess, FieldError, SharedObject, SKIP_REFERENCE_SEARCH};
use reflectable::{Reflectable, RttiType};
use std::collections::HashSet;

/// What a walk found.
#[derive(Default)]
pub struct Walk {
    pub handles: Vec<ResourceHandle>,
    pub visited: HashSet<usize>,
    pending: Vec<SharedObject>,
}

impl Walk {
    /// Visits `root` and everything reachable from it.
    pub fn run(root: &dyn Reflectable) -> Result<Walk, FieldError> {
        let mut walk = Walk::default();
        walk.object(root)?;
        while let Some(shared) = walk.pending.pop() {
            shared.read(|object| walk.object(object)).expect("pointee is not borrowed during the walk")?;
        }
        Ok(walk)
    }

    /// Every field of every section (own type and embedded bases) of `object`.
    fn object(&mut self, object: &dyn Reflectable) -> Result<(), FieldError> {
        if let Some(handle) = object.downcast_ref::<ResourceHandle>() {
            self.handles.push(handle.clone());
            return Ok(());
        }
        for (rtti, section) in RttiType::sections(object) {
            for field in rtti.fields_of(section).iter().filter(|field| !field.has_flag(SKIP_REFERENCE_SEARCH)) {
                match field.access() {
                    FieldAccess::Plain(_) => {}
                    FieldAccess::Embedded(values) => {
                        let mut result = Ok(());
                        values.for_each(section, &mut |value| {
                            if let (Some(value), Ok(())) = (value, &result) {
                                result = self.object(value);
                            }
                        })?;
                        result?;
                    }
                    FieldAccess::Pointer(pointers) => {
                        pointers.for_each(section, &mut |identity, _only_pointer, handle| {
                            if let Some(identity) = identity {
                                if self.visited.insert(identity) {
                                    self.pending.extend(handle());
                                }
                            }
                        })?;
                    }
                }
            }
        }
        Ok(())
    }
}
