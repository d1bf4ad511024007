//! Schemas: what a type looks like on the wire, as plain values a program can print, compare and
//! save, like Banshee's `RTTISchema`.
//!
//! A [`TypeSchema`] describes one reflectable type: its ID, name, base type, and per field its ID,
//! name, wire shape, plain type *signature* (`[VEC, U32]` for `Vec<u32>`, see
//! [`PlainType::signature`](crate::plain::PlainType::signature)) and declared element type; for
//! enums, its variants and their fields. Every version 3 stream carries the schema of each type it
//! holds (its *schema table*, `FORMAT.md`), so a reader knows what a writer meant even for types
//! it lacks, and a decoder can tell a retyped field from an unchanged one instead of
//! reinterpreting its bytes.
//!
//! - [`Registry::schema`](crate::Registry::schema) is the schema of the running program;
//!   [`Schema::of_stream`] reads the one a stream was written with.
//! - [`Schema::compare`] lists what changed between two schemas and which changes lose data when
//!   old streams are read by the new program: a CI check for "this change breaks old saves".
//! - Each type's [`fingerprint`](TypeSchema::fingerprint) hashes what decoding depends on, so a
//!   decoder whose types match the stream's takes its usual path without comparing fields.
//!
//! ```
//! use reflectable::Reflectable;
//!
//! #[derive(Reflectable, Default)]
//! #[rtti(id = 9800)]
//! struct Door {
//!     #[rtti(id = 1)]
//!     open: bool,
//!     #[rtti(id = 2)]
//!     hinges: Vec<u16>,
//! }
//!
//! let schema = reflectable::schema::TypeSchema::of(Door::rtti_static());
//! assert_eq!(schema.fields[1].name, "hinges");
//! assert_eq!(schema.fields[1].type_description(), "[u16]");
//!
//! let bytes = reflectable::to_vec(&Door::default()).unwrap();
//! let stored = reflectable::schema::Schema::of_stream(&bytes).unwrap();
//! assert_eq!(stored.get(9800), Some(&schema));
//! ```

mod changes;
pub(crate) mod convert;
mod fingerprint;
pub(crate) mod fingerprint_table;
mod reflect;
pub(crate) mod table;

pub use crate::plain::signature::describe_signature;
pub use changes::{Change, ChangeKind};
pub(crate) use fingerprint::fingerprint;

use crate::containers::{MAP_KEYS_FIELD_ID, MAP_TYPE_ID};
use crate::field::{Declared, ElemShape, FieldAccess, RttiField, WireShape};
use crate::rtti::RttiType;
use crate::wire::error::DecodeError;
use std::fmt;

/// The schemas of a set of types, sorted by type ID. Reflectable (a built-in type): save it with
/// [`to_vec`](crate::to_vec), load it with [`from_slice`](crate::from_slice).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Schema {
    /// One entry per type, in ascending type ID order.
    pub types: Vec<TypeSchema>,
}

/// What one type looks like on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TypeSchema {
    /// The type ID.
    pub id: u32,
    /// The type's name.
    pub name: String,
    /// The base type's ID, for a type that embeds a base.
    pub base: Option<u32>,
    /// `true` for a reflectable enum (its fields are in [`variants`](Self::variants)).
    pub is_enum: bool,
    /// `true` for an abstract type (no constructor).
    pub is_abstract: bool,
    /// The fields, in declaration order (none for an enum).
    pub fields: Vec<FieldSchema>,
    /// The variants of an enum, in declaration order.
    pub variants: Vec<VariantSchema>,
    /// Hash of what decoding depends on (`FORMAT.md`, "Fingerprints").
    pub fingerprint: u64,
}

/// One variant of an enum.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VariantSchema {
    /// The variant ID (the stream's variant tag).
    pub id: u32,
    /// The variant's name.
    pub name: String,
    /// Its fields.
    pub fields: Vec<FieldSchema>,
}

/// One field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldSchema {
    /// The field ID.
    pub id: u16,
    /// The field's name.
    pub name: String,
    /// What the field header records: kind, array, static size.
    pub shape: WireShape,
    /// For a plain field, the signature of its element type; for a map field (of objects or
    /// pointers), its key type's; empty otherwise.
    pub signature: Vec<u32>,
    /// For an embedded or pointer field, what its elements are declared to be.
    pub declared: Option<DeclaredSchema>,
    /// `true` for `Weak` pointers.
    pub weak: bool,
    /// `true` for the field that identifies its type's objects (`#[rtti(id = N, identity)]`):
    /// recorded by version 5 streams only, which is what lets a tool without the program align
    /// objects across files by it.
    pub identity: bool,
}

/// What an embedded or pointer field declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeclaredSchema {
    /// Exactly the type with this ID (or one derived from it, for pointers).
    Type(u32),
    /// Any type registered as implementing the named trait.
    Trait(String),
}

impl Schema {
    /// The schema a stream was written with: every type it holds, as its writer described them.
    /// A stream older than version 3, or one that lists its types' fingerprints only
    /// ([`SchemaTable::Fingerprints`](crate::serializer::SchemaTable::Fingerprints)), has no schema
    /// table: [`DecodeErrorKind::NoSchema`](crate::serializer::DecodeErrorKind::NoSchema).
    pub fn of_stream(bytes: &[u8]) -> Result<Schema, DecodeError> {
        table::stored_schema(bytes)
    }

    /// How many bytes of a stream its schema table (or fingerprint table) takes; 0 for a stream
    /// before version 3: what describing its types costs.
    ///
    /// ```
    /// # use reflectable::Reflectable;
    /// # #[derive(Reflectable, Default)]
    /// # #[rtti(id = 9830)]
    /// # struct Door { #[rtti(id = 1)] open: bool }
    /// let bytes = reflectable::to_vec(&Door::default()).unwrap();
    /// let table = reflectable::schema::Schema::size_in_stream(&bytes).unwrap();
    /// assert!(table > 0 && table < bytes.len());
    /// ```
    pub fn size_in_stream(bytes: &[u8]) -> Result<usize, DecodeError> {
        table::table_size(bytes)
    }

    /// A schema of `types` (sorted by ID here; a type listed twice is kept once).
    pub fn new(mut types: Vec<TypeSchema>) -> Self {
        types.sort_by_key(|schema| schema.id);
        types.dedup_by_key(|schema| schema.id);
        Schema { types }
    }

    /// The schema of the type with ID `id`.
    pub fn get(&self, id: u32) -> Option<&TypeSchema> {
        self.types.binary_search_by_key(&id, |schema| schema.id).ok().map(|index| &self.types[index])
    }

    /// The schema of the type named `name`.
    pub fn by_name(&self, name: &str) -> Option<&TypeSchema> {
        self.types.iter().find(|schema| schema.name == name)
    }
}

impl TypeSchema {
    /// The schema of a running type.
    pub fn of(rtti: &'static RttiType) -> Self {
        TypeSchema {
            id: rtti.id(),
            name: rtti.name().to_owned(),
            base: rtti.base().map(RttiType::id),
            is_enum: rtti.is_enum(),
            is_abstract: rtti.is_abstract(),
            fields: rtti
                .fields()
                .iter()
                .map(|field| FieldSchema {
                    identity: rtti.own_identity().is_some_and(|identity| std::ptr::eq(identity, field)),
                    ..FieldSchema::of(field)
                })
                .collect(),
            variants: rtti
                .variants()
                .iter()
                .map(|variant| VariantSchema {
                    id: variant.id(),
                    name: variant.name().to_owned(),
                    fields: variant.fields().iter().map(FieldSchema::of).collect(),
                })
                .collect(),
            fingerprint: fingerprint(rtti),
        }
    }

    /// The field with ID `id` (of the type, or for an enum of the variant `variant`).
    pub fn field(&self, variant: Option<u32>, id: u16) -> Option<&FieldSchema> {
        self.fields_of(variant).iter().find(|field| field.id == id)
    }

    /// The fields of the type, or of one of its variants.
    pub fn fields_of(&self, variant: Option<u32>) -> &[FieldSchema] {
        match variant {
            None => &self.fields,
            Some(id) => self.variant(id).map_or(&[], |variant| &variant.fields),
        }
    }

    /// The variant with ID `id`.
    pub fn variant(&self, id: u32) -> Option<&VariantSchema> {
        self.variants.iter().find(|variant| variant.id == id)
    }
}

/// The signature a schema records for `field`: its plain element type's; for a map field (an
/// embedded map object, see `containers`), its key type's, since the map object has no table
/// entry of its own; empty for other fields, and for a signature longer than a table holds
/// ([`MAX_SIGNATURE_LEN`](crate::plain::signature::MAX_SIGNATURE_LEN) words), which is then matched by shape.
pub(crate) fn field_signature(field: &RttiField, out: &mut Vec<u32>) {
    let start = out.len();
    match (field.access(), field.shape().elem) {
        (FieldAccess::Plain(access), _) => access.signature(out),
        (_, ElemShape::Embedded(Declared::Type(map))) if field.is_map() => {
            if let Some(FieldAccess::Plain(keys)) = map().field(MAP_KEYS_FIELD_ID).map(RttiField::access) {
                keys.signature(out);
            }
        }
        _ => {}
    }
    if out.len() - start > crate::plain::signature::MAX_SIGNATURE_LEN {
        out.truncate(start);
    }
}

impl FieldSchema {
    /// The schema of a running field.
    pub fn of(field: &RttiField) -> Self {
        let mut signature = Vec::new();
        field_signature(field, &mut signature);
        let (declared, weak) = match field.shape().elem {
            ElemShape::Plain(_) => (None, false),
            ElemShape::Embedded(declared) => (Some(DeclaredSchema::of(declared)), false),
            ElemShape::Pointer { declared, weak, .. } => (Some(DeclaredSchema::of(declared)), weak),
        };
        FieldSchema {
            id: field.id(),
            name: field.name().to_owned(),
            shape: field.wire_shape(),
            signature,
            declared,
            weak,
            identity: false,
        }
    }

    /// The field's type in words: `u32`, `[u16]` for an array field, `Option<String>`,
    /// `Rc -> 540001`, `[embedded dyn Component]`.
    pub fn type_description(&self) -> String {
        let elem = match (&self.declared, self.shape.kind) {
            (_, crate::field::WireKind::Plain(_)) => describe_signature(&self.signature),
            (Some(declared), crate::field::WireKind::Pointer) => {
                format!("{} {declared}", if self.weak { "weak" } else { "pointer" })
            }
            (Some(DeclaredSchema::Type(MAP_TYPE_ID)), _) => match self.signature.is_empty() {
                true => "map".to_owned(),
                false => format!("map with {} keys", describe_signature(&self.signature)),
            },
            (Some(declared), _) => format!("embedded {declared}"),
            (None, _) => "?".to_owned(),
        };
        if self.shape.array {
            format!("[{elem}]")
        } else {
            elem
        }
    }
}

impl DeclaredSchema {
    fn of(declared: Declared) -> Self {
        match declared {
            Declared::Type(rtti) => DeclaredSchema::Type(rtti().id()),
            Declared::Trait(name) => DeclaredSchema::Trait(name.to_owned()),
        }
    }
}

impl fmt::Display for DeclaredSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeclaredSchema::Type(id) => write!(f, "type {id}"),
            DeclaredSchema::Trait(name) => write!(f, "dyn {name}"),
        }
    }
}

impl fmt::Display for TypeSchema {
    /// One line for the type, then one per field (variants indented under the type).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (id {}", self.name, self.id)?;
        if let Some(base) = self.base {
            write!(f, ", base {base}")?;
        }
        if self.is_abstract {
            write!(f, ", abstract")?;
        }
        writeln!(f, ", fingerprint {:016x})", self.fingerprint)?;
        let field_lines = |f: &mut fmt::Formatter<'_>, fields: &[FieldSchema], indent: &str| {
            fields.iter().try_for_each(|field| {
                writeln!(f, "{indent}{:>5}  {}: {}", field.id, field.name, field.type_description())
            })
        };
        field_lines(f, &self.fields, "  ")?;
        for variant in &self.variants {
            writeln!(f, "  variant {} {}", variant.id, variant.name)?;
            field_lines(f, &variant.fields, "    ")?;
        }
        Ok(())
    }
}

impl fmt::Display for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.types.iter().try_for_each(|schema| write!(f, "{schema}"))
    }
}
