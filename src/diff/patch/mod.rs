//! [`Patch`]: what [`diff`](super::diff) found changed, addressed by type and field IDs, and
//! itself a reflectable value (built-in types, like the schema's), so a patch saves and loads in
//! the binary format and as JSON like any object.
//!
//! A patch is a list of object edits. Edit 0 is the root. Every other edit names a shared object:
//! one of the target graph, *found* by a path from an earlier edit's object (fields and element
//! indices in the graph as it was before the patch), or one the patch *creates*. An edit's body
//! changes the object's fields: plain values in their stored form, objects held by value by
//! nested bodies, pointers by target (null, or an edit's object). Arrays are either edited in
//! place (elements by index) or rebuilt: the new array lists, for each element, the old element
//! it keeps or the new one it holds, which expresses insertions, removals and moves.

mod check;
#[cfg(feature = "json")]
mod json;

pub(crate) use check::Malformed;

use crate::field::Family;
#[cfg(feature = "json")]
use crate::json::{JsonError, JsonReader};
use crate::rtti::RttiTypeBuilder;
use crate::schema::FieldSchema;
use crate::serializer::{BinarySerializer, DecodeError, DecodeReport, EncodeError};

use crate::rtti::reserved::{
    EMBEDDED_EDIT_TYPE_ID, EMBEDDED_ELEMENT_TYPE_ID, KEPT_EDIT_TYPE_ID, MAP_EDIT_TYPE_ID, OBJECT_BODY_TYPE_ID,
    OBJECT_EDIT_TYPE_ID, PATCH_TYPE_ID, PLAIN_EDIT_TYPE_ID, POINTER_EDIT_TYPE_ID,
};

/// An element index or target that is none (no old element; a null pointer is target 0).
pub(crate) const NONE: u32 = u32::MAX;

/// The changes that turn one object graph into another; see [`diff`](super::diff) and
/// [`apply`](Self::apply).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Patch {
    pub(crate) objects: Vec<ObjectEdit>,
}

/// Where an edited object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The root the patch is applied to.
    Root,
    /// Reached from edit `from`'s object by the edit's path, the last step a pointer element.
    Found { from: u32 },
    /// Made by the patch, in a new allocation of `family`.
    Created { family: Family },
    /// An object outside the patched graph (an asset, another scene's object), named by the key
    /// the diff's caller gave it ([`ObjectEdit::key`]): the apply's caller re-links it, and the
    /// patch never edits it.
    External,
}

/// One object's edit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ObjectEdit {
    pub(crate) origin: Origin,
    /// For a found object: `(section type ID, field ID, element index)` steps from the object of
    /// edit `from`, through objects held by value, to the pointer element holding it.
    pub(crate) path: Vec<(u32, u16, u32)>,
    pub(crate) body: ObjectBody,
    /// For a found object whose type declares an identity: its type's ID and its identity's
    /// stored bytes. The apply finds the object by it, wherever the target graph holds it (a
    /// prefab whose children moved since), and not by the path.
    pub(crate) identity: Vec<u8>,
    /// For an external object, the key the diff's caller gave it; 0 for any other.
    pub(crate) key: u64,
}

/// The changes to one object.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ObjectBody {
    /// The object's type: what it must be, or what a fresh one is made as.
    pub(crate) type_id: u32,
    /// `true`: a fresh object of `type_id`, every field given (a new or replaced object).
    pub(crate) fresh: bool,
    /// An enum switched to this variant (its fields reset, then given).
    pub(crate) variant: Option<u32>,
    pub(crate) plain: Vec<PlainEdit>,
    pub(crate) embedded: Vec<EmbeddedEdit>,
    pub(crate) pointers: Vec<PointerEdit>,
    /// Sections that keep another set of unknown fields (or none) from now on: applied before
    /// the field edits, which then give the new set's fields in full.
    pub(crate) kept: Vec<KeptEdit>,
    /// Plain map fields edited entry by entry.
    pub(crate) maps: Vec<MapEdit>,
}

/// A plain map field (`HashMap<String, f32>`) edited by key, so that an override touches only
/// the entries it changed: `from` holds the entries the edit replaces or removes as they were,
/// `to` those it sets. A key in `from` and not in `to` is removed. Both are one value of the
/// field's plain type, in its stored form.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct MapEdit {
    pub(crate) section: u32,
    pub(crate) field: u16,
    /// The plain type signature of the field's value (key and value types included), checked
    /// against the field's: entries are never read as another type.
    pub(crate) signature: Vec<u32>,
    pub(crate) from: Vec<u8>,
    pub(crate) to: Vec<u8>,
}

/// A section's kept unknown fields replaced: the set of stored fields it keeps from now on, as
/// a stream's schema table describes them (none: it keeps nothing), each field at its default
/// until the body's edits of the section's fields give its value.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct KeptEdit {
    pub(crate) section: u32,
    pub(crate) fields: Vec<FieldSchema>,
}

/// A plain field's new value.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PlainEdit {
    pub(crate) section: u32,
    pub(crate) field: u16,
    /// The plain type ID of the elements, checked against the field's.
    pub(crate) plain_type: u32,
    /// Elements in `bytes` (the stored element form).
    pub(crate) count: u32,
    pub(crate) bytes: Vec<u8>,
    /// Empty: `bytes` is the whole value. Otherwise the new array is these runs in order:
    /// `(start, len)` keeps old elements `start..start + len`; `(NONE, len)` takes the next
    /// `len` elements of `bytes`.
    pub(crate) runs: Vec<(u32, u32)>,
}

/// An embedded field's changes.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct EmbeddedEdit {
    pub(crate) section: u32,
    pub(crate) field: u16,
    /// `false`: each element edits old element `old` in place. `true`: the elements are the
    /// new array.
    pub(crate) rebuild: bool,
    pub(crate) elements: Vec<EmbeddedElement>,
}

/// One element of an [`EmbeddedEdit`].
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct EmbeddedElement {
    /// The old element this one is (kept, then patched by `body`); `None` for a new one.
    pub(crate) old: Option<u32>,
    /// The old element's changes, or a new element's fresh body; `None` with no `old`: empty.
    pub(crate) body: Option<ObjectBody>,
}

/// A pointer field's changes: `(old, target)` pairs. In place, `old` is the element retargeted;
/// rebuilt, each pair is a new element: old element `old`, or (`old` = `NONE`) a pointer to
/// `target` (0 null, `k + 1` the object of edit `k`).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PointerEdit {
    pub(crate) section: u32,
    pub(crate) field: u16,
    pub(crate) rebuild: bool,
    pub(crate) elements: Vec<(u32, u32)>,
}

impl Patch {
    /// `true` when the patch changes nothing.
    pub fn is_empty(&self) -> bool {
        // A created object always has a fresh body, so it counts as a change.
        self.objects.iter().all(|edit| edit.body.is_empty())
    }

    /// How many objects the patch changes or creates.
    pub fn objects_changed(&self) -> usize {
        self.objects.iter().filter(|edit| !edit.body.is_empty()).count()
    }

    /// How many objects the patch creates.
    pub fn objects_created(&self) -> usize {
        self.objects.iter().filter(|edit| matches!(edit.origin, Origin::Created { .. })).count()
    }

    /// The patch in the binary format (`FORMAT.md`), as any reflectable value is saved.
    pub fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        crate::to_vec(self)
    }

    /// A patch saved by [`to_bytes`](Self::to_bytes), with the report of anything the decode
    /// dropped (a patch written by a newer build with fields this one lacks).
    ///
    /// The bytes are as untrusted as any file: the decode has the stream decoder's limits, and
    /// a patch whose counts, indices or references do not fit the patch itself is refused with
    /// [`DecodeErrorKind::MalformedPatch`](crate::serializer::DecodeErrorKind::MalformedPatch),
    /// naming the member at fault.
    pub fn from_bytes(bytes: &[u8]) -> Result<(Patch, DecodeReport), DecodeError> {
        let (patch, report): (Patch, _) = BinarySerializer::new().decode_with_report(bytes)?;
        patch.check().map_err(|Malformed { at, why }| {
            DecodeError::new(crate::serializer::DecodeErrorKind::MalformedPatch { at, why }, None)
        })?;
        Ok((patch, report))
    }

    /// The patch as readable JSON: the types and fields it changes by name, plain values as text
    /// (as the JSON twin of a file shows them), objects by their edit's number. It converts back
    /// into the same patch ([`from_json`](Self::from_json)), also in a program without the
    /// types, since it lists the signatures of the fields it shows. Types and fields the global
    /// registry does not know are shown by ID, their values in their stored form.
    ///
    /// ```
    /// use reflectable::diff::{diff, Patch};
    /// use reflectable::Reflectable;
    /// use std::collections::BTreeMap;
    ///
    /// #[derive(Reflectable, Default, Clone)]
    /// #[rtti(id = 9866)]
    /// struct Enemy {
    ///     #[rtti(id = 1)]
    ///     name: String,
    ///     #[rtti(id = 2)]
    ///     parameters: BTreeMap<String, f32>,
    /// }
    ///
    /// let old = Enemy { name: "orc".into(), parameters: [("speed".into(), 5.0), ("jump".into(), 1.0)].into() };
    /// let mut new = old.clone();
    /// new.name = "troll".into();
    /// new.parameters.insert("speed".into(), 7.0);
    /// let patch = diff(&old, &new).unwrap();
    ///
    /// let text = patch.to_json().unwrap();
    /// assert!(text.contains(r#"{"field": "name", "to": "troll"}"#), "{text}");
    /// assert!(text.contains(r#"{"field": "parameters", "from": {"speed": 5.0}, "to": {"speed": 7.0}}"#), "{text}");
    /// let (back, _) = Patch::from_json(&text).unwrap();
    /// assert_eq!(back.to_bytes().unwrap(), patch.to_bytes().unwrap(), "the same patch");
    /// ```
    #[cfg(feature = "json")]
    #[cfg_attr(docsrs, doc(cfg(feature = "json")))]
    pub fn to_json(&self) -> Result<String, JsonError> {
        Ok(json::to_readable(self, crate::rtti::Registry::global()))
    }

    /// A patch from its JSON form ([`to_json`](Self::to_json)'s, or the JSON form of a graph
    /// that earlier versions wrote patches in), with the decode's report; checked as
    /// [`from_bytes`](Self::from_bytes) checks one, a malformed patch refused with the path of
    /// the member at fault. The text is as untrusted as a file: see [`crate::json`] for how
    /// reading is bounded.
    #[cfg(feature = "json")]
    #[cfg_attr(docsrs, doc(cfg(feature = "json")))]
    pub fn from_json(text: &str) -> Result<(Patch, DecodeReport), JsonError> {
        let readable = json::is_readable(text);
        let (patch, report) = match readable {
            true => (json::from_readable(text)?, DecodeReport::default()),
            false => JsonReader::new().read(text)?,
        };
        if let Err(Malformed { at, why }) = patch.check() {
            let path = if readable { json::document_path(&patch, &at) } else { at };
            return Err(JsonError::Invalid { path, message: why });
        }
        Ok((patch, report))
    }
}

impl ObjectBody {
    /// A body for an object of `type_id` that changes nothing yet.
    pub(crate) fn edit(type_id: u32) -> Self {
        ObjectBody { type_id, ..ObjectBody::default() }
    }

    /// `true` when the body changes nothing.
    pub(crate) fn is_empty(&self) -> bool {
        !self.fresh
            && self.variant.is_none()
            && self.plain.is_empty()
            && self.embedded.is_empty()
            && self.pointers.is_empty()
            && self.kept.is_empty()
            && self.maps.is_empty()
    }
}

/// The stored code of a family.
pub(crate) fn family_code(family: Family) -> u8 {
    match family {
        Family::Rc => 0,
        Family::RcRefCell => 1,
        Family::Arc => 2,
        Family::ArcMutex => 3,
        Family::ArcRwLock => 4,
    }
}

/// The family a stored code names.
pub(crate) fn family_of(code: u8) -> Option<Family> {
    Some(match code {
        0 => Family::Rc,
        1 => Family::RcRefCell,
        2 => Family::Arc,
        3 => Family::ArcMutex,
        4 => Family::ArcRwLock,
        _ => return None,
    })
}

impl Default for ObjectEdit {
    fn default() -> Self {
        ObjectEdit { origin: Origin::Root, path: Vec::new(), body: ObjectBody::default(), identity: Vec::new(), key: 0 }
    }
}

/// The origin as stored: `(0 root | 1 found | 2 created, from, family code)`. A code the reader
/// does not know is kept as an origin that finds nothing, which the apply reports.
fn origin_parts(origin: &Origin) -> (u8, u32, u8) {
    match *origin {
        Origin::Root => (0, 0, 0),
        Origin::Found { from } => (1, from, 0),
        Origin::Created { family } => (2, 0, family_code(family)),
        // No earlier edit: a reader that does not know the code finds nothing, and says so.
        Origin::External => (3, NONE, 0),
    }
}

fn origin_from(parts: (u8, u32, u8)) -> Origin {
    match parts {
        (0, _, _) => Origin::Root,
        (2, _, code) => family_of(code).map_or(Origin::Found { from: NONE }, |family| Origin::Created { family }),
        (3, _, _) => Origin::External,
        (_, from, _) => Origin::Found { from },
    }
}

crate::rtti::built_in_reflectable!(Patch, || {
    RttiTypeBuilder::<Patch>::built_in(PATCH_TYPE_ID, "Patch")
        .default_constructor()
        .embedded_array::<Vec<ObjectEdit>>(1, "objects", |p| &p.objects, |p| &mut p.objects)
        .build()
});

crate::rtti::built_in_reflectable!(ObjectEdit, || {
    RttiTypeBuilder::<ObjectEdit>::built_in(OBJECT_EDIT_TYPE_ID, "PatchObject")
        .default_constructor()
        .plain_computed::<(u8, u32, u8)>(
            1,
            "origin",
            |e| origin_parts(&e.origin),
            |e, parts| e.origin = origin_from(parts),
        )
        .plain::<Vec<(u32, u16, u32)>>(2, "path", |e| &e.path, |e| &mut e.path)
        .reflectable::<ObjectBody>(3, "body", |e| &e.body, |e| &mut e.body)
        .plain::<Vec<u8>>(4, "identity", |e| &e.identity, |e| &mut e.identity)
        .plain::<u64>(5, "external", |e| &e.key, |e| &mut e.key)
        .build()
});

crate::rtti::built_in_reflectable!(ObjectBody, || {
    RttiTypeBuilder::<ObjectBody>::built_in(OBJECT_BODY_TYPE_ID, "PatchBody")
        .default_constructor()
        .plain::<u32>(1, "type_id", |b| &b.type_id, |b| &mut b.type_id)
        .plain::<bool>(2, "fresh", |b| &b.fresh, |b| &mut b.fresh)
        .plain::<Option<u32>>(3, "variant", |b| &b.variant, |b| &mut b.variant)
        .embedded_array::<Vec<PlainEdit>>(4, "plain", |b| &b.plain, |b| &mut b.plain)
        .embedded_array::<Vec<EmbeddedEdit>>(5, "embedded", |b| &b.embedded, |b| &mut b.embedded)
        .embedded_array::<Vec<PointerEdit>>(6, "pointers", |b| &b.pointers, |b| &mut b.pointers)
        .embedded_array::<Vec<KeptEdit>>(7, "kept", |b| &b.kept, |b| &mut b.kept)
        .embedded_array::<Vec<MapEdit>>(8, "maps", |b| &b.maps, |b| &mut b.maps)
        .build()
});

crate::rtti::built_in_reflectable!(MapEdit, || {
    RttiTypeBuilder::<MapEdit>::built_in(MAP_EDIT_TYPE_ID, "PatchMap")
        .default_constructor()
        .plain::<u32>(1, "section", |e| &e.section, |e| &mut e.section)
        .plain::<u16>(2, "field", |e| &e.field, |e| &mut e.field)
        .plain::<Vec<u32>>(3, "signature", |e| &e.signature, |e| &mut e.signature)
        .plain::<Vec<u8>>(4, "from", |e| &e.from, |e| &mut e.from)
        .plain::<Vec<u8>>(5, "to", |e| &e.to, |e| &mut e.to)
        .build()
});

crate::rtti::built_in_reflectable!(PlainEdit, || {
    RttiTypeBuilder::<PlainEdit>::built_in(PLAIN_EDIT_TYPE_ID, "PatchPlain")
        .default_constructor()
        .plain::<u32>(1, "section", |e| &e.section, |e| &mut e.section)
        .plain::<u16>(2, "field", |e| &e.field, |e| &mut e.field)
        .plain::<u32>(3, "plain_type", |e| &e.plain_type, |e| &mut e.plain_type)
        .plain::<u32>(4, "count", |e| &e.count, |e| &mut e.count)
        .plain::<Vec<u8>>(5, "bytes", |e| &e.bytes, |e| &mut e.bytes)
        .plain::<Vec<(u32, u32)>>(6, "runs", |e| &e.runs, |e| &mut e.runs)
        .build()
});

crate::rtti::built_in_reflectable!(EmbeddedEdit, || {
    RttiTypeBuilder::<EmbeddedEdit>::built_in(EMBEDDED_EDIT_TYPE_ID, "PatchEmbedded")
        .default_constructor()
        .plain::<u32>(1, "section", |e| &e.section, |e| &mut e.section)
        .plain::<u16>(2, "field", |e| &e.field, |e| &mut e.field)
        .plain::<bool>(3, "rebuild", |e| &e.rebuild, |e| &mut e.rebuild)
        .embedded_array::<Vec<EmbeddedElement>>(4, "elements", |e| &e.elements, |e| &mut e.elements)
        .build()
});

crate::rtti::built_in_reflectable!(EmbeddedElement, || {
    RttiTypeBuilder::<EmbeddedElement>::built_in(EMBEDDED_ELEMENT_TYPE_ID, "PatchElement")
        .default_constructor()
        .plain::<Option<u32>>(1, "old", |e| &e.old, |e| &mut e.old)
        .reflectable::<Option<ObjectBody>>(2, "body", |e| &e.body, |e| &mut e.body)
        .build()
});

crate::rtti::built_in_reflectable!(PointerEdit, || {
    RttiTypeBuilder::<PointerEdit>::built_in(POINTER_EDIT_TYPE_ID, "PatchPointers")
        .default_constructor()
        .plain::<u32>(1, "section", |e| &e.section, |e| &mut e.section)
        .plain::<u16>(2, "field", |e| &e.field, |e| &mut e.field)
        .plain::<bool>(3, "rebuild", |e| &e.rebuild, |e| &mut e.rebuild)
        .plain::<Vec<(u32, u32)>>(4, "elements", |e| &e.elements, |e| &mut e.elements)
        .build()
});

crate::rtti::built_in_reflectable!(KeptEdit, || {
    RttiTypeBuilder::<KeptEdit>::built_in(KEPT_EDIT_TYPE_ID, "PatchKept")
        .default_constructor()
        .plain::<u32>(1, "section", |e| &e.section, |e| &mut e.section)
        .embedded_array::<Vec<FieldSchema>>(2, "fields", |e| &e.fields, |e| &mut e.fields)
        .build()
});
