//! Replays the fuzzers' seeds (`fuzz/seeds/`) and every input a fuzzer once found a problem with
//! (`tests/fuzz_regressions/<target>/`) through the same routines the fuzz targets run.
//!
//! Regenerate the seeds from the current sample values with
//! `REFLECTABLE_WRITE_FUZZ_SEEDS=1 cargo test --test fuzz_regressions`.

#[path = "../examples/common/level.rs"]
mod level;

#[path = "common/fuzz_model.rs"]
mod fuzz_model;

#[path = "common/fuzz_patch.rs"]
mod fuzz_patch;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files(folder: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(folder) else { return Vec::new() };
    let mut files: Vec<(PathBuf, Vec<u8>)> = entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn seeds_are_the_current_sample_encodings() {
    let folder = root().join("fuzz/seeds/decode");
    let encodings = fuzz_model::sample_encodings();
    if std::env::var_os("REFLECTABLE_WRITE_FUZZ_SEEDS").is_some() {
        std::fs::create_dir_all(&folder).unwrap();
        for (index, bytes) in encodings.iter().enumerate() {
            std::fs::write(folder.join(format!("sample-{index}.bin")), bytes).unwrap();
        }
    }
    let committed: Vec<Vec<u8>> = files(&folder).into_iter().map(|(_, bytes)| bytes).collect();
    assert_eq!(committed.len(), encodings.len(), "fuzz/seeds/decode is out of date");
    // HashMap fields make encodings differ run to run; the seeds must still decode fully.
    for bytes in &committed {
        reflectable::serializer::BinarySerializer::new()
            .decode::<Box<dyn reflectable::Reflectable>>(bytes)
            .expect("a seed decodes");
        fuzz_model::exercise(bytes);
    }
}

/// The last seed's table differs from the running types in every fingerprint: each type takes
/// the evolved path, and reads everything with nothing to report.
#[test]
fn the_foreign_fingerprint_seed_takes_the_evolved_path_without_loss() {
    let encodings = fuzz_model::sample_encodings();
    let foreign = encodings.last().unwrap();
    assert_ne!(foreign, &encodings[0]);
    assert_eq!(
        reflectable::schema::Schema::size_in_stream(foreign).unwrap(),
        reflectable::schema::Schema::size_in_stream(&encodings[0]).unwrap()
    );
    let (root, report) =
        reflectable::serializer::BinarySerializer::new().decode_with_report::<fuzz_model::Machine>(foreign).unwrap();
    assert!(report.is_empty(), "{report}");
    assert_eq!(root.tagged_gear.label, "embedded gear");
    reflectable::rtti::break_cycles(&root);
}

/// What `exercise` derives from a version 3 input: its objects alone as a version 1 stream, and,
/// when bytes were inserted into its schema table, the input with its length fixed, which reaches
/// the table's parser instead of failing the length check.
#[test]
fn the_derived_inputs_reach_the_objects_and_the_table() {
    use reflectable::serializer::{BinarySerializer, DecodeErrorKind};
    let seed = &fuzz_model::sample_encodings()[0];
    let table_start = seed.len() - 24 - reflectable::schema::Schema::size_in_stream(seed).unwrap();
    let body = fuzz_model::without_trailer(seed).unwrap();
    assert_eq!((body.len(), &body[4..8]), (table_start, &1u32.to_le_bytes()[..]));
    let root: fuzz_model::Machine = BinarySerializer::new().decode(&body).unwrap();
    reflectable::rtti::break_cycles(&root);
    assert!(fuzz_model::with_actual_length(seed).is_none(), "nothing to fix");

    let mut inserted = seed.clone();
    inserted.insert(table_start + 9, 0xAB);
    let error = BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(&inserted).map(drop).unwrap_err();
    assert!(matches!(error.kind(), DecodeErrorKind::LengthMismatch { .. }), "{error}");
    let fixed = fuzz_model::with_actual_length(&inserted).unwrap();
    let error = BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(&fixed).map(drop).unwrap_err();
    assert!(error.offset().is_some_and(|offset| offset >= table_start), "{error}");
    assert!(!matches!(error.kind(), DecodeErrorKind::LengthMismatch { .. }), "{error}");
}

#[test]
fn decode_regressions_never_panic() {
    let found = files(&root().join("tests/fuzz_regressions/decode"));
    for (path, bytes) in &found {
        eprintln!("replaying {}", path.display());
        fuzz_model::exercise(bytes);
    }
}

#[test]
fn decode_mutated_regressions_never_panic() {
    let seeds = fuzz_model::sample_encodings();
    for (path, bytes) in files(&root().join("tests/fuzz_regressions/decode_mutated")) {
        eprintln!("replaying {}", path.display());
        if let Some((&which, ops)) = bytes.split_first() {
            fuzz_model::exercise(&fuzz_model::mutate(&seeds[which as usize % seeds.len()], ops));
        }
    }
}

#[test]
fn decode_compact_regressions_never_panic() {
    let samples = fuzz_model::compact_samples();
    // Each sample's own objects, framed again (what the fuzzer starts from), and cut short.
    for (which, sample) in samples.iter().enumerate() {
        let objects = fuzz_model::compact_objects(sample);
        let count = u32::from_le_bytes(sample[sample.len() - 16..sample.len() - 12].try_into().unwrap());
        let framed = fuzz_model::compact_framed(sample, objects, count);
        let root = reflectable::serializer::BinarySerializer::new()
            .decode::<Box<dyn reflectable::Reflectable>>(&framed)
            .expect("a framed sample decodes");
        reflectable::rtti::break_cycles(&*root);
        for cut in [objects.len(), objects.len() / 2, 1] {
            fuzz_model::exercise_compact(&[&[which as u8], &objects[..cut]].concat(), &samples);
        }
    }
    for (path, bytes) in files(&root().join("tests/fuzz_regressions/decode_compact")) {
        eprintln!("replaying {}", path.display());
        fuzz_model::exercise_compact(&bytes, &samples);
    }
}

#[test]
fn plain_regressions_round_trip() {
    for (path, bytes) in files(&root().join("tests/fuzz_regressions/plain")) {
        eprintln!("replaying {}", path.display());
        fuzz_model::plain_round_trips(&bytes);
    }
}

/// Writes `seeds` to `folder` (replacing the seed files it held) when asked to, and returns the
/// committed ones, which must be the same files by name.
fn seed_folder(folder: &Path, seeds: &[(String, Vec<u8>)]) -> Vec<(PathBuf, Vec<u8>)> {
    if std::env::var_os("REFLECTABLE_WRITE_FUZZ_SEEDS").is_some() {
        std::fs::create_dir_all(folder).unwrap();
        for (path, _) in files(folder) {
            std::fs::remove_file(path).unwrap();
        }
        for (name, bytes) in seeds {
            std::fs::write(folder.join(name), bytes).unwrap();
        }
    }
    let committed = files(folder);
    let names: Vec<String> =
        committed.iter().map(|(path, _)| path.file_name().unwrap().to_string_lossy().into_owned()).collect();
    let mut expected: Vec<String> = seeds.iter().map(|(name, _)| name.clone()).collect();
    expected.sort();
    assert_eq!(names, expected, "{} is out of date", folder.display());
    committed
}

#[test]
fn json_seeds_and_regressions_read_back() {
    // HashMap fields make the level's text differ run to run: the committed seeds must still read.
    let seeds = seed_folder(&root().join("fuzz/seeds/json"), &fuzz_model::json_seeds());
    let reader = reflectable::json::JsonReader::new();
    for (path, bytes) in &seeds {
        let text = std::str::from_utf8(&bytes[1..]);
        if bytes[0] == 1 && !path.to_string_lossy().contains("untyped") {
            reader
                .read::<reflectable::dynamic::DynamicGraph>(text.expect("a text seed is UTF-8"))
                .map(|(graph, _)| graph)
                .expect("a text seed reads");
        }
    }
    for (path, bytes) in seeds.iter().chain(&files(&root().join("tests/fuzz_regressions/json"))) {
        eprintln!("replaying {}", path.display());
        fuzz_model::json_reads_back(bytes);
    }
    // Every sample stream both ways (its bytes, and its JSON as text), so the routine runs in the
    // normal suite too.
    for bytes in fuzz_model::sample_encodings() {
        fuzz_model::json_reads_back(&[[0].as_slice(), &bytes].concat());
        // A compact stream that lists fingerprints only needs the types to be walked.
        let text = match reflectable::json::from_bytes(&bytes) {
            Ok(text) => text,
            Err(error) => {
                assert!(error.to_string().contains("no schema table"), "{error}");
                continue;
            }
        };
        fuzz_model::json_reads_back(&[[1].as_slice(), text.as_bytes()].concat());
    }
}

/// The text seeds read as the types they were written from, with or without their schema table:
/// the typed import paths (maps, enums, nested lists, shared pointers) are where the fuzzer
/// starts.
#[test]
fn json_text_seeds_read_as_their_types() {
    let reader = reflectable::json::JsonReader::new();
    let mut read = 0;
    for (name, bytes) in fuzz_model::json_seeds() {
        let text = std::str::from_utf8(&bytes[1..]);
        let text = if name.ends_with(".json") { text.unwrap() } else { continue };
        if name == "text-0.json" {
            let (machine, report) = reader.read::<fuzz_model::Machine>(text).unwrap();
            assert!(report.is_empty(), "{name}: {report}");
            assert_eq!(machine.signal_map.len(), 4, "{name}");
            reflectable::rtti::break_cycles(&machine);
            read += 1;
        } else if name.ends_with("-1.json") {
            // The level's types are all registered: it reads without its schema table too.
            let (level, report) = reader.read::<level::Level>(text).unwrap();
            assert!(report.is_empty(), "{name}: {report}");
            assert_eq!(level::scene_objects(&level).len(), 12, "{name}");
            reflectable::rtti::break_cycles(&level);
            read += 1;
        }
    }
    assert_eq!(read, 3);
}

/// What the `json` target's mutator makes of the seeds: JSON still (or, now and then, text past
/// what a parser takes), every one read without a panic.
#[test]
fn mutated_json_seeds_read_back() {
    let mut rng = level::Rng::new(17);
    let (mut mutated, mut parsed) = (0, 0);
    for (_, seed) in fuzz_model::json_seeds() {
        let mut input = seed.clone();
        for round in 0..12 {
            let Some(next) = fuzz_model::mutate_json_input(&input, rng.next()) else { continue };
            mutated += 1;
            parsed += usize::from(serde_json::from_slice::<serde_json::Value>(&next[1..]).is_ok());
            fuzz_model::json_reads_back(&next);
            // Now and then from the seed again, else the edits pile up.
            input = if round % 4 == 3 { seed.clone() } else { next };
        }
    }
    eprintln!("{parsed} of {mutated} mutated inputs parse");
    assert!(mutated > 60 && parsed > mutated / 2, "{parsed} of {mutated} parse");
}

#[test]
fn patch_seeds_and_regressions_apply() {
    let named = |seeds: Vec<Vec<u8>>, extension: &str| -> Vec<(String, Vec<u8>)> {
        seeds.into_iter().enumerate().map(|(index, bytes)| (format!("patch-{index}.{extension}"), bytes)).collect()
    };
    let bytes = seed_folder(&root().join("fuzz/seeds/patch"), &named(fuzz_patch::sample_patch_bytes(), "bin"));
    let json = seed_folder(&root().join("fuzz/seeds/patch_json"), &named(fuzz_patch::sample_patch_json(), "json"));
    for (path, bytes) in &bytes {
        eprintln!("replaying {}", path.display());
        reflectable::diff::Patch::from_bytes(bytes).expect("a seed reads");
        fuzz_patch::patch_bytes_apply(bytes);
    }
    for (path, text) in &json {
        eprintln!("replaying {}", path.display());
        reflectable::diff::Patch::from_json(std::str::from_utf8(text).unwrap()).expect("a seed reads");
        fuzz_patch::patch_json_applies(text);
    }
    // Either form, as the fuzzers found them (or, behind a mode byte, the one target both had).
    for (path, bytes) in files(&root().join("tests/fuzz_regressions/patch")) {
        eprintln!("replaying {}", path.display());
        fuzz_patch::patch_applies(&bytes);
    }
    // Damaged seeds, deterministically, so the normal suite covers the routine too.
    let mut rng = level::Rng::new(7);
    for seed in fuzz_patch::sample_patches() {
        for _ in 0..10 {
            let mut bytes = seed.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bytes.len());
                bytes[at] = rng.next() as u8;
            }
            fuzz_patch::patch_applies(&bytes);
        }
    }
}

/// The sheet's seeds hold what the fuzzers must reach: element runs over old elements (the
/// splice), rebuilt arrays of objects and of pointers, a variant switch, created objects of
/// both families, pointers to them (references to other edits), the kept set of an existing
/// object cleared, and kept sets of created objects.
#[test]
fn patch_seeds_reach_the_splice_and_the_references() {
    use serde_json::Value;
    use std::collections::BTreeSet;
    fn walk(value: &Value, found: &mut BTreeSet<&'static str>) {
        match value {
            Value::Array(items) => items.iter().for_each(|item| walk(item, found)),
            Value::Object(members) => {
                let listed = |key: &str| members.get(key).and_then(Value::as_array).is_some_and(|a| !a.is_empty());
                // A change of the readable form (`Patch::to_json`), or an edit or a body.
                if listed("splice") || members.contains_key("runs") {
                    found.insert("runs");
                }
                if listed("elements") {
                    found.insert("rebuilt objects");
                }
                if listed("targets") {
                    found.insert("rebuilt pointers");
                }
                let pointed = ["targets", "point"].iter().flat_map(|key| members.get(*key).and_then(Value::as_array));
                // Edit 0 is the root: a pointer to a later edit refers to another object edit.
                if pointed.flatten().any(|element| element["to"].as_u64().is_some_and(|edit| edit > 0)) {
                    found.insert("references");
                }
                if members.contains_key("variant") {
                    found.insert("variant");
                }
                match members.get("created").and_then(Value::as_str) {
                    Some("Rc" | "Arc") => drop(found.insert("created immutable")),
                    Some(_) => drop(found.insert("created mutable")),
                    None => {}
                }
                let fresh = members.get("fresh") == Some(&Value::Bool(true));
                for change in members.get("changes").and_then(Value::as_array).into_iter().flatten() {
                    match change.get("keep_fields").and_then(Value::as_array).map(Vec::len) {
                        Some(0) if !fresh => drop(found.insert("kept set cleared")),
                        // (`diff` makes an object whose kept set grows anew, so no seed holds a
                        // replaced set; the mutators make them from the cleared one.)
                        Some(0) => {}
                        Some(_) => drop(found.insert("kept set created")),
                        None => {}
                    }
                }
                members.values().for_each(|item| walk(item, found));
            }
            _ => {}
        }
    }
    let mut found = BTreeSet::new();
    for text in fuzz_patch::sample_patch_json() {
        walk(&serde_json::from_slice(&text).unwrap(), &mut found);
    }
    let expected = [
        "created immutable",
        "created mutable",
        "kept set cleared",
        "kept set created",
        "rebuilt objects",
        "rebuilt pointers",
        "references",
        "runs",
        "variant",
    ];
    assert_eq!(found.into_iter().collect::<Vec<_>>(), expected);
}

/// What the `patch` and `patch_json` mutators make of the seeds: patches still (many of them
/// read), applied without a panic.
#[test]
fn mutated_patch_seeds_apply() {
    let mut rng = level::Rng::new(23);
    let (mut mutated, mut read) = (0, 0);
    for seed in fuzz_patch::sample_patch_bytes() {
        let mut input = seed.clone();
        for round in 0..16 {
            let Some(next) = fuzz_patch::mutate_patch(&input, rng.next()) else { continue };
            mutated += 1;
            read += usize::from(reflectable::diff::Patch::from_bytes(&next).is_ok());
            fuzz_patch::patch_bytes_apply(&next);
            input = if round % 4 == 3 { seed.clone() } else { next };
        }
    }
    eprintln!("{read} of {mutated} mutated patches read");
    assert!(mutated > 100 && read > mutated / 4, "{read} of {mutated} patches read");
    let (mut mutated, mut read) = (0, 0);
    for seed in fuzz_patch::sample_patch_json() {
        let mut input = seed.clone();
        for round in 0..8 {
            let Some(next) = fuzz_patch::mutate_patch_json(&input, rng.next()) else { continue };
            mutated += 1;
            read += usize::from(reflectable::diff::Patch::from_json(&String::from_utf8_lossy(&next)).is_ok());
            fuzz_patch::patch_json_applies(&next);
            input = if round % 4 == 3 { seed.clone() } else { next };
        }
    }
    eprintln!("{read} of {mutated} mutated documents read");
    assert!(mutated > 50 && read > mutated / 20, "{read} of {mutated} documents read");
}

#[test]
fn text_regressions_read_back() {
    for (path, bytes) in files(&root().join("tests/fuzz_regressions/text")) {
        eprintln!("replaying {}", path.display());
        fuzz_model::text_reads_back(&bytes);
    }
    // A few inputs of every kind, so the routine runs in the normal suite too.
    for text in [
        "\u{0}7",
        "\u{5}[Some(1.5), None, 2]",
        "\u{7}{id: 1, name: \"a\", tags: [], mode: Run}",
        "\u{9}('x', s, 3)",
        "[[[[",
    ] {
        fuzz_model::text_reads_back(text.as_bytes());
    }
}

#[test]
fn mutated_seeds_never_panic() {
    // A deterministic slice of what decode_mutated does, so the normal suite covers it too.
    let seeds = fuzz_model::sample_encodings();
    let mut rng = level::Rng::new(99);
    for round in 0..300 {
        let ops: Vec<u8> = (0..4 * (1 + round % 8)).map(|_| rng.next() as u8).collect();
        fuzz_model::exercise(&fuzz_model::mutate(&seeds[round % seeds.len()], &ops));
    }
}

/// The first sample reaches every shape the model has (enums, generic instantiations registered
/// or not, maps, nested lists): decoded, each comes back populated, so the seeds really lead the
/// fuzzers into those decode paths.
#[test]
fn the_root_sample_decodes_with_every_shape_populated() {
    use fuzz_model::{Machine, Signal};
    use std::rc::Rc;
    let bytes = &fuzz_model::sample_encodings()[0];
    let root: Machine = reflectable::serializer::BinarySerializer::new().decode(bytes).unwrap();
    assert!(
        matches!(&root.signal, Signal::Wave { samples, source: Some(_), next: Some(_), inner: Some(_), .. } if samples == &[2.0])
    );
    assert_eq!(root.signals.len(), 3);
    assert!(matches!(&root.signals[1], Signal::Pulse(4, values, Some(_)) if values == &[8; 3]));
    assert!(Rc::ptr_eq(&root.shared_signals[0], &root.shared_signals[2]));
    let looped = root.shared_signals[1].clone();
    match &*looped.borrow() {
        Signal::Wave { next: Some(next), inner: Some(inner), springs, .. } => {
            assert!(Rc::ptr_eq(next, &looped), "the cycle through an enum's pointer");
            assert_eq!(springs.len(), 2);
            let Signal::Relay(Some(relay)) = &**inner else { panic!("the relay chain") };
            let Signal::Relay(Some(middle)) = &**relay else { panic!("the relay chain") };
            let Signal::Relay(Some(last)) = &**middle else { panic!("the relay chain") };
            assert!(matches!(&**last, Signal::Pulse(1, values, Some(_)) if values == &[9]));
        }
        _ => panic!("a wave"),
    }
    assert_eq!(root.tagged_spring.value.label, "tagged by value");
    assert_eq!(root.tagged_gear.label, "embedded gear");
    assert_eq!(root.tagged_gear.value.teeth, 9);
    assert!(root.tagged_gear.shared.is_some());
    let shared_gear = root.tagged_gear_rc.as_ref().expect("an unregistered instantiation behind Rc<T>");
    assert_eq!(shared_gear.label, "shared gear");
    assert!(Rc::ptr_eq(&root.tagged_springs[0], &root.tagged_springs[1]));
    assert!(matches!(root.tagged_springs[0].borrow().signal, Signal::Relay(Some(_))));
    let inner = root.by_name["inner"].clone();
    assert!(Rc::ptr_eq(&inner, &root.by_name["again"]));
    assert!(Rc::ptr_eq(&inner.borrow().by_name["self"], &inner), "the cycle through a map value");
    assert_eq!(root.signal_map.keys().copied().collect::<Vec<_>>(), [1, 5, 9, 12]);
    assert!(matches!(&root.signal_map[&9], Signal::Wave { next: Some(next), .. } if Rc::ptr_eq(next, &looped)));
    assert_eq!(root.layers.iter().map(Vec::len).collect::<Vec<_>>(), [2, 0, 1]);
    assert!(Rc::ptr_eq(&root.layers[0][0], &root.layers[2][0]));
    assert_eq!(root.maybe_list.as_ref().map(Vec::len), Some(2));
    assert!(root.holes[0].is_none() && root.holes[1].is_some() && root.holes[2].is_none());
    assert_eq!(root.tagged_lists.iter().map(Vec::len).collect::<Vec<_>>(), [2, 0]);
    assert_eq!(root.tagged_lists[0][0].label, "listed gear");
    reflectable::rtti::break_cycles(&root);
}

/// The fuzzers' fix-ups reach version 5 streams too: a changed table or a resized stream gets
/// its trailer's length, table offset and table CRC set, so the mutation reaches the table's
/// parser and the objects' decoder rather than stopping at the trailer.
#[test]
fn fixups_reach_version_5_tables() {
    use reflectable::serializer::BinarySerializer;
    let v5 = BinarySerializer::new().format_version(5);
    let value = fuzz_model::sample_values().into_iter().next().expect("a sample");
    let bytes = v5.encode(&*value).unwrap();
    reflectable::rtti::break_cycles(&*value);
    // A letter of a type's name in the table, then one byte inserted into the table.
    let name = bytes.len() - 56 - 20;
    let mut renamed = bytes.clone();
    renamed[name] ^= 0x01;
    let fixed = fuzz_model::with_actual_length(&renamed).expect("a fix-up");
    let error = BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(&renamed).unwrap_err();
    assert!(error.to_string().contains("checksum"), "{error}");
    let decoded = BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(&fixed);
    assert!(decoded.as_ref().map_or_else(|e| !e.to_string().contains("checksum"), |_| true), "{:?}", decoded.err());
    if let Ok(root) = decoded {
        reflectable::rtti::break_cycles(&*root);
    }
    let mut longer = bytes.clone();
    longer.insert(bytes.len() - 60, 0);
    assert!(fuzz_model::with_actual_length(&longer).is_some());
    fuzz_model::exercise(&renamed);
    fuzz_model::exercise(&longer);
}
