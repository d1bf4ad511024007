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
        reflectable::serializer::MemorySerializer::new().decode(bytes).expect("a seed decodes");
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
        reflectable::schema::table_size(foreign).unwrap(),
        reflectable::schema::table_size(&encodings[0]).unwrap()
    );
    let (root, report) =
        reflectable::serializer::MemorySerializer::new().decode_as_with_report::<fuzz_model::Machine>(foreign).unwrap();
    assert!(report.is_empty(), "{report}");
    assert_eq!(root.tagged_gear.label, "embedded gear");
    reflectable::rtti::break_cycles(&root);
}

/// What `exercise` derives from a version 3 input: its objects alone as a version 1 stream, and,
/// when bytes were inserted into its schema table, the input with its length fixed, which reaches
/// the table's parser instead of failing the length check.
#[test]
fn the_derived_inputs_reach_the_objects_and_the_table() {
    use reflectable::serializer::{DecodeErrorKind, MemorySerializer};
    let seed = &fuzz_model::sample_encodings()[0];
    let table_start = seed.len() - 24 - reflectable::schema::table_size(seed).unwrap();
    let body = fuzz_model::without_trailer(seed).unwrap();
    assert_eq!((body.len(), &body[4..8]), (table_start, &1u32.to_le_bytes()[..]));
    let root: fuzz_model::Machine = MemorySerializer::new().decode_as(&body).unwrap();
    reflectable::rtti::break_cycles(&root);
    assert!(fuzz_model::with_actual_length(seed).is_none(), "nothing to fix");

    let mut inserted = seed.clone();
    inserted.insert(table_start + 9, 0xAB);
    let error = MemorySerializer::new().decode(&inserted).map(drop).unwrap_err();
    assert!(matches!(error.kind(), DecodeErrorKind::LengthMismatch { .. }), "{error}");
    let fixed = fuzz_model::with_actual_length(&inserted).unwrap();
    let error = MemorySerializer::new().decode(&fixed).map(drop).unwrap_err();
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
        let root = reflectable::serializer::MemorySerializer::new().decode(&framed).expect("a framed sample decodes");
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

#[test]
fn json_regressions_read_back() {
    for (path, bytes) in files(&root().join("tests/fuzz_regressions/json")) {
        eprintln!("replaying {}", path.display());
        fuzz_model::json_reads_back(&bytes);
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

#[test]
fn patch_seeds_and_regressions_apply() {
    let folder = root().join("fuzz/seeds/patch");
    if std::env::var_os("REFLECTABLE_WRITE_FUZZ_SEEDS").is_some() {
        std::fs::create_dir_all(&folder).unwrap();
        for (index, bytes) in fuzz_patch::sample_patches().iter().enumerate() {
            std::fs::write(folder.join(format!("patch-{index}.bin")), bytes).unwrap();
        }
    }
    let seeds = files(&folder);
    assert_eq!(seeds.len(), fuzz_patch::sample_patches().len(), "fuzz/seeds/patch is out of date");
    for (path, bytes) in seeds.into_iter().chain(files(&root().join("tests/fuzz_regressions/patch"))) {
        eprintln!("replaying {}", path.display());
        fuzz_patch::patch_applies(&bytes);
    }
    // Damaged seeds, deterministically, so the normal suite covers the routine too.
    let mut rng = level::Rng::new(7);
    for seed in fuzz_patch::sample_patches() {
        for _ in 0..40 {
            let mut bytes = seed.clone();
            for _ in 0..1 + rng.below(4) {
                let at = 1 + rng.below(bytes.len() - 1);
                bytes[at] = rng.next() as u8;
            }
            fuzz_patch::patch_applies(&bytes);
        }
    }
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
    let root: Machine = reflectable::serializer::MemorySerializer::new().decode_as(bytes).unwrap();
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
