//! Dynamic graphs: any stream read without its types, edited, and written back byte for byte.

#[path = "../examples/common/level.rs"]
mod level;

#[path = "common/fuzz_model.rs"]
mod fuzz_model;

use reflectable::dynamic::{DynamicError, DynamicField, DynamicGraph, DynamicObject, DynamicValue};
use reflectable::serializer::{BinarySerializer, DecodeErrorKind, DecodeEvent, Limits};
use reflectable::Reflectable;
use std::cell::RefCell;
use std::rc::{Rc, Weak};

#[path = "common/door.rs"]
mod door;

use door::{door, Door, Lock};

#[test]
fn the_worked_example_reads_by_name_without_its_types_and_writes_back() {
    let bytes = reflectable::to_vec(&door()).unwrap();
    assert_eq!(bytes.len(), 348, "FORMAT.md's worked example");
    let graph = DynamicGraph::from_bytes(&bytes).unwrap();
    assert_eq!((graph.version(), graph.objects().len(), graph.has_checksum()), (3, 2, false));

    let root = graph.root().borrow();
    assert_eq!((root.type_id(), root.type_name()), (1000, Some("Door")));
    let own = root.own();
    let names: Vec<_> = own.fields().iter().map(|field| own.field_name(field).unwrap()).collect();
    assert_eq!(names, ["open", "name", "hinges", "frame", "lock"]);
    assert!(own.get::<bool>(1).unwrap());
    assert_eq!(own.get::<String>(2).unwrap(), "oak");
    assert_eq!(own.get_array::<u16>(3).unwrap(), [2, 3]);
    let DynamicValue::Embedded(frame) = own.field(4).unwrap().value() else { panic!("frame is embedded") };
    let frame = frame[0].as_ref().unwrap();
    assert_eq!((frame.type_name(), frame.own().get::<u16>(1).unwrap()), (Some("Frame"), 80));
    let DynamicValue::Pointer(lock) = own.field_by_name("lock").unwrap().value() else { panic!("lock is a pointer") };
    assert!(lock[0].as_ref().unwrap().ptr_eq(&graph.objects()[1]));
    assert_eq!(graph.objects()[1].borrow().own().get::<u32>(1).unwrap(), 0x1234);
    drop(root);

    assert_eq!(graph.to_bytes().unwrap(), bytes);
    assert_eq!(graph.schema().unwrap(), reflectable::schema::Schema::of_stream(&bytes).unwrap());
}

#[test]
fn a_value_is_never_read_as_another_type() {
    let graph = DynamicGraph::from_bytes(&reflectable::to_vec(&door()).unwrap()).unwrap();
    let root = graph.root().borrow();
    let own = root.own();
    // Same size, another type: the schema table tells them apart.
    assert!(matches!(own.get::<i16>(3), Err(DynamicError::WrongKind { .. })), "an array is not a single value");
    assert!(matches!(own.get_array::<i16>(3), Err(DynamicError::WrongType { .. })));
    assert!(matches!(own.get::<u8>(1), Err(DynamicError::WrongType { .. })), "bool is not u8");
    assert!(matches!(own.get::<u32>(1), Err(DynamicError::WrongKind { .. })), "nor 4 bytes wide");
    assert!(matches!(own.get::<u32>(4), Err(DynamicError::WrongKind { .. })), "an embedded field is not plain");
    assert!(matches!(own.get::<u32>(9), Err(DynamicError::NoSuchField { id: 9 })));
    let error = own.get::<u32>(2).unwrap_err();
    assert_eq!(error.to_string(), "field 2 is stored as WireShape { kind: Plain(None), array: false }");
    let error = own.get_array::<i16>(3).unwrap_err();
    assert_eq!(error.to_string(), "field 3 holds u16, not i16");
}

#[test]
fn older_format_versions_and_checksums_write_back_as_they_were() {
    let value = door();
    let v2 = BinarySerializer::new().schema_table(false).encode(&value).unwrap();
    let checked = BinarySerializer::new().checksum(true).encode(&value).unwrap();
    let mut v1 = v2[..90].to_vec();
    v1[4] = 1;
    for (bytes, version, checksum) in [(&v1, 1, false), (&v2, 2, false), (&checked, 3, true)] {
        let graph = DynamicGraph::from_bytes(bytes).unwrap();
        assert_eq!((graph.version(), graph.has_checksum()), (version, checksum));
        assert_eq!(&graph.to_bytes().unwrap(), bytes, "version {version}");
        let root = graph.root().borrow();
        // Without a schema table, fields have no names but keep their values and shapes.
        assert_eq!(root.type_name().is_some(), version == 3);
        assert_eq!(root.own().get::<String>(2).unwrap(), "oak");
    }
}

#[derive(Reflectable, Default)]
#[rtti(id = 1010)]
struct Node {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    children: Vec<Rc<RefCell<Node>>>,
    #[rtti(id = 3)]
    parent: Weak<RefCell<Node>>,
}

fn family() -> Rc<RefCell<Node>> {
    let root = Rc::new(RefCell::new(Node { name: "root".into(), ..Node::default() }));
    let child = Rc::new(RefCell::new(Node { name: "child".into(), parent: Rc::downgrade(&root), ..Node::default() }));
    // The child twice (sharing) and the root under itself (a strong cycle).
    root.borrow_mut().children = vec![child.clone(), child, root.clone()];
    root
}

fn unlink(root: &Rc<RefCell<Node>>) {
    let children = std::mem::take(&mut root.borrow_mut().children);
    children.iter().filter(|child| !Rc::ptr_eq(child, root)).for_each(unlink);
}

#[test]
fn sharing_cycles_and_weak_pointers_are_kept() {
    let root = family();
    let bytes = reflectable::to_vec(&root).unwrap();
    unlink(&root);

    let graph = DynamicGraph::from_bytes(&bytes).unwrap();
    let children = |node: &reflectable::dynamic::DynamicRef| match node.borrow().own().field(2).unwrap().value() {
        DynamicValue::Pointer(targets) => targets.iter().map(|target| target.clone().unwrap()).collect::<Vec<_>>(),
        _ => panic!("children are pointers"),
    };
    let kids = children(graph.root());
    assert!(kids[0].ptr_eq(&kids[1]), "shared");
    assert!(kids[2].ptr_eq(graph.root()), "cyclic");
    let child = kids[0].borrow();
    let parent = child.own().field(3).unwrap();
    assert!(child.own().describe(parent).unwrap().weak, "the schema says the parent is weak");
    let DynamicValue::Pointer(parent) = parent.value() else { panic!() };
    assert!(parent[0].as_ref().unwrap().ptr_eq(graph.root()));
    drop(child);
    assert_eq!(graph.to_bytes().unwrap(), bytes);

    // And back to Rust types, sharing restored.
    let (back, report) = graph.to_typed::<Rc<RefCell<Node>>>().unwrap();
    assert!(report.is_lossless(), "{report:?}");
    let children = back.borrow().children.clone();
    assert!(Rc::ptr_eq(&children[0], &children[1]));
    assert!(Rc::ptr_eq(&children[2], &back));
    assert!(Rc::ptr_eq(&children[0].borrow().parent.upgrade().unwrap(), &back));
    drop(children);
    unlink(&back);
}

#[test]
fn dropping_a_graph_frees_its_cycles_but_not_what_a_caller_holds() {
    let root = family();
    let bytes = reflectable::to_vec(&root).unwrap();
    unlink(&root);

    let graph = DynamicGraph::from_bytes(&bytes).unwrap();
    let watch = graph.objects().iter().map(|object| object.downgrade()).collect::<Vec<_>>();
    drop(graph);
    assert!(watch.iter().all(|weak| weak.upgrade().is_none()), "a cycle of dynamic objects is freed");

    let graph = DynamicGraph::from_bytes(&bytes).unwrap();
    let kept = graph.objects()[1].clone();
    drop(graph);
    let kept = kept.borrow();
    let DynamicValue::Pointer(parent) = kept.own().field(3).unwrap().value() else { panic!() };
    let parent = parent[0].clone().unwrap();
    assert_eq!(parent.borrow().own().get::<String>(1).unwrap(), "root", "what a held object reaches stays whole");
    drop(kept);
}

#[test]
fn typed_to_dynamic_to_typed_is_the_identity() {
    let graph = DynamicGraph::from_typed(&door()).unwrap();
    let (back, report) = graph.to_typed::<Door>().unwrap();
    assert_eq!(back, door());
    assert!(report.is_lossless());
    assert_eq!(graph.to_bytes().unwrap(), reflectable::to_vec(&door()).unwrap());
}

#[test]
fn edits_are_checked_and_new_objects_are_numbered_after_the_old() {
    let graph = DynamicGraph::from_typed(&door()).unwrap();
    {
        let mut root = graph.root().borrow_mut();
        let own = root.own_mut();
        own.set(2, &"ash".to_string()).unwrap();
        own.set_array(3, &[7u16, 8, 9]).unwrap();
        assert!(matches!(own.set(1, &1u8), Err(DynamicError::WrongType { .. })), "open stays a bool");
    }
    // A new lock, not yet in the graph: a pointer to it numbers it after the others.
    let lock_schema = graph.objects()[1].borrow().own().schema().cloned();
    let mut lock = DynamicObject::new(1002, lock_schema);
    lock.own_mut().set(1, &99u32).unwrap();
    let lock = reflectable::dynamic::DynamicRef::new(lock);
    graph.root().borrow_mut().own_mut().field_mut(5).unwrap().targets_mut().unwrap()[0] = Some(lock);

    let (back, report) = graph.to_typed::<Door>().unwrap();
    // The old lock (instance 2) is still written: the graph holds it, though nothing points at it.
    assert!(report.events().all(|(event, _)| matches!(event, DecodeEvent::ObjectsUnreached)), "{report:?}");
    assert_eq!((back.name.as_str(), back.hinges.as_slice()), ("ash", &[7, 8, 9][..]));
    assert_eq!(back.lock.unwrap().code, 99);
    let reread = DynamicGraph::from_bytes(&graph.to_bytes().unwrap()).unwrap();
    assert_eq!(reread.objects().len(), 3);

    // A single field keeps one element; an array field takes any number.
    let mut root = graph.root().borrow_mut();
    let lock = root.own_mut().field_mut(5).unwrap();
    assert!(matches!(lock.set_targets(vec![None, None]), Err(DynamicError::WrongKind { id: 5, .. })));
    assert!(matches!(lock.set_objects(vec![None]), Err(DynamicError::WrongKind { id: 5, .. })), "not embedded");
    lock.set_targets(vec![None]).unwrap();
    drop(root);
    let (back, _) = graph.to_typed::<Door>().unwrap();
    assert!(back.lock.is_none());
}

#[test]
fn graphs_compare_and_hash_by_structure_and_instance_numbers() {
    use std::hash::{BuildHasher, RandomState};
    let bytes = reflectable::to_vec(&family()).unwrap();
    let (a, b) = (DynamicGraph::from_bytes(&bytes).unwrap(), DynamicGraph::from_bytes(&bytes).unwrap());
    let hasher = RandomState::new();
    assert_eq!(a, b);
    assert_eq!(hasher.hash_one(&a), hasher.hash_one(&b));
    b.objects()[1].borrow_mut().own_mut().set(1, &"other".to_string()).unwrap();
    assert_ne!(a, b);
    // Objects compare pointers by identity: the roots of two graphs point at different objects.
    assert_ne!(*a.root().borrow(), *b.root().borrow());
    assert_eq!(a.objects()[1].borrow().clone(), *a.objects()[1].borrow());
}

#[test]
fn every_sample_value_writes_back_byte_for_byte() {
    // Every field kind: base chains, enums with data, maps, lists, trait objects, plain codecs.
    let mut unlisted = 0;
    for (index, bytes) in fuzz_model::sample_encodings().iter().enumerate() {
        let graph = match DynamicGraph::from_bytes(bytes) {
            Ok(graph) => graph,
            // A compact stream that lists fingerprints only is walked by the writer's types alone.
            Err(error) if matches!(error.kind(), reflectable::serializer::DecodeErrorKind::NoSchema) => {
                assert_eq!(bytes[4], 4, "sample {index}");
                unlisted += 1;
                continue;
            }
            Err(error) => panic!("sample {index}: {error}"),
        };
        assert_eq!(&graph.to_bytes().unwrap(), bytes, "sample {index}");
    }
    assert_eq!(unlisted, 1, "one compact sample lists fingerprints only");
}

#[test]
fn a_cut_or_flipped_stream_is_an_error_or_writes_back_exactly() {
    let bytes = reflectable::to_vec(&door()).unwrap();
    for cut in 0..bytes.len() {
        assert!(DynamicGraph::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    // Without a checksum, flips reach the objects' grammar and the schema table.
    let checked = bytes.clone();
    let mut decoded = 0;
    for at in 0..checked.len() {
        for bit in 0..8 {
            let mut flipped = checked.clone();
            flipped[at] ^= 1 << bit;
            if let Ok(graph) = DynamicGraph::from_bytes(&flipped) {
                decoded += 1;
                assert_eq!(graph.to_bytes().unwrap(), flipped, "flip at {at} bit {bit}");
            }
        }
    }
    assert!(decoded > 0, "some flips (in values) still decode");
}

#[test]
fn limits_apply_as_to_the_typed_decoder() {
    let bytes = reflectable::to_vec(&family()).unwrap();
    let tight =
        |limits: Limits| BinarySerializer::new().limits(limits).decode::<DynamicGraph>(&bytes).unwrap_err().into_kind();
    let kind = tight(Limits { max_objects: 1, ..Limits::default() });
    assert!(matches!(kind, DecodeErrorKind::TooManyObjects { limit: 1 }), "{kind:?}");
    let kind = tight(Limits { max_array_len: 2, ..Limits::default() });
    assert!(matches!(kind, DecodeErrorKind::ArrayTooLong { len: 3, limit: 2 }), "{kind:?}");
    let kind = tight(Limits { max_allocation: Some(64), ..Limits::default() });
    assert!(matches!(kind, DecodeErrorKind::AllocationLimit { limit: 64 }), "{kind:?}");
    let nested = reflectable::to_vec(&door()).unwrap();
    let kind = BinarySerializer::new()
        .limits(Limits { max_depth: 0, ..Limits::default() })
        .decode::<DynamicGraph>(&nested)
        .unwrap_err()
        .into_kind();
    assert!(matches!(kind, DecodeErrorKind::TooDeep { limit: 0 }), "{kind:?}");
}

#[test]
fn a_field_the_schema_table_does_not_describe_is_refused_with_its_offset() {
    let mut bytes = reflectable::to_vec(&door()).unwrap();
    // Field 1 (`open`, offset 16) renamed to ID 9, which Door's entry does not list.
    bytes[18] = 9;
    let error = DynamicGraph::from_bytes(&bytes).unwrap_err();
    assert_eq!(error.offset(), Some(16));
    assert!(error.to_string().contains("does not describe"), "{error}");
    // A dangling pointer: instance 7 of 2.
    let mut bytes = reflectable::to_vec(&door()).unwrap();
    let lock_at = 90 - 16 - 4;
    assert_eq!(bytes[lock_at..lock_at + 4], [2, 0, 0, 0]);
    bytes[lock_at] = 7;
    let error = DynamicGraph::from_bytes(&bytes).unwrap_err();
    assert!(matches!(error.kind(), DecodeErrorKind::UnknownInstance { id: 7, count: 2 }), "{error}");
    assert_eq!(error.offset(), Some(lock_at));
    // Named as the typed decoder names it, from the stream's schema table.
    assert_eq!(error.context()[0].type_name, "Door");
    assert_eq!(error.context()[0].field.as_deref(), Some("lock"));
    assert!(error.to_string().contains(" in Door.lock: "), "{error}");
    // A field the table does not list, by its ID.
    let mut bytes = reflectable::to_vec(&door()).unwrap();
    bytes[18] = 9;
    let error = DynamicGraph::from_bytes(&bytes).unwrap_err();
    assert!(error.to_string().contains(" in Door.field 9: "), "{error}");
}

#[test]
fn a_graph_built_by_hand_saves_and_loads_as_rust_types() {
    let lock_schema = Rc::new(reflectable::schema::TypeSchema::of(Lock::rtti_static()));
    let mut lock = DynamicObject::new(1002, Some(lock_schema));
    lock.own_mut().set(1, &7u32).unwrap();
    let graph = DynamicGraph::new(lock);
    let bytes = graph.to_bytes().unwrap();
    assert_eq!(bytes, reflectable::to_vec(&Lock { code: 7 }).unwrap(), "the same bytes as the Rust value's");
    let back: Lock = BinarySerializer::new().decode(&bytes).unwrap();
    assert_eq!(back, Lock { code: 7 });
    let _ = DynamicField::embedded(1, None);
}

#[test]
fn the_model_stays_small() {
    // What one field and one object cost: the level-100k graph holds about 3.6x the bytes of
    // its Rust form, mostly in fields; growing these shows in that ratio.
    use std::mem::size_of;
    assert!(size_of::<DynamicField>() <= 48, "{}", size_of::<DynamicField>());
    assert!(size_of::<DynamicObject>() <= 24, "{}", size_of::<DynamicObject>());
    assert!(size_of::<reflectable::dynamic::DynamicSection>() <= 40);
}
