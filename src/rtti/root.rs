//! The object a graph starts from (what a stream is saved from, a diff or a walk starts at): an
//! object by reference, or the shared allocation a root lives in.

use crate::field::{SharedHandle, SharedObject};
use crate::rtti::{AsReflectable, Reflectable};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex, RwLock};

/// The object a stream starts from.
pub enum Root<'a> {
    /// An object owned by the caller. A pointer in the graph back to it cannot be expressed and is
    /// an [`EncodeError::RootBehindPointer`](crate::serializer::EncodeError::RootBehindPointer); save such a
    /// root through its shared handle.
    Object(&'a dyn Reflectable),
    /// An object in a shared allocation: pointers to it inside the graph resolve to the root.
    Shared(SharedObject),
}

impl Root<'static> {
    /// A root held in a shared allocation, so pointers to it inside the graph resolve to it.
    pub fn shared<H: SharedHandle>(handle: &H) -> Self {
        Root::Shared(SharedObject::new(handle.clone()))
    }
}

impl<'a> From<&'a dyn Reflectable> for Root<'a> {
    fn from(object: &'a dyn Reflectable) -> Self {
        Root::Object(object)
    }
}

impl From<SharedObject> for Root<'_> {
    fn from(shared: SharedObject) -> Self {
        Root::Shared(shared)
    }
}

/// Anything a graph can be saved from: a reflectable object (`&level`, `&*boxed`), or the shared
/// handle its root lives in (`&Rc<RefCell<Scene>>`, `&Arc<Mutex<Scene>>`, `&Rc<Scene>`, ...), which
/// saves the root as a shared object so that `Weak` parents and cycles pointing back at it load
/// as the root again.
///
/// ```
/// use reflectable::Reflectable;
/// use std::cell::RefCell;
/// use std::rc::{Rc, Weak};
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9700)]
/// struct Scene {
///     #[rtti(id = 1)]
///     children: Vec<Rc<RefCell<Child>>>,
/// }
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9701)]
/// struct Child {
///     #[rtti(id = 1)]
///     parent: Weak<RefCell<Scene>>,
/// }
///
/// let scene = Rc::new(RefCell::new(Scene::default()));
/// let child = Rc::new(RefCell::new(Child { parent: Rc::downgrade(&scene) }));
/// scene.borrow_mut().children.push(child);
///
/// let bytes = reflectable::to_vec(&scene).unwrap(); // the handle: parents stay linked
/// let back: Rc<RefCell<Scene>> = reflectable::from_slice(&bytes).unwrap();
/// let parent = back.borrow().children[0].borrow().parent.upgrade().unwrap();
/// assert!(Rc::ptr_eq(&parent, &back));
///
/// // By reference, the parent pointer cannot be expressed: an error, not a silent copy.
/// assert!(reflectable::to_vec(&*scene.borrow()).is_err());
/// # reflectable::rtti::break_cycles(&back);
/// ```
pub trait AsRoot {
    /// The root to save.
    fn as_root(&self) -> Root<'_>;
}

impl<T: Reflectable> AsRoot for T {
    fn as_root(&self) -> Root<'_> {
        Root::Object(self)
    }
}

impl AsRoot for dyn Reflectable {
    fn as_root(&self) -> Root<'_> {
        Root::Object(self)
    }
}

macro_rules! shared_roots {
    ($($handle:ty),* $(,)?) => {$(
        impl<U: ?Sized + AsReflectable> AsRoot for $handle {
            fn as_root(&self) -> Root<'_> {
                Root::Shared(SharedObject::new(self.clone()))
            }
        }
    )*};
}

shared_roots!(Rc<U>, Rc<RefCell<U>>, Arc<U>, Arc<Mutex<U>>, Arc<RwLock<U>>);

/// A type-erased handle is a shared root like the handle it erases.
impl AsRoot for SharedObject {
    fn as_root(&self) -> Root<'_> {
        Root::Shared(self.clone())
    }
}
