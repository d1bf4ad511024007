//! Plain values as text: arbitrary text read as values of several types and set into every plain
//! field of a sample object. No panic; shown values read back; refused text changes nothing.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    reflectable_fuzz::fuzz_model::text_reads_back(data);
});
