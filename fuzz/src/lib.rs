//! The fuzz targets' shared model: the same types and routines the normal test suite replays the
//! regression corpus with (`tests/fuzz_regressions.rs`), and the structure-aware mutators'
//! plumbing.

// Exported here, the examples' model meets lints it does not as a private module.
#[allow(clippy::should_implement_trait, clippy::len_without_is_empty)]
#[path = "../../examples/common/level.rs"]
pub mod level;

#[path = "../../tests/common/fuzz_model.rs"]
pub mod fuzz_model;

#[path = "../../tests/common/fuzz_patch.rs"]
pub mod fuzz_patch;

/// The body of a target's `fuzz_mutator!`: three calls in four, `structured` (a mutation that
/// keeps the input well-formed: `fuzz_patch::mutate_patch`, `fuzz_model::mutate_json`, ...),
/// when the input is one it understands and the result fits; otherwise libFuzzer's own byte
/// mutations (with its dictionary and the operands of the comparisons it traced), which also
/// reach what the structure cannot express.
pub fn mutate_with(
    data: &mut [u8],
    size: usize,
    max_size: usize,
    seed: u32,
    structured: impl FnOnce(&[u8], u64) -> Option<Vec<u8>>,
) -> usize {
    if !seed.is_multiple_of(4) {
        if let Some(out) = structured(&data[..size], u64::from(seed)) {
            if out.len() <= max_size {
                data[..out.len()].copy_from_slice(&out);
                return out.len();
            }
        }
    }
    libfuzzer_sys::fuzzer_mutate(data, size, max_size)
}
