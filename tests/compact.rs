//! Compact streams (`FORMAT.md`, "Compact streams"): exact bytes of the worked example, exact
//! transcoding both ways, every decoder reading them as it reads the normal form, and hostile
//! compact input refused at its offset.

#[path = "common/door.rs"]
mod door;
#[path = "common/fuzz_model.rs"]
mod fuzz_model;
#[path = "../examples/common/level.rs"]
mod level;
#[path = "common/random_graph.rs"]
mod random_graph;

use door::{door, Door, Frame, Lock};
use quickcheck::{QuickCheck, TestResult};
use reflectable::dynamic::DynamicGraph;
use reflectable::serializer::compact::{to_compact, to_normal};
use reflectable::serializer::format::TRAILER_SIZE;
use reflectable::serializer::{BinarySerializer, DecodeErrorKind, EncodeError, Encoding, Limits, MemorySerializer};
use reflectable::{Reflectable, UnknownFields};
use std::cell::RefCell;
use std::rc::Rc;

fn compact() -> MemorySerializer<'static> {
    MemorySerializer::with(BinarySerializer::new().encoding(Encoding::Compact))
}

/// The schema table of a version 3 stream (the 234 bytes before its trailer in FORMAT.md).
fn table_of(normal: &[u8]) -> &[u8] {
    let size = reflectable::schema::table_size(normal).unwrap();
    &normal[normal.len() - TRAILER_SIZE - size..normal.len() - TRAILER_SIZE]
}

/// FORMAT.md's worked example in compact form, byte for byte.
#[test]
fn the_worked_example_is_byte_exact() {
    let normal = reflectable::to_vec(&door()).unwrap();
    let bytes = compact().encode(&door()).unwrap();
    let mut expected = vec![
        0x52, 0x46, 0x4C, 0x42, 0x04, 0x00, 0x00, 0x00, // "RFLB", version 4
        0x04, // type reference 4: the table's first entry, Door (instance 1)
        0x1F, // presence: all five fields; bit 0 is `open` itself
        0x03, b'o', b'a', b'k', // name: length 3
        0x02, 0x02, 0x03, // hinges: 2 elements, 2 and 3
        0x05, 0x01, 0x50, // frame: Frame, presence 01, width 80
        0x02, // lock: instance 2
        0x06, 0x01, 0xB4, 0x24, // Lock (instance 2): presence 01, code 0x1234
    ];
    let table = table_of(&normal);
    assert_eq!(table.len(), 234);
    expected.extend_from_slice(table);
    let length = (expected.len() + TRAILER_SIZE) as u64;
    expected.extend_from_slice(&[0xC8, 0x45, 0x4E, 0x44, 0x02, 0, 0, 0, 0x02, 0, 0, 0]);
    expected.extend_from_slice(&length.to_le_bytes());
    expected.extend_from_slice(&[0, 0, 0, 0]);
    assert_eq!(bytes, expected);
    assert_eq!(bytes.len(), 283);
    assert_eq!(to_normal(&bytes).unwrap(), normal);
    assert_eq!(to_compact(&normal).unwrap(), bytes);
    assert_eq!(reflectable::from_slice::<Door>(&bytes).unwrap(), door());
}

/// A value whose fields are all zero or empty keeps only the embedded frame's type reference.
#[test]
fn zero_fields_are_left_out() {
    let bytes = compact().encode(&Door::default()).unwrap();
    assert_eq!(&bytes[8..13], [0x04, 0x08, 0x05, 0x00, 0xC8]);
    assert_eq!(reflectable::from_slice::<Door>(&bytes).unwrap(), Door::default());
    let _ = (Frame::default(), Lock::default());
}
