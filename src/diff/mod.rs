//! Comparing, diffing and patching object graphs through RTTI, as Banshee's prefabs, undo and
//! replication do: [`rtti_eq`] (deep equality that compares sharing and cycles as well as values,
//! and says where two graphs first differ), [`diff`] (a [`Patch`] holding only what changed,
//! addressed by type and field IDs) and [`Patch::apply`] (with a report of whatever could not be
//! applied). A patch is a reflectable value: it saves and loads in the binary format
//! ([`Patch::to_bytes`], [`Patch::from_bytes`]) and as JSON (`Patch::to_json`,
//! `Patch::from_json`, with the `json` feature), so overrides and undo steps can be kept.

mod align;
mod apply;
pub(crate) mod generate;
pub(crate) mod generated;
mod map_entries;
mod merge;
mod patch;
mod rtti_eq;

pub use apply::{AppliedChange, ApplyProblem, ApplyProblemKind, ApplyReport, Relink};
#[doc(hidden)]
pub use generate::diff_walked;
pub use generate::{diff, diff_external, DiffError};
pub(crate) use generated::{same_sections, GeneratedComparison, SameScope};
pub use merge::{merge, merge_with, ConflictKind, MergeConflict, MergeError, Merged};
pub use patch::Patch;
pub use rtti_eq::{rtti_eq, Difference};
