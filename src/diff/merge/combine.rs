//! Two patches made from one base (`diff(base, ours)`, `diff(base, theirs)`) combined into one
//! patch from that base: the objects both edit are matched by the base object their edits find,
//! and their bodies merged field by field, map entry by map entry and array element by array
//! element. Where both sides change one thing differently, or one side removes what the other
//! edits, the conflict is noted and ours' change stands.

use super::sequence::{self, Item, Rules};
use super::{ConflictKind, MergeConflict as Conflict};
use crate::diff::map_entries::merge_entries;
use crate::diff::patch::{
    EmbeddedEdit, EmbeddedElement, ObjectBody, ObjectEdit, Origin, Patch, PlainEdit, PointerEdit, NONE,
};
use crate::field::RttiField;
use crate::rtti::reserved::MAP_TYPE_ID;
use crate::rtti::Registry;
use ahash::{AHashMap, AHashSet};
use std::ops::Range;

/// A found object's key: its base allocation's address, 0 for the root.
pub(super) type Key = usize;

/// Steps from an object, through objects held by value, as a patch's paths name them.
type Steps = Vec<(u32, u16, u32)>;

/// The old elements of one array field through which a side reaches objects it edits: by the
/// object, the steps to the value holding the field, the field's section and ID.
/// With each element, the object found there, where the element holds it (not for the steps
/// through objects held by value).
pub(super) type Reached = AHashMap<(Key, Steps, u32, u16), AHashMap<u32, Option<Key>>>;

/// A patch made from one base, with each of its edits' base objects (`None`: created, or not
/// found in the base).
pub(super) struct Side<'p> {
    pub(super) patch: &'p Patch,
    pub(super) keys: Vec<Option<Key>>,
}

/// Combines `ours` and `theirs`: the merged patch and its conflicts, each with the key of its
/// base object (named by the caller) or already named (an object both sides created).
pub(super) fn combine(
    ours: &Side<'_>,
    theirs: &Side<'_>,
    (gone, extra_ours, extra_theirs): (&[bool], Reached, Reached),
    registry: &Registry,
) -> (Patch, Vec<(Option<Key>, Conflict)>) {
    let mut objects = ours.patch.objects.clone();
    let ours_at: AHashMap<Key, usize> =
        ours.keys.iter().enumerate().filter_map(|(index, key)| Some(((*key)?, index))).collect();
    // Theirs' edits of objects ours removes (`gone`) are left out, and so are theirs' pointers
    // to them: ours' removal stands (the reach of those edits reports the conflict).
    // Where each of theirs' edits lands in the merged patch: on ours' edit of the same object,
    // or appended (`usize::MAX`: left out).
    // An object both sides create with one declared identity is one object.
    let ours_created: AHashMap<(u32, Vec<u8>), usize> = (ours.patch.objects.iter().enumerate())
        .filter_map(|(index, edit)| Some((created_identity(edit, registry)?, index)))
        .collect();
    let mut next = objects.len();
    let at: Vec<usize> = (0..theirs.patch.objects.len())
        .map(|index| match theirs.keys[index].and_then(|key| ours_at.get(&key)) {
            Some(&mine) => mine,
            None if gone[index] => usize::MAX,
            None if created_identity(&theirs.patch.objects[index], registry)
                .is_some_and(|identity| ours_created.contains_key(&identity)) =>
            {
                ours_created[&created_identity(&theirs.patch.objects[index], registry).expect("just found")]
            }
            None => {
                next += 1;
                next - 1
            }
        })
        .collect();
    let mut merger = Merger {
        registry,
        reached_ours: with(reached(ours, registry), extra_ours),
        reached_theirs: with(reached(theirs, registry), extra_theirs),
        moved_by_ours: pointed_keys(ours),
        moved_by_theirs: pointed_keys(theirs),
        conflicts: Vec::new(),
        object_key: None,
        object: String::new(),
        key: 0,
        steps: Vec::new(),
        names: Vec::new(),
    };
    // Objects ours reaches through without editing them (where the base held what ours keeps):
    // theirs' edits of them are merged against no change, so a removal there is met too.
    let ours_reaches: AHashSet<Key> = merger.reached_ours.keys().map(|(key, ..)| *key).collect();
    for (index, edit) in theirs.patch.objects.iter().enumerate() {
        if at[index] == usize::MAX {
            continue;
        }
        let mut body = edit.body.clone();
        mark_gone(&mut body, gone);
        renumber(&mut body, &at);
        let reached_by_ours = theirs.keys[index].filter(|key| ours_reaches.contains(key));
        if let (Some(key), true) = (reached_by_ours, at[index] >= ours.patch.objects.len()) {
            (merger.object_key, merger.object, merger.key) = (Some(key), String::new(), key);
            body = merger.body(ObjectBody::edit(body.type_id), body);
        }
        if at[index] < ours.patch.objects.len() {
            // A created object is reached by nothing of the base: a key no address is.
            let key = theirs.keys[index].unwrap_or(usize::MAX);
            // Named once there are conflicts (a name is a path, as long as the graph is deep);
            // one object both created is named by its identity now.
            (merger.object_key, merger.object) = match theirs.keys[index] {
                Some(key) => (Some(key), String::new()),
                None => (None, created_name(&objects[at[index]], registry)),
            };
            merger.key = key;
            let mine = std::mem::take(&mut objects[at[index]].body);
            objects[at[index]].body = merger.body(mine, body);
            continue;
        }
        let origin = match edit.origin {
            Origin::Found { from } if (from as usize) < at.len() => Origin::Found { from: at[from as usize] as u32 },
            origin => origin,
        };
        objects.push(ObjectEdit {
            origin,
            path: edit.path.clone(),
            body,
            identity: edit.identity.clone(),
            key: edit.key,
        });
    }
    // An object through which theirs reaches what it edits has an edit in theirs (the patch's
    // paths start at objects it names), so each of ours' removals of such a path was met above.
    for edit in &mut objects {
        drop_gone(&mut edit.body);
    }
    (without_unheld(objects), merger.conflicts)
}

/// The merged edits without the objects theirs created that no kept change points at (theirs'
/// element lost to a conflict): they would be made, then dropped.
fn without_unheld(objects: Vec<ObjectEdit>) -> Patch {
    // Kept: the root, what changes, what a kept change points at, and the objects the kept
    // found ones are found from. A found object that only marked the way to another side's
    // change (and that side's object is gone) would be reported as no longer held.
    let changes = |(index, edit): (usize, &ObjectEdit)| {
        index == 0 || matches!(edit.origin, Origin::Found { .. }) && !edit.body.is_empty()
    };
    let mut kept: Vec<bool> = objects.iter().enumerate().map(changes).collect();
    let mut stack: Vec<usize> = (0..objects.len()).filter(|&index| kept[index]).collect();
    let mut targets = Vec::new();
    while let Some(index) = stack.pop() {
        targets.clear();
        pointed_at(&objects[index].body, &mut targets);
        for &target in &targets {
            if target < kept.len() && !kept[target] {
                kept[target] = true;
                stack.push(target);
            }
        }
    }
    for index in (0..objects.len()).rev() {
        if let (true, Origin::Found { from }) = (kept[index], objects[index].origin) {
            if let Some(from) = kept.get_mut(from as usize) {
                *from = true;
            }
        }
    }
    if kept.iter().all(|&kept| kept) {
        return Patch { objects };
    }
    let mut at = vec![usize::MAX; objects.len()];
    let mut next = 0;
    for (index, &kept) in kept.iter().enumerate() {
        if kept {
            at[index] = next;
            next += 1;
        }
    }
    let objects = objects
        .into_iter()
        .zip(kept)
        .filter(|(_, kept)| *kept)
        .map(|(mut edit, _)| {
            if let Origin::Found { from } = &mut edit.origin {
                *from = at[*from as usize] as u32;
            }
            renumber(&mut edit.body, &at);
            edit
        })
        .collect();
    Patch { objects }
}

/// A created object's type and declared identity (the identity's stored bytes, as the edit
/// gives them), if its type declares one.
fn created_identity(edit: &ObjectEdit, registry: &Registry) -> Option<(u32, Vec<u8>)> {
    let Origin::Created { .. } = edit.origin else { return None };
    let (_, value) = identity_given(edit, registry)?;
    Some((edit.body.type_id, value.bytes.clone()))
}

/// The identity field of a created object's type, and the edit giving its value.
fn identity_given<'e>(edit: &'e ObjectEdit, registry: &Registry) -> Option<(&'static RttiField, &'e PlainEdit)> {
    let (declaring, field) = registry.get(edit.body.type_id)?.identity_field()?;
    let value = edit.body.plain.iter().find(|plain| plain.section == declaring.id() && plain.field == field.id())?;
    Some((field, value))
}

/// A created object's name: its type, and its identity as text where it declares one.
fn created_name(edit: &ObjectEdit, registry: &Registry) -> String {
    let Some(rtti) = registry.get(edit.body.type_id) else {
        return format!("new object of type {}", edit.body.type_id);
    };
    let identity = identity_given(edit, registry).and_then(|(field, value)| {
        let sig = field.value_signature().ok()?;
        crate::text::read_value(&sig, &value.bytes).ok()
    });
    match identity {
        Some(identity) => format!("{}#{identity}", rtti.name()),
        None => format!("new {}", rtti.name()),
    }
}

/// Every old element through which a side's found edits are reached: each step of each path
/// from the root to an object the side changes.
fn reached(side: &Side<'_>, registry: &Registry) -> Reached {
    let mut out = Reached::default();
    let mut done = vec![false; side.patch.objects.len()];
    let needed = needed(side.patch);
    for index in (0..needed.len()).filter(|&index| needed[index]) {
        let mut current = index;
        while let Origin::Found { from } = side.patch.objects[current].origin {
            if done[current] {
                break;
            }
            done[current] = true;
            let from = from as usize;
            let (Some(Some(key)), Some(edit)) = (side.keys.get(from), side.patch.objects.get(current)) else { break };
            let last = edit.path.len().saturating_sub(1);
            for (depth, &(section, field, element)) in edit.path.iter().enumerate() {
                // A `Weak` does not hold what it leads to: pointing it elsewhere removes nothing.
                if depth == last && is_weak(registry, section, field) {
                    continue;
                }
                let steps = edit.path[..depth].to_vec();
                let object = if depth == last { side.keys[current] } else { None };
                out.entry((*key, steps, section, field)).or_default().entry(element).or_insert(object);
            }
            current = from;
        }
    }
    out
}

/// The edits of a patch whose objects its changes need where they are: those it changes, and
/// those its pointers are set to.
pub(super) fn needed(patch: &Patch) -> Vec<bool> {
    let mut needed: Vec<bool> = patch.objects.iter().map(|edit| !edit.body.is_empty()).collect();
    let mut targets = Vec::new();
    for edit in &patch.objects {
        pointed_at(&edit.body, &mut targets);
    }
    for target in targets {
        if let Some(needed) = needed.get_mut(target) {
            *needed = true;
        }
    }
    needed
}

/// `reached` with `extra`'s elements added.
pub(super) fn with(mut reached: Reached, extra: Reached) -> Reached {
    for (field, elements) in extra {
        let into = reached.entry(field).or_default();
        for (element, object) in elements {
            into.entry(element).or_insert(object);
        }
    }
    reached
}

/// The field `field` of section type `section` (its own, or a variant's), as the registry has it.
fn field_of(registry: &Registry, section: u32, field: u16) -> Option<&'static RttiField> {
    let rtti = registry.get(section)?;
    rtti.field(field).or_else(|| rtti.variants().iter().find_map(|variant| variant.field(field)))
}

/// Whether a field is a `Weak` (one the registry does not know counts as strong).
fn is_weak(registry: &Registry, section: u32, field: u16) -> bool {
    field_of(registry, section, field).and_then(RttiField::as_pointer).is_some_and(|pointers| pointers.is_weak())
}

/// The base objects a side's pointer changes set pointers to.
fn pointed_keys(side: &Side<'_>) -> AHashSet<Key> {
    let mut targets = Vec::new();
    for edit in &side.patch.objects {
        pointed_at(&edit.body, &mut targets);
    }
    targets.into_iter().filter_map(|target| *side.keys.get(target)?).collect()
}

/// The edits a body's pointer changes set pointers to.
fn pointed_at(body: &ObjectBody, out: &mut Vec<usize>) {
    for edit in &body.pointers {
        for &(old, target) in &edit.elements {
            if target != 0 && (!edit.rebuild || old == NONE) {
                out.push(target as usize - 1);
            }
        }
    }
    for edit in &body.embedded {
        for element in edit.elements.iter().filter_map(|element| element.body.as_ref()) {
            pointed_at(element, out);
        }
    }
}

/// A side's edit of a field and the other side's (or an empty one), as (ours, theirs).
fn sides<T>(mine: T, other: T, mine_is_ours: bool) -> (T, T) {
    match mine_is_ours {
        true => (mine, other),
        false => (other, mine),
    }
}

/// A pointer target that stands for an object the other side removed: kept through the merge,
/// so that a change of the same pointer by ours still meets it as a conflict, then dropped.
const GONE: u32 = u32::MAX - 1;

/// Marks a body's pointer elements that point at edits in `gone` as [`GONE`].
fn mark_gone(body: &mut ObjectBody, gone: &[bool]) {
    for edit in &mut body.pointers {
        let rebuild = edit.rebuild;
        for (old, target) in &mut edit.elements {
            let is_gone = *target != 0 && gone.get(*target as usize - 1).copied().unwrap_or(false);
            if is_gone && (!rebuild || *old == NONE) {
                *target = GONE;
            }
        }
    }
    for edit in &mut body.embedded {
        for element in edit.elements.iter_mut().filter_map(|element| element.body.as_mut()) {
            mark_gone(element, gone);
        }
    }
}

/// Drops the pointer elements still marked [`GONE`] after the merge: in place, the element keeps
/// its target; in a rebuild, the element is not added.
fn drop_gone(body: &mut ObjectBody) {
    for edit in &mut body.pointers {
        edit.elements.retain(|&(_, target)| target != GONE);
    }
    body.pointers.retain(|edit| edit.rebuild || !edit.elements.is_empty());
    for edit in &mut body.embedded {
        for element in edit.elements.iter_mut().filter_map(|element| element.body.as_mut()) {
            drop_gone(element);
        }
    }
}

fn renumber(body: &mut ObjectBody, at: &[usize]) {
    for edit in &mut body.pointers {
        for (_, target) in &mut edit.elements {
            if let Some(&to) = (*target as usize).checked_sub(1).and_then(|index| at.get(index)) {
                *target = to as u32 + 1;
            }
        }
    }
    for edit in &mut body.embedded {
        for element in edit.elements.iter_mut().filter_map(|element| element.body.as_mut()) {
            renumber(element, at);
        }
    }
}

/// Merges bodies of one object, noting conflicts where it is.
struct Merger<'r> {
    registry: &'r Registry,
    reached_ours: Reached,
    reached_theirs: Reached,
    /// The base objects each side points at (where it moves them to, among others).
    moved_by_ours: AHashSet<Key>,
    moved_by_theirs: AHashSet<Key>,
    conflicts: Vec<(Option<Key>, Conflict)>,
    /// The object being merged: its base object, or (created) its name; and its key.
    object_key: Option<Key>,
    object: String,
    key: Key,
    /// The steps to the value being merged inside it, and their names.
    steps: Steps,
    names: Vec<String>,
}

impl Merger<'_> {
    fn conflict(&mut self, field: String, kind: ConflictKind) {
        let mut path = self.names.clone();
        if !field.is_empty() {
            path.push(field);
        }
        let (object, field) = (self.object.clone(), path.join("."));
        self.conflicts.push((self.object_key, Conflict { object, field, kind, base: None, ours: None, theirs: None }));
    }

    fn field_name(&self, section: u32, field: u16) -> String {
        let named = field_of(self.registry, section, field);
        named.map_or_else(|| format!("{section}.{field}"), |field| field.name().to_owned())
    }

    fn is_array(&self, section: u32, field: u16) -> bool {
        field_of(self.registry, section, field).is_none_or(RttiField::is_array)
    }

    /// The merge of two changes of one object (or value held by one).
    fn body(&mut self, ours: ObjectBody, theirs: ObjectBody) -> ObjectBody {
        if ours.type_id == MAP_TYPE_ID || theirs.type_id == MAP_TYPE_ID {
            return self.map_object(ours, theirs);
        }
        self.fields(ours, theirs)
    }

    /// A map whose values are objects or pointers is its keys and its values, two arrays that
    /// must stay aligned: it is merged whole. One side's change is taken if the other side
    /// changed nothing there and its change removes nothing the other side reaches; otherwise
    /// the map is one conflict and keeps ours.
    fn map_object(&mut self, ours: ObjectBody, theirs: ObjectBody) -> ObjectBody {
        if ours == theirs || theirs.is_empty() && ours.is_empty() {
            return ours;
        }
        let before = self.conflicts.len();
        let merged = self.fields(ours.clone(), theirs.clone());
        let conflicted = self.conflicts.len() > before;
        self.conflicts.truncate(before);
        match (ours.is_empty(), theirs.is_empty(), conflicted) {
            (_, true, false) => ours,
            (true, false, false) => merged,
            (ours_empty, theirs_empty, _) => {
                let kind = match (ours_empty, theirs_empty) {
                    (true, _) => ConflictKind::RemovedByTheirs,
                    (_, true) => ConflictKind::RemovedByOurs,
                    _ => ConflictKind::Changed,
                };
                self.conflict(String::new(), kind);
                ours
            }
        }
    }

    /// [`body`](Self::body), field by field.
    fn fields(&mut self, ours: ObjectBody, theirs: ObjectBody) -> ObjectBody {
        if ours == theirs || theirs.is_empty() && ours.pointers.is_empty() && ours.embedded.is_empty() {
            return ours;
        }
        if ours.fresh || theirs.fresh {
            self.conflict(String::new(), ConflictKind::Changed);
            return ours;
        }
        match (ours.variant, theirs.variant) {
            (a, b) if a == b => {}
            (Some(_), _) | (_, Some(_)) if theirs.is_empty() => {}
            (None, Some(_)) if ours.is_empty() => return theirs,
            _ => {
                // One side switched the enum's variant and the other changed it otherwise.
                self.conflict("variant".to_owned(), ConflictKind::Changed);
                return ours;
            }
        }
        let mut merged =
            ObjectBody { type_id: ours.type_id, fresh: false, variant: ours.variant, ..ObjectBody::default() };
        let key = |section: u32, field: u16| (section, field);
        // Plain values: whole, or element by element when both sides edited runs.
        let mut theirs_plain: AHashMap<(u32, u16), PlainEdit> =
            theirs.plain.into_iter().map(|edit| (key(edit.section, edit.field), edit)).collect();
        for edit in ours.plain {
            let mine = match theirs_plain.remove(&key(edit.section, edit.field)) {
                Some(other) if other != edit => self.plain(edit, other),
                _ => edit,
            };
            merged.plain.push(mine);
        }
        merged.plain.extend(sorted(theirs_plain));
        // Maps by key.
        let mut theirs_maps: AHashMap<(u32, u16), _> =
            theirs.maps.into_iter().map(|edit| (key(edit.section, edit.field), edit)).collect();
        for edit in ours.maps {
            let mine = match theirs_maps.remove(&key(edit.section, edit.field)) {
                Some(other) if other != edit => {
                    let name = self.field_name(edit.section, edit.field);
                    match merge_entries(&edit, &other) {
                        Ok((mine, keys)) => {
                            for key in keys {
                                self.conflict(format!("{name}[{key}]"), ConflictKind::Changed);
                            }
                            mine
                        }
                        Err(_) => {
                            self.conflict(name, ConflictKind::Changed);
                            edit
                        }
                    }
                }
                _ => edit,
            };
            merged.maps.push(mine);
        }
        merged.maps.extend(sorted(theirs_maps));
        // Kept unknown fields, by section.
        let mut theirs_kept: AHashMap<u32, _> = theirs.kept.into_iter().map(|edit| (edit.section, edit)).collect();
        for edit in ours.kept {
            if theirs_kept.remove(&edit.section).is_some_and(|other| other != edit) {
                self.conflict(format!("<fields kept of section {}>", edit.section), ConflictKind::Changed);
            }
            merged.kept.push(edit);
        }
        let mut rest: Vec<_> = theirs_kept.into_values().collect();
        rest.sort_by_key(|edit| edit.section);
        merged.kept.extend(rest);
        // Arrays of objects held by value and of pointers, element by element; a field only one
        // side edits is merged too, against the other side's reach through it.
        let mut theirs_embedded: AHashMap<(u32, u16), EmbeddedEdit> =
            theirs.embedded.into_iter().map(|edit| (key(edit.section, edit.field), edit)).collect();
        for edit in ours.embedded {
            let other = theirs_embedded.remove(&key(edit.section, edit.field));
            merged.embedded.push(self.embedded(edit, other, true));
        }
        for (_, edit) in sorted_pairs(theirs_embedded) {
            merged.embedded.push(self.embedded(edit, None, false));
        }
        let mut theirs_pointers: AHashMap<(u32, u16), PointerEdit> =
            theirs.pointers.into_iter().map(|edit| (key(edit.section, edit.field), edit)).collect();
        for edit in ours.pointers {
            let other = theirs_pointers.remove(&key(edit.section, edit.field));
            merged.pointers.push(self.pointers(edit, other, true));
        }
        for (_, edit) in sorted_pairs(theirs_pointers) {
            merged.pointers.push(self.pointers(edit, None, false));
        }
        merged.embedded.retain(|edit| !edit.elements.is_empty() || edit.rebuild);
        merged.pointers.retain(|edit| !edit.elements.is_empty() || edit.rebuild);
        merged
    }

    /// Two different edits of one plain field.
    fn plain(&mut self, ours: PlainEdit, theirs: PlainEdit) -> PlainEdit {
        let name = self.field_name(ours.section, ours.field);
        let static_size = field_of(self.registry, ours.section, ours.field)
            .and_then(|field| Some(field.as_plain()?.info().static_size));
        let (Some(static_size), false, false, true) =
            (static_size, ours.runs.is_empty(), theirs.runs.is_empty(), ours.plain_type == theirs.plain_type)
        else {
            self.conflict(name, ConflictKind::Changed);
            return ours;
        };
        let (Some(ours_edit), Some(theirs_edit)) = (runs_edit(&ours, static_size), runs_edit(&theirs, static_size))
        else {
            self.conflict(name, ConflictKind::Changed);
            return ours;
        };
        let mut rules = PlainRules { conflicted: false };
        let none = AHashSet::new();
        let merged = sequence::merge(&mut rules, ours_edit, theirs_edit, &none, &none);
        if rules.conflicted {
            self.conflict(name, ConflictKind::Changed);
            return ours;
        }
        let (mut runs, mut bytes, mut count) = (Vec::<(u32, u32)>::new(), Vec::new(), 0u32);
        for item in merged.items {
            match item {
                Item::Old(index, _) => match runs.last_mut() {
                    Some((start, len)) if *start != NONE && *start + *len == index => *len += 1,
                    _ => runs.push((index, 1)),
                },
                Item::New(element) => {
                    bytes.extend_from_slice(&element);
                    count += 1;
                    match runs.last_mut() {
                        Some((NONE, len)) => *len += 1,
                        _ => runs.push((NONE, 1)),
                    }
                }
            }
        }
        PlainEdit { count, bytes, runs, ..ours }
    }

    /// An embedded field's edits (`other`: the other side's, if it edits the field too).
    fn embedded(&mut self, edit: EmbeddedEdit, other: Option<EmbeddedEdit>, mine_is_ours: bool) -> EmbeddedEdit {
        let (section, field) = (edit.section, edit.field);
        let empty = EmbeddedEdit { section, field, rebuild: false, elements: Vec::new() };
        let (ours, theirs) = sides(edit, other.unwrap_or(empty), mine_is_ours);
        let as_items = |edit: EmbeddedEdit| sequence::Edit {
            rebuild: edit.rebuild,
            items: edit
                .elements
                .into_iter()
                .map(|element| match element.old {
                    Some(old) => Item::Old(old, element.body),
                    None => Item::New(element.body),
                })
                .collect(),
        };
        let (reached_ours, reached_theirs) = self.reach(section, field);
        let name = self.field_name(section, field);
        let array = self.is_array(section, field);
        let mut rules = EmbeddedRules { merger: self, section, field, name, array };
        let merged = sequence::merge(&mut rules, as_items(ours), as_items(theirs), &reached_ours, &reached_theirs);
        let elements = merged
            .items
            .into_iter()
            .map(|item| match item {
                Item::Old(old, body) => EmbeddedElement { old: Some(old), body },
                Item::New(body) => EmbeddedElement { old: None, body },
            })
            .collect();
        EmbeddedEdit { section, field, rebuild: merged.rebuild, elements }
    }

    /// A pointer field's edits, as [`embedded`](Self::embedded).
    fn pointers(&mut self, edit: PointerEdit, other: Option<PointerEdit>, mine_is_ours: bool) -> PointerEdit {
        let (section, field) = (edit.section, edit.field);
        let empty = PointerEdit { section, field, rebuild: false, elements: Vec::new() };
        let (ours, theirs) = sides(edit, other.unwrap_or(empty), mine_is_ours);
        let as_items = |edit: PointerEdit| sequence::Edit {
            rebuild: edit.rebuild,
            items: edit
                .elements
                .into_iter()
                .map(|(old, target)| match (edit.rebuild, old) {
                    (false, old) => Item::Old(old, Some(target)),
                    (true, NONE) => Item::New(target),
                    (true, old) => Item::Old(old, None),
                })
                .collect(),
        };
        let (reached_ours, reached_theirs) = self.reach(section, field);
        let name = self.field_name(section, field);
        let array = self.is_array(section, field);
        let mut rules = PointerRules { merger: self, name, array };
        let merged = sequence::merge(&mut rules, as_items(ours), as_items(theirs), &reached_ours, &reached_theirs);
        let elements = merged
            .items
            .into_iter()
            .map(|item| match (merged.rebuild, item) {
                (false, Item::Old(old, target)) => (old, target.unwrap_or(0)),
                (true, Item::Old(old, None)) => (old, 0),
                (true, Item::Old(_, Some(target))) | (_, Item::New(target)) => (NONE, target),
            })
            .collect();
        PointerEdit { section, field, rebuild: merged.rebuild, elements }
    }

    /// The old elements of a field here through which each side reaches objects it edits.
    /// An element whose object the other side points at elsewhere (moves) is not reached
    /// through this field: its removal here is no removal of the object.
    fn reach(&self, section: u32, field: u16) -> (AHashSet<u32>, AHashSet<u32>) {
        let key = (self.key, self.steps.clone(), section, field);
        let get = |reached: &Reached, moved_by_other: &AHashSet<Key>| -> AHashSet<u32> {
            let Some(elements) = reached.get(&key) else { return AHashSet::new() };
            let stays = |object: &Option<Key>| object.is_none_or(|object| !moved_by_other.contains(&object));
            elements.iter().filter(|(_, object)| stays(object)).map(|(&element, _)| element).collect()
        };
        (get(&self.reached_ours, &self.moved_by_theirs), get(&self.reached_theirs, &self.moved_by_ours))
    }

    fn element_name(name: &str, array: bool, index: u32) -> String {
        if array {
            format!("{name}[{index}]")
        } else {
            name.to_owned()
        }
    }
}

struct EmbeddedRules<'m, 'r> {
    merger: &'m mut Merger<'r>,
    section: u32,
    field: u16,
    name: String,
    array: bool,
}

impl Rules<ObjectBody, Option<ObjectBody>> for EmbeddedRules<'_, '_> {
    fn both(&mut self, index: u32, ours: ObjectBody, theirs: ObjectBody) -> ObjectBody {
        let merger = &mut *self.merger;
        merger.steps.push((self.section, self.field, index));
        merger.names.push(Merger::element_name(&self.name, self.array, index));
        let merged = merger.body(ours, theirs);
        merger.steps.pop();
        merger.names.pop();
        merged
    }

    fn removed_edited(&mut self, index: u32, removed_by_ours: bool) {
        let field = Merger::element_name(&self.name, self.array, index);
        self.merger.conflict(field, removal(removed_by_ours));
    }

    fn whole(&mut self) {
        self.merger.conflict(self.name.clone(), ConflictKind::Changed);
    }

    fn replaced(&mut self, index: u32) {
        let field = Merger::element_name(&self.name, self.array, index);
        self.merger.conflict(field, ConflictKind::Changed);
    }

    /// Merged with the other side's nothing, so that the other side's reach through the value's
    /// pointers meets this side's change.
    fn alone(&mut self, index: u32, change: ObjectBody, ours: bool) -> ObjectBody {
        if change.fresh {
            return change;
        }
        let empty = ObjectBody::edit(change.type_id);
        match ours {
            true => self.both(index, change, empty),
            false => self.both(index, empty, change),
        }
    }

    fn changes(&self, edit: &ObjectBody) -> bool {
        !edit.is_empty()
    }

    fn replaces(&self, _: &ObjectBody) -> bool {
        false
    }
}

struct PointerRules<'m, 'r> {
    merger: &'m mut Merger<'r>,
    name: String,
    array: bool,
}

impl Rules<u32, u32> for PointerRules<'_, '_> {
    fn both(&mut self, index: u32, ours: u32, theirs: u32) -> u32 {
        if ours != theirs {
            let field = Merger::element_name(&self.name, self.array, index);
            self.merger.conflict(field, ConflictKind::Changed);
        }
        ours
    }

    fn removed_edited(&mut self, index: u32, removed_by_ours: bool) {
        let field = Merger::element_name(&self.name, self.array, index);
        self.merger.conflict(field, removal(removed_by_ours));
    }

    fn whole(&mut self) {
        self.merger.conflict(self.name.clone(), ConflictKind::Changed);
    }

    fn replaced(&mut self, index: u32) {
        let field = Merger::element_name(&self.name, self.array, index);
        self.merger.conflict(field, ConflictKind::Changed);
    }

    fn changes(&self, _: &u32) -> bool {
        true
    }

    fn replaces(&self, _: &u32) -> bool {
        true
    }
}

/// Plain elements: no change of an old element exists, so only moves on both sides conflict.
struct PlainRules {
    conflicted: bool,
}

impl Rules<(), Vec<u8>> for PlainRules {
    fn both(&mut self, _: u32, _: (), _: ()) {}

    fn removed_edited(&mut self, _: u32, _: bool) {
        self.conflicted = true;
    }

    fn whole(&mut self) {
        self.conflicted = true;
    }

    fn replaced(&mut self, _: u32) {
        self.conflicted = true;
    }

    fn values(&self) -> bool {
        true
    }

    fn changes(&self, _: &()) -> bool {
        false
    }

    fn replaces(&self, _: &()) -> bool {
        false
    }
}

fn removal(removed_by_ours: bool) -> ConflictKind {
    match removed_by_ours {
        true => ConflictKind::RemovedByOurs,
        false => ConflictKind::RemovedByTheirs,
    }
}

/// A plain edit's runs as elements: each kept old element, each new one's bytes.
fn runs_edit(edit: &PlainEdit, static_size: Option<u32>) -> Option<sequence::Edit<(), Vec<u8>>> {
    let ranges: Vec<Range<usize>> = crate::diff::align::split(&edit.bytes, edit.count as usize, static_size)?;
    let mut new = ranges.into_iter();
    let mut items = Vec::new();
    for &(start, len) in &edit.runs {
        for offset in 0..len {
            items.push(match start {
                NONE => Item::New(edit.bytes[new.next()?].to_vec()),
                start => Item::Old(start.checked_add(offset)?, None),
            });
        }
    }
    Some(sequence::Edit { rebuild: true, items })
}

/// A side's remaining edits, in field order (the merged patch is the same on every run).
fn sorted<T>(edits: AHashMap<(u32, u16), T>) -> Vec<T> {
    sorted_pairs(edits).into_iter().map(|(_, edit)| edit).collect()
}

fn sorted_pairs<T>(edits: AHashMap<(u32, u16), T>) -> Vec<((u32, u16), T)> {
    let mut pairs: Vec<_> = edits.into_iter().collect();
    pairs.sort_by_key(|(key, _)| *key);
    pairs
}
