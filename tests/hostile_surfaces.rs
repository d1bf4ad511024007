//! Issue 38, "[surfaces] Hostile patches, JSON and text": patches (bytes and JSON) and graph JSON
//! are data that may come from anywhere, so reading them must never abort, panic, hang, leak or
//! take memory out of proportion to the input, and whatever they accept must give a graph that
//! saves and loads again.
//!
//! First the issue's reproductions, each built from a document or patch the library writes
//! itself and then edited. Then the hostile suite proper: for each surface (patch bytes, patch
//! JSON, graph JSON), every truncation of every seed and thousands of mutations (fixed-seed
//! xorshift, `common/hostile_input.rs`), each checked for panics ([`catch_unwind`]), time
//! ([`TIME`] per input), peak heap ([`budget`]: 10x the input plus 1 MiB, counted by the global
//! allocator below for the measuring thread only), leaks (the live heap after teardown equals
//! the heap before), and round trips of whatever was accepted: an accepted patch saves and loads
//! back equal (as bytes, and as JSON for JSON), and the graph it was applied to saves and loads;
//! of a graph document, the bytes of `json::to_bytes` and of `read_dynamic`'s graph (either may
//! refuse) decode and re-encode, and a typed `read_as` value saves and loads.
//!
//! An allocation failure or a stack overflow aborts the process, so the suites and the
//! reproductions that abort before the fix run in a child process (this test binary, re-run
//! with the one test): a suite's child resumes after an input that killed it, so one run lists
//! the inputs that abort (up to [`MAX_CRASHES`]). The allocator refuses to let the measured heap pass [`HARD_CAP`], so
//! an input asking for gigabytes aborts at once instead of swapping the machine.

#[path = "../examples/common/level.rs"]
mod level;

#[path = "common/hostile_input.rs"]
mod hostile_input;
#[path = "common/rng.rs"]
mod rng;

use hostile_input::{
    dump, in_child, is_child, member_value, mutate_bytes, mutate_json, run_child, start, value_at, Rng,
};
use level::{build_level, scene_objects, Level, SceneObject};
use reflectable::clone::deep_clone;
use reflectable::diff::{diff, Patch};
use reflectable::dynamic::DynamicGraph;
use reflectable::json::{self, JsonReader};
use reflectable::rtti::break_cycles;
use reflectable::serializer::format::{Trailer, TRAILER_SIZE};
use reflectable::serializer::BinarySerializer;
use reflectable::Reflectable;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::{Rc, Weak};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

// ---- counting allocator -------------------------------------------------------------------------

/// Counts the live heap bytes and their high-water mark of the thread that is measuring (other
/// threads, such as the test harness's, would only add noise), as `tests/memory.rs` does.
struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
const BASE: usize = 1 << 40;

/// Most the measured heap may hold: past it an allocation fails, which aborts the process (in
/// a child: reported with the input that did it). Far above any budget here, far below what
/// would hurt the machine.
const HARD_CAP: usize = 256 << 20;

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
}

fn measuring() -> bool {
    MEASURING.try_with(Cell::get).unwrap_or(false)
}

// SAFETY: every call is forwarded unchanged to the system allocator, which upholds the
// `GlobalAlloc` contract, or fails with a null pointer (allowed); the counters are bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if measuring() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
            if now.saturating_sub(BASE) > HARD_CAP {
                CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
                return std::ptr::null_mut();
            }
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

/// The tests that measure take turns, so their counts do not mix.
static TURN: Mutex<()> = Mutex::new(());

fn turn() -> MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Stops measuring when dropped, even by a panic.
struct Measuring;

impl Drop for Measuring {
    fn drop(&mut self) {
        MEASURING.with(|flag| flag.set(false));
    }
}

/// Runs `f`, returning its result, the peak heap growth while it ran, and the bytes still held
/// after it returned (negative when it freed more than it allocated).
fn measure<R>(f: impl FnOnce() -> R) -> (R, usize, isize) {
    CURRENT.store(BASE, Ordering::SeqCst);
    PEAK.store(BASE, Ordering::SeqCst);
    MEASURING.with(|flag| flag.set(true));
    let guard = Measuring;
    let result = f();
    drop(guard);
    let peak = PEAK.load(Ordering::SeqCst) - BASE;
    let after = CURRENT.load(Ordering::SeqCst) as isize - BASE as isize;
    (result, peak, after)
}

/// The acceptance bar: peak heap growth for an input of `len` bytes, accepted or not.
fn budget(len: usize) -> usize {
    10 * len + (1 << 20)
}

/// Most time one input may take (a debug build).
const TIME: Duration = Duration::from_secs(2);

/// Mutations of patch bytes (cheap: most are refused at once).
const BYTE_MUTATIONS: usize = 20_000;

/// Mutations of each JSON surface.
const JSON_MUTATIONS: usize = 6_000;

/// The mutations' seed: fixed, so every run tries the same inputs.
const RNG_SEED: u64 = 0x0038_4057_11E5_5EED;

// ---- types --------------------------------------------------------------------------------------

/// The patch reproduction's document.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 7_700_900)]
struct Doc {
    #[rtti(id = 1)]
    data: Vec<u8>,
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 7_700_901)]
struct Node {
    #[rtti(id = 1)]
    next: Option<Rc<RefCell<Node>>>,
    #[rtti(id = 2)]
    n: u32,
}

/// An enum without data, held by value.
#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 7_700_902)]
enum Mode {
    #[default]
    #[rtti(id = 1)]
    Idle,
    #[rtti(id = 2)]
    Busy,
}

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 7_700_903)]
struct Brush {
    #[rtti(id = 1)]
    size: u32,
}

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 7_700_904)]
struct Pen {
    #[rtti(id = 1)]
    ink: u32,
}

/// A bit of every kind of field the JSON form writes.
#[derive(Reflectable, Default)]
#[rtti(id = 7_700_905)]
struct Kit {
    #[rtti(id = 1, embedded)]
    mode: Mode,
    #[rtti(id = 2, embedded)]
    brushes: Vec<Vec<Brush>>,
    #[rtti(id = 3, embedded)]
    pen: Pen,
    #[rtti(id = 4)]
    name: String,
    #[rtti(id = 5)]
    ratio: f32,
    #[rtti(id = 6)]
    other: Option<Rc<RefCell<Node>>>,
    #[rtti(id = 7)]
    values: Vec<u32>,
    #[rtti(id = 8)]
    many: Vec<Rc<RefCell<Node>>>,
    #[rtti(id = 9)]
    by_name: HashMap<String, Rc<RefCell<Node>>>,
    #[rtti(id = 10, embedded)]
    modes: BTreeMap<u32, Mode>,
    #[rtti(id = 11)]
    weak: Weak<RefCell<Node>>,
    #[rtti(id = 12)]
    big: u64,
    #[rtti(id = 13)]
    layers: Vec<Vec<Rc<RefCell<Node>>>>,
}

/// Plain arrays edited in the middle (runs and splices in patches), and embedded arrays edited
/// in place and rebuilt.
#[derive(Reflectable, Default)]
#[rtti(id = 7_700_910)]
struct Sheet {
    #[rtti(id = 1)]
    bytes: Vec<u8>,
    #[rtti(id = 2)]
    words: Vec<String>,
    #[rtti(id = 3)]
    numbers: Vec<u32>,
    #[rtti(id = 4, embedded)]
    cells: Vec<Slot>,
    #[rtti(id = 5)]
    nodes: Vec<Rc<RefCell<Node>>>,
    #[rtti(id = 6)]
    title: String,
}

#[derive(Reflectable, Default)]
#[rtti(id = 7_700_911)]
struct Slot {
    #[rtti(id = 1)]
    label: String,
    #[rtti(id = 2)]
    weights: Vec<u16>,
    #[rtti(id = 3)]
    link: Option<Rc<RefCell<Node>>>,
}

fn node(n: u32) -> Rc<RefCell<Node>> {
    Rc::new(RefCell::new(Node { next: None, n }))
}

fn kit() -> Kit {
    let (a, b, c) = (node(1), node(2), node(3));
    b.borrow_mut().next = Some(c.clone());
    Kit {
        mode: Mode::Busy,
        brushes: vec![vec![Brush { size: 1 }, Brush { size: 2 }], vec![], vec![Brush { size: 3 }]],
        pen: Pen { ink: 7 },
        name: "kit".into(),
        ratio: 0.5,
        other: Some(a.clone()),
        values: vec![1, 2, 3, 4],
        many: vec![a.clone(), b.clone(), a.clone()],
        by_name: [("a".to_owned(), a.clone()), ("c".to_owned(), c.clone())].into(),
        modes: [(1, Mode::Idle), (4, Mode::Busy)].into(),
        weak: Rc::downgrade(&b),
        big: u64::MAX,
        layers: vec![vec![c, b], vec![a]],
    }
}

fn sheet() -> Sheet {
    let nodes: Vec<_> = (0..4).map(node).collect();
    nodes[0].borrow_mut().next = Some(nodes[1].clone());
    nodes[1].borrow_mut().next = Some(nodes[2].clone());
    let words = ["alpha", "beta", "gamma", "delta", "naïve", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"];
    Sheet {
        bytes: (0..48).collect(),
        words: words.iter().map(|word| word.to_string()).collect(),
        numbers: (0..32).map(|i| i * 7).collect(),
        cells: (0..5u16)
            .map(|i| Slot {
                label: format!("cell {i}"),
                weights: (0..6).map(|w| w * i).collect(),
                link: (i % 2 == 0).then(|| nodes[usize::from(i) % 4].clone()),
            })
            .collect(),
        nodes,
        title: "sheet".into(),
    }
}

/// A root whose pointees point at each other.
fn ring() -> Node {
    let (a, b) = (node(1), node(2));
    a.borrow_mut().next = Some(b.clone());
    b.borrow_mut().next = Some(a.clone());
    Node { next: Some(a), n: 0 }
}

/// Every node a sheet reaches, to tear down the cycles a patch may make among them.
fn sheet_nodes(sheet: &Sheet) -> Vec<Rc<RefCell<Node>>> {
    let mut out: Vec<Rc<RefCell<Node>>> = sheet.nodes.clone();
    out.extend(sheet.cells.iter().filter_map(|cell| cell.link.clone()));
    let mut next = 0;
    while next < out.len() {
        let follow = out[next].borrow().next.clone();
        if let Some(follow) = follow.filter(|follow| !out.iter().any(|seen| Rc::ptr_eq(seen, follow))) {
            out.push(follow);
        }
        next += 1;
    }
    out
}

fn small_level() -> Level {
    build_level(4, 5).0
}

// ---- seeds --------------------------------------------------------------------------------------

/// What an input is tried against: the graph a patch applies to, or the type a document's root
/// has.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Level,
    Sheet,
    Kit,
    Ring,
}

struct Seed {
    bytes: Vec<u8>,
    kind: Kind,
    name: &'static str,
}

/// A named edit of a level, and of a sheet.
type LevelEdit = (&'static str, fn(&Level));
type SheetEdit = (&'static str, fn(&mut Sheet));

/// Real patches: of a level (renames, a removed subtree and a moved object, an added object,
/// transforms and materials), and of a sheet (plain arrays edited in the middle, embedded
/// elements edited, inserted, removed and moved, pointers reordered).
fn patches() -> Vec<(Patch, Kind, &'static str)> {
    let mut out = Vec::new();
    let level = small_level();
    let level_edits: [LevelEdit; 4] = [
        ("level: renames", |level| scene_objects(level).iter().step_by(2).for_each(|o| o.borrow_mut().name.push('!'))),
        ("level: a subtree removed, an object moved", |level| {
            let all = scene_objects(level);
            let moved = all[all.len() - 1].clone();
            all[1].borrow_mut().children.clear();
            all[0].borrow_mut().children.push(moved);
        }),
        ("level: an object added", |level| {
            let root = level.root.clone().expect("a root");
            let added = Rc::new(RefCell::new(SceneObject { name: "added".into(), ..SceneObject::default() }));
            added.borrow_mut().parent = Rc::downgrade(&root);
            root.borrow_mut().children.insert(0, added);
        }),
        ("level: transforms and materials", |level| {
            for object in scene_objects(level) {
                object.borrow_mut().transform.position[1] += 1.0;
            }
            for material in level.material_library.values() {
                material.borrow_mut().color[0] = 0.25;
            }
        }),
    ];
    for (name, edit) in level_edits {
        let edited = deep_clone(&level).expect("the level clones");
        edit(&edited);
        out.push((diff(&level, &edited).expect("levels diff"), Kind::Level, name));
        break_cycles(&edited);
    }
    break_cycles(&level);
    let sheet_edits: [SheetEdit; 3] = [
        ("sheet: arrays edited in the middle", |sheet| {
            sheet.bytes.splice(20..20, [200, 201]);
            sheet.words.remove(5);
            sheet.numbers[16] = 999;
            sheet.numbers.remove(3);
            sheet.cells[2].label = "changed".into();
            sheet.cells[3].weights.insert(2, 77);
        }),
        ("sheet: elements inserted, removed, moved", |sheet| {
            sheet.cells.remove(1);
            let fresh = Slot { label: "new".into(), weights: vec![1, 2, 3], link: Some(node(9)) };
            sheet.cells.insert(3, fresh);
            sheet.cells.swap(0, 1);
            sheet.nodes.reverse();
            let extra = node(10);
            extra.borrow_mut().next = Some(sheet.nodes[0].clone());
            sheet.nodes.push(extra);
            sheet.bytes.drain(10..20);
        }),
        ("sheet: arrays grown and cut", |sheet| {
            sheet.words.splice(6..6, ["x".to_owned(), "y".to_owned(), "z".to_owned()]);
            sheet.numbers.truncate(10);
            sheet.numbers.extend([1, 1, 2, 3, 5, 8]);
            sheet.title = "renamed".into();
            sheet.nodes[1].borrow_mut().n = 42;
            sheet.cells.clear();
        }),
    ];
    let original = sheet();
    for (name, edit) in sheet_edits {
        let mut edited = sheet();
        edit(&mut edited);
        out.push((diff(&original, &edited).expect("sheets diff"), Kind::Sheet, name));
    }
    out
}

/// Graph documents as the library writes them.
fn documents() -> Vec<(String, Kind, &'static str)> {
    let level = build_level(3, 5).0;
    let level_text = json::to_string(&level).expect("a level's JSON");
    break_cycles(&level);

    let ring = ring();
    let ring_text = json::to_string(&ring).expect("a ring's JSON");
    break_cycles(&ring);
    // All but the smallest without their indentation (see `Surface::seeds`).
    vec![
        (unindented(&level_text), Kind::Level, "a level (unindented)"),
        (unindented(&json::to_string(&kit()).unwrap()), Kind::Kit, "a kit (unindented)"),
        (unindented(&json::to_string(&sheet()).unwrap()), Kind::Sheet, "a sheet (unindented)"),
        (ring_text, Kind::Ring, "a ring of nodes"),
    ]
}

/// A document the library wrote, without its indentation.
fn unindented(text: &str) -> String {
    serde_json::to_string(&serde_json::from_str::<serde_json::Value>(text).expect("JSON")).expect("JSON")
}

// ---- surfaces -----------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Surface {
    PatchBytes,
    PatchJson,
    GraphJson,
}

impl Surface {
    fn name(self) -> &'static str {
        match self {
            Surface::PatchBytes => "patch bytes",
            Surface::PatchJson => "patch JSON",
            Surface::GraphJson => "graph JSON",
        }
    }

    fn test(self) -> &'static str {
        match self {
            Surface::PatchBytes => "hostile_patch_bytes",
            Surface::PatchJson => "hostile_patch_json",
            Surface::GraphJson => "hostile_graph_json",
        }
    }

    fn is_json(self) -> bool {
        self != Surface::PatchBytes
    }

    fn mutations(self) -> usize {
        match self {
            Surface::PatchBytes => BYTE_MUTATIONS,
            _ => JSON_MUTATIONS,
        }
    }

    fn seeds(self) -> Vec<Seed> {
        match self {
            Surface::PatchBytes => patches()
                .into_iter()
                .map(|(patch, kind, name)| Seed { bytes: patch.to_bytes().expect("a patch saves"), kind, name })
                .collect(),
            // All but one without their indentation (half their size, so their truncations take
            // a quarter of the time): JSON the library reads as well, members in the same order.
            Surface::PatchJson => patches()
                .into_iter()
                .enumerate()
                .map(|(n, (patch, kind, name))| {
                    let text = patch.to_json().expect("a patch saves");
                    let text = if n == 1 { text } else { unindented(&text) };
                    Seed { bytes: text.into(), kind, name }
                })
                .collect(),
            Surface::GraphJson => {
                documents().into_iter().map(|(text, kind, name)| Seed { bytes: text.into(), kind, name }).collect()
            }
        }
    }
}

/// One input: a prefix of a seed, or a mutation of one.
struct Input<'s> {
    index: usize,
    seed: &'s Seed,
    cut: Option<usize>,
    mutated: Vec<u8>,
    what: String,
}

impl Input<'_> {
    fn bytes(&self) -> &[u8] {
        match self.cut {
            Some(cut) => &self.seed.bytes[..cut],
            None => &self.mutated,
        }
    }

    fn describe(&self) -> String {
        match self.cut {
            Some(cut) if cut == self.seed.bytes.len() => format!("seed `{}`, whole", self.seed.name),
            Some(cut) => format!("seed `{}` cut to {cut} of {} bytes", self.seed.name, self.seed.bytes.len()),
            None => format!("seed `{}` mutated: {}", self.seed.name, self.what),
        }
    }
}

/// The inputs from index `first` on (those before it not made): every prefix of every seed (the
/// seed itself last) that is not a prefix of an earlier seed (patches' JSON all begin with the
/// same types: tried once), then `surface`'s mutations.
fn inputs_from(seeds: &[Seed], surface: Surface, first: usize) -> impl Iterator<Item = Input<'_>> {
    let truncated = truncations(seeds);
    let cuts = seeds.iter().enumerate().flat_map(move |(n, seed)| {
        let shared = shared_prefix(seeds, n);
        (shared..=seed.bytes.len()).map(move |cut| (seed, cut))
    });
    let cuts = cuts.enumerate().skip(first).map(|(index, (seed, cut))| Input {
        index,
        seed,
        cut: Some(cut),
        mutated: Vec::new(),
        what: String::new(),
    });
    let mutations = (first.saturating_sub(truncated)..surface.mutations()).map(move |n| {
        // A generator of its own for each mutation: a child resuming after an input that
        // killed its predecessor skips the inputs before it without making them.
        let mut rng = Rng::new(RNG_SEED ^ (n as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let seed = &seeds[rng.below(seeds.len())];
        let (mutated, what) = if surface.is_json() {
            mutate_json(&mut rng, &seed.bytes)
        } else {
            let mutated = mutate_bytes(&mut rng, &seed.bytes);
            with_trailer(&mut rng, &seed.bytes, mutated)
        };
        Input { index: truncated + n, seed, cut: None, mutated, what }
    });
    cuts.chain(mutations)
}

/// A mutated stream whose length changed, most times with its trailer's length made to match
/// (else the trailer refuses it before the decoder looks at anything else).
fn with_trailer(rng: &mut Rng, seed: &[u8], (mut bytes, what): (Vec<u8>, String)) -> (Vec<u8>, String) {
    if bytes.len() == seed.len() || bytes.len() < TRAILER_SIZE || rng.below(4) == 0 {
        return (bytes, what);
    }
    let end: &[u8; TRAILER_SIZE] = bytes[bytes.len() - TRAILER_SIZE..].try_into().unwrap();
    let seed_end: &[u8; TRAILER_SIZE] = seed[seed.len() - TRAILER_SIZE..].try_into().unwrap();
    let Some(mut trailer) = Trailer::from_bytes(end).or_else(|| Trailer::from_bytes(seed_end)) else {
        return (bytes, what);
    };
    trailer.length = bytes.len() as u64;
    let at = bytes.len() - TRAILER_SIZE;
    bytes[at..].copy_from_slice(&trailer.to_bytes());
    (bytes, format!("{what}; the trailer's length made {}", trailer.length))
}

/// How many of seed `n`'s first bytes an earlier seed begins with too (its shorter prefixes have
/// been tried already; a proper prefix never gets past the reader's first checks to a target).
fn shared_prefix(seeds: &[Seed], n: usize) -> usize {
    let common = |a: &[u8], b: &[u8]| a.iter().zip(b).take_while(|(a, b)| a == b).count();
    let shared = seeds[..n].iter().map(|earlier| common(&earlier.bytes, &seeds[n].bytes) + 1).max().unwrap_or(0);
    shared.min(seeds[n].bytes.len())
}

/// The distinct truncations of `seeds`.
fn truncations(seeds: &[Seed]) -> usize {
    (0..seeds.len()).map(|n| seeds[n].bytes.len() + 1 - shared_prefix(seeds, n)).sum()
}

/// The graph a patch applies to, built (and measured apart) once a patch is accepted.
enum Target {
    Level(Level),
    Sheet(Sheet),
}

fn target(kind: Kind) -> Target {
    match kind {
        Kind::Level => Target::Level(small_level()),
        _ => Target::Sheet(sheet()),
    }
}

/// What an input came to: the readers that accepted it (bits), or a problem.
type Checked = Result<u8, String>;

/// The first step of an input: a graph document's whole check, or a patch read (or refused).
enum Read {
    Graph(Checked),
    Patch(Option<Patch>),
}

fn read_input(surface: Surface, kind: Kind, input: &[u8]) -> Read {
    let text = String::from_utf8_lossy(input);
    match surface {
        Surface::PatchBytes => Read::Patch(Patch::from_bytes(input).ok().map(|(patch, _report)| patch)),
        Surface::PatchJson => Read::Patch(Patch::from_json(&text).ok().map(|(patch, _report)| patch)),
        Surface::GraphJson => Read::Graph(graph_input(kind, &text)),
    }
}

/// The second step of an accepted patch: its round trips, then applied to its target, which
/// then saves and loads; everything torn down.
fn patch_input(patch: Patch, json: bool, target: Target) -> Checked {
    let checked = patch_round_trip(&patch, json);
    let applied = apply_to(target, &patch);
    drop(patch);
    checked.and(applied).map(|()| 1)
}

/// Reads `input` as `surface` does, checks what it accepts, and tears everything down (without
/// measuring: for the harness's own check).
fn try_input(surface: Surface, kind: Kind, input: &[u8]) -> Checked {
    match read_input(surface, kind, input) {
        Read::Graph(checked) => checked,
        Read::Patch(None) => Ok(0),
        Read::Patch(Some(patch)) => patch_input(patch, surface == Surface::PatchJson, target(kind)),
    }
}

/// An accepted patch saves and loads back the same, as bytes (and as JSON for a JSON patch).
fn patch_round_trip(patch: &Patch, json: bool) -> Result<(), String> {
    let bytes = patch.to_bytes().map_err(|error| format!("roundtrip: an accepted patch does not save: {error}"))?;
    let (again, _) = Patch::from_bytes(&bytes)
        .map_err(|error| format!("roundtrip: an accepted patch's bytes do not load: {error}"))?;
    if again != *patch {
        return Err("roundtrip: an accepted patch's bytes load as another patch".into());
    }
    if json {
        let text = patch.to_json().map_err(|error| format!("roundtrip: an accepted patch has no JSON: {error}"))?;
        let (again, _) = Patch::from_json(&text)
            .map_err(|error| format!("roundtrip: an accepted patch's JSON does not load: {error}"))?;
        if again != *patch {
            return Err("roundtrip: an accepted patch's JSON loads as another patch".into());
        }
    }
    Ok(())
}

/// Applies `patch` to `target`, checks the result saves and loads again, and tears the target
/// down: its own cycles broken by hand, as `tests/common/fuzz_patch.rs` does (objects the patch
/// creates must not need it).
fn apply_to(target: Target, patch: &Patch) -> Result<(), String> {
    match target {
        Target::Level(mut level) => {
            let originals = scene_objects(&level);
            let _report = patch.apply(&mut level);
            let result = typed_round_trip(&level, "the patched graph");
            break_cycles(&level);
            originals.iter().for_each(break_cycles);
            result
        }
        Target::Sheet(mut sheet) => {
            let originals = sheet_nodes(&sheet);
            let _report = patch.apply(&mut sheet);
            let result = typed_round_trip(&sheet, "the patched graph");
            break_cycles(&sheet);
            originals.iter().for_each(break_cycles);
            result
        }
    }
}

/// `value` saves, and its bytes load again.
fn typed_round_trip<T: Reflectable>(value: &T, what: &str) -> Result<(), String> {
    let bytes = reflectable::to_vec(value).map_err(|error| format!("roundtrip: {what} does not save: {error}"))?;
    let again: T =
        reflectable::from_slice(&bytes).map_err(|error| format!("roundtrip: {what}'s bytes do not load: {error}"))?;
    break_cycles(&again);
    Ok(())
}

/// Bits of [`Checked`] for graph JSON.
const READ_DYNAMIC: u8 = 1;
const TO_BYTES: u8 = 2;
const READ_AS: u8 = 4;
/// `read_dynamic` accepted, but its graph's `to_bytes` refused.
const ENCODE_REFUSED: u8 = 8;

/// A graph document through `read_dynamic`, `json::to_bytes` and the typed `read_as`.
fn graph_input(kind: Kind, text: &str) -> Checked {
    let mut accepted = 0;
    if let Ok(graph) = JsonReader::new().read::<reflectable::dynamic::DynamicGraph>(text).map(|(graph, _)| graph) {
        accepted |= READ_DYNAMIC;
        match graph.to_bytes() {
            Ok(bytes) => {
                drop(graph);
                decodes_again(&bytes, "the graph of `read_dynamic`")?;
            }
            Err(_) => accepted |= ENCODE_REFUSED,
        }
    }
    if let Ok(bytes) = json::to_bytes(text) {
        accepted |= TO_BYTES;
        decodes_again(&bytes, "`json::to_bytes`")?;
    }
    let typed = match kind {
        Kind::Level => read_typed::<Level>(text)?,
        Kind::Sheet => read_typed::<Sheet>(text)?,
        Kind::Kit => read_typed::<Kit>(text)?,
        Kind::Ring => read_typed::<Node>(text)?,
    };
    if typed {
        accepted |= READ_AS;
    }
    Ok(accepted)
}

/// Bytes a JSON reader gave: they decode, and the graph re-encodes and decodes again.
fn decodes_again(bytes: &[u8], what: &str) -> Result<(), String> {
    let graph = DynamicGraph::from_bytes(bytes)
        .map_err(|error| format!("undecodable: {what} gave bytes the decoder refuses: {error}"))?;
    let again =
        graph.to_bytes().map_err(|error| format!("roundtrip: {what} gave a graph that does not re-encode: {error}"))?;
    drop(graph);
    DynamicGraph::from_bytes(&again)
        .map_err(|error| format!("roundtrip: {what} gave a graph whose bytes do not decode again: {error}"))?;
    Ok(())
}

/// `text` read as a `T`: accepted or not; when accepted, it saves and loads again.
fn read_typed<T: Reflectable>(text: &str) -> Result<bool, String> {
    let Ok((value, _report)) = JsonReader::new().read::<T>(text) else { return Ok(false) };
    let result = typed_round_trip(&value, "the typed graph of `read_as`");
    break_cycles(&value);
    result.map(|()| true)
}

/// One input tried: what it came to (or the panic it raised), its peak heap, what it left behind,
/// and how long it took.
struct Trial {
    outcome: Result<Checked, String>,
    peak: usize,
    leaked: isize,
    elapsed: Duration,
}

/// Tries one input in two measured steps: the read (and, for graph JSON, everything), then for
/// an accepted patch, its apply, with its target built and the patch's round trips checked in
/// between (neither is the input's cost). The peak counts the patch held from the first step.
fn trial(surface: Surface, kind: Kind, input: &[u8]) -> Trial {
    let started = Instant::now();
    let (read, peak, left) = measure(|| catch_unwind(AssertUnwindSafe(|| read_input(surface, kind, input))));
    let (outcome, peak, leaked) = match read {
        Err(panic) => (Err(panic), peak, left),
        Ok(Read::Graph(checked)) => {
            let left = left - message_size(&checked);
            (Ok(checked), peak, left)
        }
        Ok(Read::Patch(None)) => (Ok(Ok(0)), peak, left),
        Ok(Read::Patch(Some(patch))) => {
            let building = Instant::now();
            let (target, _, held) = measure(|| target(kind));
            let built = building.elapsed();
            // The round trips write the patch back out (its bytes, its JSON): checked, but not
            // charged to the input's budget, which is the reader's and the apply's.
            let json = surface == Surface::PatchJson;
            let round_trip = catch_unwind(AssertUnwindSafe(|| patch_round_trip(&patch, json)));
            let (outcome, applying, after) = measure(|| {
                catch_unwind(AssertUnwindSafe(|| {
                    let applied = apply_to(target, &patch);
                    drop(patch);
                    applied.map(|()| 1)
                }))
            });
            let outcome = match round_trip {
                Ok(Ok(())) => outcome,
                Ok(Err(problem)) => Ok(Err(problem)),
                Err(panic) => Err(panic),
            };
            let after = after - outcome.as_ref().map_or(0, message_size);
            let peak = peak.max((left.max(0) as usize) + applying);
            return Trial {
                outcome: outcome.map_err(panic_message),
                peak,
                leaked: left + held + after,
                elapsed: started.elapsed() - built,
            };
        }
    };
    Trial { outcome: outcome.map_err(panic_message), peak, leaked, elapsed: started.elapsed() }
}

/// The heap a problem's message holds: made while measuring, alive after (not a leak).
fn message_size(checked: &Checked) -> isize {
    checked.as_ref().err().map_or(0, |message| message.capacity() as isize)
}

fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    let message = panic.downcast_ref::<String>().cloned();
    message.or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

fn one_line(text: &str) -> String {
    let line = text.replace('\n', "\\n");
    match line.char_indices().nth(600) {
        Some((at, _)) => format!("{}...", &line[..at]),
        None => line,
    }
}

/// The child's side of a suite: tries every input from [`start`], writing a line before each
/// (`@index`), one per problem (`PROBLEM index kind: ...`) and one after (`=index outcome`).
fn run_surface(surface: Surface) {
    let _turn = turn();
    let seeds = surface.seeds();
    // The registries, descriptors and casts are built on first use and stay: warm them up.
    for seed in &seeds {
        let _ = trial(surface, seed.kind, &seed.bytes);
    }
    let first = start();
    for input in inputs_from(&seeds, surface, first) {
        let index = input.index;
        let bytes = input.bytes();
        eprintln!("@{index}");
        let mut tried = trial(surface, input.seed.kind, bytes);
        if tried.leaked != 0 && tried.outcome.is_ok() {
            // A first use of a lazily built static is not a leak: a leak comes back.
            tried = trial(surface, input.seed.kind, bytes);
        }
        let mut problems = Vec::new();
        match &tried.outcome {
            Err(panic) => problems.push(format!("panic: {panic}")),
            Ok(Err(problem)) => problems.push(problem.clone()),
            Ok(Ok(_)) => {}
        }
        let budget = budget(bytes.len());
        if tried.peak > budget {
            let times = tried.peak as f64 / bytes.len().max(1) as f64;
            let peak = tried.peak;
            problems.push(format!(
                "budget: peak {peak} bytes for {} input bytes ({times:.1}x; budget {budget})",
                bytes.len()
            ));
        }
        if tried.leaked != 0 && tried.outcome.is_ok() {
            problems.push(format!("leak: {} bytes left after teardown", tried.leaked));
        }
        if tried.elapsed > TIME {
            problems.push(format!("time: {:.2?}", tried.elapsed));
        }
        for problem in problems {
            let (what, shown) = (input.describe(), dump(bytes, surface.is_json()));
            eprintln!("PROBLEM {index} {} || {} || {shown}", one_line(&problem), one_line(&what));
        }
        let outcome = match tried.outcome {
            Ok(Ok(accepted)) => accepted.to_string(),
            Ok(Err(_)) => "x".into(),
            Err(_) => "p".into(),
        };
        eprintln!("={index} {outcome}");
    }
    eprintln!("SUMMARY done");
}

/// Most inputs that may kill the child before the suite gives up on the rest.
const MAX_CRASHES: usize = 40;

/// The parent's side of a suite: runs [`run_surface`] in child processes (resuming after an
/// input that kills one), then reports what was tried and every problem.
fn surface_suite(surface: Surface) {
    if is_child(surface.test()) {
        return run_surface(surface);
    }
    let started = Instant::now();
    let seeds = surface.seeds();
    let total = truncations(&seeds) + surface.mutations();
    let (mut tried, mut refused, mut failed, mut runs) = (0usize, 0usize, 0usize, 0usize);
    let (mut accepted_any, mut accepted) = (0usize, [0usize; 4]);
    let mut problems: Vec<String> = Vec::new();
    let mut crashes: Vec<(usize, String)> = Vec::new();
    let mut from = 0;
    let mut gave_up = false;
    while from < total {
        let run = run_child(surface.test(), from);
        runs += 1;
        let (mut last, mut finished, mut context) = (None, false, Vec::new());
        for line in run.stderr.lines() {
            if let Some(index) = line.strip_prefix('@') {
                last = index.parse::<usize>().ok();
                context.clear();
            } else if let Some(outcome) = line.strip_prefix('=') {
                tried += 1;
                match outcome.split(' ').nth(1).and_then(|code| code.parse::<u8>().ok()) {
                    Some(0) => refused += 1,
                    Some(code) => {
                        accepted_any += 1;
                        (0..4).filter(|bit| code & 1 << bit != 0).for_each(|bit| accepted[bit] += 1);
                    }
                    None => failed += 1,
                }
            } else if line.starts_with("PROBLEM ") {
                problems.push(line.to_owned());
            } else if line.starts_with("SUMMARY") {
                finished = true;
            } else {
                context.push(line.to_owned());
            }
        }
        if finished {
            break;
        }
        let Some(at) = last else {
            panic!("{}: the child died before its first input: {}\n{}", surface.name(), run.how(), run.tail(30));
        };
        tried += 1;
        let why = format!("{} after {:.1?}: {}", run.how(), run.elapsed, one_line(&context.join(" | ")));
        crashes.push((at, why));
        if crashes.len() >= MAX_CRASHES {
            gave_up = true;
            break;
        }
        from = at + 1;
    }
    // Where each crash came from (the inputs are the same in every process).
    let mut crashed = Vec::new();
    for (at, why) in &crashes {
        let input = inputs_from(&seeds, surface, *at).next().expect("the input that crashed");
        let (what, shown) = (input.describe(), dump(input.bytes(), surface.is_json()));
        crashed.push(format!("PROBLEM {at} crash: {why} || {} || {shown}", one_line(&what)));
    }
    let mut kinds: BTreeMap<String, Vec<&String>> = BTreeMap::new();
    for line in crashed.iter().chain(&problems) {
        let kind = line.split(' ').nth(2).unwrap_or("?").trim_end_matches(':').to_owned();
        kinds.entry(kind).or_default().push(line);
    }
    let counts: Vec<String> = kinds.iter().map(|(kind, lines)| format!("{kind} {}", lines.len())).collect();
    let readers = match surface {
        Surface::GraphJson => format!(
            " (read_dynamic {}, of which to_bytes refused {}; json::to_bytes {}; read_as {})",
            accepted[0], accepted[3], accepted[1], accepted[2]
        ),
        _ => String::new(),
    };
    let summary = format!(
        "{}: {tried} of {total} inputs tried ({} distinct truncations of {} seeds, {} mutations), {accepted_any} \
         accepted{readers}, {refused} refused, {failed} failed a check or panicked, {} crashed{}; problems: {}; \
         {:.1?} in {runs} child runs",
        surface.name(),
        truncations(&seeds),
        seeds.len(),
        surface.mutations(),
        crashes.len(),
        if gave_up { " (gave up after that many)" } else { "" },
        if counts.is_empty() { "none".to_owned() } else { counts.join(", ") },
        started.elapsed(),
    );
    println!("{summary}");
    let mut report = summary.clone();
    for (kind, lines) in &kinds {
        let shown = if kind == "crash" { 40 } else { 6 };
        report.push_str(&format!("\n-- {kind}: {} inputs; the first {}:", lines.len(), shown.min(lines.len())));
        for line in lines.iter().take(shown) {
            report.push_str(&format!("\n{line}"));
        }
    }
    assert!(kinds.is_empty() && !gave_up, "{report}");
}

// ---- the issue's reproductions ------------------------------------------------------------------

/// Replaces the one place `from` occurs in `text` (the reproduction's precondition).
fn edit(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "`{from}` once in the document:\n{text}");
    text.replacen(from, to, 1)
}

/// The patch of the issue: `count` 1 for the element appended to `Doc::data`.
fn doc_patch() -> Patch {
    diff(&Doc { data: vec![1, 2, 3] }, &Doc { data: vec![1, 2, 3, 9] }).expect("docs diff")
}

/// A patch read and applied to a `Doc` holding `data`: `Err` with the read's error, or `Ok` with
/// the apply's problems.
fn read_and_apply(data: Vec<u8>, read: impl FnOnce() -> Result<Patch, String>) -> Result<Vec<String>, String> {
    let patch = read()?;
    let mut doc = Doc { data };
    let report = patch.apply(&mut doc);
    Ok(report.problems().iter().map(ToString::to_string).collect())
}

/// Issue 38 (1): a patch's element count was trusted before allocating: `count` 2^32 - 1 in a
/// patch's JSON allocated 68 GB and aborted. The JSON read names the place, or the apply
/// reports it; either way within budget.
#[test]
fn patch_json_count_is_checked_before_allocating() {
    in_child("patch_json_count_is_checked_before_allocating", || {
        let _turn = turn();
        // The value's stored form, with a count of 2^32 - 1 elements in one byte.
        let original = doc_patch().to_json().unwrap();
        let (_, end) = member_value(&original, "\"splice\"", 0).unwrap();
        let start = original.find("\"splice\"").unwrap();
        let stored = r#""plain_type": 1, "count": 4294967295, "bytes": "CQ==", "runs": [[0, 3], [4294967295, 1]]"#;
        let text = format!("{}{stored}{}", &original[..start], &original[end..]);
        let read = || Patch::from_json(&text).map(|(patch, _)| patch).map_err(|error| error.to_string());
        let _ = Patch::from_json(&doc_patch().to_json().unwrap()); // first uses of lazy statics
        let (outcome, peak, _) = measure(|| read_and_apply(vec![1, 2, 3], read));
        println!("patch JSON with count 2^32 - 1: peak {peak} bytes, {outcome:?}");
        assert!(peak <= budget(text.len()), "peak {peak} bytes for {} bytes of patch", text.len());
        match outcome {
            Err(error) => assert!(error.contains("count"), "the error names the place: {error}"),
            Ok(problems) => assert!(!problems.is_empty(), "the apply reports the count"),
        }
    });
}

/// Issue 38 (1), the binary form: the patch's bytes with its `count` word set to 2^32 - 1.
#[test]
fn patch_bytes_count_is_checked_before_allocating() {
    in_child("patch_bytes_count_is_checked_before_allocating", || {
        let _turn = turn();
        // The count is the first word where the patch of one element appended to 32 differs
        // from the patch of two (both keep the 32 old elements as a run).
        let old: Vec<u8> = (0..32).collect();
        let appended = |extra: &[u8]| Doc { data: [old.as_slice(), extra].concat() };
        let one = diff(&Doc { data: old.clone() }, &appended(&[9])).unwrap().to_bytes().unwrap();
        let two = diff(&Doc { data: old.clone() }, &appended(&[9, 9])).unwrap().to_bytes().unwrap();
        let at = one.iter().zip(&two).position(|(a, b)| a != b).expect("the patches differ");
        assert_eq!((&one[at..at + 4], &two[at..at + 4]), (&[1, 0, 0, 0][..], &[2, 0, 0, 0][..]), "the count word");
        let mut bytes = one.clone();
        bytes[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let read = || Patch::from_bytes(&bytes).map(|(patch, _)| patch).map_err(|error| error.to_string());
        let _ = read_and_apply(old.clone(), || Patch::from_bytes(&one).map(|(p, _)| p).map_err(|e| e.to_string()));
        let (outcome, peak, _) = measure(|| read_and_apply(old.clone(), read));
        println!("patch bytes with count 2^32 - 1: peak {peak} bytes, {outcome:?}");
        assert!(peak <= budget(bytes.len()), "peak {peak} bytes for {} bytes of patch", bytes.len());
        if let Ok(problems) = outcome {
            assert!(!problems.is_empty(), "the apply reports the count");
        }
    });
}

/// Issue 38 (2): a failed JSON read leaked the objects it had built (two of them pointing at
/// each other).
#[test]
fn a_failed_json_read_leaks_nothing() {
    let _turn = turn();
    let (a, b) = (node(2), node(3));
    a.borrow_mut().next = Some(b.clone());
    let chain = Node { next: Some(a), n: 1 };
    let text = json::to_string(&chain).unwrap();
    // Objects 1 and 2 point at each other; object 3 does not load.
    let text = edit(&text, "\"next\": {\n        \"$ref\": 3\n      }", "\"next\": {\n        \"$ref\": 1\n      }");
    let text = edit(&text, "\"n\": 3", "\"n\": \"x\"");
    // Once for the first uses of lazy statics (and the error to show), then measured.
    let result = JsonReader::new()
        .read::<reflectable::dynamic::DynamicGraph>(&text)
        .map(|(graph, _)| graph)
        .map(drop)
        .map_err(|error| error.to_string());
    let (refused, _, left) = measure(|| {
        JsonReader::new().read::<reflectable::dynamic::DynamicGraph>(&text).map(|(graph, _)| graph).is_err()
    });
    println!("a failed read: {result:?}, {left} bytes left");
    assert!(refused, "object 3 does not load");
    assert_eq!(left, 0, "a failed read left {left} bytes behind");
}

/// A named way to read a document: `true` when it accepts it.
type NamedRead<'a> = (&'static str, Box<dyn Fn() -> bool + 'a>);

/// Peak heap of each way a document is read: `read_dynamic`, `json::to_bytes`, a typed
/// `read_as`, each dropped before the next.
fn json_reads_within_budget<T: Reflectable>(name: &str, text: &str) {
    let _ = JsonReader::new().read::<reflectable::dynamic::DynamicGraph>(&json::to_string(&kit()).unwrap()); // first uses
    let reads: [NamedRead<'_>; 3] = [
        (
            "read_dynamic",
            Box::new(|| {
                JsonReader::new().read::<reflectable::dynamic::DynamicGraph>(text).map(|(graph, _)| graph).is_ok()
            }),
        ),
        ("json::to_bytes", Box::new(|| json::to_bytes(text).is_ok())),
        (
            "read_as",
            Box::new(|| match JsonReader::new().read::<T>(text) {
                Ok((value, _)) => {
                    break_cycles(&value);
                    true
                }
                Err(_) => false,
            }),
        ),
    ];
    let mut over = Vec::new();
    for (how, read) in reads {
        let (accepted, peak, _) = measure(read);
        let times = peak as f64 / text.len() as f64;
        println!("{name}, {how}: {} bytes, peak {peak} bytes ({times:.1}x), accepted: {accepted}", text.len());
        if peak > budget(text.len()) {
            over.push(format!("{how}: peak {peak} bytes ({times:.1}x)"));
        }
    }
    assert!(over.is_empty(), "{name}, {} bytes (budget {}): {}", text.len(), budget(text.len()), over.join(", "));
}

/// A list of `n` copies of `element`, as the library indents a list member's elements.
fn long_list(element: &str, n: usize) -> String {
    format!("[{}]", vec![element; n].join(", "))
}

/// Issue 38 (3): a document with an array of 50,000 zeros (a 119 KB document) peaked at 4.9 MB,
/// refused or not.
#[test]
fn json_with_long_arrays_of_numbers_stays_within_budget() {
    let _turn = turn();
    let text = json::to_string(&kit()).unwrap();
    let zeros = long_list("0", 50_000);
    let (start, end) = member_value(&text, "\"values\"", text.find("\"objects\"").unwrap()).unwrap();
    let accepted = format!("{}{zeros}{}", &text[..start], &text[end..]);
    json_reads_within_budget::<Kit>("50,000 zeros for a Vec<u32>", &accepted);
    let (start, end) = member_value(&text, "\"name\"", text.find("\"objects\"").unwrap()).unwrap();
    let refused = format!("{}{zeros}{}", &text[..start], &text[end..]);
    json_reads_within_budget::<Kit>("50,000 zeros for a String", &refused);
}

/// Issue 38 (3): arrays of `{"$ref": 2}` reached 73x the input.
#[test]
fn json_with_long_arrays_of_references_stays_within_budget() {
    let _turn = turn();
    let text = json::to_string(&kit()).unwrap();
    let (start, end) = member_value(&text, "\"many\"", text.find("\"objects\"").unwrap()).unwrap();
    let refs = long_list("{\"$ref\": 2}", 20_000);
    let text = format!("{}{refs}{}", &text[..start], &text[end..]);
    json_reads_within_budget::<Kit>("20,000 references", &text);
}

/// Issue 38 (3): a patch's JSON the same: 50,000 runs read and applied.
#[test]
fn patch_json_with_long_arrays_stays_within_budget() {
    let _turn = turn();
    let text = doc_patch().to_json().unwrap();
    let (start, end) = member_value(&text, "\"splice\"", 0).unwrap();
    let text = format!("{}{}{}", &text[..start], long_list("{\"keep\": [0, 0]}", 50_000), &text[end..]);
    let read = || Patch::from_json(&text).map(|(patch, _)| patch).map_err(|error| error.to_string());
    let original = doc_patch().to_json().unwrap();
    let _ = read_and_apply(vec![1, 2, 3], || Patch::from_json(&original).map(|(p, _)| p).map_err(|e| e.to_string()));
    let (outcome, peak, _) = measure(|| read_and_apply(vec![1, 2, 3], read).map(|problems| problems.len()));
    let times = peak as f64 / text.len() as f64;
    println!("a patch of 50,000 runs: {} bytes, peak {peak} bytes ({times:.1}x), {outcome:?}", text.len());
    assert!(peak <= budget(text.len()), "peak {peak} bytes ({times:.1}x) for {} bytes", text.len());
}

/// The three ways a document is read all refuse it.
fn refused_everywhere(text: &str, why: &str) {
    let dynamic = JsonReader::new().read::<reflectable::dynamic::DynamicGraph>(text).map(|(graph, _)| graph).map(drop);
    let bytes = json::to_bytes(text).map(drop);
    let typed = JsonReader::new().read::<Kit>(text).map(|(kit, _)| break_cycles(&kit));
    println!("{why}: read_dynamic {dynamic:?}\njson::to_bytes {bytes:?}\nread_as {typed:?}");
    assert!(dynamic.is_err(), "{why}: read_dynamic accepts it");
    assert!(bytes.is_err(), "{why}: json::to_bytes accepts it");
    assert!(typed.is_err(), "{why}: read_as accepts it");
}

/// The kit's document, as the library writes it.
fn kit_text() -> String {
    json::to_string(&kit()).unwrap()
}

/// Issue 38 (4): `{"name": "first", "name": "second"}` loaded "second".
#[test]
fn json_duplicate_member_is_refused() {
    let text = edit(&kit_text(), "\"name\": \"kit\"", "\"name\": \"first\",\n      \"name\": \"second\"");
    refused_everywhere(&text, "a member given twice");
}

/// Issue 38 (4): a member beside a reference (`{"$ref": 5, "extra": 1}`) was ignored.
#[test]
fn json_member_beside_a_reference_is_refused() {
    let text = kit_text();
    let at = text.find("\"other\": {").unwrap() + "\"other\": ".len();
    let (start, end) = value_at(&text, at).unwrap();
    assert_eq!(serde_json::from_str::<serde_json::Value>(&text[start..end]).unwrap(), serde_json::json!({"$ref": 2}));
    let text = format!("{}{{\"$ref\": 2, \"extra\": 1}}{}", &text[..start], &text[end..]);
    refused_everywhere(&text, "a member beside `$ref`");
}

/// Issue 38 (4): `1e39` for an `f32` was stored as infinity.
#[test]
fn json_f32_out_of_range_is_refused() {
    let text = edit(&kit_text(), "\"ratio\": 0.5", "\"ratio\": 1e39");
    refused_everywhere(&text, "1e39 for an f32");
}

/// What issue 38 (5) asks of `json::to_bytes`: an error, or bytes that the dynamic decoder and
/// the typed one both accept.
fn to_bytes_refuses_or_decodes(text: &str, why: &str) {
    let _turn = turn();
    let check = || match json::to_bytes(text) {
        Err(error) => Ok(format!("refused: {error}")),
        Ok(bytes) => {
            let dynamic = DynamicGraph::from_bytes(&bytes).map(drop);
            let typed = BinarySerializer::new().decode::<Kit>(&bytes).map(|kit| break_cycles(&kit));
            match (dynamic, typed) {
                (Ok(()), Ok(())) => Ok("accepted, and its bytes decode".to_owned()),
                (dynamic, typed) => Err(format!("bytes the decoders refuse: dynamic {dynamic:?}, typed {typed:?}")),
            }
        }
    };
    let _ = check(); // first uses of lazy statics
    let (checked, peak, left) = measure(check);
    // The message made while measuring is alive after it: not a leak.
    let message = match &checked {
        Ok(message) | Err(message) => message.capacity() as isize,
    };
    let left = left - message;
    println!("{why}: {checked:?}, peak {peak} bytes, {left} bytes left");
    assert!(checked.is_ok(), "{why}: json::to_bytes gave {}", checked.unwrap_err());
    assert_eq!(left, 0, "{why}: {left} bytes leaked");
}

/// Issue 38 (5): `"$variant": 99` on an enum without data held by value.
#[test]
fn json_to_bytes_of_an_unknown_variant_decodes_or_fails() {
    let text = edit(
        &kit_text(),
        "\"$type\": \"Mode\",\n        \"$variant\": \"Busy\"",
        "\"$type\": \"Mode\",\n        \"$variant\": 99",
    );
    to_bytes_refuses_or_decodes(&text, "variant 99");
}

/// Issue 38 (5): `"$type": "Pen"` on an element of a nested list (`Kit::brushes`, a list of
/// lists of `Brush`es: its first element, a list object, made a `Pen`).
#[test]
fn json_to_bytes_of_a_foreign_type_in_a_nested_list_decodes_or_fails() {
    let text = kit_text();
    let list = "\"brushes\": [\n        {\n          \"$type\": 4294967041,";
    let text = edit(&text, list, "\"brushes\": [\n        {\n          \"$type\": \"Pen\",");
    to_bytes_refuses_or_decodes(&text, "a Pen for a list in a list");
}

/// Issue 38 (5): a schema entry in `types` listing field 1 twice (`Pen`'s field 1 as `ink`, and
/// again as `ink2`).
#[test]
fn json_to_bytes_of_a_type_listing_a_field_twice_decodes_or_fails() {
    let text = kit_text();
    let pen = text.find("\"name\": \"Pen\"").expect("Pen's schema");
    let fields = text[pen..].find("\"fields\": [").expect("Pen's fields") + pen + "\"fields\": [".len();
    let first = fields + text[fields..].find('{').expect("Pen's first field");
    let (start, end) = value_at(&text, first).unwrap();
    assert!(text[start..end].contains("\"name\": \"ink\""), "{}", &text[start..end]);
    let again = text[start..end].replace("\"name\": \"ink\"", "\"name\": \"ink2\"");
    let text = format!("{},\n{again}{}", &text[..end], &text[end..]);
    to_bytes_refuses_or_decodes(&text, "field 1 listed twice");
}

// ---- the hostile suite --------------------------------------------------------------------------

/// Patch bytes: every truncation and 6,000 mutations of real patches, read and applied.
#[test]
fn hostile_patch_bytes() {
    surface_suite(Surface::PatchBytes);
}

/// Patch JSON: every truncation and 6,000 mutations of real patches' JSON, read and applied.
#[test]
fn hostile_patch_json() {
    surface_suite(Surface::PatchJson);
}

/// Graph JSON: every truncation and 6,000 mutations of documents the library writes, read
/// dynamically, converted to bytes and read typed.
#[test]
fn hostile_graph_json() {
    surface_suite(Surface::GraphJson);
}

/// The harness itself: the seeds are what they claim (each patch applies completely and gives
/// its edited graph; each document reads back as its type; mutations change their seed), so a
/// suite that passes has tried what it says.
#[test]
fn the_seeds_and_mutations_are_sound() {
    for (patch, kind, name) in patches() {
        assert!(!patch.is_empty(), "{name}: a patch that changes something");
        let report = match kind {
            Kind::Level => {
                let mut level = small_level();
                let report = patch.apply(&mut level);
                break_cycles(&level);
                report
            }
            _ => patch.apply(&mut sheet()),
        };
        assert!(report.is_complete(), "{name}: {:?}", report.problems());
        for json in [false, true] {
            let bytes = if json { patch.to_json().unwrap().into_bytes() } else { patch.to_bytes().unwrap() };
            let surface = if json { Surface::PatchJson } else { Surface::PatchBytes };
            assert_eq!(try_input(surface, kind, &bytes), Ok(1), "{name}");
        }
    }
    for (text, kind, name) in documents() {
        let checked = graph_input(kind, &text);
        assert_eq!(checked, Ok(READ_DYNAMIC | TO_BYTES | READ_AS), "{name}");
    }
    for surface in [Surface::PatchBytes, Surface::PatchJson, Surface::GraphJson] {
        let seeds = surface.seeds();
        let mutated = inputs_from(&seeds, surface, truncations(&seeds));
        let same = mutated.filter(|input| input.bytes() == input.seed.bytes.as_slice()).count();
        assert!(same < surface.mutations() / 20, "{}: {same} mutations left their seed as it was", surface.name());
    }
}
