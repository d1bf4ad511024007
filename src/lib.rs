//! # reflectable
//!
//! Run-time type information for Rust types, and a self-describing, field-ID tagged binary format
//! built on it, after the RTTI system of the Banshee engine.
//!
//! Every reflectable type has an [`RttiType`]: a name, a stable numeric type ID, an optional base
//! type, its fields, a constructor and serialization hooks. Types register themselves through
//! `inventory`, so objects can be created from a numeric ID or a name ([`Registry::create`]), and
//! every field of every object can be walked, read and written without naming the types.
//!
//! Fields have unique numeric IDs and one of three kinds ([`field::FieldKind`]), each also as an
//! array (`Vec`, `[T; N]`, `SmallVec`):
//! - **plain**: a value copied through a [`plain::PlainType`] codec;
//! - **embedded**: another reflectable object stored by value (`T`, `Option<T>`,
//!   `Box<dyn Reflectable>`, `Box<dyn YourTrait>`);
//! - **pointer**: a shared pointer (`Rc<T>`, `Rc<RefCell<T>>`, `Arc<T>`, `Arc<Mutex<T>>`,
//!   `Arc<RwLock<T>>`, their `Weak`s, `Option` of each; `T` may be `dyn YourTrait`).
//!
//! ## Declaring a type with the derive
//!
//! ```
//! use reflectable::{reflect_trait, Reflectable, Registry};
//! use std::cell::RefCell;
//! use std::rc::{Rc, Weak};
//!
//! pub trait Component: Reflectable {}
//! reflect_trait!(Component);
//!
//! #[derive(Reflectable, Default)]
//! #[rtti(id = 200_000, abstract)]
//! struct Resource {
//!     #[rtti(id = 1)]
//!     path: String,
//! }
//!
//! #[derive(Reflectable, Default)]
//! #[rtti(id = 200_001, name = "Texture", implements(Component))]
//! struct Texture {
//!     #[rtti(base)]              // "inherits" Resource by embedding it
//!     resource: Resource,
//!     #[rtti(id = 1)]            // plain
//!     size: [u32; 2],
//!     #[rtti(id = 2)]            // plain array
//!     mips: Vec<u8>,
//!     #[rtti(skip)]              // not reflected
//!     gpu_handle: u64,
//! }
//! impl Component for Texture {}
//!
//! #[derive(Reflectable, Default)]
//! #[rtti(id = 200_002)]
//! struct Node {
//!     #[rtti(id = 1)]            // pointer array of trait objects
//!     components: Vec<Rc<RefCell<dyn Component>>>,
//!     #[rtti(id = 2)]            // weak pointer
//!     parent: Weak<RefCell<Node>>,
//! }
//!
//! let object = Registry::global().create(200_001).expect("Texture is registered");
//! assert_eq!(object.rtti().name(), "Texture");
//! assert!(object.is_subclass_of::<Resource>());
//! assert!(Registry::global().create(200_000).is_none(), "abstract types have no constructor");
//!
//! let size = object.rtti().field_by_name("size").unwrap();
//! assert_eq!(size.get::<[u32; 2]>(&*object).unwrap(), [0, 0]);
//! ```
//!
//! The derive infers the kind of a field from its type: `Rc`/`Arc`/`Weak` (in an `Option` or an
//! array) are pointers, `Box<dyn Trait>` is embedded, anything else is plain. The attributes:
//!
//! | on | attribute | meaning |
//! |---|---|---|
//! | type | `id = N` | Required. The type ID: a `u32` that stays the same across versions and is unique among reflectable types. Not 0: the format reserves 0 for the null type, and a literal or constant 0 does not compile. |
//! | type | `name = "..."` | The type's name in the registry (default: the Rust name). |
//! | type | `abstract` | No constructor: the type is never created from its ID. Other types need `Default`. |
//! | type | `hooks` | Wires the type's [`rtti::RttiHooks`] impl. |
//! | type | `implements(Trait, ...)` | Lets decoders put the type into `dyn Trait` fields (see [`reflect_trait!`]). |
//! | type | `extend = path` | A `fn(RttiTypeBuilder<Self>) -> RttiTypeBuilder<Self>` adding migrations, hooks or computed fields. |
//! | type | `no_register` | Keeps the type out of the global registry (e.g. an old schema kept for tests). |
//! | type | `crate = path` | Where generated code finds this crate, for a crate that re-exports it (default `::reflectable`). `#[plain(crate = path)]` does the same for `#[derive(PlainType)]`. |
//! | field | `id = N` | The field ID: a `u16`, unique within the type. Every field has `id`, `skip` or `base`. |
//! | field | `skip` | The field is not reflected (it keeps its `Default` when decoded). |
//! | field | `base` | The field is the base object the type "inherits" (at most one). |
//! | field | `name = "..."` | The field's name (default: the Rust name). |
//! | field | `flags = EXPR` | Field flags such as [`field::SKIP_REFERENCE_SEARCH`]. |
//! | field | `embedded` | A reflectable type stored by value (an embedded object); also `Vec<T>`, `Option<T>`. |
//! | field | `plain` | A whole container (say a `Vec`) as one plain value instead of an array field. |
//! | field | `array` | A plain `[T; N]` as an array field instead of one plain value. |
//! | field | `pointer` | A shared pointer the inference does not see (behind a type alias). |
//! | field | `with = Codec` | A plain field stored through `Codec`, a [`plain::PlainCodec`] for the field's type (for the element type of a `Vec`, `SmallVec` or `[T; N]`, then an array field): for a type of another crate that cannot implement `PlainType`. |
//! | field | `serde` | Feature `serde`: a plain field holding any `Serialize + DeserializeOwned` value as a postcard payload (`with = reflectable::plain::SerdeCodec`). |
//!
//! Mistakes are compile errors, all reported at once, each at the attribute or field it is about; a
//! field type that does not fit its kind is reported at the field, saying what to add (`embedded`,
//! `#[derive(PlainType)]`, `reflect_trait!`, `#[rtti(skip)]`).
//!
//! ## Declaring a type by hand
//!
//! The [`RttiTypeBuilder`] is Banshee's style: each field is a getter/setter pair, so the stored
//! form may be computed (here, a temperature kept in Kelvin and stored in Celsius).
//!
//! ```
//! use once_cell::sync::Lazy;
//! use reflectable::{Reflectable, RttiType, RttiTypeBuilder};
//!
//! #[derive(Default)]
//! struct Sensor {
//!     name: String,
//!     kelvin: f64,
//! }
//!
//! impl Reflectable for Sensor {
//!     fn rtti(&self) -> &'static RttiType {
//!         Self::rtti_static()
//!     }
//!     fn rtti_static() -> &'static RttiType {
//!         static RTTI: Lazy<RttiType> = Lazy::new(|| {
//!             RttiTypeBuilder::<Sensor>::new(200_100, "Sensor")
//!                 .default_constructor()
//!                 .plain(1, "name", |s| &s.name, |s| &mut s.name)
//!                 .plain_computed(2, "celsius", |s: &Sensor| s.kelvin - 273.15, |s: &mut Sensor, c: f64| s.kelvin = c + 273.15)
//!                 .build()
//!                 .expect("valid declaration")
//!         });
//!         &RTTI
//!     }
//! }
//! reflectable::register_type!(Sensor);
//!
//! let mut sensor = Sensor::default();
//! let celsius = Sensor::rtti_static().field(2).unwrap();
//! celsius.set(&mut sensor, 20.0f64).unwrap();
//! assert!((sensor.kelvin - 293.15).abs() < 1e-9);
//! assert!(reflectable::Registry::global().create_by_name("Sensor").is_some());
//! ```
//!
//! ## Enums, generic types and containers of objects
//!
//! Enums derive like structs: every variant and every variant field has an ID. Their RTTI lists
//! the variants, tells which one an object holds, and switches it. A generic type is a type per
//! instantiation (`Handle<Texture>` and `Handle<Mesh>`), each with its own ID: declared with
//! `register_type!(Handle<Texture>, id = N)`, or derived from the generic type's and the arguments'
//! IDs (see [`rtti::derived_instantiation_id`]). An instantiation a registered type holds in a
//! field is registered with it; one held only in `dyn` fields needs its own `register_type!`
//! (encoding refuses it until then, rather than have a reader drop it). Maps whose values are objects or pointers, and
//! nested lists of them, are fields like any other ([`containers`]).
//!
//! ```
//! use reflectable::{from_slice, to_vec, Reflectable};
//! use std::collections::HashMap;
//! use std::marker::PhantomData;
//! use std::rc::Rc;
//!
//! #[derive(Reflectable, Default, Debug, PartialEq)]
//! #[rtti(id = 200_200)]
//! enum LightKind {
//!     #[default]
//!     #[rtti(id = 1)]
//!     Directional,
//!     #[rtti(id = 2)]
//!     Spot {
//!         #[rtti(id = 1)]
//!         angle: f32,
//!         #[rtti(id = 2)]
//!         range: f32,
//!     },
//! }
//!
//! #[derive(Reflectable, Default)]
//! #[rtti(id = 200_201)]
//! struct Texture {
//!     #[rtti(id = 1)]
//!     path: String,
//! }
//!
//! /// A typed handle: `Handle<Texture>` is a type of its own.
//! #[derive(Reflectable, Default)]
//! #[rtti(id = 200_202)]
//! struct Handle<T: Default> {
//!     #[rtti(id = 1)]
//!     asset: u64,
//!     #[rtti(skip)]
//!     kind: PhantomData<T>,
//! }
//!
//! #[derive(Reflectable, Default)]
//! #[rtti(id = 200_203)]
//! struct Scene {
//!     #[rtti(id = 1, embedded)]
//!     sun: LightKind,
//!     #[rtti(id = 2, embedded)]
//!     sky: Handle<Texture>,
//!     #[rtti(id = 3)]
//!     textures: HashMap<String, Rc<Texture>>,
//!     #[rtti(id = 4)]
//!     layers: Vec<Vec<Rc<Texture>>>,
//! }
//!
//! let rtti = LightKind::rtti_static();
//! let mut sun = LightKind::Directional;
//! rtti.variant_by_name("Spot").unwrap().activate(&mut sun).unwrap();
//! rtti.fields_of(&sun)[1].set(&mut sun, 50.0f32).unwrap();
//! assert_eq!(sun, LightKind::Spot { angle: 0.0, range: 50.0 });
//! assert_eq!(Handle::<Texture>::rtti_static().name(), "Handle<Texture>");
//!
//! let grass = Rc::new(Texture { path: "grass.png".into() });
//! let scene = Scene {
//!     sun,
//!     sky: Handle { asset: 7, kind: PhantomData },
//!     textures: HashMap::from([("grass".to_string(), grass.clone())]),
//!     layers: vec![vec![grass.clone(), grass]],
//! };
//! let back: Scene = from_slice(&to_vec(&scene).unwrap()).unwrap();
//! assert_eq!(back.sun, LightKind::Spot { angle: 0.0, range: 50.0 });
//! assert_eq!(back.sky.asset, 7);
//! assert!(Rc::ptr_eq(&back.textures["grass"], &back.layers[0][1]));
//! ```
//!
//! ## Saving and loading
//!
//! The [`serializer`] writes whole object graphs in the self-describing format of `FORMAT.md`.
//! For the common case, [`to_vec`] / [`from_slice`] and [`save`] / [`load`] (atomic, with a
//! checksum) take an object, or the `Rc<RefCell<_>>`/`Arc` handle a root lives in. To configure a
//! registry, limits, checksums or hook contexts, a [`serializer::BinarySerializer`] holds them as
//! a value and writes to bytes, files, any `io::Write` or a fixed buffer with a flush callback,
//! and decodes into what the call names ([`serializer::DecodeTarget`]).
//!
//! ## Layout
//!
//! The modules stand on floors: each uses only modules on its own floor or below, and only the
//! type model's modules use each other in a cycle. `tests/floors.rs` checks this on every test
//! run, from the `crate::` paths in the code (a file's unit tests may use any module).
//!
//! | floor | modules | what |
//! |---|---|---|
//! | 0 | [`plain`], `fnv` | plain values: codecs, the bounds-checked [`plain::Reader`], signatures (split into parts, static sizes, names), the layouts of derived plain types, the compact element form; the FNV hash |
//! | 1 | [`field`], [`rtti`], [`containers`] | the type model: field descriptors (one implementation per kind, a shape described once, [`field::FieldError`]), the [`Reflectable`] trait, type descriptors and variants with what other modules attach to them ([`RttiTypeBuilder::data`]), the builder, migrations, generic instantiations, the [`Registry`], the one walk over an object's fields and the graph walks built on it, objects of types defined at run time and the fields an object keeps for a newer build ([`UnknownFields`]), lists and maps of objects |
//! | 2 | `wire` | the stream grammar of `FORMAT.md`: layouts and constants ([`serializer::format`]), type and field headers read in sequence (and written, by one writer), the one walk over an object's stream, the index of top-level objects, skipping, [`serializer::DecodeError`] and [`serializer::Limits`] |
//! | 3 | [`schema`] | schemas as values, fingerprints, the schema table, lossless conversions, schema comparison |
//! | 4 | [`runtime`] | defining types at run time ([`runtime::TypeDescription`]), and the types and fields kept from a stream's schema table |
//! | 5 | [`serializer`] | the binary format: the encoder, the decoder (with the drop of its result played through), the decode report, compact streams, external references, the serializer's options and decode targets, file saves and loads, atomic writes, one-call shortcuts |
//! | 6 | [`text`], [`dynamic`], `json` (feature `json`), [`clone`], [`diff`] | the tools: plain values as text and paths into graphs; graphs without their types; the JSON form; deep and shallow clones; deep equality, patches and their application |
//! | 7 | `__private` | what derived code and the crate's macros call |
//! | 8 | [`prelude`] | the one import most programs need (its macros stand on `__private`) |
//!
//! What only the derives and macros need lives in a hidden `__private` module
//! (`src/private.rs`): generated code reaches the crate only through it (the macros it invokes,
//! such as `register_trait_impl!`, name public items).

#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod clone;
pub mod containers;
pub mod diff;
pub mod dynamic;
pub mod field;
mod fnv;
#[cfg(feature = "json")]
#[cfg_attr(docsrs, doc(cfg(feature = "json")))]
pub mod json;
pub mod plain;
pub mod prelude;
pub mod rtti;
pub mod runtime;
pub mod schema;
pub mod serializer;
pub mod text;
mod wire;

pub use reflectable_derive::{PlainType, Reflectable};
pub use rtti::UnknownFields;
pub use rtti::{Reflectable, Registry, RttiType, RttiTypeBuilder};
pub use serializer::{from_slice, load, load_shared, save, save_subtree, to_vec, to_vec_subtree};

/// The README's and the guide's examples, run as doctests so they stay true.
#[cfg(doctest)]
mod guide_doctests {
    #[doc = include_str!("../README.md")]
    struct Readme;
    #[doc = include_str!("../docs/guide/types.md")]
    struct Types;
    #[doc = include_str!("../docs/guide/saving.md")]
    struct Saving;
    #[doc = include_str!("../docs/guide/versioning.md")]
    struct Versioning;
    #[doc = include_str!("../docs/guide/tools.md")]
    struct Tools;
    #[doc = include_str!("../docs/guide/files.md")]
    struct Files;
}

/// Re-exported for `#[derive(PlainType)]` with `pod`: derive `bytemuck::Pod` alongside.
pub use bytemuck;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;
