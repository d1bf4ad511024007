//! `SharedObject` keeps its handle inline (no allocation of its own): each clone holds exactly one
//! more handle and each drop gives it back, in every family, for thin and fat (trait object)
//! handles, and for a user's handle too large to sit inline (boxed instead).

use reflectable::field::{Family, FieldError, SharedHandle, SharedObject};
use reflectable::{reflect_trait, Reflectable};
use std::cell::RefCell;
use std::rc::{self, Rc};
use std::sync::{Arc, Mutex, RwLock};

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 209_000, implements(Gadget))]
struct Probe {
    #[rtti(id = 1)]
    value: u32,
}

trait Gadget: Reflectable {}
reflect_trait!(Gadget);
impl Gadget for Probe {}

fn value(shared: &SharedObject) -> u32 {
    shared.read(|object| object.downcast_ref::<Probe>().map(|probe| probe.value)).unwrap().unwrap()
}

/// Makes, clones and drops shared objects of `handle`, checking the count `count` reads.
fn balanced<H: SharedHandle>(handle: H, family: Family, count: impl Fn(&H) -> usize) {
    let before = count(&handle);
    let shared = SharedObject::new(handle.clone());
    assert_eq!(count(&handle), before + 1);
    let copies: Vec<SharedObject> = (0..5).map(|_| shared.clone()).collect();
    assert_eq!(count(&handle), before + 6);
    assert!(copies.iter().all(|copy| copy.addr() == SharedHandle::addr(&handle) && copy.family() == family));
    assert_eq!(value(&copies[4]), 7);
    assert_eq!(shared.strong_count(), before + 6);
    let back: H = shared.cast().expect("casts back to its own handle type");
    assert_eq!(SharedHandle::addr(&back), shared.addr());
    drop(back);
    drop(copies);
    assert_eq!(count(&handle), before + 1);
    drop(shared);
    assert_eq!(count(&handle), before);
}

#[test]
fn every_family_keeps_one_handle_per_shared_object() {
    balanced(Rc::new(Probe { value: 7 }), Family::Rc, Rc::strong_count);
    balanced(Rc::new(RefCell::new(Probe { value: 7 })), Family::RcRefCell, Rc::strong_count);
    balanced(Arc::new(Probe { value: 7 }), Family::Arc, Arc::strong_count);
    balanced(Arc::new(Mutex::new(Probe { value: 7 })), Family::ArcMutex, Arc::strong_count);
    balanced(Arc::new(RwLock::new(Probe { value: 7 })), Family::ArcRwLock, Arc::strong_count);
}

#[test]
fn trait_object_handles_are_two_words_and_stay_inline() {
    let gadget: Rc<RefCell<dyn Gadget>> = Rc::new(RefCell::new(Probe { value: 7 }));
    assert_eq!(std::mem::size_of_val(&gadget), 2 * std::mem::size_of::<usize>());
    balanced(gadget, Family::RcRefCell, Rc::strong_count);
    let any: Arc<dyn Reflectable> = Arc::new(Probe { value: 7 });
    balanced(any, Family::Arc, Arc::strong_count);
    // The handle, a table and nothing else.
    assert_eq!(std::mem::size_of::<SharedObject>(), 3 * std::mem::size_of::<usize>());
}

#[test]
fn concrete_handles_still_cast_to_their_reflectable_form() {
    let probe = Rc::new(RefCell::new(Probe { value: 7 }));
    let shared = SharedObject::new_concrete(probe.clone());
    let any: Rc<RefCell<dyn Reflectable>> = shared.cast().expect("the dyn Reflectable form");
    assert_eq!(Rc::as_ptr(&any) as *const () as usize, Rc::as_ptr(&probe) as usize);
    drop((shared, any));
    assert_eq!(Rc::strong_count(&probe), 1);
}

/// A user's handle with room for more than a pointer: too large for the inline slot.
#[derive(Clone)]
struct Tagged(Rc<RefCell<Probe>>, [u64; 3]);

impl SharedHandle for Tagged {
    type Pointee = Probe;
    type Weak = rc::Weak<RefCell<Probe>>;
    const FAMILY: Family = Family::RcRefCell;
    fn addr(&self) -> usize {
        SharedHandle::addr(&self.0)
    }
    fn contains(&self, address: usize) -> bool {
        SharedHandle::contains(&self.0, address)
    }
    fn downgrade(&self) -> Self::Weak {
        Rc::downgrade(&self.0)
    }
    fn strong_count(&self) -> usize {
        Rc::strong_count(&self.0)
    }
    fn pointer_count(&self) -> usize {
        SharedHandle::pointer_count(&self.0)
    }
    fn upgrade(weak: &Self::Weak) -> Option<Self> {
        weak.upgrade().map(|rc| Tagged(rc, [0; 3]))
    }
    fn read<R>(&self, f: impl FnOnce(&Probe) -> R) -> Result<R, FieldError> {
        SharedHandle::read(&self.0, f)
    }
    fn write<R>(&self, f: impl FnOnce(&mut Probe) -> R) -> Result<R, FieldError> {
        SharedHandle::write(&self.0, f)
    }
}

#[test]
fn a_handle_too_large_to_sit_inline_is_boxed_and_still_balanced() {
    let tagged = Tagged(Rc::new(RefCell::new(Probe { value: 7 })), [1, 2, 3]);
    assert!(std::mem::size_of::<Tagged>() > 2 * std::mem::size_of::<usize>());
    balanced(tagged.clone(), Family::RcRefCell, |tagged| Rc::strong_count(&tagged.0));
    let shared = SharedObject::new_concrete(tagged.clone());
    shared.write(|object| object.downcast_mut::<Probe>().unwrap().value = 9).unwrap();
    assert_eq!(tagged.0.borrow().value, 9);
    let back: Tagged = shared.clone().cast().unwrap();
    assert_eq!(back.1, [1, 2, 3]);
    drop((shared, back));
    assert_eq!(Rc::strong_count(&tagged.0), 1);
}
