//! A dynamic graph as a JSON document (see the module's documentation for the form).

use super::plain::{from_json, to_json};
use super::schema::{type_to_json, wire_code};
use crate::containers::{MAP_KEYS_FIELD_ID, MAP_TYPE_ID, MAP_VALUES_FIELD_ID};
use crate::dynamic::{DynamicField, DynamicGraph, DynamicObject, DynamicSection, DynamicValue, InstanceIndex};
use crate::field::{WireKind, WireShape};
use crate::plain::type_ids as id;
use crate::schema::{DeclaredSchema, FieldSchema, TypeSchema};
use crate::serializer::format::VARIANT_TAG_FIELD_ID;
use crate::text::{write_value, PlainValue};
use ahash::AHashMap;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use serde_json::{Map, Value};

/// The document of `graph`.
pub(super) fn document(graph: &DynamicGraph) -> Value {
    let entries = graph.stored_types();
    let types: Option<Vec<TypeSchema>> =
        entries.as_ref().map(|entries| entries.iter().filter_map(|entry| entry.as_ref().ok().cloned()).collect());
    let writer = Writer { index: graph.instance_index(), names: TypeNames::of(types.as_deref()) };
    let mut document = Map::new();
    document.insert("format".into(), super::FORM.into());
    document.insert("version".into(), graph.version().into());
    document.insert("checksum".into(), graph.has_checksum().into());
    // An entry that does not parse (no object uses it) keeps its bytes.
    let types = entries.map(|entries| {
        let entry = |entry: &Result<TypeSchema, &[u8]>| match entry {
            Ok(schema) => type_to_json(schema),
            Err(bytes) => serde_json::json!({ "$entry": BASE64.encode(bytes) }),
        };
        Value::Array(entries.iter().map(entry).collect())
    });
    document.insert("types".into(), types.unwrap_or(Value::Null));
    let objects = graph.objects().iter().enumerate().map(|(at, object)| {
        let mut json = Map::new();
        json.insert("$id".into(), (at + 1).into());
        writer.object(&object.borrow(), &mut json);
        Value::Object(json)
    });
    document.insert("objects".into(), Value::Array(objects.collect()));
    Value::Object(document)
}

/// How `$type` names each type: by name where no other type of the document has it, else by ID.
struct TypeNames(AHashMap<u32, String>);

impl TypeNames {
    fn of(types: Option<&[TypeSchema]>) -> Self {
        let Some(types) = types else { return TypeNames(AHashMap::new()) };
        let mut uses: AHashMap<&str, usize> = AHashMap::new();
        types.iter().for_each(|schema| *uses.entry(&schema.name).or_default() += 1);
        let unique = types.iter().filter(|schema| uses[schema.name.as_str()] == 1);
        TypeNames(unique.map(|schema| (schema.id, schema.name.clone())).collect())
    }

    fn of_type(&self, type_id: u32) -> Value {
        self.0.get(&type_id).map_or_else(|| type_id.into(), |name| name.clone().into())
    }
}

struct Writer {
    index: InstanceIndex,
    names: TypeNames,
}

impl Writer {
    /// `object`'s members into `json`: its type, then its own section, with each base section
    /// nested under `$base`.
    fn object(&self, object: &DynamicObject, json: &mut Map<String, Value>) {
        let mut sections = object.sections().iter();
        let own = sections.next().expect("an object has its own section");
        self.section(own, json);
        let mut bases: Vec<Map<String, Value>> = sections
            .map(|section| {
                let mut base = Map::new();
                self.section(section, &mut base);
                base
            })
            .collect();
        // Innermost base last: fold from the end so each base holds the next one.
        let nested = bases.drain(..).rev().reduce(|inner, mut outer| {
            outer.insert("$base".into(), Value::Object(inner));
            outer
        });
        if let Some(base) = nested {
            json.insert("$base".into(), Value::Object(base));
        }
    }

    fn section(&self, section: &DynamicSection, json: &mut Map<String, Value>) {
        json.insert("$type".into(), self.names.of_type(section.type_id()));
        let schema = section.schema();
        let variant = section.variant();
        for (at, field) in section.fields().iter().enumerate() {
            if let Some(variant) = variant.filter(|_| at == 0 && field.id() == VARIANT_TAG_FIELD_ID) {
                let name = schema.and_then(|schema| schema.variant(variant)).map(|variant| variant.name.clone());
                json.insert("$variant".into(), name.map_or_else(|| variant.into(), Value::from));
                continue;
            }
            let described = section.describe(field);
            let key = field_key(described.map(|described| described.name.as_str()), field.id(), json);
            let value = match described {
                Some(described) => self.described(described, field),
                None => self.undescribed(field),
            };
            json.insert(key, value);
        }
    }

    /// A field the schema describes: its values in their natural form.
    fn described(&self, described: &FieldSchema, field: &DynamicField) -> Value {
        if let Some(map) = self.map(described, field) {
            return map;
        }
        match field.value() {
            DynamicValue::Plain(_) => plain(described, field).unwrap_or_else(|| self.undescribed(field)),
            DynamicValue::Embedded(objects) => list(field, objects.iter().map(|object| self.embedded(object.as_ref()))),
            DynamicValue::Pointer(targets) => list(field, targets.iter().map(|target| self.pointer(target.as_ref()))),
        }
    }

    /// A field the schema does not describe: its wire shape, and its values as stored.
    fn undescribed(&self, field: &DynamicField) -> Value {
        let mut json = Map::new();
        json.insert("$wire".into(), wire_code(field.shape()).into());
        match field.value() {
            DynamicValue::Plain(bytes) => {
                json.insert("$count".into(), bytes.count().into());
                json.insert("$bytes".into(), BASE64.encode(bytes.bytes()).into());
            }
            DynamicValue::Embedded(objects) => {
                let objects = objects.iter().map(|object| self.embedded(object.as_ref()));
                json.insert("$value".into(), list(field, objects));
            }
            DynamicValue::Pointer(targets) => {
                let targets = targets.iter().map(|target| self.pointer(target.as_ref()));
                json.insert("$value".into(), list(field, targets));
            }
        }
        Value::Object(json)
    }

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
        let key_field = FieldSchema { signature: keys_sig.clone(), ..FieldSchema::default() };
        let Value::Array(keys) = plain(&key_field, keys)? else { return None };
        let values_json: Vec<Value> = match values.value() {
            DynamicValue::Embedded(objects) => objects.iter().map(|object| self.embedded(object.as_ref())).collect(),
            DynamicValue::Pointer(targets) => targets.iter().map(|target| self.pointer(target.as_ref())).collect(),
            DynamicValue::Plain(_) => return None,
        };
        let values_field = (values.id(), values.shape().array) == (MAP_VALUES_FIELD_ID, true);
        let values = values_json;
        let tells_kind = values.iter().any(|value| !value.is_null());
        if values.len() != keys.len() || !tells_kind || !values_field {
            return None;
        }
        let named: Option<Map<String, Value>> = keys
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

    fn embedded(&self, object: Option<&DynamicObject>) -> Value {
        let Some(object) = object else { return Value::Null };
        let mut json = Map::new();
        self.object(object, &mut json);
        Value::Object(json)
    }

    fn pointer(&self, target: Option<&crate::dynamic::DynamicRef>) -> Value {
        match target.and_then(|target| self.index.get(target)) {
            Some(instance) => serde_json::json!({ "$ref": instance }),
            None => Value::Null,
        }
    }
}

/// The member name of a field: its name, unless a stream's schema gave it one this form cannot
/// tell from its own members (`$...`) or from an ID (`7`), or another field of the section took
/// it; then its ID, made unique with `#2`, `#3`... (a stream may hold a field twice).
fn field_key(name: Option<&str>, id: u16, taken: &Map<String, Value>) -> String {
    let usable = |name: &str| !name.starts_with(['$', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    match name {
        Some(name) if usable(name) && !name.is_empty() && !taken.contains_key(name) => name.to_owned(),
        _ => (1..)
            .map(|n| if n == 1 { id.to_string() } else { format!("{id}#{n}") })
            .find(|key| !taken.contains_key(key))
            .expect("a free key"),
    }
}

/// The wire kind of a map's keys of type `signature`, as the map type declares them.
pub(super) fn map_key_size(signature: &[u32]) -> Option<Option<u8>> {
    Some(crate::text::static_size(signature).ok()?.and_then(|size| u8::try_from(size).ok()))
}

/// One value for a single field, a list for an array field.
fn list(field: &DynamicField, mut values: impl ExactSizeIterator<Item = Value>) -> Value {
    match (field.shape().array, values.len()) {
        (false, 1) => values.next().expect("one value"),
        _ => Value::Array(values.collect()),
    }
}

/// A plain field's value by its stored type, when that JSON reads back to exactly the stored
/// bytes (`None` otherwise: a type this program cannot take apart, or bytes only their own codec
/// holds, such as a NaN's payload, keep their stored form).
fn plain(described: &FieldSchema, field: &DynamicField) -> Option<Value> {
    let DynamicValue::Plain(bytes) = field.value() else { return None };
    let WireKind::Plain(static_size) = field.shape().kind else { return None };
    let signature = &described.signature;
    let array = field.shape().array;
    let value = crate::text::read_field(signature, static_size, bytes.count(), array, bytes.bytes()).ok()?;
    let json = match (&value, array) {
        // An array of bytes is one base64 string (exact by construction).
        (_, true) if signature.as_slice() == [id::U8] => return Some(Value::String(BASE64.encode(bytes.bytes()))),
        (PlainValue::Seq(elements), true) => elements.iter().map(|element| to_json(signature, element)).collect(),
        (_, true) => return None,
        (_, false) => vec![to_json(signature, &value)],
    };
    let mut rewritten = Vec::with_capacity(bytes.bytes().len());
    for element in &json {
        write_value(signature, &from_json(signature, element).ok()?, &mut rewritten).ok()?;
    }
    if rewritten != bytes.bytes() {
        return None;
    }
    Some(match array {
        true => Value::Array(json),
        false => json.into_iter().next().expect("one value"),
    })
}
