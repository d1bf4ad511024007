//! Reflectable-pointer fields: shared handles whose identity (the shared allocation) is preserved.
//!
//! Five handle families are supported, each with its `Weak` and with `Option` of the strong form:
//! `Rc<T>`, `Rc<RefCell<T>>`, `Arc<T>`, `Arc<Mutex<T>>`, `Arc<RwLock<T>>`. `T` is a reflectable
//! type or `dyn UserTrait` declared with [`reflect_trait!`](crate::reflect_trait).

use super::elems::pointer_elems;
use super::{elem_at, owner_mut, owner_ref, Declared, ErasedElems, FieldError, FieldImpl, Shape, SharedObject};
use crate::rtti::{AsReflectable, Reflectable, Registry};
use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::rc::{self, Rc};
use std::sync::{self, Arc, Mutex, RwLock};

/// The kind of shared allocation a pointer field uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// `Rc<T>`: shared, immutable.
    Rc,
    /// `Rc<RefCell<T>>`.
    RcRefCell,
    /// `Arc<T>`: shared, immutable.
    Arc,
    /// `Arc<Mutex<T>>`.
    ArcMutex,
    /// `Arc<RwLock<T>>`.
    ArcRwLock,
}

impl Family {
    /// `true` when the pointee can be changed through the handle (`RefCell` or a lock).
    pub fn is_mutable(self) -> bool {
        matches!(self, Family::RcRefCell | Family::ArcMutex | Family::ArcRwLock)
    }
}

/// A strong shared handle of one [`Family`].
pub trait SharedHandle: Clone + 'static {
    /// What the handle points at (a reflectable type or `dyn UserTrait`).
    type Pointee: ?Sized + AsReflectable;
    /// The matching weak handle.
    type Weak: 'static;
    /// The handle's family.
    const FAMILY: Family;
    /// Address of the shared allocation: the object's identity.
    fn addr(&self) -> usize;
    /// `true` when `address` lies inside the shared value (the `RefCell` or lock and the object
    /// in it), found without borrowing or locking it.
    fn contains(&self, address: usize) -> bool;
    /// A weak handle to the same allocation.
    fn downgrade(&self) -> Self::Weak;
    /// How many strong handles to the object exist, this one included.
    fn strong_count(&self) -> usize;
    /// How many pointers lead to the object: strong handles (this one included) and `Weak`s. A
    /// graph walk that has met this many pointers to it will not meet it again.
    fn pointer_count(&self) -> usize;
    /// `true` when this handle is the only pointer to its object (no other strong handle, no
    /// `Weak`): a graph walk cannot meet the object again, so it need not remember it.
    #[inline]
    fn is_only_pointer(&self) -> bool {
        self.pointer_count() == 1
    }
    /// The strong handle, if the object is still alive.
    fn upgrade(weak: &Self::Weak) -> Option<Self>;
    /// Runs `f` on the pointee (borrowing the `RefCell` or taking the lock).
    fn read<R>(&self, f: impl FnOnce(&Self::Pointee) -> R) -> Result<R, FieldError>;
    /// Runs `f` on the pointee mutably; fails for the immutable families.
    fn write<R>(&self, f: impl FnOnce(&mut Self::Pointee) -> R) -> Result<R, FieldError>;
}

macro_rules! shared_handle {
    ($family:ident, $strong:ty, $weak:ty, |$h:ident, $f:ident| read: $read:expr, write: $write:expr) => {
        impl<U: ?Sized + AsReflectable> SharedHandle for $strong {
            type Pointee = U;
            type Weak = $weak;
            const FAMILY: Family = Family::$family;
            #[inline]
            fn addr(&self) -> usize {
                <$strong>::as_ptr(self) as *const () as usize
            }
            fn contains(&self, address: usize) -> bool {
                let start = SharedHandle::addr(self);
                (start..start + std::mem::size_of_val(&**self).max(1)).contains(&address)
            }
            fn downgrade(&self) -> $weak {
                <$strong>::downgrade(self)
            }
            fn strong_count(&self) -> usize {
                <$strong>::strong_count(self)
            }
            #[inline]
            fn pointer_count(&self) -> usize {
                <$strong>::strong_count(self) + <$strong>::weak_count(self)
            }
            fn upgrade(weak: &$weak) -> Option<Self> {
                weak.upgrade()
            }
            fn read<R>(&self, $f: impl FnOnce(&U) -> R) -> Result<R, FieldError> {
                let $h = self;
                $read
            }
            fn write<R>(&self, $f: impl FnOnce(&mut U) -> R) -> Result<R, FieldError> {
                let $h = self;
                $write
            }
        }
    };
}

shared_handle!(Rc, Rc<U>, rc::Weak<U>, |h, f| read: Ok(f(&**h)), write: { let _ = (h, f); Err(FieldError::NotMutable) });
shared_handle!(Arc, Arc<U>, sync::Weak<U>, |h, f| read: Ok(f(&**h)), write: { let _ = (h, f); Err(FieldError::NotMutable) });
shared_handle!(RcRefCell, Rc<RefCell<U>>, rc::Weak<RefCell<U>>, |h, f|
    read: h.try_borrow().map(|guard| f(&*guard)).map_err(|_| FieldError::Borrowed),
    write: h.try_borrow_mut().map(|mut guard| f(&mut *guard)).map_err(|_| FieldError::Borrowed));
shared_handle!(ArcMutex, Arc<Mutex<U>>, sync::Weak<Mutex<U>>, |h, f|
    read: h.lock().map(|guard| f(&*guard)).map_err(|_| FieldError::Poisoned),
    write: h.lock().map(|mut guard| f(&mut *guard)).map_err(|_| FieldError::Poisoned));
shared_handle!(ArcRwLock, Arc<RwLock<U>>, sync::Weak<RwLock<U>>, |h, f|
    read: RwLock::read(h).map(|guard| f(&*guard)).map_err(|_| FieldError::Poisoned),
    write: RwLock::write(h).map(|mut guard| f(&mut *guard)).map_err(|_| FieldError::Poisoned));

/// A pointer field element: a strong handle, an `Option` of one, or a `Weak`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a reflectable pointer",
    label = "`{Self}` does not implement `PointerSlot`",
    note = "a pointer field holds `Rc<T>`, `Rc<RefCell<T>>`, `Arc<T>`, `Arc<Mutex<T>>` or `Arc<RwLock<T>>`, a `Weak` of one, or an `Option` of a strong one",
    note = "if `T` is `dyn YourTrait`, call `reflect_trait!(YourTrait)` once, next to the trait; if it is a struct, add `#[derive(Reflectable)]` to it"
)]
pub trait PointerSlot: 'static + Sized {
    /// The strong handle type.
    type Handle: SharedHandle;
    /// `true` for `Weak` elements.
    const WEAK: bool;
    /// The strong handle (upgraded for a `Weak`); `None` when null or dead.
    fn handle(&self) -> Option<Self::Handle>;
    /// Identity of the target; `None` when null or dead.
    fn addr(&self) -> Option<usize>;
    /// How many pointers lead to the target, this element included (see
    /// [`SharedHandle::pointer_count`]); 0 when null or dead. At least 2 for a `Weak`, whose
    /// target has a strong handle too.
    fn pointer_count(&self) -> usize;
    /// An element pointing at `target` (`None` = null). `None` when it cannot hold that.
    fn from_handle(target: Option<&Self::Handle>) -> Option<Self>;
}

macro_rules! pointer_slots {
    ($($strong:ty, $weak:ty);* $(;)?) => {$(
        impl<U: ?Sized + AsReflectable> PointerSlot for $strong {
            type Handle = $strong;
            const WEAK: bool = false;
            #[inline]
            fn handle(&self) -> Option<Self> {
                Some(self.clone())
            }
            #[inline]
            fn addr(&self) -> Option<usize> {
                Some(SharedHandle::addr(self))
            }
            #[inline]
            fn pointer_count(&self) -> usize {
                SharedHandle::pointer_count(self)
            }
            fn from_handle(target: Option<&Self>) -> Option<Self> {
                target.cloned()
            }
        }

        impl<U: ?Sized + AsReflectable> PointerSlot for Option<$strong> {
            type Handle = $strong;
            const WEAK: bool = false;
            #[inline]
            fn handle(&self) -> Option<$strong> {
                self.clone()
            }
            #[inline]
            fn addr(&self) -> Option<usize> {
                self.as_ref().map(SharedHandle::addr)
            }
            #[inline]
            fn pointer_count(&self) -> usize {
                self.as_ref().map_or(0, SharedHandle::pointer_count)
            }
            fn from_handle(target: Option<&$strong>) -> Option<Self> {
                Some(target.cloned())
            }
        }

        impl<U: ?Sized + AsReflectable> PointerSlot for $weak {
            type Handle = $strong;
            const WEAK: bool = true;
            fn handle(&self) -> Option<$strong> {
                self.upgrade()
            }
            #[inline]
            fn addr(&self) -> Option<usize> {
                (self.strong_count() > 0).then(|| self.as_ptr() as *const () as usize)
            }
            #[inline]
            fn pointer_count(&self) -> usize {
                self.strong_count() + self.weak_count()
            }
            /// A null target is a `Weak` to nothing, which the pointee's descriptor makes
            /// (`Weak::new` needs a sized pointee, which `U` need not be; no object is made); for
            /// a trait object, any type declared to implement the trait makes it. `None` only for
            /// a trait nothing was declared to implement.
            fn from_handle(target: Option<&$strong>) -> Option<Self> {
                let Some(target) = target else {
                    return match U::declared() {
                        Declared::Type(declared) => declared().null_weak::<Self>(),
                        Declared::Trait(_) => crate::field::cast::null_trait_weak::<Self>(),
                    };
                };
                Some(SharedHandle::downgrade(target))
            }
        }
    )*};
}

pointer_slots! {
    Rc<U>, rc::Weak<U>;
    Rc<RefCell<U>>, rc::Weak<RefCell<U>>;
    Arc<U>, sync::Weak<U>;
    Arc<Mutex<U>>, sync::Weak<Mutex<U>>;
    Arc<RwLock<U>>, sync::Weak<RwLock<U>>;
}

/// Called per pointer element with the target's identity (`None` = null or dead), how many
/// pointers lead to it (see [`PointerSlot::pointer_count`]; 1: this element is the only one) and a
/// way to take a strong handle to it.
pub type PointerVisitor<'a> = dyn FnMut(Option<usize>, usize, &dyn Fn() -> Option<SharedObject>) + 'a;

/// Access to a pointer field.
pub trait PointerAccess: ErasedElems {
    /// What the elements point at.
    fn declared(&self) -> Declared;
    /// The handle family.
    fn family(&self) -> Family;
    /// `true` for `Weak` elements.
    fn is_weak(&self) -> bool;
    /// The strong handle a decoder casts a target into when the elements point at a user trait
    /// object (`Rc<RefCell<dyn Component>>`): the encoder refuses targets it could not cast back.
    /// `None` for concrete pointees and `dyn Reflectable`, which take any object.
    fn trait_target(&self) -> Option<TypeId>;
    /// Whether an element can be null (`Option<Rc<T>>`, `Weak<T>`), rather than dropped from an
    /// array when its target is.
    fn holds_null(&self) -> bool;
    /// Calls `f` for every element with the target's identity (`None` = null or dead), how many
    /// pointers lead to it, and a way to take a strong handle to it.
    fn for_each(&self, owner: &dyn Any, f: &mut PointerVisitor<'_>) -> Result<(), FieldError>;
    /// Appends every element's target identity (`None` = null or dead) and whether the element is
    /// the only pointer to it (see [`SharedHandle::is_only_pointer`]): what
    /// [`for_each`](Self::for_each) tells, without a call per element.
    fn targets(&self, owner: &dyn Any, out: &mut Vec<(Option<usize>, bool)>) -> Result<(), FieldError> {
        self.for_each(owner, &mut |addr, count, _| out.push((addr, count == 1)))
    }
    /// A strong handle to element `index`'s target (`None` when null or dead).
    fn shared(&self, owner: &dyn Any, index: usize) -> Result<Option<SharedObject>, FieldError>;
    /// Replaces the elements with pointers to `targets` (`None` = null). A target the element type
    /// cannot point at is treated as null; a null that the element cannot hold is dropped from an
    /// array, and leaves a single field as it was. `registry` casts targets to trait objects.
    /// Returns how many targets could not be held.
    fn store(
        &self,
        owner: &mut dyn Any,
        targets: &[Option<&SharedObject>],
        registry: &Registry,
    ) -> Result<usize, FieldError>;
}

impl<O, C, S> PointerAccess for FieldImpl<O, C, S>
where
    O: 'static,
    C: 'static,
    S: Shape<C>,
    S::Elem: PointerSlot,
    Self: Send + Sync,
{
    fn declared(&self) -> Declared {
        <<S::Elem as PointerSlot>::Handle as SharedHandle>::Pointee::declared()
    }
    fn family(&self) -> Family {
        <S::Elem as PointerSlot>::Handle::FAMILY
    }
    fn is_weak(&self) -> bool {
        S::Elem::WEAK
    }
    fn holds_null(&self) -> bool {
        S::Elem::from_handle(None).is_some()
    }
    fn trait_target(&self) -> Option<TypeId> {
        type Pointee<E> = <<E as PointerSlot>::Handle as SharedHandle>::Pointee;
        let user_trait = matches!(self.declared(), Declared::Trait(_))
            && TypeId::of::<Pointee<S::Elem>>() != TypeId::of::<dyn Reflectable>();
        user_trait.then(TypeId::of::<<S::Elem as PointerSlot>::Handle>)
    }
    fn for_each(&self, owner: &dyn Any, f: &mut PointerVisitor<'_>) -> Result<(), FieldError> {
        self.access.with(owner_ref::<O>(owner)?, |container| {
            for elem in S::as_slice(container) {
                f(elem.addr(), elem.pointer_count(), &|| elem.handle().map(AsReflectable::erase));
            }
        })
    }
    fn targets(&self, owner: &dyn Any, out: &mut Vec<(Option<usize>, bool)>) -> Result<(), FieldError> {
        self.access.with(owner_ref::<O>(owner)?, |container| {
            out.extend(S::as_slice(container).iter().map(|elem| (elem.addr(), elem.pointer_count() == 1)));
        })
    }
    fn shared(&self, owner: &dyn Any, index: usize) -> Result<Option<SharedObject>, FieldError> {
        self.access.try_with(owner_ref::<O>(owner)?, |container| {
            Ok(elem_at(S::as_slice(container), index)?.handle().map(AsReflectable::erase))
        })
    }
    fn store(
        &self,
        owner: &mut dyn Any,
        targets: &[Option<&SharedObject>],
        registry: &Registry,
    ) -> Result<usize, FieldError> {
        let owner = owner_mut::<O>(owner)?;
        let (elems, refused) = pointer_elems::<S::Elem>(S::ARRAY, targets, registry);
        if elems.changes() {
            self.access.try_modify(owner, |container| elems.store::<C, S>(container))?;
        }
        Ok(refused)
    }
}
