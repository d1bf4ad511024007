//! `reflectable diff` of files that do not describe their types (versions 1 and 2, and streams
//! that list their types' fingerprints only): no types can be defined from them, so their
//! objects are compared as the stream holds them, by field ID. A shared object is
//! known by its first path from the root (breadth first through strong pointers, so the shortest:
//! `$.root.children[1]`), and matched with the object at the same path in the other file, so an
//! object added or removed somewhere does not shift the others; objects only `Weak`s reach keep
//! their instance number (`#7`). Fields are matched by ID within each type's section, objects
//! held by value field by field, pointers by the path of what they point at.

use crate::dump::{field_label, map_entries, type_label, MapValue};
use crate::load::Loaded;
use reflectable::dynamic::{DynamicField, DynamicGraph, DynamicObject, DynamicSection, DynamicValue, InstanceIndex};
use std::collections::{HashMap, VecDeque};
use std::io::{self, Write};

/// Prints the differences; `true` when there are any.
pub fn print(old: &Loaded, new: &Loaded, out: &mut dyn Write) -> io::Result<bool> {
    let (old_paths, new_paths) = (Paths::of(&old.graph), Paths::of(&new.graph));
    let mut diff = Diff { old: old_paths, new: new_paths, lines: Vec::new() };
    let (old_objects, new_objects) = (old.graph.objects(), new.graph.objects());
    for (at, object) in old_objects.iter().enumerate() {
        let path = diff.old.paths[at].clone();
        match diff.new.by_path.get(&path) {
            Some(&other) => diff.object(&path, &object.borrow(), &new_objects[other].borrow()),
            None => diff.lines.push(format!("{path}: removed ({})", type_label(object.borrow().own()))),
        }
    }
    for (at, object) in new_objects.iter().enumerate() {
        if !diff.old.by_path.contains_key(&diff.new.paths[at]) {
            diff.lines.push(format!("{}: added ({})", diff.new.paths[at], type_label(object.borrow().own())));
        }
    }
    for line in &diff.lines {
        writeln!(out, "{line}")?;
    }
    if diff.lines.is_empty() {
        writeln!(out, "no differences: {} objects", old_objects.len())?;
    }
    Ok(!diff.lines.is_empty())
}

struct Diff {
    old: Paths,
    new: Paths,
    lines: Vec<String>,
}

/// Every shared object's path, by instance (index 0 is instance 1), and back.
struct Paths {
    index: InstanceIndex,
    paths: Vec<String>,
    by_path: HashMap<String, usize>,
}

impl Paths {
    fn of(graph: &DynamicGraph) -> Paths {
        let index = graph.instance_index();
        let mut paths: Vec<Option<String>> = vec![None; graph.objects().len()];
        let mut queue = VecDeque::from([(0usize, "$".to_owned())]);
        paths[0] = Some("$".to_owned());
        while let Some((at, path)) = queue.pop_front() {
            let mut found = Vec::new();
            targets(&graph.objects()[at].borrow(), &path, &index, &mut found);
            for (instance, path) in found {
                let slot = &mut paths[instance as usize - 1];
                if slot.is_none() {
                    *slot = Some(path.clone());
                    queue.push_back((instance as usize - 1, path));
                }
            }
        }
        let paths: Vec<String> =
            paths.into_iter().enumerate().map(|(at, path)| path.unwrap_or_else(|| format!("#{}", at + 1))).collect();
        let by_path = paths.iter().enumerate().map(|(at, path)| (path.clone(), at)).collect();
        Paths { index, paths, by_path }
    }

    /// The path of a pointer's target (`null` for none).
    fn of_target(&self, target: Option<&reflectable::dynamic::DynamicRef>) -> String {
        match target.and_then(|target| self.index.get(target)) {
            Some(instance) => self.paths[instance as usize - 1].clone(),
            None => "null".to_owned(),
        }
    }
}

/// The targets of `object`'s strong pointers, with their paths, through objects held by value
/// and maps (by key).
fn targets(object: &DynamicObject, path: &str, index: &InstanceIndex, out: &mut Vec<(u32, String)>) {
    for section in object.sections() {
        for field in section.fields() {
            let described = section.describe(field);
            let name = described.map_or_else(|| field.id().to_string(), |described| described.name.clone());
            let at =
                |n: usize| if field.shape().array { format!("{path}.{name}[{n}]") } else { format!("{path}.{name}") };
            match field.value() {
                DynamicValue::Pointer(_) if described.is_some_and(|described| described.weak) => {}
                DynamicValue::Pointer(list) => {
                    for (n, target) in list.iter().enumerate() {
                        if let Some(instance) = target.as_ref().and_then(|target| index.get(target)) {
                            out.push((instance, at(n)));
                        }
                    }
                }
                DynamicValue::Embedded(objects) => {
                    for (n, value) in objects.iter().enumerate() {
                        let Some(value) = value else { continue };
                        match map_entries(section, field, value) {
                            Some(entries) => {
                                for (key, entry) in entries {
                                    let entry_path = format!("{}[{key}]", at(n));
                                    match entry {
                                        MapValue::Target(Some(target)) => {
                                            if let Some(instance) = index.get(target) {
                                                out.push((instance, entry_path));
                                            }
                                        }
                                        MapValue::Object(Some(object)) => targets(object, &entry_path, index, out),
                                        _ => {}
                                    }
                                }
                            }
                            None => targets(value, &at(n), index, out),
                        }
                    }
                }
                DynamicValue::Plain(_) => {}
            }
        }
    }
}

impl Diff {
    fn object(&mut self, path: &str, a: &DynamicObject, b: &DynamicObject) {
        if a.type_id() != b.type_id() {
            self.lines.push(format!("{path}: {} -> {}", type_label(a.own()), type_label(b.own())));
            return;
        }
        for (a, b) in a.sections().iter().zip(b.sections()) {
            self.section(path, a, b);
        }
    }

    fn section(&mut self, path: &str, a: &DynamicSection, b: &DynamicSection) {
        for field in a.fields() {
            let label = field_label(a, field);
            match b.field(field.id()) {
                None => self.lines.push(format!("{path}.{label}: removed")),
                Some(other) => self.field(&format!("{path}.{label}"), (a, field), (b, other)),
            }
        }
        for field in b.fields().iter().filter(|field| a.field(field.id()).is_none()) {
            self.lines.push(format!("{path}.{}: added = {}", field_label(b, field), value(b, field, &self.new)));
        }
    }

    fn field(
        &mut self,
        path: &str,
        (sa, a): (&DynamicSection, &DynamicField),
        (sb, b): (&DynamicSection, &DynamicField),
    ) {
        match (a.value(), b.value()) {
            (DynamicValue::Embedded(xs), DynamicValue::Embedded(ys)) if xs.len() == ys.len() => {
                for (at, (x, y)) in xs.iter().zip(ys.iter()).enumerate() {
                    let path = if a.shape().array { format!("{path}[{at}]") } else { path.to_owned() };
                    match (x, y) {
                        (Some(x), Some(y)) => self.object(&path, x, y),
                        (None, None) => {}
                        _ => self.lines.push(format!("{path}: {} -> {}", presence(x), presence(y))),
                    }
                }
            }
            (DynamicValue::Pointer(xs), DynamicValue::Pointer(ys)) => {
                let targets = |paths: &Paths, targets: &[Option<_>]| -> Vec<String> {
                    targets.iter().map(|target| paths.of_target(target.as_ref())).collect()
                };
                if targets(&self.old, xs) != targets(&self.new, ys) {
                    self.lines.push(format!("{path}: {} -> {}", value(sa, a, &self.old), value(sb, b, &self.new)));
                }
            }
            _ if a == b => {}
            _ => self.lines.push(format!("{path}: {} -> {}", value(sa, a, &self.old), value(sb, b, &self.new))),
        }
    }
}

fn presence(object: &Option<DynamicObject>) -> String {
    object.as_ref().map_or_else(|| "none".to_owned(), |object| type_label(object.own()))
}

/// A field's value in one line: a plain value as text, pointers by path, objects by type.
fn value(section: &DynamicSection, field: &DynamicField, paths: &Paths) -> String {
    match field.value() {
        DynamicValue::Plain(bytes) => section
            .plain_value(field)
            .map_or_else(|_| format!("{} bytes", bytes.bytes().len()), |value| value.to_string()),
        DynamicValue::Pointer(targets) => {
            let shown: Vec<String> = targets.iter().map(|target| paths.of_target(target.as_ref())).collect();
            format!("[{}]", shown.join(", "))
        }
        DynamicValue::Embedded(objects) => {
            let shown: Vec<String> = objects.iter().map(presence).collect();
            format!("[{}]", shown.join(", "))
        }
    }
}
