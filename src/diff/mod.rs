//! Comparing object graphs through RTTI: [`rtti_eq`], deep equality that compares sharing and
//! cycles as well as values, and says where two graphs first differ (Banshee's `BinaryCompare`).

mod equal;

pub use equal::{rtti_eq, Difference};
