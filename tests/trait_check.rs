//! Loud encoding: an object in a `dyn Trait` field whose type is not registered as implementing
//! the trait (so a decoder could not cast it back, and it would load as null) is an encode error
//! naming the type, the trait, and the field; registered ones round-trip.

use reflectable::serializer::{BinarySerializer, EncodeError};
use reflectable::{reflect_trait, Reflectable, Registry};
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::sync::{Arc, Mutex};

/// `Send`, so components can live behind `Arc<Mutex<..>>`.
pub trait Component: Reflectable + Send {
    fn weight(&self) -> f32;
}
reflect_trait!(Component);

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 800_000, implements(Component))]
struct Light {
    #[rtti(id = 1)]
    power: f32,
}
impl Component for Light {
    fn weight(&self) -> f32 {
        self.power
    }
}

/// Implements `Component` in Rust, but never says so to RTTI.
#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 800_001)]
struct Crate {
    #[rtti(id = 1)]
    mass: f32,
}
impl Component for Crate {
    fn weight(&self) -> f32 {
        self.mass
    }
}

/// A component that points at components, itself included, behind a lock.
#[derive(Reflectable, Default)]
#[rtti(id = 800_002, implements(Component))]
struct Hub {
    #[rtti(id = 1)]
    links: Vec<Arc<Mutex<dyn Component>>>,
}
impl Component for Hub {
    fn weight(&self) -> f32 {
        0.0
    }
}

#[derive(Reflectable)]
#[rtti(id = 800_003)]
struct Entity {
    #[rtti(id = 1, embedded)]
    main: Option<Box<dyn Component>>,
    #[rtti(id = 2)]
    shared: Vec<Rc<RefCell<dyn Component>>>,
    #[rtti(id = 3)]
    watched: Weak<RefCell<dyn Component>>,
    #[rtti(id = 4, embedded)]
    anything: Option<Box<dyn Reflectable>>,
    #[rtti(id = 5)]
    immutable: Option<Rc<dyn Component>>,
}

impl Default for Entity {
    fn default() -> Self {
        // `Weak::new` needs a sized pointee: a dead `Weak` is made from a dropped handle.
        let dead: Rc<RefCell<dyn Component>> = Rc::new(RefCell::new(Light::default()));
        Entity { main: None, shared: Vec::new(), watched: Rc::downgrade(&dead), anything: None, immutable: None }
    }
}

fn unregistered(error: EncodeError) -> (&'static str, &'static str, &'static str, &'static str) {
    match error {
        EncodeError::UnregisteredTraitImpl { type_name, field, concrete, trait_name } => {
            (type_name, field, concrete, trait_name)
        }
        other => panic!("expected UnregisteredTraitImpl, got {other}"),
    }
}

#[test]
fn an_unregistered_impl_in_a_boxed_field_is_an_encode_error_naming_both() {
    let entity = Entity { main: Some(Box::new(Crate { mass: 2.0 })), ..Entity::default() };
    let error = BinarySerializer::new().encode(&entity).unwrap_err();
    let message = error.to_string();
    assert!(message.contains("`Crate` is not registered as implementing `Component`"), "{message}");
    assert!(message.contains("#[rtti(implements(Component))]"), "{message}");
    assert!(message.contains("Entity.main"), "{message}");
    assert_eq!(unregistered(error), ("Entity", "main", "Crate", "Component"));
}

#[test]
fn an_unregistered_impl_behind_a_shared_pointer_is_an_encode_error_naming_both() {
    let light: Rc<RefCell<dyn Component>> = Rc::new(RefCell::new(Light { power: 1.0 }));
    let crate_: Rc<RefCell<dyn Component>> = Rc::new(RefCell::new(Crate { mass: 3.0 }));
    let entity = Entity { shared: vec![light, crate_], ..Entity::default() };
    let error = BinarySerializer::new().encode(&entity).unwrap_err();
    assert_eq!(unregistered(error), ("Entity", "shared", "Crate", "Component"));
}

#[test]
fn an_encode_refused_midway_lets_go_of_the_objects_waiting() {
    // The lights are met and wait to be written when the crate, met after them, is refused: the
    // encoder's queue must give their handles back.
    let lights: Vec<Rc<RefCell<dyn Component>>> =
        (0..5).map(|i| Rc::new(RefCell::new(Light { power: i as f32 })) as Rc<RefCell<dyn Component>>).collect();
    let crate_: Rc<RefCell<dyn Component>> = Rc::new(RefCell::new(Crate { mass: 3.0 }));
    let mut shared = lights.clone();
    shared.push(crate_.clone());
    let entity = Entity { shared, ..Entity::default() };
    assert_eq!(Rc::strong_count(&lights[0]), 2);
    let error = BinarySerializer::new().encode(&entity).unwrap_err();
    assert_eq!(unregistered(error), ("Entity", "shared", "Crate", "Component"));
    for light in &lights {
        assert_eq!(Rc::strong_count(light), 2, "the entity's handle and this test's, no more");
    }
    assert_eq!(Rc::strong_count(&crate_), 2);
}

#[test]
fn an_unregistered_impl_behind_a_weak_or_immutable_pointer_is_refused_too() {
    let crate_: Rc<RefCell<dyn Component>> = Rc::new(RefCell::new(Crate { mass: 3.0 }));
    let entity = Entity { watched: Rc::downgrade(&crate_), ..Entity::default() };
    let error = BinarySerializer::new().encode(&entity).unwrap_err();
    assert_eq!(unregistered(error), ("Entity", "watched", "Crate", "Component"));

    let entity = Entity { immutable: Some(Rc::new(Crate { mass: 1.0 })), ..Entity::default() };
    let error = BinarySerializer::new().encode(&entity).unwrap_err();
    assert_eq!(unregistered(error), ("Entity", "immutable", "Crate", "Component"));
}

#[test]
fn registered_impls_still_round_trip_with_their_sharing() {
    let light: Rc<RefCell<dyn Component>> = Rc::new(RefCell::new(Light { power: 7.0 }));
    let entity = Entity {
        main: Some(Box::new(Light { power: 1.5 })),
        shared: vec![light.clone(), light.clone()],
        watched: Rc::downgrade(&light),
        // `dyn Reflectable` takes every type.
        anything: Some(Box::new(Crate { mass: 4.0 })),
        immutable: Some(Rc::new(Light { power: 2.5 })),
    };
    let serializer = BinarySerializer::new();
    let back: Entity = serializer.decode(&serializer.encode(&entity).unwrap()).unwrap();
    assert_eq!(back.main.as_ref().unwrap().weight(), 1.5);
    assert_eq!(back.shared.len(), 2);
    assert!(Rc::ptr_eq(&back.shared[0], &back.shared[1]), "one light, shared");
    assert!(Rc::ptr_eq(&back.watched.upgrade().unwrap(), &back.shared[0]), "the weak one too");
    assert_eq!(back.shared[0].borrow().weight(), 7.0);
    assert_eq!(back.anything.as_ref().unwrap().downcast_ref::<Crate>(), Some(&Crate { mass: 4.0 }));
    assert_eq!(back.immutable.as_ref().unwrap().weight(), 2.5);
}

#[test]
fn a_locked_object_pointing_at_itself_is_checked_without_locking_it_again() {
    // The encoder holds the hub's lock while it writes the hub: checking the hub's pointer to
    // itself must not lock it again (a `Mutex` would deadlock).
    let hub = Arc::new(Mutex::new(Hub::default()));
    let as_component: Arc<Mutex<dyn Component>> = hub.clone();
    hub.lock().unwrap().links.push(as_component);
    let serializer = BinarySerializer::new();
    let bytes = serializer.encode(&hub).unwrap();
    let back: Arc<Mutex<Hub>> = serializer.decode(&bytes).unwrap();
    let link = back.lock().unwrap().links[0].clone();
    let same = Arc::as_ptr(&link) as *const () == Arc::as_ptr(&back) as *const ();
    assert!(same, "the hub points at itself again");
    back.lock().unwrap().links.clear();
    hub.lock().unwrap().links.clear();

    // The same self-pointer, holding an unregistered type next to it, is still refused.
    let hub = Arc::new(Mutex::new(Hub::default()));
    let crate_: Arc<Mutex<dyn Component>> = Arc::new(Mutex::new(Crate::default()));
    let as_component: Arc<Mutex<dyn Component>> = hub.clone();
    hub.lock().unwrap().links.extend([as_component, crate_]);
    let error = serializer.encode(&hub).unwrap_err();
    assert_eq!(unregistered(error), ("Hub", "links", "Crate", "Component"));
    hub.lock().unwrap().links.clear();
}

#[test]
fn the_check_uses_the_serializers_registry() {
    // `Light` declares `implements(Component)`, but this registry never registered `Light`: a
    // decoder through it could not cast a light back, so encoding through it refuses one.
    let mut registry = Registry::new();
    registry.register_type::<Entity>().unwrap();
    let entity = Entity { main: Some(Box::new(Light { power: 1.0 })), ..Entity::default() };
    let error = BinarySerializer::with_registry(&registry).encode(&entity).unwrap_err();
    assert_eq!(unregistered(error), ("Entity", "main", "Light", "Component"));

    // Registered, the same graph encodes and decodes through that registry.
    registry.register_type::<Light>().unwrap();
    let serializer = BinarySerializer::with_registry(&registry);
    let back: Entity = serializer.decode(&serializer.encode(&entity).unwrap()).unwrap();
    assert_eq!(back.main.unwrap().weight(), 1.0);
}

#[test]
fn a_trait_object_nested_in_a_list_is_checked_at_its_own_field() {
    #[derive(Reflectable, Default)]
    #[rtti(id = 800_004)]
    struct Layers {
        #[rtti(id = 1)]
        layers: Vec<Vec<Rc<RefCell<dyn Component>>>>,
    }
    let crate_: Rc<RefCell<dyn Component>> = Rc::new(RefCell::new(Crate::default()));
    let layers = Layers { layers: vec![vec![crate_]] };
    let error = BinarySerializer::new().encode(&layers).unwrap_err();
    let (_, _, concrete, trait_name) = unregistered(error);
    assert_eq!((concrete, trait_name), ("Crate", "Component"));
}
