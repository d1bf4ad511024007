//! Schema evolution with real old data: `tests/data/player_v1.bin` was written by the version-1
//! types in `mod v1` below and is loaded into today's (version-2) types.
//!
//! Regenerate the file (only if the v1 definitions themselves were wrong) with
//! `REFLECTABLE_WRITE_TEST_DATA=1 cargo test --test versioning`.

use reflectable::serializer::BinarySerializer;
use reflectable::{Reflectable, Registry, RttiTypeBuilder};
use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;

/// Version 1 of the game's save types, as they were when `player_v1.bin` was written. They are
/// kept out of the global registry (`no_register`): today's types own these IDs.
mod v1 {
    use reflectable::Reflectable;
    use std::cell::RefCell;
    use std::rc::{Rc, Weak};

    #[derive(Reflectable, Default)]
    #[rtti(id = 420_000, name = "Actor", no_register)]
    pub struct Actor {
        #[rtti(id = 1)]
        pub actor_id: u32,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 420_001, name = "Player", no_register)]
    pub struct Player {
        /// v2 no longer derives from Actor.
        #[rtti(base)]
        pub actor: Actor,
        #[rtti(id = 1)]
        pub name: String,
        /// v2 keeps a grid cell instead (field 10), migrated from this.
        #[rtti(id = 2)]
        pub position: [f32; 3],
        #[rtti(id = 3)]
        pub health: u32,
        /// Removed in v2.
        #[rtti(id = 4)]
        pub legacy_score: u64,
        #[rtti(id = 5)]
        pub inventory: Vec<Rc<RefCell<Item>>>,
        /// Holds an `OldBuff`, a type v2 dropped.
        #[rtti(id = 6)]
        pub buff: Option<Box<dyn Reflectable>>,
        #[rtti(id = 7, embedded)]
        pub stats: Stats,
        /// v2 makes this a `u32` without a migration.
        #[rtti(id = 8)]
        pub nickname: String,
        /// Points at a `Pet`, a type v2 dropped.
        #[rtti(id = 9)]
        pub pet: Option<Rc<RefCell<Pet>>>,
        /// Removed in v2: a dynamic plain array, a reflectable array, a pointer.
        #[rtti(id = 12)]
        pub tags: Vec<String>,
        #[rtti(id = 13, embedded)]
        pub history: Vec<Stats>,
        #[rtti(id = 14)]
        pub rival: Option<Rc<RefCell<Player>>>,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 420_002, name = "Item", no_register)]
    pub struct Item {
        #[rtti(id = 1)]
        pub name: String,
        #[rtti(id = 2)]
        pub count: u8,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 420_003, name = "Stats", no_register)]
    pub struct Stats {
        #[rtti(id = 1)]
        pub strength: u8,
        /// Removed in v2.
        #[rtti(id = 2)]
        pub agility: u8,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 420_004, name = "OldBuff", no_register)]
    pub struct OldBuff {
        #[rtti(id = 1)]
        pub potency: f32,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 420_005, name = "Pet", no_register)]
    pub struct Pet {
        #[rtti(id = 1)]
        pub name: String,
        #[rtti(id = 2)]
        pub owner: Weak<RefCell<Player>>,
    }

    /// The player saved in `player_v1.bin`.
    pub fn sample() -> Player {
        let sword = Rc::new(RefCell::new(Item { name: "sword".into(), count: 1 }));
        let potion = Rc::new(RefCell::new(Item { name: "potion".into(), count: 5 }));
        let rival = Rc::new(RefCell::new(Player { name: "Bob".into(), health: 40, ..Player::default() }));
        let pet = Rc::new(RefCell::new(Pet { name: "Rex".into(), owner: Rc::downgrade(&rival) }));
        Player {
            actor: Actor { actor_id: 77 },
            name: "Ada".into(),
            position: [10.7, 2.0, -3.2],
            health: 90,
            legacy_score: 123_456,
            inventory: vec![sword.clone(), potion, sword],
            buff: Some(Box::new(OldBuff { potency: 2.5 })),
            stats: Stats { strength: 12, agility: 9 },
            nickname: "ace".into(),
            pet: Some(pet),
            tags: vec!["brave".into(), "quick".into()],
            history: vec![Stats { strength: 10, agility: 8 }],
            rival: Some(rival),
        }
    }

    /// A registry of the v1 types, for reading newer files with the old program.
    pub fn registry() -> reflectable::Registry {
        let mut registry = reflectable::Registry::new();
        registry.register_type::<Player>().unwrap();
        registry.register_type::<Item>().unwrap();
        registry.register_type::<Stats>().unwrap();
        registry.register_type::<OldBuff>().unwrap();
        registry.register_type::<Pet>().unwrap();
        registry
    }
}

// ---- version 2: today's types ----------------------------------------------------------------

#[derive(Reflectable, Debug)]
#[rtti(id = 420_001, name = "Player", extend = Player::migrations)]
struct Player {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 3)]
    health: u32,
    #[rtti(id = 5)]
    inventory: Vec<Rc<RefCell<Item>>>,
    #[rtti(id = 6)]
    buff: Option<Box<dyn Reflectable>>,
    #[rtti(id = 7, embedded)]
    stats: Stats,
    /// Was a `String`.
    #[rtti(id = 8)]
    nickname: u32,
    /// Was `pet`, pointing at a type that no longer exists.
    #[rtti(id = 9)]
    companion: Option<Rc<RefCell<dyn Reflectable>>>,
    /// New: migrated from v1's `position` (field 2).
    #[rtti(id = 10)]
    grid: [i32; 2],
    /// New: keeps the constructor's default when loading v1 data.
    #[rtti(id = 11)]
    level: u16,
    /// New: the best strength of v1's `history` (field 13), migrated from its embedded objects.
    #[rtti(id = 15)]
    best_strength: u8,
}

impl Default for Player {
    fn default() -> Self {
        Player {
            name: String::new(),
            health: 100,
            inventory: Vec::new(),
            buff: None,
            stats: Stats::default(),
            nickname: 7,
            companion: None,
            grid: [0, 0],
            level: 1,
            best_strength: 0,
        }
    }
}

impl Player {
    fn migrations(builder: RttiTypeBuilder<Player>) -> RttiTypeBuilder<Player> {
        builder
            .migrate_plain::<[f32; 3]>(2, |player, [x, _, z]| player.grid = [x.floor() as i32, z.floor() as i32])
            // The stored objects decode as today's `Stats` (same type ID), their old fields skipped.
            .migrate_embedded_array(13, |player, history| {
                player.best_strength = history
                    .iter()
                    .flatten()
                    .filter_map(|stats| stats.downcast_ref::<Stats>())
                    .map(|stats| stats.strength)
                    .max()
                    .unwrap_or(0);
            })
    }
}

#[derive(Reflectable, Debug, PartialEq)]
#[rtti(id = 420_002, name = "Item")]
struct Item {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    count: u8,
    /// New in v2.
    #[rtti(id = 3)]
    weight: f32,
}

impl Default for Item {
    fn default() -> Self {
        Item { name: String::new(), count: 0, weight: 1.5 }
    }
}

#[derive(Reflectable, Debug, PartialEq)]
#[rtti(id = 420_003, name = "Stats")]
struct Stats {
    #[rtti(id = 1)]
    strength: u8,
    /// New in v2.
    #[rtti(id = 3)]
    luck: u8,
}

impl Default for Stats {
    fn default() -> Self {
        Stats { strength: 0, luck: 5 }
    }
}

fn data_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/player_v1.bin")
}

/// The committed file was written by format version 1 (no trailer) and stays as it was: old
/// data. Today's encoder writes the same objects, byte for byte, in a version 3 stream.
#[test]
fn the_committed_file_is_what_the_v1_types_write() {
    // Through the v1 program's registry, which has the `OldBuff` its `dyn` field holds.
    let registry = v1::registry();
    let written = BinarySerializer::with_registry(&registry).encode(&v1::sample()).unwrap();
    let committed = std::fs::read(data_file()).expect("tests/data/player_v1.bin is committed");
    assert_eq!(committed[4..8], 1u32.to_le_bytes(), "player_v1.bin is a format version 1 stream");
    assert_eq!(written[4..8], 3u32.to_le_bytes());
    let table = reflectable::schema::Schema::size_in_stream(&written).unwrap();
    let body = written.len() - reflectable::serializer::format::TRAILER_SIZE - table;
    assert_eq!(committed[8..], written[8..body], "player_v1.bin no longer matches the v1 definitions above");
}

#[test]
fn v1_data_loads_into_v2_types() {
    let bytes = std::fs::read(data_file()).unwrap();
    let player: Player = BinarySerializer::new().decode(&bytes).unwrap();

    // Fields both versions have.
    assert_eq!(player.name, "Ada");
    assert_eq!(player.health, 90);
    // Added fields keep the constructor's defaults, also inside embedded and pointed-to objects.
    assert_eq!(player.level, 1);
    assert_eq!(player.stats, Stats { strength: 12, luck: 5 });
    let names: Vec<(String, u8, f32)> = player
        .inventory
        .iter()
        .map(|item| (item.borrow().name.clone(), item.borrow().count, item.borrow().weight))
        .collect();
    assert_eq!(names, [("sword".into(), 1, 1.5), ("potion".into(), 5, 1.5), ("sword".into(), 1, 1.5)]);
    assert!(Rc::ptr_eq(&player.inventory[0], &player.inventory[2]), "sharing survives the schema change");
    // The retyped field is migrated by its handler, and so is a removed array of objects.
    assert_eq!(player.grid, [10, -4]);
    assert_eq!(player.best_strength, 10);
    // A retyped field without a handler is skipped: the default stays.
    assert_eq!(player.nickname, 7);
    // Objects of removed types decode as null.
    assert!(player.buff.is_none());
    assert!(player.companion.is_none());
}

#[test]
fn v2_data_loads_into_v1_types() {
    let item = Rc::new(RefCell::new(Item { name: "bow".into(), count: 2, weight: 3.0 }));
    let player = Player {
        name: "Cy".into(),
        inventory: vec![item.clone(), item],
        stats: Stats { strength: 4, luck: 9 },
        grid: [3, 4],
        level: 8,
        ..Player::default()
    };
    let bytes = BinarySerializer::new().encode(&player).unwrap();
    let registry = v1::registry();
    let old: v1::Player = BinarySerializer::with_registry(&registry).decode(&bytes).unwrap();
    assert_eq!(old.name, "Cy");
    assert_eq!(old.health, 100);
    assert_eq!((old.stats.strength, old.stats.agility), (4, 0));
    assert_eq!(old.position, [0.0; 3], "unknown new fields are skipped, missing old ones keep defaults");
    assert_eq!(old.nickname, "", "field 8 is a u32 in the data and a String here: skipped");
    assert!(Rc::ptr_eq(&old.inventory[0], &old.inventory[1]));
    assert_eq!(old.inventory[0].borrow().name, "bow");
}

#[test]
fn the_global_registry_does_not_know_the_v1_only_types() {
    assert!(Registry::global().get(420_000).is_none());
    assert!(Registry::global().get(420_004).is_none());
    assert_eq!(Registry::global().get(420_001).unwrap().rust_name(), std::any::type_name::<Player>());
}

#[test]
fn a_registry_mapping_the_root_id_to_another_rust_type_is_an_error_not_a_panic() {
    // The v1 registry builds ID 420_001 as v1::Player; asking it for today's Player must fail cleanly.
    let bytes = BinarySerializer::new().encode(&Player::default()).unwrap();
    let registry = v1::registry();
    let error = BinarySerializer::with_registry(&registry).decode::<Player>(&bytes).unwrap_err();
    assert!(matches!(error.kind(), reflectable::serializer::DecodeErrorKind::RootTypeMismatch { .. }), "{error}");
}

/// A by-value object in a single field is decoded into the owner's fresh value (FORMAT.md,
/// decoding rule 2): a field the stream lacks keeps what the owner's constructor put there. In an
/// array, each element starts from its own type's constructor.
mod in_place {
    use reflectable::Reflectable;

    /// The old shape of `Inner`: no `b` yet.
    #[derive(Reflectable, Default)]
    #[rtti(id = 420_101, name = "Inner", no_register)]
    pub struct OldInner {
        #[rtti(id = 1)]
        pub a: u32,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 420_100, name = "Owner", no_register)]
    pub struct OldOwner {
        #[rtti(id = 1, embedded)]
        pub inner: OldInner,
        #[rtti(id = 2, embedded)]
        pub many: Vec<OldInner>,
    }

    #[derive(Reflectable, Default, Debug, PartialEq)]
    #[rtti(id = 420_101, name = "Inner")]
    pub struct Inner {
        #[rtti(id = 1)]
        pub a: u32,
        #[rtti(id = 2)]
        pub b: u32,
    }

    #[derive(Reflectable, Debug, PartialEq)]
    #[rtti(id = 420_100, name = "Owner")]
    pub struct Owner {
        #[rtti(id = 1, embedded)]
        pub inner: Inner,
        #[rtti(id = 2, embedded)]
        pub many: Vec<Inner>,
    }

    impl Default for Owner {
        fn default() -> Self {
            Owner { inner: Inner { a: 0, b: 7 }, many: Vec::new() }
        }
    }
}

#[test]
fn a_by_value_field_missing_a_member_keeps_the_owners_default() {
    use in_place::*;
    let old = OldOwner { inner: OldInner { a: 5 }, many: vec![OldInner { a: 6 }] };
    let bytes = BinarySerializer::new().encode(&old).unwrap();
    let new: Owner = BinarySerializer::new().decode(&bytes).unwrap();
    assert_eq!(new, Owner { inner: Inner { a: 5, b: 7 }, many: vec![Inner { a: 6, b: 0 }] });
}
