//! Memory: SECURITY.md promises that no decode allocates more than its budget, 32x the input plus
//! 1 MiB by default. These hostile inputs stay far below it: their peak heap is within 10x their
//! size plus 1 KiB of fixed cost (the decoder's first tables and the boxed error value). And no
//! decode, failed or not, leaks. A counting global allocator measures both; the tests take turns through
//! a lock so their counts do not mix.

#[path = "../examples/common/level.rs"]
mod level;

#[path = "common/fuzz_model.rs"]
mod fuzz_model;

#[path = "common/fuzz_patch.rs"]
mod fuzz_patch;

use reflectable::dynamic::DynamicGraph;
use reflectable::serializer::format::{
    FieldHeader, Trailer, TypeHeader, WireKind, EMPTY_SCHEMA_TABLE, MAGIC, TRAILER_SIZE, VERSION,
};
use reflectable::serializer::{BinarySerializer, DecodeErrorKind};
use reflectable::Reflectable;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Counts the live heap bytes and their high-water mark of the thread that is measuring (other
/// threads, such as the test harness's, would only add noise).
struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
}

fn measuring() -> bool {
    MEASURING.try_with(Cell::get).unwrap_or(false)
}

// SAFETY: every call is forwarded unchanged to the system allocator, which upholds the
// `GlobalAlloc` contract; the counters are only bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if measuring() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
            PEAK.fetch_max(now, Ordering::SeqCst);
        }
        // SAFETY: same layout contract as our caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if measuring() {
            CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
        }
        // SAFETY: `ptr` was allocated by `System` with this layout (see `alloc`).
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

static TURN: Mutex<()> = Mutex::new(());

/// Runs `f`, returning its result, the peak heap growth while it ran, and the bytes still held
/// after it returned.
fn measure<R>(f: impl FnOnce() -> R) -> (R, usize, isize) {
    CURRENT.store(1 << 40, Ordering::SeqCst);
    PEAK.store(1 << 40, Ordering::SeqCst);
    MEASURING.with(|flag| flag.set(true));
    let result = f();
    MEASURING.with(|flag| flag.set(false));
    let peak = PEAK.load(Ordering::SeqCst) - (1 << 40);
    let after = CURRENT.load(Ordering::SeqCst) as isize - (1 << 40);
    (result, peak, after)
}

#[derive(Reflectable, Default)]
#[rtti(id = 440_000)]
struct Holder {
    #[rtti(id = 1)]
    many: Vec<Option<Rc<Holder>>>,
    #[rtti(id = 2, embedded)]
    inner: Option<Box<Holder>>,
    #[rtti(id = 3)]
    values: Vec<u64>,
}

fn stream() -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes
}

/// Ends a hand-assembled stream of `objects` top-level objects with its trailer.
fn end(mut bytes: Vec<u8>, objects: u32) -> Vec<u8> {
    bytes.extend_from_slice(&EMPTY_SCHEMA_TABLE);
    let length = (bytes.len() + TRAILER_SIZE) as u64;
    bytes.extend_from_slice(&Trailer { flags: 0, objects, length, checksum: 0 }.to_bytes());
    bytes
}

fn object(bytes: &mut Vec<u8>, instance: u32, type_id: u32) {
    TypeHeader { instance, base: false, type_id }.write(bytes);
}

fn field(bytes: &mut Vec<u8>, id: u16, kind: WireKind, array: bool) {
    bytes.extend_from_slice(&FieldHeader::new(id, kind, array).pack().to_le_bytes());
}

fn word(bytes: &mut Vec<u8>, word: u32) {
    bytes.extend_from_slice(&word.to_le_bytes());
}

/// What any decode may allocate whatever its input: the first index entry and state, and an error.
const FIXED_COST: usize = 1024;

/// How long a hostile decode may take before it counts as a hang. Generous on purpose: this is a
/// guard against unbounded work, not a speed target (those live in the benchmarks), and CI
/// machines under load are slow.
const HANG: Duration = Duration::from_secs(30);

/// Decodes `input`, checking it does not hang, peaks below 10x the input plus [`FIXED_COST`], and
/// leaves nothing behind once the result is dropped.
fn decode_bounded(name: &str, input: &[u8]) -> Result<(), DecodeErrorKind> {
    let started = Instant::now();
    let (result, peak, left) = measure(|| {
        BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(input).map(drop).map_err(|e| e.into_kind())
    });
    let elapsed = started.elapsed();
    println!(
        "{name}: {} bytes in, peak {peak} bytes ({:.2}x), {elapsed:.2?}",
        input.len(),
        peak as f64 / input.len() as f64
    );
    assert!(peak < 10 * input.len() + FIXED_COST, "{name}: peak {peak} bytes for {} input bytes", input.len());
    assert!(elapsed < HANG, "{name}: took {elapsed:?}");
    assert_eq!(left, 0, "{name}: {left} bytes leaked");
    result
}

#[test]
fn hostile_inputs_stay_within_ten_times_their_size() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    // The registries are built on first use and stay: not part of any decode's footprint.
    fuzz_model::sample_encodings().iter().for_each(|seed| fuzz_model::exercise(seed));

    // 1 MB of maximal nesting.
    let mut nested = stream();
    object(&mut nested, 1, 440_000);
    while nested.len() < 1 << 20 {
        field(&mut nested, 2, WireKind::Embedded, false);
        object(&mut nested, 0, 440_000);
    }
    assert_eq!(decode_bounded("1 MB of nesting", &end(nested, 1)), Err(DecodeErrorKind::TooDeep { limit: 128 }));

    // A claim of 2^32 elements (the count field holds 2^32 - 1).
    let mut claim = stream();
    object(&mut claim, 1, 440_000);
    field(&mut claim, 3, WireKind::Plain(Some(8)), true);
    word(&mut claim, u32::MAX);
    assert!(matches!(decode_bounded("2^32 elements", &end(claim, 1)), Err(DecodeErrorKind::Plain(_))));

    // Cycles and self-references among immutable objects: 1 -> 2..=1001, each pointing at itself
    // and at the next.
    let mut cycles = stream();
    object(&mut cycles, 1, 440_000);
    field(&mut cycles, 1, WireKind::Pointer, true);
    word(&mut cycles, 1000);
    (2..1002).for_each(|id| word(&mut cycles, id));
    for id in 2..1002u32 {
        object(&mut cycles, id, 440_000);
        field(&mut cycles, 1, WireKind::Pointer, true);
        word(&mut cycles, 3);
        word(&mut cycles, id);
        word(&mut cycles, if id == 1001 { 2 } else { id + 1 });
        word(&mut cycles, 1);
    }
    decode_bounded("cycles and self-references", &end(cycles, 1001)).unwrap();

    // 10^6 references to objects whose type nobody registered.
    let mut missing = stream();
    object(&mut missing, 1, 440_000);
    field(&mut missing, 1, WireKind::Pointer, true);
    word(&mut missing, 1_000_000);
    (0..1_000_000u32).for_each(|i| word(&mut missing, 2 + i % 1000));
    (2..1002).for_each(|id| object(&mut missing, id, 999_999));
    decode_bounded("10^6 missing objects", &end(missing, 1001)).unwrap();
}

/// Map objects and nested lists claim their counts like any array field: checked against the
/// input before anything is allocated.
#[test]
fn container_claims_of_four_billion_elements_allocate_nothing() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    fuzz_model::sample_encodings().iter().for_each(|seed| fuzz_model::exercise(seed));
    // `Machine::by_name` (field 57), a map object: its keys (field 1, dynamic plain), then its
    // values (field 2, pointers) with an empty key array first.
    for (map_field, kind, prefix) in [(1, WireKind::Plain(None), false), (2, WireKind::Pointer, true)] {
        let mut claim = stream();
        object(&mut claim, 1, 700_010);
        field(&mut claim, 57, WireKind::Embedded, false);
        object(&mut claim, 0, reflectable::containers::MAP_TYPE_ID);
        if prefix {
            field(&mut claim, 1, WireKind::Plain(None), true);
            word(&mut claim, 0);
        }
        field(&mut claim, map_field, kind, true);
        word(&mut claim, u32::MAX);
        let result = decode_bounded("a map of 2^32 entries", &end(claim, 1));
        assert!(matches!(result, Err(DecodeErrorKind::Plain(_))), "{result:?}");
    }
    // `Machine::layers` (field 59): a list object whose items claim 2^32 pointers.
    let mut claim = stream();
    object(&mut claim, 1, 700_010);
    field(&mut claim, 59, WireKind::Embedded, true);
    word(&mut claim, 1);
    object(&mut claim, 0, reflectable::containers::LIST_TYPE_ID);
    field(&mut claim, 1, WireKind::Pointer, true);
    word(&mut claim, u32::MAX);
    let result = decode_bounded("a nested list of 2^32 pointers", &end(claim, 1));
    assert!(matches!(result, Err(DecodeErrorKind::Plain(_))), "{result:?}");
}

#[test]
fn no_decode_leaks_whatever_the_input() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let seeds = fuzz_model::sample_encodings();
    // First uses of lazily built statics (registry, casts) stay allocated: not a leak.
    seeds.iter().for_each(|seed| fuzz_model::exercise(seed));
    let mut rng = level::Rng::new(2024);
    for round in 0..2000 {
        let ops: Vec<u8> = (0..4 * (1 + round % 12)).map(|_| rng.next() as u8).collect();
        let input = fuzz_model::mutate(&seeds[round % seeds.len()], &ops);
        // A leak recurs on every run; a first-use lazy (a type's descriptor, a cast table) does not.
        fuzz_model::exercise(&input);
        let ((), _, left) = measure(|| fuzz_model::exercise(&input));
        assert_eq!(left, 0, "round {round} leaked {left} bytes");
    }
    // A legitimate level with cycles, loaded and torn down.
    let (original, _) = level::build_level(500, 8);
    let bytes = BinarySerializer::new().encode(&original).unwrap();
    level::break_cycles(&original);
    let ((), peak, left) = measure(|| {
        let loaded: level::Level = BinarySerializer::new().decode(&bytes).unwrap();
        level::break_cycles(&loaded);
    });
    assert_eq!(left, 0);
    println!("a 500-object level: {} bytes, peak {peak} bytes to load", bytes.len());
}

#[test]
fn fuzz_regressions_do_not_leak() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions/decode");
    let mut replayed = 0;
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        let input = std::fs::read(&path).unwrap();
        fuzz_model::exercise(&input);
        let ((), _, left) = measure(|| fuzz_model::exercise(&input));
        assert_eq!(left, 0, "{} leaked {left} bytes", path.display());
        replayed += 1;
    }
    assert!(replayed >= 2);
}

/// A patch applies without leaving anything behind, even a damaged one that creates objects that
/// only point at each other (a regression: those cycles leaked).
#[test]
fn patches_do_not_leak() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs = fuzz_patch::sample_patches();
    for folder in ["fuzz/seeds/patch", "tests/fuzz_regressions/patch"] {
        for entry in std::fs::read_dir(root.join(folder)).unwrap() {
            inputs.push(std::fs::read(entry.unwrap().path()).unwrap());
        }
    }
    for (index, input) in inputs.iter().enumerate() {
        fuzz_patch::patch_applies(input);
        let ((), _, left) = measure(|| fuzz_patch::patch_applies(input));
        assert_eq!(left, 0, "patch {index} leaked {left} bytes");
    }
}

// ---- orphans the immutable pre-scan builds ------------------------------------------------

/// A self-cycle: leaks unless the decoder clears it.
#[derive(Reflectable, Default)]
#[rtti(id = 440_100)]
struct Looped {
    #[rtti(id = 1)]
    next: Option<Rc<std::cell::RefCell<Looped>>>,
}

/// Holds the cycle, behind an immutable `Rc`.
#[derive(Reflectable, Default)]
#[rtti(id = 440_101)]
struct CycleHolder {
    #[rtti(id = 1)]
    looped: Option<Rc<std::cell::RefCell<Looped>>>,
}

/// Points at a `Holder` only weakly.
#[derive(Reflectable, Default)]
#[rtti(id = 440_102)]
struct Watcher {
    #[rtti(id = 1)]
    holder: std::rc::Weak<CycleHolder>,
}

/// Never created by a decoder: it has no constructor.
#[derive(Reflectable, Default)]
#[rtti(id = 440_103, abstract)]
struct Sealed {
    #[rtti(id = 1)]
    holder: Option<Rc<CycleHolder>>,
}

/// Holds anything by value.
#[derive(Reflectable, Default)]
#[rtti(id = 440_104)]
struct Anything {
    #[rtti(id = 1)]
    inner: Option<Box<dyn Reflectable>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 440_105)]
struct Top {
    #[rtti(id = 1)]
    watcher: Option<Rc<Watcher>>,
    #[rtti(id = 2)]
    anything: Option<Rc<Anything>>,
}

fn holder_of_a_cycle() -> Rc<CycleHolder> {
    let looped = Rc::new(std::cell::RefCell::new(Looped::default()));
    looped.borrow_mut().next = Some(looped.clone());
    Rc::new(CycleHolder { looped: Some(looped) })
}

/// Objects an immutable object needs are built before it, by a pre-scan. Two kinds of them were
/// never swept when the result did not hold them: one needed only through a `Weak`, and one
/// under an embedded object of an abstract type (which the decoder skips). Cycles below them
/// leaked.
#[test]
fn objects_built_for_immutable_objects_but_not_held_do_not_leak() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let holder = holder_of_a_cycle();
    let weakly = Top { watcher: Some(Rc::new(Watcher { holder: Rc::downgrade(&holder) })), anything: None };
    let sealed = Sealed { holder: Some(holder_of_a_cycle()) };
    let abstractly = Top { watcher: None, anything: Some(Rc::new(Anything { inner: Some(Box::new(sealed)) })) };
    for (name, top) in [("through a Weak", &weakly), ("under an abstract type", &abstractly)] {
        let bytes = BinarySerializer::new().encode(top).unwrap();
        let decode = || drop(BinarySerializer::new().decode::<Top>(&bytes).unwrap());
        decode(); // first uses of lazily built statics
        let ((), _, left) = measure(decode);
        assert_eq!(left, 0, "{name}: {left} bytes leaked");
        reflectable::rtti::break_cycles(top);
    }
}

#[derive(Reflectable, Default)]
#[rtti(id = 440_010)]
struct TreeNode {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    children: Vec<Rc<std::cell::RefCell<TreeNode>>>,
    #[rtti(id = 3)]
    parent: std::rc::Weak<std::cell::RefCell<TreeNode>>,
}

/// A random recursive tree of `nodes` nodes (each node's parent is a random earlier node), with
/// parent pointers: every node is shared (a strong pointer and its children's `Weak`s).
fn random_tree(nodes: usize) -> Rc<std::cell::RefCell<TreeNode>> {
    let mut all: Vec<Rc<std::cell::RefCell<TreeNode>>> = Vec::with_capacity(nodes);
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    for i in 0..nodes {
        let node = Rc::new(std::cell::RefCell::new(TreeNode { name: format!("node {i}"), ..TreeNode::default() }));
        if i > 0 {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let parent = &all[(state >> 33) as usize % i];
            node.borrow_mut().parent = Rc::downgrade(parent);
            parent.borrow_mut().children.push(node.clone());
        }
        all.push(node);
    }
    all.swap_remove(0)
}

/// What a streaming save of `root` in format `version` adds at its peak (the 64 KiB buffer
/// included).
fn streaming_save_peak(root: &Rc<std::cell::RefCell<TreeNode>>, version: u32) -> usize {
    use reflectable::serializer::BinarySerializer;
    let serializer = BinarySerializer::new().format_version(version);
    let (written, peak, _) = measure(|| serializer.encode_to_writer(root, &mut std::io::sink()).unwrap());
    println!("version {version}: {written} bytes saved, peak {peak} bytes");
    peak
}

/// FORMAT.md's depth-first object order keeps what waits to be written to the unwritten siblings
/// along one path, and the encoder forgets an object once its last pointer is met (here: once
/// its last child is written): saving a tree in a stream adds memory that does not grow with the
/// tree. Breadth first, the waiting objects were a random tree's widest generation (a large share
/// of it) and every node stayed in the identity map, so 16x the nodes took about 16x the memory.
#[test]
fn a_streaming_save_of_a_tree_adds_memory_that_does_not_grow_with_it() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let (small, large) = (random_tree(4_000), random_tree(64_000));
    // Version 5 holds each top-level object whole until its length is written: still bounded.
    for version in [3, 5] {
        let (small_peak, large_peak) = (streaming_save_peak(&small, version), streaming_save_peak(&large, version));
        assert!(
            large_peak < small_peak + small_peak / 2,
            "version {version}: 16x the nodes took {large_peak} bytes at the peak, against {small_peak}"
        );
    }
}

#[derive(Reflectable, Default)]
#[rtti(id = 440_020)]
struct Wide {
    #[rtti(id = 1)]
    numbers: Vec<u128>,
}

/// A compact stream's normal twin is capped at every write (SECURITY.md, "Compact streams"): one
/// field of 200,000 one-byte varints stands for 3.2 MB of `u128`s, but the twin's capacity never
/// passes the cap (8x the stream plus 64 KiB) before it is refused. The peak is twice the cap:
/// growing a vector holds its old and its new buffer for a moment. (Checked only after the field,
/// the twin grew to 3.2 MB in a 3.2 MB buffer, by way of a 1.6 MB one: 2.9x the cap.)
#[test]
fn a_compact_twin_never_holds_more_than_its_cap() {
    use reflectable::serializer::compact::{to_normal, EXPANSION_BASE, MAX_EXPANSION};
    use reflectable::serializer::{BinarySerializer, Encoding};
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let wide = Wide { numbers: vec![1; 200_000] };
    let compact = BinarySerializer::new().encoding(Encoding::Compact).encode(&wide).unwrap();
    let cap = MAX_EXPANSION * compact.len() + EXPANSION_BASE;
    assert!(16 * wide.numbers.len() > cap + cap / 2, "the field alone must pass the cap well");
    let (result, peak, left) = measure(|| to_normal(&compact).map(drop).map_err(|e| e.into_kind()));
    assert!(matches!(result, Err(DecodeErrorKind::AllocationLimit { limit }) if limit == cap), "{result:?}");
    // The twin's last growth, plus the offsets kept for errors and the layouts.
    assert!(peak <= 2 * cap + 16 * 1024, "peak {peak} bytes against a cap of {cap}");
    assert_eq!(left, 0, "{left} bytes leaked");
}

/// JSON documents of shapes the mutations of `tests/hostile_surfaces.rs` rarely make stay within
/// the reader's budget too, accepted or refused: a long list of empty type entries (it was
/// read whole before the first was found wanting), members before a late `$type`, objects that
/// are only an `$id`, many small type entries, many small objects.
#[test]
fn degenerate_json_documents_stay_within_ten_times_their_size() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let many = |count: usize, each: &dyn Fn(usize) -> String| (0..count).map(each).collect::<Vec<_>>().join(",");
    let holder = r#"{"id": 10, "name": "T", "fields": [{"id": 1, "name": "p", "wire": "pointer[]", "declared": 10}]}"#;
    let cases = [
        ("empty type entries", format!(r#"{{"types": [{}], "objects": []}}"#, many(400_000, &|_| "{}".into()))),
        (
            "members before a late $type",
            format!(
                r#"{{"types": [{holder}], "objects": [{{"$id": 1, {}, "$type": 10}}]}}"#,
                many(131_072, &|n| format!(r#""m{n}": 0"#))
            ),
        ),
        (
            "objects that are only an $id",
            format!(r#"{{"objects": [{}]}}"#, many(131_072, &|n| format!(r#"{{"$id": {n}}}"#))),
        ),
        (
            "small type entries",
            format!(
                r#"{{"types": [{}], "objects": [{{"$id": 1, "$type": 1}}]}}"#,
                many(100_000, &|n| format!(r#"{{"id": {}, "name": ""}}"#, n + 1))
            ),
        ),
        (
            "small objects",
            format!(
                r#"{{"types": [{holder}], "objects": [{}]}}"#,
                many(131_072, &|n| format!(r#"{{"$id": {n}, "$type": 10, "p": []}}"#))
            ),
        ),
    ];
    let _ = DynamicGraph::from_json(&cases[4].1); // first uses of lazy statics
    for (what, text) in cases {
        let (accepted, peak, left) = measure(|| DynamicGraph::from_json(&text).map(drop).is_ok());
        let budget = 10 * text.len() + (1 << 20);
        println!(
            "{what}: {} bytes, accepted {accepted}, peak {peak} ({:.1}x)",
            text.len(),
            peak as f64 / text.len() as f64
        );
        assert!(peak <= budget, "{what}: peak {peak} bytes for {} bytes of JSON", text.len());
        assert_eq!(left, 0, "{what}: {left} bytes left");
    }
}
