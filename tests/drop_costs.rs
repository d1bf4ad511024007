//! What the decoder charges for a link of a chain (read from its refusal under a limit of 0)
//! covers the stack dropping that link really takes, for every shape a link can have: a single
//! pointer among other fields, lists, maps (`HashMap` and `BTreeMap`, whose drop takes the most),
//! values held by value around the pointer, nested twenty deep, and base sections. The shapes
//! were found by an adversarial review of the estimate (issue 40); `link_stack` in
//! `src/serializer/decoder/drop_depth.rs` holds the prices.

#[path = "common/stack_mark.rs"]
mod stack_mark;

use reflectable::serializer::{BinarySerializer, DecodeErrorKind, Limits};
use reflectable::Reflectable;
use stack_mark::{measured_drop, StackMark};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::{Arc, Mutex, RwLock};

// 1. BTreeMap of pointers
#[derive(Reflectable, Default)]
#[rtti(id = 481_000)]
struct BtLink {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1)]
    next: BTreeMap<u32, Rc<RefCell<BtLink>>>,
}
// 1b. BTreeMap of Arc<RwLock>
#[derive(Reflectable, Default)]
#[rtti(id = 481_001)]
struct BtArcLink {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1)]
    next: BTreeMap<String, Arc<RwLock<BtArcLink>>>,
}
// 2. Box nesting
#[derive(Reflectable, Default)]
#[rtti(id = 481_010)]
struct BoxWrap {
    #[rtti(id = 1, embedded)]
    inner: Option<Box<BoxWrap>>,
    #[rtti(id = 2)]
    next: Option<Rc<RefCell<BoxLink>>>,
}
#[derive(Reflectable, Default)]
#[rtti(id = 481_011)]
struct BoxLink {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1, embedded)]
    w: Option<Box<BoxWrap>>,
}
// 3. HashMap nesting
#[derive(Reflectable, Default, Clone)]
#[rtti(id = 481_020)]
struct HWrap {
    #[rtti(id = 1, embedded)]
    m: HashMap<u32, HWrap>,
    #[rtti(id = 2)]
    next: Option<Rc<RefCell<HLink>>>,
}
#[derive(Reflectable, Default)]
#[rtti(id = 481_021)]
struct HLink {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1, embedded)]
    m: HashMap<u32, HWrap>,
}
// 4. BTreeMap nesting
#[derive(Reflectable, Default, Clone)]
#[rtti(id = 481_030)]
struct BWrap {
    #[rtti(id = 1, embedded)]
    m: BTreeMap<u32, BWrap>,
    #[rtti(id = 2)]
    next: Option<Rc<RefCell<BLink>>>,
}
#[derive(Reflectable, Default)]
#[rtti(id = 481_031)]
struct BLink {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1, embedded)]
    m: BTreeMap<u32, BWrap>,
}
// 5. Vec nesting
#[derive(Reflectable, Default)]
#[rtti(id = 481_040)]
struct VWrap {
    #[rtti(id = 1, embedded)]
    v: Vec<VWrap>,
    #[rtti(id = 2)]
    next: Option<Rc<RefCell<VLink>>>,
}
#[derive(Reflectable, Default)]
#[rtti(id = 481_041)]
struct VLink {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1, embedded)]
    v: Vec<VWrap>,
}
// 6. base chain
#[derive(Reflectable, Default)]
#[rtti(id = 481_050)]
struct B4 {
    #[rtti(id = 1)]
    next: Option<Rc<RefCell<BaseLink>>>,
}
#[derive(Reflectable, Default)]
#[rtti(id = 481_051)]
struct B3 {
    #[rtti(base)]
    base: B4,
}
#[derive(Reflectable, Default)]
#[rtti(id = 481_052)]
struct B2 {
    #[rtti(base)]
    base: B3,
}
#[derive(Reflectable, Default)]
#[rtti(id = 481_053)]
struct B1 {
    #[rtti(base)]
    base: B2,
}
#[derive(Reflectable, Default)]
#[rtti(id = 481_054)]
struct BaseLink {
    #[rtti(base)]
    base: B1,
    #[rtti(skip)]
    _m: StackMark,
}
// 7. nested lists of pointers (the derive reads the field's type as written: no alias)
#[derive(Reflectable, Default)]
#[rtti(id = 481_060)]
#[allow(clippy::type_complexity)]
struct ListsLink {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1)]
    next: Vec<Vec<Vec<Vec<Rc<RefCell<ListsLink>>>>>>,
}
// 8. a wide struct
#[derive(Reflectable, Default)]
#[rtti(id = 481_070)]
struct Wide {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1)]
    a1: String,
    #[rtti(id = 2)]
    a2: String,
    #[rtti(id = 3)]
    a3: String,
    #[rtti(id = 4)]
    a4: String,
    #[rtti(id = 5)]
    a5: Vec<u32>,
    #[rtti(id = 6)]
    a6: Vec<u32>,
    #[rtti(id = 7)]
    a7: Vec<u32>,
    #[rtti(id = 8)]
    a8: Vec<u32>,
    #[rtti(id = 9)]
    a9: String,
    #[rtti(id = 10)]
    a10: String,
    #[rtti(id = 11)]
    a11: String,
    #[rtti(id = 12)]
    a12: String,
    #[rtti(id = 20)]
    next: Option<Rc<RefCell<Wide>>>,
    #[rtti(id = 21)]
    b1: String,
    #[rtti(id = 22)]
    b2: String,
    #[rtti(id = 23)]
    b3: Vec<u32>,
    #[rtti(id = 24)]
    b4: Vec<u32>,
}
// 9. nested maps of pointers: HashMap<u32, HashMap<u32, Rc>> (list/map objects)
#[derive(Reflectable, Default)]
#[rtti(id = 481_080)]
struct MapMapLink {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1)]
    next: BTreeMap<u32, Vec<Vec<Rc<RefCell<MapMapLink>>>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 481_090)]
struct S1 {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    next: Option<Rc<RefCell<S1>>>,
}
#[derive(Reflectable, Default)]
#[rtti(id = 481_091)]
struct S2 {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 2)]
    next: Option<Rc<RefCell<S2>>>,
    #[rtti(id = 1)]
    name: String,
}
#[derive(Reflectable, Default)]
#[rtti(id = 481_092)]
struct S3 {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1)]
    a: Vec<u32>,
    #[rtti(id = 2)]
    next: Option<Rc<RefCell<S3>>>,
    #[rtti(id = 3)]
    b: Vec<u32>,
}
#[derive(Reflectable, Default)]
#[rtti(id = 481_094)]
struct S5 {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1)]
    a: String,
    #[rtti(id = 2)]
    next: Vec<Rc<RefCell<S5>>>,
    #[rtti(id = 3)]
    b: String,
}
#[derive(Reflectable, Default)]
#[rtti(id = 481_095)]
struct S6 {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1)]
    a: String,
    #[rtti(id = 2)]
    next: std::collections::HashMap<u32, Rc<RefCell<S6>>>,
    #[rtti(id = 3)]
    b: String,
}

/// Values held by value around the pointer in the nested shapes.
const NESTING: usize = 20;

/// A chain of `links` values made by `make`, encoded and decoded: the decoder's charge for its
/// drop is at least what the drop takes.
fn check<T: Reflectable + Default>(kind: &str, links: usize, make: impl Fn(Rc<RefCell<T>>) -> T) {
    let mut head = T::default();
    for _ in 0..links {
        head = make(Rc::new(RefCell::new(head)));
    }
    charged_at_least_taken::<T>(kind, links, &head);
}

/// [`check`] for a chain made by wrapping each value in the next.
fn check_owned<T: Reflectable + Default>(kind: &str, links: usize, make: impl Fn(T) -> T) {
    let mut head = T::default();
    for _ in 0..links {
        head = make(head);
    }
    charged_at_least_taken::<T>(kind, links, &head);
}

fn charged_at_least_taken<T: Reflectable + Default>(kind: &str, links: usize, head: &T) {
    let bytes = BinarySerializer::new().encode(head).expect("encode");
    let tight = Limits { max_drop_stack: Some(0), ..Limits::default() };
    let error = BinarySerializer::new()
        .limits(tight)
        .decode::<Box<dyn reflectable::Reflectable>>(&bytes)
        .map(drop)
        .expect_err(kind);
    let DecodeErrorKind::DropTooDeep { stack, length, .. } = *error.kind() else { panic!("{kind}: {error}") };
    assert_eq!(length, links + 1, "{kind}");
    let value: T = BinarySerializer::new().decode(&bytes).expect(kind);
    let measured = measured_drop(value);
    println!("{kind}: {} bytes a link charged, {} taken", stack / links, measured / (links - 1));
    assert!(stack >= measured, "{kind}: {stack} bytes charged, {measured} taken");
}

#[test]
fn every_shape_of_link_is_charged_at_least_what_its_drop_takes() {
    let d = NESTING;
    check::<S1>("S1 {String, next}", 200, |n| S1 { next: Some(n), ..Default::default() });
    check::<S2>("S2 {next, String}", 200, |n| S2 { next: Some(n), ..Default::default() });
    check::<S3>("S3 {Vec, next, Vec}", 200, |n| S3 { next: Some(n), ..Default::default() });
    check::<S5>("S5 {String, Vec<Rc>, String}", 200, |n| S5 { next: vec![n], ..Default::default() });
    check::<S6>("S6 {String, HashMap<u32,Rc>, String}", 200, |n| S6 { next: [(1, n)].into(), ..Default::default() });
    check::<BtLink>("BTreeMap<u32, Rc<RefCell>>", 200, |n| BtLink {
        next: BTreeMap::from([(1, n)]),
        ..Default::default()
    });
    check::<BtArcLink>("BTreeMap<String, Arc<RwLock>>", 200, |n| {
        let n = Arc::new(RwLock::new(Rc::try_unwrap(n).ok().expect("the only handle").into_inner()));
        BtArcLink { next: BTreeMap::from([("k".to_owned(), n)]), ..Default::default() }
    });
    check::<BoxLink>(&format!("Option<Box> x{d}"), 50, |n| {
        let mut w = BoxWrap { inner: None, next: Some(n) };
        for _ in 1..d {
            w = BoxWrap { inner: Some(Box::new(w)), next: None };
        }
        BoxLink { w: Some(Box::new(w)), ..Default::default() }
    });
    check::<HLink>(&format!("HashMap<u32, Wrap> x{d}"), 50, |n| {
        let mut w = HWrap { m: HashMap::new(), next: Some(n) };
        for _ in 1..d {
            w = HWrap { m: HashMap::from([(1, w)]), next: None };
        }
        HLink { m: HashMap::from([(1, w)]), ..Default::default() }
    });
    check::<BLink>(&format!("BTreeMap<u32, Wrap> x{d}"), 50, |n| {
        let mut w = BWrap { m: BTreeMap::new(), next: Some(n) };
        for _ in 1..d {
            w = BWrap { m: BTreeMap::from([(1, w)]), next: None };
        }
        BLink { m: BTreeMap::from([(1, w)]), ..Default::default() }
    });
    check::<VLink>(&format!("Vec<Wrap> x{d}"), 50, |n| {
        let mut w = VWrap { v: vec![], next: Some(n) };
        for _ in 1..d {
            w = VWrap { v: vec![w], next: None };
        }
        VLink { v: vec![w], ..Default::default() }
    });
    check::<BaseLink>("base of base of base of base", 200, |n| BaseLink {
        base: B1 { base: B2 { base: B3 { base: B4 { next: Some(n) } } } },
        ..Default::default()
    });
    check::<ListsLink>("Vec<Vec<Vec<Vec<Rc>>>>", 200, |n| ListsLink {
        next: vec![vec![vec![vec![n]]]],
        ..Default::default()
    });
    check::<Wide>("wide struct", 200, |n| Wide { next: Some(n), ..Default::default() });
    check::<MapMapLink>("BTreeMap<u32, Vec<Vec<Rc>>>", 200, |n| MapMapLink {
        next: BTreeMap::from([(1, vec![vec![n]])]),
        ..Default::default()
    });
}

// Structs whose plain fields around the pointer have drop glue of their own (maps of strings,
// nested lists): inlined into the struct's drop, it makes every link's frame larger.
#[derive(Reflectable, Default)]
#[rtti(id = 487_000)]
struct Fat1 {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1)]
    a: BTreeMap<String, String>,
    #[rtti(id = 2)]
    next: Option<Rc<RefCell<Fat1>>>,
    #[rtti(id = 3)]
    b: HashMap<String, Vec<String>>,
    #[rtti(id = 4)]
    c: Vec<Vec<String>>,
    #[rtti(id = 5)]
    d: BTreeMap<u32, Vec<String>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 487_001)]
struct Fat2 {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1)]
    a: BTreeMap<String, BTreeMap<String, String>>,
    #[rtti(id = 2)]
    next: Vec<Rc<RefCell<Fat2>>>,
    #[rtti(id = 3)]
    b: BTreeMap<String, Vec<String>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 487_002)]
struct Fat3 {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1)]
    a: BTreeMap<String, String>,
    #[rtti(id = 2)]
    next: Option<Arc<Mutex<Fat3>>>,
    #[rtti(id = 3)]
    b: BTreeMap<String, Vec<String>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 487_003)]
struct Fat4 {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1)]
    a: [String; 8],
    #[rtti(id = 2)]
    next: [Option<Rc<RefCell<Fat4>>>; 4],
    #[rtti(id = 3)]
    b: Vec<BTreeMap<String, String>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 487_004)]
struct Fat5 {
    #[rtti(skip)]
    _m: StackMark,
    #[rtti(id = 1)]
    a1: BTreeMap<String, String>,
    #[rtti(id = 2)]
    a2: HashMap<String, Vec<String>>,
    #[rtti(id = 3)]
    a3: Vec<Vec<String>>,
    #[rtti(id = 4)]
    a4: BTreeMap<u32, Vec<String>>,
    #[rtti(id = 5)]
    a5: BTreeMap<String, BTreeMap<String, String>>,
    #[rtti(id = 6)]
    a6: HashMap<u64, String>,
    #[rtti(id = 7)]
    a7: Vec<BTreeMap<String, String>>,
    #[rtti(id = 8)]
    a8: Option<String>,
    #[rtti(id = 20)]
    next: Option<Rc<RefCell<Fat5>>>,
    #[rtti(id = 9)]
    b1: BTreeMap<String, String>,
    #[rtti(id = 10)]
    b2: HashMap<String, Vec<String>>,
    #[rtti(id = 11)]
    b3: Vec<Vec<String>>,
    #[rtti(id = 12)]
    b4: BTreeMap<u32, Vec<String>>,
    #[rtti(id = 13)]
    b5: BTreeMap<String, BTreeMap<String, String>>,
    #[rtti(id = 14)]
    b6: HashMap<u64, String>,
    #[rtti(id = 15)]
    b7: Vec<BTreeMap<String, String>>,
    #[rtti(id = 16)]
    b8: Option<String>,
}

fn s(text: &str) -> String {
    text.to_owned()
}

#[test]
fn fat_structs_are_charged_for_their_fields() {
    check_owned::<Fat1>("Fat1", 200, |n| Fat1 {
        a: [(s("k"), s("v"))].into(),
        next: Some(Rc::new(RefCell::new(n))),
        b: [(s("k"), vec![s("v")])].into(),
        c: vec![vec![s("x")]],
        d: [(1, vec![s("v")])].into(),
        ..Default::default()
    });
    check_owned::<Fat5>("Fat5", 200, |n| Fat5 {
        a1: [(s("k"), s("v"))].into(),
        a5: [(s("k"), [(s("k"), s("v"))].into())].into(),
        b1: [(s("k"), s("v"))].into(),
        b4: [(1, vec![s("v")])].into(),
        b5: [(s("k"), [(s("k"), s("v"))].into())].into(),
        b7: vec![[(s("k"), s("v"))].into()],
        next: Some(Rc::new(RefCell::new(n))),
        ..Default::default()
    });
    check_owned::<Fat2>("Fat2", 200, |n| Fat2 {
        a: [(s("k"), [(s("k"), s("v"))].into())].into(),
        next: vec![Rc::new(RefCell::new(n))],
        b: [(s("k"), vec![s("v")])].into(),
        ..Default::default()
    });
    check_owned::<Fat3>("Fat3", 200, |n| Fat3 {
        a: [(s("k"), s("v"))].into(),
        next: Some(Arc::new(Mutex::new(n))),
        b: [(s("k"), vec![s("v")])].into(),
        ..Default::default()
    });
    check_owned::<Fat4>("Fat4", 200, |n| Fat4 {
        next: [Some(Rc::new(RefCell::new(n))), None, None, None],
        b: vec![[(s("k"), s("v"))].into()],
        ..Default::default()
    });
}
