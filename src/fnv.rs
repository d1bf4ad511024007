//! FNV-1a 64 over little-endian `u32` words: the hash behind derived generic type IDs and schema
//! fingerprints. Both must give the same value in every build on every platform, so they hash
//! declared numbers in a fixed byte order, never memory or `Hash` impls.

/// An FNV-1a 64 state.
#[derive(Clone, Copy)]
pub(crate) struct Fnv64(u64);

impl Fnv64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    pub(crate) fn new() -> Self {
        Fnv64(Self::OFFSET)
    }

    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    pub(crate) fn word(&mut self, word: u32) {
        self.bytes(&word.to_le_bytes());
    }

    pub(crate) fn finish(self) -> u64 {
        self.0
    }
}
