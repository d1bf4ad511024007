//! The plain-type helpers (`read_elem`/`write_elem`) on arbitrary bytes: no panic, and whatever
//! decodes re-encodes canonically.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    reflectable_fuzz::fuzz_model::plain_round_trips(data);
});
