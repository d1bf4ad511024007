//! Comparing pointer fields: elements aligned by the object they point at (a paired one, the same
//! allocation, or an unpaired one of the same fingerprint), unpaired objects paired where they
//! match, guesses and moves, and the targets a patch names before it knows what they become.

use super::identity::{has_identity, is_identity_key, match_key, same_object};
use super::places::Frame;
use super::TENTATIVE;
use super::{unreadable, unreadable_object, DiffError, Differ, Forced, Known, Side, Told};
use crate::diff::align::{align, fill_gaps, used};
use crate::diff::patch::{ObjectBody, PointerEdit, NONE};
use crate::field::{FieldAccess, RttiField, SharedObject};
use crate::rtti::{Reflectable, RttiType};
use ahash::{AHashMap, AHashSet};
use smallvec::SmallVec;

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

impl Differ {
    /// The old element `index` of a pointer field: its target's key, its place recorded.
    fn old_key(
        &mut self,
        field: &RttiField,
        owner: &dyn Reflectable,
        index: usize,
        addr: Option<usize>,
    ) -> Result<Key, DiffError> {
        let Some(addr) = addr else { return Ok(Key::Null) };
        let place = match self.old_places.get(&addr) {
            Some(&place) => place,
            None => self.add_place(field, owner, index, addr)?,
        };
        Ok(if self.paired_old(place) { Key::Known(addr) } else { Key::FreeOld(addr) })
    }

    /// Records where the old object at `addr` (element `index` of `field` in `owner`) is.
    fn add_place(
        &mut self,
        field: &RttiField,
        owner: &dyn Reflectable,
        index: usize,
        addr: usize,
    ) -> Result<u32, DiffError> {
        let place = self.new_place(field, owner, index, addr)?;
        self.old_places.insert(addr, place);
        Ok(place)
    }

    /// [`add_place`](Self::add_place), without keeping the place by address.
    fn new_place(
        &mut self,
        field: &RttiField,
        owner: &dyn Reflectable,
        index: usize,
        addr: usize,
    ) -> Result<u32, DiffError> {
        let old = field.shared(owner, index).map_err(unreadable(field))?;
        Ok(self.place_here(index, addr, old, 0, 0))
    }

    fn new_key(&self, addr: Option<usize>) -> Key {
        let Some(addr) = addr else { return Key::Null };
        match self.new_side.get(&addr) {
            Some(Side::Old(place)) => Key::Known(self.places[*place as usize].addr),
            Some(Side::Created(_)) => Key::Created,
            None if self.old_places.get(&addr).is_some_and(|&place| !self.paired_old(place)) => Key::Known(addr),
            None => Key::FreeNew(addr),
        }
    }

    /// A pointer field: elements aligned by what they point at (or as `forced`).
    pub(super) fn pointers(
        &mut self,
        body: &mut ObjectBody,
        rtti: &'static RttiType,
        field: &RttiField,
        sa: Option<&dyn Reflectable>,
        sb: &dyn Reflectable,
        forced: Forced<'_>,
    ) -> Result<(), DiffError> {
        // The elements go on a stack the diff keeps, not into buffers on this function's
        // frame: the comparison recurses through here once per nested object, and small frames
        // keep the recursion's stack in the first-level cache.
        let start = self.elements.len();
        targets(field, sb, &mut self.elements)?;
        let mid = self.elements.len();
        let Some(sa) = sa else {
            let mut edit =
                PointerEdit { section: rtti.id(), field: field.id(), rebuild: field.is_array(), elements: Vec::new() };
            for j in 0..mid - start {
                let target = self.target(field, sb, j, self.elements[start + j].0, None)?;
                edit.elements.push((if field.is_array() { NONE } else { j as u32 }, target));
            }
            body.pointers.push(edit);
            self.elements.truncate(start);
            return Ok(());
        };
        targets(field, sa, &mut self.elements)?;
        let same_len = self.elements.len() - mid == mid - start;
        if forced.is_none() && same_len {
            let erased = Erased { field, sa, sb, new: start, old: mid };
            if self.unchanged(&erased, mid - start)? {
                self.elements.truncate(start);
                return Ok(());
            }
        }
        self.realign_stacked(body, rtti, field, (sa, sb, forced), start..mid)
    }

    /// A pointer field whose elements are not all known to point where they did (generated code
    /// found one that does not): its elements collected and aligned in general.
    pub(super) fn realign_field(
        &mut self,
        body: &mut ObjectBody,
        rtti: &'static RttiType,
        field: &RttiField,
        sa: &dyn Reflectable,
        sb: &dyn Reflectable,
    ) -> Result<(), DiffError> {
        let start = self.elements.len();
        targets(field, sb, &mut self.elements)?;
        let mid = self.elements.len();
        targets(field, sa, &mut self.elements)?;
        self.realign_stacked(body, rtti, field, (sa, sb, None), start..mid)
    }

    /// [`realign`](Self::realign) of a field whose elements are on the element stack: the new
    /// ones in `new`, the old ones after them.
    fn realign_stacked(
        &mut self,
        body: &mut ObjectBody,
        rtti: &'static RttiType,
        field: &RttiField,
        (sa, sb, forced): (&dyn Reflectable, &dyn Reflectable, Forced<'_>),
        new: std::ops::Range<usize>,
    ) -> Result<(), DiffError> {
        let addrs = |range: std::ops::Range<usize>| self.elements[range].iter().map(|e| e.0).collect::<Vec<_>>();
        let (new_addrs, old_addrs) = (addrs(new.clone()), addrs(new.end..self.elements.len()));
        self.elements.truncate(new.start);
        let edit =
            PointerEdit { section: rtti.id(), field: field.id(), rebuild: field.is_array(), elements: Vec::new() };
        self.realign(body, edit, field, (sa, &old_addrs), (sb, &new_addrs), forced)
    }

    /// A pointer field whose elements do not all point where they did: aligned in general.
    /// Out of line, so the common case above stays small enough to keep in the instruction cache
    /// while a graph is compared (every field's code runs once per pair).
    #[inline(never)]
    fn realign(
        &mut self,
        body: &mut ObjectBody,
        mut edit: PointerEdit,
        field: &RttiField,
        (sa, old_addrs): (&dyn Reflectable, &[Option<usize>]),
        (sb, new_addrs): (&dyn Reflectable, &[Option<usize>]),
        forced: Forced<'_>,
    ) -> Result<(), DiffError> {
        let mut old_keys: SmallVec<[Key; 8]> = SmallVec::with_capacity(old_addrs.len());
        for (i, addr) in old_addrs.iter().enumerate() {
            old_keys.push(self.old_key(field, sa, i, *addr)?);
        }
        // An old object this very field holds in the new graph too is itself, before anything
        // is matched by content or guessed (and what it points at is then known as well).
        let new_here: AHashSet<usize> = new_addrs.iter().flatten().copied().collect();
        for key in old_keys.iter_mut() {
            if let Key::FreeOld(x) = *key {
                if new_here.contains(&x) && !self.paired_new(x) {
                    self.pair_itself(self.old_places[&x]);
                    *key = Key::Known(x);
                }
            }
        }
        let unknown =
            |this: &Self, addr: &usize| !this.new_side.contains_key(addr) && !this.old_places.contains_key(addr);
        if !self.unexplored.is_empty() && new_addrs.iter().flatten().any(|addr| unknown(self, addr)) {
            // A target may be an object both graphs hold behind an allocation they share.
            self.explore_shared()?;
        }
        let new_keys: SmallVec<[Key; 8]> = new_addrs.iter().map(|&addr| self.new_key(addr)).collect();
        let (len_a, len_b) = (old_keys.len(), new_keys.len());
        for addr in old_addrs.iter().flatten() {
            *self.old_refs.entry(*addr).or_default() += 1;
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
        // Matches of unpaired objects pair them. A pair made earlier in this loop compares its
        // objects at once, and that may pair either object of a later match with a third one:
        // such a match no longer holds (its element then names its new target).
        for j in 0..len_b {
            let Some(i) = matched[j] else { continue };
            let holds = match (old_keys[i], new_keys[j]) {
                (Key::FreeOld(x), Key::FreeNew(y)) => {
                    let place = self.old_places[&x];
                    if self.paired_old(place) || self.paired_new(y) {
                        self.paired[place as usize] == y
                    } else {
                        let new = field.shared(sb, j).map_err(unreadable(field))?.expect("a non-null pointer");
                        // Matched by key: equal fingerprints, or one identity (values may differ).
                        let by_identity = matches!(contents.get(&x), Some(Some(key)) if is_identity_key(key));
                        self.try_pair(place, &new, !by_identity)?
                    }
                }
                (Key::FreeOld(x), Key::Known(y)) if x == y => {
                    // The very allocation in both graphs: paired with itself, nothing to compare.
                    let place = self.old_places[&x];
                    match self.paired[place as usize] {
                        0 if !self.paired_new(x) => {
                            self.pair_itself(place);
                            true
                        }
                        paired => paired == x,
                    }
                }
                _ => true,
            };
            if !holds {
                matched[j] = None;
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
        // For a merge, an array's element pointed elsewhere is one removed and one added, so
        // that the other side's insertions and removals meet it element by element.
        let moved_or_new = (0..len_b).any(|j| matched[j].or(guessed[j]) != Some(j));
        let in_place = in_place && !(self.by_element && field.is_array() && moved_or_new);
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

    /// The common case, cheaply: every old element `j` and new element `j` of a field (`len` of
    /// each, as `elements` gives them) point at one object (see
    /// [`same_target`](Self::same_target)). `false` sends the field to the general alignment
    /// (pairs made here stay: they are right either way).
    pub(super) fn unchanged<E: Elements>(&mut self, elements: &E, len: usize) -> Result<bool, DiffError> {
        let unplaced = self.unplaced.len();
        for j in 0..len {
            let ((x, old_only), (y, new_only)) = elements.at(&self.elements, j);
            let same = match (x, y) {
                (None, None) => true,
                (Some(x), Some(y)) if old_only && new_only => self.only_target(elements, j, (x, y))?,
                (Some(x), Some(y)) => self.same_target(elements, j, x, y)?,
                _ => false,
            };
            if !same {
                // The general alignment finds objects by address: those compared under frames
                // get places now.
                let unplaced: Vec<Unplaced> = self.unplaced.drain(unplaced..).collect();
                for Unplaced { index, new, frame, old } in unplaced {
                    let place = match frame.place {
                        NONE => self.place_here(
                            index,
                            frame.addr,
                            (frame.paired == 0).then_some(old),
                            frame.type_id,
                            frame.paired,
                        ),
                        place => place,
                    };
                    self.old_places.insert(frame.addr, place);
                    if self.paired[place as usize] == new {
                        self.new_side.insert(new, Side::Old(place));
                    }
                }
                return Ok(false);
            }
        }
        self.unplaced.truncate(unplaced);
        // Counted once the field is known unchanged (else the general alignment counts it):
        // only what more than one pointer leads to, the rest cannot be held outside.
        for j in 0..len {
            if let ((Some(x), false), _) = elements.at(&self.elements, j) {
                *self.old_refs.entry(x).or_default() += 1;
            }
        }
        Ok(true)
    }

    /// [`same_target`](Self::same_target) for two objects each met through this one element
    /// (their pointer counts are 1): neither can be met again, in either graph, since another
    /// pointer would count. So they are neither looked up nor kept by address, and the old one
    /// is compared under a frame, not a place (see `places.rs`); the diff's `unplaced` stack
    /// notes it in case the field goes to the general alignment.
    fn only_target<E: Elements>(&mut self, elements: &E, j: usize, (x, y): (usize, usize)) -> Result<bool, DiffError> {
        let (Some(old), Some(new)) = (elements.old_target(j)?, elements.new_target(j)?) else {
            return Ok(false);
        };
        if !self.can_nest(&old, &new) {
            // Compared the usual way, which keeps objects by address.
            return self.same_target(elements, j, x, y);
        }
        let frame = self.push_frame(j, x);
        let same = self.compare_nested(&old, &new, frame, Known::OnlyPointers);
        let frame = self.pop_frame();
        self.unplaced.push(Unplaced { index: j, new: y, frame, old });
        same
    }

    /// `true` when old element `j` (pointing at `x`) and new element `j` (at `y`) point at one
    /// object: a pair already made, the very allocation in both graphs, or two unpaired objects
    /// of equal fingerprints, paired here. The keys [`pointers`](Self::pointers) aligns by say
    /// the same, with fewer lookups.
    fn same_target<E: Elements>(&mut self, elements: &E, j: usize, x: usize, y: usize) -> Result<bool, DiffError> {
        let place = match self.old_places.get(&x) {
            Some(&place) => match self.paired[place as usize] {
                paired if paired == y => return Ok(true),
                0 => place,
                _ => return Ok(false),
            },
            None => {
                let place = self.place_here(j, x, elements.old_target(j)?, 0, 0);
                self.old_places.insert(x, place);
                place
            }
        };
        if self.paired_new(y) {
            return Ok(false);
        }
        if x == y {
            self.pair_itself(place);
            return Ok(true);
        }
        if self.old_places.contains_key(&y) || self.paired_new(x) {
            // An object of both graphs: the general alignment sorts it out, and its fingerprints
            // look out for objects being compared, which reading again could deadlock.
            return Ok(false);
        }
        if !self.unexplored.is_empty() {
            // `y` may be an object both graphs hold behind an allocation they share, and `x`
            // one the new graph holds too: each is then itself, not the other.
            self.explore_shared()?;
            if self.paired_old(place) || self.old_places.contains_key(&y) {
                return Ok(false);
            }
        }
        let old = self.places[place as usize].old.clone().expect("a pointer target");
        let Some(new) = elements.new_target(j)? else { return Ok(false) };
        if self.can_nest(&old, &new) {
            return self.compare_nested(&old, &new, place, Known::Unpaired);
        }
        // Neither is being compared: every pair is made before it is compared, and neither is
        // paired, in the old graph or (checked above) in the new one. So both can be read.
        if old.family().is_mutable() != new.family().is_mutable() {
            return Ok(false);
        }
        let scratch = &mut self.scratch;
        let same = old.read(|a| new.read(|b| same_object(a, b, scratch))).and_then(|r| r);
        match same.map_err(unreadable_object)?? {
            None => Ok(false),
            Some(told) => self.try_pair(place, &new, told == Told::Plain),
        }
    }

    /// Pairs the old object at `place` with itself: the very allocation is in the new graph.
    pub(super) fn pair_itself(&mut self, place: u32) {
        self.met_shared |= place != 0;
        let object = self.places[place as usize].old.clone().expect("a pointer target");
        self.pair(&object, place);
        self.unexplored.push(place);
    }

    /// Appends what tells a shared object from others of its type cheaply: its identity, or its
    /// family, type, variants and plain values (not what it holds by value or points at; see
    /// [`match_key`]). `false` when it cannot be read now.
    fn fingerprint(&mut self, object: &SharedObject, out: &mut Vec<u8>) -> Result<bool, DiffError> {
        if self.busy.contains(&object.addr()) {
            return Ok(false);
        }
        match_key(object, out).map(|()| true)
    }

    /// `true` when old element `i` and new element `j` point at objects of one type and family,
    /// one without a declared identity: such objects are one only by their identities, never by
    /// a guess.
    fn same_kind(&self, field: &RttiField, sa: &dyn Reflectable, i: usize, sb: &dyn Reflectable, j: usize) -> bool {
        let kind = |owner: &dyn Reflectable, index: usize| {
            let target = field.shared(owner, index).ok().flatten().filter(|t| !self.busy.contains(&t.addr()))?;
            let (type_id, identity) = target.read(|o| (o.rtti().id(), has_identity(o))).ok()?;
            (!identity).then_some((target.family(), type_id))
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
    pub(super) fn pair_moved(&mut self) -> Result<bool, DiffError> {
        let mut left: AHashMap<Vec<u8>, Vec<u32>> = AHashMap::new();
        for place in std::mem::take(&mut self.orphans).into_iter().rev() {
            if !self.paired_old(place) {
                let old = self.places[place as usize].old.clone().expect("orphans are pointer targets");
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
            let verified = !is_identity_key(&content);
            while let Some(place) = left.get_mut(&content).and_then(Vec::pop) {
                if !self.paired_old(place) && self.try_pair(place, &new, verified)? {
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
        let weak = matches!(field.access(), FieldAccess::Pointer(access) if access.is_weak());
        self.targets.push((target, guess, weak));
        Ok(self.targets.len() as u32)
    }
}

/// An element [`Differ::only_target`] compared under a frame: the element's index, the new
/// object's address, the frame, the old object.
pub(super) struct Unplaced {
    index: usize,
    new: usize,
    frame: Frame,
    old: SharedObject,
}

/// The elements of one pointer field in the old and the new object, as
/// [`Differ::unchanged`] compares them: through the erased field, or (`pairs.rs`) through their
/// static type.
pub(super) trait Elements {
    /// Old and new element `j`: each target's address (`None`: null) and whether the element is
    /// the only pointer to it. `stack` is the diff's element stack.
    fn at(&self, stack: &[(Option<usize>, bool)], j: usize) -> ((Option<usize>, bool), (Option<usize>, bool));
    /// A handle to old element `j`'s target.
    fn old_target(&self, j: usize) -> Result<Option<SharedObject>, DiffError>;
    /// A handle to new element `j`'s target.
    fn new_target(&self, j: usize) -> Result<Option<SharedObject>, DiffError>;
}

/// A field's elements through the erased field, their targets on the diff's element stack (the
/// new ones from `new` on, the old ones from `old` on).
struct Erased<'a> {
    field: &'a RttiField,
    sa: &'a dyn Reflectable,
    sb: &'a dyn Reflectable,
    new: usize,
    old: usize,
}

impl Elements for Erased<'_> {
    fn at(&self, stack: &[(Option<usize>, bool)], j: usize) -> ((Option<usize>, bool), (Option<usize>, bool)) {
        (stack[self.old + j], stack[self.new + j])
    }
    fn old_target(&self, j: usize) -> Result<Option<SharedObject>, DiffError> {
        self.field.shared(self.sa, j).map_err(unreadable(self.field))
    }
    fn new_target(&self, j: usize) -> Result<Option<SharedObject>, DiffError> {
        self.field.shared(self.sb, j).map_err(unreadable(self.field))
    }
}

/// Appends the elements of pointer field `field` in `owner`: each target's address (`None`:
/// null), and whether the element is the only pointer to it (see `only_target`).
fn targets(field: &RttiField, owner: &dyn Reflectable, out: &mut Vec<(Option<usize>, bool)>) -> Result<(), DiffError> {
    let pointers = field.as_pointer().expect("a pointer field");
    pointers.targets(owner, out).map_err(unreadable(field))
}
