//! The JSON form: streams converted to JSON and back give their bytes; arbitrary text read as a
//! document (dynamic, as the example level, as the sample machine) gives a graph or an error. No
//! panic, no hang. The mutator edits JSON text as a document (numbers, `$ref`s, `$type`s,
//! members duplicated or unknown, nesting) and now and then turns a stream into its text.
#![no_main]

use reflectable_fuzz::fuzz_model;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fuzz_model::json_reads_back(data);
});

libfuzzer_sys::fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    reflectable_fuzz::mutate_with(data, size, max_size, seed, fuzz_model::mutate_json_input)
});
