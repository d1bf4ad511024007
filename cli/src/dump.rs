//! `reflectable dump`: every object of the file as an indented tree.

use crate::load::Loaded;
use reflectable::containers::{LIST_TYPE_ID, MAP_KEYS_FIELD_ID, MAP_TYPE_ID, MAP_VALUES_FIELD_ID};
use reflectable::dynamic::{DynamicField, DynamicGraph, DynamicObject, DynamicSection, DynamicValue};
use reflectable::field::WireKind;
use reflectable::text::{read_plain, PlainValue};

pub fn print(loaded: &Loaded) {
    let graph = &loaded.graph;
    println!(
        "format version {}, {} bytes, {} objects{}",
        graph.version(),
        loaded.bytes.len(),
        graph.objects().len(),
        if graph.has_checksum() { ", with a checksum" } else { "" }
    );
    for (index, object) in graph.objects().iter().enumerate() {
        let object = object.borrow();
        println!("#{} {}", index + 1, type_label(object.own()));
        fields(graph, &object, 1);
    }
}

/// `Name (type 7)`, or `type 7` for a type the file does not describe.
pub fn type_label(section: &DynamicSection) -> String {
    match (section.type_name(), section.type_id()) {
        (Some(name), id) => format!("{name} (type {id})"),
        (None, LIST_TYPE_ID) => "list".to_owned(),
        (None, MAP_TYPE_ID) => "map".to_owned(),
        (None, id) => format!("type {id}"),
    }
}

/// The keys of a map object held by `field` of `holder` (the field records their plain type), as
/// text; `None` when the object is not a map or its keys do not read.
pub fn map_keys(holder: &DynamicSection, field: &DynamicField, map: &DynamicObject) -> Option<Vec<String>> {
    if map.type_id() != MAP_TYPE_ID {
        return None;
    }
    let signature = &holder.describe(field)?.signature;
    let keys = map.own().field(MAP_KEYS_FIELD_ID)?;
    let (DynamicValue::Plain(bytes), WireKind::Plain(size)) = (keys.value(), keys.shape().kind) else { return None };
    match read_plain(signature, size, bytes.count(), true, bytes.bytes()).ok()? {
        PlainValue::Seq(keys) => Some(keys.iter().map(ToString::to_string).collect()),
        _ => None,
    }
}

/// `name (id 3)`, or `field 3` for a field the file does not describe.
pub fn field_label(section: &DynamicSection, field: &DynamicField) -> String {
    match section.field_name(field) {
        Some(name) => format!("{name} ({})", field.id()),
        None => format!("field {}", field.id()),
    }
}

fn fields(graph: &DynamicGraph, object: &DynamicObject, depth: usize) {
    let indent = "  ".repeat(depth);
    for (n, section) in object.sections().iter().enumerate() {
        let inner = if n == 0 {
            indent.clone()
        } else {
            println!("{indent}base {}", type_label(section));
            format!("{indent}  ")
        };
        for field in section.fields() {
            let label = field_label(section, field);
            match field.value() {
                DynamicValue::Plain(_) => match section.plain_value(field) {
                    Ok(value) => println!("{inner}{label} = {value}"),
                    Err(error) => println!("{inner}{label} = <{error}>"),
                },
                DynamicValue::Pointer(targets) => {
                    let weak = section.describe(field).is_some_and(|described| described.weak);
                    let targets: Vec<String> = targets
                        .iter()
                        .map(|target| match target.as_ref().and_then(|target| graph.instance_of(target)) {
                            Some(instance) => format!("#{instance}"),
                            None => "null".to_owned(),
                        })
                        .collect();
                    let arrow = if weak { "~>" } else { "->" };
                    match field.shape().array {
                        true => println!("{inner}{label} {arrow} [{}]", targets.join(", ")),
                        false => println!("{inner}{label} {arrow} {}", targets.join(", ")),
                    }
                }
                DynamicValue::Embedded(objects) => {
                    for (index, value) in objects.iter().enumerate() {
                        let slot = if field.shape().array { format!("{label}[{index}]") } else { label.clone() };
                        match value {
                            Some(map) if map_keys(section, field, map).is_some() => {
                                let keys = map_keys(section, field, map).expect("checked");
                                println!("{inner}{slot}: map of {}", keys.len());
                                entries(graph, map, &keys, &format!("{inner}  "));
                            }
                            Some(value) => {
                                println!("{inner}{slot}: {}", type_label(value.own()));
                                fields(graph, value, inner.len() / 2 + 1);
                            }
                            None => println!("{inner}{slot}: empty"),
                        }
                    }
                }
            }
        }
    }
}

/// A map's entries, `key -> #instance` or `key: Type` with the object's fields.
fn entries(graph: &DynamicGraph, map: &DynamicObject, keys: &[String], indent: &str) {
    let Some(values) = map.own().field(MAP_VALUES_FIELD_ID) else { return };
    match values.value() {
        DynamicValue::Pointer(targets) => {
            for (key, target) in keys.iter().zip(targets.iter()) {
                match target.as_ref().and_then(|target| graph.instance_of(target)) {
                    Some(instance) => println!("{indent}[{key}] -> #{instance}"),
                    None => println!("{indent}[{key}] -> null"),
                }
            }
        }
        DynamicValue::Embedded(objects) => {
            for (key, object) in keys.iter().zip(objects.iter()) {
                match object {
                    Some(object) => {
                        println!("{indent}[{key}]: {}", type_label(object.own()));
                        fields(graph, object, indent.len() / 2 + 1);
                    }
                    None => println!("{indent}[{key}]: empty"),
                }
            }
        }
        DynamicValue::Plain(_) => {}
    }
}
