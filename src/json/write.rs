//! A dynamic graph as a JSON document (see the module's documentation for the form), streamed
//! through serde: a level of 100,000 objects is written without building its tree first.

use super::lookup::FieldLookup;
use super::plain::to_json;
use super::read::PlainSeed;
use super::schema::{type_to_json, wire_code};
use crate::containers::{MAP_KEYS_FIELD_ID, MAP_TYPE_ID, MAP_VALUES_FIELD_ID};
use crate::dynamic::InstanceIndex;
use crate::dynamic::{DynamicField, DynamicGraph, DynamicObject, DynamicRef, DynamicSection, DynamicValue};
use crate::field::{WireKind, WireShape};
use crate::plain::type_ids as id;
use crate::schema::{DeclaredSchema, FieldSchema, TypeSchema};
use crate::serializer::Encoding;
use crate::wire::format::VARIANT_TAG_FIELD_ID;
use ahash::{AHashMap, AHashSet};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use serde::de::DeserializeSeed;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;
use smallvec::SmallVec;
use std::borrow::Cow;

/// The document of `graph`, ready to serialize.
pub(super) struct Document<'g> {
    graph: &'g DynamicGraph,
    entries: Option<Vec<Result<TypeSchema, &'g [u8]>>>,
    writer: Writer,
}

impl<'g> Document<'g> {
    pub(super) fn new(graph: &'g DynamicGraph) -> Self {
        let entries = graph.stored_types();
        let names = TypeNames::of(entries.as_deref().unwrap_or_default());
        let shared_variants = shared_variants(entries.as_deref().unwrap_or_default());
        Document { graph, entries, writer: Writer { index: graph.instance_index(), names, shared_variants } }
    }
}

impl Serialize for Document<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fingerprints = self.graph.fingerprints();
        let compact = self.graph.encoding() == Encoding::Compact;
        let block = self.graph.plain_block().filter(|_| compact);
        let members = 5 + usize::from(fingerprints.is_some()) + usize::from(compact) + usize::from(block.is_some());
        let mut document = serializer.serialize_map(Some(members))?;
        document.serialize_entry("format", super::FORM)?;
        document.serialize_entry("version", &self.graph.version())?;
        document.serialize_entry("checksum", &self.graph.has_checksum())?;
        if compact {
            document.serialize_entry("encoding", "compact")?;
        }
        if let Some(block) = block {
            document.serialize_entry("plain_block", &BASE64.encode(block))?;
        }
        // An entry that does not parse (no object uses it) keeps its bytes.
        let types = self.entries.as_ref().map(|entries| {
            let entry = |entry: &Result<TypeSchema, &[u8]>| match entry {
                Ok(schema) => type_to_json(schema),
                Err(bytes) => serde_json::json!({ "$entry": BASE64.encode(bytes) }),
            };
            entries.iter().map(entry).collect::<Vec<_>>()
        });
        document.serialize_entry("types", &types)?;
        if let Some(fingerprints) = fingerprints {
            let entries: Vec<Value> = fingerprints
                .iter()
                .map(|&(type_id, fingerprint)| {
                    serde_json::json!({ "type": type_id, "fingerprint": format!("{fingerprint:016x}") })
                })
                .collect();
            document.serialize_entry("fingerprints", &entries)?;
        }
        document.serialize_entry("objects", &Objects(self))?;
        document.end()
    }
}

/// The shared objects, in instance order.
struct Objects<'d, 'g>(&'d Document<'g>);

impl Serialize for Objects<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let objects = self.0.graph.objects();
        let mut list = serializer.serialize_seq(Some(objects.len()))?;
        for (at, object) in objects.iter().enumerate() {
            list.serialize_element(&Object { writer: &self.0.writer, object: &object.borrow(), id: Some(at + 1) })?;
        }
        list.end()
    }
}

/// How `$type` names each type: by name where no other type of the document has it, else by ID.
struct TypeNames(AHashMap<u32, String>);

impl TypeNames {
    fn of(entries: &[Result<TypeSchema, &[u8]>]) -> Self {
        let types = || entries.iter().filter_map(|entry| entry.as_ref().ok());
        let mut uses: AHashMap<&str, usize> = AHashMap::new();
        types().for_each(|schema| *uses.entry(&schema.name).or_default() += 1);
        let unique = types().filter(|schema| uses[schema.name.as_str()] == 1);
        TypeNames(unique.map(|schema| (schema.id, schema.name.clone())).collect())
    }
}

struct Writer {
    index: InstanceIndex,
    names: TypeNames,
    /// Variants (type ID, variant ID) whose name another variant of their enum has: they go by
    /// ID.
    shared_variants: AHashSet<(u32, u32)>,
}

/// The variants of `entries` that share their name with another variant of their type.
fn shared_variants(entries: &[Result<TypeSchema, &[u8]>]) -> AHashSet<(u32, u32)> {
    let mut shared = AHashSet::new();
    for schema in entries.iter().filter_map(|entry| entry.as_ref().ok()) {
        let mut first: AHashMap<&str, u32> = AHashMap::new();
        for variant in &schema.variants {
            if let Some(&other) = first.get(variant.name.as_str()) {
                shared.extend([(schema.id, other), (schema.id, variant.id)]);
            } else {
                first.insert(&variant.name, variant.id);
            }
        }
    }
    shared
}

/// One object: its `$id` (a shared one), its own section's members, and its base sections as
/// `$bases`, a list (not nested: a chain of any length stays one level deep).
struct Object<'a> {
    writer: &'a Writer,
    object: &'a DynamicObject,
    id: Option<usize>,
}

impl Serialize for Object<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let Some(id) = self.id {
            map.serialize_entry("$id", &id)?;
        }
        let (own, bases) = self.object.sections().split_first().expect("an object has its own section");
        Section { writer: self.writer, section: own }.members(&mut map)?;
        if !bases.is_empty() {
            map.serialize_entry("$bases", &Bases { writer: self.writer, sections: bases })?;
        }
        map.end()
    }
}

struct Bases<'a> {
    writer: &'a Writer,
    sections: &'a [DynamicSection],
}

impl Serialize for Bases<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut list = serializer.serialize_seq(Some(self.sections.len()))?;
        for section in self.sections {
            list.serialize_element(&Section { writer: self.writer, section })?;
        }
        list.end()
    }
}

struct Section<'a> {
    writer: &'a Writer,
    section: &'a DynamicSection,
}

impl Serialize for Section<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.members(&mut map)?;
        map.end()
    }
}

impl Section<'_> {
    /// `$type`, `$variant` for an enum, then each field by its member name.
    fn members<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        let (section, writer) = (self.section, self.writer);
        match writer.names.0.get(&section.type_id()) {
            Some(name) => map.serialize_entry("$type", name)?,
            None => map.serialize_entry("$type", &section.type_id())?,
        }
        let schema = section.schema();
        // The variant tag, in the one shape `$variant` gives back: a field 0 of another shape is
        // a field like any other, and the section is read as holding no variant.
        let tag_shape = WireShape { kind: WireKind::Plain(Some(4)), array: false };
        let tagged =
            section.fields().first().is_some_and(|tag| tag.id() == VARIANT_TAG_FIELD_ID && tag.shape() == tag_shape);
        let variant = section.variant().filter(|_| tagged);
        let lookup = FieldLookup::new(schema.map_or(&[][..], |schema| schema.fields_of(variant)));
        let mut keys = Keys::default();
        for (at, field) in section.fields().iter().enumerate() {
            let is_tag = at == 0 && tagged;
            if let Some(variant) = variant.filter(|_| is_tag) {
                // By name where no other variant has it, else by ID.
                let shared = writer.shared_variants.contains(&(section.type_id(), variant));
                let named = schema.filter(|_| !shared).and_then(|schema| Some(&schema.variant(variant)?.name));
                match named {
                    Some(name) => map.serialize_entry("$variant", name)?,
                    None => map.serialize_entry("$variant", &variant)?,
                }
                continue;
            }
            // What `DynamicSection::describe` finds, through the lookup; the name stands for the
            // field only when no other field of the type has it.
            let described = lookup.by_id(field.id()).filter(|described| described.shape == field.shape());
            let name = described
                .map(|described| described.name.as_str())
                .filter(|name| lookup.by_name(name).is_some_and(|named| named.id == field.id()));
            let key = keys.claim(name, field.id());
            map.serialize_entry(key.as_ref(), &Field { writer, described, field })?;
        }
        Ok(())
    }
}

/// The member names a section has used. A field's member is its name, unless a stream's schema
/// gave it one this form cannot tell from its own members (`$...`) or from an ID (`7`), or
/// another field of the section took it; then its ID, made unique with `#2`, `#3`... (a stream
/// may hold a field twice). A list while short (most sections have a few fields), a set past it.
#[derive(Default)]
struct Keys<'a> {
    few: SmallVec<[Cow<'a, str>; 16]>,
    many: AHashSet<Cow<'a, str>>,
}

impl<'a> Keys<'a> {
    fn claim(&mut self, name: Option<&'a str>, id: u16) -> Cow<'a, str> {
        let usable =
            |name: &str| !name.is_empty() && !name.starts_with(['$', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
        let key = match name {
            Some(name) if usable(name) && !self.taken(name) => Cow::Borrowed(name),
            _ => (1..)
                .map(|n| if n == 1 { id.to_string() } else { format!("{id}#{n}") })
                .find(|key| !self.taken(key))
                .map(Cow::Owned)
                .expect("a free key"),
        };
        match self.few.len() < self.few.inline_size() {
            true => self.few.push(key.clone()),
            false => {
                self.many.insert(key.clone());
            }
        }
        key
    }

    fn taken(&self, key: &str) -> bool {
        self.few.iter().any(|taken| taken == key) || self.many.contains(key)
    }
}

/// One field's value.
struct Field<'a> {
    writer: &'a Writer,
    described: Option<&'a FieldSchema>,
    field: &'a DynamicField,
}

impl Serialize for Field<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (writer, field) = (self.writer, self.field);
        let Some(described) = self.described else { return Stored { writer, field }.serialize(serializer) };
        match field.value() {
            DynamicValue::Plain(_) => match super::scalar::json_scalars(&described.signature, field) {
                Some(scalars) => scalars.serialize(serializer),
                None => match plain(described, field) {
                    Some(value) => value.serialize(serializer),
                    None => Stored { writer, field }.serialize(serializer),
                },
            },
            DynamicValue::Embedded(objects) => match writer.map(described, field) {
                Some(map) => map.serialize(serializer),
                None => {
                    Values { writer, array: field.shape().array, embedded: objects, targets: &[] }.serialize(serializer)
                }
            },
            DynamicValue::Pointer(targets) => {
                Values { writer, array: field.shape().array, embedded: &[], targets }.serialize(serializer)
            }
        }
    }
}

/// A field in its stored form: its wire shape, and its bytes or objects as they are.
struct Stored<'a> {
    writer: &'a Writer,
    field: &'a DynamicField,
}

impl Serialize for Stored<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (writer, field) = (self.writer, self.field);
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("$wire", &wire_code(field.shape()))?;
        match field.value() {
            DynamicValue::Plain(bytes) => {
                map.serialize_entry("$count", &bytes.count())?;
                map.serialize_entry("$bytes", &BASE64.encode(bytes.bytes()))?;
            }
            DynamicValue::Embedded(objects) => map.serialize_entry(
                "$value",
                &Values { writer, array: field.shape().array, embedded: objects, targets: &[] },
            )?,
            DynamicValue::Pointer(targets) => {
                map.serialize_entry("$value", &Values { writer, array: field.shape().array, embedded: &[], targets })?
            }
        }
        map.end()
    }
}

/// The objects or the targets of a field: one value for a single field, a list for an array.
struct Values<'a> {
    writer: &'a Writer,
    array: bool,
    embedded: &'a [Option<DynamicObject>],
    targets: &'a [Option<DynamicRef>],
}

impl Serialize for Values<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let writer = self.writer;
        fn embedded<'a>(writer: &'a Writer, object: &'a Option<DynamicObject>) -> Embedded<'a> {
            Embedded { writer, object: object.as_ref() }
        }
        fn target<'a>(writer: &'a Writer, target: &'a Option<DynamicRef>) -> Target<'a> {
            Target { writer, target: target.as_ref() }
        }
        match (self.array, self.embedded, self.targets) {
            (false, [object], []) => embedded(writer, object).serialize(serializer),
            (false, [], [one]) => target(writer, one).serialize(serializer),
            _ => {
                let mut list = serializer.serialize_seq(Some(self.embedded.len() + self.targets.len()))?;
                for object in self.embedded {
                    list.serialize_element(&embedded(writer, object))?;
                }
                for one in self.targets {
                    list.serialize_element(&target(writer, one))?;
                }
                list.end()
            }
        }
    }
}

/// An object held by value, or `null`.
struct Embedded<'a> {
    writer: &'a Writer,
    object: Option<&'a DynamicObject>,
}

impl Serialize for Embedded<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.object {
            Some(object) => Object { writer: self.writer, object, id: None }.serialize(serializer),
            None => serializer.serialize_none(),
        }
    }
}

/// A pointer: `{"$ref": id}`, or `null`.
struct Target<'a> {
    writer: &'a Writer,
    target: Option<&'a DynamicRef>,
}

impl Serialize for Target<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.target.and_then(|target| self.writer.index.get(target)) {
            Some(instance) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("$ref", &instance)?;
                map.end()
            }
            None => serializer.serialize_none(),
        }
    }
}

impl Writer {
    /// A map field as a map: an object of its entries when its keys are strings, else a list of
    /// `[key, value]` pairs. `None` where that form would not give back the stored map object
    /// exactly (then the map object is written as an object like any other): keys that do not
    /// read back to their bytes, a map object with other fields, or no value that tells whether
    /// the map holds objects or pointers.
    fn map(&self, described: &FieldSchema, field: &DynamicField) -> Option<Value> {
        if described.declared != Some(DeclaredSchema::Type(MAP_TYPE_ID)) || field.shape().array {
            return None;
        }
        let DynamicValue::Embedded(objects) = field.value() else { return None };
        let map = objects.first()?.as_ref()?;
        let [section] = map.sections() else { return None };
        let [keys, values] = section.fields() else { return None };
        let keys_sig = &described.signature;
        let keys_shape = WireShape { kind: WireKind::Plain(map_key_size(keys_sig)?), array: true };
        if map.type_id() != MAP_TYPE_ID || keys.id() != MAP_KEYS_FIELD_ID || keys.shape() != keys_shape {
            return None;
        }
        if (values.id(), values.shape().array) != (MAP_VALUES_FIELD_ID, true) {
            return None;
        }
        let key_field = FieldSchema { signature: keys_sig.clone(), ..FieldSchema::default() };
        // `u8` keys would be one base64 string: such a map is written as an object.
        if keys_sig.as_slice() == [id::U8] {
            return None;
        }
        let keys = plain(&key_field, keys)?.values()?;
        let values: Vec<Value> = match values.value() {
            DynamicValue::Embedded(objects) => objects
                .iter()
                .map(|object| serde_json::to_value(Embedded { writer: self, object: object.as_ref() }))
                .collect::<Result<_, _>>()
                .ok()?,
            DynamicValue::Pointer(targets) => targets
                .iter()
                .map(|target| serde_json::to_value(Target { writer: self, target: target.as_ref() }))
                .collect::<Result<_, _>>()
                .ok()?,
            DynamicValue::Plain(_) => return None,
        };
        if values.len() != keys.len() || values.iter().all(Value::is_null) {
            return None;
        }
        let named: Option<serde_json::Map<String, Value>> = keys
            .iter()
            .zip(&values)
            .map(|(key, value)| match key {
                Value::String(name) if !name.starts_with('$') => Some((name.clone(), value.clone())),
                _ => None,
            })
            .collect();
        Some(match named.filter(|named| named.len() == keys.len()) {
            Some(named) => Value::Object(named),
            None => {
                Value::Array(keys.into_iter().zip(values).map(|(key, value)| Value::Array(vec![key, value])).collect())
            }
        })
    }
}

/// The wire kind of a map's keys of type `signature`, as the map type declares them.
pub(super) fn map_key_size(signature: &[u32]) -> Option<Option<u8>> {
    Some(crate::text::static_size(signature).ok()?.and_then(|size| u8::try_from(size).ok()))
}

/// A plain field's value by its stored type, when that JSON reads back to exactly the stored
/// bytes (`None` otherwise: a type this program cannot take apart, or bytes only their own codec
/// holds, such as a NaN's payload, keep their stored form). Checked and then written one element
/// at a time: a field of a million elements never becomes a million values at once.
fn plain<'a>(described: &'a FieldSchema, field: &'a DynamicField) -> Option<PlainJson<'a>> {
    let DynamicValue::Plain(bytes) = field.value() else { return None };
    let WireKind::Plain(static_size) = field.shape().kind else { return None };
    let json = PlainJson {
        signature: &described.signature,
        static_size,
        array: field.shape().array,
        count: bytes.count(),
        bytes: bytes.bytes(),
    };
    if json.array && json.signature == [id::U8] {
        return Some(json); // an array of bytes is one base64 string, exact by construction
    }
    // Elements of no size cost the stream nothing and the JSON a value each: past the text
    // module's cap they keep their stored form, as a whole value read at once would.
    if static_size == Some(0) && json.count > crate::text::MAX_ZERO_SIZED_SHOWN {
        return None;
    }
    let exact = crate::text::remembering(json.signature, || {
        let mut rewritten = Vec::new();
        json.elements().all(|element| {
            let Some(value) = element.and_then(|element| json.value(element)) else { return false };
            rewritten.clear();
            // Read back as the reader reads it.
            PlainSeed { sig: json.signature, out: &mut rewritten }.deserialize(&value).is_ok()
                && Some(rewritten.as_slice()) == element
        })
    });
    exact.then_some(json)
}

/// A plain field's elements, written as JSON (see [`plain`]).
struct PlainJson<'a> {
    signature: &'a [u32],
    static_size: Option<u8>,
    array: bool,
    count: usize,
    bytes: &'a [u8],
}

impl<'a> PlainJson<'a> {
    /// Each element's stored bytes (`None` for bytes that are not `count` whole elements).
    fn elements(&self) -> impl Iterator<Item = Option<&'a [u8]>> + '_ {
        let mut reader = crate::plain::Reader::new(self.bytes);
        let (bytes, static_size) = (self.bytes, self.static_size.map(u32::from));
        (0..self.count).map(move |_| {
            let start = reader.offset();
            crate::plain::skip_elem(&mut reader, static_size).ok()?;
            Some(&bytes[start..reader.offset()])
        })
    }

    /// One element as JSON.
    fn value(&self, element: &[u8]) -> Option<Value> {
        let value = crate::text::read_field(self.signature, self.static_size, 1, false, element).ok()?;
        Some(to_json(self.signature, &value))
    }

    /// Every element as JSON (a map's keys, which the map's form needs all at once).
    fn values(&self) -> Option<Vec<Value>> {
        self.elements().map(|element| self.value(element?)).collect()
    }
}

impl Serialize for PlainJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        if self.array && self.signature == [id::U8] {
            return BASE64.encode(self.bytes).serialize(serializer);
        }
        let value = |element: Option<&[u8]>| element.and_then(|element| self.value(element));
        let missing = || S::Error::custom("a plain value changed while it was written");
        if !self.array {
            return value(self.elements().next().flatten()).ok_or_else(missing)?.serialize(serializer);
        }
        crate::text::remembering(self.signature, || {
            let mut seq = serializer.serialize_seq(Some(self.count))?;
            for element in self.elements() {
                seq.serialize_element(&value(element).ok_or_else(missing)?)?;
            }
            seq.end()
        })
    }
}
