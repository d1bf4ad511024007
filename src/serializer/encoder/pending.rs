//! The objects met and not yet written, as a stack in chunks of 24-byte entries: it can hold a
//! million of them on a large level with cross links. A `Vec` doubling its capacity would hold up
//! to twice that, and a [`SharedObject`] with its instance ID takes 32 bytes; here the handle's
//! kind is an index into a small table the queue keeps, and the entry is the handle's two words
//! and two `u32`s.

use crate::field::{HandleKind, HandleSlot, SharedObject};
use crate::serializer::external::StubKey;
use ahash::AHashMap;
use std::marker::PhantomData;
use std::rc::Rc;

/// Entries per chunk: big enough that chunk changes cost nothing, small enough to waste little.
const CHUNK: usize = 4096;

/// What waits to be written.
pub(super) enum Waiting {
    /// A shared object; `tagged` is its instance ID, with [`TRACKED`] set when it is in the
    /// identity map (an object behind its only pointer is not).
    Object { shared: SharedObject, tagged: u32 },
    /// An external reference stub (`subtree.rs`).
    External { id: u32, key: StubKey, type_id: u32 },
}

/// In a tagged instance ID: the object is in the identity map. Instance IDs never reach this bit.
pub(super) const TRACKED: u32 = 1 << 31;

/// A waiting entry as stored. `kind`: 1 + the index of the handle's kind in [`Pending::kinds`],
/// or [`EXTERNAL`], whose slot's first word is the index of its key and type in
/// [`Pending::externals`].
struct Packed {
    slot: HandleSlot,
    kind: u32,
    tagged: u32,
}

const EXTERNAL: u32 = 0;

#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Packed>() == 24, "a waiting object takes 24 bytes");

/// A last-in-first-out stack of chunks of at most [`CHUNK`] entries; chunks emptied stay for
/// reuse. The objects one object led to are gathered first (`add_*`), then pushed together
/// ([`end_group`](Pending::end_group)) so the lowest ID comes out first. Owns the handles it
/// holds: dropping it lets go of them.
pub(super) struct Pending {
    chunks: Vec<Vec<Packed>>,
    /// The chunk holding the top entry (or the first chunk, when empty).
    top: usize,
    /// The group being gathered, in ID order.
    group: Vec<Packed>,
    kinds: Vec<HandleKind>,
    kind_index: AHashMap<HandleKind, u32>,
    /// The kind last looked up, and its `kind` value: runs of one kind are the rule.
    last_kind: Option<(HandleKind, u32)>,
    externals: Vec<(StubKey, u32)>,
    /// The handles may be `Rc`s: the queue stays on the thread that made it.
    _handles: PhantomData<Rc<()>>,
}

impl Pending {
    pub(super) fn new() -> Self {
        Pending {
            chunks: vec![Vec::new()],
            top: 0,
            group: Vec::new(),
            kinds: Vec::new(),
            kind_index: AHashMap::new(),
            last_kind: None,
            externals: Vec::new(),
            _handles: PhantomData,
        }
    }

    /// Adds a shared object to the group being gathered.
    pub(super) fn add_object(&mut self, shared: SharedObject, tagged: u32) {
        let (slot, kind) = shared.into_parts();
        let kind = self.kind(kind);
        self.group.push(Packed { slot, kind, tagged });
    }

    /// Adds an external reference stub to the group being gathered.
    pub(super) fn add_external(&mut self, id: u32, key: StubKey, type_id: u32) {
        let slot = HandleSlot::new([self.externals.len(), 0]);
        self.externals.push((key, type_id));
        self.group.push(Packed { slot, kind: EXTERNAL, tagged: id });
    }

    /// Pushes the group gathered, so its lowest ID comes out first.
    pub(super) fn end_group(&mut self) {
        for packed in self.group.drain(..).rev() {
            if self.chunks[self.top].len() == CHUNK {
                self.top += 1;
                if self.top == self.chunks.len() {
                    self.chunks.push(Vec::with_capacity(CHUNK));
                }
            }
            self.chunks[self.top].push(packed);
        }
    }

    pub(super) fn pop(&mut self) -> Option<Waiting> {
        loop {
            if let Some(packed) = self.chunks[self.top].pop() {
                return Some(self.unpack(packed));
            }
            if self.top == 0 {
                return None;
            }
            self.top -= 1;
        }
    }

    /// The `kind` value of handle kind `kind`.
    #[inline]
    fn kind(&mut self, kind: HandleKind) -> u32 {
        match self.last_kind {
            Some((last, index)) if last == kind => index,
            _ => {
                let index = *self.kind_index.entry(kind).or_insert_with(|| {
                    self.kinds.push(kind);
                    self.kinds.len() as u32
                });
                self.last_kind = Some((kind, index));
                index
            }
        }
    }

    fn unpack(&mut self, packed: Packed) -> Waiting {
        match packed.kind {
            EXTERNAL => {
                // SAFETY: `add_external` initialized the slot's words.
                let entry = &mut self.externals[unsafe { packed.slot.assume_init() }[0]];
                // Each stub leaves the queue once: its key is taken, not copied.
                let (key, type_id) = (std::mem::replace(&mut entry.0, StubKey::Cut(0)), entry.1);
                Waiting::External { id: packed.tagged, key, type_id }
            }
            kind => {
                // SAFETY: a slot with a kind other than `EXTERNAL` came from `into_parts` with the
                // kind at that index (`add_object`), and leaves the queue once, here or in `drop`.
                let shared = unsafe { SharedObject::from_parts(packed.slot, self.kinds[kind as usize - 1]) };
                Waiting::Object { shared, tagged: packed.tagged }
            }
        }
    }
}

impl Drop for Pending {
    /// Lets go of the handles of objects never written (an encode that failed).
    fn drop(&mut self) {
        let chunks = std::mem::take(&mut self.chunks);
        let group = std::mem::take(&mut self.group);
        for packed in chunks.into_iter().flatten().chain(group) {
            drop(self.unpack(packed));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rtti::Reflectable;
    use std::cell::RefCell;

    fn id(waiting: Waiting) -> u32 {
        match waiting {
            Waiting::Object { tagged, .. } => tagged & !TRACKED,
            Waiting::External { id, .. } => id,
        }
    }

    fn group(pending: &mut Pending, ids: impl IntoIterator<Item = u32>) {
        for id in ids {
            pending.add_external(id, StubKey::Cut(u64::from(id) << 32), id + 1);
        }
        pending.end_group();
    }

    #[test]
    fn groups_come_out_lowest_first_across_chunks() {
        let mut pending = Pending::new();
        group(&mut pending, 0..CHUNK as u32 * 2 + 5);
        group(&mut pending, [100_000, 100_001]);
        assert!(matches!(
            pending.pop(),
            Some(Waiting::External { id: 100_000, key: StubKey::Cut(key), type_id: 100_001 }) if key == 100_000 << 32
        ));
        assert_eq!(pending.pop().map(id), Some(100_001));
        let rest: Vec<u32> = std::iter::from_fn(|| pending.pop().map(id)).collect();
        assert_eq!(rest, (0..CHUNK as u32 * 2 + 5).collect::<Vec<_>>());
        // Emptied chunks are reused, not reallocated.
        group(&mut pending, 0..CHUNK as u32 + 1);
        assert_eq!(pending.chunks.len(), 3);
        assert_eq!(pending.pop().map(id), Some(0));
    }

    #[test]
    fn handles_come_back_whole_and_are_let_go_when_dropped() {
        // Lists of pointers: reflectable types the crate itself defines.
        type List = Vec<Rc<RefCell<dyn Reflectable>>>;
        let thin = Rc::new(RefCell::new(List::new()));
        let fat: Rc<RefCell<dyn Reflectable>> = Rc::new(RefCell::new(List::new()));
        let mut pending = Pending::new();
        for round in 0..3 {
            pending.add_object(SharedObject::new(thin.clone()), round);
            pending.add_object(SharedObject::new(fat.clone()), (10 + round) | TRACKED);
        }
        pending.end_group();
        assert_eq!(pending.kinds.len(), 2, "one table entry per handle kind");
        assert_eq!((Rc::strong_count(&thin), Rc::strong_count(&fat)), (4, 4));
        match pending.pop() {
            Some(Waiting::Object { shared, tagged: 0 }) => {
                assert_eq!(shared.addr(), SharedObject::new(thin.clone()).addr())
            }
            _ => panic!("the first object added comes out first"),
        }
        match pending.pop() {
            Some(Waiting::Object { shared, tagged }) => {
                assert_eq!(tagged, 10 | TRACKED);
                assert!(shared.cast::<Rc<RefCell<dyn Reflectable>>>().is_some_and(|again| Rc::ptr_eq(&again, &fat)));
            }
            _ => panic!("then the second"),
        }
        assert_eq!((Rc::strong_count(&thin), Rc::strong_count(&fat)), (3, 3));
        drop(pending);
        assert_eq!((Rc::strong_count(&thin), Rc::strong_count(&fat)), (1, 1));
    }
}
