//! Patches from anywhere: bytes or JSON read as a patch apply to a level with a report, never a
//! panic, and the level still saves.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    reflectable_fuzz::fuzz_patch::patch_applies(data);
});
