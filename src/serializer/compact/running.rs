//! The layouts of a compact stream that lists its types' fingerprints instead of describing them
//! (`SchemaTable::Fingerprints`, the no-schema variant): the reader's own types stand in for the
//! schema table, once every listed fingerprint is checked against them.

use crate::field::{Declared, ElemShape};
use crate::rtti::{Registry, RttiType};
use crate::schema::fingerprint;
use crate::schema::fingerprint_table::{mismatch, FingerprintTable};
use crate::schema::table::write_table;
use crate::wire::error::DecodeError;
use ahash::AHashMap;

/// The schema table the listed types would have had: each one's running entry, in the listed
/// order. A listed type the reader lacks, or has with another fingerprint, is
/// `FingerprintMismatch` at its entry, before any object is read: without descriptions, a compact
/// object can only be walked by the writer's own layout.
pub(super) fn running_table(listed: &FingerprintTable, registry: &Registry) -> Result<Vec<u8>, DecodeError> {
    let mut declared: Option<AHashMap<u32, &'static RttiType>> = None;
    let mut types = Vec::with_capacity(listed.entries().len());
    for entry in listed.entries() {
        // A listed type may be one only a field declares (an unregistered generic
        // instantiation): the registry's declared types are gathered once, if needed.
        let rtti = registry
            .get(entry.type_id)
            .or_else(|| declared.get_or_insert_with(|| declared_types(registry)).get(&entry.type_id).copied());
        match rtti {
            Some(rtti) if fingerprint(rtti) == entry.fingerprint => types.push(rtti),
            _ => return Err(mismatch(entry.type_id, entry.fingerprint, rtti, entry.offset)),
        }
    }
    let mut table = Vec::new();
    write_table(&types, &[], &mut table);
    Ok(table)
}

/// Every type the registry's types reach through their bases and their fields' declared types.
fn declared_types(registry: &Registry) -> AHashMap<u32, &'static RttiType> {
    let mut found: AHashMap<u32, &'static RttiType> = AHashMap::new();
    let mut queue: Vec<&'static RttiType> = registry.types().collect();
    while let Some(rtti) = queue.pop() {
        if found.insert(rtti.id(), rtti).is_some() {
            continue;
        }
        queue.extend(rtti.base());
        let fields = rtti.fields().iter().chain(rtti.variants().iter().flat_map(|variant| variant.fields()));
        for field in fields {
            if let ElemShape::Embedded(Declared::Type(declared))
            | ElemShape::Pointer { declared: Declared::Type(declared), .. } = field.shape().elem
            {
                queue.push(declared());
            }
        }
    }
    found
}
