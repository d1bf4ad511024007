//! The decoder: rebuilds an object graph from a stream, sharing restored.
//!
//! An index pass finds every top-level object. Decoding starts at the root; a pointer to an object
//! not built yet builds it in the pointer field's family. Objects behind `RefCell`/`Mutex`/`RwLock`
//! are put in their shared allocation at once and filled from a queue later, so cycles close;
//! objects behind immutable `Rc<T>`/`Arc<T>` are decoded completely first, then shared
//! (`immutable.rs`). Each object is decoded once; whatever the type model does not know is
//! skipped. A stored field is read into its running field by kind in `fields.rs`; a derived
//! type's generated code (`generated.rs`) reads its fields in one go while the stream holds them
//! as the running type writes them. Objects by value are `embedded.rs`'s. A stream that describes its types
//! (`evolution.rs`) is compared with the running ones once; stored fields that are not read as
//! they are go through `retyped.rs` (conversions, migrations, skips), and whatever the decode
//! drops is recorded by `losses.rs`. The stored strong pointers (`strong_edges.rs`) tell which
//! objects the result holds and how deep its drop would recurse (`drop_depth.rs`); `teardown.rs`
//! lets go of what a failed decode built and of orphans, and refuses a graph whose drop would
//! overflow the stack.

use super::progress::{ProgressFn, Tracker};
use super::report::{DecodeEvent, DecodeReport, Recorder};
use super::Limits;
use crate::containers::EXTERNAL_TYPE_ID;
use crate::field::{Declared, Family, FieldError, SharedObject};
use crate::plain::{Reader, ZERO_SIZED_ALLOWANCE};
use crate::rtti::{Reflectable, Registry, RttiType};
use crate::schema::fingerprint_table::FingerprintTable;
use crate::schema::table::TableIndex;
use crate::wire::error::{corrupt, DecodeError, DecodeErrorKind};
use crate::wire::format::{FieldHeader, TYPE_HEADER_SIZE, WORD_SIZE};
use crate::wire::index::{capacity, check_unwalked, index, index_rest, root_entry, IndexEntry};
use crate::wire::skip::skip_field;
use crate::wire::{stream_body, walk_object, Item};
use std::any::Any;
use std::cell::Cell;
use std::collections::VecDeque;

pub(crate) mod drop_depth;
mod embedded;
mod evolution;
mod external;
mod fields;
pub(crate) mod generated;
mod immutable;
mod losses;
mod retyped;
mod scope;
pub(crate) mod strong_edges;
mod teardown;

use crate::rtti::lifecycle::{finish_hooks, has_end_hooks, start_hooks};
use evolution::StreamTypes;
pub(crate) use scope::FieldScope;
use strong_edges::{StrongEdges, StrongGraph};

/// Build state of a top-level object.
enum State {
    /// Not reached yet.
    Pending,
    /// Being decoded (an immutable object on the current path).
    Building,
    /// Built and shared.
    Ready(SharedObject),
    /// Unknown or abstract type, or not representable: pointers to it become null.
    Missing,
    /// The root, returned by value: pointers to it become null.
    Root,
    /// An external reference re-linked to the caller's object (`external.rs`).
    External(SharedObject),
}

pub(crate) struct Decoder<'d, 'c> {
    /// The stream without its trailer.
    data: &'d [u8],
    /// How many top-level objects the trailer records (version 2 streams).
    recorded_objects: Option<u32>,
    /// Zero-size plain elements the rest of the decode may still read (see `Reader`).
    zero_sized_left: usize,
    registry: &'d Registry,
    limits: Limits,
    context: &'c mut dyn Any,
    entries: Vec<IndexEntry>,
    states: Vec<State>,
    /// Shared objects created empty, waiting for their fields.
    to_fill: VecDeque<(usize, SharedObject)>,
    /// Shared objects whose `deserialization_ended` hooks run at the end (only types that have
    /// such hooks: the others need no second visit).
    to_finish: Vec<SharedObject>,
    depth: usize,
    /// Bytes charged against the allocation budget so far.
    allocated: usize,
    budget: usize,
    /// Set when an object may have been built that the result does not hold strongly and the
    /// stream's pointers cannot tell (a target a field refused, objects handed to a migration):
    /// the finished graph is walked and such orphans are swept so their cycles cannot leak.
    orphans_possible: bool,
    /// Set when an object was first reached through a `Weak`: it may be an orphan, which the
    /// recorded strong pointers tell (at most one edge per 4 input bytes).
    weak_built: bool,
    /// Which instances a `Weak` points at (empty until the first one): those nothing else holds
    /// are freed when the decoder lets go, which is reported (`teardown.rs`).
    weak_targets: Vec<bool>,
    strong_edges: StrongEdges,
    /// `strong_edges` as a graph, once decoding is done and a question needs it.
    strong_graph: Option<StrongGraph>,
    /// Which instances the root holds through the stored strong pointers, once asked.
    reached: Option<Vec<bool>>,
    /// Instance index of the top-level object being filled (owner of the pointers read).
    current: usize,
    /// `depth` at the start of that object's body: pointers deeper are inside values it holds by
    /// value.
    body_depth: usize,
    /// Whether the section being read is the object's own and its type's fields are described in
    /// declaration order (the order a drop lets go of them).
    place_known: bool,
    /// The declared position of the top-level field being read, when `place_known`.
    place: Option<usize>,
    /// Base sections the field being read is inside, counting those of the values around it, where
    /// a base may be boxed (a type not derived: a kept type boxes its base), one more level for a
    /// drop each.
    section_nesting: usize,
    /// The drop weight of that object's type (`drop_depth::drop_weight`), which its pointers carry.
    weight: u8,
    /// Drop weights by descriptor ordinal, once found (`u8::MAX`: not yet).
    weights: Vec<u8>,
    /// Whether `entries` holds every top-level object (at first it holds the root only).
    indexed: bool,
    /// Where the root ended, once it is decoded.
    root_end: Option<usize>,
    /// How many `build_immutable` calls are under way, one inside another.
    immutable_nesting: usize,
    /// What the caller asked the root to be: its type is found even when not registered.
    expected_root: Option<Declared>,
    /// Set when a deserialization hook ran: hooks can change pointers, so only a walk of the
    /// finished graph knows what it holds.
    hooks_ran: bool,
    /// How the stream describes its types (version 3), compared with the running ones.
    types: StreamTypes<'d>,
    /// What the decode skipped, converted or dropped.
    recorder: Recorder,
    /// Re-links external references (`external.rs`).
    relink: Option<super::Relink<'d>>,
    /// Finds assets by key (`external.rs`).
    resolve_asset: Option<super::external::ResolveAsset<'d>>,
    /// Types the registry lacks are defined from the schema table and their objects kept.
    keep_unknown_types: bool,
    /// Reports progress every so many top-level objects.
    progress: Tracker<'d>,
    /// Whether derived types read their fields through their generated code (`generated.rs`).
    generated: bool,
    /// Top-level objects record their lengths (version 5): the index jumps over them, and those no
    /// pointer reaches are walked at the end.
    lengths: bool,
    /// The registry's answers for the type IDs looked up last, by a hash of the ID (type ID 0,
    /// the null type, is never looked up, so it marks an empty slot).
    recent_types: [Cell<(u32, Option<&'static RttiType>)>; RECENT_TYPES],
}

/// How many type IDs [`Decoder::registered`] remembers.
const RECENT_TYPES: usize = 64;

/// What a shared object costs beyond its instance: the allocation's counters and borrow flag,
/// and the decoder's handles to it in its table and queues.
const SHARED_OVERHEAD: usize = 96;
/// What a boxed object costs beyond its instance.
const BOXED_OVERHEAD: usize = 16;

/// The base section of type `type_id` in `own`'s chain: its index and field scope. (Out of line:
/// base sections are rare, and the per-field loop stays small enough to inline.)
#[inline(never)]
fn base_section(own: &'static RttiType, type_id: u32) -> Option<(usize, FieldScope)> {
    own.chain().enumerate().find(|(_, rtti)| rtti.id() == type_id).map(|(index, rtti)| (index, FieldScope::of(rtti)))
}

/// A field error, placed where the reader stands (a plain value's own offset wins).
#[cold]
fn field_failure(reader: &Reader<'_>, error: FieldError) -> DecodeError {
    DecodeError::from(error).at(reader.offset())
}

impl<'d, 'c> Decoder<'d, 'c> {
    pub(crate) fn new(
        data: &'d [u8],
        registry: &'d Registry,
        limits: Limits,
        context: &'c mut dyn Any,
    ) -> Result<Self, DecodeError> {
        // Only the root at first: the rest of the index is built when a pointer needs it, or after
        // the root is decoded (then from the root's end, not over the root again).
        let budget = limits.allocation_budget(data.len());
        let body = stream_body(data)?;
        if body.compact {
            // Public entry points hand compact streams to `compact::normalize` first.
            return Err(corrupt(4, "a compact stream read without its normal form"));
        }
        let progress = Tracker::new(None, (body.objects.map(u64::from), Some(data.len() as u64)));
        let types = match (body.schema, body.fingerprints) {
            (Some((start, end)), _) => StreamTypes::new(TableIndex::read(data, start, end)?, registry)?,
            // Written for a reader with the same types: checked before any object is read, and
            // then read as a stream that does not describe its types is.
            (None, Some((start, end))) => {
                StreamTypes::fingerprinted(&FingerprintTable::read(data, start, end)?, registry)?
            }
            (None, None) => StreamTypes::none(),
        };
        let (data, lengths) = (body.data, body.lengths);
        let entries = vec![root_entry(data, &limits, lengths)?];
        let mut decoder = Decoder {
            data,
            recorded_objects: body.objects,
            zero_sized_left: ZERO_SIZED_ALLOWANCE,
            registry,
            limits,
            context,
            states: Vec::new(),
            to_fill: VecDeque::new(),
            to_finish: Vec::new(),
            depth: 0,
            allocated: 0,
            budget,
            orphans_possible: false,
            weak_built: false,
            weak_targets: Vec::new(),
            strong_edges: StrongEdges::default(),
            strong_graph: None,
            reached: None,
            current: 0,
            body_depth: 0,
            place_known: false,
            place: None,
            section_nesting: 0,
            weight: 0,
            weights: Vec::new(),
            hooks_ran: false,
            expected_root: None,
            immutable_nesting: 0,
            indexed: false,
            root_end: None,
            entries,
            types,
            recorder: Recorder::default(),
            relink: None,
            resolve_asset: None,
            keep_unknown_types: false,
            progress,
            generated: true,
            lengths,
            recent_types: [const { Cell::new((0, None)) }; RECENT_TYPES],
        };
        decoder.states.push(State::Pending);
        Ok(decoder)
    }

    /// Strict decoding: the first loss is an error.
    pub(crate) fn strict(mut self, strict: bool) -> Self {
        self.recorder.strict = strict;
        self
    }

    /// See [`BinarySerializer::progress`](super::BinarySerializer::progress).
    pub(crate) fn progress(mut self, report: Option<ProgressFn<'d>>) -> Self {
        self.progress = std::mem::take(&mut self.progress).with_report(report);
        self
    }

    /// See [`BinarySerializer::generated_codecs`](super::BinarySerializer::generated_codecs).
    pub(crate) fn generated_codecs(mut self, generated: bool) -> Self {
        self.generated = generated;
        self
    }

    /// See [`BinarySerializer::keep_unknown_types`](super::BinarySerializer::keep_unknown_types).
    pub(crate) fn keep_unknown_types(mut self, keep: bool) -> Self {
        self.keep_unknown_types = keep;
        self
    }

    /// Indexes every top-level object (once): before the first pointer is resolved, or at the end
    /// for the objects after the root, so a corrupt tail is reported either way.
    fn complete_index(&mut self) -> Result<(), DecodeError> {
        if self.indexed {
            return Ok(());
        }
        self.indexed = true;
        match self.root_end {
            Some(end) => {
                let mut reader = Reader::new(self.data);
                reader.skip(end)?;
                let room = capacity(self.data, &self.limits, self.recorded_objects);
                self.entries.reserve(room.saturating_sub(self.entries.len()));
                index_rest(&mut reader, &mut self.entries, &self.limits, self.lengths)?;
            }
            None => self.entries = index(self.data, &self.limits, self.recorded_objects, self.lengths)?,
        }
        if let Some(recorded) = self.recorded_objects.filter(|&recorded| recorded as usize != self.entries.len()) {
            let kind = DecodeErrorKind::ObjectCountMismatch { recorded, found: self.entries.len() };
            return Err(DecodeError::new(kind, self.data.len()));
        }
        let table = self.entries.len() * (std::mem::size_of::<IndexEntry>() + std::mem::size_of::<State>());
        self.charge(self.data.len(), table)?;
        self.states.resize_with(self.entries.len(), || State::Pending);
        Ok(())
    }

    /// Counts `bytes` against the allocation budget, before they are allocated.
    fn charge(&mut self, offset: usize, bytes: usize) -> Result<(), DecodeError> {
        self.allocated = self.allocated.saturating_add(bytes);
        if self.allocated > self.budget {
            return Err(DecodeError::new(DecodeErrorKind::AllocationLimit { limit: self.budget }, offset));
        }
        Ok(())
    }

    /// The type with ID `type_id`: the registry's, or else the type a field declares (so an
    /// instantiation of a generic type loads into a field of its exact type without being
    /// registered). `declared` is asked for only when the registry lacks the ID.
    #[inline]
    pub(crate) fn lookup(
        &self,
        type_id: u32,
        declared: impl FnOnce() -> Option<Declared>,
    ) -> Option<&'static RttiType> {
        self.registered(type_id)
            .or_else(|| declared().and_then(|declared| declared.rtti()).filter(|rtti| rtti.id() == type_id))
            .or_else(|| self.kept_type(type_id))
    }

    /// The registry's type with ID `type_id`, through `recent_types`: a level holds tens of
    /// thousands of objects of a few dozen types, and one comparison beats a hash lookup.
    #[inline]
    fn registered(&self, type_id: u32) -> Option<&'static RttiType> {
        let slot = &self.recent_types[(type_id ^ type_id >> 5 ^ type_id >> 11) as usize % RECENT_TYPES];
        match slot.get() {
            (id, found) if id == type_id => found,
            _ => {
                let found = self.registry.get(type_id);
                slot.set((type_id, found));
                found
            }
        }
    }

    /// A type the registry lacks, defined from the stream's schema table (when keeping them).
    #[cold]
    fn kept_type(&self, type_id: u32) -> Option<&'static RttiType> {
        if !self.keep_unknown_types {
            return None;
        }
        crate::runtime::kept_type(type_id, &|id| self.types.stored(id), self.registry)
    }

    fn root_type(&self) -> Result<&'static RttiType, DecodeError> {
        let entry = self.entries[0];
        self.lookup(entry.type_id, || self.expected_root)
            .filter(|rtti| !rtti.is_abstract())
            .ok_or_else(|| DecodeError::new(DecodeErrorKind::UnknownRootType { type_id: entry.type_id }, entry.offset))
    }

    /// Decodes the graph with the root returned by value. With `expected` (a Rust type and its
    /// name), a root the registry would build as another Rust type is refused before anything is
    /// built.
    pub(crate) fn decode_boxed(
        mut self,
        expected: Option<Declared>,
    ) -> Result<(Box<dyn Reflectable>, DecodeReport), DecodeError> {
        self.expected_root = expected;
        if let Some(rtti) = expected.and_then(|expected| expected.rtti()) {
            let entry = self.entries[0];
            let stored = self.lookup(entry.type_id, || expected);
            if stored.map(RttiType::rust_type) != Some(rtti.rust_type()) {
                let found = stored.map_or_else(|| format!("type {}", entry.type_id), |t| t.name().to_owned());
                let kind = DecodeErrorKind::RootTypeMismatch { expected: rtti.rust_name(), found };
                return Err(DecodeError::new(kind, entry.offset));
            }
        }
        let result = self.unwinding_released(Self::try_decode_boxed);
        if result.is_err() {
            self.release();
        }
        if result.is_ok() {
            self.progress.finished(None);
        }
        result.map(|root| (root, std::mem::take(&mut self.recorder.report)))
    }

    /// Runs `decode`; when a function of the caller's panics inside it (a hook, a re-link or
    /// asset function), lets go of what was built, as after an error, before the panic goes on:
    /// cycles among the objects built would otherwise leak.
    fn unwinding_released<R>(&mut self, decode: impl FnOnce(&mut Self) -> R) -> R {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| decode(&mut *self))) {
            Ok(result) => result,
            Err(panic) => {
                self.release();
                std::panic::resume_unwind(panic)
            }
        }
    }

    /// Decodes the graph with the root in a shared allocation of `family`, refusing, before
    /// anything else is decoded, a root that `accepts` does not take (`handle` names what was
    /// asked for, for the error).
    pub(crate) fn decode_shared(
        mut self,
        (family, handle): (Family, &'static str),
        expected: Declared,
        accepts: &dyn Fn(&SharedObject) -> bool,
    ) -> Result<(SharedObject, DecodeReport), DecodeError> {
        self.expected_root = Some(expected);
        let result = self.unwinding_released(|decoder| decoder.try_decode_shared(family, handle, accepts));
        if result.is_err() {
            self.release();
        } else {
            self.progress.finished(None);
        }
        result.map(|root| (root, std::mem::take(&mut self.recorder.report)))
    }

    fn try_decode_boxed(&mut self) -> Result<Box<dyn Reflectable>, DecodeError> {
        let rtti = self.root_type()?;
        self.charge(self.entries[0].offset, rtti.instance_size() + BOXED_OVERHEAD)?;
        let mut root = rtti.create().expect("checked not abstract");
        self.states[0] = State::Root;
        self.object_body(&mut *root, 0)?;
        self.finish()?;
        self.hooks_ran |= finish_hooks(&mut *root, self.context);
        self.check_drop(Some(&*root))?;
        self.sweep_orphans(Some(&*root), None);
        self.let_go()?;
        Ok(root)
    }

    fn try_decode_shared(
        &mut self,
        family: Family,
        handle: &'static str,
        accepts: &dyn Fn(&SharedObject) -> bool,
    ) -> Result<SharedObject, DecodeError> {
        let rtti = self.root_type()?;
        if family.is_mutable() {
            self.charge(self.entries[0].offset, rtti.instance_size() + SHARED_OVERHEAD)?;
        }
        let root = rtti.make_shared(family, rtti.create().expect("checked not abstract"));
        let root = root.expect("a fresh object always fits its own type");
        if !accepts(&root) {
            let kind = DecodeErrorKind::RootTypeMismatch { expected: handle, found: rtti.name().to_owned() };
            return Err(DecodeError::new(kind, self.entries[0].offset));
        }
        if family.is_mutable() {
            self.states[0] = State::Ready(root.clone());
            self.to_fill.push_back((0, root.clone()));
            if has_end_hooks(rtti) {
                self.to_finish.push(root.clone());
            }
            self.finish()?;
            self.check_drop(None)?;
            self.sweep_orphans(None, Some(&root));
            self.let_go()?;
            Ok(root)
        } else {
            // Immutable roots are decoded before sharing, like any immutable object.
            let expected = self.expected_root;
            self.resolve(1, family, || expected)?;
            self.finish()?;
            match &self.states[0] {
                State::Ready(shared) => {
                    let shared = shared.clone();
                    self.check_drop(None)?;
                    self.sweep_orphans(None, Some(&shared));
                    self.let_go()?;
                    Ok(shared)
                }
                _ => Err(DecodeError::new(
                    DecodeErrorKind::UnknownRootType { type_id: rtti.id() },
                    self.entries[0].offset,
                )),
            }
        }
    }

    /// Fills queued objects, then runs the deferred end hooks.
    fn finish(&mut self) -> Result<(), DecodeError> {
        while let Some((index, shared)) = self.to_fill.pop_front() {
            let mut result = Ok(());
            let offset = self.entries[index].offset;
            shared
                .write(|object| result = self.object_body(object, index))
                .map_err(|e| DecodeError::from(e).at(offset))?;
            result?;
        }
        self.complete_index()?;
        // What no decode read (unreached, or of a type this program lacks) is still walked, so a
        // corrupt object is an error wherever it is: the index of a version 5 stream jumped over it.
        let states = &self.states;
        let walked = |at: usize| matches!(states[at], State::Ready(_) | State::Root | State::External(_));
        self.zero_sized_left = check_unwalked(self.data, &self.entries, walked, self.zero_sized_left, &self.limits)?;
        let unreached = self.states.iter().filter(|state| matches!(state, State::Pending)).count();
        self.record(DecodeEvent::ObjectsUnreached, unreached as u64, self.data.len())?;
        for shared in std::mem::take(&mut self.to_finish) {
            let context = &mut *self.context;
            let ran = shared.write(|object| finish_hooks(object, context))?;
            self.hooks_ran |= ran;
        }
        Ok(())
    }

    /// Decodes top-level object `index` into `object` (a fresh instance of its type).
    fn object_body(&mut self, object: &mut dyn Reflectable, index: usize) -> Result<(), DecodeError> {
        // One zero-size allowance for the whole stream, however many readers walk it.
        let entry = self.entries[index];
        let mut reader = entry.body(self.data)?.with_zero_sized_left(self.zero_sized_left);
        let outer = (self.current, self.body_depth, self.place_known, self.place, self.section_nesting, self.weight);
        let weight = self.drop_weight(object.rtti());
        (self.current, self.body_depth, self.section_nesting, self.weight) = (index, self.depth, 0, weight);
        let result =
            self.object_sections(&mut reader, object, entry.instance(), false).and_then(|()| entry.check_end(&reader));
        (self.current, self.body_depth, self.place_known, self.place, self.section_nesting, self.weight) = outer;
        if index == 0 {
            self.root_end = Some(reader.offset());
        }
        self.zero_sized_left = reader.zero_sized_left();
        result
    }

    /// The drop weight of `rtti` (`drop_depth::drop_weight`), found once per type.
    fn drop_weight(&mut self, rtti: &RttiType) -> u8 {
        let ordinal = rtti.ordinal() as usize;
        if self.weights.len() <= ordinal {
            self.weights.resize(ordinal + 1, u8::MAX);
        }
        if self.weights[ordinal] == u8::MAX {
            self.weights[ordinal] = drop_depth::drop_weight(rtti).min(u8::MAX - 1);
        }
        self.weights[ordinal]
    }

    /// Decodes an object's sections (its first type header read) into `object`. A base section
    /// whose type the object's chain no longer has is skipped.
    fn object_sections(
        &mut self,
        reader: &mut Reader<'_>,
        object: &mut dyn Reflectable,
        instance: u32,
        embedded: bool,
    ) -> Result<(), DecodeError> {
        self.hooks_ran |= start_hooks(object, self.context);
        let own = object.rtti();
        // The first type header (and a top-level object's length) is read already.
        let length = if !embedded && self.lengths { WORD_SIZE } else { 0 };
        let start = reader.offset() - TYPE_HEADER_SIZE - length;
        let mut scope = FieldScope::of(own).with_layout(self.types.layout(own).map_err(|error| error.at(start))?);
        if !embedded {
            self.place_known = own.fields_in_declaration_order();
        }
        let outer_sections = self.section_nesting;
        self.generated_fields(reader, object, &mut scope)?;
        let mut section = Some((0, scope));
        walk_object(reader, instance, embedded, |reader, item| match item {
            Item::Section(type_id) => {
                section = match base_section(own, type_id) {
                    Some((index, scope)) => {
                        let at = reader.offset() - TYPE_HEADER_SIZE;
                        let layout = self.types.layout(scope.rtti).map_err(|error| error.at(at))?;
                        let mut scope = scope.with_layout(layout);
                        if !embedded {
                            // Where a base's fields are dropped among the object's own is not known.
                            self.place_known = false;
                        }
                        // A derived type holds its base inline; another may box it (a kept type does).
                        let boxed = !own.fields_in_declaration_order();
                        self.section_nesting = outer_sections + if boxed { index } else { 0 };
                        let target =
                            RttiType::section_mut(object, index).expect("the index comes from the object's chain");
                        self.generated_fields(reader, target, &mut scope)?;
                        Some((index, scope))
                    }
                    None => {
                        let event = DecodeEvent::SectionSkipped { type_name: own.name().to_owned(), base_id: type_id };
                        self.record(event, 1, reader.offset())?;
                        None
                    }
                };
                Ok(())
            }
            Item::Field(header) => match &mut section {
                Some((index, scope)) => {
                    let target =
                        RttiType::section_mut(object, *index).expect("the index comes from the object's chain");
                    self.field(reader, scope, &header, target)
                }
                None => skip_field(reader, &header, self.depth, &self.limits),
            },
        })?;
        self.section_nesting = outer_sections;
        if !embedded {
            self.progress.object_done((reader.offset() - start) as u64, true);
        }
        Ok(())
    }

    /// Decodes one stored field of a section into `object`: into the field with its ID when the
    /// stored shape still fits, else to the migration registered for that stored shape, else it is
    /// skipped.
    #[inline(always)]
    fn field(
        &mut self,
        reader: &mut Reader<'_>,
        scope: &mut FieldScope,
        header: &FieldHeader,
        object: &mut dyn Reflectable,
    ) -> Result<(), DecodeError> {
        if scope.is_variant_tag(header.id) {
            return match scope.read_variant_tag(reader, header, Some(object))? {
                Some(variant_id) => self.unknown_variant(reader, scope, variant_id),
                None => Ok(()),
            };
        }
        let found = scope.field_for(header);
        if self.depth == self.body_depth {
            // A field read through a plan (a stream of another version) may land in a field of
            // another position: its pointers count as dropped in no known order.
            let known = found.is_some() && self.place_known && scope.reads_as_is();
            self.place = known.then(|| scope.found_position());
        }
        if let Some(field) = found {
            if scope.reads_as_is() {
                return self
                    .known_field(reader, field, header, object)
                    .map_err(|e| e.within(scope.rtti.name(), Some(field.name())));
            }
        }
        self.other_field(reader, scope, header, object)
    }

    /// Makes sure instance `id` is built (or known to be missing); `true` when this call built it.
    /// `declared` gives the type the pointer declares, asked for only when the registry lacks the
    /// stored type.
    fn resolve(
        &mut self,
        id: u32,
        family: Family,
        declared: impl FnOnce() -> Option<Declared>,
    ) -> Result<bool, DecodeError> {
        self.complete_index()?;
        let index = id as usize - 1;
        if !matches!(self.states[index], State::Pending) {
            return Ok(false);
        }
        let entry = self.entries[index];
        if entry.type_id == EXTERNAL_TYPE_ID {
            return self.resolve_external(index).map(|()| false);
        }
        let rtti = self.lookup(entry.type_id, declared);
        if let Some(rtti) = rtti {
            self.charge(entry.offset, rtti.instance_size() + SHARED_OVERHEAD)?;
        }
        let Some(rtti) = rtti.filter(|rtti| !rtti.is_abstract()) else {
            self.states[index] = State::Missing;
            self.object_dropped(entry.type_id, rtti.is_some(), entry.offset)?;
            return Ok(false);
        };
        if family.is_mutable() {
            let shared = rtti.create_shared(family).expect("checked not abstract");
            self.states[index] = State::Ready(shared.clone());
            self.to_fill.push_back((index, shared.clone()));
            if has_end_hooks(rtti) {
                self.to_finish.push(shared);
            }
        } else {
            // Immutable pointees must be complete before they are shared: build it, and whatever
            // immutable objects it needs, dependencies first.
            // The pre-scan lets `build_immutable` build dependencies from its own stack, so this
            // nests only where the scan could not foresee a need (an object decoded in place
            // into a value of a type no registry or field declares). Bounded all the same: each
            // level costs call stack.
            if self.immutable_nesting >= self.limits.max_depth {
                let kind = DecodeErrorKind::TooDeep { limit: self.limits.max_depth };
                return Err(DecodeError::new(kind, entry.offset));
            }
            self.immutable_nesting += 1;
            let built = self.build_immutable(index, family, rtti.create().expect("checked not abstract"));
            self.immutable_nesting -= 1;
            built?;
        }
        Ok(true)
    }

    fn ready(&self, id: u32) -> Option<&SharedObject> {
        match self.states.get((id as usize).checked_sub(1)?)? {
            State::Ready(shared) | State::External(shared) => Some(shared),
            _ => None,
        }
    }
}
