//! Damaged copies of a valid stream, for the hostile-input checks of the tests that include this.
#![allow(dead_code)]

/// Every prefix of `bytes`, then every byte flipped three ways (low bit, high bit, all bits).
pub fn cuts_and_flips(bytes: &[u8]) -> impl Iterator<Item = Vec<u8>> + '_ {
    let cuts = (0..bytes.len()).map(|cut| bytes[..cut].to_vec());
    let flips = (0..bytes.len()).flat_map(move |at| {
        [0x01u8, 0x80, 0xFF].into_iter().map(move |flip| {
            let mut input = bytes.to_vec();
            input[at] ^= flip;
            input
        })
    });
    cuts.chain(flips)
}
