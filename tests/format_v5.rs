//! Format version 5 (`FORMAT.md`, "Version 5"): every top-level object records its length after
//! its first type header. The worked example byte for byte, every reader of the crate on it, and
//! hostile lengths.

use reflectable::dynamic::DynamicGraph;
use reflectable::serializer::{BinarySerializer, DecodeErrorKind, EncodeError, Encoding, SchemaTable, WeakPointers};
use reflectable::{Reflectable, Registry};
use std::cell::RefCell;
use std::rc::{Rc, Weak};

#[path = "common/door.rs"]
mod door;

use door::{door, Door};

/// The worked example's objects in version 5: the version 3 objects with a length after each
/// top-level object's type header.
const DOOR_OBJECTS_V5: &[u8] = &[
    0x05, 0x00, 0x00, 0x00, 0xE8, 0x03, 0x00, 0x00, // instance 1, type 1000
    0x3A, 0x00, 0x00, 0x00, // its length: 58 bytes follow
    0x00, 0x01, 0x01, 0x00, 0x01, // field 1, size 1: true
    0x20, 0x00, 0x02, 0x00, 0x07, 0x00, 0x00, 0x00, 0x6F, 0x61, 0x6B, // field 2, dynamic: "oak"
    0x02, 0x02, 0x03, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x03, 0x00, // field 3, array of u16
    0x04, 0x00, 0x04, 0x00, // field 4, embedded (no length: not top-level)
    0x01, 0x00, 0x00, 0x00, 0xE9, 0x03, 0x00, 0x00, // embedded, type 1001
    0x00, 0x02, 0x01, 0x00, 0x50, 0x00, // field 1, size 2: 80
    0x08, 0x00, 0x00, 0x00, // terminator
    0x10, 0x00, 0x05, 0x00, 0x02, 0x00, 0x00, 0x00, // field 5, pointer: instance 2
    0x09, 0x00, 0x00, 0x00, 0xEA, 0x03, 0x00, 0x00, // instance 2, type 1002
    0x08, 0x00, 0x00, 0x00, // its length: 8
    0x00, 0x04, 0x01, 0x00, 0x34, 0x12, 0x00, 0x00, // field 1, size 4: 0x1234
];

/// Where the version 3 stream's schema table lies (`tests/format.rs` checks those bytes).
const V3_TABLE: std::ops::Range<usize> = 90..324;

/// The CRC-32 of the worked example's schema table, which FORMAT.md gives.
const TABLE_CRC: u32 = 0xB730_D3F5;

/// FORMAT.md's version 5 example: header, objects, the same schema table, a trailer of 56 bytes:
/// 388 in all.
fn door_v5_bytes() -> Vec<u8> {
    let v3 = BinarySerializer::new().encode(&door()).unwrap();
    assert_eq!(crc32fast::hash(&v3[V3_TABLE]), TABLE_CRC);
    let trailer: &[u8] = &[
        0xC8, 0x45, 0x4E, 0x44, 0x00, 0x00, 0x00, 0x00, // end mark, no flags
        0x02, 0x00, 0x00, 0x00, 0x84, 0x01, 0x00, 0x00, // 2 objects, length 388 ...
        0x00, 0x00, 0x00, 0x00, 0x62, 0x00, 0x00, 0x00, // ... (u64), the table at 98 ...
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // ... (u64), no object index ...
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // ... (u64), no data blocks ...
        0x00, 0x00, 0x00, 0x00, 0xF5, 0xD3, 0x30, 0xB7, // ... (u64), the table's CRC-32
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // no index CRC, no checksum
    ];
    let header: &[u8] = &[0x52, 0x46, 0x4C, 0x42, 0x05, 0x00, 0x00, 0x00];
    [header, DOOR_OBJECTS_V5, &v3[V3_TABLE], trailer].concat()
}

fn v5() -> BinarySerializer<'static> {
    BinarySerializer::new().format_version(5)
}

#[test]
fn the_worked_example_in_version_5_byte_for_byte() {
    let bytes = v5().encode(&door()).unwrap();
    assert_eq!(bytes.len(), 388);
    assert_eq!(bytes, door_v5_bytes());
    // Every reader takes it: typed, dynamic (which writes it back as it was), the JSON twin.
    assert_eq!(BinarySerializer::new().decode::<Door>(&bytes).unwrap(), door());
    let graph = DynamicGraph::from_bytes(&bytes).unwrap();
    assert_eq!(graph.version(), 5);
    assert_eq!(graph.to_bytes().unwrap(), bytes);
    assert_eq!(DynamicGraph::from_bytes(&BinarySerializer::new().encode(&door()).unwrap()).unwrap().version(), 3);
    // Streamed in small pieces, the same bytes.
    let mut streamed = Vec::new();
    v5().flush_threshold(1).encode_to_writer(&door(), &mut streamed).unwrap();
    assert_eq!(streamed, bytes);
}

#[test]
fn version_5_cut_anywhere_or_with_any_byte_changed_is_an_error_or_the_same_door() {
    let bytes = door_v5_bytes();
    for len in 0..bytes.len() {
        assert!(BinarySerializer::new().decode::<Box<dyn Reflectable>>(&bytes[..len]).is_err(), "cut at {len}");
        assert!(DynamicGraph::from_bytes(&bytes[..len]).is_err(), "cut at {len}, dynamic");
    }
    // A changed length word is always refused, by the typed and the dynamic decoder.
    for at in [8 + 8, 8 + 70] {
        for value in [0u32, 1, 7, 57, 59, 60, 66, 1000, u32::MAX] {
            let mut changed = bytes.clone();
            changed[at..at + 4].copy_from_slice(&value.to_le_bytes());
            if changed == bytes {
                continue;
            }
            assert!(BinarySerializer::new().decode::<Door>(&changed).is_err(), "length {value} at {at} decoded");
            assert!(DynamicGraph::from_bytes(&changed).is_err(), "length {value} at {at} decoded dynamically");
        }
    }
}

#[test]
fn a_length_that_runs_past_the_objects_names_its_offset() {
    let mut bytes = door_v5_bytes();
    bytes[16..20].copy_from_slice(&10_000u32.to_le_bytes());
    let error = BinarySerializer::new().decode::<Door>(&bytes).unwrap_err();
    assert_eq!(error.offset(), Some(16), "{error}");
    assert!(error.to_string().contains("recorded length runs past"), "{error}");
    // One too short: the object's fields run on past where its length says it ends.
    let mut bytes = door_v5_bytes();
    bytes[16..20].copy_from_slice(&57u32.to_le_bytes());
    let error = BinarySerializer::new().decode::<Door>(&bytes).unwrap_err();
    assert!(error.offset().is_some(), "{error}");
}

#[derive(Reflectable, Default)]
#[rtti(id = 7601)]
struct Shelf {
    #[rtti(id = 1)]
    books: Vec<Rc<RefCell<Book>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 7602)]
struct Book {
    #[rtti(id = 1)]
    title: String,
}

/// An object no pointer reaches is not decoded, and the index jumps over it: it is still walked,
/// so damage inside it is an error as in version 3, not a silent success.
#[test]
fn an_unreached_object_is_still_checked() {
    let shelf = Shelf { books: vec![Rc::new(RefCell::new(Book { title: "dune".into() }))] };
    let bytes = v5().encode(&shelf).unwrap();
    // Header; the shelf at 8 (length at 16, then field 1: header, count 1, instance 2 at 28); the
    // book at 32 (length at 40, then field 1: header, size 8 at 48, "dune").
    assert_eq!(bytes[28..32], 2u32.to_le_bytes());
    assert_eq!(bytes[36..44], [0xB2, 0x1D, 0, 0, 12, 0, 0, 0], "type 7602, length 12");
    assert_eq!(bytes[48..56], [8, 0, 0, 0, b'd', b'u', b'n', b'e']);
    let mut unreached = bytes.clone();
    unreached[28..32].copy_from_slice(&0u32.to_le_bytes());
    let (loaded, report) = BinarySerializer::new().decode_with_report::<Shelf>(&unreached).unwrap();
    assert!(loaded.books.is_empty());
    assert!(report.to_string().contains("top-level objects nothing decoded points at"), "{report}");
    // Damage the unreached book's string size: refused, although nothing reads the book.
    for size in [2u32, 9, 1000] {
        let mut damaged = unreached.clone();
        damaged[48..52].copy_from_slice(&size.to_le_bytes());
        let Err(error) = BinarySerializer::new().decode::<Shelf>(&damaged) else { panic!("size {size} decoded") };
        assert!(error.offset().is_some_and(|at| (44..=56).contains(&at)), "size {size}: {error}");
        assert!(DynamicGraph::from_bytes(&damaged).is_err(), "size {size}");
    }
}

#[derive(Reflectable, Default)]
#[rtti(id = 7611)]
struct Node {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    next: Option<Rc<RefCell<Node>>>,
    #[rtti(id = 3)]
    back: Weak<RefCell<Node>>,
    #[rtti(id = 4)]
    frozen: Option<Rc<Door>>,
}

fn ring() -> Rc<RefCell<Node>> {
    let frozen = Rc::new(door());
    let nodes: Vec<_> = (0..5)
        .map(|at| {
            let frozen = (at % 2 == 0).then(|| frozen.clone());
            Rc::new(RefCell::new(Node { name: format!("n{at}"), frozen, ..Node::default() }))
        })
        .collect();
    for at in 0..nodes.len() {
        let next = nodes[(at + 1) % nodes.len()].clone();
        next.borrow_mut().back = Rc::downgrade(&nodes[at]);
        nodes[at].borrow_mut().next = Some(next);
    }
    nodes[0].clone()
}

fn unring(root: &Rc<RefCell<Node>>) {
    let next = root.borrow_mut().next.take();
    drop(next);
}

/// Cycles, `Weak`s and immutable shared objects come back as in version 3, to the same bytes.
#[test]
fn a_cyclic_graph_round_trips_in_version_5() {
    let root = ring();
    let bytes = v5().encode(&root).unwrap();
    let v3 = BinarySerializer::new().encode(&root).unwrap();
    assert_eq!(
        bytes.len(),
        v3.len() + 4 * 7 + 32,
        "a length for each of the 5 nodes, the door and its lock; 32 more bytes of trailer"
    );
    let back: Rc<RefCell<Node>> = BinarySerializer::new().decode(&bytes).unwrap();
    let mut at = back.clone();
    let mut doors = Vec::new();
    for step in 0..5 {
        assert_eq!(at.borrow().name, format!("n{step}"));
        doors.extend(at.borrow().frozen.clone());
        let next = at.borrow().next.clone().unwrap();
        assert!(Rc::ptr_eq(&next.borrow().back.upgrade().unwrap(), &at));
        at = next;
    }
    assert!(Rc::ptr_eq(&at, &back), "the ring closes");
    assert_eq!(doors.len(), 3);
    assert!(doors.windows(2).all(|pair| Rc::ptr_eq(&pair[0], &pair[1])), "one door, shared");
    assert_eq!(v5().encode(&back).unwrap(), bytes);
    unring(&back);
    unring(&root);
}

/// External references and subtree saves write their stubs with lengths too.
#[test]
fn external_references_in_version_5() {
    // A chain n0 -> n1 -> n2, each `back` to the one before: n1's subtree cuts its `back` to n0.
    let nodes: Vec<_> =
        (0..3).map(|at| Rc::new(RefCell::new(Node { name: format!("n{at}"), ..Node::default() }))).collect();
    for at in 1..3 {
        nodes[at - 1].borrow_mut().next = Some(nodes[at].clone());
        nodes[at].borrow_mut().back = Rc::downgrade(&nodes[at - 1]);
    }
    let keys = |_: &dyn Reflectable| Some(7);
    let serializer = v5().weak_pointers(WeakPointers::External(&keys));
    let (bytes, report) = serializer.encode_subtree(&nodes[1]).unwrap();
    assert!(report.to_string().contains("back"), "{report}");
    let outside = Rc::new(RefCell::new(Node { name: "outside".into(), ..Node::default() }));
    let relinked = outside.clone();
    let relink = move |key: u64, _type_id: u32| {
        (key == 7).then(|| reflectable::field::SharedObject::new_concrete(relinked.clone()))
    };
    let back: Rc<RefCell<Node>> = BinarySerializer::new().relink(&relink).decode(&bytes).unwrap();
    assert_eq!(back.borrow().name, "n1");
    assert!(Rc::ptr_eq(&back.borrow().back.upgrade().unwrap(), &outside), "the cut Weak relinks");
    let next = back.borrow().next.clone().unwrap();
    assert!(Rc::ptr_eq(&next.borrow().back.upgrade().unwrap(), &back));
    assert_eq!(DynamicGraph::from_bytes(&bytes).unwrap().to_bytes().unwrap(), bytes);
    // Without a relink, the stub is an unresolved reference, reported.
    let (_, report) = BinarySerializer::new().decode_with_report::<Rc<RefCell<Node>>>(&bytes).unwrap();
    assert!(!report.is_empty());
}

#[test]
fn compact_streams_from_version_5_are_those_from_version_3() {
    let root = ring();
    let compact = BinarySerializer::new().encoding(Encoding::Compact);
    let from_v5 = compact.format_version(5).encode(&root).unwrap();
    assert_eq!(from_v5, compact.encode(&root).unwrap());
    let back: Rc<RefCell<Node>> = BinarySerializer::new().decode(&from_v5).unwrap();
    assert_eq!(back.borrow().name, "n0");
    unring(&back);
    unring(&root);
}

#[test]
fn versions_other_than_3_and_5_are_refused_when_encoding() {
    for version in [0, 1, 2, 4, 6, u32::MAX] {
        let error = BinarySerializer::new().format_version(version).encode(&door()).unwrap_err();
        assert!(matches!(error, EncodeError::UnsupportedVersion { version: v, .. } if v == version), "{error}");
    }
    let error = v5().schema_table(SchemaTable::Omitted).encode(&door()).unwrap_err();
    assert!(error.to_string().contains("schema or fingerprint table"), "{error}");
    // With fingerprints instead of the schema, version 5 as well.
    let bytes = v5().schema_table(SchemaTable::Fingerprints).encode(&door()).unwrap();
    assert_eq!(bytes[4..8], 5u32.to_le_bytes());
    assert_eq!(BinarySerializer::new().decode::<Door>(&bytes).unwrap(), door());
}

/// A program without the types reads a version 5 stream as any other: kept as runtime objects,
/// written back (in version 3, its own default) with the same content.
#[test]
fn unknown_types_are_kept_from_version_5() {
    let bytes = v5().encode(&door()).unwrap();
    let empty = Registry::new();
    let keeping = BinarySerializer::with_registry(&empty).keep_unknown_types(true);
    let kept: Box<dyn Reflectable> = keeping.decode(&bytes).unwrap();
    let again = BinarySerializer::with_registry(&empty).encode(&*kept).unwrap();
    assert_eq!(BinarySerializer::new().decode::<Door>(&again).unwrap(), door());
    let error = BinarySerializer::new().decode::<Door>(&bytes[..bytes.len() - 1]).unwrap_err();
    assert!(matches!(error.kind(), DecodeErrorKind::MissingTrailer | DecodeErrorKind::LengthMismatch { .. }));
}

/// The JSON twin of a version 5 stream says so, and reads back to the same bytes.
#[cfg(feature = "json")]
#[test]
fn the_json_twin_of_a_version_5_stream_reads_back() {
    let bytes = v5().encode(&door()).unwrap();
    let graph = DynamicGraph::from_bytes(&bytes).unwrap();
    let mut json = Vec::new();
    graph.write_json(&mut json).unwrap();
    let text = String::from_utf8(json).unwrap();
    assert!(text.contains("\"version\": 5") || text.contains("\"version\":5"), "{text}");
    let back = DynamicGraph::from_json(&text).unwrap();
    assert_eq!(back.to_bytes().unwrap(), bytes);
}

/// A plain type of static size 0: its counts take no bytes, so a stream admits 2^24 of them in
/// all, whatever object holds them.
#[derive(reflectable::PlainType, Default, Clone, Copy)]
#[plain(id = 7620)]
struct Dot;

#[derive(Reflectable, Default)]
#[rtti(id = 7621)]
struct Bag {
    #[rtti(id = 1)]
    dots: Vec<Dot>,
    #[rtti(id = 2)]
    others: Vec<Rc<RefCell<Bag>>>,
}

/// The allowance is the stream's in version 5 as in version 3, although the index no longer
/// walks the objects: decoded, unreached and dynamic alike.
#[test]
fn zero_size_elements_share_one_allowance_in_version_5() {
    let bag = |dots| Rc::new(RefCell::new(Bag { dots: vec![Dot; dots], others: Vec::new() }));
    let root = Bag { dots: Vec::new(), others: vec![bag((1 << 23) + 1), bag((1 << 23) + 1)] };
    for version in [3, 5] {
        let mut bytes = BinarySerializer::new().format_version(version).encode(&root).unwrap();
        assert!(BinarySerializer::new().decode::<Bag>(&bytes).is_err(), "version {version}");
        assert!(DynamicGraph::from_bytes(&bytes).is_err(), "version {version}, dynamic");
        // The root's two pointers (after its header, length, an empty `dots` and the count 2).
        let ids = if version == 5 { 36 } else { 32 };
        assert_eq!(bytes[ids..ids + 8], [2, 0, 0, 0, 3, 0, 0, 0], "version {version}");
        bytes[ids..ids + 8].fill(0);
        let Err(error) = BinarySerializer::new().decode::<Bag>(&bytes) else { panic!("version {version} decoded") };
        assert!(error.to_string().contains("zero"), "version {version}: {error}");
        assert!(DynamicGraph::from_bytes(&bytes).is_err(), "version {version}, dynamic, unreached");
    }
    let one = Bag { dots: Vec::new(), others: vec![bag((1 << 23) + 1)] };
    let bytes = v5().encode(&one).unwrap();
    assert_eq!(BinarySerializer::new().decode::<Bag>(&bytes).unwrap().others[0].borrow().dots.len(), (1 << 23) + 1);
    assert!(DynamicGraph::from_bytes(&bytes).is_ok());
}

/// A length that jumps anywhere but to the next object's header is named at the length word.
#[test]
fn a_length_that_misses_the_next_object_is_named_at_its_word() {
    let misses = "does not end where the next object starts";
    for (at, value, message) in
        [(16, 57u32, misses), (16, 59, misses), (86, 7, misses), (86, 9, "runs past the objects")]
    {
        let mut bytes = door_v5_bytes();
        bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
        for error in
            [BinarySerializer::new().decode::<Door>(&bytes).unwrap_err(), DynamicGraph::from_bytes(&bytes).unwrap_err()]
        {
            assert_eq!(error.offset(), Some(at), "{value} at {at}: {error}");
            assert!(error.to_string().contains(message), "{error}");
        }
    }
}

/// Errors placed at an object's header point at the header, not past its length.
#[test]
fn errors_at_a_header_point_at_the_header() {
    let listed = |version| BinarySerializer::new().format_version(version).schema_table(SchemaTable::Fingerprints);
    for (version, lock) in [(3u32, 74usize), (5, 78)] {
        let mut bytes = listed(version).encode(&door()).unwrap();
        assert_eq!(bytes[lock + 4..lock + 8], 1002u32.to_le_bytes(), "version {version}");
        bytes[lock + 4..lock + 8].copy_from_slice(&1003u32.to_le_bytes());
        let error = DynamicGraph::from_bytes(&bytes).unwrap_err();
        assert_eq!(error.offset(), Some(lock), "version {version}: {error}");
    }
}

/// The version 5 trailer: where the table starts and its CRC, checked on every read; no object
/// index or data blocks yet, so any claim of one is refused rather than ignored.
#[test]
fn the_version_5_trailer_is_checked_field_by_field() {
    let bytes = door_v5_bytes();
    let end = bytes.len() - 56;
    let refused = |at: usize, value: &[u8]| {
        let mut changed = bytes.clone();
        changed[at..at + value.len()].copy_from_slice(value);
        let typed = BinarySerializer::new().decode::<Door>(&changed).unwrap_err();
        let dynamic = DynamicGraph::from_bytes(&changed).unwrap_err();
        assert_eq!(typed.offset(), dynamic.offset());
        typed
    };
    for table in [0u64, 8, 97, 99, 300, u64::MAX] {
        let error = refused(end + 20, &table.to_le_bytes());
        assert_eq!(error.offset(), Some(end + 20), "table at {table}: {error}");
    }
    // The index's offset and CRC, and the blocks' offset: each named where it is.
    for (at, what) in [(end + 28, "object index"), (end + 48, "object index"), (end + 36, "data blocks")] {
        let error = refused(at, &[1]);
        assert_eq!(error.offset(), Some(at), "{error}");
        assert!(error.to_string().contains(what), "{error}");
    }
    for flag in [2u32, 4, 1 << 31] {
        let error = refused(end + 4, &flag.to_le_bytes());
        assert_eq!(error.offset(), Some(end + 4), "{error}");
    }
    // A table damaged into other valid bytes (a letter of a field's name) is caught by its CRC,
    // with no whole-stream checksum.
    let name = bytes.windows(4).position(|w| w == b"open").unwrap();
    let error = refused(name, b"opem");
    assert!(matches!(error.kind(), DecodeErrorKind::TableChecksumMismatch { .. }), "{error}");
    assert!(error.to_string().contains("schema table's checksum"), "{error}");
    assert_eq!(error.offset(), Some(end + 44));
    // With a whole-stream checksum as well, any flipped bit is caught.
    let checked = v5().checksum(true).encode(&door()).unwrap();
    assert_eq!(BinarySerializer::new().decode::<Door>(&checked).unwrap(), door());
    for bit in (0..checked.len() * 8).step_by(5) {
        let mut flipped = checked.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        assert!(BinarySerializer::new().decode::<Box<dyn Reflectable>>(&flipped).is_err(), "bit {bit}");
    }
}

/// A type whose field 1 is its identity.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 964_501, name = "Tag")]
struct Tag {
    #[rtti(id = 1, identity)]
    id: u32,
    #[rtti(id = 2)]
    label: String,
}

/// `FORMAT.md`, "Version 5", **Identity**: the field entry of an identity carries bit 2 of its
/// field flags in version 5, and nothing else of the table changes; version 3 writes the flags
/// byte as before, and refuses the bit.
#[test]
fn the_identity_flag_is_bit_2_of_the_field_flags_in_version_5() {
    let tag = Tag { id: 7, label: "gate".into() };
    let (v5, v3) = (v5().encode(&tag).unwrap(), BinarySerializer::new().encode(&tag).unwrap());
    let table = |bytes: &[u8], trailer: usize| {
        let size = reflectable::schema::Schema::size_in_stream(bytes).unwrap();
        let end = bytes.len() - trailer;
        (end - size, bytes[end - size..end].to_vec())
    };
    let ((_, table_v5), (start_v3, table_v3)) = (table(&v5, 56), table(&v3, 24));
    let differ: Vec<usize> = (0..table_v5.len()).filter(|&at| table_v5[at] != table_v3[at]).collect();
    assert_eq!(table_v5.len(), table_v3.len());
    assert_eq!(differ.len(), 1, "one byte differs");
    let at = differ[0];
    assert_eq!((table_v3[at], table_v5[at]), (0x00, 0x04), "the flags byte of field `id`");
    // The flags follow the field's header word (field 1, plain, static size 4) and precede the
    // signature length and the name `id`.
    let header = u32::from_le_bytes(table_v5[at - 4..at].try_into().unwrap());
    assert_eq!(header, 1 << 16 | 4 << 8, "field header: ID 1, static size 4, a single plain value");
    assert_eq!(&table_v5[at + 2..at + 6], &[2, 0, b'i', b'd']);
    // The bit in a version 3 table is refused where it is.
    let mut flagged = v3.clone();
    flagged[start_v3 + at] = 0x04;
    let error = reflectable::schema::Schema::of_stream(&flagged).unwrap_err();
    assert_eq!(error.kind(), &DecodeErrorKind::Corrupt("unknown schema field flags set"));
    assert!(BinarySerializer::new().decode::<Tag>(&flagged).is_err());
}

/// The flag anywhere but on a field that can be an identity is refused by every reader, the
/// typed decoder's fast path included (a table entry equal to the running one but for flags
/// is parsed, and the flag found).
#[test]
fn an_identity_flag_where_none_can_be_is_refused() {
    let tag = Tag { id: 7, label: "gate".into() };
    let v5_bytes = v5().encode(&tag).unwrap();
    let size = reflectable::schema::Schema::size_in_stream(&v5_bytes).unwrap();
    let (end, start) = (v5_bytes.len() - 56, v5_bytes.len() - 56 - size);
    let name_at = |name: &[u8]| {
        let pattern = [&[name.len() as u8, 0][..], name].concat();
        start + v5_bytes[start..end].windows(pattern.len()).position(|w| w == pattern).unwrap()
    };
    // The flags byte is two bytes before a field's name (flags, signature length, name).
    let (id_flags, label_flags) = (name_at(b"id") - 2, name_at(b"label") - 2);
    assert_eq!((v5_bytes[id_flags], v5_bytes[label_flags]), (0x04, 0x00));
    for flags in [vec![(label_flags, 0x04)], vec![(id_flags, 0x00), (label_flags, 0x04)]] {
        let mut bytes = v5_bytes.clone();
        for &(at, value) in &flags {
            bytes[at] = value;
        }
        // The table's CRC fixed, so that the flag itself is what a reader meets.
        let crc = crc32fast::hash(&bytes[start..end]);
        bytes[end + 44..end + 48].copy_from_slice(&crc.to_le_bytes());
        let error = v5().decode::<Tag>(&bytes).unwrap_err();
        assert!(error.to_string().contains("identity flag"), "{error}");
        assert!(reflectable::schema::Schema::of_stream(&bytes).is_err());
        assert!(DynamicGraph::from_bytes(&bytes).is_err());
    }
}
