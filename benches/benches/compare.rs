//! Encode and decode time, and encoded size, for reflectable and its peers on every dataset, in
//! one run. Run with `cargo bench --manifest-path benches/Cargo.toml`, then
//! `python3 benches/report.py` to turn the results into `benches/RESULTS.md`.

use criterion::{BenchmarkGroup, Criterion, Throughput};
use prost::Message;
use reflectable::dynamic::DynamicGraph;
use reflectable::plain::{PlainType, Reader};
use reflectable::serializer::{BinarySerializer, Encoding};
use reflectable::Reflectable;
use reflectable_bench::level_peers::{self, FLevel, FlatLevel, TLevel};
use reflectable_bench::minecraft::{players, Players};
use reflectable_bench::prost_model::{PLevel, PLogs, PMesh, PPlayers};
use reflectable_bench::{level, logs, mesh, Logs, Mesh};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::hint::black_box;
use std::sync::Mutex;
use std::time::Duration;

/// (dataset, peer, encoded bytes), written to `target/bench-sizes.json` for the report.
static SIZES: Mutex<Vec<(String, String, usize)>> = Mutex::new(Vec::new());

fn record(dataset: &str, peer: &str, bytes: usize) {
    SIZES.lock().unwrap().push((dataset.into(), peer.into(), bytes));
}

type Group<'a> = BenchmarkGroup<'a, criterion::measurement::WallTime>;

/// Times one decode. On the level graph the decoded value is dropped outside the timed region
/// (tearing down a million-object graph is not decoding); elsewhere it is dropped inside, as
/// memcpy's copy is, so the allocator reuses the previous round's memory for every peer alike
/// (keeping many 6 MB results alive makes each decode pay fresh page faults instead).
fn decode_timed<O>(b: &mut criterion::Bencher<'_>, dataset: &str, decode: impl FnMut() -> O) {
    if dataset.starts_with("level_") {
        b.iter_with_large_drop(decode)
    } else {
        b.iter(decode)
    }
}

fn reflectable<T: Reflectable + PartialEq + std::fmt::Debug>(group: &mut Group<'_>, dataset: &str, value: &T) {
    let serializer = BinarySerializer::new();
    let bytes = serializer.encode(value).unwrap();
    assert_eq!(&serializer.decode::<T>(&bytes).unwrap(), value, "reflectable round trip");
    record(dataset, "reflectable", bytes.len());
    group.bench_function("reflectable/encode", |b| b.iter(|| serializer.encode(black_box(value)).unwrap()));
    group.bench_function("reflectable/decode", |b| {
        decode_timed(b, dataset, || serializer.decode::<T>(black_box(&bytes)).unwrap())
    });
}

/// The compact encoding (`Encoding::Compact`) of the same value: its size, and the time to encode
/// and decode it (the normal encoding and transcoding both ways, as the crate does).
/// `keep` wraps the decoded value for its drop (a level's cycles are broken by `Teardown`).
fn compact_stream<T: Reflectable, W>(
    group: &mut Group<'_>,
    dataset: &str,
    value: &T,
    serializer: BinarySerializer<'_>,
    keep: fn(T) -> W,
) {
    let serializer = serializer.encoding(Encoding::Compact);
    let bytes = serializer.encode(value).unwrap();
    record(dataset, "reflectable_compact", bytes.len());
    group.bench_function("reflectable_compact/encode", |b| b.iter(|| serializer.encode(black_box(value)).unwrap()));
    group.bench_function("reflectable_compact/decode", |b| {
        decode_timed(b, dataset, || keep(serializer.decode::<T>(black_box(&bytes)).unwrap()))
    });
}

fn postcard<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(
    group: &mut Group<'_>,
    dataset: &str,
    value: &T,
) {
    let bytes = postcard::to_allocvec(value).unwrap();
    assert_eq!(&postcard::from_bytes::<T>(&bytes).unwrap(), value, "postcard round trip");
    record(dataset, "postcard", bytes.len());
    group.bench_function("postcard/encode", |b| b.iter(|| postcard::to_allocvec(black_box(value)).unwrap()));
    group.bench_function("postcard/decode", |b| {
        decode_timed(b, dataset, || postcard::from_bytes::<T>(black_box(&bytes)).unwrap())
    });
}

fn bitcode<T: bitcode::Encode + for<'a> bitcode::Decode<'a> + PartialEq + std::fmt::Debug>(
    group: &mut Group<'_>,
    dataset: &str,
    value: &T,
) {
    let bytes = bitcode::encode(value);
    assert_eq!(&bitcode::decode::<T>(&bytes).unwrap(), value, "bitcode round trip");
    record(dataset, "bitcode", bytes.len());
    let mut buffer = bitcode::Buffer::new();
    group.bench_function("bitcode/encode", |b| b.iter(|| buffer.encode(black_box(value)).len()));
    group.bench_function("bitcode/decode", |b| {
        decode_timed(b, dataset, || bitcode::decode::<T>(black_box(&bytes)).unwrap())
    });
}

fn prost<P: Message + Default + PartialEq>(group: &mut Group<'_>, dataset: &str, value: &P) {
    let bytes = value.encode_to_vec();
    assert!(&P::decode(bytes.as_slice()).unwrap() == value, "prost round trip");
    record(dataset, "prost", bytes.len());
    group.bench_function("prost/encode", |b| b.iter(|| black_box(value).encode_to_vec()));
    group.bench_function("prost/decode", |b| {
        decode_timed(b, dataset, || P::decode(black_box(bytes.as_slice())).unwrap())
    });
}

/// bevy_reflect's reflection serializer (the reflection peer) over postcard: typed serializer and
/// deserializer, then `FromReflect` to the concrete type, as bevy scenes do.
fn bevy<T>(group: &mut Group<'_>, dataset: &str, value: &T)
where
    T: bevy_reflect::Reflect
        + bevy_reflect::FromReflect
        + bevy_reflect::GetTypeRegistration
        + PartialEq
        + std::fmt::Debug,
{
    use bevy_reflect::serde::{TypedReflectDeserializer, TypedReflectSerializer};
    use serde::de::DeserializeSeed;
    let mut registry = bevy_reflect::TypeRegistry::default();
    registry.register::<T>();
    let registration = registry.get(std::any::TypeId::of::<T>()).expect("registered");
    let encode =
        |value: &T| postcard::to_allocvec(&TypedReflectSerializer::new(value.as_partial_reflect(), &registry)).unwrap();
    let decode = |bytes: &[u8]| {
        let reflected = TypedReflectDeserializer::new(registration, &registry)
            .deserialize(&mut postcard::Deserializer::from_bytes(bytes))
            .unwrap();
        T::from_reflect(reflected.as_ref()).unwrap()
    };
    let bytes = encode(value);
    assert_eq!(&decode(&bytes), value, "bevy_reflect round trip");
    record(dataset, "bevy_reflect", bytes.len());
    group.bench_function("bevy_reflect/encode", |b| b.iter(|| encode(black_box(value))));
    group.bench_function("bevy_reflect/decode", |b| decode_timed(b, dataset, || decode(black_box(&bytes))));
}

/// Apache Fory in compatible mode (the closest peer: field-level schema evolution).
fn fory<T: fory::Serializer<Target = T> + PartialEq + std::fmt::Debug>(
    group: &mut Group<'_>,
    dataset: &str,
    value: &T,
) {
    let fory = reflectable_bench::fory();
    let bytes = fory.serialize(value).unwrap();
    assert_eq!(&fory.deserialize::<T>(&bytes).unwrap(), value, "fory round trip");
    record(dataset, "fory", bytes.len());
    group.bench_function("fory/encode", |b| b.iter(|| fory.serialize(black_box(value)).unwrap()));
    group.bench_function("fory/decode", |b| {
        decode_timed(b, dataset, || fory.deserialize::<T>(black_box(&bytes)).unwrap())
    });
}

/// Copying as many bytes as reflectable writes: the physical limit.
/// Reflectable's compact plain elements (`PlainType::write_compact`), for a dataset that is one
/// plain array: no stream, no schema table, the form for messages between builds that share
/// their types (compare postcard).
fn compact_elements<T: PlainType + PartialEq + std::fmt::Debug>(group: &mut Group<'_>, dataset: &str, values: &Vec<T>) {
    let mut bytes = Vec::new();
    values.write_compact(&mut bytes);
    assert_eq!(&Vec::<T>::read_compact(&mut Reader::new(&bytes)).unwrap(), values, "compact round trip");
    record(dataset, "reflectable_elements", bytes.len());
    group.bench_function("reflectable_elements/encode", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            black_box(values).write_compact(&mut out);
            out
        })
    });
    group.bench_function("reflectable_elements/decode", |b| {
        decode_timed(b, dataset, || Vec::<T>::read_compact(&mut Reader::new(black_box(&bytes))).unwrap())
    });
}

fn memcpy(group: &mut Group<'_>, dataset: &str, bytes: usize) {
    let source = vec![0x5au8; bytes];
    record(dataset, "memcpy", bytes);
    group.bench_function("memcpy/copy", |b| b.iter(|| black_box(&source).clone()));
}

fn configure<'a>(c: &'a mut Criterion, name: &str, bytes: usize) -> Group<'a> {
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    group
}

/// Every peer on one dataset: `value` for the model-based peers, `message` for prost; `more`
/// adds the dataset's own measurements to the group.
fn dataset<T, P>(c: &mut Criterion, name: &str, value: &T, message: &P, more: impl FnOnce(&mut Group<'_>))
where
    T: Reflectable
        + Serialize
        + DeserializeOwned
        + bitcode::Encode
        + for<'a> bitcode::Decode<'a>
        + bevy_reflect::Reflect
        + bevy_reflect::FromReflect
        + bevy_reflect::GetTypeRegistration
        + fory::Serializer<Target = T>
        + PartialEq
        + std::fmt::Debug,
    P: Message + Default + PartialEq,
{
    let size = BinarySerializer::new().encode(value).unwrap().len();
    let mut group = configure(c, name, size);
    reflectable(&mut group, name, value);
    compact_stream(&mut group, name, value, BinarySerializer::new(), |value| value);
    postcard(&mut group, name, value);
    bitcode(&mut group, name, value);
    prost(&mut group, name, message);
    bevy(&mut group, name, value);
    fory(&mut group, name, value);
    more(&mut group);
    memcpy(&mut group, name, size);
    group.finish();
}

/// Whether the command line's filter (criterion's positional argument, a regex) may select
/// `dataset`: a filtered run skips building the data it will not measure. Read loosely, without
/// a regex engine: a substring of the dataset's name (`minecraft`), or a word of the filter that
/// is the name (`^(mesh|log)/`).
fn selected(dataset: &str) -> bool {
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    filters.is_empty()
        || filters.iter().any(|f| {
            dataset.contains(f.as_str())
                || f.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').any(|w| w == dataset)
        })
}

fn datasets(c: &mut Criterion) {
    if selected("mesh") {
        let mesh: Mesh = mesh(1);
        dataset(c, "mesh", &mesh, &PMesh::from(&mesh), |group| compact_elements(group, "mesh", &mesh.triangles));
    }
    if selected("log") {
        let logs: Logs = logs(2);
        dataset(c, "log", &logs, &PLogs::from(&logs), |group| compact_elements(group, "log", &logs.logs));
    }
    if selected("minecraft_savedata") {
        let players: Players = players(3);
        dataset(c, "minecraft_savedata", &players, &PPlayers::from(&players), |_| {});
    }
}

/// The level graph (shared pointers, weak parents, cycles, polymorphic components) at growing
/// sizes: the cost must grow linearly. Fory keeps the sharing; the other peers get the level as a
/// tree with the shared data duplicated (`level_peers`).
fn level_graph(c: &mut Criterion) {
    // Default settings: every level size loads with them (issue 40).
    let serializer = BinarySerializer::new();
    for objects in [1_000, 10_000, 100_000, 1_000_000] {
        if !selected(&format!("level_{objects}")) {
            continue;
        }
        let (level, stats) = level::build_level(objects, 4);
        // The diff's second graph: a copy with 1% of its scene objects renamed, made next to the
        // level, before the benchmarks below churn the heap, so both graphs it reads are laid out
        // alike (a copy made late is scattered across memory the others freed).
        let edited = reflectable::clone::deep_clone(&level).unwrap();
        let renamed = rename_one_percent(&edited);
        let bytes = serializer.encode(&level).unwrap();
        let decoded: level::Level = serializer.decode(&bytes).unwrap();
        assert_eq!(level::compare_levels(&level, &decoded).unwrap(), stats.shared_objects);
        level::break_cycles(&decoded);
        let name = format!("level_{objects}");
        record(&name, "reflectable", bytes.len());
        let mut group = configure(c, &name, bytes.len());
        if objects >= 100_000 {
            group.sample_size(10).measurement_time(Duration::from_secs(if objects >= 1_000_000 { 60 } else { 15 }));
        }
        group.bench_function("reflectable/encode", |b| b.iter(|| serializer.encode(black_box(&level)).unwrap()));
        // The decoded level's cycles are broken when it drops, outside the timed region.
        group.bench_function("reflectable/decode", |b| {
            b.iter_with_large_drop(|| Teardown(serializer.decode::<level::Level>(black_box(&bytes)).unwrap()))
        });
        // Format version 5 (FORMAT.md, "Version 5"; not yet the default): a length per top-level
        // object, so the decoder's index jumps instead of walking every object.
        let v5 = serializer.format_version(5);
        let v5_bytes = v5.encode(&level).unwrap();
        record(&name, "reflectable_v5", v5_bytes.len());
        group.bench_function("reflectable_v5/encode", |b| b.iter(|| v5.encode(black_box(&level)).unwrap()));
        group.bench_function("reflectable_v5/decode", |b| {
            b.iter_with_large_drop(|| Teardown(v5.decode::<level::Level>(black_box(&v5_bytes)).unwrap()))
        });
        // Without the types, and the JSON twin (what `reflectable json` makes): their ratios to
        // the typed decode above are issue 13's and 16's targets (under 2x and 3x).
        group.bench_function("reflectable/decode_dynamic", |b| {
            b.iter_with_large_drop(|| DynamicGraph::from_bytes(black_box(&bytes)).unwrap())
        });
        group.bench_function("reflectable/json", |b| {
            b.iter_with_large_drop(|| {
                let graph = DynamicGraph::from_bytes(black_box(&bytes)).unwrap();
                let mut out = Vec::with_capacity(bytes.len() * 5);
                graph.write_json(&mut out).unwrap();
                (graph, out)
            })
        });
        // A deep clone through RTTI against the byte round trip it replaces (issue 15: faster).
        group.bench_function("reflectable/clone", |b| {
            b.iter_with_large_drop(|| Teardown(reflectable::clone::deep_clone(black_box(&level)).unwrap()))
        });
        group.bench_function("reflectable/encode_decode", |b| {
            b.iter_with_large_drop(|| {
                let bytes = serializer.encode(black_box(&level)).unwrap();
                Teardown(serializer.decode::<level::Level>(&bytes).unwrap())
            })
        });
        // Diff against the copy with 1% of its scene objects renamed (issue 15: under 2x one encode).
        let patch = reflectable::diff::diff(&level, &edited).unwrap();
        assert_eq!(patch.objects_changed(), renamed);
        group.bench_function("reflectable/diff_1pct", |b| {
            b.iter(|| reflectable::diff::diff(black_box(&level), black_box(&edited)).unwrap())
        });
        level::break_cycles(&edited);
        compact_stream(&mut group, &name, &level, BinarySerializer::new(), Teardown);
        let tree = level_peers::tree(&level);
        fory_level(&mut group, &name, &level, &tree, stats.shared_objects);
        postcard(&mut group, &name, &tree);
        prost(&mut group, &name, &PLevel::from(&tree));
        bitcode(&mut group, &name, &FlatLevel::from(&tree));
        // bevy_reflect takes minutes per 1M-object round trip; its ratio is clear from 100k.
        if objects < 1_000_000 {
            bevy(&mut group, &name, &tree);
        }
        memcpy(&mut group, &name, bytes.len());
        group.finish();
        level::break_cycles(&level);
    }
}

/// Fory with reference tracking on the level as a shared graph; checked against the tree form
/// and the number of distinct shared allocations of the reflectable level.
fn fory_level(group: &mut Group<'_>, dataset: &str, level: &level::Level, tree: &TLevel, shared: usize) {
    let fory = level_peers::fory();
    let value = level_peers::fory_level(level);
    let bytes = fory.serialize(&value).unwrap();
    let decoded: FLevel = fory.deserialize(&bytes).unwrap();
    assert_eq!(level_peers::fory_tree(&decoded), (tree.clone(), shared), "fory round trip");
    record(dataset, "fory", bytes.len());
    group.bench_function("fory/encode", |b| b.iter(|| fory.serialize(black_box(&value)).unwrap()));
    group.bench_function("fory/decode", |b| {
        b.iter_with_large_drop(|| fory.deserialize::<FLevel>(black_box(&bytes)).unwrap())
    });
}

/// A decoded level whose strong cycles are broken when it is dropped.
/// Renames every hundredth scene object of `level`; returns how many.
fn rename_one_percent(level: &level::Level) -> usize {
    level::scene_objects(level)
        .iter()
        .step_by(100)
        .map(|object| object.borrow_mut().name.push_str(" (renamed)"))
        .count()
}

struct Teardown(level::Level);

impl Drop for Teardown {
    fn drop(&mut self) {
        level::break_cycles(&self.0);
    }
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    datasets(&mut criterion);
    level_graph(&mut criterion);
    criterion.final_summary();
    let sizes: Vec<String> = SIZES
        .lock()
        .unwrap()
        .iter()
        .map(|(dataset, peer, bytes)| {
            format!("  {{\"dataset\": \"{dataset}\", \"peer\": \"{peer}\", \"bytes\": {bytes}}}")
        })
        .collect();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-sizes.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, format!("[\n{}\n]\n", sizes.join(",\n"))).unwrap();
}
