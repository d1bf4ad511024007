//! Byte-exact checks of FORMAT.md: hand-assembled streams decode to the expected values, and
//! encoding those values produces exactly those bytes.

use reflectable::serializer::format::{Trailer, EMPTY_SCHEMA_TABLE, TRAILER_CHECKSUM, TRAILER_SIZE};
use reflectable::serializer::{BinarySerializer, DecodeErrorKind, SchemaTable};
use reflectable::Reflectable;
use std::rc::Rc;

#[path = "common/door.rs"]
mod door;

use door::{door, Door, Frame, Lock};

/// The objects of FORMAT.md's worked example: the same in every version.
const DOOR_OBJECTS: &[u8] = &[
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

/// The schema table of the worked example (version 3).
const DOOR_SCHEMA: &[u8] = &[
    0xC8, 0x53, 0x43, 0x4D, 0x03, 0x00, 0x00, 0x00, // schema mark, 3 types
    0x72, 0x00, 0x00, 0x00, 0xE8, 0x03, 0x00, 0x00, // entry of 114 bytes: type 1000
    0xBF, 0xC8, 0xAC, 0xF8, 0x3D, 0x4D, 0x3D, 0xF2, // fingerprint
    0x00, 0x00, 0x00, 0x00, 0x00, // flags (a struct), no base
    0x04, 0x00, 0x44, 0x6F, 0x6F, 0x72, 0x05, 0x00, 0x00, 0x00, // "Door", 5 fields
    0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x04, 0x00, 0x6F, 0x70, 0x65, 0x6E, 0x0D, 0x00, 0x00, 0x00, // open: bool
    0x20, 0x00, 0x02, 0x00, 0x00, 0x01, 0x04, 0x00, 0x6E, 0x61, 0x6D, 0x65, 0x14, 0x00, 0x00,
    0x00, // name: String
    0x02, 0x02, 0x03, 0x00, 0x00, 0x01, 0x06, 0x00, 0x68, 0x69, 0x6E, 0x67, 0x65, 0x73, // hinges:
    0x02, 0x00, 0x00, 0x00, // ... [u16]
    0x04, 0x00, 0x04, 0x00, 0x00, 0x00, 0x05, 0x00, 0x66, 0x72, 0x61, 0x6D, 0x65, 0xE9, 0x03, 0x00, 0x00, // frame
    0x10, 0x00, 0x05, 0x00, 0x00, 0x00, 0x04, 0x00, 0x6C, 0x6F, 0x63, 0x6B, 0xEA, 0x03, 0x00, 0x00, // lock
    0x00, 0x00, 0x00, 0x00, // no variants
    0x31, 0x00, 0x00, 0x00, 0xE9, 0x03, 0x00, 0x00, // entry of 49 bytes: type 1001
    0xC8, 0x65, 0x25, 0x7D, 0xDC, 0x3D, 0xE9, 0x45, // fingerprint
    0x00, 0x00, 0x00, 0x00, 0x00, // flags, no base
    0x05, 0x00, 0x46, 0x72, 0x61, 0x6D, 0x65, 0x01, 0x00, 0x00, 0x00, // "Frame", 1 field
    0x00, 0x02, 0x01, 0x00, 0x00, 0x01, 0x05, 0x00, 0x77, 0x69, 0x64, 0x74, 0x68, 0x02, 0x00, 0x00, 0x00, // width
    0x00, 0x00, 0x00, 0x00, // no variants
    0x2F, 0x00, 0x00, 0x00, 0xEA, 0x03, 0x00, 0x00, // entry of 47 bytes: type 1002
    0x7C, 0xD2, 0x4B, 0xDD, 0xE2, 0xD0, 0xB4, 0xBF, // fingerprint
    0x00, 0x00, 0x00, 0x00, 0x00, // flags, no base
    0x04, 0x00, 0x4C, 0x6F, 0x63, 0x6B, 0x01, 0x00, 0x00, 0x00, // "Lock", 1 field
    0x00, 0x04, 0x01, 0x00, 0x00, 0x01, 0x04, 0x00, 0x63, 0x6F, 0x64, 0x65, 0x03, 0x00, 0x00, 0x00, // code: u32
    0x00, 0x00, 0x00, 0x00, // no variants
    0xEA, 0x00, 0x00, 0x00, // the table's length: 234
];

/// The trailer of the version 3 worked example.
const DOOR_TRAILER: &[u8] = &[
    0xC8, 0x45, 0x4E, 0x44, 0x00, 0x00, 0x00, 0x00, // trailer: end mark, no flags
    0x02, 0x00, 0x00, 0x00, 0x5C, 0x01, 0x00, 0x00, // 2 objects, length 348 ...
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // ... (u64), no checksum
];

/// The worked example of FORMAT.md, byte for byte: stream header, objects, schema, trailer.
fn door_bytes() -> Vec<u8> {
    [&[0x52, 0x46, 0x4C, 0x42, 0x03, 0x00, 0x00, 0x00][..], DOOR_OBJECTS, DOOR_SCHEMA, DOOR_TRAILER].concat()
}

/// The fingerprint table of the worked example written with `SchemaTable::Fingerprints`.
const DOOR_FINGERPRINTS: &[u8] = &[
    0xC8, 0x46, 0x50, 0x54, 0x03, 0x00, 0x00, 0x00, // fingerprint mark, 3 types
    0xE8, 0x03, 0x00, 0x00, 0xBF, 0xC8, 0xAC, 0xF8, 0x3D, 0x4D, 0x3D, 0xF2, // type 1000, its fingerprint
    0xE9, 0x03, 0x00, 0x00, 0xC8, 0x65, 0x25, 0x7D, 0xDC, 0x3D, 0xE9, 0x45, // type 1001
    0xEA, 0x03, 0x00, 0x00, 0x7C, 0xD2, 0x4B, 0xDD, 0xE2, 0xD0, 0xB4, 0xBF, // type 1002
    0x30, 0x00, 0x00, 0x00, // the table's length: 48
];

/// The worked example with its fingerprint table: header, objects, fingerprints, a trailer of
/// 162 bytes.
fn door_fingerprint_bytes() -> Vec<u8> {
    let trailer: &[u8] = &[
        0xC8, 0x45, 0x4E, 0x44, 0x00, 0x00, 0x00, 0x00, // end mark, no flags
        0x02, 0x00, 0x00, 0x00, 0xA2, 0x00, 0x00, 0x00, // 2 objects, length 162
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ];
    [&[0x52, 0x46, 0x4C, 0x42, 0x03, 0x00, 0x00, 0x00][..], DOOR_OBJECTS, DOOR_FINGERPRINTS, trailer].concat()
}

/// The same door as version 2 wrote it: no schema table, a trailer of 114 bytes.
fn door_v2_bytes() -> Vec<u8> {
    let trailer: &[u8] = &[
        0xC8, 0x45, 0x4E, 0x44, 0x00, 0x00, 0x00, 0x00, // end mark, no flags
        0x02, 0x00, 0x00, 0x00, 0x72, 0x00, 0x00, 0x00, // 2 objects, length 114
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ];
    [&[0x52, 0x46, 0x4C, 0x42, 0x02, 0x00, 0x00, 0x00][..], DOOR_OBJECTS, trailer].concat()
}

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

#[test]
fn worked_example_encodes_byte_for_byte() {
    let bytes = BinarySerializer::new().encode(&door()).unwrap();
    assert_eq!(bytes.len(), 348);
    assert_eq!(bytes, door_bytes());
    // Without its schema table, the stream is version 2.
    let v2 = BinarySerializer::new().schema_table(false).encode(&door()).unwrap();
    assert_eq!(v2, door_v2_bytes());
    // With the types' fingerprints in its place, version 3 again.
    let listed = BinarySerializer::new().schema_table(SchemaTable::Fingerprints);
    let bytes = listed.encode(&door()).unwrap();
    assert_eq!(bytes.len(), 162);
    assert_eq!(bytes, door_fingerprint_bytes());
}

#[test]
fn worked_example_decodes() {
    for bytes in [door_bytes(), door_v2_bytes(), door_fingerprint_bytes()] {
        let decoded: Door = BinarySerializer::new().decode(&bytes).unwrap();
        assert_eq!(decoded, door());
    }
}

/// The fingerprint of `Frame`, computed by hand from FORMAT.md's definition: FNV-1a 64 over
/// the little-endian words type ID, flags, base, field count, then per field its header, the
/// signature's length and words, the weak flag and the declared type (0: none), then the
/// variant count.
#[test]
fn the_fingerprint_is_the_documented_hash() {
    let words: [u32; 10] = [1001, 0, 0, 1, 0x0001_0200, 1, 2, 0, 0, 0];
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in words.iter().flat_map(|word| word.to_le_bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    assert_eq!(hash.to_le_bytes(), DOOR_SCHEMA[134..142]);
    assert_eq!(reflectable::schema::TypeSchema::of(Frame::rtti_static()).fingerprint, hash);
}

/// FORMAT.md's example cut at any byte is an error: version 1 loaded some of these cuts as a
/// smaller door (cut at 82, `lock = Some(Lock { code: 0 })`).
#[test]
fn the_worked_example_cut_anywhere_is_an_error() {
    for stream in [door_bytes(), door_v2_bytes(), door_fingerprint_bytes(), GATE.to_vec()] {
        for len in 0..stream.len() {
            assert!(
                BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(&stream[..len]).is_err(),
                "cut at {len} decoded"
            );
        }
    }
}

#[test]
fn version_1_streams_keep_decoding() {
    let decoded: Door = BinarySerializer::new().decode(DOOR_V1).unwrap();
    assert_eq!(decoded, door());
    // Version 2 is version 1 with the version word changed and the trailer appended; version 3
    // adds the schema table between the objects and the trailer.
    assert_eq!(door_v2_bytes()[8..90], DOOR_V1[8..]);
    assert_eq!(door_bytes()[8..90], DOOR_V1[8..]);
}

#[test]
fn a_checksummed_stream_records_the_crc32_of_everything_before_it() {
    let serializer = BinarySerializer::new().checksum(true);
    let bytes = serializer.encode(&door()).unwrap();
    let plain = door_bytes();
    assert_eq!(bytes[..plain.len() - 20], plain[..plain.len() - 20], "the same stream up to the trailer's flags");
    let trailer = Trailer::from_bytes(bytes[bytes.len() - TRAILER_SIZE..].try_into().unwrap()).unwrap();
    assert_eq!(trailer.flags, TRAILER_CHECKSUM);
    assert_eq!(trailer.checksum, crc32fast::hash(&bytes[..bytes.len() - 4]));
    assert_eq!(serializer.decode::<Door>(&bytes).unwrap(), door());

    // Any flipped bit is caught, wherever it is.
    for bit in (0..bytes.len() * 8).step_by(7) {
        let mut flipped = bytes.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        assert!(
            serializer.decode::<Box<dyn reflectable::Reflectable>>(&flipped).is_err(),
            "bit {bit} flipped and not detected"
        );
    }
    let mut rotten = bytes.clone();
    rotten[20] ^= 0x01; // `open` becomes 0: a valid value, caught by the checksum alone
    assert!(matches!(
        serializer.decode::<Box<dyn reflectable::Reflectable>>(&rotten).unwrap_err().kind(),
        DecodeErrorKind::ChecksumMismatch { .. }
    ));
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
    let v2 = BinarySerializer::new().schema_table(false);
    assert_eq!(v2.encode(&gate).unwrap(), GATE);
    assert_eq!(BinarySerializer::new().decode::<Gate>(GATE).unwrap(), gate);
    let v3 = BinarySerializer::new().encode(&gate).unwrap();
    assert_eq!(v3[8..29], GATE[8..29], "the same objects in version 3");
    assert_eq!(BinarySerializer::new().decode::<Gate>(&v3).unwrap(), gate);
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 1005)]
struct Branch {
    #[rtti(id = 1)]
    children: Vec<Rc<Branch>>,
}

/// FORMAT.md's "Object order": IDs in the order first met, objects depth first. The root (1)
/// leads to `a` (2) and `b` (3), and `a` to `c` (4): the stream holds 1, 2, 4, 3.
#[test]
fn objects_are_written_depth_first() {
    let leaf = || Rc::new(Branch::default());
    let a = Rc::new(Branch { children: vec![leaf()] });
    let root = Branch { children: vec![a, leaf()] };
    let bytes = BinarySerializer::new().schema_table(false).encode(&root).unwrap();
    let objects: &[u8] = &[
        0x05, 0x00, 0x00, 0x00, 0xED, 0x03, 0x00, 0x00, // instance 1, type 1005
        0x12, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, // field 1, pointer array of 2:
        0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, // instances 2 and 3
        0x09, 0x00, 0x00, 0x00, 0xED, 0x03, 0x00, 0x00, // instance 2
        0x12, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, // [4]
        0x11, 0x00, 0x00, 0x00, 0xED, 0x03, 0x00, 0x00, // instance 4, what 2 led to
        0x12, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, // []
        0x0D, 0x00, 0x00, 0x00, 0xED, 0x03, 0x00, 0x00, // instance 3
        0x12, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, // []
    ];
    assert_eq!(&bytes[8..bytes.len() - TRAILER_SIZE], objects);
    let back: Branch = BinarySerializer::new().decode(&bytes).unwrap();
    assert_eq!(back, root);
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
    let bytes = BinarySerializer::new().encode(&Slots::default()).unwrap();
    let table = reflectable::schema::Schema::size_in_stream(&bytes).unwrap();
    assert_eq!(
        bytes[8..bytes.len() - TRAILER_SIZE - table],
        [
            0x05, 0x00, 0x00, 0x00, 0xEC, 0x03, 0x00, 0x00, // instance 1, type 1004
            0x04, 0x00, 0x01, 0x00, // field 1, embedded
            0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // empty slot: type 0, no terminator
            0x10, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, // field 2, pointer: null
        ]
    );
    // A null written where the constructor's default is Some still decodes as None.
    let decoded: Slots = BinarySerializer::new().decode(&bytes).unwrap();
    assert_eq!(decoded, Slots::default());
}

#[test]
fn wrong_magic_and_version_are_rejected() {
    let error = BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(b"JUNKJUNK").unwrap_err();
    assert_eq!(*error.kind(), DecodeErrorKind::BadMagic { found: b"JUNK".to_vec() });
    let mut bytes = door_bytes();
    bytes[4] = 6;
    let error = BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(&bytes).unwrap_err();
    assert_eq!((error.offset(), error.kind()), (Some(4), &DecodeErrorKind::UnsupportedVersion { version: 6 }));
    // Version 5 ends with a 56-byte trailer: a version 3 stream relabelled 5 has none.
    bytes[4] = 5;
    let error = BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(&bytes).unwrap_err();
    assert_eq!((error.offset(), error.kind()), (Some(bytes.len()), &DecodeErrorKind::MissingTrailer));
    // Version 4 is the compact form, whose trailer says so too.
    bytes[4] = 4;
    let error = BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(&bytes).unwrap_err();
    let flags_at = bytes.len() - TRAILER_SIZE + 4;
    assert_eq!(
        (error.offset(), error.kind()),
        (Some(flags_at), &DecodeErrorKind::Corrupt("a version 4 stream without the compact flag"))
    );
    let error = BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(&door_bytes()[..8]).unwrap_err();
    assert_eq!(*error.kind(), DecodeErrorKind::MissingTrailer);
    let empty = [&door_v2_bytes()[..8], &Trailer { flags: 0, objects: 0, length: 32, checksum: 0 }.to_bytes()].concat();
    assert_eq!(
        *BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(&empty).unwrap_err().kind(),
        DecodeErrorKind::NoRoot
    );
    let empty = [
        &door_bytes()[..8],
        &EMPTY_SCHEMA_TABLE,
        &Trailer { flags: 0, objects: 0, length: 44, checksum: 0 }.to_bytes(),
    ]
    .concat();
    assert_eq!(
        *BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(&empty).unwrap_err().kind(),
        DecodeErrorKind::NoRoot
    );
    let error = BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(&DOOR_V1[..8]).unwrap_err();
    assert_eq!(*error.kind(), DecodeErrorKind::NoRoot);
}
