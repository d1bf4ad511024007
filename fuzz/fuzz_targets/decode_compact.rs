//! Arbitrary bytes as the objects of a compact stream (version 4) of the sample types: the
//! compact transcoder, then every decoder behind it, and the dynamic graph writing the stream back
//! byte for byte.
#![no_main]

use reflectable_fuzz::fuzz_model::{compact_samples, exercise_compact};
use std::sync::OnceLock;

static SAMPLES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    exercise_compact(data, SAMPLES.get_or_init(compact_samples));
});
