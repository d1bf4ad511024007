//! The layouts of a compact stream that lists its types' fingerprints instead of describing them
//! (`SchemaTable::Fingerprints`, the no-schema variant): the reader's own types stand in for the
//! schema table, once every listed fingerprint is checked against them.

use crate::rtti::Registry;
use crate::schema::fingerprint;
use crate::schema::fingerprint_table::{mismatch, FingerprintTable};
use crate::schema::table::write_table;
use crate::wire::error::DecodeError;
use crate::wire::format::NEWEST_VERSION;

/// The schema table the listed types would have had: each one's running entry, in the listed
/// order. A listed type the reader lacks, or has with another fingerprint, is
/// `FingerprintMismatch` at its entry, before any object is read: without descriptions, a compact
/// object can only be walked by the writer's own layout.
pub(super) fn running_table(listed: &FingerprintTable, registry: &Registry) -> Result<Vec<u8>, DecodeError> {
    let mut types = Vec::with_capacity(listed.entries().len());
    for entry in listed.entries() {
        // The registry holds the types its types hold too (generic instantiations).
        let rtti = registry.get(entry.type_id);
        match rtti {
            Some(rtti) if fingerprint(rtti) == entry.fingerprint => types.push(rtti),
            _ => return Err(mismatch(entry.type_id, entry.fingerprint, rtti, entry.offset)),
        }
    }
    let mut table = Vec::new();
    // Read here, never written: the entries as the newest version has them.
    write_table(&types, &[], NEWEST_VERSION, &mut table);
    Ok(table)
}
