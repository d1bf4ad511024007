//! Arbitrary bytes against the dynamic decoder, which needs no types: whatever it reads must
//! write back byte for byte, and nothing may panic, hang or overrun the limits.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    reflectable_fuzz::fuzz_model::dynamic_writes_back(data);
});
