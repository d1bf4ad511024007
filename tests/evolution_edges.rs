//! Typed evolution where the stored type hides one level down: map keys, the fields of an enum
//! variant a migration renamed, a stand-in handed to a migration, types reached only through
//! fields. Each of these once read a stored value as another type, or dropped it without a word.

use reflectable::schema::{ChangeKind, Schema};
use reflectable::serializer::{BinarySerializer, DecodeErrorKind, DecodeEvent, SkipReason};
use reflectable::{PlainType, Reflectable, Registry, RttiTypeBuilder};
use std::collections::BTreeMap;
use std::rc::Rc;

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 650_000)]
pub struct Cell {
    #[rtti(id = 1)]
    v: u32,
}

mod v1 {
    use super::Cell;
    use reflectable::Reflectable;
    use std::collections::BTreeMap;
    use std::rc::Rc;

    #[derive(Reflectable, Default)]
    #[rtti(id = 650_001, name = "Holder", no_register)]
    pub struct Holder {
        #[rtti(id = 1)]
        pub by_key: BTreeMap<u32, Rc<Cell>>,
    }

    #[derive(Reflectable, Default, Debug, PartialEq)]
    #[rtti(id = 650_002, name = "Shape", no_register)]
    pub enum Shape {
        #[default]
        #[rtti(id = 2)]
        Empty,
        #[rtti(id = 7)]
        Tube {
            #[rtti(id = 1)]
            length: f32,
            #[rtti(id = 2)]
            segments: u16,
        },
    }

    #[derive(reflectable::PlainType, Default, Clone, Copy, Debug, PartialEq)]
    #[plain(id = 1650)]
    pub enum Mood {
        #[default]
        Calm,
        Glad,
        Angry,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 650_003, name = "Person", no_register)]
    pub struct Person {
        #[rtti(id = 1)]
        pub mood: Mood,
    }
}

fn write_with<T: Reflectable>(value: &T, register: impl FnOnce(&mut Registry)) -> Vec<u8> {
    let mut registry = Registry::new();
    register(&mut registry);
    BinarySerializer::with_registry(&registry).encode(value).unwrap()
}

/// Keys retyped from `u32` to `i32`.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 650_001)]
struct Holder {
    #[rtti(id = 1)]
    by_key: BTreeMap<i32, Rc<Cell>>,
}

#[test]
fn a_map_whose_keys_changed_type_is_skipped_and_reported_not_reinterpreted() {
    let old = v1::Holder { by_key: BTreeMap::from([(4_000_000_000u32, Rc::new(Cell { v: 5 }))]) };
    let bytes = write_with(&old, |registry| registry.register_type::<v1::Holder>().unwrap());
    let (back, report) = BinarySerializer::new().decode_with_report::<Holder>(&bytes).unwrap();
    assert!(back.by_key.is_empty(), "no key read as another type: {:?}", back.by_key);
    let why = SkipReason::Retyped { from: "map with u32 keys".into(), to: "map with i32 keys".into() };
    let skipped =
        DecodeEvent::FieldSkipped { type_name: "Holder".into(), field_id: 1, field_name: Some("by_key".into()), why };
    assert_eq!(report.count(&skipped), 1, "{report}");
    let strict = BinarySerializer::new().strict(true).decode::<Holder>(&bytes);
    assert!(matches!(strict.unwrap_err().kind(), DecodeErrorKind::DataLoss { .. }));
    // The schema comparison sees it too.
    let stored = Schema::of_stream(&bytes).unwrap();
    let changes = Registry::global().changes_since(&stored);
    assert!(changes.iter().any(|change| change.loses_data() && change.to_string().contains("`by_key` retyped")));
}

/// Today's shape: `Tube` is gone, and its migration makes a `Dot` whose field 1 is a `u32`.
#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 650_002, extend = Shape::migrations)]
enum Shape {
    #[default]
    #[rtti(id = 2)]
    Empty,
    #[rtti(id = 1)]
    Dot {
        #[rtti(id = 1)]
        x: u32,
        #[rtti(id = 2)]
        segments: u32,
    },
}

impl Shape {
    fn migrations(builder: RttiTypeBuilder<Self>) -> RttiTypeBuilder<Self> {
        builder.migrate_variant(7, |shape| *shape = Shape::Dot { x: 0, segments: 0 })
    }
}

#[test]
fn the_fields_of_a_migrated_variant_follow_the_typed_rules() {
    let bytes = write_with(&v1::Shape::Tube { length: 3.0, segments: 12 }, |registry| {
        registry.register_type::<v1::Shape>().unwrap()
    });
    let (back, report) = BinarySerializer::new().decode_with_report::<Shape>(&bytes).unwrap();
    // `length: f32` is not read as `x: u32`; `segments` widens from `u16`.
    assert_eq!(back, Shape::Dot { x: 0, segments: 12 });
    let lines: Vec<String> = report.to_string().lines().map(str::to_owned).collect();
    assert_eq!(
        lines,
        [
            "unknown variant 7 of Shape: handled by its variant migration",
            "skipped field 1 `length` of Shape: stored as f32, now u32, with no conversion or migration",
            "converted Shape.segments from u16 to u32",
        ]
    );
}

#[derive(PlainType, Default, Clone, Copy, Debug, PartialEq)]
#[plain(id = 1650)]
enum Mood {
    #[default]
    Calm,
    Angry = 2,
}

/// The mood became a number, through a migration of the stored `Mood`.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 650_003, extend = Person::migrations)]
struct Person {
    #[rtti(id = 1)]
    mood_code: u32,
}

impl Person {
    fn migrations(builder: RttiTypeBuilder<Self>) -> RttiTypeBuilder<Self> {
        builder.migrate_plain::<Mood>(1, |person, mood| person.mood_code = mood as u32 + 100)
    }
}

#[test]
fn a_stand_in_handed_to_a_migration_is_reported() {
    let bytes =
        write_with(&v1::Person { mood: v1::Mood::Glad }, |registry| registry.register_type::<v1::Person>().unwrap());
    let (back, report) = BinarySerializer::new().decode_with_report::<Person>(&bytes).unwrap();
    assert_eq!(back.mood_code, 100, "the handler got the default variant");
    let replaced = DecodeEvent::ValueReplaced { type_name: "Person".into(), field_name: "stored field 1".into() };
    assert_eq!(report.count(&replaced), 1, "{report}");
    assert!(!report.is_lossless());
    let strict = BinarySerializer::new().strict(true).decode::<Person>(&bytes);
    assert!(matches!(strict.unwrap_err().kind(), DecodeErrorKind::DataLoss { .. }));
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 650_010)]
struct Wrap<T: Reflectable + Default> {
    #[rtti(id = 1, embedded)]
    inner: T,
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 650_011)]
struct Outer {
    #[rtti(id = 1, embedded)]
    wrapped: Wrap<Cell>,
}

#[test]
fn types_reached_only_through_fields_are_not_reported_removed() {
    // `Wrap<Cell>` is never registered: decoders find it through `Outer::wrapped`.
    let bytes = reflectable::to_vec(&Outer::default()).unwrap();
    let stored = Schema::of_stream(&bytes).unwrap();
    assert!(stored.types.iter().any(|schema| schema.name == "Wrap<Cell>"));
    let (_, report) = BinarySerializer::new().decode_with_report::<Outer>(&bytes).unwrap();
    assert!(report.is_empty(), "{report}");
    // Only the other types of this test binary, which the stream lacks, show up: as added.
    let changes = Registry::global().changes_since(&stored);
    assert!(changes.iter().all(|change| matches!(change.kind, ChangeKind::TypeAdded)), "{changes:?}");
}
