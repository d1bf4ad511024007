//! The fuzz targets' shared model: the same types and routines the normal test suite replays the
//! regression corpus with (`tests/fuzz_regressions.rs`).

#[path = "../../examples/common/level.rs"]
pub mod level;

#[path = "../../tests/common/fuzz_model.rs"]
pub mod fuzz_model;

#[path = "../../tests/common/fuzz_patch.rs"]
pub mod fuzz_patch;
