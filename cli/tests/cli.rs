//! Every command on the example level and on corrupt copies of it: useful output, a non-zero
//! exit for a corrupt file, never a panic.

#[path = "../../examples/common/level.rs"]
mod level;

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// A small example level saved into a fresh folder, which lives as long as the value.
struct Files {
    folder: PathBuf,
    level: PathBuf,
}

impl Files {
    fn new(name: &str) -> Files {
        let folder = std::env::temp_dir().join(format!("reflectable-cli-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let (level, _) = level::build_level(12, 5);
        let bytes = reflectable::to_vec(&level).unwrap();
        level::break_cycles(&level);
        let path = folder.join("level.bin");
        std::fs::write(&path, bytes).unwrap();
        Files { folder, level: path }
    }

    fn with(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.folder.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

fn run(args: &[&str], file: &Path) -> (bool, String, String) {
    let output = Command::cargo_bin("reflectable").unwrap().args(args).arg(file).output().unwrap();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.success(), text(&output.stdout), text(&output.stderr))
}

#[test]
fn dump_shows_objects_types_fields_and_values() {
    let files = Files::new("dump");
    let (ok, out, err) = run(&["dump"], &files.level);
    assert!(ok, "{err}");
    assert!(out.starts_with("format version 3, "), "{out}");
    assert!(out.contains("#1 Level (type 300030)"), "{out}");
    assert!(out.contains("  name (1) = \"level_5\"") || out.contains("  name (1) = \""), "{out}");
    assert!(out.contains("  root (3) -> #2"), "a pointer, by instance: {out}");
    assert!(out.contains("parent (5) ~> #"), "a Weak, marked: {out}");
    assert!(out.contains("transform (2): Transform (type "), "an object held by value: {out}");
    assert!(out.contains("position (1) = ["), "a plain array, as text: {out}");
    assert!(out.contains("  material_library (4): map of "), "a map: {out}");
    assert!(out.contains("    [\"material_0\"] -> #"), "its entries, keys as text: {out}");
    let variant = out.contains("variant = Perspective (1)") || out.contains("variant = Orthographic (2)");
    assert!(variant && !out.contains("field 0 ="), "an enum's variant, by name: {out}");
}

#[test]
fn schema_lists_the_stored_types() {
    let files = Files::new("schema");
    let (ok, out, err) = run(&["schema"], &files.level);
    assert!(ok, "{err}");
    assert!(out.contains("SceneObject (type 300020, fingerprint "), "{out}");
    assert!(out.contains("  1 name: String"), "{out}");
    assert!(out.contains("children: array of pointer to type 300020"), "{out}");
    assert!(out.contains("parent: weak pointer to type 300020"), "{out}");
}

#[test]
fn check_accepts_the_level_and_refuses_corrupt_copies() {
    let files = Files::new("check");
    let (ok, out, err) = run(&["check"], &files.level);
    assert!(ok, "{err}");
    assert!(out.starts_with("ok: format version 3, "), "{out}");

    let bytes = std::fs::read(&files.level).unwrap();
    let truncated = files.with("truncated.bin", &bytes[..bytes.len() / 2]);
    let (ok, _, err) = run(&["check"], &truncated);
    assert!(!ok);
    assert!(err.starts_with("error: the file ("), "{err}");

    let mut flipped = bytes.clone();
    flipped[40] ^= 0x40;
    let flipped = files.with("flipped.bin", &flipped);
    let (ok, _, err) = run(&["check"], &flipped);
    assert!(!ok, "a flipped byte in an object's headers is found");
    assert!(err.contains(" at byte ") && err.contains(" <-"), "the offset, and the bytes around it: {err}");

    let (ok, _, err) = run(&["check"], &files.folder.join("missing.bin"));
    assert!(!ok);
    assert!(err.contains("cannot read"), "{err}");
}

#[test]
fn a_message_listing_fingerprints_only_is_checked_and_dumped() {
    use reflectable::serializer::{BinarySerializer, SchemaTable};
    let files = Files::new("fingerprints");
    let (level, _) = level::build_level(12, 5);
    let listed = BinarySerializer::new().schema_table(SchemaTable::Fingerprints);
    let bytes = listed.encode(&level).unwrap();
    level::break_cycles(&level);
    let message = files.with("message.bin", &bytes);
    let (ok, out, err) = run(&["check"], &message);
    assert!(ok, "{err}");
    assert!(out.contains("types listed by fingerprint only"), "{out}");
    // Without descriptions, objects show by type ID and fields by ID.
    let (ok, out, err) = run(&["dump"], &message);
    assert!(ok, "{err}");
    assert!(out.contains("#1 type 300030"), "{out}");
}

#[test]
fn stats_add_up_to_the_file() {
    let files = Files::new("stats");
    stats_add_up(&files.level, 24);
    // In format version 5 each top-level object's length word counts with its headers, and the
    // trailer is 56 bytes.
    let (level, _) = level::build_level(12, 5);
    let bytes = reflectable::serializer::BinarySerializer::new().format_version(5).encode(&level).unwrap();
    level::break_cycles(&level);
    stats_add_up(&files.with("level5.bin", &bytes), 56);
}

fn stats_add_up(file: &Path, trailer: u64) {
    let (ok, out, err) = run(&["stats"], file);
    assert!(ok, "{err}");
    let size = std::fs::metadata(file).unwrap().len();
    let first = out.lines().next().unwrap();
    assert!(first.starts_with(&format!("{size} bytes: objects ")), "{first}");
    let number = |after: &str| -> u64 {
        let start = first.find(after).unwrap() + after.len();
        first[start..].split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
    };
    let parts = number("objects ") + number("schema table ") + number("stream header and trailer ");
    assert_eq!(parts, size, "{first}");
    assert_eq!(number("stream header and trailer "), 8 + trailer, "the objects' sizes are exact: {first}");
    assert_eq!(number("headers ") + number("data "), number("objects "), "{first}");
    assert!(out.contains("SceneObject (type 300020)"), "{out}");
    assert!(out.contains("MeshRenderer.materials (2)"), "{out}");
    assert!(out.contains("Projection.variant (0)") && !out.contains(".field 0"), "{out}");
}

#[test]
fn graph_is_dot_with_weak_edges_dashed() {
    let files = Files::new("graph");
    let (ok, out, err) = run(&["graph"], &files.level);
    assert!(ok, "{err}");
    assert!(out.starts_with("digraph reflectable {"), "{out}");
    assert!(out.contains("n1 [label=\"#1 Level (type 300030)\"];"), "{out}");
    assert!(out.contains("n1 -> n2 [label=\"root\"];"), "{out}");
    assert!(out.contains("[label=\"parent\", style=dashed];"), "{out}");
    assert!(out.trim_end().ends_with('}'));
    // Rendered by Graphviz where the machine has it (CI installs it).
    if let Ok(mut dot) = std::process::Command::new("dot")
        .args(["-Tpng", "-o"])
        .arg(files.folder.join("level.png"))
        .stdin(std::process::Stdio::piped())
        .spawn()
    {
        use std::io::Write;
        dot.stdin.take().unwrap().write_all(out.as_bytes()).unwrap();
        assert!(dot.wait().unwrap().success(), "dot renders the graph");
        let png = std::fs::read(files.folder.join("level.png")).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "a PNG");
    }
}

#[test]
fn every_command_survives_every_cut_and_flip() {
    let files = Files::new("hostile");
    let bytes = std::fs::read(&files.level).unwrap();
    // A sample of cuts and flips (each run is a process): never a panic, which exits with 101.
    for at in (0..bytes.len()).step_by(bytes.len() / 12 + 1) {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0xFF;
        for (name, input) in [("cut.bin", &bytes[..at]), ("flip.bin", &flipped[..])] {
            let path = files.with(name, input);
            for command in ["dump", "schema", "check", "stats", "graph", "json", "deps"] {
                let output = Command::cargo_bin("reflectable").unwrap().arg(command).arg(&path).output().unwrap();
                assert_ne!(output.status.code(), Some(101), "{command} on {name} at {at} panicked");
            }
            for two in [&["diff"][..], &["schema", "--diff"]] {
                let output =
                    Command::cargo_bin("reflectable").unwrap().args(two).arg(&files.level).arg(&path).output().unwrap();
                assert_ne!(output.status.code(), Some(101), "{two:?} with {name} at {at} panicked");
            }
        }
    }
}

#[test]
fn json_and_from_json_convert_a_file_both_ways_exactly() {
    let files = Files::new("json");
    let (ok, out, err) = run(&["json"], &files.level);
    assert!(ok, "{err}");
    let document: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(document["format"], "reflectable-json/1");
    assert_eq!(document["objects"][0]["$type"], "Level");
    assert_eq!(document["objects"][0]["root"], serde_json::json!({ "$ref": 2 }));
    let json = files.with("level.json", out.as_bytes());
    let back = files.folder.join("back.bin");
    let output =
        Command::cargo_bin("reflectable").unwrap().arg("from-json").arg(&json).arg("-o").arg(&back).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&files.level).unwrap(), "the same bytes");

    // Malformed JSON: placed by line and column, nothing written, the old file untouched.
    let broken = files.with("broken.json", out.replacen("\"objects\": [", "\"objects\": [,", 1).as_bytes());
    let output =
        Command::cargo_bin("reflectable").unwrap().arg("from-json").arg(&broken).arg("-o").arg(&back).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("broken.json: line ") && err.contains(", column "), "{err}");
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&files.level).unwrap());
}

#[test]
fn convert_writes_compact_and_back_exactly() {
    let files = Files::new("convert");
    let compact = files.folder.join("level.compact.bin");
    let output = Command::cargo_bin("reflectable")
        .unwrap()
        .args(["convert", "--encoding", "compact", "-o"])
        .arg(&compact)
        .arg(&files.level)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let (normal, small) = (std::fs::read(&files.level).unwrap(), std::fs::read(&compact).unwrap());
    assert!(small.len() * 4 < normal.len() * 3, "{} against {}", small.len(), normal.len());
    let (ok, out, err) = run(&["check"], &compact);
    assert!(ok && out.starts_with("ok: format version 4 (compact)"), "{out}{err}");
    // Every command reads it; its dump is the normal file's but for the first line.
    let (compact_dump, normal_dump) = (run(&["dump"], &compact).1, run(&["dump"], &files.level).1);
    assert!(compact_dump.starts_with("format version 4 (compact), "), "{compact_dump}");
    assert_eq!(compact_dump.split_once('\n').unwrap().1, normal_dump.split_once('\n').unwrap().1);
    // `stats` measures the normal layout: it says so, and exits 2 (it panicked once).
    let output = Command::cargo_bin("reflectable").unwrap().arg("stats").arg(&compact).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("convert --encoding normal"));
    let back = files.folder.join("back.bin");
    let output = Command::cargo_bin("reflectable")
        .unwrap()
        .args(["convert", "--encoding", "normal", "-o"])
        .arg(&back)
        .arg(&compact)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(std::fs::read(&back).unwrap(), normal, "the same bytes");
    let output = Command::cargo_bin("reflectable").unwrap().args(["convert", "--encoding", "tiny"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
}

/// One type as two versions of a program have it.
mod v1 {
    #[derive(reflectable::Reflectable, Default)]
    #[rtti(id = 390_001, name = "Door", no_register)]
    pub struct Door {
        #[rtti(id = 1)]
        pub width: u32,
        #[rtti(id = 2)]
        pub label: String,
    }
}
mod v2 {
    #[derive(reflectable::Reflectable, Default)]
    #[rtti(id = 390_001, name = "Door", no_register)]
    pub struct Door {
        #[rtti(id = 1)]
        pub width: u64,
        #[rtti(id = 3)]
        pub weight: f32,
    }
}

#[test]
fn schema_diff_says_what_an_evolution_keeps_converts_and_loses() {
    let files = Files::new("schema-diff");
    let old = files.with("v1.bin", &reflectable::to_vec(&v1::Door { width: 3, label: "oak".into() }).unwrap());
    let new = files.with("v2.bin", &reflectable::to_vec(&v2::Door { width: 3, weight: 1.5 }).unwrap());
    let output =
        Command::cargo_bin("reflectable").unwrap().args(["schema", "--diff"]).arg(&old).arg(&new).output().unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "a loss: {out}");
    assert!(out.contains("converts  Door (id 390001): field 1 `width` retyped from u32 to u64"), "{out}");
    assert!(out.contains("loses  Door (id 390001): field 2 `label`"), "{out}");
    assert!(out.contains("keeps  Door (id 390001): field 3 `weight`"), "{out}");
    let output =
        Command::cargo_bin("reflectable").unwrap().args(["schema", "--diff"]).arg(&old).arg(&old).output().unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).contains("the same types"));
}

#[test]
fn diff_shows_the_fields_that_changed() {
    let files = Files::new("diff");
    let output =
        Command::cargo_bin("reflectable").unwrap().arg("diff").arg(&files.level).arg(&files.level).output().unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("no differences: "));

    let (mut level, _) = level::build_level(12, 5);
    level.name = "renamed".into();
    let root = level.root.clone().unwrap();
    root.borrow_mut().children.pop();
    let edited = files.with("edited.bin", &reflectable::to_vec(&level).unwrap());
    level::break_cycles(&level);
    let output =
        Command::cargo_bin("reflectable").unwrap().arg("diff").arg(&files.level).arg(&edited).output().unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{out}");
    assert!(out.contains("$.name: \"level of 12\" -> \"renamed\""), "{out}");
    let last = out.lines().find(|line| line.ends_with("removed (SceneObject)")).expect(&out);
    assert!(last.starts_with("$.root.children["), "objects are known by their paths: {out}");
    assert!(!out.contains(": added ("), "removing one subtree shifts nothing else: {out}");
    assert_eq!(out.lines().count(), 2, "one line per change: {out}");
}

/// A scene object that declares an identity, as an editor's would.
#[derive(reflectable::Reflectable, Default)]
#[rtti(id = 964_301)]
struct ScenePiece {
    #[rtti(id = 1, identity)]
    id: u64,
    #[rtti(id = 2)]
    name: String,
    #[rtti(id = 3)]
    children: Vec<std::rc::Rc<std::cell::RefCell<ScenePiece>>>,
}

/// The same props with no declared identity.
#[derive(reflectable::Reflectable, Default)]
#[rtti(id = 964_302)]
struct AnonymousPiece {
    #[rtti(id = 1)]
    id: u64,
    #[rtti(id = 2)]
    name: String,
    #[rtti(id = 3)]
    children: Vec<std::rc::Rc<std::cell::RefCell<AnonymousPiece>>>,
}

fn props(rocks: &[(u64, &str)]) -> ScenePiece {
    let prop = |&(id, name): &(u64, &str)| {
        std::rc::Rc::new(std::cell::RefCell::new(ScenePiece { id, name: name.into(), ..ScenePiece::default() }))
    };
    ScenePiece { id: 1, name: "level".into(), children: rocks.iter().map(prop).collect() }
}

fn anonymous_pieces(rocks: &[(u64, &str)]) -> AnonymousPiece {
    let prop = |&(id, name): &(u64, &str)| {
        std::rc::Rc::new(std::cell::RefCell::new(AnonymousPiece { id, name: name.into(), ..AnonymousPiece::default() }))
    };
    AnonymousPiece { id: 1, name: "level".into(), children: rocks.iter().map(prop).collect() }
}

fn diff_output(old: &Path, new: &Path) -> String {
    let output = Command::cargo_bin("reflectable").unwrap().arg("diff").arg(old).arg(new).output().unwrap();
    let out = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(1), "{out}{}", String::from_utf8_lossy(&output.stderr));
    out
}

/// Issue 42's remove-and-rename case: `rock_0` removed, `rock_1` renamed. In a version 5 file the
/// identity is recorded, and the diff says exactly that; without one, the arrays are still
/// aligned (the tree after them is not shifted into a change).
#[test]
fn diff_aligns_by_identity_then_by_content() {
    let files = Files::new("diff-identity");
    let v5 = reflectable::serializer::BinarySerializer::new().format_version(5);
    let (old, new) = ([(10, "rock_0"), (11, "rock_1"), (12, "tree")], [(11, "boulder"), (12, "tree")]);
    let old_file = files.with("old.bin", &v5.encode(&props(&old)).unwrap());
    let new_file = files.with("new.bin", &v5.encode(&props(&new)).unwrap());
    let out = diff_output(&old_file, &new_file);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        ["ScenePiece#1.children[0]: removed (ScenePiece#10)", "ScenePiece#11.name: \"rock_1\" -> \"boulder\""],
        "{out}"
    );

    let old_file = files.with("old-anonymous.bin", &reflectable::to_vec(&anonymous_pieces(&old)).unwrap());
    let new_file = files.with("new-anonymous.bin", &reflectable::to_vec(&anonymous_pieces(&new)).unwrap());
    let out = diff_output(&old_file, &new_file);
    assert!(!out.contains("tree"), "the tree is matched, not compared with a rock: {out}");
    assert!(out.lines().all(|line| line.starts_with("$.children[")), "by path, without an identity: {out}");
}

#[test]
fn a_closed_pipe_is_not_a_panic() {
    // `reflectable stats level.bin | head -1`: the reader goes away before the output ends.
    let files = Files::new("pipe");
    let binary = assert_cmd::cargo::cargo_bin("reflectable");
    for command in ["dump", "schema", "check", "stats", "graph", "json"] {
        let mut child = std::process::Command::new(&binary)
            .arg(command)
            .arg(&files.level)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        assert_ne!(output.status.code(), Some(101), "{command}: {}", String::from_utf8_lossy(&output.stderr));
        assert!(output.status.success(), "{command}: a closed pipe ends the command quietly");
    }
}

#[test]
fn bad_arguments_are_refused_with_usage() {
    let output = Command::cargo_bin("reflectable").unwrap().arg("explode").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("Usage"));
}

#[test]
fn a_large_file_is_read_in_chunks_and_checked() {
    // Past the size where the tool shows progress (hidden here: stderr is not a terminal).
    let files = Files::new("large");
    let mut bytes = std::fs::read(&files.level).unwrap();
    bytes.resize(40 << 20, 0);
    let large = files.with("large.bin", &bytes);
    let (ok, _, err) = run(&["check"], &large);
    assert!(!ok, "a valid level followed by zeros is not one stream");
    assert!(err.starts_with(&format!("error: the file ({} bytes)", 40 << 20)), "{err}");
}

/// The JSON this program writes for its own derived plain type shows the value's parts; the tool,
/// which lacks the type, refuses that value saying which program reads it, and reads the field's
/// stored form, the form it writes itself (issue 38, point 4).
#[test]
fn from_json_says_which_program_reads_a_derived_plain_value() {
    #[derive(reflectable::PlainType, Clone, Copy, Default, Debug, PartialEq)]
    #[plain(id = 7_700_951)]
    struct Span {
        start: u32,
        end: u32,
    }
    #[derive(reflectable::Reflectable, Default)]
    #[rtti(id = 7_700_950)]
    struct Track {
        #[rtti(id = 1)]
        span: Span,
    }
    let files = Files::new("derived-plain");
    let track = Track { span: Span { start: 3, end: 9 } };
    let text = reflectable::json::to_string(&track).unwrap();
    assert!(text.contains("\"start\": 3"), "the library shows the parts: {text}");
    let parts = files.with("parts.json", text.as_bytes());
    let out = files.folder.join("track.bin");
    let output =
        Command::cargo_bin("reflectable").unwrap().arg("from-json").arg(&parts).arg("-o").arg(&out).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("cannot take apart") && err.contains("$bytes"), "{err}");
    assert!(err.contains("objects[0].span"), "the member is named: {err}");

    // The tool's own JSON of the same file keeps the stored form, and converts back exactly.
    let bytes = reflectable::to_vec(&track).unwrap();
    let binary = files.with("track-in.bin", &bytes);
    let (ok, stored, err) = run(&["json"], &binary);
    assert!(ok, "{err}");
    assert!(stored.contains("\"$bytes\""), "{stored}");
    let stored = files.with("stored.json", stored.as_bytes());
    let output =
        Command::cargo_bin("reflectable").unwrap().arg("from-json").arg(&stored).arg("-o").arg(&out).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(std::fs::read(&out).unwrap(), bytes);
}

/// A decal, an asset keyed by its path; a sound, keyed by a UUID.
#[derive(reflectable::Reflectable, Default)]
#[rtti(id = 987_001)]
struct Decal {
    #[rtti(id = 1, asset_key)]
    path: String,
    #[rtti(id = 2)]
    pixels: Vec<u8>,
}

#[derive(reflectable::Reflectable, Default)]
#[rtti(id = 987_002)]
struct Sound {
    #[rtti(id = 1, asset_key)]
    uuid: u128,
}

#[derive(reflectable::Reflectable, Default)]
#[rtti(id = 987_003)]
struct Prop {
    #[rtti(id = 1)]
    textures: Vec<std::rc::Rc<Decal>>,
    #[rtti(id = 2)]
    sound: Option<std::rc::Rc<Sound>>,
}

#[test]
fn deps_lists_each_asset_a_file_refers_to_once() {
    use std::rc::Rc;
    let files = Files::new("deps");
    let moss = Rc::new(Decal { path: "textures/moss.png".into(), pixels: vec![1; 64] });
    let bark = Rc::new(Decal { path: "textures/bark.png".into(), pixels: vec![2; 64] });
    let prop = Prop {
        textures: vec![moss.clone(), bark, moss],
        sound: Some(Rc::new(Sound { uuid: 0x0123_4567_89ab_cdef_0011_2233_4455_6677 })),
    };
    let path = files.with("prop.bin", &reflectable::to_vec(&prop).unwrap());
    let (ok, out, err) = run(&["deps"], &path);
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "Decal\ttextures/bark.png\nDecal\ttextures/moss.png\nSound\t01234567-89ab-cdef-0011-223344556677\n"
    );
    let (ok, out, err) = run(&["dump"], &path);
    assert!(ok, "{err}");
    assert!(out.contains("asset reference: Decal (type 987001) `textures/moss.png`"), "{out}");
    // A key cannot add lines or fields: control characters are escaped; an empty key shows.
    let odd = Prop {
        textures: vec![
            Rc::new(Decal { path: "evil\tpath\nDecal\tfake".into(), pixels: vec![] }),
            Rc::new(Decal { path: String::new(), pixels: vec![] }),
        ],
        sound: None,
    };
    let path = files.with("odd.bin", &reflectable::to_vec(&odd).unwrap());
    let (ok, out, err) = run(&["deps"], &path);
    assert!(ok, "{err}");
    assert_eq!(out, "Decal\t\"\"\nDecal\tevil\\tpath\\nDecal\\tfake\n");
    // A file without assets lists nothing, and succeeds.
    let (ok, out, _) = run(&["deps"], &files.level);
    assert!(ok && out.is_empty(), "{out}");
}

/// A door as one release saved it, and as the next (a field added).
#[derive(reflectable::Reflectable, Default)]
#[rtti(id = 964_310, name = "Gate")]
struct GateV1 {
    #[rtti(id = 1)]
    open: bool,
}

#[derive(reflectable::Reflectable, Default)]
#[rtti(id = 964_310, name = "Gate", no_register)]
struct GateV2 {
    #[rtti(id = 1)]
    open: bool,
    #[rtti(id = 2)]
    title: String,
}

/// Two files of two releases: the old one is read into the new one's types, as the new release
/// loads an old save, so a field added reads as set from its default, and a field removed is
/// reported, not a failure.
#[test]
fn diff_compares_files_whose_types_changed() {
    let files = Files::new("diff-evolved");
    let v1 = files.with("v1.bin", &reflectable::to_vec(&GateV1 { open: true }).unwrap());
    let v2 = files.with("v2.bin", &reflectable::to_vec(&GateV2 { open: true, title: "front".into() }).unwrap());
    let out = diff_output(&v1, &v2);
    assert_eq!(out.trim(), "$.title: \"\" -> \"front\"");
    let out = diff_output(&v2, &v1);
    assert!(out.starts_with("(the old file holds what the new file's types lack:"), "{out}");
    assert!(out.contains("title"), "{out}");
}

/// Files that do not describe their types (version 1) are compared as their streams hold them;
/// the same data in versions 3 and 5 (which alone records identities) is the same.
#[test]
fn diff_compares_files_without_descriptions_and_across_versions() {
    let player = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/player_v1.bin");
    let output = Command::cargo_bin("reflectable").unwrap().arg("diff").arg(&player).arg(&player).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let files = Files::new("diff-versions");
    let level = props(&[(10, "rock"), (11, "tree")]);
    let v3 = files.with("v3.bin", &reflectable::to_vec(&level).unwrap());
    let v5 = files
        .with("v5.bin", &reflectable::serializer::BinarySerializer::new().format_version(5).encode(&level).unwrap());
    for (old, new) in [(&v3, &v5), (&v5, &v3)] {
        let output = Command::cargo_bin("reflectable").unwrap().arg("diff").arg(old).arg(new).output().unwrap();
        let out = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{out}{}", String::from_utf8_lossy(&output.stderr));
        assert!(out.starts_with("no differences"), "{out}");
    }
}

/// A file of another root type, or one whose objects only moved, differs (exit 1).
#[test]
fn diff_of_moved_objects_or_another_root_type_is_a_difference() {
    let files = Files::new("diff-moves");
    let v5 = reflectable::serializer::BinarySerializer::new().format_version(5);
    let old = files.with("old.bin", &v5.encode(&props(&[(10, "a"), (11, "b")])).unwrap());
    let moved = files.with("moved.bin", &v5.encode(&props(&[(11, "b"), (10, "a")])).unwrap());
    assert_eq!(diff_output(&old, &moved).trim(), "ScenePiece#1.children: reordered");
    let gate = files.with("gate.bin", &reflectable::to_vec(&GateV1 { open: true }).unwrap());
    assert!(diff_output(&old, &gate).starts_with("$: the roots are"));
}
