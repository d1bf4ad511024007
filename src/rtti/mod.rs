//! Run-time type information: the [`Reflectable`] trait, the [`RttiType`] descriptor, the
//! [`RttiTypeBuilder`] and the [`Registry`]. Banshee's free functions are methods here:
//! `rtti_create` is [`Registry::create`], and `rtti_is_of_type`, `rtti_is_subclass` and
//! `rtti_cast` are `is`, `is_subclass_of` and `cast` on
//! [`dyn Reflectable`](Reflectable#impl-dyn+Reflectable).
//!
//! Rust has no inheritance, so a derived type embeds its base as a designated member; the
//! descriptor records the chain and `cast` walks it.

mod asset;
mod builder;
mod field_table;
pub(crate) mod generic;
pub(crate) mod graph;
pub(crate) mod identity;
pub(crate) mod lifecycle;
mod migration;
mod reflectable;
pub(crate) mod registry;
pub(crate) mod reserved;
mod root;
mod rtti_type;
pub(crate) mod runtime_object;
mod type_data;
mod type_set;
mod unknown_fields;
mod variant;
pub(crate) mod visit;
mod walker;

pub(crate) use asset::can_be_key;
pub use asset::AssetKey;
pub use builder::RttiTypeBuilder;
pub(crate) use field_table::FieldTable;
pub(crate) use generic::generic_rtti;
pub use generic::{derived_instantiation_id, TypeArgument, DERIVED_ID_BIT};
pub use graph::{break_cycles, clear_pointers, reachable_shared};
pub use migration::Migration;
pub(crate) use reflectable::built_in_reflectable;
pub use reflectable::{AsReflectable, Reflectable};
pub use registry::Registry;
pub use root::{AsRoot, Root};
pub use rtti_type::RttiType;
pub(crate) use type_data::TypeData;
pub(crate) use type_set::TypeSet;
pub use unknown_fields::UnknownFields;
pub use variant::RttiVariant;
pub use walker::{FieldPath, Flow, GraphWalker, PathStep, PathView, Visit, WalkError};

use std::any::Any;
use thiserror::Error;

/// Serialization hooks a derived type can implement; `#[rtti(hooks)]` wires them into the
/// descriptor. `context` is what the caller handed the serializer (`&mut ()` when nothing).
///
/// ```
/// use reflectable::rtti::RttiHooks;
/// use reflectable::Reflectable;
/// # use reflectable::serializer::BinarySerializer;
/// # use std::any::Any;
/// # use std::cell::RefCell;
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9_970_015, hooks)]
/// struct Inventory {
///     #[rtti(id = 1)]
///     items: Vec<String>,
///     #[rtti(skip)]
///     count: usize, // not stored: rebuilt on load
/// }
///
/// impl RttiHooks for Inventory {
///     fn on_deserialization_ended(&mut self, context: &mut dyn Any) {
///         self.count = self.items.len();
///         if let Some(loaded) = context.downcast_mut::<u32>() {
///             *loaded += 1;
///         }
///     }
/// }
///
/// let bytes = reflectable::to_vec(&Inventory { items: vec!["rope".into(), "lamp".into()], count: 2 }).unwrap();
/// let loaded = RefCell::new(0u32);
/// let back: Inventory = BinarySerializer::new().context(&loaded).decode(&bytes).unwrap();
/// assert_eq!((back.count, loaded.into_inner()), (2, 1));
/// ```
pub trait RttiHooks {
    /// Before the object is encoded.
    fn on_serialization_started(&self, _context: &mut dyn Any) {}
    /// After the object is encoded.
    fn on_serialization_ended(&self, _context: &mut dyn Any) {}
    /// On a fresh object, before its fields are decoded.
    fn on_deserialization_started(&mut self, _context: &mut dyn Any) {}
    /// After the object and everything it points at are decoded (bases before derived).
    fn on_deserialization_ended(&mut self, _context: &mut dyn Any) {}
}

pub use reserved::NULL_TYPE_ID;

/// The field ID an enum's stream uses for its variant tag (`FORMAT.md`); no field of a variant
/// may have it.
pub const VARIANT_TAG_FIELD_ID: u16 = 0;

/// A type declaration is invalid, or conflicts with another.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RttiError {
    /// Type ID 0 is reserved: streams use it for an empty slot (see `FORMAT.md`).
    #[error("type `{type_name}` has type ID 0, which is reserved for the null type; pick another ID")]
    ReservedTypeId {
        /// The type's name.
        type_name: String,
    },
    /// Two types share a numeric ID.
    #[error("type ID {id} is used by both `{first}` and `{second}`")]
    DuplicateTypeId {
        /// The shared ID.
        id: u32,
        /// Rust name of the type registered first.
        first: String,
        /// Rust name of the type registered second.
        second: String,
    },
    /// Two types share a name.
    #[error("type name `{name}` is used by both type ID {first} and type ID {second}")]
    DuplicateTypeName {
        /// The shared name.
        name: String,
        /// ID of the type registered first.
        first: u32,
        /// ID of the type registered second.
        second: u32,
    },
    /// Two fields of one type share an ID.
    #[error("type `{type_name}`: field ID {id} is used by both `{first}` and `{second}`")]
    DuplicateFieldId {
        /// The type.
        type_name: String,
        /// The shared field ID.
        id: u16,
        /// Name of the first field.
        first: String,
        /// Name of the second field.
        second: String,
    },
    /// Two fields of one type share a name.
    #[error("type `{type_name}`: field name `{name}` is used by both field ID {first} and field ID {second}")]
    DuplicateFieldName {
        /// The type.
        type_name: String,
        /// The shared name.
        name: String,
        /// ID of the first field.
        first: u16,
        /// ID of the second field.
        second: u16,
    },
    /// A type declares an ID from the range the format keeps for its built-in types.
    #[error(
        "type `{type_name}` has type ID {id:#x}; IDs from 0xFFFF_FF00 up are reserved for the format's built-in types"
    )]
    BuiltInTypeId {
        /// The type's name.
        type_name: String,
        /// Its ID.
        id: u32,
    },
    /// The asset key a type names is not one of its own fields, or not a single `u64`, `u128`
    /// or `String`.
    #[error(
        "`{type_name}`: the asset key, field {field_id}, must be a field of the type itself holding a single u64, u128 or String"
    )]
    BadAssetKey {
        /// The type's name.
        type_name: String,
        /// The field ID named as the key.
        field_id: u16,
    },
    /// The identity a type names is not one of its own fields, or not a single plain value of a
    /// fixed size of at most 16 bytes.
    #[error(
        "`{type_name}`: the identity, field {field_id}, must be a field of the type itself holding a single plain value of a fixed size of at most 16 bytes (a u64, a u128, a [u8; 16])"
    )]
    BadIdentity {
        /// The type's name.
        type_name: String,
        /// The field ID named as the identity.
        field_id: u16,
    },
    /// A field of an enum's variant has ID 0, which the variant tag uses.
    #[error(
        "`{type_name}`: field `{field}` has ID 0, which an enum's stream uses for its variant tag; pick another ID"
    )]
    ReservedFieldId {
        /// The enum and variant.
        type_name: String,
        /// The field.
        field: String,
    },
    /// Two variants of an enum share an ID or a name.
    #[error("enum `{type_name}`: variant {what}")]
    DuplicateVariant {
        /// The enum.
        type_name: String,
        /// What is shared, by which variants.
        what: String,
    },
    /// Variants were declared without saying how to tell which one an object holds.
    #[error("type `{type_name}` declares variants but no `variants(...)` function telling which one an object holds")]
    NotAnEnum {
        /// The type.
        type_name: String,
    },
    /// An enum declared fields outside its variants, a base, or field migrations.
    #[error("enum `{type_name}` has fields outside its variants, a base or field migrations; an enum's fields belong to its variants (use `migrate_variant` for a variant it no longer has)")]
    EnumWithFields {
        /// The enum.
        type_name: String,
    },
    /// A plain field's static size exceeds the field header's 8-bit size.
    #[error("type `{type_name}`: plain field `{field}` has a static size of {size} bytes; above 255 the plain type must declare a dynamic size")]
    StaticSizeTooLarge {
        /// The type.
        type_name: String,
        /// The field.
        field: String,
        /// Its static size.
        size: u32,
    },
    /// A type defined at run time names an abstract base: its objects could not embed one.
    #[error("type `{type_name}` derives from `{base}`, which is abstract: a runtime-defined type embeds an instance of its base")]
    AbstractBase {
        /// The type being defined.
        type_name: String,
        /// The base.
        base: String,
    },
    /// An enum declares an [`UnknownFields`] member: unknown fields are kept
    /// per struct, not per variant.
    #[error("enum `{type_name}` cannot keep unknown fields: only a struct may have an `#[rtti(unknown)]` member")]
    UnknownFieldsInEnum {
        /// The enum's name.
        type_name: String,
    },
}
