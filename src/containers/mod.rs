//! Containers of objects: nested arrays (`Vec<Vec<Rc<T>>>`, `Option<Vec<Rc<T>>>`) and maps whose
//! values are objects or pointers (`HashMap<String, Rc<RefCell<Material>>>`).
//!
//! A field holds one level of array; what is nested inside it is written as objects of two
//! built-in types the format reserves IDs for (`FORMAT.md`, "Containers"):
//!
//! - a **list** ([`LIST_TYPE_ID`]): `Vec<X>` is itself reflectable, an object with one array
//!   field, `items` (field 1). `Vec<Vec<Rc<T>>>` is then an array of embedded lists.
//! - a **map** ([`MAP_TYPE_ID`]): a map field is an embedded object with two array fields, `keys`
//!   (field 1, plain) and `values` (field 2), entry `i` being `keys[i] -> values[i]`. Hash maps
//!   write their entries in the order of their keys' encoded bytes, so the output is the same in
//!   every process.
//!
//! Both are ordinary embedded objects to the grammar, so a reader that does not know a field
//! holding them skips it like any other. They are never registered: a decoder takes their type
//! from the field that declares it.
//!
//! The elements of lists and the values of maps are [`Element`]s: reflectable objects by value
//! (which includes lists: nesting is recursive) or pointers of any family.

mod element;
mod list;
mod map;

pub use element::Element;
pub(crate) use map::{add_map_field, drops_values};
pub use map::{MapEntries, MapValue, ObjectMap};

pub use crate::rtti::reserved::{EXTERNAL_TYPE_ID, FIRST_RESERVED_TYPE_ID, LIST_TYPE_ID, MAP_TYPE_ID};
/// Field ID of a list object's items (objects or pointers).
pub const LIST_ITEMS_FIELD_ID: u16 = 1;
/// Field ID of a map object's keys (plain).
pub const MAP_KEYS_FIELD_ID: u16 = 1;
/// Field ID of a map object's values (objects or pointers).
pub const MAP_VALUES_FIELD_ID: u16 = 2;
