//! Assets by reference: meshes and textures live in files of their own, and a level refers to
//! them by key. A type is an asset when a field is its key (`#[rtti(id = N, asset_key)]`: a
//! UUID as `u128`, a path as `String`, or a `u64`); a pointer to one is saved as a reference
//! holding that key, and the load asks the program's asset manager for the object.
//!
//! The example saves a level, lists its dependencies from the file alone (what `reflectable deps
//! level.bin` prints), loads it through a small asset manager, and collects the dependencies of
//! the loaded level with a walk that never names a level type.
//!
//! Run with `cargo run --example assets`.

use reflectable::field::SharedObject;
use reflectable::rtti::{AssetKey, Flow, GraphWalker};
use reflectable::serializer::BinarySerializer;
use reflectable::Reflectable;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;
use std::sync::Arc;

/// Every asset has a UUID: its key.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 400_000)]
struct Resource {
    #[rtti(id = 1, asset_key)]
    uuid: u128,
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 400_001)]
struct Mesh {
    #[rtti(base)]
    resource: Resource,
    #[rtti(id = 1)]
    positions: Vec<[f32; 3]>,
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 400_002)]
struct Texture {
    #[rtti(base)]
    resource: Resource,
    #[rtti(id = 1)]
    pixels: Vec<u8>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 400_010)]
struct Prop {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    mesh: Option<Arc<Mesh>>,
    #[rtti(id = 3)]
    textures: Vec<Arc<Texture>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 400_011)]
struct Level {
    #[rtti(id = 1)]
    props: Vec<Rc<RefCell<Prop>>>,
}

/// What an engine's asset manager does here: hand out the one loaded copy of each asset.
#[derive(Default)]
struct AssetManager {
    meshes: HashMap<u128, Arc<Mesh>>,
    textures: HashMap<u128, Arc<Texture>>,
}

impl AssetManager {
    fn find(&self, key: &AssetKey, type_id: u32) -> Option<SharedObject> {
        let AssetKey::Uuid(uuid) = key else { return None };
        if type_id == Mesh::rtti_static().id() {
            self.meshes.get(uuid).map(|mesh| SharedObject::new_concrete(mesh.clone()))
        } else {
            self.textures.get(uuid).map(|texture| SharedObject::new_concrete(texture.clone()))
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut manager = AssetManager::default();
    let rock = Arc::new(Mesh { resource: Resource { uuid: 0xA1 }, positions: vec![[0.0, 1.0, 0.0]; 10_000] });
    let moss = Arc::new(Texture { resource: Resource { uuid: 0xB2 }, pixels: vec![0x55; 1 << 20] });
    let bark = Arc::new(Texture { resource: Resource { uuid: 0xB3 }, pixels: vec![0x33; 1 << 20] });
    manager.meshes.insert(0xA1, rock.clone());
    manager.textures.extend([(0xB2, moss.clone()), (0xB3, bark.clone())]);

    let props = (0..100)
        .map(|index| {
            let textures = if index % 2 == 0 { vec![moss.clone()] } else { vec![moss.clone(), bark.clone()] };
            Rc::new(RefCell::new(Prop { name: format!("rock_{index}"), mesh: Some(rock.clone()), textures }))
        })
        .collect();
    let level = Level { props };

    // The file holds 100 props and 3 references: none of the 2 MiB of pixels.
    let path = std::env::temp_dir().join(format!("assets-{}.level", std::process::id()));
    let size = reflectable::save(&level, &path)?;
    println!("saved 100 props in {size} bytes");
    assert!(size < 8_000, "the assets' data stayed out of the level");

    // The dependencies from the file alone, as `reflectable deps` lists them.
    let bytes = std::fs::read(&path)?;
    let graph = reflectable::dynamic::DynamicGraph::from_bytes(&bytes)?;
    let in_file: BTreeSet<(AssetKey, u32)> =
        graph.objects().iter().filter_map(|object| object.borrow().asset_reference()).collect();
    println!("the file refers to {} assets:", in_file.len());
    for (key, type_id) in &in_file {
        println!("  {key} (type {type_id})");
    }

    // Loading asks the manager, once per asset; every prop gets the manager's own copies.
    let find = |key: &AssetKey, type_id: u32| manager.find(key, type_id);
    let (loaded, report): (Level, _) = BinarySerializer::new().assets(&find).load_with_report(&path)?;
    assert!(report.is_empty(), "{report}");
    assert!(loaded.props.iter().all(|prop| Arc::ptr_eq(prop.borrow().mesh.as_ref().unwrap(), &rock)));

    // The dependencies of a loaded level, in a few lines: every asset a pointer leads to (one
    // held by value is part of its holder, in the file too).
    let mut in_memory = BTreeSet::new();
    GraphWalker::new().walk(&loaded, |visit| {
        let rtti = visit.object.rtti();
        match rtti.asset_key(visit.object).filter(|_| visit.shared.is_some()) {
            Some(key) => {
                in_memory.insert((key, rtti.id()));
                Ok::<_, std::convert::Infallible>(Flow::SkipFields) // an asset's insides are its own
            }
            None => Ok(Flow::Continue),
        }
    })?;
    assert_eq!(in_memory, in_file, "the file and the loaded level agree");
    println!("ok: {} props loaded, sharing {} assets with the asset manager", loaded.props.len(), in_memory.len());
    std::fs::remove_file(&path)?;
    Ok(())
}
