//! The shapes of unknown data an older build keeps besides plain structs: objects of enums it
//! lacks (with data, shared and embedded), objects whose chain runs through an abstract base it
//! lacks or has, and maps and nested lists inside the objects of unknown types. A newer build
//! writes them; the older build (keeping unknown types) loads and saves; the save is
//! byte-identical, and the newer build finds every value and every shared object again.

#[path = "common/damage.rs"]
mod damage;

use reflectable::containers::MAP_TYPE_ID;
use reflectable::field::{FieldAccess, FieldError};
use reflectable::runtime::RuntimeObject;
use reflectable::serializer::BinarySerializer;
use reflectable::{Reflectable, Registry};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// Both builds have these.
#[derive(Reflectable, Default)]
#[rtti(id = 712_001, no_register)]
struct Scene {
    #[rtti(id = 1)]
    things: Vec<Rc<RefCell<dyn Reflectable>>>,
    #[rtti(id = 2)]
    extras: Vec<Box<dyn Reflectable>>,
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 712_002, no_register)]
struct Prop {
    #[rtti(id = 1)]
    name: String,
}

// ---- Only the newer build has what follows.

#[derive(Reflectable, Default, Debug, Clone)]
#[rtti(id = 712_010, no_register)]
enum Mood {
    #[default]
    #[rtti(id = 1)]
    Calm,
    #[rtti(id = 2)]
    Angry {
        #[rtti(id = 1)]
        level: u8,
        #[rtti(id = 2)]
        at: Option<Rc<RefCell<Prop>>>,
    },
    #[rtti(id = 5)]
    Singing {
        #[rtti(id = 1)]
        song: String,
    },
}

/// An abstract base the older build lacks.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 712_011, abstract, no_register)]
struct Trigger {
    #[rtti(id = 1)]
    radius: f32,
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 712_012, no_register)]
struct Plate {
    #[rtti(base)]
    trigger: Trigger,
    #[rtti(id = 1)]
    by_name: HashMap<String, Rc<RefCell<Prop>>>,
    #[rtti(id = 2, embedded)]
    moods: BTreeMap<u32, Mood>,
    #[rtti(id = 3)]
    layers: Vec<Vec<Rc<RefCell<Prop>>>>,
    #[rtti(id = 4)]
    mood: Option<Rc<RefCell<Mood>>>,
}

fn newer_build() -> Registry {
    let mut registry = older_build();
    registry.register_type::<Mood>().unwrap();
    registry.register_type::<Trigger>().unwrap();
    registry.register_type::<Plate>().unwrap();
    registry
}

fn older_build() -> Registry {
    let mut registry = Registry::new();
    registry.register_type::<Scene>().unwrap();
    registry.register_type::<Prop>().unwrap();
    registry
}

fn prop(name: &str) -> Rc<RefCell<Prop>> {
    Rc::new(RefCell::new(Prop { name: name.into() }))
}

fn scene() -> Scene {
    let (crate_, lamp) = (prop("crate"), prop("lamp"));
    let angry = Rc::new(RefCell::new(Mood::Angry { level: 7, at: Some(crate_.clone()) }));
    let plate = Plate {
        trigger: Trigger { radius: 1.5 },
        by_name: [("crate".to_owned(), crate_.clone()), ("lamp".to_owned(), lamp.clone())].into(),
        moods: [(1, Mood::Calm), (4, Mood::Singing { song: "la".into() })].into(),
        layers: vec![vec![lamp.clone(), crate_.clone()], vec![]],
        mood: Some(angry.clone()),
    };
    Scene {
        things: vec![crate_, Rc::new(RefCell::new(plate)), angry, lamp],
        extras: vec![Box::new(Mood::Singing { song: "hum".into() })],
    }
}

/// Everything the newer build put in, with its sharing.
fn check(scene: &Scene) {
    let things = &scene.things;
    let name = |i: usize| things[i].borrow().downcast_ref::<Prop>().unwrap().name.clone();
    assert_eq!((name(0), name(3)), ("crate".to_owned(), "lamp".to_owned()));
    let plate = things[1].borrow();
    let plate = plate.downcast_ref::<Plate>().expect("a plate");
    assert_eq!(plate.trigger.radius, 1.5, "the abstract base's section");
    let same =
        |a: &Rc<RefCell<Prop>>, i: usize| std::ptr::eq(Rc::as_ptr(a) as *const (), Rc::as_ptr(&things[i]) as *const ());
    assert!(same(&plate.by_name["crate"], 0) && same(&plate.by_name["lamp"], 3), "map values are the shared props");
    assert!(same(&plate.layers[0][0], 3) && same(&plate.layers[0][1], 0) && plate.layers[1].is_empty());
    assert!(matches!(plate.moods[&1], Mood::Calm));
    assert!(matches!(&plate.moods[&4], Mood::Singing { song } if song == "la"));
    let mood = plate.mood.clone().unwrap();
    assert!(
        std::ptr::eq(Rc::as_ptr(&mood) as *const (), Rc::as_ptr(&things[2]) as *const ()),
        "one shared enum object"
    );
    match &*mood.borrow() {
        Mood::Angry { level: 7, at: Some(at) } => assert!(same(at, 0)),
        other => panic!("{other:?}"),
    }
    assert!(matches!(scene.extras[0].downcast_ref::<Mood>(), Some(Mood::Singing { song }) if song == "hum"));
}

fn keeping(registry: &Registry) -> BinarySerializer<'_> {
    BinarySerializer::with_registry(registry).keep_unknown_types(true)
}

#[test]
fn enums_abstract_bases_and_containers_of_unknown_types_survive_an_older_build() {
    let new_registry = newer_build();
    let bytes = BinarySerializer::with_registry(&new_registry).encode(&scene()).unwrap();

    let old_registry = older_build();
    let (loaded, report) = keeping(&old_registry).decode_with_report::<Scene>(&bytes).unwrap();
    assert!(report.is_empty(), "nothing is dropped: {report}");
    {
        let angry = loaded.things[2].borrow();
        let angry = angry.downcast_ref::<RuntimeObject>().expect("the enum object is kept");
        let rtti = angry.rtti();
        assert_eq!((rtti.name(), rtti.active_variant(angry).unwrap().name()), ("Mood", "Angry"));
        assert_eq!(angry.get::<u8>("level"), Ok(7));
        assert!(matches!(angry.get::<String>("song"), Err(FieldError::NoSuchField { .. })));
        let song = rtti.variant_by_name("Singing").unwrap().field_by_name("song").unwrap();
        assert!(matches!(song.get::<String>(angry), Err(FieldError::InactiveVariant { .. })));
        let plate = loaded.things[1].borrow();
        let plate = plate.downcast_ref::<RuntimeObject>().unwrap();
        assert_eq!(plate.base().unwrap().rtti().name(), "Trigger", "the abstract base, kept as a section");
        assert_eq!(plate.get::<f32>("radius"), Ok(1.5));
        // The kept map: the map type's ID, its keys as stored bytes, shown as such.
        let by_name = plate.rtti().field_by_name("by_name").unwrap();
        let FieldAccess::Embedded(values) = by_name.access() else { panic!("a map is embedded") };
        let mut keys = Vec::new();
        values
            .for_each(plate, &mut |map| {
                let map = map.expect("kept");
                assert_eq!(map.rtti().id(), MAP_TYPE_ID);
                keys.push(map.rtti().fields()[0].to_text(map).expect("bytes have a text form"));
            })
            .unwrap();
        assert_eq!(keys.len(), 1);
        assert_eq!(keys, ["[0x6c616d70, 0x6372617465]"], "`lamp` and `crate`, in the order of their bytes");
    }
    let old_bytes = BinarySerializer::with_registry(&old_registry).encode(&loaded).unwrap();
    assert_eq!(old_bytes, bytes, "the older build writes back exactly what the newer one wrote");

    let (reloaded, report) =
        BinarySerializer::with_registry(&new_registry).decode_with_report::<Scene>(&old_bytes).unwrap();
    assert!(report.is_empty(), "{report}");
    check(&scene());
    check(&reloaded);
}

#[test]
fn a_kept_enum_changes_variant_like_a_rust_one() {
    let new_registry = newer_build();
    let bytes = BinarySerializer::with_registry(&new_registry).encode(&scene()).unwrap();
    let old_registry = older_build();
    let mut loaded: Scene = keeping(&old_registry).decode(&bytes).unwrap();
    {
        let mut calm = loaded.extras[0].as_mut();
        let rtti = calm.rtti();
        let singing = rtti.variant_by_name("Singing").unwrap();
        singing.field_by_name("song").unwrap().set(&mut *calm, "hush".to_owned()).unwrap();
        rtti.variant_by_name("Angry").unwrap().activate(&mut *calm).unwrap();
        let level = rtti.variant_by_name("Angry").unwrap().field_by_name("level").unwrap();
        level.set(&mut *calm, 3u8).unwrap();
        calm = loaded.extras[0].as_mut();
        assert_eq!(rtti.active_variant(&*calm).unwrap().name(), "Angry");
    }
    let saved = BinarySerializer::with_registry(&old_registry).encode(&loaded).unwrap();
    let reloaded: Scene = BinarySerializer::with_registry(&new_registry).decode(&saved).unwrap();
    assert!(matches!(reloaded.extras[0].downcast_ref::<Mood>(), Some(Mood::Angry { level: 3, at: None })));
}

#[test]
fn damaged_streams_with_unknown_shapes_are_refused_or_kept_without_a_panic() {
    let bytes = BinarySerializer::with_registry(&newer_build()).encode(&scene()).unwrap();
    let old_registry = older_build();
    let serializer = keeping(&old_registry);
    damage::cuts_and_flips(&bytes).for_each(|input| {
        if let Ok(root) = serializer.decode::<Box<dyn reflectable::Reflectable>>(&input) {
            let _ = serializer.encode(&*root);
        }
    });
}

/// An abstract base both builds have, and a concrete type of it both have.
#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 712_020, abstract, no_register)]
struct Gadget {
    #[rtti(id = 1)]
    serial: u32,
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 712_021, no_register)]
struct Knob {
    #[rtti(base)]
    gadget: Gadget,
    #[rtti(id = 1)]
    turns: u8,
}

/// Only the newer build has it: an unknown type whose base the older build has, abstract.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 712_022, no_register)]
struct Widget {
    #[rtti(base)]
    gadget: Gadget,
    #[rtti(id = 1)]
    label: String,
}

/// `Gadget` as a build that changed it has it.
mod changed {
    use reflectable::Reflectable;

    #[derive(Reflectable, Default, Debug, Clone)]
    #[rtti(id = 712_020, name = "Gadget", abstract, no_register)]
    pub struct Gadget {
        #[rtti(id = 1)]
        pub serial: u32,
        #[rtti(id = 2)]
        pub colour: u32,
    }

    #[derive(Reflectable, Default, Debug)]
    #[rtti(id = 712_021, name = "Knob", no_register)]
    pub struct Knob {
        #[rtti(base)]
        pub gadget: Gadget,
        #[rtti(id = 1)]
        pub turns: u8,
    }
}

fn gadgets() -> Scene {
    let widget = Widget { gadget: Gadget { serial: 41 }, label: "dial".into() };
    let knob = Knob { gadget: Gadget { serial: 42 }, turns: 3 };
    Scene { things: vec![Rc::new(RefCell::new(widget)), Rc::new(RefCell::new(knob))], extras: Vec::new() }
}

/// The newer build's registry, and its save of [`gadgets`].
fn gadgets_by_the_newer_build() -> (Registry, Vec<u8>) {
    let mut newer = older_build();
    newer.register_type::<Gadget>().unwrap();
    newer.register_type::<Knob>().unwrap();
    newer.register_type::<Widget>().unwrap();
    let bytes = BinarySerializer::with_registry(&newer).encode(&gadgets()).unwrap();
    (newer, bytes)
}

#[test]
fn an_unknown_type_derived_from_an_abstract_type_the_program_has_is_kept() {
    let (newer, bytes) = gadgets_by_the_newer_build();

    let mut older = older_build();
    older.register_type::<Gadget>().unwrap();
    older.register_type::<Knob>().unwrap();
    let (loaded, report) = keeping(&older).decode_with_report::<Scene>(&bytes).unwrap();
    assert!(report.is_empty(), "nothing is dropped: {report}");
    {
        let widget = loaded.things[0].borrow();
        let widget = widget.downcast_ref::<RuntimeObject>().expect("kept");
        assert_eq!(widget.get::<u32>("serial"), Ok(41), "its section of the abstract base, kept as a copy");
        assert!(loaded.things[1].borrow().is::<Knob>(), "the program's own type of that base, as ever");
    }
    let saved = BinarySerializer::with_registry(&older).encode(&loaded).unwrap();
    assert_eq!(saved, bytes, "one entry for the base both describe alike: the same bytes");
    let back: Scene = BinarySerializer::with_registry(&newer).decode(&saved).unwrap();
    let widget = back.things[0].borrow();
    let widget = widget.downcast_ref::<Widget>().unwrap();
    assert_eq!((widget.gadget.serial, widget.label.as_str()), (41, "dial"));
}

#[test]
fn a_kept_copy_that_disagrees_with_the_programs_type_is_refused_on_save() {
    let (_, bytes) = gadgets_by_the_newer_build();

    let mut other = older_build();
    other.register_type::<changed::Gadget>().unwrap();
    other.register_type::<changed::Knob>().unwrap();
    let (loaded, report) = keeping(&other).decode_with_report::<Scene>(&bytes).unwrap();
    assert!(report.is_empty(), "{report}");
    let error = BinarySerializer::with_registry(&other).encode(&loaded).unwrap_err();
    assert!(
        matches!(&error, reflectable::serializer::EncodeError::TypeIdClash { type_id: 712_020, .. }),
        "one stream cannot describe a type two ways: {error}"
    );
}
