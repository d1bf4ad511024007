//! A JSON document back into a dynamic graph: types from its `"types"` (or, for a document
//! without them, from a schema the caller has), objects by `$id`, pointers by `$ref`.

use super::lookup::FieldLookup;
use super::plain::from_json;
use super::schema::{parse_wire, type_from_json};
use super::write::map_key_size;
use super::{invalid, JsonError};
use crate::containers::{MAP_KEYS_FIELD_ID, MAP_TYPE_ID, MAP_VALUES_FIELD_ID};
use crate::dynamic::{
    DynamicField, DynamicGraph, DynamicObject, DynamicRef, DynamicSection, DynamicValue, PlainBytes, StoredEntry,
};
use crate::field::{WireKind, WireShape};
use crate::plain::type_ids as id;
use crate::schema::{DeclaredSchema, FieldSchema, Schema, TypeSchema};
use crate::serializer::format::{VARIANT_TAG_FIELD_ID, VERSION};
use crate::serializer::Encoding;
use crate::text::write_value;
use ahash::AHashMap;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use serde_json::{Map, Value};
use std::rc::Rc;

/// Most objects nested by value inside one another: deeper JSON is refused, not a stack overflow.
const MAX_NESTING: usize = 256;

/// The graph `document` describes; `known` describes types the document does not list.
pub(super) fn graph(document: &Value, known: Option<&Schema>) -> Result<DynamicGraph, JsonError> {
    let document = document.as_object().ok_or_else(|| invalid("", "a document is an object"))?;
    if let Some(form) = document.get("format").filter(|form| form.as_str() != Some(super::FORM)) {
        return Err(invalid("format", format!("{form} is not {:?}", super::FORM)));
    }
    let version = match document.get("version") {
        None => VERSION,
        Some(version) => version
            .as_u64()
            .and_then(|version| u32::try_from(version).ok())
            .filter(|version| (1..=VERSION).contains(version))
            .ok_or_else(|| invalid("version", format!("{version} is not a format version this program reads")))?,
    };
    let checksum = match document.get("checksum") {
        None => false,
        Some(checksum) => checksum.as_bool().ok_or_else(|| invalid("checksum", "true or false"))?,
    };
    // Each entry as a type, or as the stored bytes of one no object uses (`$entry`).
    let stored: Option<Vec<Result<TypeSchema, StoredEntry>>> = match document.get("types") {
        None | Some(Value::Null) => None,
        Some(Value::Array(types)) => Some(
            types
                .iter()
                .enumerate()
                .map(|(n, schema)| {
                    let at = format!("types[{n}]");
                    match schema.get("$entry") {
                        Some(raw) => {
                            let bytes = raw.as_str().and_then(|raw| BASE64.decode(raw).ok());
                            let entry = bytes.and_then(|bytes| DynamicGraph::raw_entry(&bytes));
                            entry.map(Err).ok_or_else(|| invalid(&at, "`$entry` is one entry's bytes, in base64"))
                        }
                        None => type_from_json(schema, &at).map(Ok),
                    }
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(_) => return Err(invalid("types", "a list of types")),
    };
    // A stream that listed its types' fingerprints instead of describing them: each as
    // `{"type": ID, "fingerprint": "16 hex digits"}` (hex, which a JSON number could not hold
    // exactly).
    let fingerprints: Option<Vec<(u32, u64)>> = match document.get("fingerprints") {
        None | Some(Value::Null) => None,
        Some(Value::Array(entries)) => Some(
            entries
                .iter()
                .enumerate()
                .map(|(n, entry)| {
                    let type_id = entry.get("type").and_then(Value::as_u64).and_then(|id| u32::try_from(id).ok());
                    let fingerprint = entry
                        .get("fingerprint")
                        .and_then(Value::as_str)
                        .filter(|hex| hex.len() == 16)
                        .and_then(|hex| u64::from_str_radix(hex, 16).ok());
                    type_id.zip(fingerprint).ok_or_else(|| {
                        invalid(&format!("fingerprints[{n}]"), "a type ID and a fingerprint of 16 hex digits")
                    })
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(_) => return Err(invalid("fingerprints", "a list of type IDs and fingerprints")),
    };
    if fingerprints.is_some() && (stored.is_some() || version < 3) {
        return Err(invalid("fingerprints", "a version 3 document lists fingerprints instead of types, not as well"));
    }
    let parsed: Vec<TypeSchema> = stored.iter().flatten().filter_map(|entry| entry.as_ref().ok().cloned()).collect();
    let types = Types::new(&parsed, known);
    let objects = document.get("objects").and_then(Value::as_array).ok_or_else(|| invalid("objects", "a list"))?;
    if objects.is_empty() {
        return Err(invalid("objects", "a document holds at least its root"));
    }
    let mut reader = Reader { types, ids: AHashMap::new(), handles: Vec::with_capacity(objects.len()), depth: 0 };
    for (at, object) in objects.iter().enumerate() {
        let path = format!("objects[{at}]");
        let id = object.get("$id").and_then(Value::as_u64).ok_or_else(|| invalid(&path, "`$id` is missing"))?;
        if reader.ids.insert(id, at).is_some() {
            return Err(invalid(&path, format!("`$id` {id} is used twice")));
        }
        reader.handles.push(DynamicRef::new(DynamicObject::new(0, None)));
    }
    for (at, object) in objects.iter().enumerate() {
        let path = format!("objects[{at}]");
        let object = object.as_object().ok_or_else(|| invalid(&path, "an object"))?;
        let built = reader.object(object, &path)?;
        *reader.handles[at].borrow_mut() = built;
    }
    let table = stored.map(|types| {
        let entry = |entry| match entry {
            Ok(schema) => StoredEntry::of(&schema),
            Err(raw) => raw,
        };
        types.into_iter().map(entry).collect::<Vec<_>>()
    });
    let mut graph = DynamicGraph::from_parts(
        version,
        checksum,
        reader.handles,
        if version >= 3 && fingerprints.is_none() { table.or(Some(Vec::new())) } else { None },
        fingerprints,
    );
    // A compact stream's document says so, with the plain block that described its plain types.
    match document.get("encoding").map(|encoding| encoding.as_str()) {
        None | Some(Some("normal")) => {}
        Some(Some("compact")) => graph.set_encoding(Encoding::Compact),
        Some(_) => return Err(invalid("encoding", "\"normal\" or \"compact\"")),
    }
    match document.get("plain_block") {
        None | Some(Value::Null) => {}
        Some(block) => {
            let bytes = block.as_str().and_then(|block| BASE64.decode(block).ok());
            let bytes = bytes.filter(|bytes| crate::serializer::compact::check_block(bytes).is_ok());
            let bytes = bytes.ok_or_else(|| invalid("plain_block", "a compact stream's plain block, in base64"))?;
            graph.set_plain_block(Some(bytes.into()));
        }
    }
    Ok(graph)
}

/// The types a document's objects name, by ID and by name.
struct Types {
    by_id: AHashMap<u32, Rc<TypeSchema>>,
    by_name: AHashMap<String, Option<u32>>,
    /// Variant IDs by (type ID, name); `None` for a name two variants of the type share.
    variants: AHashMap<(u32, String), Option<u32>>,
}

impl Types {
    fn new(stored: &[TypeSchema], known: Option<&Schema>) -> Self {
        let mut types = Types { by_id: AHashMap::new(), by_name: AHashMap::new(), variants: AHashMap::new() };
        let known = known.map_or(&[][..], |known| known.types.as_slice());
        // The document's own types first: a known type of the same ID does not replace them.
        for schema in stored.iter().chain(known) {
            if types.by_id.contains_key(&schema.id) {
                continue;
            }
            types.by_id.insert(schema.id, Rc::new(schema.clone()));
            for variant in &schema.variants {
                let key = (schema.id, variant.name.clone());
                types.variants.entry(key).and_modify(|id| *id = None).or_insert(Some(variant.id));
            }
            types.by_name.entry(schema.name.clone()).and_modify(|id| *id = None).or_insert(Some(schema.id));
        }
        types
    }

    /// The variant a `$variant` member names: its ID, or a name only one variant of the type has.
    fn variant_id(&self, type_id: u32, variant: &Value) -> Option<u32> {
        match variant {
            Value::Number(id) => id.as_u64().and_then(|id| u32::try_from(id).ok()),
            Value::String(name) => *self.variants.get(&(type_id, name.clone()))?,
            _ => None,
        }
    }

    /// The type a `$type` member names: a type ID, or a name only one type has.
    fn named(&self, name: &Value, path: &str) -> Result<(u32, Option<Rc<TypeSchema>>), JsonError> {
        let id = match name {
            Value::Number(id) => id.as_u64().and_then(|id| u32::try_from(id).ok()),
            Value::String(name) => match self.by_name.get(name) {
                Some(Some(id)) => Some(*id),
                Some(None) => return Err(invalid(path, format!("two types are named `{name}`: use its ID"))),
                None => return Err(invalid(path, format!("no type is named `{name}`"))),
            },
            _ => None,
        };
        let id = id.ok_or_else(|| invalid(path, format!("`$type` {name} is not a type's name or ID")))?;
        Ok((id, self.by_id.get(&id).cloned()))
    }
}

struct Reader {
    types: Types,
    ids: AHashMap<u64, usize>,
    handles: Vec<DynamicRef>,
    depth: usize,
}

impl Reader {
    /// An object: its own section, then the base sections `$bases` lists.
    fn object(&mut self, json: &Map<String, Value>, path: &str) -> Result<DynamicObject, JsonError> {
        if self.depth >= MAX_NESTING {
            return Err(invalid(path, format!("objects nested more than {MAX_NESTING} deep")));
        }
        self.depth += 1;
        let mut sections = vec![self.section(json, path)?];
        if let Some(bases) = json.get("$bases") {
            let bases = bases.as_array().ok_or_else(|| invalid(path, "`$bases` is a list of sections"))?;
            for (n, base) in bases.iter().enumerate() {
                let at = format!("{path}.$bases[{n}]");
                let base = base.as_object().ok_or_else(|| invalid(&at, "a base section is an object"))?;
                sections.push(self.section(base, &at)?);
            }
        }
        self.depth -= 1;
        Ok(DynamicObject::from_sections(sections))
    }

    fn section(&mut self, json: &Map<String, Value>, path: &str) -> Result<DynamicSection, JsonError> {
        let name = json.get("$type").ok_or_else(|| invalid(path, "`$type` is missing"))?;
        let (type_id, schema) = self.types.named(name, path)?;
        let mut section = DynamicSection::new(type_id, schema.clone());
        let variant = match json.get("$variant") {
            None => None,
            Some(variant) => {
                let id = self
                    .types
                    .variant_id(type_id, variant)
                    .ok_or_else(|| invalid(path, format!("no variant {variant}")))?;
                let tag = PlainBytes::of(&[id]);
                let shape = WireShape { kind: WireKind::Plain(Some(4)), array: false };
                section.fields_mut().push(DynamicField::new(VARIANT_TAG_FIELD_ID, shape, DynamicValue::Plain(tag)));
                Some(id)
            }
        };
        let lookup = FieldLookup::new(schema.as_deref().map_or(&[][..], |schema| schema.fields_of(variant)));
        for (key, value) in json {
            if matches!(key.as_str(), "$id" | "$type" | "$variant" | "$bases") {
                continue;
            }
            let path = format!("{path}.{key}");
            // A member is a field's name, or its ID (`7`, `7#2` for a field a stream repeats).
            let (described, id) = match key.split('#').next().and_then(|id| id.parse::<u16>().ok()) {
                Some(id) => (lookup.by_id(id), Some(id)),
                None => (lookup.by_name(key), None),
            };
            section.fields_mut().push(self.field(described, id, key, value, &path)?);
        }
        Ok(section)
    }

    fn field(
        &mut self,
        described: Option<&FieldSchema>,
        id: Option<u16>,
        key: &str,
        value: &Value,
        path: &str,
    ) -> Result<DynamicField, JsonError> {
        // The stored form of any field: its shape, and its bytes or objects as they are.
        if let Some(wire) = value.as_object().and_then(|object| object.get("$wire").or(object.get("$bytes"))) {
            let object = value.as_object().expect("checked");
            let shape = match (object.get("$wire"), described) {
                (Some(code), _) => code
                    .as_str()
                    .and_then(parse_wire)
                    .ok_or_else(|| invalid(path, format!("{wire} is not a wire shape")))?,
                (None, Some(described)) => described.shape,
                (None, None) => return Err(invalid(path, "a field no type describes needs its `$wire`")),
            };
            let id = match (id, described) {
                (Some(id), _) => id,
                (None, Some(described)) => described.id,
                (None, None) => return Err(invalid(path, "a field no type describes is named by its ID")),
            };
            return match shape.kind {
                WireKind::Plain(_) => {
                    let count = object.get("$count").and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok());
                    let count = count.ok_or_else(|| invalid(path, "`$count` is missing"))?;
                    let bytes = object
                        .get("$bytes")
                        .and_then(Value::as_str)
                        .ok_or_else(|| invalid(path, "`$bytes` is missing"))?;
                    let bytes = BASE64.decode(bytes).map_err(|error| invalid(path, format!("bad base64: {error}")))?;
                    check_elements(shape, count as usize, &bytes).map_err(|message| invalid(path, message))?;
                    Ok(DynamicField::new(id, shape, DynamicValue::Plain(PlainBytes::from_wire(count, &bytes))))
                }
                _ => {
                    let inner = object.get("$value").ok_or_else(|| invalid(path, "`$value` is missing"))?;
                    self.objects_field(id, shape, inner, path)
                }
            };
        }
        let Some(described) = described else {
            return Err(invalid(path, format!("no field `{key}` in this type")));
        };
        let as_entries = value.is_array() || value.as_object().is_some_and(|object| !object.contains_key("$type"));
        if described.declared == Some(DeclaredSchema::Type(MAP_TYPE_ID)) && !described.shape.array && as_entries {
            return self.map_field(described, value, path);
        }
        match described.shape.kind {
            WireKind::Plain(_) => plain_field(described, value, path),
            _ => self.objects_field(described.id, described.shape, value, path),
        }
    }

    /// A map field written as its entries: an object of them, or a list of `[key, value]` pairs.
    /// Its values are pointers when the first that is not `null` is a `{"$ref": id}`, or when
    /// none tells (an empty map); objects otherwise.
    fn map_field(&mut self, described: &FieldSchema, value: &Value, path: &str) -> Result<DynamicField, JsonError> {
        let (keys, values): (Vec<Value>, Vec<Value>) = match value {
            Value::Object(entries) => {
                entries.iter().map(|(key, value)| (Value::String(key.clone()), value.clone())).unzip()
            }
            Value::Array(pairs) => pairs
                .iter()
                .map(|pair| match pair.as_array().map(Vec::as_slice) {
                    Some([key, value]) => Ok((key.clone(), value.clone())),
                    _ => Err(invalid(path, "a map's entry is a [key, value] pair")),
                })
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .unzip(),
            _ => return Err(invalid(path, "a map is an object or a list of pairs")),
        };
        let size =
            map_key_size(&described.signature).ok_or_else(|| invalid(path, "a map's keys have no known type"))?;
        let keys_field = FieldSchema {
            id: MAP_KEYS_FIELD_ID,
            shape: WireShape { kind: WireKind::Plain(size), array: true },
            signature: described.signature.clone(),
            ..FieldSchema::default()
        };
        let keys = plain_field(&keys_field, &Value::Array(keys), path)?;
        let pointers = values.iter().find(|value| !value.is_null()).is_none_or(|value| value.get("$ref").is_some());
        let kind = if pointers { WireKind::Pointer } else { WireKind::Embedded };
        let values =
            self.objects_field(MAP_VALUES_FIELD_ID, WireShape { kind, array: true }, &Value::Array(values), path)?;
        let mut map = DynamicObject::new(MAP_TYPE_ID, None);
        map.own_mut().fields_mut().extend([keys, values]);
        Ok(DynamicField::new(described.id, described.shape, DynamicValue::Embedded(Box::new([Some(map)]))))
    }

    fn objects_field(
        &mut self,
        id: u16,
        shape: WireShape,
        value: &Value,
        path: &str,
    ) -> Result<DynamicField, JsonError> {
        let values: &[Value] = match (shape.array, value) {
            (true, Value::Array(values)) => values,
            (true, _) => return Err(invalid(path, "an array field is a list")),
            (false, value) => std::slice::from_ref(value),
        };
        let at = |n: usize| if shape.array { format!("{path}[{n}]") } else { path.to_owned() };
        let value = match shape.kind {
            WireKind::Embedded => DynamicValue::Embedded(
                values
                    .iter()
                    .enumerate()
                    .map(|(n, value)| match value {
                        Value::Null => Ok(None),
                        Value::Object(object) => self.object(object, &at(n)).map(Some),
                        _ => Err(invalid(&at(n), "an embedded object is an object or null")),
                    })
                    .collect::<Result<Vec<_>, _>>()?
                    .into(),
            ),
            _ => DynamicValue::Pointer(
                values
                    .iter()
                    .enumerate()
                    .map(|(n, value)| self.target(value, &at(n)))
                    .collect::<Result<Vec<_>, _>>()?
                    .into(),
            ),
        };
        Ok(DynamicField::new(id, shape, value))
    }

    /// A pointer: `null`, or `{"$ref": id}` naming an object of the document.
    fn target(&self, value: &Value, path: &str) -> Result<Option<DynamicRef>, JsonError> {
        if value.is_null() {
            return Ok(None);
        }
        let id = value
            .get("$ref")
            .and_then(Value::as_u64)
            .ok_or_else(|| invalid(path, "a pointer is {\"$ref\": id} or null"))?;
        let at = self.ids.get(&id).ok_or_else(|| invalid(path, format!("no object has `$id` {id}")))?;
        Ok(Some(self.handles[*at].clone()))
    }
}

/// A plain field's value by its stored type.
fn plain_field(described: &FieldSchema, value: &Value, path: &str) -> Result<DynamicField, JsonError> {
    let signature = &described.signature;
    let mut bytes = Vec::new();
    let mut write = |element: &Value| -> Result<(), JsonError> {
        let element = from_json(signature, element).map_err(|message| invalid(path, message))?;
        write_value(signature, &element, &mut bytes).map_err(|error| invalid(path, error.to_string()))
    };
    let count = match (described.shape.array, value) {
        (true, Value::String(text)) if signature.as_slice() == [id::U8] => {
            bytes = BASE64.decode(text).map_err(|error| invalid(path, format!("bad base64: {error}")))?;
            bytes.len()
        }
        (true, Value::Array(elements)) => {
            elements.iter().try_for_each(&mut write)?;
            elements.len()
        }
        (true, _) => return Err(invalid(path, "an array field is a list")),
        (false, value) => {
            write(value)?;
            1
        }
    };
    let count = u32::try_from(count).map_err(|_| invalid(path, "too many elements"))?;
    if let WireKind::Plain(Some(size)) = described.shape.kind {
        if bytes.len() != count as usize * usize::from(size) {
            return Err(invalid(
                path,
                format!("elements of {} bytes where the field holds {size}", bytes.len() / count.max(1) as usize),
            ));
        }
    }
    Ok(DynamicField::new(described.id, described.shape, DynamicValue::Plain(PlainBytes::from_wire(count, &bytes))))
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
