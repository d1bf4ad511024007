//! Derive macros for [`reflectable`](https://docs.rs/reflectable): `#[derive(Reflectable)]` and
//! `#[derive(PlainType)]`. See the `reflectable` crate for the attribute reference.
//!
//! Each derive works in three stages, after serde_derive: parse the attributes into a model, check
//! the model through a context that collects every error with its span (so one compile reports
//! them all, each at the attribute or field it is about), and only then generate code. Generated
//! code names only `reflectable::__private` items, and spans each field's code on the field's type,
//! so a field type of the wrong kind is reported at the field.

mod attr;
mod context;
mod plain;
mod reflectable;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Implements `Reflectable` and registers the type.
///
/// Type attributes: `#[rtti(id = N)]` (required; a stable `u32`, not 0, which the binary format
/// reserves for the null type), `name = "..."`, `abstract`, `hooks` (wire the type's `RttiHooks`
/// impl), `implements(Trait, ...)`, `extend = path` (a
/// `fn(RttiTypeBuilder<Self>) -> RttiTypeBuilder<Self>` adding migrations, hooks or computed
/// fields), `no_register` (keep the type out of the global registry, e.g. an old schema kept for
/// tests), `crate = path` (where generated code finds `reflectable`, for a crate that re-exports it;
/// default `::reflectable`).
///
/// Field attributes: `#[rtti(id = N)]`, `#[rtti(skip)]` or `#[rtti(base)]` on every field, plus
/// `name = "..."`, `flags = EXPR`, and a kind where it cannot be inferred: `embedded` (a
/// reflectable object stored by value), `plain` (a whole container as one plain value), `array` (a
/// plain `[T; N]` as an array field), `pointer`. At most one `#[rtti(unknown)]` member of type
/// `UnknownFields` keeps the stored fields the type lacks, and writes them back on save. At most
/// one field is `asset_key` (the type is an asset, saved as a reference by that key), and at most
/// one `identity` (a `u32`, `u64`, `u128` or `[u8; 16]` telling the type's objects apart for good:
/// diffs and patches pair objects by it).
///
/// Every mistake in the attributes is reported at once, each at the attribute or field it is about.
///
/// ```
/// use reflectable::Reflectable;
/// use std::cell::RefCell;
/// use std::rc::{Rc, Weak};
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9_980_001)]
/// struct Room {
///     #[rtti(id = 1)]
///     name: String,
///     #[rtti(id = 2)]
///     doors: Vec<Rc<RefCell<Door>>>,
///     #[rtti(skip)]
///     visits: u32,
/// }
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9_980_002)]
/// struct Door {
///     #[rtti(id = 1)]
///     open: bool,
///     #[rtti(id = 2)]
///     room: Weak<RefCell<Room>>,
/// }
///
/// let room = Rc::new(RefCell::new(Room { name: "hall".into(), visits: 3, ..Room::default() }));
/// let door = Rc::new(RefCell::new(Door { open: true, room: Rc::downgrade(&room) }));
/// room.borrow_mut().doors.push(door);
///
/// let bytes = reflectable::to_vec(&room).unwrap();
/// let back: Rc<RefCell<Room>> = reflectable::from_slice(&bytes).unwrap();
/// let door = back.borrow().doors[0].clone();
/// assert!(door.borrow().open && Rc::ptr_eq(&door.borrow().room.upgrade().unwrap(), &back));
/// assert_eq!(back.borrow().visits, 0, "a skipped field is not stored");
/// assert_eq!(Room::rtti_static().field_by_name("name").unwrap().id(), 1);
/// # back.borrow_mut().doors.clear();
/// # room.borrow_mut().doors.clear();
/// ```
#[proc_macro_derive(Reflectable, attributes(rtti))]
pub fn derive_reflectable(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    reflectable::expand(&input).into()
}

/// Implements `PlainType` for a struct (field by field) or a fieldless enum (its discriminant as a
/// `u32`).
///
/// `#[plain(id = N)]` gives the plain type ID; `#[plain(id = N, pod)]` on a `#[repr(C)]` struct that
/// also derives `bytemuck::Pod` copies whole slices at once; `crate = path` says where generated code
/// finds `reflectable` (default `::reflectable`).
///
/// ```
/// use reflectable::plain::{read_elem, write_elem, Reader};
/// use reflectable::{PlainType, Reflectable};
///
/// #[derive(PlainType, Clone, Copy, Debug, Default, PartialEq)]
/// #[plain(id = 9_980_101)]
/// struct Rgb {
///     r: u8,
///     g: u8,
///     b: u8,
/// }
///
/// #[derive(PlainType, Clone, Copy, Debug, Default, PartialEq)]
/// #[plain(id = 9_980_102)]
/// enum Blend {
///     #[default]
///     Opaque,
///     Additive,
/// }
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9_980_003)]
/// struct Lamp {
///     #[rtti(id = 1)]
///     color: Rgb,
///     #[rtti(id = 2)]
///     blend: Blend,
/// }
///
/// let mut bytes = Vec::new();
/// write_elem(&Rgb { r: 255, g: 128, b: 0 }, &mut bytes);
/// assert_eq!(bytes, [255, 128, 0], "three bytes, no size prefix: a static plain type");
/// assert_eq!(read_elem::<Rgb>(&mut Reader::new(&bytes)).unwrap(), Rgb { r: 255, g: 128, b: 0 });
///
/// let lamp = Lamp { color: Rgb { r: 1, g: 2, b: 3 }, blend: Blend::Additive };
/// let back: Lamp = reflectable::from_slice(&reflectable::to_vec(&lamp).unwrap()).unwrap();
/// assert_eq!((back.color, back.blend), (lamp.color, Blend::Additive));
/// ```
#[proc_macro_derive(PlainType, attributes(plain))]
pub fn derive_plain_type(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    plain::expand(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}
