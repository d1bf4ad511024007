//! Assets by reference: a pointer to an object of an asset type (one with an `asset_key` field,
//! or a base with one) is saved as an external reference holding the key, and a load asks the
//! program's asset manager for the object. Not found, it loads as null and is reported.

use reflectable::field::SharedObject;
use reflectable::rtti::AssetKey;
use reflectable::serializer::format::{FieldHeader, Trailer, TypeHeader, WireKind, MAGIC, TRAILER_SIZE, VERSION};
use reflectable::serializer::{BinarySerializer, DecodeEvent};
use reflectable::{Reflectable, RttiTypeBuilder};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use std::sync::Arc;

/// What every asset derives from: its UUID.
#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 986_000)]
pub struct Resource {
    #[rtti(id = 1, asset_key)]
    pub uuid: u128,
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 986_001)]
pub struct Mesh {
    #[rtti(base)]
    pub resource: Resource,
    #[rtti(id = 1)]
    pub vertices: Vec<[f32; 3]>,
}

/// Keyed by its path.
#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 986_002)]
pub struct Texture {
    #[rtti(id = 1)]
    pub pixels: Vec<u8>,
    #[rtti(id = 2, asset_key)]
    pub path: String,
}

/// Keyed by a number.
#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 986_003)]
pub struct Sound {
    #[rtti(id = 1, asset_key)]
    pub id: u64,
    #[rtti(id = 2)]
    pub samples: Vec<i16>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 986_010)]
pub struct Entity {
    #[rtti(id = 1)]
    pub name: String,
    #[rtti(id = 2)]
    pub mesh: Option<Arc<Mesh>>,
    #[rtti(id = 3)]
    pub texture: Option<Rc<Texture>>,
    #[rtti(id = 4)]
    pub any: Option<Rc<dyn Reflectable>>,
    #[rtti(id = 5)]
    pub last_seen: Weak<Texture>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 986_011)]
pub struct Level {
    #[rtti(id = 1)]
    pub entities: Vec<Rc<RefCell<Entity>>>,
}

const ROCK_UUID: u128 = 0x6f1e_2a3b_4c5d_6e7f_8091_a2b3_c4d5_e6f7;

/// The program's asset manager: the objects it has loaded, by key, and how often it was asked.
struct Manager {
    meshes: HashMap<u128, Arc<Mesh>>,
    textures: HashMap<String, Rc<Texture>>,
    sounds: HashMap<u64, Rc<Sound>>,
    asked: Cell<usize>,
}

impl Manager {
    fn new() -> Self {
        let rock = Mesh { resource: Resource { uuid: ROCK_UUID }, vertices: vec![[0.0; 3]; 300] };
        let moss = Texture { pixels: vec![9; 4096], path: "textures/moss.png".into() };
        let step = Sound { id: 77, samples: vec![1; 2048] };
        Manager {
            meshes: [(ROCK_UUID, Arc::new(rock))].into(),
            textures: [("textures/moss.png".to_owned(), Rc::new(moss))].into(),
            sounds: [(77, Rc::new(step))].into(),
            asked: Cell::new(0),
        }
    }

    fn find(&self, key: &AssetKey, type_id: u32) -> Option<SharedObject> {
        self.asked.set(self.asked.get() + 1);
        match key {
            AssetKey::Uuid(uuid) if type_id == Mesh::rtti_static().id() => {
                self.meshes.get(uuid).map(|mesh| SharedObject::new_concrete(mesh.clone()))
            }
            AssetKey::Path(path) => self.textures.get(path).map(|texture| SharedObject::new_concrete(texture.clone())),
            // A `dyn Reflectable` field takes the object as its concrete type.
            AssetKey::U64(id) => self.sounds.get(id).map(|sound| SharedObject::new_concrete(sound.clone())),
            _ => None,
        }
    }
}

fn level(manager: &Manager) -> Level {
    let moss = &manager.textures["textures/moss.png"];
    let entities = (0..3)
        .map(|index| {
            Rc::new(RefCell::new(Entity {
                name: format!("rock_{index}"),
                mesh: Some(manager.meshes[&ROCK_UUID].clone()),
                texture: Some(moss.clone()),
                any: (index == 0).then(|| manager.sounds[&77].clone() as Rc<dyn Reflectable>),
                last_seen: Rc::downgrade(moss),
            }))
        })
        .collect();
    Level { entities }
}

/// The number of top-level objects the trailer counts.
fn stream_objects(bytes: &[u8]) -> u32 {
    let at = bytes.len() - TRAILER_SIZE + 8;
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

#[test]
fn asset_pointers_are_saved_as_keys_and_found_again_through_the_manager() {
    let manager = Manager::new();
    let bytes = reflectable::to_vec(&level(&manager)).unwrap();
    // The level, three entities and one stub per asset; no mesh, texture or sound data.
    assert_eq!(stream_objects(&bytes), 1 + 3 + 3);
    assert!(bytes.len() < 2048, "{} bytes: asset data was written", bytes.len());

    let find = |key: &AssetKey, type_id: u32| manager.find(key, type_id);
    let (back, report) = BinarySerializer::new().assets(&find).decode_with_report::<Level>(&bytes).unwrap();
    assert!(report.is_empty(), "{report}");
    assert_eq!(manager.asked.get(), 3, "once per asset, however many pointers lead to it");
    for entity in &back.entities {
        let entity = entity.borrow();
        assert!(Arc::ptr_eq(entity.mesh.as_ref().unwrap(), &manager.meshes[&ROCK_UUID]), "the manager's mesh itself");
        let moss = &manager.textures["textures/moss.png"];
        assert!(Rc::ptr_eq(entity.texture.as_ref().unwrap(), moss));
        assert!(Rc::ptr_eq(&entity.last_seen.upgrade().unwrap(), moss), "a Weak to an asset too");
    }
    let sound = back.entities[0].borrow().any.clone().unwrap();
    assert!(std::ptr::addr_eq(Rc::as_ptr(&sound), Rc::as_ptr(&manager.sounds[&77])));
    // The decode left the manager's objects alone.
    assert_eq!(manager.meshes[&ROCK_UUID].vertices.len(), 300);
}

#[test]
fn an_asset_not_found_loads_as_null_and_is_reported_with_its_key() {
    let manager = Manager::new();
    let bytes = reflectable::to_vec(&level(&manager)).unwrap();
    // No manager at all.
    let (back, report) = BinarySerializer::new().decode_with_report::<Level>(&bytes).unwrap();
    assert!(back.entities.iter().all(|entity| entity.borrow().mesh.is_none() && entity.borrow().texture.is_none()));
    let missing: Vec<String> = report
        .events()
        .filter(|(event, _)| matches!(event, DecodeEvent::AssetUnresolved { .. }))
        .map(|(event, count)| format!("{event} x{count}"))
        .collect();
    assert_eq!(
        missing,
        [
            "asset `6f1e2a3b-4c5d-6e7f-8091-a2b3c4d5e6f7` (Mesh, type 986001) was not found: pointers to it are null x1",
            "asset `textures/moss.png` (Texture, type 986002) was not found: pointers to it are null x1",
            "asset `77` (Sound, type 986003) was not found: pointers to it are null x1",
        ]
    );
    assert!(report.to_string().contains("nulled a pointer in Entity.mesh"), "{report}");
    // A manager that has only the mesh.
    let only_mesh = |key: &AssetKey, type_id: u32| match key {
        AssetKey::Uuid(_) => manager.find(key, type_id),
        _ => None,
    };
    let (back, report) = BinarySerializer::new().assets(&only_mesh).decode_with_report::<Level>(&bytes).unwrap();
    assert!(back.entities[0].borrow().mesh.is_some() && back.entities[0].borrow().texture.is_none());
    assert_eq!(report.events().filter(|(event, _)| matches!(event, DecodeEvent::AssetUnresolved { .. })).count(), 2);
    // Strict decoding refuses the loss.
    let error = BinarySerializer::new().strict(true).decode::<Level>(&bytes).map(drop).unwrap_err();
    assert!(error.to_string().contains("was not found"), "{error}");
}

#[test]
fn an_object_of_the_wrong_type_is_not_taken_for_the_asset() {
    let manager = Manager::new();
    let bytes = reflectable::to_vec(&level(&manager)).unwrap();
    // The manager answers every key with the texture: it fits neither mesh nor sound fields.
    let wrong = |_: &AssetKey, _: u32| Some(SharedObject::new(manager.textures["textures/moss.png"].clone()));
    let (back, report) = BinarySerializer::new().assets(&wrong).decode_with_report::<Level>(&bytes).unwrap();
    let first = back.entities[0].borrow();
    assert!(first.mesh.is_none() && first.texture.is_some());
    assert!(report.to_string().contains("Entity.mesh"), "{report}");
}

#[test]
fn an_asset_saved_on_its_own_is_the_whole_object() {
    let manager = Manager::new();
    let rock = &manager.meshes[&ROCK_UUID];
    let back: Mesh = reflectable::from_slice(&reflectable::to_vec(&**rock).unwrap()).unwrap();
    assert_eq!(&back, &**rock);
    let shared: Arc<Mesh> = reflectable::from_slice(&reflectable::to_vec(rock).unwrap()).unwrap();
    assert_eq!(shared.vertices.len(), 300);
    // Its key comes from the base section that declares it.
    assert_eq!(Mesh::rtti_static().asset_key(&**rock), Some(AssetKey::Uuid(ROCK_UUID)));
    assert!(Mesh::rtti_static().is_asset() && Resource::rtti_static().is_asset() && !Entity::rtti_static().is_asset());
}

#[test]
fn the_stub_is_the_bytes_format_md_gives() {
    let texture = Rc::new(Texture { pixels: vec![1, 2, 3], path: "moss.png".into() });
    let entity = Entity { texture: Some(texture), ..Entity::default() };
    let bytes = reflectable::to_vec(&entity).unwrap();
    let mut stub = Vec::new();
    TypeHeader { instance: 2, base: false, type_id: 0xFFFF_FF03 }.write(&mut stub);
    stub.extend_from_slice(&[0x20, 0x00, 0x03, 0x00]); // field 3, plain, dynamic size
    stub.extend_from_slice(&13u32.to_le_bytes()); // size 4 + kind 1 + 8 bytes of path
    stub.push(2); // a path
    stub.extend_from_slice(b"moss.png");
    stub.extend_from_slice(&[0x00, 0x04, 0x02, 0x00]); // field 2, static size 4
    stub.extend_from_slice(&986_002u32.to_le_bytes());
    let at = bytes.windows(stub.len()).position(|window| window == stub.as_slice());
    assert!(at.is_some(), "the stub as FORMAT.md gives it: {stub:02x?}");
}

/// A stream of one entity whose `texture` points at instance 2, a stub `stub` writes.
fn hostile(stub: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    TypeHeader { instance: 1, base: false, type_id: Entity::rtti_static().id() }.write(&mut bytes);
    bytes.extend_from_slice(&FieldHeader::new(3, WireKind::Pointer, false).pack().to_le_bytes());
    bytes.extend_from_slice(&2u32.to_le_bytes());
    TypeHeader { instance: 2, base: false, type_id: 0xFFFF_FF03 }.write(&mut bytes);
    stub(&mut bytes);
    bytes.extend_from_slice(&reflectable::serializer::format::EMPTY_SCHEMA_TABLE);
    let length = (bytes.len() + TRAILER_SIZE) as u64;
    [bytes, Trailer { flags: 0, objects: 2, length, checksum: 0 }.to_bytes().to_vec()].concat()
}

fn asset_field(bytes: &mut Vec<u8>, size: u32, content: &[u8]) {
    bytes.extend_from_slice(&FieldHeader::new(3, WireKind::Plain(None), false).pack().to_le_bytes());
    bytes.extend_from_slice(&size.to_le_bytes());
    bytes.extend_from_slice(content);
}

fn type_field(bytes: &mut Vec<u8>) {
    bytes.extend_from_slice(&FieldHeader::new(2, WireKind::Plain(Some(4)), false).pack().to_le_bytes());
    bytes.extend_from_slice(&986_002u32.to_le_bytes());
}

#[test]
fn hostile_asset_stubs_give_null_or_an_error_never_a_panic() {
    let moss = Rc::new(Texture { pixels: vec![], path: "moss.png".into() });
    let found = moss.clone();
    let find = move |_: &AssetKey, _: u32| Some(SharedObject::new(found.clone()));
    let serializer = BinarySerializer::new().assets(&find);

    let good = hostile(|b| {
        asset_field(b, 13, b"\x02moss.png");
        type_field(b);
    });
    let entity: Entity = serializer.decode(&good).unwrap();
    assert!(Rc::ptr_eq(entity.texture.as_ref().unwrap(), &moss));

    // Each of these holds no key this reader takes: the pointer is null, and the decode goes on.
    let unreadable: Vec<(&str, Vec<u8>)> = vec![
        ("an unknown kind", hostile(|b| (asset_field(b, 6, b"\x09x"), type_field(b)).1)),
        ("a path that is not UTF-8", hostile(|b| (asset_field(b, 7, b"\x02\xff\xfe"), type_field(b)).1)),
        ("a UUID of 15 bytes", hostile(|b| (asset_field(b, 20, &[1; 16]), type_field(b)).1)),
        ("a u64 of 4 bytes", hostile(|b| (asset_field(b, 9, &[0; 5]), type_field(b)).1)),
        ("no kind", hostile(|b| (asset_field(b, 4, b""), type_field(b)).1)),
        ("no type", hostile(|b| asset_field(b, 13, b"\x02moss.png"))),
        (
            "both keys",
            hostile(|b| {
                b.extend_from_slice(&FieldHeader::new(1, WireKind::Plain(Some(8)), false).pack().to_le_bytes());
                b.extend_from_slice(&5u64.to_le_bytes());
                asset_field(b, 13, b"\x02moss.png");
                type_field(b);
            }),
        ),
    ];
    for (what, bytes) in unreadable {
        let (entity, report) =
            serializer.decode_with_report::<Entity>(&bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(entity.texture.is_none(), "{what}");
        assert!(!report.is_lossless(), "{what}: the null is reported");
    }

    // A size that contradicts the stream is an error with its offset.
    for (what, size) in [("a size below 4", 3u32), ("a size past the end", 1 << 30)] {
        let bytes = hostile(|b| (asset_field(b, size, b"\x02moss.png"), type_field(b)).1);
        let error = serializer.decode::<Entity>(&bytes).map(drop).unwrap_err();
        assert!(error.offset().is_some(), "{what}: {error}");
    }
    // Every truncation of the good stream is an error, never a panic.
    for cut in 0..good.len() {
        assert!(serializer.decode::<Entity>(&good[..cut]).is_err(), "cut at {cut}");
    }
}

#[derive(Default)]
struct Badly {
    weight: f32,
}

impl Reflectable for Badly {
    fn rtti(&self) -> &'static reflectable::RttiType {
        unreachable!("never built")
    }
    fn rtti_static() -> &'static reflectable::RttiType {
        unreachable!("never built")
    }
}

#[test]
fn an_asset_key_must_be_a_single_number_or_string_of_the_type() {
    let float = RttiTypeBuilder::<Badly>::new(986_050, "Badly")
        .plain::<f32>(1, "weight", |b| &b.weight, |b| &mut b.weight)
        .asset_key(1)
        .build();
    assert!(float.unwrap_err().to_string().contains("asset key, field 1"));
    let missing = RttiTypeBuilder::<Badly>::new(986_051, "Badly").asset_key(4).build();
    assert!(missing.unwrap_err().to_string().contains("asset key, field 4"));
}

#[test]
fn a_subtree_save_keeps_a_weak_to_an_asset_as_its_reference() {
    let manager = Manager::new();
    let moss = &manager.textures["textures/moss.png"];
    let entity =
        Rc::new(RefCell::new(Entity { name: "lone".into(), last_seen: Rc::downgrade(moss), ..Entity::default() }));
    let (bytes, cuts) = reflectable::to_vec_subtree(&entity).unwrap();
    assert!(cuts.is_empty(), "a reference to an asset is not a cut: {cuts}");
    let find = |key: &AssetKey, type_id: u32| manager.find(key, type_id);
    let back: Rc<RefCell<Entity>> = BinarySerializer::new().assets(&find).decode(&bytes).unwrap();
    assert!(Rc::ptr_eq(&back.borrow().last_seen.upgrade().unwrap(), moss));
}

#[test]
fn asset_references_survive_the_compact_form_and_json() {
    let manager = Manager::new();
    let normal = reflectable::to_vec(&level(&manager)).unwrap();
    let compact = reflectable::serializer::compact::to_compact(&normal).unwrap();
    assert_eq!(reflectable::serializer::compact::to_normal(&compact).unwrap(), normal);
    let json = reflectable::json::from_bytes(&normal).unwrap();
    assert_eq!(reflectable::json::to_bytes(&json).unwrap(), normal);
    let find = |key: &AssetKey, type_id: u32| manager.find(key, type_id);
    let (back, report) = BinarySerializer::new().assets(&find).decode_with_report::<Level>(&compact).unwrap();
    assert!(report.is_empty(), "{report}");
    assert!(Arc::ptr_eq(back.entities[2].borrow().mesh.as_ref().unwrap(), &manager.meshes[&ROCK_UUID]));
}

/// A prefab that is itself an asset, with parts that point back at it.
#[derive(Reflectable, Default)]
#[rtti(id = 986_020)]
pub struct Prefab {
    #[rtti(id = 1, asset_key)]
    pub path: String,
    #[rtti(id = 2)]
    pub parts: Vec<Arc<std::sync::Mutex<Part>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 986_021)]
pub struct Part {
    #[rtti(id = 1)]
    pub owner: std::sync::Weak<std::sync::Mutex<Prefab>>,
}

#[test]
fn an_asset_root_passed_by_reference_is_never_read_through_a_pointer_back_to_it() {
    // Saved by handle, the prefab is the root and its parts point at it.
    let prefab = Arc::new(std::sync::Mutex::new(Prefab { path: "door.prefab".into(), parts: Vec::new() }));
    let part = Arc::new(std::sync::Mutex::new(Part { owner: Arc::downgrade(&prefab) }));
    prefab.lock().unwrap().parts.push(part);
    let back: Arc<std::sync::Mutex<Prefab>> = reflectable::from_slice(&reflectable::to_vec(&prefab).unwrap()).unwrap();
    let owner = back.lock().unwrap().parts[0].lock().unwrap().owner.upgrade().unwrap();
    assert!(Arc::ptr_eq(&owner, &back), "the root, not a reference to it");
    // By reference from inside its lock: an error (it cannot be pointed at), not a deadlock.
    let error = reflectable::to_vec(&*prefab.lock().unwrap()).unwrap_err();
    assert!(matches!(error, reflectable::serializer::EncodeError::RootBehindPointer { .. }), "{error}");
    back.lock().unwrap().parts.clear();
    prefab.lock().unwrap().parts.clear();
}

#[derive(Reflectable, Default)]
#[rtti(id = 986_030)]
pub struct Shelf {
    #[rtti(id = 1)]
    pub typed: Vec<Rc<Texture>>,
    #[rtti(id = 2)]
    pub any: Option<Rc<dyn Reflectable>>,
}

#[test]
fn one_answer_of_the_manager_fits_typed_and_dyn_fields_and_a_miss_is_reported_once() {
    let manager = Manager::new();
    let moss = manager.textures["textures/moss.png"].clone();
    let shelf = Shelf { typed: vec![moss.clone()], any: Some(moss.clone()) };
    let bytes = reflectable::to_vec(&shelf).unwrap();
    let find = |key: &AssetKey, type_id: u32| manager.find(key, type_id);
    let (back, report) = BinarySerializer::new().assets(&find).decode_with_report::<Shelf>(&bytes).unwrap();
    assert!(report.is_empty(), "{report}");
    assert!(Rc::ptr_eq(&back.typed[0], &moss));
    assert!(std::ptr::addr_eq(Rc::as_ptr(back.any.as_ref().unwrap()), Rc::as_ptr(&moss)));
    // Not found: the list loses its element, reported once, with the reason.
    let (back, report) = BinarySerializer::new().decode_with_report::<Shelf>(&bytes).unwrap();
    assert!(back.typed.is_empty() && back.any.is_none());
    let text = report.to_string();
    assert!(!text.contains("does not fit"), "{text}");
    assert_eq!(text.matches("nulled a pointer in Shelf.typed").count(), 1, "{text}");
}

#[test]
fn a_deep_clone_shares_assets() {
    let manager = Manager::new();
    let level = level(&manager);
    let clone = reflectable::clone::deep_clone(&level).unwrap();
    let entity = clone.entities[0].borrow();
    assert!(!Rc::ptr_eq(&clone.entities[0], &level.entities[0]), "the entities are copies");
    assert!(Arc::ptr_eq(entity.mesh.as_ref().unwrap(), &manager.meshes[&ROCK_UUID]), "the mesh is shared");
    assert!(Rc::ptr_eq(entity.texture.as_ref().unwrap(), &manager.textures["textures/moss.png"]));
}

/// Counts the `Knot`s alive.
static KNOTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

pub struct Counted;

impl Default for Counted {
    fn default() -> Self {
        KNOTS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Counted
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        KNOTS.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[derive(Reflectable, Default)]
#[rtti(id = 986_040)]
pub struct Knot {
    #[rtti(id = 1)]
    pub next: Option<Rc<RefCell<Knot>>>,
    #[rtti(id = 2)]
    pub skin: Option<Rc<Texture>>,
    #[rtti(skip)]
    pub counted: Counted,
}

#[test]
fn an_asset_manager_that_panics_leaves_nothing_built_alive() {
    let skin = Rc::new(Texture { pixels: vec![], path: "skin.png".into() });
    let a = Rc::new(RefCell::new(Knot { skin: Some(skin.clone()), ..Knot::default() }));
    let b = Rc::new(RefCell::new(Knot { next: Some(a.clone()), skin: Some(skin), ..Knot::default() }));
    a.borrow_mut().next = Some(b.clone());
    let bytes = reflectable::to_vec(&a).unwrap();
    a.borrow_mut().next = None;
    drop((a, b));
    assert_eq!(KNOTS.load(std::sync::atomic::Ordering::SeqCst), 0);

    let panics = |_: &AssetKey, _: u32| -> Option<SharedObject> { panic!("the asset manager failed") };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        BinarySerializer::new().assets(&panics).decode::<Rc<RefCell<Knot>>>(&bytes).map(drop)
    }));
    assert!(result.is_err(), "the panic goes on to the caller");
    assert_eq!(KNOTS.load(std::sync::atomic::Ordering::SeqCst), 0, "the cycle built before the panic was let go");
}

#[test]
fn a_null_in_a_list_that_cannot_hold_one_is_reported_as_such() {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    TypeHeader { instance: 1, base: false, type_id: Shelf::rtti_static().id() }.write(&mut bytes);
    bytes.extend_from_slice(&FieldHeader::new(1, WireKind::Pointer, true).pack().to_le_bytes());
    bytes.extend_from_slice(&2u32.to_le_bytes()); // two elements, both null
    bytes.extend_from_slice(&[0; 8]);
    bytes.extend_from_slice(&reflectable::serializer::format::EMPTY_SCHEMA_TABLE);
    let length = (bytes.len() + TRAILER_SIZE) as u64;
    let bytes = [bytes, Trailer { flags: 0, objects: 1, length, checksum: 0 }.to_bytes().to_vec()].concat();
    let (shelf, report) = BinarySerializer::new().decode_with_report::<Shelf>(&bytes).unwrap();
    assert!(shelf.typed.is_empty());
    assert_eq!(
        report.to_string(),
        "nulled a pointer in Shelf.typed: a null the list's elements cannot hold, left out (x2)"
    );
}
