//! Reflectable enums: unit, tuple and struct variants, through RTTI and through the format.

use reflectable::field::FieldError;
use reflectable::serializer::BinarySerializer;
use reflectable::{from_slice, to_vec, Reflectable, Registry, RttiTypeBuilder};
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 530_000)]
pub struct Mesh {
    #[rtti(id = 1)]
    pub path: String,
}

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 530_001)]
pub enum LightKind {
    #[default]
    #[rtti(id = 1)]
    Directional,
    #[rtti(id = 2)]
    Point {
        #[rtti(id = 1)]
        radius: f32,
    },
    #[rtti(id = 3, name = "SpotLight")]
    Spot {
        #[rtti(id = 1)]
        angle: f32,
        #[rtti(id = 2)]
        range: f32,
        #[rtti(skip)]
        cached: u32,
    },
    #[rtti(id = 4)]
    Area(#[rtti(id = 1)] [f32; 2], #[rtti(id = 2)] Vec<u8>),
    #[rtti(id = 5)]
    Emissive(#[rtti(id = 1)] Option<Rc<RefCell<Mesh>>>),
    #[rtti(id = 6)]
    Nested(#[rtti(id = 1, embedded)] Mesh, #[rtti(id = 2, embedded)] Vec<Mesh>),
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 530_002)]
pub struct Scene {
    #[rtti(id = 1, embedded)]
    pub sun: LightKind,
    #[rtti(id = 2, embedded)]
    pub lights: Vec<LightKind>,
    #[rtti(id = 3)]
    pub shared: Vec<Rc<RefCell<LightKind>>>,
    #[rtti(id = 4)]
    pub after: u32,
}

fn every_variant() -> Vec<LightKind> {
    let mesh = Rc::new(RefCell::new(Mesh { path: "bulb.mesh".into() }));
    vec![
        LightKind::Directional,
        LightKind::Point { radius: 2.5 },
        LightKind::Spot { angle: 0.5, range: 10.0, cached: 0 },
        LightKind::Area([1.0, 2.0], vec![1, 2, 3]),
        LightKind::Emissive(Some(mesh)),
        LightKind::Emissive(None),
        LightKind::Nested(Mesh { path: "a".into() }, vec![Mesh { path: "b".into() }, Mesh::default()]),
    ]
}

#[test]
fn variants_are_described() {
    let rtti = LightKind::rtti_static();
    assert!(rtti.is_enum());
    assert!(rtti.fields().is_empty());
    let names: Vec<_> = rtti.variants().iter().map(|variant| (variant.id(), variant.name().to_owned())).collect();
    assert_eq!(
        names,
        [
            (1, "Directional".to_owned()),
            (2, "Point".into()),
            (3, "SpotLight".into()),
            (4, "Area".into()),
            (5, "Emissive".into()),
            (6, "Nested".into())
        ]
    );
    let spot = rtti.variant(3).unwrap();
    let fields: Vec<_> = spot.fields().iter().map(|field| (field.id(), field.name())).collect();
    assert_eq!(fields, [(1, "angle"), (2, "range")]);
    let area = rtti.variant_by_name("Area").unwrap();
    assert_eq!(area.field(2).unwrap().name(), "1");
    assert!(!Mesh::rtti_static().is_enum());
}

#[test]
fn the_active_variant_is_known_and_its_fields_are_reachable() {
    let rtti = LightKind::rtti_static();
    let light = LightKind::Spot { angle: 0.25, range: 4.0, cached: 7 };
    assert_eq!(rtti.active_variant(&light).unwrap().name(), "SpotLight");
    let fields = rtti.fields_of(&light);
    assert_eq!(fields.len(), 2);
    assert_eq!(fields[1].get::<f32>(&light).unwrap(), 4.0);
    // A field of another variant answers that it is not active.
    let radius = rtti.variant(2).unwrap().field(1).unwrap();
    assert!(matches!(radius.get::<f32>(&light), Err(FieldError::InactiveVariant { field }) if field == "radius"));
}

#[test]
fn dynamic_access_switches_a_variant_and_sets_its_fields() {
    let rtti = LightKind::rtti_static();
    let mut light = LightKind::Point { radius: 9.0 };
    let spot = rtti.variant_by_name("SpotLight").unwrap();
    spot.activate(&mut light).unwrap();
    // Fields start from their defaults.
    assert_eq!(light, LightKind::Spot { angle: 0.0, range: 0.0, cached: 0 });
    spot.field_by_name("range").unwrap().set(&mut light, 12.5f32).unwrap();
    assert_eq!(light, LightKind::Spot { angle: 0.0, range: 12.5, cached: 0 });
    // Activating the variant it holds keeps its values.
    spot.activate(&mut light).unwrap();
    assert_eq!(light, LightKind::Spot { angle: 0.0, range: 12.5, cached: 0 });
    // A value of a given variant, created by RTTI.
    let area = rtti.variant(4).unwrap().create();
    assert_eq!(area.downcast_ref::<LightKind>(), Some(&LightKind::Area([0.0; 2], Vec::new())));
    // The wrong owner is an error, not a panic.
    let mut mesh = Mesh::default();
    assert!(matches!(spot.activate(&mut mesh), Err(FieldError::WrongOwner { .. })));
}

#[test]
fn every_variant_round_trips_as_a_root() {
    for light in every_variant() {
        let bytes = to_vec(&light).unwrap();
        let back: LightKind = from_slice(&bytes).unwrap();
        match (&light, &back) {
            (LightKind::Emissive(Some(a)), LightKind::Emissive(Some(b))) => assert_eq!(*a.borrow(), *b.borrow()),
            (LightKind::Spot { angle, range, .. }, LightKind::Spot { angle: a, range: r, cached }) => {
                assert_eq!((angle, range, *cached), (a, r, 0));
            }
            _ => assert_eq!(light, back),
        }
    }
}

#[test]
fn enums_round_trip_inside_a_struct_an_array_and_behind_rc_refcell() {
    let shared = Rc::new(RefCell::new(LightKind::Point { radius: 3.0 }));
    let scene = Scene {
        sun: LightKind::Spot { angle: 1.0, range: 2.0, cached: 0 },
        lights: every_variant(),
        shared: vec![shared.clone(), shared, Rc::new(RefCell::new(LightKind::Area([5.0, 6.0], vec![9])))],
        after: 77,
    };
    let bytes = to_vec(&scene).unwrap();
    let back: Scene = from_slice(&bytes).unwrap();
    assert_eq!(back.sun, scene.sun);
    assert_eq!(back.lights.len(), scene.lights.len());
    assert_eq!(back.lights[3], scene.lights[3]);
    assert_eq!(back.lights[6], scene.lights[6]);
    assert!(matches!(&back.lights[4], LightKind::Emissive(Some(mesh)) if mesh.borrow().path == "bulb.mesh"));
    assert!(Rc::ptr_eq(&back.shared[0], &back.shared[1]));
    assert_eq!(*back.shared[0].borrow(), LightKind::Point { radius: 3.0 });
    assert_eq!(*back.shared[2].borrow(), LightKind::Area([5.0, 6.0], vec![9]));
    assert_eq!(back.after, 77);

    // An enum as the shared root itself.
    let root = Rc::new(RefCell::new(LightKind::Point { radius: 1.5 }));
    let bytes = to_vec(&root).unwrap();
    let back: Rc<RefCell<LightKind>> = from_slice(&bytes).unwrap();
    assert_eq!(*back.borrow(), LightKind::Point { radius: 1.5 });
}

/// The same enum as a newer program knows it: one more variant, and `Point` has a new field.
mod newer {
    use reflectable::Reflectable;

    #[derive(Reflectable, Default, Debug, PartialEq)]
    #[rtti(id = 530_001, name = "LightKind", no_register)]
    pub enum LightKind {
        #[default]
        #[rtti(id = 1)]
        Directional,
        #[rtti(id = 2)]
        Point {
            #[rtti(id = 1)]
            radius: f32,
            #[rtti(id = 3)]
            falloff: f32,
        },
        #[rtti(id = 7)]
        Tube {
            #[rtti(id = 1)]
            length: f32,
        },
    }

    #[derive(Reflectable, Default, Debug)]
    #[rtti(id = 530_002, name = "Scene", no_register)]
    pub struct Scene {
        #[rtti(id = 1, embedded)]
        pub sun: LightKind,
        #[rtti(id = 2, embedded)]
        pub lights: Vec<LightKind>,
        #[rtti(id = 4)]
        pub after: u32,
    }
}

fn newer_registry() -> &'static Registry {
    let mut registry = Registry::new();
    registry.register_type::<newer::LightKind>().unwrap();
    registry.register_type::<newer::Scene>().unwrap();
    Box::leak(Box::new(registry))
}

#[test]
fn a_variant_this_build_does_not_know_loads_as_the_default_and_the_rest_loads() {
    let registry = newer_registry();
    let scene = newer::Scene {
        sun: newer::LightKind::Tube { length: 3.0 },
        lights: vec![
            newer::LightKind::Tube { length: 1.0 },
            newer::LightKind::Point { radius: 2.0, falloff: 0.5 },
            newer::LightKind::Directional,
        ],
        after: 99,
    };
    let bytes = BinarySerializer::with_registry(registry).encode(&scene).unwrap();
    let back: Scene = from_slice(&bytes).unwrap();
    assert_eq!(back.sun, LightKind::Directional);
    assert_eq!(back.lights, [LightKind::Directional, LightKind::Point { radius: 2.0 }, LightKind::Directional]);
    assert_eq!(back.after, 99);
}

/// Today's enum with a migration for the newer program's `Tube`: it becomes a `Point`, whose
/// field 1 (`radius`) takes the stored field 1 (`length`).
#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 530_001, name = "LightKind", no_register, extend = MigratedLight::migrations)]
enum MigratedLight {
    #[default]
    #[rtti(id = 1)]
    Directional,
    #[rtti(id = 2)]
    Point {
        #[rtti(id = 1)]
        radius: f32,
    },
}

impl MigratedLight {
    fn migrations(builder: RttiTypeBuilder<Self>) -> RttiTypeBuilder<Self> {
        builder.migrate_variant(7, |light| *light = MigratedLight::Point { radius: -1.0 })
    }
}

#[test]
fn a_variant_migration_chooses_the_variant_and_the_stored_fields_follow() {
    let bytes =
        BinarySerializer::with_registry(newer_registry()).encode(&newer::LightKind::Tube { length: 3.0 }).unwrap();
    let mut registry = Registry::new();
    registry.register_type::<MigratedLight>().unwrap();
    let back: MigratedLight = BinarySerializer::with_registry(&registry).decode(&bytes).unwrap();
    assert_eq!(back, MigratedLight::Point { radius: 3.0 });
}

#[test]
fn the_wire_form_is_a_variant_tag_then_the_variant_fields() {
    let bytes = to_vec(&LightKind::Point { radius: 2.0 }).unwrap();
    // The objects: between the stream header and the schema table, which ends with its length.
    let table_end = bytes.len() - 24;
    let table_len = u32::from_le_bytes(bytes[table_end - 4..table_end].try_into().unwrap()) as usize;
    let body = &bytes[8..table_end - table_len];
    let mut expected = Vec::new();
    expected.extend_from_slice(&(1u32 << 2 | 1).to_le_bytes()); // type header: instance 1, object bit
    expected.extend_from_slice(&530_001u32.to_le_bytes());
    expected.extend_from_slice(&0x0000_0400u32.to_le_bytes()); // field 0, plain, static size 4: the tag
    expected.extend_from_slice(&2u32.to_le_bytes()); // variant 2, Point
    expected.extend_from_slice(&0x0001_0400u32.to_le_bytes()); // field 1, plain, static size 4
    expected.extend_from_slice(&2.0f32.to_le_bytes());
    assert_eq!(body, expected);
}

/// Any value of any variant, in any position of an array of enums, comes back as it was.
#[test]
fn random_enum_arrays_round_trip() {
    fn light(choice: u8, a: f32, b: f32, bytes: Vec<u8>) -> LightKind {
        match choice % 5 {
            0 => LightKind::Directional,
            1 => LightKind::Point { radius: a },
            2 => LightKind::Spot { angle: a, range: b, cached: 0 },
            3 => LightKind::Area([a, b], bytes),
            _ => LightKind::Nested(Mesh { path: format!("{a}") }, vec![Mesh { path: format!("{b}") }]),
        }
    }
    fn property(values: Vec<(u8, f32, f32, Vec<u8>)>) -> quickcheck::TestResult {
        if values.iter().any(|(_, a, b, _)| a.is_nan() || b.is_nan()) {
            return quickcheck::TestResult::discard();
        }
        let lights: Vec<LightKind> = values.into_iter().map(|(c, a, b, bytes)| light(c, a, b, bytes)).collect();
        let scene =
            Scene { lights: lights.clone(), sun: lights.first().cloned().unwrap_or_default(), ..Scene::default() };
        let back: Scene = from_slice(&to_vec(&scene).unwrap()).unwrap();
        quickcheck::TestResult::from_bool(back.lights == lights && back.sun == scene.sun)
    }
    quickcheck::quickcheck(property as fn(Vec<(u8, f32, f32, Vec<u8>)>) -> quickcheck::TestResult);
}

/// A chain of `Rc` links, each in a variant a newer program wrote and this one migrates: the
/// decoder's pre-scan must foresee the migrated variant's pointers, or each link would cost a
/// level of call stack (a stack overflow at about a thousand links, found in review).
mod chain {
    use reflectable::{Reflectable, RttiTypeBuilder};
    use std::rc::Rc;

    /// The newer program's node: links are variant 3.
    #[derive(Reflectable, Default)]
    #[rtti(id = 530_100, name = "Node", no_register)]
    pub enum NewNode {
        #[default]
        #[rtti(id = 1)]
        End,
        #[rtti(id = 3)]
        Link(#[rtti(id = 1)] Option<Rc<NewNode>>),
    }

    /// This program's node: links are variant 2, and the newer variant 3 migrates to it.
    #[derive(Reflectable, Default, Debug)]
    #[rtti(id = 530_100, name = "Node", no_register, extend = Node::migrations)]
    pub enum Node {
        #[default]
        #[rtti(id = 1)]
        End,
        #[rtti(id = 2)]
        Link(#[rtti(id = 1)] Option<Rc<Node>>),
    }

    impl Node {
        fn migrations(builder: RttiTypeBuilder<Self>) -> RttiTypeBuilder<Self> {
            builder.migrate_variant(3, |node| *node = Node::Link(None))
        }
    }
}

#[test]
fn a_migrated_variant_s_pointers_are_built_without_recursion() {
    let mut newer = Registry::new();
    newer.register_type::<chain::NewNode>().unwrap();
    let mut head = Rc::new(chain::NewNode::End);
    for _ in 0..3_000 {
        head = Rc::new(chain::NewNode::Link(Some(head)));
    }
    let bytes = BinarySerializer::with_registry(&newer).encode(&head).unwrap();
    // Unlink the source chain iteratively: dropping it recursively is the very problem.
    while let Ok(chain::NewNode::Link(next)) = Rc::try_unwrap(head) {
        match next {
            Some(next) => head = next,
            None => break,
        }
    }
    let mut current = Registry::new();
    current.register_type::<chain::Node>().unwrap();
    let loaded: Rc<chain::Node> = BinarySerializer::with_registry(&current).decode(&bytes).unwrap();
    let mut length = 0;
    let mut node = loaded.clone();
    while let chain::Node::Link(Some(next)) = &*node {
        let next = next.clone();
        node = next;
        length += 1;
    }
    assert_eq!(length, 3_000);
    let mut head = loaded;
    drop(node);
    while let Ok(chain::Node::Link(Some(next))) = Rc::try_unwrap(head) {
        head = next;
    }
}

#[test]
fn field_migrations_on_an_enum_are_refused() {
    let error = RttiTypeBuilder::<MigratedLight>::new(530_050, "Odd")
        .variants(|_| 1)
        .variant(1, "Directional", || MigratedLight::Directional)
        .migrate_plain::<u32>(3, |_, _| {})
        .build()
        .unwrap_err();
    assert!(matches!(error, reflectable::rtti::RttiError::EnumWithFields { .. }), "{error}");
}
