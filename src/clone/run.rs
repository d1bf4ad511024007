//! One clone in progress, in a single pass over the subgraph, as the decoder builds a graph: a
//! shared object is adopted where a strong pointer first reaches it (a mutable one gets its empty
//! clone at once and is filled later, in order; an immutable one is built on the spot, after the
//! immutable objects it needs). A `Weak` to an object not reached yet keeps its original target
//! and is fixed up at the end if the object turned out to be inside the subgraph.

use super::{CloneError, Cloner};
use crate::field::{FieldAccess, SharedObject};
use crate::plain::Reader;
use crate::rtti::lifecycle::{finish_hooks, has_end_hooks, start_hooks};
use crate::rtti::visit::{self, Slot, SlotAt, SlotMut};
use crate::rtti::{Reflectable, RttiType};
use crate::runtime::UnknownFields;
use ahash::AHashMap;
use smallvec::SmallVec;
use std::collections::VecDeque;

/// A step from an object to a pointer element or an object it holds by value: the slot, the
/// element.
type Step = (SlotAt, usize);

/// Up to a few pointers of one field: most pointer fields hold one or a handful.
type Targets = SmallVec<[Option<SharedObject>; 4]>;

/// Where the object being filled is: the root by value, a shared clone, or an immutable one
/// being built (which nothing can change once it is shared).
#[derive(Clone, Copy, PartialEq)]
enum Owner {
    Root,
    Shared(u32),
    Sealed,
}

/// A `Weak` element that met its target before the target was reached: where it is, and the
/// original target's address.
struct Fixup {
    owner: Owner,
    steps: Box<[Step]>,
    target: usize,
}

pub(super) struct Run<'c, 'r> {
    cloner: &'c Cloner<'r>,
    /// Every shared object met, by address: its index in `clones`.
    index: AHashMap<usize, u32>,
    /// The clones (an object shared by policy is its own "clone"); `None` while an immutable
    /// one is built.
    clones: Vec<Option<SharedObject>>,
    /// Originals whose (mutable) clones are still to fill.
    queue: VecDeque<(SharedObject, u32)>,
    /// Plain values pass through this buffer in their stored form.
    scratch: Vec<u8>,
    /// Clones whose end hooks run last.
    to_finish: Vec<SharedObject>,
    owner: Owner,
    steps: Vec<Step>,
    fixups: Vec<Fixup>,
}

impl<'c, 'r> Run<'c, 'r> {
    pub(super) fn new(cloner: &'c Cloner<'r>) -> Self {
        Run {
            cloner,
            index: AHashMap::new(),
            clones: Vec::new(),
            queue: VecDeque::new(),
            scratch: Vec::new(),
            to_finish: Vec::new(),
            owner: Owner::Root,
            steps: Vec::new(),
            fixups: Vec::new(),
        }
    }

    /// The clone of a root owned by the caller.
    pub(super) fn root_object(mut self, object: &dyn Reflectable) -> Result<Box<dyn Reflectable>, CloneError> {
        let rtti = object.rtti();
        let mut clone = rtti.create().ok_or_else(|| no_constructor(rtti))?;
        start_hooks(&mut *clone, &mut ());
        self.fill(object, &mut *clone)?;
        self.drain()?;
        self.fix_up(Some(&mut *clone))?;
        self.finish();
        finish_hooks(&mut *clone, &mut ());
        Ok(clone)
    }

    /// The clone of a root in a shared allocation.
    pub(super) fn root_shared(mut self, root: &SharedObject) -> Result<SharedObject, CloneError> {
        let clone = self.adopt(root.clone(), false)?;
        self.drain()?;
        self.fix_up(None)?;
        self.finish();
        Ok(clone)
    }

    /// Takes `original` into the subgraph: its clone, made now (empty and queued for a mutable
    /// family, complete for an immutable one). `only`: the pointer that reached it is the only
    /// one (no other strong handle, no `Weak`), so nothing can reach it again and a mutable one
    /// is not kept by address.
    fn adopt(&mut self, original: SharedObject, only: bool) -> Result<SharedObject, CloneError> {
        let rtti = original.read(|object| object.rtti()).map_err(CloneError::Pointee)?;
        let at = self.clones.len() as u32;
        let family = original.family();
        if !(only && family.is_mutable()) {
            self.index.insert(original.addr(), at);
        }
        if family.is_mutable() {
            let clone = rtti.create_shared(family).ok_or_else(|| no_constructor(rtti))?;
            self.clones.push(Some(clone.clone()));
            if has_end_hooks(rtti) {
                self.to_finish.push(clone.clone());
            }
            self.queue.push_back((original, at));
            return Ok(clone);
        }
        self.clones.push(None);
        self.build_immutable(original, at)?;
        Ok(self.clones[at as usize].clone().expect("just built"))
    }

    /// Fills the queued mutable clones from their originals.
    fn drain(&mut self) -> Result<(), CloneError> {
        while let Some((original, at)) = self.queue.pop_front() {
            let clone = self.clones[at as usize].clone().expect("a mutable clone is made when adopted");
            (self.owner, self.steps) = (Owner::Shared(at), Vec::new());
            original
                .read(|source| {
                    clone.write(|target| {
                        start_hooks(target, &mut ());
                        self.fill(source, target)
                    })
                })
                .and_then(|written| written)
                .map_err(CloneError::Pointee)??;
        }
        Ok(())
    }

    /// Builds immutable `original` (adopted as `at`) after the immutable objects it points at, on
    /// an explicit stack: a long chain of `Rc`s costs heap, not call stack. Immutable objects
    /// cannot form a strong cycle; a `Weak` inside one to an object not reached yet keeps
    /// pointing at the original (the object is sealed before the fix-ups run).
    fn build_immutable(&mut self, original: SharedObject, at: u32) -> Result<(), CloneError> {
        let saved = (self.owner, std::mem::take(&mut self.steps));
        let mut stack = vec![(original, at, false)];
        let mut needs = Vec::new();
        while let Some(frame) = stack.last_mut() {
            if !frame.2 {
                frame.2 = true;
                let (cloner, index) = (self.cloner, &self.index);
                frame
                    .0
                    .read(|object| immutable_needs(cloner, object, index, &mut needs))
                    .map_err(CloneError::Pointee)??;
                for need in needs.drain(..) {
                    if !self.index.contains_key(&need.addr()) && !self.cloner.shares_type(&need) {
                        let at = self.clones.len() as u32;
                        self.index.insert(need.addr(), at);
                        self.clones.push(None);
                        stack.push((need, at, false));
                    }
                }
                continue;
            }
            let (original, at, _) = stack.pop().expect("the loop saw a frame");
            let rtti = original.read(|object| object.rtti()).map_err(CloneError::Pointee)?;
            let mut object = rtti.create().ok_or_else(|| no_constructor(rtti))?;
            start_hooks(&mut *object, &mut ());
            (self.owner, self.steps) = (Owner::Sealed, Vec::new());
            original.read(|source| self.fill(source, &mut *object)).map_err(CloneError::Pointee)??;
            // Nothing can change an immutable object once shared: its end hooks run now.
            finish_hooks(&mut *object, &mut ());
            let shared = rtti.make_shared(original.family(), object);
            self.clones[at as usize] =
                Some(shared.unwrap_or_else(|_| unreachable!("a fresh object fits its own type")));
        }
        (self.owner, self.steps) = saved;
        Ok(())
    }

    /// A clone of an object held by value, complete with its hooks.
    fn clone_embedded(&mut self, source: &dyn Reflectable) -> Result<Box<dyn Reflectable>, CloneError> {
        let rtti = source.rtti();
        let mut object = rtti.create().ok_or_else(|| no_constructor(rtti))?;
        start_hooks(&mut *object, &mut ());
        self.fill(source, &mut *object)?;
        finish_hooks(&mut *object, &mut ());
        Ok(object)
    }

    /// Copies every field of `source` into `target`, a fresh object of the same type: the
    /// variant each section holds, then its slots (kept unknown fields in a kept set like the
    /// source's).
    fn fill(&mut self, source: &dyn Reflectable, target: &mut dyn Reflectable) -> Result<(), CloneError> {
        for section in visit::sections(source) {
            let rtti = section.rtti;
            let into = RttiType::section_mut(target, section.depth).expect("a clone has its original's chain");
            if let Some(variant) = section.variant() {
                variant.activate(into).map_err(|source| CloneError::Field {
                    type_name: rtti.name().to_owned(),
                    field: variant.name().to_owned(),
                    source,
                })?;
            }
            if let Some((fields, _)) = rtti.unknown_fields(section.object).and_then(UnknownFields::kept) {
                if let Some(unknown) = rtti.unknown_fields_mut(into) {
                    unknown.object_for(fields);
                }
            }
            for slot in section.slots() {
                let into = visit::lend(&mut *into, rtti, slot.field, slot.kept)
                    .expect("a clone keeps its original's kept set");
                self.copy_field(slot.at(), rtti, slot.owner, into.owner)?;
            }
        }
        Ok(())
    }

    fn copy_field(
        &mut self,
        at: SlotAt,
        rtti: &'static RttiType,
        source: &dyn Reflectable,
        target: &mut dyn Reflectable,
    ) -> Result<(), CloneError> {
        let field = at.field;
        let error = CloneError::field(rtti, field);
        let refused = match field.access() {
            FieldAccess::Plain(plain) => {
                self.scratch.clear();
                let count = plain.write(source, &mut self.scratch).map_err(&error)?;
                plain.read(target, count, &mut Reader::new(&self.scratch)).map_err(&error)?;
                0
            }
            FieldAccess::Embedded(values) if !field.is_array() => {
                // A single value: filled in place when the fresh owner already holds one of the
                // same type (no box to allocate and store).
                self.steps.push((at, 0));
                let filled = field
                    .with_embedded(source, 0, |from| {
                        field.with_embedded_mut(target, 0, |into| match (from, into) {
                            (Some(from), Some(into)) if from.rtti().id() == into.rtti().id() => {
                                start_hooks(into, &mut ());
                                let filled = self.fill(from, into);
                                finish_hooks(into, &mut ());
                                Some(filled)
                            }
                            _ => None,
                        })
                    })
                    .and_then(|filled| filled)
                    .map_err(&error)?;
                let refused = match filled {
                    Some(filled) => filled.map(|()| 0)?,
                    None => {
                        let clone = field
                            .with_embedded(source, 0, |value| value.map(|value| self.clone_embedded(value)).transpose())
                            .map_err(&error)??;
                        values.store(target, vec![clone], self.cloner.registry).map_err(&error)?
                    }
                };
                self.steps.pop();
                refused
            }
            FieldAccess::Embedded(values) => {
                let mut clones = Vec::new();
                let mut failed = None;
                self.steps.push((at, 0));
                values
                    .for_each(source, &mut |value| {
                        if let Some(step) = self.steps.last_mut() {
                            step.1 = clones.len();
                        }
                        match value.map(|value| self.clone_embedded(value)).transpose() {
                            Ok(clone) => clones.push(clone),
                            Err(error) => failed = failed.take().or(Some(error)),
                        }
                    })
                    .map_err(&error)?;
                self.steps.pop();
                if let Some(failed) = failed {
                    return Err(failed);
                }
                values.store(target, clones, self.cloner.registry).map_err(&error)?
            }
            FieldAccess::Pointer(pointers) => {
                let keep = !self.cloner.deep || self.cloner.shares_field(field);
                let weak = pointers.is_weak();
                let mut targets = Targets::new();
                let mut failed = None;
                pointers
                    .for_each(source, &mut |addr, count, handle| {
                        let mapped = match addr {
                            None => Ok(None),
                            Some(_) if keep => Ok(handle()),
                            Some(addr) => {
                                let only = count == 1 && !weak;
                                self.target(addr, weak, only, (at, targets.len()), handle)
                            }
                        };
                        match mapped {
                            Ok(mapped) => targets.push(mapped),
                            Err(error) => {
                                failed.get_or_insert(error);
                                targets.push(None);
                            }
                        }
                    })
                    .map_err(&error)?;
                if let Some(failed) = failed {
                    return Err(failed);
                }
                let targets: SmallVec<[Option<&SharedObject>; 4]> = targets.iter().map(Option::as_ref).collect();
                pointers.store(target, &targets, self.cloner.registry).map_err(&error)?
            }
        };
        if refused > 0 {
            return Err(CloneError::Refused { type_name: rtti.name().to_owned(), field: field.name().to_owned() });
        }
        Ok(())
    }

    /// What a pointer to the object at `addr` points at in the clone: its clone (adopted now if
    /// a strong pointer reaches it first), or the original (an object shared by type, or one a
    /// `Weak` reaches before anything strong does: fixed up at the end if it is adopted later).
    /// `only`: this element is the only pointer to the object (see [`adopt`](Self::adopt)),
    /// which then cannot have been met before.
    fn target(
        &mut self,
        addr: usize,
        weak: bool,
        only: bool,
        step: Step,
        handle: &dyn Fn() -> Option<SharedObject>,
    ) -> Result<Option<SharedObject>, CloneError> {
        let known = if only { None } else { self.index.get(&addr).copied() };
        if let Some(at) = known {
            // `None`: an immutable object being built, met through a `Weak` back into it.
            return Ok(self.clones[at as usize].clone().or_else(handle));
        }
        let Some(original) = handle() else { return Ok(None) };
        if weak {
            if self.owner != Owner::Sealed {
                let steps = self.steps.iter().copied().chain([step]).collect();
                self.fixups.push(Fixup { owner: self.owner, steps, target: addr });
            }
            return Ok(Some(original));
        }
        if self.cloner.shares_type(&original) {
            // Its own "clone": later pointers to it find it at once.
            self.index.insert(addr, self.clones.len() as u32);
            self.clones.push(Some(original.clone()));
            return Ok(Some(original));
        }
        self.adopt(original, only).map(Some)
    }

    /// Points the `Weak`s met before their targets at the targets' clones, where the targets
    /// turned out to be inside the subgraph.
    fn fix_up(&mut self, mut root: Option<&mut dyn Reflectable>) -> Result<(), CloneError> {
        for fixup in std::mem::take(&mut self.fixups) {
            let Some(&at) = self.index.get(&fixup.target) else { continue };
            let Some(clone) = self.clones[at as usize].clone() else { continue };
            let registry = self.cloner.registry;
            match (fixup.owner, root.as_deref_mut()) {
                (Owner::Root, Some(root)) => retarget(root, &fixup.steps, &clone, registry)?,
                (Owner::Shared(owner), _) => {
                    let owner = self.clones[owner as usize].clone().expect("a mutable clone");
                    owner
                        .write(|object| retarget(object, &fixup.steps, &clone, registry))
                        .map_err(CloneError::Pointee)??;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Runs the end hooks of the shared clones.
    fn finish(&mut self) {
        for clone in self.to_finish.drain(..) {
            // A clone nobody else holds yet cannot be borrowed elsewhere.
            let _ = clone.write(|object| finish_hooks(object, &mut ()));
        }
    }
}

/// Sets the pointer element `steps` lead to in `object` to `clone`.
fn retarget(
    object: &mut dyn Reflectable,
    steps: &[Step],
    clone: &SharedObject,
    registry: &crate::Registry,
) -> Result<(), CloneError> {
    let Some((&(at, index), rest)) = steps.split_first() else { return Ok(()) };
    let Some(SlotMut { section: rtti, field, owner, .. }) = visit::slot_mut(object, at) else { return Ok(()) };
    let error = CloneError::field(rtti, field);
    if !rest.is_empty() {
        return field
            .with_embedded_mut(owner, index, |inner| {
                inner.map_or(Ok(()), |inner| retarget(inner, rest, clone, registry))
            })
            .map_err(&error)?;
    }
    let Some(pointers) = field.as_pointer() else { return Ok(()) };
    let len = field.len(owner).map_err(&error)?;
    let mut targets: Vec<Option<SharedObject>> =
        (0..len).map(|i| field.shared(owner, i)).collect::<Result<_, _>>().map_err(&error)?;
    if let Some(slot) = targets.get_mut(index) {
        *slot = Some(clone.clone());
    }
    let targets: Vec<Option<&SharedObject>> = targets.iter().map(Option::as_ref).collect();
    pointers.store(owner, &targets, registry).map_err(&error)?;
    Ok(())
}

fn no_constructor(rtti: &RttiType) -> CloneError {
    CloneError::NoConstructor { type_name: rtti.name().to_owned() }
}

/// Appends the targets of `object`'s strong, followed pointers (in it and in what it holds by
/// value) that are immutable and not met yet: what an immutable object needs built first.
fn immutable_needs(
    cloner: &Cloner,
    object: &dyn Reflectable,
    known: &AHashMap<usize, u32>,
    out: &mut Vec<SharedObject>,
) -> Result<(), CloneError> {
    for Slot { section, field, owner, .. } in visit::slots(object) {
        let error = CloneError::field(section, field);
        match field.access() {
            FieldAccess::Plain(_) => {}
            FieldAccess::Embedded(values) => {
                let mut result = Ok(());
                values
                    .for_each(owner, &mut |value| {
                        if let (Some(value), Ok(())) = (value, &result) {
                            result = immutable_needs(cloner, value, known, out);
                        }
                    })
                    .map_err(&error)?;
                result?;
            }
            FieldAccess::Pointer(pointers)
                if !pointers.is_weak() && !pointers.family().is_mutable() && !cloner.shares_field(field) =>
            {
                pointers
                    .for_each(owner, &mut |addr, _, handle| {
                        if addr.is_some_and(|addr| !known.contains_key(&addr)) {
                            out.extend(handle());
                        }
                    })
                    .map_err(&error)?;
            }
            FieldAccess::Pointer(_) => {}
        }
    }
    Ok(())
}
