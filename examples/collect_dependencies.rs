//! Finds every resource a level depends on by walking the object graph purely through RTTI.
//!
//! The walk (`common/dependencies.rs`, seven lines on `reflectable::rtti::GraphWalker`) never
//! names a level type: the walker follows reflectable fields into by-value objects and pointer
//! fields into shared objects (each visited once, however many fields share it, and cycles
//! included); the walk collects every `ResourceHandle` and skips fields flagged
//! `SKIP_REFERENCE_SEARCH`.
//!
//! The level here holds its resources as handles by value. A level whose resources are assets
//! (pointers to types with an `asset_key`) lists them from the file alone and from the loaded
//! graph: see `examples/assets.rs`.
//!
//! Run with `cargo run --example collect_dependencies`.

#[path = "common/dependencies.rs"]
mod dependencies;
#[path = "common/level.rs"]
mod level;

use dependencies::Walk;
use level::build_level;

fn main() {
    let (level, expected) = build_level(200, 7);
    let walk = Walk::run(&level).expect("nothing in the level is borrowed during the walk");

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
