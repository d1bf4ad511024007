//! The derives' own options: `crate = path` (generated code reaches the library through that path,
//! and through nothing but its `__private` module) and type IDs given as constants.

use reflectable::field::FieldKind;
use reflectable::rtti::RttiHooks;
use reflectable::serializer::BinarySerializer;
use reflectable::{reflect_trait, PlainType, Reflectable, Registry};
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

/// Stands for a crate that re-exports `reflectable`. It offers only `__private`, so every type
/// below compiles only if generated code names nothing else.
mod engine {
    pub mod reflectable {
        pub use ::reflectable::__private;
    }
}

pub trait Part: Reflectable {}
reflect_trait!(Part);

#[derive(PlainType, Clone, Copy, Default, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[plain(id = 3100, pod, crate = engine::reflectable)]
#[repr(C)]
struct Extent {
    width: u32,
    height: u32,
}

#[derive(PlainType, Clone, Copy, Default, Debug, PartialEq)]
#[plain(id = 3101, crate = "engine::reflectable")]
enum Facing {
    #[default]
    North,
    South,
}

#[derive(Reflectable, Default)]
#[rtti(id = 310_000, abstract, crate = engine::reflectable)]
struct Base {
    #[rtti(id = 1)]
    label: String,
}

#[derive(Reflectable, Default)]
#[rtti(id = 310_001, implements(Part), crate = engine::reflectable)]
struct Wheel {
    #[rtti(id = 1)]
    extent: Extent,
}
impl Part for Wheel {}

thread_local! {
    static HOOKS_RUN: Cell<u32> = const { Cell::new(0) };
}

const CAR_ID: u32 = 310_002;

#[derive(Reflectable, Default)]
#[rtti(id = CAR_ID, name = "Car", hooks, crate = engine::reflectable)]
struct Car {
    #[rtti(base)]
    base: Base,
    #[rtti(id = 1)]
    facing: Facing,
    #[rtti(id = 2)]
    extents: Vec<Extent>,
    #[rtti(id = 3, embedded)]
    spare: Wheel,
    #[rtti(id = 4, embedded)]
    wheels: Vec<Wheel>,
    #[rtti(id = 5)]
    engine: Option<Box<dyn Part>>,
    #[rtti(id = 6)]
    parts: Vec<Rc<RefCell<dyn Part>>>,
    #[rtti(id = 7)]
    owner: Weak<RefCell<Car>>,
    #[rtti(skip)]
    _cache: u64,
}

impl RttiHooks for Car {
    fn on_serialization_started(&self, _context: &mut dyn Any) {
        HOOKS_RUN.with(|run| run.set(run.get() + 1));
    }
}

#[test]
fn a_crate_path_reaches_everything_the_derives_generate_through_private() {
    let rtti = Car::rtti_static();
    assert_eq!(rtti.name(), "Car");
    assert_eq!(rtti.id(), CAR_ID);
    let kinds: Vec<(u16, FieldKind, bool)> =
        rtti.fields().iter().map(|field| (field.id(), field.kind(), field.is_array())).collect();
    assert_eq!(
        kinds,
        [
            (1, FieldKind::Plain, false),
            (2, FieldKind::Plain, true),
            (3, FieldKind::Embedded, false),
            (4, FieldKind::Embedded, true),
            (5, FieldKind::Embedded, false),
            (6, FieldKind::Pointer, true),
            (7, FieldKind::Pointer, false),
        ]
    );
    let car = Registry::global().create(CAR_ID).expect("Car is registered");
    assert!(car.is_subclass_of::<Base>());
    assert!(Registry::global().create(310_000).is_none(), "Base is abstract");
    assert_eq!(<Extent as reflectable::plain::PlainType>::STATIC_SIZE, Some(8));
}

#[test]
fn a_type_declared_through_a_crate_path_round_trips_with_its_hooks() {
    let wheel = |width| Wheel { extent: Extent { width, height: 1 } };
    let car = Car {
        base: Base { label: "red".into() },
        facing: Facing::South,
        extents: vec![Extent { width: 2, height: 3 }],
        spare: wheel(4),
        wheels: vec![wheel(5), wheel(6)],
        engine: Some(Box::new(wheel(7))),
        parts: vec![Rc::new(RefCell::new(wheel(8)))],
        owner: Weak::new(),
        _cache: 9,
    };
    let before = HOOKS_RUN.with(Cell::get);
    let bytes = BinarySerializer::new().encode(&car).unwrap();
    assert_eq!(HOOKS_RUN.with(Cell::get), before + 1, "on_serialization_started ran once");

    let back: Car = BinarySerializer::new().decode(&bytes).unwrap();
    assert_eq!(back.base.label, "red");
    assert_eq!(back.facing, Facing::South);
    assert_eq!(back.extents, car.extents);
    assert_eq!(back.spare.extent.width, 4);
    assert_eq!(back.wheels.iter().map(|wheel| wheel.extent.width).collect::<Vec<_>>(), [5, 6]);
    let engine = back.engine.as_ref().expect("the engine came back");
    assert_eq!(engine.downcast_ref::<Wheel>().map(|wheel| wheel.extent.width), Some(7));
    assert_eq!(back.parts.len(), 1);
    assert_eq!(back.parts[0].borrow().downcast_ref::<Wheel>().map(|wheel| wheel.extent.width), Some(8));
    assert_eq!(back._cache, 0, "skipped fields keep their default");
}

/// A type a `macro_rules!` declares, its name and field types handed in as `$name:ident` and
/// `$t:ty`: the derive reads the field types through the invisible groups around them and its own
/// locals through the macro's hygiene, so the type is what the same declaration written out is.
macro_rules! declare_holder {
    ($name:ident, $id:expr, $list:ty, $link:ty, $pair:ty) => {
        #[derive(Reflectable, Default)]
        #[rtti(id = $id)]
        struct $name {
            #[rtti(id = 1)]
            list: $list,
            #[rtti(id = 2)]
            link: $link,
            #[rtti(id = 3, array)]
            pair: $pair,
        }
    };
}

/// What the holders' pointers lead to.
#[derive(Reflectable, Default)]
#[rtti(id = 77_102)]
struct Knob {
    #[rtti(id = 1)]
    label: String,
}

declare_holder!(MacroHolder, 77_100, Vec<u32>, Option<Rc<RefCell<Knob>>>, [u16; 2]);

#[derive(Reflectable, Default)]
#[rtti(id = 77_101)]
struct WrittenHolder {
    #[rtti(id = 1)]
    list: Vec<u32>,
    #[rtti(id = 2)]
    link: Option<Rc<RefCell<Knob>>>,
    #[rtti(id = 3, array)]
    pair: [u16; 2],
}

#[test]
fn a_type_declared_by_a_macro_is_the_type_written_out() {
    let (declared, written) = (MacroHolder::rtti_static(), WrittenHolder::rtti_static());
    for (a, b) in declared.fields().iter().zip(written.fields()) {
        assert_eq!(a.wire_shape(), b.wire_shape(), "{}", a.name());
        assert_eq!(a.kind(), b.kind(), "{}", a.name());
    }
    let shared = Rc::new(RefCell::new(Knob { label: "shared".into() }));
    let holder = MacroHolder { list: vec![1, 2, 3], link: Some(shared), pair: [4, 5] };
    let serializer = BinarySerializer::new();
    let loaded: MacroHolder = serializer.decode(&serializer.encode(&holder).unwrap()).unwrap();
    assert_eq!((loaded.list, loaded.pair), (vec![1, 2, 3], [4, 5]));
    assert_eq!(loaded.link.unwrap().borrow().label, "shared");
}
