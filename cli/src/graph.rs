//! `reflectable graph`: the object graph in Graphviz DOT. One node per object in the file (held
//! by value ones inside their holder), one edge per pointer, labelled with its field; `Weak`
//! edges dashed.

use crate::dump::{map_entries, type_label, MapValue};
use crate::load::Loaded;
use reflectable::dynamic::{DynamicObject, DynamicValue, InstanceIndex};
use std::io::{self, Write};

pub fn print(loaded: &Loaded, out: &mut dyn Write) -> io::Result<()> {
    let graph = &loaded.graph;
    writeln!(out, "digraph reflectable {{")?;
    writeln!(out, "  node [shape=box, fontname=\"monospace\"];")?;
    let instances = graph.instance_index();
    for (index, object) in graph.objects().iter().enumerate() {
        let instance = index + 1;
        let object = object.borrow();
        writeln!(out, "  n{instance} [label=\"#{instance} {}\"];", escape(&type_label(object.own())))?;
        edges(out, &instances, &object, instance, "")?;
    }
    writeln!(out, "}}")?;
    Ok(())
}

/// The edges of the pointers in `object` (top-level object `from`, or an object it holds by
/// value at `prefix`).
fn edges(
    out: &mut dyn Write,
    instances: &InstanceIndex,
    object: &DynamicObject,
    from: usize,
    prefix: &str,
) -> io::Result<()> {
    for section in object.sections() {
        for field in section.fields() {
            let name = section.field_name(field).map_or_else(|| format!("field {}", field.id()), str::to_owned);
            let path = format!("{prefix}{name}");
            match field.value() {
                DynamicValue::Pointer(targets) => {
                    let weak = section.describe(field).is_some_and(|described| described.weak);
                    for (index, target) in targets.iter().enumerate() {
                        let Some(to) = target.as_ref().and_then(|target| instances.get(target)) else { continue };
                        let label = if field.shape().array { format!("{path}[{index}]") } else { path.clone() };
                        let style = if weak { ", style=dashed" } else { "" };
                        writeln!(out, "  n{from} -> n{to} [label=\"{}\"{style}];", escape(&label))?;
                    }
                }
                DynamicValue::Embedded(values) => {
                    for (index, value) in values.iter().enumerate() {
                        let Some(value) = value else { continue };
                        let slot = if field.shape().array { format!("{path}[{index}]") } else { path.clone() };
                        match map_entries(section, field, value) {
                            Some(entries) => map_edges(out, instances, &entries, from, &slot)?,
                            None => edges(out, instances, value, from, &format!("{slot}."))?,
                        }
                    }
                }
                DynamicValue::Plain(_) => {}
            }
        }
    }
    Ok(())
}

/// The edges of a map's values: labelled `field[key]`.
fn map_edges(
    out: &mut dyn Write,
    instances: &InstanceIndex,
    entries: &[(String, MapValue<'_>)],
    from: usize,
    path: &str,
) -> io::Result<()> {
    for (key, value) in entries {
        match value {
            MapValue::Target(target) => {
                if let Some(to) = target.and_then(|target| instances.get(target)) {
                    writeln!(out, "  n{from} -> n{to} [label=\"{}\"];", escape(&format!("{path}[{key}]")))?;
                }
            }
            MapValue::Object(Some(object)) => edges(out, instances, object, from, &format!("{path}[{key}]."))?,
            MapValue::Object(None) => {}
        }
    }
    Ok(())
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}
