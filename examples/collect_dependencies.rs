//! Finds every resource a level depends on by walking the object graph purely through RTTI.
//!
//! The walker below never names a level type: it follows reflectable fields into by-value objects
//! and pointer fields into shared objects (each visited once, however many fields share it, and
//! cycles included), collects every `ResourceHandle`, and honours the `SKIP_REFERENCE_SEARCH` flag.
//!
//! The library packages the same walk as `reflectable::rtti::reachable_shared`; it is spelled out
//! here to show the field API.
//!
//! Run with `cargo run --example collect_dependencies`.

#[path = "common/level.rs"]
mod level;

use level::{build_level, ResourceHandle};
use reflectable::field::{FieldAccess, FieldError, SharedObject, SKIP_REFERENCE_SEARCH};
use reflectable::{Reflectable, RttiType};
use std::collections::HashSet;

/// What a walk found.
#[derive(Default)]
struct Walk {
    handles: Vec<ResourceHandle>,
    visited: HashSet<usize>,
    pending: Vec<SharedObject>,
}

impl Walk {
    /// Visits `root` and everything reachable from it.
    fn run(root: &dyn Reflectable) -> Result<Walk, FieldError> {
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

fn main() {
    let (level, expected) = build_level(200, 7);
    let walk = Walk::run(&level).expect("every field belongs to the section it is read from");

    let mut found = walk.handles.clone();
    found.sort();
    found.dedup();
    let mut wanted = expected.dependencies.clone();
    wanted.sort();
    wanted.dedup();

    println!("level `{}`: {} scene objects, {} components", level.name, expected.scene_objects, expected.components);
    println!("visited {} shared objects, found {} distinct dependencies:", walk.visited.len(), found.len());
    for handle in found.iter().take(12) {
        println!("  {:>6}  {}", handle.uuid, handle.path);
    }
    if found.len() > 12 {
        println!("  ... and {} more", found.len() - 12);
    }

    assert_eq!(walk.visited.len(), expected.shared_objects, "each shared object is visited exactly once");
    assert_eq!(found, wanted, "every handle is found, and skipped fields stay skipped");
    assert!(found.iter().all(|handle| !handle.path.starts_with("editor/")));
    println!("ok: the walk matches what the level was built with");
}
