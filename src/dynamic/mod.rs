//! Dynamic objects: any stream read without its Rust types, kept exactly, and written back.
//!
//! Banshee decodes every stream into an intermediate tree (`SerializedObject`) that its diff,
//! clone and scripting layers stand on. [`DynamicGraph`] is that tree for a whole graph: every
//! top-level object of a stream as a [`DynamicObject`] (one [`DynamicSection`] per type in its
//! chain, each a list of [`DynamicField`]s in stream order), plain values kept as their stored
//! bytes ([`PlainBytes`](crate::plain::PlainBytes)) and decoded on demand, objects stored by value nested, and pointers as
//! shared [`DynamicRef`] handles, so sharing and cycles are the stream's. The stream's schema
//! table gives names and plain types; without one (format versions 1 and 2) fields are known by
//! ID and wire shape.
//!
//! - [`DynamicGraph::from_bytes`] reads any valid stream, with no registry, within the same
//!   [`Limits`](crate::serializer::Limits) the typed decoder obeys; [`DynamicGraph::to_bytes`]
//!   writes it back. A graph not changed in between writes the bytes it was read from.
//! - [`DynamicGraph::from_typed`] and [`DynamicGraph::to_typed`] convert between Rust object
//!   graphs and dynamic ones, through the binary format, so a dynamic graph holds exactly what a
//!   save holds and loads with the binary decoder's tolerance and report.
//! - [`DynamicSection::get`] decodes a plain value as a Rust type, refusing a type other than the
//!   stored one; [`DynamicSection::set`] replaces it.
//! - Code that walks fields through [`RttiField`](crate::field::RttiField) (a dependency
//!   collector, an editor's inspector) runs unchanged over a file without its types: decode it
//!   with an empty [`Registry`](crate::Registry) and
//!   [`keep_unknown_types`](crate::serializer::BinarySerializer::keep_unknown_types), and every
//!   object is a [`RuntimeObject`](crate::runtime::RuntimeObject) of a type defined from the
//!   stream's schema table, with the stream's fields:
//!
//! ```
//! use reflectable::serializer::BinarySerializer;
//! use reflectable::{Reflectable, Registry, RttiType};
//!
//! #[derive(Reflectable, Default)]
//! #[rtti(id = 9911)]
//! struct Crate {
//!     #[rtti(id = 1)]
//!     label: String,
//!     #[rtti(id = 2)]
//!     weight: f32,
//! }
//! let bytes = reflectable::to_vec(&Crate { label: "ammo".into(), weight: 12.5 }).unwrap();
//!
//! let no_types = Registry::new();
//! let serializer = BinarySerializer::with_registry(&no_types).keep_unknown_types(true);
//! let object: Box<dyn Reflectable> = serializer.decode(&bytes).unwrap();
//! let names: Vec<_> = RttiType::sections(&*object)
//!     .flat_map(|(rtti, _)| rtti.fields().iter().map(|field| format!("{}.{}", rtti.name(), field.name())))
//!     .collect();
//! assert_eq!(names, ["Crate.label", "Crate.weight"]);
//! assert_eq!(object.rtti().field_by_name("weight").unwrap().get::<f32>(&*object), Ok(12.5));
//! ```
//!
//! ```
//! use reflectable::dynamic::{DynamicGraph, DynamicValue};
//! use reflectable::Reflectable;
//! use std::cell::RefCell;
//! use std::rc::Rc;
//!
//! #[derive(Reflectable, Default)]
//! #[rtti(id = 9910)]
//! struct Node {
//!     #[rtti(id = 1)]
//!     name: String,
//!     #[rtti(id = 2)]
//!     next: Option<Rc<RefCell<Node>>>,
//! }
//!
//! let shared = Rc::new(RefCell::new(Node { name: "loop".into(), next: None }));
//! shared.borrow_mut().next = Some(shared.clone()); // a cycle
//! let bytes = reflectable::to_vec(&shared).unwrap();
//! shared.borrow_mut().next = None;
//!
//! let graph = DynamicGraph::from_bytes(&bytes).unwrap();
//! let root = graph.root().borrow();
//! for (section, field) in root.fields() {
//!     println!("{}.{}", section.type_name().unwrap(), section.field_name(field).unwrap());
//! }
//! let DynamicValue::Pointer(next) = root.own().field(2).unwrap().value() else { panic!() };
//! assert!(next[0].as_ref().unwrap().ptr_eq(graph.root()), "the cycle is kept");
//! ```

mod decode;
mod encode;
mod graph;
mod object;

pub(crate) use graph::StoredEntry;
pub use graph::{DynamicGraph, InstanceIndex};
pub use object::{DynamicField, DynamicObject, DynamicRef, DynamicSection, DynamicValue, WeakDynamicRef};

use crate::field::WireShape;
use crate::plain::PlainError;
use crate::serializer::{DecodeError, EncodeError};
use thiserror::Error;

/// What a dynamic object cannot do.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum DynamicError {
    /// The section has no field with this ID.
    #[error("no field {id}")]
    NoSuchField {
        /// The field ID.
        id: u16,
    },
    /// The field's wire shape is not the one asked for (embedded for plain, an array for a
    /// single value, another static size).
    #[error("field {id} is stored as {shape:?}")]
    WrongKind {
        /// The field ID.
        id: u16,
        /// How it is stored.
        shape: WireShape,
    },
    /// The stream records another plain type for the field.
    #[error(
        "field {id} holds {}, not {}",
        crate::schema::describe_signature(stored),
        crate::schema::describe_signature(wanted)
    )]
    WrongType {
        /// The field ID.
        id: u16,
        /// The stored type's signature.
        stored: Vec<u32>,
        /// The requested type's signature.
        wanted: Vec<u32>,
    },
    /// A stored plain value does not decode as the requested type.
    #[error("field {id}: {source}")]
    Value {
        /// The field ID.
        id: u16,
        /// Why.
        #[source]
        source: PlainError,
    },
    /// Bytes that do not decode as the requested type.
    #[error(transparent)]
    Plain(#[from] PlainError),
    /// Encoding a graph failed.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// Decoding a graph failed.
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

impl DynamicError {
    fn in_field(self, id: u16) -> Self {
        match self {
            DynamicError::Plain(source) => DynamicError::Value { id, source },
            other => other,
        }
    }
}
