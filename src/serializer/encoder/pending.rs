//! The objects met and not yet written, as a stack in chunks: it can hold a million entries on a
//! large level with cross links, and a `Vec` doubling its capacity would hold up to twice that.

use super::Queued;

/// Entries per chunk: big enough that chunk changes cost nothing, small enough to waste little.
const CHUNK: usize = 4096;

/// A last-in-first-out stack of chunks of at most [`CHUNK`] entries; chunks emptied stay for reuse.
pub(super) struct Pending {
    chunks: Vec<Vec<Queued>>,
    /// The chunk holding the top entry (or the first chunk, when empty).
    top: usize,
}

impl Pending {
    pub(super) fn new() -> Self {
        Pending { chunks: vec![Vec::new()], top: 0 }
    }

    /// Pushes the objects one object led to, `fresh` in ID order, so the lowest ID comes out first.
    pub(super) fn push_group(&mut self, fresh: &mut Vec<Queued>) {
        for queued in fresh.drain(..).rev() {
            if self.chunks[self.top].len() == CHUNK {
                self.top += 1;
                if self.top == self.chunks.len() {
                    self.chunks.push(Vec::with_capacity(CHUNK));
                }
            }
            self.chunks[self.top].push(queued);
        }
    }

    pub(super) fn pop(&mut self) -> Option<Queued> {
        loop {
            if let Some(queued) = self.chunks[self.top].pop() {
                return Some(queued);
            }
            if self.top == 0 {
                return None;
            }
            self.top -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stub(id: u32) -> Queued {
        Queued::External { id, key: 0, type_id: 0 }
    }

    fn id(queued: Queued) -> u32 {
        queued.id()
    }

    #[test]
    fn groups_come_out_lowest_first_across_chunks() {
        let mut pending = Pending::new();
        pending.push_group(&mut (0..CHUNK as u32 * 2 + 5).map(stub).collect());
        pending.push_group(&mut vec![stub(100_000), stub(100_001)]);
        assert_eq!(pending.pop().map(id), Some(100_000));
        assert_eq!(pending.pop().map(id), Some(100_001));
        let rest: Vec<u32> = std::iter::from_fn(|| pending.pop().map(id)).collect();
        assert_eq!(rest, (0..CHUNK as u32 * 2 + 5).collect::<Vec<_>>());
        // Emptied chunks are reused, not reallocated.
        pending.push_group(&mut (0..CHUNK as u32 + 1).map(stub).collect());
        assert_eq!(pending.chunks.len(), 3);
        assert_eq!(pending.pop().map(id), Some(0));
    }
}
