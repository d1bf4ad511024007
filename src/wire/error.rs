//! Encode and decode errors.
//!
//! [`DecodeError`] travels through every `?` of the decode loop, so it is one pointer: a box of
//! what went wrong, where, and the path of (type, field) frames pushed as it bubbles up. Its
//! constructors are `#[cold]`, keeping the error path out of the hot code.

use super::format::{NEWEST_VERSION, OLDEST_VERSION};
use crate::field::FieldError;
use crate::plain::PlainError;
use std::borrow::Cow;
use std::fmt;
use std::io;
use thiserror::Error;

/// Why decoding failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// Strict decoding met a loss (a skipped field, a dropped object, a nulled pointer...).
    #[error("strict decoding: {what}")]
    DataLoss {
        /// What would have been lost, as a [`DecodeReport`](crate::serializer::DecodeReport) line.
        what: String,
    },
    /// The stream has no schema table, so it cannot say how it was written: it predates them
    /// (version 1 or 2), or lists its types' fingerprints only (`SchemaTable::Fingerprints`).
    #[error("the stream has no schema table (it was written before format version 3, or with fingerprints only)")]
    NoSchema,
    /// A stream that lists only its types' fingerprints (written with
    /// [`SchemaTable::Fingerprints`](crate::serializer::SchemaTable::Fingerprints), for readers built with
    /// the same types) holds a type this reader lacks or has in another form. Such a stream does
    /// not describe its types, so it is not read at all.
    #[error(
        "the stream was written for other types: type {type_id}{} has fingerprint {recorded:016x} in the stream, {}",
        type_name.as_deref().map(|name| format!(" ({name})")).unwrap_or_default(),
        running.map_or_else(|| "and this program lacks it".to_owned(), |running| format!("{running:016x} here"))
    )]
    FingerprintMismatch {
        /// The type's ID.
        type_id: u32,
        /// The reader's name for it, when it has the type.
        type_name: Option<String>,
        /// The fingerprint the stream lists.
        recorded: u64,
        /// The reader's fingerprint of the type, when it has it.
        running: Option<u64>,
    },
    /// The input does not start with the format's magic bytes.
    #[error("not a reflectable stream: magic bytes {found:02x?}{}", magic_hint(found))]
    BadMagic {
        /// The first bytes found.
        found: Vec<u8>,
    },
    /// The stream was written by an unknown format version.
    #[error("unsupported format version {version}: this build reads versions {OLDEST_VERSION} to {NEWEST_VERSION}{}", if *version > NEWEST_VERSION { " (a newer program wrote it)" } else { "" })]
    UnsupportedVersion {
        /// The version found.
        version: u32,
    },
    /// The stream holds no object.
    #[error("the stream holds no object")]
    NoRoot,
    /// A version 2 stream does not end with a trailer: it was cut short, or is not one stream.
    #[error("the stream does not end with its trailer: it was cut short, or is not one whole stream")]
    MissingTrailer,
    /// The trailer records another length than the input has.
    #[error("the stream records {recorded} bytes but the input has {actual}: cut short or padded")]
    LengthMismatch {
        /// The length the trailer records.
        recorded: u64,
        /// The input's length.
        actual: usize,
    },
    /// The checksum in the trailer does not match the bytes: they changed after writing.
    #[error("checksum mismatch: the trailer records {recorded:#010x}, the bytes give {computed:#010x}")]
    ChecksumMismatch {
        /// The checksum recorded.
        recorded: u32,
        /// The checksum of the bytes read.
        computed: u32,
    },
    /// The CRC-32 a version 5 trailer records for the schema (or fingerprint) table does not
    /// match the table's bytes: they changed after writing.
    #[error("the schema table's checksum does not match: the trailer records {recorded:#010x}, the table gives {computed:#010x}")]
    TableChecksumMismatch {
        /// The checksum recorded.
        recorded: u32,
        /// The checksum of the table read.
        computed: u32,
    },
    /// The trailer records another number of top-level objects than the stream holds.
    #[error("the stream records {recorded} objects but holds {found}")]
    ObjectCountMismatch {
        /// The count recorded.
        recorded: u32,
        /// The objects found.
        found: usize,
    },
    /// A plain value, count or header could not be read.
    #[error(transparent)]
    Plain(PlainError),
    /// The structure is inconsistent.
    #[error("corrupt stream: {0}")]
    Corrupt(&'static str),
    /// A normal stream holds something its compact form cannot express
    /// ([`compact::to_compact`](crate::serializer::compact::to_compact)): a section without every field its
    /// schema entry lists, in order (data kept from another writer on some objects of a type and
    /// not others), objects out of the encoder's order, or a stream without a schema table.
    #[error("not expressible in compact form: {0}")]
    NotCompact(&'static str),
    /// The first object must be the root, instance 1, and every top-level object needs an
    /// instance ID (0 marks an embedded object).
    #[error("object has instance ID {found}, expected {expected}")]
    InstanceOutOfSequence {
        /// The ID expected.
        expected: u32,
        /// The ID found.
        found: u32,
    },
    /// A top-level object's instance ID is above the number of objects in the stream.
    #[error("object has instance ID {id}, but the stream holds {count} objects")]
    InstanceOutOfRange {
        /// The instance ID.
        id: u32,
        /// Objects in the stream.
        count: usize,
    },
    /// Two top-level objects carry the same instance ID.
    #[error("a second object with instance ID {id}")]
    DuplicateInstance {
        /// The instance ID.
        id: u32,
    },
    /// A pointer names an instance the stream does not hold.
    #[error("pointer to instance {id}, but the stream holds {count} objects")]
    UnknownInstance {
        /// The instance ID.
        id: u32,
        /// Objects in the stream.
        count: usize,
    },
    /// Objects are nested deeper than the configured limit.
    #[error("nesting deeper than the limit of {limit}")]
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// The stream holds more objects than [`Limits::max_objects`](crate::serializer::Limits::max_objects).
    #[error("more than {limit} objects")]
    TooManyObjects {
        /// The limit.
        limit: usize,
    },
    /// An array field is longer than [`Limits::max_array_len`](crate::serializer::Limits::max_array_len).
    #[error("array of {len} elements, over the limit of {limit}")]
    ArrayTooLong {
        /// The stored length.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// Decoding would allocate more than the budget of
    /// [`Limits::max_allocation`](crate::serializer::Limits::max_allocation).
    #[error("decoding needs more than the allocation budget of {limit} bytes")]
    AllocationLimit {
        /// The budget.
        limit: usize,
    },
    /// Dropping the decoded graph would recurse through a chain of `length` objects, each
    /// freeing the next, and take more stack than
    /// [`Limits::drop_stack_limit`](crate::serializer::Limits::drop_stack_limit) allows: it could overflow
    /// the stack of whoever drops it.
    #[error(
        "dropping the graph would free a chain of {length} objects by recursion, needing about {stack} bytes of stack, \
         over the {limit} allowed"
    )]
    DropTooDeep {
        /// Objects on the deepest chain the drop would recurse through.
        length: usize,
        /// The stack that chain needs, in bytes (an estimate with a margin).
        stack: usize,
        /// The stack allowed, in bytes.
        limit: usize,
    },
    /// The root object's type is not registered, or is abstract.
    #[error("root object type {type_id} is unknown or abstract")]
    UnknownRootType {
        /// The stored type ID.
        type_id: u32,
    },
    /// The root object is not of the type asked for.
    #[error("root object is a `{found}`, not a `{expected}`")]
    RootTypeMismatch {
        /// The Rust type asked for.
        expected: &'static str,
        /// The stored type's name.
        found: String,
    },
    /// Writing a decoded value into a field failed. (A plain value that fails to decode is
    /// [`DecodeErrorKind::Plain`], whichever way it was read.)
    #[error(transparent)]
    Field(FieldError),
    /// A [`Patch`](crate::diff::Patch) whose counts, indices or references do not fit the patch
    /// itself: the member at fault (its path, as the patch's JSON form names it), and why.
    #[error("not a valid patch at `{at}`: {why}")]
    MalformedPatch {
        /// The member's path in the patch (`objects[3].body.plain[0].count`).
        at: String,
        /// What is wrong with it.
        why: String,
    },
    /// Reading the input failed.
    #[error("I/O error: {0}")]
    Io(#[source] io::Error),
}

/// Kinds compare by their fields; I/O errors compare by their [`io::ErrorKind`].
impl PartialEq for DecodeErrorKind {
    fn eq(&self, other: &Self) -> bool {
        use DecodeErrorKind::*;
        match (self, other) {
            (BadMagic { found: a }, BadMagic { found: b }) => a == b,
            (UnsupportedVersion { version: a }, UnsupportedVersion { version: b }) => a == b,
            (NoRoot, NoRoot) | (MissingTrailer, MissingTrailer) | (NoSchema, NoSchema) => true,
            (DataLoss { what: a }, DataLoss { what: b }) => a == b,
            (
                FingerprintMismatch { type_id: a, type_name: b, recorded: c, running: d },
                FingerprintMismatch { type_id: e, type_name: f, recorded: g, running: h },
            ) => (a, b, c, d) == (e, f, g, h),
            (LengthMismatch { recorded: a, actual: b }, LengthMismatch { recorded: c, actual: d }) => (a, b) == (c, d),
            (ChecksumMismatch { recorded: a, computed: b }, ChecksumMismatch { recorded: c, computed: d })
            | (
                TableChecksumMismatch { recorded: a, computed: b },
                TableChecksumMismatch { recorded: c, computed: d },
            ) => (a, b) == (c, d),
            (ObjectCountMismatch { recorded: a, found: b }, ObjectCountMismatch { recorded: c, found: d }) => {
                (a, b) == (c, d)
            }
            (Plain(a), Plain(b)) => a == b,
            (Corrupt(a), Corrupt(b)) => a == b,
            (NotCompact(a), NotCompact(b)) => a == b,
            (InstanceOutOfSequence { expected: a, found: b }, InstanceOutOfSequence { expected: c, found: d }) => {
                (a, b) == (c, d)
            }
            (UnknownInstance { id: a, count: b }, UnknownInstance { id: c, count: d }) => (a, b) == (c, d),
            (InstanceOutOfRange { id: a, count: b }, InstanceOutOfRange { id: c, count: d }) => (a, b) == (c, d),
            (DuplicateInstance { id: a }, DuplicateInstance { id: b }) => a == b,
            (TooDeep { limit: a }, TooDeep { limit: b }) => a == b,
            (TooManyObjects { limit: a }, TooManyObjects { limit: b }) => a == b,
            (ArrayTooLong { len: a, limit: b }, ArrayTooLong { len: c, limit: d }) => (a, b) == (c, d),
            (AllocationLimit { limit: a }, AllocationLimit { limit: b }) => a == b,
            (DropTooDeep { length: a, stack: b, limit: c }, DropTooDeep { length: d, stack: e, limit: f }) => {
                (a, b, c) == (d, e, f)
            }
            (UnknownRootType { type_id: a }, UnknownRootType { type_id: b }) => a == b,
            (RootTypeMismatch { expected: a, found: b }, RootTypeMismatch { expected: c, found: d }) => {
                (a, b) == (c, d)
            }
            (Field(a), Field(b)) => a == b,
            (MalformedPatch { at: a, why: b }, MalformedPatch { at: c, why: d }) => (a, b) == (c, d),
            (Io(a), Io(b)) => a.kind() == b.kind(),
            _ => false,
        }
    }
}

/// One step of the path to where a decode failed: a type, and the field of it being decoded
/// (`None` where the field is not one the type declares, e.g. a migrated one). Names come from
/// the program's types, or for a stream read without them from its schema table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorFrame {
    /// The type's name.
    pub type_name: Cow<'static, str>,
    /// The field's name.
    pub field: Option<Cow<'static, str>>,
}

/// Decoding failed: what, at which byte offset, and along which path of types and fields.
pub struct DecodeError(Box<Inner>);

struct Inner {
    kind: DecodeErrorKind,
    offset: Option<usize>,
    /// Innermost frame first.
    context: Vec<ErrorFrame>,
}

impl DecodeError {
    /// An error of `kind` at `offset` (`None` where no input position applies).
    #[cold]
    #[inline(never)]
    pub fn new(kind: DecodeErrorKind, offset: impl Into<Option<usize>>) -> Self {
        DecodeError(Box::new(Inner { kind, offset: offset.into(), context: Vec::new() }))
    }

    /// What went wrong.
    pub fn kind(&self) -> &DecodeErrorKind {
        &self.0.kind
    }

    /// What went wrong, by value.
    pub fn into_kind(self) -> DecodeErrorKind {
        self.0.kind
    }

    /// Byte offset into the input where the problem was found, where one applies.
    pub fn offset(&self) -> Option<usize> {
        self.0.offset
    }

    /// The types and fields being decoded, innermost first.
    pub fn context(&self) -> &[ErrorFrame] {
        &self.0.context
    }

    /// Adds the frame of an enclosing type and field as the error bubbles up.
    #[cold]
    #[inline(never)]
    pub(crate) fn within(mut self, type_name: &'static str, field: Option<&'static str>) -> Self {
        self.0.context.push(ErrorFrame { type_name: type_name.into(), field: field.map(Cow::Borrowed) });
        self
    }

    /// [`within`](Self::within) for names a stream gave (a dynamic decode).
    #[cold]
    #[inline(never)]
    pub(crate) fn within_named(mut self, type_name: String, field: Option<String>) -> Self {
        self.0.context.push(ErrorFrame { type_name: type_name.into(), field: field.map(Cow::Owned) });
        self
    }

    /// Moves the error to `offset`: from a compact stream's normal twin to the compact stream.
    #[cold]
    pub(crate) fn relocated(mut self, offset: usize) -> Self {
        self.0.offset = Some(offset);
        if let DecodeErrorKind::Plain(plain) = &mut self.0.kind {
            *plain.offset_mut() = offset;
        }
        self
    }

    /// Sets the offset if none is known yet.
    #[cold]
    pub(crate) fn at(mut self, offset: usize) -> Self {
        self.0.offset.get_or_insert(offset);
        self
    }
}

/// The structure is inconsistent at `offset`.
#[cold]
pub(crate) fn corrupt(offset: usize, what: &'static str) -> DecodeError {
    DecodeError::new(DecodeErrorKind::Corrupt(what), offset)
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecodeError")
            .field("kind", &self.0.kind)
            .field("offset", &self.0.offset)
            .field("context", &self.0.context)
            .finish()
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("decode error")?;
        if let Some(offset) = self.0.offset {
            write!(f, " at byte {offset}")?;
        }
        for (n, frame) in self.0.context.iter().rev().enumerate() {
            f.write_str(if n == 0 { " in " } else { " > " })?;
            f.write_str(&frame.type_name)?;
            if let Some(field) = &frame.field {
                write!(f, ".{field}")?;
            }
        }
        write!(f, ": {}", self.0.kind)
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.0.kind)
    }
}

impl From<PlainError> for DecodeError {
    #[cold]
    fn from(error: PlainError) -> Self {
        let offset = error.offset();
        DecodeError::new(DecodeErrorKind::Plain(error), offset)
    }
}

/// The one route from a field error to a decode error: a plain value that failed to decode is a
/// [`DecodeErrorKind::Plain`] at its own offset; anything else is [`DecodeErrorKind::Field`].
impl From<FieldError> for DecodeError {
    #[cold]
    fn from(error: FieldError) -> Self {
        match error {
            FieldError::Plain(plain) => plain.into(),
            other => DecodeError::new(DecodeErrorKind::Field(other), None),
        }
    }
}

/// Encoding failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// More objects than instance IDs can number.
    #[error("more than {limit} objects: instance IDs have 30 bits")]
    TooManyObjects {
        /// The largest instance ID.
        limit: u32,
    },
    /// A field could not be read (a pointee borrowed elsewhere, a poisoned lock, a plain value
    /// whose encoding contradicts its declared size).
    #[error("cannot encode {type_name}.{field}: {source}")]
    Field {
        /// The type.
        type_name: &'static str,
        /// The field.
        field: &'static str,
        /// The cause.
        #[source]
        source: FieldError,
    },
    /// An array field holds more elements than a `u32` count can describe.
    #[error("an array field of {count} elements: counts have 32 bits")]
    TooManyElements {
        /// Its length.
        count: usize,
    },
    /// The serializer was asked for a format version it does not write
    /// ([`BinarySerializer::format_version`](crate::serializer::BinarySerializer::format_version)).
    #[error("cannot write format version {version}: {why}")]
    UnsupportedVersion {
        /// The version asked for.
        version: u32,
        /// Why not.
        why: &'static str,
    },
    /// A top-level object of a version 5 stream is larger than its recorded length (32 bits) can
    /// say.
    #[error("instance {instance} takes {length} bytes: a version 5 object's length has 32 bits")]
    ObjectTooLarge {
        /// Its instance ID.
        instance: u32,
        /// Its bytes after the length word.
        length: u64,
    },
    /// A shared object could not be read (borrowed mutably elsewhere, or a poisoned lock).
    #[error("cannot read instance {instance}: {source}")]
    Pointee {
        /// Its instance ID.
        instance: u32,
        /// The cause.
        #[source]
        source: FieldError,
    },
    /// A kept unknown field ([`UnknownFields`](crate::UnknownFields)) has the ID of a field the
    /// type declares, or of another kept field of that type described differently (objects
    /// loaded from streams of different versions of it): the stream could not say which is which.
    #[error(
        "type {type_name}: kept unknown field {field} clashes with a field of that ID; clear the object's UnknownFields"
    )]
    KeptFieldClash {
        /// The type.
        type_name: &'static str,
        /// The field ID.
        field: u16,
    },
    /// A stream that lists only its types' fingerprints
    /// ([`SchemaTable::Fingerprints`](crate::serializer::SchemaTable::Fingerprints)) cannot carry what a
    /// reader kept from a newer writer (unknown fields, objects of types it lacks): their
    /// descriptions are what the schema table is for.
    #[error("type {type_name}: an object holds data kept from another writer, which only a stream with a schema table describes")]
    KeptDataNeedsSchema {
        /// The type whose object holds the kept data.
        type_name: &'static str,
    },
    /// The graph cannot be written in compact form
    /// ([`Encoding::Compact`](crate::serializer::Encoding::Compact)): the reason is the decode error that
    /// turning its normal form compact gave (`DecodeErrorKind::NotCompact`). The normal encoding
    /// writes it.
    #[error("the graph cannot be written in compact form: {0}")]
    NotCompact(#[source] DecodeError),
    /// A dynamic graph read from a stream that lists its types' fingerprints
    /// ([`DynamicGraph::fingerprints`](crate::dynamic::DynamicGraph::fingerprints)) holds an
    /// object of a type the list lacks and that carries no schema: there is no fingerprint to
    /// list for it.
    #[error(
        "type {type_id} is not in the graph's fingerprint table, and its objects carry no schema to take one from"
    )]
    NoFingerprint {
        /// The type's ID.
        type_id: u32,
    },
    /// Two types of one ID whose schema entries differ are in the graph: a type kept from a
    /// stream (the copy of an abstract base the program has, holding a section of an object of
    /// an unknown type; see [`runtime`](crate::runtime)) and the program's own, which changed
    /// since that stream was written. One stream cannot describe one ID two ways.
    #[error(
        "the graph holds two descriptions of type {type_id} (`{type_name}`): one kept from a stream and the          program's own, which differ; drop the kept objects or load them with the program that wrote them"
    )]
    TypeIdClash {
        /// The type ID.
        type_id: u32,
        /// The type's name.
        type_name: String,
    },
    /// An enum's `variants` function named a variant the type does not declare.
    #[error("an object of enum {type_name} holds a variant its RTTI does not declare")]
    UnknownVariant {
        /// The enum.
        type_name: &'static str,
    },
    /// Objects are nested by value deeper than the limit the decoder would accept.
    #[error("objects nested by value deeper than the limit of {limit}")]
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// The root was passed by reference, but a pointer in the graph leads back to it: written as
    /// a second object, the pointer would load as a copy. Pass the root's shared handle
    /// (`&Rc<RefCell<T>>`, `&Arc<Mutex<T>>`, ...) instead.
    #[error(
        "a pointer in the graph leads back to the root `{type_name}`, which was passed by reference; \
         pass its shared handle (e.g. `&Rc<RefCell<{type_name}>>`) so pointers to it resolve to the root"
    )]
    RootBehindPointer {
        /// The root's type.
        type_name: &'static str,
    },
    /// A field declaring a user trait object (`Box<dyn Component>`, `Rc<RefCell<dyn Component>>`,
    /// `Weak<RefCell<dyn Component>>`) holds an object whose type the serializer's registry does
    /// not know as implementing that trait: a decoder could not cast it back, and it would load
    /// as null.
    #[error(
        "cannot encode {type_name}.{field}: `{concrete}` is not registered as implementing `{trait_name}` \
         (declare `#[rtti(implements({trait_name}))]` on `{concrete}`, and register it with the serializer's registry)"
    )]
    UnregisteredTraitImpl {
        /// The type owning the field.
        type_name: &'static str,
        /// The field.
        field: &'static str,
        /// The type of the object the field holds.
        concrete: &'static str,
        /// The trait the field declares.
        trait_name: &'static str,
    },
    /// An object in a trait-object field (`Box<dyn Reflectable>`, `Rc<RefCell<dyn Component>>`)
    /// is of a type the serializer's registry lacks: a reader with that registry could not create
    /// it, and the object would be dropped on load. The usual cases: a generic instantiation
    /// (`Handle<Texture>`) that no registered type holds in a field, a `no_register` type, or a
    /// registry of the program's own built without the type.
    #[error(
        "cannot encode an object of `{type_name}` (type {id}) in a trait-object field: the serializer's \
         registry lacks the type, so a reader would drop the object; register it with \
         `reflectable::register_type!({rust_name});` (or `Registry::register_type` for a registry of your own)"
    )]
    UnregisteredType {
        /// The type's name.
        type_name: &'static str,
        /// The type's Rust path, as `register_type!` takes it.
        rust_name: &'static str,
        /// The type's ID.
        id: u32,
    },
    /// The sink failed.
    #[error("I/O error while encoding: {0}")]
    Io(#[from] io::Error),
}

/// What a file that is not a stream most likely is, from its first bytes: a hint for the error.
fn magic_hint(found: &[u8]) -> &'static str {
    match found.iter().find(|byte| !byte.is_ascii_whitespace()) {
        Some(b'{') => " (it looks like JSON: `reflectable::json::to_bytes` or `reflectable from-json` turns a document into a stream)",
        Some(_) if found.iter().all(|byte| byte.is_ascii_graphic() || byte.is_ascii_whitespace()) && !found.is_empty() => {
            " (it looks like text, not a binary stream)"
        }
        None if found.is_empty() => " (the input is empty)",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decode_error_is_one_pointer_wide() {
        assert!(std::mem::size_of::<DecodeError>() <= 16);
        assert_eq!(std::mem::size_of::<Result<(), DecodeError>>(), std::mem::size_of::<usize>());
    }

    #[test]
    fn the_context_reads_outermost_first() {
        let error = corrupt(24, "bad").within("Frame", Some("width")).within("Door", Some("frame"));
        assert_eq!(error.to_string(), "decode error at byte 24 in Door.frame > Frame.width: corrupt stream: bad");
        assert_eq!(error.context()[0], ErrorFrame { type_name: "Frame".into(), field: Some("width".into()) });
    }
}
