//! glam's types as plain values (feature `glam`): a transform through a stream, exact layouts,
//! bulk copies equal to lane-by-lane writes, and short input.
#![cfg(feature = "glam")]

use glam::{Affine2, Affine3A, DVec3, IVec2, Mat2, Mat3, Mat3A, Mat4, Quat, UVec4, Vec2, Vec3, Vec3A, Vec4};
use reflectable::plain::{read_elem, write_elem, PlainError, PlainType, Reader};
use reflectable::Reflectable;
use std::fmt::Debug;

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 472_000)]
struct Transform {
    #[rtti(id = 1)]
    position: Vec3,
    #[rtti(id = 2)]
    rotation: Quat,
    #[rtti(id = 3)]
    scale: Vec3,
    #[rtti(id = 4)]
    world: Mat4,
    #[rtti(id = 5)]
    path: Vec<Vec3A>,
    #[rtti(id = 6)]
    bones: Vec<Mat4>,
    #[rtti(id = 7)]
    uv: Affine2,
    #[rtti(id = 8)]
    cell: IVec2,
}

fn transform() -> Transform {
    let rotation = Quat::from_rotation_y(0.5);
    let world = Mat4::from_scale_rotation_translation(Vec3::splat(2.0), rotation, Vec3::new(1.0, 2.0, 3.0));
    Transform {
        position: Vec3::new(1.0, 2.0, 3.0),
        rotation,
        scale: Vec3::splat(2.0),
        world,
        path: vec![Vec3A::X, Vec3A::new(-1.5, f32::MAX, f32::MIN_POSITIVE)],
        bones: (0..10).map(|i| world * Mat4::from_translation(Vec3::X * i as f32)).collect(),
        uv: Affine2::from_scale_angle_translation(Vec2::new(0.5, 0.25), 0.1, Vec2::new(3.0, 4.0)),
        cell: IVec2::new(-7, 8),
    }
}

fn encode<T: PlainType>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    write_elem(value, &mut out);
    out
}

fn decode<T: PlainType>(bytes: &[u8]) -> Result<T, PlainError> {
    let mut reader = Reader::new(bytes);
    let value = read_elem(&mut reader)?;
    reader.expect_end()?;
    Ok(value)
}

fn le_f32s(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|value| value.to_le_bytes()).collect()
}

#[test]
fn a_transform_round_trips_through_a_stream() {
    let bytes = reflectable::to_vec(&transform()).unwrap();
    let back: Transform = reflectable::from_slice(&bytes).unwrap();
    assert_eq!(back, transform());
}

#[test]
fn lanes_are_little_endian_in_xyzw_and_column_order_without_padding() {
    assert_eq!(encode(&Vec3::new(1.0, 2.0, 3.0)), le_f32s(&[1.0, 2.0, 3.0]));
    assert_eq!(encode(&Vec3A::new(1.0, 2.0, 3.0)), le_f32s(&[1.0, 2.0, 3.0]), "no SIMD padding lane");
    assert_eq!(encode(&Quat::from_xyzw(0.1, 0.2, 0.3, 0.4)), le_f32s(&[0.1, 0.2, 0.3, 0.4]));
    let columns: [f32; 16] = std::array::from_fn(|i| i as f32);
    assert_eq!(encode(&Mat4::from_cols_array(&columns)), le_f32s(&columns));
    assert_eq!(encode(&Mat2::from_cols_array(&[1.0, 2.0, 3.0, 4.0])), le_f32s(&[1.0, 2.0, 3.0, 4.0]));
    let affine: [f32; 12] = std::array::from_fn(|i| i as f32);
    assert_eq!(encode(&Affine3A::from_cols_array(&affine)), le_f32s(&affine), "12 lanes of 16");
    assert_eq!(encode(&IVec2::new(-1, 2)), [0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0]);
    assert_eq!(<Mat3A as PlainType>::STATIC_SIZE, Some(36));
    assert_eq!(<Affine2 as PlainType>::STATIC_SIZE, Some(24));
    assert_eq!(<DVec3 as PlainType>::STATIC_SIZE, Some(24));
}

/// The bulk slice copy gives the bytes of one-by-one writes, and reads back from any alignment.
fn bulk_matches_one_by_one<T: PlainType + Debug + PartialEq + Copy>(values: &[T]) {
    let mut bulk = Vec::new();
    T::write_slice(values, &mut bulk);
    let one_by_one: Vec<u8> = values.iter().flat_map(encode).collect();
    assert_eq!(bulk, one_by_one, "{}", std::any::type_name::<T>());
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&bulk);
    let mut reader = Reader::new(&shifted);
    reader.skip(1).unwrap();
    let mut back = Vec::new();
    T::read_slice(&mut reader, values.len(), &mut back).unwrap();
    assert_eq!(back, values);
}

#[test]
fn bulk_copies_equal_lane_by_lane_encoding() {
    let t = transform();
    bulk_matches_one_by_one(&[t.position, t.scale, Vec3::NAN.with_x(1.0).with_y(2.0).with_z(3.0)]);
    bulk_matches_one_by_one(&[t.rotation, Quat::IDENTITY]);
    bulk_matches_one_by_one(&t.bones);
    bulk_matches_one_by_one(&[Mat2::from_cols_array(&[1.0, 2.0, 3.0, 4.0])]);
    bulk_matches_one_by_one(&[Mat3::from_quat(t.rotation)]);
    bulk_matches_one_by_one(&[UVec4::new(1, 2, 3, u32::MAX)]);
    bulk_matches_one_by_one(&[Vec4::W, Vec4::ONE]);
    bulk_matches_one_by_one(&t.path);
    bulk_matches_one_by_one(&[t.uv]);
}

#[test]
fn short_input_is_an_error_and_any_lanes_are_a_value() {
    assert!(matches!(
        decode::<Mat4>(&[0; 63]),
        Err(PlainError::UnexpectedEnd { offset: 0, needed: 64, available: 63 })
    ));
    assert!(matches!(
        decode::<Vec<Quat>>(&[20, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]),
        Err(PlainError::LengthTooLarge { .. })
    ));
    let nan = decode::<Vec3>(&[0xff; 12]).unwrap();
    assert!(nan.is_nan());
    let bytes = reflectable::to_vec(&transform()).unwrap();
    for cut in 0..bytes.len() {
        assert!(reflectable::from_slice::<Transform>(&bytes[..cut]).is_err());
    }
}
