//! Patches from anywhere, as JSON: text read as a patch applies to the sample level and the
//! sample sheet with a report, never a panic, and both still save. The mutator edits the
//! document (numbers, names, members duplicated or unknown, nesting) or the patch under it.
#![no_main]

use reflectable_fuzz::fuzz_patch;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fuzz_patch::patch_json_applies(data);
});

libfuzzer_sys::fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    reflectable_fuzz::mutate_with(data, size, max_size, seed, fuzz_patch::mutate_patch_json)
});
