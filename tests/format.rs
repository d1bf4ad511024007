//! Byte-exact checks of FORMAT.md: hand-assembled streams decode to the expected values, and
//! encoding those values produces exactly those bytes.

use reflectable::serializer::{DecodeErrorKind, MemorySerializer};
use reflectable::Reflectable;
use std::rc::Rc;

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 1000)]
struct Door {
    #[rtti(id = 1)]
    open: bool,
    #[rtti(id = 2)]
    name: String,
    #[rtti(id = 3)]
    hinges: Vec<u16>,
    #[rtti(id = 4, embedded)]
    frame: Frame,
    #[rtti(id = 5)]
    lock: Option<Rc<Lock>>,
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 1001)]
struct Frame {
    #[rtti(id = 1)]
    width: u16,
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 1002)]
struct Lock {
    #[rtti(id = 1)]
    code: u32,
}

/// The worked example of FORMAT.md, byte for byte.
const DOOR: &[u8] = &[
    0x52, 0x46, 0x4C, 0x42, 0x01, 0x00, 0x00, 0x00, // stream header
    0x05, 0x00, 0x00, 0x00, 0xE8, 0x03, 0x00, 0x00, // instance 1, type 1000
    0x00, 0x01, 0x01, 0x00, 0x01, // field 1, size 1: true
    0x20, 0x00, 0x02, 0x00, 0x07, 0x00, 0x00, 0x00, 0x6F, 0x61, 0x6B, // field 2, dynamic: "oak"
    0x02, 0x02, 0x03, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x03, 0x00, // field 3, array of u16
    0x04, 0x00, 0x04, 0x00, // field 4, reflectable
    0x01, 0x00, 0x00, 0x00, 0xE9, 0x03, 0x00, 0x00, // embedded, type 1001
    0x00, 0x02, 0x01, 0x00, 0x50, 0x00, // field 1, size 2: 80
    0x08, 0x00, 0x00, 0x00, // terminator
    0x10, 0x00, 0x05, 0x00, 0x02, 0x00, 0x00, 0x00, // field 5, pointer: instance 2
    0x09, 0x00, 0x00, 0x00, 0xEA, 0x03, 0x00, 0x00, // instance 2, type 1002
    0x00, 0x04, 0x01, 0x00, 0x34, 0x12, 0x00, 0x00, // field 1, size 4: 0x1234
];

fn door() -> Door {
    Door {
        open: true,
        name: "oak".into(),
        hinges: vec![2, 3],
        frame: Frame { width: 80 },
        lock: Some(Rc::new(Lock { code: 0x1234 })),
    }
}

#[test]
fn worked_example_encodes_byte_for_byte() {
    let bytes = MemorySerializer::new().encode(&door()).unwrap();
    assert_eq!(bytes.len(), 90);
    assert_eq!(bytes, DOOR);
}

#[test]
fn worked_example_decodes() {
    let decoded: Door = MemorySerializer::new().decode_as(DOOR).unwrap();
    assert_eq!(decoded, door());
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 999)]
struct Portal {
    #[rtti(id = 1)]
    target: u8,
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 1003)]
struct Gate {
    #[rtti(base)]
    portal: Portal,
    #[rtti(id = 1)]
    width: u8,
}

const GATE: &[u8] = &[
    0x52, 0x46, 0x4C, 0x42, 0x01, 0x00, 0x00, 0x00, // stream header
    0x05, 0x00, 0x00, 0x00, 0xEB, 0x03, 0x00, 0x00, // instance 1, type 1003 (Gate)
    0x00, 0x01, 0x01, 0x00, 0x07, // field 1: width 7
    0x07, 0x00, 0x00, 0x00, 0xE7, 0x03, 0x00, 0x00, // base section of instance 1, type 999 (Portal)
    0x00, 0x01, 0x01, 0x00, 0x09, // field 1: target 9
];

#[test]
fn base_sections_follow_the_derived_fields() {
    let gate = Gate { portal: Portal { target: 9 }, width: 7 };
    assert_eq!(MemorySerializer::new().encode(&gate).unwrap(), GATE);
    assert_eq!(MemorySerializer::new().decode_as::<Gate>(GATE).unwrap(), gate);
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 1004)]
struct Slots {
    #[rtti(id = 1, embedded)]
    frame: Option<Frame>,
    #[rtti(id = 2)]
    lock: Option<Rc<Lock>>,
}

#[test]
fn nulls_are_explicit() {
    let bytes = MemorySerializer::new().encode(&Slots::default()).unwrap();
    assert_eq!(
        bytes[8..],
        [
            0x05, 0x00, 0x00, 0x00, 0xEC, 0x03, 0x00, 0x00, // instance 1, type 1004
            0x04, 0x00, 0x01, 0x00, // field 1, reflectable
            0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // empty slot: type 0, no terminator
            0x10, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, // field 2, pointer: null
        ]
    );
    // A null written where the constructor's default is Some still decodes as None.
    let decoded: Slots = MemorySerializer::new().decode_as(&bytes).unwrap();
    assert_eq!(decoded, Slots::default());
}

#[test]
fn wrong_magic_and_version_are_rejected() {
    let error = MemorySerializer::new().decode(b"JUNKJUNK").unwrap_err();
    assert_eq!(*error.kind(), DecodeErrorKind::BadMagic { found: b"JUNK".to_vec() });
    let mut bytes = DOOR.to_vec();
    bytes[4] = 2;
    let error = MemorySerializer::new().decode(&bytes).unwrap_err();
    assert_eq!((error.offset(), error.kind()), (Some(4), &DecodeErrorKind::UnsupportedVersion { version: 2 }));
    let error = MemorySerializer::new().decode(&DOOR[..8]).unwrap_err();
    assert_eq!(*error.kind(), DecodeErrorKind::NoRoot);
}
