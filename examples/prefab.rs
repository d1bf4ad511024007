//! Prefabs with overrides, as an editor keeps them: a prefab (an entity subtree), instances that
//! are clones of it with their own changes saved as patches, the prefab changed afterwards, and
//! every instance rebuilt from the new prefab plus its overrides. Reverting an override brings
//! back the prefab's value. Asserts every outcome (CI runs it).
//!
//! Run with `cargo run --example prefab`.

use reflectable::clone::Cloner;
use reflectable::diff::{diff, rtti_eq, Patch};
use reflectable::Reflectable;
use std::cell::RefCell;
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
}

type Handle = Rc<RefCell<Entity>>;

fn entity(name: &str, parent: Option<&Handle>) -> Handle {
    let entity = Rc::new(RefCell::new(Entity {
        name: name.into(),
        color: [1.0; 4],
        health: 100,
        parent: parent.map(Rc::downgrade).unwrap_or_default(),
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

    // Their overrides, saved: as bytes for the level file, as JSON for version control.
    let north_saved = diff(&prefab, &north).expect("diff").to_bytes().expect("save");
    let south_saved = diff(&prefab, &south).expect("diff").to_json().expect("save");
    println!("overrides: north {} bytes, south {} bytes of JSON", north_saved.len(), south_saved.len());

    // The prefab changes: tougher, a red flag, a knocker on the door.
    prefab.borrow_mut().health = 150;
    child(&prefab, 1).borrow_mut().color = [1.0, 0.0, 0.0, 1.0];
    entity("knocker", Some(&child(&prefab, 0)));

    // Every instance is rebuilt from the new prefab and its overrides.
    let (north_overrides, lost) = Patch::from_bytes(&north_saved).expect("load");
    assert!(lost.is_empty());
    let (south_overrides, lost) = Patch::from_json(&south_saved).expect("load");
    assert!(lost.is_empty());
    let north = instantiate(&prefab, &north_overrides);
    let south = instantiate(&prefab, &south_overrides);

    // The overrides are kept...
    assert_eq!(north.borrow().position, [10.0, 0.0, -40.0]);
    assert_eq!(child(&north, 0).borrow().color, [0.4, 0.2, 0.1, 1.0]);
    assert_eq!((south.borrow().position, south.borrow().health), ([-25.0, 0.0, 30.0], 250));
    assert_eq!(child(&south, 1).borrow().name, "banner");
    // ... and what they do not override follows the prefab.
    assert_eq!(north.borrow().health, 150);
    assert_eq!(child(&south, 1).borrow().color, [1.0, 0.0, 0.0, 1.0]);
    for instance in [&north, &south] {
        let door = child(instance, 0);
        let knocker = child(&door, 0);
        assert_eq!(knocker.borrow().name, "knocker");
        assert!(Rc::ptr_eq(&knocker.borrow().parent.upgrade().expect("a parent"), &door));
    }

    // Reverting north's door color: the instance takes the prefab's value again, and the
    // override is gone from the patch.
    child(&north, 0).borrow_mut().color = child(&prefab, 0).borrow().color;
    let north_overrides = diff(&prefab, &north).expect("diff");
    let rebuilt = instantiate(&prefab, &north_overrides);
    assert_eq!(child(&rebuilt, 0).borrow().color, [1.0; 4]);
    assert_eq!(rebuilt.borrow().position, [10.0, 0.0, -40.0]);
    rtti_eq(&rebuilt, &north).expect("the instance is its prefab plus its overrides");
    assert_eq!(north_overrides.objects_changed(), 1, "only the position is left");

    println!(
        "ok: two instances kept their overrides through a prefab change, and a reverted override follows the prefab"
    );
}
