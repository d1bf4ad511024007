//! Type fingerprints: a 64-bit hash of everything a decoder's reading of a type's sections depends
//! on, so that a reader whose type hashes the same as the stream's takes its usual path without
//! comparing fields one by one (`FORMAT.md`, "Fingerprints").
//!
//! What goes in, for the type and then for every type it embeds by value (declared embedded
//! element types, transitively, each once, in the order first met): the type ID, whether it is an
//! enum or abstract, its base type's ID, and per field its ID and wire shape (the field header
//! word), whether it is a `Weak` pointer, its plain signature, and its declared element type (ID
//! or trait name); for an enum the same per variant, after the variant's ID. Names are left out:
//! renaming a field changes nothing a decoder does.

use super::field_signature;
use crate::field::{Declared, ElemShape, RttiField};
use crate::fnv::Fnv64;
use crate::rtti::RttiType;
use crate::wire::format::FieldHeader;

/// The fingerprint of `rtti` (computed once per type, then cached in it).
pub(crate) fn fingerprint(rtti: &'static RttiType) -> u64 {
    *rtti.schema_cache().fingerprint.get_or_init(|| compute(rtti))
}

fn compute(rtti: &'static RttiType) -> u64 {
    let mut fnv = Fnv64::new();
    let mut types = vec![rtti];
    let mut next = 0;
    while let Some(&rtti) = types.get(next) {
        next += 1;
        let mut embedded = Vec::new();
        type_words(rtti, &mut fnv, &mut embedded);
        for found in embedded {
            if !types.iter().any(|known| std::ptr::eq(*known, found)) {
                types.push(found);
            }
        }
    }
    fnv.finish()
}

fn type_words(rtti: &'static RttiType, fnv: &mut Fnv64, embedded: &mut Vec<&'static RttiType>) {
    fnv.word(rtti.id());
    fnv.word(u32::from(rtti.is_enum()) | u32::from(rtti.is_abstract()) << 1);
    fnv.word(rtti.base().map_or(0, RttiType::id));
    fields_words(rtti.fields(), fnv, embedded);
    fnv.word(rtti.variants().len() as u32);
    for variant in rtti.variants() {
        fnv.word(variant.id());
        fields_words(variant.fields(), fnv, embedded);
    }
}

fn fields_words(fields: &[RttiField], fnv: &mut Fnv64, embedded: &mut Vec<&'static RttiType>) {
    fnv.word(fields.len() as u32);
    let mut signature = Vec::new();
    for field in fields {
        fnv.word(FieldHeader::of(field).pack());
        signature.clear();
        field_signature(field, &mut signature);
        fnv.word(signature.len() as u32);
        signature.iter().for_each(|&word| fnv.word(word));
        let (declared, weak) = match field.shape().elem {
            ElemShape::Plain(_) => (None, false),
            ElemShape::Embedded(declared) => (Some(declared), false),
            ElemShape::Pointer { declared, weak, .. } => (Some(declared), weak),
        };
        fnv.word(u32::from(weak));
        match declared {
            None => fnv.word(0),
            Some(Declared::Type(rtti)) => {
                fnv.word(1);
                fnv.word(rtti().id());
                if matches!(field.shape().elem, ElemShape::Embedded(_)) {
                    embedded.push(rtti());
                }
            }
            Some(Declared::Trait(name)) => {
                fnv.word(2);
                fnv.word(name.len() as u32);
                fnv.bytes(name.as_bytes());
            }
        }
    }
}
