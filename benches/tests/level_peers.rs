use reflectable_bench::level::build_level;
use reflectable_bench::level_peers::{fory, fory_level, fory_tree, tree, FLevel};

#[test]
fn fory_round_trip() {
    for n in [1, 2, 3, 5, 10, 100, 1000] {
        let (level, stats) = build_level(n, 4);
        let f = fory_level(&level);
        let fory = fory();
        let bytes = fory.serialize(&f).unwrap();
        let decoded: FLevel = fory.deserialize(&bytes).unwrap_or_else(|e| panic!("{n}: {e:?}"));
        assert_eq!(fory_tree(&decoded), (tree(&level), stats.shared_objects), "{n}");
    }
}
