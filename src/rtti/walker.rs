//! [`GraphWalker`]: visits every object reachable from a root exactly once, through by-value
//! fields and pointers (and, on request, `Weak`s), each with the path of fields that led to it.
//! What Banshee's `findResourceDependencies` does by hand, once: the dependency collector and
//! the inspector walk with it, and so does `reachable_shared`. Inside each object it meets fields
//! through [`visit`](super::visit), as every tool does.

use super::Reflectable;
use crate::field::{FieldAccess, FieldError, RttiField, SharedObject};
use ahash::AHashSet;
use std::borrow::Cow;
use std::collections::VecDeque;
use std::fmt;

/// Walks an object graph through RTTI: each object once, by-value objects where they are met
/// (depth first), shared objects in the order first reached (breadth first), so a long chain
/// of pointers costs heap, not stack.
///
/// ```
/// use reflectable::field::SKIP_REFERENCE_SEARCH;
/// use reflectable::rtti::{Flow, GraphWalker};
/// use reflectable::Reflectable;
/// use std::cell::RefCell;
/// use std::rc::Rc;
///
/// #[derive(Reflectable, Default, Clone, Debug, PartialEq)]
/// #[rtti(id = 9620)]
/// struct Texture {
///     #[rtti(id = 1)]
///     path: String,
/// }
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9621)]
/// struct Node {
///     #[rtti(id = 1, embedded)]
///     texture: Texture,
///     #[rtti(id = 2)]
///     children: Vec<Rc<RefCell<Node>>>,
///     #[rtti(id = 3, embedded, flags = SKIP_REFERENCE_SEARCH)]
///     preview: Texture,
/// }
///
/// let leaf = |path: &str| Rc::new(RefCell::new(Node { texture: Texture { path: path.into() }, ..Default::default() }));
/// let shared = leaf("stone.png");
/// let root = Node { children: vec![shared.clone(), leaf("moss.png"), shared], ..Default::default() };
///
/// // Every texture anywhere, each object once, skipping flagged fields.
/// let walker = GraphWalker::new().skip_flags(SKIP_REFERENCE_SEARCH);
/// let paths: Vec<String> = walker
///     .find::<Texture>(&root)
///     .unwrap()
///     .into_iter()
///     .filter(|(texture, _)| !texture.path.is_empty())
///     .map(|(texture, path)| format!("{path} = {}", texture.path))
///     .collect();
/// assert_eq!(paths, ["children[0].texture = stone.png", "children[1].texture = moss.png"]);
///
/// // The general form: a visitor sees every object with its path, and may stop the walk.
/// let mut objects = 0;
/// walker.walk(&root, |_| {
///     objects += 1;
///     Ok::<_, std::convert::Infallible>(Flow::Continue)
/// }).unwrap();
/// assert_eq!(objects, 1 + 1 + 2 * 2); // the root and its texture, two nodes with theirs
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct GraphWalker {
    follow_weak: bool,
    skip_flags: u64,
}

/// One object the walk reached.
pub struct Visit<'a> {
    /// The object.
    pub object: &'a dyn Reflectable,
    /// The fields (and element indices) from the root that first led to it: shown with
    /// `Display`, or made a [`FieldPath`] with [`PathView::to_path`]. Building it costs its
    /// length, so a walk that never asks for paths stays linear however deep the graph.
    pub path: PathView<'a>,
    /// The field holding it; `None` for the root.
    pub field: Option<&'static RttiField>,
    /// Its shared allocation, for an object reached through a pointer (or a shared root).
    pub shared: Option<&'a SharedObject>,
}

/// The path of a visited object, as the walk holds it: the steps inside the shared object
/// being walked, after the path of that object (a chain of segments, one per shared object).
#[derive(Clone, Copy)]
pub struct PathView<'a> {
    segments: &'a [Segment],
    segment: Option<usize>,
    local: &'a [PathStep],
}

/// The steps from the object that first pointed at a shared object (segment `parent`) to it.
struct Segment {
    parent: Option<usize>,
    steps: Box<[PathStep]>,
}

impl PathView<'_> {
    /// The path as a value.
    pub fn to_path(&self) -> FieldPath {
        let mut chain = Vec::new();
        let mut at = self.segment;
        while let Some(index) = at {
            chain.push(&self.segments[index].steps);
            at = self.segments[index].parent;
        }
        let mut steps: Vec<PathStep> = chain.into_iter().rev().flat_map(|steps| steps.iter().cloned()).collect();
        steps.extend_from_slice(self.local);
        FieldPath(steps)
    }
}

impl fmt::Display for PathView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_path().fmt(f)
    }
}

impl fmt::Debug for PathView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PathView({self})")
    }
}

/// What the walk does after a visit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on into the object's fields.
    Continue,
    /// Do not look inside this object (what it points at may still be reached another way).
    SkipFields,
    /// End the walk.
    Stop,
}

/// Why a walk ended early: the visitor's own error, or a field that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum WalkError<E> {
    /// The visitor returned an error.
    #[error("{0}")]
    Visitor(E),
    /// A field or a pointee could not be read (a `RefCell` borrowed mutably elsewhere, a
    /// poisoned lock).
    #[error("cannot read {path}: {source}")]
    Field {
        /// Where.
        path: FieldPath,
        /// Why.
        #[source]
        source: FieldError,
    },
}

/// A path of fields and element indices from a root, as in `children[2].transform.position`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct FieldPath(Vec<PathStep>);

/// One step of a [`FieldPath`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathStep {
    /// A field (or a part of a plain struct), by name.
    Field(Cow<'static, str>),
    /// An element of an array field (or of a plain sequence or tuple).
    Index(usize),
    /// The value of a map entry, by its key as text (`materials["stone"]`).
    Key(String),
}

impl FieldPath {
    /// A path of `steps`.
    pub fn new(steps: Vec<PathStep>) -> Self {
        FieldPath(steps)
    }

    /// The steps, from the root.
    pub fn steps(&self) -> &[PathStep] {
        &self.0
    }

    /// `true` for the root's own path.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, step) in self.0.iter().enumerate() {
            match step {
                PathStep::Field(name) if n == 0 => f.write_str(name)?,
                PathStep::Field(name) => write!(f, ".{name}")?,
                PathStep::Index(index) => write!(f, "[{index}]")?,
                PathStep::Key(key) => write!(f, "[{key}]")?,
            }
        }
        Ok(())
    }
}

impl GraphWalker {
    /// A walker that follows strong pointers and enters every field.
    pub fn new() -> Self {
        GraphWalker::default()
    }

    /// Also follow `Weak`s whose target is alive.
    pub fn follow_weak(mut self, follow: bool) -> Self {
        self.follow_weak = follow;
        self
    }

    /// Do not enter fields that have any of `flags` (such as
    /// [`SKIP_REFERENCE_SEARCH`](crate::field::SKIP_REFERENCE_SEARCH)).
    pub fn skip_flags(mut self, flags: u64) -> Self {
        self.skip_flags = flags;
        self
    }

    /// Visits `root` and every object reachable from it.
    pub fn walk<E>(
        &self,
        root: &dyn Reflectable,
        mut visitor: impl FnMut(&Visit<'_>) -> Result<Flow, E>,
    ) -> Result<(), WalkError<E>> {
        let mut run = Run::new(*self, &mut visitor, Borrowed::Fail);
        run.root(root)?;
        run.drain()
    }

    /// Visits a root held in a shared allocation (`Rc<RefCell<Level>>`, ...) and every object
    /// reachable from it.
    pub fn walk_shared<E>(
        &self,
        root: &SharedObject,
        mut visitor: impl FnMut(&Visit<'_>) -> Result<Flow, E>,
    ) -> Result<(), WalkError<E>> {
        let mut run = Run::new(*self, &mut visitor, Borrowed::Fail);
        run.shared_root(root);
        run.drain()
    }

    /// Every object of type `T` reachable from `root` (a clone of each, with its path).
    pub fn find<T: Reflectable + Clone>(
        &self,
        root: &dyn Reflectable,
    ) -> Result<Vec<(T, FieldPath)>, WalkError<std::convert::Infallible>> {
        let mut found = Vec::new();
        self.walk(root, |visit| {
            if let Some(value) = visit.object.downcast_ref::<T>() {
                found.push((value.clone(), visit.path.to_path()));
            }
            Ok(Flow::Continue)
        })?;
        Ok(found)
    }
}

/// What a walk does with a shared object it cannot read (borrowed mutably elsewhere).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Borrowed {
    /// End with [`WalkError::Field`].
    Fail,
    /// Visit nothing inside it (the crate's own walks, which list what they reach).
    Pass,
}

type Visitor<'v, E> = &'v mut dyn FnMut(&Visit<'_>) -> Result<Flow, E>;

/// One walk under way.
pub(crate) struct Run<'v, E> {
    walker: GraphWalker,
    visitor: Visitor<'v, E>,
    borrowed: Borrowed,
    /// Identities of the shared objects reached.
    pub(crate) seen: AHashSet<usize>,
    /// Shared objects to visit: each with the field that reached it and its path segment.
    queue: VecDeque<(SharedObject, Option<&'static RttiField>, Option<usize>)>,
    /// The path segments of the shared objects reached (see [`PathView`]).
    segments: Vec<Segment>,
    /// The segment of the shared object being walked, and the steps inside it.
    segment: Option<usize>,
    path: Vec<PathStep>,
    /// An address whose allocation is reached but not read (see `graph::strong_identities`).
    pub(crate) unread: Option<usize>,
    /// Every shared object reached, listed when first reached (so one that cannot be read is
    /// listed too), when the caller wants them.
    pub(crate) found: Option<Vec<SharedObject>>,
    /// `false` for walks whose visitors never look at paths: no segment is kept.
    pub(crate) paths: bool,
    stopped: bool,
}

impl<'v, E> Run<'v, E> {
    pub(crate) fn new(walker: GraphWalker, visitor: Visitor<'v, E>, borrowed: Borrowed) -> Self {
        Run {
            walker,
            visitor,
            borrowed,
            seen: AHashSet::new(),
            queue: VecDeque::new(),
            segments: Vec::new(),
            segment: None,
            path: Vec::new(),
            unread: None,
            found: None,
            paths: true,
            stopped: false,
        }
    }

    /// Queues a shared root (listed first).
    pub(crate) fn shared_root(&mut self, root: &SharedObject) {
        if self.seen.insert(root.addr()) {
            self.reached(root.clone(), None, None);
        }
    }

    /// Queues a shared object, `index` the element it is in an array field.
    fn reached(&mut self, shared: SharedObject, field: Option<&'static RttiField>, index: Option<usize>) {
        if let Some(found) = &mut self.found {
            found.push(shared.clone());
        }
        let segment = field.filter(|_| self.paths).map(|_| {
            let mut steps = self.path.clone();
            steps.extend(index.map(PathStep::Index));
            self.segments.push(Segment { parent: self.segment, steps: steps.into_boxed_slice() });
            self.segments.len() - 1
        });
        self.queue.push_back((shared, field, segment));
    }

    fn view(&self) -> PathView<'_> {
        PathView { segments: &self.segments, segment: self.segment, local: &self.path }
    }

    /// Visits a root held by value.
    pub(crate) fn root(&mut self, object: &dyn Reflectable) -> Result<(), WalkError<E>> {
        self.object(object, None, None)
    }

    /// Visits the queued shared objects, and those they lead to.
    pub(crate) fn drain(&mut self) -> Result<(), WalkError<E>> {
        while let Some((shared, field, segment)) = self.queue.pop_front() {
            if self.stopped {
                break;
            }
            if self.unread.is_some_and(|address| shared.contains(address)) {
                continue;
            }
            self.segment = segment;
            self.path.clear();
            let mut result = Ok(());
            let read = shared.read(|object| result = self.object(object, field, Some(&shared)));
            match read {
                Ok(()) => result?,
                Err(_) if self.borrowed == Borrowed::Pass => {}
                Err(source) => return Err(self.failure(source)),
            }
        }
        Ok(())
    }

    fn object(
        &mut self,
        object: &dyn Reflectable,
        field: Option<&'static RttiField>,
        shared: Option<&SharedObject>,
    ) -> Result<(), WalkError<E>> {
        let path = PathView { segments: &self.segments, segment: self.segment, local: &self.path };
        let visit = Visit { object, path, field, shared };
        match (self.visitor)(&visit).map_err(WalkError::Visitor)? {
            Flow::Continue => {}
            Flow::SkipFields => return Ok(()),
            Flow::Stop => {
                self.stopped = true;
                return Ok(());
            }
        }
        for section in super::visit::sections(object) {
            // Kept unknown fields hold objects and pointers too (named as their stream named
            // them): what only they reach is still part of the graph.
            for slot in section.slots() {
                if !slot.kept && slot.field.flags() & self.walker.skip_flags != 0 {
                    continue;
                }
                self.field(slot.field, slot.owner)?;
                if self.stopped {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    fn field(&mut self, field: &'static RttiField, owner: &dyn Reflectable) -> Result<(), WalkError<E>> {
        self.path.push(PathStep::Field(Cow::Borrowed(field.name())));
        let array = field.is_array();
        let result = match field.access() {
            FieldAccess::Plain(_) => Ok(()),
            FieldAccess::Embedded(values) => {
                let mut result = Ok(());
                let mut index = 0;
                let visited = values.for_each(owner, &mut |value| {
                    if let (Some(value), Ok(()), false) = (value, &result, self.stopped) {
                        if array {
                            self.path.push(PathStep::Index(index));
                        }
                        result = self.object(value, Some(field), None);
                        if array {
                            self.path.pop();
                        }
                    }
                    index += 1;
                });
                visited.map_err(|source| self.failure(source)).and(result)
            }
            FieldAccess::Pointer(pointers) if self.walker.follow_weak || !pointers.is_weak() => {
                let mut index = 0;
                let visited = pointers.for_each(owner, &mut |identity, pointers, handle| {
                    // An object behind its only pointer cannot be met again: no set to keep.
                    if identity.is_some_and(|identity| pointers == 1 || self.seen.insert(identity)) {
                        if let Some(target) = handle() {
                            self.reached(target, Some(field), array.then_some(index));
                        }
                    }
                    index += 1;
                });
                visited.map_err(|source| self.failure(source))
            }
            FieldAccess::Pointer(_) => Ok(()),
        };
        self.path.pop();
        result
    }

    #[cold]
    fn failure(&self, source: FieldError) -> WalkError<E> {
        WalkError::Field { path: self.view().to_path(), source }
    }
}
