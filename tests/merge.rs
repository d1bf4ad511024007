//! Three-way merge (`reflectable::diff::merge`, issue 42 point 5), checked against a model: a level
//! of entities with a declared identity, whose sides are made by random edits of a base (names,
//! numbers, map keys, plain arrays, elements held by value, a `Weak` selection, entities removed
//! and inserted). The model says what the merge must hold and where it must report conflicts.

use quickcheck::{Arbitrary, Gen, QuickCheck};
use reflectable::diff::{merge, rtti_eq, ConflictKind, MergeConflict};
use reflectable::Reflectable;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::{Rc, Weak};

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 964_301)]
struct Part {
    #[rtti(id = 1)]
    kind: String,
    #[rtti(id = 2)]
    power: u32,
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 964_302)]
struct Entity {
    #[rtti(id = 1, identity)]
    id: u64,
    #[rtti(id = 2)]
    name: String,
    #[rtti(id = 3)]
    speed: u32,
    #[rtti(id = 4)]
    tags: Vec<u32>,
    #[rtti(id = 5, embedded)]
    parts: Vec<Part>,
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 964_303)]
struct Level {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    settings: BTreeMap<String, u32>,
    #[rtti(id = 3)]
    entities: Vec<Rc<RefCell<Entity>>>,
    #[rtti(id = 4)]
    selected: Weak<RefCell<Entity>>,
}

/// An entity as the model holds it; `removed` keeps its place, so that an insertion after it
/// lands where the merge puts it.
#[derive(Debug, Clone, PartialEq)]
struct EntityModel {
    id: u64,
    name: String,
    speed: u32,
    tags: Vec<u32>,
    powers: Vec<u32>,
    removed: bool,
    /// `None` for a base entity, else the base entity it was inserted after (`Some(None)`: first).
    inserted_after: Option<Option<u64>>,
}

#[derive(Debug, Clone, PartialEq)]
struct LevelModel {
    name: String,
    settings: BTreeMap<String, u32>,
    entities: Vec<EntityModel>,
    selected: Option<u64>,
}

impl LevelModel {
    fn build(&self) -> Level {
        let entities: Vec<Rc<RefCell<Entity>>> = self
            .entities
            .iter()
            .filter(|entity| !entity.removed)
            .map(|entity| {
                Rc::new(RefCell::new(Entity {
                    id: entity.id,
                    name: entity.name.clone(),
                    speed: entity.speed,
                    tags: entity.tags.clone(),
                    parts: entity
                        .powers
                        .iter()
                        .enumerate()
                        .map(|(at, &power)| Part { kind: format!("part_{at}"), power })
                        .collect(),
                }))
            })
            .collect();
        let selected = self
            .selected
            .and_then(|id| entities.iter().find(|entity| entity.borrow().id == id))
            .map_or_else(Weak::new, Rc::downgrade);
        Level { name: self.name.clone(), settings: self.settings.clone(), entities, selected }
    }

    fn entity(&mut self, id: u64) -> Option<&mut EntityModel> {
        self.entities.iter_mut().find(|entity| entity.id == id)
    }

    /// The selection as a graph built from the model holds it: none if the entity is gone.
    fn selection(&self) -> Option<u64> {
        self.selected.filter(|&id| self.entities.iter().any(|entity| entity.id == id && !entity.removed))
    }

    fn apply(&mut self, op: &Op) {
        match op {
            Op::LevelName(name) => self.name = name.clone(),
            Op::Set(key, value) => {
                self.settings.insert(key.clone(), *value);
            }
            Op::Unset(key) => {
                self.settings.remove(key);
            }
            Op::Name(id, name) => self.entity(*id).unwrap().name = name.clone(),
            Op::Speed(id, speed) => self.entity(*id).unwrap().speed = *speed,
            Op::Tag(id, tag) => self.entity(*id).unwrap().tags.push(*tag),
            Op::Power(id, part, power) => {
                let entity = self.entity(*id).unwrap();
                if let Some(slot) = entity.powers.get_mut(*part) {
                    *slot = *power;
                }
            }
            Op::Remove(id) => self.entity(*id).unwrap().removed = true,
            Op::Insert(after, id) => {
                let mut at = match after {
                    None => 0,
                    Some(after) => self.entities.iter().position(|entity| entity.id == *after).unwrap() + 1,
                };
                // After what was inserted at the same place before: ours' insertions come first.
                while self.entities.get(at).is_some_and(|entity| entity.inserted_after == Some(*after)) {
                    at += 1;
                }
                let entity = EntityModel {
                    id: *id,
                    name: format!("new_{id}"),
                    speed: 1,
                    tags: vec![7],
                    powers: vec![3],
                    removed: false,
                    inserted_after: Some(*after),
                };
                self.entities.insert(at, entity);
            }
            Op::Select(id) => self.selected = *id,
        }
    }
}

#[derive(Debug, Clone)]
enum Op {
    LevelName(String),
    Set(String, u32),
    Unset(String),
    Name(u64, String),
    Speed(u64, u32),
    Tag(u64, u32),
    Power(u64, usize, u32),
    Remove(u64),
    Insert(Option<u64>, u64),
    Select(Option<u64>),
}

/// A base and the two sides' edits of it.
#[derive(Debug, Clone)]
struct Case {
    base: LevelModel,
    ours: Vec<Op>,
    theirs: Vec<Op>,
}

fn pick(g: &mut Gen, n: usize) -> usize {
    usize::arbitrary(g) % n
}

fn base(g: &mut Gen) -> LevelModel {
    let count = 1 + pick(g, 6);
    let entities: Vec<EntityModel> = (0..count as u64)
        .map(|id| EntityModel {
            id,
            name: format!("e{}", pick(g, 3)),
            speed: pick(g, 3) as u32,
            tags: (0..pick(g, 4)).map(|_| pick(g, 5) as u32).collect(),
            powers: (0..pick(g, 3)).map(|_| pick(g, 5) as u32).collect(),
            removed: false,
            inserted_after: None,
        })
        .collect();
    let mut settings = BTreeMap::new();
    for key in ["a", "b", "c", "d"] {
        if bool::arbitrary(g) {
            settings.insert(key.to_string(), pick(g, 3) as u32);
        }
    }
    LevelModel { name: "level".into(), settings, selected: bool::arbitrary(g).then(|| pick(g, count) as u64), entities }
}

/// Edits of `base` by one side: entities of `ids` only, settings of `keys` only, the level's
/// name and selection only if `level`; new entities numbered from `fresh`. No side inserts after
/// an entity it removes (where the new one goes is then a matter of taste).
fn side(g: &mut Gen, base: &LevelModel, ids: &[u64], keys: &[&str], level: bool, fresh: u64) -> Vec<Op> {
    let mut ops = Vec::new();
    let (mut removed, mut inserted_after) = (BTreeSet::new(), BTreeSet::new());
    let mut next = fresh;
    for _ in 0..pick(g, 6) {
        let id = ids.get(pick(g, ids.len().max(1))).copied();
        let key = keys.get(pick(g, keys.len().max(1))).map(|k| k.to_string());
        let kind = pick(g, 10);
        // A side with no entity to edit skips entity edits.
        let id = match (id, kind) {
            (Some(id), _) => id,
            (None, 3..=7) => continue,
            (None, _) => u64::MAX,
        };
        let op = match kind {
            0 if level => Op::LevelName(format!("level_{}", pick(g, 3))),
            1 => match key {
                Some(key) => Op::Set(key, pick(g, 4) as u32),
                None => continue,
            },
            2 => match key {
                Some(key) => Op::Unset(key),
                None => continue,
            },
            3 => Op::Name(id, format!("n{}", pick(g, 3))),
            4 => Op::Speed(id, pick(g, 4) as u32),
            5 => Op::Tag(id, pick(g, 4) as u32),
            6 => {
                let parts = base.entities.iter().find(|entity| entity.id == id).unwrap().powers.len();
                if parts == 0 {
                    continue;
                }
                Op::Power(id, pick(g, parts), pick(g, 5) as u32)
            }
            7 if !inserted_after.contains(&id) => {
                removed.insert(id);
                Op::Remove(id)
            }
            8 => {
                let anchors: Vec<Option<u64>> = std::iter::once(None)
                    .chain(base.entities.iter().map(|entity| Some(entity.id)))
                    .filter(|anchor| anchor.is_none_or(|id| !removed.contains(&id)))
                    .collect();
                next += 1;
                let anchor = anchors[pick(g, anchors.len())];
                inserted_after.extend(anchor);
                Op::Insert(anchor, next)
            }
            9 if level => Op::Select((id != u64::MAX && bool::arbitrary(g)).then_some(id)),
            _ => continue,
        };
        if let Op::Name(id, _) | Op::Speed(id, _) | Op::Tag(id, _) | Op::Power(id, _, _) | Op::Select(Some(id)) = op {
            if removed.contains(&id) {
                continue;
            }
        }
        ops.push(op);
    }
    ops
}

impl Arbitrary for Case {
    fn arbitrary(g: &mut Gen) -> Self {
        let base = base(g);
        let ids: Vec<u64> = base.entities.iter().map(|entity| entity.id).collect();
        let ours = side(g, &base, &ids, &["a", "b", "c", "d"], true, 1000);
        let theirs = side(g, &base, &ids, &["a", "b", "c", "d"], true, 2000);
        Case { base, ours, theirs }
    }
}

/// A case whose sides touch disjoint things: ours even entities, keys `a` and `b`, the level;
/// theirs odd entities, keys `c` and `d`.
#[derive(Debug, Clone)]
struct Disjoint(Case);

impl Arbitrary for Disjoint {
    fn arbitrary(g: &mut Gen) -> Self {
        let mut base = base(g);
        // The selection is ours to change: theirs must not remove what it is.
        base.selected = base.selected.filter(|id| id % 2 == 0);
        let (even, odd): (Vec<u64>, Vec<u64>) =
            base.entities.iter().map(|entity| entity.id).partition(|id| id % 2 == 0);
        let ours = side(g, &base, &even, &["a", "b"], true, 1000);
        let theirs = side(g, &base, &odd, &["c", "d"], false, 2000);
        Disjoint(Case { base, ours, theirs })
    }
}

fn played(base: &LevelModel, ops: &[Op]) -> LevelModel {
    let mut model = base.clone();
    for op in ops {
        model.apply(op);
    }
    model
}

/// The merge of a case, with its conflicts as `object.field` text.
fn merged(case: &Case) -> (Level, Vec<MergeConflict>) {
    let base = case.base.build();
    let ours = played(&case.base, &case.ours).build();
    let theirs = played(&case.base, &case.theirs).build();
    let merged = merge(&base, &ours, &theirs).unwrap();
    assert!(merged.report.is_complete(), "{}\n{case:#?}\n{:?}", merged.report, merged.conflicts);
    (merged.graph, merged.conflicts)
}

fn at(conflict: &MergeConflict) -> String {
    format!("{}.{}", conflict.object, conflict.field)
}

#[test]
fn merging_one_changed_side_gives_that_side() {
    fn property(case: Case) -> bool {
        let base = case.base.build();
        let ours = played(&case.base, &case.ours).build();
        let theirs = played(&case.base, &case.theirs).build();
        let only_ours = merge(&base, &ours, &base).unwrap();
        let only_theirs = merge(&base, &base, &theirs).unwrap();
        assert!(only_ours.is_clean(), "{:?} {}", only_ours.conflicts, only_ours.report);
        assert!(only_theirs.is_clean(), "{:?} {}", only_theirs.conflicts, only_theirs.report);
        rtti_eq(&only_ours.graph, &ours).unwrap();
        rtti_eq(&only_theirs.graph, &theirs).unwrap();
        true
    }
    QuickCheck::new().tests(500).quickcheck(property as fn(Case) -> bool);
}

#[test]
fn edits_of_different_things_are_both_kept() {
    fn property(Disjoint(case): Disjoint) -> bool {
        let (graph, conflicts) = merged(&case);
        assert!(conflicts.is_empty(), "{conflicts:?}");
        let expected = played(&played(&case.base, &case.ours), &case.theirs).build();
        rtti_eq(&graph, &expected).unwrap();
        true
    }
    QuickCheck::new().tests(500).quickcheck(property as fn(Disjoint) -> bool);
}

/// What the model says of a case: the merged level (ours on each conflict) and where the
/// conflicts are.
fn expected(case: &Case) -> (LevelModel, BTreeSet<String>) {
    let (b, o, t) = (&case.base, played(&case.base, &case.ours), played(&case.base, &case.theirs));
    let mut conflicts = BTreeSet::new();
    // One value changed by either side: `ours` if ours changed it, a conflict if both did,
    // differently.
    let mut three = |place: String, base: String, ours: String, theirs: String| -> bool {
        if ours != base && theirs != base && ours != theirs {
            conflicts.insert(place);
        }
        ours != base
    };
    let mut merged = b.clone();
    merged.name = match three("$.name".into(), b.name.clone(), o.name.clone(), t.name.clone()) {
        true => o.name.clone(),
        false => t.name.clone(),
    };
    let keys: BTreeSet<&String> = b.settings.keys().chain(o.settings.keys()).chain(t.settings.keys()).collect();
    for key in keys {
        let get = |model: &LevelModel| format!("{:?}", model.settings.get(key));
        let place = format!("$.settings[\"{key}\"]");
        let source = if three(place, get(b), get(&o), get(&t)) { &o } else { &t };
        match source.settings.get(key) {
            Some(&value) => merged.settings.insert(key.clone(), value),
            None => merged.settings.remove(key),
        };
    }
    let selection = |model: &LevelModel| format!("{:?}", model.selection());
    let ours_selects = three("$.selected".into(), selection(b), selection(&o), selection(&t));
    let theirs_selects = selection(&t) != selection(b);
    // Theirs' selection of an entity ours removed is not taken: ours' removal stands.
    let removed_by_ours = |id: u64| o.entities.iter().any(|entity| entity.id == id && entity.removed);
    let theirs_lost = t.selection().is_some_and(|id| id < 1000 && removed_by_ours(id));
    merged.selected = if ours_selects || theirs_lost { o.selection() } else { t.selection() };
    // Base entities, field by field; each side's removal against the other's edits.
    merged.entities.clear();
    let edited = |model: &LevelModel, base: &EntityModel| {
        let now = model.entities.iter().find(|entity| entity.id == base.id).unwrap();
        (now.name != base.name || now.speed != base.speed || now.tags != base.tags || now.powers != base.powers)
            || model.selection() == Some(base.id) && b.selection() != Some(base.id)
    };
    for (index, base_entity) in b.entities.iter().enumerate() {
        let find =
            |model: &LevelModel| model.entities.iter().find(|entity| entity.id == base_entity.id).unwrap().clone();
        let (ours, theirs) = (find(&o), find(&t));
        let place = format!("$.entities[{index}]");
        let mut entity = base_entity.clone();
        entity.removed = ours.removed || theirs.removed;
        if ours.removed && !theirs.removed && edited(&t, base_entity) {
            conflicts.insert(place.clone());
        }
        if theirs.removed && !ours.removed && edited(&o, base_entity) {
            conflicts.insert(place);
            entity.removed = false;
        }
        let name = format!("Entity#{}", entity.id);
        // A side that removed the entity changed none of its fields.
        let unchanged =
            |side: EntityModel| if side.removed { EntityModel { removed: true, ..base_entity.clone() } } else { side };
        let (ours, theirs) = (unchanged(ours), unchanged(theirs));
        let (e, eo, et) = (base_entity, &ours, &theirs);
        let field = |f: &str| format!("{name}.{f}");
        let mut three = |place: String, base: String, ours: String, theirs: String| -> bool {
            let conflict = ours != base && theirs != base && ours != theirs;
            // A conflict inside an entity one side removed is not reported field by field.
            if conflict && !eo.removed && !et.removed {
                conflicts.insert(place);
            }
            ours != base
        };
        entity.name = if three(field("name"), e.name.clone(), eo.name.clone(), et.name.clone()) {
            eo.name.clone()
        } else {
            et.name.clone()
        };
        entity.speed = if three(field("speed"), e.speed.to_string(), eo.speed.to_string(), et.speed.to_string()) {
            eo.speed
        } else {
            et.speed
        };
        entity.tags = match (eo.tags == e.tags, et.tags == e.tags) {
            (true, _) => et.tags.clone(),
            (false, true) => eo.tags.clone(),
            _ if eo.tags == et.tags => eo.tags.clone(),
            // Both appended: both kept, ours first.
            _ => e.tags.iter().chain(&eo.tags[e.tags.len()..]).chain(&et.tags[e.tags.len()..]).copied().collect(),
        };
        for part in 0..e.powers.len() {
            let (pb, po, pt) = (e.powers[part], eo.powers[part], et.powers[part]);
            entity.powers[part] =
                if three(field(&format!("parts[{part}].power")), pb.to_string(), po.to_string(), pt.to_string()) {
                    po
                } else {
                    pt
                };
        }
        merged.entities.push(entity);
    }
    let _ = theirs_selects;
    // Insertions: ours' then theirs', each after its anchor.
    for op in case.ours.iter().chain(&case.theirs) {
        if let Op::Insert(..) = op {
            merged.apply(op);
        }
    }
    (merged, conflicts)
}

#[test]
fn conflicts_are_reported_exactly_where_both_sides_changed_one_thing() {
    fn property(case: Case) -> bool {
        let (graph, conflicts) = merged(&case);
        let (model, places) = expected(&case);
        let found: BTreeSet<String> = conflicts.iter().map(at).collect();
        assert_eq!(found, places, "{case:#?}\n{conflicts:#?}");
        rtti_eq(&graph, &model.build()).unwrap_or_else(|difference| panic!("{difference}\n{case:#?}"));
        true
    }
    QuickCheck::new().tests(1000).quickcheck(property as fn(Case) -> bool);
}

/// The prefab story: an instance's override of one map key, a prefab's later change of
/// another, merged from the prefab as it was.
#[test]
fn map_keys_changed_on_both_sides_are_both_kept() {
    let mut base =
        LevelModel { name: "prefab".into(), settings: BTreeMap::new(), entities: Vec::new(), selected: None };
    base.settings.insert("speed".into(), 5);
    base.settings.insert("jump".into(), 1);
    let ours = played(&base, &[Op::Set("speed".into(), 7)]);
    let theirs = played(&base, &[Op::Set("jump".into(), 3)]);
    let merged = merge(&base.build(), &ours.build(), &theirs.build()).unwrap();
    assert!(merged.is_clean());
    assert_eq!(merged.graph.settings, BTreeMap::from([("jump".to_string(), 3), ("speed".to_string(), 7)]));
}

#[test]
fn a_conflict_names_its_place_and_the_three_values() {
    let mut base = LevelModel { name: "level".into(), settings: BTreeMap::new(), entities: Vec::new(), selected: None };
    base.settings.insert("speed".into(), 5);
    base.apply(&Op::Insert(None, 4));
    base.entities[0].inserted_after = None;
    let ours = played(&base, &[Op::Set("speed".into(), 7), Op::Name(4, "ours".into())]);
    let theirs = played(&base, &[Op::Set("speed".into(), 9), Op::Name(4, "theirs".into())]);
    let merged = merge(&base.build(), &ours.build(), &theirs.build()).unwrap();
    let lines: Vec<String> = merged.conflicts.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "$.settings[\"speed\"]: base 5, ours 7, theirs 9 (ours kept)",
            "Entity#4.name: base \"new_4\", ours \"ours\", theirs \"theirs\" (ours kept)",
        ]
    );
    assert_eq!(merged.graph.entities[0].borrow().name, "ours");
    assert_eq!(merged.graph.settings["speed"], 7);
}

#[test]
fn an_edit_of_what_the_other_side_removed_is_a_conflict_and_ours_stands() {
    let mut base = LevelModel { name: "level".into(), settings: BTreeMap::new(), entities: Vec::new(), selected: None };
    for id in [1, 2, 3] {
        base.apply(&Op::Insert(Some(id - 1).filter(|&id| id > 0), id));
    }
    for entity in &mut base.entities {
        entity.inserted_after = None;
    }
    // Theirs removes entity 2, which ours renamed: ours keeps it.
    let ours = played(&base, &[Op::Name(2, "kept".into())]);
    let theirs = played(&base, &[Op::Remove(2)]);
    let merged = merge(&base.build(), &ours.build(), &theirs.build()).unwrap();
    assert_eq!(merged.conflicts.len(), 1);
    assert_eq!(merged.conflicts[0].kind, ConflictKind::RemovedByTheirs);
    assert_eq!(merged.conflicts[0].to_string(), "$.entities[1]: theirs removed it, ours changed it (ours kept)");
    rtti_eq(&merged.graph, &ours.build()).unwrap();
    // The other way round: ours' removal stands.
    let merged = merge(&base.build(), &theirs.build(), &ours.build()).unwrap();
    assert_eq!(merged.conflicts[0].kind, ConflictKind::RemovedByOurs);
    rtti_eq(&merged.graph, &theirs.build()).unwrap();
}

/// The same merge on objects of types defined at run time from the files' schema tables (a
/// tool without the program): the result, saved and loaded as the program's types, is the
/// typed merge's.
#[test]
fn a_merge_of_runtime_typed_objects_is_the_typed_merge() {
    use reflectable::diff::merge_with;
    use reflectable::rtti::{Flow, GraphWalker, Registry};
    use reflectable::serializer::BinarySerializer;
    fn property(case: Case) -> bool {
        let base = case.base.build();
        let ours = played(&case.base, &case.ours).build();
        let theirs = played(&case.base, &case.theirs).build();
        let typed = merge(&base, &ours, &theirs).unwrap();
        let bytes = |level: &Level| BinarySerializer::new().format_version(5).encode(level).unwrap();
        // Ours' types, defined from its table; base and theirs read into them.
        let ours_root = BinarySerializer::with_registry(&Registry::new())
            .keep_unknown_types(true)
            .decode::<Box<dyn Reflectable>>(&bytes(&ours))
            .unwrap();
        let add_types = |types: &mut Registry, root: &dyn Reflectable| {
            let _ = GraphWalker::new().walk(root, |visit| {
                if types.get(visit.object.rtti().id()).is_none() {
                    types.register(visit.object.rtti()).unwrap();
                }
                Ok::<_, std::convert::Infallible>(Flow::Continue)
            });
        };
        let mut types = Registry::new();
        add_types(&mut types, &*ours_root);
        let read = |level: &Level| {
            BinarySerializer::with_registry(&types)
                .keep_unknown_types(true)
                .decode::<Box<dyn Reflectable>>(&bytes(level))
                .unwrap()
        };
        let (base_root, theirs_root) = (read(&base), read(&theirs));
        add_types(&mut types, &*theirs_root);
        let dynamic = merge_with(&*base_root, &*ours_root, &*theirs_root, &types).unwrap();
        let conflicts = |conflicts: &[MergeConflict]| conflicts.iter().map(at).collect::<Vec<_>>();
        assert_eq!(conflicts(&dynamic.conflicts), conflicts(&typed.conflicts));
        assert!(dynamic.report.is_complete(), "{}", dynamic.report);
        let saved = BinarySerializer::with_registry(&types).format_version(5).encode(&*dynamic.graph).unwrap();
        let loaded: Level = reflectable::from_slice(&saved).unwrap();
        rtti_eq(&loaded, &typed.graph).unwrap_or_else(|difference| {
            panic!("{difference}\n{case:?}\n{:?}\n{loaded:?}\n{:?}", typed.conflicts, typed.graph)
        });
        true
    }
    QuickCheck::new().tests(200).quickcheck(property as fn(Case) -> bool);
}

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 964_304)]
struct Lists {
    #[rtti(id = 1)]
    nums: Vec<u32>,
    #[rtti(id = 2)]
    words: Vec<String>,
}

/// Plain arrays merge element by element: changes of different elements combine; one element
/// changed by both differently (or changed by one and removed by the other) is a conflict, and
/// the field keeps ours.
#[test]
fn plain_arrays_merge_by_element_and_conflict_on_one_element() {
    let lists = |nums: &[u32]| Lists { nums: nums.to_vec(), words: Vec::new() };
    let base = lists(&[1, 2, 3, 4]);
    let run = |ours: &[u32], theirs: &[u32]| {
        let merged = merge(&base, &lists(ours), &lists(theirs)).unwrap();
        let conflicts: Vec<String> = merged.conflicts.iter().map(at).collect();
        (merged.graph.nums, conflicts)
    };
    assert_eq!(run(&[1, 20, 3, 4], &[1, 2, 3, 40]), (vec![1, 20, 3, 40], vec![]));
    assert_eq!(run(&[1, 20, 3, 4], &[1, 2, 3, 4, 5]), (vec![1, 20, 3, 4, 5], vec![]));
    assert_eq!(run(&[1, 20, 3, 4], &[1, 20, 3, 4, 5]), (vec![1, 20, 3, 4, 5], vec![]), "one change made by both");
    assert_eq!(run(&[1, 20, 3, 4], &[1, 30, 3, 4]), (vec![1, 20, 3, 4], vec!["$.nums".to_string()]));
    assert_eq!(run(&[1, 20, 3, 4], &[1, 3, 4]), (vec![1, 20, 3, 4], vec!["$.nums".to_string()]));
    assert_eq!(run(&[1, 3, 4], &[1, 30, 3, 4]), (vec![1, 3, 4], vec!["$.nums".to_string()]));
    assert_eq!(run(&[1, 3, 4], &[1, 2, 3]), (vec![1, 3], vec![]), "removals combine");
    let words = |words: &[&str]| Lists { nums: Vec::new(), words: words.iter().map(|w| w.to_string()).collect() };
    let merged = merge(&words(&["a", "b", "c"]), &words(&["a", "ours", "c"]), &words(&["a", "theirs", "c"])).unwrap();
    assert_eq!(merged.graph.words, ["a", "ours", "c"]);
    assert_eq!(merged.conflicts.iter().map(at).collect::<Vec<_>>(), ["$.words"]);
}

/// An entity both sides add with one identity is one entity: made once when both made it
/// alike, a conflict (ours kept) when they differ.
#[test]
fn one_identity_added_by_both_sides_is_one_object() {
    let base = LevelModel { name: "level".into(), settings: BTreeMap::new(), entities: Vec::new(), selected: None };
    let ours = played(&base, &[Op::Insert(None, 5)]);
    let mut theirs = ours.clone();
    let merged = merge(&base.build(), &ours.build(), &theirs.build()).unwrap();
    assert!(merged.is_clean(), "{:?}", merged.conflicts);
    rtti_eq(&merged.graph, &ours.build()).unwrap();
    theirs.entities[0].name = "theirs".into();
    let merged = merge(&base.build(), &ours.build(), &theirs.build()).unwrap();
    assert_eq!(merged.graph.entities.len(), 1);
    assert_eq!(merged.graph.entities[0].borrow().name, "new_5");
    assert_eq!(merged.conflicts.iter().map(at).collect::<Vec<_>>(), ["Entity#5."]);
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 964_305)]
struct Tree {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    children: Vec<Rc<RefCell<Tree>>>,
    #[rtti(id = 3)]
    parent: Weak<RefCell<Tree>>,
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 964_306)]
struct Outline {
    #[rtti(id = 1)]
    top: Vec<Rc<RefCell<Tree>>>,
    #[rtti(id = 2)]
    selected: Weak<RefCell<Tree>>,
}

fn tree_node(name: &str, children: Vec<Rc<RefCell<Tree>>>) -> Rc<RefCell<Tree>> {
    let node = Rc::new(RefCell::new(Tree { name: name.into(), children, parent: Weak::new() }));
    for child in &node.borrow().children {
        child.borrow_mut().parent = Rc::downgrade(&node);
    }
    node
}

/// Both sides of a merge made from the base by a deep copy (as two saves of one file are).
fn copied(outline: &Outline) -> Outline {
    reflectable::clone::deep_clone(outline).unwrap()
}

/// Ours edits an object it reaches only through a `Weak` (the selection); theirs removes the
/// object from its parent (and so clears the selection). The removal is a conflict and ours'
/// edited object stays, held where the base held it: the merged graph is whole and the report
/// complete.
#[test]
fn an_object_ours_edits_through_a_weak_and_theirs_removes_stays() {
    let mut base = Outline {
        top: vec![tree_node("p", vec![tree_node("a", vec![]), tree_node("b", vec![])])],
        selected: Weak::new(),
    };
    base.selected = Rc::downgrade(&base.top[0].borrow().children[0]);
    let ours = copied(&base);
    ours.selected.upgrade().unwrap().borrow_mut().name = "a, edited".into();
    let theirs = copied(&base);
    theirs.top[0].borrow_mut().children.remove(0);
    let merged = merge(&base, &ours, &theirs).unwrap();
    assert!(merged.report.is_complete(), "{}", merged.report);
    assert_eq!(merged.conflicts.len(), 1, "{:?}", merged.conflicts);
    assert_eq!(merged.conflicts[0].kind, ConflictKind::RemovedByTheirs);
    // Theirs cleared the selection, which ours did not change: that change is taken.
    let mut expected = copied(&ours);
    expected.selected = Weak::new();
    rtti_eq(&merged.graph, &expected).unwrap();
    // The other way round ours' removal stands, and the selection theirs kept is let go.
    let merged = merge(&base, &theirs, &ours).unwrap();
    assert!(merged.report.is_complete(), "{}", merged.report);
    assert_eq!(merged.conflicts[0].kind, ConflictKind::RemovedByOurs);
    assert_eq!(merged.graph.top[0].borrow().children.len(), 1);
}

/// Ours moves a node to another parent; theirs renames it: a move is no removal, so the merge
/// is clean and holds both.
#[test]
fn a_node_moved_by_one_side_and_edited_by_the_other_merges_cleanly() {
    let base = Outline {
        top: vec![tree_node("p", vec![tree_node("a", vec![])]), tree_node("q", vec![])],
        selected: Weak::new(),
    };
    let ours = copied(&base);
    let moved = ours.top[0].borrow_mut().children.remove(0);
    moved.borrow_mut().parent = Rc::downgrade(&ours.top[1]);
    ours.top[1].borrow_mut().children.push(moved);
    let theirs = copied(&base);
    theirs.top[0].borrow().children[0].borrow_mut().name = "a, renamed".into();
    let merged = merge(&base, &ours, &theirs).unwrap();
    assert!(merged.is_clean(), "{:?} {}", merged.conflicts, merged.report);
    let q = merged.graph.top[1].borrow();
    assert_eq!(q.children[0].borrow().name, "a, renamed");
    assert!(Rc::ptr_eq(&q.children[0].borrow().parent.upgrade().unwrap(), &merged.graph.top[1]));
    assert!(merged.graph.top[0].borrow().children.is_empty());
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 964_307)]
struct Library {
    #[rtti(id = 1)]
    by_name: BTreeMap<String, Rc<RefCell<Tree>>>,
}

/// A map whose values are pointers is keys and values kept aligned: merged whole. Ours edits
/// the object under `a`, theirs removes the key: a conflict, ours' map and edit kept.
#[test]
fn a_map_of_pointers_is_merged_whole() {
    let base = Library {
        by_name: BTreeMap::from([("a".into(), tree_node("a", vec![])), ("c".into(), tree_node("c", vec![]))]),
    };
    let copy = |library: &Library| reflectable::clone::deep_clone(library).unwrap();
    let ours = copy(&base);
    ours.by_name["a"].borrow_mut().name = "a, edited".into();
    let mut theirs = copy(&base);
    theirs.by_name.remove("a");
    let merged = merge(&base, &ours, &theirs).unwrap();
    assert!(merged.report.is_complete(), "{}", merged.report);
    assert_eq!(merged.conflicts.iter().map(at).collect::<Vec<_>>(), ["$.by_name"]);
    rtti_eq(&merged.graph, &ours).unwrap();
    // One side's change alone is taken.
    let merged = merge(&base, &base, &theirs).unwrap();
    assert!(merged.is_clean());
    rtti_eq(&merged.graph, &theirs).unwrap();
}

/// Theirs moves a node into a parent ours removes: theirs' insertion into the removed parent is
/// a conflict, and the node is not lost: ours kept it where the base had it, and so does the
/// merge.
#[test]
fn a_node_moved_into_a_parent_the_other_side_removed_is_not_lost() {
    let base = Outline {
        top: vec![tree_node("p", vec![tree_node("a", vec![])]), tree_node("q", vec![])],
        selected: Weak::new(),
    };
    let mut ours = copied(&base);
    ours.top.remove(1);
    let theirs = copied(&base);
    let moved = theirs.top[0].borrow_mut().children.remove(0);
    moved.borrow_mut().parent = Rc::downgrade(&theirs.top[1]);
    theirs.top[1].borrow_mut().children.push(moved);
    for (ours, theirs, kind) in
        [(&ours, &theirs, ConflictKind::RemovedByOurs), (&theirs, &ours, ConflictKind::RemovedByTheirs)]
    {
        let merged = merge(&base, ours, theirs).unwrap();
        assert!(merged.report.is_complete(), "{}", merged.report);
        assert!(merged.conflicts.iter().any(|conflict| conflict.kind == kind), "{:?}", merged.conflicts);
        let mut names = Vec::new();
        let mut stack = merged.graph.top.clone();
        while let Some(node) = stack.pop() {
            names.push(node.borrow().name.clone());
            stack.extend(node.borrow().children.iter().cloned());
        }
        assert!(names.contains(&"a".to_owned()), "the moved node is lost: {names:?}, {:?}", merged.conflicts);
        // Ours stands: where ours has it (in `p`, or in `q` which ours kept), with that parent.
        rtti_eq(&merged.graph, ours).unwrap();
    }
}

trait Component: Reflectable {}
reflectable::reflect_trait!(Component);

#[derive(Reflectable, Default, Debug, Clone)]
#[rtti(id = 964_308, implements(Component))]
struct Mesh {
    #[rtti(id = 1)]
    triangles: u32,
}
impl Component for Mesh {}

#[derive(Reflectable, Default, Debug, Clone)]
#[rtti(id = 964_309, implements(Component))]
struct Light {
    #[rtti(id = 1)]
    watts: f32,
}
impl Component for Light {}

#[derive(Reflectable, Default)]
#[rtti(id = 964_310)]
struct Actor {
    #[rtti(id = 1)]
    components: Vec<Rc<RefCell<dyn Component>>>,
}

fn actor(components: Vec<Rc<RefCell<dyn Component>>>) -> Actor {
    Actor { components }
}

/// One side replaces a component (a new object in its place), the other edits it: a conflict.
/// Where ours replaced it, ours stands whole. Where ours edited it, ours' edited component stays
/// where it was, after theirs' new component, which is an insertion (insertions combine).
#[test]
fn a_component_replaced_by_one_side_and_edited_by_the_other_is_one_conflict() {
    let base = actor(vec![Rc::new(RefCell::new(Mesh { triangles: 10 }))]);
    let copy = |actor: &Actor| reflectable::clone::deep_clone(actor).unwrap();
    let mut replaced = copy(&base);
    replaced.components[0] = Rc::new(RefCell::new(Light { watts: 60.0 }));
    // The same mesh, edited (a diff takes the one object of one type in one place for itself).
    let edited = actor(vec![Rc::new(RefCell::new(Mesh { triangles: 20 }))]);
    let merged = merge(&base, &replaced, &edited).unwrap();
    assert!(merged.report.is_complete(), "{}", merged.report);
    assert_eq!(merged.conflicts.len(), 1, "{:?}", merged.conflicts);
    assert_eq!(merged.conflicts[0].kind, ConflictKind::RemovedByOurs);
    rtti_eq(&merged.graph, &replaced).unwrap();

    let merged = merge(&base, &edited, &replaced).unwrap();
    assert!(merged.report.is_complete(), "{}", merged.report);
    assert_eq!(merged.conflicts.len(), 1, "{:?}", merged.conflicts);
    assert_eq!(merged.conflicts[0].kind, ConflictKind::RemovedByTheirs);
    let both = actor(vec![replaced.components[0].clone(), edited.components[0].clone()]);
    rtti_eq(&merged.graph, &both).unwrap();
}
