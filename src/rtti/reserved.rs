//! The type IDs the format reserves (FORMAT.md, "Type IDs"), in one table so that no two
//! built-in types collide: 0, which no type may have, and from [`FIRST_RESERVED_TYPE_ID`] up the
//! format's built-in types, which a registry refuses to anyone else. A program needs the first
//! five (to read or write streams by hand, or to recognise a container); the others name this
//! crate's own types, each reachable as its `rtti_static().id()`.

/// The type ID no type may have: streams write it for an empty embedded slot.
pub const NULL_TYPE_ID: u32 = 0;
/// Type IDs from this one up are reserved for the format's built-in types.
pub const FIRST_RESERVED_TYPE_ID: u32 = 0xFFFF_FF00;
/// Type ID of a list object (`Vec<X>` nested in a field).
pub const LIST_TYPE_ID: u32 = 0xFFFF_FF01;
/// Type ID of a map object (a map field whose values are objects or pointers).
pub const MAP_TYPE_ID: u32 = 0xFFFF_FF02;
/// Type ID of an external reference: a top-level stub standing for an object a subtree save cut
/// off, which the reading program re-links (FORMAT.md, "External references"; see
/// [`WeakPointers::External`](crate::serializer::WeakPointers::External)). Not a container, but
/// one of the format's built-in types all the same.
pub const EXTERNAL_TYPE_ID: u32 = 0xFFFF_FF03;

// The schema types: a schema saves like any object.
pub(crate) const SCHEMA_TYPE_ID: u32 = 0xFFFF_FF10;
pub(crate) const TYPE_SCHEMA_TYPE_ID: u32 = 0xFFFF_FF11;
pub(crate) const VARIANT_SCHEMA_TYPE_ID: u32 = 0xFFFF_FF12;
pub(crate) const FIELD_SCHEMA_TYPE_ID: u32 = 0xFFFF_FF13;

/// What `RuntimeObject::rtti_static` answers without an instance: never registered or written.
pub(crate) const RUNTIME_OBJECT_TYPE_ID: u32 = 0xFFFF_FF20;

// The patch types (`diff::Patch` and its parts): a patch saves like any object.
pub(crate) const PATCH_TYPE_ID: u32 = 0xFFFF_FF30;
pub(crate) const OBJECT_EDIT_TYPE_ID: u32 = 0xFFFF_FF31;
pub(crate) const OBJECT_BODY_TYPE_ID: u32 = 0xFFFF_FF32;
pub(crate) const PLAIN_EDIT_TYPE_ID: u32 = 0xFFFF_FF33;
pub(crate) const EMBEDDED_EDIT_TYPE_ID: u32 = 0xFFFF_FF34;
pub(crate) const EMBEDDED_ELEMENT_TYPE_ID: u32 = 0xFFFF_FF35;
pub(crate) const POINTER_EDIT_TYPE_ID: u32 = 0xFFFF_FF36;
pub(crate) const KEPT_EDIT_TYPE_ID: u32 = 0xFFFF_FF37;
pub(crate) const MAP_EDIT_TYPE_ID: u32 = 0xFFFF_FF38;
