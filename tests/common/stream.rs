//! A hand-assembled stream for the hostile suites: headers and words in any order, ended by a
//! correct trailer (and an empty schema table) so that the decoder gets to judge the body.
#![allow(dead_code)]

use reflectable::serializer::format::{
    FieldHeader, Trailer, TypeHeader, WireKind, EMPTY_SCHEMA_TABLE, FIELD_TERMINATOR, MAGIC, TRAILER_SIZE,
    VARIANT_TAG_FIELD_ID, VERSION,
};

pub struct Stream {
    pub bytes: Vec<u8>,
    objects: u32,
}

impl Stream {
    pub fn new() -> Self {
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        Stream { bytes, objects: 0 }
    }

    /// A top-level object's type header (an embedded one's with instance 0).
    pub fn object(mut self, instance: u32, type_id: u32) -> Self {
        TypeHeader { instance, base: false, type_id }.write(&mut self.bytes);
        self.objects += u32::from(instance != 0);
        self
    }

    /// An embedded object's header (instance 0).
    pub fn embedded(self, type_id: u32) -> Self {
        self.object(0, type_id)
    }

    pub fn field(mut self, id: u16, kind: WireKind, array: bool) -> Self {
        self.bytes.extend_from_slice(&FieldHeader::new(id, kind, array).pack().to_le_bytes());
        self
    }

    /// A variant tag as the encoder writes it: field 0, one plain value of 4 bytes.
    pub fn tag(self, variant: u32) -> Self {
        self.field(VARIANT_TAG_FIELD_ID, WireKind::Plain(Some(4)), false).word(variant)
    }

    pub fn word(mut self, word: u32) -> Self {
        self.bytes.extend_from_slice(&word.to_le_bytes());
        self
    }

    /// A single `u32` field.
    pub fn u32_field(self, id: u16, value: u32) -> Self {
        self.field(id, WireKind::Plain(Some(4)), false).word(value)
    }

    /// A single pointer field to instance `target` (0: null).
    pub fn pointer(self, id: u16, target: u32) -> Self {
        self.field(id, WireKind::Pointer, false).word(target)
    }

    /// A dynamic plain element: its size (counting itself), then its bytes.
    pub fn string(mut self, text: &str) -> Self {
        self.bytes.extend_from_slice(&(4 + text.len() as u32).to_le_bytes());
        self.bytes.extend_from_slice(text.as_bytes());
        self
    }

    pub fn end_object(self) -> Self {
        self.word(FIELD_TERMINATOR)
    }

    pub fn raw(mut self, bytes: &[u8]) -> Self {
        self.bytes.extend_from_slice(bytes);
        self
    }

    pub fn raw_u16(mut self, value: u16) -> Self {
        self.bytes.extend_from_slice(&value.to_le_bytes());
        self
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// The stream so far with its trailer, keeping the stream.
    pub fn end_clone(&self) -> Vec<u8> {
        Stream { bytes: self.bytes.clone(), objects: self.objects }.end()
    }

    /// The stream with its trailer.
    pub fn end(self) -> Vec<u8> {
        let length = (self.bytes.len() + EMPTY_SCHEMA_TABLE.len() + TRAILER_SIZE) as u64;
        let trailer = Trailer { flags: 0, objects: self.objects, length, checksum: 0 };
        [self.bytes, EMPTY_SCHEMA_TABLE.to_vec(), trailer.to_bytes().to_vec()].concat()
    }
}
