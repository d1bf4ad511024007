//! A compact stream to its normal twin: what every decoder reads.

use super::layout::{Class, FieldLayout, Layouts};
use super::order::Order;
use super::plain::ElementWalk;
use super::plain_block::{PlainTypes, EMPTY_BLOCK};
use super::running::running_table;
use super::{Output, EXPANSION_BASE, MAX_EXPANSION};
use crate::containers::{EXTERNAL_TYPE_ID, LIST_TYPE_ID, MAP_TYPE_ID};
use crate::plain::{varint, Reader};
use crate::rtti::Registry;
use crate::schema::fingerprint_table::FingerprintTable;
use crate::schema::table::TableIndex;
use crate::serializer::Limits;
use crate::wire::error::{corrupt, DecodeError, DecodeErrorKind};
use crate::wire::format::{
    FieldHeader, TypeHeader, COMPACT_VERSION, MAGIC, MAX_ELIDED, MAX_INSTANCE_ID, OBJECT_BIT, REF_EMPTY, REF_EXTERNAL,
    REF_LIST, REF_MAP, STREAM_HEADER_SIZE, VERSION,
};
use crate::wire::{check_depth, stream_body, write_stream_header, write_trailer, WireWrite};

/// What a field left out of a section is read from: its data was all zero bytes, at most
/// [`MAX_ELIDED`] of them.
static ZEROS: [u8; MAX_ELIDED] = [0; MAX_ELIDED];

/// The normal form of the compact stream `compact` (`FORMAT.md`, "Compact streams"), exactly the
/// stream it was made from by [`to_compact`](super::to_compact); a normal stream comes back
/// unchanged, once its header and trailer are checked. A malformed compact stream is an error at
/// its offset, and one whose normal form would exceed [`MAX_EXPANSION`] times its length (plus
/// [`EXPANSION_BASE`]) is `AllocationLimit`.
///
/// A compact stream that lists its types' fingerprints instead of describing them needs the
/// writer's types to be walked: it is `NoSchema` here, and decodes through a `BinarySerializer`
/// whose registry has those types.
///
/// ```
/// use reflectable::serializer::compact::to_normal;
/// use reflectable::serializer::{BinarySerializer, Encoding};
/// # use reflectable::Reflectable;
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_970_011)]
/// # struct Sample { #[rtti(id = 1)] values: Vec<u32> }
///
/// let sample = Sample { values: vec![1, 2, 300] };
/// let compact = BinarySerializer::new().encoding(Encoding::Compact).encode(&sample).unwrap();
/// let normal = to_normal(&compact).unwrap();
/// assert_eq!(normal, reflectable::to_vec(&sample).unwrap());
/// assert_eq!(to_normal(&normal).unwrap(), normal, "a normal stream comes back unchanged");
/// assert!(to_normal(&compact[..compact.len() - 1]).is_err(), "a truncated stream is refused");
/// ```
pub fn to_normal(compact: &[u8]) -> Result<Vec<u8>, DecodeError> {
    match Normal::read(compact, &Limits::default(), true, None)? {
        Some(normal) => Ok(normal.bytes),
        None => stream_body(compact).map(|_| compact.to_vec()),
    }
}

/// The normal twin of a compact stream, for decoding, or `None` for a normal stream (decoded
/// as it is). `limits.max_allocation`, when set, caps the twin's length instead of the default
/// expansion. `registry` gives the layouts of a stream that lists its types' fingerprints.
pub(crate) fn normalize(
    input: &[u8],
    limits: &Limits,
    registry: Option<&Registry>,
) -> Result<Option<Normal>, DecodeError> {
    Normal::read(input, limits, false, registry)
}

/// A compact stream's normal twin, and where its parts came from.
pub(crate) struct Normal {
    pub(crate) bytes: Vec<u8>,
    /// Whether the compact stream carried a checksum (the twin made for decoding has none).
    pub(crate) checksum: bool,
    /// The compact stream's plain block, which writing the graph back compact reuses.
    pub(crate) block: Vec<u8>,
    /// `(normal offset, compact offset)` at the start of every object and field, in order.
    offsets: Vec<(u32, u32)>,
}

impl Normal {
    fn read(
        input: &[u8],
        limits: &Limits,
        checksum: bool,
        registry: Option<&Registry>,
    ) -> Result<Option<Self>, DecodeError> {
        // Only version 4 is compact: other streams are left to their decoder, which checks their
        // trailer (and checksum) once.
        if input.get(..4) != Some(&MAGIC[..]) || input.get(4..8) != Some(&COMPACT_VERSION.to_le_bytes()[..]) {
            return Ok(None);
        }
        let body = stream_body(input)?;
        if !body.compact {
            return Ok(None);
        }
        // Without a schema table, the reader's own types give the layouts, once the listed
        // fingerprints are checked against them.
        let (start, end, running) = match (body.schema, body.fingerprints, registry) {
            (Some((start, end)), _, _) => (start, end, None),
            (None, Some((start, end)), Some(registry)) => {
                (start, end, Some(running_table(&FingerprintTable::read(input, start, end)?, registry)?))
            }
            (None, Some((start, _)), None) => return Err(DecodeError::new(DecodeErrorKind::NoSchema, start)),
            (None, None, _) => return Err(corrupt(4, "a compact stream without a schema table")),
        };
        // The plain block ends where the table starts, with its own length.
        let length_at = start.checked_sub(4).filter(|&at| at >= STREAM_HEADER_SIZE);
        let length = length_at.map(|at| u32::from_le_bytes(input[at..start].try_into().expect("a word")) as usize);
        let block_start = length
            .filter(|&length| length >= EMPTY_BLOCK)
            .and_then(|length| start.checked_sub(length))
            .filter(|&block| block >= STREAM_HEADER_SIZE)
            .ok_or_else(|| corrupt(length_at.unwrap_or(start), "a compact stream's plain block does not fit"))?;
        let types = PlainTypes::read(input, block_start, start)?;
        let table = match &running {
            Some(running) => TableIndex::read_table(running)?,
            None => TableIndex::read(input, start, end)?,
        };
        let layouts = Layouts::new(&table, &types)?;
        let cap = limits
            .max_allocation
            .unwrap_or_else(|| input.len().saturating_mul(MAX_EXPANSION).saturating_add(EXPANSION_BASE));
        let mut reader = Reader::new(&body.data[..block_start]);
        reader.skip(STREAM_HEADER_SIZE)?;
        let mut writer = Writer {
            layouts: &layouts,
            walker: ElementWalk::new(&layouts.plan),
            order: Order::new(),
            out: Output::new(input.len().saturating_mul(2), cap),
            offsets: Vec::new(),
            // Offsets are kept as `u32`s: past 4 GiB, errors keep their twin's offsets.
            track: !checksum && input.len() <= u32::MAX as usize,
            depth: 0,
            max_depth: limits.max_depth,
        };
        write_stream_header(&mut writer.out.bytes, VERSION);
        while !reader.is_empty() {
            writer.top_level(&mut reader)?;
        }
        writer.mark(start);
        let Writer { mut out, offsets, .. } = writer;
        out.extend(&input[start..end]);
        out.check(end)?;
        let mut bytes = out.bytes;
        let hasher = (checksum && body.checksum).then(|| {
            let mut hasher = crc32fast::Hasher::new();
            hasher.update(&bytes);
            hasher
        });
        let length = bytes.len() as u64;
        write_trailer(&mut bytes, body.objects.unwrap_or(0), length, hasher, false);
        let block = input[block_start..start].to_vec();
        Ok(Some(Normal { bytes, checksum: body.checksum, block, offsets }))
    }

    /// `error`, from reading the normal twin, with its offset moved to the compact stream: the
    /// start of the object or field it is in.
    pub(crate) fn locate(&self, error: DecodeError) -> DecodeError {
        let Some(offset) = error.offset() else { return error };
        let index = self.offsets.partition_point(|&(normal, _)| normal as usize <= offset);
        match index.checked_sub(1).map(|index| self.offsets[index]) {
            Some((_, compact)) => error.relocated(compact as usize),
            None => error,
        }
    }
}

struct Writer<'l> {
    layouts: &'l Layouts,
    walker: ElementWalk<'l>,
    order: Order,
    out: Output,
    offsets: Vec<(u32, u32)>,
    /// Whether to record offsets (only a decode reports errors through them).
    track: bool,
    depth: usize,
    max_depth: usize,
}

impl Writer<'_> {
    #[inline]
    /// Records that the twin's next byte comes from compact offset `at`.
    fn mark(&mut self, at: usize) {
        if self.track {
            self.offsets.push((self.out.len() as u32, at as u32));
        }
    }

    fn top_level(&mut self, reader: &mut Reader<'_>) -> Result<(), DecodeError> {
        self.mark(reader.offset());
        let at = reader.offset();
        let reference = varint::read_u64(reader, 32)? as u32;
        let instance = self.order.next_object().ok_or_else(|| corrupt(at, "an object no pointer leads to"))?;
        if reference == REF_EXTERNAL {
            self.out.type_header(TypeHeader { instance, base: false, type_id: EXTERNAL_TYPE_ID });
            self.headed(reader, false)?;
        } else {
            let (position, layout) =
                self.layouts.by_ref(reference).ok_or_else(|| corrupt(at, "a top-level object's type reference"))?;
            self.out.type_header(TypeHeader { instance, base: false, type_id: layout.type_id });
            self.object(reader, position, instance)?;
        }
        self.order.object_done();
        self.out.check(reader.offset())
    }

    /// An object's sections, as the table chains them, then an embedded one's terminator.
    fn object(&mut self, reader: &mut Reader<'_>, position: usize, instance: u32) -> Result<(), DecodeError> {
        let layouts = self.layouts;
        let mut next = Some(position);
        let mut first = true;
        while let Some(at_type) = next {
            let layout = &layouts.types[at_type];
            if !first {
                self.out.check(reader.offset())?;
                self.out.type_header(TypeHeader { instance, base: true, type_id: layout.type_id });
            }
            self.section(reader, at_type)?;
            first = false;
            next = layout.base;
        }
        if instance == 0 {
            self.out.terminator();
        }
        Ok(())
    }

    fn section(&mut self, reader: &mut Reader<'_>, position: usize) -> Result<(), DecodeError> {
        let layouts = self.layouts;
        let layout = &layouts.types[position];
        let fields: &[FieldLayout] = if layout.is_enum {
            let at = reader.offset();
            let variant = varint::read_u64(reader, 32)? as u32;
            self.out.variant_tag(variant);
            layout.variant(variant).ok_or_else(|| corrupt(at, "a variant the schema table does not list"))?
        } else {
            &layout.fields
        };
        let presence_at = reader.offset();
        let presence = reader.take(fields.len().div_ceil(8))?;
        if fields.len() % 8 != 0 && presence.last().is_some_and(|&last| last >> (fields.len() % 8) != 0) {
            return Err(corrupt(presence_at, "presence bits set past a section's fields"));
        }
        for (index, field) in fields.iter().enumerate() {
            // Every field adds to the twin, even one of no bytes here: the cap is checked for each.
            self.out.check(reader.offset())?;
            let present = presence[index / 8] & (1 << (index % 8)) != 0;
            self.out.field_header(field.header);
            if field.class == Class::Bool && !field.header.shape.array {
                self.out.extend(&[u8::from(present)]);
            } else if present {
                // Present data takes input bytes, so the marks stay within the input's size.
                self.mark(reader.offset());
                let start = reader.offset();
                let before = reader.rest();
                self.field_data(reader, field.header, &field.class)?;
                let data = &before[..before.len() - reader.remaining()];
                if data.len() <= MAX_ELIDED && data.iter().all(|&byte| byte == 0) {
                    return Err(corrupt(start, "a field marked present holds only zero bytes"));
                }
            } else {
                let mut zeros = Reader::new(&ZEROS).with_zero_sized_left(0);
                self.field_data(&mut zeros, field.header, &field.class).map_err(|error| match error.kind() {
                    DecodeErrorKind::AllocationLimit { .. } => error.at(presence_at),
                    _ => corrupt(presence_at, "a field left out of a section needs more than 256 zero bytes"),
                })?;
            }
        }
        Ok(())
    }

    /// A field's data: an array's count, then each element, as normal bytes.
    fn field_data(&mut self, reader: &mut Reader<'_>, header: FieldHeader, class: &Class) -> Result<(), DecodeError> {
        let count = if header.shape.array {
            let count = match class {
                Class::Bool => {
                    let at = reader.offset();
                    let count = varint::read_u64(reader, 32)? as usize;
                    if count.div_ceil(8) > reader.remaining() {
                        return Err(corrupt(at, "more bools than bytes left"));
                    }
                    count
                }
                _ => reader.read_compact_count(class.min_size(&self.layouts.plan))?,
            };
            self.out.word(count as u32);
            count
        } else {
            1
        };
        match class {
            Class::Bool => {
                let at = reader.offset();
                let bits = reader.take(count.div_ceil(8))?;
                if count % 8 != 0 && bits.last().is_some_and(|&last| last >> (count % 8) != 0) {
                    return Err(corrupt(at, "bits set past a bool array's end"));
                }
                for index in 0..count {
                    self.out.extend(&[(bits[index / 8] >> (index % 8)) & 1]);
                }
            }
            Class::Varint(leaf) => {
                for _ in 0..count {
                    leaf.to_normal(reader, &mut self.out)?;
                }
            }
            Class::Fixed(size) => self.out.extend(reader.take(count * usize::from(*size))?),
            Class::Walked(node) => {
                for _ in 0..count {
                    self.walker.elem_to_normal(*node, reader, &mut self.out)?;
                }
            }
            Class::Framed => {
                for _ in 0..count {
                    let len = reader.read_compact_count(1)?;
                    let at = self.out.reserve_word();
                    self.out.extend(reader.take(len)?);
                    self.out.patch_size(at, reader.offset())?;
                }
            }
            Class::Pointer => {
                for _ in 0..count {
                    let at = reader.offset();
                    let id = varint::read_u64(reader, 32)? as u32;
                    if id > MAX_INSTANCE_ID {
                        return Err(corrupt(at, "an instance ID beyond 30 bits"));
                    }
                    self.order.pointer(id).map_err(|what| corrupt(at, what))?;
                    self.out.word(id);
                }
            }
            Class::Embedded => {
                for _ in 0..count {
                    self.embedded(reader)?;
                }
            }
        }
        self.out.check(reader.offset())
    }

    fn embedded(&mut self, reader: &mut Reader<'_>) -> Result<(), DecodeError> {
        self.out.check(reader.offset())?;
        self.depth += 1;
        check_depth(reader, self.depth, &Limits { max_depth: self.max_depth, ..Limits::default() })?;
        let at = reader.offset();
        let reference = varint::read_u64(reader, 32)? as u32;
        let header = |type_id| TypeHeader { instance: 0, base: false, type_id };
        match reference {
            REF_EMPTY => self.out.empty_slot(),
            REF_LIST | REF_MAP => {
                self.out.type_header(header(if reference == REF_LIST { LIST_TYPE_ID } else { MAP_TYPE_ID }));
                self.headed(reader, true)?;
            }
            _ => {
                let (position, layout) =
                    self.layouts.by_ref(reference).ok_or_else(|| corrupt(at, "an embedded object's type reference"))?;
                self.out.type_header(header(layout.type_id));
                self.object(reader, position, 0)?;
            }
        }
        self.depth -= 1;
        Ok(())
    }

    /// A list's, map's or external reference's fields, each after its header word; a 0 ends
    /// them.
    fn headed(&mut self, reader: &mut Reader<'_>, embedded: bool) -> Result<(), DecodeError> {
        loop {
            self.mark(reader.offset());
            let at = reader.offset();
            let word = varint::read_u64(reader, 32)? as u32;
            if word == 0 {
                break;
            }
            let header = match word & OBJECT_BIT {
                0 => FieldHeader::unpack(word),
                _ => Ok(None),
            };
            let Ok(Some(header)) = header else {
                return Err(corrupt(at, "a field header word that is not one"));
            };
            self.out.word(word);
            self.field_data(reader, header, &Class::of_header(header))?;
        }
        if embedded {
            self.out.terminator();
        }
        Ok(())
    }
}
