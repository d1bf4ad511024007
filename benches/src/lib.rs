//! Benchmark datasets (shapes from the public rust_serialization_benchmark, see
//! `../shared/BENCHMARKS.md`), generated from a fixed-seed RNG so every peer serializes exactly
//! the same values.
//!
//! One model type per dataset carries the derives of every peer that can use it (reflectable,
//! serde for postcard, bitcode); prost needs its own message types (`prost_model`), converted from
//! the model outside the timed code.

pub mod level_peers;
pub mod minecraft;
pub mod prost_model;

use reflectable::{PlainType, Reflectable};
use serde::{Deserialize, Serialize};

/// The example level model (scene graph with shared pointers and cycles), and its generator's
/// deterministic xorshift RNG, which every dataset here uses.
#[path = "../../examples/common/level.rs"]
#[allow(dead_code)]
pub mod level;

pub use level::Rng;

// ---- mesh ------------------------------------------------------------------------------------

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
    fory::ForyStruct,
    bytemuck::Pod,
    bytemuck::Zeroable,
)]
#[plain(id = 5000, pod)]
#[repr(C)]
pub struct Vector3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

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
    fory::ForyStruct,
    bytemuck::Pod,
    bytemuck::Zeroable,
)]
#[plain(id = 5001, pod)]
#[repr(C)]
pub struct Triangle {
    pub v0: Vector3,
    pub v1: Vector3,
    pub v2: Vector3,
    pub normal: Vector3,
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
#[rtti(id = 500_000, name = "MeshDataset")]
pub struct Mesh {
    #[rtti(id = 1)]
    pub triangles: Vec<Triangle>,
}

pub const MESH_TRIANGLES: usize = 125_000;

pub fn mesh(seed: u64) -> Mesh {
    let mut rng = Rng::new(seed);
    let mut v = || Vector3 { x: rng.unit(), y: rng.unit(), z: rng.unit() };
    Mesh { triangles: (0..MESH_TRIANGLES).map(|_| Triangle { v0: v(), v1: v(), v2: v(), normal: v() }).collect() }
}

// ---- log -------------------------------------------------------------------------------------

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
#[plain(id = 5010)]
pub struct Log {
    pub address: [u8; 4],
    pub identity: String,
    pub userid: String,
    pub date: String,
    pub request: String,
    pub code: u16,
    pub size: u64,
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
#[rtti(id = 500_010)]
pub struct Logs {
    #[rtti(id = 1)]
    pub logs: Vec<Log>,
}

pub const LOGS: usize = 10_000;

pub fn logs(seed: u64) -> Logs {
    const USERIDS: [&str; 9] = ["-", "alice", "bob", "carmen", "david", "eric", "frank", "george", "harry"];
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    const TIMEZONES: [&str; 4] = ["-0700", "-0500", "+0000", "+0900"];
    const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];
    const ROUTES: [&str; 7] = ["/", "/api/v1/users", "/login", "/logout", "/static/app.js", "/img/logo.png", "/search"];
    const PROTOCOLS: [&str; 3] = ["HTTP/1.0", "HTTP/1.1", "HTTP/2.0"];
    const CODES: [u16; 8] = [200, 204, 301, 304, 400, 403, 404, 500];
    let mut rng = Rng::new(seed);
    let logs = (0..LOGS)
        .map(|_| Log {
            address: (rng.next() as u32).to_le_bytes(),
            identity: "-".into(),
            userid: rng.pick(&USERIDS).into(),
            date: format!(
                "{}/{}/{} {:02}:{:02}:{:02} {}",
                1 + rng.below(28),
                rng.pick(&MONTHS),
                1970 + rng.below(60),
                rng.below(24),
                rng.below(60),
                rng.below(60),
                rng.pick(&TIMEZONES)
            ),
            request: format!("{} {} {}", rng.pick(&METHODS), rng.pick(&ROUTES), rng.pick(&PROTOCOLS)),
            code: CODES[rng.below(CODES.len())],
            size: rng.next() % 100_000_000,
        })
        .collect();
    Logs { logs }
}

/// A Fory instance (compatible mode, so fields are versioned like reflectable's) with every
/// dataset type registered.
pub fn fory() -> fory::Fory {
    use minecraft::*;
    let mut fory = fory::Fory::builder().xlang(false).compatible(true).build();
    fory.register::<Vector3>(1).unwrap();
    fory.register::<Triangle>(2).unwrap();
    fory.register::<Mesh>(3).unwrap();
    fory.register::<Log>(4).unwrap();
    fory.register::<Logs>(5).unwrap();
    fory.register::<GameType>(6).unwrap();
    fory.register::<Item>(7).unwrap();
    fory.register::<Abilities>(8).unwrap();
    fory.register::<Entity>(9).unwrap();
    fory.register::<RecipeBook>(10).unwrap();
    fory.register::<Player>(11).unwrap();
    fory.register::<Players>(12).unwrap();
    fory
}
