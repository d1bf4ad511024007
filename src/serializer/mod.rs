//! The binary serializer: Banshee's layout (8-byte type headers, 4-byte field headers, every object
//! reachable through pointers written once), specified in `FORMAT.md`.
//!
//! A [`BinarySerializer`] is a set of options (registry, limits, strictness, checksum, progress,
//! hook context, ...) held as a value: configure one, then encode to a `Vec`, a writer, a fixed
//! buffer or a file, and decode into whatever the call asks for (a [`DecodeTarget`]: a value,
//! `Box<dyn Reflectable>`, the shared handle a root lives in, or a
//! [`DynamicGraph`](crate::dynamic::DynamicGraph)). The one-call shortcuts ([`to_vec`],
//! [`from_slice`], [`save`], [`load`], [`load_shared`]) use the default options.
//!
//! Decoding is versioned per field: fields the type does not know are skipped, fields the data
//! lacks keep the constructor's defaults, unknown types decode as null, and a field whose stored
//! shape no longer matches is skipped unless the type registered a migration for it.
//!
//! ```
//! use reflectable::serializer::BinarySerializer;
//! use reflectable::Reflectable;
//! use std::cell::RefCell;
//! use std::rc::Rc;
//!
//! #[derive(Reflectable, Default)]
//! #[rtti(id = 9500)]
//! struct Node {
//!     #[rtti(id = 1)]
//!     name: String,
//!     #[rtti(id = 2)]
//!     next: Option<Rc<RefCell<Node>>>,
//! }
//!
//! let shared = Rc::new(RefCell::new(Node { name: "shared".into(), next: None }));
//! let a = Node { name: "a".into(), next: Some(shared.clone()) };
//! shared.borrow_mut().next = Some(shared.clone()); // a self-cycle
//!
//! let serializer = BinarySerializer::new();
//! let bytes = serializer.encode(&a).unwrap();
//! let back: Node = serializer.decode(&bytes).unwrap();
//! let next = back.next.clone().unwrap();
//! assert_eq!(next.borrow().name, "shared");
//! assert!(Rc::ptr_eq(&next, next.borrow().next.as_ref().unwrap()), "the cycle is restored");
//! # shared.borrow_mut().next = None;
//! # next.borrow_mut().next = None;
//! ```

mod atomic_write;
pub mod compact;
pub(crate) mod decoder;
pub(crate) use decoder::drop_depth::drop_weight;
pub(crate) use decoder::strong_edges::{Link, StrongEdges};
pub(crate) mod encoder;
pub(crate) mod external;
mod file;
pub(crate) mod progress;
mod report;
mod shortcuts;
pub(crate) mod target;

pub use crate::wire::error::{DecodeError, DecodeErrorKind, EncodeError, ErrorFrame};
pub use crate::wire::format;
pub use crate::wire::limits::{Limits, ALLOCATION_BASE, ALLOCATION_PER_INPUT_BYTE, DROP_STACK_RESERVE};
pub use atomic_write::write_atomically;
pub(crate) use decoder::generated::GeneratedDecode;
pub(crate) use encoder::generated::GeneratedEncode;
pub(crate) use external::Relink;
pub use external::{Cut, SubtreeReport, WeakPointers, EXTERNAL_KEY_FIELD_ID, EXTERNAL_TYPE_FIELD_ID};
pub use progress::Progress;
pub(crate) use progress::ProgressFn;
pub use report::{DecodeEvent, DecodeReport, NullReason, SkipReason, LOG_TARGET};
pub use shortcuts::{from_slice, load, load_shared, save, save_subtree, to_vec, to_vec_subtree};
pub use target::DecodeTarget;

use crate::field::{Declared, SharedHandle, SharedObject};
use crate::rtti::{AsReflectable, AsRoot, AssetKey, Reflectable, Registry};
use crate::wire::format::VERSION;
use decoder::Decoder;
use encoder::Encoder;
use std::any::Any;
use std::cell::RefCell;
use std::fmt;
use std::io;

/// Default flush threshold of the streaming encoder.
pub const DEFAULT_FLUSH_THRESHOLD: usize = 64 * 1024;

/// How an encoded stream describes the types it holds ([`BinarySerializer::schema_table`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SchemaTable {
    /// A schema table describing every type (format version 3, `FORMAT.md` "Schema table"):
    /// any reader, with any version of the types or none of them, reads what it can and reports
    /// the rest. For anything that is stored.
    #[default]
    Full,
    /// A table of the types' IDs and fingerprints only (12 bytes a type, `FORMAT.md`
    /// "Fingerprint table"): for messages between programs built from the same types (Banshee's
    /// `NoMeta`). A reader whose types differ in any way, or that lacks one, refuses the whole
    /// stream with [`DecodeErrorKind::FingerprintMismatch`] before reading an object; a graph
    /// holding data kept from another writer cannot be written so
    /// ([`EncodeError::KeptDataNeedsSchema`]).
    Fingerprints,
    /// No table (a version 2 stream): smaller still, but a reader can match fields only by ID
    /// and wire shape, so a field retyped to another type of the same size would be
    /// reinterpreted. For readers that predate version 3.
    Omitted,
}

/// How a stream's objects are written ([`BinarySerializer::encoding`]). Every decoder reads both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Encoding {
    /// Type and field headers on every section and field, fixed-size integers (`FORMAT.md`):
    /// written in one streaming pass, read at the speed of the generated codecs. The default.
    #[default]
    Normal,
    /// Compact form (`FORMAT.md`, "Compact streams", version 4): no headers where the schema
    /// table says what comes, varints, bools as bits, fields that are all zeros left out. Often
    /// half the size or less, for files kept or sent; the schema table stays, so old and new
    /// readers evolve it as they do a normal stream. It is made from the normal form after the
    /// whole graph is written (so a save holds it in memory), and read back by way of it (see
    /// [`compact`]); a graph holding data kept from another writer on some objects of a type
    /// and not others cannot be written so ([`EncodeError::NotCompact`]). Needs a table: the
    /// schema table, or with [`SchemaTable::Fingerprints`] the no-schema variant, which only a
    /// reader with the same types reads.
    Compact,
}

/// `true` is [`SchemaTable::Full`], `false` [`SchemaTable::Omitted`].
impl From<bool> for SchemaTable {
    fn from(full: bool) -> Self {
        if full {
            SchemaTable::Full
        } else {
            SchemaTable::Omitted
        }
    }
}

/// The serializer: its options as a value (a registry to create objects from, limits, strictness,
/// checksum, progress, the hook context, ...), and one method per destination or source. `Copy`:
/// configure one and keep it, or build one per call.
///
/// ```
/// use reflectable::serializer::{BinarySerializer, Limits};
/// use reflectable::Reflectable;
/// use std::cell::RefCell;
/// use std::rc::Rc;
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9501)]
/// struct Scene {
///     #[rtti(id = 1)]
///     names: Vec<String>,
/// }
///
/// let serializer = BinarySerializer::new().strict(true).limits(Limits::default());
/// let bytes = serializer.encode(&Scene { names: vec!["door".into()] }).unwrap();
///
/// // What to decode into is the call's type: a value, a shared handle, a dynamic graph.
/// let scene: Scene = serializer.decode(&bytes).unwrap();
/// let shared: Rc<RefCell<Scene>> = serializer.decode(&bytes).unwrap();
/// let (again, report) = serializer.decode_with_report::<Scene>(&bytes).unwrap();
/// assert!(report.is_empty());
/// assert_eq!((scene.names.len(), shared.borrow().names.len(), again.names.len()), (1, 1, 1));
///
/// let path = std::env::temp_dir().join(format!("scene-{}.bin", std::process::id()));
/// serializer.save(&scene, &path).unwrap(); // atomic, with a checksum
/// let loaded: Scene = serializer.load(&path).unwrap();
/// assert_eq!(loaded.names, ["door"]);
/// # std::fs::remove_file(&path).unwrap();
/// ```
#[derive(Clone, Copy)]
pub struct BinarySerializer<'r> {
    registry: &'r Registry,
    limits: Limits,
    flush_threshold: usize,
    checksum: Option<bool>,
    context: Option<&'r RefCell<dyn Any>>,
    strict: bool,
    schema_table: SchemaTable,
    keep_unknown_types: bool,
    weak_pointers: WeakPointers<'r>,
    relink: Option<Relink<'r>>,
    resolve_asset: Option<external::ResolveAsset<'r>>,
    progress: Option<ProgressFn<'r>>,
    generated_codecs: bool,
    encoding: Encoding,
    format_version: u32,
}

impl Default for BinarySerializer<'static> {
    fn default() -> Self {
        Self::new()
    }
}

impl BinarySerializer<'static> {
    /// A serializer decoding through the global registry.
    pub fn new() -> Self {
        BinarySerializer::with_registry(Registry::global())
    }
}

impl<'r> BinarySerializer<'r> {
    /// A serializer decoding through `registry`.
    pub fn with_registry(registry: &'r Registry) -> Self {
        BinarySerializer {
            registry,
            limits: Limits::default(),
            flush_threshold: DEFAULT_FLUSH_THRESHOLD,
            checksum: None,
            context: None,
            strict: false,
            schema_table: SchemaTable::Full,
            keep_unknown_types: false,
            weak_pointers: WeakPointers::Follow,
            relink: None,
            resolve_asset: None,
            progress: None,
            generated_codecs: generated_codecs_by_default(),
            encoding: Encoding::Normal,
            format_version: VERSION,
        }
    }

    /// Replaces the limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Encoded streams carry a CRC-32 of their bytes in the trailer, so that a decoder detects
    /// bytes that changed after writing (bit rot, a bad copy). By default files saved with
    /// [`save`](Self::save) have one and streams in memory do not (where it would cost about as
    /// much as copying the data); this sets it for both. Decoders check a checksum whenever a
    /// stream has one.
    pub fn checksum(mut self, checksum: bool) -> Self {
        self.checksum = Some(checksum);
        self
    }

    /// The value the types' serialization hooks receive as their `context` (see
    /// [`RttiTypeBuilder::on_serialization_started`](crate::RttiTypeBuilder::on_serialization_started)
    /// and its siblings), borrowed mutably for the length of each call. Without one, hooks get
    /// `&mut ()`.
    ///
    /// ```
    /// use reflectable::serializer::BinarySerializer;
    /// use reflectable::{Reflectable, RttiType, RttiTypeBuilder};
    /// use std::cell::RefCell;
    /// use std::sync::LazyLock;
    ///
    /// #[derive(Default)]
    /// struct Door;
    /// impl Reflectable for Door {
    ///     fn rtti(&self) -> &'static RttiType {
    ///         Self::rtti_static()
    ///     }
    ///     fn rtti_static() -> &'static RttiType {
    ///         static RTTI: LazyLock<RttiType> = LazyLock::new(|| {
    ///             RttiTypeBuilder::<Door>::new(9502, "Door")
    ///                 .default_constructor()
    ///                 .on_serialization_started(|_, context| {
    ///                     *context.downcast_mut::<u32>().expect("a u32 counter") += 1
    ///                 })
    ///                 .build()
    ///                 .unwrap()
    ///         });
    ///         &RTTI
    ///     }
    /// }
    ///
    /// let saved = RefCell::new(0u32);
    /// BinarySerializer::new().context(&saved).encode(&Door).unwrap();
    /// assert_eq!(saved.into_inner(), 1);
    /// ```
    pub fn context(mut self, context: &'r RefCell<dyn Any>) -> Self {
        self.context = Some(context);
        self
    }

    /// Runs `f` with the hook context: the configured one, borrowed for the call, or `&mut ()`.
    fn with_context<T>(&self, f: impl FnOnce(&mut dyn Any) -> T) -> T {
        match self.context {
            Some(context) => f(&mut *context.borrow_mut()),
            None => f(&mut ()),
        }
    }

    /// Whether derived types are written and read by the code their derive generated (the
    /// default) or, like types built at run time, by walking their descriptors. Both write the
    /// same bytes and read the same values; the generated code is faster. (It reads a type's
    /// fields only while the stream holds them as the running type writes them, and leaves the
    /// rest of the object to the descriptor walk.) Turning it off is for comparing the two, or
    /// for ruling the generated code out when hunting a bug. The cargo feature `walked-codecs`
    /// turns it off by default, in serializers and diffs alike, which is how the test suites run
    /// on both paths.
    ///
    /// ```
    /// use reflectable::serializer::BinarySerializer;
    /// use reflectable::Reflectable;
    ///
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9830)]
    /// struct Tag {
    ///     #[rtti(id = 1)]
    ///     name: String,
    /// }
    ///
    /// let tag = Tag { name: "door".into() };
    /// let generated = BinarySerializer::new().encode(&tag).unwrap();
    /// let walked = BinarySerializer::new().generated_codecs(false);
    /// assert_eq!(generated, walked.encode(&tag).unwrap());
    /// let back: Tag = walked.decode(&generated).unwrap();
    /// assert_eq!(back.name, "door");
    /// ```
    pub fn generated_codecs(mut self, generated: bool) -> Self {
        self.generated_codecs = generated;
        self
    }

    /// Whether derived types go through their generated code (see
    /// [`generated_codecs`](Self::generated_codecs)).
    pub fn uses_generated_codecs(&self) -> bool {
        self.generated_codecs
    }

    /// How encoded streams describe their types (see [`SchemaTable`]): in full (the default,
    /// `true`), by fingerprints only, or not at all (`false`, a version 2 stream).
    ///
    /// ```
    /// use reflectable::serializer::{BinarySerializer, SchemaTable};
    /// use reflectable::Reflectable;
    ///
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9831)]
    /// struct Move {
    ///     #[rtti(id = 1)]
    ///     x: f32,
    /// }
    ///
    /// let full = BinarySerializer::new();
    /// let message = BinarySerializer::new().schema_table(SchemaTable::Fingerprints);
    /// let bytes = message.encode(&Move { x: 2.0 }).unwrap();
    /// assert!(bytes.len() < full.encode(&Move { x: 2.0 }).unwrap().len());
    /// let back: Move = message.decode(&bytes).unwrap();
    /// assert_eq!(back.x, 2.0);
    /// ```
    pub fn schema_table(mut self, table: impl Into<SchemaTable>) -> Self {
        self.schema_table = table.into();
        self
    }

    /// Strict decoding: whatever a decode would lose (a field the type no longer has or has
    /// retyped beyond conversion, an object of an unknown type, a pointer that would become null,
    /// an unknown enum variant without a migration; see [`DecodeEvent::is_loss`]) is an error
    /// naming it and the byte offset, instead of a line in the [`DecodeReport`]. Off by default.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Keeps objects of types the registry lacks instead of dropping them: when the stream's schema
    /// table describes such a type, the decoder defines it from there (see
    /// [`runtime`](crate::runtime)) and loads its objects as
    /// [`RuntimeObject`](crate::runtime::RuntimeObject)s, with every field, into the fields that
    /// take them (`dyn Reflectable` ones, and `dyn YourTrait` ones when the program implements the
    /// trait for `RuntimeObject`). Saving the graph writes them back as they were, so a file
    /// written by a newer program survives a load and save by an older one. Enums, abstract
    /// types, and objects no field can take are still dropped and reported; so is every object of
    /// an unknown type once the process keeps [`MAX_KEPT_TYPES`](crate::runtime::MAX_KEPT_TYPES)
    /// of them. Off by default.
    pub fn keep_unknown_types(mut self, keep: bool) -> Self {
        self.keep_unknown_types = keep;
        self
    }

    /// Streaming encoders hand their buffer to the sink whenever it holds this many bytes.
    pub fn flush_threshold(mut self, bytes: usize) -> Self {
        self.flush_threshold = bytes.max(1);
        self
    }

    /// What encoding does with `Weak` pointers whose target the graph reaches only through
    /// `Weak`s: follow them (the default), or cut them, for saving a subtree (an entity without
    /// its parents). See [`WeakPointers`].
    pub fn weak_pointers(mut self, weak_pointers: WeakPointers<'r>) -> Self {
        self.weak_pointers = weak_pointers;
        self
    }

    /// How decoding re-links external references (written by [`WeakPointers::External`]): from
    /// the stored key and the target's type ID to an object of the caller's, typically one the
    /// saved subtree was cut from. A returned object that fits the pointer field (its handle
    /// type, or one the registry casts to) becomes the target; the caller owns it, so decoding
    /// never changes it. Without this function, or when it returns `None` or an object that does
    /// not fit, the pointer loads as null (a dead `Weak`).
    ///
    /// Make the object with [`SharedObject::new_concrete`] for fields declaring
    /// `dyn Reflectable`; [`SharedObject::new`] serves the others. See [`WeakPointers`] for an
    /// example.
    pub fn relink(mut self, relink: &'r dyn Fn(u64, u32) -> Option<SharedObject>) -> Self {
        self.relink = Some(relink);
        self
    }

    /// How decoding finds assets: pointers to an asset type (one with an
    /// [asset key](crate::rtti::AssetKey)) are saved as references holding the key, and on load
    /// `assets` is called with the key and the asset's type ID, once per asset however many
    /// pointers lead to it. It returns the program's own object (its asset manager's, loaded or
    /// about to be) as [`SharedObject::new_concrete`] of its handle (`Arc<Texture>`), which fits
    /// both the fields typed with it and those declaring `dyn Reflectable`; the decode never
    /// changes it. An asset not found (no function, or `None`) loads as null and is reported with
    /// its key ([`DecodeEvent::AssetUnresolved`]); an object that does not fit a field (another
    /// handle family or type) leaves that field's pointer null, reported as a nulled pointer of
    /// the field.
    ///
    /// ```
    /// use reflectable::field::SharedObject;
    /// use reflectable::rtti::AssetKey;
    /// use reflectable::serializer::BinarySerializer;
    /// use reflectable::Reflectable;
    /// use std::sync::Arc;
    ///
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9_985_010)]
    /// struct Texture {
    ///     #[rtti(id = 1, asset_key)]
    ///     path: String,
    ///     #[rtti(id = 2)]
    ///     pixels: Vec<u8>,
    /// }
    ///
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9_985_011)]
    /// struct Wall {
    ///     #[rtti(id = 1)]
    ///     texture: Option<Arc<Texture>>,
    /// }
    ///
    /// let rock = Arc::new(Texture { path: "rock.png".into(), pixels: vec![7; 4096] });
    /// let bytes = reflectable::to_vec(&Wall { texture: Some(rock.clone()) }).unwrap();
    /// assert!(bytes.len() < 1024, "the texture's pixels are not in the level");
    ///
    /// // The asset manager has the texture loaded already.
    /// let manager = |key: &AssetKey, _type_id: u32| match key {
    ///     AssetKey::Path(path) if path == "rock.png" => Some(SharedObject::new_concrete(rock.clone())),
    ///     _ => None,
    /// };
    /// let wall: Wall = BinarySerializer::new().assets(&manager).decode(&bytes).unwrap();
    /// assert!(Arc::ptr_eq(wall.texture.as_ref().unwrap(), &rock));
    /// ```
    pub fn assets(mut self, assets: &'r dyn Fn(&AssetKey, u32) -> Option<SharedObject>) -> Self {
        self.resolve_asset = Some(assets);
        self
    }

    /// Reports the progress of every save and load to `report`: every 1,024 top-level objects and
    /// once at the end (see [`Progress`]). The function is called on the thread doing the work,
    /// between objects; keep it quick (update a counter or a progress bar).
    ///
    /// ```
    /// use reflectable::serializer::{BinarySerializer, Progress};
    /// use std::cell::Cell;
    /// # use reflectable::Reflectable;
    /// # #[derive(Reflectable, Default)]
    /// # #[rtti(id = 9510)]
    /// # struct Level { #[rtti(id = 1)] objects: Vec<std::rc::Rc<Level>> }
    /// # let level = Level { objects: (0..3000).map(|_| std::rc::Rc::new(Level::default())).collect() };
    ///
    /// let last = Cell::new(None);
    /// let report = |progress: Progress| last.set(Some(progress));
    /// let serializer = BinarySerializer::new().progress(&report);
    /// let bytes = serializer.encode(&level).unwrap();
    /// assert_eq!(last.get().unwrap().objects, 3001, "the root and 3,000 objects written");
    /// let _: Level = serializer.decode(&bytes).unwrap();
    /// let loaded = last.get().unwrap();
    /// assert_eq!((loaded.objects, loaded.fraction()), (3001, Some(1.0)));
    /// ```
    pub fn progress(mut self, report: &'r dyn Fn(Progress)) -> Self {
        self.progress = Some(report);
        self
    }

    /// How streams are encoded: [`Encoding::Normal`] (the default) or [`Encoding::Compact`].
    /// Decoding reads either, whatever this says.
    ///
    /// ```
    /// use reflectable::serializer::{BinarySerializer, Encoding};
    /// use reflectable::Reflectable;
    ///
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9832)]
    /// struct Score {
    ///     #[rtti(id = 1)]
    ///     points: u64,
    ///     #[rtti(id = 2)]
    ///     bonus: u64,
    /// }
    ///
    /// let compact = BinarySerializer::new().encoding(Encoding::Compact);
    /// let bytes = compact.encode(&Score { points: 300, bonus: 0 }).unwrap();
    /// let normal = BinarySerializer::new().encode(&Score { points: 300, bonus: 0 }).unwrap();
    /// assert!(bytes.len() < normal.len());
    /// let back: Score = BinarySerializer::new().decode(&bytes).unwrap();
    /// assert_eq!((back.points, back.bonus), (300, 0));
    /// ```
    pub fn encoding(mut self, encoding: Encoding) -> Self {
        self.encoding = encoding;
        self
    }

    /// The format version a normal stream is written in: 3, the default, or 5, whose top-level
    /// objects each record their length so that a reader finds any of them without walking the
    /// others (`FORMAT.md`, "Version 5"; it decodes faster). Every decoder of this crate reads
    /// both. Version 5 is not final: it gains an object index and data blocks before it becomes
    /// the default, and until then a stream written in it may not be read by a later release.
    /// Any other version is refused when encoding ([`EncodeError::UnsupportedVersion`]), as is
    /// version 5 without a table ([`SchemaTable::Omitted`] writes version 2). Compact streams
    /// are version 4 whatever this says.
    ///
    /// ```
    /// use reflectable::serializer::BinarySerializer;
    /// use reflectable::Reflectable;
    ///
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9502)]
    /// struct Door {
    ///     #[rtti(id = 1)]
    ///     open: bool,
    /// }
    ///
    /// let v5 = BinarySerializer::new().format_version(5);
    /// let bytes = v5.encode(&Door { open: true }).unwrap();
    /// assert_eq!(bytes[4..8], 5u32.to_le_bytes());
    /// let door: Door = BinarySerializer::new().decode(&bytes).unwrap();
    /// assert!(door.open);
    /// ```
    pub fn format_version(mut self, version: u32) -> Self {
        self.format_version = version;
        self
    }

    /// Encodes the graph from `root`: an object by reference (`&level`), or the shared handle a
    /// root lives in (`&Rc<RefCell<Scene>>`), so that pointers back to it resolve to the root.
    pub fn encode<R: AsRoot + ?Sized>(&self, root: &R) -> Result<Vec<u8>, EncodeError> {
        self.with_context(|context| self.encode_in(root, context)).map(|(bytes, _)| bytes)
    }

    /// Encodes the subtree from `root`: the graph it reaches through strong pointers and objects
    /// held by value, with each `Weak` leading out of it cut (written as null, or as an external
    /// reference under [`WeakPointers::External`]), and a report of what was cut. What saving one
    /// entity of a scene means: its `Weak` parent would otherwise bring the whole scene along.
    /// [`weak_pointers`](Self::weak_pointers) chooses how pointers are cut; left at `Follow`, they
    /// are written as null.
    ///
    /// ```
    /// use reflectable::serializer::{BinarySerializer, WeakPointers};
    /// use reflectable::Reflectable;
    /// use std::cell::RefCell;
    /// use std::rc::{Rc, Weak};
    ///
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9_984_010)]
    /// struct Node {
    ///     #[rtti(id = 1)]
    ///     children: Vec<Rc<RefCell<Node>>>,
    ///     #[rtti(id = 2)]
    ///     parent: Weak<RefCell<Node>>,
    /// }
    ///
    /// let scene = Rc::new(RefCell::new(Node::default()));
    /// let door = Rc::new(RefCell::new(Node { parent: Rc::downgrade(&scene), ..Node::default() }));
    /// scene.borrow_mut().children.push(door.clone());
    ///
    /// let key_of = |_: &dyn Reflectable| Some(1);
    /// let copy = BinarySerializer::new().weak_pointers(WeakPointers::External(&key_of));
    /// let (bytes, cuts) = copy.encode_subtree(&door).unwrap();
    /// assert_eq!((cuts.cuts()[0].field_name.as_str(), cuts.cuts()[0].external), ("parent", 1));
    /// assert_eq!(cuts.to_string(), "cut 1 Weak in Node.parent (to Node), written as external references");
    /// # drop(bytes);
    /// # scene.borrow_mut().children.clear();
    /// ```
    pub fn encode_subtree<R: AsRoot + ?Sized>(&self, root: &R) -> Result<(Vec<u8>, SubtreeReport), EncodeError> {
        let subtree = self.cutting();
        subtree.with_context(|context| subtree.encode_in(root, context))
    }

    /// This serializer, cutting `Weak`s that lead out of the graph (to null unless told how).
    pub(super) fn cutting(&self) -> Self {
        match self.weak_pointers {
            WeakPointers::Follow => BinarySerializer { weak_pointers: WeakPointers::Null, ..*self },
            _ => *self,
        }
    }

    fn encode_in<R: AsRoot + ?Sized>(
        &self,
        root: &R,
        context: &mut dyn Any,
    ) -> Result<(Vec<u8>, SubtreeReport), EncodeError> {
        let (bytes, _, cuts) = Encoder::new(Vec::new(), None, usize::MAX, self, context).run(root.as_root())?;
        let bytes = match self.encoding {
            Encoding::Normal => bytes,
            Encoding::Compact if self.schema_table == SchemaTable::Omitted => {
                return Err(EncodeError::NotCompact(DecodeError::new(
                    DecodeErrorKind::NotCompact("a stream without a schema or fingerprint table"),
                    None,
                )))
            }
            Encoding::Compact => compact::to_compact_with(&bytes, None, Some(self.registry), &self.limits)
                .map_err(EncodeError::NotCompact)?,
        };
        Ok((bytes, cuts))
    }

    /// Streams the graph from `root` into `writer`, buffering at most about the flush threshold
    /// plus the largest single field (in format version 5, the largest top-level object, which is
    /// held whole until its length is written). Returns the bytes written.
    pub fn encode_to_writer<R: AsRoot + ?Sized>(
        &self,
        root: &R,
        writer: &mut dyn io::Write,
    ) -> Result<u64, EncodeError> {
        self.write_to(root, writer).map(|(size, _)| size)
    }

    /// [`encode_to_writer`](Self::encode_to_writer), with what a subtree save cut.
    pub(super) fn write_to<R: AsRoot + ?Sized>(
        &self,
        root: &R,
        writer: &mut dyn io::Write,
    ) -> Result<(u64, SubtreeReport), EncodeError> {
        self.with_context(|context| {
            if self.encoding == Encoding::Compact {
                let (bytes, cuts) = self.encode_in(root, context)?;
                writer.write_all(&bytes)?;
                return Ok((bytes.len() as u64, cuts));
            }
            let mut sink = |chunk: &[u8]| writer.write_all(chunk);
            let buffer = Vec::with_capacity(self.flush_threshold.min(1 << 20));
            let (_, size, cuts) =
                Encoder::new(buffer, Some(&mut sink), self.flush_threshold, self, context).run(root.as_root())?;
            Ok((size, cuts))
        })
    }

    /// Streams the graph from `root` through the caller's fixed `buffer`: each time it is full,
    /// `flush` gets it (Banshee's `flushBufferCallback`); the last call may be partial. Returns
    /// the bytes produced.
    pub fn encode_to_buffer<R: AsRoot + ?Sized>(
        &self,
        root: &R,
        buffer: &mut [u8],
        flush: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> Result<u64, EncodeError> {
        if buffer.is_empty() {
            return Err(EncodeError::Io(io::Error::new(io::ErrorKind::InvalidInput, "empty encode buffer")));
        }
        let threshold = self.flush_threshold.min(buffer.len());
        let mut filled = 0;
        let mut sink = |mut chunk: &[u8]| -> io::Result<()> {
            while !chunk.is_empty() {
                let n = chunk.len().min(buffer.len() - filled);
                buffer[filled..filled + n].copy_from_slice(&chunk[..n]);
                filled += n;
                chunk = &chunk[n..];
                if filled == buffer.len() {
                    flush(buffer)?;
                    filled = 0;
                }
            }
            Ok(())
        };
        let total = self.with_context(|context| match self.encoding {
            Encoding::Normal => Ok::<_, EncodeError>(
                Encoder::new(Vec::new(), Some(&mut sink), threshold, self, context).run(root.as_root())?.1,
            ),
            Encoding::Compact => {
                let (bytes, _) = self.encode_in(root, context)?;
                sink(&bytes)?;
                Ok(bytes.len() as u64)
            }
        })?;
        if filled > 0 {
            flush(&buffer[..filled])?;
        }
        Ok(total)
    }

    /// Decodes a graph into `T`: the root by value (`Level`, or `Box<dyn Reflectable>` for any
    /// type), the shared handle it lives in (`Rc<RefCell<Scene>>`, so that pointers inside the
    /// graph to the root share it), or a [`DynamicGraph`](crate::dynamic::DynamicGraph). A root
    /// of another type is refused before anything is built.
    ///
    /// What the decode skipped, converted or dropped is logged through the `log` facade (a
    /// warning per kind of loss; see [`DecodeReport`]); [`decode_with_report`](Self::decode_with_report)
    /// returns it instead, and [`strict`](Self::strict) refuses any loss.
    pub fn decode<T: DecodeTarget>(&self, bytes: &[u8]) -> Result<T, DecodeError> {
        self.decode_logged(bytes, &"bytes")
    }

    /// Decodes, and logs the report through the `log` facade (see [`DecodeReport`]): `source`
    /// says where the stream came from.
    pub(crate) fn decode_logged<T: DecodeTarget>(
        &self,
        bytes: &[u8],
        source: &dyn fmt::Display,
    ) -> Result<T, DecodeError> {
        let (root, report) = self.decode_with_report(bytes)?;
        report.log(source);
        Ok(root)
    }

    /// [`decode`](Self::decode), with a report of what the decode skipped, converted or dropped
    /// (fields the types no longer have, retyped values, objects of unknown types and the
    /// pointers to them, unknown enum variants): what a game logs when it opens an old save.
    pub fn decode_with_report<T: DecodeTarget>(&self, bytes: &[u8]) -> Result<(T, DecodeReport), DecodeError> {
        self.with_context(|context| T::decode_from(self, bytes, context))
    }

    /// Reads `reader` to its end, then decodes.
    pub fn decode_from_reader<T: DecodeTarget>(&self, reader: &mut dyn io::Read) -> Result<T, DecodeError> {
        self.decode(&read_all(reader)?)
    }

    /// Decodes the root by value; `expected` refuses another root type before anything is built.
    pub(crate) fn decode_boxed(
        &self,
        bytes: &[u8],
        context: &mut dyn Any,
        expected: Option<Declared>,
    ) -> Result<(Box<dyn Reflectable>, DecodeReport), DecodeError> {
        self.decode_run(bytes, context, |decoder| decoder.decode_boxed(expected))
    }

    /// Decodes the root into a shared allocation `H`.
    pub(crate) fn decode_shared<H: SharedHandle>(
        &self,
        bytes: &[u8],
        context: &mut dyn Any,
    ) -> Result<(H, DecodeReport), DecodeError> {
        let accepts = |root: &SharedObject| root.cast_in::<H>(self.registry).is_some();
        let expected = <H::Pointee as AsReflectable>::declared();
        let (root, report) = self.decode_run(bytes, context, |decoder| {
            decoder.decode_shared((H::FAMILY, std::any::type_name::<H>()), expected, &accepts)
        })?;
        Ok((root.cast_in::<H>(self.registry).expect("the root was checked"), report))
    }

    /// The limits and progress function, for decoders outside this module.
    pub(crate) fn limits_and_progress(&self) -> (Limits, Option<ProgressFn<'r>>) {
        (self.limits, self.progress)
    }

    /// Runs `decode` on a decoder over `bytes`, or over their normal twin when they are a compact
    /// stream (whose errors then point into `bytes`).
    fn decode_run<T>(
        &self,
        bytes: &[u8],
        context: &mut dyn Any,
        decode: impl FnOnce(Decoder<'_, '_>) -> Result<T, DecodeError>,
    ) -> Result<T, DecodeError> {
        match compact::normalize(bytes, &self.limits, Some(self.registry))? {
            None => decode(self.decoder(bytes, context)?),
            Some(normal) => self.decoder(&normal.bytes, context).and_then(decode).map_err(|error| normal.locate(error)),
        }
    }

    fn decoder<'d, 'c>(&'d self, bytes: &'d [u8], context: &'c mut dyn Any) -> Result<Decoder<'d, 'c>, DecodeError> {
        let decoder = Decoder::new(bytes, self.registry, self.limits, context)?;
        let decoder = decoder.with_relink(self.relink).with_assets(self.resolve_asset);
        let decoder = decoder.strict(self.strict).keep_unknown_types(self.keep_unknown_types);
        let decoder = decoder.generated_codecs(self.generated_codecs);
        Ok(decoder.progress(self.progress))
    }
}

/// The code the derive generated to write and read a struct's own fields, attached to its
/// descriptor (its type data, see [`RttiTypeBuilder::data`](crate::RttiTypeBuilder::data)): the encoder and decoder use it instead of
/// walking the fields' descriptors.
#[derive(Clone, Copy)]
pub(crate) struct GeneratedCodec {
    pub(crate) encode: GeneratedEncode,
    pub(crate) decode: GeneratedDecode,
}

impl crate::RttiType {
    /// Whether the type's own fields are written and read by code its derive generated (a
    /// derived struct without maps or `extend`) rather than by walking their descriptors. Both
    /// write the same bytes; see [`BinarySerializer::generated_codecs`].
    pub fn has_generated_codec(&self) -> bool {
        self.data::<GeneratedCodec>().is_some()
    }

    /// The derive's generated encoder for the type's own fields.
    #[inline]
    pub(crate) fn generated_encode(&self) -> Option<GeneratedEncode> {
        self.data::<GeneratedCodec>().map(|code| code.encode)
    }

    /// The derive's generated decoder for the type's own fields.
    #[inline]
    pub(crate) fn generated_decode(&self) -> Option<GeneratedDecode> {
        self.data::<GeneratedCodec>().map(|code| code.decode)
    }
}

/// [`BinarySerializer::generated_codecs`]'s default: on, unless the crate is built with the
/// `walked-codecs` feature (for the test suites). A diff follows it too.
pub(crate) const fn generated_codecs_by_default() -> bool {
    !cfg!(feature = "walked-codecs")
}

/// Everything `reader` holds; an I/O error at the offset where reading stopped.
fn read_all(reader: &mut dyn io::Read) -> Result<Vec<u8>, DecodeError> {
    let mut bytes = Vec::new();
    match reader.read_to_end(&mut bytes) {
        Ok(_) => Ok(bytes),
        Err(error) => Err(DecodeError::new(DecodeErrorKind::Io(error), bytes.len())),
    }
}
