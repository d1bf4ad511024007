//! The fingerprint table: what a stream written for a reader built with the same types holds in
//! place of its schema table (`SchemaTable::Fingerprints`, `FORMAT.md` "Fingerprint table"). It
//! names each type the stream holds by ID and fingerprint, and describes none: a reader checks
//! every entry against its own types before it reads an object, and refuses the stream when a
//! type is missing or differs, instead of reading fields by ID into types that changed.
//!
//! ```text
//! fingerprint-table = FINGERPRINT_MARK count:u32 (type-id:u32 fingerprint:u64){count} table-length:u32
//! ```

use super::fingerprint;
use super::table::table_body;
use crate::rtti::{Registry, RttiType};
use crate::wire::error::{corrupt, DecodeError, DecodeErrorKind};
use crate::wire::format::FINGERPRINT_MARK;

/// Bytes of one entry: type ID and fingerprint.
const ENTRY_SIZE: usize = 4 + 8;

/// Appends the fingerprint table of `types`, in that order.
pub(crate) fn write_fingerprint_table(types: impl ExactSizeIterator<Item = (u32, u64)>, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&FINGERPRINT_MARK.to_le_bytes());
    out.extend_from_slice(&(types.len() as u32).to_le_bytes());
    for (type_id, fingerprint) in types {
        out.extend_from_slice(&type_id.to_le_bytes());
        out.extend_from_slice(&fingerprint.to_le_bytes());
    }
    let length = (out.len() - start + 4) as u32;
    out.extend_from_slice(&length.to_le_bytes());
}

/// The entries of the fingerprint table of `types`.
pub(crate) fn running_fingerprints<'a>(
    types: &'a [&'static RttiType],
) -> impl ExactSizeIterator<Item = (u32, u64)> + 'a {
    types.iter().map(|&rtti| (rtti.id(), fingerprint(rtti)))
}

/// One entry: a type the stream holds, its fingerprint, and where the entry starts in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FingerprintEntry {
    pub(crate) type_id: u32,
    pub(crate) fingerprint: u64,
    pub(crate) offset: usize,
}

/// A stream's fingerprint table, read and checked for form (not yet against any types).
pub(crate) struct FingerprintTable {
    entries: Vec<FingerprintEntry>,
}

impl FingerprintTable {
    /// Reads the table at `input[start..end]` (`end` is where the trailer starts): its mark, a
    /// count the table's length agrees with, and each type once.
    pub(crate) fn read(input: &[u8], start: usize, end: usize) -> Result<Self, DecodeError> {
        let not_marked = "the fingerprint table does not start with its mark";
        let mut body = table_body(input, start, end, FINGERPRINT_MARK, not_marked)?;
        let count = body.read_count(ENTRY_SIZE)?;
        let mut entries = Vec::with_capacity(count);
        for _ in 0..count {
            let offset = body.offset();
            let type_id = body.read_u32()?;
            let fingerprint = u64::from_le_bytes(body.take_array()?);
            entries.push(FingerprintEntry { type_id, fingerprint, offset });
        }
        body.expect_end()?;
        let mut sorted = entries.clone();
        sorted.sort_unstable_by_key(|entry| (entry.type_id, entry.offset));
        if let Some(pair) = sorted.windows(2).find(|pair| pair[0].type_id == pair[1].type_id) {
            return Err(corrupt(pair[1].offset, "the fingerprint table lists a type twice"));
        }
        Ok(FingerprintTable { entries })
    }

    /// The entries, in the table's order.
    pub(crate) fn entries(&self) -> &[FingerprintEntry] {
        &self.entries
    }

    /// Fails, at the first entry that does not match, unless every listed type `registry` has
    /// has the listed fingerprint. A type the registry lacks may still be one a field declares
    /// (an unregistered generic instantiation): the decoder checks it where it meets its
    /// objects, and refuses them if it cannot build them.
    pub(crate) fn check(&self, registry: &Registry) -> Result<(), DecodeError> {
        for entry in &self.entries {
            let Some(rtti) = registry.get(entry.type_id) else { continue };
            if fingerprint(rtti) != entry.fingerprint {
                return Err(mismatch(entry.type_id, entry.fingerprint, Some(rtti), entry.offset));
            }
        }
        Ok(())
    }
}

/// The error at `offset` for type `type_id`, listed with fingerprint `recorded`, whose running
/// type (`None`: the reader lacks it) has another.
pub(crate) fn mismatch(type_id: u32, recorded: u64, running: Option<&'static RttiType>, offset: usize) -> DecodeError {
    let kind = DecodeErrorKind::FingerprintMismatch {
        type_id,
        type_name: running.map(|rtti| rtti.name().to_owned()),
        recorded,
        running: running.map(fingerprint),
    };
    DecodeError::new(kind, offset)
}
