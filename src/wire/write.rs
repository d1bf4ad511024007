//! The grammar's writer, beside its reader (`wire/mod.rs`): the stream header and trailer, and
//! the words every stream writer puts down (type headers, field headers, the terminator, a
//! variant tag, an empty slot), written one way for the encoder, the dynamic graph's encoder and
//! the compact-to-normal transcoder alike. Each writes into its own buffer (a `Vec`, or the transcoder's capped one), so the writer is a
//! trait over "append these bytes".

use super::format::{
    FieldHeader, Trailer, TrailerV5, TypeHeader, FIELD_TERMINATOR, MAGIC, NULL_TYPE_ID, TRAILER_CHECKSUM,
    TRAILER_COMPACT, TRAILER_SIZE, TRAILER_V5_SIZE, VARIANT_TAG, VARIANT_TAG_FIELD_ID,
};

/// A buffer the grammar is written into; every method has the one spelling of its piece.
pub(crate) trait WireWrite {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);

    /// One little-endian word.
    #[inline(always)]
    fn word(&mut self, word: u32) {
        self.put(&word.to_le_bytes());
    }

    /// An object's or a section's type header (8 bytes).
    #[inline(always)]
    fn type_header(&mut self, header: TypeHeader) {
        self.word(header.meta());
        self.word(header.type_id);
    }

    /// An empty embedded slot: the null type's header, with no fields and no terminator.
    #[inline]
    fn empty_slot(&mut self) {
        self.type_header(TypeHeader { instance: 0, base: false, type_id: NULL_TYPE_ID });
    }

    /// A field's header word.
    #[inline(always)]
    fn field_header(&mut self, header: FieldHeader) {
        self.word(header.pack());
    }

    /// The word that ends an embedded object's fields.
    #[inline(always)]
    fn terminator(&mut self) {
        self.word(FIELD_TERMINATOR);
    }

    /// An enum section's variant tag: its header, then the variant's ID.
    #[inline]
    fn variant_tag(&mut self, variant: u32) {
        self.field_header(FieldHeader { id: VARIANT_TAG_FIELD_ID, shape: VARIANT_TAG });
        self.word(variant);
    }
}

/// Where a top-level object's length goes in a version 5 stream: reserved after its first type
/// header, filled in once the object is written (so the object is held whole until then).
pub(crate) struct LengthSlot(usize);

impl LengthSlot {
    /// Reserves the length word at the end of `out`.
    #[inline]
    pub(crate) fn reserve(out: &mut Vec<u8>) -> Self {
        let at = out.len();
        out.extend_from_slice(&[0; 4]);
        LengthSlot(at)
    }

    /// Writes the number of bytes after the word, which `out` now ends with; `Err` with that
    /// number when it does not fit the word.
    #[inline]
    pub(crate) fn fill(self, out: &mut [u8]) -> Result<(), u64> {
        let length = out.len() - self.0 - 4;
        let word = u32::try_from(length).map_err(|_| length as u64)?;
        out[self.0..self.0 + 4].copy_from_slice(&word.to_le_bytes());
        Ok(())
    }
}

/// Appends the stream header of a stream of format `version`.
pub(crate) fn write_stream_header(out: &mut Vec<u8>, version: u32) {
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
}

/// Appends the trailer of a stream that holds `objects` top-level objects and, before the
/// trailer, `length` bytes; `checksum` has hashed those bytes when the stream carries a checksum.
/// `compact`: the objects are in compact form (version 4).
pub(crate) fn write_trailer(
    out: &mut Vec<u8>,
    objects: u32,
    length: u64,
    checksum: Option<crc32fast::Hasher>,
    compact: bool,
) {
    let flags = if checksum.is_some() { TRAILER_CHECKSUM } else { 0 } | if compact { TRAILER_COMPACT } else { 0 };
    let mut trailer = Trailer { flags, objects, length: length + TRAILER_SIZE as u64, checksum: 0 };
    if let Some(mut hasher) = checksum {
        hasher.update(&trailer.to_bytes()[..Trailer::CHECKSUM_OFFSET]);
        trailer.checksum = hasher.finalize();
    }
    out.extend_from_slice(&trailer.to_bytes());
}

/// Appends the trailer of a version 5 stream that holds `objects` top-level objects and, before
/// the trailer, `length` bytes, the last of them the table at `table` (its offset in the stream)
/// whose bytes `out` ends with (`table_start` in `out`); `checksum` has hashed the bytes before
/// the trailer when the stream carries a checksum.
pub(crate) fn write_trailer_v5(
    out: &mut Vec<u8>,
    objects: u32,
    length: u64,
    (table, table_start): (u64, usize),
    checksum: Option<crc32fast::Hasher>,
) {
    let flags = if checksum.is_some() { TRAILER_CHECKSUM } else { 0 };
    let mut trailer = TrailerV5 {
        flags,
        objects,
        length: length + TRAILER_V5_SIZE as u64,
        table,
        table_crc: crc32fast::hash(&out[table_start..]),
        ..TrailerV5::default()
    };
    if let Some(mut hasher) = checksum {
        hasher.update(&trailer.to_bytes()[..TrailerV5::CHECKSUM_OFFSET]);
        trailer.checksum = hasher.finalize();
    }
    out.extend_from_slice(&trailer.to_bytes());
}

impl WireWrite for Vec<u8> {
    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::format::WireKind;
    use crate::wire::Reader;

    #[test]
    fn what_is_written_reads_back() {
        let mut out = Vec::new();
        out.type_header(TypeHeader { instance: 3, base: true, type_id: 77 });
        out.variant_tag(9);
        out.field_header(FieldHeader::new(5, WireKind::Embedded, true));
        out.empty_slot();
        out.terminator();
        let mut reader = Reader::new(&out);
        let header = crate::wire::type_header(&mut reader).unwrap();
        assert_eq!((header.instance, header.base, header.type_id), (3, true, 77));
        let tag = FieldHeader::unpack(reader.read_u32().unwrap()).unwrap().unwrap();
        assert_eq!((tag.id, tag.shape), (VARIANT_TAG_FIELD_ID, VARIANT_TAG));
        assert_eq!(reader.read_u32().unwrap(), 9);
        let field = FieldHeader::unpack(reader.read_u32().unwrap()).unwrap().unwrap();
        assert_eq!(field, FieldHeader::new(5, WireKind::Embedded, true));
        assert_eq!(crate::wire::embedded_header(&mut reader).unwrap(), None);
        assert_eq!(FieldHeader::unpack(reader.read_u32().unwrap()), Ok(None));
        assert_eq!(reader.remaining(), 0);
    }
}
