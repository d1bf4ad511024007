//! Types defined at run time: a scripting language's classes, an editor's user-made component
//! types, or the types of a file read without the program that wrote it.
//!
//! A [`TypeDescription`] lists a type's ID, name, optional base and fields (plain values of any
//! [`PlainSlot`] type, embedded objects, shared pointers and `Weak`s, each also as an array), or,
//! for an enum, its [`VariantDescription`]s.
//! [`TypeDescription::define`] makes it an [`RttiType`](crate::RttiType) like a derived type's:
//! register it in a [`Registry`](crate::Registry), create objects by ID or name, get and set their
//! fields through [`RttiField`](crate::field::RttiField), put them into `dyn Reflectable` fields of
//! Rust objects, and save and load them in the same graph as Rust objects (with a serializer built
//! on that registry). Their objects are [`RuntimeObject`]s.
//!
//! ```
//! use reflectable::runtime::{FieldDescription, PlainSlot, RuntimeObject, TypeDescription};
//!
//! let base = TypeDescription::new(9420, "ScriptBase")
//!     .field(FieldDescription::plain(1, "enabled", PlainSlot::of::<bool>()))
//!     .define()
//!     .unwrap();
//! let patrol = TypeDescription::new(9421, "Patrol")
//!     .base(base)
//!     .field(FieldDescription::plain(1, "waypoints", PlainSlot::of::<[f32; 2]>()).array())
//!     .define()
//!     .unwrap();
//!
//! let mut guard = RuntimeObject::create(patrol).unwrap();
//! guard.set("enabled", true).unwrap(); // a field of the base
//! let waypoints = patrol.field_by_name("waypoints").unwrap();
//! waypoints.resize(&mut guard, 2).unwrap();
//! waypoints.set_elem(&mut guard, 1, [4.0f32, 2.0]).unwrap();
//! assert_eq!(waypoints.get_elem::<[f32; 2]>(&guard, 1), Ok([4.0, 2.0]));
//! assert_eq!(guard.get::<bool>("enabled"), Ok(true));
//! assert!(patrol.is_subclass_of(base));
//! ```
//!
//! A defined type lives as long as the program: define each type once (per registry you build)
//! and keep its descriptor. Pointer fields use `Rc<RefCell<dyn Reflectable>>`, the family of
//! single-threaded object graphs; embedded and pointer fields accept objects of any type.

mod description;
mod kept;
mod plain_slot;
mod raw_plain;

pub use crate::rtti::runtime_object::RuntimeObject;
pub use crate::rtti::UnknownFields;
pub use description::{FieldDescription, TypeDescription, VariantDescription};
pub use kept::MAX_KEPT_TYPES;
pub(crate) use kept::{kept_container, kept_fields, kept_type, ContainerShape, KeptFields};
pub use plain_slot::PlainSlot;
