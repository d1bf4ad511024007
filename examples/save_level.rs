//! Builds a level (a scene tree with `Weak` parents, polymorphic components, meshes, materials and
//! textures shared between many objects, resource handles, camera -> object strong cycles, a
//! generic `Handle<AudioClip>`, camera projections that are an enum with data, and a material
//! library that is a `HashMap` of shared materials), saves it with `BinarySerializer::save`, loads it
//! back, and checks that values and sharing survived.
//!
//! Run with `cargo run --release --example save_level [objects]` (default 10,000 objects).

#[path = "common/level.rs"]
mod level;

use level::{break_cycles, build_level, compare_levels, Level};
use reflectable::serializer::BinarySerializer;
use std::time::Instant;

fn main() {
    let objects: usize = std::env::args().nth(1).map_or(10_000, |arg| arg.parse().expect("object count"));
    let path = std::env::temp_dir().join(format!("reflectable-level-{}.bin", std::process::id()));

    let started = Instant::now();
    let (level, stats) = build_level(objects, 42);
    let built = started.elapsed();

    let serializer = BinarySerializer::new();
    let started = Instant::now();
    let size = serializer.save(&level, &path).expect("save the level");
    let saved = started.elapsed();

    let started = Instant::now();
    let (loaded, report): (Level, _) = serializer.load_with_report(&path).expect("load the level");
    let loaded_in = started.elapsed();
    assert!(report.is_empty(), "the same types read everything as it is: {report}");
    let schema =
        reflectable::schema::Schema::size_in_stream(&std::fs::read(&path).expect("read the file")).expect("a stream");

    let shared = compare_levels(&level, &loaded).expect("the loaded level equals the saved one");
    assert_eq!(shared, stats.shared_objects, "every shared object comes back exactly once");

    println!("level `{}`", level.name);
    println!("  scene objects      {:>10}", stats.scene_objects);
    println!("  components         {:>10}", stats.components);
    println!("  shared objects     {:>10}  (same sharing after the round trip)", shared);
    println!("  material library   {:>10}  (a map of the same shared materials)", loaded.material_library.len());
    println!("  file size          {:>10} bytes  ({:.1} bytes per shared object)", size, size as f64 / shared as f64);
    println!(
        "  schema table       {:>10} bytes  ({:.2}% of the file: every type described once)",
        schema,
        100.0 * schema as f64 / size as f64
    );
    println!("  build              {:>10.2?}", built);
    println!("  save (encode+sync) {:>10.2?}", saved);
    println!("  load (read+decode) {:>10.2?}", loaded_in);
    println!("ok: saved to {} and loaded back equal, with identity preserved", path.display());

    break_cycles(&level);
    break_cycles(&loaded);
    let _ = std::fs::remove_file(&path);
}
