//! [`Patch::apply`]: a patch applied to a graph, with a report of whatever could not be applied.
//!
//! Every object edit is found first, in the graph as it was: the root, then each found object by
//! its path from an earlier one. Then the objects the patch creates are made (mutable families
//! empty, immutable ones complete, after what they point at), and the bodies applied. A patch is
//! data: a hostile or stale one (a path that leads nowhere, a field the type no longer has, a
//! value of another plain type, an index past an array's end) is reported, never a panic.

mod describe;
mod fields;
mod report;
mod unheld;

pub(crate) use describe::names;
pub use describe::AppliedChange;
pub use report::{ApplyProblem, ApplyProblemKind, ApplyReport};

use super::patch::{KeptEdit, Malformed, ObjectBody, Origin, Patch};
use crate::field::{RttiField, SharedHandle, SharedObject};
use crate::rtti::visit;
use crate::rtti::{Flow, GraphWalker};
use crate::rtti::{Reflectable, Registry, RttiType};
use crate::runtime::{kept_fields, RuntimeObject};
use crate::schema::table::checked_fields;
use ahash::{AHashMap, AHashSet};

/// Applying a patch: see [`diff`](super::diff) for a whole round.
impl Patch {
    /// Applies the patch to the graph under `target` (an object the caller owns). Objects the
    /// patch creates are made with the global registry's types (or the types their fields
    /// declare).
    ///
    /// ```
    /// use reflectable::diff::diff;
    /// use reflectable::Reflectable;
    ///
    /// #[derive(Reflectable, Default, Clone)]
    /// #[rtti(id = 9860)]
    /// struct Lamp {
    ///     #[rtti(id = 1)]
    ///     watts: f32,
    /// }
    ///
    /// let (old, new) = (Lamp { watts: 40.0 }, Lamp { watts: 60.0 });
    /// let patch = diff(&old, &new).unwrap();
    /// let mut target = old.clone();
    /// assert!(patch.apply(&mut target).is_complete());
    /// assert_eq!(target.watts, 60.0);
    /// ```
    pub fn apply(&self, target: &mut dyn Reflectable) -> ApplyReport {
        self.apply_with(target, Registry::global())
    }

    /// [`apply`](Self::apply), creating objects and casting trait objects with `registry`.
    pub fn apply_with(&self, target: &mut dyn Reflectable, registry: &Registry) -> ApplyReport {
        run_apply(self, registry, None, Target::Value(target))
    }

    /// Applies the patch to the graph under a shared root (the handle [`diff`](super::diff) was
    /// given for the old graph's root, or its clone's).
    pub fn apply_shared<H: SharedHandle>(&self, target: &H) -> ApplyReport {
        run_apply(self, Registry::global(), None, Target::Shared(&SharedObject::new(target.clone())))
    }

    /// [`apply`](Self::apply) for a patch with external references
    /// ([`diff_external`](super::diff_external)): `relink` gets each one's key and type ID
    /// and returns the caller's object (an asset, another scene's object), which the patched
    /// pointers then hold. The patch never changes it. A reference not re-linked (`None`, or an
    /// object of another type) is reported, and the pointers to it keep what they held.
    ///
    /// Make the object with [`SharedObject::new`] from its handle (`Rc<RefCell<Texture>>`), or
    /// [`SharedObject::new_concrete`] for fields that declare `dyn Reflectable`.
    /// [`externals`](Self::externals) lists what a patch refers to, to load it first.
    pub fn apply_relinked(&self, target: &mut dyn Reflectable, relink: Relink<'_>) -> ApplyReport {
        run_apply(self, Registry::global(), Some(relink), Target::Value(target))
    }

    /// [`apply_shared`](Self::apply_shared) with external references re-linked, as
    /// [`apply_relinked`](Self::apply_relinked) does.
    pub fn apply_shared_relinked<H: SharedHandle>(&self, target: &H, relink: Relink<'_>) -> ApplyReport {
        run_apply(self, Registry::global(), Some(relink), Target::Shared(&SharedObject::new(target.clone())))
    }

    /// The external references of the patch: each object outside the patched graph it points at,
    /// as the key [`diff_external`](super::diff_external)'s caller gave it and its type ID.
    pub fn externals(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.objects.iter().filter_map(|edit| match edit.origin {
            Origin::External => Some((edit.key, edit.body.type_id)),
            _ => None,
        })
    }
}

/// The address of the object each edit of `patch` finds in the graph under `root` (0 for the
/// root; `None` for a created object or one not found), as `apply` would find them.
pub(crate) fn located(patch: &Patch, root: &dyn Reflectable, registry: &Registry) -> Vec<Option<usize>> {
    let mut found: Vec<Option<usize>> =
        located_handles(patch, root, registry).iter().map(|handle| handle.as_ref().map(SharedObject::addr)).collect();
    if let Some(root) = found.first_mut() {
        *root = Some(0);
    }
    found
}

/// The objects [`located`] finds, held (`None` for the root, a created object or one not found).
pub(crate) fn located_handles(patch: &Patch, root: &dyn Reflectable, registry: &Registry) -> Vec<Option<SharedObject>> {
    let mut run = Applier::new(patch, registry);
    run.locate(Some(root), None);
    run.handles
}

/// What a patch is applied to: a root the caller owns, or a shared root.
enum Target<'t> {
    Value(&'t mut dyn Reflectable),
    Shared(&'t SharedObject),
}

/// Every apply but the described one: [`Patch::apply_with`], [`Patch::apply_shared`] and their
/// re-linking twins.
fn run_apply(patch: &Patch, registry: &Registry, relink: Option<Relink<'_>>, target: Target<'_>) -> ApplyReport {
    if let Some(report) = refused(patch, registry) {
        return report;
    }
    let mut run = Applier::new(patch, registry);
    run.relink = relink;
    match target {
        Target::Value(target) => {
            run.locate(Some(&*target), None);
            run.create();
            run.edit(0, target);
        }
        Target::Shared(target) => {
            run.locate(None, Some(target.clone()));
            run.create();
        }
    }
    run.apply_shared_bodies();
    run.release_unheld();
    run.report
}

/// The report of a patch that changes nothing, or that breaks its own rules and is not applied
/// at all: [`Patch::from_bytes`] and [`Patch::from_json`] refuse such a patch, but one can
/// also be loaded as a field of any type, unchecked.
fn refused(patch: &Patch, registry: &Registry) -> Option<ApplyReport> {
    if patch.objects.is_empty() {
        return Some(ApplyReport::default());
    }
    let Malformed { at, why } = patch.check().err().or_else(|| too_long_a_chain(patch, registry))?;
    let mut report = ApplyReport::default();
    report.push(|| ApplyProblem { object: 0, field: None, kind: ApplyProblemKind::Malformed { at, why } });
    Some(report)
}

/// A patch whose own strong links (between the objects it edits and creates) make a chain longer
/// than the calling thread's stack could drop
/// ([`Limits::drop_stack_limit`](crate::serializer::Limits::drop_stack_limit), at a costly link's
/// stack each): Rust drops such a chain by recursion, one frame or more per link, so applying it
/// could leave a graph whose drop overflows the stack, which the decoder refuses to build from a
/// stream too. The patch's links alone are counted, in any order; a pointer field this program
/// does not know (or cannot tell weak from strong) counts as strong.
fn too_long_a_chain(patch: &Patch, registry: &Registry) -> Option<Malformed> {
    let mut edges = crate::serializer::StrongEdges::default();
    for (index, edit) in patch.objects.iter().enumerate() {
        strong_links(&edit.body, 0, registry, &mut |to, link| edges.push_at(index, to, link));
    }
    if edges.len() < 2 {
        return None;
    }
    let limit = crate::serializer::Limits::default().drop_stack_limit();
    let deepest = edges.graph(patch.objects.len()).longest_drop();
    (deepest.stack > limit).then(|| Malformed {
        at: "objects".into(),
        why: format!(
            "it links a chain of {} objects by strong pointers, whose drop needs about {} bytes of stack, past the \
             {limit} this thread has",
            deepest.objects, deepest.stack
        ),
    })
}

/// The edits a body (and the bodies nested in it, `nesting` deep in their object) points at
/// through strong pointers, with where each pointer sits.
fn strong_links(
    body: &ObjectBody,
    nesting: usize,
    registry: &Registry,
    link: &mut impl FnMut(usize, crate::serializer::Link),
) {
    for edit in &body.pointers {
        // A type this program lacks weighs the most a link can.
        let weight = registry.get(edit.section).map_or(u8::MAX, crate::serializer::drop_weight);
        let field = registry.get(edit.section).and_then(|rtti| {
            rtti.field(edit.field).or_else(|| rtti.variants().iter().find_map(|variant| variant.field(edit.field)))
        });
        if field.and_then(RttiField::as_pointer).is_some_and(|pointers| pointers.is_weak()) {
            continue;
        }
        let array = field.is_none_or(RttiField::is_array);
        let at = crate::serializer::Link::at(None, nesting, array).weighing(weight);
        for &(old, target) in &edit.elements {
            // A rebuilt array's kept element keeps its old target, which is not the patch's link.
            if target != 0 && (!edit.rebuild || old == super::patch::NONE) {
                link(target as usize - 1, at);
            }
        }
    }
    for edit in &body.embedded {
        for element in edit.elements.iter().filter_map(|element| element.body.as_ref()) {
            strong_links(element, nesting + 1, registry, link);
        }
    }
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
    /// Created immutable edits being built or done (see `build_immutable`).
    on_stack: Vec<bool>,
    /// What [`Patch::apply_described`] notes of the changes, when it applies.
    describe: Option<describe::Describer>,
    /// Finds the objects of external edits (see [`Patch::apply_relinked`]).
    relink: Option<Relink<'p>>,
}

/// Finds the caller's object for an external reference: its key and type ID in, the object out
/// (`None`: not found, the pointers to it are left as they were and reported).
pub type Relink<'r> = &'r dyn Fn(u64, u32) -> Option<SharedObject>;

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
            on_stack: Vec::new(),
            describe: None,
            relink: None,
        }
    }

    fn problem(&mut self, object: usize, field: Option<String>, kind: ApplyProblemKind) {
        self.report.push(|| ApplyProblem { object, field, kind });
    }

    /// Finds every found object in the graph as it is before any change.
    /// An allocation two edits find (by different paths through shared objects) is edited by
    /// the first only: each object is changed once, so a patch's work stays bounded by its size
    /// and the graph's.
    fn locate(&mut self, root: Option<&dyn Reflectable>, shared_root: Option<SharedObject>) {
        let mut seen: AHashSet<usize> = shared_root.iter().map(SharedObject::addr).collect();
        // The target graph's objects by identity, indexed once if a path misses one.
        let mut by_identity: Option<AHashMap<Vec<u8>, Option<SharedObject>>> = None;
        self.handles[0] = shared_root.clone();
        for (index, edit) in self.patch.objects.iter().enumerate() {
            let from = match edit.origin {
                Origin::Root if index == 0 => continue,
                Origin::Root => {
                    self.problem(index, None, ApplyProblemKind::NotFound("a second root".into()));
                    continue;
                }
                Origin::Created { .. } => continue,
                Origin::External => {
                    self.relink_external(index, edit.key);
                    continue;
                }
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
            let mut path = self.describe.as_ref().map(|describer| describer.path_of(from));
            let found = match (&self.handles[from], from, root) {
                (Some(handle), _, _) => handle
                    .read(|object| follow(object, &edit.path, path.as_mut()))
                    .unwrap_or_else(|error| Err(format!("edit {from}'s object cannot be read: {error}"))),
                (None, 0, Some(root)) => follow(root, &edit.path, path.as_mut()),
                (None, _, _) => Err(format!("edit {from}'s object was not found")),
            };
            // An object of a type with an identity is the one with that identity: where the path
            // leads elsewhere (the graph changed since), it is found by its identity instead.
            let found = match found {
                Ok(handle) if edit.identity.is_empty() || identity_key(&handle).as_ref() == Some(&edit.identity) => {
                    Ok(handle)
                }
                _ if edit.identity.is_empty() => found,
                _ => {
                    let index = by_identity.get_or_insert_with(|| identities(root, self.handles[0].as_ref()));
                    path = None;
                    match index.get(&edit.identity) {
                        Some(Some(handle)) => Ok(handle.clone()),
                        Some(None) => Err("two objects of the graph have its identity".to_owned()),
                        None => Err("no object of the graph has its identity".to_owned()),
                    }
                }
            };
            match found {
                Ok(handle) if !seen.insert(handle.addr()) => {
                    let why = "another edit of the patch found the same object".to_owned();
                    self.problem(index, None, ApplyProblemKind::NotFound(why));
                }
                Ok(handle) => {
                    if let Some(describer) = self.describe.as_mut() {
                        let path = path.unwrap_or_else(|| describer.path_of(0));
                        describer.found(index, Some(&handle), path);
                    }
                    self.handles[index] = Some(typed(handle));
                }
                Err(why) => self.problem(index, None, ApplyProblemKind::NotFound(why)),
            }
        }
    }

    /// Finds the caller's object for external edit `index` (see [`Patch::apply_relinked`]).
    fn relink_external(&mut self, index: usize, key: u64) {
        let type_id = self.patch.objects[index].body.type_id;
        let found = self.relink.and_then(|relink| relink(key, type_id));
        let why = match found {
            None if self.relink.is_none() => format!("external object {key} (type ID {type_id}): nothing re-links it"),
            None => format!("external object {key} (type ID {type_id}) was not re-linked"),
            Some(handle) => match handle.read(|object| object.rtti()) {
                Ok(rtti) if rtti.id() == type_id => {
                    self.handles[index] = Some(typed(handle));
                    return;
                }
                Ok(rtti) => {
                    let found = rtti.name().to_owned();
                    self.problem(index, None, ApplyProblemKind::TypeMismatch { expected: type_id, found });
                    return;
                }
                Err(error) => format!("external object {key} cannot be read: {error}"),
            },
        };
        self.problem(index, None, ApplyProblemKind::NotFound(why));
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
        // Shared by every call: one per call would make a patch of many created objects
        // quadratic.
        let mut on_stack = std::mem::take(&mut self.on_stack);
        on_stack.resize(self.patch.objects.len(), false);
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
        self.on_stack = on_stack;
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
        self.enter(index, &*object, body);
        if let Some(variant) = body.variant {
            let before = self.describing().then(|| active_variant(&*object));
            match rtti.variant(variant).map(|v| v.activate(object)) {
                Some(Ok(())) => self.note("variant", None, before, Some(active_variant(&*object))),
                Some(Err(error)) => self.problem(index, None, ApplyProblemKind::Field(error.to_string())),
                None => self.problem(index, Some(format!("variant {variant}")), ApplyProblemKind::Gone),
            }
        }
        // Before the fields: the edits below may give the fields of a set kept from now on.
        for edit in &body.kept {
            self.kept(index, object, edit);
        }
        for edit in &body.plain {
            if let Some((section, field)) = self.field(index, object, edit.section, edit.field) {
                let before = self.value_text(field, &*section);
                self.plain(index, section, field, edit);
                let after = self.value_text(field, &*section);
                self.note(field.name(), None, before, after);
            }
        }
        for edit in &body.maps {
            if let Some((section, field)) = self.field(index, object, edit.section, edit.field) {
                self.map(index, section, field, edit);
            }
        }
        for edit in &body.embedded {
            if let Some((section, field)) = self.field(index, object, edit.section, edit.field) {
                self.embedded(index, section, field, edit);
            }
        }
        for edit in &body.pointers {
            if let Some((section, field)) = self.field(index, object, edit.section, edit.field) {
                let before = self.targets(field, &*section);
                self.pointers(index, section, field, edit);
                let after = self.targets(field, &*section);
                self.note_targets(field, before, after);
            }
        }
        self.leave(body);
    }

    /// Gives the section of type `edit.section` the kept set `edit.fields` describes (each field
    /// at its default), or none. The set is checked as a stream's schema table would be, and
    /// may not name a field the type declares (a save would write it twice).
    fn kept(&mut self, index: usize, object: &mut dyn Reflectable, edit: &KeptEdit) {
        let name = || Some(format!("{} (kept unknown fields)", edit.section));
        let Some(depth) = object.rtti().chain().position(|rtti| rtti.id() == edit.section) else {
            return self.problem(index, name(), ApplyProblemKind::Gone);
        };
        let section = RttiType::section_mut(object, depth).expect("the chain came from the object");
        let rtti = section.rtti();
        let Some(unknown) = rtti.unknown_fields_mut(section) else {
            let why = "the type keeps no unknown fields".to_owned();
            return self.problem(index, name(), ApplyProblemKind::FieldMismatch(why));
        };
        if edit.fields.is_empty() {
            return unknown.clear();
        }
        // Read back as a stream's table would be: a set that does not read back as itself
        // (fields whose parts contradict one another) describes nothing.
        let fields = match checked_fields(rtti.id(), edit.fields.clone()) {
            Ok(fields) if fields == edit.fields => fields,
            Ok(_) => {
                let why = "the fields do not read back as themselves from a schema table".to_owned();
                return self.problem(index, name(), ApplyProblemKind::BadValue(why));
            }
            Err(error) => return self.problem(index, name(), ApplyProblemKind::BadValue(error.kind().to_string())),
        };
        if let Some(field) = fields.iter().find(|field| rtti.field(field.id).is_some()) {
            let why = format!("field {} is one the type declares", field.id);
            return self.problem(index, name(), ApplyProblemKind::FieldMismatch(why));
        }
        let set = match kept_fields(rtti, fields) {
            Ok(set) => set,
            Err(why) => return self.problem(index, name(), ApplyProblemKind::BadValue(why)),
        };
        match RuntimeObject::create(set.rtti) {
            Some(values) => unknown.set_kept(set, values),
            None => self.problem(index, name(), ApplyProblemKind::CannotCreate(set.rtti.id())),
        }
    }

    /// The slot of field `id` in the section of type `section` of `object` (declared or kept):
    /// the object its accessors take and the field, or a report.
    fn field<'o>(
        &mut self,
        index: usize,
        object: &'o mut dyn Reflectable,
        section: u32,
        id: u16,
    ) -> Option<(&'o mut dyn Reflectable, &'static RttiField)> {
        match visit::slot_by_id_mut(object, section, id) {
            Some(slot) => Some((slot.owner, slot.field)),
            None => {
                self.problem(index, Some(format!("{section}.{id}")), ApplyProblemKind::Gone);
                None
            }
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

/// `handle` as a handle to its object's Rust type where it was found through a kept field (an
/// erased handle, which typed fields cannot hold), else as it is.
fn typed(handle: SharedObject) -> SharedObject {
    let rtti = handle.read(|object| object.rtti()).ok();
    rtti.and_then(|rtti| rtti.concrete_handle(&handle)).unwrap_or(handle)
}

/// The identity key of a shared object (see [`identities`]); `None` when its type declares none.
fn identity_key(handle: &SharedObject) -> Option<Vec<u8>> {
    handle.read(|object| object.rtti().identity_key(object)).ok().flatten()
}

/// The shared objects the root (`root`, or `shared_root`) holds strongly whose types declare an
/// identity, by their identity key (type ID, then the identity's bytes); `None` for a key two
/// objects share, which finds neither. `Weak`s are not followed: they may lead out of the graph
/// (a clone's children to the original's parent), where other objects have the same identities.
fn identities(
    root: Option<&dyn Reflectable>,
    shared_root: Option<&SharedObject>,
) -> AHashMap<Vec<u8>, Option<SharedObject>> {
    let mut found: AHashMap<Vec<u8>, Option<SharedObject>> = AHashMap::new();
    let walker = GraphWalker::new();
    let mut note = |visit: &crate::rtti::Visit<'_>| {
        if let Some(shared) = visit.shared {
            if let Some(key) = visit.object.rtti().identity_key(visit.object) {
                found.entry(key).and_modify(|slot| *slot = None).or_insert_with(|| Some(shared.clone()));
            }
        }
        Ok::<_, std::convert::Infallible>(Flow::Continue)
    };
    // Objects locked elsewhere are not found by identity (their edits report it).
    let _ = match (shared_root, root) {
        (Some(shared), _) => walker.walk_shared(shared, &mut note),
        (None, Some(root)) => walker.walk(root, &mut note),
        (None, None) => Ok(()),
    };
    found
}

/// The name of the variant `object` holds (its ID when it has none; `-` for a struct).
fn active_variant(object: &dyn Reflectable) -> String {
    match object.rtti().active_variant(object) {
        Some(variant) => variant.name().to_owned(),
        None => "-".to_owned(),
    }
}

/// Follows `path` from `object` to the shared object its last step's pointer element holds;
/// each step is added to `names` (`.children[1]`) when given.
fn follow(
    object: &dyn Reflectable,
    path: &[(u32, u16, u32)],
    mut names: Option<&mut String>,
) -> Result<SharedObject, String> {
    let Some((&(section, id, index), rest)) = path.split_first() else {
        return Err("an empty path".into());
    };
    let Some(visit::Slot { section: rtti, field, owner: section, .. }) = visit::slot_by_id(object, section, id) else {
        return Err(format!("`{}` has no field {id} in a section of type ID {section}", object.rtti().name()));
    };
    if let Some(names) = names.as_deref_mut() {
        names.push('.');
        names.push_str(field.name());
        if field.is_array() {
            names.push_str(&format!("[{index}]"));
        }
    }
    let index = index as usize;
    if rest.is_empty() {
        return match field.shared(section, index) {
            Ok(Some(handle)) => Ok(handle),
            Ok(None) => Err(format!("`{}.{}[{index}]` is null", rtti.name(), field.name())),
            Err(error) => Err(error.to_string()),
        };
    }
    match field.with_embedded(section, index, |value| match value {
        Some(value) => follow(value, rest, names),
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
