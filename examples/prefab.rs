//! Prefabs with overrides, as an editor keeps them: a prefab (an entity subtree), instances that
//! are clones of it with their own changes saved as patches, the prefab changed afterwards, and
//! every instance rebuilt from the new prefab plus its overrides. Entities declare an identity,
//! so an override follows its entity however the prefab's children move; an override of one key
//! of a map keeps the prefab's other keys. Reverting an override brings back the prefab's value.
//! Asserts every outcome (CI runs it).
//!
//! Run with `cargo run --example prefab`.

use reflectable::clone::Cloner;
use reflectable::diff::{diff, rtti_eq, Patch};
use reflectable::rtti::Registry;
use reflectable::Reflectable;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};

#[derive(Reflectable, Default)]
#[rtti(id = 301_000)]
struct Entity {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    position: [f32; 3],
    #[rtti(id = 3)]
    color: [f32; 4],
    #[rtti(id = 4)]
    health: u32,
    #[rtti(id = 5)]
    children: Vec<Rc<RefCell<Entity>>>,
    #[rtti(id = 6)]
    parent: Weak<RefCell<Entity>>,
    /// What the editor knows the entity by, in the prefab and in every instance of it.
    #[rtti(id = 7, identity)]
    id: u64,
    /// Tuning values, overridden key by key.
    #[rtti(id = 8)]
    parameters: HashMap<String, f32>,
}

thread_local! {
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
}

type Handle = Rc<RefCell<Entity>>;

fn entity(name: &str, parent: Option<&Handle>) -> Handle {
    let entity = Rc::new(RefCell::new(Entity {
        name: name.into(),
        color: [1.0; 4],
        health: 100,
        parent: parent.map(Rc::downgrade).unwrap_or_default(),
        id: NEXT_ID.with(|next| next.replace(next.get() + 1)),
        parameters: [("speed".to_owned(), 5.0), ("jump".to_owned(), 1.0)].into(),
        ..Entity::default()
    }));
    if let Some(parent) = parent {
        parent.borrow_mut().children.push(entity.clone());
    }
    entity
}

fn child(entity: &Handle, index: usize) -> Handle {
    entity.borrow().children[index].clone()
}

/// An instance of `prefab`: its clone with `overrides` applied.
fn instantiate(prefab: &Handle, overrides: &Patch) -> Handle {
    let instance = Cloner::new().clone_handle(prefab).expect("a prefab clones");
    let report = overrides.apply_shared(&instance);
    assert!(report.is_complete(), "{report}");
    instance
}

fn main() {
    // The prefab: a tower with a door and a flag.
    let prefab = entity("tower", None);
    entity("door", Some(&prefab));
    entity("flag", Some(&prefab));

    // Two instances, placed and changed in the editor.
    let north = instantiate(&prefab, &Patch::default());
    north.borrow_mut().position = [10.0, 0.0, -40.0];
    child(&north, 0).borrow_mut().color = [0.4, 0.2, 0.1, 1.0]; // a dark door
    let south = instantiate(&prefab, &Patch::default());
    south.borrow_mut().position = [-25.0, 0.0, 30.0];
    south.borrow_mut().health = 250;
    child(&south, 1).borrow_mut().name = "banner".into();
    south.borrow_mut().parameters.insert("speed".into(), 7.0); // one key of the map

    // Their overrides, saved: as bytes for the level file, as JSON for version control.
    let north_saved = diff(&prefab, &north).expect("diff").to_bytes().expect("save");
    let south_patch = diff(&prefab, &south).expect("diff");
    let south_saved = south_patch.to_json().expect("save");
    println!("overrides: north {} bytes, south {} bytes of JSON", north_saved.len(), south_saved.len());
    // The JSON names the fields and shows the values; it loads back as the same patch.
    let speed = r#"{"field": "parameters", "from": {"speed": 5.0}, "to": {"speed": 7.0}}"#;
    assert!(south_saved.contains(speed), "{south_saved}");
    assert!(south_saved.contains(r#"{"field": "name", "to": "banner"}"#), "{south_saved}");

    // What south overrides, in words (applied to a copy of the prefab's root).
    let mut described = Cloner::new().clone_value(&*prefab.borrow()).expect("a prefab clones");
    let (report, changes) = diff(&prefab, &south).expect("diff").apply_described(&mut described, Registry::global());
    assert!(report.is_complete(), "{report}");
    changes.iter().for_each(|change| println!("  south: {change}"));
    let lines: Vec<String> = changes.iter().map(ToString::to_string).collect();
    assert!(lines.contains(&"Entity#1.parameters[\"speed\"]: 5.0 -> 7.0".to_owned()), "{lines:?}");
    assert!(lines.contains(&"Entity#3.name: \"flag\" -> \"banner\"".to_owned()), "{lines:?}");

    // The prefab changes: tougher, a red flag before the door (the children swap places), a
    // knocker on the door, a higher jump.
    prefab.borrow_mut().health = 150;
    child(&prefab, 1).borrow_mut().color = [1.0, 0.0, 0.0, 1.0];
    entity("knocker", Some(&child(&prefab, 0)));
    prefab.borrow_mut().children.reverse();
    prefab.borrow_mut().parameters.insert("jump".into(), 3.0);

    // Every instance is rebuilt from the new prefab and its overrides.
    let (north_overrides, lost) = Patch::from_bytes(&north_saved).expect("load");
    assert!(lost.is_empty());
    let (south_overrides, lost) = Patch::from_json(&south_saved).expect("load");
    assert!(lost.is_empty());
    assert_eq!(south_overrides.to_bytes().expect("save"), south_patch.to_bytes().expect("save"), "the same patch");
    let north = instantiate(&prefab, &north_overrides);
    let south = instantiate(&prefab, &south_overrides);

    // The overrides are kept, on the entities they were made on (the flag is first now)...
    let (north_door, south_flag) = (child(&north, 1), child(&south, 0));
    assert_eq!(north.borrow().position, [10.0, 0.0, -40.0]);
    assert_eq!(north_door.borrow().color, [0.4, 0.2, 0.1, 1.0]);
    assert_eq!((south.borrow().position, south.borrow().health), ([-25.0, 0.0, 30.0], 250));
    assert_eq!(south_flag.borrow().name, "banner");
    assert_eq!(south.borrow().parameters["speed"], 7.0);
    // ... and what they do not override follows the prefab, to a key of a map.
    assert_eq!(north.borrow().health, 150);
    assert_eq!(south_flag.borrow().color, [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(south.borrow().parameters["jump"], 3.0);
    for instance in [&north, &south] {
        let door = child(instance, 1);
        let knocker = child(&door, 0);
        assert_eq!(knocker.borrow().name, "knocker");
        assert!(Rc::ptr_eq(&knocker.borrow().parent.upgrade().expect("a parent"), &door));
    }

    // Reverting north's door color: the instance takes the prefab's value again, and the
    // override is gone from the patch.
    child(&north, 1).borrow_mut().color = child(&prefab, 1).borrow().color;
    let north_overrides = diff(&prefab, &north).expect("diff");
    let rebuilt = instantiate(&prefab, &north_overrides);
    assert_eq!(child(&rebuilt, 1).borrow().color, [1.0; 4]);
    assert_eq!(rebuilt.borrow().position, [10.0, 0.0, -40.0]);
    rtti_eq(&rebuilt, &north).expect("the instance is its prefab plus its overrides");
    assert_eq!(north_overrides.objects_changed(), 1, "only the position is left");

    println!(
        "ok: two instances kept their overrides through a prefab change (children moved, a map key added), and a reverted override follows the prefab"
    );
}
