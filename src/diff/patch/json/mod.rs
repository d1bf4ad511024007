//! The readable JSON form of a [`Patch`]: what a person reviewing an override or an undo step
//! reads, and what converts back into the very same binary patch.
//!
//! ```text
//! { "format": "reflectable-patch/1",
//!   "types": [ { "id": 9830, "name": "Entity",
//!                "fields": [ { "id": 1, "name": "name", "wire": "plain:dyn", "type": "String", "signature": [20] },
//!                            { "id": 3, "name": "parameters", "wire": "plain:dyn", "type": "HashMap<String, f32>", … } ] } ],
//!   "objects": [
//!     { "edit": 0, "type": "Entity", "changes": [
//!         { "field": "name", "to": "boulder" },
//!         { "field": "parameters", "from": { "speed": 5.0 }, "to": { "speed": 7.0 } } ] },
//!     { "edit": 1, "type": "Entity", "from": 0, "path": [["Entity", "children", 2]], "identity": 42, "changes": [ … ] },
//!     { "edit": 2, "type": "Entity", "created": "Rc<RefCell>", "fresh": true, "changes": [ … ] },
//!     { "edit": 3, "type": "Texture", "external": 7 } ] }
//! ```
//!
//! - `types` names the types and fields the patch touches, with each plain field's signature:
//!   what reads the values back without the program that wrote them. A type or field the writing
//!   program did not know is named by its number, and its values keep their stored form.
//! - `objects` are the patch's object edits in order; a pointer names an edit by its number. An
//!   edit is the root (the first), an object found `from` an earlier edit by a `path` of
//!   `[section type, field, element]` steps (and by its `identity`, where its type declares one),
//!   one the patch `created` (in that kind of allocation), or an `external` object the apply's
//!   caller re-links by key.
//! - `changes` lists the body's edits, one per field (`section` names the base type a field is
//!   declared in, where it is not the object's own): `to` sets a plain value (`splice` keeps runs
//!   of old elements and inserts new ones), `from` and `to` replace a map's entries by key,
//!   `edit` / `elements` change objects held by value in place / rebuild their array, `point` /
//!   `targets` retarget pointers / rebuild a pointer array, `keep_fields` replaces the set of
//!   unknown fields a section keeps.
//! - Plain values are shown as the JSON twin of a file shows them (64-bit integers as strings,
//!   maps with string keys as objects). A value whose text would not convert back to the same
//!   bytes keeps its stored form: `{"$bytes": "base64"}`, or for a whole field `"bytes"`,
//!   `"count"`, `"plain_type"`, `"runs"` in place of `to`.
//!
//! - Values of a program's own derived plain types (`#[derive(PlainType)]`) are shown by their
//!   parts, as the JSON twin shows them: only a program with those types reads them back.
//!
//! Reading is as strict as for a graph's document: an unknown or repeated member, a name the
//! `types` do not define, a value that does not fit its field's type, is an error naming its
//! place; serde_json bounds the nesting. The patch read is then checked as a binary one is.

mod read;
mod write;

pub(super) use read::{document_path, from_readable, is_readable};
pub(super) use write::to_readable;

use crate::field::Family;

/// The value of a patch document's `"format"` member.
pub(crate) const FORM: &str = "reflectable-patch/1";

/// A family as the document names it (`"created"`).
fn family_name(family: Family) -> &'static str {
    match family {
        Family::Rc => "Rc",
        Family::RcRefCell => "Rc<RefCell>",
        Family::Arc => "Arc",
        Family::ArcMutex => "Arc<Mutex>",
        Family::ArcRwLock => "Arc<RwLock>",
    }
}

/// The family a [`family_name`] names.
fn family_named(name: &str) -> Option<Family> {
    [Family::Rc, Family::RcRefCell, Family::Arc, Family::ArcMutex, Family::ArcRwLock]
        .into_iter()
        .find(|&family| family_name(family) == name)
}
