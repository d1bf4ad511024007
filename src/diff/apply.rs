//! [`apply`]: a [`Patch`] applied to a graph, with a report of whatever could not be applied.
//!
//! Every object edit is found first, in the graph as it was: the root, then each found object by
//! its path from an earlier one. Then the objects the patch creates are made (mutable families
//! empty, immutable ones complete, after what they point at), and the bodies applied. A patch is
//! data: a hostile or stale one (a path that leads nowhere, a field the type no longer has, a
//! value of another plain type, an index past an array's end) is reported, never a panic.

use super::generate::split;
use super::patch::{EmbeddedEdit, ObjectBody, Origin, Patch, PlainEdit, PointerEdit, NONE};
use crate::clone::Cloner;
use crate::field::{Declared, ElemShape, RttiField, SharedHandle, SharedObject};
use crate::plain::Reader;
use crate::rtti::{Reflectable, Registry, RttiType};
use std::fmt;

/// What [`apply`] could not do.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ApplyReport {
    problems: Vec<ApplyProblem>,
}

/// One thing a patch could not do: which object edit (0 is the root), which field, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyProblem {
    /// The object edit.
    pub object: usize,
    /// The field, as `section type ID.field ID` (and its name when the target has it).
    pub field: Option<String>,
    /// What went wrong.
    pub kind: ApplyProblemKind,
}

/// Why part of a patch could not be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApplyProblemKind {
    /// The path to a found object leads nowhere in this graph.
    NotFound(String),
    /// The object is of another type than the patch was made for.
    TypeMismatch {
        /// The type ID the patch expects.
        expected: u32,
        /// The object's type.
        found: String,
    },
    /// The object's type has no such field (or section, or variant).
    Gone,
    /// The field is of another kind, or holds another plain type, than the patch's value.
    FieldMismatch(String),
    /// An element index past the array's end, or a value that does not decode.
    BadValue(String),
    /// An object the patch creates is of a type nothing here can make.
    CannotCreate(u32),
    /// The object lives in an immutable allocation (`Rc<T>`, `Arc<T>`) and cannot be changed.
    Immutable,
    /// The field refused a value or could not be reached (a `RefCell` borrowed elsewhere).
    Field(String),
}

impl fmt::Display for ApplyProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApplyProblemKind::NotFound(why) => write!(f, "object not found: {why}"),
            ApplyProblemKind::TypeMismatch { expected, found } => {
                write!(f, "the patch is for type ID {expected}, the object is a `{found}`")
            }
            ApplyProblemKind::Gone => f.write_str("the type has no such field"),
            ApplyProblemKind::FieldMismatch(why) => write!(f, "the field does not fit: {why}"),
            ApplyProblemKind::BadValue(why) => write!(f, "bad value: {why}"),
            ApplyProblemKind::CannotCreate(id) => write!(f, "no type with ID {id} can be created here"),
            ApplyProblemKind::Immutable => {
                f.write_str("the object is immutable (`Rc<T>`/`Arc<T>`) and cannot be changed")
            }
            ApplyProblemKind::Field(why) => f.write_str(why),
        }
    }
}

impl fmt::Display for ApplyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "object edit {}", self.object)?;
        if let Some(field) = &self.field {
            write!(f, ", field {field}")?;
        }
        write!(f, ": {}", self.kind)
    }
}

impl ApplyReport {
    /// `true` when every change was applied.
    pub fn is_complete(&self) -> bool {
        self.problems.is_empty()
    }
    /// What could not be applied.
    pub fn problems(&self) -> &[ApplyProblem] {
        &self.problems
    }
}

impl fmt::Display for ApplyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.problems.is_empty() {
            return f.write_str("applied in full");
        }
        for (n, problem) in self.problems.iter().enumerate() {
            if n > 0 {
                f.write_str("; ")?;
            }
            problem.fmt(f)?;
        }
        Ok(())
    }
}

/// Applies `patch` to the graph under `target` (an object the caller owns); see [`diff`](super::diff).
/// Objects the patch creates are made with the global registry's types (or the types their
/// fields declare).
pub fn apply(target: &mut dyn Reflectable, patch: &Patch) -> ApplyReport {
    apply_with(target, patch, Registry::global())
}

/// [`apply`], creating objects and casting trait objects with `registry`.
pub fn apply_with(target: &mut dyn Reflectable, patch: &Patch, registry: &Registry) -> ApplyReport {
    if patch.objects.is_empty() {
        return ApplyReport::default();
    }
    let mut run = Applier::new(patch, registry);
    run.locate(Some(&*target), None);
    run.create();
    run.edit(0, target);
    run.apply_shared_bodies();
    run.report
}

/// Applies `patch` to the graph under a shared root (the handle [`diff`](super::diff) was given
/// for the old graph's root, or its clone's).
pub fn apply_to_handle<H: SharedHandle>(target: &H, patch: &Patch) -> ApplyReport {
    apply_shared(&SharedObject::new(target.clone()), patch, Registry::global())
}

/// [`apply_to_handle`] for a type-erased handle, with `registry`.
pub fn apply_shared(target: &SharedObject, patch: &Patch, registry: &Registry) -> ApplyReport {
    if patch.objects.is_empty() {
        return ApplyReport::default();
    }
    let mut run = Applier::new(patch, registry);
    run.locate(None, Some(target.clone()));
    run.create();
    run.apply_shared_bodies();
    run.report
}

struct Applier<'p> {
    patch: &'p Patch,
    registry: &'p Registry,
    /// Each edit's object, once found or made (the root's when shared).
    handles: Vec<Option<SharedObject>>,
    /// Immutable objects the patch creates are complete before they are shared.
    built: Vec<bool>,
    report: ApplyReport,
    scratch: Vec<u8>,
}

impl<'p> Applier<'p> {
    fn new(patch: &'p Patch, registry: &'p Registry) -> Self {
        let count = patch.objects.len();
        Applier {
            patch,
            registry,
            handles: vec![None; count],
            built: vec![false; count],
            report: ApplyReport::default(),
            scratch: Vec::new(),
        }
    }

    fn problem(&mut self, object: usize, field: Option<String>, kind: ApplyProblemKind) {
        self.report.problems.push(ApplyProblem { object, field, kind });
    }

    /// Finds every found object in the graph as it is before any change.
    fn locate(&mut self, root: Option<&dyn Reflectable>, shared_root: Option<SharedObject>) {
        self.handles[0] = shared_root;
        for (index, edit) in self.patch.objects.iter().enumerate() {
            let from = match edit.origin {
                Origin::Root if index == 0 => continue,
                Origin::Root => {
                    self.problem(index, None, ApplyProblemKind::NotFound("a second root".into()));
                    continue;
                }
                Origin::Created { .. } => continue,
                Origin::Found { from } => from as usize,
            };
            if from >= index {
                self.problem(
                    index,
                    None,
                    ApplyProblemKind::NotFound(format!("it is found from edit {from}, which is not an earlier one")),
                );
                continue;
            }
            let found = match (&self.handles[from], from, root) {
                (Some(handle), _, _) => handle
                    .read(|object| follow(object, &edit.path))
                    .unwrap_or_else(|error| Err(format!("edit {from}'s object cannot be read: {error}"))),
                (None, 0, Some(root)) => follow(root, &edit.path),
                (None, _, _) => Err(format!("edit {from}'s object was not found")),
            };
            match found {
                Ok(handle) => self.handles[index] = Some(handle),
                Err(why) => self.problem(index, None, ApplyProblemKind::NotFound(why)),
            }
        }
    }

    /// Makes the objects the patch creates: mutable ones empty now, immutable ones complete,
    /// after the created immutable objects they point at.
    fn create(&mut self) {
        for (index, edit) in self.patch.objects.iter().enumerate() {
            let Origin::Created { family } = edit.origin else { continue };
            if !family.is_mutable() {
                continue;
            }
            match self.registry.get(edit.body.type_id).and_then(|rtti| rtti.create_shared(family)) {
                Some(object) => self.handles[index] = Some(object),
                None => self.problem(index, None, ApplyProblemKind::CannotCreate(edit.body.type_id)),
            }
        }
        for index in 0..self.patch.objects.len() {
            if let Origin::Created { family } = self.patch.objects[index].origin {
                if !family.is_mutable() && self.handles[index].is_none() {
                    self.build_immutable(index);
                }
            }
        }
    }

    /// Builds created immutable edit `index` after the created immutable edits it points at (an
    /// explicit stack; a cycle among them cannot exist in memory and is reported).
    fn build_immutable(&mut self, index: usize) {
        let mut stack = vec![(index, false)];
        let mut on_stack = vec![false; self.patch.objects.len()];
        on_stack[index] = true;
        while let Some(frame) = stack.last_mut() {
            let current = frame.0;
            if !frame.1 {
                frame.1 = true;
                let mut needs = Vec::new();
                targets_of(&self.patch.objects[current].body, &mut needs);
                for need in needs {
                    let Some(edit) = self.patch.objects.get(need) else { continue };
                    if let Origin::Created { family } = edit.origin {
                        if !family.is_mutable() && self.handles[need].is_none() && !on_stack[need] {
                            on_stack[need] = true;
                            stack.push((need, false));
                        }
                    }
                }
                continue;
            }
            stack.pop();
            let edit = &self.patch.objects[current];
            let Origin::Created { family } = edit.origin else { continue };
            let Some(rtti) = self.registry.get(edit.body.type_id) else {
                self.problem(current, None, ApplyProblemKind::CannotCreate(edit.body.type_id));
                continue;
            };
            let Some(mut object) = rtti.create() else {
                self.problem(current, None, ApplyProblemKind::CannotCreate(edit.body.type_id));
                continue;
            };
            self.body(current, &mut *object, &edit.body);
            self.built[current] = true;
            self.handles[current] = rtti.make_shared(family, object).ok();
        }
    }

    /// Applies the bodies of the shared objects: the root (when shared), found ones and created
    /// mutable ones.
    fn apply_shared_bodies(&mut self) {
        for index in 0..self.patch.objects.len() {
            let edit = &self.patch.objects[index];
            if self.built[index] || edit.body.is_empty() && !edit.body.fresh {
                continue;
            }
            if index == 0 && matches!(edit.origin, Origin::Root) && self.handles[0].is_none() {
                continue; // a root by value, edited already
            }
            let Some(handle) = self.handles[index].clone() else { continue };
            if !handle.family().is_mutable() {
                self.problem(index, None, ApplyProblemKind::Immutable);
                continue;
            }
            if let Err(error) = handle.write(|object| self.body(index, object, &edit.body)) {
                self.problem(index, None, ApplyProblemKind::Field(error.to_string()));
            }
        }
    }

    /// Applies the root's body to a root owned by the caller.
    fn edit(&mut self, index: usize, object: &mut dyn Reflectable) {
        let body = &self.patch.objects[index].body;
        self.body(index, object, body);
    }

    /// Applies `body` to `object`.
    fn body(&mut self, index: usize, object: &mut dyn Reflectable, body: &ObjectBody) {
        let rtti = object.rtti();
        if rtti.id() != body.type_id {
            let found = format!("{} (type ID {})", rtti.name(), rtti.id());
            self.problem(index, None, ApplyProblemKind::TypeMismatch { expected: body.type_id, found });
            return;
        }
        if let Some(variant) = body.variant {
            match rtti.variant(variant).map(|v| v.activate(object)) {
                Some(Ok(())) => {}
                Some(Err(error)) => self.problem(index, None, ApplyProblemKind::Field(error.to_string())),
                None => self.problem(index, Some(format!("variant {variant}")), ApplyProblemKind::Gone),
            }
        }
        for edit in &body.plain {
            if let Some((section, field)) = self.field(index, object, edit.section, edit.field) {
                self.plain(index, section, field, edit);
            }
        }
        for edit in &body.embedded {
            if let Some((section, field)) = self.field(index, object, edit.section, edit.field) {
                self.embedded(index, section, field, edit);
            }
        }
        for edit in &body.pointers {
            if let Some((section, field)) = self.field(index, object, edit.section, edit.field) {
                self.pointers(index, section, field, edit);
            }
        }
    }

    /// The section of `object` of type `section` and its field `id`, or a report.
    fn field<'o>(
        &mut self,
        index: usize,
        object: &'o mut dyn Reflectable,
        section: u32,
        id: u16,
    ) -> Option<(&'o mut dyn Reflectable, &'static RttiField)> {
        let name = format!("{section}.{id}");
        let Some(depth) = object.rtti().chain().position(|rtti| rtti.id() == section) else {
            self.problem(index, Some(name), ApplyProblemKind::Gone);
            return None;
        };
        let section = RttiType::section_mut(object, depth).expect("the chain came from the object");
        match field_of(section.rtti(), section, id) {
            Some(field) => Some((section, field)),
            None => {
                self.problem(index, Some(name), ApplyProblemKind::Gone);
                None
            }
        }
    }

    fn plain(&mut self, index: usize, owner: &mut dyn Reflectable, field: &RttiField, edit: &PlainEdit) {
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

    fn embedded(&mut self, index: usize, owner: &mut dyn Reflectable, field: &'static RttiField, edit: &EmbeddedEdit) {
        let name = || Some(format!("{}.{} ({})", edit.section, edit.field, field.name()));
        let Some(values) = field.as_embedded() else {
            self.problem(
                index,
                name(),
                ApplyProblemKind::FieldMismatch(format!("it is {:?}, the value embedded", field.kind())),
            );
            return;
        };
        if !edit.rebuild {
            for element in &edit.elements {
                let (Some(old), Some(body)) = (element.old, &element.body) else {
                    self.problem(index, name(), ApplyProblemKind::BadValue("an edit in place names no element".into()));
                    continue;
                };
                let done = field.with_embedded_mut(owner, old as usize, |value| match value {
                    Some(value) => {
                        self.body(index, value, body);
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
        let mut objects = Vec::with_capacity(edit.elements.len());
        for element in &edit.elements {
            let object = match (element.old, &element.body) {
                (Some(old), body) => {
                    // An old element kept: copied (its pointers kept), then edited.
                    let copied = field.with_embedded(&*owner, old as usize, |value| {
                        value.map(|value| Cloner::with_registry(self.registry).shallow().clone_object(value))
                    });
                    match copied {
                        Ok(Some(Ok(mut object))) => {
                            if let Some(body) = body {
                                self.body(index, &mut *object, body);
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
                (None, Some(body)) => match create(field, body.type_id, self.registry) {
                    Some(mut object) => {
                        self.body(index, &mut *object, body);
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
    }

    fn pointers(&mut self, index: usize, owner: &mut dyn Reflectable, field: &RttiField, edit: &PointerEdit) {
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
        // A `Weak` cannot be set to null through its handle type (`Weak::new` needs a sized
        // pointee): it is set to an object that dies at the end of this call instead, which
        // reads as null everywhere.
        let dead = match (pointers.is_weak(), targets.iter().any(Option::is_none), pointers.declared()) {
            (true, true, Declared::Type(declared)) => declared().create_shared(pointers.family()),
            (true, true, Declared::Trait(name)) => {
                let why = format!("a null `Weak` to `dyn {name}` cannot be expressed");
                self.problem(index, name_of(edit, field), ApplyProblemKind::FieldMismatch(why));
                None
            }
            _ => None,
        };
        let targets: Vec<Option<&SharedObject>> =
            targets.iter().map(|target| target.as_ref().or(dead.as_ref())).collect();
        match pointers.store(owner, &targets, self.registry) {
            Ok(0) => {}
            Ok(refused) => self.problem(index, name(), ApplyProblemKind::Field(format!("{refused} targets refused"))),
            Err(error) => self.problem(index, name(), ApplyProblemKind::Field(error.to_string())),
        }
    }

    /// The object target `target` names: 0 is null, `k + 1` edit `k`'s object.
    fn target(&self, target: u32) -> Result<Option<SharedObject>, String> {
        if target == 0 {
            return Ok(None);
        }
        match self.handles.get(target as usize - 1) {
            Some(Some(handle)) => Ok(Some(handle.clone())),
            Some(None) => Err(format!("edit {} has no object", target - 1)),
            None => Err(format!("target {target} names no edit")),
        }
    }
}

fn name_of(edit: &PointerEdit, field: &RttiField) -> Option<String> {
    Some(format!("{}.{} ({})", edit.section, edit.field, field.name()))
}

/// The field `id` that `object` (a section of type `rtti`) has now, its variant's for an enum.
fn field_of(rtti: &'static RttiType, object: &dyn Reflectable, id: u16) -> Option<&'static RttiField> {
    if rtti.is_enum() {
        rtti.fields_of(object).iter().find(|field| field.id() == id)
    } else {
        rtti.field(id)
    }
}

/// Follows `path` from `object` to the shared object its last step's pointer element holds.
fn follow(object: &dyn Reflectable, path: &[(u32, u16, u32)]) -> Result<SharedObject, String> {
    let Some((&(section, id, index), rest)) = path.split_first() else {
        return Err("an empty path".into());
    };
    let Some((rtti, section)) = RttiType::sections(object).find(|(rtti, _)| rtti.id() == section) else {
        return Err(format!("`{}` has no section of type ID {section}", object.rtti().name()));
    };
    let Some(field) = field_of(rtti, section, id) else {
        return Err(format!("`{}` has no field {id}", rtti.name()));
    };
    let index = index as usize;
    if rest.is_empty() {
        return match field.shared(section, index) {
            Ok(Some(handle)) => Ok(handle),
            Ok(None) => Err(format!("`{}.{}[{index}]` is null", rtti.name(), field.name())),
            Err(error) => Err(error.to_string()),
        };
    }
    match field.with_embedded(section, index, |value| match value {
        Some(value) => follow(value, rest),
        None => Err(format!("`{}.{}[{index}]` is empty", rtti.name(), field.name())),
    }) {
        Ok(found) => found,
        Err(error) => Err(error.to_string()),
    }
}

/// The objects a body's pointers name (edit indices).
fn targets_of(body: &ObjectBody, out: &mut Vec<usize>) {
    for edit in &body.pointers {
        out.extend(edit.elements.iter().filter(|(_, target)| *target != 0).map(|(_, target)| *target as usize - 1));
    }
    for edit in &body.embedded {
        for element in edit.elements.iter().filter_map(|element| element.body.as_ref()) {
            targets_of(element, out);
        }
    }
}

/// A fresh object of `type_id` for an embedded field: the type the field declares (lists and
/// maps are not registered), or a registered one.
fn create(field: &RttiField, type_id: u32, registry: &Registry) -> Option<Box<dyn Reflectable>> {
    if let ElemShape::Embedded(Declared::Type(declared)) = field.shape().elem {
        let declared = declared();
        if declared.id() == type_id {
            return declared.create();
        }
    }
    registry.get(type_id)?.create()
}

/// A plain array rebuilt from runs over its old elements (in order, each used once at most) and
/// new ones (each used once): no larger than the old value and the patch's together.
fn spliced(
    old: &[u8],
    old_count: usize,
    new: &[u8],
    new_count: usize,
    runs: &[(u32, u32)],
    static_size: Option<u32>,
) -> Result<(usize, Vec<u8>), String> {
    let old_elements = split(old, old_count, static_size).ok_or("the field's value does not split into elements")?;
    let new_elements = split(new, new_count, static_size).ok_or("the patch's elements do not split")?;
    let (mut out, mut count, mut next_new, mut next_old) = (Vec::new(), 0usize, 0usize, 0usize);
    for &(start, len) in runs {
        let len = len as usize;
        let (source, ranges) = if start == NONE {
            let end = next_new.checked_add(len).filter(|&end| end <= new_elements.len());
            let end = end.ok_or("runs past the patch's elements")?;
            let ranges = &new_elements[next_new..end];
            next_new = end;
            (new, ranges)
        } else {
            let start = start as usize;
            let end = start.checked_add(len).filter(|&end| start >= next_old && end <= old_elements.len());
            let end = end.ok_or("runs out of order or past the old elements")?;
            next_old = end;
            (old, &old_elements[start..end])
        };
        for range in ranges {
            out.extend_from_slice(&source[range.clone()]);
        }
        count += len;
    }
    if next_new != new_elements.len() {
        return Err("the patch's elements are not all used".into());
    }
    Ok((count, out))
}
