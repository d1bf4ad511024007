//! Patches from anywhere, in the binary form: bytes read as a patch apply to the sample level
//! and the sample sheet with a report, never a panic, and both still save. The mutator edits the
//! patch's fields in place (counts, runs, indices, origins, paths, type IDs), so the inputs stay
//! patches that reach `apply`'s splices and references.
#![no_main]

use reflectable_fuzz::fuzz_patch;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fuzz_patch::patch_bytes_apply(data);
});

libfuzzer_sys::fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    reflectable_fuzz::mutate_with(data, size, max_size, seed, fuzz_patch::mutate_patch)
});
