//! Peak memory of saving a large level through the streaming file encoder.
//!
//! Builds a level (default 3,800,000 scene objects, a file of about 1.08 GB), then resets the
//! process's peak-RSS mark (`/proc/self/clear_refs`, Linux) and saves the level with
//! `BinarySerializer::save`. What the save adds is the new peak minus the resident size before it.
//! Run with `cargo run --release --manifest-path benches/Cargo.toml --bin stream_rss [objects]`.

use reflectable::serializer::BinarySerializer;
use reflectable_bench::level;
use std::time::Instant;

/// A field of `/proc/self/status` in bytes (`VmRSS`, `VmHWM`).
fn status_bytes(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status (Linux only)");
    let line = status.lines().find(|line| line.starts_with(field)).unwrap_or_else(|| panic!("no {field}"));
    let kib: u64 = line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("a size in kB");
    kib * 1024
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn main() {
    let objects: usize = std::env::args().nth(1).map_or(3_800_000, |arg| arg.parse().expect("object count"));
    let started = Instant::now();
    let (level, stats) = level::build_level(objects, 4);
    println!("built {objects} scene objects ({} shared objects) in {:.1?}", stats.shared_objects, started.elapsed());
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/stream_rss.bin");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();

    // Writing "5" resets the peak-RSS mark (VmHWM) to the current RSS.
    std::fs::write("/proc/self/clear_refs", "5").expect("resetting the peak RSS mark");
    let before = status_bytes("VmRSS:");
    let started = Instant::now();
    let size = BinarySerializer::new().save(&level, &path).expect("save");
    let elapsed = started.elapsed();
    let peak = status_bytes("VmHWM:");
    println!(
        "saved {size} bytes ({:.2} GB) in {elapsed:.1?}: RSS before {:.1} MiB, peak during the save {:.1} MiB, \
         added {:.1} MiB",
        size as f64 / 1e9,
        mib(before),
        mib(peak),
        mib(peak.saturating_sub(before)),
    );
    std::fs::remove_file(&path).unwrap();
    level::break_cycles(&level);
}
