//! Objects of types a program lacks survive its load and save: a newer build writes a level with
//! component types an older build does not have; the older build (keeping unknown types) loads
//! and saves it; the newer build loads that save and finds every object and field, with sharing
//! and cycles.

#[path = "common/damage.rs"]
mod damage;

use reflectable::field::FieldError;
use reflectable::plain::PlainBytes;
use reflectable::runtime::RuntimeObject;
use reflectable::serializer::BinarySerializer;
use reflectable::{register_trait_impl, PlainType, Reflectable, Registry};
use std::cell::RefCell;
use std::rc::{Rc, Weak};

/// Behaviour attached to an entity; both builds have it.
pub trait Behaviour: Reflectable {}
reflectable::reflect_trait!(Behaviour);
/// The older build's placeholder for behaviours it does not know: it keeps them and does nothing.
impl Behaviour for RuntimeObject {}
register_trait_impl!(RuntimeObject => Behaviour);

#[derive(Reflectable, Default)]
#[rtti(id = 710_001)]
struct World {
    #[rtti(id = 1)]
    entities: Vec<Rc<RefCell<Entity>>>,
    /// Anything the tools attach to the world.
    #[rtti(id = 2)]
    extras: Vec<Box<dyn Reflectable>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 710_002)]
struct Entity {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    behaviours: Vec<Rc<RefCell<dyn Behaviour>>>,
}

/// A behaviour both builds have.
#[derive(Reflectable, Default)]
#[rtti(id = 710_003, implements(Behaviour))]
struct Spin {
    #[rtti(id = 1)]
    speed: f32,
}
impl Behaviour for Spin {}

/// The newer build's base for its turrets (the older build has it too).
#[derive(Reflectable, Default, Clone, PartialEq, Debug)]
#[rtti(id = 710_004)]
struct Weapon {
    #[rtti(id = 1)]
    damage: u32,
}

// ---- Only the newer build has what follows.

/// A plain type of the newer build: the older one keeps its bytes.
#[derive(PlainType, Clone, Copy, Default, PartialEq, Debug)]
#[plain(id = 7100)]
struct Aim {
    yaw: f32,
    pitch: f32,
}

#[derive(Reflectable)]
#[rtti(id = 710_010, implements(Behaviour))]
struct Turret {
    #[rtti(base)]
    weapon: Weapon,
    #[rtti(id = 1)]
    aim: Aim,
    #[rtti(id = 2)]
    history: Vec<Aim>,
    #[rtti(id = 3)]
    target: Option<Rc<RefCell<Entity>>>,
    #[rtti(id = 4)]
    partner: Weak<RefCell<dyn Behaviour>>,
    #[rtti(id = 5)]
    ammo: Option<Rc<RefCell<Magazine>>>,
    #[rtti(id = 6)]
    label: String,
}
impl Behaviour for Turret {}

impl Default for Turret {
    fn default() -> Self {
        Turret {
            weapon: Weapon::default(),
            aim: Aim::default(),
            history: Vec::new(),
            target: None,
            partner: Weak::<RefCell<Turret>>::new(),
            ammo: None,
            label: String::new(),
        }
    }
}

#[derive(Reflectable, Default)]
#[rtti(id = 710_011)]
struct Magazine {
    #[rtti(id = 1)]
    rounds: Vec<u16>,
    /// Back to a turret that uses it: a cycle among unknown objects.
    #[rtti(id = 2)]
    user: Option<Rc<RefCell<dyn Behaviour>>>,
}

/// An embedded extra of the newer build.
#[derive(Reflectable, Default, PartialEq, Debug)]
#[rtti(id = 710_012)]
struct Note {
    #[rtti(id = 1)]
    text: String,
    #[rtti(id = 2)]
    stamp: u64,
}

/// What the older build registers: no Turret, Magazine or Note.
fn old_build() -> Registry {
    let mut registry = Registry::new();
    registry.register_type::<World>().unwrap();
    registry.register_type::<Entity>().unwrap();
    registry.register_type::<Spin>().unwrap();
    registry.register_type::<Weapon>().unwrap();
    registry
}

fn aim(i: u32) -> Aim {
    Aim { yaw: i as f32, pitch: -(i as f32) / 2.0 }
}

fn world() -> World {
    let entities: Vec<_> =
        (0..4).map(|i| Rc::new(RefCell::new(Entity { name: format!("e{i}"), behaviours: Vec::new() }))).collect();
    let magazine = Rc::new(RefCell::new(Magazine { rounds: vec![30, 30, 12], user: None }));
    let turrets: Vec<Rc<RefCell<Turret>>> = (0..2)
        .map(|i| {
            Rc::new(RefCell::new(Turret {
                weapon: Weapon { damage: 10 + i },
                aim: aim(i),
                history: (0..i + 2).map(aim).collect(),
                target: Some(entities[(i as usize + 2) % 4].clone()),
                ammo: Some(magazine.clone()),
                label: format!("turret {i}"),
                ..Turret::default()
            }))
        })
        .collect();
    turrets[0].borrow_mut().partner = Rc::downgrade(&(turrets[1].clone() as Rc<RefCell<dyn Behaviour>>));
    turrets[1].borrow_mut().partner = Rc::downgrade(&(turrets[0].clone() as Rc<RefCell<dyn Behaviour>>));
    magazine.borrow_mut().user = Some(turrets[0].clone());
    entities[0].borrow_mut().behaviours.push(turrets[0].clone());
    entities[0].borrow_mut().behaviours.push(Rc::new(RefCell::new(Spin { speed: 2.0 })));
    entities[1].borrow_mut().behaviours.push(turrets[1].clone());
    // The same turret on two entities: shared.
    entities[3].borrow_mut().behaviours.push(turrets[0].clone());
    World {
        entities,
        extras: vec![Box::new(Note { text: "from v2".into(), stamp: u64::MAX - 1 }), Box::new(Weapon { damage: 1 })],
    }
}

fn address<T: ?Sized>(rc: &Rc<T>) -> *const () {
    Rc::as_ptr(rc) as *const ()
}

/// Everything the newer build put in: every object and field, sharing, the cycle and the weaks.
fn check_world(world: &World) {
    let e = &world.entities;
    assert_eq!(e.iter().map(|e| e.borrow().name.clone()).collect::<Vec<_>>(), ["e0", "e1", "e2", "e3"]);
    let behaviours = |i: usize| e[i].borrow().behaviours.clone();
    let (t0, spin, t1) = (behaviours(0)[0].clone(), behaviours(0)[1].clone(), behaviours(1)[0].clone());
    assert_eq!(address(&behaviours(3)[0]), address(&t0), "the shared turret is one object");
    assert_eq!(spin.borrow().downcast_ref::<Spin>().unwrap().speed, 2.0);
    let (t0, t1) = (t0.borrow(), t1.borrow());
    let (t0, t1) = (t0.downcast_ref::<Turret>().unwrap(), t1.downcast_ref::<Turret>().unwrap());
    for (i, turret) in [t0, t1].into_iter().enumerate() {
        assert_eq!(turret.weapon, Weapon { damage: 10 + i as u32 }, "the base section");
        assert_eq!(turret.aim, aim(i as u32));
        assert_eq!(turret.history, (0..i as u32 + 2).map(aim).collect::<Vec<_>>());
        assert_eq!(address(turret.target.as_ref().unwrap()), address(&e[(i + 2) % 4]), "points at a known object");
        assert_eq!(turret.label, format!("turret {i}"));
    }
    let partner = t0.partner.upgrade().unwrap();
    assert_eq!(address(&partner), address(&behaviours(1)[0]), "weak partners");
    assert_eq!(address(&t1.partner.upgrade().unwrap()), address(&behaviours(0)[0]));
    let magazine = t0.ammo.clone().unwrap();
    assert_eq!(address(&magazine), address(t1.ammo.as_ref().unwrap()), "one magazine, shared");
    assert_eq!(magazine.borrow().rounds, [30, 30, 12]);
    assert_eq!(address(magazine.borrow().user.as_ref().unwrap()), address(&behaviours(0)[0]), "the cycle");
    assert_eq!(world.extras[0].downcast_ref::<Note>(), Some(&Note { text: "from v2".into(), stamp: u64::MAX - 1 }));
    assert_eq!(world.extras[1].downcast_ref::<Weapon>(), Some(&Weapon { damage: 1 }));
}

/// Breaks the cycles so the test does not leak.
fn release(world: &World) {
    for entity in &world.entities {
        entity.borrow_mut().behaviours.clear();
    }
}

#[test]
fn an_older_build_keeps_what_a_newer_one_wrote() {
    let original = world();
    let new_bytes = reflectable::to_vec(&original).unwrap();

    // The older build loads, keeping what it does not know, and saves.
    let old = old_build();
    let old_serializer = BinarySerializer::with_registry(&old).keep_unknown_types(true);
    let (loaded, report) = old_serializer.decode_with_report::<World>(&new_bytes).unwrap();
    assert!(report.is_empty(), "nothing is dropped: {report}");
    {
        let turret = loaded.entities[0].borrow().behaviours[0].clone();
        let turret = turret.borrow();
        let turret = turret.downcast_ref::<RuntimeObject>().expect("kept as a runtime object");
        assert_eq!(turret.rtti().name(), "Turret");
        assert_eq!(turret.get::<String>("label"), Ok("turret 0".to_owned()));
        assert_eq!(turret.get::<u32>("damage"), Ok(10), "its known base is a Rust Weapon");
        assert!(turret.base().unwrap().is::<Weapon>());
        let raw = turret.get::<PlainBytes>("aim").unwrap();
        assert_eq!((raw.count(), raw.bytes().len()), (1, 8), "a plain type the old build lacks, as stored bytes");
        assert!(matches!(turret.get::<f32>("aim"), Err(FieldError::WrongType { .. })), "never reinterpreted");
        assert!(loaded.extras[0].is::<RuntimeObject>());
    }
    let old_bytes = old_serializer.encode(&loaded).unwrap();
    assert_eq!(old_bytes, new_bytes, "the older build writes back exactly what the newer one wrote");

    // The newer build loads the older one's save: everything is there.
    let (reloaded, report) = BinarySerializer::new().decode_with_report::<World>(&old_bytes).unwrap();
    assert!(report.is_empty(), "{report}");
    check_world(&original);
    check_world(&reloaded);
    release(&original);
    release(&loaded);
    release(&reloaded);
}

#[test]
fn without_keeping_an_older_build_drops_and_reports() {
    let original = world();
    let bytes = reflectable::to_vec(&original).unwrap();
    let old = old_build();
    let (loaded, report) = BinarySerializer::with_registry(&old).decode_with_report::<World>(&bytes).unwrap();
    assert!(!report.is_empty());
    assert!(report.to_string().contains("Turret"), "{report}");
    assert_eq!(loaded.entities[0].borrow().behaviours.len(), 1, "only the Spin is left");
    release(&original);
    release(&loaded);
}

#[test]
fn a_stream_without_a_schema_table_cannot_keep_and_says_so() {
    let original = world();
    let bytes = BinarySerializer::new().schema_table(false).encode(&original).unwrap();
    let old = old_build();
    let serializer = BinarySerializer::with_registry(&old).keep_unknown_types(true);
    let (loaded, report) = serializer.decode_with_report::<World>(&bytes).unwrap();
    assert!(!report.is_empty(), "the turrets are dropped, and reported");
    release(&original);
    release(&loaded);
}

#[test]
fn every_cut_and_flipped_byte_is_refused_or_kept_without_a_panic() {
    let original = world();
    let bytes = reflectable::to_vec(&original).unwrap();
    release(&original);
    let old = old_build();
    let serializer = BinarySerializer::with_registry(&old).keep_unknown_types(true);
    let attempt = |input: &[u8]| {
        if let Ok(root) = serializer.decode::<Box<dyn reflectable::Reflectable>>(input) {
            let _ = serializer.encode(&*root);
            reflectable::rtti::break_cycles(&*root);
        }
    };
    damage::cuts_and_flips(&bytes).for_each(|input| attempt(&input));
}

#[test]
fn keeping_obeys_the_limits() {
    let original = world();
    let bytes = reflectable::to_vec(&original).unwrap();
    release(&original);
    let old = old_build();
    let limits = reflectable::serializer::Limits { max_allocation: Some(600), ..Default::default() };
    let serializer = BinarySerializer::with_registry(&old).keep_unknown_types(true).limits(limits);
    let error = serializer
        .decode::<Box<dyn reflectable::Reflectable>>(&bytes)
        .expect_err("the kept objects count against the budget");
    assert!(error.to_string().contains("allocat"), "{error}");
}

/// A field walk that never names a type: for every object reachable from `root` (by value or
/// through pointers, each shared object once), its type name and its fields' names and kinds.
fn walk(root: &dyn Reflectable) -> Vec<String> {
    use reflectable::field::FieldAccess;
    use reflectable::RttiType;
    fn visit(object: &dyn Reflectable, seen: &mut std::collections::HashSet<usize>, out: &mut Vec<String>) {
        for (rtti, section) in RttiType::sections(object) {
            for field in rtti.fields_of(section) {
                out.push(format!(
                    "{}.{}: {:?} x{}",
                    rtti.name(),
                    field.name(),
                    field.kind(),
                    field.len(section).unwrap()
                ));
                match field.access() {
                    FieldAccess::Plain(_) => {}
                    FieldAccess::Embedded(values) => values
                        .for_each(section, &mut |value| value.into_iter().for_each(|v| visit(v, seen, out)))
                        .unwrap(),
                    FieldAccess::Pointer(_) => {
                        for index in 0..field.len(section).unwrap() {
                            let Some(target) = field.shared(section, index).unwrap() else { continue };
                            if seen.insert(target.addr()) {
                                target.read(|target| visit(target, seen, out)).unwrap();
                            }
                        }
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    visit(root, &mut Default::default(), &mut out);
    out.sort();
    out
}

#[test]
fn the_same_field_walk_runs_over_typed_and_kept_objects() {
    let original = world();
    let bytes = reflectable::to_vec(&original).unwrap();
    // No types at all: every object is kept from the stream's schema table.
    let nothing = Registry::new();
    let serializer = BinarySerializer::with_registry(&nothing).keep_unknown_types(true);
    let (kept, report) = serializer.decode_with_report::<Box<dyn reflectable::Reflectable>>(&bytes).unwrap();
    assert!(report.is_empty(), "{report}");
    assert!(kept.is::<RuntimeObject>());
    let typed = walk(&original);
    assert_eq!(typed.len(), 30, "every field of every object: {typed:?}");
    assert_eq!(walk(&*kept), typed, "the walk sees the same objects, fields and lengths");
    reflectable::rtti::break_cycles(&*kept);
    release(&original);
}
