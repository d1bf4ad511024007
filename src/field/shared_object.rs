//! [`SharedObject`]: a strong handle of any family and pointee, with its type erased but without
//! an allocation of its own.
//!
//! Graph walks (encoding, cloning, diffing) take one of these for every shared object they queue,
//! so boxing the handle would cost an allocation per object. Every handle this crate knows is an
//! `Rc` or `Arc`: one pointer, or two for a trait object. It is kept inline, in two words, next to
//! a table of the functions that know its type (the way `anyhow` keeps an error's vtable). A
//! `SharedHandle` of a user's that does not fit is boxed.

use super::pointer::{Family, SharedHandle};
use super::FieldError;
use crate::rtti::{AsReflectable, Reflectable, Registry};
use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::fmt;
use std::marker::PhantomData;
use std::mem::{align_of, size_of, ManuallyDrop, MaybeUninit};
use std::rc::Rc;
use std::sync::{Arc, Mutex, RwLock};

/// Object-safe view of a [`SharedHandle`].
trait ErasedShared: 'static {
    fn addr(&self) -> usize;
    fn contains(&self, address: usize) -> bool;
    fn family(&self) -> Family;
    fn pointer_count(&self) -> usize;
    fn strong_count(&self) -> usize;
    fn read(&self, f: &mut dyn FnMut(&dyn Reflectable)) -> Result<(), FieldError>;
    fn write(&self, f: &mut dyn FnMut(&mut dyn Reflectable)) -> Result<(), FieldError>;
    /// The handle itself, for casts.
    fn as_any(&self) -> &dyn Any;
}

impl<H: SharedHandle> ErasedShared for H {
    fn addr(&self) -> usize {
        SharedHandle::addr(self)
    }
    fn contains(&self, address: usize) -> bool {
        SharedHandle::contains(self, address)
    }
    fn family(&self) -> Family {
        H::FAMILY
    }
    fn pointer_count(&self) -> usize {
        SharedHandle::pointer_count(self)
    }
    fn strong_count(&self) -> usize {
        SharedHandle::strong_count(self)
    }
    fn read(&self, f: &mut dyn FnMut(&dyn Reflectable)) -> Result<(), FieldError> {
        SharedHandle::read(self, |pointee| f(pointee.as_reflectable()))
    }
    fn write(&self, f: &mut dyn FnMut(&mut dyn Reflectable)) -> Result<(), FieldError> {
        SharedHandle::write(self, |pointee| f(pointee.as_reflectable_mut()))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A handle too large for the inline slot, boxed; it casts as the handle it holds.
#[derive(Clone)]
struct Boxed<H>(Box<H>);

impl<H: SharedHandle> ErasedShared for Boxed<H> {
    fn addr(&self) -> usize {
        SharedHandle::addr(&*self.0)
    }
    fn contains(&self, address: usize) -> bool {
        SharedHandle::contains(&*self.0, address)
    }
    fn family(&self) -> Family {
        H::FAMILY
    }
    fn pointer_count(&self) -> usize {
        SharedHandle::pointer_count(&*self.0)
    }
    fn strong_count(&self) -> usize {
        SharedHandle::strong_count(&*self.0)
    }
    fn read(&self, f: &mut dyn FnMut(&dyn Reflectable)) -> Result<(), FieldError> {
        ErasedShared::read(&*self.0, f)
    }
    fn write(&self, f: &mut dyn FnMut(&mut dyn Reflectable)) -> Result<(), FieldError> {
        ErasedShared::write(&*self.0, f)
    }
    fn as_any(&self) -> &dyn Any {
        &*self.0
    }
}

/// Room for a handle: two words, what a fat `Rc<RefCell<dyn Trait>>` takes.
type Slot = MaybeUninit<[usize; 2]>;

/// A handle taken out of a [`SharedObject`] ([`SharedObject::into_parts`]).
pub(crate) type HandleSlot = Slot;

/// The type of the handle a [`SharedObject`] holds, apart from the handle. Equal kinds are one
/// table (compared and hashed by address); one handle type may have more than one.
#[derive(Clone, Copy)]
pub(crate) struct HandleKind(&'static HandleOps);

impl PartialEq for HandleKind {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for HandleKind {}

impl std::hash::Hash for HandleKind {
    fn hash<T: std::hash::Hasher>(&self, state: &mut T) {
        std::ptr::hash(self.0, state)
    }
}

/// `true` when an `S` can live in a [`Slot`].
const fn fits<S>() -> bool {
    size_of::<S>() <= size_of::<Slot>() && align_of::<S>() <= align_of::<Slot>()
}

/// What a [`SharedObject`] needs to know of the handle type in its slot.
struct HandleOps {
    /// The handle, as its object-safe view.
    view: unsafe fn(&Slot) -> &dyn ErasedShared,
    /// The object's address, without going through the view (graph walks ask for it most).
    addr: unsafe fn(&Slot) -> usize,
    clone: unsafe fn(&Slot) -> Slot,
    drop: unsafe fn(&mut Slot),
    /// Casts the handle to its family's `dyn Reflectable` form, when made by `new_concrete`.
    upcast: Option<UpcastFn>,
}

/// The [`HandleOps`] of stored type `$stored`: a constant, promoted to a static.
macro_rules! ops {
    ($stored:ty, $upcast:expr) => {
        &HandleOps {
            view: view::<$stored>,
            addr: addr::<$stored>,
            clone: clone::<$stored>,
            drop: drop::<$stored>,
            upcast: $upcast,
        }
    };
}

/// Moves `handle` into a fresh slot.
fn put<S>(handle: S) -> Slot {
    assert!(fits::<S>(), "only handles that fit are stored inline");
    let mut slot = Slot::uninit();
    // SAFETY: the slot is large and aligned enough for an `S` (asserted above) and holds nothing
    // yet, so writing into it overwrites nothing that needed dropping.
    unsafe { slot.as_mut_ptr().cast::<S>().write(handle) };
    slot
}

/// # Safety
/// `slot` holds an `S`, written by [`put`] and not dropped.
unsafe fn view<S: ErasedShared>(slot: &Slot) -> &dyn ErasedShared {
    // SAFETY: the caller promises an `S` there; `put` checked it fits, so the pointer is aligned.
    unsafe { &*slot.as_ptr().cast::<S>() }
}

/// # Safety
/// As for [`view`].
unsafe fn addr<S: ErasedShared>(slot: &Slot) -> usize {
    // SAFETY: the caller's promise, as in `view`.
    unsafe { &*slot.as_ptr().cast::<S>() }.addr()
}

/// # Safety
/// As for [`view`].
unsafe fn clone<S: ErasedShared + Clone>(slot: &Slot) -> Slot {
    // SAFETY: the caller's promise, as in `view`.
    put(unsafe { &*slot.as_ptr().cast::<S>() }.clone())
}

/// # Safety
/// As for [`view`]; the slot holds nothing afterwards and must not be used again.
unsafe fn drop<S>(slot: &mut Slot) {
    // SAFETY: the caller promises a live `S` there and that it is dropped only this once.
    unsafe { std::ptr::drop_in_place(slot.as_mut_ptr().cast::<S>()) }
}

/// Converts a concrete handle (`&dyn Any` of e.g. `Rc<RefCell<T>>`) into its `dyn Reflectable`
/// form, written into an `&mut Option<Rc<RefCell<dyn Reflectable>>>`.
pub type UpcastFn = fn(&dyn Any, &mut dyn Any);

/// A type-erased strong handle to a shared reflectable object.
///
/// Holding one keeps the object alive. Two `SharedObject`s are the same object when their
/// [`addr`](SharedObject::addr)s are equal. Cloning one clones the handle (a reference-count
/// increment); making one allocates nothing.
///
/// ```
/// use reflectable::field::SharedObject;
/// use reflectable::Reflectable;
/// use std::cell::RefCell;
/// use std::rc::Rc;
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9841)]
/// struct Texture {
///     #[rtti(id = 1)]
///     path: String,
/// }
///
/// let texture = Rc::new(RefCell::new(Texture { path: "grass.png".into() }));
/// let shared = SharedObject::new(texture.clone());
/// assert_eq!(shared.addr(), Rc::as_ptr(&texture) as usize);
/// assert_eq!(Rc::strong_count(&texture), 2, "the shared object holds one handle");
/// let again: Rc<RefCell<Texture>> = shared.cast().unwrap();
/// assert!(Rc::ptr_eq(&again, &texture));
/// drop((shared, again));
/// assert_eq!(Rc::strong_count(&texture), 1);
/// ```
pub struct SharedObject {
    slot: Slot,
    ops: &'static HandleOps,
    /// The auto traits of what the slot holds: an `Rc` handle is neither `Send` nor `Sync`.
    _handle: PhantomData<Rc<dyn ErasedShared>>,
}

impl Clone for SharedObject {
    fn clone(&self) -> Self {
        // SAFETY: `self.slot` holds the handle type `self.ops` was made for (see `inline`).
        SharedObject { slot: unsafe { (self.ops.clone)(&self.slot) }, ops: self.ops, _handle: PhantomData }
    }
}

impl Drop for SharedObject {
    fn drop(&mut self) {
        // SAFETY: as in `clone`; the slot is never read again.
        unsafe { (self.ops.drop)(&mut self.slot) }
    }
}

impl fmt::Debug for SharedObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SharedObject({:?} @ {:#x})", self.family(), self.addr())
    }
}

impl SharedObject {
    /// Erases a strong handle.
    pub fn new<H: SharedHandle>(handle: H) -> Self {
        if fits::<H>() {
            Self::inline(handle, ops!(H, None))
        } else {
            Self::inline(Boxed(Box::new(handle)), ops!(Boxed<H>, None))
        }
    }

    /// Erases a handle to a concrete `T`, keeping the ability to cast it to the `dyn Reflectable`
    /// form of its family (`Rc<dyn Reflectable>`, `Arc<Mutex<dyn Reflectable>>`, ...).
    pub fn new_concrete<H: SharedHandle>(handle: H) -> Self
    where
        H::Pointee: Reflectable + Sized,
    {
        if fits::<H>() {
            Self::inline(handle, ops!(H, Some(upcast::<H::Pointee>)))
        } else {
            Self::inline(Boxed(Box::new(handle)), ops!(Boxed<H>, Some(upcast::<H::Pointee>)))
        }
    }

    /// `ops` must be made for `S`: every unsafe block below relies on it.
    fn inline<S: ErasedShared>(handle: S, ops: &'static HandleOps) -> Self {
        SharedObject { slot: put(handle), ops, _handle: PhantomData }
    }

    /// Takes the object apart into its handle and the handle's kind, for a queue that keeps a
    /// million of them and stores the kind as a small index (the encoder's). The handle is still
    /// held: only [`from_parts`](Self::from_parts) lets it go.
    pub(crate) fn into_parts(self) -> (HandleSlot, HandleKind) {
        let this = ManuallyDrop::new(self);
        (this.slot, HandleKind(this.ops))
    }

    /// Puts an object taken apart back together.
    ///
    /// # Safety
    /// `slot` and `kind` come from one [`into_parts`](Self::into_parts), and are put back
    /// together once.
    pub(crate) unsafe fn from_parts(slot: HandleSlot, kind: HandleKind) -> Self {
        SharedObject { slot, ops: kind.0, _handle: PhantomData }
    }

    fn erased(&self) -> &dyn ErasedShared {
        // SAFETY: `self.slot` holds the handle type `self.ops` was made for (see `inline`).
        unsafe { (self.ops.view)(&self.slot) }
    }

    /// Address of the shared allocation (the object's identity).
    #[inline]
    pub fn addr(&self) -> usize {
        // SAFETY: as in `erased`.
        unsafe { (self.ops.addr)(&self.slot) }
    }
    /// The handle's family.
    pub fn family(&self) -> Family {
        self.erased().family()
    }
    /// `true` when `address` lies inside the shared value (its `RefCell` or lock and the object
    /// in it), found without borrowing or locking it: whether an object known by address is this
    /// one, even while it is borrowed or locked.
    pub fn contains(&self, address: usize) -> bool {
        self.erased().contains(address)
    }
    /// How many pointers lead to the object (see [`SharedHandle::pointer_count`]), this
    /// handle included.
    pub fn pointer_count(&self) -> usize {
        self.erased().pointer_count()
    }
    /// How many strong handles to the object exist, this one included.
    pub fn strong_count(&self) -> usize {
        self.erased().strong_count()
    }
    /// Runs `f` on the object.
    pub fn read<R>(&self, f: impl FnOnce(&dyn Reflectable) -> R) -> Result<R, FieldError> {
        let mut f = Some(f);
        let mut result = None;
        self.erased().read(&mut |object| result = f.take().map(|f| f(object)))?;
        Ok(result.expect("read calls its closure once"))
    }
    /// Runs `f` on the object mutably (needs `RefCell`, `Mutex` or `RwLock`).
    pub fn write<R>(&self, f: impl FnOnce(&mut dyn Reflectable) -> R) -> Result<R, FieldError> {
        let mut f = Some(f);
        let mut result = None;
        self.erased().write(&mut |object| result = f.take().map(|f| f(object)))?;
        Ok(result.expect("write calls its closure once"))
    }
    /// The handle as `H`: the same handle type, its `dyn Reflectable` form, or a trait-object
    /// form the global registry knows (e.g. `Rc<RefCell<Mesh>>` as `Rc<RefCell<dyn Component>>`;
    /// see [`register_trait_impl!`](crate::register_trait_impl)).
    pub fn cast<H: SharedHandle>(&self) -> Option<H> {
        self.cast_in(Registry::global())
    }

    /// [`cast`](SharedObject::cast), with the trait casts `registry` knows.
    pub fn cast_in<H: SharedHandle>(&self, registry: &Registry) -> Option<H> {
        let any = self.erased().as_any();
        if let Some(handle) = any.downcast_ref::<H>() {
            return Some(handle.clone());
        }
        let mut out: Option<H> = None;
        match registry.casts().find(any.type_id(), TypeId::of::<H>()) {
            Some(cast) => cast.shared(any, &mut out),
            None => {
                if let Some(upcast) = self.ops.upcast {
                    upcast(any, &mut out)
                }
            }
        }
        out
    }
}

impl SharedObject {
    /// The object as a handle to its concrete type `T`, when this handle is the erased
    /// `Rc<RefCell<dyn Reflectable>>` that kept unknown fields and runtime objects hold, and the
    /// object is a `T` not borrowed mutably now; `None` otherwise. What lets a typed field point
    /// at an object found through such a field.
    pub(crate) fn concrete<T: Reflectable>(&self) -> Option<SharedObject> {
        let erased = self.erased().as_any().downcast_ref::<Rc<RefCell<dyn Reflectable>>>()?;
        if !(&*erased.try_borrow().ok()? as &dyn Any).is::<T>() {
            return None;
        }
        let raw = Rc::into_raw(erased.clone()).cast::<RefCell<T>>();
        // SAFETY: the value in the allocation is a `T` (checked above), and a
        // `RefCell<dyn Reflectable>` holding a `T` can only have been made by an unsizing
        // coercion of an `Rc<RefCell<T>>`: `raw` is that `Rc`'s pointer with the vtable dropped,
        // as `Rc::from_raw` accepts (the same steps as `Rc::<dyn Any>::downcast`). The clone
        // taken for `into_raw` is the strong count the new handle owns.
        let typed: Rc<RefCell<T>> = unsafe { Rc::from_raw(raw) };
        Some(SharedObject::new_concrete(typed))
    }
}

/// The [`UpcastFn`] of a concrete `T`: every family's handle to its `dyn Reflectable` form.
fn upcast<T: Reflectable>(from: &dyn Any, out: &mut dyn Any) {
    fn coerce_into<H: Clone + 'static, D: 'static>(from: &dyn Any, out: &mut dyn Any, coerce: fn(H) -> D) -> bool {
        match (from.downcast_ref::<H>(), out.downcast_mut::<Option<D>>()) {
            (Some(handle), Some(out)) => {
                *out = Some(coerce(handle.clone()));
                true
            }
            _ => false,
        }
    }
    let _ = coerce_into(from, out, |h: Rc<T>| -> Rc<dyn Reflectable> { h })
        || coerce_into(from, out, |h: Rc<RefCell<T>>| -> Rc<RefCell<dyn Reflectable>> { h })
        || coerce_into(from, out, |h: Arc<T>| -> Arc<dyn Reflectable> { h })
        || coerce_into(from, out, |h: Arc<Mutex<T>>| -> Arc<Mutex<dyn Reflectable>> { h })
        || coerce_into(from, out, |h: Arc<RwLock<T>>| -> Arc<RwLock<dyn Reflectable>> { h });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rtti::RttiTypeBuilder;

    #[derive(Default)]
    struct Lamp {
        on: bool,
    }

    #[derive(Default)]
    struct Bell;

    // Each in its own scope: the macro names its descriptor `RTTI`.
    const _: () = {
        crate::__reflectable_impl_reflectable!(Lamp, || {
            RttiTypeBuilder::<Lamp>::new(0xE2_0001, "ConcreteLamp")
                .default_constructor()
                .plain::<bool>(1, "on", |l| &l.on, |l| &mut l.on)
                .build()
        });
    };
    const _: () = {
        crate::__reflectable_impl_reflectable!(Bell, || {
            RttiTypeBuilder::<Bell>::new(0xE2_0002, "ConcreteBell").default_constructor().build()
        });
    };

    #[test]
    fn an_erased_handle_turns_back_into_its_own_type_only() {
        let lamp = Rc::new(RefCell::new(Lamp { on: true }));
        let erased: Rc<RefCell<dyn Reflectable>> = lamp.clone();
        let shared = SharedObject::new(erased);
        assert!(shared.cast::<Rc<RefCell<Lamp>>>().is_none(), "no cast without the check");

        let typed = shared.concrete::<Lamp>().expect("a lamp");
        let handle = typed.cast::<Rc<RefCell<Lamp>>>().expect("the typed handle");
        assert!(Rc::ptr_eq(&handle, &lamp));
        assert_eq!(Rc::strong_count(&lamp), 4, "lamp, erased, handle, typed");
        handle.borrow_mut().on = false;
        assert!(!lamp.borrow().on);
        std::mem::drop((typed, handle));
        assert_eq!(Rc::strong_count(&lamp), 2);

        assert!(shared.concrete::<Bell>().is_none(), "another type");
        let borrowed = lamp.borrow_mut();
        assert!(shared.concrete::<Lamp>().is_none(), "borrowed mutably: its type cannot be read");
        std::mem::drop(borrowed);
        assert!(SharedObject::new_concrete(lamp.clone()).concrete::<Lamp>().is_none(), "not an erased handle");
    }
}
