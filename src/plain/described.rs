//! What the program knows of the layout of plain types whose signature is their ID alone: the
//! `#[derive(PlainType)]` types (submitted by the derive through `inventory`), and the built-in
//! composites glam and the standard library contribute.

use crate::plain::type_ids as id;
use ahash::AHashMap;
use once_cell::sync::Lazy;

/// The layout of a derived plain type, as the derive submits it.
#[derive(Debug, Clone)]
pub enum PlainLayout {
    /// A struct with named fields, each an element of the given signature, in order.
    Struct(Vec<(&'static str, Vec<u32>)>),
    /// A tuple struct: unnamed fields, in order.
    Tuple(Vec<Vec<u32>>),
    /// A fieldless enum: its variants' names and discriminants (stored as a `u32`).
    Enum(Vec<(&'static str, u32)>),
}

/// One derived plain type's layout, submitted by `#[derive(PlainType)]`.
pub struct PlainDescription {
    /// The plain type ID.
    pub type_id: u32,
    /// The type's name.
    pub name: &'static str,
    /// Its layout (a function: signatures are computed, not constant).
    pub layout: fn() -> PlainLayout,
}

inventory::collect!(PlainDescription);

/// Derived plain types by ID, with their layouts, gathered once. Two types of one ID (an old
/// version kept for tests beside the new one) describe nothing: their values show as bytes
/// rather than by the wrong names.
static DESCRIBED: Lazy<AHashMap<u32, Option<PlainLayout>>> = Lazy::new(|| {
    let mut described = AHashMap::new();
    for description in inventory::iter::<PlainDescription> {
        described
            .entry(description.type_id)
            .and_modify(|layout| *layout = None)
            .or_insert_with(|| Some((description.layout)()));
    }
    described
});

/// The layout of a derived plain type this program has.
pub(crate) fn derived(type_id: u32) -> Option<&'static PlainLayout> {
    DESCRIBED.get(&type_id)?.as_ref()
}

/// The size of a leaf type the format defines (`FORMAT.md`, "Plain content"): `Some(Some(n))`
/// static, `Some(None)` dynamic (strings, paths, serde values); `None` for a program's own type.
pub(crate) fn builtin_leaf_size(type_id: u32) -> Option<Option<u32>> {
    Some(match type_id {
        id::U8 | id::I8 | id::BOOL => Some(1),
        id::U16 | id::I16 => Some(2),
        id::U32 | id::I32 | id::F32 | id::CHAR | id::IPV4_ADDR => Some(4),
        id::U64 | id::I64 | id::F64 | id::USIZE | id::ISIZE => Some(8),
        id::U128 | id::I128 | id::IPV6_ADDR => Some(16),
        id::DURATION | id::SYSTEM_TIME => Some(12),
        id::IP_ADDR => Some(17),
        id::SOCKET_ADDR => Some(27),
        id::STRING | id::PATH_BUF | id::SERDE => None,
        _ => {
            let lanes = lanes(type_id)?;
            Some(lanes.count as u32 * builtin_leaf_size(lanes.lane)??)
        }
    })
}

/// A built-in leaf that is a fixed row of numbers: glam's vectors and quaternions (named lanes)
/// and matrices and affines (their columns, flattened).
pub(crate) struct Lanes {
    pub(crate) lane: u32,
    pub(crate) names: Option<&'static [&'static str]>,
    pub(crate) count: usize,
}

const XY: &[&str] = &["x", "y"];
const XYZ: &[&str] = &["x", "y", "z"];
const XYZW: &[&str] = &["x", "y", "z", "w"];

/// The lanes of a glam type (whether or not the `glam` feature is on: a file may hold them).
pub(crate) fn lanes(type_id: u32) -> Option<Lanes> {
    let named = |lane, names: &'static [&'static str]| Lanes { lane, names: Some(names), count: names.len() };
    let flat = |lane, count| Lanes { lane, names: None, count };
    Some(match type_id {
        id::GLAM_VEC2 => named(id::F32, XY),
        id::GLAM_VEC3 | id::GLAM_VEC3A => named(id::F32, XYZ),
        id::GLAM_VEC4 | id::GLAM_QUAT => named(id::F32, XYZW),
        id::GLAM_IVEC2 => named(id::I32, XY),
        id::GLAM_IVEC3 => named(id::I32, XYZ),
        id::GLAM_IVEC4 => named(id::I32, XYZW),
        id::GLAM_UVEC2 => named(id::U32, XY),
        id::GLAM_UVEC3 => named(id::U32, XYZ),
        id::GLAM_UVEC4 => named(id::U32, XYZW),
        id::GLAM_DVEC2 => named(id::F64, XY),
        id::GLAM_DVEC3 => named(id::F64, XYZ),
        id::GLAM_DVEC4 | id::GLAM_DQUAT => named(id::F64, XYZW),
        id::GLAM_MAT2 => flat(id::F32, 4),
        id::GLAM_MAT3 | id::GLAM_MAT3A => flat(id::F32, 9),
        id::GLAM_MAT4 => flat(id::F32, 16),
        id::GLAM_DMAT4 => flat(id::F64, 16),
        id::GLAM_AFFINE2 => flat(id::F32, 6),
        id::GLAM_AFFINE3A => flat(id::F32, 12),
        _ => return None,
    })
}
