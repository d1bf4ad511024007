//! [`diff`]: the [`Patch`] that turns one graph into another.
//!
//! The two graphs are walked side by side from their roots. Objects held by value are compared
//! where they are; shared objects are *paired* (this old object is that new one) and each pair
//! compared once, breadth first. Pairs come from array alignment: elements of an old and a new
//! array are matched as the longest common subsequence of their keys (plain elements by their
//! bytes, objects by their content, pointers by the object they point at: a paired one, the same
//! allocation, or an unpaired one of the same content). Elements left over in the same gap of an
//! alignment, of one type, are *guesses*: the same object, edited. Guesses are taken only after
//! every exact match is made, so a pointer moved to another object of the graph is a retarget, not
//! an edit of the object it pointed at before. What a new object pairs with nothing is created by
//! the patch, in full.
//!
//! An object in an immutable allocation (`Rc<T>`, `Arc<T>`) cannot be edited in place: it pairs
//! only with an equal object, and otherwise the patch creates the new one.

use super::align::align;
use super::patch::{
    EmbeddedEdit, EmbeddedElement, ObjectBody, ObjectEdit, Origin, Patch, PlainEdit, PointerEdit, NONE,
};
use crate::containers::MAP_TYPE_ID;
use crate::field::{FieldAccess, FieldError, RttiField, SharedObject};
use crate::plain::DYNAMIC_SIZE_PREFIX;
use crate::rtti::{Reflectable, RttiType};
use crate::serializer::{AsRoot, Root};
use ahash::AHashMap;
use smallvec::SmallVec;
use std::collections::VecDeque;
use std::ops::Range;
use thiserror::Error;

/// Marks an element whose target is a guess: the old element it would keep if the guess holds.
pub(crate) const TENTATIVE: u32 = 1 << 31;

/// Why no patch could be made.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum DiffError {
    /// One root is in a shared allocation and the other is not.
    #[error("one root is shared and the other is not: a patch applies to roots of one kind")]
    RootKinds,
    /// The roots are of different types: a patch edits its root in place.
    #[error("the roots are a `{old}` and a `{new}`: a patch edits its root in place, so both must be of one type")]
    RootTypes {
        /// The old root's type.
        old: String,
        /// The new root's type.
        new: String,
    },
    /// A field or an object could not be read (a `RefCell` borrowed mutably elsewhere).
    #[error("`{field}` cannot be read: {source}")]
    Unreadable {
        /// The field (or `object` for a shared object).
        field: String,
        /// Why.
        #[source]
        source: FieldError,
    },
}

fn unreadable(field: &RttiField) -> impl Fn(FieldError) -> DiffError + '_ {
    move |source| DiffError::Unreadable { field: field.name().to_owned(), source }
}

fn unreadable_object(source: FieldError) -> DiffError {
    DiffError::Unreadable { field: "object".to_owned(), source }
}

/// The changes that turn the graph under `old` into the graph under `new`, addressed by type and
/// field IDs, so the patch still applies after fields are renamed or added.
///
/// Applied with [`apply`](super::apply) to `old` (or to a clone of it), the patch makes a graph
/// [`rtti_eq`](super::rtti_eq) to `new`. `diff(a, a)` is empty. Both roots must be of one type,
/// and both by value or both shared.
///
/// ```
/// use reflectable::diff::{apply, diff, rtti_eq};
/// use reflectable::Reflectable;
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9820)]
/// struct Light {
///     #[rtti(id = 1)]
///     color: [f32; 3],
///     #[rtti(id = 2)]
///     tags: Vec<String>,
/// }
///
/// let old = Light { color: [1.0, 1.0, 1.0], tags: vec!["sun".into(), "warm".into()] };
/// let new = Light { color: [1.0, 0.5, 0.0], tags: vec!["sun".into(), "dusk".into(), "warm".into()] };
/// let patch = diff(&old, &new).unwrap();
/// assert_eq!(patch.objects_changed(), 1);
///
/// let mut target = Light { color: [1.0, 1.0, 1.0], tags: vec!["sun".into(), "warm".into()] };
/// let report = apply(&mut target, &patch);
/// assert!(report.is_complete(), "{report}");
/// rtti_eq(&target, &new).unwrap();
/// assert!(diff(&new, &new).unwrap().is_empty());
/// ```
pub fn diff<A: AsRoot + ?Sized, B: AsRoot + ?Sized>(old: &A, new: &B) -> Result<Patch, DiffError> {
    let mut differ = Differ::default();
    differ.entries.push(ObjectEdit::default());
    match (old.as_root(), new.as_root()) {
        (Root::Object(a), Root::Object(b)) => {
            same_root_type(a, b)?;
            differ.places.push(Place { parent: NONE, steps: 0..0, entry: 0, old: None });
            differ.place = 0;
            differ.entries[0].body = differ.body(Some(a), b)?;
        }
        (Root::Shared(a), Root::Shared(b)) => {
            a.read(|x| b.read(|y| same_root_type(x, y))).and_then(|r| r).map_err(unreadable_object)??;
            differ.places.push(Place { parent: NONE, steps: 0..0, entry: 0, old: Some(a.clone()) });
            differ.entries[0].body.type_id = a.read(|x| x.rtti().id()).map_err(unreadable_object)?;
            differ.pair(&a, &b, 0);
            differ.queue.push_back((a, b, 0, false));
        }
        _ => return Err(DiffError::RootKinds),
    }
    differ.drain()?;
    differ.finish()
}

fn same_root_type(a: &dyn Reflectable, b: &dyn Reflectable) -> Result<(), DiffError> {
    if a.rtti().id() == b.rtti().id() {
        Ok(())
    } else {
        Err(DiffError::RootTypes { old: a.rtti().name().to_owned(), new: b.rtti().name().to_owned() })
    }
}

/// Where an old shared object is: `steps` from the object of place `parent`, the last one the
/// pointer element holding it. Place 0 is the root.
struct Place {
    parent: u32,
    steps: Range<usize>,
    /// Its edit in the patch, once it has one.
    entry: u32,
    old: Option<SharedObject>,
}

/// What a new shared object is to the patch.
#[derive(Clone, Copy)]
enum Side {
    /// The old object at this place, edited.
    Old(u32),
    /// An object the patch creates (this edit).
    Created(u32),
}

/// What an element of a pointer array is, for alignment.
#[derive(Clone, Copy, PartialEq)]
enum Key {
    Null,
    /// The old object at this address: paired, or the very allocation in both graphs.
    Known(usize),
    /// An old object not paired yet.
    FreeOld(usize),
    /// A new object not paired yet (the allocation is not in the old graph as far as seen).
    FreeNew(usize),
    /// A new object the patch creates.
    Created,
}

#[derive(Default)]
struct Differ {
    entries: Vec<ObjectEdit>,
    places: Vec<Place>,
    /// The steps of every place, one after another.
    steps: Vec<(u32, u16, u32)>,
    old_places: AHashMap<usize, u32>,
    old_to_new: AHashMap<usize, usize>,
    new_side: AHashMap<usize, Side>,
    /// Paired objects still to compare: old, new, the old one's place, whether their plain values
    /// are known equal.
    queue: VecDeque<(SharedObject, SharedObject, u32, bool)>,
    /// The next object compared skips its plain values (see [`Differ::compare`]).
    skip_plain: bool,
    /// Guesses still to try: an old object's place and a new object.
    guesses: Vec<(u32, SharedObject)>,
    /// Pointer targets the patch names before it knows what they become: a new object, and the
    /// old object guessed for it.
    targets: Vec<(SharedObject, Option<usize>)>,
    /// The place of the old object being compared (`NONE` while writing a new object in full),
    /// and the steps inside it to the field being compared.
    place: u32,
    path: Vec<(u32, u16, u32)>,
    scratch_a: Vec<u8>,
    scratch_b: Vec<u8>,
    /// The new object each created edit copies.
    created: AHashMap<u32, SharedObject>,
    /// Objects being read (compared) now: not to be read again from inside, where a lock would
    /// deadlock.
    busy: Vec<usize>,
    /// Places of old objects an array lost (no match, no guess): maybe moved elsewhere.
    orphans: Vec<u32>,
}

impl Differ {
    fn paired_new(&self, new: usize) -> bool {
        self.new_side.contains_key(&new)
    }

    fn pair(&mut self, old: &SharedObject, new: &SharedObject, place: u32) {
        self.old_to_new.insert(old.addr(), new.addr());
        self.new_side.insert(new.addr(), Side::Old(place));
    }

    fn unpair(&mut self, old: &SharedObject, new: &SharedObject) {
        self.old_to_new.remove(&old.addr());
        self.new_side.remove(&new.addr());
    }

    /// Pairs the old object at `place` with `new` (unpaired, of its type and family). A mutable
    /// pair is queued for comparison; an immutable one is compared now and pairs only if equal.
    /// `verified`: their fingerprints (every plain value) are known equal.
    fn try_pair(&mut self, place: u32, new: &SharedObject, verified: bool) -> Result<bool, DiffError> {
        let old = self.places[place as usize].old.clone().expect("a pointer target's place has its object");
        self.pair(&old, new, place);
        if old.family().is_mutable() {
            self.queue.push_back((old, new.clone(), place, verified));
            return Ok(true);
        }
        let body = self.compare(&old, new, place, verified)?;
        if body.is_empty() {
            Ok(true)
        } else {
            self.unpair(&old, new);
            Ok(false)
        }
    }

    /// The changes from the old object at `place` to `new`, reading both; their plain values are
    /// not compared again when `verified` (equal fingerprints).
    fn compare(
        &mut self,
        old: &SharedObject,
        new: &SharedObject,
        place: u32,
        verified: bool,
    ) -> Result<ObjectBody, DiffError> {
        self.busy.extend([old.addr(), new.addr()]);
        self.skip_plain = verified;
        let body = old.read(|a| new.read(|b| self.body_at(place, Some(a), b))).and_then(|r| r);
        self.busy.truncate(self.busy.len() - 2);
        body.map_err(unreadable_object)?
    }

    /// Compares queued pairs; then tries the guesses (pairs of objects both still unpaired),
    /// which queue more; until nothing is left.
    fn drain(&mut self) -> Result<(), DiffError> {
        loop {
            while let Some((old, new, place, verified)) = self.queue.pop_front() {
                let body = self.compare(&old, &new, place, verified)?;
                if !body.is_empty() {
                    let entry = self.entry(place)?;
                    self.entries[entry as usize].body = body;
                }
            }
            let guesses = std::mem::take(&mut self.guesses);
            if guesses.is_empty() {
                if !self.orphans.is_empty() && self.pair_moved()? {
                    continue;
                }
                return Ok(());
            }
            for (place, new) in guesses {
                let old = self.places[place as usize].old.clone().expect("guesses are pointer targets");
                if !self.old_to_new.contains_key(&old.addr()) && !self.paired_new(new.addr()) {
                    self.try_pair(place, &new, false)?;
                }
            }
        }
    }

    /// The edit of the old object at `place`, made (with its ancestors') if it has none.
    fn entry(&mut self, place: u32) -> Result<u32, DiffError> {
        let mut chain = Vec::new();
        let mut at = place;
        while self.places[at as usize].entry == NONE {
            chain.push(at);
            at = self.places[at as usize].parent;
        }
        for at in chain.into_iter().rev() {
            let place = &self.places[at as usize];
            let from = self.places[place.parent as usize].entry;
            let old = place.old.as_ref().expect("only the root has no object");
            let type_id = old.read(|o| o.rtti().id()).map_err(unreadable_object)?;
            let path = self.steps[place.steps.clone()].to_vec();
            self.entries.push(ObjectEdit { origin: Origin::Found { from }, path, body: ObjectBody::edit(type_id) });
            self.places[at as usize].entry = self.entries.len() as u32 - 1;
        }
        Ok(self.places[place as usize].entry)
    }

    /// [`body`](Self::body) of the old object at `place`.
    fn body_at(
        &mut self,
        place: u32,
        a: Option<&dyn Reflectable>,
        b: &dyn Reflectable,
    ) -> Result<ObjectBody, DiffError> {
        let saved = (std::mem::replace(&mut self.place, place), std::mem::take(&mut self.path));
        let body = self.body(a, b);
        (self.place, self.path) = saved;
        body
    }

    /// The changes from `a` to `b` (of one type), or `b` in full when there is no `a`.
    fn body(&mut self, a: Option<&dyn Reflectable>, b: &dyn Reflectable) -> Result<ObjectBody, DiffError> {
        let mut body = ObjectBody::edit(b.rtti().id());
        body.fresh = a.is_none();
        // For this object only, not the objects it holds by value.
        let skip_plain = std::mem::take(&mut self.skip_plain) && a.is_some();
        let mut old_sections = a.map(RttiType::sections);
        for (depth, (rtti, sb)) in RttiType::sections(b).enumerate() {
            let mut sa = old_sections.as_mut().and_then(Iterator::next).map(|(_, section)| section);
            if let Some(variant) = rtti.active_variant(sb) {
                let before = sa.and_then(|sa| rtti.active_variant(sa)).map(|v| v.id());
                if before != Some(variant.id()) {
                    // A new variant: its fields are given in full.
                    if depth == 0 {
                        body.variant = Some(variant.id());
                    }
                    sa = None;
                }
            }
            if let (MAP_TYPE_ID, Some(sa)) = (rtti.id(), sa) {
                self.map(&mut body, rtti, sa, sb)?;
                continue;
            }
            for field in rtti.fields_of(sb) {
                self.path.push((rtti.id(), field.id(), 0));
                match field.access() {
                    FieldAccess::Plain(_) if skip_plain && sa.is_some() => {}
                    FieldAccess::Plain(_) => {
                        self.plain(&mut body, rtti, field, sa, sb, false)?;
                    }
                    FieldAccess::Embedded(_) => self.embedded(&mut body, rtti, field, sa, sb, None)?,
                    FieldAccess::Pointer(_) => self.pointers(&mut body, rtti, field, sa, sb, None)?,
                }
                self.path.pop();
            }
        }
        Ok(body)
    }

    /// A map's entries, matched by key: the keys field as any plain array, the values by the
    /// alignment of their keys.
    fn map(
        &mut self,
        body: &mut ObjectBody,
        rtti: &'static RttiType,
        sa: &dyn Reflectable,
        sb: &dyn Reflectable,
    ) -> Result<(), DiffError> {
        let (Some(keys), Some(values)) = (rtti.field(1), rtti.field(2)) else { return Ok(()) };
        self.path.push((rtti.id(), keys.id(), 0));
        let matched = self.plain(body, rtti, keys, Some(sa), sb, true)?;
        self.path.pop();
        self.path.push((rtti.id(), values.id(), 0));
        let matched = matched.as_deref();
        match values.access() {
            FieldAccess::Embedded(_) => self.embedded(body, rtti, values, Some(sa), sb, Some(matched))?,
            FieldAccess::Pointer(_) => self.pointers(body, rtti, values, Some(sa), sb, Some(matched))?,
            FieldAccess::Plain(_) => {}
        }
        self.path.pop();
        Ok(())
    }

    /// A plain field. With `keys` (a map's), returns how its elements align, for the values.
    fn plain(
        &mut self,
        body: &mut ObjectBody,
        rtti: &'static RttiType,
        field: &RttiField,
        sa: Option<&dyn Reflectable>,
        sb: &dyn Reflectable,
        keys: bool,
    ) -> Result<Option<Vec<Option<usize>>>, DiffError> {
        let plain = field.as_plain().expect("a plain field");
        self.scratch_b.clear();
        let count_b = plain.write(sb, &mut self.scratch_b).map_err(unreadable(field))?;
        let mut edit = PlainEdit {
            section: rtti.id(),
            field: field.id(),
            plain_type: plain.info().type_id,
            count: count_b as u32,
            bytes: Vec::new(),
            runs: Vec::new(),
        };
        let mut alignment = None;
        if let Some(sa) = sa {
            self.scratch_a.clear();
            let count_a = plain.write(sa, &mut self.scratch_a).map_err(unreadable(field))?;
            let identical = count_a == count_b && self.scratch_a == self.scratch_b;
            if identical && !keys {
                return Ok(None);
            }
            let static_size = plain.info().static_size;
            if let (true, Some(old), Some(new)) = (
                field.is_array(),
                split(&self.scratch_a, count_a, static_size),
                split(&self.scratch_b, count_b, static_size),
            ) {
                let matched = if identical {
                    (0..count_b).map(Some).collect()
                } else {
                    align(old.len(), new.len(), |i, j| self.scratch_a[old[i].clone()] == self.scratch_b[new[j].clone()])
                };
                if !identical {
                    let (runs, count, bytes) = runs(&matched, &new, &self.scratch_b);
                    if bytes.len() < self.scratch_b.len() / 2 {
                        (edit.runs, edit.count, edit.bytes) = (runs, count, bytes);
                    }
                }
                alignment = Some(matched);
            }
            if identical {
                return Ok(alignment);
            }
        }
        if edit.runs.is_empty() {
            edit.bytes = self.scratch_b.clone();
        }
        body.plain.push(edit);
        Ok(alignment)
    }

    /// The content of `object` for matching: its type, variants and plain values, what it holds
    /// by value, and which of its pointers are null (not their targets).
    fn content(&mut self, object: &dyn Reflectable, out: &mut Vec<u8>) -> Result<(), DiffError> {
        out.extend_from_slice(&object.rtti().id().to_le_bytes());
        for (rtti, section) in RttiType::sections(object) {
            if let Some(variant) = rtti.active_variant(section) {
                out.extend_from_slice(&variant.id().to_le_bytes());
            }
            for field in rtti.fields_of(section) {
                match field.access() {
                    FieldAccess::Plain(plain) => {
                        let count = plain.write(section, out).map_err(unreadable(field))?;
                        out.extend_from_slice(&(count as u32).to_le_bytes());
                    }
                    FieldAccess::Embedded(values) => {
                        let mut result = Ok(());
                        values
                            .for_each(section, &mut |value| match value {
                                Some(value) if result.is_ok() => result = self.content(value, out),
                                _ => out.extend_from_slice(&0u32.to_le_bytes()),
                            })
                            .map_err(unreadable(field))?;
                        result?;
                    }
                    FieldAccess::Pointer(pointers) => {
                        pointers
                            .for_each(section, &mut |addr, _, _| out.push(u8::from(addr.is_some())))
                            .map_err(unreadable(field))?;
                        out.push(0xFF);
                    }
                }
            }
        }
        Ok(())
    }

    /// The contents of every element of an embedded field, with each element's type (0 empty).
    fn contents(&mut self, field: &RttiField, owner: &dyn Reflectable) -> Result<Contents, DiffError> {
        let mut contents = Contents::default();
        for index in 0..field.len(owner).map_err(unreadable(field))? {
            let start = contents.bytes.len();
            let mut bytes = std::mem::take(&mut contents.bytes);
            let type_id = field
                .with_embedded(owner, index, |value| match value {
                    Some(value) => self.content(value, &mut bytes).map(|()| value.rtti().id()),
                    None => Ok(0),
                })
                .map_err(unreadable(field))??;
            contents.bytes = bytes;
            contents.elements.push((start..contents.bytes.len(), type_id));
        }
        Ok(contents)
    }

    /// An embedded field, elements aligned by content (or as `forced`, a map's key alignment).
    fn embedded(
        &mut self,
        body: &mut ObjectBody,
        rtti: &'static RttiType,
        field: &RttiField,
        sa: Option<&dyn Reflectable>,
        sb: &dyn Reflectable,
        forced: Option<Option<&[Option<usize>]>>,
    ) -> Result<(), DiffError> {
        let len_b = field.len(sb).map_err(unreadable(field))?;
        let mut edit = EmbeddedEdit { section: rtti.id(), field: field.id(), rebuild: true, elements: Vec::new() };
        let Some(sa) = sa else {
            for j in 0..len_b {
                let body = field
                    .with_embedded(sb, j, |value| value.map(|value| self.body(None, value)).transpose())
                    .map_err(unreadable(field))??;
                edit.elements.push(EmbeddedElement { old: None, body });
            }
            body.embedded.push(edit);
            return Ok(());
        };
        let len_a = field.len(sa).map_err(unreadable(field))?;
        let matched = match forced {
            Some(Some(matched)) if matched.len() == len_b => matched.to_vec(),
            Some(_) => vec![None; len_b],
            None if !field.is_array() => vec![Some(0)],
            None => {
                let (old, new) = (self.contents(field, sa)?, self.contents(field, sb)?);
                let mut matched = align(len_a, len_b, |i, j| old.get(i) == new.get(j));
                let types = |c: &Contents, i: usize| c.elements[i].1;
                fill_gaps(&mut matched, len_a, |i, j| types(&old, i) == types(&new, j), |_, _| true);
                // Moves: a new element equal to an old one left over elsewhere.
                let mut left: AHashMap<&[u8], Vec<usize>> = AHashMap::new();
                let used: Vec<bool> = used(&matched, len_a);
                for i in (0..len_a).rev().filter(|&i| !used[i]) {
                    left.entry(old.get(i)).or_default().push(i);
                }
                for (j, m) in matched.iter_mut().enumerate() {
                    if m.is_none() {
                        *m = left.get_mut(new.get(j)).and_then(Vec::pop);
                    }
                }
                matched
            }
        };
        let mut in_place = len_a == len_b;
        for (j, m) in matched.iter().enumerate() {
            let element = match *m {
                Some(i) if i < len_a => {
                    if let Some(step) = self.path.last_mut() {
                        step.2 = i as u32;
                    }
                    let element = field
                        .with_embedded(sa, i, |x| field.with_embedded(sb, j, |y| self.element(x, y, i as u32)))
                        .and_then(|r| r)
                        .map_err(unreadable(field))??;
                    element.unwrap_or(EmbeddedElement { old: Some(i as u32), body: None })
                }
                _ => {
                    let body = field
                        .with_embedded(sb, j, |value| value.map(|value| self.body(None, value)).transpose())
                        .map_err(unreadable(field))??;
                    EmbeddedElement { old: None, body }
                }
            };
            in_place &= element.old == Some(j as u32);
            edit.elements.push(element);
        }
        if in_place {
            edit.rebuild = false;
            edit.elements.retain(|element| element.body.is_some());
            if edit.elements.is_empty() {
                return Ok(());
            }
        }
        body.embedded.push(edit);
        Ok(())
    }

    /// One element held by value: `None` when unchanged.
    fn element(
        &mut self,
        a: Option<&dyn Reflectable>,
        b: Option<&dyn Reflectable>,
        old: u32,
    ) -> Result<Option<EmbeddedElement>, DiffError> {
        Ok(match (a, b) {
            (None, None) => None,
            (Some(_), None) => Some(EmbeddedElement { old: None, body: None }),
            (Some(a), Some(b)) if a.rtti().id() == b.rtti().id() => {
                let body = self.body(Some(a), b)?;
                (!body.is_empty()).then_some(EmbeddedElement { old: Some(old), body: Some(body) })
            }
            (_, Some(b)) => Some(EmbeddedElement { old: None, body: Some(self.body(None, b)?) }),
        })
    }

    /// The old element `index` of a pointer field: its target's key, its place recorded.
    fn old_key(
        &mut self,
        field: &RttiField,
        owner: &dyn Reflectable,
        index: usize,
        addr: Option<usize>,
    ) -> Result<Key, DiffError> {
        let Some(addr) = addr else { return Ok(Key::Null) };
        if !self.old_places.contains_key(&addr) {
            let old = field.shared(owner, index).map_err(unreadable(field))?;
            let start = self.steps.len();
            self.steps.extend_from_slice(&self.path);
            if let Some(last) = self.steps.last_mut() {
                last.2 = index as u32;
            }
            self.places.push(Place { parent: self.place, steps: start..self.steps.len(), entry: NONE, old });
            self.old_places.insert(addr, self.places.len() as u32 - 1);
        }
        Ok(if self.old_to_new.contains_key(&addr) { Key::Known(addr) } else { Key::FreeOld(addr) })
    }

    fn new_key(&self, addr: Option<usize>) -> Key {
        let Some(addr) = addr else { return Key::Null };
        match self.new_side.get(&addr) {
            Some(Side::Old(place)) => {
                Key::Known(self.places[*place as usize].old.as_ref().map_or(0, SharedObject::addr))
            }
            Some(Side::Created(_)) => Key::Created,
            None if self.old_places.get(&addr).is_some_and(|_| !self.old_to_new.contains_key(&addr)) => {
                Key::Known(addr)
            }
            None => Key::FreeNew(addr),
        }
    }

    /// A pointer field: elements aligned by what they point at (or as `forced`).
    fn pointers(
        &mut self,
        body: &mut ObjectBody,
        rtti: &'static RttiType,
        field: &RttiField,
        sa: Option<&dyn Reflectable>,
        sb: &dyn Reflectable,
        forced: Option<Option<&[Option<usize>]>>,
    ) -> Result<(), DiffError> {
        let pointers = field.as_pointer().expect("a pointer field");
        let mut new_addrs = Vec::new();
        pointers.for_each(sb, &mut |addr, _, _| new_addrs.push(addr)).map_err(unreadable(field))?;
        let mut edit =
            PointerEdit { section: rtti.id(), field: field.id(), rebuild: field.is_array(), elements: Vec::new() };
        let Some(sa) = sa else {
            for (j, addr) in new_addrs.iter().enumerate() {
                let target = self.target(field, sb, j, *addr, None)?;
                edit.elements.push((if field.is_array() { NONE } else { j as u32 }, target));
            }
            body.pointers.push(edit);
            return Ok(());
        };
        let mut old_addrs: SmallVec<[Option<usize>; 8]> = SmallVec::new();
        pointers.for_each(sa, &mut |addr, _, _| old_addrs.push(addr)).map_err(unreadable(field))?;
        let mut old_keys: SmallVec<[Key; 8]> = SmallVec::with_capacity(old_addrs.len());
        for (i, addr) in old_addrs.iter().enumerate() {
            old_keys.push(self.old_key(field, sa, i, *addr)?);
        }
        let new_keys: SmallVec<[Key; 8]> = new_addrs.iter().map(|&addr| self.new_key(addr)).collect();
        let (len_a, len_b) = (old_keys.len(), new_keys.len());
        if forced.is_none() && len_a == len_b && self.unchanged(field, sb, &old_keys, &new_keys)? {
            return Ok(());
        }

        // Exact matches first: the same object, or an unpaired one of the same content.
        let mut contents: AHashMap<usize, Option<Vec<u8>>> = AHashMap::new();
        let mut same = |this: &mut Self, i: usize, j: usize| -> Result<bool, DiffError> {
            Ok(match (old_keys[i], new_keys[j]) {
                (Key::Null, Key::Null) => true,
                (Key::Known(x) | Key::FreeOld(x), Key::Known(y)) => x == y,
                (Key::FreeOld(_), Key::FreeNew(_)) => {
                    let (a, b) =
                        (this.pointee(field, sa, i, &mut contents)?, this.pointee(field, sb, j, &mut contents)?);
                    a.is_some() && a == b
                }
                _ => false,
            })
        };
        let mut failed = None;
        let mut matched = match forced {
            Some(Some(matched)) if matched.len() == len_b => matched.to_vec(),
            Some(_) => vec![None; len_b],
            None => align(len_a, len_b, |i, j| {
                same(self, i, j).unwrap_or_else(|error| {
                    failed.get_or_insert(error);
                    false
                })
            }),
        };
        if let Some(error) = failed {
            return Err(error);
        }
        // A forced alignment (a map's keys) says which elements belong together, not that they
        // point at the same object: those that do not are guesses.
        let mut guessed = vec![None; len_b];
        if forced.is_some() {
            for j in 0..len_b {
                if let Some(i) = matched[j] {
                    if i >= len_a || !same(self, i, j)? {
                        matched[j] = None;
                        guessed[j] = (i < len_a).then_some(i);
                    }
                }
            }
        }
        let aligned = matched.clone();
        if forced.is_none() {
            // Moves: an object left over elsewhere in the old array, known or of equal content.
            let used = used(&matched, len_a);
            let mut known: AHashMap<usize, Vec<usize>> = AHashMap::new();
            let mut equal: AHashMap<Vec<u8>, Vec<usize>> = AHashMap::new();
            for i in (0..len_a).rev().filter(|&i| !used[i]) {
                match old_keys[i] {
                    Key::Known(x) => known.entry(x).or_default().push(i),
                    Key::FreeOld(x) => {
                        known.entry(x).or_default().push(i);
                        if let Some(content) = self.pointee(field, sa, i, &mut contents)? {
                            equal.entry(content).or_default().push(i);
                        }
                    }
                    _ => {}
                }
            }
            let mut taken = used;
            for j in 0..len_b {
                let candidate = match (matched[j], new_keys[j]) {
                    (None, Key::Known(y)) => known.get_mut(&y).and_then(Vec::pop),
                    (None, Key::FreeNew(_)) => match self.pointee(field, sb, j, &mut contents)? {
                        Some(content) => equal.get_mut(&content).and_then(Vec::pop),
                        None => None,
                    },
                    _ => None,
                };
                if let Some(i) = candidate.filter(|&i| !taken[i]) {
                    taken[i] = true;
                    matched[j] = Some(i);
                }
            }
        }
        // Matches of unpaired objects pair them.
        for j in 0..len_b {
            let Some(i) = matched[j] else { continue };
            match (old_keys[i], new_keys[j]) {
                (Key::FreeOld(x), Key::FreeNew(_)) => {
                    let place = self.old_places[&x];
                    let new = field.shared(sb, j).map_err(unreadable(field))?.expect("a non-null pointer");
                    if !self.paired_new(new.addr())
                        && !self.old_to_new.contains_key(&x)
                        && !self.try_pair(place, &new, true)?
                    {
                        matched[j] = None;
                    }
                }
                (Key::FreeOld(x), Key::Known(y)) if x == y => {
                    // The very allocation in both graphs: paired with itself, nothing to compare.
                    let place = self.old_places[&x];
                    let object = self.places[place as usize].old.clone().expect("a pointer target");
                    self.pair(&object, &object, place);
                }
                _ => {}
            }
        }
        // Left over in one gap of the alignment, one type and family: a guess, tried after every
        // exact match is made.
        if forced.is_none() {
            let taken = used(&matched, len_a);
            let mut gaps = aligned;
            let free = |this: &Self, i: usize, j: usize| -> bool {
                !taken[i]
                    && matched[j].is_none()
                    && matches!((old_keys[i], new_keys[j]), (Key::FreeOld(_), Key::FreeNew(_)))
                    && this.same_kind(field, sa, i, sb, j)
            };
            fill_gaps(&mut gaps, len_a, |_, _| true, |i, j| free(self, i, j));
            for j in 0..len_b {
                if matched[j].is_none() && gaps[j].is_some_and(|i| free(self, i, j)) {
                    guessed[j] = gaps[j];
                }
            }
        } else {
            for j in 0..len_b {
                if let Some(i) = guessed[j] {
                    if !matches!((old_keys[i], new_keys[j]), (Key::FreeOld(_), Key::FreeNew(_)))
                        || !self.same_kind(field, sa, i, sb, j)
                    {
                        guessed[j] = None;
                    }
                }
            }
        }
        for (j, guess) in guessed.iter().enumerate() {
            if let Some(Key::FreeOld(x)) = guess.map(|i| old_keys[i]) {
                let new = field.shared(sb, j).map_err(unreadable(field))?.expect("a non-null pointer");
                self.guesses.push((self.old_places[&x], new));
            }
        }
        let kept = used(&matched, len_a);
        let guessed_old = used(&guessed, len_a);
        for i in 0..len_a {
            if let (false, false, Key::FreeOld(x)) = (kept[i], guessed_old[i], old_keys[i]) {
                self.orphans.push(self.old_places[&x]);
            }
        }
        // In place when no element moves: a guess held keeps the element where it is.
        let in_place = len_a == len_b && (0..len_b).all(|j| matched[j].or(guessed[j]).is_none_or(|i| i == j));
        for j in 0..len_b {
            let element = match (matched[j], guessed[j]) {
                (Some(i), _) if in_place && i == j => continue,
                (Some(i), _) => (i as u32, 0),
                (None, guess) => {
                    let guess_addr = guess.and_then(|i| old_addrs[i]);
                    let target = self.target(field, sb, j, new_addrs[j], guess_addr)?;
                    let old = match guess {
                        Some(i) if target != 0 => (if in_place { j } else { i }) as u32 | TENTATIVE,
                        _ if in_place => j as u32,
                        _ => NONE,
                    };
                    (old, target)
                }
            };
            edit.elements.push(element);
        }
        edit.rebuild = !in_place;
        if in_place && edit.elements.is_empty() {
            return Ok(());
        }
        body.pointers.push(edit);
        Ok(())
    }

    /// The common case, cheaply: every old element `i` and new element `i` point at the same
    /// object, or at unpaired objects of the same fingerprint (then paired here). `false` sends
    /// the field to the general alignment (pairs made here stay: they are right either way).
    fn unchanged(
        &mut self,
        field: &RttiField,
        sb: &dyn Reflectable,
        old: &[Key],
        new: &[Key],
    ) -> Result<bool, DiffError> {
        let (mut a, mut b) = (std::mem::take(&mut self.scratch_a), std::mem::take(&mut self.scratch_b));
        let mut result = Ok(true);
        for (j, (&old, &new)) in old.iter().zip(new).enumerate() {
            let same = match (old, new) {
                (Key::Null, Key::Null) => Ok(true),
                (Key::Known(x) | Key::FreeOld(x), Key::Known(y)) if x == y => {
                    if let Key::FreeOld(x) = old {
                        // The very allocation in both graphs: paired with itself.
                        let place = self.old_places[&x];
                        let object = self.places[place as usize].old.clone().expect("a pointer target");
                        self.pair(&object, &object, place);
                    }
                    Ok(true)
                }
                (Key::FreeOld(x), Key::FreeNew(_)) => (|| {
                    let place = self.old_places[&x];
                    let old = self.places[place as usize].old.clone().expect("a pointer target");
                    let Some(new) = field.shared(sb, j).map_err(unreadable(field))? else { return Ok(false) };
                    a.clear();
                    b.clear();
                    if !self.fingerprint(&old, &mut a)? || !self.fingerprint(&new, &mut b)? || a != b {
                        return Ok(false);
                    }
                    self.try_pair(place, &new, true)
                })(),
                _ => Ok(false),
            };
            match same {
                Ok(true) => {}
                other => {
                    result = other;
                    break;
                }
            }
        }
        (self.scratch_a, self.scratch_b) = (a, b);
        result
    }

    /// Appends what tells a shared object from others of its type cheaply: its family, type,
    /// variants and plain values (not what it holds by value or points at). `false` when it
    /// cannot be read now.
    fn fingerprint(&mut self, object: &SharedObject, out: &mut Vec<u8>) -> Result<bool, DiffError> {
        if self.busy.contains(&object.addr()) {
            return Ok(false);
        }
        out.push(u8::from(object.family().is_mutable()));
        let written = object.read(|object| -> Result<(), DiffError> {
            out.extend_from_slice(&object.rtti().id().to_le_bytes());
            for (rtti, section) in RttiType::sections(object) {
                if let Some(variant) = rtti.active_variant(section) {
                    out.extend_from_slice(&variant.id().to_le_bytes());
                }
                for field in rtti.fields_of(section) {
                    if let FieldAccess::Plain(plain) = field.access() {
                        let count = plain.write(section, out).map_err(unreadable(field))?;
                        out.extend_from_slice(&(count as u32).to_le_bytes());
                    }
                }
            }
            Ok(())
        });
        written.map_err(unreadable_object)?.map(|()| true)
    }

    /// `true` when old element `i` and new element `j` point at objects of one type and family.
    fn same_kind(&self, field: &RttiField, sa: &dyn Reflectable, i: usize, sb: &dyn Reflectable, j: usize) -> bool {
        let kind = |owner: &dyn Reflectable, index: usize| {
            let target = field.shared(owner, index).ok().flatten().filter(|t| !self.busy.contains(&t.addr()))?;
            Some((target.family(), target.read(|o| o.rtti().id()).ok()?))
        };
        kind(sa, i).is_some_and(|kind_a| Some(kind_a) == kind(sb, j))
    }

    /// The content of element `index`'s target, computed once per object.
    fn pointee(
        &mut self,
        field: &RttiField,
        owner: &dyn Reflectable,
        index: usize,
        memo: &mut AHashMap<usize, Option<Vec<u8>>>,
    ) -> Result<Option<Vec<u8>>, DiffError> {
        let Some(target) = field.shared(owner, index).map_err(unreadable(field))? else { return Ok(None) };
        if let Some(known) = memo.get(&target.addr()) {
            return Ok(known.clone());
        }
        let content = self.shared_content(&target)?;
        memo.insert(target.addr(), content.clone());
        Ok(content)
    }

    /// The fingerprint of a shared object; `None` while it is being read.
    fn shared_content(&mut self, target: &SharedObject) -> Result<Option<Vec<u8>>, DiffError> {
        let mut bytes = Vec::new();
        Ok(self.fingerprint(target, &mut bytes)?.then_some(bytes))
    }

    /// Pairs old objects no alignment matched (removed from one array) with new objects of equal
    /// content the patch would otherwise create (added to another): an object moved across the
    /// graph, such as a reparented one. `true` when a pair was made.
    fn pair_moved(&mut self) -> Result<bool, DiffError> {
        let mut left: AHashMap<Vec<u8>, Vec<u32>> = AHashMap::new();
        for place in std::mem::take(&mut self.orphans).into_iter().rev() {
            let old = self.places[place as usize].old.clone().expect("orphans are pointer targets");
            if !self.old_to_new.contains_key(&old.addr()) {
                if let Some(content) = self.shared_content(&old)? {
                    left.entry(content).or_default().push(place);
                }
            }
        }
        let mut paired = false;
        for index in 0..self.targets.len() {
            if left.is_empty() {
                break;
            }
            let new = self.targets[index].0.clone();
            if self.paired_new(new.addr()) {
                continue;
            }
            let Some(content) = self.shared_content(&new)? else { continue };
            while let Some(place) = left.get_mut(&content).and_then(Vec::pop) {
                let old = self.places[place as usize].old.clone().expect("orphans are pointer targets");
                if !self.old_to_new.contains_key(&old.addr()) && self.try_pair(place, &new, true)? {
                    paired = true;
                    break;
                }
            }
        }
        Ok(paired)
    }

    /// A target for new element `index` (0 null): named now, resolved when the patch is done.
    fn target(
        &mut self,
        field: &RttiField,
        owner: &dyn Reflectable,
        index: usize,
        addr: Option<usize>,
        guess: Option<usize>,
    ) -> Result<u32, DiffError> {
        if addr.is_none() {
            return Ok(0);
        }
        let Some(target) = field.shared(owner, index).map_err(unreadable(field))? else { return Ok(0) };
        self.targets.push((target, guess));
        Ok(self.targets.len() as u32)
    }

    /// Resolves every named target; objects the patch creates get their bodies (which may name
    /// more targets) as they are reached.
    fn finish(mut self) -> Result<Patch, DiffError> {
        let mut next = 0;
        while next < self.entries.len() {
            if let Some(new) = self.created.remove(&(next as u32)) {
                let body = new.read(|b| self.body_at(NONE, None, b)).map_err(unreadable_object)??;
                self.entries[next].body = body;
            }
            let mut body = std::mem::take(&mut self.entries[next].body);
            self.resolve(&mut body)?;
            self.entries[next].body = body;
            next += 1;
        }
        Ok(Patch { objects: self.entries })
    }

    fn resolve(&mut self, body: &mut ObjectBody) -> Result<(), DiffError> {
        for edit in &mut body.embedded {
            for element in &mut edit.elements {
                if let Some(body) = &mut element.body {
                    self.resolve(body)?;
                }
            }
        }
        for edit in &mut body.pointers {
            let mut elements = Vec::with_capacity(edit.elements.len());
            for &(old, target) in &edit.elements {
                if target == 0 {
                    elements.push((old, target));
                    continue;
                }
                let (new, guess) = self.targets[target as usize - 1].clone();
                let tentative = old != NONE && old & TENTATIVE != 0;
                let held = tentative && guess.is_some_and(|guess| self.old_to_new.get(&guess) == Some(&new.addr()));
                let old = if old == NONE { NONE } else { old & !TENTATIVE };
                match (held, edit.rebuild) {
                    // The guess held: the element keeps its old target.
                    (true, true) => elements.push((old, 0)),
                    (true, false) => {}
                    (false, true) => elements.push((NONE, self.resolve_target(&new)?)),
                    (false, false) => elements.push((old, self.resolve_target(&new)?)),
                }
            }
            edit.elements = elements;
        }
        body.pointers.retain(|edit| edit.rebuild || !edit.elements.is_empty());
        Ok(())
    }

    /// The patch's name for a new object: the old object it is paired with, or one it creates.
    fn resolve_target(&mut self, new: &SharedObject) -> Result<u32, DiffError> {
        Ok(match self.new_side.get(&new.addr()).copied() {
            Some(Side::Old(place)) => self.entry(place)? + 1,
            Some(Side::Created(entry)) => entry + 1,
            None => {
                let entry = self.entries.len() as u32;
                let type_id = new.read(|o| o.rtti().id()).map_err(unreadable_object)?;
                self.entries.push(ObjectEdit {
                    origin: Origin::Created { family: new.family() },
                    path: Vec::new(),
                    body: ObjectBody { fresh: true, ..ObjectBody::edit(type_id) },
                });
                self.new_side.insert(new.addr(), Side::Created(entry));
                self.created.insert(entry, new.clone());
                entry + 1
            }
        })
    }
}

/// Element contents of an array, one after another.
#[derive(Default)]
struct Contents {
    bytes: Vec<u8>,
    elements: Vec<(Range<usize>, u32)>,
}

impl Contents {
    fn get(&self, index: usize) -> &[u8] {
        &self.bytes[self.elements[index].0.clone()]
    }
}

/// Which old elements `matched` uses.
fn used(matched: &[Option<usize>], old: usize) -> Vec<bool> {
    let mut used = vec![false; old];
    for &i in matched.iter().flatten() {
        if let Some(slot) = used.get_mut(i) {
            *slot = true;
        }
    }
    used
}

/// Pairs the unmatched elements of each gap between matches, in order, where `kind` allows:
/// the same element, edited.
fn fill_gaps(
    matched: &mut [Option<usize>],
    old: usize,
    kind: impl Fn(usize, usize) -> bool,
    allowed: impl Fn(usize, usize) -> bool,
) {
    let used = used(matched, old);
    let mut next_old = 0;
    let mut j = 0;
    while j < matched.len() {
        if let Some(i) = matched[j] {
            next_old = i + 1;
            j += 1;
            continue;
        }
        // The gap: new elements up to the next match, old ones up to its old index.
        let end = (j..matched.len()).find(|&k| matched[k].is_some()).unwrap_or(matched.len());
        let old_end = matched.get(end).copied().flatten().unwrap_or(old);
        let mut olds = (next_old..old_end.max(next_old)).filter(|&i| !used[i]).peekable();
        for (slot, matched) in matched.iter_mut().enumerate().take(end).skip(j) {
            if let Some(&i) = olds.peek() {
                if kind(i, slot) && allowed(i, slot) {
                    *matched = Some(i);
                    olds.next();
                }
            }
        }
        j = end;
    }
}

/// The ranges of `count` elements in `bytes` (static size, or each with its size prefix).
pub(super) fn split(bytes: &[u8], count: usize, static_size: Option<u32>) -> Option<Vec<Range<usize>>> {
    let mut out = Vec::with_capacity(count);
    let mut at = 0;
    for _ in 0..count {
        let size = match static_size {
            Some(size) => size as usize,
            None => u32::from_le_bytes(bytes.get(at..at + DYNAMIC_SIZE_PREFIX)?.try_into().ok()?) as usize,
        };
        let end = at.checked_add(size)?;
        if end > bytes.len() {
            return None;
        }
        out.push(at..end);
        at = end;
    }
    (at == bytes.len()).then_some(out)
}

/// A plain array as runs over the old one: `(start, len)` keeps old elements, `(NONE, len)`
/// takes new ones, whose bytes and count follow.
fn runs(matched: &[Option<usize>], new: &[Range<usize>], bytes: &[u8]) -> (Vec<(u32, u32)>, u32, Vec<u8>) {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    let (mut count, mut inserted) = (0, Vec::new());
    for (j, m) in matched.iter().enumerate() {
        match (*m, runs.last_mut()) {
            (Some(i), Some((start, len))) if *start != NONE && *start + *len == i as u32 => *len += 1,
            (Some(i), _) => runs.push((i as u32, 1)),
            (None, last) => {
                inserted.extend_from_slice(&bytes[new[j].clone()]);
                count += 1;
                match last {
                    Some((NONE, len)) => *len += 1,
                    _ => runs.push((NONE, 1)),
                }
            }
        }
    }
    (runs, count, inserted)
}
