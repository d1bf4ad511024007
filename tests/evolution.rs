//! Typed evolution with committed old data: `tests/data/ship_v1.bin` was written (format version
//! 3, with its schema table) by the types in `mod v1` below and is read into today's types,
//! which changed every field in one of the ways FORMAT.md's "Typed evolution" lists. Each value
//! comes back converted, migrated or at its default, and the report names exactly what was
//! skipped, converted, migrated or replaced.
//!
//! Regenerate the file (only if the v1 definitions themselves were wrong) with
//! `REFLECTABLE_WRITE_TEST_DATA=1 cargo test --test evolution`.

use reflectable::schema::{Change, ChangeKind, Schema, TypeSchema};
use reflectable::serializer::{BinarySerializer, DecodeErrorKind};
use reflectable::{PlainType, Reflectable, Registry, RttiTypeBuilder};
use std::path::PathBuf;

/// The types as they were when `ship_v1.bin` was written: out of the global registry, since
/// today's types own these IDs.
mod v1 {
    use reflectable::{PlainType, Reflectable};

    #[derive(PlainType, Default, Clone, Copy, Debug, PartialEq)]
    #[plain(id = 1620)]
    pub enum HullClass {
        #[default]
        Corvette,
        /// Gone today.
        Frigate,
        Cruiser,
    }

    #[derive(Reflectable, Default, Debug, PartialEq)]
    #[rtti(id = 620_002, name = "Stance", no_register)]
    pub enum Stance {
        #[default]
        #[rtti(id = 1)]
        Hold,
        /// Gone today.
        #[rtti(id = 2)]
        Ram {
            #[rtti(id = 1)]
            force: f32,
        },
        #[rtti(id = 3)]
        Flee,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 620_001, name = "Ship", no_register)]
    pub struct Ship {
        #[rtti(id = 1)]
        pub speed: u32,
        #[rtti(id = 2)]
        pub armor: u32,
        #[rtti(id = 3)]
        pub hull: u16,
        #[rtti(id = 4)]
        pub grid: [i32; 2],
        #[rtti(id = 5)]
        pub crew: u8,
        #[rtti(id = 6)]
        pub callsign: String,
        #[rtti(id = 7)]
        pub tag: u32,
        #[rtti(id = 8)]
        pub class: HullClass,
        #[rtti(id = 9, embedded)]
        pub stance: Stance,
        #[rtti(id = 10)]
        pub cargo: Vec<u8>,
        #[rtti(id = 11)]
        pub retired: bool,
        #[rtti(id = 12)]
        pub bearing: Option<i16>,
    }

    pub fn sample() -> Ship {
        Ship {
            speed: 7,
            armor: 40,
            hull: 65_000,
            grid: [-3, 4],
            crew: 12,
            callsign: "Kestrel".into(),
            tag: 99,
            class: HullClass::Frigate,
            stance: Stance::Ram { force: 2.5 },
            cargo: vec![1, 200, 255],
            retired: true,
            bearing: Some(-90),
        }
    }

    /// Today's encoder, writing with these types.
    pub fn encode() -> Vec<u8> {
        let mut registry = reflectable::Registry::new();
        registry.register_type::<Ship>().unwrap();
        registry.register_type::<Stance>().unwrap();
        reflectable::serializer::BinarySerializer::with_registry(&registry).encode(&sample()).unwrap()
    }
}

#[derive(PlainType, Default, Clone, Copy, Debug, PartialEq)]
#[plain(id = 1620)]
enum HullClass {
    #[default]
    Corvette,
    Cruiser = 2,
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 620_002)]
enum Stance {
    #[default]
    #[rtti(id = 1)]
    Hold,
    #[rtti(id = 3)]
    Flee,
}

/// Today's ship: every field of v1 changed.
#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 620_001, extend = Ship::migrations)]
struct Ship {
    /// `u32` to `f32` without a handler: not exact, so skipped and reported.
    #[rtti(id = 1)]
    speed: f32,
    /// `u32` to `f32` with a handler for the stored `u32`: migrated.
    #[rtti(id = 2)]
    armor: f32,
    /// `u16` to `u64`: widened.
    #[rtti(id = 3)]
    hull: u64,
    /// `[i32; 2]` to `[i64; 2]`: widened element by element.
    #[rtti(id = 4)]
    grid: [i64; 2],
    /// `u8` to `Option<u8>`.
    #[rtti(id = 5)]
    crew: Option<u8>,
    /// `String` to `Option<String>`.
    #[rtti(id = 6)]
    callsign: Option<String>,
    /// A single `u32` to an array of `u64`: an array of one, widened.
    #[rtti(id = 7)]
    tags: Vec<u64>,
    /// The stored `Frigate` is gone: the `#[default]` variant.
    #[rtti(id = 8)]
    class: HullClass,
    /// The stored `Ram` is gone: the enum's default, its field skipped.
    #[rtti(id = 9, embedded)]
    stance: Stance,
    /// `Vec<u8>` to `Vec<u32>`: widened element by element.
    #[rtti(id = 10)]
    cargo: Vec<u32>,
    // Field 11 (`retired`) is gone: skipped.
    /// `Option<i16>` to `Option<f32>`: exact, widened inside the option.
    #[rtti(id = 12)]
    bearing: Option<f32>,
}

impl Ship {
    fn migrations(builder: RttiTypeBuilder<Self>) -> RttiTypeBuilder<Self> {
        builder.migrate_plain::<u32>(2, |ship, armor| ship.armor = armor as f32 / 10.0)
    }
}

fn data_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/ship_v1.bin")
}

fn committed() -> Vec<u8> {
    if std::env::var_os("REFLECTABLE_WRITE_TEST_DATA").is_some() {
        std::fs::write(data_file(), v1::encode()).unwrap();
    }
    std::fs::read(data_file()).expect("tests/data/ship_v1.bin is committed")
}

#[test]
fn the_committed_file_is_what_the_v1_types_write() {
    assert_eq!(committed(), v1::encode(), "ship_v1.bin no longer matches the v1 definitions above");
}

/// The committed file, and the same file in compact form: old data evolves the same from both.
fn committed_both_ways() -> [Vec<u8>; 2] {
    let normal = committed();
    let compact = reflectable::serializer::compact::to_compact(&normal).unwrap();
    assert!(compact.len() < normal.len());
    [normal, compact]
}

#[test]
fn old_data_loads_converted_migrated_or_reported() {
    for bytes in committed_both_ways() {
        old_data_loads_from(&bytes);
    }
}

fn old_data_loads_from(bytes: &[u8]) {
    let (ship, report) = BinarySerializer::new().decode_with_report::<Ship>(bytes).unwrap();
    assert_eq!(
        ship,
        Ship {
            speed: 0.0,
            armor: 4.0,
            hull: 65_000,
            grid: [-3, 4],
            crew: Some(12),
            callsign: Some("Kestrel".into()),
            tags: vec![99],
            class: HullClass::Corvette,
            stance: Stance::Hold,
            cargo: vec![1, 200, 255],
            bearing: Some(-90.0),
        }
    );
    let lines: Vec<String> = report.to_string().lines().map(str::to_owned).collect();
    assert_eq!(
        lines,
        [
            "skipped field 1 `speed` of Ship: stored as u32, now f32, with no conversion or migration",
            "migrated stored field 2 `armor` of Ship (stored as u32)",
            "converted Ship.hull from u16 to u64",
            "converted Ship.grid from [i32; 2] to [i64; 2]",
            "converted Ship.crew from u8 to Option<u8>",
            "converted Ship.callsign from String to Option<String>",
            "converted Ship.tags from u32 to [u64]",
            "replaced an unknown value in Ship.class by its type's default",
            "unknown variant 2 of Stance: replaced by the default",
            "skipped field 1 `force` of Stance: its variant is not one this program has",
            "converted Ship.cargo from [u8] to [u32]",
            "skipped field 11 `retired` of Ship: the type has no such field",
            "converted Ship.bearing from Option<i16> to Option<f32>",
        ]
    );
    assert!(!report.is_lossless());
}

#[test]
fn strict_decoding_refuses_the_first_loss() {
    let strict = BinarySerializer::new().strict(true);
    for bytes in committed_both_ways() {
        let error = strict.decode::<Ship>(&bytes).unwrap_err();
        assert_eq!(
            error.kind(),
            &DecodeErrorKind::DataLoss {
                what: "skipped field 1 `speed` of Ship: stored as u32, now f32, with no conversion or migration".into()
            }
        );
        assert!(error.offset().is_some_and(|offset| offset < bytes.len()));
    }
    // Conversions and migrations alone are no loss: the same data without its lossy parts loads.
    let mut registry = Registry::new();
    registry.register_type::<v1::Ship>().unwrap();
    let same = strict.decode::<Ship>(&BinarySerializer::with_registry(&registry).encode(&lossless()).unwrap());
    assert!(same.is_ok(), "{same:?}");
}

/// Ships whose every change converts: no retyped speed, no removed variant or field.
fn lossless() -> LosslessV1 {
    LosslessV1 { hull: 3, grid: [1, 2] }
}

#[derive(Reflectable, Default)]
#[rtti(id = 620_001, name = "Ship", no_register)]
struct LosslessV1 {
    #[rtti(id = 3)]
    hull: u16,
    #[rtti(id = 4)]
    grid: [i32; 2],
}

#[test]
fn the_stored_schema_says_what_changed() {
    let stored = Schema::of_stream(&committed()).unwrap();
    let now = Schema::new(vec![TypeSchema::of(Ship::rtti_static()), TypeSchema::of(Stance::rtti_static())]);
    // The schemas alone: retyping `armor` loses data.
    let changes = stored.compare(&now);
    let losses = |changes: &[Change]| -> Vec<String> {
        changes.iter().filter(|change| change.loses_data()).map(ToString::to_string).collect()
    };
    assert!(losses(&changes).iter().any(|loss| loss.contains("`armor`")));
    // The registry knows its migration for the stored `u32`.
    let changes = Registry::global().changes_since(&stored);
    assert_eq!(
        losses(&changes),
        [
            "Ship (id 620001): field 1 `speed` retyped from u32 to f32: old values are lost unless a migration takes them",
            "Ship (id 620001): field 11 `retired` removed: old values are lost unless a migration takes them",
            "Stance (id 620002): variant 2 `Ram` removed: old objects holding it get the default or the variant migration's choice",
        ]
    );
    assert!(changes.iter().any(|change| matches!(
        &change.kind,
        ChangeKind::FieldRetyped { field, converts: true, .. } if field.1 == "hull"
    )));
    // The migrated retype says where its values go, not that they are lost.
    let armor = changes.iter().find(|change| change.to_string().contains("`armor`")).unwrap().to_string();
    assert!(armor.ends_with(": a registered migration takes the old values"), "{armor}");
    // A schema compared with itself has no changes.
    assert!(now.compare(&now).is_empty());
}

#[test]
fn a_migration_on_a_live_field_runs_only_for_its_stored_type() {
    // Today's `armor` is an `f32`: stored as `f32` it is read as it is, the `u32` handler stays out.
    let ship = Ship { armor: 7.5, ..Ship::default() };
    let (back, report) =
        BinarySerializer::new().decode_with_report::<Ship>(&reflectable::to_vec(&ship).unwrap()).unwrap();
    assert_eq!(back.armor, 7.5);
    assert!(report.is_empty(), "{report}");
}

#[test]
fn a_saved_schema_loads_back_and_reports_no_change() {
    // What a CI check keeps from a release: the registry's schema, saved like any object.
    let saved = reflectable::to_vec(&Registry::global().schema()).unwrap();
    let loaded: Schema = reflectable::from_slice(&saved).unwrap();
    assert_eq!(loaded, Registry::global().schema());
    assert!(Registry::global().changes_since(&loaded).is_empty());
    // The printed form names every field with its type.
    let printed = loaded.get(620_001).unwrap().to_string();
    assert!(printed.contains("    3  hull: u64"), "{printed}");
}
