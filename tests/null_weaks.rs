//! A null (or dead) `Weak` inside a pointer array keeps its place through save, load and clone:
//! the array neither fails to load (a fixed-size array) nor closes up over it (a `Vec` or a
//! `SmallVec`, whose later elements would move to another index). A null `Weak` to a trait object
//! (which `Weak::new` cannot make: it needs a sized pointee) is made from a type declared to
//! implement the trait, so it keeps its place too, in decodes, clones and applied patches.

use reflectable::clone::deep_clone;
use reflectable::diff::{diff, rtti_eq};
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

#[derive(Reflectable)]
#[rtti(id = 340_003)]
struct TraitWatchers {
    #[rtti(id = 1)]
    owned: Vec<Rc<RefCell<dyn Marker>>>,
    #[rtti(id = 2)]
    list: Vec<Weak<RefCell<dyn Marker>>>,
    #[rtti(id = 3)]
    fixed: [Weak<RefCell<dyn Marker>>; 2],
    #[rtti(id = 4)]
    one: Weak<RefCell<dyn Marker>>,
    #[rtti(id = 5)]
    locked: Vec<std::sync::Weak<std::sync::RwLock<dyn Marker>>>,
}

/// `Weak<RefCell<dyn Marker>>` has no `Default` (`Weak::new` needs a sized pointee): a program
/// makes its null ones from a type that implements the trait, as the decoder does.
impl Default for TraitWatchers {
    fn default() -> Self {
        let null = || Weak::<RefCell<Target>>::new() as Weak<RefCell<dyn Marker>>;
        TraitWatchers { owned: Vec::new(), list: Vec::new(), fixed: [null(), null()], one: null(), locked: Vec::new() }
    }
}

/// Which elements of a weak array to a trait object lead somewhere, and to which label.
fn trait_labels<'a>(weaks: impl IntoIterator<Item = &'a Weak<RefCell<dyn Marker>>>) -> Vec<Option<String>> {
    let label = |target: Rc<RefCell<dyn Marker>>| {
        let target = target.borrow();
        (&*target as &dyn Reflectable).downcast_ref::<Target>().unwrap().label.clone()
    };
    weaks.into_iter().map(|weak| weak.upgrade().map(label)).collect()
}

fn trait_watchers() -> (TraitWatchers, std::sync::Arc<std::sync::RwLock<dyn Marker>>) {
    let owned: Rc<RefCell<dyn Marker>> = Rc::new(RefCell::new(Target { label: "kept".into() }));
    let gone: Rc<RefCell<dyn Marker>> = Rc::new(RefCell::new(Target::default()));
    let dead = Rc::downgrade(&gone);
    drop(gone);
    let locked: std::sync::Arc<std::sync::RwLock<dyn Marker>> =
        std::sync::Arc::new(std::sync::RwLock::new(Target { label: "locked".into() }));
    let watchers = TraitWatchers {
        list: vec![dead.clone(), Rc::downgrade(&owned)],
        fixed: [Rc::downgrade(&owned), dead.clone()],
        one: dead,
        locked: vec![std::sync::Weak::<std::sync::RwLock<Target>>::new(), std::sync::Arc::downgrade(&locked)],
        owned: vec![owned],
    };
    (watchers, locked)
}

fn check_traits(loaded: &TraitWatchers, how: &str) {
    assert_eq!(trait_labels(&loaded.list), [None, Some("kept".to_owned())], "{how}: list");
    assert_eq!(trait_labels(&loaded.fixed), [Some("kept".to_owned()), None], "{how}: fixed");
    assert!(loaded.one.upgrade().is_none(), "{how}: one");
    assert_eq!(loaded.locked.len(), 2, "{how}: locked");
    assert!(loaded.locked[0].upgrade().is_none(), "{how}: locked[0]");
}

#[test]
fn a_null_weak_to_a_trait_object_keeps_its_place() {
    let (original, locked) = trait_watchers();
    let serializer = BinarySerializer::new();
    let bytes = serializer.encode(&original).unwrap();
    for walked in [false, true] {
        let serializer = serializer.generated_codecs(!walked);
        let (loaded, report) = serializer.decode_with_report::<TraitWatchers>(&bytes).unwrap();
        // The locked target only `Weak`s point at is saved, then freed on load: reported.
        let events: Vec<_> = report.events().map(|(event, count)| (event.clone(), count)).collect();
        assert_eq!(events, [(reflectable::serializer::DecodeEvent::ObjectsUnheld, 1)], "{report}");
        check_traits(&loaded, if walked { "walked decode" } else { "generated decode" });
    }
    check_traits(&deep_clone(&original).unwrap(), "clone");
    drop(locked);
}

/// Issue 42's first defect: a patch that clears a `Weak` to a trait object, or creates an object
/// holding a null one, applies in full.
#[test]
fn a_patch_clears_a_weak_to_a_trait_object() {
    let (mut old, _locked) = trait_watchers();
    let owned = old.owned[0].clone();
    old.one = Rc::downgrade(&owned);
    let new = TraitWatchers { owned: vec![owned.clone()], ..TraitWatchers::default() };
    let patch = diff(&old, &new).unwrap();
    let report = patch.apply(&mut old);
    assert!(report.is_complete(), "{report}");
    assert!(old.one.upgrade().is_none() && old.list.is_empty() && old.locked.is_empty());
    assert_eq!(trait_labels(&old.fixed), [None, None]);
    rtti_eq(&old, &new).unwrap();

    // Back: the patch points the cleared fields at the owned object again, and a dead element of
    // an array it rebuilds is made as it applies.
    let null = || Weak::<RefCell<Target>>::new() as Weak<RefCell<dyn Marker>>;
    let target = TraitWatchers {
        list: vec![null(), Rc::downgrade(&owned)],
        fixed: [Rc::downgrade(&owned), null()],
        ..TraitWatchers { owned: vec![owned.clone()], ..TraitWatchers::default() }
    };
    let patch = diff(&new, &target).unwrap();
    let mut again = TraitWatchers { owned: vec![owned], ..TraitWatchers::default() };
    let report = patch.apply(&mut again);
    assert!(report.is_complete(), "{report}");
    assert_eq!(trait_labels(&again.list), [None, Some("kept".to_owned())]);
    rtti_eq(&again, &target).unwrap();

    // A `Weak` to an object outside the target graph (only the caller holds it) cannot be made
    // by a patch, which would point it at a copy that nothing holds: reported, not "in full".
    let (outside, _locked) = trait_watchers();
    let report = diff(&new, &outside).unwrap().apply(&mut TraitWatchers::default());
    assert!(!report.is_complete(), "{report}");
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

#[derive(Reflectable, Default)]
#[rtti(id = 340_010)]
struct Selection {
    #[rtti(id = 1)]
    owned: Vec<Rc<RefCell<Target>>>,
    #[rtti(id = 2)]
    selected: Weak<RefCell<Target>>,
    #[rtti(id = 3)]
    history: Vec<Weak<RefCell<Target>>>,
}

/// A type defined at run time holds its `Weak`s as `Weak<RefCell<dyn Reflectable>>`, to which a
/// null is made from a runtime object: a patch that clears the selection clears it (it used to
/// keep the old target and report "applied in full").
#[test]
fn a_patch_clears_a_weak_of_an_object_of_a_runtime_type() {
    use reflectable::rtti::Registry;
    let target = Rc::new(RefCell::new(Target { label: "lamp".into() }));
    let old = Selection {
        owned: vec![target.clone()],
        selected: Rc::downgrade(&target),
        history: vec![Rc::downgrade(&target)],
    };
    let new = Selection { owned: vec![target.clone()], selected: Weak::new(), history: vec![Weak::new()] };
    let runtime = |value: &Selection| {
        let bytes = reflectable::to_vec(value).unwrap();
        BinarySerializer::with_registry(&Registry::new())
            .keep_unknown_types(true)
            .decode::<Box<dyn Reflectable>>(&bytes)
            .unwrap()
    };
    let (mut old, new) = (runtime(&old), runtime(&new));
    let report = diff(&*old, &*new).unwrap().apply_with(&mut *old, &Registry::new());
    assert!(report.is_complete(), "{report}");
    rtti_eq(&*old, &*new).unwrap();
}
