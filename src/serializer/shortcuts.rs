//! The common case in one call: save and load whole graphs through the global registry, with the
//! default options. A [`BinarySerializer`] configures everything these fix.

use super::{BinarySerializer, DecodeError, DecodeTarget, EncodeError, SubtreeReport};
use crate::field::SharedHandle;
use crate::rtti::AsRoot;
use std::path::Path;

/// Encodes the graph from `root` (an object, or the shared handle its root lives in) to bytes.
///
/// ```
/// use reflectable::Reflectable;
///
/// #[derive(Reflectable, Default, Debug, PartialEq)]
/// #[rtti(id = 9800)]
/// struct Settings {
///     #[rtti(id = 1)]
///     volume: f32,
/// }
///
/// let bytes = reflectable::to_vec(&Settings { volume: 0.5 }).unwrap();
/// let back: Settings = reflectable::from_slice(&bytes).unwrap();
/// assert_eq!(back, Settings { volume: 0.5 });
/// ```
pub fn to_vec<R: AsRoot + ?Sized>(root: &R) -> Result<Vec<u8>, EncodeError> {
    BinarySerializer::new().encode(root)
}

/// Decodes a graph into `T`: a value, `Box<dyn Reflectable>`, the shared handle its root lives
/// in (`Rc<RefCell<Scene>>`, so that pointers back to the root share it), or a dynamic graph (see
/// [`DecodeTarget`]).
///
/// ```
/// # use reflectable::Reflectable;
/// # use std::cell::RefCell;
/// # use std::rc::Rc;
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9801)]
/// struct Scene {
///     #[rtti(id = 1)]
///     me: Option<Rc<RefCell<Scene>>>,
/// }
///
/// let scene = Rc::new(RefCell::new(Scene::default()));
/// scene.borrow_mut().me = Some(scene.clone());
/// let bytes = reflectable::to_vec(&scene).unwrap();
/// let back: Rc<RefCell<Scene>> = reflectable::from_slice(&bytes).unwrap();
/// assert!(Rc::ptr_eq(&back, back.borrow().me.as_ref().unwrap()), "the root, shared");
/// # reflectable::rtti::break_cycles(&scene);
/// # reflectable::rtti::break_cycles(&back);
/// ```
pub fn from_slice<T: DecodeTarget>(bytes: &[u8]) -> Result<T, DecodeError> {
    BinarySerializer::new().decode(bytes)
}

/// Saves the graph from `root` to `path`, atomically, with a checksum: the old file stays whole
/// until the new one is. Returns the file size.
///
/// The graph is everything `root` reaches, `Weak`s included: saving one entity of a scene saves
/// the scene its `Weak` parent leads to. [`save_subtree`] saves the entity alone.
///
/// ```
/// # use reflectable::Reflectable;
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9802)]
/// # struct Settings { #[rtti(id = 1)] volume: f32 }
/// let path = std::env::temp_dir().join(format!("settings-{}.bin", std::process::id()));
/// reflectable::save(&Settings { volume: 0.5 }, &path).unwrap();
/// let back: Settings = reflectable::load(&path).unwrap();
/// assert_eq!(back.volume, 0.5);
/// # std::fs::remove_file(&path).unwrap();
/// ```
pub fn save<R: AsRoot + ?Sized>(root: &R, path: impl AsRef<Path>) -> Result<u64, EncodeError> {
    BinarySerializer::new().save(root, path)
}

/// Encodes the subtree from `root` (what it reaches through strong pointers and by value), with
/// each `Weak` leading out of it written as null, and says what was cut: copying an entity
/// without its scene (see [`BinarySerializer::encode_subtree`], which can also write the cut
/// pointers as external references).
///
/// ```
/// # use reflectable::Reflectable;
/// # use std::cell::RefCell;
/// # use std::rc::{Rc, Weak};
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9_984_020)]
/// struct Entity {
///     #[rtti(id = 1)]
///     children: Vec<Rc<RefCell<Entity>>>,
///     #[rtti(id = 2)]
///     parent: Weak<RefCell<Entity>>,
/// }
///
/// let scene = Rc::new(RefCell::new(Entity::default()));
/// let player = Rc::new(RefCell::new(Entity { parent: Rc::downgrade(&scene), ..Entity::default() }));
/// scene.borrow_mut().children.push(player.clone());
/// let (bytes, cuts) = reflectable::to_vec_subtree(&player).unwrap();
/// assert_eq!(cuts.count(), 1, "{cuts}");
/// ```
pub fn to_vec_subtree<R: AsRoot + ?Sized>(root: &R) -> Result<(Vec<u8>, SubtreeReport), EncodeError> {
    BinarySerializer::new().encode_subtree(root)
}

/// [`to_vec_subtree`] saved to `path` as [`save`] saves (atomically, with a checksum). Returns
/// the file size and what was cut.
///
/// ```
/// # use reflectable::Reflectable;
/// # use std::cell::RefCell;
/// # use std::rc::{Rc, Weak};
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_984_021)]
/// # struct Entity { #[rtti(id = 1)] children: Vec<Rc<RefCell<Entity>>>, #[rtti(id = 2)] parent: Weak<RefCell<Entity>> }
/// let scene = Rc::new(RefCell::new(Entity::default()));
/// let player = Rc::new(RefCell::new(Entity { parent: Rc::downgrade(&scene), ..Entity::default() }));
/// scene.borrow_mut().children.push(player.clone());
///
/// let path = std::env::temp_dir().join(format!("player-{}.bin", std::process::id()));
/// let (_, cuts) = reflectable::save_subtree(&player, &path).unwrap();
/// println!("{cuts}"); // cut 1 Weak in Entity.parent (to Entity), written as null
/// let copy: Rc<RefCell<Entity>> = reflectable::load(&path).unwrap();
/// assert!(copy.borrow().parent.upgrade().is_none());
/// # std::fs::remove_file(&path).unwrap();
/// ```
pub fn save_subtree<R: AsRoot + ?Sized>(root: &R, path: impl AsRef<Path>) -> Result<(u64, SubtreeReport), EncodeError> {
    BinarySerializer::new().save_subtree(root, path)
}

/// Loads a graph from `path` into `T` (see [`from_slice`]). A file that does not hold a stream
/// (missing, cut short, of another format) is an error naming the path or the byte.
///
/// ```
/// # use reflectable::Reflectable;
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_981_003)]
/// # struct Save { #[rtti(id = 1)] day: u32 }
/// let path = std::env::temp_dir().join(format!("save-{}.bin", std::process::id()));
/// reflectable::save(&Save { day: 7 }, &path).unwrap();
/// let save: Save = reflectable::load(&path).unwrap();
/// assert_eq!(save.day, 7);
/// std::fs::write(&path, b"not a stream").unwrap();
/// assert!(reflectable::load::<Save>(&path).is_err());
/// # std::fs::remove_file(&path).unwrap();
/// ```
pub fn load<T: DecodeTarget>(path: impl AsRef<Path>) -> Result<T, DecodeError> {
    BinarySerializer::new().load(path)
}

/// Loads a graph with its root in a shared allocation `H` from `path`: [`load`] with the target
/// spelled out.
///
/// ```
/// # use reflectable::Reflectable;
/// # use std::sync::{Arc, Mutex};
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9803)]
/// # struct World { #[rtti(id = 1)] day: u32 }
/// let path = std::env::temp_dir().join(format!("world-{}.bin", std::process::id()));
/// reflectable::save(&World { day: 3 }, &path).unwrap();
/// let world = reflectable::load_shared::<Arc<Mutex<World>>>(&path).unwrap();
/// assert_eq!(world.lock().unwrap().day, 3);
/// # std::fs::remove_file(&path).unwrap();
/// ```
pub fn load_shared<H: SharedHandle + DecodeTarget>(path: impl AsRef<Path>) -> Result<H, DecodeError> {
    BinarySerializer::new().load(path)
}
