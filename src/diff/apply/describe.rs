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
use ahash::AHashMap;
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
    /// was added).
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
            (None, None) => write!(f, "{at}: changed"),
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
        let changes = run.describe.take().map(|describer| describer.changes).unwrap_or_default();
        (run.report, changes)
    }
}

/// What [`Patch::apply_described`] keeps while the patch is applied.
#[derive(Default)]
pub(super) struct Describer {
    changes: Vec<AppliedChange>,
    /// Each edit's path, as the patch found its object (`$` for the root).
    paths: AHashMap<usize, String>,
    /// The shared objects of the graph as it was, by their first path from the root.
    by_addr: AHashMap<usize, String>,
    /// The object whose body is being applied, named.
    object: String,
    /// The fields being applied inside it, outermost first (objects held by value).
    prefix: Vec<String>,
    /// Bodies of fresh objects being applied (none of their fields are listed).
    fresh: u32,
}

impl Describer {
    /// A describer that names the shared objects of the graph under `root` by their first path
    /// from it (breadth first, so the shortest), as they are before the patch.
    fn of_graph(root: &dyn Reflectable) -> Self {
        let mut by_addr = AHashMap::new();
        let walker = GraphWalker::new().follow_weak(true);
        let _ = walker.walk(root, |visit| {
            if let Some(shared) = visit.shared {
                by_addr.entry(shared.addr()).or_insert_with(|| format!("$.{}", visit.path));
            }
            Ok::<_, std::convert::Infallible>(Flow::Continue)
        });
        Describer { by_addr, ..Describer::default() }
    }

    /// Notes that edit `index` found its object at `path`.
    pub(super) fn found(&mut self, index: usize, handle: Option<&SharedObject>, path: String) {
        let known = handle.and_then(|handle| self.by_addr.get(&handle.addr()));
        let path = known.cloned().unwrap_or(path);
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
            describer.object = match object.rtti().identity_text(object) {
                Some(identity) => format!("{}#{identity}", object.rtti().name()),
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
        if !self.describing() || from == to {
            return;
        }
        let describer = self.describe.as_mut().expect("describing");
        let mut path: Vec<&str> = describer.prefix.iter().map(String::as_str).collect();
        let last = match element {
            Some(element) => format!("{field}[{element}]"),
            None => field.to_owned(),
        };
        path.push(&last);
        let change = AppliedChange { object: describer.object.clone(), field: path.join("."), from, to };
        describer.changes.push(change);
    }

    /// A plain field's value as text, when changes are described.
    pub(super) fn value_text(&self, field: &RttiField, owner: &dyn Reflectable) -> Option<String> {
        self.describing().then(|| field.to_text(owner).unwrap_or_else(|error| format!("<{error}>")))
    }

    /// A pointer field's targets, each with its name, when changes are described.
    pub(super) fn targets(&self, field: &RttiField, owner: &dyn Reflectable) -> Option<Vec<(usize, String)>> {
        if !self.describing() {
            return None;
        }
        let len = field.len(owner).unwrap_or(0);
        let targets = (0..len).map(|at| match field.shared(owner, at).ok().flatten() {
            Some(target) => (target.addr(), self.name(&target)),
            None => (0, "null".to_owned()),
        });
        Some(targets.collect())
    }

    /// Notes what a pointer field gained and lost: for an array, the objects it no longer holds
    /// and those it holds now that it did not (moves are not changes); for a single pointer, its
    /// old and new target.
    pub(super) fn note_targets(
        &mut self,
        field: &RttiField,
        before: Option<Vec<(usize, String)>>,
        after: Option<Vec<(usize, String)>>,
    ) {
        let (Some(before), Some(after)) = (before, after) else { return };
        if !field.is_array() {
            let text = |targets: Vec<(usize, String)>| targets.into_iter().next().map_or("null".to_owned(), |t| t.1);
            return self.note(field.name(), None, Some(text(before)), Some(text(after)));
        }
        let held = |targets: &[(usize, String)], addr: usize| targets.iter().any(|t| t.0 == addr);
        for (at, (addr, name)) in before.iter().enumerate() {
            if *addr != 0 && !held(&after, *addr) {
                // An object removed from where it was is named by its type (the line says where).
                let here = format!(" at {}", self.element_path(field.name(), at));
                let name = name.strip_suffix(&here).unwrap_or(name).to_owned();
                self.note(field.name(), Some(at), Some(name), None);
            }
        }
        for (at, (addr, name)) in after.iter().enumerate() {
            if *addr != 0 && !held(&before, *addr) {
                self.note(field.name(), Some(at), None, Some(name.clone()));
            }
        }
    }

    /// The path of element `at` of `field` of the object being described.
    fn element_path(&self, field: &str, at: usize) -> String {
        let Some(describer) = self.describe.as_ref() else { return String::new() };
        let mut path = describer.object.clone();
        for step in &describer.prefix {
            path.push('.');
            path.push_str(step);
        }
        format!("{path}.{field}[{at}]")
    }

    /// A shared object's name: its identity, the path the patch found it by, or its type.
    fn name(&self, object: &SharedObject) -> String {
        let identity = object.read(|o| o.rtti().identity_text(o).map(|id| format!("{}#{id}", o.rtti().name())));
        if let Ok(Some(identity)) = identity {
            return identity;
        }
        let path = self.describe.as_ref().and_then(|describer| describer.by_addr.get(&object.addr()));
        match (path, object.read(|o| o.rtti().name().to_owned())) {
            (Some(path), Ok(type_name)) => format!("{type_name} at {path}"),
            (None, Ok(type_name)) => format!("new {type_name}"),
            (Some(path), Err(_)) => path.clone(),
            (None, Err(_)) => "an object being edited".to_owned(),
        }
    }

    /// An object held by value, named by its identity or its type.
    pub(super) fn value_name(object: &dyn Reflectable) -> String {
        match object.rtti().identity_text(object) {
            Some(identity) => format!("{}#{identity}", object.rtti().name()),
            None => object.rtti().name().to_owned(),
        }
    }
}
