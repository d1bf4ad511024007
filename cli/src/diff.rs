//! `reflectable diff`: what changed between two saves, as the library's `diff` sees it. Both files
//! are read into objects of types defined from their schema tables (this program has none of
//! their types), the library's `diff` pairs their objects (by declared identity, by allocation,
//! then by content, with arrays aligned), and the patch is applied to the old graph with each
//! change described: one line per field set, element removed or added. An object is named by
//! its identity where its type declares one (`SceneObject#11`), else by its path in the old file.

use crate::load::{explain, Failure, Loaded};
use reflectable::diff::diff;
use reflectable::rtti::{Flow, GraphWalker, Registry};
use reflectable::serializer::BinarySerializer;
use reflectable::Reflectable;
use std::io::Write;

/// Prints the differences; `true` when there are any.
pub fn print(old: &Loaded, new: &Loaded, out: &mut dyn Write) -> Result<bool, Failure> {
    // No registered type stands in for a file's own: each is defined from the file's table.
    let empty = Registry::new();
    let (mut old_root, new_root) = (objects(old, &empty)?, objects(new, &empty)?);
    let patch = diff(&*old_root, &*new_root).map_err(|error| format!("the files cannot be compared: {error}"))?;
    // Objects the patch creates are made as the new file's types.
    let types = types_of(&*new_root);
    let (report, changes) = patch.apply_described(&mut *old_root, &types);
    for change in &changes {
        writeln!(out, "{change}")?;
    }
    if !report.is_complete() {
        writeln!(out, "(some differences could not be described: {report})")?;
    }
    let differs = !changes.is_empty() || !report.is_complete();
    if !differs {
        writeln!(out, "no differences: {} objects", old.graph.objects().len())?;
    }
    // As the loaded graphs are, the objects are left to the end of the process.
    std::mem::forget((old_root, new_root));
    Ok(differs)
}

/// The file's objects, of types defined from its schema table.
fn objects(loaded: &Loaded, empty: &Registry) -> Result<Box<dyn Reflectable>, Failure> {
    let serializer = BinarySerializer::with_registry(empty).keep_unknown_types(true);
    serializer.decode(&loaded.bytes).map_err(|error| explain(&loaded.bytes, &error).into())
}

/// A registry of the types of every object under `root`.
fn types_of(root: &dyn Reflectable) -> Registry {
    let mut registry = Registry::new();
    let walker = GraphWalker::new().follow_weak(true);
    let _ = walker.walk(root, |visit| {
        if registry.get(visit.object.rtti().id()).is_none() {
            // A type the registry cannot take (a reserved ID) is simply left out.
            let _ = registry.register(visit.object.rtti());
        }
        Ok::<_, std::convert::Infallible>(Flow::Continue)
    });
    registry
}
