//! The JSON form: streams converted to JSON and back give their bytes; arbitrary text read as a
//! document gives a graph or an error. No panic, no hang.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    reflectable_fuzz::fuzz_model::json_reads_back(data);
});
