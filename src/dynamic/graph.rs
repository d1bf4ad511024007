//! [`DynamicGraph`]: every object of a stream, in instance order, with the stream's format version,
//! checksum setting and schema table, so that writing it back gives the same bytes.

use super::object::{DynamicObject, DynamicRef, DynamicValue};
use super::{decode, encode, DynamicError};
use crate::rtti::AsRoot;
use crate::schema::table::TableIndex;
use crate::schema::Schema;
use crate::serializer::{BinarySerializer, DecodeError, DecodeReport, DecodeTarget, EncodeError, Encoding, Limits};
use crate::wire::format::{SCHEMA_MARK, VERSION};
use ahash::AHashMap;
use std::hash::{Hash, Hasher};

/// A whole object graph read without its Rust types (Banshee's `SerializedObject`, for a graph).
///
/// `objects()[i]` is instance `i + 1`; the first is the root. Pointers are [`DynamicRef`]s, so
/// shared objects stay shared and cycles stay cycles. The graph holds every object it read,
/// including those only `Weak` fields reach, and lets go of cycles among them when it is dropped
/// (objects a caller still holds a handle to, and what they reach, are left as they are).
///
/// ```
/// use reflectable::dynamic::DynamicGraph;
/// use reflectable::Reflectable;
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9900)]
/// struct Door {
///     #[rtti(id = 1)]
///     open: bool,
///     #[rtti(id = 2)]
///     name: String,
/// }
///
/// let bytes = reflectable::to_vec(&Door { open: true, name: "oak".into() }).unwrap();
/// // No registry, no `Door`: the stream describes itself.
/// let graph = DynamicGraph::from_bytes(&bytes).unwrap();
/// let root = graph.root().borrow();
/// assert_eq!(root.type_name(), Some("Door"));
/// assert_eq!(root.own().get::<String>(2).unwrap(), "oak");
/// assert!(root.own().get::<u32>(2).is_err(), "a String is never read as another type");
/// drop(root);
/// assert_eq!(graph.to_bytes().unwrap(), bytes, "the same bytes come back");
/// ```
pub struct DynamicGraph {
    pub(super) version: u32,
    pub(super) checksum: bool,
    pub(super) objects: Vec<DynamicRef>,
    pub(super) table: Option<Vec<StoredEntry>>,
    /// The fingerprint table the graph was read with, in its order, instead of a schema table
    /// (a stream written with `SchemaTable::Fingerprints`).
    pub(super) fingerprints: Option<Vec<(u32, u64)>>,
    /// How [`to_bytes`](Self::to_bytes) writes the objects: as the stream the graph was read from.
    pub(super) encoding: Encoding,
    /// The plain block of the compact stream the graph was read from: written back with it, so
    /// the same bytes come back without the program's types.
    pub(super) plain_block: Option<Box<[u8]>>,
}

/// One entry of a stored schema table, kept as its bytes (length word included).
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct StoredEntry {
    pub(crate) type_id: u32,
    pub(crate) bytes: Box<[u8]>,
}

impl StoredEntry {
    #[cfg(feature = "json")]
    /// The entry describing `schema`.
    pub(crate) fn of(schema: &crate::schema::TypeSchema) -> Self {
        let bytes = crate::schema::table::schema_entry(schema);
        StoredEntry { type_id: schema.id, bytes: bytes.into() }
    }
}

/// The instance numbers of a graph's objects, by identity (see [`DynamicGraph::instance_index`]).
/// Made from the graph as it was: objects added later are not in it.
#[derive(Debug, Clone, Default)]
pub struct InstanceIndex(AHashMap<usize, u32>);

impl InstanceIndex {
    /// The instance number of `object`, if the graph holds it.
    pub fn get(&self, object: &DynamicRef) -> Option<u32> {
        self.0.get(&object.addr()).copied()
    }
}

impl DynamicGraph {
    /// A graph of one root object, to be written in the current format version with no checksum.
    pub fn new(root: DynamicObject) -> Self {
        DynamicGraph {
            version: VERSION,
            checksum: false,
            objects: vec![DynamicRef::new(root)],
            table: Some(Vec::new()),
            fingerprints: None,
            encoding: Encoding::Normal,
            plain_block: None,
        }
    }

    /// Reads any valid stream with the default [`Limits`]. Other limits, and progress reports,
    /// are a [`BinarySerializer`]'s options: a graph is one of the things it decodes into.
    ///
    /// ```
    /// # use reflectable::dynamic::DynamicGraph;
    /// # use reflectable::serializer::{BinarySerializer, Limits, Progress};
    /// # use reflectable::Reflectable;
    /// # #[derive(Reflectable, Default)]
    /// # #[rtti(id = 9520)]
    /// # struct Note { #[rtti(id = 1)] text: String }
    /// let bytes = reflectable::to_vec(&Note { text: "hello".into() }).unwrap();
    /// let graph = DynamicGraph::from_bytes(&bytes).unwrap();
    /// assert_eq!(graph.root().borrow().type_name(), Some("Note"));
    ///
    /// let last = std::cell::Cell::new(None);
    /// let report = |progress: Progress| last.set(Some(progress));
    /// let serializer = BinarySerializer::new().limits(Limits::default()).progress(&report);
    /// let graph: DynamicGraph = serializer.decode(&bytes).unwrap();
    /// assert_eq!(last.get().and_then(|progress| progress.fraction()), Some(1.0));
    /// # drop(graph);
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        decode::decode(bytes, Limits::default(), None)
    }

    /// The graph of a Rust object graph: what decoding its encoding gives (so a field holds what
    /// the binary format would store, and the two agree by construction).
    ///
    /// ```
    /// # use reflectable::dynamic::DynamicGraph;
    /// # use reflectable::Reflectable;
    /// #[derive(Reflectable, Default, Debug, PartialEq)]
    /// #[rtti(id = 9901)]
    /// struct Lamp {
    ///     #[rtti(id = 1)]
    ///     watts: u32,
    /// }
    ///
    /// let mut graph = DynamicGraph::from_typed(&Lamp { watts: 40 }).unwrap();
    /// graph.root().borrow_mut().own_mut().set(1, &60u32).unwrap();
    /// let (lamp, report) = graph.to_typed::<Lamp>().unwrap();
    /// assert_eq!(lamp, Lamp { watts: 60 });
    /// assert!(report.is_lossless());
    /// ```
    pub fn from_typed<R: AsRoot + ?Sized>(root: &R) -> Result<Self, DynamicError> {
        let bytes = crate::to_vec(root)?;
        // The stream is this process's own: no budget can refuse it.
        let limits = Limits { max_allocation: Some(usize::MAX), max_objects: usize::MAX, ..Limits::default() };
        Ok(decode::decode(&bytes, limits, None)?)
    }

    /// The Rust object graph this graph stands for (by value, or its root in a shared handle so
    /// that pointers back to the root keep pointing at it; see [`DecodeTarget`]), read through the
    /// global registry with the binary decoder's tolerance (unknown fields and types skipped,
    /// defaults kept, lossless conversions), and its report of what was dropped.
    pub fn to_typed<T: DecodeTarget>(&self) -> Result<(T, DecodeReport), DynamicError> {
        self.to_typed_with(&BinarySerializer::new())
    }

    /// [`to_typed`](Self::to_typed) through `serializer` (its registry, limits, strictness).
    pub fn to_typed_with<T: DecodeTarget>(
        &self,
        serializer: &BinarySerializer<'_>,
    ) -> Result<(T, DecodeReport), DynamicError> {
        Ok(serializer.decode_with_report(&self.to_bytes()?)?)
    }

    /// Writes the graph. A graph read from a stream and not changed gives that stream's bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let bytes = encode::encode(self)?;
        match self.encoding {
            Encoding::Normal => Ok(bytes),
            Encoding::Compact => crate::serializer::compact::to_compact_with(
                &bytes,
                self.plain_block.as_deref(),
                None,
                &Limits::default(),
            )
            .map_err(EncodeError::NotCompact),
        }
    }

    /// The root object (instance 1).
    pub fn root(&self) -> &DynamicRef {
        &self.objects[0]
    }

    /// Every object, in instance order.
    pub fn objects(&self) -> &[DynamicRef] {
        &self.objects
    }

    /// Adds `object` to the graph (it is written after the objects the graph holds, even when no
    /// pointer reaches it) and returns its handle.
    pub fn add(&mut self, object: DynamicObject) -> DynamicRef {
        let handle = DynamicRef::new(object);
        self.objects.push(handle.clone());
        handle
    }

    /// The instance number `object` has in this graph (1 for the root). A search through the
    /// objects: to number many, make an [`instance_index`](Self::instance_index) once.
    pub fn instance_of(&self, object: &DynamicRef) -> Option<u32> {
        self.objects.iter().position(|candidate| candidate.ptr_eq(object)).map(|at| at as u32 + 1)
    }

    /// Every object's instance number, found in constant time (what a tool printing every
    /// pointer of a large graph needs).
    pub fn instance_index(&self) -> InstanceIndex {
        InstanceIndex(self.objects.iter().enumerate().map(|(at, object)| (object.addr(), at as u32 + 1)).collect())
    }

    /// The format version the graph is written in (that of the stream it was read from).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Whether the graph is written with a checksum (as the stream it was read from was).
    pub fn has_checksum(&self) -> bool {
        self.checksum
    }

    /// Writes the graph with or without a checksum from now on.
    pub fn set_checksum(&mut self, checksum: bool) {
        self.checksum = checksum;
    }

    /// The schema table the graph was read with (empty for streams of versions 1 and 2).
    pub fn schema(&self) -> Result<Schema, DecodeError> {
        let Some(entries) = &self.table else { return Ok(Schema::default()) };
        let mut table = SCHEMA_MARK.to_le_bytes().to_vec();
        table.extend_from_slice(&(entries.len() as u32).to_le_bytes());
        entries.iter().for_each(|entry| table.extend_from_slice(&entry.bytes));
        table.extend_from_slice(&(table.len() as u32 + 4).to_le_bytes());
        TableIndex::read_table(&table)?.schema()
    }

    #[cfg(feature = "json")]
    /// A graph of `objects` (the root first), written in format `version`, with `table` as its
    /// stored schema table (`None` for versions 1 and 2, and with `fingerprints`).
    pub(crate) fn from_parts(
        version: u32,
        checksum: bool,
        objects: Vec<DynamicRef>,
        table: Option<Vec<StoredEntry>>,
        fingerprints: Option<Vec<(u32, u64)>>,
    ) -> Self {
        DynamicGraph { version, checksum, objects, table, fingerprints, encoding: Encoding::Normal, plain_block: None }
    }

    /// How [`to_bytes`](Self::to_bytes) writes the graph: as the stream it was read from
    /// ([`Encoding::Compact`] for a compact stream), [`Encoding::Normal`] for a new graph.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Writes the graph in `encoding` from now on. A compact stream holds only objects some
    /// pointer reaches, in the encoder's order, each with every field its schema entry lists: a
    /// graph edited otherwise (an object [`add`](Self::add)ed that nothing points to, a field
    /// removed) writes only in the normal encoding ([`EncodeError::NotCompact`]).
    ///
    /// ```
    /// # use reflectable::dynamic::DynamicGraph;
    /// # use reflectable::serializer::Encoding;
    /// # use reflectable::Reflectable;
    /// # #[derive(Reflectable, Default)]
    /// # #[rtti(id = 9902)]
    /// # struct Note { #[rtti(id = 1)] text: String }
    /// let bytes = reflectable::to_vec(&Note { text: "hello".into() }).unwrap();
    /// let mut graph = DynamicGraph::from_bytes(&bytes).unwrap();
    /// graph.set_encoding(Encoding::Compact);
    /// let compact = graph.to_bytes().unwrap();
    /// assert!(compact.len() < bytes.len());
    /// let again = DynamicGraph::from_bytes(&compact).unwrap();
    /// assert_eq!(again.encoding(), Encoding::Compact);
    /// assert_eq!(again.to_bytes().unwrap(), compact);
    /// ```
    pub fn set_encoding(&mut self, encoding: Encoding) {
        self.encoding = encoding;
    }

    #[cfg(feature = "json")]
    /// The plain block of the compact stream the graph was read from (`FORMAT.md`, "Compact
    /// streams"), which writing it back compact reuses.
    pub(crate) fn plain_block(&self) -> Option<&[u8]> {
        self.plain_block.as_deref()
    }

    #[cfg(feature = "json")]
    pub(crate) fn set_plain_block(&mut self, block: Option<Box<[u8]>>) {
        self.plain_block = block;
    }

    /// The fingerprint table the graph was read with (type ID, fingerprint), in the stream's
    /// order, when the stream listed its types' fingerprints instead of describing them
    /// ([`SchemaTable::Fingerprints`](crate::serializer::SchemaTable::Fingerprints)). Such a graph
    /// is written back the same way, its objects undescribed; a type it gains must come with its
    /// schema, whose fingerprint is then listed.
    pub fn fingerprints(&self) -> Option<&[(u32, u64)]> {
        self.fingerprints.as_deref()
    }

    #[cfg(feature = "json")]
    /// The stored schema table's entries in its own order (which the stream's bytes keep), each
    /// parsed, or as its bytes where it does not parse (a stream need not use every entry, and a
    /// decoder reads only those it uses); `None` for a stream without a table (versions 1 and 2).
    pub(crate) fn stored_types(&self) -> Option<Vec<Result<crate::schema::TypeSchema, &[u8]>>> {
        let entries = self.table.as_ref()?;
        Some(
            entries
                .iter()
                .map(|entry| {
                    let mut table = SCHEMA_MARK.to_le_bytes().to_vec();
                    table.extend_from_slice(&1u32.to_le_bytes());
                    table.extend_from_slice(&entry.bytes);
                    table.extend_from_slice(&(table.len() as u32 + 4).to_le_bytes());
                    let parsed = TableIndex::read_table(&table).and_then(|index| index.schema());
                    match parsed.map(|schema| schema.types.into_iter().next()) {
                        Ok(Some(schema)) => Ok(schema),
                        _ => Err(&entry.bytes[..]),
                    }
                })
                .collect(),
        )
    }

    #[cfg(feature = "json")]
    /// The stored entry of `bytes` (length word first), when they are one.
    pub(crate) fn raw_entry(bytes: &[u8]) -> Option<StoredEntry> {
        let length = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
        let type_id = u32::from_le_bytes(bytes.get(4..8)?.try_into().ok()?);
        (length + 4 == bytes.len()).then(|| StoredEntry { type_id, bytes: bytes.into() })
    }

    /// Instance numbers by address, for comparing and hashing graphs.
    fn numbering(&self) -> AHashMap<usize, usize> {
        self.objects.iter().enumerate().map(|(at, object)| (object.addr(), at)).collect()
    }
}

impl PartialEq for DynamicGraph {
    /// Equal graphs hold equal objects in the same instance order, with pointers to the same
    /// instance numbers, and were read from (or will write) the same format and schema table.
    fn eq(&self, other: &Self) -> bool {
        if self.version != other.version
            || self.checksum != other.checksum
            || self.table != other.table
            || self.fingerprints != other.fingerprints
            || self.encoding != other.encoding
            || self.plain_block != other.plain_block
            || self.objects.len() != other.objects.len()
        {
            return false;
        }
        let (ours, theirs) = (self.numbering(), other.numbering());
        let mut same = |a: &DynamicRef, b: &DynamicRef| match (ours.get(&a.addr()), theirs.get(&b.addr())) {
            (Some(a), Some(b)) => a == b,
            (None, None) => a.ptr_eq(b),
            _ => false,
        };
        self.objects.iter().zip(&other.objects).all(|(a, b)| match (a.0.try_borrow(), b.0.try_borrow()) {
            (Ok(a), Ok(b)) => a.eq_by(&b, &mut same),
            _ => a.ptr_eq(b),
        })
    }
}

impl Eq for DynamicGraph {}

impl Clone for DynamicGraph {
    /// A deep copy: every object of the graph copied once, pointers between them pointing at the
    /// copies (sharing and cycles as they were), pointers to objects outside the graph kept. The
    /// copy is `==` to the original and shares no object with it.
    fn clone(&self) -> Self {
        let numbering = self.numbering();
        let type_of = |object: &DynamicRef| object.0.try_borrow().map_or(0, |object| object.type_id());
        let copies: Vec<DynamicRef> =
            self.objects.iter().map(|object| DynamicRef::new(DynamicObject::new(type_of(object), None))).collect();
        let retarget = |target: &DynamicRef| {
            numbering.get(&target.addr()).map_or_else(|| target.clone(), |&at| copies[at].clone())
        };
        for (object, copy) in self.objects.iter().zip(&copies) {
            // An object borrowed mutably elsewhere cannot be read: its copy stays empty.
            if let Ok(object) = object.0.try_borrow() {
                *copy.0.borrow_mut() = object.map_pointers(&retarget);
            }
        }
        DynamicGraph {
            version: self.version,
            checksum: self.checksum,
            objects: copies,
            table: self.table.clone(),
            fingerprints: self.fingerprints.clone(),
            encoding: self.encoding,
            plain_block: self.plain_block.clone(),
        }
    }
}

impl Hash for DynamicGraph {
    /// Consistent with `==`: pointers hash as instance numbers.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.version.hash(state);
        self.checksum.hash(state);
        self.table.hash(state);
        self.encoding.hash(state);
        self.plain_block.hash(state);
        let numbering = self.numbering();
        let pointer = |target: &DynamicRef| numbering.get(&target.addr()).map_or(target.addr() as u64, |&at| at as u64);
        for object in &self.objects {
            if let Ok(object) = object.0.try_borrow() {
                object.hash_by(state, &pointer);
            }
        }
    }
}

impl std::fmt::Debug for DynamicGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynamicGraph")
            .field("version", &self.version)
            .field("checksum", &self.checksum)
            .field("objects", &self.objects.len())
            .finish()
    }
}

impl Drop for DynamicGraph {
    fn drop(&mut self) {
        release_unheld(&self.objects);
    }
}

/// Empties every object in `objects`: what a failed decode built may hold cycles.
pub(super) fn release(objects: &[DynamicRef]) {
    for object in objects {
        if let Ok(mut object) = object.0.try_borrow_mut() {
            let type_id = object.type_id();
            *object = DynamicObject::new(type_id, None);
        }
    }
}

/// Lets go of the cycles among the objects the graph reaches that nothing outside it holds: it
/// counts the pointers among them, takes an object with more strong handles than that (plus the
/// graph's own) as held from outside, keeps what such objects reach, and empties the rest, so
/// their pointers (cycles included) are dropped without recursion.
fn release_unheld(roots: &[DynamicRef]) {
    let mut all: Vec<DynamicRef> = Vec::with_capacity(roots.len());
    let mut index: AHashMap<usize, usize> = AHashMap::with_capacity(roots.len());
    let mut in_arena = Vec::with_capacity(roots.len());
    for object in roots {
        if index.insert(object.addr(), all.len()).is_none() {
            all.push(object.clone());
            in_arena.push(true);
        }
    }
    let mut edges: Vec<Vec<usize>> = Vec::with_capacity(all.len());
    let mut incoming = vec![0usize; all.len()];
    let mut next = 0;
    while next < all.len() {
        let mut targets = Vec::new();
        let current = all[next].clone();
        if let Ok(object) = current.0.try_borrow() {
            object.for_each_pointer(&mut |target| {
                let at = *index.entry(target.addr()).or_insert_with(|| {
                    all.push(target.clone());
                    in_arena.push(false);
                    incoming.push(0);
                    all.len() - 1
                });
                incoming[at] += 1;
                targets.push(at);
            });
        }
        edges.push(targets);
        next += 1;
    }
    // Held from outside: more strong handles than the pointers counted, `all`'s and the arena's.
    let mut live = vec![false; all.len()];
    let mut stack: Vec<usize> = (0..all.len())
        .filter(|&at| {
            let expected = incoming[at] + 1 + usize::from(in_arena[at]);
            all[at].strong_count() > expected || all[at].0.try_borrow_mut().is_err()
        })
        .collect();
    while let Some(at) = stack.pop() {
        if !std::mem::replace(&mut live[at], true) {
            stack.extend(edges[at].iter().copied().filter(|&target| !live[target]));
        }
    }
    for (at, object) in all.iter().enumerate() {
        if !live[at] {
            if let Ok(mut object) = object.0.try_borrow_mut() {
                object.sections_mut().iter_mut().for_each(|section| section.fields_mut().clear());
            }
        }
    }
}

impl DynamicObject {
    /// Calls `f` on every non-null pointer of the object, embedded objects included.
    pub(super) fn for_each_pointer(&self, f: &mut dyn FnMut(&DynamicRef)) {
        for (_, field) in self.fields() {
            match field.value() {
                DynamicValue::Pointer(targets) => targets.iter().flatten().for_each(&mut *f),
                DynamicValue::Embedded(objects) => {
                    objects.iter().flatten().for_each(|object| object.for_each_pointer(f))
                }
                DynamicValue::Plain(_) => {}
            }
        }
    }
}

impl DecodeTarget for DynamicGraph {}

/// A stream decoded as data, within the serializer's limits and with its progress reports; the
/// dynamic decoder drops nothing, so its report is empty.
impl crate::serializer::target::sealed::Decode for DynamicGraph {
    fn decode_from(
        serializer: &BinarySerializer<'_>,
        bytes: &[u8],
        _context: &mut dyn std::any::Any,
    ) -> Result<(Self, DecodeReport), DecodeError> {
        let (limits, progress) = serializer.limits_and_progress();
        Ok((decode::decode(bytes, limits, progress)?, DecodeReport::default()))
    }
}
