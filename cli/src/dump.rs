//! `reflectable dump`: every object of the file as an indented tree.

use crate::load::Loaded;
use reflectable::containers::{EXTERNAL_TYPE_ID, LIST_TYPE_ID, MAP_KEYS_FIELD_ID, MAP_TYPE_ID, MAP_VALUES_FIELD_ID};
use reflectable::dynamic::{DynamicField, DynamicObject, DynamicRef, DynamicSection, DynamicValue, InstanceIndex};
use reflectable::field::WireKind;
use reflectable::rtti::VARIANT_TAG_FIELD_ID;
use reflectable::text::PlainValue;
use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};

pub fn print(loaded: &Loaded, out: &mut dyn Write) -> io::Result<()> {
    let graph = &loaded.graph;
    writeln!(
        out,
        "format version {}, {} bytes, {} objects{}",
        crate::load::version(graph),
        loaded.bytes.len(),
        graph.objects().len(),
        if graph.has_checksum() { ", with a checksum" } else { "" }
    )?;
    let instances = graph.instance_index();
    let schema = graph.schema().ok();
    for (index, object) in graph.objects().iter().enumerate() {
        let object = object.borrow();
        // An asset reference says which asset, by its type's name and its key.
        if let Some((key, type_id)) = object.asset_reference() {
            let name = schema.as_ref().and_then(|schema| schema.get(type_id)).map(|entry| &entry.name);
            let asset = name.map_or_else(|| format!("type {type_id}"), |name| format!("{name} (type {type_id})"));
            writeln!(out, "#{} asset reference: {asset} `{key}`", index + 1)?;
            continue;
        }
        writeln!(out, "#{} {}", index + 1, type_label(object.own()))?;
        fields(out, &instances, &object, 1)?;
    }
    Ok(())
}

/// `Name (type 7)`, or `type 7` for a type the file does not describe.
pub fn type_label(section: &DynamicSection) -> String {
    match (section.type_name(), section.type_id()) {
        (Some(name), id) => format!("{name} (type {id})"),
        (None, LIST_TYPE_ID) => "list".to_owned(),
        (None, MAP_TYPE_ID) => "map".to_owned(),
        (None, EXTERNAL_TYPE_ID) => "external reference".to_owned(),
        (None, id) => format!("type {id}"),
    }
}

/// One value of a map: a pointer's target, or an object held by value (`None`: null, empty).
pub enum MapValue<'a> {
    Target(Option<&'a DynamicRef>),
    Object(Option<&'a DynamicObject>),
}

/// The entries of a map object held by `field` of `holder` (the field records its keys' plain
/// type), keys as text; `None` when the object is not a map or its keys do not read.
pub fn map_entries<'m>(
    holder: &DynamicSection,
    field: &DynamicField,
    map: &'m DynamicObject,
) -> Option<Vec<(String, MapValue<'m>)>> {
    if map.type_id() != MAP_TYPE_ID {
        return None;
    }
    let signature = &holder.describe(field)?.signature;
    let keys = map.own().field(MAP_KEYS_FIELD_ID)?;
    let (DynamicValue::Plain(bytes), WireKind::Plain(size)) = (keys.value(), keys.shape().kind) else { return None };
    let PlainValue::Seq(keys) = PlainValue::read(signature, size, bytes.count(), true, bytes.bytes()).ok()? else {
        return None;
    };
    let values: Vec<MapValue<'m>> = match map.own().field(MAP_VALUES_FIELD_ID)?.value() {
        DynamicValue::Pointer(targets) => targets.iter().map(|target| MapValue::Target(target.as_ref())).collect(),
        DynamicValue::Embedded(objects) => objects.iter().map(|object| MapValue::Object(object.as_ref())).collect(),
        DynamicValue::Plain(_) => return None,
    };
    Some(keys.iter().map(ToString::to_string).zip(values).collect())
}

/// `name (id 3)`, or `field 3` for a field the file does not describe; an enum's variant tag is
/// `variant (0)`.
pub fn field_label(section: &DynamicSection, field: &DynamicField) -> String {
    label(section, field).to_string()
}

fn label<'a>(section: &'a DynamicSection, field: &DynamicField) -> Label<'a> {
    let tag = field.id() == VARIANT_TAG_FIELD_ID && section.schema().is_some_and(|schema| schema.is_enum);
    Label(section.field_name(field).or(tag.then_some("variant")), field.id())
}

/// The variant an enum section holds, by name: `Circle (2)`.
fn variant_label(section: &DynamicSection) -> Option<String> {
    let (schema, id) = (section.schema()?, section.variant()?);
    let name = schema.variants.iter().find(|variant| variant.id == id).map_or("?", |variant| variant.name.as_str());
    Some(format!("{name} ({id})"))
}

/// A field's label, written where it is needed (a dump writes millions).
struct Label<'a>(Option<&'a str>, u16);

impl fmt::Display for Label<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(name) => write!(f, "{name} ({})", self.1),
            None => write!(f, "field {}", self.1),
        }
    }
}

/// Pointer targets by instance (`#3`, `null`), in brackets for an array field.
struct Targets<'a>(&'a [Option<DynamicRef>], &'a InstanceIndex, bool);

impl fmt::Display for Targets<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Targets(targets, instances, array) = *self;
        if array {
            f.write_str("[")?;
        }
        for (n, target) in targets.iter().enumerate() {
            if n > 0 {
                f.write_str(", ")?;
            }
            match target.as_ref().and_then(|target| instances.get(target)) {
                Some(instance) => write!(f, "#{instance}")?,
                None => f.write_str("null")?,
            }
        }
        if array {
            f.write_str("]")?;
        }
        Ok(())
    }
}

/// Two spaces per level, without allocating for the levels files have.
fn indent(depth: usize) -> Cow<'static, str> {
    const SPACES: &str = "                                                                ";
    SPACES.get(..2 * depth).map_or_else(|| Cow::Owned("  ".repeat(depth)), Cow::Borrowed)
}

fn fields(out: &mut dyn Write, instances: &InstanceIndex, object: &DynamicObject, depth: usize) -> io::Result<()> {
    let indent = indent(depth);
    for (n, section) in object.sections().iter().enumerate() {
        let inner = if n == 0 {
            indent.clone()
        } else {
            writeln!(out, "{indent}base {}", type_label(section))?;
            self::indent(depth + 1)
        };
        for field in section.fields() {
            let described = section.describe(field);
            let label = label(section, field);
            if label.0 == Some("variant") && described.is_none() {
                if let Some(variant) = variant_label(section) {
                    writeln!(out, "{inner}variant = {variant}")?;
                    continue;
                }
            }
            match field.value() {
                DynamicValue::Plain(_) => match section.plain_text(field) {
                    Ok(value) => writeln!(out, "{inner}{label} = {value}")?,
                    Err(error) => writeln!(out, "{inner}{label} = <{error}>")?,
                },
                DynamicValue::Pointer(targets) => {
                    let arrow = if described.is_some_and(|described| described.weak) { "~>" } else { "->" };
                    let targets = Targets(targets, instances, field.shape().array);
                    writeln!(out, "{inner}{label} {arrow} {targets}")?;
                }
                DynamicValue::Embedded(objects) => {
                    for (index, value) in objects.iter().enumerate() {
                        let slot = if field.shape().array { format!("{label}[{index}]") } else { label.to_string() };
                        let entries = value.as_ref().and_then(|map| map_entries(section, field, map));
                        match (value, entries) {
                            (Some(_), Some(entries)) => {
                                writeln!(out, "{inner}{slot}: map of {}", entries.len())?;
                                map(out, instances, &entries, &format!("{inner}  "))?;
                            }
                            (Some(value), None) => {
                                writeln!(out, "{inner}{slot}: {}", type_label(value.own()))?;
                                fields(out, instances, value, inner.len() / 2 + 1)?;
                            }
                            (None, _) => writeln!(out, "{inner}{slot}: empty")?,
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// A map's entries, `key -> #instance` or `key: Type` with the object's fields.
fn map(
    out: &mut dyn Write,
    instances: &InstanceIndex,
    entries: &[(String, MapValue<'_>)],
    indent: &str,
) -> io::Result<()> {
    for (key, value) in entries {
        match value {
            MapValue::Target(target) => match target.and_then(|target| instances.get(target)) {
                Some(instance) => writeln!(out, "{indent}[{key}] -> #{instance}")?,
                None => writeln!(out, "{indent}[{key}] -> null")?,
            },
            MapValue::Object(Some(object)) => {
                writeln!(out, "{indent}[{key}]: {}", type_label(object.own()))?;
                fields(out, instances, object, indent.len() / 2 + 1)?;
            }
            MapValue::Object(None) => writeln!(out, "{indent}[{key}]: empty")?,
        }
    }
    Ok(())
}
