//! A patch read from its readable document (see the module above): members by serde, each
//! refused when unknown or given twice; plain values written into their stored bytes as they are
//! read, by the signatures the document's `types` give.

use super::super::check::signature_fits;
use super::super::{
    EmbeddedEdit, EmbeddedElement, KeptEdit, MapEdit, ObjectBody, ObjectEdit, Origin, Patch, PlainEdit, PointerEdit,
    NONE,
};
use super::write::{map_field, Scope, MAP_NAME};
use super::{family_named, FORM};
use crate::containers::{MAP_KEYS_FIELD_ID, MAP_TYPE_ID, MAP_VALUES_FIELD_ID};
use crate::json::{invalid, FieldEntry, JsonError, PlainSeed};
use crate::schema::FieldSchema;
use ahash::AHashMap;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use serde::de::{self, DeserializeSeed, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// How deep objects held by value may nest in a document (a patch nested deeper does not save:
/// its bytes would pass the stream's depth limit).
const MAX_BODY_DEPTH: usize = 41;

/// The patch a readable document describes (unchecked: the caller checks it as a binary one).
pub(in crate::diff::patch) fn from_readable(text: &str) -> Result<Patch, JsonError> {
    let document: Document<'_> = serde_json::from_str(text).map_err(syntax)?;
    if document.format != FORM {
        let why = format!("a patch document's format is `{FORM}`, not `{}`", crate::text::cut(&document.format, 40));
        return Err(invalid("format", why));
    }
    let types = Types::new(document.types)?;
    // Each edit, and each change of a body, is turned into the patch as soon as it is read: the
    // document is never held as a tree.
    let mut objects = Vec::new();
    let mut failed = None;
    let mut reader = serde_json::Deserializer::from_str(document.objects.get());
    let each = |types: &Types, n, entry: EditEntry<'_>| {
        objects.push(types.edit(n, entry)?);
        Ok(())
    };
    let read = Each { types: &types, failed: &mut failed, each, element: PhantomData }.deserialize(&mut reader);
    settle(read, failed)?;
    Ok(Patch { objects })
}

/// Reads a list, handing each element to `each` as it is read. `each`'s error is kept in
/// `failed` (the list's reading stops with a placeholder error).
struct Each<'a, T, F> {
    types: &'a Types,
    failed: &'a mut Option<JsonError>,
    each: F,
    element: std::marker::PhantomData<fn() -> T>,
}

impl<'de, T, F> DeserializeSeed<'de> for Each<'_, T, F>
where
    T: Deserialize<'de>,
    F: FnMut(&Types, usize, T) -> Result<(), JsonError>,
{
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T, F> Visitor<'de> for Each<'_, T, F>
where
    T: Deserialize<'de>,
    F: FnMut(&Types, usize, T) -> Result<(), JsonError>,
{
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list")
    }
    fn visit_seq<A: de::SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let mut n = 0;
        while let Some(element) = seq.next_element::<T>()? {
            if let Err(error) = (self.each)(self.types, n, element) {
                *self.failed = Some(error);
                return Err(de::Error::custom("stopped"));
            }
            n += 1;
        }
        Ok(())
    }
}

/// The outcome of a read by [`Each`]: the error an element's handling gave, else serde's.
fn settle(read: Result<(), serde_json::Error>, failed: Option<JsonError>) -> Result<(), JsonError> {
    match (read, failed) {
        (_, Some(error)) => Err(error),
        (Err(error), None) => Err(syntax(error)),
        (Ok(()), None) => Ok(()),
    }
}

/// Where a member the patch's check names (`objects[2].body.pointers[0].elements[1]`, the
/// patch's own members) is in its readable document (`objects[2].changes[3].point[1]`).
pub(in crate::diff::patch) fn document_path(patch: &Patch, at: &str) -> String {
    let mut out = String::new();
    let mut body: Option<&ObjectBody> = None;
    // The change a step entered: its kind's list of elements, and whether it is rebuilt.
    let mut list: Option<(&str, Option<&EmbeddedEdit>)> = None;
    for step in at.split('.') {
        let (name, index) = match step.split_once('[') {
            Some((name, rest)) => (name, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (step, None),
        };
        let changes = |_: &ObjectBody, before: usize, n: usize| format!(".changes[{}]", before + n);
        match (name, index, body) {
            ("objects", Some(i), _) => {
                out = format!("objects[{i}]");
                body = patch.objects.get(i).map(|edit| &edit.body);
            }
            ("body", None, _) if list.is_none() => {}
            ("origin", None, _) => {}
            ("kept", Some(n), Some(b)) => out += &changes(b, 0, n),
            ("fields", None, _) => out += ".keep_fields",
            ("plain", Some(n), Some(b)) => out += &changes(b, b.kept.len(), n),
            ("maps", Some(n), Some(b)) => out += &changes(b, b.kept.len() + b.plain.len(), n),
            ("embedded", Some(n), Some(b)) => {
                out += &changes(b, b.kept.len() + b.plain.len() + b.maps.len(), n);
                let edit = b.embedded.get(n);
                list = Some((if edit.is_some_and(|edit| edit.rebuild) { "elements" } else { "edit" }, edit));
            }
            ("pointers", Some(n), Some(b)) => {
                out += &changes(b, b.kept.len() + b.plain.len() + b.maps.len() + b.embedded.len(), n);
                let rebuild = b.pointers.get(n).is_some_and(|edit| edit.rebuild);
                list = Some((if rebuild { "targets" } else { "point" }, None));
            }
            ("elements", Some(e), _) if list.is_some() => {
                let (member, embedded) = list.take().expect("just checked");
                out += &format!(".{member}[{e}]");
                if let Some(edit) = embedded {
                    body = edit.elements.get(e).and_then(|element| element.body.as_ref());
                    list = Some(("", None));
                }
            }
            // Past an element of objects held by value: its `body` and `old`.
            ("body", None, _) => {
                list = None;
                out += ".body";
            }
            (name, index, _) => {
                out.push('.');
                out.push_str(name);
                if let Some(index) = index {
                    out += &format!("[{index}]");
                }
            }
        }
    }
    out
}

/// Whether `text` is a patch's readable document (else, the JSON form of a graph, as patches
/// were written before).
pub(in crate::diff::patch) fn is_readable(text: &str) -> bool {
    #[derive(Deserialize)]
    struct Head<'t> {
        #[serde(borrow)]
        format: Option<std::borrow::Cow<'t, str>>,
    }
    serde_json::from_str::<Head<'_>>(text).ok().and_then(|head| head.format).is_some_and(|format| format == FORM)
}

/// An error from reading part of the document (`at`), which serde placed in that part alone.
fn within(error: JsonError, at: &str) -> JsonError {
    match error {
        JsonError::Syntax { message, .. } => invalid(at, message),
        other => other,
    }
}

fn syntax(error: serde_json::Error) -> JsonError {
    JsonError::Syntax { line: error.line(), column: error.column(), message: message(&error) }
}

/// Appends the stored element form of one value of type `sig`, given as JSON text.
pub(super) fn element_bytes(sig: &[u32], text: &str, out: &mut Vec<u8>) -> Result<(), String> {
    let mut reader = serde_json::Deserializer::from_str(text);
    PlainSeed { sig, out }.deserialize(&mut reader).map_err(|error| message(&error))?;
    reader.end().map_err(|error| message(&error))
}

/// A serde_json error's message without the place it ends with (the error's fields hold it).
fn message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    text.split(" at line ").next().unwrap_or(&text).to_owned()
}

/// A pointer's target as the document shows it: `null`, or the number of the edit whose object
/// it points at.
pub(super) fn target_json(target: u32) -> Value {
    match target {
        0 => Value::Null,
        edit => (edit - 1).into(),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Document<'t> {
    format: String,
    #[serde(default)]
    types: Vec<TypeEntry>,
    #[serde(borrow)]
    objects: &'t RawValue,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TypeEntry {
    id: u32,
    name: String,
    #[serde(default)]
    fields: Vec<FieldEntry>,
    #[serde(default)]
    variants: Vec<VariantEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VariantEntry {
    id: u32,
    name: String,
    #[serde(default)]
    fields: Vec<FieldEntry>,
}

/// An edit: where its object is, and its body's members (repeated from [`BodyEntry`]: serde
/// cannot refuse unknown members of a flattened struct).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditEntry<'t> {
    edit: Option<u64>,
    #[serde(rename = "type")]
    type_ref: Ref,
    from: Option<u32>,
    created: Option<String>,
    external: Option<Wide>,
    #[serde(default)]
    path: Vec<(Ref, Ref, u32)>,
    #[serde(default, borrow, deserialize_with = "raw")]
    identity: Option<&'t RawValue>,
    #[serde(default)]
    fresh: bool,
    variant: Option<Ref>,
    #[serde(borrow)]
    changes: Option<&'t RawValue>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BodyEntry<'t> {
    #[serde(rename = "type")]
    type_ref: Ref,
    #[serde(default)]
    fresh: bool,
    variant: Option<Ref>,
    #[serde(borrow)]
    changes: Option<&'t RawValue>,
}

/// One change of a body: which members it has says which kind it is.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChangeEntry<'t> {
    field: Option<Ref>,
    section: Option<Ref>,
    #[serde(default, borrow, deserialize_with = "raw")]
    to: Option<&'t RawValue>,
    #[serde(borrow)]
    splice: Option<Vec<SpliceEntry<'t>>>,
    plain_type: Option<u32>,
    count: Option<u32>,
    bytes: Option<String>,
    runs: Option<Vec<(u32, u32)>>,
    #[serde(default, borrow, deserialize_with = "raw")]
    from: Option<&'t RawValue>,
    signature: Option<Vec<u32>>,
    #[serde(borrow)]
    edit: Option<&'t RawValue>,
    #[serde(borrow)]
    elements: Option<&'t RawValue>,
    point: Option<Vec<PointEntry>>,
    targets: Option<Vec<TargetEntry>>,
    keep_fields: Option<Vec<FieldEntry>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpliceEntry<'t> {
    keep: Option<(u32, u32)>,
    #[serde(default, borrow, deserialize_with = "raw")]
    insert: Option<&'t RawValue>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ElementEntry<'t> {
    old: Option<u32>,
    #[serde(borrow)]
    body: Option<BodyEntry<'t>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PointEntry {
    element: u32,
    #[serde(default, deserialize_with = "given")]
    to: Option<Option<u32>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetEntry {
    keep: Option<u32>,
    #[serde(default, deserialize_with = "given")]
    to: Option<Option<u32>>,
}

/// A value member: `null` is a value (an `Option`'s `None`), not a missing member.
fn raw<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// A member that may be `null`: `Some(None)` then, and `None` only when it is missing.
fn given<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<u32>>, D::Error> {
    Option::<u32>::deserialize(d).map(Some)
}

/// A type, field or variant: by name, or by number.
enum Ref {
    Id(u32),
    Name(String),
}

impl<'de> Deserialize<'de> for Ref {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct RefVisitor;
        impl Visitor<'_> for RefVisitor {
            type Value = Ref;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a name or an ID")
            }
            fn visit_u64<E: de::Error>(self, id: u64) -> Result<Ref, E> {
                u32::try_from(id).map(Ref::Id).map_err(|_| E::custom(format!("ID {id} is past u32")))
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Ref, E> {
                Ok(Ref::Name(name.to_owned()))
            }
        }
        d.deserialize_any(RefVisitor)
    }
}

/// A 64-bit number: a JSON number, or a string where a double could not hold it.
struct Wide(u64);

impl<'de> Deserialize<'de> for Wide {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct WideVisitor;
        impl Visitor<'_> for WideVisitor {
            type Value = Wide;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a 64-bit unsigned number, or one as a string")
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Wide, E> {
                Ok(Wide(value))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Wide, E> {
                text.parse().map(Wide).map_err(|_| E::custom(format!("`{}` is not a u64", crate::text::cut(text, 40))))
            }
        }
        d.deserialize_any(WideVisitor)
    }
}

/// The document's `types`, indexed.
struct Types {
    /// Type IDs by name; `None` for a name two entries give.
    by_name: AHashMap<String, Option<u32>>,
    fields: AHashMap<u32, Vec<FieldSchema>>,
    variants: AHashMap<u32, Vec<(u32, String)>>,
    variant_fields: AHashMap<(u32, u32), Vec<FieldSchema>>,
}

impl Types {
    fn new(entries: Vec<TypeEntry>) -> Result<Self, JsonError> {
        let mut types = Types {
            by_name: AHashMap::new(),
            fields: AHashMap::new(),
            variants: AHashMap::new(),
            variant_fields: AHashMap::new(),
        };
        for (n, entry) in entries.into_iter().enumerate() {
            let at = format!("types[{n}]");
            if types.fields.contains_key(&entry.id) {
                return Err(invalid(&at, format!("type {} is listed twice", entry.id)));
            }
            let fields = field_list(entry.fields, &format!("{at}.fields"))?;
            let mut variants: Vec<(u32, String)> = Vec::new();
            for (v, variant) in entry.variants.into_iter().enumerate() {
                let at = format!("{at}.variants[{v}]");
                if variants.iter().any(|(other, other_name)| *other == variant.id || *other_name == variant.name) {
                    return Err(invalid(&at, format!("variant `{}` is listed twice", cut(&variant.name))));
                }
                let own = field_list(variant.fields, &format!("{at}.fields"))?;
                types.variant_fields.insert((entry.id, variant.id), own);
                variants.push((variant.id, variant.name));
            }
            types.by_name.entry(entry.name).and_modify(|id| *id = None).or_insert(Some(entry.id));
            types.fields.insert(entry.id, fields);
            types.variants.insert(entry.id, variants);
        }
        Ok(types)
    }

    fn type_id(&self, reference: &Ref, at: &str) -> Result<u32, JsonError> {
        match reference {
            Ref::Id(id) => Ok(*id),
            Ref::Name(name) if name == MAP_NAME && !self.by_name.contains_key(name) => Ok(MAP_TYPE_ID),
            Ref::Name(name) => match self.by_name.get(name) {
                Some(Some(id)) => Ok(*id),
                Some(None) => Err(invalid(at, format!("two types are named `{}`: name it by its ID", cut(name)))),
                None => Err(invalid(at, format!("no type named `{}` in `types`", cut(name)))),
            },
        }
    }

    fn field_id(&self, section: u32, reference: &Ref, scope: Scope<'_>, at: &str) -> Result<u16, JsonError> {
        match reference {
            Ref::Id(id) => u16::try_from(*id).map_err(|_| invalid(at, format!("field ID {id} is past u16"))),
            Ref::Name(name) => (self.fields_in(section, scope).iter())
                .find(|field| field.name == *name)
                .map(|field| field.id)
                .ok_or_else(|| invalid(at, format!("type {section} has no field named `{}` in `types`", cut(name)))),
        }
    }

    /// The fields a change of a body in `scope` names in `section`, as [`Table::schema`] finds
    /// them for the writer.
    ///
    /// [`Table::schema`]: super::write
    fn fields_in(&self, section: u32, scope: Scope<'_>) -> Cow<'_, [FieldSchema]> {
        if section == MAP_TYPE_ID && scope.own == MAP_TYPE_ID {
            let fields = [MAP_KEYS_FIELD_ID, MAP_VALUES_FIELD_ID].into_iter();
            return Cow::Owned(fields.filter_map(|field| map_field(field, scope.keys)).collect());
        }
        let variant = scope.variant.filter(|_| section == scope.own);
        let fields = match variant.and_then(|variant| self.variant_fields.get(&(section, variant))) {
            Some(fields) => Some(fields),
            None => self.fields.get(&section),
        };
        fields.map_or(Cow::Borrowed(&[][..]), |fields| Cow::Borrowed(&fields[..]))
    }

    fn schema(&self, section: u32, field: u16, scope: Scope<'_>) -> Option<FieldSchema> {
        self.fields_in(section, scope).iter().find(|schema| schema.id == field).cloned()
    }

    fn edit(&self, index: usize, entry: EditEntry<'_>) -> Result<ObjectEdit, JsonError> {
        let at = format!("objects[{index}]");
        if entry.edit.is_some_and(|number| number != index as u64) {
            return Err(invalid(&format!("{at}.edit"), format!("edit {index} is numbered otherwise")));
        }
        let mut external_key = 0;
        let origin = match (entry.from, entry.created, entry.external) {
            (None, None, None) => Origin::Root,
            (Some(from), None, None) => Origin::Found { from },
            (None, Some(family), None) => Origin::Created {
                family: family_named(&family).ok_or_else(|| {
                    invalid(&format!("{at}.created"), format!("`{}` is not a kind of allocation", cut(&family)))
                })?,
            },
            (None, None, Some(Wide(key))) => {
                external_key = key;
                Origin::External
            }
            _ => return Err(invalid(&at, "an edit is found `from` one, `created`, or `external`: one of them")),
        };
        let path = (entry.path.iter().enumerate())
            .map(|(n, (section, field, element))| {
                let at = format!("{at}.path[{n}]");
                let section = self.type_id(section, &at)?;
                let scope = Scope { own: section, variant: None, keys: None };
                Ok((section, self.field_id(section, field, scope, &at)?, *element))
            })
            .collect::<Result<_, JsonError>>()?;
        let body =
            BodyEntry { type_ref: entry.type_ref, fresh: entry.fresh, variant: entry.variant, changes: entry.changes };
        let body = self.body(body, None, 0, &at)?;
        let identity = match entry.identity {
            Some(raw) => self.identity(raw, body.type_id, &format!("{at}.identity"))?,
            None => Vec::new(),
        };
        Ok(ObjectEdit { origin, path, body, identity, key: external_key })
    }

    /// An identity's bytes: the object's type ID, the declaring type's, then the value's.
    fn identity(&self, raw: &RawValue, own: u32, at: &str) -> Result<Vec<u8>, JsonError> {
        if let Some(bytes) = stored(raw, at)? {
            return Ok(bytes);
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Declared<'t> {
            #[serde(rename = "$type")]
            declaring: Ref,
            #[serde(rename = "$value", borrow)]
            value: &'t RawValue,
        }
        let (declaring, value) = match serde_json::from_str::<Declared<'_>>(raw.get()) {
            Ok(declared) => (self.type_id(&declared.declaring, at)?, declared.value),
            Err(_) => (own, raw),
        };
        let field =
            (self.fields.get(&declaring).into_iter().flatten()).find(|field| field.identity).ok_or_else(|| {
                invalid(at, format!("type {declaring} has no identity field in `types` to read the identity by"))
            })?;
        let mut bytes = [own.to_le_bytes(), declaring.to_le_bytes()].concat();
        element_bytes(&field.signature, value.get(), &mut bytes).map_err(|why| invalid(at, why))?;
        Ok(bytes)
    }

    /// `keys`: the key signature of the map field holding the body, for a map object's body.
    /// `depth`: how many bodies hold this one (objects held by value in objects held by value).
    fn body(
        &self,
        entry: BodyEntry<'_>,
        keys: Option<&[u32]>,
        depth: usize,
        at: &str,
    ) -> Result<ObjectBody, JsonError> {
        // Each nested body is read by a reader of its own, whose nesting serde_json does not
        // count: bounded here, as deep as a patch's bytes may nest.
        if depth > MAX_BODY_DEPTH {
            return Err(invalid(at, format!("objects held by value nested more than {MAX_BODY_DEPTH} deep")));
        }
        let type_id = self.type_id(&entry.type_ref, &format!("{at}.type"))?;
        let variant = match &entry.variant {
            None => None,
            Some(Ref::Id(id)) => Some(*id),
            Some(Ref::Name(name)) => Some(
                (self.variants.get(&type_id).into_iter().flatten())
                    .find(|(_, known)| known == name)
                    .map(|(id, _)| *id)
                    .ok_or_else(|| {
                        invalid(
                            &format!("{at}.variant"),
                            format!("type {type_id} has no variant `{}` in `types`", cut(name)),
                        )
                    })?,
            ),
        };
        let mut body = ObjectBody { type_id, fresh: entry.fresh, variant, ..ObjectBody::default() };
        if let Some(changes) = entry.changes {
            let mut failed = None;
            let mut reader = serde_json::Deserializer::from_str(changes.get());
            let each = |types: &Types, n, change: ChangeEntry<'_>| {
                types.change(&mut body, change, keys, depth, &format!("{at}.changes[{n}]"))
            };
            let read = Each { types: self, failed: &mut failed, each, element: PhantomData }.deserialize(&mut reader);
            settle(read, failed).map_err(|error| within(error, &format!("{at}.changes")))?;
        }
        Ok(body)
    }

    fn change(
        &self,
        body: &mut ObjectBody,
        change: ChangeEntry<'_>,
        keys: Option<&[u32]>,
        depth: usize,
        at: &str,
    ) -> Result<(), JsonError> {
        let scope = Scope { own: body.type_id, variant: body.variant, keys };
        let map = change.from.is_some() || change.signature.is_some();
        let kinds = [
            change.keep_fields.is_some(),
            map,
            change.edit.is_some() || change.elements.is_some(),
            change.point.is_some() || change.targets.is_some(),
            (change.to.is_some() && !map) || change.splice.is_some() || change.bytes.is_some(),
        ];
        let mixed = kinds.iter().filter(|&&kind| kind).count() != 1;
        let plain_members = change.plain_type.is_some() || change.count.is_some() || change.runs.is_some();
        if mixed || (plain_members && change.bytes.is_none()) {
            return Err(invalid(at, "a change sets a value (`to`, `splice` or `bytes`), a map's entries (`from` and `to`), objects held by value (`edit` or `elements`), pointers (`point` or `targets`), or kept fields (`keep_fields`): one of them"));
        }
        let section = match &change.section {
            Some(section) => self.type_id(section, &format!("{at}.section"))?,
            None => body.type_id,
        };
        if let Some(fields) = change.keep_fields {
            if change.field.is_some() {
                return Err(invalid(&format!("{at}.field"), "kept fields replace a whole section's: no `field`"));
            }
            let fields = (fields.into_iter().enumerate())
                .map(|(f, field)| field.into_schema(&format!("{at}.keep_fields[{f}]")))
                .collect::<Result<_, _>>()?;
            body.kept.push(KeptEdit { section, fields });
            return Ok(());
        }
        let field_ref = change.field.as_ref().ok_or_else(|| invalid(at, "`field` is missing"))?;
        let field = self.field_id(section, field_ref, scope, &format!("{at}.field"))?;
        let schema = self.schema(section, field, scope);
        let signature = |at: &str| {
            schema.as_ref().map(|schema| &schema.signature).filter(|sig| !sig.is_empty()).ok_or_else(|| {
                invalid(at, format!("field {section}.{field} has no signature in `types` to read its value by"))
            })
        };
        if kinds[1] {
            let signature = match change.signature {
                Some(signature) => {
                    signature_fits(&signature).map_err(|why| invalid(&format!("{at}.signature"), why))?;
                    signature
                }
                None => signature(at)?.clone(),
            };
            let side = |raw: Option<&RawValue>, member: &str| {
                let at = format!("{at}.{member}");
                let raw = raw.ok_or_else(|| invalid(&at, "a map's change has `from` and `to`"))?;
                match stored(raw, &at)? {
                    Some(bytes) => Ok::<_, JsonError>(bytes),
                    None => {
                        let mut bytes = Vec::new();
                        element_bytes(&signature, raw.get(), &mut bytes).map_err(|why| invalid(&at, why))?;
                        Ok(bytes)
                    }
                }
            };
            let (from, to) = (side(change.from, "from")?, side(change.to, "to")?);
            body.maps.push(MapEdit { section, field, signature, from, to });
        } else if kinds[2] {
            let (rebuild, elements) = match (change.edit, change.elements) {
                (Some(elements), None) => (false, elements),
                (None, Some(elements)) => (true, elements),
                _ => {
                    return Err(invalid(
                        at,
                        "objects held by value are edited in place (`edit`) or rebuilt (`elements`)",
                    ))
                }
            };
            let keys = schema.as_ref().map(|schema| schema.signature.as_slice()).filter(|keys| !keys.is_empty());
            let member = if rebuild { "elements" } else { "edit" };
            // Read one by one, each old element named once (as the patch's check would say at
            // the end): a long list of one element repeated is refused as soon as it repeats.
            let mut out = Vec::new();
            let mut olds = ahash::AHashSet::new();
            let each = |types: &Types, e, element: ElementEntry<'_>| {
                let at = format!("{at}.{member}[{e}]");
                if let Some(old) = element.old.filter(|&old| !olds.insert(old)) {
                    return Err(invalid(&format!("{at}.old"), format!("old element {old} is used twice")));
                }
                let body =
                    element.body.map(|body| types.body(body, keys, depth + 1, &format!("{at}.body"))).transpose()?;
                out.push(EmbeddedElement { old: element.old, body });
                Ok(())
            };
            let mut failed = None;
            let mut reader = serde_json::Deserializer::from_str(elements.get());
            let read = Each { types: self, failed: &mut failed, each, element: PhantomData }.deserialize(&mut reader);
            settle(read, failed).map_err(|error| within(error, &format!("{at}.{member}")))?;
            out.shrink_to_fit();
            body.embedded.push(EmbeddedEdit { section, field, rebuild, elements: out });
        } else if kinds[3] {
            let elements = match (change.point, change.targets) {
                (Some(point), None) => (point.into_iter().enumerate())
                    .map(|(e, entry)| Ok((entry.element, target(entry.to, &format!("{at}.point[{e}]"))?)))
                    .collect::<Result<_, JsonError>>()
                    .map(|elements| (false, elements)),
                (None, Some(targets)) => (targets.into_iter().enumerate())
                    .map(|(e, entry)| {
                        let to = entry.to.map(|to| target(Some(to), &format!("{at}.targets[{e}].to"))).transpose()?;
                        match (entry.keep, to) {
                            (Some(old), to) => Ok((old, to.unwrap_or(0))),
                            (None, Some(to)) => Ok((NONE, to)),
                            (None, None) => Err(invalid(
                                &format!("{at}.targets[{e}]"),
                                "an element keeps one (`keep`) or points (`to`)",
                            )),
                        }
                    })
                    .collect::<Result<_, JsonError>>()
                    .map(|elements| (true, elements)),
                _ => return Err(invalid(at, "pointers are retargeted in place (`point`) or rebuilt (`targets`)")),
            };
            let (rebuild, elements) = elements?;
            body.pointers.push(PointerEdit { section, field, rebuild, elements });
        } else {
            body.plain.push(self.plain(change, section, field, schema.as_ref(), at)?);
        }
        Ok(())
    }

    /// A plain change: readable (`to`, `splice`), or stored (`bytes` with `plain_type`,
    /// `count` and maybe `runs`).
    fn plain(
        &self,
        change: ChangeEntry<'_>,
        section: u32,
        field: u16,
        schema: Option<&FieldSchema>,
        at: &str,
    ) -> Result<PlainEdit, JsonError> {
        let mut edit = PlainEdit { section, field, ..PlainEdit::default() };
        if let Some(bytes) = change.bytes {
            let (Some(plain_type), Some(count), None, None) =
                (change.plain_type, change.count, change.to, change.splice)
            else {
                return Err(invalid(
                    at,
                    "a stored value gives `plain_type`, `count` and `bytes` (and maybe `runs`), no `to` or `splice`",
                ));
            };
            edit.plain_type = plain_type;
            edit.count = count;
            edit.bytes = BASE64.decode(bytes).map_err(|_| invalid(&format!("{at}.bytes"), "not base64"))?;
            edit.runs = change.runs.unwrap_or_default();
            return Ok(edit);
        }
        let schema = schema.filter(|schema| !schema.signature.is_empty()).ok_or_else(|| {
            invalid(at, format!("field {section}.{field} has no signature in `types` to read its value by"))
        })?;
        let sig = &schema.signature;
        edit.plain_type = sig[0];
        match (change.to, change.splice) {
            (Some(to), None) if schema.shape.array => {
                let at = format!("{at}.to");
                edit.count = elements(sig, to, &mut edit.bytes, &at)?;
            }
            (Some(to), None) => {
                element_bytes(sig, to.get(), &mut edit.bytes).map_err(|why| invalid(&format!("{at}.to"), why))?;
                edit.count = 1;
            }
            (None, Some(splice)) => {
                for (r, run) in splice.into_iter().enumerate() {
                    let at = format!("{at}.splice[{r}]");
                    match (run.keep, run.insert) {
                        (Some((start, len)), None) => edit.runs.push((start, len)),
                        (None, Some(insert)) => {
                            let added = elements(sig, insert, &mut edit.bytes, &format!("{at}.insert"))?;
                            edit.count =
                                edit.count.checked_add(added).ok_or_else(|| invalid(&at, "too many elements"))?;
                            edit.runs.push((NONE, added));
                        }
                        _ => {
                            return Err(invalid(
                                &at,
                                "a run keeps old elements (`keep`) or inserts new ones (`insert`)",
                            ))
                        }
                    }
                }
            }
            _ => return Err(invalid(at, "a value is set whole (`to`) or as runs (`splice`)")),
        }
        Ok(edit)
    }
}

/// A type's (or a variant's) fields, each ID and name once.
fn field_list(entries: Vec<FieldEntry>, at: &str) -> Result<Vec<FieldSchema>, JsonError> {
    let fields = (entries.into_iter().enumerate())
        .map(|(f, field)| field.into_schema(&format!("{at}[{f}]")))
        .collect::<Result<Vec<_>, _>>()?;
    for (f, field) in fields.iter().enumerate() {
        if fields[..f].iter().any(|other| other.id == field.id || other.name == field.name) {
            return Err(invalid(&format!("{at}[{f}]"), format!("field `{}` is listed twice", cut(&field.name))));
        }
    }
    Ok(fields)
}

/// A list of values of type `sig`, appended in their stored form as they are read: how many.
fn elements(sig: &[u32], raw: &RawValue, out: &mut Vec<u8>, at: &str) -> Result<u32, JsonError> {
    struct Values<'o, 's> {
        sig: &'s [u32],
        out: &'o mut Vec<u8>,
    }
    impl<'de> Visitor<'de> for Values<'_, '_> {
        type Value = u32;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of the field's values")
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<u32, A::Error> {
            let mut count = 0u32;
            while seq.next_element_seed(PlainSeed { sig: self.sig, out: self.out })?.is_some() {
                count = count.checked_add(1).ok_or_else(|| de::Error::custom("too many elements"))?;
            }
            Ok(count)
        }
    }
    let mut reader = serde_json::Deserializer::from_str(raw.get());
    let count = reader.deserialize_seq(Values { sig, out }).and_then(|count| reader.end().map(|()| count));
    count.map_err(|error| invalid(at, message(&error)))
}

/// A value's stored form (`{"$bytes": "base64"}`), when that is what `raw` is.
fn stored(raw: &RawValue, at: &str) -> Result<Option<Vec<u8>>, JsonError> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Stored {
        #[serde(rename = "$bytes")]
        bytes: String,
    }
    match serde_json::from_str::<Stored>(raw.get()) {
        Ok(Stored { bytes }) => BASE64.decode(bytes).map(Some).map_err(|_| invalid(at, "`$bytes` is not base64")),
        Err(_) => Ok(None),
    }
}

/// A pointer's target: `null` (0), or an edit's number (that plus one).
fn target(to: Option<Option<u32>>, at: &str) -> Result<u32, JsonError> {
    match to {
        Some(None) => Ok(0),
        Some(Some(edit)) if edit < u32::MAX => Ok(edit + 1),
        Some(Some(_)) => Err(invalid(at, "a target is `null` or an edit's number")),
        None => Err(invalid(at, "`to` is missing")),
    }
}

fn cut(text: &str) -> std::borrow::Cow<'_, str> {
    crate::text::cut(text, 40)
}
