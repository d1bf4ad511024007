//! glam's vectors, quaternions and matrices (feature `glam`): their lanes as little-endian
//! numbers, vectors in `x, y, z, w` order, quaternions `x, y, z, w`, matrices and affine
//! transforms column by column (`to_cols_array`), translation last.
//!
//! Types whose memory is exactly their lanes (`bytemuck::Pod` in glam) copy whole slices at once
//! through [`super::pod`]; the SIMD-padded ones (`Vec3A`, `Mat3A`, `Affine3A`, and `Affine2`,
//! whose translation sits after 8 bytes of alignment padding) write only their lanes, one value at
//! a time, and the padding never reaches the wire. Every bit pattern is a valid lane, so reading
//! fails only on a short input.

use super::{pod, type_ids, PlainError, PlainType, Reader};
use glam::{
    Affine2, Affine3A, DMat4, DQuat, DVec2, DVec3, DVec4, IVec2, IVec3, IVec4, Mat2, Mat3, Mat3A, Mat4, Quat, UVec2,
    UVec3, UVec4, Vec2, Vec3, Vec3A, Vec4,
};

/// `PlainType` for a glam type through its lane array (`[$lane; $n]`, itself plain).
/// `vector` types convert with `to_array`/`from_array`, `matrix` types with the column forms;
/// `pod` adds the bulk slice copies, after checking at compile time that the type's memory is
/// exactly its lanes.
macro_rules! glam_plain {
    (@impl $ty:ty, $id:expr, $lane:ty, $n:expr, |$v:ident| $to:expr, |$a:ident| $from:expr, $($slices:tt)*) => {
        impl PlainType for $ty {
            const TYPE_ID: u32 = $id;
            const STATIC_SIZE: Option<u32> = Some(($n * std::mem::size_of::<$lane>()) as u32);

            #[inline]
            fn size(&self) -> usize {
                $n * std::mem::size_of::<$lane>()
            }
            #[inline]
            fn write(&self, out: &mut Vec<u8>) {
                let $v = self;
                let lanes: [$lane; $n] = $to;
                lanes.write(out);
            }
            #[inline]
            fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
                // One bounds check for the whole value, so a short input is one error at its start.
                const LANE: usize = std::mem::size_of::<$lane>();
                let bytes = reader.take_array::<{ $n * LANE }>()?;
                let $a: [$lane; $n] = std::array::from_fn(|i| {
                    let mut lane = [0u8; LANE];
                    lane.copy_from_slice(&bytes[i * LANE..(i + 1) * LANE]);
                    <$lane>::from_le_bytes(lane)
                });
                Ok($from)
            }
            #[inline]
            fn same(&self, other: &Self) -> Option<bool> {
                let $v = self;
                let lanes: [$lane; $n] = $to;
                let $v = other;
                let other_lanes: [$lane; $n] = $to;
                lanes.same(&other_lanes)
            }
            $($slices)*
        }
    };
    (@pod $ty:ty, $lane:ty, $n:expr) => {
        const _: () = assert!(std::mem::size_of::<$ty>() == $n * std::mem::size_of::<$lane>());
    };
    (vector pod $($ty:ident => $id:expr, [$lane:ty; $n:expr];)*) => {$(
        glam_plain!(@pod $ty, $lane, $n);
        glam_plain!(@impl $ty, $id, $lane, $n, |v| v.to_array(), |a| <$ty>::from_array(a), pod_slices!(););
    )*};
    (matrix pod $($ty:ident => $id:expr, [$lane:ty; $n:expr];)*) => {$(
        glam_plain!(@pod $ty, $lane, $n);
        glam_plain!(@impl $ty, $id, $lane, $n, |v| v.to_cols_array(), |a| <$ty>::from_cols_array(&a), pod_slices!(););
    )*};
    (vector $($ty:ident => $id:expr, [$lane:ty; $n:expr];)*) => {$(
        glam_plain!(@impl $ty, $id, $lane, $n, |v| v.to_array(), |a| <$ty>::from_array(a),);
    )*};
    (matrix $($ty:ident => $id:expr, [$lane:ty; $n:expr];)*) => {$(
        glam_plain!(@impl $ty, $id, $lane, $n, |v| v.to_cols_array(), |a| <$ty>::from_cols_array(&a),);
    )*};
}

/// The bulk slice methods of a pod type, spliced into its impl by `glam_plain!`.
macro_rules! pod_slices {
    () => {
        fn write_slice(values: &[Self], out: &mut Vec<u8>) {
            pod::write_slice(values, out)
        }
        fn read_slice(reader: &mut Reader<'_>, count: usize, out: &mut Vec<Self>) -> Result<(), PlainError> {
            pod::read_slice(reader, count, out)
        }
        fn same_slice(a: &[Self], b: &[Self]) -> Option<bool> {
            pod::same_slice(a, b)
        }
    };
}

glam_plain! { vector pod
    Vec2 => type_ids::GLAM_VEC2, [f32; 2];
    Vec3 => type_ids::GLAM_VEC3, [f32; 3];
    Vec4 => type_ids::GLAM_VEC4, [f32; 4];
    IVec2 => type_ids::GLAM_IVEC2, [i32; 2];
    IVec3 => type_ids::GLAM_IVEC3, [i32; 3];
    IVec4 => type_ids::GLAM_IVEC4, [i32; 4];
    UVec2 => type_ids::GLAM_UVEC2, [u32; 2];
    UVec3 => type_ids::GLAM_UVEC3, [u32; 3];
    UVec4 => type_ids::GLAM_UVEC4, [u32; 4];
    DVec2 => type_ids::GLAM_DVEC2, [f64; 2];
    DVec3 => type_ids::GLAM_DVEC3, [f64; 3];
    DVec4 => type_ids::GLAM_DVEC4, [f64; 4];
    Quat => type_ids::GLAM_QUAT, [f32; 4];
    DQuat => type_ids::GLAM_DQUAT, [f64; 4];
}

glam_plain! { matrix pod
    Mat2 => type_ids::GLAM_MAT2, [f32; 4];
    Mat3 => type_ids::GLAM_MAT3, [f32; 9];
    Mat4 => type_ids::GLAM_MAT4, [f32; 16];
    DMat4 => type_ids::GLAM_DMAT4, [f64; 16];
}

glam_plain! { vector
    Vec3A => type_ids::GLAM_VEC3A, [f32; 3];
}

glam_plain! { matrix
    Mat3A => type_ids::GLAM_MAT3A, [f32; 9];
    Affine2 => type_ids::GLAM_AFFINE2, [f32; 6];
    Affine3A => type_ids::GLAM_AFFINE3A, [f32; 12];
}
