//! A null (or dead) `Weak` inside a pointer array keeps its place through save, load and clone:
//! the array neither fails to load (a fixed-size array) nor closes up over it (a `Vec` or a
//! `SmallVec`, whose later elements would move to another index). A null `Weak` to a trait object
//! cannot be made (`Weak::new` needs a sized pointee), so loading one is reported, never silent.

use reflectable::clone::deep_clone;
use reflectable::diff::rtti_eq;
use reflectable::serializer::BinarySerializer;
use reflectable::{reflect_trait, Reflectable};
use smallvec::SmallVec;
use std::cell::RefCell;
use std::rc::{Rc, Weak};

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 340_001, implements(Marker))]
struct Target {
    #[rtti(id = 1)]
    label: String,
}

trait Marker: Reflectable {}
reflect_trait!(Marker);
impl Marker for Target {}

#[derive(Reflectable, Default)]
#[rtti(id = 340_002)]
struct Watchers {
    #[rtti(id = 1)]
    owned: Vec<Rc<RefCell<Target>>>,
    #[rtti(id = 2)]
    list: Vec<Weak<RefCell<Target>>>,
    #[rtti(id = 3)]
    fixed: [Weak<RefCell<Target>>; 3],
    #[rtti(id = 4)]
    small: SmallVec<[Weak<RefCell<Target>>; 2]>,
}

/// Which elements of a weak array lead somewhere, and to which label.
fn labels<'a>(weaks: impl IntoIterator<Item = &'a Weak<RefCell<Target>>>) -> Vec<Option<String>> {
    weaks.into_iter().map(|weak| weak.upgrade().map(|target| target.borrow().label.clone())).collect()
}

fn watchers() -> Watchers {
    let owned: Vec<Rc<RefCell<Target>>> =
        ["a", "b"].iter().map(|label| Rc::new(RefCell::new(Target { label: label.to_string() }))).collect();
    let gone = Rc::new(RefCell::new(Target { label: "gone".into() }));
    let dead = Rc::downgrade(&gone);
    drop(gone);
    Watchers {
        list: vec![Rc::downgrade(&owned[0]), Weak::new(), Rc::downgrade(&owned[1]), dead.clone()],
        fixed: [Weak::new(), Rc::downgrade(&owned[1]), dead],
        small: SmallVec::from_vec(vec![Weak::new(), Rc::downgrade(&owned[0]), Weak::new()]),
        owned,
    }
}

fn check(loaded: &Watchers, original: &Watchers, how: &str) {
    assert_eq!(labels(&loaded.list), labels(&original.list), "{how}: list");
    assert_eq!(labels(&loaded.fixed), labels(&original.fixed), "{how}: fixed");
    assert_eq!(labels(&loaded.small), labels(&original.small), "{how}: small");
    if let Err(difference) = rtti_eq(loaded, original) {
        panic!("{how}: {difference}");
    }
}

#[test]
fn null_weak_elements_keep_their_place_on_both_decode_paths() {
    let original = watchers();
    assert_eq!(labels(&original.list), [Some("a".into()), None, Some("b".into()), None]);
    for generated in [true, false] {
        let serializer = BinarySerializer::new().generated_codecs(generated);
        let bytes = serializer.encode(&original).unwrap();
        let (loaded, report) = serializer.decode_with_report::<Watchers>(&bytes).unwrap();
        assert!(report.is_empty(), "{report}");
        check(&loaded, &original, if generated { "generated" } else { "walked" });
    }
}

#[test]
fn null_weak_elements_keep_their_place_in_a_clone() {
    let original = watchers();
    check(&deep_clone(&original).unwrap(), &original, "clone");
}

#[derive(Reflectable, Default)]
#[rtti(id = 340_003)]
struct TraitWatchers {
    #[rtti(id = 1)]
    owned: Vec<Rc<RefCell<dyn Marker>>>,
    #[rtti(id = 2)]
    list: Vec<Weak<RefCell<dyn Marker>>>,
}

#[test]
fn a_null_weak_to_a_trait_object_is_reported_not_closed_over_silently() {
    let owned: Rc<RefCell<dyn Marker>> = Rc::new(RefCell::new(Target { label: "kept".into() }));
    let gone: Rc<RefCell<dyn Marker>> = Rc::new(RefCell::new(Target::default()));
    let dead = Rc::downgrade(&gone);
    drop(gone);
    let original = TraitWatchers { list: vec![dead, Rc::downgrade(&owned)], owned: vec![owned] };
    let serializer = BinarySerializer::new();
    let bytes = serializer.encode(&original).unwrap();
    let (loaded, report) = serializer.decode_with_report::<TraitWatchers>(&bytes).unwrap();
    assert_eq!(loaded.list.len(), 1);
    assert!(!report.is_empty(), "the null element left out is reported");
    assert!(report.to_string().contains("list"), "{report}");
}

/// A type that must not be made behind the program's back: its constructor panics.
#[derive(Reflectable)]
#[rtti(id = 340_004)]
struct Touchy {
    #[rtti(id = 1)]
    label: String,
}

impl Default for Touchy {
    fn default() -> Self {
        panic!("a null `Weak` made an object")
    }
}

#[derive(Reflectable, Default)]
#[rtti(id = 340_005)]
struct TouchyWatchers {
    #[rtti(id = 1)]
    list: Vec<Weak<RefCell<Touchy>>>,
    #[rtti(id = 2)]
    fixed: [std::sync::Weak<std::sync::Mutex<Touchy>>; 2],
    #[rtti(id = 3)]
    one: Weak<RefCell<Touchy>>,
}

#[test]
fn a_null_weak_is_made_without_making_an_object() {
    let original = TouchyWatchers { list: vec![Weak::new(), Weak::new()], ..TouchyWatchers::default() };
    for generated in [true, false] {
        let serializer = BinarySerializer::new().generated_codecs(generated);
        let bytes = serializer.encode(&original).unwrap();
        let (loaded, report) = serializer.decode_with_report::<TouchyWatchers>(&bytes).unwrap();
        assert!(report.is_empty(), "{report}");
        assert_eq!(loaded.list.len(), 2);
        assert!(loaded.list.iter().chain([&loaded.one]).all(|weak| weak.upgrade().is_none()));
        assert!(loaded.fixed.iter().all(|weak| weak.upgrade().is_none()));
    }
    let cloned = deep_clone(&original).unwrap();
    assert_eq!(cloned.list.len(), 2);
}
