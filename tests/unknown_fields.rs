//! Fields a program's types lack survive its load and save: a newer build adds fields to types
//! both builds have (plain values, a plain type only it has, pointers with sharing, a cycle and
//! `Weak`s, an embedded object, pointers to objects of a type only it has); an older build whose
//! types keep unknown fields (`#[rtti(unknown)]`) loads, edits what it knows and saves; the newer
//! build loads that save and finds every object and field again.

#[path = "common/damage.rs"]
mod damage;

use reflectable::containers::MAP_TYPE_ID;
use reflectable::field::{FieldAccess, FieldKind};
use reflectable::plain::PlainBytes;
use reflectable::schema::Schema;
use reflectable::serializer::{BinarySerializer, EncodeError};
use reflectable::{Reflectable, Registry, UnknownFields};
use std::cell::RefCell;
use std::rc::Rc;

/// Both builds have these, unchanged.
#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 720_003, no_register)]
pub struct Hinge {
    #[rtti(id = 1)]
    pub squeak: u8,
}

#[derive(Reflectable, Default, Debug, PartialEq, Clone)]
#[rtti(id = 720_004, no_register)]
pub struct Frame {
    #[rtti(id = 1)]
    pub width: u16,
}

/// A reflectable enum both builds have.
#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 720_006, no_register)]
pub enum Mood {
    #[default]
    #[rtti(id = 1)]
    Calm,
    #[rtti(id = 2)]
    Creaky {
        #[rtti(id = 1)]
        pitch: f32,
    },
}

mod newer {
    use super::{Frame, Hinge, Mood};
    use reflectable::{PlainType, Reflectable};
    use std::cell::RefCell;
    use std::rc::{Rc, Weak};

    #[derive(Reflectable, Default)]
    #[rtti(id = 720_001, name = "Level", no_register)]
    pub struct Level {
        #[rtti(id = 1)]
        pub doors: Vec<Rc<RefCell<Door>>>,
        /// New: objects of a type the older build lacks.
        #[rtti(id = 2)]
        pub lights: Vec<Rc<RefCell<Light>>>,
        /// New.
        #[rtti(id = 3)]
        pub title: String,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 720_002, name = "Door", no_register)]
    pub struct Door {
        #[rtti(id = 1)]
        pub name: String,
        // Every field below is new.
        #[rtti(id = 2)]
        pub width: f32,
        /// Shared between doors.
        #[rtti(id = 3)]
        pub hinge: Option<Rc<RefCell<Hinge>>>,
        #[rtti(id = 4, embedded)]
        pub frame: Frame,
        /// Back to the level: a `Weak` to the root.
        #[rtti(id = 5)]
        pub level: Weak<RefCell<Level>>,
        /// A plain type only this build has.
        #[rtti(id = 6)]
        pub tags: Vec<Tag>,
        /// The doors form a ring: a cycle through kept fields.
        #[rtti(id = 7)]
        pub next: Option<Rc<RefCell<Door>>>,
        #[rtti(id = 8)]
        pub serial: u64,
        #[rtti(id = 9, embedded)]
        pub mood: Mood,
    }

    /// A build that adds containers: maps of pointers and of embedded objects, and a nested
    /// list, whose types the stream describes only through the fields holding them.
    #[derive(Reflectable, Default)]
    #[rtti(id = 720_002, name = "Door", no_register)]
    pub struct DoorWithSpares {
        #[rtti(id = 1)]
        pub name: String,
        #[rtti(id = 10)]
        pub spares: std::collections::BTreeMap<u16, Rc<RefCell<Hinge>>>,
        #[rtti(id = 11, embedded)]
        pub frames: std::collections::HashMap<String, Frame>,
        #[rtti(id = 12)]
        pub rings: Vec<Vec<Rc<RefCell<Hinge>>>>,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 720_005, name = "Light", no_register)]
    pub struct Light {
        #[rtti(id = 1)]
        pub lumens: u32,
        #[rtti(id = 2)]
        pub door: Weak<RefCell<Door>>,
    }

    #[derive(PlainType, Clone, Copy, Default, Debug, PartialEq)]
    #[plain(id = 7200)]
    pub struct Tag {
        pub code: u16,
        pub weight: f32,
    }
}

/// The older build: the same type IDs with fewer fields, each keeping the rest.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 720_001, name = "Level", no_register)]
struct Level {
    #[rtti(id = 1)]
    doors: Vec<Rc<RefCell<Door>>>,
    #[rtti(unknown)]
    kept: UnknownFields,
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 720_002, name = "Door", no_register)]
struct Door {
    #[rtti(id = 1)]
    name: String,
    #[rtti(unknown)]
    kept: UnknownFields,
}

/// A third build that has `width` again, and keeps the rest: a kept `width` would clash with it.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 720_002, name = "Door", no_register)]
struct DoorWithWidth {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    width: f32,
    #[rtti(unknown)]
    kept: UnknownFields,
}

fn newer_build() -> Registry {
    let mut registry = Registry::new();
    registry.register_type::<newer::Level>().unwrap();
    registry.register_type::<newer::Door>().unwrap();
    registry.register_type::<newer::Light>().unwrap();
    registry.register_type::<Hinge>().unwrap();
    registry.register_type::<Frame>().unwrap();
    registry.register_type::<Mood>().unwrap();
    registry
}

fn older_build() -> Registry {
    let mut registry = Registry::new();
    registry.register_type::<Level>().unwrap();
    registry.register_type::<Door>().unwrap();
    registry.register_type::<Hinge>().unwrap();
    registry.register_type::<Frame>().unwrap();
    registry.register_type::<Mood>().unwrap();
    registry
}

fn tag(i: usize) -> newer::Tag {
    newer::Tag { code: i as u16 * 3, weight: i as f32 / 4.0 }
}

fn level() -> Rc<RefCell<newer::Level>> {
    let level = Rc::new(RefCell::new(newer::Level { title: "crypt".into(), ..Default::default() }));
    let hinge = Rc::new(RefCell::new(Hinge { squeak: 7 }));
    let doors: Vec<_> = (0..3)
        .map(|i| {
            Rc::new(RefCell::new(newer::Door {
                name: format!("door {i}"),
                width: 0.5 + i as f32,
                // Doors 0 and 1 share a hinge; door 2 has its own.
                hinge: Some(if i < 2 { hinge.clone() } else { Rc::new(RefCell::new(Hinge { squeak: 9 })) }),
                frame: Frame { width: 80 + i as u16 },
                level: Rc::downgrade(&level),
                tags: (0..i + 1).map(tag).collect(),
                next: None,
                serial: u64::MAX - i as u64,
                mood: if i == 1 { Mood::Creaky { pitch: 2.5 } } else { Mood::Calm },
            }))
        })
        .collect();
    for i in 0..3 {
        doors[i].borrow_mut().next = Some(doors[(i + 1) % 3].clone());
    }
    let lights = (0..2)
        .map(|i| Rc::new(RefCell::new(newer::Light { lumens: 800 + i, door: Rc::downgrade(&doors[i as usize]) })))
        .collect();
    {
        let mut level = level.borrow_mut();
        level.doors = doors;
        level.lights = lights;
    }
    level
}

fn address<T: ?Sized>(rc: &Rc<T>) -> *const () {
    Rc::as_ptr(rc) as *const ()
}

/// Every object and field the newer build put in, with `names` as the doors' names.
fn check_level(level: &Rc<RefCell<newer::Level>>, names: [&str; 3]) {
    let l = level.borrow();
    assert_eq!(l.title, "crypt");
    assert_eq!(l.doors.len(), 3);
    for (i, door) in l.doors.iter().enumerate() {
        let d = door.borrow();
        assert_eq!(d.name, names[i]);
        assert_eq!(d.width, 0.5 + i as f32);
        assert_eq!(d.hinge.as_ref().unwrap().borrow().squeak, if i < 2 { 7 } else { 9 });
        assert_eq!(d.frame, Frame { width: 80 + i as u16 });
        assert_eq!(address(&d.level.upgrade().unwrap()), address(level), "the Weak to the root");
        assert_eq!(d.tags, (0..i + 1).map(tag).collect::<Vec<_>>());
        assert_eq!(address(d.next.as_ref().unwrap()), address(&l.doors[(i + 1) % 3]), "the ring");
        assert_eq!(d.serial, u64::MAX - i as u64);
        assert_eq!(d.mood, if i == 1 { Mood::Creaky { pitch: 2.5 } } else { Mood::Calm });
    }
    let hinge = |i: usize| l.doors[i].borrow().hinge.clone().unwrap();
    assert_eq!(address(&hinge(0)), address(&hinge(1)), "one hinge, shared");
    assert_ne!(address(&hinge(0)), address(&hinge(2)));
    assert_eq!(l.lights.len(), 2);
    for (i, light) in l.lights.iter().enumerate() {
        assert_eq!(light.borrow().lumens, 800 + i as u32);
        assert_eq!(address(&light.borrow().door.upgrade().unwrap()), address(&l.doors[i]));
    }
}

/// Breaks the ring so the test does not leak.
fn release_newer(level: &Rc<RefCell<newer::Level>>) {
    for door in &level.borrow().doors {
        door.borrow_mut().next = None;
    }
}

fn release_older(level: &Rc<RefCell<Level>>) {
    for door in &level.borrow().doors {
        door.borrow_mut().kept.clear();
    }
}

fn older_serializer(registry: &Registry) -> BinarySerializer<'_> {
    BinarySerializer::with_registry(registry).keep_unknown_types(true)
}

/// The newer build's save of [`level`] (its cycles freed).
fn newer_save() -> Vec<u8> {
    let original = level();
    let bytes = BinarySerializer::with_registry(&newer_build()).encode(&original).unwrap();
    release_newer(&original);
    bytes
}

/// The newer build's save, and the older build's save of what it loaded from it.
fn both_saves() -> (Vec<u8>, Vec<u8>) {
    let new_bytes = newer_save();
    let old_registry = older_build();
    let older = older_serializer(&old_registry);
    let loaded: Rc<RefCell<Level>> = older.decode(&new_bytes).unwrap();
    let old_bytes = older.encode(&loaded).unwrap();
    release_older(&loaded);
    (new_bytes, old_bytes)
}

#[test]
fn an_older_build_keeps_the_fields_a_newer_one_added() {
    let (new_registry, old_registry) = (newer_build(), older_build());
    let newer = BinarySerializer::with_registry(&new_registry);
    let original = level();
    let new_bytes = newer.encode(&original).unwrap();

    let older = older_serializer(&old_registry);
    let (loaded, report) = older.decode_with_report::<Rc<RefCell<Level>>>(&new_bytes).unwrap();
    assert!(report.is_empty(), "nothing is dropped: {report}");
    {
        let level = loaded.borrow();
        let kept = level.kept.object().expect("the level keeps its lights and title");
        assert_eq!(kept.get::<String>("title"), Ok("crypt".to_owned()));
        let door = level.doors[1].borrow();
        let names: Vec<_> = door.kept.fields().iter().map(|field| field.name().to_owned()).collect();
        assert_eq!(names, ["width", "hinge", "frame", "level", "tags", "next", "serial", "mood"]);
        let kept = door.kept.object().unwrap();
        assert_eq!(kept.get::<f32>("width"), Ok(1.5), "a plain type the older build has reads as itself");
        assert_eq!(kept.get::<u64>("serial"), Ok(u64::MAX - 1));
        let tags = kept.get::<PlainBytes>("tags").unwrap();
        assert_eq!(tags.count(), 2, "a plain type it lacks is kept as its bytes");
        assert!(kept.get::<f32>("tags").is_err(), "never reinterpreted");
        let hinge = door.kept.fields().iter().find(|field| field.name() == "hinge").unwrap();
        let hinge = hinge.shared(kept, 0).unwrap().expect("a kept pointer holds its target");
        assert!(hinge.read(|hinge| hinge.downcast_ref::<Hinge>().unwrap().squeak == 7).unwrap());
        assert!(format!("{:?}", door.kept).contains("tags (id 6)"));
    }
    // The older build edits what it knows, and saves.
    for door in &loaded.borrow().doors {
        door.borrow_mut().name.push_str(" (renamed)");
    }
    let old_bytes = older.encode(&loaded).unwrap();

    let (reloaded, report) = newer.decode_with_report::<Rc<RefCell<newer::Level>>>(&old_bytes).unwrap();
    assert!(report.is_empty(), "{report}");
    check_level(&original, ["door 0", "door 1", "door 2"]);
    check_level(&reloaded, ["door 0 (renamed)", "door 1 (renamed)", "door 2 (renamed)"]);

    // The older build reads its own save as it read the newer one's, and writes the same bytes.
    let (again, report) = older.decode_with_report::<Rc<RefCell<Level>>>(&old_bytes).unwrap();
    assert!(report.is_empty(), "{report}");
    assert_eq!(older.encode(&again).unwrap(), old_bytes);

    release_newer(&original);
    release_newer(&reloaded);
    release_older(&loaded);
    release_older(&again);
}

#[test]
fn a_save_describes_kept_fields_as_the_newer_build_did() {
    let (new_bytes, old_bytes) = both_saves();
    let door_of = |bytes: &[u8]| Schema::of_stream(bytes).unwrap().get(720_002).unwrap().clone();
    let (new_door, old_door) = (door_of(&new_bytes), door_of(&old_bytes));
    assert_ne!(new_door.fingerprint, old_door.fingerprint, "the older build's own type, plus what it kept");
    assert_eq!(old_door.fields, new_door.fields, "every field, described exactly as stored");
}

#[test]
fn without_keeping_unknown_types_only_their_objects_are_dropped() {
    let (new_bytes, old_registry) = (newer_save(), older_build());
    let older = BinarySerializer::with_registry(&old_registry);
    let (loaded, report) = older.decode_with_report::<Rc<RefCell<Level>>>(&new_bytes).unwrap();
    assert!(report.to_string().contains("720005"), "the lights are dropped, and reported: {report}");
    {
        let level = loaded.borrow();
        let lights = level.kept.fields().iter().find(|field| field.name() == "lights").unwrap();
        let kept = level.kept.object().unwrap();
        assert_eq!(lights.len(kept), Ok(2), "the field is kept");
        assert!(lights.shared(kept, 0).unwrap().is_none(), "its targets are gone");
        let door = level.doors[0].borrow();
        assert_eq!(door.kept.object().unwrap().get::<f32>("width"), Ok(0.5), "the other fields are kept");
    }
    release_older(&loaded);
}

#[test]
fn a_type_without_the_member_skips_and_reports() {
    #[derive(Reflectable, Default)]
    #[rtti(id = 720_002, name = "Door", no_register)]
    struct PlainDoor {
        #[rtti(id = 1)]
        name: String,
    }
    let mut registry = Registry::new();
    registry.register_type::<PlainDoor>().unwrap();
    let bytes = BinarySerializer::with_registry(&newer_build())
        .encode(&newer::Door { name: "lone".into(), width: 2.0, ..Default::default() })
        .unwrap();
    let (door, report) = BinarySerializer::with_registry(&registry).decode_with_report::<PlainDoor>(&bytes).unwrap();
    assert_eq!(door.name, "lone");
    assert!(report.to_string().contains("width"), "{report}");
}

#[test]
fn maps_and_nested_lists_added_by_a_newer_build_survive_an_older_one() {
    let mut registry = Registry::new();
    registry.register_type::<newer::DoorWithSpares>().unwrap();
    registry.register_type::<Hinge>().unwrap();
    registry.register_type::<Frame>().unwrap();
    let hinges: Vec<_> = (0..3).map(|i| Rc::new(RefCell::new(Hinge { squeak: i }))).collect();
    let door = newer::DoorWithSpares {
        name: "spare".into(),
        spares: [(0, hinges[0].clone()), (1, hinges[1].clone()), (7, hinges[0].clone())].into(),
        frames: [("left".to_owned(), Frame { width: 3 }), ("right".to_owned(), Frame { width: 4 })].into(),
        rings: vec![vec![hinges[2].clone(), hinges[1].clone()], vec![]],
    };
    let bytes = BinarySerializer::with_registry(&registry).encode(&door).unwrap();

    let old_registry = older_build();
    let (old, report) = older_serializer(&old_registry).decode_with_report::<Door>(&bytes).unwrap();
    assert!(report.is_empty(), "nothing dropped: {report}");
    let kept: Vec<_> = old.kept.fields().iter().map(|field| field.name()).collect();
    assert_eq!(kept, ["spares", "frames", "rings"]);
    // The kept map is an object with the map type's ID and fields, its keys as stored bytes.
    let spares = old.kept.fields().iter().find(|field| field.name() == "spares").unwrap();
    let FieldAccess::Embedded(values) = spares.access() else { panic!("a map is an embedded object") };
    let mut seen = Vec::new();
    values
        .for_each(old.kept.object().unwrap(), &mut |map| {
            let map = map.expect("the map object");
            let fields = map.rtti().fields();
            seen.push((map.rtti().id(), fields[0].len(map).unwrap(), fields[1].len(map).unwrap(), fields[1].kind()));
        })
        .unwrap();
    assert_eq!(seen, [(MAP_TYPE_ID, 3, 3, FieldKind::Pointer)]);
    let old_bytes = BinarySerializer::with_registry(&old_registry).encode(&old).unwrap();

    let (back, report) =
        BinarySerializer::with_registry(&registry).decode_with_report::<newer::DoorWithSpares>(&old_bytes).unwrap();
    assert!(report.is_empty(), "the newer build reads every field as its own: {report}");
    assert_eq!(back.spares.keys().copied().collect::<Vec<_>>(), [0, 1, 7]);
    assert!(Rc::ptr_eq(&back.spares[&0], &back.spares[&7]), "sharing inside the map");
    assert!(Rc::ptr_eq(&back.rings[0][1], &back.spares[&1]), "and between the map and the list");
    assert_eq!(back.rings[0][0].borrow().squeak, 2);
    assert!(back.rings[1].is_empty());
    assert_eq!(back.frames["left"], Frame { width: 3 });
    assert_eq!(back.frames["right"], Frame { width: 4 });
}

#[test]
fn a_kept_field_that_clashes_with_a_declared_one_is_refused_on_save() {
    let (new_registry, old_registry) = (newer_build(), older_build());
    let bytes = BinarySerializer::with_registry(&new_registry)
        .encode(&newer::Door { name: "lone".into(), width: 2.0, ..Default::default() })
        .unwrap();
    let mut door: Door = older_serializer(&old_registry).decode(&bytes).unwrap();
    let mut registry = Registry::new();
    registry.register_type::<DoorWithWidth>().unwrap();
    registry.register_type::<Mood>().unwrap();
    let moved = DoorWithWidth { name: door.name.clone(), width: 1.0, kept: std::mem::take(&mut door.kept) };
    let error = BinarySerializer::with_registry(&registry).encode(&moved).unwrap_err();
    assert!(matches!(error, EncodeError::KeptFieldClash { field: 2, .. }), "{error}");

    // The same build reading the newer stream keeps only what it lacks, and saves fine.
    let (reread, report) = older_serializer(&registry).decode_with_report::<DoorWithWidth>(&bytes).unwrap();
    assert!(report.is_empty(), "{report}");
    assert_eq!(reread.width, 2.0);
    assert!(!reread.kept.fields().iter().any(|field| field.id() == 2));
    BinarySerializer::with_registry(&registry).encode(&reread).unwrap();
}

#[test]
fn every_cut_and_flipped_byte_is_refused_or_kept_without_a_panic() {
    let old_registry = older_build();
    let older = older_serializer(&old_registry);
    let (new_bytes, old_bytes) = both_saves();
    for bytes in [new_bytes, old_bytes] {
        let attempt = |input: &[u8]| {
            if let Ok(root) = older.decode::<Rc<RefCell<Level>>>(input) {
                let _ = older.encode(&root);
                release_older(&root);
            }
        };
        damage::cuts_and_flips(&bytes).for_each(|input| attempt(&input));
    }
}

#[test]
fn derived_and_built_types_say_whether_they_keep() {
    assert!(Door::rtti_static().keeps_unknown_fields());
    assert!(!Hinge::rtti_static().keeps_unknown_fields());
    let door = Door::default();
    assert!(Door::rtti_static().unknown_fields(&door).unwrap().is_empty());
    assert!(Hinge::rtti_static().unknown_fields(&Hinge::default()).is_none());
}

#[test]
fn graph_walks_and_teardown_follow_kept_pointers() {
    use reflectable::field::SharedObject;
    use reflectable::rtti::{break_cycles, reachable_shared};
    let old_registry = older_build();
    let loaded: Rc<RefCell<Level>> = older_serializer(&old_registry).decode(&newer_save()).unwrap();
    let reachable = reachable_shared(&SharedObject::new(loaded.clone()));
    assert_eq!(reachable.len(), 1 + 3 + 2 + 2, "the level, its doors, and the hinges and lights only kept fields hold");
    drop(reachable);
    let door = Rc::downgrade(&loaded.borrow().doors[0]);
    break_cycles(&loaded);
    drop(loaded);
    assert!(door.upgrade().is_none(), "the ring through kept fields is broken, and freed");
}
