//! A JSON document back into a dynamic graph, read as it streams: no tree of JSON values is
//! built, so reading costs about what the graph it gives costs (`SECURITY.md`: at most 10x the
//! document and 1 MiB more, accepted or refused).
//!
//! Members are read where they stand. An object's fields need its type, so the fields of an
//! object whose `$type` (or an enum's `$variant`) comes after them are skipped, and the object
//! read again once its type is known; a field's value is looked at (is it a stored form, a map's
//! entries?) before it is read, as a slice of the text. Pointers name objects by `$id`, which a first pass
//! over the `objects` collects, so a reference may come before its object.
//!
//! Whatever the document says twice, or says where it would be ignored (a duplicate member, an
//! unknown one, `"extra"` beside a `$ref`), is refused; so is a value its field cannot hold
//! exactly (`1e39` for an `f32`). A refusal names the member's path (`objects[3].doors[1]`) and
//! its line and column. A failed read lets go of every object it made.

mod plain;
mod types;

pub(crate) use plain::PlainSeed;
pub(crate) use types::FieldEntry;

use super::lookup::FieldLookup;
use super::schema::parse_wire;
use super::write::map_key_size;
use super::JsonError;
use crate::containers::{MAP_KEYS_FIELD_ID, MAP_TYPE_ID, MAP_VALUES_FIELD_ID};
use crate::dynamic::{
    DynamicField, DynamicGraph, DynamicObject, DynamicRef, DynamicSection, DynamicValue, StoredEntry,
};
use crate::field::{WireKind, WireShape};
use crate::plain::{type_ids as id, PlainBytes};
use crate::rtti::Registry;
use crate::schema::{DeclaredSchema, FieldSchema, Schema, TypeSchema};
use crate::serializer::Encoding;
use crate::text::{cut, EXCERPT};
use crate::wire::format::{LENGTHS_VERSION, VARIANT_TAG_FIELD_ID, VERSION};
use ahash::{AHashMap, AHashSet};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::rc::Rc;
use types::{FingerprintEntry, TypeEntry};

/// Most objects nested by value inside one another, as the decoder's default `max_depth`: deeper
/// JSON is refused, not a stack overflow. (Each value is read by a parser of its own, so the JSON
/// parser's own nesting limit does not add up across them; this one does.)
const MAX_NESTING: usize = 128;

/// The document's own members.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Document<'t> {
    format: Option<Cow<'t, str>>,
    version: Option<u64>,
    checksum: Option<bool>,
    #[serde(borrow)]
    types: Option<&'t RawValue>,
    fingerprints: Option<Vec<FingerprintEntry>>,
    #[serde(borrow)]
    objects: Option<&'t RawValue>,
    encoding: Option<Cow<'t, str>>,
    plain_block: Option<Cow<'t, str>>,
}

/// The graph the document `text` describes. A document that lists no types names those of
/// `registry`, when there is one.
pub(super) fn graph(text: &str, registry: Option<&Registry>) -> Result<DynamicGraph, JsonError> {
    let document: Document = serde_json::from_str(text).map_err(top_level)?;
    if let Some(form) = document.format.as_deref().filter(|&form| form != super::FORM) {
        return Err(Located::at("format", format!("\"{}\" is not {:?}", cut(form, EXCERPT), super::FORM)).into());
    }
    let version = match document.version {
        None => VERSION,
        Some(version) => u32::try_from(version)
            .ok()
            .filter(|&version| (1..=VERSION).contains(&version) || version == LENGTHS_VERSION)
            .ok_or_else(|| Located::at("version", format!("{version} is not a format version this program reads")))?,
    };
    let checksum = document.checksum.unwrap_or(false);
    // What the stream of an older version cannot hold would be dropped: refused instead.
    if version < 2 && checksum {
        return Err(Located::at("checksum", format!("a version {version} stream has no checksum")).into());
    }
    if version < 3 && document.types.is_some() {
        return Err(Located::at("types", format!("a version {version} stream has no schema table")).into());
    }
    let stored = match document.types {
        None => None,
        Some(types) => Some(types_of(text, types)?),
    };
    let fingerprints: Option<Vec<(u32, u64)>> = match &document.fingerprints {
        None => None,
        Some(entries) => Some(
            (entries.iter().enumerate())
                .map(|(n, entry)| entry.parse(&format!("fingerprints[{n}]")))
                .collect::<Result<_, _>>()?,
        ),
    };
    if fingerprints.is_some() && (stored.is_some() || version < 3) {
        let why = "a version 3 document lists fingerprints instead of types, not as well";
        return Err(Located::at("fingerprints", why).into());
    }
    let known = match (&stored, registry) {
        (None, Some(registry)) => Some(Schema::new(registry.types().map(TypeSchema::of).collect())),
        _ => None,
    };
    if version < LENGTHS_VERSION {
        let flagged = stored.iter().flatten().filter_map(|entry| entry.as_ref().ok()).find_map(|schema| {
            let mut fields = schema.fields.iter().chain(schema.variants.iter().flat_map(|variant| &variant.fields));
            fields.find(|field| field.identity).map(|field| (schema.name.clone(), field.name.clone()))
        });
        if let Some((type_name, field)) = flagged {
            let why = format!("`{type_name}.{field}` is marked as an identity, which only a version 5 stream records");
            return Err(Located::at("types", why).into());
        }
    }
    let parsed = stored.iter().flatten().filter_map(|entry| entry.as_ref().ok());
    let objects = document.objects.ok_or_else(|| Located::at("objects", "a document holds a list of `objects`"))?;
    let mut reader = Reader::new(text, Types::new(parsed, known.as_ref()));
    let handles = reader.objects(objects).map_err(|Failed| reader.failure())?;
    let table = stored.map(|types| {
        let entry = |entry: Result<Rc<TypeSchema>, StoredEntry>| match entry {
            Ok(schema) => StoredEntry::of(&schema),
            Err(raw) => raw,
        };
        types.into_iter().map(entry).collect::<Vec<_>>()
    });
    let table = if version >= 3 && fingerprints.is_none() { table.or(Some(Vec::new())) } else { None };
    // From here the graph owns the objects, and lets go of their cycles when dropped.
    let mut graph = DynamicGraph::from_parts(version, checksum, handles, table, fingerprints);
    // A compact stream's document says so, with the plain block that described its plain types.
    match document.encoding.as_deref() {
        None | Some("normal") => {}
        Some("compact") => graph.set_encoding(Encoding::Compact),
        Some(_) => return Err(Located::at("encoding", "\"normal\" or \"compact\"").into()),
    }
    if let Some(block) = document.plain_block {
        if graph.encoding() != Encoding::Compact {
            return Err(Located::at("plain_block", "only a compact stream (\"encoding\": \"compact\") has one").into());
        }
        let bytes = BASE64.decode(block.as_bytes()).ok();
        let bytes = bytes.filter(|bytes| crate::serializer::compact::check_block(bytes).is_ok());
        let bytes = bytes.ok_or_else(|| Located::at("plain_block", "a compact stream's plain block, in base64"))?;
        graph.set_plain_block(Some(bytes.into()));
    }
    Ok(graph)
}

/// `"types"`, entry by entry: each a type (shared by the reader and the stored table) or the
/// bytes of an entry no object uses, never the whole list of entries in between.
fn types_of(text: &str, raw: &RawValue) -> Result<Vec<Result<Rc<TypeSchema>, StoredEntry>>, JsonError> {
    struct Entries<'f> {
        failure: &'f mut Option<Located>,
    }
    impl<'de> Visitor<'de> for Entries<'_> {
        type Value = Vec<Result<Rc<TypeSchema>, StoredEntry>>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of types")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut entries = Vec::new();
            while let Some(entry) = seq.next_element::<TypeEntry>()? {
                match entry.parse(&format!("types[{}]", entries.len())) {
                    Ok(entry) => entries.push(entry.map(Rc::new)),
                    Err(located) => {
                        *self.failure = Some(located);
                        return Err(de::Error::custom(""));
                    }
                }
            }
            Ok(entries)
        }
    }
    let mut failure = None;
    let mut de = serde_json::Deserializer::from_str(raw.get());
    let read = de.deserialize_seq(Entries { failure: &mut failure }).and_then(|entries| de.end().map(|()| entries));
    read.map_err(|error| match failure {
        Some(located) => located.into(),
        None => {
            let offset = offset_in(text, raw.get(), &error);
            Located { path: "types".into(), message: message_of(&error), place: Some(place(text, offset)) }.into()
        }
    })
}

/// The byte offset in `text` of a serde error met reading `part`, a slice of it: serde counts
/// lines and columns (in bytes) within `part`.
fn offset_in(text: &str, part: &str, error: &serde_json::Error) -> usize {
    let mut offset = 0;
    for _ in 1..error.line() {
        offset += part[offset..].find('\n').map_or(part.len() - offset, |at| at + 1);
    }
    offset = (offset + error.column().saturating_sub(1)).min(part.len());
    part.as_ptr() as usize - text.as_ptr() as usize + offset
}

/// The line and column (1-based; the column in bytes, as serde's) of byte `offset` of `text`.
fn place(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rfind('\n').map_or(before.len(), |at| before.len() - at - 1) + 1;
    (line, column)
}

/// A refusal: the member's path, why, and where the text says so (line and column, 1-based).
pub(super) struct Located {
    path: String,
    message: String,
    place: Option<(usize, usize)>,
}

impl Located {
    pub(super) fn at(path: &str, message: impl Into<String>) -> Self {
        Located { path: path.to_owned(), message: message.into(), place: None }
    }
}

impl From<Located> for JsonError {
    fn from(located: Located) -> Self {
        let message = match located.place {
            Some((line, column)) => format!("{} (line {line}, column {column})", located.message),
            None => located.message,
        };
        JsonError::Invalid { path: located.path, message }
    }
}

/// A serde error's message without the place serde appends (the error's fields hold it).
fn message_of(error: &serde_json::Error) -> String {
    let mut message = error.to_string();
    if let Some(at) = message.rfind(" at line ") {
        message.truncate(at);
    }
    message
}

/// An error of the document's own members: text that is not JSON is a syntax error; a member
/// that is not what it should be is placed by its line and column.
fn top_level(error: serde_json::Error) -> JsonError {
    let (line, column) = (error.line(), error.column());
    match error.classify() {
        serde_json::error::Category::Data => {
            let place = (line > 0).then_some((line, column));
            Located { path: String::new(), message: message_of(&error), place }.into()
        }
        _ => JsonError::Syntax { line, column, message: message_of(&error) },
    }
}

/// A read stopped: the reader's failure says where and why.
#[derive(Debug)]
struct Failed;

fn unwind<E: de::Error>(_: Failed) -> E {
    E::custom("")
}

/// One step of the path to a member.
enum Step<'t> {
    Member(Cow<'t, str>),
    Index(usize),
}

/// A member name, borrowed from the text unless it has escapes.
pub(super) struct Key<'t>(pub(super) Cow<'t, str>);

impl<'t> Deserialize<'t> for Key<'t> {
    fn deserialize<D: Deserializer<'t>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'t> Visitor<'t> for KeyVisitor {
            type Value = Key<'t>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E: de::Error>(self, name: &'t str) -> Result<Key<'t>, E> {
                Ok(Key(Cow::Borrowed(name)))
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Key<'t>, E> {
                Ok(Key(Cow::Owned(name.to_owned())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// The field ID a member names: `7`, or `7#n` (n from 2) for a field a stream repeats, in the
/// spelling the writer gives them (no sign, no leading zeros).
fn numbered_key(key: &str) -> Option<u16> {
    let canonical =
        |digits: &str| digits == "0" || !digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit());
    let (id, repeat) = match key.split_once('#') {
        Some((id, n)) => (id, Some(n)),
        None => (key, None),
    };
    if id.is_empty() || !canonical(id) {
        return None;
    }
    if let Some(n) = repeat {
        if n.is_empty() || !canonical(n) || n.parse::<u32>().map_or(true, |n| n < 2) {
            return None;
        }
    }
    id.parse().ok()
}

/// The first member name of an object's text, when it is one: enough to tell a stored form or
/// a reference from an object without reading it.
fn first_key(raw: &RawValue) -> Option<&str> {
    let text = raw.get().strip_prefix('{')?.trim_start().strip_prefix('"')?;
    let end = text.find('"')?;
    Some(&text[..end])
}

fn is_list(raw: &RawValue) -> bool {
    raw.get().starts_with('[')
}

fn is_null(raw: &RawValue) -> bool {
    raw.get() == "null"
}

/// A pointer: `null`, or `{"$ref": id}` and nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Ref {
    #[serde(rename = "$ref")]
    id: u64,
}

/// A field in its stored form, which any field may take: its shape, and its bytes or objects.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored<'t> {
    #[serde(rename = "$wire", borrow)]
    wire: Option<Cow<'t, str>>,
    #[serde(rename = "$count")]
    count: Option<u32>,
    #[serde(rename = "$bytes", borrow)]
    bytes: Option<Cow<'t, str>>,
    /// Present even as `null` (an empty single field): an `Option` would take that for absent.
    #[serde(rename = "$value", borrow, default, deserialize_with = "present")]
    value: Option<&'t RawValue>,
}

fn present<'t, D: Deserializer<'t>>(d: D) -> Result<Option<&'t RawValue>, D::Error> {
    <&'t RawValue>::deserialize(d).map(Some)
}

const STORED_MEMBERS: [&str; 4] = ["$wire", "$count", "$bytes", "$value"];

struct Reader<'t> {
    text: &'t str,
    types: Types,
    /// Each shared object's index by its `$id`.
    ids: AHashMap<u64, usize>,
    /// The shared objects, in document order; filled as they are read.
    handles: Vec<DynamicRef>,
    path: Vec<Step<'t>>,
    depth: usize,
    failure: Option<Located>,
}

impl Drop for Reader<'_> {
    /// The objects read so far point at each other: a failed read empties them all, so that
    /// none keeps another alive. (A read that succeeded has handed them to its graph.)
    fn drop(&mut self) {
        for handle in &self.handles {
            *handle.borrow_mut() = DynamicObject::placeholder();
        }
    }
}

impl<'t> Reader<'t> {
    fn new(text: &'t str, types: Types) -> Self {
        Reader { text, types, ids: AHashMap::new(), handles: Vec::new(), path: Vec::new(), depth: 0, failure: None }
    }

    /// The recorded failure as an error.
    fn failure(&mut self) -> JsonError {
        self.failure.take().unwrap_or_else(|| Located::at(&self.path(), "the document is not a graph")).into()
    }

    fn path(&self) -> String {
        let mut path = String::new();
        for step in &self.path {
            match step {
                Step::Member(name) if path.is_empty() => path.push_str(name),
                Step::Member(name) => {
                    path.push('.');
                    path.push_str(&cut(name, EXCERPT));
                }
                Step::Index(n) => path.push_str(&format!("[{n}]")),
            }
        }
        path
    }

    /// Records a refusal at the current path, placed at the start of `raw`.
    #[cold]
    fn fail(&mut self, raw: &RawValue, message: impl Into<String>) -> Failed {
        if self.failure.is_none() {
            let offset = raw.get().as_ptr() as usize - self.text.as_ptr() as usize;
            let place = Some(place(self.text, offset));
            self.failure = Some(Located { path: self.path(), message: message.into(), place });
        }
        Failed
    }

    /// Reads `raw` with `read`, which may call back into the reader. A serde error is recorded
    /// (unless a deeper read recorded its own) with its place in the whole text.
    fn parse<T>(
        &mut self,
        raw: &'t RawValue,
        read: impl FnOnce(
            &mut Self,
            &mut serde_json::Deserializer<serde_json::de::StrRead<'t>>,
        ) -> Result<T, serde_json::Error>,
    ) -> Result<T, Failed> {
        let text = raw.get();
        let mut de = serde_json::Deserializer::from_str(text);
        let result = read(self, &mut de).and_then(|value| de.end().map(|()| value));
        result.map_err(|error| {
            if self.failure.is_none() {
                let place = Some(place(self.text, offset_in(self.text, text, &error)));
                self.failure = Some(Located { path: self.path(), message: message_of(&error), place });
            }
            Failed
        })
    }

    /// The `objects` list: every object's `$id` first, then the objects.
    fn objects(&mut self, raw: &'t RawValue) -> Result<Vec<DynamicRef>, Failed> {
        self.path.push(Step::Member(Cow::Borrowed("objects")));
        if !is_list(raw) {
            return Err(self.fail(raw, "a list"));
        }
        let ids = self.parse(raw, |_, de| de.deserialize_seq(IdsVisitor))?;
        let ids = match ids {
            Ok(ids) => ids,
            Err((at, message)) => {
                self.path.push(Step::Index(at));
                return Err(self.fail(raw, message));
            }
        };
        if ids.is_empty() {
            return Err(self.fail(raw, "a document holds at least its root"));
        }
        for (at, &id) in ids.iter().enumerate() {
            if self.ids.insert(id, at).is_some() {
                self.path.push(Step::Index(at));
                return Err(self.fail(raw, format!("`$id` {id} is used twice")));
            }
            self.handles.push(DynamicRef::new(DynamicObject::placeholder()));
        }
        self.parse(raw, |reader, de| de.deserialize_seq(ObjectsVisitor { reader }))?;
        self.path.pop();
        Ok(std::mem::take(&mut self.handles))
    }

    /// An object: its own section, then the base sections `$bases` lists.
    fn object(&mut self, raw: &'t RawValue, shared: bool) -> Result<DynamicObject, Failed> {
        if self.depth >= MAX_NESTING {
            return Err(self.fail(raw, format!("objects nested more than {MAX_NESTING} deep")));
        }
        if !raw.get().starts_with('{') {
            return Err(self.fail(raw, "an object"));
        }
        self.depth += 1;
        let role = if shared { Role::Shared } else { Role::Embedded };
        let (own, bases) = self.parse(raw, |reader, de| de.deserialize_map(SectionVisitor { reader, role, raw }))?;
        let mut sections = vec![own];
        if let Some(bases) = bases {
            self.path.push(Step::Member(Cow::Borrowed("$bases")));
            if !is_list(bases) {
                return Err(self.fail(bases, "`$bases` is a list of sections"));
            }
            self.parse(bases, |reader, de| de.deserialize_seq(BasesVisitor { reader, sections: &mut sections }))?;
            self.path.pop();
        }
        self.depth -= 1;
        Ok(DynamicObject::from_sections(sections))
    }

    /// One member of a section that names a field, its value `raw`.
    fn field(&mut self, section: &mut Section<'t>, key: Cow<'t, str>, raw: &'t RawValue) -> Result<(), Failed> {
        // A member is a field's name, or its ID (`7`, `7#2` for a field a stream repeats), written
        // as the writer writes them: one spelling per member.
        let numbered = numbered_key(&key);
        if numbered.is_none() && key.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(
                self.fail(raw, format!("`{}` is not a field's ID (`7`, or `7#2` for a repeat)", cut(&key, EXCERPT)))
            );
        }
        let lookup = section.lookup(&mut self.types);
        let described = match numbered {
            Some(id) => lookup.by_id(id),
            None => lookup.by_name(&key),
        };
        // (A stream may hold a field twice, which the writer names by name and then by ID: only
        // a member name given twice is refused, by the section.)
        self.path.push(Step::Member(key.clone()));
        let field = if first_key(raw).is_some_and(|key| STORED_MEMBERS.contains(&key)) {
            self.stored_field(described, numbered, raw)?
        } else {
            let Some(described) = described else {
                return Err(self.fail(raw, format!("no field `{}` in this type", cut(&key, EXCERPT))));
            };
            let as_entries = is_list(raw) || raw.get().starts_with('{') && first_key(raw) != Some("$type");
            if described.declared == Some(DeclaredSchema::Type(MAP_TYPE_ID)) && !described.shape.array && as_entries {
                self.map_field(described, raw)?
            } else {
                match described.shape.kind {
                    WireKind::Plain(_) => self.plain_field(described, raw)?,
                    _ => self.objects_field(described.id, described.shape, raw)?,
                }
            }
        };
        section.fields.push(field);
        self.path.pop();
        Ok(())
    }

    /// The stored form of any field: `{"$wire": shape, "$count": n, "$bytes": base64}` for plain
    /// values, `{"$wire": shape, "$value": …}` for objects and pointers.
    fn stored_field(
        &mut self,
        described: Option<&FieldSchema>,
        id: Option<u16>,
        raw: &'t RawValue,
    ) -> Result<DynamicField, Failed> {
        let stored: Stored = self.parse(raw, |_, de| Stored::deserialize(de))?;
        let shape = match (&stored.wire, described) {
            (Some(code), _) => match parse_wire(code) {
                Some(shape) => shape,
                None => return Err(self.fail(raw, format!("\"{}\" is not a wire shape", cut(code, EXCERPT)))),
            },
            (None, Some(described)) => described.shape,
            (None, None) => return Err(self.fail(raw, "a field no type describes needs its `$wire`")),
        };
        let id = match (id, described) {
            (Some(id), _) => id,
            (None, Some(described)) => described.id,
            (None, None) => return Err(self.fail(raw, "a field no type describes is named by its ID")),
        };
        match shape.kind {
            WireKind::Plain(_) => {
                if stored.value.is_some() {
                    return Err(self.fail(raw, "a plain field's stored form has `$count` and `$bytes`, no `$value`"));
                }
                let Some(count) = stored.count else { return Err(self.fail(raw, "`$count` is missing")) };
                let Some(bytes) = stored.bytes else { return Err(self.fail(raw, "`$bytes` is missing")) };
                let bytes = match BASE64.decode(bytes.as_bytes()) {
                    Ok(bytes) => bytes,
                    Err(error) => return Err(self.fail(raw, format!("bad base64: {error}"))),
                };
                check_elements(shape, count as usize, &bytes).map_err(|message| self.fail(raw, message))?;
                Ok(DynamicField::new(id, shape, DynamicValue::Plain(PlainBytes::from_wire(count, &bytes))))
            }
            _ => {
                if stored.count.is_some() || stored.bytes.is_some() {
                    return Err(self.fail(raw, "a field of objects has a `$value`, no `$count` or `$bytes`"));
                }
                let Some(value) = stored.value else { return Err(self.fail(raw, "`$value` is missing")) };
                self.path.push(Step::Member(Cow::Borrowed("$value")));
                let field = self.objects_field(id, shape, value)?;
                self.path.pop();
                Ok(field)
            }
        }
    }

    /// A plain field's value by its stored type: one value, or a list of them (or base64 for
    /// bytes) for an array field.
    fn plain_field(&mut self, described: &FieldSchema, raw: &'t RawValue) -> Result<DynamicField, Failed> {
        let signature = &described.signature;
        let mut bytes = Vec::new();
        if described.shape.array && !is_list(raw) && !(signature.as_slice() == [id::U8] && raw.get().starts_with('"')) {
            return Err(self.fail(raw, "an array field is a list"));
        }
        let count = crate::text::remembering(signature, || match described.shape.array {
            true => self.parse(raw, |_, de| de.deserialize_any(PlainArray { sig: signature, out: &mut bytes })),
            false => self.parse(raw, |_, de| PlainSeed { sig: signature, out: &mut bytes }.deserialize(de)).map(|()| 1),
        })?;
        let Ok(count) = u32::try_from(count) else { return Err(self.fail(raw, "too many elements")) };
        if let WireKind::Plain(Some(size)) = described.shape.kind {
            if bytes.len() != count as usize * usize::from(size) {
                let each = bytes.len() / count.max(1) as usize;
                return Err(self.fail(raw, format!("elements of {each} bytes where the field holds {size}")));
            }
        }
        Ok(DynamicField::new(described.id, described.shape, DynamicValue::Plain(PlainBytes::from_wire(count, &bytes))))
    }

    /// A map field written as its entries: an object of them, or a list of `[key, value]` pairs.
    /// Its values are pointers (`{"$ref": id}` or `null`) or objects (or `null`), not both.
    fn map_field(&mut self, described: &FieldSchema, raw: &'t RawValue) -> Result<DynamicField, Failed> {
        let Some(size) = map_key_size(&described.signature) else {
            return Err(self.fail(raw, "a map's keys have no known type"));
        };
        let mut entries = Entries { keys: Vec::new(), count: 0, values: Vec::new() };
        if is_list(raw) {
            self.parse(raw, |reader, de| {
                de.deserialize_seq(EntriesVisitor { reader, described, entries: &mut entries })
            })?;
        } else {
            self.parse(raw, |reader, de| {
                de.deserialize_map(EntriesVisitor { reader, described, entries: &mut entries })
            })?;
        }
        let Entries { keys, count, values } = entries;
        let Ok(count) = u32::try_from(count) else { return Err(self.fail(raw, "too many entries")) };
        let key_shape = WireShape { kind: WireKind::Plain(size), array: true };
        if let Some(size) = size {
            if keys.len() != count as usize * usize::from(size) {
                return Err(self.fail(raw, format!("keys of another size than the map's {size} bytes")));
            }
        }
        let keys =
            DynamicField::new(MAP_KEYS_FIELD_ID, key_shape, DynamicValue::Plain(PlainBytes::from_wire(count, &keys)));
        let pointers = values.iter().all(|value| !matches!(value, MapValue::Object(_)));
        if !pointers && values.iter().any(|value| matches!(value, MapValue::Ref(_))) {
            return Err(self.fail(raw, "a map's values are all pointers or all objects"));
        }
        let values = if pointers {
            let targets = values.into_iter().map(|value| match value {
                MapValue::Ref(target) => Some(target),
                _ => None,
            });
            DynamicValue::Pointer(targets.collect::<Vec<_>>().into())
        } else {
            let objects = values.into_iter().map(|value| match value {
                MapValue::Object(object) => Some(object),
                _ => None,
            });
            DynamicValue::Embedded(objects.collect::<Vec<_>>().into())
        };
        let kind = if pointers { WireKind::Pointer } else { WireKind::Embedded };
        let values = DynamicField::new(MAP_VALUES_FIELD_ID, WireShape { kind, array: true }, values);
        let mut map = DynamicObject::new(MAP_TYPE_ID, None);
        map.own_mut().fields_mut().extend([keys, values]);
        Ok(DynamicField::new(described.id, described.shape, DynamicValue::Embedded(Box::new([Some(map)]))))
    }

    /// A field of objects held by value, or of pointers: one, or a list for an array field.
    fn objects_field(&mut self, id: u16, shape: WireShape, raw: &'t RawValue) -> Result<DynamicField, Failed> {
        let value = if shape.array {
            if !is_list(raw) {
                return Err(self.fail(raw, "an array field is a list"));
            }
            let embedded = shape.kind == WireKind::Embedded;
            let mut objects = Vec::new();
            let mut targets = Vec::new();
            self.parse(raw, |reader, de| {
                de.deserialize_seq(ElementsVisitor { reader, embedded, objects: &mut objects, targets: &mut targets })
            })?;
            if embedded {
                DynamicValue::Embedded(objects.into())
            } else {
                DynamicValue::Pointer(targets.into())
            }
        } else if shape.kind == WireKind::Embedded {
            DynamicValue::Embedded(Box::new([self.embedded(raw)?]))
        } else {
            DynamicValue::Pointer(Box::new([self.target(raw)?]))
        };
        Ok(DynamicField::new(id, shape, value))
    }

    /// An object held by value, or `null`.
    fn embedded(&mut self, raw: &'t RawValue) -> Result<Option<DynamicObject>, Failed> {
        if is_null(raw) {
            return Ok(None);
        }
        self.object(raw, false).map(Some)
    }

    /// A pointer: `null`, or `{"$ref": id}` naming an object of the document.
    fn target(&mut self, raw: &'t RawValue) -> Result<Option<DynamicRef>, Failed> {
        if is_null(raw) {
            return Ok(None);
        }
        if first_key(raw) != Some("$ref") {
            return Err(self.fail(raw, "a pointer is {\"$ref\": id} or null"));
        }
        let Ref { id } = self.parse(raw, |_, de| Ref::deserialize(de))?;
        match self.ids.get(&id) {
            Some(&at) => Ok(Some(self.handles[at].clone())),
            None => Err(self.fail(raw, format!("no object has `$id` {id}"))),
        }
    }
}

/// What a section is: a shared object's (with its `$id`), an object's held by value, or a base
/// section in `$bases`.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Shared,
    Embedded,
    Base,
}

/// A section being read.
struct Section<'t> {
    type_id: Option<u32>,
    schema: Option<Rc<TypeSchema>>,
    variant: Option<u32>,
    /// `$variant`, until `$type` says whose it is.
    variant_raw: Option<&'t RawValue>,
    fields: Vec<DynamicField>,
    /// Member names met: each at most once.
    names: AHashSet<Cow<'t, str>>,
    lookup: Option<Rc<FieldLookup>>,
}

impl Section<'_> {
    /// Whether a field can be read now: its type (and an enum's variant) known.
    fn ready(&self) -> bool {
        self.type_id.is_some() && (self.variant.is_some() || !self.schema.as_ref().is_some_and(|schema| schema.is_enum))
    }

    fn lookup(&mut self, types: &mut Types) -> Rc<FieldLookup> {
        let (type_id, variant, schema) = (self.type_id.unwrap_or(0), self.variant, self.schema.clone());
        self.lookup.get_or_insert_with(|| types.lookup(type_id, variant, schema.as_deref())).clone()
    }
}

struct SectionVisitor<'r, 't> {
    reader: &'r mut Reader<'t>,
    role: Role,
    raw: &'t RawValue,
}

impl<'t> Visitor<'t> for SectionVisitor<'_, 't> {
    type Value = (DynamicSection, Option<&'t RawValue>);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'t>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let reader = self.reader;
        let mut section = Section {
            type_id: None,
            schema: None,
            variant: None,
            variant_raw: None,
            fields: Vec::new(),
            names: AHashSet::new(),
            lookup: None,
        };
        let mut bases = None;
        // Fields met before the type (or an enum's variant) is known are skipped, and the object
        // read again for them once it is: nothing of them is held meanwhile.
        let mut deferred = false;
        while let Some(Key(key)) = map.next_key::<Key<'t>>()? {
            if !key.starts_with('$') && (deferred || !section.ready()) {
                deferred = true;
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let raw: &'t RawValue = map.next_value()?;
            if !section.names.insert(key.clone()) {
                return Err(unwind(reader.fail(raw, format!("`{}` is given twice", cut(&key, EXCERPT)))));
            }
            match key.as_ref() {
                "$id" if self.role == Role::Shared => {} // read by the first pass
                "$type" => {
                    let (type_id, schema) = reader.type_named(raw).map_err(unwind)?;
                    section.type_id = Some(type_id);
                    section.schema = schema;
                    if let Some(variant) = section.variant_raw.take() {
                        section.variant = Some(reader.variant(&section, variant).map_err(unwind)?);
                    }
                }
                "$variant" if section.type_id.is_some() => {
                    section.variant = Some(reader.variant(&section, raw).map_err(unwind)?);
                }
                "$variant" => section.variant_raw = Some(raw),
                "$bases" if self.role != Role::Base => bases = Some(raw),
                name if name.starts_with('$') => {
                    let why = format!("`{}` is no member of an object here", cut(name, EXCERPT));
                    return Err(unwind(reader.fail(raw, why)));
                }
                _ => reader.field(&mut section, key, raw).map_err(unwind)?,
            }
        }
        let Some(type_id) = section.type_id else {
            return Err(unwind(reader.fail(self.raw, "`$type` is missing")));
        };
        if let Some(variant) = section.variant_raw.take() {
            section.variant = Some(reader.variant(&section, variant).map_err(unwind)?);
        }
        if deferred {
            let raw = self.raw;
            let fields = DeferredFields { reader: &mut *reader, section: &mut section };
            reader_parse(fields, raw).map_err(unwind)?;
        }
        let mut fields = section.fields;
        if let Some(variant) = section.variant {
            let tag = PlainBytes::of(&[variant]);
            let shape = WireShape { kind: WireKind::Plain(Some(4)), array: false };
            fields.insert(0, DynamicField::new(VARIANT_TAG_FIELD_ID, shape, DynamicValue::Plain(tag)));
        }
        let mut own = DynamicSection::new(type_id, section.schema);
        *own.fields_mut() = fields;
        Ok((own, bases))
    }
}

/// The second reading of an object whose fields came before its type: the fields, in order.
struct DeferredFields<'r, 't, 's> {
    reader: &'r mut Reader<'t>,
    section: &'s mut Section<'t>,
}

/// Reads `raw` again for its fields.
fn reader_parse<'t>(fields: DeferredFields<'_, 't, '_>, raw: &'t RawValue) -> Result<(), Failed> {
    let DeferredFields { reader, section } = fields;
    reader.parse(raw, |reader, de| de.deserialize_map(DeferredFields { reader, section }))
}

impl<'t> Visitor<'t> for DeferredFields<'_, 't, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'t>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(Key(key)) = map.next_key::<Key<'t>>()? {
            if key.starts_with('$') {
                map.next_value::<IgnoredAny>()?; // read the first time
                continue;
            }
            let raw: &'t RawValue = map.next_value()?;
            if !self.section.names.insert(key.clone()) {
                return Err(unwind(self.reader.fail(raw, format!("`{}` is given twice", cut(&key, EXCERPT)))));
            }
            self.reader.field(self.section, key, raw).map_err(unwind)?;
        }
        Ok(())
    }
}

impl<'t> Reader<'t> {
    /// The type a `$type` member names: a type ID, or a name only one type has.
    fn type_named(&mut self, raw: &'t RawValue) -> Result<(u32, Option<Rc<TypeSchema>>), Failed> {
        let name: TypeName = self.parse(raw, |_, de| TypeName::deserialize(de))?;
        let id = match &name {
            TypeName::Id(id) => u32::try_from(*id).ok(),
            TypeName::Name(name) => match self.types.by_name.get(name.as_ref()) {
                Some(Some(id)) => Some(*id),
                Some(None) => {
                    let why = format!("two types are named `{}`: use its ID", cut(name, EXCERPT));
                    return Err(self.fail(raw, why));
                }
                None => return Err(self.fail(raw, format!("no type is named `{}`", cut(name, EXCERPT)))),
            },
        };
        let Some(id) = id else { return Err(self.fail(raw, "`$type` is not a type's name or ID")) };
        Ok((id, self.types.by_id.get(&id).cloned()))
    }

    /// The variant a `$variant` member names, of the section's type: its ID, or a name only one
    /// variant of the type has. A type the document describes must have it.
    fn variant(&mut self, section: &Section<'t>, raw: &'t RawValue) -> Result<u32, Failed> {
        let name: TypeName = self.parse(raw, |_, de| TypeName::deserialize(de))?;
        let type_id = section.type_id.unwrap_or(0);
        let id = match &name {
            TypeName::Id(id) => u32::try_from(*id).ok(),
            TypeName::Name(name) => self.types.variants.get(&(type_id, name.to_string())).copied().flatten(),
        };
        let known = |id: u32| section.schema.as_ref().is_none_or(|schema| schema.variants.iter().any(|v| v.id == id));
        match id.filter(|&id| known(id)) {
            Some(id) => Ok(id),
            None => Err(self.fail(raw, format!("no variant {}", cut(raw.get(), EXCERPT)))),
        }
    }
}

/// A `$type` or `$variant`: an ID or a name.
enum TypeName<'t> {
    Id(u64),
    Name(Cow<'t, str>),
}

impl<'t> Deserialize<'t> for TypeName<'t> {
    fn deserialize<D: Deserializer<'t>>(d: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl<'t> Visitor<'t> for NameVisitor {
            type Value = TypeName<'t>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a name or an ID")
            }
            fn visit_u64<E: de::Error>(self, id: u64) -> Result<TypeName<'t>, E> {
                Ok(TypeName::Id(id))
            }
            fn visit_borrowed_str<E: de::Error>(self, name: &'t str) -> Result<TypeName<'t>, E> {
                Ok(TypeName::Name(Cow::Borrowed(name)))
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<TypeName<'t>, E> {
                Ok(TypeName::Name(Cow::Owned(name.to_owned())))
            }
        }
        d.deserialize_any(NameVisitor)
    }
}

/// The first pass over `objects`: each object's `$id`, or which object has none (and why).
struct IdsVisitor;

impl<'t> Visitor<'t> for IdsVisitor {
    type Value = Result<Vec<u64>, (usize, String)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of objects")
    }

    fn visit_seq<A: SeqAccess<'t>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut ids = Vec::new();
        while let Some(raw) = seq.next_element::<&'t RawValue>()? {
            let at = ids.len();
            if !raw.get().starts_with('{') {
                return Ok(Err((at, "an object".into())));
            }
            let mut de = serde_json::Deserializer::from_str(raw.get());
            match de.deserialize_map(IdVisitor) {
                Ok(Some(id)) => ids.push(id),
                Ok(None) => return Ok(Err((at, "`$id` is missing".into()))),
                Err(error) => return Ok(Err((at, message_of(&error)))),
            }
        }
        Ok(Ok(ids))
    }
}

/// An object's `$id`, skipping the rest.
struct IdVisitor;

impl<'t> Visitor<'t> for IdVisitor {
    type Value = Option<u64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'t>>(self, mut map: A) -> Result<Option<u64>, A::Error> {
        let mut id = None;
        while let Some(Key(key)) = map.next_key::<Key<'t>>()? {
            if key == "$id" {
                if id.is_some() {
                    return Err(de::Error::custom("`$id` is given twice"));
                }
                id = Some(map.next_value::<u64>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(id)
    }
}

/// The second pass over `objects`: each object read into its handle.
struct ObjectsVisitor<'r, 't> {
    reader: &'r mut Reader<'t>,
}

impl<'t> Visitor<'t> for ObjectsVisitor<'_, 't> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of objects")
    }

    fn visit_seq<A: SeqAccess<'t>>(self, mut seq: A) -> Result<(), A::Error> {
        let reader = self.reader;
        let mut at = 0;
        while let Some(raw) = seq.next_element::<&'t RawValue>()? {
            reader.path.push(Step::Index(at));
            let object = reader.object(raw, true).map_err(unwind)?;
            *reader.handles[at].borrow_mut() = object;
            reader.path.pop();
            at += 1;
        }
        Ok(())
    }
}

/// `$bases`: base sections, each an object with its `$type`.
struct BasesVisitor<'r, 't, 's> {
    reader: &'r mut Reader<'t>,
    sections: &'s mut Vec<DynamicSection>,
}

impl<'t> Visitor<'t> for BasesVisitor<'_, 't, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of sections")
    }

    fn visit_seq<A: SeqAccess<'t>>(self, mut seq: A) -> Result<(), A::Error> {
        let reader = self.reader;
        while let Some(raw) = seq.next_element::<&'t RawValue>()? {
            reader.path.push(Step::Index(self.sections.len() - 1));
            if !raw.get().starts_with('{') {
                return Err(unwind(reader.fail(raw, "a base section is an object")));
            }
            let (section, _) = reader
                .parse(raw, |reader, de| de.deserialize_map(SectionVisitor { reader, role: Role::Base, raw }))
                .map_err(unwind)?;
            self.sections.push(section);
            reader.path.pop();
        }
        Ok(())
    }
}

/// The elements of an array field of objects or pointers.
struct ElementsVisitor<'r, 't, 'o> {
    reader: &'r mut Reader<'t>,
    embedded: bool,
    objects: &'o mut Vec<Option<DynamicObject>>,
    targets: &'o mut Vec<Option<DynamicRef>>,
}

impl<'t> Visitor<'t> for ElementsVisitor<'_, 't, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list")
    }

    fn visit_seq<A: SeqAccess<'t>>(self, mut seq: A) -> Result<(), A::Error> {
        let reader = self.reader;
        let mut at = 0;
        while let Some(raw) = seq.next_element::<&'t RawValue>()? {
            reader.path.push(Step::Index(at));
            if self.embedded {
                self.objects.push(reader.embedded(raw).map_err(unwind)?);
            } else {
                self.targets.push(reader.target(raw).map_err(unwind)?);
            }
            reader.path.pop();
            at += 1;
        }
        Ok(())
    }
}

/// A plain array field: a list of elements, or base64 for bytes. Returns the count.
struct PlainArray<'s, 'o> {
    sig: &'s [u32],
    out: &'o mut Vec<u8>,
}

impl<'t> Visitor<'t> for PlainArray<'_, '_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<usize, E> {
        let bytes = BASE64.decode(text).map_err(|error| E::custom(format!("bad base64: {error}")))?;
        self.out.extend_from_slice(&bytes);
        Ok(bytes.len())
    }

    fn visit_seq<A: SeqAccess<'t>>(self, mut seq: A) -> Result<usize, A::Error> {
        let mut count = 0;
        while seq.next_element_seed(PlainSeed { sig: self.sig, out: self.out })?.is_some() {
            count += 1;
        }
        Ok(count)
    }
}

/// A map field's entries as read: keys as stored, values as they come.
struct Entries {
    keys: Vec<u8>,
    count: usize,
    values: Vec<MapValue>,
}

enum MapValue {
    Null,
    Ref(DynamicRef),
    Object(DynamicObject),
}

struct EntriesVisitor<'r, 't, 'e> {
    reader: &'r mut Reader<'t>,
    described: &'e FieldSchema,
    entries: &'e mut Entries,
}

impl<'t> EntriesVisitor<'_, 't, '_> {
    fn value(&mut self, raw: &'t RawValue) -> Result<(), Failed> {
        let value = if is_null(raw) {
            MapValue::Null
        } else if first_key(raw) == Some("$ref") {
            self.reader.target(raw)?.map_or(MapValue::Null, MapValue::Ref)
        } else {
            MapValue::Object(self.reader.object(raw, false)?)
        };
        self.entries.values.push(value);
        self.entries.count += 1;
        Ok(())
    }
}

impl<'t> Visitor<'t> for EntriesVisitor<'_, 't, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map (an object or a list of pairs)")
    }

    fn visit_map<A: MapAccess<'t>>(mut self, mut map: A) -> Result<(), A::Error> {
        let mut names = AHashSet::new();
        while let Some(Key(name)) = map.next_key::<Key<'t>>()? {
            let raw: &'t RawValue = map.next_value()?;
            self.reader.path.push(Step::Member(name.clone()));
            if !names.insert(name.clone()) {
                return Err(unwind(self.reader.fail(raw, "the map lists this key twice")));
            }
            let keyed = plain::write_key::<A::Error>(&self.described.signature, &name, &mut self.entries.keys);
            keyed.map_err(|error| unwind(self.reader.fail(raw, error.to_string())))?;
            self.value(raw).map_err(unwind)?;
            self.reader.path.pop();
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'t>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let mut at = 0;
        while let Some(pair) = seq.next_element::<&'t RawValue>()? {
            self.reader.path.push(Step::Index(at));
            let sig = self.described.signature.clone();
            let keys = &mut self.entries.keys;
            let value =
                self.reader.parse(pair, |_, de| de.deserialize_seq(KeyThenRaw { sig: &sig, keys })).map_err(unwind)?;
            self.value(value).map_err(unwind)?;
            self.reader.path.pop();
            at += 1;
        }
        Ok(())
    }
}

/// A `[key, value]` pair of a map field: the key written, the value's text kept.
struct KeyThenRaw<'s, 'o> {
    sig: &'s [u32],
    keys: &'o mut Vec<u8>,
}

impl<'t> Visitor<'t> for KeyThenRaw<'_, '_> {
    type Value = &'t RawValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a [key, value] pair")
    }

    fn visit_seq<A: SeqAccess<'t>>(self, mut seq: A) -> Result<&'t RawValue, A::Error> {
        let pair = "a [key, value] pair";
        seq.next_element_seed(PlainSeed { sig: self.sig, out: self.keys })?
            .ok_or_else(|| de::Error::invalid_length(0, &pair))?;
        let value = seq.next_element::<&'t RawValue>()?.ok_or_else(|| de::Error::invalid_length(1, &pair))?;
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(3, &pair));
        }
        Ok(value)
    }
}

/// The types a document's objects name, by ID and by name.
struct Types {
    by_id: AHashMap<u32, Rc<TypeSchema>>,
    by_name: AHashMap<String, Option<u32>>,
    /// Variant IDs by (type ID, name); `None` for a name two variants of the type share.
    variants: AHashMap<(u32, String), Option<u32>>,
    /// Each type's (and variant's) field lookup, made once.
    lookups: AHashMap<(u32, Option<u32>), Rc<FieldLookup>>,
}

impl Types {
    fn new<'s>(stored: impl Iterator<Item = &'s Rc<TypeSchema>>, known: Option<&Schema>) -> Self {
        let mut types = Types {
            by_id: AHashMap::new(),
            by_name: AHashMap::new(),
            variants: AHashMap::new(),
            lookups: AHashMap::new(),
        };
        let known = known.map_or(&[][..], |known| known.types.as_slice()).iter().map(|schema| Rc::new(schema.clone()));
        // The document's own types first: a known type of the same ID does not replace them.
        for schema in stored.cloned().chain(known) {
            if types.by_id.contains_key(&schema.id) {
                continue;
            }
            types.by_id.insert(schema.id, schema.clone());
            for variant in &schema.variants {
                let key = (schema.id, variant.name.clone());
                types.variants.entry(key).and_modify(|id| *id = None).or_insert(Some(variant.id));
            }
            types.by_name.entry(schema.name.clone()).and_modify(|id| *id = None).or_insert(Some(schema.id));
        }
        types
    }

    fn lookup(&mut self, type_id: u32, variant: Option<u32>, schema: Option<&TypeSchema>) -> Rc<FieldLookup> {
        let fields = schema.map_or(&[][..], |schema| schema.fields_of(variant));
        self.lookups.entry((type_id, variant)).or_insert_with(|| Rc::new(FieldLookup::new(fields))).clone()
    }
}

/// Stored bytes are `count` whole elements of `shape`'s kind, as a stream holds them: what is
/// written from them must be a stream a decoder reads.
fn check_elements(shape: WireShape, count: usize, bytes: &[u8]) -> Result<(), String> {
    if !shape.array && count != 1 {
        return Err("a single field holds one element".into());
    }
    let WireKind::Plain(static_size) = shape.kind else { return Err("stored bytes are for plain fields".into()) };
    match static_size {
        Some(0) if count > crate::plain::ZERO_SIZED_ALLOWANCE => return Err(format!("{count} elements of no size")),
        Some(size) if count.checked_mul(usize::from(size)) != Some(bytes.len()) => {
            return Err(format!("{} bytes are not {count} elements of {size}", bytes.len()));
        }
        Some(_) => return Ok(()),
        None => {}
    }
    let mut reader = crate::plain::Reader::new(bytes);
    for _ in 0..count {
        crate::plain::skip_elem(&mut reader, None).map_err(|error| error.to_string())?;
    }
    match reader.remaining() {
        0 => Ok(()),
        extra => Err(format!("{extra} bytes after the {count} elements")),
    }
}
