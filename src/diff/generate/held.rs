//! Which old objects something outside the old graph holds too (the caller, another graph).
//! The diff never guesses such an object to be a new object edited: the patch would rewrite, in
//! place, an object others hold into another one (paired by address or by equal content, it
//! still is). An object is held outside when more pointers lead to it than the old graph's own
//! elements: those of the objects compared (counted as they are, in `old_refs`), and those of
//! the objects around it not compared yet, read when its guess is tried. What those leave
//! unexplained is settled when the diff is done and every object it pairs is compared: a guess
//! that was wrong makes the diff start again without it, which only a graph held from outside
//! costs.

use super::{unreadable_object, DiffError, Differ};
use crate::field::SharedObject;
use crate::rtti::graph::pointer_targets;
use ahash::{AHashMap, AHashSet};

impl Differ {
    /// The places, among `guesses`', whose old objects something outside the old graph holds,
    /// as far as can be told now. A guessed object whose pointers its neighbours do not account
    /// for may still be pointed at from deeper in its own part of the graph, which the diff
    /// compares only once the guess is taken: it is taken, and checked when the diff is done
    /// (see [`Differ::misguessed`]).
    pub(super) fn held_outside(&mut self, guesses: &[(u32, SharedObject)]) -> Result<AHashSet<u32>, DiffError> {
        // Pointers to each suspect, less the diff's own handles (its places', of which an object
        // met through several fields may have more than one), taken before the walk holds
        // handles of its own.
        let mut held: AHashMap<usize, usize> = AHashMap::new();
        for place in self.places.iter().filter(|place| place.old.is_some()) {
            *held.entry(place.addr).or_default() += 1;
        }
        let mut suspects: AHashMap<usize, (u32, usize)> = AHashMap::new();
        let mut queue: Vec<SharedObject> = Vec::new();
        let mut asked: AHashSet<usize> = AHashSet::new();
        let mut outside = AHashSet::new();
        for &(place, _) in guesses {
            let at = &self.places[place as usize];
            // An object guessed for several new ones is counted once, before a handle is taken.
            let Some(old) = at.old.as_ref().filter(|_| asked.insert(at.addr)) else { continue };
            if self.never_guess.contains(&at.addr) {
                outside.insert(place);
                continue;
            }
            let pointers = old.pointer_count().saturating_sub(held.get(&at.addr).copied().unwrap_or(1));
            if pointers > self.inside(at.addr, 0) {
                suspects.insert(at.addr, (place, pointers));
                queue.push(old.clone());
            }
        }
        if suspects.is_empty() {
            return Ok(outside);
        }
        // The elements of the suspects, and of the objects they point at, that lead to
        // suspects: most pointers to an object come from next to it (its children's `Weak`
        // back to it). Objects compared (paired with another) have been counted already.
        let mut found: AHashMap<usize, usize> = AHashMap::new();
        let mut seen: AHashSet<usize> = suspects.keys().copied().collect();
        let mut next: Vec<SharedObject> = Vec::new();
        for _ in 0..2 {
            for object in std::mem::take(&mut queue) {
                let read = object.read(|object| {
                    pointer_targets(object, true, &mut |addr, take| {
                        if suspects.contains_key(&addr) {
                            *found.entry(addr).or_default() += 1;
                        }
                        let compared = self.old_places.get(&addr).is_some_and(|&place| {
                            let paired = self.paired[place as usize];
                            paired != 0 && paired != addr
                        });
                        if !compared && seen.insert(addr) {
                            next.extend(take());
                        }
                    })
                });
                // An object that cannot be read now hides its pointers: what they lead to counts
                // as unexplained, checked again when the diff is done.
                read.map_err(unreadable_object)?.ok();
            }
            std::mem::swap(&mut queue, &mut next);
        }
        for (addr, (_, pointers)) in suspects {
            if pointers > self.inside(addr, found.get(&addr).copied().unwrap_or(0)) {
                self.tentative.push((addr, pointers));
            }
        }
        Ok(outside)
    }

    /// The guessed objects taken tentatively whose pointers the old graph's elements, all
    /// compared now, still do not account for: held outside after all. The diff is made again
    /// without guessing them.
    pub(super) fn misguessed(&self) -> Vec<usize> {
        self.tentative
            .iter()
            .filter(|&&(addr, pointers)| pointers > self.inside(addr, 0))
            .map(|&(addr, _)| addr)
            .collect()
    }

    /// Elements of the old graph known to lead to `addr`: those counted as objects were compared,
    /// and `more`. At least one: the element the diff met it through.
    fn inside(&self, addr: usize, more: usize) -> usize {
        (self.old_refs.get(&addr).map_or(0, |&count| count as usize) + more).max(1)
    }
}
