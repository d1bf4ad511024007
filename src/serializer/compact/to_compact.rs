//! A normal stream to its compact form.

use super::layout::{Class, FieldLayout, Layouts};
use super::order::Order;
use super::plain::ElementWalk;
use super::plain_block::PlainTypes;
use super::running::running_table;
use crate::containers::{EXTERNAL_TYPE_ID, LIST_TYPE_ID, MAP_TYPE_ID};
use crate::plain::{varint, Reader, DYNAMIC_SIZE_PREFIX};
use crate::rtti::Registry;
use crate::schema::fingerprint_table::FingerprintTable;
use crate::schema::table::{table_for_version, TableIndex};
use crate::serializer::Limits;
use crate::wire::error::{corrupt, DecodeError, DecodeErrorKind};
use crate::wire::format::{
    FieldHeader, TypeHeader, COMPACT_VERSION, FIELD_TERMINATOR, MAX_ELIDED, OBJECT_BIT, REF_EMPTY, REF_EXTERNAL,
    REF_FIRST_ENTRY, REF_LIST, REF_MAP, STREAM_HEADER_SIZE, VARIANT_TAG, VARIANT_TAG_FIELD_ID, WORD_SIZE,
};
use crate::wire::{
    check_depth, embedded_header, field_count, stream_body, type_header, write_stream_header, write_trailer,
};

/// The compact form of the normal stream `normal` (`FORMAT.md`, "Compact streams"): the same
/// graph, schema table and checksum flag, objects without headers. A compact stream comes back
/// unchanged. The stream must have a schema table (version 3), its objects in the order the
/// encoder writes them, and each section every field its entry lists, in order:
/// [`DecodeErrorKind::NotCompact`] otherwise (data kept from another writer on some objects of a
/// type and not on others is the one case the encoder meets). A malformed stream is refused as
/// a decoder would refuse it.
///
/// The program's own plain types that fields hold (those `#[derive(PlainType)]` describes) are
/// described in the stream's plain block and written as compact elements; values of other plain
/// types keep their normal bytes behind a length.
///
/// ```
/// use reflectable::serializer::compact::{to_compact, to_normal};
/// # use reflectable::Reflectable;
/// # #[derive(Reflectable, Default, Debug, PartialEq)]
/// # #[rtti(id = 9_970_010)]
/// # struct Counter { #[rtti(id = 1)] hits: u64, #[rtti(id = 2)] label: String, #[rtti(id = 3)] enabled: bool }
///
/// let value = Counter { hits: 3, label: "door".into(), enabled: true };
/// let normal = reflectable::to_vec(&value).unwrap();
/// let compact = to_compact(&normal).unwrap();
/// assert!(compact.len() < normal.len());
/// assert_eq!(to_compact(&compact).unwrap(), compact, "a compact stream comes back unchanged");
/// assert_eq!(reflectable::from_slice::<Counter>(&compact).unwrap(), value);
/// assert_eq!(to_normal(&compact).unwrap(), normal);
/// ```
pub fn to_compact(normal: &[u8]) -> Result<Vec<u8>, DecodeError> {
    to_compact_with(normal, None, None, &Limits::default())
}

/// [`to_compact`], describing plain types by the plain block `block` (one a compact stream
/// held) instead of by the program's descriptions, and, for a stream that lists its types'
/// fingerprints instead of describing them, taking their layouts from `registry`. `limits`
/// bound nesting and arrays as the encoder's did.
pub(crate) fn to_compact_with(
    normal: &[u8],
    block: Option<&[u8]>,
    registry: Option<&Registry>,
    limits: &Limits,
) -> Result<Vec<u8>, DecodeError> {
    let body = stream_body(normal)?;
    if body.compact {
        return Ok(normal.to_vec());
    }
    let (start, end, running) = match (body.schema, body.fingerprints, registry) {
        (Some((start, end)), _, _) => (start, end, None),
        (None, Some((start, end)), Some(registry)) => {
            (start, end, Some(running_table(&FingerprintTable::read(normal, start, end)?, registry)?))
        }
        _ => return Err(not_compact(4, "a stream without a schema table")),
    };
    let table = match &running {
        Some(running) => TableIndex::read_table(running)?,
        None => TableIndex::read(normal, start, end)?,
    };
    let types = match block {
        Some(block) => PlainTypes::read(block, 0, block.len())?,
        None => {
            let schema = table.schema()?;
            let fields = schema.types.iter().flat_map(|schema| {
                schema.fields.iter().chain(schema.variants.iter().flat_map(|variant| &variant.fields))
            });
            PlainTypes::of_program(fields.map(|field| field.signature.as_slice()))
        }
    };
    let layouts = Layouts::new(&table, &types)?;
    let mut writer = Writer {
        layouts: &layouts,
        walker: ElementWalk::new(&layouts.plan),
        order: Order::new(),
        out: Vec::with_capacity(normal.len() / 2),
        depth: 0,
        limits,
        lengths: body.lengths,
    };
    write_stream_header(&mut writer.out, COMPACT_VERSION);
    let mut reader = Reader::new(body.data);
    reader.skip(STREAM_HEADER_SIZE)?;
    while !reader.is_empty() {
        writer.top_level(&mut reader)?;
    }
    let mut out = writer.out;
    types.write(&mut out);
    out.extend_from_slice(&table_for_version(&normal[start..end], COMPACT_VERSION));
    let checksum = body.checksum.then(|| {
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(&out);
        hasher
    });
    let length = out.len() as u64;
    write_trailer(&mut out, body.objects.unwrap_or(0), length, checksum, true);
    Ok(out)
}

#[cold]
fn not_compact(offset: usize, what: &'static str) -> DecodeError {
    DecodeError::new(DecodeErrorKind::NotCompact(what), offset)
}

struct Writer<'l> {
    layouts: &'l Layouts,
    walker: ElementWalk<'l>,
    order: Order,
    out: Vec<u8>,
    depth: usize,
    limits: &'l Limits,
    /// The normal stream records each top-level object's length (version 5), which the compact
    /// form leaves out: checked, not copied.
    lengths: bool,
}

impl Writer<'_> {
    fn top_level(&mut self, reader: &mut Reader<'_>) -> Result<(), DecodeError> {
        let at = reader.offset();
        let header = type_header(reader)?;
        if header.base || header.instance == 0 {
            return Err(corrupt(at, "a top-level object must start with its own section and an instance ID"));
        }
        let end = if self.lengths { Some(crate::wire::index::object_end(reader)?) } else { None };
        self.top_level_body(reader, at, header)?;
        match end {
            Some(end) if reader.offset() != end => {
                Err(corrupt(reader.offset(), "an object's recorded length differs from its bytes"))
            }
            _ => Ok(()),
        }
    }

    /// A top-level object after its first type header (and length).
    fn top_level_body(&mut self, reader: &mut Reader<'_>, at: usize, header: TypeHeader) -> Result<(), DecodeError> {
        let expected = self.order.next_object().ok_or_else(|| not_compact(at, "an object no pointer leads to"))?;
        if header.instance != expected {
            return Err(not_compact(at, "objects out of the order the encoder writes them in"));
        }
        if header.type_id == EXTERNAL_TYPE_ID {
            varint::write_u64(u64::from(REF_EXTERNAL), &mut self.out);
            self.headed(reader, false)?;
        } else {
            let position = self.position(at, header.type_id)?;
            varint::write_u64((REF_FIRST_ENTRY as usize + position) as u64, &mut self.out);
            self.object(reader, position, header.instance)?;
        }
        self.order.object_done();
        Ok(())
    }

    fn position(&self, at: usize, type_id: u32) -> Result<usize, DecodeError> {
        self.layouts.position(type_id).ok_or_else(|| not_compact(at, "an object of a type the schema table lacks"))
    }

    /// An object's sections (its type's, then its bases' as the table chains them), then the
    /// terminator of an embedded one (`instance` 0).
    fn object(&mut self, reader: &mut Reader<'_>, position: usize, instance: u32) -> Result<(), DecodeError> {
        let mut next = Some(position);
        let mut first = true;
        while let Some(at_type) = next {
            let layout = &self.layouts.types[at_type];
            if !first {
                let at = reader.offset();
                let header = type_header(reader)?;
                let expected = TypeHeader { instance, base: true, type_id: layout.type_id };
                if header != expected {
                    return Err(not_compact(at, "base sections other than the schema table's chain"));
                }
            }
            self.section(reader, at_type)?;
            first = false;
            next = layout.base;
        }
        let at = reader.offset();
        match (instance, reader.peek_u32()) {
            (0, Some(FIELD_TERMINATOR)) => Ok(reader.skip(WORD_SIZE)?),
            (0, _) => Err(not_compact(at, "an embedded object with fields or sections its schema entry does not list")),
            (_, None) => Ok(()),
            (_, Some(word)) if word & OBJECT_BIT != 0 && !TypeHeader::unpack(word, 0).base => Ok(()),
            _ => Err(not_compact(at, "an object with fields or sections its schema entry does not list")),
        }
    }

    /// One section: an enum's variant, the presence bits, the data of every field present.
    fn section(&mut self, reader: &mut Reader<'_>, position: usize) -> Result<(), DecodeError> {
        let layouts = self.layouts;
        let layout = &layouts.types[position];
        let fields: &[FieldLayout] = if layout.is_enum {
            let at = reader.offset();
            let tag = FieldHeader { id: VARIANT_TAG_FIELD_ID, shape: VARIANT_TAG }.pack();
            if reader.peek_u32() != Some(tag) {
                return Err(corrupt(at, "an enum's section must start with its variant tag"));
            }
            reader.skip(WORD_SIZE)?;
            let variant = reader.read_u32()?;
            varint::write_u64(u64::from(variant), &mut self.out);
            layout.variant(variant).ok_or_else(|| not_compact(at, "a variant the schema table does not list"))?
        } else {
            &layout.fields
        };
        let presence = self.out.len();
        self.out.resize(presence + fields.len().div_ceil(8), 0);
        for (index, field) in fields.iter().enumerate() {
            let at = reader.offset();
            if reader.peek_u32() != Some(field.header.pack()) {
                return Err(not_compact(at, "a section without every field its schema entry lists, in order"));
            }
            reader.skip(WORD_SIZE)?;
            let present = if field.class == Class::Bool && !field.header.shape.array {
                bool_byte(reader)?
            } else {
                let start = self.out.len();
                self.field_data(reader, field.header, &field.class)?;
                let data = &self.out[start..];
                let elided = data.len() <= MAX_ELIDED && data.iter().all(|&byte| byte == 0);
                if elided {
                    self.out.truncate(start);
                }
                !elided
            };
            if present {
                self.out[presence + index / 8] |= 1 << (index % 8);
            }
        }
        Ok(())
    }

    /// A field's data after its header: the count of an array, then each element.
    fn field_data(&mut self, reader: &mut Reader<'_>, header: FieldHeader, class: &Class) -> Result<(), DecodeError> {
        let count = field_count(reader, &header, self.limits)?;
        if header.shape.array {
            varint::write_u64(count as u64, &mut self.out);
        }
        match class {
            Class::Bool => {
                let at = reader.offset();
                for (index, chunk) in reader.take(count)?.chunks(8).enumerate() {
                    let mut bits = 0u8;
                    for (bit, &byte) in chunk.iter().enumerate() {
                        bits |= u8::from(bool_value(at + index * 8 + bit, byte)?) << bit;
                    }
                    self.out.push(bits);
                }
            }
            Class::Varint(leaf) => {
                for _ in 0..count {
                    leaf.to_compact(reader, &mut self.out)?;
                }
            }
            Class::Fixed(size) => self.out.extend_from_slice(reader.take(count * usize::from(*size))?),
            Class::Walked(node) => {
                for _ in 0..count {
                    self.walker.elem_to_compact(*node, reader, &mut self.out)?;
                }
            }
            Class::Framed => {
                for _ in 0..count {
                    let at = reader.offset();
                    let size = reader.read_u32()? as usize;
                    let len = size
                        .checked_sub(DYNAMIC_SIZE_PREFIX)
                        .ok_or_else(|| corrupt(at, "a dynamic element's size is less than its prefix"))?;
                    varint::write_u64(len as u64, &mut self.out);
                    self.out.extend_from_slice(reader.take(len)?);
                }
            }
            Class::Pointer => {
                for _ in 0..count {
                    let at = reader.offset();
                    let id = reader.read_u32()?;
                    self.order.pointer(id).map_err(|what| not_compact(at, what))?;
                    varint::write_u64(u64::from(id), &mut self.out);
                }
            }
            Class::Embedded => {
                for _ in 0..count {
                    self.embedded(reader)?;
                }
            }
        }
        Ok(())
    }

    fn embedded(&mut self, reader: &mut Reader<'_>) -> Result<(), DecodeError> {
        self.depth += 1;
        check_depth(reader, self.depth, self.limits)?;
        let at = reader.offset();
        let reference = match embedded_header(reader)? {
            None => {
                self.out.push(REF_EMPTY as u8);
                None
            }
            Some(LIST_TYPE_ID) => Some(REF_LIST),
            Some(MAP_TYPE_ID) => Some(REF_MAP),
            Some(type_id) => {
                let position = self.position(at, type_id)?;
                varint::write_u64((REF_FIRST_ENTRY as usize + position) as u64, &mut self.out);
                self.object(reader, position, 0)?;
                None
            }
        };
        if let Some(reference) = reference {
            self.out.push(reference as u8);
            self.headed(reader, true)?;
        }
        self.depth -= 1;
        Ok(())
    }

    /// The body of a list, a map or an external reference, which have no schema entry: each
    /// field's header word as a varint, then its data; a 0 ends it.
    fn headed(&mut self, reader: &mut Reader<'_>, embedded: bool) -> Result<(), DecodeError> {
        loop {
            let at = reader.offset();
            let word = match reader.peek_u32() {
                Some(word) if word & OBJECT_BIT == 0 => word,
                _ if embedded => return Err(corrupt(at, "embedded object without a terminator")),
                Some(word) if TypeHeader::unpack(word, 0).base => {
                    return Err(not_compact(at, "an external reference with base sections"))
                }
                _ => break,
            };
            reader.skip(WORD_SIZE)?;
            match FieldHeader::unpack(word).map_err(|what| corrupt(at, what))? {
                None if embedded => break,
                None => return Err(corrupt(at, "terminator outside an embedded object")),
                Some(_) if word == 0 => return Err(not_compact(at, "a field header word of 0 in a built-in object")),
                Some(header) => {
                    varint::write_u64(u64::from(word), &mut self.out);
                    self.field_data(reader, header, &Class::of_header(header))?;
                }
            }
        }
        self.out.push(0);
        Ok(())
    }
}

/// A single `bool`'s byte: its presence bit.
fn bool_byte(reader: &mut Reader<'_>) -> Result<bool, DecodeError> {
    let at = reader.offset();
    bool_value(at, reader.take(1)?[0])
}

fn bool_value(at: usize, byte: u8) -> Result<bool, DecodeError> {
    match byte {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(not_compact(at, "a bool that is neither 0 nor 1")),
    }
}
