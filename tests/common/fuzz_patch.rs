//! Patches for the `patch` (binary form) and `patch_json` (JSON form) fuzz targets and their
//! regression replay: a patch is data that may come from anywhere (a saved override, a network
//! peer), so any bytes or JSON read as one must apply with a report, never a panic, and leave a
//! graph that still saves.
//!
//! Whatever reads applies to two sample graphs: the example level (a scene tree, trait objects,
//! `Weak` parents, a map of shared materials) and a [`Sheet`] (plain arrays edited in the middle,
//! so that patches hold element runs; objects by value and pointers in arrays that patches
//! rebuild; an enum whose variant they switch; pages and cells they create; notes a newer build
//! wrote, whose fields this build lacks and keeps, so patches carry kept sets). The seeds are real
//! patches of both ([`sample_patches`]), and [`mutate_patch`] edits a patch's counts, runs,
//! indices, origins, paths and type IDs in place, so the fuzzer explores inside well-formed
//! patches instead of stopping at the decoder.
//!
//! The including crate declares `level` (examples/common/level.rs) and `fuzz_model` beside this
//! module.
#![allow(dead_code)]

use crate::level::{build_level, scene_objects as objects, Level, Rng, SceneObject};
use reflectable::clone::deep_clone;
use reflectable::diff::{diff, diff_external, rtti_eq, Patch};
use reflectable::dynamic::{DynamicGraph, DynamicObject, DynamicSection, DynamicValue};
use reflectable::field::SharedObject;
use reflectable::rtti::{break_cycles, Registry, UnknownFields};
use reflectable::serializer::BinarySerializer;
use reflectable::Reflectable;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::{Rc, Weak};

/// A cell of a [`Sheet`]: held by value, in maps and behind shared pointers.
#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 330_501)]
pub struct Tile {
    #[rtti(id = 1)]
    pub label: String,
    #[rtti(id = 2)]
    pub weight: u32,
    #[rtti(id = 3)]
    pub marks: Vec<u16>,
}

/// An enum with data, whose variant a patch switches.
#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 330_502)]
pub enum Shape {
    #[default]
    #[rtti(id = 1)]
    Dot,
    #[rtti(id = 2)]
    Line {
        #[rtti(id = 1)]
        from: u32,
        #[rtti(id = 2)]
        to: u32,
    },
    #[rtti(id = 3)]
    Poly(#[rtti(id = 1)] Vec<u32>, #[rtti(id = 2, embedded)] Vec<Tile>),
}

/// A note written by a newer build ([`newer::Note`]): this build keeps the fields it lacks, so
/// the sheet's notes give patches kept sets to replace (`PatchKept`) and kept values to edit.
#[derive(Reflectable, Default)]
#[rtti(id = 330_503)]
pub struct Note {
    #[rtti(id = 1)]
    pub text: String,
    #[rtti(unknown)]
    pub kept: UnknownFields,
}

pub mod newer {
    use reflectable::Reflectable;

    /// [`super::Note`] as a newer build declares it: two fields more.
    #[derive(Reflectable, Default)]
    #[rtti(id = 330_503, no_register)]
    pub struct Note {
        #[rtti(id = 1)]
        pub text: String,
        #[rtti(id = 2)]
        pub stars: u32,
        #[rtti(id = 3)]
        pub tags: Vec<String>,
    }
}

/// A note as this build loads it from a newer build's save: `stars` and `tags` kept.
pub fn note(text: &str, stars: u32, tags: &[&str]) -> Rc<RefCell<Note>> {
    let mut registry = Registry::new();
    registry.register_type::<newer::Note>().expect("the newer note registers");
    let newer = newer::Note { text: text.into(), stars, tags: tags.iter().map(|tag| tag.to_string()).collect() };
    let bytes = BinarySerializer::with_registry(&registry).encode(&newer).expect("a newer note saves");
    let loaded: Note = BinarySerializer::new().decode(&bytes).expect("a newer note loads");
    assert!(!loaded.kept.is_empty(), "the newer note's fields are kept");
    Rc::new(RefCell::new(loaded))
}

/// The second graph patches apply to: every array kind a patch splices or rebuilds.
#[derive(Reflectable, Default)]
#[rtti(id = 330_500)]
pub struct Sheet {
    #[rtti(id = 1)]
    pub bytes: Vec<u8>,
    #[rtti(id = 2)]
    pub words: Vec<String>,
    #[rtti(id = 3)]
    pub numbers: Vec<u32>,
    #[rtti(id = 4, array)]
    pub fixed: [u32; 4],
    #[rtti(id = 5, embedded)]
    pub tiles: Vec<Tile>,
    #[rtti(id = 6, embedded)]
    pub by_key: BTreeMap<u32, Tile>,
    #[rtti(id = 7)]
    pub links: Vec<Option<Rc<RefCell<Tile>>>>,
    #[rtti(id = 8, embedded)]
    pub shape: Shape,
    #[rtti(id = 9, embedded)]
    pub shapes: Vec<Shape>,
    #[rtti(id = 10)]
    pub pages: Vec<Rc<RefCell<Sheet>>>,
    #[rtti(id = 11)]
    pub frozen: Option<Rc<Tile>>,
    #[rtti(id = 12)]
    pub back: Weak<RefCell<Sheet>>,
    #[rtti(id = 13)]
    pub notes: Vec<Rc<RefCell<Note>>>,
    /// A plain map, which patches edit entry by entry.
    #[rtti(id = 14)]
    pub settings: BTreeMap<String, f32>,
}

/// The level every patch applies to.
fn sample_level() -> Level {
    build_level(24, 5).0
}

fn tile(label: &str, weight: u32, marks: usize) -> Tile {
    Tile { label: label.into(), weight, marks: (0..marks as u16).collect() }
}

/// The sheet every patch applies to: long plain arrays (so that an edit in the middle is a few
/// runs), tiles by value, in a map and shared (one of them twice), a page holding another that
/// points back at it, an immutable tile.
pub fn sample_sheet() -> Sheet {
    let shared: Vec<Rc<RefCell<Tile>>> =
        (0..4).map(|i| Rc::new(RefCell::new(tile(&format!("linked {i}"), i, 2)))).collect();
    let page = |name: &str| {
        Rc::new(RefCell::new(Sheet {
            words: vec![name.into(), "page".into()],
            numbers: (0..12).collect(),
            links: vec![Some(shared[0].clone())],
            ..Sheet::default()
        }))
    };
    let (first, second) = (page("first"), page("second"));
    second.borrow_mut().back = Rc::downgrade(&first);
    first.borrow_mut().pages.push(second.clone());
    Sheet {
        bytes: (0..64).collect(),
        words: (0..20).map(|i| format!("word {i}")).collect(),
        numbers: (0..40).map(|i| i * i).collect(),
        fixed: [1, 2, 3, 4],
        settings: [("speed", 5.0), ("jump", 1.25), ("gravity", 9.8)].into_iter().map(|(k, v)| (k.into(), v)).collect(),
        tiles: (0..8).map(|i| tile(&format!("tile {i}"), 10 * i, i as usize + 8)).collect(),
        by_key: [1, 5, 9].into_iter().map(|k| (k, tile(&format!("key {k}"), k, 1))).collect(),
        links: vec![
            Some(shared[0].clone()),
            Some(shared[1].clone()),
            None,
            Some(shared[2].clone()),
            Some(shared[0].clone()),
            Some(shared[3].clone()),
        ],
        shape: Shape::Line { from: 1, to: 2 },
        shapes: vec![
            Shape::Dot,
            Shape::Line { from: 3, to: 4 },
            Shape::Poly(vec![5, 6, 7], vec![tile("corner", 1, 3)]),
        ],
        pages: vec![first, second],
        frozen: Some(Rc::new(tile("frozen", 7, 4))),
        back: Weak::new(),
        notes: vec![note("first", 3, &["red"]), note("second", 5, &["blue", "green"]), Rc::default()],
    }
}

/// A sheet's shared objects: its pages and the tiles they link.
type SheetObjects = (Vec<Rc<RefCell<Sheet>>>, Vec<Rc<RefCell<Tile>>>);

/// Every shared object of a sheet, so that those a patch detaches are torn down too.
fn sheet_objects(sheet: &Sheet) -> SheetObjects {
    let mut pages: Vec<Rc<RefCell<Sheet>>> = sheet.pages.clone();
    let mut tiles: Vec<Rc<RefCell<Tile>>> = sheet.links.iter().flatten().cloned().collect();
    let mut next = 0;
    while next < pages.len() {
        let page = pages[next].clone();
        let page = page.borrow();
        tiles.extend(page.links.iter().flatten().cloned());
        for inner in &page.pages {
            if !pages.iter().any(|known| Rc::ptr_eq(known, inner)) {
                pages.push(inner.clone());
            }
        }
        next += 1;
    }
    (pages, tiles)
}

/// Edits of the sample level: renames, a removed subtree and a moved object, an added object.
fn level_edits() -> [fn(&mut Level); 3] {
    [
        |level| objects(level).iter().step_by(3).for_each(|o| o.borrow_mut().name.push('!')),
        |level| {
            let all = objects(level);
            all[1].borrow_mut().children.clear();
            let moved = all[all.len() - 1].clone();
            all[0].borrow_mut().children.push(moved);
        },
        |level| {
            let root = level.root.clone().expect("a root");
            let added = Rc::new(RefCell::new(SceneObject { name: "added".into(), ..SceneObject::default() }));
            added.borrow_mut().parent = Rc::downgrade(&root);
            root.borrow_mut().children.insert(0, added);
        },
    ]
}

/// Plain arrays edited in the middle: each patch holds element runs over the old elements
/// (static and size-prefixed elements, and a fixed-size array).
fn edit_plain(sheet: &mut Sheet) {
    sheet.bytes.splice(30..30, [200, 201, 202]);
    sheet.bytes.drain(10..12);
    sheet.words[7] = "changed".into();
    sheet.words.insert(12, "inserted".into());
    sheet.words.remove(15);
    sheet.numbers.drain(20..23);
    sheet.numbers.insert(5, 9999);
    sheet.fixed[2] = 30;
    sheet.settings.insert("speed".into(), 7.0);
    sheet.settings.remove("gravity");
    sheet.settings.insert("dash".into(), 2.5);
}

/// Objects by value rebuilt: an inserted tile, a removed one, a moved one, edits inside kept
/// ones (runs in their own plain arrays), and map entries added, removed and changed.
fn edit_embedded(sheet: &mut Sheet) {
    sheet.tiles.remove(2);
    sheet.tiles.insert(0, tile("new tile", 5, 3));
    let last = sheet.tiles.pop().expect("tiles");
    sheet.tiles.insert(3, last);
    sheet.tiles[5].label.push('!');
    sheet.tiles[6].marks.insert(4, 77);
    sheet.by_key.insert(7, tile("key 7", 7, 2));
    sheet.by_key.remove(&5);
    sheet.by_key.get_mut(&9).expect("key 9").weight = 90;
}

/// Pointer arrays rebuilt: reordered, a null added, a created tile inserted, one removed.
fn edit_pointers(sheet: &mut Sheet) {
    sheet.links.reverse();
    sheet.links.insert(2, None);
    sheet.links.insert(1, Some(Rc::new(RefCell::new(tile("created link", 3, 5)))));
    sheet.links.remove(4);
    sheet.pages.swap(0, 1);
}

/// Enum variants switched (each new variant's fields given in full).
fn edit_variants(sheet: &mut Sheet) {
    sheet.shape = Shape::Poly(vec![1, 2, 3, 4], vec![tile("vertex", 2, 2)]);
    sheet.shapes[0] = Shape::Line { from: 8, to: 9 };
    sheet.shapes[2] = Shape::Dot;
    sheet.shapes.push(Shape::Poly(vec![], vec![]));
}

/// Objects created: a page with arrays of its own pointing back at the sheet's pages and at a
/// created tile the sheet links too; an immutable tile replaced by a new one.
fn edit_created(sheet: &mut Sheet) {
    let created = Rc::new(RefCell::new(tile("shared new", 11, 6)));
    let page = Rc::new(RefCell::new(Sheet {
        bytes: vec![9; 10],
        words: vec!["created".into(), "page".into()],
        numbers: (0..30).collect(),
        tiles: vec![tile("inner", 1, 1)],
        links: vec![Some(created.clone()), None],
        shape: Shape::Line { from: 0, to: 1 },
        back: Rc::downgrade(&sheet.pages[0]),
        ..Sheet::default()
    }));
    page.borrow_mut().pages.push(sheet.pages[1].clone());
    sheet.pages.push(page);
    sheet.links.push(Some(created));
    sheet.frozen = Some(Rc::new(tile("refrozen", 8, 3)));
}

/// Kept fields, each note changed in place (the same object): kept values changed (loaded from
/// another newer save), a note that kept nothing given a kept set (which `diff` makes anew, a
/// created object with a kept set), a note's kept set cleared (a kept edit of an existing object);
/// and created notes, one keeping fields, one keeping nothing.
fn edit_kept(sheet: &mut Sheet) {
    let reload = |note: &Rc<RefCell<Note>>, from: Rc<RefCell<Note>>| {
        let from = Rc::try_unwrap(from).ok().expect("a fresh note").into_inner();
        *note.borrow_mut() = from;
    };
    reload(&sheet.notes[0], note("first", 4, &["red", "amber"]));
    reload(&sheet.notes[2], note("was empty", 1, &[]));
    *sheet.notes[1].borrow_mut() = Note { text: "second, cleared".into(), kept: UnknownFields::default() };
    sheet.notes.push(note("created", 9, &["new"]));
    sheet.notes.push(Rc::default());
}

/// Edits of the sample sheet: each kind of edit alone, then all of them at once.
fn sheet_edits() -> [fn(&mut Sheet); 7] {
    [edit_plain, edit_embedded, edit_pointers, edit_variants, edit_created, edit_kept, |sheet| {
        edit_plain(sheet);
        edit_embedded(sheet);
        edit_pointers(sheet);
        edit_variants(sheet);
        edit_created(sheet);
        edit_kept(sheet);
    }]
}

fn tear_down_sheet(sheet: &Sheet, (pages, tiles): &SheetObjects) {
    break_cycles(sheet);
    pages.iter().for_each(break_cycles);
    tiles.iter().for_each(break_cycles);
}

/// Real patches of the sample level and of the sample sheet (see [`sheet_edits`]), each with the
/// graph it applies to, `diff` checked by applying it: the seeds.
pub fn sample_patch_values() -> Vec<Patch> {
    let mut out = Vec::new();
    let level = sample_level();
    for edit in level_edits() {
        let mut edited = deep_clone(&level).expect("the level clones");
        edit(&mut edited);
        out.push(diff(&level, &edited).expect("levels diff"));
        break_cycles(&edited);
    }
    break_cycles(&level);
    let sheet = sample_sheet();
    for edit in sheet_edits() {
        let mut edited = deep_clone(&sheet).expect("the sheet clones");
        edit(&mut edited);
        let patch = diff(&sheet, &edited).expect("sheets diff");
        let mut target = sample_sheet();
        let shared = sheet_objects(&target);
        let report = patch.apply(&mut target);
        assert!(report.is_complete(), "{report}");
        if let Err(difference) = rtti_eq(&target, &edited) {
            panic!("the patch applied gives another sheet: {difference}");
        }
        tear_down_sheet(&target, &shared);
        tear_down_sheet(&edited, &sheet_objects(&edited));
        out.push(patch);
    }
    // A link to a tile outside the sheet (an asset), as an external reference by key.
    let mut edited = deep_clone(&sheet).expect("the sheet clones");
    let outside = Rc::new(RefCell::new(tile("outside", 1, 1)));
    edited.links.push(Some(outside.clone()));
    let key = |object: &SharedObject| (object.addr() == SharedObject::new(outside.clone()).addr()).then_some(7);
    out.push(diff_external(&sheet, &edited, &key).expect("sheets diff"));
    tear_down_sheet(&edited, &sheet_objects(&edited));
    tear_down_sheet(&sheet, &sheet_objects(&sheet));
    out
}

/// Re-links external references of the fuzzed patches: a tile for a tile's type ID, else an
/// object of another type (which the apply must refuse), for even keys; nothing for odd ones.
fn relink(key: u64, type_id: u32) -> Option<SharedObject> {
    let tile_type = Tile::rtti_static().id();
    match (key % 2, type_id == tile_type) {
        (0, true) => Some(SharedObject::new(Rc::new(RefCell::new(tile("relinked", 2, 2))))),
        (0, false) => Some(SharedObject::new(Rc::new(RefCell::new(Sheet::default())))),
        _ => None,
    }
}

/// The `patch` target's seeds: the sample patches' bytes.
pub fn sample_patch_bytes() -> Vec<Vec<u8>> {
    sample_patch_values().iter().map(|patch| patch.to_bytes().expect("a patch saves")).collect()
}

/// The `patch_json` target's seeds: the sample patches' readable JSON, the first as written, the
/// others printed compact (the fuzzer's inputs are short).
pub fn sample_patch_json() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (index, patch) in sample_patch_values().iter().enumerate() {
        let text = patch.to_json().expect("a patch saves");
        if index == 0 {
            out.push(text.into_bytes());
        } else {
            let value: serde_json::Value = serde_json::from_str(&text).expect("its JSON parses");
            out.push(serde_json::to_vec(&value).expect("JSON prints"));
        }
    }
    out
}

/// Both seed sets: what `tests/memory.rs` and the regression replay run through
/// [`patch_applies`].
pub fn sample_patches() -> Vec<Vec<u8>> {
    [sample_patch_bytes(), sample_patch_json()].concat()
}

/// `data` read as a patch, in whichever form it has: a stream (its magic), JSON (an object), or
/// an input of the one target both forms once shared (its first byte even: the binary form,
/// odd: JSON), then applied as [`apply_to_samples`] does.
pub fn patch_applies(data: &[u8]) {
    let trimmed = data.trim_ascii_start();
    if data.starts_with(b"RFLB") {
        patch_bytes_apply(data);
    } else if trimmed.starts_with(b"{") || trimmed.is_empty() {
        patch_json_applies(data);
    } else if let Some((&mode, rest)) = data.split_first() {
        if mode % 2 == 0 {
            patch_bytes_apply(rest);
        } else {
            patch_json_applies(rest);
        }
    }
}

/// The `patch` target: `data` read as a patch's bytes, applied to both sample graphs.
pub fn patch_bytes_apply(data: &[u8]) {
    if let Ok((patch, _)) = Patch::from_bytes(data) {
        apply_to_samples(&patch);
    }
}

/// The `patch_json` target: `data` read as a patch's JSON, applied to both sample graphs. A
/// patch read is written again, and reads back as the same patch.
pub fn patch_json_applies(data: &[u8]) {
    if let Ok((patch, _)) = Patch::from_json(&String::from_utf8_lossy(data)) {
        let text = patch.to_json().expect("a patch read writes");
        match Patch::from_json(&text) {
            Ok((back, _)) => assert_eq!(back, patch, "the patch written reads back the same"),
            Err(error) => panic!("the patch written does not read back: {error}\n{text}"),
        }
        apply_to_samples(&patch);
    }
}

/// `patch` applied to the sample level and to the sample sheet: a report (which shows), never a
/// panic; each graph still saves (or refuses with an error). The level's scene objects hold strong cycles
/// (cameras following their own object), so those a patch detaches from the level are torn down
/// by hand, as an editor deleting them would, and so are the sheet's pages and linked tiles;
/// the objects the patch created must not need it (`tests/memory.rs` checks nothing is left).
pub fn apply_to_samples(patch: &Patch) {
    let mut level = sample_level();
    let originals = objects(&level);
    let report = patch.apply_relinked(&mut level, &relink);
    let _ = report.to_string();
    let _ = reflectable::to_vec(&level);
    break_cycles(&level);
    originals.iter().for_each(break_cycles);

    // Applied as is, and described: the description changes nothing of what is applied.
    let mut sheet = sample_sheet();
    let originals = sheet_objects(&sheet);
    let report = patch.apply(&mut sheet);
    let saved = reflectable::to_vec(&sheet).map_err(|error| error.to_string());
    tear_down_sheet(&sheet, &originals);
    let mut described = sample_sheet();
    let originals = sheet_objects(&described);
    let (described_report, changes) = patch.apply_described(&mut described, Registry::global());
    assert_eq!(described_report.to_string(), report.to_string());
    assert_eq!(reflectable::to_vec(&described).map_err(|error| error.to_string()), saved);
    changes.iter().for_each(|change| drop(change.to_string()));
    tear_down_sheet(&described, &originals);
}

// ---- structure-aware mutation ---------------------------------------------------------------

/// A random sequence for one mutation: libFuzzer's seeds are small consecutive numbers, so they
/// are spread first.
pub fn mutation_rng(seed: u64) -> Rng {
    let mut rng = Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    rng.next();
    rng
}

/// Where an object held by value lies inside the root: `(section, field, element)` steps.
type Steps = Vec<(usize, usize, usize)>;

/// A place a mutation can change: a plain field, or an array of objects held by value.
enum Spot {
    Plain { at: Steps, section: usize, id: u16 },
    List { at: Steps, section: usize, field: usize, type_id: Option<u32> },
}

fn spots(object: &DynamicObject, at: &mut Steps, out: &mut Vec<Spot>) {
    for (s, section) in object.sections().iter().enumerate() {
        for (f, field) in section.fields().iter().enumerate() {
            match field.value() {
                DynamicValue::Plain(_) => out.push(Spot::Plain { at: at.clone(), section: s, id: field.id() }),
                DynamicValue::Embedded(elements) => {
                    if field.shape().array {
                        let type_id = elements.iter().flatten().next().map(DynamicObject::type_id);
                        out.push(Spot::List { at: at.clone(), section: s, field: f, type_id });
                    }
                    for (e, element) in elements.iter().enumerate() {
                        if let Some(element) = element {
                            at.push((s, f, e));
                            spots(element, at, out);
                            at.pop();
                        }
                    }
                }
                DynamicValue::Pointer(_) => {}
            }
        }
    }
}

fn object_at<'a>(mut object: &'a mut DynamicObject, steps: &[(usize, usize, usize)]) -> Option<&'a mut DynamicObject> {
    for &(s, f, e) in steps {
        object = object.sections_mut().get_mut(s)?.fields_mut().get_mut(f)?.objects_mut()?.get_mut(e)?.as_mut()?;
    }
    Some(object)
}

/// Every number a patch's plain fields hold (type and field IDs, counts, indices): what a
/// mutation swaps in elsewhere.
fn dictionary(root: &DynamicObject, spots: &[Spot]) -> Vec<u32> {
    let mut out = Vec::new();
    for spot in spots {
        let Spot::Plain { at, section, id } = spot else { continue };
        let Some(section) = object_at_ref(root, at).and_then(|object| object.sections().get(*section)) else {
            continue;
        };
        if let Ok(value) = section.get::<u32>(*id) {
            out.push(value);
        } else if let Ok(Some(value)) = section.get::<Option<u32>>(*id) {
            out.push(value);
        } else if let Ok(steps) = section.get::<Vec<(u32, u16, u32)>>(*id) {
            out.extend(steps.iter().flat_map(|&(a, b, c)| [a, b.into(), c]));
        } else if let Ok(pairs) = section.get::<Vec<(u32, u32)>>(*id) {
            out.extend(pairs.iter().flat_map(|&(a, b)| [a, b]));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn object_at_ref<'a>(mut object: &'a DynamicObject, steps: &[(usize, usize, usize)]) -> Option<&'a DynamicObject> {
    for &(s, f, e) in steps {
        let DynamicValue::Embedded(elements) = object.sections().get(s)?.fields().get(f)?.value() else {
            return None;
        };
        object = elements.get(e)?.as_ref()?;
    }
    Some(object)
}

/// A number to put where `value` was: a boundary (0, 1, one off, the largest, `NONE`), a power of
/// two, a small one, or one the patch holds elsewhere.
fn number(value: u32, rng: &mut Rng, dictionary: &[u32]) -> u32 {
    match rng.below(13) {
        0 => 0,
        1 => 1,
        2 => value.wrapping_sub(1),
        3 => value.wrapping_add(1),
        4 => u32::MAX,
        5 => u32::MAX - 1,
        6 => 1 << rng.below(32),
        7 => value.wrapping_mul(2),
        8 => rng.below(64) as u32,
        9 => 0x7FFF_FFFF,
        10 | 11 if !dictionary.is_empty() => dictionary[rng.below(dictionary.len())],
        _ => value ^ (1 << rng.below(32)),
    }
}

/// A list edited as a whole or in one element: one changed, duplicated, removed, swapped with
/// another, or a new one appended.
fn edit_list<T: Clone>(list: &mut Vec<T>, rng: &mut Rng, fresh: T, mut change: impl FnMut(&mut T, &mut Rng)) {
    let len = list.len();
    match rng.below(6) {
        0 | 1 if len > 0 => change(&mut list[rng.below(len)], rng),
        2 if len > 0 => {
            let element = list[rng.below(len)].clone();
            list.insert(rng.below(len + 1), element);
        }
        3 if len > 0 => {
            list.remove(rng.below(len));
        }
        4 if len > 1 => list.swap(rng.below(len), rng.below(len)),
        _ => {
            let mut element = fresh;
            change(&mut element, rng);
            list.insert(rng.below(len + 1), element);
        }
    }
}

/// Changes the plain field `id` of `section` by its type (one of those patches hold): `true`
/// when it did.
fn mutate_plain(section: &mut DynamicSection, id: u16, rng: &mut Rng, dict: &[u32]) -> bool {
    if let Ok(value) = section.get::<u32>(id) {
        return section.set(id, &number(value, rng, dict)).is_ok();
    }
    if let Ok(value) = section.get::<u16>(id) {
        return section.set(id, &(number(value.into(), rng, dict) as u16)).is_ok();
    }
    if let Ok(value) = section.get::<bool>(id) {
        return section.set(id, &!value).is_ok();
    }
    if let Ok(value) = section.get::<Option<u32>>(id) {
        let value = match value {
            Some(_) if rng.below(3) == 0 => None,
            value => Some(number(value.unwrap_or(0), rng, dict)),
        };
        return section.set(id, &value).is_ok();
    }
    if let Ok((mut kind, mut from, mut family)) = section.get::<(u8, u32, u8)>(id) {
        match rng.below(3) {
            0 => kind = rng.below(4) as u8,
            1 => from = number(from, rng, dict),
            _ => family = rng.below(6) as u8,
        }
        return section.set(id, &(kind, from, family)).is_ok();
    }
    if let Ok(mut steps) = section.get::<Vec<(u32, u16, u32)>>(id) {
        edit_list(&mut steps, rng, (0, 0, 0), |step, rng| match rng.below(3) {
            0 => step.0 = number(step.0, rng, dict),
            1 => step.1 = number(step.1.into(), rng, dict) as u16,
            _ => step.2 = number(step.2, rng, dict),
        });
        return section.set(id, &steps).is_ok();
    }
    if let Ok(mut pairs) = section.get::<Vec<(u32, u32)>>(id) {
        edit_list(&mut pairs, rng, (u32::MAX, 1), |pair, rng| {
            if rng.bool() {
                pair.0 = number(pair.0, rng, dict);
            } else {
                pair.1 = number(pair.1, rng, dict);
            }
        });
        return section.set(id, &pairs).is_ok();
    }
    if let Ok(mut bytes) = section.get::<Vec<u8>>(id) {
        mutate_element_bytes(&mut bytes, rng);
        return section.set(id, &bytes).is_ok();
    }
    false
}

/// A plain edit's element bytes: a size prefix or word set to a boundary, a byte changed, the
/// bytes cut short or grown.
fn mutate_element_bytes(bytes: &mut Vec<u8>, rng: &mut Rng) {
    match rng.below(5) {
        0 | 1 if bytes.len() >= 4 => {
            let at = rng.below(bytes.len() - 3);
            let word = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"));
            let word = number(word, rng, &[]);
            bytes[at..at + 4].copy_from_slice(&word.to_le_bytes());
        }
        2 if !bytes.is_empty() => {
            let at = rng.below(bytes.len());
            bytes[at] = rng.next() as u8;
        }
        3 if !bytes.is_empty() => bytes.truncate(rng.below(bytes.len())),
        _ => bytes.extend((0..1 + rng.below(8)).map(|_| rng.next() as u8)),
    }
}

/// A plain edit's elements and their count changed together: doubled (the new elements appended
/// to its runs), dropped, or the count alone set to a boundary (what the bytes do not hold).
fn mutate_count(section: &mut DynamicSection, rng: &mut Rng, dict: &[u32]) -> bool {
    let id = |name: &str| section.field_by_name(name).map(|field| field.id());
    let (Some(count_id), Some(bytes_id), runs_id) = (id("count"), id("bytes"), id("runs")) else {
        return false;
    };
    let (Ok(count), Ok(bytes)) = (section.get::<u32>(count_id), section.get::<Vec<u8>>(bytes_id)) else {
        return false;
    };
    let mut runs = runs_id.and_then(|id| section.get::<Vec<(u32, u32)>>(id).ok());
    let (count, bytes) = match rng.below(3) {
        0 => {
            if let Some(runs) = runs.as_mut().filter(|runs| !runs.is_empty()) {
                runs.push((u32::MAX, count));
            }
            (count.wrapping_mul(2), bytes.repeat(2))
        }
        1 => {
            if let Some(runs) = runs.as_mut() {
                runs.retain(|&(start, _)| start != u32::MAX);
            }
            (0, Vec::new())
        }
        _ => (number(count, rng, dict), bytes),
    };
    let mut done = section.set(count_id, &count).is_ok() && section.set(bytes_id, &bytes).is_ok();
    if let (Some(id), Some(runs)) = (runs_id, runs) {
        done &= section.set(id, &runs).is_ok();
    }
    done
}

/// An array of objects held by value edited: an element duplicated, removed, moved, emptied, or
/// replaced by an object of its type from elsewhere in the patch (`graft`).
fn mutate_list(object: &mut DynamicObject, section: usize, field: usize, rng: &mut Rng, graft: Option<DynamicObject>) {
    let Some(field) = object.sections_mut().get_mut(section).and_then(|s| s.fields_mut().get_mut(field)) else {
        return;
    };
    let DynamicValue::Embedded(elements) = field.value() else { return };
    let mut elements = elements.to_vec();
    let len = elements.len();
    match rng.below(6) {
        0 if len > 0 => {
            let element = elements[rng.below(len)].clone();
            elements.insert(rng.below(len + 1), element);
        }
        1 if len > 0 => {
            elements.remove(rng.below(len));
        }
        2 if len > 1 => {
            let element = elements.remove(rng.below(len));
            elements.insert(rng.below(len), element);
        }
        3 => elements.insert(rng.below(len + 1), None),
        _ => match graft {
            Some(graft) if len > 0 && rng.bool() => elements[rng.below(len)] = Some(graft),
            Some(graft) => elements.insert(rng.below(len + 1), Some(graft)),
            None if len > 0 => elements.swap(rng.below(len), rng.below(len)),
            None => {}
        },
    }
    let _ = field.set_objects(elements);
}

/// A structure-aware mutation of a patch's bytes: read as a graph without its types
/// ([`DynamicGraph`]), one to three of its plain fields (counts, runs, element indices, origins,
/// targets, paths, type and field IDs, element bytes) or arrays of edits changed in place, and
/// written again. `None` for bytes that do not read (the fuzzer mutates those byte by byte).
pub fn mutate_patch(bytes: &[u8], seed: u64) -> Option<Vec<u8>> {
    let graph = DynamicGraph::from_bytes(bytes).ok()?;
    let mut rng = mutation_rng(seed);
    for _ in 0..1 + rng.below(3) {
        let (spots, dict) = {
            let root = graph.root().borrow();
            let mut spots = Vec::new();
            self::spots(&root, &mut Vec::new(), &mut spots);
            let dict = dictionary(&root, &spots);
            (spots, dict)
        };
        if spots.is_empty() {
            return None;
        }
        let spot = &spots[rng.below(spots.len())];
        match spot {
            Spot::Plain { at, section, id } => {
                let mut root = graph.root().borrow_mut();
                let Some(section) = object_at(&mut root, at).and_then(|o| o.sections_mut().get_mut(*section)) else {
                    continue;
                };
                if rng.below(4) != 0 || !mutate_count(section, &mut rng, &dict) {
                    mutate_plain(section, *id, &mut rng, &dict);
                }
            }
            Spot::List { at, section, field, type_id } => {
                // Another object of the same type, from anywhere in the patch.
                let graft = {
                    let root = graph.root().borrow();
                    let same: Vec<&Spot> = spots
                        .iter()
                        .filter(|other| matches!(other, Spot::List { type_id: t, .. } if t == type_id && t.is_some()))
                        .collect();
                    let other = same.get(rng.below(same.len().max(1)));
                    other.and_then(|other| {
                        let Spot::List { at, section, field, .. } = other else { return None };
                        let object = object_at_ref(&root, at)?;
                        let DynamicValue::Embedded(elements) =
                            object.sections().get(*section)?.fields().get(*field)?.value()
                        else {
                            return None;
                        };
                        let present: Vec<&DynamicObject> = elements.iter().flatten().collect();
                        present.get(rng.below(present.len().max(1))).map(|&object| object.clone())
                    })
                };
                let mut root = graph.root().borrow_mut();
                if let Some(object) = object_at(&mut root, at) {
                    mutate_list(object, *section, *field, &mut rng, graft);
                }
            }
        }
    }
    graph.to_bytes().ok()
}

/// A structure-aware mutation of a patch's JSON: most often the JSON itself
/// ([`fuzz_model::mutate_json`](crate::fuzz_model::mutate_json): numbers, `$type`s, members
/// duplicated or unknown, nesting), sometimes the patch under it ([`mutate_patch`] on its binary
/// twin, printed again, compact).
pub fn mutate_patch_json(text: &[u8], seed: u64) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(text).ok()?;
    if mutation_rng(seed ^ 0x5A5A).below(4) == 0 {
        if let Some(out) = mutate_patch_json_as_patch(text, seed) {
            return Some(out);
        }
    }
    crate::fuzz_model::mutate_json(text, seed).map(String::into_bytes)
}

fn mutate_patch_json_as_patch(text: &str, seed: u64) -> Option<Vec<u8>> {
    let bytes = match Patch::from_json(text) {
        Ok((patch, _)) => patch.to_bytes().ok()?,
        Err(_) => return None,
    };
    let mutated = mutate_patch(&bytes, seed)?;
    // Read unchecked: the readable form of a malformed patch is written too, and the reader
    // must refuse it.
    let patch: Patch = BinarySerializer::new().decode(&mutated).ok()?;
    let printed = patch.to_json().ok()?;
    let value: serde_json::Value = serde_json::from_str(&printed).ok()?;
    serde_json::to_vec(&value).ok()
}
