//! The JSON form of any object graph: the readable twin of a binary stream, for people debugging
//! a save, for tools in other languages, and for hand-written test data.
//!
//! A document is one object:
//!
//! ```text
//! { "format": "reflectable-json/1", "version": 3, "checksum": false,
//!   "types": [ { "id": 1000, "name": "Door", "fingerprint": "…", "fields": [ { "id": 1, "name": "open",
//!               "wire": "plain:1", "type": "bool", "signature": [13] }, … ] }, … ],
//!   "objects": [ { "$id": 1, "$type": "Level", "doors": [ {"$ref": 2}, {"$ref": 3} ] },
//!                { "$id": 2, "$type": "Door", "open": true, "frame": { "$type": "Frame", "width": 3 } }, … ] }
//! ```
//!
//! - `types` is the stream's schema table: it names fields and types, and turns the document back
//!   into the same bytes. A hand-written document may leave it out and name types the reading
//!   program has.
//! - A compact stream's document (`FORMAT.md`, "Compact streams") adds `"encoding": "compact"`,
//!   and `plain_block`, the stream's description of the program's plain types (base64): the
//!   document then converts back into the same compact bytes.
//! - `objects` are the shared objects in instance order, the root first; each has its `$id`, and a
//!   pointer to it is `{"$ref": id}` (or `null`), so sharing, `Weak`s and cycles survive. Objects
//!   stored by value are nested where they are held.
//! - An object's members are its `$type` (a type's name, or its ID where two types share a name),
//!   `$variant` for an enum, its fields by name (by ID where the stream does not describe them),
//!   and its base types' sections in `$bases`, a list. A map field of objects or pointers is its
//!   entries: `{"oak": {"$ref": 3}}` for string keys, `[[7, {"$type": …}]]` for others.
//! - Plain values follow protobuf's JSON conventions: 64- and 128-bit integers are strings,
//!   `Vec<u8>` and values of types this program cannot take apart are base64, non-finite floats
//!   are `"NaN"`, `"Infinity"`, `"-Infinity"` (see `plain.rs`). A value whose reading would not
//!   write back the same bytes (a NaN's payload), and any field the stream does not describe, keeps
//!   its stored form: `{"$wire": "plain:4", "$count": 1, "$bytes": "AAAAAA=="}`.
//!
//! - A program's own derived plain types (`#[derive(PlainType)]`) are shown by their parts,
//!   `{"x": 1, "y": 2}`, when the program that writes the document has them. Only a program with
//!   those types reads such a value back; one without them (the `reflectable` tool, another build)
//!   refuses it, saying so, and reads the field's stored form instead, which is what it writes
//!   itself for values it cannot take apart.
//!
//! So a binary stream and its JSON convert into each other without loss, and JSON reaches typed
//! objects through the binary decoder, with its tolerance and its report. Reading is bounded and
//! strict (`SECURITY.md`): no member may be given twice or where it would be ignored, a value must
//! fit its field exactly, and a document is accepted only when the stream it describes decodes.
//!
//! ```
//! use reflectable::json;
//! use reflectable::Reflectable;
//! use std::cell::RefCell;
//! use std::rc::Rc;
//!
//! #[derive(Reflectable, Default)]
//! #[rtti(id = 9960)]
//! struct Room {
//!     #[rtti(id = 1)]
//!     name: String,
//!     #[rtti(id = 2)]
//!     seed: u64,
//!     #[rtti(id = 3)]
//!     lamps: Vec<Rc<RefCell<Lamp>>>,
//! }
//!
//! #[derive(Reflectable, Default)]
//! #[rtti(id = 9961)]
//! struct Lamp {
//!     #[rtti(id = 1)]
//!     watts: f32,
//! }
//!
//! let lamp = Rc::new(RefCell::new(Lamp { watts: 40.0 }));
//! let room = Room { name: "hall".into(), seed: u64::MAX, lamps: vec![lamp.clone(), lamp] };
//! let text = json::to_string(&room).unwrap();
//! assert!(text.contains(r#""seed": "18446744073709551615""#), "64-bit integers are strings");
//! assert!(text.contains(r#""lamps": [
//!         {
//!           "$ref": 2
//!         },"#), "{text}");
//!
//! let (back, report) = json::JsonReader::new().read::<Room>(&text).unwrap();
//! assert!(report.is_empty());
//! assert!(Rc::ptr_eq(&back.lamps[0], &back.lamps[1]), "one lamp, shared");
//! assert_eq!(json::to_bytes(&text).unwrap(), reflectable::to_vec(&room).unwrap(), "the binary twin");
//! ```

mod lookup;
mod plain;
mod read;
mod scalar;
mod schema;
mod write;

// What the readable form of a patch (`diff/patch/json`) shares with the documents of graphs.
pub(crate) use plain::to_json as plain_to_json;
pub(crate) use read::{FieldEntry, PlainSeed};
pub(crate) use schema::field_to_json;

use crate::dynamic::{DynamicError, DynamicGraph};
use crate::rtti::AsRoot;
use crate::rtti::Registry;
use crate::serializer::{BinarySerializer, DecodeError, DecodeReport, DecodeTarget, EncodeError};

/// The value of a document's `"format"` member.
pub const FORM: &str = "reflectable-json/1";

/// A JSON document could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JsonError {
    /// The text is not JSON: where (1-based line and column), and why.
    #[error("line {line}, column {column}: {message}")]
    Syntax {
        /// The line.
        line: usize,
        /// The column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// JSON that is not a graph, or a value that is not its field's type: where in the document
    /// (`objects[3].doors[1]`), and why.
    #[error("at `{path}`: {message}")]
    Invalid {
        /// The member's path in the document.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The binary stream behind the document could not be read.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The graph could not be written as a binary stream.
    #[error(transparent)]
    Encode(#[from] EncodeError),
}

impl From<DynamicError> for JsonError {
    fn from(error: DynamicError) -> Self {
        match error {
            DynamicError::Decode(error) => JsonError::Decode(error),
            DynamicError::Encode(error) => JsonError::Encode(error),
            other => JsonError::Invalid { path: String::new(), message: other.to_string() },
        }
    }
}

#[cold]
pub(crate) fn invalid(path: &str, message: impl Into<String>) -> JsonError {
    JsonError::Invalid { path: path.to_owned(), message: message.into() }
}

/// The JSON form of a dynamic graph, whatever program wrote its stream.
///
/// ```
/// use reflectable::dynamic::DynamicGraph;
/// use reflectable::Reflectable;
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9962)]
/// struct Door {
///     #[rtti(id = 1)]
///     open: bool,
/// }
///
/// let bytes = reflectable::to_vec(&Door { open: true }).unwrap();
/// let graph = DynamicGraph::from_bytes(&bytes).unwrap();
/// let text = graph.to_json().unwrap();
/// assert!(text.contains(r#""open": true"#));
///
/// let back = DynamicGraph::from_json(&text).unwrap();
/// assert_eq!(back.to_bytes().unwrap(), bytes);
/// let mut out = Vec::new();
/// back.write_json(&mut out).unwrap();
/// assert_eq!(out, text.as_bytes());
/// ```
impl DynamicGraph {
    /// Writes the graph's document to `out`, indented, without building it first.
    pub fn write_json(&self, out: impl std::io::Write) -> Result<(), JsonError> {
        serde_json::to_writer_pretty(out, &write::Document::new(self)).map_err(|error| invalid("", error.to_string()))
    }

    /// The graph's document, indented.
    pub fn to_json(&self) -> Result<String, JsonError> {
        let mut out = Vec::new();
        self.write_json(&mut out)?;
        Ok(String::from_utf8(out).expect("serde_json writes UTF-8"))
    }

    /// Parses a document into a dynamic graph (types only from the document), checked as
    /// [`to_bytes`] checks it. [`JsonReader::read`] also resolves types the document does
    /// not list.
    pub fn from_json(text: &str) -> Result<DynamicGraph, JsonError> {
        DynamicGraph::from_bytes(&stream_of(text, None)?).map_err(refused)
    }
}

/// The document of a Rust object graph (what its binary stream holds), indented.
///
/// ```
/// use reflectable::json::{self, JsonReader};
/// # use reflectable::Reflectable;
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_970_005)]
/// # struct Door { #[rtti(id = 1)] open: bool, #[rtti(id = 2)] width: u32 }
///
/// let text = json::to_string(&Door { open: true, width: 3 }).unwrap();
/// assert!(text.contains(r#""$type": "Door""#), "{text}");
/// assert!(text.contains(r#""open": true"#) && text.contains(r#""width": 3"#));
///
/// let (back, report) = JsonReader::new().read::<Door>(&text).unwrap();
/// assert!(back.open && back.width == 3 && report.is_empty());
/// ```
pub fn to_string<R: AsRoot + ?Sized>(root: &R) -> Result<String, JsonError> {
    DynamicGraph::from_typed(root)?.to_json()
}

/// The document of a binary stream, indented: no types needed.
///
/// ```
/// use reflectable::json;
/// # use reflectable::Reflectable;
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_970_006)]
/// # struct Lamp { #[rtti(id = 1)] watts: u16, #[rtti(id = 2)] label: String }
///
/// let bytes = reflectable::to_vec(&Lamp { watts: 40, label: "hall".into() }).unwrap();
/// let text = json::from_bytes(&bytes).unwrap();
/// assert!(text.contains(r#""watts": 40"#) && text.contains(r#""label": "hall""#), "{text}");
/// assert_eq!(json::to_bytes(&text).unwrap(), bytes, "the same stream back");
/// assert!(json::from_bytes(&bytes[..bytes.len() - 1]).is_err(), "a truncated stream is refused");
/// ```
pub fn from_bytes(bytes: &[u8]) -> Result<String, JsonError> {
    DynamicGraph::from_bytes(bytes)?.to_json()
}

/// The binary stream of a document that lists its types (as every document this module writes
/// does): the bytes the document was made from. A document is refused unless the stream it gives
/// is one the decoder reads ([`DynamicGraph::from_bytes`], what `reflectable check` uses).
///
/// ```
/// use reflectable::json;
/// # use reflectable::Reflectable;
/// # #[derive(Reflectable, Default, Debug, PartialEq)]
/// # #[rtti(id = 9_970_007)]
/// # struct Gate { #[rtti(id = 1)] open: bool, #[rtti(id = 2)] name: String }
///
/// let text = json::to_string(&Gate { open: true, name: "north".into() }).unwrap();
/// // A hand edit: the bytes it gives decode as usual.
/// let edited = text.replace(r#""open": true"#, r#""open": false"#);
/// let bytes = json::to_bytes(&edited).unwrap();
/// let gate: Gate = reflectable::from_slice(&bytes).unwrap();
/// assert_eq!(gate, Gate { open: false, name: "north".into() });
///
/// // A value that does not fit its field is refused.
/// assert!(json::to_bytes(&text.replace(r#""open": true"#, r#""open": 3"#)).is_err());
/// ```
pub fn to_bytes(text: &str) -> Result<Vec<u8>, JsonError> {
    let bytes = stream_of(text, None)?;
    DynamicGraph::from_bytes(&bytes).map_err(refused)?;
    Ok(bytes)
}

/// The stream a document describes, with the graph read from it let go of before the stream is
/// checked (so the two are never held at once).
fn stream_of(text: &str, registry: Option<&Registry>) -> Result<Vec<u8>, JsonError> {
    Ok(read::graph(text, registry)?.to_bytes()?)
}

/// A document whose stream the decoder refuses: the decoder's error says where in the stream.
fn refused(error: DecodeError) -> JsonError {
    invalid("", format!("the document describes a stream the decoder refuses: {error}"))
}

/// Reads documents into graphs, typed or dynamic, resolving types the document does not list
/// through a registry, and reaching typed objects through the binary decoder (its tolerance,
/// limits, strictness and report).
pub struct JsonReader<'r> {
    registry: &'r Registry,
    serializer: BinarySerializer<'r>,
}

impl Default for JsonReader<'static> {
    fn default() -> Self {
        Self::new()
    }
}

impl JsonReader<'static> {
    /// A reader for the types of the global registry.
    pub fn new() -> Self {
        JsonReader { registry: Registry::global(), serializer: BinarySerializer::new() }
    }
}

impl<'r> JsonReader<'r> {
    /// A reader decoding through `serializer` (its registry, limits, strictness), resolving
    /// types the document does not list through `registry`.
    pub fn with(registry: &'r Registry, serializer: BinarySerializer<'r>) -> Self {
        JsonReader { registry, serializer }
    }

    /// The document read into `T` (see [`DecodeTarget`]): a Rust object graph by value or with
    /// its root in a shared handle, or a dynamic graph (the graph the decoder reads from the
    /// stream the document describes, so it always writes a stream the decoder reads); with what
    /// the decoder dropped.
    ///
    /// ```
    /// use reflectable::dynamic::DynamicGraph;
    /// use reflectable::json::{self, JsonReader};
    /// use reflectable::Reflectable;
    /// use std::rc::Rc;
    ///
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9963)]
    /// struct Gate {
    ///     #[rtti(id = 1)]
    ///     open: bool,
    /// }
    ///
    /// let text = json::to_string(&Gate { open: true }).unwrap();
    /// let reader = JsonReader::new();
    /// let (gate, report) = reader.read::<Gate>(&text).unwrap();
    /// assert!(gate.open && report.is_empty());
    /// let (shared, _) = reader.read::<Rc<Gate>>(&text).unwrap();
    /// let (graph, _) = reader.read::<DynamicGraph>(&text).unwrap();
    /// assert!(shared.open);
    /// assert_eq!(graph.root().borrow().type_name(), Some("Gate"));
    /// ```
    pub fn read<T: DecodeTarget>(&self, text: &str) -> Result<(T, DecodeReport), JsonError> {
        let bytes = stream_of(text, Some(self.registry))?;
        Ok(self.serializer.decode_with_report(&bytes)?)
    }
}
