//! The stream's schema table in JSON (the document's `"types"`): what names the fields and types
//! of the objects, and what turns the JSON back into the same binary stream.

use crate::field::{WireKind, WireShape};
use crate::schema::{DeclaredSchema, FieldSchema, TypeSchema};
use serde_json::{json, Map, Value};

/// `schema` as a JSON object.
pub(super) fn type_to_json(schema: &TypeSchema) -> Value {
    let mut object = Map::new();
    object.insert("id".into(), schema.id.into());
    object.insert("name".into(), schema.name.clone().into());
    if let Some(base) = schema.base {
        object.insert("base".into(), base.into());
    }
    if schema.is_enum {
        object.insert("enum".into(), true.into());
    }
    if schema.is_abstract {
        object.insert("abstract".into(), true.into());
    }
    object.insert("fingerprint".into(), format!("{:016x}", schema.fingerprint).into());
    // A type has fields or (an enum) variants; a stream may give an entry both, which stay.
    if !schema.is_enum || !schema.fields.is_empty() {
        object.insert("fields".into(), fields_to_json(&schema.fields));
    }
    if schema.is_enum || !schema.variants.is_empty() {
        let variants = schema.variants.iter().map(
            |variant| json!({ "id": variant.id, "name": variant.name, "fields": fields_to_json(&variant.fields) }),
        );
        object.insert("variants".into(), Value::Array(variants.collect()));
    }
    Value::Object(object)
}

fn fields_to_json(fields: &[FieldSchema]) -> Value {
    Value::Array(fields.iter().map(field_to_json).collect())
}

pub(crate) fn field_to_json(field: &FieldSchema) -> Value {
    let mut object = Map::new();
    object.insert("id".into(), field.id.into());
    object.insert("name".into(), field.name.clone().into());
    object.insert("wire".into(), wire_code(field.shape).into());
    // For people: the field's type in words (what `reflectable schema` prints). Not read back.
    object.insert("type".into(), field.type_description().into());
    if !field.signature.is_empty() {
        object.insert("signature".into(), field.signature.clone().into());
    }
    match &field.declared {
        Some(DeclaredSchema::Type(id)) => object.insert("declared".into(), (*id).into()),
        Some(DeclaredSchema::Trait(name)) => object.insert("declared_trait".into(), name.clone().into()),
        None => None,
    };
    if field.weak {
        object.insert("weak".into(), true.into());
    }
    if field.identity {
        object.insert("identity".into(), true.into());
    }
    Value::Object(object)
}

/// A wire shape in words: `plain:4`, `plain:dyn`, `embedded`, `pointer`, with `[]` for arrays.
pub(super) fn wire_code(shape: WireShape) -> String {
    let kind = match shape.kind {
        WireKind::Plain(Some(size)) => format!("plain:{size}"),
        WireKind::Plain(None) => "plain:dyn".to_owned(),
        WireKind::Embedded => "embedded".to_owned(),
        WireKind::Pointer => "pointer".to_owned(),
    };
    if shape.array {
        kind + "[]"
    } else {
        kind
    }
}

/// The wire shape a [`wire_code`] names.
pub(super) fn parse_wire(code: &str) -> Option<WireShape> {
    let (kind, array) = match code.strip_suffix("[]") {
        Some(kind) => (kind, true),
        None => (code, false),
    };
    let kind = match kind {
        "plain:dyn" => WireKind::Plain(None),
        "embedded" => WireKind::Embedded,
        "pointer" => WireKind::Pointer,
        _ => WireKind::Plain(Some(kind.strip_prefix("plain:")?.parse().ok()?)),
    };
    Some(WireShape { kind, array })
}
