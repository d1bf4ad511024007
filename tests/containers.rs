//! Containers of objects: maps whose values are objects or pointers, and nested lists.

use reflectable::containers::{LIST_TYPE_ID, MAP_TYPE_ID};
use reflectable::{from_slice, to_vec, Reflectable};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::{Arc, Mutex};

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 550_000)]
pub struct Material {
    #[rtti(id = 1)]
    pub name: String,
    #[rtti(id = 2)]
    pub roughness: f32,
}

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 550_001)]
pub enum Light {
    #[default]
    #[rtti(id = 1)]
    Off,
    #[rtti(id = 2)]
    Point {
        #[rtti(id = 1)]
        radius: f32,
    },
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 550_002)]
pub struct Level {
    #[rtti(id = 1)]
    pub materials: HashMap<String, Rc<RefCell<Material>>>,
    #[rtti(id = 2, embedded)]
    pub lights: BTreeMap<u32, Light>,
    #[rtti(id = 3)]
    pub by_layer: Vec<Vec<Rc<RefCell<Material>>>>,
    #[rtti(id = 4)]
    pub holes: Vec<Option<Rc<RefCell<Material>>>>,
    #[rtti(id = 5)]
    pub maybe: Option<Vec<Rc<RefCell<Material>>>>,
    #[rtti(id = 6)]
    pub fast: ahash::AHashMap<u64, Arc<Mutex<Material>>>,
    #[rtti(id = 7)]
    pub deep: Vec<Vec<Vec<Rc<RefCell<Material>>>>>,
    #[rtti(id = 8)]
    pub tail: u32,
}

fn material(name: &str) -> Rc<RefCell<Material>> {
    Rc::new(RefCell::new(Material { name: name.into(), roughness: 0.5 }))
}

fn level() -> Level {
    let stone = material("stone");
    let wood = material("wood");
    let mut level = Level::default();
    level.materials.insert("stone".into(), stone.clone());
    level.materials.insert("wood".into(), wood.clone());
    level.materials.insert("stone again".into(), stone.clone());
    level.lights.insert(1, Light::Point { radius: 2.0 });
    level.lights.insert(5, Light::Off);
    level.by_layer = vec![vec![stone.clone(), wood.clone()], vec![], vec![wood.clone()]];
    level.holes = vec![None, Some(stone.clone()), None];
    level.maybe = Some(vec![wood.clone()]);
    level.fast.insert(9, Arc::new(Mutex::new(Material { name: "glass".into(), roughness: 0.1 })));
    level.deep = vec![vec![vec![stone], vec![]], vec![vec![wood]]];
    level.tail = 42;
    level
}

#[test]
fn maps_and_nested_lists_round_trip_with_sharing() {
    let back: Level = from_slice(&to_vec(&level()).unwrap()).unwrap();
    let stone = back.materials["stone"].clone();
    let wood = back.materials["wood"].clone();
    assert_eq!(stone.borrow().name, "stone");
    assert!(Rc::ptr_eq(&stone, &back.materials["stone again"]));
    assert_eq!(back.lights, BTreeMap::from([(1, Light::Point { radius: 2.0 }), (5, Light::Off)]));
    assert_eq!(back.by_layer.len(), 3);
    assert!(Rc::ptr_eq(&back.by_layer[0][0], &stone));
    assert!(Rc::ptr_eq(&back.by_layer[0][1], &wood));
    assert!(back.by_layer[1].is_empty());
    assert!(Rc::ptr_eq(&back.by_layer[2][0], &wood));
    assert!(back.holes[0].is_none() && back.holes[2].is_none());
    assert!(Rc::ptr_eq(back.holes[1].as_ref().unwrap(), &stone));
    assert!(Rc::ptr_eq(&back.maybe.as_ref().unwrap()[0], &wood));
    assert_eq!(back.fast[&9].lock().unwrap().name, "glass");
    assert!(Rc::ptr_eq(&back.deep[0][0][0], &stone));
    assert!(back.deep[0][1].is_empty());
    assert!(Rc::ptr_eq(&back.deep[1][0][0], &wood));
    assert_eq!(back.tail, 42);

    let empty: Level = from_slice(&to_vec(&Level::default()).unwrap()).unwrap();
    assert!(empty.materials.is_empty() && empty.maybe.is_none() && empty.deep.is_empty());
}

#[test]
fn map_fields_are_maps_to_rtti_with_access_by_key() {
    let rtti = Level::rtti_static();
    let field = rtti.field_by_name("materials").unwrap();
    assert!(field.is_map());
    assert!(!rtti.field_by_name("by_layer").unwrap().is_map());
    let mut level = level();
    let mut keys = field.map_keys::<String>(&level).unwrap();
    keys.sort();
    assert_eq!(keys, ["stone", "stone again", "wood"]);
    let wood: Rc<RefCell<Material>> = field.map_get(&level, &"wood".to_string()).unwrap().unwrap();
    assert!(Rc::ptr_eq(&wood, &level.materials["wood"]));
    let old = field.map_insert(&mut level, "wood".to_string(), material("oak")).unwrap();
    assert!(Rc::ptr_eq(&old.unwrap(), &wood));
    assert_eq!(level.materials["wood"].borrow().name, "oak");
    field.map_remove::<String, Rc<RefCell<Material>>>(&mut level, &"stone".to_string()).unwrap();
    assert!(!level.materials.contains_key("stone"));
    // Typed access with the wrong key type is an error, not a panic.
    assert!(field.map_get::<u32, Rc<RefCell<Material>>>(&level, &1).is_err());

    // The nested element access goes through the map object's own fields.
    let lights = rtti.field_by_name("lights").unwrap();
    lights
        .with_embedded(&level, 0, |entries| {
            let entries = entries.unwrap();
            assert_eq!(entries.rtti().id(), MAP_TYPE_ID);
            let values = entries.rtti().field_by_name("values").unwrap();
            values.with_embedded(entries, 0, |light| {
                let light = light.unwrap();
                assert_eq!(light.rtti().active_variant(light).unwrap().name(), "Point");
            })
        })
        .unwrap()
        .unwrap();
    let by_layer = rtti.field_by_name("by_layer").unwrap();
    by_layer
        .with_embedded(&level, 0, |list| {
            let list = list.unwrap();
            assert_eq!(list.rtti().id(), LIST_TYPE_ID);
            assert_eq!(list.rtti().fields()[0].len(list).unwrap(), 2);
        })
        .unwrap();
}

#[test]
fn hash_maps_of_objects_encode_the_same_bytes_whatever_the_hasher() {
    // Two maps with the same entries but different hashers (ahash seeds differ per map).
    let first = to_vec(&level()).unwrap();
    let second = to_vec(&level()).unwrap();
    assert_eq!(first, second);
}

#[derive(Reflectable, Default)]
#[rtti(id = 550_010)]
pub struct Library {
    #[rtti(id = 1)]
    pub materials: BTreeMap<u32, Rc<Material>>,
}

/// The layout FORMAT.md shows under "Containers of objects", byte for byte.
#[test]
fn a_map_field_is_a_map_object_with_keys_and_values() {
    let library = Library { materials: BTreeMap::from([(7, Rc::new(Material::default()))]) };
    let bytes = to_vec(&library).unwrap();
    let root = &bytes[8..];
    #[rustfmt::skip]
    let expected: &[u8] = &[
        0x05, 0, 0, 0, 0x7A, 0x64, 0x08, 0,      // type header: instance 1, type 550_010
        0x04, 0x00, 0x01, 0x00,                  // field 1: single, embedded
        0x01, 0, 0, 0, 0x02, 0xFF, 0xFF, 0xFF,   // embedded object: instance 0, type 0xFFFF_FF02
        0x02, 0x04, 0x01, 0x00, 1, 0, 0, 0,      // field 1 (keys): array, static size 4; count 1
        7, 0, 0, 0,                              //   key 7
        0x12, 0x00, 0x02, 0x00, 1, 0, 0, 0,      // field 2 (values): array of pointers; count 1
        2, 0, 0, 0,                              //   instance 2
        0x08, 0, 0, 0,                           // terminator
    ];
    assert_eq!(&root[..expected.len()], expected, "{:02X?}", &root[..expected.len()]);
}

/// Random maps and nested lists over a small pool of shared materials: after a round trip every
/// entry points at the material of the same pool index, shared as it was.
#[test]
fn random_maps_and_lists_keep_their_sharing() {
    fn property(entries: Vec<(String, u8)>, layers: Vec<Vec<u8>>) -> bool {
        let pool: Vec<_> = (0..8).map(|i| material(&format!("m{i}"))).collect();
        let mut level = Level::default();
        for (key, index) in &entries {
            level.materials.insert(key.clone(), pool[*index as usize % 8].clone());
        }
        level.by_layer =
            layers.iter().map(|layer| layer.iter().map(|&i| pool[i as usize % 8].clone()).collect()).collect();
        let back: Level = from_slice(&to_vec(&level).unwrap()).unwrap();
        // The decoded objects, by the pool index their name gives.
        let index = |m: &Rc<RefCell<Material>>| m.borrow().name[1..].parse::<usize>().unwrap();
        let mut decoded: Vec<Option<Rc<RefCell<Material>>>> = vec![None; 8];
        let mut same = |m: &Rc<RefCell<Material>>| {
            let slot = &mut decoded[index(m)];
            match slot {
                Some(first) => Rc::ptr_eq(first, m),
                None => {
                    *slot = Some(m.clone());
                    true
                }
            }
        };
        back.materials.len() == level.materials.len()
            && level
                .materials
                .iter()
                .all(|(key, m)| back.materials.get(key).is_some_and(|b| index(b) == index(m) && same(b)))
            && back.by_layer.len() == level.by_layer.len()
            && level
                .by_layer
                .iter()
                .zip(&back.by_layer)
                .all(|(a, b)| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| index(x) == index(y) && same(y)))
    }
    quickcheck::quickcheck(property as fn(Vec<(String, u8)>, Vec<Vec<u8>>) -> bool);
}

static LIVE_CELLS: std::sync::atomic::AtomicIsize = std::sync::atomic::AtomicIsize::new(0);

/// Counts its live instances, to tell whether a decode left any behind.
#[derive(Reflectable)]
#[rtti(id = 550_020)]
pub struct Cell {
    #[rtti(id = 1)]
    pub other: Option<Rc<RefCell<Cell>>>,
}

impl Default for Cell {
    fn default() -> Self {
        LIVE_CELLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Cell { other: None }
    }
}

impl Drop for Cell {
    fn drop(&mut self) {
        LIVE_CELLS.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[derive(Reflectable, Default)]
#[rtti(id = 550_021)]
pub struct Cells {
    #[rtti(id = 1)]
    pub by_key: BTreeMap<u32, Rc<RefCell<Cell>>>,
}

/// A map whose stored keys repeat drops the values of the earlier ones; an object only such a
/// value held, in a cycle of its own, must be freed with the decode's result, not leak (found in
/// review).
#[test]
fn values_a_repeated_key_drops_do_not_leak() {
    let bytes = {
        let a = Rc::new(RefCell::new(Cell::default()));
        a.borrow_mut().other = Some(a.clone());
        let b = Rc::new(RefCell::new(Cell::default()));
        let cells = Cells { by_key: BTreeMap::from([(1, a.clone()), (2, b)]) };
        let bytes = to_vec(&cells).unwrap();
        a.borrow_mut().other = None;
        bytes
    };
    assert_eq!(LIVE_CELLS.load(std::sync::atomic::Ordering::SeqCst), 0);
    // Keys field: header (field 1, array, static size 4), count 2, keys 1 and 2. Key 2 becomes 1.
    let keys: &[u8] = &[0x02, 0x04, 0x01, 0x00, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0];
    let at = bytes.windows(keys.len()).position(|window| window == keys).expect("the keys field");
    let mut patched = bytes.clone();
    patched[at + 12] = 1;
    {
        let back: Cells = from_slice(&patched).unwrap();
        assert_eq!(back.by_key.len(), 1, "the last value of key 1 wins");
        assert!(back.by_key[&1].borrow().other.is_none(), "and it is b, which points nowhere");
    }
    assert_eq!(LIVE_CELLS.load(std::sync::atomic::Ordering::SeqCst), 0, "a (in its own cycle) was freed");
}

/// `Level` as a program from before maps and nested lists knew it: only its last field.
mod before {
    use reflectable::Reflectable;

    #[derive(Reflectable, Default)]
    #[rtti(id = 550_002, name = "Level", no_register)]
    pub struct Level {
        #[rtti(id = 8)]
        pub tail: u32,
    }
}

#[test]
fn an_older_reader_skips_maps_and_lists_like_any_field_it_does_not_know() {
    let bytes = to_vec(&level()).unwrap();
    let mut registry = reflectable::Registry::new();
    registry.register_type::<before::Level>().unwrap();
    let back: before::Level =
        reflectable::serializer::BinarySerializer::with_registry(&registry).decode(&bytes).unwrap();
    assert_eq!(back.tail, 42);
}
