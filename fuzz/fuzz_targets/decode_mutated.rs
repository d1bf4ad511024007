//! Valid encodings of the sample values, mutated by the input (byte sets, bit flips, insertions,
//! deletions, whole-word overwrites), then decoded every way the API offers.
#![no_main]

use reflectable_fuzz::fuzz_model::{exercise, mutate, sample_encodings};
use std::sync::OnceLock;

static SEEDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&which, ops)) = data.split_first() else { return };
    let seeds = SEEDS.get_or_init(sample_encodings);
    exercise(&mutate(&seeds[which as usize % seeds.len()], ops));
});
