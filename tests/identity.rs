//! Declared object identity (`#[rtti(id = N, identity)]`, issue 42 point 2): `diff` pairs objects
//! and array elements by it before any matching by content; version 5 streams record it in the
//! schema table, older versions leave it out.

use quickcheck::{QuickCheck, TestResult};
use reflectable::diff::{diff, rtti_eq};
use reflectable::schema::Schema;
use reflectable::serializer::BinarySerializer;
use reflectable::Reflectable;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 964_201)]
struct Entity {
    #[rtti(id = 1, identity)]
    id: u64,
    #[rtti(id = 2)]
    name: String,
    #[rtti(id = 3)]
    children: Vec<Rc<RefCell<Entity>>>,
}

/// The same shape with no declared identity: objects are matched by content and guesses.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 964_202)]
struct Anonymous {
    #[rtti(id = 1)]
    id: u64,
    #[rtti(id = 2)]
    name: String,
    #[rtti(id = 3)]
    children: Vec<Rc<RefCell<Anonymous>>>,
}

fn entity(id: u64, name: &str) -> Rc<RefCell<Entity>> {
    Rc::new(RefCell::new(Entity { id, name: name.into(), children: Vec::new() }))
}

fn level(rocks: &[(u64, &str)]) -> Entity {
    Entity { id: 1, name: "level".into(), children: rocks.iter().map(|&(id, name)| entity(id, name)).collect() }
}

/// The remove-and-rename case: `rock_0` removed, `rock_1` renamed `boulder`, the new level
/// built apart (as one loaded from another file is). The renamed object is the old `rock_1`,
/// edited; `rock_0` is dropped, not renamed.
#[test]
fn remove_and_rename_pairs_by_identity() {
    let mut old = level(&[(10, "rock_0"), (11, "rock_1"), (12, "tree")]);
    let (rock_0, rock_1) = (old.children[0].clone(), old.children[1].clone());
    let new = level(&[(11, "boulder"), (12, "tree")]);
    let patch = diff(&old, &new).unwrap();
    assert_eq!(patch.objects_created(), 0, "every object of the new level is an old one");
    assert_eq!(patch.objects_changed(), 2, "the level's children and rock_1's name");
    let report = patch.apply(&mut old);
    assert!(report.is_complete(), "{report}");
    rtti_eq(&old, &new).unwrap();
    assert!(Rc::ptr_eq(&old.children[0], &rock_1));
    assert_eq!(rock_1.borrow().name, "boulder");
    assert_eq!(rock_0.borrow().name, "rock_0", "the removed object is left as it was");
}

/// Without an identity, content and position cannot tell which rock became the boulder: the
/// patch makes a new object, and the old `rock_1` allocation (which a program may hold, a
/// selection in an editor say) is no longer in the level. What the identity is for.
#[test]
fn without_an_identity_the_renamed_object_is_a_new_one() {
    let rock = |id, name: &str| Rc::new(RefCell::new(Anonymous { id, name: name.into(), children: Vec::new() }));
    let level = |rocks: Vec<Rc<RefCell<Anonymous>>>| Anonymous { id: 1, name: "level".into(), children: rocks };
    let mut old = level(vec![rock(10, "rock_0"), rock(11, "rock_1"), rock(12, "tree")]);
    let rock_1 = old.children[1].clone();
    let new = level(vec![rock(11, "boulder"), rock(12, "tree")]);
    let report = diff(&old, &new).unwrap().apply(&mut old);
    assert!(report.is_complete(), "{report}");
    rtti_eq(&old, &new).unwrap();
    assert!(!Rc::ptr_eq(&old.children[0], &rock_1));
    assert_eq!(rock_1.borrow().name, "rock_1");
}

/// Equal identities pair whatever else changed; different ones never pair, even when every other
/// value is equal.
#[test]
fn identities_decide_pairing_over_content() {
    let mut old = level(&[(10, "a")]);
    let held = old.children[0].clone();
    let renamed = level(&[(10, "completely different")]);
    let patch = diff(&old, &renamed).unwrap();
    assert_eq!(patch.objects_created(), 0);
    patch.apply(&mut old);
    assert!(Rc::ptr_eq(&old.children[0], &held));

    let mut old = level(&[(10, "a")]);
    let held = old.children[0].clone();
    let replaced = level(&[(20, "a")]);
    let patch = diff(&old, &replaced).unwrap();
    assert_eq!(patch.objects_created(), 1, "another identity is another object");
    let report = patch.apply(&mut old);
    assert!(report.is_complete(), "{report}");
    rtti_eq(&old, &replaced).unwrap();
    assert!(!Rc::ptr_eq(&old.children[0], &held));
    assert_eq!(held.borrow().id, 10, "the replaced object was not rewritten into the new one");
}

/// An object moved to another parent keeps its allocation, found by its identity although its
/// name changed on the way.
#[test]
fn a_moved_and_edited_object_is_found_by_identity() {
    let mut old = level(&[(10, "left"), (11, "right")]);
    old.children[0].borrow_mut().children.push(entity(20, "crate"));
    let moved = old.children[0].borrow().children[0].clone();
    let new = level(&[(10, "left"), (11, "right")]);
    new.children[1].borrow_mut().children.push(entity(20, "crate, opened"));
    let patch = diff(&old, &new).unwrap();
    assert_eq!(patch.objects_created(), 0);
    let report = patch.apply(&mut old);
    assert!(report.is_complete(), "{report}");
    rtti_eq(&old, &new).unwrap();
    assert!(Rc::ptr_eq(&old.children[1].borrow().children[0], &moved));
    assert_eq!(moved.borrow().name, "crate, opened");
}

#[derive(Reflectable, Default, Debug, Clone)]
#[rtti(id = 964_203)]
struct Part {
    #[rtti(id = 1, identity)]
    id: u32,
    #[rtti(id = 2)]
    name: String,
    #[rtti(id = 3)]
    health: u32,
}

#[derive(Reflectable, Default, Debug, Clone)]
#[rtti(id = 964_204)]
struct Body {
    #[rtti(id = 1, embedded)]
    parts: Vec<Part>,
}

fn part(id: u32, name: &str, health: u32) -> Part {
    Part { id, name: name.into(), health }
}

/// Elements held by value align by identity too. The patch is applied to another copy of the
/// old body (a prefab instance with an override of its own): it edits the element it names, so
/// the instance's own change to that element survives.
#[test]
fn elements_held_by_value_align_by_identity() {
    let old = Body { parts: vec![part(1, "arm", 10), part(2, "leg", 10)] };
    let new = Body { parts: vec![part(2, "left leg", 10)] };
    let patch = diff(&old, &new).unwrap();
    let mut instance = Body { parts: vec![part(1, "arm", 10), part(2, "leg", 50)] };
    let report = patch.apply(&mut instance);
    assert!(report.is_complete(), "{report}");
    assert_eq!(instance.parts.len(), 1);
    let survivor = &instance.parts[0];
    assert_eq!((survivor.id, survivor.name.as_str(), survivor.health), (2, "left leg", 50));
}

#[test]
fn version_5_records_the_identity_and_older_versions_do_not() {
    let value = level(&[(10, "rock")]);
    let v5 = BinarySerializer::new().format_version(5).encode(&value).unwrap();
    let v3 = BinarySerializer::new().encode(&value).unwrap();
    let identity_of = |bytes: &[u8]| {
        let schema = Schema::of_stream(bytes).unwrap();
        let entity = schema.get(964_201).unwrap();
        entity.fields.iter().filter(|field| field.identity).map(|field| field.name.clone()).collect::<Vec<_>>()
    };
    assert_eq!(identity_of(&v5), ["id"]);
    assert!(identity_of(&v3).is_empty());
    // Both decode on the usual path, into the type as declared.
    for bytes in [&v5, &v3] {
        let (back, report): (Entity, _) = BinarySerializer::new().decode_with_report(bytes).unwrap();
        assert!(report.is_empty(), "{report:?}");
        rtti_eq(&back, &value).unwrap();
    }
}

/// A version 3 table is what it was before identities existed: the entry of a type with one is
/// byte for byte the entry of the same type without.
#[test]
fn a_version_3_table_carries_no_identity_flag() {
    let with = reflectable::to_vec(&Part { id: 7, name: "arm".into(), health: 1 }).unwrap();
    #[derive(Reflectable, Default)]
    #[rtti(id = 964_203, name = "Part", no_register)]
    struct PlainPart {
        #[rtti(id = 1)]
        id: u32,
        #[rtti(id = 2)]
        name: String,
        #[rtti(id = 3)]
        health: u32,
    }
    let without = reflectable::to_vec(&PlainPart { id: 7, name: "arm".into(), health: 1 }).unwrap();
    assert_eq!(with, without);
}

/// A graph read without the program has the identity in its schema, and writes it back: a
/// version 5 file stays version 5, flags and all.
#[test]
fn a_dynamic_graph_keeps_the_identity_flag() {
    let bytes = BinarySerializer::new().format_version(5).encode(&level(&[(10, "rock")])).unwrap();
    let graph = reflectable::dynamic::DynamicGraph::from_bytes(&bytes).unwrap();
    let schema = graph.schema().unwrap();
    let entity = schema.get(964_201).unwrap();
    assert!(entity.fields.iter().any(|field| field.identity && field.name == "id"));
    assert_eq!(graph.to_bytes().unwrap(), bytes);
}

/// Property: levels of identified objects, edited at random (removed, added, renamed, moved to
/// another parent), the new level built apart. After the patch, every object whose identity is
/// in both levels is the very allocation it was, and the levels are equal.
#[test]
fn identity_keeps_allocations_through_random_edits() {
    fn property(seed: Vec<(u8, u8, u8)>) -> TestResult {
        // Old level: up to 12 rocks under two groups.
        let mut ids: Vec<u64> = (0..seed.len().min(12) as u64).map(|n| 100 + n).collect();
        let build = |placement: &HashMap<u64, (usize, String)>, order: &[u64]| {
            let groups = [entity(1, "left"), entity(2, "right")];
            for id in order {
                let (group, name) = &placement[id];
                groups[*group].borrow_mut().children.push(entity(*id, name));
            }
            Entity { id: 0, name: "level".into(), children: groups.to_vec() }
        };
        let mut placement: HashMap<u64, (usize, String)> =
            ids.iter().map(|&id| (id, ((id % 2) as usize, format!("rock {id}")))).collect();
        let mut old = build(&placement, &ids);
        let held: HashMap<u64, Rc<RefCell<Entity>>> = old
            .children
            .iter()
            .flat_map(|group| group.borrow().children.clone())
            .map(|rock| (rock.borrow().id, rock.clone()))
            .collect();
        for &(what, at, value) in &seed {
            let at = usize::from(at);
            match what % 4 {
                0 if !ids.is_empty() => {
                    let id = ids.remove(at % ids.len());
                    placement.remove(&id);
                }
                1 => {
                    let id = 200 + u64::from(value);
                    if let std::collections::hash_map::Entry::Vacant(slot) = placement.entry(id) {
                        ids.insert(at % (ids.len() + 1), id);
                        slot.insert((usize::from(value % 2), format!("new {id}")));
                    }
                }
                2 if !ids.is_empty() => placement.get_mut(&ids[at % ids.len()]).unwrap().1 = format!("renamed {value}"),
                3 if !ids.is_empty() => placement.get_mut(&ids[at % ids.len()]).unwrap().0 = usize::from(value % 2),
                _ => {}
            }
        }
        let new = build(&placement, &ids);
        let report = diff(&old, &new).unwrap().apply(&mut old);
        if !report.is_complete() {
            return TestResult::error(format!("incomplete: {report}"));
        }
        if let Err(difference) = rtti_eq(&old, &new) {
            return TestResult::error(format!("not equal: {difference}"));
        }
        let kept: BTreeSet<u64> = placement.keys().copied().filter(|id| held.contains_key(id)).collect();
        for group in &old.children {
            for rock in &group.borrow().children {
                let id = rock.borrow().id;
                if kept.contains(&id) && !Rc::ptr_eq(rock, &held[&id]) {
                    return TestResult::error(format!("rock {id} is a new allocation"));
                }
            }
        }
        TestResult::passed()
    }
    QuickCheck::new().quickcheck(property as fn(Vec<(u8, u8, u8)>) -> TestResult);
}

/// The JSON twin of a version 5 file shows the identity and reads back to the same bytes; a
/// document of an older version that marks one is refused, as its stream could not hold it.
#[cfg(feature = "json")]
#[test]
fn json_shows_the_identity_of_version_5_only() {
    use reflectable::dynamic::DynamicGraph;
    let bytes = BinarySerializer::new().format_version(5).encode(&level(&[(10, "rock")])).unwrap();
    let text = reflectable::json::from_bytes(&bytes).unwrap();
    assert!(text.contains("\"identity\": true"), "{text}");
    assert_eq!(DynamicGraph::from_json(&text).unwrap().to_bytes().unwrap(), bytes);
    let older = text.replacen("\"version\": 5", "\"version\": 3", 1);
    assert_ne!(older, text);
    let error = DynamicGraph::from_json(&older).unwrap_err();
    assert!(error.to_string().contains("only a version 5 stream records"), "{error}");
}

pub trait Thing: Reflectable {}
reflectable::reflect_trait!(Thing);

/// A base that declares the identity of every type derived from it.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 964_210, abstract)]
struct Placed {
    #[rtti(id = 1, identity)]
    id: u64,
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 964_211, implements(Thing))]
struct Lamp {
    #[rtti(base)]
    base: Placed,
    #[rtti(id = 1)]
    watts: f32,
}
impl Thing for Lamp {}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 964_212, implements(Thing))]
struct Crate {
    #[rtti(base)]
    base: Placed,
    #[rtti(id = 1)]
    label: String,
}
impl Thing for Crate {}

#[derive(Reflectable, Default)]
#[rtti(id = 964_213)]
struct Room {
    #[rtti(id = 1)]
    things: Vec<Rc<RefCell<dyn Thing>>>,
    #[rtti(id = 2)]
    stored: Vec<Rc<RefCell<dyn Thing>>>,
}

fn lamp(id: u64) -> Rc<RefCell<dyn Thing>> {
    Rc::new(RefCell::new(Lamp { base: Placed { id }, watts: 40.0 }))
}

fn crate_(id: u64, label: &str) -> Rc<RefCell<dyn Thing>> {
    Rc::new(RefCell::new(Crate { base: Placed { id }, label: label.into() }))
}

/// An identity declared by a base is the identity of each derived type: a lamp and a crate with
/// one ID are two objects, in place or moved to another field, and the lamp is left as it was.
#[test]
fn an_identity_of_a_base_tells_apart_objects_of_different_types() {
    for moved in [false, true] {
        let mut old = Room { things: vec![lamp(5), crate_(6, "a")], ..Room::default() };
        let held = old.things[0].clone();
        let mut new = Room { things: vec![crate_(6, "a")], ..Room::default() };
        let replacement = crate_(5, "was a lamp");
        match moved {
            true => new.stored.push(replacement),
            false => new.things.insert(0, replacement),
        }
        let report = diff(&old, &new).unwrap().apply(&mut old);
        assert!(report.is_complete(), "{report}");
        rtti_eq(&old, &new).unwrap();
        assert_eq!(held.borrow().rtti().id(), 964_211, "the lamp is still a lamp");
    }
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 964_214)]
struct Sealed {
    #[rtti(id = 1, identity)]
    id: u32,
    #[rtti(id = 2)]
    name: String,
}

#[derive(Reflectable, Default)]
#[rtti(id = 964_215)]
struct Vault {
    #[rtti(id = 1)]
    frozen: Vec<Rc<Sealed>>,
    #[rtti(id = 2)]
    live: Vec<Rc<RefCell<Sealed>>>,
}

/// One identity in an editable allocation and in a frozen one: two objects (one cannot be edited
/// into the other's place), both ways.
#[test]
fn an_identity_does_not_pair_objects_of_two_families() {
    let frozen = || vec![Rc::new(Sealed { id: 1, name: "x".into() })];
    let live = || vec![Rc::new(RefCell::new(Sealed { id: 1, name: "y".into() }))];
    for (old, new) in [
        (Vault { live: live(), ..Vault::default() }, Vault { frozen: frozen(), ..Vault::default() }),
        (Vault { frozen: frozen(), ..Vault::default() }, Vault { live: live(), ..Vault::default() }),
    ] {
        let mut old = old;
        let report = diff(&old, &new).unwrap().apply(&mut old);
        assert!(report.is_complete(), "{report}");
        rtti_eq(&old, &new).unwrap();
    }
}

#[derive(Reflectable, Default)]
#[rtti(id = 964_216)]
struct Shelf {
    #[rtti(id = 1)]
    items: Vec<Rc<RefCell<Entity>>>,
    #[rtti(id = 2)]
    by_slot: std::collections::BTreeMap<u32, Rc<RefCell<Entity>>>,
    #[rtti(id = 3)]
    single: Option<Rc<RefCell<Entity>>>,
}

/// Two objects claiming one identity, and the new graph holding the old one itself (an undo
/// snapshot shares allocations with the live graph): the old object is itself, never rewritten
/// into the other.
#[test]
fn an_object_both_graphs_hold_is_itself_whatever_claims_its_identity() {
    let shared = entity(4, "shared");
    let mut old = Shelf { items: vec![shared.clone()], ..Shelf::default() };
    let claimant = entity(4, "claimant");
    let new = Shelf { by_slot: [(0, claimant)].into(), single: Some(shared.clone()), ..Shelf::default() };
    let report = diff(&old, &new).unwrap().apply(&mut old);
    assert!(report.is_complete(), "{report}");
    assert_eq!(shared.borrow().name, "shared", "an allocation the new graph holds was rewritten");
    rtti_eq(&old, &new).unwrap();

    let (other, shared) = (entity(4, "other"), entity(4, "shared"));
    let mut old = Shelf { items: vec![other], by_slot: [(0, shared.clone())].into(), ..Shelf::default() };
    let new = Shelf { items: vec![shared.clone()], single: Some(entity(4, "new")), ..Shelf::default() };
    let report = diff(&old, &new).unwrap().apply(&mut old);
    assert!(report.is_complete(), "{report}");
    assert_eq!(shared.borrow().name, "shared");
    rtti_eq(&old, &new).unwrap();
}

/// A patch finds an object whose type declares an identity by it, not by its path: applied to a
/// graph whose children moved since (a prefab changed after the override was made), the edit
/// lands on the same object; applied to a graph without it, it is reported, never applied to
/// whatever took its place.
#[test]
fn a_patch_finds_objects_by_identity_where_they_moved() {
    let old = level(&[(10, "door"), (11, "flag")]);
    let new = level(&[(10, "door"), (11, "flag")]);
    new.children[0].borrow_mut().name = "dark door".into();
    let patch = diff(&old, &new).unwrap();
    let mut moved = level(&[(11, "flag"), (10, "door")]);
    let report = patch.apply(&mut moved);
    assert!(report.is_complete(), "{report}");
    assert_eq!(moved.children[1].borrow().name, "dark door");
    assert_eq!(moved.children[0].borrow().name, "flag");

    let mut without = level(&[(12, "window"), (11, "flag")]);
    let report = patch.apply(&mut without);
    assert!(report.to_string().contains("no object of the graph has its identity"), "{report}");
    assert_eq!(without.children[0].borrow().name, "window");
}
