//! Streams that list their types' fingerprints in place of a schema table
//! (`SchemaTable::Fingerprints`, FORMAT.md "Fingerprint table"): read by a program with the same
//! types, refused whole by one whose types differ or are missing, written back exactly by the
//! dynamic graph and its JSON form, and never a panic whatever their table holds.

#[path = "common/door.rs"]
mod door;
#[path = "../examples/common/level.rs"]
mod level;

use door::{door, Door, Frame, Lock};
use reflectable::dynamic::DynamicGraph;
use reflectable::serializer::format::TRAILER_SIZE;
use reflectable::serializer::{BinarySerializer, DecodeErrorKind, SchemaTable};
use reflectable::{Reflectable, Registry};

/// `Door` as another build declares it: its hinges became `u32`s.
mod other_build {
    use reflectable::Reflectable;
    use std::rc::Rc;

    #[derive(Reflectable, Default, Debug)]
    #[rtti(id = 1000, name = "Door", no_register)]
    pub struct Door {
        #[rtti(id = 1)]
        pub open: bool,
        #[rtti(id = 2)]
        pub name: String,
        #[rtti(id = 3)]
        pub hinges: Vec<u32>,
        #[rtti(id = 4, embedded)]
        pub frame: super::Frame,
        #[rtti(id = 5)]
        pub lock: Option<Rc<super::Lock>>,
    }
}

const DOOR_FINGERPRINT: u64 = 0xF23D_4D3D_F8AC_C8BF;

fn fingerprints() -> BinarySerializer<'static> {
    BinarySerializer::new().schema_table(SchemaTable::Fingerprints)
}

/// Where the fingerprint table of `bytes` starts.
fn table_start(bytes: &[u8]) -> usize {
    let end = bytes.len() - TRAILER_SIZE;
    end - u32::from_le_bytes(bytes[end - 4..end].try_into().unwrap()) as usize
}

fn registry(door: bool, lock: bool) -> Registry {
    let mut registry = Registry::new();
    if door {
        registry.register_type::<other_build::Door>().unwrap();
    }
    registry.register_type::<Frame>().unwrap();
    if lock {
        registry.register_type::<Lock>().unwrap();
    }
    registry
}

#[test]
fn the_same_types_read_it_and_it_is_smaller_by_the_descriptions() {
    let bytes = fingerprints().encode(&door()).unwrap();
    let full = BinarySerializer::new().encode(&door()).unwrap();
    // Three types: 48 bytes of fingerprint table against 234 of schema table.
    assert_eq!(full.len() - bytes.len(), 234 - 48);
    assert_eq!(reflectable::schema::Schema::size_in_stream(&bytes).unwrap(), 48);
    let back: Door = fingerprints().decode(&bytes).unwrap();
    assert_eq!(back, door());
    // Any serializer reads it: the stream says how it is written.
    let back: Door = BinarySerializer::new().decode(&bytes).unwrap();
    assert_eq!(back, door());
}

#[test]
fn a_reader_whose_type_differs_refuses_the_stream_before_reading_it() {
    let bytes = fingerprints().encode(&door()).unwrap();
    let registry = registry(true, true);
    let error = BinarySerializer::with_registry(&registry).decode::<other_build::Door>(&bytes).unwrap_err();
    let running = reflectable::schema::TypeSchema::of(registry.get(1000).unwrap()).fingerprint;
    assert_ne!(running, DOOR_FINGERPRINT);
    assert_eq!(
        error.kind(),
        &DecodeErrorKind::FingerprintMismatch {
            type_id: 1000,
            type_name: Some("Door".into()),
            recorded: DOOR_FINGERPRINT,
            running: Some(running),
        }
    );
    // The first entry: after the table's mark and count.
    assert_eq!(error.offset(), Some(table_start(&bytes) + 8));
    let message = error.to_string();
    assert!(message.contains("type 1000 (Door)") && message.contains("f23d4d3df8acc8bf"), "{message}");
    // With its schema table, the same door loads into the other build, its hinges converted.
    let full = BinarySerializer::new().encode(&door()).unwrap();
    let other: other_build::Door = BinarySerializer::with_registry(&registry).decode(&full).unwrap();
    assert_eq!(other.hinges, vec![2, 3]);
}

/// Holds any reflectable value by value: the reader learns its type from the stream alone.
#[derive(Reflectable, Default)]
#[rtti(id = 1020)]
struct Holder {
    #[rtti(id = 1, embedded)]
    item: Option<Box<dyn Reflectable>>,
}

#[test]
fn a_reader_lacking_a_type_refuses_the_stream() {
    let bytes = fingerprints().encode(&Holder { item: Some(Box::new(Lock { code: 7 })) }).unwrap();
    // A reader without `Lock` (type 1002): the registry is not the only source of types (a
    // field may declare one), so the type is refused where its object is met, the embedded
    // header at byte 20 (after the stream header, `Holder`'s type header and the field header).
    let mut registry = Registry::new();
    registry.register_type::<Holder>().unwrap();
    let Err(error) = BinarySerializer::with_registry(&registry).decode::<Holder>(&bytes) else {
        panic!("a stream with a type the reader lacks was read");
    };
    assert_eq!(
        error.kind(),
        &DecodeErrorKind::FingerprintMismatch {
            type_id: 1002,
            type_name: None,
            recorded: lock_fingerprint(),
            running: None
        }
    );
    assert_eq!(error.offset(), Some(20));
    assert!(error.to_string().contains("this program lacks it"), "{error}");
    // A reader with it reads the value.
    let back: Holder = fingerprints().decode(&bytes).unwrap();
    assert!(back.item.is_some());
}

fn lock_fingerprint() -> u64 {
    let full = BinarySerializer::new().encode(&door()).unwrap();
    reflectable::schema::Schema::of_stream(&full).unwrap().get(1002).unwrap().fingerprint
}

#[test]
fn a_stream_without_descriptions_has_no_stored_schema() {
    let bytes = fingerprints().encode(&door()).unwrap();
    let error = reflectable::schema::Schema::of_stream(&bytes).unwrap_err();
    assert_eq!(error.kind(), &DecodeErrorKind::NoSchema);
}

#[test]
fn the_dynamic_graph_and_its_json_write_it_back_exactly() {
    let bytes = fingerprints().encode(&door()).unwrap();
    let graph = DynamicGraph::from_bytes(&bytes).unwrap();
    let full = BinarySerializer::new().encode(&door()).unwrap();
    let schema = reflectable::schema::Schema::of_stream(&full).unwrap();
    let listed: Vec<(u32, u64)> = schema.types.iter().map(|t| (t.id, t.fingerprint)).collect();
    let mut listed_in_order = listed.clone();
    listed_in_order.sort_by_key(|&(id, _)| [1000, 1001, 1002].iter().position(|&x| x == id));
    assert_eq!(graph.fingerprints(), Some(&listed_in_order[..]));
    assert!(graph.schema().unwrap().types.is_empty());
    assert_eq!(graph.to_bytes().unwrap(), bytes);
    let mut json = Vec::new();
    graph.write_json(&mut json).unwrap();
    let text = String::from_utf8(json).unwrap();
    assert!(text.contains("\"f23d4d3df8acc8bf\""), "{text}");
    assert_eq!(reflectable::json::to_bytes(&text).unwrap(), bytes);
}

#[test]
fn a_json_document_cannot_list_types_and_fingerprints_both() {
    let bytes = fingerprints().encode(&door()).unwrap();
    let mut json = Vec::new();
    DynamicGraph::from_bytes(&bytes).unwrap().write_json(&mut json).unwrap();
    let mut document: serde_json::Value = serde_json::from_slice(&json).unwrap();
    document["types"] = serde_json::json!([]);
    let error = reflectable::json::to_bytes(&document.to_string()).unwrap_err();
    assert!(error.to_string().contains("fingerprints"), "{error}");
    document["types"] = serde_json::Value::Null;
    document["fingerprints"][0]["fingerprint"] = serde_json::json!("xyz");
    let error = reflectable::json::to_bytes(&document.to_string()).unwrap_err();
    assert!(error.to_string().contains("fingerprints[0]"), "{error}");
}

#[test]
fn every_change_to_the_table_is_an_error_never_a_misreading() {
    let bytes = fingerprints().encode(&door()).unwrap();
    let start = table_start(&bytes);
    let end = bytes.len() - TRAILER_SIZE;
    for at in start..end {
        for bit in 0..8 {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1 << bit;
            let typed = BinarySerializer::new().decode::<Door>(&damaged);
            assert!(typed.is_err(), "byte {at} bit {bit}: a damaged table was accepted");
            // Without the types, only the table's form is checked: a changed fingerprint or
            // type ID reads (and writes back as it is), a broken form does not.
            if let Ok(graph) = DynamicGraph::from_bytes(&damaged) {
                assert_eq!(graph.to_bytes().unwrap(), damaged, "byte {at} bit {bit}");
            }
        }
    }
}

#[test]
fn a_table_that_lists_a_type_twice_or_miscounts_is_corrupt() {
    let bytes = fingerprints().encode(&door()).unwrap();
    let start = table_start(&bytes);
    // The second entry names type 1000 again.
    let mut twice = bytes.clone();
    twice[start + 8 + 12..start + 8 + 16].copy_from_slice(&1000u32.to_le_bytes());
    let error = DynamicGraph::from_bytes(&twice).unwrap_err();
    assert_eq!(error.kind(), &DecodeErrorKind::Corrupt("the fingerprint table lists a type twice"));
    assert_eq!(error.offset(), Some(start + 8 + 12));
    // A count of 4 where three entries fit.
    let mut miscounted = bytes.clone();
    miscounted[start + 4] = 4;
    assert!(DynamicGraph::from_bytes(&miscounted).is_err());
    assert!(BinarySerializer::new().decode::<Door>(&miscounted).is_err());
    // A count of 2: a word too many for two entries.
    miscounted[start + 4] = 2;
    assert!(DynamicGraph::from_bytes(&miscounted).is_err());
}

#[test]
fn data_kept_from_another_writer_needs_a_schema_table() {
    use reflectable::UnknownFields;

    // A newer `Lock` has a field this program lacks; this program's `Keeper` keeps it.
    #[derive(Reflectable, Default)]
    #[rtti(id = 1010, name = "Keeper", no_register)]
    struct NewKeeper {
        #[rtti(id = 1)]
        name: String,
        #[rtti(id = 2)]
        serial: u64,
    }
    #[derive(Reflectable, Default)]
    #[rtti(id = 1010, name = "Keeper")]
    struct Keeper {
        #[rtti(id = 1)]
        name: String,
        #[rtti(unknown)]
        kept: UnknownFields,
    }
    let mut newer = Registry::new();
    newer.register_type::<NewKeeper>().unwrap();
    let bytes = BinarySerializer::with_registry(&newer).encode(&NewKeeper { name: "k".into(), serial: 7 }).unwrap();
    let keeper: Keeper = BinarySerializer::new().decode(&bytes).unwrap();
    assert!(!keeper.kept.is_empty());
    let error = fingerprints().encode(&keeper).unwrap_err();
    assert!(matches!(error, reflectable::serializer::EncodeError::KeptDataNeedsSchema { type_name: "Keeper" }));
    // The schema table carries it.
    assert!(BinarySerializer::new().encode(&keeper).is_ok());
}

#[test]
fn an_object_of_a_type_the_table_does_not_list_is_corrupt() {
    // The table without `Lock`'s entry: well formed, every listed type the reader's, but the
    // `Lock` object (its header at byte 74) is vouched for by nothing.
    let bytes = fingerprints().encode(&door()).unwrap();
    let start = table_start(&bytes);
    let mut table = bytes[start..bytes.len() - TRAILER_SIZE].to_vec();
    table.drain(8 + 2 * 12..8 + 3 * 12);
    table[4] = 2;
    let length = table.len();
    table[length - 4..].copy_from_slice(&(length as u32).to_le_bytes());
    let mut stream = [&bytes[..start], &table[..]].concat();
    let total = (stream.len() + TRAILER_SIZE) as u64;
    stream.extend_from_slice(&bytes[bytes.len() - TRAILER_SIZE..]);
    let at = stream.len() - TRAILER_SIZE + 12;
    stream[at..at + 8].copy_from_slice(&total.to_le_bytes());
    let typed = BinarySerializer::new().decode::<Door>(&stream).unwrap_err();
    assert!(matches!(typed.kind(), DecodeErrorKind::Corrupt(what) if what.contains("does not list")), "{typed}");
    assert_eq!(typed.offset(), Some(74));
    let dynamic = DynamicGraph::from_bytes(&stream).unwrap_err();
    assert!(matches!(dynamic.kind(), DecodeErrorKind::Corrupt(what) if what.contains("does not list")), "{dynamic}");
    assert_eq!(dynamic.offset(), Some(74));
}

#[test]
fn a_level_graph_round_trips_with_its_generic_and_trait_types() {
    // Generic instantiations (`ResourceHandle<Mesh>`), trait-object components, `Weak` parents.
    let (level, stats) = level::build_level(300, 3);
    let bytes = fingerprints().encode(&level).unwrap();
    let full = BinarySerializer::new().encode(&level).unwrap();
    assert!(bytes.len() < full.len());
    let decoded: level::Level = fingerprints().decode(&bytes).unwrap();
    assert_eq!(level::compare_levels(&level, &decoded).unwrap(), stats.shared_objects);
    assert_eq!(DynamicGraph::from_bytes(&bytes).unwrap().to_bytes().unwrap(), bytes);
    level::break_cycles(&decoded);
    level::break_cycles(&level);
}

#[test]
fn a_dynamic_graph_lists_the_types_it_gains_from_their_schemas() {
    use reflectable::dynamic::DynamicObject;
    use std::rc::Rc;

    let bytes = fingerprints().encode(&door()).unwrap();
    // A type with no schema: nothing to take a fingerprint from.
    let mut graph = DynamicGraph::from_bytes(&bytes).unwrap();
    graph.add(DynamicObject::new(4242, None));
    let error = graph.to_bytes().unwrap_err();
    assert!(matches!(error, reflectable::serializer::EncodeError::NoFingerprint { type_id: 4242 }), "{error}");
    // With its schema, its fingerprint joins the table after those read.
    let mut graph = DynamicGraph::from_bytes(&bytes).unwrap();
    let schema = Rc::new(reflectable::schema::TypeSchema::of(Registry::global().get(1020).unwrap()));
    graph.add(DynamicObject::new(1020, Some(schema.clone())));
    let written = graph.to_bytes().unwrap();
    let reread = DynamicGraph::from_bytes(&written).unwrap();
    let listed = reread.fingerprints().unwrap();
    assert_eq!(listed.len(), 4);
    assert_eq!(listed[3], (1020, schema.fingerprint));
    assert_eq!(&listed[..3], graph.fingerprints().unwrap());
}
