//! The stream's schema table in JSON (the document's `"types"`): what names the fields and types
//! of the objects, and what turns the JSON back into the same binary stream.

use super::{invalid, JsonError};
use crate::field::{WireKind, WireShape};
use crate::schema::{describe_signature, DeclaredSchema, FieldSchema, TypeSchema, VariantSchema};
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

fn field_to_json(field: &FieldSchema) -> Value {
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

/// A type entry from JSON; `at` names where it is, for errors.
pub(super) fn type_from_json(value: &Value, at: &str) -> Result<TypeSchema, JsonError> {
    let object = value.as_object().ok_or_else(|| invalid(at, "a type is an object"))?;
    let is_enum = flag(object, "enum", at)?;
    let fingerprint = match object.get("fingerprint") {
        None => 0,
        Some(Value::String(hex)) => u64::from_str_radix(hex, 16).map_err(|_| invalid(at, "a bad fingerprint"))?,
        Some(_) => return Err(invalid(at, "the fingerprint is a hex string")),
    };
    let variants = match object.get("variants") {
        Some(Value::Array(variants)) => variants
            .iter()
            .enumerate()
            .map(|(n, variant)| {
                let at = format!("{at}.variants[{n}]");
                let variant = variant.as_object().ok_or_else(|| invalid(&at, "a variant is an object"))?;
                Ok(VariantSchema {
                    id: number(variant, "id", &at)?,
                    name: text(variant, "name", &at)?,
                    fields: fields_from_json(variant.get("fields"), &at)?,
                })
            })
            .collect::<Result<_, JsonError>>()?,
        Some(_) => return Err(invalid(at, "`variants` is a list")),
        None => Vec::new(),
    };
    Ok(TypeSchema {
        id: number(object, "id", at)?,
        name: text(object, "name", at)?,
        base: object.get("base").map(|_| number(object, "base", at)).transpose()?,
        is_enum,
        is_abstract: flag(object, "abstract", at)?,
        fields: fields_from_json(object.get("fields"), at)?,
        variants,
        fingerprint,
    })
}

fn fields_from_json(fields: Option<&Value>, at: &str) -> Result<Vec<FieldSchema>, JsonError> {
    let Some(fields) = fields else { return Ok(Vec::new()) };
    let fields = fields.as_array().ok_or_else(|| invalid(at, "`fields` is a list"))?;
    fields.iter().enumerate().map(|(n, field)| field_from_json(field, &format!("{at}.fields[{n}]"))).collect()
}

fn field_from_json(value: &Value, at: &str) -> Result<FieldSchema, JsonError> {
    let object = value.as_object().ok_or_else(|| invalid(at, "a field is an object"))?;
    let code = text(object, "wire", at)?;
    let shape = parse_wire(&code).ok_or_else(|| invalid(at, format!("`{code}` is not a wire shape")))?;
    let signature: Vec<u32> = match object.get("signature") {
        None => Vec::new(),
        Some(signature) => {
            serde_json::from_value(signature.clone()).map_err(|_| invalid(at, "a signature is a list of numbers"))?
        }
    };
    let declared = match (object.get("declared"), object.get("declared_trait")) {
        (Some(_), _) => Some(DeclaredSchema::Type(number(object, "declared", at)?)),
        (None, Some(_)) => Some(DeclaredSchema::Trait(text(object, "declared_trait", at)?)),
        (None, None) => None,
    };
    if matches!(shape.kind, WireKind::Plain(_)) == declared.is_some() {
        return Err(invalid(at, "plain fields declare no type; fields of objects do"));
    }
    if !signature.is_empty() && !crate::schema::describe::is_well_formed(&signature) {
        return Err(invalid(at, format!("a malformed signature ({})", describe_signature(&signature))));
    }
    Ok(FieldSchema {
        id: number(object, "id", at)?,
        name: text(object, "name", at)?,
        shape,
        signature,
        declared,
        weak: flag(object, "weak", at)?,
    })
}

fn number<T: TryFrom<u64>>(object: &Map<String, Value>, key: &str, at: &str) -> Result<T, JsonError> {
    object
        .get(key)
        .and_then(Value::as_u64)
        .and_then(|value| T::try_from(value).ok())
        .ok_or_else(|| invalid(at, format!("`{key}` is missing or out of range")))
}

fn text(object: &Map<String, Value>, key: &str, at: &str) -> Result<String, JsonError> {
    object
        .get(key)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| invalid(at, format!("`{key}` is a string")))
}

fn flag(object: &Map<String, Value>, key: &str, at: &str) -> Result<bool, JsonError> {
    match object.get(key) {
        None => Ok(false),
        Some(Value::Bool(value)) => Ok(*value),
        Some(_) => Err(invalid(at, format!("`{key}` is true or false"))),
    }
}
