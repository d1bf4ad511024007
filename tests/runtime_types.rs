//! Types defined at run time: a "script component" described in JSON, placed in a level beside
//! Rust components, saved, loaded and walked by the dependency collector.

#[path = "../examples/common/dependencies.rs"]
mod dependencies;
#[path = "../examples/common/level.rs"]
mod level;

use dependencies::Walk;
use level::{build_level, compare_levels, Component, Level, ResourceHandle, SceneObject};
use reflectable::field::{FieldError, SKIP_REFERENCE_SEARCH};
use reflectable::runtime::{FieldDescription, PlainSlot, RuntimeObject, TypeDescription};
use reflectable::serializer::BinarySerializer;
use reflectable::{register_trait_impl, Reflectable, Registry, RttiType};
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::sync::OnceLock;

/// What a scripting layer would load: two classes, one deriving from the other.
const SCRIPT_TYPES: &str = r#"{ "types": [
    { "id": 700001, "name": "ScriptBehaviour",
      "fields": [ { "id": 1, "name": "enabled", "type": "bool" } ] },
    { "id": 700002, "name": "Follower", "base": "ScriptBehaviour",
      "fields": [
        { "id": 1, "name": "speed", "type": "f32" },
        { "id": 2, "name": "target", "type": "pointer" },
        { "id": 3, "name": "owner", "type": "weak" },
        { "id": 4, "name": "icon", "type": "embedded" },
        { "id": 5, "name": "tags", "type": "String", "array": true },
        { "id": 6, "name": "preview", "type": "embedded", "skip_reference_search": true }
      ] }
] }"#;

/// The program's half of a script component: script objects can be components.
impl Component for RuntimeObject {
    fn kind(&self) -> &'static str {
        "script"
    }
}
register_trait_impl!(RuntimeObject => Component);

/// Defines the types of a JSON description in `registry`, each after the ones before it (a base
/// is named by an earlier type's name).
fn define_from_json(json: &str, registry: &mut Registry) -> Vec<&'static RttiType> {
    let description: serde_json::Value = serde_json::from_str(json).expect("valid JSON");
    let mut defined = Vec::new();
    for ty in description["types"].as_array().expect("a list of types") {
        let mut out = TypeDescription::new(ty["id"].as_u64().unwrap() as u32, ty["name"].as_str().unwrap());
        if let Some(base) = ty["base"].as_str() {
            out = out.base(registry.by_name(base).expect("the base is defined first"));
        }
        for field in ty["fields"].as_array().unwrap() {
            let (id, name) = (field["id"].as_u64().unwrap() as u16, field["name"].as_str().unwrap());
            let mut described = match field["type"].as_str().unwrap() {
                "pointer" => FieldDescription::pointer(id, name),
                "weak" => FieldDescription::weak(id, name),
                "embedded" => FieldDescription::embedded(id, name),
                plain => FieldDescription::plain(id, name, PlainSlot::named(plain).expect("a known plain type")),
            };
            if field["array"].as_bool() == Some(true) {
                described = described.array();
            }
            if field["skip_reference_search"].as_bool() == Some(true) {
                described = described.flags(SKIP_REFERENCE_SEARCH);
            }
            out = out.field(described);
        }
        let rtti = out.define().expect("a valid description");
        registry.register(rtti).expect("IDs and names are free");
        defined.push(rtti);
    }
    defined
}

/// The global registry plus the script types, defined once for the whole test binary.
fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut registry = Registry::global().clone();
        define_from_json(SCRIPT_TYPES, &mut registry);
        registry
    })
}

/// Every scene object under the level's root, depth first.
fn scene_objects(level: &Level) -> Vec<Rc<RefCell<SceneObject>>> {
    let mut out = Vec::new();
    let mut pending: Vec<_> = level.root.iter().cloned().collect();
    while let Some(object) = pending.pop() {
        pending.extend(object.borrow().children.iter().rev().cloned());
        out.push(object);
    }
    out
}

fn icon(i: usize) -> ResourceHandle {
    ResourceHandle::new(900_000 + i as u64, format!("scripts/icon{i}.png"))
}

/// Attaches a `Follower` to every third scene object, following the next object.
fn add_followers(level: &Level) -> usize {
    let objects = scene_objects(level);
    let mut added = 0;
    for (i, object) in objects.iter().enumerate().step_by(3) {
        let mut follower = RuntimeObject::create(registry().by_name("Follower").unwrap()).unwrap();
        follower.set("enabled", i % 2 == 0).unwrap();
        follower.set("speed", i as f32 * 0.5).unwrap();
        let target: Rc<RefCell<dyn Reflectable>> = objects[(i + 1) % objects.len()].clone();
        follower.set("target", Some(target)).unwrap();
        let owner: Rc<RefCell<dyn Reflectable>> = object.clone();
        follower.set("owner", Rc::downgrade(&owner)).unwrap();
        follower.set("icon", Some(Box::new(icon(i)) as Box<dyn Reflectable>)).unwrap();
        let preview = ResourceHandle::new(1, "editor/preview.png");
        follower.set("preview", Some(Box::new(preview) as Box<dyn Reflectable>)).unwrap();
        let tags = follower.rtti().field_by_name("tags").unwrap();
        tags.resize(&mut follower, 2).unwrap();
        tags.set_elem(&mut follower, 0, format!("follower{i}")).unwrap();
        tags.set_elem(&mut follower, 1, "ai".to_owned()).unwrap();
        object.borrow_mut().components.push(Rc::new(RefCell::new(follower)));
        added += 1;
    }
    added
}

fn address<T: ?Sized>(rc: &Rc<T>) -> usize {
    Rc::as_ptr(rc) as *const () as usize
}

/// Checks the followers of `level` against what `add_followers` made, and removes them.
fn check_and_remove_followers(level: &Level) -> usize {
    let objects = scene_objects(level);
    let mut seen = 0;
    for (i, object) in objects.iter().enumerate() {
        let followers: Vec<_> = object
            .borrow()
            .components
            .iter()
            .filter(|component| component.borrow().is::<RuntimeObject>())
            .cloned()
            .collect();
        assert_eq!(followers.len(), usize::from(i % 3 == 0), "object {i}");
        for follower in &followers {
            let follower = follower.borrow();
            let follower = follower.downcast_ref::<RuntimeObject>().unwrap();
            assert_eq!(follower.rtti().name(), "Follower");
            assert_eq!(follower.get::<bool>("enabled"), Ok(i % 2 == 0));
            assert_eq!(follower.get::<f32>("speed"), Ok(i as f32 * 0.5));
            let target = follower.get::<Option<Rc<RefCell<dyn Reflectable>>>>("target").unwrap().unwrap();
            assert_eq!(address(&target), address(&objects[(i + 1) % objects.len()]), "the target is shared");
            let owner = follower.get::<Weak<RefCell<dyn Reflectable>>>("owner").unwrap().upgrade().unwrap();
            assert_eq!(address(&owner), address(object), "the weak owner points back");
            let icon_field = follower.rtti().field_by_name("icon").unwrap();
            let loaded_icon = icon_field.with_embedded(follower, 0, |icon| icon.unwrap().downcast_ref().cloned());
            assert_eq!(loaded_icon.unwrap(), Some(icon(i)));
            let tags = follower.rtti().field_by_name("tags").unwrap();
            let tags: Vec<String> =
                (0..tags.len(follower).unwrap()).map(|i| tags.get_elem(follower, i).unwrap()).collect();
            assert_eq!(tags, vec![format!("follower{i}"), "ai".to_owned()]);
            seen += 1;
        }
        object.borrow_mut().components.retain(|component| !component.borrow().is::<RuntimeObject>());
    }
    seen
}

#[test]
fn script_types_are_defined_from_json_and_created_by_id_and_name() {
    let registry = registry();
    let follower = registry.by_name("Follower").unwrap();
    let behaviour = registry.get(700_001).unwrap();
    assert_eq!(follower.id(), 700_002);
    assert!(follower.is_subclass_of(behaviour));
    assert_eq!(follower.fields().len(), 6);
    assert!(follower.field_by_name("preview").unwrap().has_flag(SKIP_REFERENCE_SEARCH));

    let by_id = registry.create(700_002).unwrap();
    let by_name = registry.create_by_name("Follower").unwrap();
    assert_eq!(by_id.rtti().id(), by_name.rtti().id());
    let object = by_id.downcast_ref::<RuntimeObject>().unwrap();
    assert_eq!(object.get::<f32>("speed"), Ok(0.0), "fresh objects hold defaults");
    assert_eq!(object.get::<bool>("enabled"), Ok(false), "and so does their base");
    assert!(object.get::<Option<Rc<RefCell<dyn Reflectable>>>>("target").unwrap().is_none());
    assert!(matches!(object.get::<f32>("nope"), Err(FieldError::NoSuchField { .. })));
    assert!(matches!(object.get::<u32>("speed"), Err(FieldError::WrongType { .. })), "no reinterpretation");
    // Runtime objects share a Rust type: none of them stands for it in the registry.
    assert!(registry.of::<RuntimeObject>().is_none());
}

#[test]
fn a_field_refuses_an_object_of_another_runtime_type() {
    let registry = registry();
    let speed = registry.by_name("Follower").unwrap().field_by_name("speed").unwrap();
    let mut behaviour = registry.create_by_name("ScriptBehaviour").unwrap();
    assert!(matches!(speed.get::<f32>(&*behaviour), Err(FieldError::WrongOwner { .. })));
    assert!(matches!(speed.set(&mut *behaviour, 1.0f32), Err(FieldError::WrongOwner { .. })));
    let other = TypeDescription::new(700_050, "SameLayout")
        .field(FieldDescription::plain(1, "speed", PlainSlot::of::<f32>()))
        .define()
        .unwrap();
    let lookalike = RuntimeObject::create(other).unwrap();
    assert!(matches!(speed.get::<f32>(&lookalike), Err(FieldError::WrongOwner { .. })), "same slots, other type");
}

#[test]
fn a_level_with_script_components_saves_loads_and_walks() {
    let (level, expected) = build_level(120, 11);
    let followers = add_followers(&level);
    assert_eq!(followers, 40);

    let walk = Walk::run(&level).unwrap();
    let mut found = walk.handles.clone();
    found.sort();
    found.dedup();
    let mut wanted = expected.dependencies.clone();
    wanted.extend((0..120).step_by(3).map(icon));
    wanted.sort();
    wanted.dedup();
    assert_eq!(found, wanted, "the collector finds the scripts' icons and skips their previews");
    assert_eq!(walk.visited.len(), expected.shared_objects + followers);

    let serializer = BinarySerializer::with_registry(registry());
    let bytes = serializer.encode(&level).unwrap();
    let (loaded, report) = serializer.decode_with_report::<Level>(&bytes).unwrap();
    assert!(report.is_empty(), "{report:?}");
    assert_eq!(serializer.encode(&loaded).unwrap(), bytes, "a reload saves the same bytes");

    let walk = Walk::run(&loaded).unwrap();
    let mut reloaded = walk.handles.clone();
    reloaded.sort();
    reloaded.dedup();
    assert_eq!(reloaded, wanted);

    assert_eq!(check_and_remove_followers(&loaded), followers);
    check_and_remove_followers(&level);
    compare_levels(&level, &loaded).unwrap();
    level::break_cycles(&level);
    level::break_cycles(&loaded);
}

#[test]
fn without_the_script_types_a_reader_reports_what_it_drops() {
    let (level, _) = build_level(30, 3);
    add_followers(&level);
    let bytes = BinarySerializer::with_registry(registry()).encode(&level).unwrap();
    let (loaded, report) = BinarySerializer::new().decode_with_report::<Level>(&bytes).unwrap();
    assert!(!report.is_empty(), "the followers are dropped, and reported");
    assert!(scene_objects(&loaded).iter().all(|o| o
        .borrow()
        .components
        .iter()
        .all(|c| !c.borrow().is::<RuntimeObject>())));
    level::break_cycles(&level);
    level::break_cycles(&loaded);
}

/// A Rust enum, and the same enum described as data: both write the same bytes.
#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 700_020, no_register)]
enum Signal {
    #[default]
    #[rtti(id = 1)]
    Off,
    #[rtti(id = 2)]
    Blink {
        #[rtti(id = 1)]
        period: f32,
        #[rtti(id = 2)]
        pattern: Vec<u8>,
    },
}

fn signal_described() -> &'static RttiType {
    use reflectable::runtime::VariantDescription;
    static SIGNAL: OnceLock<&'static RttiType> = OnceLock::new();
    SIGNAL.get_or_init(|| {
        TypeDescription::new(700_020, "Signal")
            .variant(VariantDescription::new(1, "Off"))
            .variant(
                VariantDescription::new(2, "Blink")
                    .field(FieldDescription::plain(1, "period", PlainSlot::of::<f32>()))
                    .field(FieldDescription::plain(2, "pattern", PlainSlot::of::<u8>()).array()),
            )
            .define()
            .unwrap()
    })
}

#[test]
fn a_runtime_enum_holds_one_variant_and_saves_like_a_rust_enum() {
    let rtti = signal_described();
    let mut signal = RuntimeObject::create(rtti).unwrap();
    assert_eq!(rtti.active_variant(&signal).unwrap().name(), "Off", "fresh objects hold the first variant");
    let blink = rtti.variant_by_name("Blink").unwrap();
    let period = blink.field_by_name("period").unwrap();
    assert!(matches!(period.set(&mut signal, 0.5f32), Err(FieldError::InactiveVariant { .. })));
    blink.activate(&mut signal).unwrap();
    signal.set("period", 0.5f32).unwrap();
    let pattern = blink.field_by_name("pattern").unwrap();
    pattern.resize(&mut signal, 3).unwrap();
    pattern.set_elem(&mut signal, 1, 9u8).unwrap();
    assert_eq!(rtti.fields_of(&signal).len(), 2);

    let mut runtime = Registry::new();
    runtime.register(rtti).unwrap();
    let bytes = BinarySerializer::with_registry(&runtime).encode(&signal).unwrap();
    let rust = Signal::Blink { period: 0.5, pattern: vec![0, 9, 0] };
    assert_eq!(bytes, reflectable::to_vec(&rust).unwrap(), "the same bytes as the Rust enum");

    let mut rust_registry = Registry::new();
    rust_registry.register_type::<Signal>().unwrap();
    let back: Signal = BinarySerializer::with_registry(&rust_registry).decode(&bytes).unwrap();
    assert_eq!(back, rust);
    let again = BinarySerializer::with_registry(&runtime)
        .decode::<Box<dyn reflectable::Reflectable>>(&reflectable::to_vec(&Signal::Off).unwrap())
        .unwrap();
    assert_eq!(again.rtti().active_variant(&*again).unwrap().name(), "Off");
}

#[test]
fn an_enum_description_with_fields_or_duplicate_variants_is_refused() {
    use reflectable::runtime::VariantDescription;
    let with_field = TypeDescription::new(700_021, "Mixed")
        .field(FieldDescription::plain(1, "x", PlainSlot::of::<u32>()))
        .variant(VariantDescription::new(1, "A"))
        .define();
    assert!(with_field.is_err());
    let twice = TypeDescription::new(700_022, "Twice")
        .variant(VariantDescription::new(1, "A"))
        .variant(VariantDescription::new(1, "B"))
        .define();
    assert!(twice.is_err());
    let tag_field = TypeDescription::new(700_023, "Tagged")
        .variant(VariantDescription::new(1, "A").field(FieldDescription::plain(0, "x", PlainSlot::of::<u32>())))
        .define();
    assert!(tag_field.is_err(), "field 0 is the variant tag");
}
