//! Encodes and decodes one large level repeatedly, for profilers (`perf record`, callgrind).
//! Run with `cargo run --release --example profile_level [objects] [rounds] [encode|decode|both]`;
//! `encode` or `decode` repeats only that half (decode still encodes once).

#[path = "common/level.rs"]
mod level;

use reflectable::serializer::MemorySerializer;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let objects: usize = args.next().map_or(100_000, |arg| arg.parse().expect("object count"));
    let rounds: usize = args.next().map_or(3, |arg| arg.parse().expect("rounds"));
    let mode = args.next().unwrap_or_else(|| "both".into());
    let (encode_rounds, decode_rounds) = match mode.as_str() {
        "encode" => (rounds, 0),
        "decode" => (1, rounds),
        "both" => (rounds, rounds),
        other => panic!("mode is encode, decode or both, not {other}"),
    };
    let (level, _) = level::build_level(objects, 4);
    let serializer = MemorySerializer::new();
    let mut bytes = Vec::new();
    let started = Instant::now();
    for _ in 0..encode_rounds {
        bytes = serializer.encode(&level).expect("encode");
    }
    let encode = started.elapsed() / encode_rounds as u32;
    let started = Instant::now();
    let mut decode_only = std::time::Duration::ZERO;
    for _ in 0..decode_rounds {
        let round = Instant::now();
        let loaded: level::Level = serializer.decode_as(&bytes).expect("decode");
        decode_only += round.elapsed();
        level::break_cycles(&loaded);
    }
    let total = started.elapsed() / decode_rounds.max(1) as u32;
    println!(
        "{objects} objects, {} bytes: encode {encode:.2?} ({:.2?}/object), decode {:.2?} ({:.2?}/object), decode + teardown {total:.2?}",
        bytes.len(),
        encode / objects as u32,
        decode_only / decode_rounds.max(1) as u32,
        decode_only / (decode_rounds.max(1) * objects) as u32,
    );
    level::break_cycles(&level);
}
