//! [`diff`]: the [`Patch`] that turns one graph into another.
//!
//! The two graphs are walked side by side from their roots. Objects held by value are compared
//! where they are; shared objects are *paired* (this old object is that new one) and each pair
//! compared once, depth first. Pairs come from array alignment: elements of an old and a new
//! array are matched as the longest common subsequence of their keys (plain elements by their
//! bytes, objects held by value by their content, pointers by the object they point at: a paired
//! one, the same allocation, or an unpaired one of the same fingerprint, that is type, variants
//! and plain values). Elements left over in the same gap of an alignment, of one type, are
//! *guesses*: the same object, edited. Guesses are taken only after every exact match is made, so
//! a pointer moved to another object of the graph is a retarget, not an edit of the object it
//! pointed at before; an object one array lost and another gained is paired as moved. What a new
//! object pairs with nothing is created by the patch, in full (`pointers.rs` and `values.rs` hold
//! the comparisons by field kind, `pairs.rs` the pointer fields compared through generated code,
//! `places.rs` where the old objects are).
//!
//! An object in an immutable allocation (`Rc<T>`, `Arc<T>`) cannot be edited in place: it pairs
//! only with an equal object, and otherwise the patch creates the new one.

mod held;
mod identity;
mod pairs;
mod places;
mod pointers;
mod values;

use super::patch::{KeptEdit, ObjectBody, ObjectEdit, Origin, Patch, NONE};
use super::SameScope;
use crate::containers::MAP_TYPE_ID;
use crate::field::{FieldAccess, FieldError, RttiField, SharedObject};
use crate::rtti::visit::{self, Section};
use crate::rtti::{AsRoot, Root};
use crate::rtti::{Reflectable, RttiType};
use crate::runtime::UnknownFields;
use crate::serializer::generated_codecs_by_default;
use ahash::{AHashMap, AHashSet};
pub use pairs::PointerPairs;
use places::{Frame, Place, FRAME};
use pointers::Unplaced;
use thiserror::Error;
use values::{generated_same, generated_same_sections};

/// How many pairs are compared inside one another, each as soon as it is made, before the next
/// wait in a queue: most pairs are compared while both objects are still in the cache, and the
/// stack stays bounded however deep the graph.
const NESTED_COMPARES: u32 = 32;

/// What [`Differ::compare`] knows of a pair's plain values before it reads the two objects.
#[derive(Clone, Copy, PartialEq)]
enum Known {
    /// Nothing: they are compared with the rest.
    Nothing,
    /// Their fingerprints are equal: the plain values are not compared again.
    SameFingerprint,
    /// The two are not paired yet: their fingerprints are compared first, and they are paired
    /// (and compared) only if those are equal. One read of each serves both.
    Unpaired,
    /// As `Unpaired`, for two objects no other pointer leads to: the pair is not kept by address
    /// and the old object is compared under a frame (see `only_target` in `pointers.rs`).
    OnlyPointers,
}

/// What [`Differ::compare`] found equal in two objects before their bodies are compared: those
/// fields are not compared again.
#[derive(Clone, Copy, PartialEq, Default)]
enum Told {
    #[default]
    Nothing,
    /// The plain values (the fingerprints).
    Plain,
    /// The plain values and what is held by value, in every section: only the pointer fields
    /// are left.
    Values,
}

/// Marks an element whose target is a guess: the old element it would keep if the guess holds.
pub(crate) const TENTATIVE: u32 = 1 << 31;

/// Marks a `Weak` element's target left to name until every object the patch creates has its
/// body (see [`Differ::finish`]).
const DEFERRED: u32 = 1 << 31;

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
    /// [`diff_external`]'s key function gave one key to two objects: a key names one object.
    #[error("two objects have the external key {key}: a key names one object")]
    ExternalKey {
        /// The key.
        key: u64,
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
/// Applied with [`Patch::apply`](super::Patch::apply) to `old` (or to a clone of it), the patch
/// makes a graph [`rtti_eq`](super::rtti_eq) to `new`. `diff(a, a)` is empty. Both roots must be of one type,
/// and both by value or both shared.
///
/// ```
/// use reflectable::diff::{diff, rtti_eq};
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
/// let report = patch.apply(&mut target);
/// assert!(report.is_complete(), "{report}");
/// rtti_eq(&target, &new).unwrap();
/// assert!(diff(&new, &new).unwrap().is_empty());
/// ```
pub fn diff<A: AsRoot + ?Sized, B: AsRoot + ?Sized>(old: &A, new: &B) -> Result<Patch, DiffError> {
    diff_with(old, new, generated_codecs_by_default(), false, AHashMap::new())
}

/// [`diff`], with the objects that live outside the patched graph (assets, another scene's
/// objects) referred to by key rather than copied into the patch: `key` is asked about each
/// shared object of either graph, and an object it gives a key for is *external*. A pointer of
/// the new graph to an external object the old graph does not hold becomes an external reference
/// (that key and the object's type), which [`Patch::apply_relinked`] re-links to the caller's
/// object; an external object is never edited, nor taken for another object. The walk does not
/// go inside an external object: an object it holds that the new graph points at directly is not
/// external unless `key` gives it a key too (else the patch copies it). `key` may read the object
/// it is given; two objects with one key are [`DiffError::ExternalKey`].
///
/// ```
/// use reflectable::diff::{diff_external, rtti_eq};
/// use reflectable::field::SharedObject;
/// use reflectable::Reflectable;
/// use std::cell::RefCell;
/// use std::rc::Rc;
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9823)]
/// struct Texture {
///     #[rtti(id = 1)]
///     pixels: Vec<u8>,
/// }
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9824)]
/// struct Sprite {
///     #[rtti(id = 1)]
///     texture: Option<Rc<RefCell<Texture>>>,
/// }
///
/// // The program's textures, by asset key.
/// let textures = [(7u64, Rc::new(RefCell::new(Texture { pixels: vec![1; 64] })))];
/// let key = |object: &SharedObject| textures.iter().find(|(_, t)| object.addr() == SharedObject::new(t.clone()).addr()).map(|(k, _)| *k);
/// let relink = |key: u64, _type_id: u32| textures.iter().find(|(k, _)| *k == key).map(|(_, t)| SharedObject::new(t.clone()));
///
/// let new = Sprite { texture: Some(textures[0].1.clone()) };
/// let patch = diff_external(&Sprite::default(), &new, &key).unwrap();
/// assert_eq!(patch.externals().collect::<Vec<_>>(), [(7, 9823)], "the texture is not copied");
///
/// let mut target = Sprite::default();
/// assert!(patch.apply_relinked(&mut target, &relink).is_complete());
/// assert!(Rc::ptr_eq(target.texture.as_ref().unwrap(), &textures[0].1), "the program's own texture");
/// rtti_eq(&target, &new).unwrap();
/// ```
pub fn diff_external<A: AsRoot + ?Sized, B: AsRoot + ?Sized>(
    old: &A,
    new: &B,
    key: &dyn Fn(&SharedObject) -> Option<u64>,
) -> Result<Patch, DiffError> {
    let mut external = AHashMap::new();
    identity::external_objects(old.as_root(), key, &mut external)?;
    identity::external_objects(new.as_root(), key, &mut external)?;
    diff_with(old, new, generated_codecs_by_default(), false, external)
}

/// [`diff`] for a merge: plain arrays always as runs over the old elements, so that two sides'
/// changes of one array can be merged element by element.
pub(crate) fn diff_by_element<A: AsRoot + ?Sized, B: AsRoot + ?Sized>(old: &A, new: &B) -> Result<Patch, DiffError> {
    diff_with(old, new, generated_codecs_by_default(), true, AHashMap::new())
}

/// [`diff`] with the pointer fields of derived types always walked through their descriptors,
/// never through generated code: the two make the same patch, which the tests check. Not public
/// API.
#[doc(hidden)]
pub fn diff_walked<A: AsRoot + ?Sized, B: AsRoot + ?Sized>(old: &A, new: &B) -> Result<Patch, DiffError> {
    diff_with(old, new, false, false, AHashMap::new())
}

fn diff_with<A: AsRoot + ?Sized, B: AsRoot + ?Sized>(
    old: &A,
    new: &B,
    typed: bool,
    by_element: bool,
    mut external: AHashMap<usize, u64>,
) -> Result<Patch, DiffError> {
    let mut never_guess = AHashSet::new();
    // Which allocations both graphs hold is known from the start where a type declares an
    // identity; otherwise it is found (two walks) only once a try meets one, and the diff is
    // made again knowing them: graphs that share nothing (two files) never pay for the walks.
    let mut know_shared = crate::rtti::identity::identities_declared();
    loop {
        let differ = Differ {
            typed_pointers: typed,
            by_element,
            never_guess: std::mem::take(&mut never_guess),
            external: std::mem::take(&mut external),
            ..Differ::default()
        };
        match differ.run(old, new, know_shared)? {
            Ok(Ok(patch)) => return Ok(patch),
            Ok(Err(mut differ)) => {
                know_shared = true;
                never_guess = std::mem::take(&mut differ.never_guess);
                external = std::mem::take(&mut differ.external);
            }
            // A guessed object turned out to be held from outside the old graph: again, without
            // guessing it. Each round adds at least one, so this ends.
            Err(mut differ) => {
                let misguessed = differ.misguessed();
                never_guess = std::mem::take(&mut differ.never_guess);
                never_guess.extend(misguessed);
                external = std::mem::take(&mut differ.external);
            }
        }
    }
}

impl Differ {
    /// One try of the diff: the patch, or the differ back when a guess it took was wrong.
    /// `Ok(Err(differ))`: the graphs share allocations, which a try not knowing them (`know_shared`
    /// false) met.
    #[allow(clippy::type_complexity)]
    fn run<A: AsRoot + ?Sized, B: AsRoot + ?Sized>(
        mut self,
        old: &A,
        new: &B,
        know_shared: bool,
    ) -> Result<Result<Result<Patch, Differ>, Differ>, DiffError> {
        self.entries.push(ObjectEdit::default());
        if know_shared {
            let old_objects = identity::shared_objects(old.as_root());
            let mut both = identity::shared_objects(new.as_root());
            both.retain(|addr| old_objects.contains(addr));
            self.in_both = Some(both);
        }
        match (old.as_root(), new.as_root()) {
            (Root::Object(a), Root::Object(b)) => {
                same_root_type(a, b)?;
                self.places.push(Place { parent: NONE, steps: 0..0, entry: 0, old: None, addr: 0, type_id: 0 });
                self.paired.push(0);
                self.place = 0;
                self.entries[0].body = self.body(Some(a), b)?;
            }
            (Root::Shared(a), Root::Shared(b)) => {
                if a.addr() != b.addr() {
                    a.read(|x| b.read(|y| same_root_type(x, y))).and_then(|r| r).map_err(unreadable_object)??;
                }
                let addr = a.addr();
                self.places.push(Place { parent: NONE, steps: 0..0, entry: 0, old: Some(a.clone()), addr, type_id: 0 });
                self.paired.push(0);
                // A pointer back to the root (a cycle) finds it here, not at a second place.
                self.old_places.insert(addr, 0);
                self.entries[0].body.type_id = a.read(|x| x.rtti().id()).map_err(unreadable_object)?;
                if a.addr() == b.addr() {
                    // One graph: nothing changes (and reading the root twice could lock it twice).
                    self.pair_itself(0);
                } else {
                    self.pair(&b, 0);
                    self.queue.push((a, b, 0, Known::Nothing));
                }
            }
            _ => return Err(DiffError::RootKinds),
        }
        self.drain()?;
        self.met_shared |= self.in_both.is_none() && self.crossed();
        if self.in_both.is_none() && self.met_shared {
            return Ok(Ok(Err(self)));
        }
        if !self.misguessed().is_empty() {
            return Ok(Err(self));
        }
        let tracking = self.in_both.is_none();
        let never_guess = if tracking { self.never_guess.clone() } else { AHashSet::new() };
        let external = if tracking { self.external.clone() } else { AHashMap::new() };
        let (patch, met_shared) = self.finish()?;
        Ok(match tracking && met_shared {
            true => Ok(Err(Differ { never_guess, external, ..Differ::default() })),
            false => Ok(Ok(patch)),
        })
    }
}

fn same_root_type(a: &dyn Reflectable, b: &dyn Reflectable) -> Result<(), DiffError> {
    if a.rtti().id() == b.rtti().id() {
        Ok(())
    } else {
        Err(DiffError::RootTypes { old: a.rtti().name().to_owned(), new: b.rtti().name().to_owned() })
    }
}

/// How an array field's elements align: `None`, by the field's own elements; `Some(keys)`, as a
/// map's keys did (`Some(None)`: the keys could not be split into elements, every value is new).
type Forced<'a> = Option<Option<&'a [Option<usize>]>>;

/// What a new shared object is to the patch.
#[derive(Clone, Copy)]
enum Side {
    /// The old object at this place, edited.
    Old(u32),
    /// An object the patch creates (this edit).
    Created(u32),
}

#[derive(Default)]
struct Differ {
    /// Plain arrays as runs even where the whole new value is shorter (for a merge).
    by_element: bool,
    entries: Vec<ObjectEdit>,
    places: Vec<Place>,
    /// Objects compared inside others that have no place (yet), innermost last.
    frames: Vec<Frame>,
    /// The elements of the pointer fields being compared (target address, only pointer to
    /// it), new then old, innermost field last.
    elements: Vec<(Option<usize>, bool)>,
    /// Elements compared under frames in the pointer fields being compared, innermost last.
    unplaced: Vec<Unplaced>,
    /// For each place, the address of the new object its object is paired with; 0 while
    /// unpaired. Apart from the places: looked up for every pointer met, so kept dense.
    paired: Vec<usize>,
    /// The steps of every place, one after another.
    steps: Vec<(u32, u16, u32)>,
    /// The place of every old shared object met, by address (which says what it is paired with).
    old_places: AHashMap<usize, u32>,
    new_side: AHashMap<usize, Side>,
    /// Paired objects still to compare: old, new, the old one's place, what is known of their
    /// plain values. Last in, first out: a pair is compared soon after it is found, while both
    /// objects are still in the cache.
    queue: Vec<(SharedObject, SharedObject, u32, Known)>,
    /// Pairs being compared inside other comparisons (see [`Differ::try_pair`]).
    nested: u32,
    /// What is known to be equal in the next object compared (see [`Differ::compare`]).
    told: Told,
    /// Guesses still to try: an old object's place and a new object.
    guesses: Vec<(u32, SharedObject)>,
    /// Pointer targets the patch names before it knows what they become: a new object, the old
    /// object guessed for it, and whether a `Weak` names it.
    targets: Vec<(SharedObject, Option<usize>, bool)>,
    /// The place (or frame) of the old object being compared (`NONE` while writing a new object
    /// in full), and the steps inside it to the field being compared.
    place: u32,
    path: Vec<(u32, u16, u32)>,
    /// Where the steps inside the object being compared start in `path`.
    base: usize,
    /// Buffers for values written out to be compared, old and new.
    scratch: (Vec<u8>, Vec<u8>),
    /// The new object each created edit copies.
    created: AHashMap<u32, SharedObject>,
    /// Objects being read (compared) now: not to be read again from inside, where a lock would
    /// deadlock.
    busy: Vec<usize>,
    /// Places of old objects an array lost (no match, no guess): maybe moved elsewhere.
    orphans: Vec<u32>,
    /// Places of objects paired with themselves (in both graphs) whose targets have no places
    /// yet (see `explore_shared`).
    unexplored: Vec<u32>,
    /// How many pointer elements of the old objects compared lead to each old object (those
    /// that are the only pointer to their object need not be counted): with its pointer count,
    /// whether something outside the old graph holds it too (see `held.rs`).
    old_refs: AHashMap<usize, u32>,
    /// Old objects held from outside, found by an earlier try of this diff: never guessed.
    never_guess: AHashSet<usize>,
    /// Guessed objects whose pointers were not all accounted for when the guess was taken, and
    /// their pointer counts: checked when the diff is done (see `held.rs`).
    tentative: Vec<(usize, usize)>,
    /// Pointer fields are compared through generated code where there is some (`pairs.rs`).
    typed_pointers: bool,
    /// The identity of each old object compared whose type declares one (its type's ID, then its
    /// identity's bytes), by address: its edit carries it (see [`ObjectEdit`]).
    identities: AHashMap<usize, Vec<u8>>,
    /// Every allocation both graphs hold, when a type of the process declares an identity: such
    /// an object is itself, never paired with another object that claims its identity (or
    /// content), from either side. See [`Differ::in_both`].
    in_both: Option<AHashSet<usize>>,
    /// Whether every old object both graphs hold has been paired with itself (see
    /// [`Differ::resolve_target`]).
    settled: bool,
    /// Whether an allocation both graphs hold was met (other than a shared root diffed against
    /// itself).
    met_shared: bool,
    /// The external objects (see [`diff_external`]), by address: their keys.
    external: AHashMap<usize, u64>,
}

impl Differ {
    /// Notes the identity of the old object at `addr`, `object`, when its type declares one.
    fn note_identity(&mut self, addr: usize, object: &dyn Reflectable) {
        if let Some(key) = self.in_both.as_ref().and_then(|_| object.rtti().identity_key(object)) {
            self.identities.insert(addr, key);
        }
    }

    /// Whether an address is both an old object's and a new object's, the old root aside (a new
    /// graph holding the old root is met where it is compared): the graphs share allocations,
    /// though no pair may have said so (a shared object paired with another).
    fn crossed(&self) -> bool {
        self.new_side.keys().any(|addr| self.old_places.get(addr).is_some_and(|&place| place != 0))
    }

    /// Whether both graphs hold the allocation at `addr` (known only when a type of the process
    /// declares an identity): it is then paired with itself, never with another object.
    fn in_both(&self, addr: usize) -> bool {
        self.in_both.as_ref().is_some_and(|objects| objects.contains(&addr))
    }

    /// Whether `old` and `new` (two allocations) may be one object, edited: not when either is
    /// held from outside both graphs as itself (in both, or external).
    fn separate(&self, old: usize, new: usize) -> bool {
        self.in_both(old) || self.in_both(new) || self.external.contains_key(&old) || self.external.contains_key(&new)
    }

    fn paired_new(&self, new: usize) -> bool {
        self.new_side.contains_key(&new)
    }

    /// `true` when the old object at `place` is paired.
    fn paired_old(&self, place: u32) -> bool {
        self.paired[place as usize] != 0
    }

    fn pair(&mut self, new: &SharedObject, place: u32) {
        self.paired[place as usize] = new.addr();
        self.new_side.insert(new.addr(), Side::Old(place));
    }

    fn unpair(&mut self, new: &SharedObject, place: u32) {
        self.paired[place as usize] = 0;
        self.new_side.remove(&new.addr());
    }

    /// Pairs the old object at `place` with `new` (unpaired, of its type and family). A mutable
    /// pair is compared now, or queued when [`NESTED_COMPARES`] are under way; an immutable one
    /// is compared now and pairs only if equal. `verified`: their fingerprints (every plain
    /// value) are known equal.
    fn try_pair(&mut self, place: u32, new: &SharedObject, verified: bool) -> Result<bool, DiffError> {
        let old = self.places[place as usize].old.clone().expect("a pointer target's place has its object");
        if old.addr() == new.addr() {
            // The very allocation in both graphs (an object that left one field and is named by
            // another): it is itself. Comparing it with itself would lock a `Mutex` twice.
            self.pair_itself(place);
            return Ok(true);
        }
        if self.separate(old.addr(), new.addr()) {
            return Ok(false);
        }
        self.pair(new, place);
        let known = if verified { Known::SameFingerprint } else { Known::Nothing };
        if old.family().is_mutable() {
            if self.nested < NESTED_COMPARES {
                self.compare_nested(&old, new, place, known)?;
            } else {
                self.queue.push((old, new.clone(), place, known));
            }
            return Ok(true);
        }
        let body = self.compare(&old, new, place, known)?.expect("a pair is compared whatever its fingerprints");
        if body.is_empty() {
            Ok(true)
        } else {
            self.unpair(new, place);
            Ok(false)
        }
    }

    /// The changes from the old object at `place` to `new`, reading each once. `None` only for
    /// [`Known::Unpaired`] objects whose fingerprints differ (they are not paired then).
    fn compare(
        &mut self,
        old: &SharedObject,
        new: &SharedObject,
        place: u32,
        known: Known,
    ) -> Result<Option<ObjectBody>, DiffError> {
        self.busy.extend([old.addr(), new.addr()]);
        let body = old
            .read(|a| {
                new.read(|b| {
                    // Asked for once: a generic type's descriptor costs a lookup.
                    let own = a.rtti();
                    let mut told = if known == Known::Nothing { Told::Nothing } else { Told::Plain };
                    let shared = self.separate(old.addr(), new.addr());
                    if matches!(known, Known::Unpaired | Known::OnlyPointers) && shared {
                        return Ok(None);
                    }
                    if matches!(known, Known::Unpaired | Known::OnlyPointers) {
                        // Usually all but the pointers are equal, which says that the
                        // fingerprints are, in one look at each object.
                        if own.id() == b.rtti().id() && generated_same_sections(own, a, b, SameScope::Values) {
                            told = Told::Values;
                        } else {
                            match identity::same_object(a, b, &mut self.scratch)? {
                                Some(known) => told = known,
                                None => return Ok(None),
                            }
                        }
                        match known {
                            Known::OnlyPointers => self.frame(place).paired = new.addr(),
                            _ => self.pair(new, place),
                        }
                    }
                    // Noted before its fields are: an edit made for it while it is read (by an
                    // object compared inside it) must not read it again.
                    // Past the checks above, `b` is of `a`'s type.
                    self.note_type(place, own.id());
                    self.note_identity(old.addr(), a);
                    self.told = told;
                    self.body_at(place, Some(a), b, own).map(Some)
                })
            })
            .and_then(|r| r);
        self.busy.truncate(self.busy.len() - 2);
        body.map_err(unreadable_object)?
    }

    /// Compares queued pairs; then tries the guesses (pairs of objects both still unpaired),
    /// which queue more; until nothing is left.
    fn drain(&mut self) -> Result<(), DiffError> {
        loop {
            while let Some((old, new, place, known)) = self.queue.pop() {
                self.compare_paired(&old, &new, place, known)?;
            }
            let guesses = std::mem::take(&mut self.guesses);
            if guesses.is_empty() {
                if !self.orphans.is_empty() && self.pair_moved()? {
                    continue;
                }
                return Ok(());
            }
            let outside = self.held_outside(&guesses)?;
            for (place, new) in guesses {
                if !self.paired_old(place) && !self.paired_new(new.addr()) && !outside.contains(&place) {
                    self.try_pair(place, &new, false)?;
                }
            }
        }
    }

    /// Compares a mutable pair and keeps its changes; the old object's handle is let go (while
    /// it is still in the cache). `false` when [`Known::Unpaired`] objects turn out not to be a
    /// pair.
    fn compare_paired(
        &mut self,
        old: &SharedObject,
        new: &SharedObject,
        place: u32,
        known: Known,
    ) -> Result<bool, DiffError> {
        let Some(body) = self.compare(old, new, place, known)? else { return Ok(false) };
        if place & FRAME == 0 {
            self.places[place as usize].old = None;
        }
        if !body.is_empty() {
            let entry = self.entry(place)?;
            self.entries[entry as usize].body = body;
        }
        Ok(true)
    }

    /// `true` when a new pair of `old` and `new` can be compared at once, inside the comparison
    /// under way: both mutable (an immutable pair pairs only if equal, see `try_pair`) and fewer
    /// than [`NESTED_COMPARES`] under way.
    fn can_nest(&self, old: &SharedObject, new: &SharedObject) -> bool {
        old.family().is_mutable() && new.family().is_mutable() && self.nested < NESTED_COMPARES
    }

    /// [`compare_paired`](Self::compare_paired) inside the comparison under way (the caller
    /// checks [`can_nest`](Self::can_nest) or [`NESTED_COMPARES`]).
    fn compare_nested(
        &mut self,
        old: &SharedObject,
        new: &SharedObject,
        place: u32,
        known: Known,
    ) -> Result<bool, DiffError> {
        self.nested += 1;
        let compared = self.compare_paired(old, new, place, known);
        self.nested -= 1;
        compared
    }

    /// [`body`](Self::body) of the old object at `place`.
    fn body_at(
        &mut self,
        place: u32,
        a: Option<&dyn Reflectable>,
        b: &dyn Reflectable,
        own: &'static RttiType,
    ) -> Result<ObjectBody, DiffError> {
        // The steps inside this object start after those of any object it is compared within.
        let saved = (std::mem::replace(&mut self.place, place), std::mem::replace(&mut self.base, self.path.len()));
        let body = self.body_of(own, a, b);
        self.path.truncate(self.base);
        (self.place, self.base) = saved;
        body
    }

    /// The changes from `a` to `b` (of one type), or `b` in full when there is no `a`.
    fn body(&mut self, a: Option<&dyn Reflectable>, b: &dyn Reflectable) -> Result<ObjectBody, DiffError> {
        // Asked for once: a generic type's descriptor costs a lookup. `a` is of the same type.
        self.body_of(b.rtti(), a, b)
    }

    /// [`body`](Self::body), `own` being the type of both objects.
    fn body_of(
        &mut self,
        own: &'static RttiType,
        a: Option<&dyn Reflectable>,
        b: &dyn Reflectable,
    ) -> Result<ObjectBody, DiffError> {
        let mut body = ObjectBody::edit(own.id());
        body.fresh = a.is_none();
        // For this object only, not the objects it holds by value.
        let told = std::mem::take(&mut self.told);
        let told = if a.is_some() { told } else { Told::Nothing };
        let skip_plain = told != Told::Nothing;
        let mut old_sections = a.map(|a| visit::sections_from(own, a));
        for section in visit::sections_from(own, b) {
            let (depth, rtti, sb) = (section.depth, section.rtti, section.object);
            let old_section = old_sections.as_mut().and_then(Iterator::next);
            let mut sa = old_section.map(|section| section.object);
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
            // Plain values and values held by value all equal, told by generated code: only the
            // pointer fields are left to walk.
            let values_same = sa.is_some_and(|sa| {
                told == Told::Values || generated_same(rtti, sa, sb, SameScope::Values) == Some(true)
            });
            // With the values equal, generated code compares the pointer fields, as far as they
            // are unchanged; the walk does the rest.
            let resume = match sa {
                Some(sa) if values_same => self.generated_pointers(rtti, sa, sb)?,
                _ => pairs::Resume::default(),
            };
            for (index, field) in section.fields().iter().enumerate().skip(resume.from) {
                if values_same && !matches!(field.access(), FieldAccess::Pointer(_)) {
                    continue;
                }
                self.path.push((rtti.id(), field.id(), 0));
                match (field.access(), sa) {
                    (FieldAccess::Plain(_), Some(_)) if skip_plain => {}
                    (FieldAccess::Plain(_), _) => {
                        self.plain(&mut body, rtti, field, sa, sb, false)?;
                    }
                    (FieldAccess::Embedded(_), _) => self.embedded(&mut body, rtti, field, sa, sb, None)?,
                    (FieldAccess::Pointer(_), Some(sa)) if resume.changed && index == resume.from => {
                        self.realign_field(&mut body, rtti, field, sa, sb)?;
                    }
                    (FieldAccess::Pointer(_), _) => self.pointers(&mut body, rtti, field, sa, sb, None)?,
                }
                self.path.pop();
            }
            self.kept(&mut body, old_section, section)?;
        }
        Ok(body)
    }

    /// The kept unknown fields of section `new` against those of the old section: compared
    /// field by field when both keep one set, as any fields are; otherwise the body names the
    /// set the section keeps from now on and gives its fields in full.
    fn kept(&mut self, body: &mut ObjectBody, old: Option<Section<'_>>, new: Section<'_>) -> Result<(), DiffError> {
        let rtti = new.rtti;
        if !rtti.keeps_unknown_fields() {
            return Ok(());
        }
        let old = match old {
            Some(old) if old.same_kept(new).is_ok() => old.kept(),
            // A fresh object keeps nothing until told.
            None if new.kept().is_none() => None,
            _ => {
                let set = rtti.unknown_fields(new.object).and_then(UnknownFields::kept);
                let fields = set.map_or_else(Vec::new, |(set, _)| set.stored.to_vec());
                body.kept.push(KeptEdit { section: rtti.id(), fields });
                None
            }
        };
        let Some(kept) = new.kept() else { return Ok(()) };
        for slot in new.kept_slots() {
            let field = slot.field;
            self.path.push((rtti.id(), field.id(), 0));
            match field.access() {
                FieldAccess::Plain(_) => {
                    self.plain(body, rtti, field, old, kept, false)?;
                }
                FieldAccess::Embedded(_) => self.embedded(body, rtti, field, old, kept, None)?,
                FieldAccess::Pointer(_) => self.pointers(body, rtti, field, old, kept, None)?,
            }
            self.path.pop();
        }
        Ok(())
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

    /// Resolves every named target; objects the patch creates get their bodies (which may name
    /// more targets) as they are reached. A `Weak`'s target the diff does not know yet is named
    /// last: it may be an old object the new graph holds only behind an allocation both graphs
    /// share, met in the body of an object created later (named first, it would look new, and
    /// the `Weak` would lead to a copy that nothing holds).
    /// Also whether an allocation both graphs hold was met.
    fn finish(mut self) -> Result<(Patch, bool), DiffError> {
        let mut next = 0;
        self.fill(&mut next, true)?;
        for entry in 0..self.entries.len() {
            let mut body = std::mem::take(&mut self.entries[entry].body);
            self.resolve_deferred(&mut body)?;
            self.entries[entry].body = body;
        }
        // The bodies of objects created for those `Weak`s.
        self.fill(&mut next, false)?;
        // An address both an old object's and a new object's: the graphs share allocations,
        // though no pair said so (a shared object paired with another).
        let met_shared = self.met_shared || self.crossed();
        Ok((Patch { objects: self.entries }, met_shared))
    }

    /// Gives the entries from `next` on their bodies and resolves their targets (`defer`: a
    /// `Weak`'s unknown target is left marked [`DEFERRED`]).
    fn fill(&mut self, next: &mut usize, defer: bool) -> Result<(), DiffError> {
        while *next < self.entries.len() {
            if let Some(new) = self.created.remove(&(*next as u32)) {
                let body = new.read(|b| self.body_at(NONE, None, b, b.rtti())).map_err(unreadable_object)??;
                self.entries[*next].body = body;
            }
            let mut body = std::mem::take(&mut self.entries[*next].body);
            self.resolve(&mut body, defer)?;
            self.entries[*next].body = body;
            *next += 1;
        }
        Ok(())
    }

    /// Names the targets [`resolve`](Self::resolve) left [`DEFERRED`] in `body`.
    fn resolve_deferred(&mut self, body: &mut ObjectBody) -> Result<(), DiffError> {
        for edit in &mut body.embedded {
            for element in edit.elements.iter_mut().filter_map(|element| element.body.as_mut()) {
                self.resolve_deferred(element)?;
            }
        }
        for edit in &mut body.pointers {
            for element in edit.elements.iter_mut().filter(|(_, target)| target & DEFERRED != 0) {
                let new = self.targets[(element.1 & !DEFERRED) as usize - 1].0.clone();
                element.1 = self.resolve_target(&new)?;
            }
        }
        Ok(())
    }

    fn resolve(&mut self, body: &mut ObjectBody, defer: bool) -> Result<(), DiffError> {
        for edit in &mut body.embedded {
            for element in &mut edit.elements {
                if let Some(body) = &mut element.body {
                    self.resolve(body, defer)?;
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
                let (new, guess, weak) = self.targets[target as usize - 1].clone();
                let tentative = old != NONE && old & TENTATIVE != 0;
                let held = tentative
                    && guess
                        .and_then(|guess| self.old_places.get(&guess))
                        .is_some_and(|&place| self.paired[place as usize] == new.addr());
                let old = if old == NONE { NONE } else { old & !TENTATIVE };
                let unknown = !self.new_side.contains_key(&new.addr()) && !self.old_places.contains_key(&new.addr());
                let named = |this: &mut Self| match defer && weak && unknown {
                    true => Ok(target | DEFERRED),
                    false => this.resolve_target(&new),
                };
                match (held, edit.rebuild) {
                    // The guess held: the element keeps its old target.
                    (true, true) => elements.push((old, 0)),
                    (true, false) => {}
                    (false, true) => elements.push((NONE, named(self)?)),
                    (false, false) => elements.push((old, named(self)?)),
                }
            }
            edit.elements = elements;
        }
        body.pointers.retain(|edit| edit.rebuild || !edit.elements.is_empty());
        Ok(())
    }

    /// The patch's name for a new object: the old object it is paired with, or one it creates.
    fn resolve_target(&mut self, new: &SharedObject) -> Result<u32, DiffError> {
        if !self.unexplored.is_empty() && !self.new_side.contains_key(&new.addr()) {
            self.explore_shared()?;
        }
        // An allocation both graphs hold that the old graph reaches only behind others not yet
        // known to be themselves: every old object both graphs hold is itself, and what it
        // points at is explored, before the target is taken for a new object.
        if self.in_both(new.addr()) && !self.old_places.contains_key(&new.addr()) && !self.settled {
            self.settled = true;
            let shared: Vec<u32> = (0..self.places.len() as u32)
                .filter(|&place| {
                    let place_ = &self.places[place as usize];
                    place_.old.is_some() && self.paired[place as usize] == 0 && self.in_both(place_.addr)
                })
                .collect();
            for place in shared {
                if !self.paired_new(self.places[place as usize].addr) {
                    self.pair_itself(place);
                }
            }
            self.explore_shared()?;
        }
        // A new object that is an old one: the graphs share allocations.
        self.met_shared |= self.old_places.contains_key(&new.addr());
        // An old object left unpaired that the new graph holds as itself: point at it, not at a
        // copy of it.
        if let Some(&place) = self.old_places.get(&new.addr()).filter(|_| !self.new_side.contains_key(&new.addr())) {
            if !self.paired_old(place) && self.places[place as usize].old.is_some() {
                self.pair_itself(place);
            }
        }
        Ok(match self.new_side.get(&new.addr()).copied() {
            Some(Side::Old(place)) => self.entry(place)? + 1,
            Some(Side::Created(entry)) => entry + 1,
            None => {
                let entry = self.entries.len() as u32;
                let type_id = new.read(|o| o.rtti().id()).map_err(unreadable_object)?;
                if let Some(&key) = self.external.get(&new.addr()) {
                    self.entries.push(ObjectEdit {
                        origin: Origin::External,
                        key,
                        body: ObjectBody::edit(type_id),
                        ..ObjectEdit::default()
                    });
                    self.new_side.insert(new.addr(), Side::Created(entry));
                    return Ok(entry + 1);
                }
                self.entries.push(ObjectEdit {
                    origin: Origin::Created { family: new.family() },
                    path: Vec::new(),
                    body: ObjectBody { fresh: true, ..ObjectBody::edit(type_id) },
                    identity: Vec::new(),
                    key: 0,
                });
                self.new_side.insert(new.addr(), Side::Created(entry));
                self.created.insert(entry, new.clone());
                entry + 1
            }
        })
    }
}
