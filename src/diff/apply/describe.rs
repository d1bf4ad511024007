//! What a patch changed, in words ([`Patch::apply_described`]): one [`AppliedChange`] per field the
//! apply changed, with what it held before and holds after, and per object a pointer or an
//! array gained or lost. Tools show it (`reflectable diff` is a diff applied, described), and an
//! editor can list an undo step's changes by it.
//!
//! Objects are named by their identity where their type declares one (`SceneObject#11`, the same
//! in every file), else by the path the patch found them by (`$.root.children[1]`, in the graph
//! as it was); plain values are text, as the JSON twin shows them.

use super::{Applier, ApplyReport};
use crate::diff::patch::{ObjectBody, Origin, Patch};
use crate::field::{RttiField, SharedObject};
use crate::rtti::{Flow, GraphWalker, Reflectable, Registry};
use ahash::{AHashMap, AHashSet};
use std::fmt;

/// One change a patch made (see [`Patch::apply_described`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AppliedChange {
    /// The object changed: `Type#identity` when its type declares an identity, else its path
    /// from the root (`$` is the root itself).
    pub object: String,
    /// The field changed, from the object: `name`, `transform.position` through objects held by
    /// value, `children[2]` for one element.
    pub field: String,
    /// What the field held: a value as text, or the object an element held (`None`: the element
    /// was added; with `to` `None` too, the field holds what it held in another order).
    pub from: Option<String>,
    /// What the field holds now (`None`: the element was removed).
    pub to: Option<String>,
}

impl fmt::Display for AppliedChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = match self.field.is_empty() {
            true => self.object.clone(),
            false => format!("{}.{}", self.object, self.field),
        };
        match (&self.from, &self.to) {
            (Some(from), Some(to)) => write!(f, "{at}: {from} -> {to}"),
            (Some(from), None) => write!(f, "{at}: removed ({from})"),
            (None, Some(to)) => write!(f, "{at}: added ({to})"),
            (None, None) => write!(f, "{at}: reordered"),
        }
    }
}

impl Patch {
    /// [`apply_with`](Self::apply_with), describing each change it makes to the graph: the
    /// fields it set (before and after, as text), and the elements and objects arrays and pointers
    /// gained and lost. The fields of objects the patch creates are not listed one by one: the
    /// pointer that gains the object lists it.
    ///
    /// ```
    /// use reflectable::diff::diff;
    /// use reflectable::rtti::Registry;
    /// use reflectable::Reflectable;
    ///
    /// #[derive(Reflectable, Default, Clone)]
    /// #[rtti(id = 9861)]
    /// struct Lamp {
    ///     #[rtti(id = 1)]
    ///     watts: f32,
    /// }
    ///
    /// let (mut old, new) = (Lamp { watts: 40.0 }, Lamp { watts: 60.0 });
    /// let (report, changes) = diff(&old, &new).unwrap().apply_described(&mut old, Registry::global());
    /// assert!(report.is_complete());
    /// assert_eq!(changes[0].to_string(), "$.watts: 40.0 -> 60.0");
    /// ```
    pub fn apply_described(
        &self,
        target: &mut dyn Reflectable,
        registry: &Registry,
    ) -> (ApplyReport, Vec<AppliedChange>) {
        if let Some(report) = super::refused(self, registry) {
            return (report, Vec::new());
        }
        let mut run = Applier::new(self, registry);
        run.describe = Some(Describer::of_graph(&*target));
        run.locate(Some(&*target), None);
        run.create();
        run.edit(0, target);
        run.apply_shared_bodies();
        run.release_unheld();
        let changes = run.describe.take().map(|describer| describer.finish(&*target)).unwrap_or_default();
        (run.report, changes)
    }
}

/// What [`Patch::apply_described`] keeps while the patch is applied.
#[derive(Default)]
pub(super) struct Describer {
    /// The changes, in the order made; those that name shared objects are named at the end,
    /// when no object is being written (reading one then could lock it twice) and the objects
    /// the patch creates have their fields.
    changes: Vec<Noted>,
    /// Each edit's path, as the patch found its object (`$` for the root).
    paths: AHashMap<usize, String>,
    /// The shared objects of the graph as it was, by address: their first path from the root, and
    /// their name (`Type#identity`, or the type).
    by_addr: AHashMap<usize, (String, String)>,
    /// The object whose body is being applied, named.
    object: String,
    /// The fields being applied inside it, outermost first (objects held by value).
    prefix: Vec<String>,
    /// Bodies of fresh objects being applied (none of their fields are listed).
    fresh: u32,
}

/// A change as noted: `from` and `to` as text, or as the objects an element or pointer held.
struct Noted {
    object: String,
    field: String,
    from: Option<Named>,
    to: Option<Named>,
}

/// What a change's side says: text already, or a shared object (by address, 0 for null) to name
/// at the end. No handle is kept: holding one would keep alive an object the patch lets go of.
enum Named {
    Text(String),
    Object(usize),
}

impl Describer {
    /// The changes, every shared object named now: those of the graph before the patch as they
    /// were then, those it created as the patched graph under `root` holds them.
    fn finish(self, root: &dyn Reflectable) -> Vec<AppliedChange> {
        let unknown =
            self.changes.iter().flat_map(|noted| [&noted.from, &noted.to]).any(
                |side| matches!(side, Some(Named::Object(addr)) if *addr != 0 && !self.by_addr.contains_key(addr)),
            );
        let created = if unknown { names(root) } else { AHashMap::new() };
        let side = |side: Option<Named>, here: &str| match side? {
            Named::Text(text) => Some(text),
            Named::Object(0) => Some("null".to_owned()),
            Named::Object(addr) => Some(match (self.by_addr.get(&addr), created.get(&addr)) {
                (Some((path, name)), _) if path == here || name.contains('#') => name.clone(),
                (Some((path, name)), _) => format!("{name} at {path}"),
                (None, Some((_, name))) if name.contains('#') => name.clone(),
                (None, Some((_, name))) => format!("new {name}"),
                (None, None) => "an object no longer held".to_owned(),
            }),
        };
        let named = self.changes.into_iter().map(|noted| {
            let here = format!("{}.{}", noted.object, noted.field);
            AppliedChange {
                from: side(noted.from, &here),
                to: side(noted.to, &here),
                object: noted.object,
                field: noted.field,
            }
        });
        named.collect()
    }

    /// A describer that names the shared objects of the graph under `root` as they are before
    /// the patch, each by its first path from the root (breadth first, so the shortest).
    fn of_graph(root: &dyn Reflectable) -> Self {
        Describer { by_addr: names(root), ..Describer::default() }
    }

    /// Notes that edit `index` found its object at `path`.
    pub(super) fn found(&mut self, index: usize, handle: Option<&SharedObject>, path: String) {
        let known = handle.and_then(|handle| self.by_addr.get(&handle.addr()));
        let path = known.map_or(path, |(path, _)| path.clone());
        self.paths.insert(index, path);
    }

    /// The path of edit `from`'s object, to which a found object's steps are added.
    pub(super) fn path_of(&self, from: usize) -> String {
        self.paths.get(&from).cloned().unwrap_or_else(|| "$".to_owned())
    }
}

impl Applier<'_> {
    /// Starts applying `body` to `object` (edit `index`'s, or a value it holds when a step is
    /// pushed): names the object at the top.
    pub(super) fn enter(&mut self, index: usize, object: &dyn Reflectable, body: &ObjectBody) {
        let Some(describer) = self.describe.as_mut() else { return };
        if describer.prefix.is_empty() {
            let created = matches!(self.patch.objects[index].origin, Origin::Created { .. });
            describer.object = match object.rtti().identity_field() {
                Some(_) => object_name(object),
                None if created => format!("new {}", object.rtti().name()),
                None => describer.paths.get(&index).cloned().unwrap_or_else(|| "$".to_owned()),
            };
        }
        if body.fresh {
            describer.fresh += 1;
        }
    }

    /// Ends what [`enter`](Self::enter) started.
    pub(super) fn leave(&mut self, body: &ObjectBody) {
        if let Some(describer) = self.describe.as_mut().filter(|_| body.fresh) {
            describer.fresh -= 1;
        }
    }

    /// Whether changes are being described now.
    pub(super) fn describing(&self) -> bool {
        self.describe.as_ref().is_some_and(|describer| describer.fresh == 0)
    }

    /// Applies inside the value at `step` (`field[index]`) of the object being described.
    pub(super) fn push_step(&mut self, step: String) {
        if let Some(describer) = self.describe.as_mut() {
            describer.prefix.push(step);
        }
    }

    pub(super) fn pop_step(&mut self) {
        if let Some(describer) = self.describe.as_mut() {
            describer.prefix.pop();
        }
    }

    /// Notes a change of `field` (`element`: one element of it).
    pub(super) fn note(&mut self, field: &str, element: Option<usize>, from: Option<String>, to: Option<String>) {
        if from != to {
            self.note_named(field, element, from.map(Named::Text), to.map(Named::Text));
        }
    }

    fn note_named(&mut self, field: &str, element: Option<usize>, from: Option<Named>, to: Option<Named>) {
        if !self.describing() {
            return;
        }
        let describer = self.describe.as_mut().expect("describing");
        let mut path: Vec<&str> = describer.prefix.iter().map(String::as_str).collect();
        let last = match element {
            Some(element) => format!("{field}[{element}]"),
            None => field.to_owned(),
        };
        path.push(&last);
        let noted = Noted { object: describer.object.clone(), field: path.join("."), from, to };
        describer.changes.push(noted);
    }

    /// A plain field's value as text, when changes are described.
    pub(super) fn value_text(&self, field: &RttiField, owner: &dyn Reflectable) -> Option<String> {
        self.describing().then(|| field.to_text(owner).unwrap_or_else(|error| format!("<{error}>")))
    }

    /// A pointer field's targets (nothing read of them yet), when changes are described.
    pub(super) fn targets(&self, field: &RttiField, owner: &dyn Reflectable) -> Option<Vec<usize>> {
        if !self.describing() {
            return None;
        }
        let mut targets = Vec::new();
        let pointers = field.as_pointer()?;
        pointers.for_each(owner, &mut |addr, _, _| targets.push(addr.unwrap_or(0))).ok()?;
        Some(targets)
    }

    /// Notes what a pointer field gained and lost: for an array, the objects it no longer holds
    /// and those it holds now that it did not (moves are not changes); for a single pointer, its
    /// old and new target.
    pub(super) fn note_targets(&mut self, field: &RttiField, before: Option<Vec<usize>>, after: Option<Vec<usize>>) {
        let (Some(before), Some(after)) = (before, after) else { return };
        if !field.is_array() {
            let (from, to) = (before.first().copied().unwrap_or(0), after.first().copied().unwrap_or(0));
            if from != to {
                self.note_named(field.name(), None, Some(Named::Object(from)), Some(Named::Object(to)));
            }
            return;
        }
        let (was, is): (AHashSet<usize>, AHashSet<usize>) =
            (before.iter().copied().collect(), after.iter().copied().collect());
        let mut changed = false;
        for (at, &addr) in before.iter().enumerate() {
            if addr != 0 && !is.contains(&addr) {
                self.note_named(field.name(), Some(at), Some(Named::Object(addr)), None);
                changed = true;
            }
        }
        for (at, &addr) in after.iter().enumerate() {
            if addr != 0 && !was.contains(&addr) {
                self.note_named(field.name(), Some(at), None, Some(Named::Object(addr)));
                changed = true;
            }
        }
        if !changed && before != after {
            self.note_reordered(field.name());
        }
    }

    /// Notes that `field` holds what it held, in another order.
    pub(super) fn note_reordered(&mut self, field: &str) {
        self.note_named(field, None, None, None);
    }
}

/// Every shared object the graph under `root` holds strongly, by address: its first path from the
/// root (breadth first) and its name (`Type#identity`, or the type). `Weak`s are not followed:
/// one may lead back to the root's own allocation, which the caller holds locked.
pub(crate) fn names(root: &dyn Reflectable) -> AHashMap<usize, (String, String)> {
    let mut found = AHashMap::new();
    let walker = GraphWalker::new();
    let _ = walker.walk(root, |visit| {
        if let Some(shared) = visit.shared {
            found.entry(shared.addr()).or_insert_with(|| (format!("$.{}", visit.path), object_name(visit.object)));
        }
        Ok::<_, std::convert::Infallible>(Flow::Continue)
    });
    found
}

/// An object's name: `Type#identity` when its type declares one, else its type.
pub(super) fn object_name(object: &dyn Reflectable) -> String {
    match object.rtti().identity_text(object) {
        Some(identity) => format!("{}#{identity}", object.rtti().name()),
        None => object.rtti().name().to_owned(),
    }
}
