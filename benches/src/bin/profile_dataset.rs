//! Encodes or decodes one benchmark dataset repeatedly with reflectable or postcard, for
//! profilers (`perf record`, `valgrind --tool=callgrind`).
//! Run with `cargo run --release --manifest-path benches/Cargo.toml --bin profile_dataset --
//! <mesh|log|minecraft_savedata> <reflectable|postcard> <encode|decode> [rounds]`.

use reflectable::serializer::BinarySerializer;
use reflectable::Reflectable;
use reflectable_bench::minecraft::{players, Players};
use reflectable_bench::{logs, mesh, Logs, Mesh};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::hint::black_box;
use std::time::Instant;

fn run<T: Reflectable + Serialize + DeserializeOwned>(value: &T, peer: &str, op: &str, rounds: usize) {
    let serializer = BinarySerializer::new();
    let bytes = match peer {
        "reflectable" => serializer.encode(value).unwrap(),
        "postcard" => postcard::to_allocvec(value).unwrap(),
        other => panic!("peer is reflectable or postcard, not {other}"),
    };
    let started = Instant::now();
    for _ in 0..rounds {
        match (peer, op) {
            ("reflectable", "encode") => drop(black_box(serializer.encode(black_box(value)).unwrap())),
            ("reflectable", "decode") => drop(black_box(serializer.decode::<T>(black_box(&bytes)).unwrap())),
            ("postcard", "encode") => drop(black_box(postcard::to_allocvec(black_box(value)).unwrap())),
            ("postcard", "decode") => drop(black_box(postcard::from_bytes::<T>(black_box(&bytes)).unwrap())),
            (_, other) => panic!("operation is encode or decode, not {other}"),
        }
    }
    println!("{peer} {op}: {:.2?} per round, {} bytes", started.elapsed() / rounds as u32, bytes.len());
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dataset, peer, op] = [0, 1, 2].map(|i| args.get(i).map(String::as_str).unwrap_or("?"));
    let rounds = args.get(3).map_or(100, |n| n.parse().expect("rounds"));
    match dataset {
        "mesh" => run::<Mesh>(&mesh(1), peer, op, rounds),
        "log" => run::<Logs>(&logs(2), peer, op, rounds),
        "minecraft_savedata" => run::<Players>(&players(3), peer, op, rounds),
        other => panic!("dataset is mesh, log or minecraft_savedata, not {other}"),
    }
}
