//! Typical mistakes with the derives, each with the compiler's full message checked into
//! `tests/compile_fail/*.stderr`: every message should name the field and say what to add.
//!
//! After changing a message on purpose, regenerate with
//! `TRYBUILD=overwrite cargo test --test compile_fail` and read every changed `.stderr`. The files
//! are the output of the toolchain the project's machines have (rustc 1.95); another compiler
//! version may word its own parts differently, and then needs the same regenerate-and-read. They
//! are the messages of a build without the optional features (`cargo test --workspace`), whose
//! impls would change the compiler's lists of implementors; with them the suite is ignored.

#[test]
#[cfg_attr(
    any(feature = "serde", feature = "glam"),
    ignore = "the messages are pinned for the default features: optional impls change the compiler's lists of implementors"
)]
fn typical_mistakes_are_reported_at_the_field_with_what_to_add() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/compile_fail/*.rs");
}
