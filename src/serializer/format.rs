//! The wire format's constants and header layouts, defined once for the encoder and the decoder.
//! `FORMAT.md` at the repository root is the specification these follow; how the headers are read
//! in sequence (the grammar) is the crate-internal `wire` module.

pub use crate::field::{WireKind, WireShape};

/// First four bytes of every stream.
pub const MAGIC: [u8; 4] = *b"RFLB";
/// Format version written after the magic.
pub const VERSION: u32 = 1;
/// Stream header: magic then version.
pub const STREAM_HEADER_SIZE: usize = 8;

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
/// Type ID of an empty by-value slot (`None`).
pub const NULL_TYPE_ID: u32 = 0;
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
        out.extend_from_slice(&self.meta().to_le_bytes());
        out.extend_from_slice(&self.type_id.to_le_bytes());
    }

    /// Splits a meta word (with [`OBJECT_BIT`] set) and a type ID.
    #[inline]
    pub fn unpack(meta: u32, type_id: u32) -> Self {
        TypeHeader { instance: meta >> INSTANCE_SHIFT, base: meta & BASE_BIT != 0, type_id }
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
    fn corrupt_field_headers_are_rejected() {
        assert!(FieldHeader::unpack(FIELD_EMBEDDED | FIELD_POINTER).is_err());
        assert!(FieldHeader::unpack(FIELD_DYNAMIC | (3 << FIELD_SIZE_SHIFT)).is_err());
        assert!(FieldHeader::unpack(FIELD_RESERVED).is_err());
        assert!(FieldHeader::unpack(FIELD_TERMINATOR | FIELD_ARRAY).is_err());
    }
}
