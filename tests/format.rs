//! Byte-exact checks of FORMAT.md: hand-assembled streams decode to the expected values, and
//! encoding those values produces exactly those bytes.

use reflectable::serializer::format::{Trailer, TRAILER_CHECKSUM, TRAILER_SIZE};
use reflectable::serializer::{BinarySerializer, DecodeErrorKind, MemorySerializer};
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
    0x52, 0x46, 0x4C, 0x42, 0x02, 0x00, 0x00, 0x00, // stream header, version 2
    0x05, 0x00, 0x00, 0x00, 0xE8, 0x03, 0x00, 0x00, // instance 1, type 1000
    0x00, 0x01, 0x01, 0x00, 0x01, // field 1, size 1: true
    0x20, 0x00, 0x02, 0x00, 0x07, 0x00, 0x00, 0x00, 0x6F, 0x61, 0x6B, // field 2, dynamic: "oak"
    0x02, 0x02, 0x03, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x03, 0x00, // field 3, array of u16
    0x04, 0x00, 0x04, 0x00, // field 4, embedded
    0x01, 0x00, 0x00, 0x00, 0xE9, 0x03, 0x00, 0x00, // embedded, type 1001
    0x00, 0x02, 0x01, 0x00, 0x50, 0x00, // field 1, size 2: 80
    0x08, 0x00, 0x00, 0x00, // terminator
    0x10, 0x00, 0x05, 0x00, 0x02, 0x00, 0x00, 0x00, // field 5, pointer: instance 2
    0x09, 0x00, 0x00, 0x00, 0xEA, 0x03, 0x00, 0x00, // instance 2, type 1002
    0x00, 0x04, 0x01, 0x00, 0x34, 0x12, 0x00, 0x00, // field 1, size 4: 0x1234
    0xC8, 0x45, 0x4E, 0x44, 0x00, 0x00, 0x00, 0x00, // trailer: end mark, no flags
    0x02, 0x00, 0x00, 0x00, 0x72, 0x00, 0x00, 0x00, // 2 objects, length 114 ...
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // ... (u64), no checksum
];

/// The same door as version 1 wrote it (no trailer): old streams keep decoding.
const DOOR_V1: &[u8] = &[
    0x52, 0x46, 0x4C, 0x42, 0x01, 0x00, 0x00, 0x00, // stream header, version 1
    0x05, 0x00, 0x00, 0x00, 0xE8, 0x03, 0x00, 0x00, // instance 1, type 1000
    0x00, 0x01, 0x01, 0x00, 0x01, // field 1, size 1: true
    0x20, 0x00, 0x02, 0x00, 0x07, 0x00, 0x00, 0x00, 0x6F, 0x61, 0x6B, // field 2, dynamic: "oak"
    0x02, 0x02, 0x03, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x03, 0x00, // field 3, array of u16
    0x04, 0x00, 0x04, 0x00, // field 4, embedded
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
    assert_eq!(bytes.len(), 114);
    assert_eq!(bytes, DOOR);
}

#[test]
fn worked_example_decodes() {
    let decoded: Door = MemorySerializer::new().decode_as(DOOR).unwrap();
    assert_eq!(decoded, door());
}

/// FORMAT.md's example cut at any byte is an error: version 1 loaded some of these cuts as a
/// smaller door (cut at 82, `lock = Some(Lock { code: 0 })`).
#[test]
fn the_worked_example_cut_anywhere_is_an_error() {
    for stream in [DOOR, GATE] {
        for len in 0..stream.len() {
            assert!(MemorySerializer::new().decode(&stream[..len]).is_err(), "cut at {len} decoded");
        }
    }
}

#[test]
fn version_1_streams_keep_decoding() {
    let decoded: Door = MemorySerializer::new().decode_as(DOOR_V1).unwrap();
    assert_eq!(decoded, door());
    // Version 2 is version 1 with the version word changed and the trailer appended.
    assert_eq!(DOOR[8..90], DOOR_V1[8..]);
}

#[test]
fn a_checksummed_stream_records_the_crc32_of_everything_before_it() {
    let serializer = MemorySerializer::with(BinarySerializer::new().checksum(true));
    let bytes = serializer.encode(&door()).unwrap();
    assert_eq!(bytes[..DOOR.len() - 20], DOOR[..DOOR.len() - 20], "the same stream up to the trailer's flags");
    let trailer = Trailer::from_bytes(bytes[bytes.len() - TRAILER_SIZE..].try_into().unwrap()).unwrap();
    assert_eq!(trailer.flags, TRAILER_CHECKSUM);
    assert_eq!(trailer.checksum, crc32fast::hash(&bytes[..bytes.len() - 4]));
    assert_eq!(serializer.decode_as::<Door>(&bytes).unwrap(), door());

    // Any flipped bit is caught, wherever it is.
    for bit in (0..bytes.len() * 8).step_by(7) {
        let mut flipped = bytes.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        assert!(serializer.decode(&flipped).is_err(), "bit {bit} flipped and not detected");
    }
    let mut rotten = bytes.clone();
    rotten[20] ^= 0x01; // `open` becomes 0: a valid value, caught by the checksum alone
    assert!(matches!(serializer.decode(&rotten).unwrap_err().kind(), DecodeErrorKind::ChecksumMismatch { .. }));
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
    0x52, 0x46, 0x4C, 0x42, 0x02, 0x00, 0x00, 0x00, // stream header
    0x05, 0x00, 0x00, 0x00, 0xEB, 0x03, 0x00, 0x00, // instance 1, type 1003 (Gate)
    0x00, 0x01, 0x01, 0x00, 0x07, // field 1: width 7
    0x07, 0x00, 0x00, 0x00, 0xE7, 0x03, 0x00, 0x00, // base section of instance 1, type 999 (Portal)
    0x00, 0x01, 0x01, 0x00, 0x09, // field 1: target 9
    0xC8, 0x45, 0x4E, 0x44, 0x00, 0x00, 0x00, 0x00, // trailer: end mark, no flags
    0x01, 0x00, 0x00, 0x00, 0x3A, 0x00, 0x00, 0x00, // 1 object, length 58 ...
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // ... (u64), no checksum
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
        bytes[8..bytes.len() - TRAILER_SIZE],
        [
            0x05, 0x00, 0x00, 0x00, 0xEC, 0x03, 0x00, 0x00, // instance 1, type 1004
            0x04, 0x00, 0x01, 0x00, // field 1, embedded
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
    bytes[4] = 3;
    let error = MemorySerializer::new().decode(&bytes).unwrap_err();
    assert_eq!((error.offset(), error.kind()), (Some(4), &DecodeErrorKind::UnsupportedVersion { version: 3 }));
    let error = MemorySerializer::new().decode(&DOOR[..8]).unwrap_err();
    assert_eq!(*error.kind(), DecodeErrorKind::MissingTrailer);
    let empty = [&DOOR[..8], &Trailer { flags: 0, objects: 0, length: 32, checksum: 0 }.to_bytes()].concat();
    assert_eq!(*MemorySerializer::new().decode(&empty).unwrap_err().kind(), DecodeErrorKind::NoRoot);
    let error = MemorySerializer::new().decode(&DOOR_V1[..8]).unwrap_err();
    assert_eq!(*error.kind(), DecodeErrorKind::NoRoot);
}
