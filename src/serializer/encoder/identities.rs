//! The identity map, in shards. A single hash table doubles in one step: while it moves from a
//! million buckets to two, both tables are alive, and on a level with a million objects waiting
//! for their other pointers that step was a third of a streaming save's added memory. Sixty-four
//! tables, each holding the addresses one hash of the address sends it, grow one at a time, so a
//! step costs a sixty-fourth of that (sixteen left 1.4 MiB more on `stream_rss`).

use super::Seen;
use ahash::AHashMap;
use std::collections::hash_map::Entry;

/// How many bits of the shard hash choose a shard.
const SHARD_BITS: u32 = 6;
const SHARDS: usize = 1 << SHARD_BITS;

/// Objects a pointer met later may lead to, by address.
pub(super) struct Identities {
    shards: [AHashMap<usize, Seen>; SHARDS],
}

impl Default for Identities {
    fn default() -> Self {
        // An empty map allocates nothing: a graph without shared objects costs no table.
        Identities { shards: [(); SHARDS].map(|()| AHashMap::new()) }
    }
}

impl Identities {
    /// The shard of `address`: the top bits of a multiplicative hash, so that addresses a fixed
    /// stride apart (objects of one size, allocated in a row) spread over every shard. The shards'
    /// own hashers are keyed at random, independent of this one.
    #[inline(always)]
    fn shard(&mut self, address: usize) -> &mut AHashMap<usize, Seen> {
        let spread = (address as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        &mut self.shards[(spread >> (64 - SHARD_BITS)) as usize]
    }

    #[inline]
    pub(super) fn entry(&mut self, address: usize) -> Entry<'_, usize, Seen> {
        self.shard(address).entry(address)
    }

    #[inline]
    pub(super) fn get(&mut self, address: usize) -> Option<&Seen> {
        self.shard(address).get(&address)
    }

    #[inline]
    pub(super) fn insert(&mut self, address: usize, seen: Seen) {
        self.shard(address).insert(address, seen);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_a_stride_apart_spread_over_every_shard() {
        let mut identities = Identities::default();
        for index in 0..4096usize {
            identities.insert(0x7f00_0000_0000 + index * 48, Seen::kept(index as u32 + 1));
        }
        for shard in &identities.shards {
            assert!((32..128).contains(&shard.len()), "a shard holds {} of 4096", shard.len());
        }
        assert_eq!(identities.get(0x7f00_0000_0000 + 30 * 48).map(|seen| seen.id()), Some(31));
        assert!(identities.get(0x7f00_0000_0000 + 1).is_none());
        match identities.entry(0x7f00_0000_0000) {
            Entry::Occupied(seen) => assert_eq!(seen.remove().id(), 1),
            Entry::Vacant(_) => panic!("inserted above"),
        }
        assert!(identities.get(0x7f00_0000_0000).is_none());
    }
}
