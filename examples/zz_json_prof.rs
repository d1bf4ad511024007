#[path = "common/level.rs"]
mod level;
fn main() {
    let (level, _) = level::build_level(100_000, 1);
    let bytes = reflectable::to_vec(&level).unwrap();
    level::break_cycles(&level);
    let graph = reflectable::dynamic::DynamicGraph::from_bytes(&bytes).unwrap();
    for _ in 0..3 {
        reflectable::json::write(&graph, std::io::sink()).unwrap();
    }
}
