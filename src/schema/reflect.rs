//! The schema types are reflectable, like Banshee's `RTTISchema`: a schema saves and loads with
//! the serializer (`reflectable::to_vec(&registry.schema())`), and a tool walks it like any
//! other object. They are built-in types, as lists and maps are: their IDs are in the format's
//! reserved range, and a decoder takes them from the fields and roots that declare them.

use super::{DeclaredSchema, FieldSchema, Schema, TypeSchema, VariantSchema};
use crate::field::{WireKind, WireShape};
use crate::rtti::RttiTypeBuilder;
use crate::wire::format::FieldHeader;

use crate::rtti::reserved::{FIELD_SCHEMA_TYPE_ID, SCHEMA_TYPE_ID, TYPE_SCHEMA_TYPE_ID, VARIANT_SCHEMA_TYPE_ID};

crate::rtti::built_in_reflectable!(Schema, || {
    RttiTypeBuilder::<Schema>::built_in(SCHEMA_TYPE_ID, "Schema")
        .default_constructor()
        .embedded_array::<Vec<TypeSchema>>(1, "types", |s| &s.types, |s| &mut s.types)
        .build()
});

crate::rtti::built_in_reflectable!(TypeSchema, || {
    RttiTypeBuilder::<TypeSchema>::built_in(TYPE_SCHEMA_TYPE_ID, "TypeSchema")
        .default_constructor()
        .plain::<u32>(1, "id", |s| &s.id, |s| &mut s.id)
        .plain::<String>(2, "name", |s| &s.name, |s| &mut s.name)
        .plain::<Option<u32>>(3, "base", |s| &s.base, |s| &mut s.base)
        .plain::<bool>(4, "is_enum", |s| &s.is_enum, |s| &mut s.is_enum)
        .plain::<bool>(5, "is_abstract", |s| &s.is_abstract, |s| &mut s.is_abstract)
        .embedded_array::<Vec<FieldSchema>>(6, "fields", |s| &s.fields, |s| &mut s.fields)
        .embedded_array::<Vec<VariantSchema>>(7, "variants", |s| &s.variants, |s| &mut s.variants)
        .plain::<u64>(8, "fingerprint", |s| &s.fingerprint, |s| &mut s.fingerprint)
        .build()
});

crate::rtti::built_in_reflectable!(VariantSchema, || {
    RttiTypeBuilder::<VariantSchema>::built_in(VARIANT_SCHEMA_TYPE_ID, "VariantSchema")
        .default_constructor()
        .plain::<u32>(1, "id", |s| &s.id, |s| &mut s.id)
        .plain::<String>(2, "name", |s| &s.name, |s| &mut s.name)
        .embedded_array::<Vec<FieldSchema>>(3, "fields", |s| &s.fields, |s| &mut s.fields)
        .build()
});

crate::rtti::built_in_reflectable!(FieldSchema, || {
    RttiTypeBuilder::<FieldSchema>::built_in(FIELD_SCHEMA_TYPE_ID, "FieldSchema")
        .default_constructor()
        .plain::<u16>(1, "id", |s| &s.id, |s| &mut s.id)
        .plain::<String>(2, "name", |s| &s.name, |s| &mut s.name)
        // The shape as the field header word with ID 0; a word that is no field header leaves
        // the default shape.
        .plain_computed::<u32>(
            3,
            "shape",
            |s| FieldHeader { id: 0, shape: s.shape }.pack(),
            |s, word| {
                if let Ok(Some(header)) = FieldHeader::unpack(word & !crate::wire::format::OBJECT_BIT) {
                    s.shape = header.shape;
                }
            },
        )
        .plain_array::<Vec<u32>>(4, "signature", |s| &s.signature, |s| &mut s.signature)
        // What the elements are declared to be: (0 none | 1 type | 2 trait, type ID, trait name).
        .plain_computed::<(u8, u32, String)>(
            5,
            "declared",
            |s| match &s.declared {
                None => (0, 0, String::new()),
                Some(DeclaredSchema::Type(id)) => (1, *id, String::new()),
                Some(DeclaredSchema::Trait(name)) => (2, 0, name.clone()),
            },
            |s, (kind, id, name)| {
                s.declared = match kind {
                    1 => Some(DeclaredSchema::Type(id)),
                    2 => Some(DeclaredSchema::Trait(name)),
                    _ => None,
                }
            },
        )
        .plain::<bool>(6, "weak", |s| &s.weak, |s| &mut s.weak)
        .plain::<bool>(7, "identity", |s| &s.identity, |s| &mut s.identity)
        .build()
});

impl Default for FieldSchema {
    fn default() -> Self {
        FieldSchema {
            id: 0,
            name: String::new(),
            shape: WireShape { kind: WireKind::Plain(Some(0)), array: false },
            signature: Vec::new(),
            declared: None,
            weak: false,
            identity: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Registry;

    #[test]
    fn a_schema_saves_and_loads_as_it_was() {
        use crate::Reflectable;
        // The schema of the schema types themselves: fields of every kind, a variant-free enum.
        let schema = Schema::new(
            [Schema::rtti_static(), TypeSchema::rtti_static(), FieldSchema::rtti_static()]
                .into_iter()
                .map(TypeSchema::of)
                .chain(Registry::global().schema().types)
                .collect(),
        );
        assert!(!schema.types.is_empty());
        let bytes = crate::to_vec(&schema).unwrap();
        let back: Schema = crate::from_slice(&bytes).unwrap();
        assert_eq!(back, schema);
        // The schema types describe themselves in the table like any type.
        let stored = super::super::Schema::of_stream(&bytes).unwrap();
        assert!(stored.get(FIELD_SCHEMA_TYPE_ID).is_some_and(|field| field.name == "FieldSchema"));
    }
}
