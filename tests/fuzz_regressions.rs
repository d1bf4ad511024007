//! Replays the fuzzers' seeds (`fuzz/seeds/`) and every input a fuzzer once found a problem with
//! (`tests/fuzz_regressions/<target>/`) through the same routines the fuzz targets run.
//!
//! Regenerate the seeds from the current sample values with
//! `REFLECTABLE_WRITE_FUZZ_SEEDS=1 cargo test --test fuzz_regressions`.

#[path = "../examples/common/level.rs"]
mod level;

#[path = "common/fuzz_model.rs"]
mod fuzz_model;

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
fn plain_regressions_round_trip() {
    for (path, bytes) in files(&root().join("tests/fuzz_regressions/plain")) {
        eprintln!("replaying {}", path.display());
        fuzz_model::plain_round_trips(&bytes);
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
