//! `reflectable merge BASE OURS THEIRS -o OUT`: the library's three-way merge on files, without
//! their program, shaped as a git merge driver. Ours' file is read into objects of types defined
//! from its schema table, and base and theirs into those same types (as a program of ours' types
//! loads older saves; what those types lack is reported as a conflict, never dropped in silence).
//! The merged graph is written to OUT in ours' format version and encoding, whole or not at all,
//! conflicts or not: on a conflict ours' change is in it, as git leaves ours in the work tree.

use crate::load::{add_types, objects, types_of, Failure, Loaded};
use reflectable::diff::{merge_with, MergeError};
use reflectable::rtti::Registry;
use reflectable::serializer::BinarySerializer;
use std::io::Write;
use std::path::Path;

/// Merges the three files into `output`; `true` when there were conflicts.
pub fn merge(
    base: &Loaded,
    ours: &Loaded,
    theirs: &Loaded,
    output: &Path,
    out: &mut dyn Write,
) -> Result<bool, Failure> {
    for (name, loaded) in [("base", base), ("ours", ours), ("theirs", theirs)] {
        if loaded.graph.version() < 3 || loaded.graph.fingerprints().is_some() {
            return Err(format!(
                "{name} does not describe its types (format version {}): it cannot be merged without its program",
                loaded.graph.version()
            )
            .into());
        }
    }
    let ours_root = objects(ours, &Registry::new())?.0;
    let mut types = types_of(&*ours_root);
    let mut lost = Vec::new();
    let mut read = |name: &str, loaded: &Loaded| -> Result<_, Failure> {
        let (root, report) = objects(loaded, &types)?;
        if !report.is_empty() {
            lost.push(format!("{name} holds what ours' types lack: {report}"));
        }
        Ok(root)
    };
    let (base_root, theirs_root) = (read("base", base)?, read("theirs", theirs)?);
    // Types only theirs has objects of (defined from its table): the merge may make such objects.
    add_types(&mut types, &*theirs_root);
    let merged = match merge_with(&*base_root, &*ours_root, &*theirs_root, &types) {
        Ok(merged) => merged,
        Err(error @ MergeError::Diff { .. }) => return Err(format!("the files cannot be merged: {error}").into()),
        Err(error) => return Err(error.to_string().into()),
    };
    let bytes = BinarySerializer::with_registry(&types)
        .format_version(ours.graph.version())
        .encoding(ours.graph.encoding())
        .encode(&*merged.graph)
        .map_err(|error| format!("the merged graph cannot be written: {error}"))?;
    reflectable::serializer::write_atomically(output, |file| Ok(file.write_all(&bytes)?))
        .map_err(|error| format!("cannot write {}: {error}", output.display()))?;
    for conflict in &merged.conflicts {
        writeln!(out, "CONFLICT {conflict}")?;
    }
    for line in &lost {
        writeln!(out, "CONFLICT {line}")?;
    }
    if !merged.report.is_complete() {
        writeln!(out, "CONFLICT some changes could not be made: {}", merged.report)?;
    }
    let conflicts = merged.conflicts.len() + lost.len() + usize::from(!merged.report.is_complete());
    match conflicts {
        0 => writeln!(out, "merged into {}", output.display())?,
        1 => writeln!(out, "1 conflict, ours kept, merged into {}", output.display())?,
        count => writeln!(out, "{count} conflicts, ours kept in each, merged into {}", output.display())?,
    }
    // As the loaded graphs are, the objects are left to the end of the process.
    std::mem::forget((base_root, ours_root, theirs_root, merged));
    Ok(conflicts > 0)
}
