//! Arbitrary bytes against a rich set of registered types (every field kind, base chains,
//! polymorphic pointers, cycles), decoded every way the API offers.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    reflectable_fuzz::fuzz_model::exercise(data);
});
