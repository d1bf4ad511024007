//! `reflectable diff`: what changed between two saves, as the library's `diff` sees it. The new
//! file is read into objects of types defined from its schema table (this program has none of
//! their types), and the old file into those same types, as a program of the new file's types
//! loads an old save (fields the new types lack are reported). The library's `diff` pairs their
//! objects (by declared identity, by allocation, then by content, with arrays aligned), and the
//! patch is applied to the old graph with each change described: one line per field set,
//! element removed or added. An object is named by its identity where its type declares one
//! (`SceneObject#11`), else by its path in the old file. Files that do not describe their types
//! are compared as their streams hold them (`by_position.rs`).

mod by_position;

use crate::load::{objects, types_of, Failure, Loaded};
use reflectable::diff::{diff, DiffError};
use reflectable::rtti::Registry;
use std::io::Write;

/// Prints the differences; `true` when there are any.
pub fn print(old: &Loaded, new: &Loaded, out: &mut dyn Write) -> Result<bool, Failure> {
    if [old, new].iter().any(|loaded| loaded.graph.version() < 3 || loaded.graph.fingerprints().is_some()) {
        return Ok(by_position::print(old, new, out)?);
    }
    // No registered type stands in for the new file's own: they are defined from its table, and
    // the old file is read into them.
    let new_root = objects(new, &Registry::new())?.0;
    let types = types_of(&*new_root);
    let (mut old_root, lost) = objects(old, &types)?;
    if !lost.is_empty() {
        writeln!(out, "(the old file holds what the new file's types lack: {lost})")?;
    }
    let patch = match diff(&*old_root, &*new_root) {
        Ok(patch) => patch,
        // Roots of two types are a difference, as the file of another level is.
        Err(error @ DiffError::RootTypes { .. }) => {
            writeln!(out, "$: {error}")?;
            std::mem::forget((old_root, new_root));
            return Ok(true);
        }
        Err(error) => return Err(format!("the files cannot be compared: {error}").into()),
    };
    let (report, changes) = patch.apply_described(&mut *old_root, &types);
    for change in &changes {
        writeln!(out, "{change}")?;
    }
    if !report.is_complete() {
        writeln!(out, "(some differences could not be described: {report})")?;
    }
    // A patch that changes only what the words leave out (objects moved in an array of values
    // compared in place) still says the files differ.
    let differs = !patch.is_empty() || !changes.is_empty() || !report.is_complete() || !lost.is_empty();
    if differs && changes.is_empty() && report.is_complete() && lost.is_empty() {
        writeln!(out, "(the files differ in ways a patch holds but no line above shows)")?;
    }
    if !differs {
        writeln!(out, "no differences: {} objects", old.graph.objects().len())?;
    }
    // As the loaded graphs are, the objects are left to the end of the process.
    std::mem::forget((old_root, new_root));
    Ok(differs)
}
