//! prost message types for the datasets (declared with prost's derive, so no protoc is needed),
//! and conversions from the shared model. Conversions run outside the timed code.

use crate::minecraft::{Entity, GameType, Item, Player, Players};
use crate::{Log, Logs, Mesh, Vector3};

#[derive(Clone, PartialEq, prost::Message)]
pub struct PVector3 {
    #[prost(float, tag = "1")]
    pub x: f32,
    #[prost(float, tag = "2")]
    pub y: f32,
    #[prost(float, tag = "3")]
    pub z: f32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PTriangle {
    #[prost(message, optional, tag = "1")]
    pub v0: Option<PVector3>,
    #[prost(message, optional, tag = "2")]
    pub v1: Option<PVector3>,
    #[prost(message, optional, tag = "3")]
    pub v2: Option<PVector3>,
    #[prost(message, optional, tag = "4")]
    pub normal: Option<PVector3>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PMesh {
    #[prost(message, repeated, tag = "1")]
    pub triangles: Vec<PTriangle>,
}

fn v3(v: &Vector3) -> Option<PVector3> {
    Some(PVector3 { x: v.x, y: v.y, z: v.z })
}

impl From<&Mesh> for PMesh {
    fn from(mesh: &Mesh) -> Self {
        PMesh {
            triangles: mesh
                .triangles
                .iter()
                .map(|t| PTriangle { v0: v3(&t.v0), v1: v3(&t.v1), v2: v3(&t.v2), normal: v3(&t.normal) })
                .collect(),
        }
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PLog {
    #[prost(bytes = "vec", tag = "1")]
    pub address: Vec<u8>,
    #[prost(string, tag = "2")]
    pub identity: String,
    #[prost(string, tag = "3")]
    pub userid: String,
    #[prost(string, tag = "4")]
    pub date: String,
    #[prost(string, tag = "5")]
    pub request: String,
    #[prost(uint32, tag = "6")]
    pub code: u32,
    #[prost(uint64, tag = "7")]
    pub size: u64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PLogs {
    #[prost(message, repeated, tag = "1")]
    pub logs: Vec<PLog>,
}

impl From<&Logs> for PLogs {
    fn from(logs: &Logs) -> Self {
        PLogs {
            logs: logs
                .logs
                .iter()
                .map(|log: &Log| PLog {
                    address: log.address.to_vec(),
                    identity: log.identity.clone(),
                    userid: log.userid.clone(),
                    date: log.date.clone(),
                    request: log.request.clone(),
                    code: u32::from(log.code),
                    size: log.size,
                })
                .collect(),
        }
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PItem {
    #[prost(int32, tag = "1")]
    pub count: i32,
    #[prost(uint32, tag = "2")]
    pub slot: u32,
    #[prost(string, tag = "3")]
    pub id: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PVector3d {
    #[prost(double, tag = "1")]
    pub x: f64,
    #[prost(double, tag = "2")]
    pub y: f64,
    #[prost(double, tag = "3")]
    pub z: f64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PEntity {
    #[prost(string, tag = "1")]
    pub id: String,
    #[prost(message, optional, tag = "2")]
    pub pos: Option<PVector3d>,
    #[prost(message, optional, tag = "3")]
    pub motion: Option<PVector3d>,
    #[prost(float, tag = "4")]
    pub rotation_x: f32,
    #[prost(float, tag = "5")]
    pub rotation_y: f32,
    #[prost(float, tag = "6")]
    pub fall_distance: f32,
    #[prost(uint32, tag = "7")]
    pub fire: u32,
    #[prost(uint32, tag = "8")]
    pub air: u32,
    #[prost(bool, tag = "9")]
    pub on_ground: bool,
    #[prost(bool, tag = "10")]
    pub no_gravity: bool,
    #[prost(bool, tag = "11")]
    pub invulnerable: bool,
    #[prost(int32, tag = "12")]
    pub portal_cooldown: i32,
    #[prost(uint32, repeated, tag = "13")]
    pub uuid: Vec<u32>,
    #[prost(string, optional, tag = "14")]
    pub custom_name: Option<String>,
    #[prost(bool, tag = "15")]
    pub glowing: bool,
    #[prost(bool, tag = "16")]
    pub silent: bool,
    #[prost(bool, tag = "17")]
    pub has_visual_fire: bool,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PAbilities {
    #[prost(float, tag = "1")]
    pub walk_speed: f32,
    #[prost(float, tag = "2")]
    pub fly_speed: f32,
    #[prost(bool, tag = "3")]
    pub may_fly: bool,
    #[prost(bool, tag = "4")]
    pub flying: bool,
    #[prost(bool, tag = "5")]
    pub invulnerable: bool,
    #[prost(bool, tag = "6")]
    pub may_build: bool,
    #[prost(bool, tag = "7")]
    pub instabuild: bool,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PVehicle {
    #[prost(uint32, repeated, tag = "1")]
    pub param: Vec<u32>,
    #[prost(message, optional, tag = "2")]
    pub entity: Option<PEntity>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PRecipeBook {
    #[prost(string, repeated, tag = "1")]
    pub recipes: Vec<String>,
    #[prost(string, repeated, tag = "2")]
    pub to_be_displayed: Vec<String>,
    #[prost(bool, repeated, tag = "3")]
    pub flags: Vec<bool>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum PGameType {
    Survival = 0,
    Creative = 1,
    Adventure = 2,
    Spectator = 3,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PPlayer {
    #[prost(enumeration = "PGameType", tag = "1")]
    pub game_type: i32,
    #[prost(enumeration = "PGameType", tag = "2")]
    pub previous_game_type: i32,
    #[prost(int64, tag = "3")]
    pub score: i64,
    #[prost(string, tag = "4")]
    pub dimension: String,
    #[prost(uint32, tag = "5")]
    pub selected_item_slot: u32,
    #[prost(message, optional, tag = "6")]
    pub selected_item: Option<PItem>,
    #[prost(string, optional, tag = "7")]
    pub spawn_dimension: Option<String>,
    #[prost(int64, tag = "8")]
    pub spawn_x: i64,
    #[prost(int64, tag = "9")]
    pub spawn_y: i64,
    #[prost(int64, tag = "10")]
    pub spawn_z: i64,
    #[prost(bool, optional, tag = "11")]
    pub spawn_forced: Option<bool>,
    #[prost(uint32, tag = "12")]
    pub sleep_timer: u32,
    #[prost(float, tag = "13")]
    pub food_exhaustion_level: f32,
    #[prost(float, tag = "14")]
    pub food_saturation_level: f32,
    #[prost(uint32, tag = "15")]
    pub food_tick_timer: u32,
    #[prost(uint32, tag = "16")]
    pub xp_level: u32,
    #[prost(float, tag = "17")]
    pub xp_p: f32,
    #[prost(int32, tag = "18")]
    pub xp_total: i32,
    #[prost(int32, tag = "19")]
    pub xp_seed: i32,
    #[prost(message, repeated, tag = "20")]
    pub inventory: Vec<PItem>,
    #[prost(message, repeated, tag = "21")]
    pub ender_items: Vec<PItem>,
    #[prost(message, optional, tag = "22")]
    pub abilities: Option<PAbilities>,
    #[prost(message, optional, tag = "23")]
    pub entered_nether_position: Option<PVector3d>,
    #[prost(message, optional, tag = "24")]
    pub root_vehicle: Option<PVehicle>,
    #[prost(message, optional, tag = "25")]
    pub shoulder_entity_left: Option<PEntity>,
    #[prost(message, optional, tag = "26")]
    pub shoulder_entity_right: Option<PEntity>,
    #[prost(bool, tag = "27")]
    pub seen_credits: bool,
    #[prost(message, optional, tag = "28")]
    pub recipe_book: Option<PRecipeBook>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PPlayers {
    #[prost(message, repeated, tag = "1")]
    pub players: Vec<PPlayer>,
}

fn item(item: &Item) -> PItem {
    PItem { count: i32::from(item.count), slot: u32::from(item.slot), id: item.id.clone() }
}

fn v3d(v: &(f64, f64, f64)) -> PVector3d {
    PVector3d { x: v.0, y: v.1, z: v.2 }
}

fn entity(entity: &Entity) -> PEntity {
    PEntity {
        id: entity.id.clone(),
        pos: Some(v3d(&entity.pos)),
        motion: Some(v3d(&entity.motion)),
        rotation_x: entity.rotation.0,
        rotation_y: entity.rotation.1,
        fall_distance: entity.fall_distance,
        fire: u32::from(entity.fire),
        air: u32::from(entity.air),
        on_ground: entity.on_ground,
        no_gravity: entity.no_gravity,
        invulnerable: entity.invulnerable,
        portal_cooldown: entity.portal_cooldown,
        uuid: entity.uuid.to_vec(),
        custom_name: entity.custom_name.clone(),
        glowing: entity.glowing,
        silent: entity.silent,
        has_visual_fire: entity.has_visual_fire,
    }
}

fn game_type(game_type: GameType) -> i32 {
    game_type as i32
}

impl From<&Player> for PPlayer {
    fn from(p: &Player) -> Self {
        let book = &p.recipe_book;
        PPlayer {
            game_type: game_type(p.game_type),
            previous_game_type: game_type(p.previous_game_type),
            score: p.score,
            dimension: p.dimension.clone(),
            selected_item_slot: p.selected_item_slot,
            selected_item: Some(item(&p.selected_item)),
            spawn_dimension: p.spawn_dimension.clone(),
            spawn_x: p.spawn_x,
            spawn_y: p.spawn_y,
            spawn_z: p.spawn_z,
            spawn_forced: p.spawn_forced,
            sleep_timer: u32::from(p.sleep_timer),
            food_exhaustion_level: p.food_exhaustion_level,
            food_saturation_level: p.food_saturation_level,
            food_tick_timer: p.food_tick_timer,
            xp_level: p.xp_level,
            xp_p: p.xp_p,
            xp_total: p.xp_total,
            xp_seed: p.xp_seed,
            inventory: p.inventory.iter().map(item).collect(),
            ender_items: p.ender_items.iter().map(item).collect(),
            abilities: Some(PAbilities {
                walk_speed: p.abilities.walk_speed,
                fly_speed: p.abilities.fly_speed,
                may_fly: p.abilities.may_fly,
                flying: p.abilities.flying,
                invulnerable: p.abilities.invulnerable,
                may_build: p.abilities.may_build,
                instabuild: p.abilities.instabuild,
            }),
            entered_nether_position: p.entered_nether_position.as_ref().map(v3d),
            root_vehicle: p
                .root_vehicle
                .as_ref()
                .map(|(param, e)| PVehicle { param: param.to_vec(), entity: Some(entity(e)) }),
            shoulder_entity_left: p.shoulder_entity_left.as_ref().map(entity),
            shoulder_entity_right: p.shoulder_entity_right.as_ref().map(entity),
            seen_credits: p.seen_credits,
            recipe_book: Some(PRecipeBook {
                recipes: book.recipes.clone(),
                to_be_displayed: book.to_be_displayed.clone(),
                flags: vec![
                    book.is_filtering_craftable,
                    book.is_gui_open,
                    book.is_furnace_filtering_craftable,
                    book.is_furnace_gui_open,
                    book.is_blasting_furnace_filtering_craftable,
                    book.is_blasting_furnace_gui_open,
                    book.is_smoker_filtering_craftable,
                    book.is_smoker_gui_open,
                ],
            }),
        }
    }
}

impl From<&Players> for PPlayers {
    fn from(players: &Players) -> Self {
        PPlayers { players: players.players.iter().map(PPlayer::from).collect() }
    }
}

// ---- level graph, as a tree (prost cannot share messages) -------------------------------------

use crate::level_peers::{TComponent, THandle, TLevel, TMaterial, TMesh, TObject};

#[derive(Clone, PartialEq, prost::Message)]
pub struct PHandle {
    #[prost(uint64, tag = "1")]
    pub uuid: u64,
    #[prost(string, tag = "2")]
    pub path: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PTexture {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(uint32, tag = "2")]
    pub width: u32,
    #[prost(uint32, tag = "3")]
    pub height: u32,
    #[prost(message, optional, tag = "4")]
    pub source: Option<PHandle>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PMaterial {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(float, repeated, tag = "2")]
    pub color: Vec<f32>,
    #[prost(message, optional, tag = "3")]
    pub shader: Option<PHandle>,
    #[prost(message, repeated, tag = "4")]
    pub textures: Vec<PTexture>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PLevelMesh {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(uint32, tag = "2")]
    pub vertex_count: u32,
    #[prost(float, repeated, tag = "3")]
    pub bounds: Vec<f32>,
    #[prost(message, optional, tag = "4")]
    pub source: Option<PHandle>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PTransform {
    #[prost(float, repeated, tag = "1")]
    pub position: Vec<f32>,
    #[prost(float, repeated, tag = "2")]
    pub rotation: Vec<f32>,
    #[prost(float, repeated, tag = "3")]
    pub scale: Vec<f32>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PMeshRenderer {
    #[prost(message, optional, tag = "1")]
    pub mesh: Option<PLevelMesh>,
    #[prost(message, repeated, tag = "2")]
    pub materials: Vec<PMaterial>,
    #[prost(bool, tag = "3")]
    pub cast_shadows: bool,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PLight {
    #[prost(float, repeated, tag = "1")]
    pub color: Vec<f32>,
    #[prost(float, tag = "2")]
    pub intensity: f32,
    #[prost(message, optional, tag = "3")]
    pub cookie: Option<PHandle>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PAudioSource {
    #[prost(message, optional, tag = "1")]
    pub clip: Option<PHandle>,
    #[prost(float, tag = "2")]
    pub volume: f32,
    #[prost(message, optional, tag = "3")]
    pub editor_preview: Option<PHandle>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PCamera {
    #[prost(float, tag = "1")]
    pub fov: f32,
    #[prost(uint32, optional, tag = "2")]
    pub target: Option<u32>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub enum PComponentKind {
    #[prost(message, tag = "1")]
    MeshRenderer(PMeshRenderer),
    #[prost(message, tag = "2")]
    Light(PLight),
    #[prost(message, tag = "3")]
    AudioSource(PAudioSource),
    #[prost(message, tag = "4")]
    Camera(PCamera),
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PComponent {
    #[prost(oneof = "PComponentKind", tags = "1, 2, 3, 4")]
    pub kind: Option<PComponentKind>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PObject {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, optional, tag = "2")]
    pub transform: Option<PTransform>,
    #[prost(message, repeated, tag = "3")]
    pub components: Vec<PComponent>,
    #[prost(message, repeated, tag = "4")]
    pub children: Vec<PObject>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PLevel {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, optional, tag = "2")]
    pub skybox: Option<PHandle>,
    #[prost(message, optional, tag = "3")]
    pub root: Option<PObject>,
}

fn handle(h: &THandle) -> Option<PHandle> {
    Some(PHandle { uuid: h.uuid, path: h.path.clone() })
}

fn mesh(m: &TMesh) -> PLevelMesh {
    PLevelMesh {
        name: m.name.clone(),
        vertex_count: m.vertex_count,
        bounds: m.bounds.to_vec(),
        source: handle(&m.source),
    }
}

fn material(m: &TMaterial) -> PMaterial {
    PMaterial {
        name: m.name.clone(),
        color: m.color.to_vec(),
        shader: handle(&m.shader),
        textures: m
            .textures
            .iter()
            .map(|t| PTexture { name: t.name.clone(), width: t.width, height: t.height, source: handle(&t.source) })
            .collect(),
    }
}

fn object(o: &TObject) -> PObject {
    PObject {
        name: o.name.clone(),
        transform: Some(PTransform {
            position: o.transform.position.to_vec(),
            rotation: o.transform.rotation.to_vec(),
            scale: o.transform.scale.to_vec(),
        }),
        components: o
            .components
            .iter()
            .map(|c| PComponent {
                kind: Some(match c {
                    TComponent::MeshRenderer { mesh: m, materials, cast_shadows } => {
                        PComponentKind::MeshRenderer(PMeshRenderer {
                            mesh: m.as_ref().map(mesh),
                            materials: materials.iter().map(material).collect(),
                            cast_shadows: *cast_shadows,
                        })
                    }
                    TComponent::Light { color, intensity, cookie } => PComponentKind::Light(PLight {
                        color: color.to_vec(),
                        intensity: *intensity,
                        cookie: cookie.as_ref().and_then(handle),
                    }),
                    TComponent::AudioSource { clip, volume, editor_preview } => {
                        PComponentKind::AudioSource(PAudioSource {
                            clip: handle(clip),
                            volume: *volume,
                            editor_preview: editor_preview.as_ref().and_then(handle),
                        })
                    }
                    TComponent::Camera { fov, target } => {
                        PComponentKind::Camera(PCamera { fov: *fov, target: *target })
                    }
                }),
            })
            .collect(),
        children: o.children.iter().map(object).collect(),
    }
}

impl From<&TLevel> for PLevel {
    fn from(level: &TLevel) -> Self {
        PLevel { name: level.name.clone(), skybox: handle(&level.skybox), root: level.root.as_ref().map(object) }
    }
}
