//! Subtree saves: `WeakPointers::Null` and `External` keep what a saved entity reaches only
//! through `Weak`s (its parent, and through it the whole scene) out of the stream; `External`
//! re-links such pointers to the caller's objects on load. Hostile external stubs load as null.

use reflectable::containers::EXTERNAL_TYPE_ID;
use reflectable::field::SharedObject;
use reflectable::serializer::format::{
    FieldHeader, Trailer, TypeHeader, WireKind, EMPTY_SCHEMA_TABLE, MAGIC, TRAILER_SIZE, VERSION,
};
use reflectable::serializer::{
    BinarySerializer, EncodeError, WeakPointers, EXTERNAL_KEY_FIELD_ID, EXTERNAL_TYPE_FIELD_ID,
};
use reflectable::{Reflectable, RttiTypeBuilder};
use std::cell::RefCell;
use std::rc::{Rc, Weak};

#[derive(Reflectable, Default)]
#[rtti(id = 810_000)]
struct Entity {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    children: Vec<Rc<RefCell<Entity>>>,
    #[rtti(id = 3)]
    parent: Weak<RefCell<Entity>>,
    /// Any other entity, looked at: inside the saved subtree or not.
    #[rtti(id = 4)]
    looks_at: Weak<RefCell<Entity>>,
}

type Node = Rc<RefCell<Entity>>;

fn entity(name: &str, parent: Option<&Node>) -> Node {
    let node = Rc::new(RefCell::new(Entity { name: name.into(), ..Entity::default() }));
    if let Some(parent) = parent {
        node.borrow_mut().parent = Rc::downgrade(parent);
        parent.borrow_mut().children.push(node.clone());
    }
    node
}

/// scene > (door > (hinge, knob), lamp).
struct Scene {
    scene: Node,
    door: Node,
    lamp: Node,
}

fn scene() -> Scene {
    let scene = entity("scene", None);
    let door = entity("door", Some(&scene));
    entity("hinge", Some(&door));
    entity("knob", Some(&door));
    let lamp = entity("lamp", Some(&scene));
    Scene { scene, door, lamp }
}

fn child(node: &Node, index: usize) -> Node {
    node.borrow().children[index].clone()
}

/// The number of top-level objects the stream's trailer records.
fn stream_objects(bytes: &[u8]) -> u32 {
    let at = bytes.len() - TRAILER_SIZE + 8;
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn with(weak: WeakPointers<'_>) -> BinarySerializer<'_> {
    BinarySerializer::new().weak_pointers(weak)
}

/// Keys are the entities' names' lengths: "scene" is 5.
fn key_of(object: &dyn Reflectable) -> Option<u64> {
    object.downcast_ref::<Entity>().map(|entity| entity.name.len() as u64)
}

#[test]
fn following_weak_pointers_saves_the_whole_scene() {
    let Scene { door, scene: _scene, .. } = scene();
    let bytes = BinarySerializer::new().encode(&door).unwrap();
    assert_eq!(stream_objects(&bytes), 5, "the door's parent brings the scene and the lamp");
    // ... which loads, and is dropped again: nothing in the door's graph holds it strongly.
    let back: Node = BinarySerializer::new().decode(&bytes).unwrap();
    assert!(back.borrow().parent.upgrade().is_none());
    assert_eq!(back.borrow().children.len(), 2);
}

#[test]
fn null_writes_only_the_subtree_and_the_parent_loads_dead() {
    let Scene { door, scene: _scene, .. } = scene();
    let bytes = with(WeakPointers::Null).encode(&door).unwrap();
    assert_eq!(stream_objects(&bytes), 3, "door, hinge, knob");
    let back: Node = BinarySerializer::new().decode(&bytes).unwrap();
    assert!(back.borrow().parent.upgrade().is_none(), "the scene was cut");
    let hinge = child(&back, 0);
    assert_eq!(hinge.borrow().name, "hinge");
    let parent = hinge.borrow().parent.upgrade().expect("a parent inside the subtree stays linked");
    assert!(Rc::ptr_eq(&parent, &back));
}

/// Every entity name a stream holds, in stream order.
fn names_in(bytes: &[u8]) -> Vec<String> {
    let graph = reflectable::dynamic::DynamicGraph::from_bytes(bytes).unwrap();
    let json = graph.to_json().unwrap();
    let document: serde_json::Value = serde_json::from_str(&json).unwrap();
    document["objects"].as_array().unwrap().iter().map(|object| object["name"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn the_one_call_subtree_save_writes_the_entity_and_says_what_it_cut() {
    let Scene { door, lamp, scene } = scene();
    let knob = child(&door, 1);
    knob.borrow_mut().looks_at = Rc::downgrade(&lamp); // a second way out of the subtree
    child(&door, 0).borrow_mut().looks_at = Rc::downgrade(&knob); // a way that stays inside

    // `save` follows the parent: the whole scene.
    assert_eq!(names_in(&reflectable::to_vec(&door).unwrap()).len(), 5);

    let (bytes, cuts) = reflectable::to_vec_subtree(&door).unwrap();
    assert_eq!(names_in(&bytes), ["door", "hinge", "knob"]);
    assert_eq!(cuts.count(), 2);
    assert_eq!(
        cuts.to_string(),
        "cut 1 Weak in Entity.parent (to Entity), written as null\ncut 1 Weak in Entity.looks_at (to Entity), written as null"
    );
    let parent = &cuts.cuts()[0];
    assert_eq!(
        (parent.type_name, parent.field_name.as_str(), parent.nulled, parent.external),
        ("Entity", "parent", 1, 0)
    );

    // The file form: the same bytes but for the checksum, the same report.
    let path = std::env::temp_dir().join(format!("reflectable-subtree-{}.bin", std::process::id()));
    let (size, in_file) = reflectable::save_subtree(&door, &path).unwrap();
    assert_eq!((size, &in_file), (std::fs::metadata(&path).unwrap().len(), &cuts));
    let back: Node = reflectable::load(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(back.borrow().parent.upgrade().is_none());
    let (hinge, knob) = (child(&back, 0), child(&back, 1));
    assert!(Rc::ptr_eq(&hinge.borrow().looks_at.upgrade().unwrap(), &knob), "inside stays linked");
    assert!(Rc::ptr_eq(&hinge.borrow().parent.upgrade().unwrap(), &back));

    // A subtree that reaches nothing outside itself cuts nothing; the whole scene is one.
    let (whole, nothing) = reflectable::to_vec_subtree(&scene).unwrap();
    assert!(nothing.is_empty() && nothing.to_string() == "nothing cut");
    assert_eq!(names_in(&whole).len(), 5);
}

#[test]
fn a_subtree_save_with_external_references_counts_them_per_field() {
    let Scene { door, lamp, scene: _scene } = scene();
    let (hinge, knob) = (child(&door, 0), child(&door, 1));
    hinge.borrow_mut().looks_at = Rc::downgrade(&lamp);
    knob.borrow_mut().looks_at = Rc::downgrade(&lamp);
    // The lamp's key is 4; no key for the scene: its pointer is nulled.
    let key_of =
        |object: &dyn Reflectable| object.downcast_ref::<Entity>().filter(|entity| entity.name == "lamp").map(|_| 4);
    let (_, cuts) = with(WeakPointers::External(&key_of)).encode_subtree(&door).unwrap();
    let by_field: Vec<_> = cuts.cuts().iter().map(|cut| (cut.field_name.as_str(), cut.nulled, cut.external)).collect();
    assert_eq!(by_field, [("parent", 1, 0), ("looks_at", 0, 2)], "{cuts}");
    assert_eq!(
        cuts.cuts()[1].to_string(),
        "cut 2 Weaks in Entity.looks_at (to Entity), written as external references"
    );
    // A serializer left at `Follow` cuts to null in a subtree save.
    assert_eq!(BinarySerializer::new().encode_subtree(&door).unwrap().1.count(), 3);
}

#[test]
fn a_weak_whose_target_the_subtree_holds_stays_linked() {
    let Scene { door, lamp, scene: _scene } = scene();
    let (hinge, knob) = (child(&door, 0), child(&door, 1));
    hinge.borrow_mut().looks_at = Rc::downgrade(&knob); // inside the subtree
    knob.borrow_mut().looks_at = Rc::downgrade(&lamp); // outside it
    for weak in [WeakPointers::Null, WeakPointers::External(&key_of)] {
        let bytes = with(weak).encode(&door).unwrap();
        let back: Node = BinarySerializer::new().decode(&bytes).unwrap();
        let (hinge, knob) = (child(&back, 0), child(&back, 1));
        let looked_at = hinge.borrow().looks_at.upgrade().expect("the knob is in the stream");
        assert!(Rc::ptr_eq(&looked_at, &knob), "{weak:?}: the decoded knob itself");
        assert!(knob.borrow().looks_at.upgrade().is_none(), "{weak:?}: no relink function, so null");
    }
}

#[test]
fn external_relinks_the_parent_to_the_callers_object() {
    let Scene { scene, door, lamp } = scene();
    door.borrow_mut().looks_at = Rc::downgrade(&scene); // a second pointer to the same target
    child(&door, 0).borrow_mut().looks_at = Rc::downgrade(&lamp);
    let bytes = with(WeakPointers::External(&key_of)).encode(&door).unwrap();
    assert_eq!(stream_objects(&bytes), 5, "door, hinge, knob, one stub for the scene, one for the lamp");

    let asked = RefCell::new(Vec::new());
    let (scene_target, lamp_target) = (scene.clone(), lamp.clone());
    let relink = |key: u64, type_id: u32| {
        asked.borrow_mut().push((key, type_id));
        match key {
            5 => Some(SharedObject::new(scene_target.clone())),
            4 => Some(SharedObject::new(lamp_target.clone())),
            _ => None,
        }
    };
    let paste = BinarySerializer::new().relink(&relink);
    let holders = Rc::strong_count(&scene);
    let back: Node = paste.decode(&bytes).unwrap();
    assert!(Rc::ptr_eq(&back.borrow().parent.upgrade().unwrap(), &scene), "re-linked to the original");
    assert!(Rc::ptr_eq(&back.borrow().looks_at.upgrade().unwrap(), &scene), "both pointers");
    assert!(Rc::ptr_eq(&child(&back, 0).borrow().looks_at.upgrade().unwrap(), &lamp));
    assert!(!Rc::ptr_eq(&back, &door), "the door itself is a copy");
    let mut asked = asked.into_inner();
    asked.sort();
    let entity_id = Entity::rtti_static().id();
    assert_eq!(asked, [(4, entity_id), (5, entity_id)], "once per stub, with the target's type");
    assert_eq!(scene.borrow().children.len(), 2, "decoding never changes the caller's objects");
    assert_eq!(Rc::strong_count(&scene), holders, "the pasted door holds its parent weakly, as the original");
}

#[test]
fn the_stub_is_the_bytes_format_md_gives() {
    let Scene { door, scene: _scene, .. } = scene();
    let bytes = with(WeakPointers::External(&key_of)).encode(&door).unwrap();
    let stub: [u8; 28] = [
        0x11, 0, 0, 0, 0x03, 0xFF, 0xFF, 0xFF, // instance 4, type 0xFFFF_FF03
        0x00, 0x08, 0x01, 0x00, 5, 0, 0, 0, 0, 0, 0, 0, // field 1: key 5
        0x00, 0x04, 0x02, 0x00, 0x10, 0x5C, 0x0C, 0x00, // field 2: type 810_000
    ];
    let end = bytes.len() - TRAILER_SIZE - reflectable::schema::Schema::size_in_stream(&bytes).unwrap();
    assert_eq!(bytes[end - stub.len()..end], stub, "the last object, before the schema table");
}

#[test]
fn a_target_without_a_key_or_a_decoder_without_relink_gives_null() {
    let Scene { door, scene: _scene, .. } = scene();
    let no_key = |_: &dyn Reflectable| None;
    let bytes = with(WeakPointers::External(&no_key)).encode(&door).unwrap();
    assert_eq!(stream_objects(&bytes), 3, "no key: a null pointer, no stub");
    let back: Node = BinarySerializer::new().decode(&bytes).unwrap();
    assert!(back.borrow().parent.upgrade().is_none());

    // A reader without a relink function (or one from before external references) loads null.
    let bytes = with(WeakPointers::External(&key_of)).encode(&door).unwrap();
    let back: Node = BinarySerializer::new().decode(&bytes).unwrap();
    assert!(back.borrow().parent.upgrade().is_none());
    assert_eq!(child(&back, 1).borrow().name, "knob", "and the rest loads");
}

#[test]
fn a_relinked_object_of_the_wrong_type_or_family_gives_null() {
    #[derive(Reflectable, Default)]
    #[rtti(id = 810_001)]
    struct Other {
        #[rtti(id = 1)]
        x: u32,
    }
    let Scene { scene, door, lamp: _lamp } = scene();
    let bytes = with(WeakPointers::External(&key_of)).encode(&door).unwrap();
    let wrong_type = || Some(SharedObject::new(Rc::new(RefCell::new(Other::default()))));
    let wrong_family = || Some(SharedObject::new(Rc::new(Entity::default())));
    let scene_in_arc = || Some(SharedObject::new(std::sync::Arc::new(std::sync::Mutex::new(Other::default()))));
    for make in [&wrong_type as &dyn Fn() -> Option<SharedObject>, &wrong_family, &scene_in_arc] {
        let relink = |_: u64, _: u32| make();
        let back: Node = BinarySerializer::new().relink(&relink).decode(&bytes).unwrap();
        assert!(back.borrow().parent.upgrade().is_none());
        assert_eq!(back.borrow().children.len(), 2);
    }
    assert_eq!(scene.borrow().children.len(), 2);
}

#[test]
fn a_failed_decode_leaves_the_relinked_object_alone() {
    let Scene { scene, door, lamp: _lamp } = scene();
    let mut bytes = with(WeakPointers::External(&key_of)).encode(&door).unwrap();
    // Break the knob's name, decoded after the door's parent was re-linked: invalid UTF-8.
    let at = bytes.windows(4).position(|w| w == b"knob").unwrap();
    bytes[at] = 0xFF;
    let target = scene.clone();
    let relink = move |_: u64, _: u32| Some(SharedObject::new(target.clone()));
    let paste = BinarySerializer::new().relink(&relink);
    assert!(paste.decode::<Node>(&bytes).is_err());
    assert_eq!(scene.borrow().children.len(), 2, "teardown clears what it built, not the caller's scene");
    assert!(Rc::ptr_eq(&child(&scene, 0), &door));
}

#[test]
fn a_weak_back_to_a_root_passed_by_reference_is_still_an_error() {
    let Scene { door, scene: _scene, .. } = scene();
    let hinge = child(&door, 0);
    let error = with(WeakPointers::Null).encode(&*door.borrow()).unwrap_err();
    assert!(matches!(error, EncodeError::RootBehindPointer { .. }), "{error}");
    // Without a pointer back to it, a root by reference saves its subtree.
    hinge.borrow_mut().parent = Weak::new();
    child(&door, 1).borrow_mut().parent = Weak::new();
    let bytes = with(WeakPointers::Null).encode(&*door.borrow()).unwrap();
    assert_eq!(stream_objects(&bytes), 3);
}

/// An immutable graph: the holder's `Weak` is resolved while immutable objects are built.
#[derive(Reflectable, Default)]
#[rtti(id = 810_002)]
struct Asset {
    #[rtti(id = 1)]
    path: String,
}

#[derive(Reflectable, Default)]
#[rtti(id = 810_003)]
struct Holder {
    #[rtti(id = 1)]
    asset: std::rc::Weak<Asset>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 810_004)]
struct Prefab {
    #[rtti(id = 1)]
    holder: Option<Rc<Holder>>,
}

#[test]
fn external_references_in_immutable_objects_relink_too() {
    let asset = Rc::new(Asset { path: "rock.mesh".into() });
    let prefab = Prefab { holder: Some(Rc::new(Holder { asset: Rc::downgrade(&asset) })) };
    let by_path = |object: &dyn Reflectable| object.downcast_ref::<Asset>().map(|asset| asset.path.len() as u64);
    let bytes = with(WeakPointers::External(&by_path)).encode(&prefab).unwrap();
    assert_eq!(stream_objects(&bytes), 3, "prefab, holder, the asset's stub");
    let target = asset.clone();
    let relink = move |key: u64, _: u32| (key == 9).then(|| SharedObject::new(target.clone()));
    let back: Prefab = BinarySerializer::new().relink(&relink).decode(&bytes).unwrap();
    let linked = back.holder.unwrap().asset.upgrade().expect("re-linked");
    assert!(Rc::ptr_eq(&linked, &asset));

    let back: Prefab = with(WeakPointers::Null).decode(&with(WeakPointers::Null).encode(&prefab).unwrap()).unwrap();
    assert!(back.holder.unwrap().asset.upgrade().is_none());
}

#[test]
fn the_external_type_id_is_reserved() {
    let error = RttiTypeBuilder::<Asset>::new(EXTERNAL_TYPE_ID, "Impostor").build().unwrap_err();
    assert!(matches!(error, reflectable::rtti::RttiError::BuiltInTypeId { id: EXTERNAL_TYPE_ID, .. }), "{error}");
}

/// A hand-assembled stream: root `Entity` (instance 1) whose parent points at instance 2, which
/// is whatever `stub` writes, ended by a correct trailer.
fn hostile(stub: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    TypeHeader { instance: 1, base: false, type_id: Entity::rtti_static().id() }.write(&mut bytes);
    bytes.extend_from_slice(&FieldHeader::new(3, WireKind::Pointer, false).pack().to_le_bytes());
    bytes.extend_from_slice(&2u32.to_le_bytes());
    TypeHeader { instance: 2, base: false, type_id: EXTERNAL_TYPE_ID }.write(&mut bytes);
    stub(&mut bytes);
    bytes.extend_from_slice(&EMPTY_SCHEMA_TABLE);
    let length = (bytes.len() + TRAILER_SIZE) as u64;
    let trailer = Trailer { flags: 0, objects: 2, length, checksum: 0 };
    [bytes, trailer.to_bytes().to_vec()].concat()
}

fn field(bytes: &mut Vec<u8>, id: u16, kind: WireKind, data: &[u8]) {
    bytes.extend_from_slice(&FieldHeader::new(id, kind, false).pack().to_le_bytes());
    bytes.extend_from_slice(data);
}

#[test]
fn hostile_stubs_give_null_never_a_panic() {
    let scene = entity("scene", None);
    let target = scene.clone();
    let relink = move |key: u64, type_id: u32| {
        (key == 5 && type_id == Entity::rtti_static().id()).then(|| SharedObject::new(target.clone()))
    };
    let paste = BinarySerializer::new().relink(&relink);
    let id = Entity::rtti_static().id().to_le_bytes();
    let (key8, key4) = (WireKind::Plain(Some(8)), WireKind::Plain(Some(4)));

    let good = hostile(|b| {
        field(b, EXTERNAL_KEY_FIELD_ID, key8, &5u64.to_le_bytes());
        field(b, EXTERNAL_TYPE_FIELD_ID, key4, &id);
    });
    let back: Node = paste.decode(&good).unwrap();
    assert!(Rc::ptr_eq(&back.borrow().parent.upgrade().unwrap(), &scene), "the well-formed stub links");

    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("no fields", hostile(|_| {})),
        ("no type", hostile(|b| field(b, EXTERNAL_KEY_FIELD_ID, key8, &5u64.to_le_bytes()))),
        ("no key", hostile(|b| field(b, EXTERNAL_TYPE_FIELD_ID, key4, &id))),
        (
            "a key of 4 bytes",
            hostile(|b| {
                field(b, EXTERNAL_KEY_FIELD_ID, key4, &5u32.to_le_bytes());
                field(b, EXTERNAL_TYPE_FIELD_ID, key4, &id);
            }),
        ),
        (
            "a dynamic key",
            hostile(|b| {
                field(b, EXTERNAL_KEY_FIELD_ID, WireKind::Plain(None), &[12, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0]);
                field(b, EXTERNAL_TYPE_FIELD_ID, key4, &id);
            }),
        ),
        (
            "pointer fields",
            hostile(|b| {
                field(b, EXTERNAL_KEY_FIELD_ID, WireKind::Pointer, &1u32.to_le_bytes());
                field(b, EXTERNAL_TYPE_FIELD_ID, WireKind::Pointer, &1u32.to_le_bytes());
            }),
        ),
        (
            "a key the function does not know",
            hostile(|b| {
                field(b, EXTERNAL_KEY_FIELD_ID, key8, &6u64.to_le_bytes());
                field(b, EXTERNAL_TYPE_FIELD_ID, key4, &id);
            }),
        ),
        (
            "the fields in a base section",
            hostile(|b| {
                TypeHeader { instance: 2, base: true, type_id: 1 }.write(b);
                field(b, EXTERNAL_KEY_FIELD_ID, key8, &5u64.to_le_bytes());
                field(b, EXTERNAL_TYPE_FIELD_ID, key4, &id);
            }),
        ),
    ];
    for (what, bytes) in cases {
        let back: Node = paste.decode(&bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(back.borrow().parent.upgrade().is_none(), "{what}: null");
    }

    // A stub with extra fields of every kind still links: unknown fields are skipped.
    let extra = hostile(|b| {
        field(b, 9, WireKind::Plain(None), &[6, 0, 0, 0, 1, 2]);
        field(b, EXTERNAL_KEY_FIELD_ID, key8, &5u64.to_le_bytes());
        field(b, EXTERNAL_TYPE_FIELD_ID, key4, &id);
        field(b, 10, WireKind::Pointer, &0u32.to_le_bytes());
    });
    let back: Node = paste.decode(&extra).unwrap();
    assert!(back.borrow().parent.upgrade().is_some());

    // A stub as the root is an unknown root type; a truncated or corrupt stub is an error.
    let mut root_stub = MAGIC.to_vec();
    root_stub.extend_from_slice(&VERSION.to_le_bytes());
    TypeHeader { instance: 1, base: false, type_id: EXTERNAL_TYPE_ID }.write(&mut root_stub);
    root_stub.extend_from_slice(&EMPTY_SCHEMA_TABLE);
    let length = (root_stub.len() + TRAILER_SIZE) as u64;
    let root_stub = [root_stub, Trailer { flags: 0, objects: 1, length, checksum: 0 }.to_bytes().to_vec()].concat();
    assert!(paste.decode::<Box<dyn reflectable::Reflectable>>(&root_stub).is_err());
    assert!(paste.decode::<Node>(&root_stub).is_err());
    let corrupt = hostile(|b| field(b, EXTERNAL_KEY_FIELD_ID, key8, &[1, 2, 3]));
    assert!(paste.decode::<Node>(&corrupt).is_err());
    for cut in 0..good.len() {
        assert!(paste.decode::<Node>(&good[..cut]).is_err(), "cut at {cut}");
    }
}

#[test]
fn a_strong_pointer_to_a_stub_gets_the_callers_object_and_leaves_it_alone() {
    // Not what the encoder writes (it cuts only `Weak`s), but a stream may say so.
    let scene = entity("scene", None);
    let target = scene.clone();
    let relink = move |_: u64, _: u32| Some(SharedObject::new(target.clone()));
    let paste = BinarySerializer::new().relink(&relink);
    let id = Entity::rtti_static().id().to_le_bytes();
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    TypeHeader { instance: 1, base: false, type_id: Entity::rtti_static().id() }.write(&mut bytes);
    bytes.extend_from_slice(&FieldHeader::new(2, WireKind::Pointer, true).pack().to_le_bytes());
    bytes.extend_from_slice(&[2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0]);
    TypeHeader { instance: 2, base: false, type_id: EXTERNAL_TYPE_ID }.write(&mut bytes);
    field(&mut bytes, EXTERNAL_KEY_FIELD_ID, WireKind::Plain(Some(8)), &5u64.to_le_bytes());
    field(&mut bytes, EXTERNAL_TYPE_FIELD_ID, WireKind::Plain(Some(4)), &id);
    bytes.extend_from_slice(&EMPTY_SCHEMA_TABLE);
    let length = (bytes.len() + TRAILER_SIZE) as u64;
    let bytes = [bytes, Trailer { flags: 0, objects: 2, length, checksum: 0 }.to_bytes().to_vec()].concat();
    let back: Node = paste.decode(&bytes).unwrap();
    assert_eq!(back.borrow().children.len(), 2);
    assert!(Rc::ptr_eq(&back.borrow().children[1], &scene));
    drop(back);
    assert_eq!(Rc::strong_count(&scene), 2, "the scene and the relink function's handle");
}

/// Weaks held in maps and nested lists, in two fields of the same container type.
#[derive(Reflectable, Default)]
#[rtti(id = 810_010)]
struct Crowd {
    #[rtti(id = 1)]
    friends: std::collections::HashMap<String, Weak<RefCell<Entity>>>,
    #[rtti(id = 2)]
    enemies: std::collections::HashMap<String, Weak<RefCell<Entity>>>,
    #[rtti(id = 3)]
    squads: Vec<Vec<Weak<RefCell<Entity>>>>,
}

#[test]
fn a_cut_in_a_map_or_a_nested_list_names_the_field_holding_it() {
    let Scene { door, lamp, scene: _scene } = scene();
    let crowd = Crowd {
        friends: [("door".to_owned(), Rc::downgrade(&door))].into(),
        enemies: [("lamp".to_owned(), Rc::downgrade(&lamp))].into(),
        squads: vec![vec![Rc::downgrade(&door), Rc::downgrade(&lamp)]],
    };
    let (_, cuts) = reflectable::to_vec_subtree(&crowd).unwrap();
    let places: Vec<(&str, &str, u64)> =
        cuts.cuts().iter().map(|cut| (cut.type_name, cut.field_name.as_str(), cut.nulled)).collect();
    assert!(places.contains(&("Crowd", "friends or enemies", 2)), "{cuts}");
    assert!(places.contains(&("Crowd", "squads", 2)), "{cuts}");
}
