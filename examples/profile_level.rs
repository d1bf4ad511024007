//! Encodes and decodes one large level repeatedly, for profilers (`perf record`, callgrind).
//! Run with `cargo run --release --example profile_level [objects] [rounds] [encode|decode|both|dynamic|compare] [version]`
//! (the format version written, 3 or 5: `BinarySerializer::format_version`);
//! `encode` or `decode` repeats only that half (decode still encodes once), `dynamic` decodes into
//! a `DynamicGraph` instead of Rust types, and `compare` times both decodes, the JSON twin (what
//! `reflectable json` makes) and the kept-data path (the level's types absent, every object a
//! `RuntimeObject`) in turn, and measures the memory each decoded graph holds. `clone` repeats a
//! deep clone through RTTI, `diff` a diff against a copy with 1% of its scene objects renamed.
//! `transcode` repeats turning the encoded level compact and back (`serializer::compact`).

#[path = "common/level.rs"]
mod level;

use reflectable::dynamic::DynamicGraph;
use reflectable::serializer::BinarySerializer;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Counts the bytes allocated and not yet freed, so `compare` can tell what a decoded graph holds.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; only a counter is updated.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller upholds `alloc`'s contract, which `System.alloc` shares.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` above with this `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    let mut args = std::env::args().skip(1);
    let objects: usize = args.next().map_or(100_000, |arg| arg.parse().expect("object count"));
    let rounds: usize = args.next().map_or(3, |arg| arg.parse().expect("rounds"));
    let mode = args.next().unwrap_or_else(|| "both".into());
    let version: u32 = args.next().map_or(3, |arg| arg.parse().expect("format version"));
    let (encode_rounds, decode_rounds) = match mode.as_str() {
        "encode" => (rounds, 0),
        "decode" => (1, rounds),
        "both" => (rounds, rounds),
        "dynamic" | "compare" | "transcode" => (1, rounds),
        "clone" | "diff" => (0, 0),
        other => panic!("mode is encode, decode, both, dynamic, compare, transcode, clone or diff, not {other}"),
    };
    let (level, _) = level::build_level(objects, 4);
    if mode == "clone" || mode == "diff" {
        clone_or_diff(&level, rounds, mode == "diff");
        level::break_cycles(&level);
        return;
    }
    let serializer = BinarySerializer::new().format_version(version);
    let mut bytes = Vec::new();
    let started = Instant::now();
    for _ in 0..encode_rounds {
        bytes = serializer.encode(&level).expect("encode");
    }
    let encode = started.elapsed() / encode_rounds as u32;
    if mode == "dynamic" {
        for _ in 0..decode_rounds {
            drop(DynamicGraph::from_bytes(&bytes).expect("decode"));
        }
        level::break_cycles(&level);
        return;
    }
    if mode == "transcode" {
        let (mut to_compact, mut to_normal) = (Duration::ZERO, Duration::ZERO);
        for _ in 0..decode_rounds {
            let started = Instant::now();
            let compact = reflectable::serializer::compact::to_compact(&bytes).expect("compact");
            to_compact += started.elapsed();
            let started = Instant::now();
            assert_eq!(reflectable::serializer::compact::to_normal(&compact).expect("normal"), bytes);
            to_normal += started.elapsed();
        }
        let rounds = decode_rounds.max(1) as u32;
        println!("{} bytes: to compact {:.2?}, to normal {:.2?}", bytes.len(), to_compact / rounds, to_normal / rounds);
        level::break_cycles(&level);
        return;
    }
    if mode == "compare" {
        compare(&reflectable::serializer::BinarySerializer::new(), &bytes, decode_rounds);
        level::break_cycles(&level);
        return;
    }
    let started = Instant::now();
    let mut decode_only = std::time::Duration::ZERO;
    for _ in 0..decode_rounds {
        let round = Instant::now();
        let loaded: level::Level = serializer.decode(&bytes).expect("decode");
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

/// Typed and dynamic decodes of the same bytes, in turn: the median time of each, and the bytes
/// each decoded graph holds. Also the kept-data path: the same bytes decoded without the level's
/// types, every object kept as a `RuntimeObject` of a type defined from the schema table.
fn compare(serializer: &BinarySerializer<'_>, bytes: &[u8], rounds: usize) {
    let (mut typed, mut dynamic, mut json, mut kept) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let no_types = reflectable::Registry::new();
    let keeping = BinarySerializer::with_registry(&no_types).keep_unknown_types(true);
    let (mut typed_bytes, mut dynamic_bytes) = (0, 0);
    for _ in 0..rounds.max(1) {
        let before = LIVE.load(Ordering::Relaxed);
        let started = Instant::now();
        let loaded: level::Level = serializer.decode(bytes).expect("decode");
        typed.push(started.elapsed());
        typed_bytes = LIVE.load(Ordering::Relaxed) - before;
        level::break_cycles(&loaded);
        drop(loaded);
        let before = LIVE.load(Ordering::Relaxed);
        let started = Instant::now();
        let graph = DynamicGraph::from_bytes(bytes).expect("decode");
        dynamic.push(started.elapsed());
        dynamic_bytes = LIVE.load(Ordering::Relaxed) - before;
        drop(graph);
        // What `reflectable json` does: read the file without its types, write its JSON twin.
        let started = Instant::now();
        let graph = DynamicGraph::from_bytes(bytes).expect("decode");
        graph.write_json(std::io::sink()).expect("a JSON form");
        json.push(started.elapsed());
        let started = Instant::now();
        let objects: Box<dyn reflectable::Reflectable> = keeping.decode(bytes).expect("decode kept");
        kept.push(started.elapsed());
        reflectable::rtti::break_cycles(&*objects);
    }
    let median = |times: &mut Vec<Duration>| {
        times.sort();
        times[times.len() / 2]
    };
    let (typed, dynamic, json, kept) = (median(&mut typed), median(&mut dynamic), median(&mut json), median(&mut kept));
    println!(
        "{} bytes: typed decode {typed:.2?}, dynamic {dynamic:.2?} ({:.2}x), to JSON {json:.2?} ({:.2}x), kept as runtime objects {kept:.2?} ({:.2}x); memory held: typed {} KiB, dynamic {} KiB ({:.2}x)",
        bytes.len(),
        dynamic.as_secs_f64() / typed.as_secs_f64(),
        json.as_secs_f64() / typed.as_secs_f64(),
        kept.as_secs_f64() / typed.as_secs_f64(),
        typed_bytes / 1024,
        dynamic_bytes / 1024,
        dynamic_bytes as f64 / typed_bytes as f64,
    );
}

/// Deep clones of the level, or diffs of it against a copy with every hundredth scene object
/// renamed: the time of each round.
fn clone_or_diff(level: &level::Level, rounds: usize, diff: bool) {
    let edited = reflectable::clone::deep_clone(level).expect("clone");
    level::scene_objects(&edited).iter().step_by(100).for_each(|object| object.borrow_mut().name.push('!'));
    // Each round also times one encode of the level, the yardstick of issue 15's diff target,
    // so that the ratio comes from one process on one machine state.
    let serializer = BinarySerializer::new();
    let (mut fastest_diff, mut fastest_encode) = (Duration::MAX, Duration::MAX);
    for _ in 0..rounds {
        let started = Instant::now();
        if diff {
            let patch = reflectable::diff::diff(level, &edited).expect("diff");
            let took = started.elapsed();
            let started = Instant::now();
            std::hint::black_box(serializer.encode(level).expect("encode"));
            (fastest_diff, fastest_encode) = (fastest_diff.min(took), fastest_encode.min(started.elapsed()));
            println!("diff {took:.2?}: {} objects changed", patch.objects_changed());
        } else {
            let copy = reflectable::clone::deep_clone(level).expect("clone");
            println!("clone {:.2?}", started.elapsed());
            level::break_cycles(&copy);
        }
    }
    if diff {
        let ratio = fastest_diff.as_secs_f64() / fastest_encode.as_secs_f64();
        println!("fastest diff {fastest_diff:.2?}, fastest encode {fastest_encode:.2?}: {ratio:.2}x one encode");
    }
    level::break_cycles(&edited);
}
