//! Where old shared objects are, for the patch to find them again: *places* (an object's parent
//! place and the steps from it), kept for every object the diff may meet twice or must come back
//! to, and *frames*, the cheap stand-ins for objects compared inside another's comparison that
//! nothing else can reach. A frame lives on a stack while its object is compared and becomes a
//! place only if something needs one (an edit inside it, a pointer that leaves it, an alignment
//! that must find it by address): most objects of a large graph never do, and the bookkeeping
//! per object stays off the tables a comparison of the next object would have to walk past.

use super::{unreadable, unreadable_object, DiffError, Differ};
use crate::diff::patch::{ObjectBody, ObjectEdit, Origin, NONE};
use crate::field::{FieldAccess, SharedObject};
use crate::rtti::visit;
use crate::rtti::Reflectable;
use std::ops::Range;

/// Marks a place number as a frame's: the frame at this index of the stack.
pub(super) const FRAME: u32 = 1 << 30;

/// Where an old shared object is: `steps` from the object of place `parent`, the last one the
/// pointer element holding it. Place 0 is the root.
pub(super) struct Place {
    pub(super) parent: u32,
    pub(super) steps: Range<usize>,
    /// Its edit in the patch, once it has one.
    pub(super) entry: u32,
    /// The object, until it is compared (its handle is let go then, while it is in the cache).
    pub(super) old: Option<SharedObject>,
    /// The object's address (its identity), kept when the handle is let go.
    pub(super) addr: usize,
    /// Its type, noted when it is compared; 0 before.
    pub(super) type_id: u32,
}

/// An old object being compared inside the comparison of its parent, the only object pointing at
/// it: its place as far as known, made into one only when needed (see [`Differ::placed`]).
pub(super) struct Frame {
    /// The parent's place or frame.
    parent: u32,
    /// The steps from the parent, still on the diff's path while the frame is on the stack.
    steps: Range<usize>,
    pub(super) addr: usize,
    /// The address of the new object it is paired with (0: not yet).
    pub(super) paired: usize,
    /// Its type, noted when its comparison starts.
    pub(super) type_id: u32,
    /// Its place, once it has one; `NONE` before.
    pub(super) place: u32,
}

impl Differ {
    /// Pushes a frame for the old object at `addr`, element `index` of the pointer field being
    /// compared: the number to compare it under.
    pub(super) fn push_frame(&mut self, index: usize, addr: usize) -> u32 {
        if let Some(step) = self.path.last_mut() {
            step.2 = index as u32;
        }
        let steps = self.base..self.path.len();
        self.frames.push(Frame { parent: self.place, steps, addr, paired: 0, type_id: 0, place: NONE });
        FRAME | (self.frames.len() - 1) as u32
    }

    /// Pops the frame pushed last.
    pub(super) fn pop_frame(&mut self) -> Frame {
        self.frames.pop().expect("a frame is popped after it is pushed")
    }

    /// The frame a frame number names.
    pub(super) fn frame(&mut self, at: u32) -> &mut Frame {
        &mut self.frames[(at & !FRAME) as usize]
    }

    /// The place of `at`, a place or a frame: a frame (and the frames it is inside) is given a
    /// place now if it has none. `NONE` stays `NONE`.
    pub(super) fn placed(&mut self, at: u32) -> u32 {
        if at == NONE || at & FRAME == 0 {
            return at;
        }
        let frame = &self.frames[(at & !FRAME) as usize];
        if frame.place != NONE {
            return frame.place;
        }
        let (parent, steps, addr, paired, type_id) =
            (frame.parent, frame.steps.clone(), frame.addr, frame.paired, frame.type_id);
        let parent = self.placed(parent);
        let start = self.steps.len();
        self.steps.extend_from_slice(&self.path[steps]);
        let steps = start..self.steps.len();
        let place = self.push_place(Place { parent, steps, entry: NONE, old: None, addr, type_id }, paired);
        self.frame(at).place = place;
        place
    }

    /// A place for element `index` of the pointer field being compared, pointing at `addr` (the
    /// object `old`, kept while it is still to compare), paired with `paired` (0: unpaired).
    pub(super) fn place_here(
        &mut self,
        index: usize,
        addr: usize,
        old: Option<SharedObject>,
        type_id: u32,
        paired: usize,
    ) -> u32 {
        let parent = self.placed(self.place);
        let start = self.steps.len();
        self.steps.extend_from_slice(&self.path[self.base..]);
        if let Some(last) = self.steps.last_mut() {
            last.2 = index as u32;
        }
        let steps = start..self.steps.len();
        self.push_place(Place { parent, steps, entry: NONE, old, addr, type_id }, paired)
    }

    fn push_place(&mut self, place: Place, paired: usize) -> u32 {
        self.places.push(place);
        self.paired.push(paired);
        self.places.len() as u32 - 1
    }

    /// Notes the type of the old object at `at` (a place or a frame) as its comparison starts.
    pub(super) fn note_type(&mut self, at: u32, type_id: u32) {
        if at & FRAME == 0 {
            self.places[at as usize].type_id = type_id;
        } else {
            self.frame(at).type_id = type_id;
        }
    }

    /// The edit of the old object at `at` (a place or a frame), made (with its ancestors') if it
    /// has none.
    pub(super) fn entry(&mut self, at: u32) -> Result<u32, DiffError> {
        let place = self.placed(at);
        let mut chain = Vec::new();
        let mut at = place;
        while self.places[at as usize].entry == NONE {
            chain.push(at);
            at = self.places[at as usize].parent;
        }
        for at in chain.into_iter().rev() {
            let place = &self.places[at as usize];
            let from = self.places[place.parent as usize].entry;
            let type_id = match &place.old {
                _ if place.type_id != 0 => place.type_id,
                Some(old) => old.read(|o| o.rtti().id()).map_err(unreadable_object)?,
                None => unreachable!("an old object is let go only once compared, when its type is noted"),
            };
            let path = self.steps[place.steps.clone()].to_vec();
            let identity = self.identities.get(&place.addr).cloned().unwrap_or_default();
            let body = ObjectBody::edit(type_id);
            self.entries.push(ObjectEdit { origin: Origin::Found { from }, path, body, identity, key: 0 });
            self.places[at as usize].entry = self.entries.len() as u32 - 1;
        }
        Ok(self.places[place as usize].entry)
    }
}

impl Differ {
    /// Gives places to what the objects paired with themselves (allocations both graphs hold)
    /// point at, and pairs each of those with itself in turn: the diff compares nothing inside
    /// such an object, so without this an object the new graph reaches elsewhere but the old
    /// graph reaches only behind one would look new, and the patch would point at a copy of it.
    /// Done when an unknown target is first met, so a diff of graphs that share nothing never
    /// walks them.
    pub(super) fn explore_shared(&mut self) -> Result<(), DiffError> {
        while let Some(place) = self.unexplored.pop() {
            let Some(object) = self.places[place as usize].old.clone() else { continue };
            if self.busy.contains(&object.addr()) {
                // Being read further out: reading it again could lock it twice.
                continue;
            }
            let mut found = Vec::new();
            let mut path = Vec::new();
            object.read(|object| targets_inside(object, &mut path, &mut found)).map_err(unreadable_object)??;
            for (steps, target) in found {
                let addr = target.addr();
                if self.new_side.contains_key(&addr) {
                    continue;
                }
                if let Some(&known) = self.old_places.get(&addr) {
                    // An old object met elsewhere and not paired yet: the new graph holds it too
                    // (behind this allocation), so it is itself, not a copy of another.
                    if !self.paired_old(known) {
                        self.pair_itself(known);
                    }
                    continue;
                }
                let start = self.steps.len();
                self.steps.extend_from_slice(&steps);
                let steps = start..self.steps.len();
                let at = self
                    .push_place(Place { parent: place, steps, entry: NONE, old: Some(target), addr, type_id: 0 }, 0);
                self.old_places.insert(addr, at);
                self.pair_itself(at);
            }
        }
        Ok(())
    }
}

/// The steps of a path into an object: section type, field, element.
type Steps = Vec<(u32, u16, u32)>;

/// Every shared object `object` points at, through its own pointer fields and those of the
/// objects it holds by value, with the steps from `object` to the pointer element (`path`
/// holds the steps to `object`'s embedded parts while they are walked).
fn targets_inside(
    object: &dyn Reflectable,
    path: &mut Vec<(u32, u16, u32)>,
    found: &mut Vec<(Steps, SharedObject)>,
) -> Result<(), DiffError> {
    for section in visit::sections_from(object.rtti(), object) {
        for slot in section.slots() {
            let (field, owner) = (slot.field, slot.owner);
            let len = field.len(owner).map_err(unreadable(field))?;
            for index in 0..len {
                path.push((slot.section.id(), field.id(), index as u32));
                match field.access() {
                    FieldAccess::Plain(_) => {}
                    FieldAccess::Pointer(_) => {
                        if let Some(target) = field.shared(owner, index).map_err(unreadable(field))? {
                            found.push((path.clone(), target));
                        }
                    }
                    FieldAccess::Embedded(_) => {
                        let walked = field.with_embedded(owner, index, |inner| match inner {
                            Some(inner) => targets_inside(inner, path, found),
                            None => Ok(()),
                        });
                        walked.map_err(unreadable(field))??;
                    }
                }
                path.pop();
            }
        }
    }
    Ok(())
}
