//! Applying a body's field edits: plain values (whole, or runs over the old elements), objects
//! held by value (edited in place, or the array rebuilt from old elements and new ones), pointers
//! (retargeted, or the array rebuilt), each checked against the field it lands in.

use super::describe::object_name;
use super::{Applier, ApplyProblemKind};
use crate::clone::Cloner;
use crate::diff::align::split;
use crate::diff::map_entries::apply_entries;
use crate::diff::patch::{EmbeddedEdit, MapEdit, PlainEdit, PointerEdit, NONE};
use crate::field::{Declared, ElemShape, RttiField, SharedObject};
use crate::plain::{Reader, ZERO_SIZED_ALLOWANCE};
use crate::rtti::{Reflectable, Registry};
use crate::schema::describe_signature;
use crate::text::PlainValue;
use std::ops::Range;

impl Applier<'_> {
    pub(super) fn plain(&mut self, index: usize, owner: &mut dyn Reflectable, field: &RttiField, edit: &PlainEdit) {
        let name = || Some(format!("{}.{} ({})", edit.section, edit.field, field.name()));
        let Some(plain) = field.as_plain() else {
            self.problem(
                index,
                name(),
                ApplyProblemKind::FieldMismatch(format!("it is {:?}, the value plain", field.kind())),
            );
            return;
        };
        let info = plain.info();
        if info.type_id != edit.plain_type {
            let why = format!("it holds plain type {}, the value is plain type {}", info.type_id, edit.plain_type);
            self.problem(index, name(), ApplyProblemKind::FieldMismatch(why));
            return;
        }
        let (count, bytes) = if edit.runs.is_empty() {
            (edit.count as usize, std::borrow::Cow::Borrowed(&edit.bytes[..]))
        } else {
            self.scratch.clear();
            let old_count = match plain.write(&*owner, &mut self.scratch) {
                Ok(count) => count,
                Err(error) => return self.problem(index, name(), ApplyProblemKind::Field(error.to_string())),
            };
            match spliced(&self.scratch, old_count, &edit.bytes, edit.count as usize, &edit.runs, info.static_size) {
                Ok((count, bytes)) => (count, std::borrow::Cow::Owned(bytes)),
                Err(why) => return self.problem(index, name(), ApplyProblemKind::BadValue(why)),
            }
        };
        let mut reader = Reader::new(&bytes);
        match plain.read(owner, count, &mut reader) {
            Ok(()) if reader.remaining() == 0 => {}
            Ok(()) => self.problem(
                index,
                name(),
                ApplyProblemKind::BadValue(format!("{} bytes left over", reader.remaining())),
            ),
            Err(error) => self.problem(index, name(), ApplyProblemKind::BadValue(error.to_string())),
        }
    }

    /// A plain map field edited by key (see `diff/map_entries.rs`).
    pub(super) fn map(&mut self, index: usize, owner: &mut dyn Reflectable, field: &RttiField, edit: &MapEdit) {
        let name = || Some(format!("{}.{} ({})", edit.section, edit.field, field.name()));
        if field.as_plain().is_none() {
            let why = format!("it is {:?}, the value a map's entries", field.kind());
            return self.problem(index, name(), ApplyProblemKind::FieldMismatch(why));
        }
        let current = match (field.value_signature(), field.plain_value(&*owner)) {
            (Ok(sig), Ok(PlainValue::Map(entries))) if !field.is_array() => (sig, entries),
            (_, Err(error)) => return self.problem(index, name(), ApplyProblemKind::Field(error.to_string())),
            _ => {
                let why = "it is not a single map".to_owned();
                return self.problem(index, name(), ApplyProblemKind::FieldMismatch(why));
            }
        };
        let (sig, entries) = current;
        if sig != edit.signature {
            let why = format!(
                "it holds {}, the entries are of {}",
                describe_signature(&sig),
                describe_signature(&edit.signature)
            );
            return self.problem(index, name(), ApplyProblemKind::FieldMismatch(why));
        }
        let (entries, changed) = match apply_entries(&sig, entries, edit) {
            Ok(applied) => applied,
            Err(why) => return self.problem(index, name(), ApplyProblemKind::BadValue(why)),
        };
        if let Err(error) = field.set_plain_value(owner, &PlainValue::Map(entries)) {
            return self.problem(index, name(), ApplyProblemKind::BadValue(error.to_string()));
        }
        for (key, before, after) in changed {
            let text = |value: Option<PlainValue>| value.map(|value| value.to_string());
            self.note(&format!("{}[{key}]", field.name()), None, text(before), text(after));
        }
    }

    pub(super) fn embedded(
        &mut self,
        index: usize,
        owner: &mut dyn Reflectable,
        field: &'static RttiField,
        edit: &EmbeddedEdit,
    ) {
        let name = || Some(format!("{}.{} ({})", edit.section, edit.field, field.name()));
        let Some(values) = field.as_embedded() else {
            self.problem(
                index,
                name(),
                ApplyProblemKind::FieldMismatch(format!("it is {:?}, the value embedded", field.kind())),
            );
            return;
        };
        let step =
            |at: usize| if field.is_array() { format!("{}[{at}]", field.name()) } else { field.name().to_owned() };
        if !edit.rebuild {
            for element in &edit.elements {
                let (Some(old), Some(body)) = (element.old, &element.body) else {
                    self.problem(index, name(), ApplyProblemKind::BadValue("an edit in place names no element".into()));
                    continue;
                };
                let done = field.with_embedded_mut(owner, old as usize, |value| match value {
                    Some(value) => {
                        self.push_step(step(old as usize));
                        self.body(index, value, body);
                        self.pop_step();
                        true
                    }
                    None => false,
                });
                match done {
                    Ok(true) => {}
                    Ok(false) => {
                        self.problem(index, name(), ApplyProblemKind::BadValue(format!("element {old} is empty")))
                    }
                    Err(error) => self.problem(index, name(), ApplyProblemKind::BadValue(error.to_string())),
                }
            }
            return;
        }
        // The old elements' names, when the change is described: those not kept are removed.
        let old_names = self.describing().then(|| {
            let len = field.len(&*owner).unwrap_or(0);
            let name = |at| field.with_embedded(&*owner, at, |value| value.map(object_name)).ok().flatten();
            (0..len).map(name).collect::<Vec<_>>()
        });
        let mut objects = Vec::with_capacity(edit.elements.len());
        for element in &edit.elements {
            let at = objects.len();
            let object = match (element.old, &element.body) {
                (Some(old), body) => {
                    // An old element kept: copied (its pointers kept), then edited.
                    let copied = field.with_embedded(&*owner, old as usize, |value| {
                        value.map(|value| Cloner::with_registry(self.registry).shallow().clone_object(value))
                    });
                    match copied {
                        Ok(Some(Ok(mut object))) => {
                            if let Some(body) = body {
                                self.push_step(step(at));
                                self.body(index, &mut *object, body);
                                self.pop_step();
                            }
                            Some(object)
                        }
                        Ok(None) => None,
                        Ok(Some(Err(error))) => {
                            self.problem(index, name(), ApplyProblemKind::Field(error.to_string()));
                            continue;
                        }
                        Err(error) => {
                            self.problem(index, name(), ApplyProblemKind::BadValue(error.to_string()));
                            continue;
                        }
                    }
                }
                (None, Some(body)) => match fresh_value(field, body.type_id, self.registry) {
                    Some(mut object) => {
                        self.push_step(step(at));
                        self.body(index, &mut *object, body);
                        self.pop_step();
                        let element = field.is_array().then_some(at);
                        self.note(field.name(), element, None, Some(object_name(&*object)));
                        Some(object)
                    }
                    None => {
                        self.problem(index, name(), ApplyProblemKind::CannotCreate(body.type_id));
                        continue;
                    }
                },
                (None, None) => None,
            };
            objects.push(object);
        }
        if !field.is_array() && objects.len() != 1 {
            self.problem(
                index,
                name(),
                ApplyProblemKind::BadValue(format!("{} values for a single field", objects.len())),
            );
            return;
        }
        match values.store(owner, objects, self.registry) {
            Ok(0) => {}
            Ok(refused) => self.problem(index, name(), ApplyProblemKind::Field(format!("{refused} values refused"))),
            Err(error) => self.problem(index, name(), ApplyProblemKind::Field(error.to_string())),
        }
        if let Some(old_names) = old_names {
            let olds: Vec<u32> = edit.elements.iter().filter_map(|element| element.old).collect();
            let added_or_removed = olds.len() != edit.elements.len() || olds.len() != old_names.len();
            if !added_or_removed && olds.windows(2).any(|pair| pair[0] > pair[1]) {
                self.note_reordered(field.name());
            }
            let mut kept = vec![false; old_names.len()];
            for old in edit.elements.iter().filter_map(|element| element.old) {
                if let Some(kept) = kept.get_mut(old as usize) {
                    *kept = true;
                }
            }
            for (at, old_name) in old_names.into_iter().enumerate() {
                if let Some(old_name) = old_name.filter(|_| !kept[at]) {
                    self.note(field.name(), field.is_array().then_some(at), Some(old_name), None);
                }
            }
        }
    }

    pub(super) fn pointers(
        &mut self,
        index: usize,
        owner: &mut dyn Reflectable,
        field: &RttiField,
        edit: &PointerEdit,
    ) {
        let name = || name_of(edit, field);
        let Some(pointers) = field.as_pointer() else {
            self.problem(
                index,
                name(),
                ApplyProblemKind::FieldMismatch(format!("it is {:?}, the value pointers", field.kind())),
            );
            return;
        };
        let len = match field.len(&*owner) {
            Ok(len) => len,
            Err(error) => return self.problem(index, name(), ApplyProblemKind::Field(error.to_string())),
        };
        let current = |i: usize| field.shared(&*owner, i).ok().flatten();
        let mut targets: Vec<Option<SharedObject>> =
            if edit.rebuild { Vec::new() } else { (0..len).map(current).collect() };
        for &(old, target) in &edit.elements {
            let value = if edit.rebuild && old != NONE {
                if old as usize >= len {
                    self.problem(index, name(), ApplyProblemKind::BadValue(format!("element {old} of {len}")));
                    continue;
                }
                current(old as usize)
            } else {
                match self.target(target) {
                    Ok(value) => value,
                    Err(why) => {
                        self.problem(index, name(), ApplyProblemKind::BadValue(why));
                        continue;
                    }
                }
            };
            if edit.rebuild {
                targets.push(value);
            } else if let Some(slot) = targets.get_mut(old as usize) {
                *slot = value;
            } else {
                self.problem(index, name(), ApplyProblemKind::BadValue(format!("element {old} of {len}")));
            }
        }
        if !field.is_array() && targets.len() != 1 {
            self.problem(
                index,
                name(),
                ApplyProblemKind::BadValue(format!("{} targets for a single field", targets.len())),
            );
            return;
        }
        let targets: Vec<Option<&SharedObject>> = targets.iter().map(Option::as_ref).collect();
        match pointers.store(owner, &targets, self.registry) {
            Ok(0) => {}
            Ok(refused) => self.problem(index, name(), ApplyProblemKind::Field(format!("{refused} targets refused"))),
            Err(error) => self.problem(index, name(), ApplyProblemKind::Field(error.to_string())),
        }
    }
}

fn name_of(edit: &PointerEdit, field: &RttiField) -> Option<String> {
    Some(format!("{}.{} ({})", edit.section, edit.field, field.name()))
}

/// A fresh object of `type_id` for an embedded field: the type the field declares (lists and
/// maps are not registered), or a registered one.
fn fresh_value(field: &RttiField, type_id: u32, registry: &Registry) -> Option<Box<dyn Reflectable>> {
    if let ElemShape::Embedded(Declared::Type(declared)) = field.shape().elem {
        let declared = declared();
        if declared.id() == type_id {
            return declared.create();
        }
    }
    registry.get(type_id)?.create()
}

/// A plain array rebuilt from runs over its old elements (in order, each used once at most) and
/// new ones (each used once): no larger than the old value and the patch's together. Neither
/// count is trusted until the bytes bear it out.
fn spliced(
    old: &[u8],
    old_count: usize,
    new: &[u8],
    new_count: usize,
    runs: &[(u32, u32)],
    static_size: Option<u32>,
) -> Result<(usize, Vec<u8>), String> {
    let old_elements =
        Elements::of(old, old_count, static_size).ok_or("the field's value does not split into elements")?;
    let new_elements = Elements::of(new, new_count, static_size).ok_or_else(|| {
        format!("the patch's {} bytes are not {new_count} elements of the field's plain type", new.len())
    })?;
    let (mut out, mut count, mut next_new, mut next_old) = (Vec::new(), 0usize, 0usize, 0usize);
    for &(start, len) in runs {
        let len = len as usize;
        let bytes = if start == NONE {
            let end = next_new.checked_add(len).filter(|&end| end <= new_elements.len());
            let end = end.ok_or("runs past the patch's elements")?;
            let bytes = &new[new_elements.bytes(next_new..end)];
            next_new = end;
            bytes
        } else {
            let start = start as usize;
            let end = start.checked_add(len).filter(|&end| start >= next_old && end <= old_elements.len());
            let end = end.ok_or_else(|| format!("runs out of order or past the {old_count} old elements"))?;
            next_old = end;
            &old[old_elements.bytes(start..end)]
        };
        out.extend_from_slice(bytes);
        count += len;
    }
    if next_new != new_elements.len() {
        return Err("the patch's elements are not all used".into());
    }
    Ok((count, out))
}

/// Where the elements of a plain array's stored bytes are: by arithmetic for a static size,
/// else split by their size prefixes (never more ranges than the bytes can hold).
enum Elements {
    Static { size: usize, count: usize },
    Dynamic(Vec<Range<usize>>),
}

impl Elements {
    fn of(bytes: &[u8], count: usize, static_size: Option<u32>) -> Option<Self> {
        match static_size {
            Some(0) => {
                (bytes.is_empty() && count <= ZERO_SIZED_ALLOWANCE).then_some(Elements::Static { size: 0, count })
            }
            Some(size) => (count.checked_mul(size as usize) == Some(bytes.len()))
                .then_some(Elements::Static { size: size as usize, count }),
            None => split(bytes, count, None).map(Elements::Dynamic),
        }
    }

    fn len(&self) -> usize {
        match self {
            Elements::Static { count, .. } => *count,
            Elements::Dynamic(ranges) => ranges.len(),
        }
    }

    /// The bytes of elements `elements` (in range): one span, as elements lie end to end.
    fn bytes(&self, elements: Range<usize>) -> Range<usize> {
        match self {
            Elements::Static { size, .. } => elements.start * size..elements.end * size,
            Elements::Dynamic(_) if elements.is_empty() => 0..0,
            Elements::Dynamic(ranges) => ranges[elements.start].start..ranges[elements.end - 1].end,
        }
    }
}
