//! The wire format's constants and header layouts, defined once for the encoder and the decoder.
//! `FORMAT.md` at the repository root is the specification these follow; how the headers are read
//! in sequence (the grammar) is the crate-internal `wire` module.

pub use crate::field::{WireKind, WireShape};

/// First four bytes of every stream.
pub const MAGIC: [u8; 4] = *b"RFLB";
/// Format version of the normal encoding, written after the magic. Version 2 added the trailer,
/// version 3 the schema table.
pub const VERSION: u32 = 3;
/// Format version of a compact stream (`FORMAT.md`, "Compact streams"): version 3's schema table
/// and trailer around objects written without headers. Its trailer sets [`TRAILER_COMPACT`].
pub const COMPACT_VERSION: u32 = 4;
/// The first version whose streams end with a schema table before the trailer.
pub const SCHEMA_VERSION: u32 = 3;
/// Format version of a normal stream whose top-level objects each carry their length after
/// their first type header (`FORMAT.md`, "Version 5"), so a reader finds any object without
/// walking those before it. Written only when asked (`BinarySerializer::format_version`) until
/// the rest of version 5 is in; version 3 stays the default.
pub const LENGTHS_VERSION: u32 = 5;
/// The newest version a decoder reads.
pub const NEWEST_VERSION: u32 = LENGTHS_VERSION;
/// The oldest version a decoder still reads (version 1 streams have no trailer).
pub const OLDEST_VERSION: u32 = 1;
/// Stream header: magic then version.
pub const STREAM_HEADER_SIZE: usize = 8;

/// First word of the trailer that ends every version 2 stream: the bytes `C8 45 4E 44`
/// (`"\xC8END"`). Its low byte has bit 0 clear and the reserved bits set, so it is neither a
/// type header nor a valid field header.
pub const END_MARK: u32 = u32::from_le_bytes([0xC8, b'E', b'N', b'D']);
/// First word of the schema table that follows the objects of a version 3 stream: the bytes
/// `C8 53 43 4D` (`"\xC8SCM"`). Like [`END_MARK`], neither a type header nor a valid field header.
pub const SCHEMA_MARK: u32 = u32::from_le_bytes([0xC8, b'S', b'C', b'M']);
/// First word of the fingerprint table that a stream written for readers built with the same types
/// holds in place of its schema table (`SchemaTable::Fingerprints`): the bytes `C8 46 50 54`
/// (`"\xC8FPT"`). Like [`SCHEMA_MARK`], neither a type header nor a valid field header; a decoder
/// that knows only schema tables refuses it.
pub const FINGERPRINT_MARK: u32 = u32::from_le_bytes([0xC8, b'F', b'P', b'T']);
/// Fewest bytes a schema table takes: mark, count, length.
pub(crate) const MIN_TABLE: usize = 12;
/// A schema table describing no types: the mark, a count of 0, and the table's length (12).
/// A hand-assembled version 3 stream may end its objects with it; its types are then read as
/// streams without a schema are, matched by field ID and wire shape.
pub const EMPTY_SCHEMA_TABLE: [u8; 12] = {
    let mut table = [0; 12];
    let mark = SCHEMA_MARK.to_le_bytes();
    let mut i = 0;
    while i < 4 {
        table[i] = mark[i];
        i += 1;
    }
    table[8] = 12;
    table
};
/// Size of the trailer of versions 2 to 4: end mark, flags, object count, stream length (`u64`),
/// checksum. (Version 5's is longer: `FORMAT.md`, "Version 5".)
pub const TRAILER_SIZE: usize = 24;
/// Trailer flag bit 0: the checksum word holds the CRC-32 of every byte before it.
pub const TRAILER_CHECKSUM: u32 = 1 << 0;
/// Trailer flag bit 1: the objects are in compact form. Set on every version 4 stream and on no
/// other.
pub const TRAILER_COMPACT: u32 = 1 << 1;

/// Compact type reference of an empty embedded slot.
pub const REF_EMPTY: u32 = 0;
/// Compact type reference of a list (`0xFFFF_FF01`).
pub const REF_LIST: u32 = 1;
/// Compact type reference of a map (`0xFFFF_FF02`).
pub const REF_MAP: u32 = 2;
/// Compact type reference of an external reference (`0xFFFF_FF03`, top-level only).
pub const REF_EXTERNAL: u32 = 3;
/// Compact type reference of the schema table's first entry; entry `i` is `REF_FIRST_ENTRY + i`.
pub const REF_FIRST_ENTRY: u32 = 4;
/// Longest field data a compact section leaves out when it is all zero bytes.
pub const MAX_ELIDED: usize = 256;

/// Size of a type header: a meta word and a type ID.
pub const TYPE_HEADER_SIZE: usize = 8;
/// Size of a field header.
pub const FIELD_HEADER_SIZE: usize = 4;
/// Size of a pointer (an instance ID) and of an array count.
pub const WORD_SIZE: usize = 4;

/// Meta word bit 0: set on type headers, clear on field headers.
pub const OBJECT_BIT: u32 = 1 << 0;
/// Type header bit 1: the section is a base type of the object it follows.
pub const BASE_BIT: u32 = 1 << 1;
/// Type header: the instance ID occupies bits 2 to 31.
pub const INSTANCE_SHIFT: u32 = 2;
/// Largest instance ID (30 bits). Instance 0 marks an object embedded by value.
pub const MAX_INSTANCE_ID: u32 = u32::MAX >> INSTANCE_SHIFT;
/// Type ID of an empty embedded slot (`None`); no type may have it.
pub use crate::rtti::NULL_TYPE_ID;
/// The field ID of an enum's variant tag: the first field of an enum's section, a single plain
/// `u32` holding the ID of the variant the object holds ([`VARIANT_TAG`]).
pub use crate::rtti::VARIANT_TAG_FIELD_ID;
/// The shape of an enum's variant tag field: one plain value of static size 4.
pub const VARIANT_TAG: WireShape = WireShape { kind: WireKind::Plain(Some(4)), array: false };
/// Instance ID of a null pointer.
pub const NULL_INSTANCE: u32 = 0;

/// Field header bit 1: an array (a `u32` count follows the header).
pub const FIELD_ARRAY: u32 = 1 << 1;
/// Field header bit 2: embedded objects (reflectable objects stored by value).
pub const FIELD_EMBEDDED: u32 = 1 << 2;
/// Field header bit 3: the terminator closing an embedded object. The whole terminator word is
/// exactly this value.
pub const FIELD_TERMINATOR: u32 = 1 << 3;
/// Field header bit 4: pointers (instance IDs).
pub const FIELD_POINTER: u32 = 1 << 4;
/// Field header bit 5: plain elements of dynamic size (each starts with a `u32` size).
pub const FIELD_DYNAMIC: u32 = 1 << 5;
/// Field header bits 6 and 7: reserved, always zero.
pub const FIELD_RESERVED: u32 = 0b1100_0000;
/// Field header: the static element size occupies bits 8 to 15.
pub const FIELD_SIZE_SHIFT: u32 = 8;
/// Field header: the field ID occupies bits 16 to 31.
pub const FIELD_ID_SHIFT: u32 = 16;

/// A decoded type header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeHeader {
    /// Instance ID (0 for embedded objects).
    pub instance: u32,
    /// `true` for a base section.
    pub base: bool,
    /// The section's type ID (`NULL_TYPE_ID` for an empty slot).
    pub type_id: u32,
}

impl TypeHeader {
    /// The meta word.
    #[inline]
    pub fn meta(&self) -> u32 {
        (self.instance << INSTANCE_SHIFT) | (u32::from(self.base) * BASE_BIT) | OBJECT_BIT
    }

    /// Appends the 8 header bytes.
    #[inline]
    pub fn write(&self, out: &mut Vec<u8>) {
        super::WireWrite::type_header(out, *self);
    }

    /// Splits a meta word (with [`OBJECT_BIT`] set) and a type ID.
    #[inline]
    pub fn unpack(meta: u32, type_id: u32) -> Self {
        TypeHeader { instance: meta >> INSTANCE_SHIFT, base: meta & BASE_BIT != 0, type_id }
    }
}

/// The trailer that ends a stream of versions 2 to 4 (version 5's is longer), so that a stream
/// cut anywhere is an error: the end
/// mark, flags, how many top-level objects the stream holds, its total length in bytes (trailer
/// included), and the CRC-32 (IEEE) of every byte before the checksum field when
/// [`TRAILER_CHECKSUM`] is set (0 otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trailer {
    /// Flag bits: [`TRAILER_CHECKSUM`] and [`TRAILER_COMPACT`]; the others must be 0.
    pub flags: u32,
    /// Number of top-level objects.
    pub objects: u32,
    /// Length of the whole stream, trailer included.
    pub length: u64,
    /// CRC-32 of every byte before this field, or 0.
    pub checksum: u32,
}

impl Trailer {
    /// The 24 trailer bytes.
    pub fn to_bytes(&self) -> [u8; TRAILER_SIZE] {
        let mut bytes = [0; TRAILER_SIZE];
        bytes[0..4].copy_from_slice(&END_MARK.to_le_bytes());
        bytes[4..8].copy_from_slice(&self.flags.to_le_bytes());
        bytes[8..12].copy_from_slice(&self.objects.to_le_bytes());
        bytes[12..20].copy_from_slice(&self.length.to_le_bytes());
        bytes[20..24].copy_from_slice(&self.checksum.to_le_bytes());
        bytes
    }

    /// Parses 24 trailer bytes; `None` when they do not start with [`END_MARK`].
    pub fn from_bytes(bytes: &[u8; TRAILER_SIZE]) -> Option<Self> {
        let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        if word(0) != END_MARK {
            return None;
        }
        let mut length = [0; 8];
        length.copy_from_slice(&bytes[12..20]);
        Some(Trailer { flags: word(4), objects: word(8), length: u64::from_le_bytes(length), checksum: word(20) })
    }

    /// Where the checksum field starts: the checksum covers the bytes before it.
    pub const CHECKSUM_OFFSET: usize = 20;
}

/// Size of a version 5 trailer: the 20 bytes a version 3 trailer starts with, then where the
/// schema (or fingerprint) table starts, where an object index and data blocks start (0: none),
/// the table's CRC-32, the index's, and the checksum (`FORMAT.md`, "Version 5").
pub(crate) const TRAILER_V5_SIZE: usize = 56;

/// The trailer of a version 5 stream. Not public: version 5's grammar is not final.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct TrailerV5 {
    /// [`TRAILER_CHECKSUM`]; the others must be 0.
    pub flags: u32,
    /// Number of top-level objects.
    pub objects: u32,
    /// Length of the whole stream, trailer included.
    pub length: u64,
    /// Where the schema or fingerprint table starts.
    pub table: u64,
    /// Where the object index starts; 0: none (none is written yet).
    pub index: u64,
    /// Where the data blocks start; 0: none (none are written yet).
    pub blocks: u64,
    /// CRC-32 of the table's bytes, always set.
    pub table_crc: u32,
    /// CRC-32 of the index's bytes; 0 without one.
    pub index_crc: u32,
    /// CRC-32 of every byte before this field, or 0.
    pub checksum: u32,
}

impl TrailerV5 {
    /// Where the checksum field starts: the checksum covers the bytes before it.
    pub const CHECKSUM_OFFSET: usize = 52;

    /// The 56 trailer bytes.
    pub fn to_bytes(self) -> [u8; TRAILER_V5_SIZE] {
        let mut bytes = [0; TRAILER_V5_SIZE];
        bytes[0..4].copy_from_slice(&END_MARK.to_le_bytes());
        bytes[4..8].copy_from_slice(&self.flags.to_le_bytes());
        bytes[8..12].copy_from_slice(&self.objects.to_le_bytes());
        bytes[12..20].copy_from_slice(&self.length.to_le_bytes());
        bytes[20..28].copy_from_slice(&self.table.to_le_bytes());
        bytes[28..36].copy_from_slice(&self.index.to_le_bytes());
        bytes[36..44].copy_from_slice(&self.blocks.to_le_bytes());
        bytes[44..48].copy_from_slice(&self.table_crc.to_le_bytes());
        bytes[48..52].copy_from_slice(&self.index_crc.to_le_bytes());
        bytes[52..56].copy_from_slice(&self.checksum.to_le_bytes());
        bytes
    }

    /// Parses 56 trailer bytes; `None` when they do not start with [`END_MARK`].
    pub fn from_bytes(bytes: &[u8; TRAILER_V5_SIZE]) -> Option<Self> {
        let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let long = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        (word(0) == END_MARK).then(|| TrailerV5 {
            flags: word(4),
            objects: word(8),
            length: long(12),
            table: long(20),
            index: long(28),
            blocks: long(36),
            table_crc: word(44),
            index_crc: word(48),
            checksum: word(52),
        })
    }
}

/// A decoded field header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldHeader {
    /// Field ID.
    pub id: u16,
    /// What the field's data is.
    pub shape: WireShape,
}

impl FieldHeader {
    /// A header for field `id` holding `kind` elements, an array when `array`.
    pub fn new(id: u16, kind: WireKind, array: bool) -> Self {
        FieldHeader { id, shape: WireShape { kind, array } }
    }

    /// The header running field `field` writes.
    #[inline(always)]
    pub(crate) fn of(field: &crate::field::RttiField) -> Self {
        FieldHeader { id: field.id(), shape: field.wire_shape() }
    }

    /// The header word.
    #[inline]
    pub fn pack(&self) -> u32 {
        let kind = match self.shape.kind {
            WireKind::Plain(Some(size)) => u32::from(size) << FIELD_SIZE_SHIFT,
            WireKind::Plain(None) => FIELD_DYNAMIC,
            WireKind::Embedded => FIELD_EMBEDDED,
            WireKind::Pointer => FIELD_POINTER,
        };
        (u32::from(self.id) << FIELD_ID_SHIFT) | kind | (u32::from(self.shape.array) * FIELD_ARRAY)
    }

    /// Parses a header word with [`OBJECT_BIT`] clear. `Ok(None)` is the terminator; `Err` names
    /// the inconsistency of a corrupt word.
    #[inline]
    pub fn unpack(word: u32) -> Result<Option<Self>, &'static str> {
        debug_assert_eq!(word & OBJECT_BIT, 0);
        if word & FIELD_TERMINATOR != 0 {
            return if word == FIELD_TERMINATOR { Ok(None) } else { Err("terminator with other bits set") };
        }
        if word & FIELD_RESERVED != 0 {
            return Err("reserved field header bits set");
        }
        let size = (word >> FIELD_SIZE_SHIFT) as u8;
        let kind_bits = word & (FIELD_EMBEDDED | FIELD_POINTER | FIELD_DYNAMIC);
        let kind = match kind_bits {
            0 => WireKind::Plain(Some(size)),
            FIELD_DYNAMIC if size == 0 => WireKind::Plain(None),
            FIELD_EMBEDDED if size == 0 => WireKind::Embedded,
            FIELD_POINTER if size == 0 => WireKind::Pointer,
            _ => return Err("field header kind bits conflict"),
        };
        Ok(Some(FieldHeader::new((word >> FIELD_ID_SHIFT) as u16, kind, word & FIELD_ARRAY != 0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_round_trip() {
        for kind in [
            WireKind::Plain(Some(0)),
            WireKind::Plain(Some(255)),
            WireKind::Plain(None),
            WireKind::Embedded,
            WireKind::Pointer,
        ] {
            for array in [false, true] {
                for id in [0, 1, 0x1234, u16::MAX] {
                    let header = FieldHeader::new(id, kind, array);
                    assert_eq!(header.pack() & OBJECT_BIT, 0);
                    assert_eq!(FieldHeader::unpack(header.pack()), Ok(Some(header)));
                }
            }
        }
        assert_eq!(FieldHeader::unpack(FIELD_TERMINATOR), Ok(None));
        let header = TypeHeader { instance: MAX_INSTANCE_ID, base: true, type_id: 7 };
        assert_eq!(TypeHeader::unpack(header.meta(), 7), header);
        assert_eq!(TypeHeader { instance: 1, base: false, type_id: 0 }.meta(), 0b101);
    }

    #[test]
    fn the_trailer_round_trips_and_its_mark_is_no_header() {
        let trailer = Trailer { flags: TRAILER_CHECKSUM, objects: 3, length: 1 << 40, checksum: 0xDEAD_BEEF };
        assert_eq!(Trailer::from_bytes(&trailer.to_bytes()), Some(trailer));
        assert_eq!(&trailer.to_bytes()[..4], b"\xC8END");
        assert_eq!(END_MARK & OBJECT_BIT, 0);
        assert!(FieldHeader::unpack(END_MARK).is_err());
        assert_eq!(Trailer::from_bytes(&[0; TRAILER_SIZE]), None);
    }

    #[test]
    fn corrupt_field_headers_are_rejected() {
        assert!(FieldHeader::unpack(FIELD_EMBEDDED | FIELD_POINTER).is_err());
        assert!(FieldHeader::unpack(FIELD_DYNAMIC | (3 << FIELD_SIZE_SHIFT)).is_err());
        assert!(FieldHeader::unpack(FIELD_RESERVED).is_err());
        assert!(FieldHeader::unpack(FIELD_TERMINATOR | FIELD_ARRAY).is_err());
    }
}
