//! The minecraft_savedata dataset: 500 players. Players are reflectable objects (versioned field
//! by field); the small records inside them are plain types, as Banshee would declare them.

use crate::Rng;
use reflectable::{PlainType, Reflectable};
use serde::{Deserialize, Serialize};

#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    PlainType,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    bevy_reflect::Reflect,
    fory::ForyEnum,
)]
#[plain(id = 5100)]
pub enum GameType {
    #[default]
    Survival,
    Creative,
    Adventure,
    Spectator,
}

#[derive(
    Clone,
    Debug,
    Default,
    PartialEq,
    PlainType,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    bevy_reflect::Reflect,
    fory::ForyStruct,
)]
#[plain(id = 5101)]
pub struct Item {
    pub count: i8,
    pub slot: u8,
    pub id: String,
}

#[derive(
    Clone,
    Debug,
    Default,
    PartialEq,
    PlainType,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    bevy_reflect::Reflect,
    fory::ForyStruct,
)]
#[plain(id = 5102)]
pub struct Abilities {
    pub walk_speed: f32,
    pub fly_speed: f32,
    pub may_fly: bool,
    pub flying: bool,
    pub invulnerable: bool,
    pub may_build: bool,
    pub instabuild: bool,
}

#[derive(
    Clone,
    Debug,
    Default,
    PartialEq,
    PlainType,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    bevy_reflect::Reflect,
    fory::ForyStruct,
)]
#[plain(id = 5103)]
pub struct Entity {
    pub id: String,
    pub pos: (f64, f64, f64),
    pub motion: (f64, f64, f64),
    pub rotation: (f32, f32),
    pub fall_distance: f32,
    pub fire: u16,
    pub air: u16,
    pub on_ground: bool,
    pub no_gravity: bool,
    pub invulnerable: bool,
    pub portal_cooldown: i32,
    pub uuid: [u32; 4],
    pub custom_name: Option<String>,
    pub glowing: bool,
    pub silent: bool,
    pub has_visual_fire: bool,
}

#[derive(
    Clone,
    Debug,
    Default,
    PartialEq,
    PlainType,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    bevy_reflect::Reflect,
    fory::ForyStruct,
)]
#[plain(id = 5104)]
pub struct RecipeBook {
    pub recipes: Vec<String>,
    pub to_be_displayed: Vec<String>,
    pub is_filtering_craftable: bool,
    pub is_gui_open: bool,
    pub is_furnace_filtering_craftable: bool,
    pub is_furnace_gui_open: bool,
    pub is_blasting_furnace_filtering_craftable: bool,
    pub is_blasting_furnace_gui_open: bool,
    pub is_smoker_filtering_craftable: bool,
    pub is_smoker_gui_open: bool,
}

#[derive(
    Clone,
    Debug,
    Default,
    PartialEq,
    Reflectable,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    bevy_reflect::Reflect,
    fory::ForyStruct,
)]
#[rtti(id = 500_100)]
pub struct Player {
    #[rtti(id = 1)]
    pub game_type: GameType,
    #[rtti(id = 2)]
    pub previous_game_type: GameType,
    #[rtti(id = 3)]
    pub score: i64,
    #[rtti(id = 4)]
    pub dimension: String,
    #[rtti(id = 5)]
    pub selected_item_slot: u32,
    #[rtti(id = 6)]
    pub selected_item: Item,
    #[rtti(id = 7)]
    pub spawn_dimension: Option<String>,
    #[rtti(id = 8)]
    pub spawn_x: i64,
    #[rtti(id = 9)]
    pub spawn_y: i64,
    #[rtti(id = 10)]
    pub spawn_z: i64,
    #[rtti(id = 11)]
    pub spawn_forced: Option<bool>,
    #[rtti(id = 12)]
    pub sleep_timer: u16,
    #[rtti(id = 13)]
    pub food_exhaustion_level: f32,
    #[rtti(id = 14)]
    pub food_saturation_level: f32,
    #[rtti(id = 15)]
    pub food_tick_timer: u32,
    #[rtti(id = 16)]
    pub xp_level: u32,
    #[rtti(id = 17)]
    pub xp_p: f32,
    #[rtti(id = 18)]
    pub xp_total: i32,
    #[rtti(id = 19)]
    pub xp_seed: i32,
    #[rtti(id = 20)]
    pub inventory: Vec<Item>,
    #[rtti(id = 21)]
    pub ender_items: Vec<Item>,
    #[rtti(id = 22)]
    pub abilities: Abilities,
    #[rtti(id = 23)]
    pub entered_nether_position: Option<(f64, f64, f64)>,
    #[rtti(id = 24)]
    pub root_vehicle: Option<([u32; 4], Entity)>,
    #[rtti(id = 25)]
    pub shoulder_entity_left: Option<Entity>,
    #[rtti(id = 26)]
    pub shoulder_entity_right: Option<Entity>,
    #[rtti(id = 27)]
    pub seen_credits: bool,
    #[rtti(id = 28)]
    pub recipe_book: RecipeBook,
}

#[derive(
    Clone,
    Debug,
    Default,
    PartialEq,
    Reflectable,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    bevy_reflect::Reflect,
    fory::ForyStruct,
)]
#[rtti(id = 500_101)]
pub struct Players {
    #[rtti(id = 1, embedded)]
    pub players: Vec<Player>,
}

pub const PLAYERS: usize = 500;

const ITEMS: [&str; 8] = ["dirt", "stone", "pickaxe", "sand", "gravel", "shovel", "chestplate", "steak"];
const ENTITIES: [&str; 8] = ["cow", "sheep", "zombie", "skeleton", "spider", "creeper", "parrot", "bee"];
const NAMES: [&str; 8] = ["Ada", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"];
const DIMENSIONS: [&str; 3] = ["overworld", "nether", "end"];
const RECIPES: [&str; 8] = ["pickaxe", "torch", "bow", "crafting_table", "furnace", "shears", "arrow", "tnt"];

fn game_type(rng: &mut Rng) -> GameType {
    [GameType::Survival, GameType::Creative, GameType::Adventure, GameType::Spectator][rng.below(4)]
}

fn item(rng: &mut Rng) -> Item {
    Item { count: rng.next() as i8, slot: rng.next() as u8, id: rng.pick(&ITEMS).into() }
}

fn entity(rng: &mut Rng) -> Entity {
    Entity {
        id: rng.pick(&ENTITIES).into(),
        pos: (rng.unit_f64(), rng.unit_f64(), rng.unit_f64()),
        motion: (rng.unit_f64(), rng.unit_f64(), rng.unit_f64()),
        rotation: (rng.unit(), rng.unit()),
        fall_distance: rng.unit(),
        fire: rng.next() as u16,
        air: rng.next() as u16,
        on_ground: rng.bool(),
        no_gravity: rng.bool(),
        invulnerable: rng.bool(),
        portal_cooldown: rng.next() as i32,
        uuid: [rng.next() as u32, rng.next() as u32, rng.next() as u32, rng.next() as u32],
        custom_name: rng.bool().then(|| rng.pick(&NAMES).into()),
        glowing: rng.bool(),
        silent: rng.bool(),
        has_visual_fire: rng.bool(),
    }
}

fn player(rng: &mut Rng) -> Player {
    Player {
        game_type: game_type(rng),
        previous_game_type: game_type(rng),
        score: rng.next() as i64,
        dimension: rng.pick(&DIMENSIONS).into(),
        selected_item_slot: rng.next() as u32,
        selected_item: item(rng),
        spawn_dimension: rng.bool().then(|| rng.pick(&DIMENSIONS).into()),
        spawn_x: rng.next() as i64,
        spawn_y: rng.next() as i64,
        spawn_z: rng.next() as i64,
        spawn_forced: rng.bool().then(|| rng.bool()),
        sleep_timer: rng.next() as u16,
        food_exhaustion_level: rng.unit(),
        food_saturation_level: rng.unit(),
        food_tick_timer: rng.next() as u32,
        xp_level: rng.next() as u32,
        xp_p: rng.unit(),
        xp_total: rng.next() as i32,
        xp_seed: rng.next() as i32,
        inventory: (0..rng.below(40)).map(|_| item(rng)).collect(),
        ender_items: (0..rng.below(27)).map(|_| item(rng)).collect(),
        abilities: Abilities {
            walk_speed: rng.unit(),
            fly_speed: rng.unit(),
            may_fly: rng.bool(),
            flying: rng.bool(),
            invulnerable: rng.bool(),
            may_build: rng.bool(),
            instabuild: rng.bool(),
        },
        entered_nether_position: rng.bool().then(|| (rng.unit_f64(), rng.unit_f64(), rng.unit_f64())),
        root_vehicle: rng
            .bool()
            .then(|| ([rng.next() as u32, rng.next() as u32, rng.next() as u32, rng.next() as u32], entity(rng))),
        shoulder_entity_left: rng.bool().then(|| entity(rng)),
        shoulder_entity_right: rng.bool().then(|| entity(rng)),
        seen_credits: rng.bool(),
        recipe_book: RecipeBook {
            recipes: (0..rng.below(30)).map(|_| rng.pick(&RECIPES).into()).collect(),
            to_be_displayed: (0..rng.below(10)).map(|_| rng.pick(&RECIPES).into()).collect(),
            is_filtering_craftable: rng.bool(),
            is_gui_open: rng.bool(),
            is_furnace_filtering_craftable: rng.bool(),
            is_furnace_gui_open: rng.bool(),
            is_blasting_furnace_filtering_craftable: rng.bool(),
            is_blasting_furnace_gui_open: rng.bool(),
            is_smoker_filtering_craftable: rng.bool(),
            is_smoker_gui_open: rng.bool(),
        },
    }
}

pub fn players(seed: u64) -> Players {
    let mut rng = Rng::new(seed);
    Players { players: (0..PLAYERS).map(|_| player(&mut rng)).collect() }
}
