//! Reflection core: hierarchy, creation by ID/name, registry errors, dynamic access through every
//! field kind and array form, trait-object fields, computed fields.

use once_cell::sync::Lazy;
use reflectable::field::{Declared, ElemShape, Family, FieldError, FieldKind, SKIP_REFERENCE_SEARCH};
use reflectable::rtti::RttiError;
use reflectable::{reflect_trait, PlainType, Reflectable, Registry, RttiType, RttiTypeBuilder};
use smallvec::SmallVec;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::sync::{Arc, Mutex, RwLock};

// ---- a 3-level hierarchy ------------------------------------------------------------------

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 200_000, abstract)]
struct Resource {
    #[rtti(id = 1)]
    path: String,
}

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 200_001)]
struct Texture {
    #[rtti(base)]
    resource: Resource,
    #[rtti(id = 1)]
    width: u32,
    #[rtti(id = 2)]
    height: u32,
}

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 200_002, name = "RenderTexture")]
struct RenderTexture {
    #[rtti(base)]
    texture: Texture,
    #[rtti(id = 1)]
    samples: u8,
}

#[test]
fn hierarchy_chain_and_subclass() {
    let rt = RenderTexture::default();
    let object: &dyn Reflectable = &rt;
    assert!(object.is_subclass_of::<RenderTexture>());
    assert!(object.is_subclass_of::<Texture>());
    assert!(object.is_subclass_of::<Resource>());
    assert!(object.is::<RenderTexture>());
    assert!(!object.is::<Texture>());

    let texture = Texture::default();
    assert!(<dyn Reflectable>::is_subclass_of::<Resource>(&texture));
    assert!(!<dyn Reflectable>::is_subclass_of::<RenderTexture>(&texture));

    let chain: Vec<&str> = RenderTexture::rtti_static().chain().map(RttiType::name).collect();
    assert_eq!(chain, ["RenderTexture", "Texture", "Resource"]);
    assert_eq!(RenderTexture::rtti_static().base().map(RttiType::id), Some(200_001));

    let derived: Vec<u32> = Resource::rtti_static().derived_types().iter().map(|t| t.id()).collect();
    assert_eq!(derived, [200_001]);
    let derived: Vec<u32> = Texture::rtti_static().derived_types().iter().map(|t| t.id()).collect();
    assert_eq!(derived, [200_002]);
}

#[test]
fn rtti_cast_walks_embedded_bases() {
    let mut rt = RenderTexture::default();
    rt.texture.resource.path = "rt.tex".into();
    rt.texture.width = 64;
    assert_eq!(<dyn Reflectable>::cast::<Texture>(&rt).unwrap().width, 64);
    assert_eq!(<dyn Reflectable>::cast::<Resource>(&rt).unwrap().path, "rt.tex");
    assert!(<dyn Reflectable>::cast::<Mesh>(&rt).is_none());
    <dyn Reflectable>::cast_mut::<Resource>(&mut rt).unwrap().path = "renamed".into();
    assert_eq!(rt.texture.resource.path, "renamed");

    // Fields of every section, reached through the descriptor chain.
    let mut names = Vec::new();
    for (rtti, section) in RttiType::sections(&rt) {
        for field in rtti.fields() {
            names.push(format!("{}.{}={}", rtti.name(), field.name(), field.len(section).unwrap()));
        }
    }
    assert_eq!(names, ["RenderTexture.samples=1", "Texture.width=1", "Texture.height=1", "Resource.path=1"]);
}

// ---- user trait objects ---------------------------------------------------------------------

pub trait Component: Reflectable {
    fn describe(&self) -> String;
}
reflect_trait!(Component);

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 200_010, implements(Component))]
struct Light {
    #[rtti(id = 1)]
    intensity: f32,
}
impl Component for Light {
    fn describe(&self) -> String {
        format!("light {}", self.intensity)
    }
}

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 200_011, implements(Component))]
struct Mesh {
    #[rtti(id = 1)]
    vertices: Vec<[f32; 3]>,
}
impl Component for Mesh {
    fn describe(&self) -> String {
        format!("mesh of {}", self.vertices.len())
    }
}

#[derive(PlainType, Default, Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[plain(id = 1000, pod)]
#[repr(C)]
struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

#[derive(PlainType, Default, Debug, Clone, Copy, PartialEq)]
#[plain(id = 1001)]
enum Mode {
    #[default]
    Off,
    On = 5,
    Auto,
}

/// Every field kind in every form.
#[derive(Reflectable, Default)]
#[rtti(id = 200_020)]
struct Zoo {
    // plain
    #[rtti(id = 1)]
    count: u32,
    #[rtti(id = 2)]
    name: String,
    #[rtti(id = 3)]
    position: Vec3,
    #[rtti(id = 4)]
    mode: Mode,
    #[rtti(id = 5)]
    samples: Vec<u16>,
    #[rtti(id = 6, array)]
    fixed: [i32; 3],
    #[rtti(id = 7)]
    small: SmallVec<[u8; 4]>,
    #[rtti(id = 8, plain)]
    whole: Vec<u64>,
    #[rtti(id = 9)]
    matrix: [f32; 4],
    // reflectable by value
    #[rtti(id = 20, embedded)]
    light: Light,
    #[rtti(id = 21, embedded)]
    maybe_light: Option<Light>,
    #[rtti(id = 22)]
    any: Option<Box<dyn Reflectable>>,
    #[rtti(id = 23)]
    component: Option<Box<dyn Component>>,
    #[rtti(id = 24, embedded)]
    lights: Vec<Light>,
    #[rtti(id = 25, embedded)]
    light_pair: [Light; 2],
    #[rtti(id = 26, embedded)]
    light_small: SmallVec<[Light; 2]>,
    #[rtti(id = 27)]
    boxed_components: Vec<Box<dyn Component>>,
    // pointers
    #[rtti(id = 40)]
    rc: Option<Rc<Light>>,
    #[rtti(id = 41)]
    rc_cell: Option<Rc<RefCell<Light>>>,
    #[rtti(id = 42)]
    arc: Option<Arc<Light>>,
    #[rtti(id = 43)]
    arc_mutex: Option<Arc<Mutex<Light>>>,
    #[rtti(id = 44)]
    arc_rwlock: Option<Arc<RwLock<Light>>>,
    #[rtti(id = 45)]
    weak: Weak<RefCell<Light>>,
    #[rtti(id = 46)]
    components: Vec<Rc<RefCell<dyn Component>>>,
    #[rtti(id = 47)]
    pair: [Option<Arc<dyn Component>>; 2],
    #[rtti(id = 48)]
    small_ptrs: SmallVec<[Rc<Light>; 2]>,
    #[rtti(id = 49, flags = SKIP_REFERENCE_SEARCH | 0x100)]
    cache: Option<Rc<Mesh>>,
    #[rtti(skip)]
    #[allow(dead_code)]
    transient: u64,
}

fn field(name: &str) -> &'static reflectable::field::RttiField {
    Zoo::rtti_static().field_by_name(name).unwrap_or_else(|| panic!("no field {name}"))
}

#[test]
fn field_metadata() {
    let rtti = Zoo::rtti_static();
    assert_eq!(rtti.fields().len(), 27);
    assert_eq!(rtti.field(3).unwrap().name(), "position");
    assert!(rtti.field(10).is_none());

    let kinds = |name: &str| (field(name).kind(), field(name).is_array());
    assert_eq!(kinds("count"), (FieldKind::Plain, false));
    assert_eq!(kinds("samples"), (FieldKind::Plain, true));
    assert_eq!(kinds("fixed"), (FieldKind::Plain, true));
    assert_eq!(kinds("matrix"), (FieldKind::Plain, false));
    assert_eq!(kinds("whole"), (FieldKind::Plain, false));
    assert_eq!(kinds("light"), (FieldKind::Embedded, false));
    assert_eq!(kinds("component"), (FieldKind::Embedded, false));
    assert_eq!(kinds("boxed_components"), (FieldKind::Embedded, true));
    assert_eq!(kinds("rc"), (FieldKind::Pointer, false));
    assert_eq!(kinds("components"), (FieldKind::Pointer, true));
    assert_eq!(kinds("small_ptrs"), (FieldKind::Pointer, true));

    match field("position").shape().elem {
        ElemShape::Plain(info) => assert_eq!((info.type_id, info.static_size), (1000, Some(12))),
        other => panic!("{other:?}"),
    }
    match field("name").shape().elem {
        ElemShape::Plain(info) => assert_eq!(info.static_size, None),
        other => panic!("{other:?}"),
    }
    match field("light").shape().elem {
        ElemShape::Embedded(Declared::Type(rtti)) => assert_eq!(rtti().id(), 200_010),
        other => panic!("{other:?}"),
    }
    match field("components").shape().elem {
        ElemShape::Pointer { declared: Declared::Trait(name), family, weak } => {
            assert_eq!((name, family, weak), ("Component", Family::RcRefCell, false))
        }
        other => panic!("{other:?}"),
    }
    match field("weak").shape().elem {
        ElemShape::Pointer { family, weak, .. } => {
            assert_eq!((family, weak), (Family::RcRefCell, true))
        }
        other => panic!("{other:?}"),
    }
    assert!(field("cache").has_flag(SKIP_REFERENCE_SEARCH));
    assert_eq!(field("cache").flags(), SKIP_REFERENCE_SEARCH | 0x100);
    assert!(Zoo::rtti_static().field_by_name("transient").is_none());
}

#[test]
fn plain_fields_get_and_set_change_the_struct() {
    let mut zoo = Zoo::default();
    field("count").set(&mut zoo, 7u32).unwrap();
    field("name").set(&mut zoo, String::from("level")).unwrap();
    field("position").set(&mut zoo, Vec3 { x: 1.0, y: 2.0, z: 3.0 }).unwrap();
    field("mode").set(&mut zoo, Mode::On).unwrap();
    field("whole").set(&mut zoo, vec![9u64, 8]).unwrap();
    field("matrix").set(&mut zoo, [1.0f32, 0.0, 0.0, 1.0]).unwrap();
    assert_eq!(zoo.count, 7);
    assert_eq!(zoo.name, "level");
    assert_eq!(zoo.position, Vec3 { x: 1.0, y: 2.0, z: 3.0 });
    assert_eq!(zoo.mode, Mode::On);
    assert_eq!(zoo.whole, [9, 8]);
    assert_eq!(zoo.matrix, [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(field("count").get::<u32>(&zoo).unwrap(), 7);
    assert_eq!(field("name").get::<String>(&zoo).unwrap(), "level");

    // Arrays: Vec, [T; N], SmallVec.
    let samples = field("samples");
    samples.resize(&mut zoo, 3).unwrap();
    samples.set_elem(&mut zoo, 2, 42u16).unwrap();
    assert_eq!(zoo.samples, [0, 0, 42]);
    assert_eq!(samples.len(&zoo).unwrap(), 3);
    assert_eq!(samples.get_elem::<u16>(&zoo, 2).unwrap(), 42);
    assert_eq!(samples.get_elem::<u16>(&zoo, 3), Err(FieldError::OutOfRange { index: 3, len: 3 }));

    let fixed = field("fixed");
    fixed.set_elem(&mut zoo, 1, -5i32).unwrap();
    assert_eq!(zoo.fixed, [0, -5, 0]);
    assert_eq!(fixed.resize(&mut zoo, 4), Err(FieldError::FixedLength { expected: 3, got: 4 }));
    fixed.resize(&mut zoo, 3).unwrap();

    let small = field("small");
    small.resize(&mut zoo, 5).unwrap();
    small.set_elem(&mut zoo, 4, 200u8).unwrap();
    assert_eq!(zoo.small.as_slice(), [0, 0, 0, 0, 200]);

    // Wrong type and wrong owner are errors, not panics.
    assert!(matches!(field("count").set(&mut zoo, 7u64), Err(FieldError::WrongType { .. })));
    assert!(matches!(field("count").get::<String>(&zoo), Err(FieldError::WrongType { .. })));
    let mut light = Light::default();
    assert!(matches!(field("count").set(&mut light, 1u32), Err(FieldError::WrongOwner { .. })));
    assert!(matches!(field("count").with_pointee(&zoo, 0, |_| ()), Err(FieldError::WrongKind { .. })));
}

#[test]
fn reflectable_fields_borrow_and_set() {
    let mut zoo = Zoo::default();
    let light = field("light");
    light
        .with_embedded_mut(&mut zoo, 0, |value| {
            let value = value.unwrap();
            value.rtti().field_by_name("intensity").unwrap().set(value, 2.5f32).unwrap();
        })
        .unwrap();
    assert_eq!(zoo.light.intensity, 2.5);
    light.set(&mut zoo, Light { intensity: 4.0 }).unwrap();
    assert_eq!(zoo.light.intensity, 4.0);

    let maybe = field("maybe_light");
    assert!(maybe.with_embedded(&zoo, 0, |value| value.is_none()).unwrap());
    maybe.set(&mut zoo, Some(Light { intensity: 1.0 })).unwrap();
    assert_eq!(maybe.with_embedded(&zoo, 0, |value| value.unwrap().rtti().id()).unwrap(), 200_010);

    field("any").set(&mut zoo, Some(Box::new(Mesh::default()) as Box<dyn Reflectable>)).unwrap();
    assert_eq!(field("any").with_embedded(&zoo, 0, |v| v.unwrap().rtti().name().to_owned()).unwrap(), "Mesh");
    field("component").set(&mut zoo, Some(Box::new(Light { intensity: 3.0 }) as Box<dyn Component>)).unwrap();
    assert_eq!(zoo.component.as_ref().unwrap().describe(), "light 3");

    let lights = field("lights");
    lights.resize(&mut zoo, 2).unwrap();
    lights.set_elem(&mut zoo, 1, Light { intensity: 9.0 }).unwrap();
    assert_eq!(zoo.lights, [Light { intensity: 0.0 }, Light { intensity: 9.0 }]);
    let pair = field("light_pair");
    pair.with_embedded_mut(&mut zoo, 1, |value| {
        value.unwrap().downcast_mut::<Light>().unwrap().intensity = 6.0;
    })
    .unwrap();
    assert_eq!(zoo.light_pair[1].intensity, 6.0);
    let small = field("light_small");
    small.resize(&mut zoo, 3).unwrap();
    small.set_elem(&mut zoo, 2, Light { intensity: 1.5 }).unwrap();
    assert_eq!(zoo.light_small[2].intensity, 1.5);

    // A Vec<Box<dyn Component>> has no Default element: it cannot grow empty, but can be set.
    let boxed = field("boxed_components");
    assert_eq!(boxed.resize(&mut zoo, 1), Err(FieldError::NoDefault));
    zoo.boxed_components.push(Box::new(Light::default()));
    boxed.set_elem(&mut zoo, 0, Box::new(Mesh::default()) as Box<dyn Component>).unwrap();
    assert_eq!(boxed.with_embedded(&zoo, 0, |v| v.unwrap().rtti().id()).unwrap(), 200_011);
}

#[test]
fn pointer_fields_reach_pointees_in_every_family() {
    let shared = Rc::new(RefCell::new(Light { intensity: 1.0 }));
    let mut zoo = Zoo {
        rc: Some(Rc::new(Light { intensity: 2.0 })),
        rc_cell: Some(shared.clone()),
        arc: Some(Arc::new(Light { intensity: 3.0 })),
        arc_mutex: Some(Arc::new(Mutex::new(Light { intensity: 4.0 }))),
        arc_rwlock: Some(Arc::new(RwLock::new(Light { intensity: 5.0 }))),
        weak: Rc::downgrade(&shared),
        ..Zoo::default()
    };
    let intensity = |name: &str, zoo: &Zoo| {
        field(name).with_pointee(zoo, 0, |p| p.map(|p| p.downcast_ref::<Light>().unwrap().intensity)).unwrap()
    };
    assert_eq!(intensity("rc", &zoo), Some(2.0));
    assert_eq!(intensity("rc_cell", &zoo), Some(1.0));
    assert_eq!(intensity("arc", &zoo), Some(3.0));
    assert_eq!(intensity("arc_mutex", &zoo), Some(4.0));
    assert_eq!(intensity("arc_rwlock", &zoo), Some(5.0));
    assert_eq!(intensity("weak", &zoo), Some(1.0));
    assert_eq!(intensity("cache", &zoo), None);

    // Mutation through RefCell and locks changes the shared object.
    for name in ["rc_cell", "arc_mutex", "arc_rwlock", "weak"] {
        field(name)
            .with_pointee_mut(&zoo, 0, |p| p.unwrap().downcast_mut::<Light>().unwrap().intensity = 10.0)
            .unwrap();
    }
    assert_eq!(shared.borrow().intensity, 10.0);
    assert_eq!(zoo.arc_mutex.as_ref().unwrap().lock().unwrap().intensity, 10.0);
    assert_eq!(zoo.arc_rwlock.as_ref().unwrap().read().unwrap().intensity, 10.0);
    assert_eq!(field("rc").with_pointee_mut(&zoo, 0, |_| ()), Err(FieldError::NotMutable));
    {
        let _guard = shared.borrow_mut();
        assert_eq!(field("rc_cell").with_pointee(&zoo, 0, |_| ()), Err(FieldError::Borrowed));
    }

    // Cloning the handle keeps identity; setting a handle shares the allocation.
    let handle: Option<Rc<RefCell<Light>>> = field("rc_cell").get(&zoo).unwrap();
    assert!(Rc::ptr_eq(handle.as_ref().unwrap(), &shared));
    let other = Rc::new(RefCell::new(Light { intensity: 0.5 }));
    field("rc_cell").set(&mut zoo, Some(other.clone())).unwrap();
    assert!(Rc::ptr_eq(zoo.rc_cell.as_ref().unwrap(), &other));
    let erased = field("rc_cell").shared(&zoo, 0).unwrap().unwrap();
    assert_eq!(erased.addr(), Rc::as_ptr(&other) as *const () as usize);
    assert_eq!(erased.family(), Family::RcRefCell);

    // A dead weak pointer reads as null.
    drop((shared, handle));
    field("rc_cell").set(&mut zoo, None::<Rc<RefCell<Light>>>).unwrap();
    assert_eq!(intensity("weak", &zoo), None);

    // Arrays of pointers: [Option<Arc<dyn Component>>; 2] and SmallVec<[Rc<Light>; 2]>.
    let light: Arc<dyn Component> = Arc::new(Light { intensity: 8.0 });
    field("pair").set_elem(&mut zoo, 1, Some(light.clone())).unwrap();
    assert!(Arc::ptr_eq(zoo.pair[1].as_ref().unwrap(), &light));
    assert!(field("pair").with_pointee(&zoo, 0, |p| p.is_none()).unwrap());
    let small = field("small_ptrs");
    assert_eq!(small.resize(&mut zoo, 2), Ok(()));
    small.set_elem(&mut zoo, 0, Rc::new(Light { intensity: 7.0 })).unwrap();
    assert_eq!(zoo.small_ptrs[0].intensity, 7.0);
    assert_eq!(zoo.small_ptrs.len(), 2);
}

#[test]
fn trait_object_pointer_arrays_report_concrete_types() {
    let zoo = Zoo {
        components: vec![
            Rc::new(RefCell::new(Light { intensity: 1.0 })),
            Rc::new(RefCell::new(Mesh { vertices: vec![[0.0; 3]; 4] })),
            Rc::new(RefCell::new(Light { intensity: 2.0 })),
        ],
        ..Zoo::default()
    };
    let components = field("components");
    let mut seen = Vec::new();
    for index in 0..components.len(&zoo).unwrap() {
        components
            .with_pointee(&zoo, index, |object| {
                let object = object.unwrap();
                seen.push((object.rtti().name().to_owned(), object.rtti().id()));
            })
            .unwrap();
    }
    assert_eq!(seen, [("Light".to_owned(), 200_010), ("Mesh".to_owned(), 200_011), ("Light".to_owned(), 200_010)]);
    // Write through RTTI into the second element's own fields.
    components
        .with_pointee_mut(&zoo, 1, |object| {
            let object = object.unwrap();
            object.rtti().field_by_name("vertices").unwrap().resize(object, 1).unwrap();
        })
        .unwrap();
    assert_eq!(zoo.components[1].borrow().describe(), "mesh of 1");

    // A concrete handle converts to the trait-object handle through the registered cast.
    let concrete = Rc::new(RefCell::new(Mesh::default()));
    let erased = reflectable::field::SharedObject::new(concrete.clone());
    let as_component: Rc<RefCell<dyn Component>> = erased.cast().unwrap();
    assert_eq!(Rc::as_ptr(&as_component) as *const () as usize, Rc::as_ptr(&concrete) as *const () as usize);
    assert!(erased.cast::<Rc<RefCell<Light>>>().is_none());
}

// ---- creation by ID and name ----------------------------------------------------------------

#[test]
fn create_by_id_and_name() {
    for (id, name) in [
        (200_001, "Texture"),
        (200_002, "RenderTexture"),
        (200_010, "Light"),
        (200_011, "Mesh"),
        (200_020, "Zoo"),
        (200_030, "Pixels"),
    ] {
        let by_id = Registry::global().create(id).unwrap_or_else(|| panic!("create {id}"));
        assert_eq!((by_id.rtti().id(), by_id.rtti().name()), (id, name));
        let by_name = Registry::global().create_by_name(name).unwrap();
        assert_eq!(by_name.rtti().id(), id);
    }
    let texture = Registry::global().create(200_001).unwrap().downcast_box::<Texture>().unwrap();
    assert_eq!(*texture, Texture::default());
    assert!(Registry::global().create(200_002).unwrap().is::<RenderTexture>());

    // Abstract and unknown types give nothing.
    assert!(Resource::rtti_static().is_abstract());
    assert!(Registry::global().create(200_000).is_none());
    assert!(Registry::global().create_by_name("Resource").is_none());
    assert!(Registry::global().create(999_999).is_none());
    assert!(Registry::global().create_by_name("Nope").is_none());
}

// ---- the manual builder with a data transformation ----------------------------------------

/// Pixels kept expanded in memory, stored run-length encoded.
#[derive(Default, Debug, PartialEq)]
struct Pixels {
    width: u16,
    data: Vec<u8>,
    writes: u32,
}

fn rle(data: &[u8]) -> Vec<(u8, u16)> {
    let mut runs: Vec<(u8, u16)> = Vec::new();
    for &byte in data {
        match runs.last_mut() {
            Some((value, count)) if *value == byte && *count < u16::MAX => *count += 1,
            _ => runs.push((byte, 1)),
        }
    }
    runs
}

impl Reflectable for Pixels {
    fn rtti(&self) -> &'static RttiType {
        Self::rtti_static()
    }
    fn rtti_static() -> &'static RttiType {
        static RTTI: Lazy<RttiType> = Lazy::new(|| {
            RttiTypeBuilder::<Pixels>::new(200_030, "Pixels")
                .default_constructor()
                .plain(1, "width", |p| &p.width, |p| &mut p.width)
                .plain_computed(
                    2,
                    "data",
                    |p: &Pixels| rle(&p.data),
                    |p: &mut Pixels, runs: Vec<(u8, u16)>| {
                        p.writes += 1;
                        p.data = runs.iter().flat_map(|&(b, n)| std::iter::repeat_n(b, n as usize)).collect();
                    },
                )
                .build()
                .unwrap()
        });
        &RTTI
    }
}
reflectable::register_type!(Pixels);

#[test]
fn computed_field_reads_and_writes_through_its_functions() {
    let mut pixels = Pixels { width: 4, data: vec![1, 1, 1, 2, 2, 3], writes: 0 };
    let data = Pixels::rtti_static().field(2).unwrap();
    assert!(data.is_computed());
    assert_eq!(data.get::<Vec<(u8, u16)>>(&pixels).unwrap(), vec![(1, 3), (2, 2), (3, 1)]);
    data.set(&mut pixels, vec![(9u8, 2u16), (0u8, 1u16)]).unwrap();
    assert_eq!(pixels.data, [9, 9, 0]);
    assert_eq!(pixels.writes, 1);
}

// ---- registry errors -------------------------------------------------------------------------

/// Declared by hand and never submitted to the global registry, so it can clash on purpose.
macro_rules! unregistered {
    ($name:ident, $id:expr, $type_name:expr) => {
        #[derive(Default)]
        struct $name;
        impl Reflectable for $name {
            fn rtti(&self) -> &'static RttiType {
                Self::rtti_static()
            }
            fn rtti_static() -> &'static RttiType {
                static RTTI: Lazy<RttiType> =
                    Lazy::new(|| RttiTypeBuilder::<$name>::new($id, $type_name).default_constructor().build().unwrap());
                &RTTI
            }
        }
    };
}
unregistered!(ClashingId, 200_001, "NotTexture");
unregistered!(ClashingName, 300_001, "Texture");

// Registered only by hand (no inventory submission), so the global registry stays valid.
#[test]
fn hand_built_registry_reports_duplicates() {
    let mut registry = Registry::new();
    registry.register_type::<RenderTexture>().unwrap();
    assert_eq!(registry.len(), 3, "bases are registered along");
    registry.register_type::<Texture>().unwrap();

    let error = registry.register_type::<ClashingId>().unwrap_err();
    assert!(matches!(&error, RttiError::DuplicateTypeId { id: 200_001, first, second }
        if first.ends_with("Texture") && second.ends_with("ClashingId")));
    assert!(error.to_string().contains("type ID 200001 is used by both"));

    let error = registry.register_type::<ClashingName>().unwrap_err();
    assert_eq!(error, RttiError::DuplicateTypeName { name: "Texture".into(), first: 200_001, second: 300_001 });

    assert!(registry.create(200_002).unwrap().is::<RenderTexture>());
    assert!(registry.create_by_name("Resource").is_none());
    assert_eq!(registry.derived_types(200_000).len(), 1);
}

#[test]
fn duplicate_fields_are_build_errors() {
    let error = RttiTypeBuilder::<Light>::new(1, "Dup")
        .plain(1, "a", |l| &l.intensity, |l| &mut l.intensity)
        .plain(1, "b", |l| &l.intensity, |l| &mut l.intensity)
        .build()
        .unwrap_err();
    assert_eq!(
        error,
        RttiError::DuplicateFieldId { type_name: "Dup".into(), id: 1, first: "a".into(), second: "b".into() }
    );
    assert_eq!(error.to_string(), "type `Dup`: field ID 1 is used by both `a` and `b`");

    let error = RttiTypeBuilder::<Light>::new(1, "Dup")
        .plain(1, "a", |l| &l.intensity, |l| &mut l.intensity)
        .plain(2, "a", |l| &l.intensity, |l| &mut l.intensity)
        .build()
        .unwrap_err();
    assert_eq!(error, RttiError::DuplicateFieldName { type_name: "Dup".into(), name: "a".into(), first: 1, second: 2 });
}

/// A hand-written plain type that claims a static size above 255 must be refused.
#[derive(Clone)]
struct Huge([u8; 300]);
impl reflectable::plain::PlainType for Huge {
    const TYPE_ID: u32 = 1100;
    const STATIC_SIZE: Option<u32> = Some(300);
    fn size(&self) -> usize {
        300
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0);
    }
    fn read(reader: &mut reflectable::plain::Reader<'_>) -> Result<Self, reflectable::plain::PlainError> {
        Ok(Huge(reader.take_array()?))
    }
}

struct HasHuge {
    huge: Huge,
}

impl Reflectable for HasHuge {
    fn rtti(&self) -> &'static RttiType {
        Self::rtti_static()
    }
    fn rtti_static() -> &'static RttiType {
        unreachable!("HasHuge is only built in the test below")
    }
}

#[test]
fn oversized_static_plain_is_refused() {
    let error = RttiTypeBuilder::<HasHuge>::new(200_040, "HasHuge")
        .plain(1, "huge", |h| &h.huge, |h| &mut h.huge)
        .build()
        .unwrap_err();
    assert_eq!(error, RttiError::StaticSizeTooLarge { type_name: "HasHuge".into(), field: "huge".into(), size: 300 });
}

#[test]
fn shared_handles_downcast_to_their_concrete_type() {
    let light: Rc<dyn Reflectable> = Rc::new(Light { intensity: 2.0 });
    let light = light.downcast_rc::<Light>().unwrap();
    assert_eq!(light.intensity, 2.0);
    let mesh: Rc<dyn Reflectable> = Rc::new(Mesh::default());
    let mesh = mesh.downcast_rc::<Light>().unwrap_err();
    assert!(mesh.is::<Mesh>());

    let light: Arc<dyn Reflectable + Send + Sync> = Arc::new(Light { intensity: 3.0 });
    assert_eq!(light.downcast_arc::<Light>().unwrap().intensity, 3.0);
    let mesh: Arc<dyn Reflectable + Send + Sync> = Arc::new(Mesh::default());
    assert!(mesh.downcast_arc::<Light>().is_err());

    let boxed: Box<dyn Reflectable> = Box::new(Light::default());
    assert!(boxed.downcast_box::<Mesh>().unwrap_err().is::<Light>());
}

// ---- reserved type ID ------------------------------------------------------------------------

/// A hand-declared type claiming type ID 0, which streams use for an empty slot.
#[derive(Default)]
struct Nothing;

impl Reflectable for Nothing {
    fn rtti(&self) -> &'static RttiType {
        Self::rtti_static()
    }
    fn rtti_static() -> &'static RttiType {
        // Never built: the builder refuses the declaration (see the test below).
        unreachable!("Nothing has no descriptor")
    }
}

#[test]
fn type_id_zero_is_refused_where_types_are_declared() {
    let error = RttiTypeBuilder::<Nothing>::new(0, "Nothing").default_constructor().build().unwrap_err();
    assert_eq!(error, reflectable::rtti::RttiError::ReservedTypeId { type_name: "Nothing".into() });
    assert!(error.to_string().contains("reserved for the null type"), "{error}");
    assert!(Registry::global().create(0).is_none());
    // The derive refuses `#[rtti(id = 0)]` at compile time: tests/compile_fail/type_id_zero.rs.
}

// ---- hand-built registries -----------------------------------------------------------------

/// Trait casts and derived types live in each registry: a hand-built one answers for the types
/// registered in it, and decodes `dyn Trait` fields with its own casts.
#[test]
fn a_hand_built_registry_casts_and_derives_for_its_own_types() {
    let mut registry = Registry::new();
    registry.register_type::<RenderTexture>().unwrap();
    let derived: Vec<u32> = registry.derived_types(200_000).iter().map(|t| t.id()).collect();
    assert_eq!(derived, [200_001]);
    assert!(registry.cast_count() == 0, "no registered type implements a trait");

    registry.register_type::<Light>().unwrap();
    assert_eq!(registry.cast_count(), 6, "Light => Component for Box and each shared family");
    registry.register_type::<Zoo>().unwrap();

    let zoo = Zoo { component: Some(Box::new(Light { intensity: 2.0 })), ..Zoo::default() };
    let bytes = reflectable::to_vec(&zoo).unwrap();
    let serializer = reflectable::serializer::BinarySerializer::with_registry(&registry);
    let back = serializer.decode::<Zoo>(&bytes).unwrap();
    assert!(back.component.unwrap().is::<Light>(), "cast to `Box<dyn Component>` by this registry");
}
