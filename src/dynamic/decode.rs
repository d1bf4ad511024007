//! Reading any valid stream into a [`DynamicGraph`], with no registry: the grammar of `FORMAT.md`
//! alone, checked as the typed decoder checks it, and the stream's schema table for names and
//! plain types.
//!
//! Every top-level object is created empty first, so a pointer resolves to its target by instance
//! number whatever the order; then each object is read in stream order. Plain elements are kept
//! as their bytes, never interpreted.

use super::object::{DynamicField, DynamicObject, DynamicRef, DynamicSection, DynamicValue};
use super::{DynamicGraph, StoredEntry};
use crate::containers::FIRST_RESERVED_TYPE_ID;
use crate::field::{WireKind, WireShape};
use crate::plain::PlainBytes;
use crate::plain::{skip_elem, Reader, ZERO_SIZED_ALLOWANCE};
use crate::schema::fingerprint_table::FingerprintTable;
use crate::schema::table::TableIndex;
use crate::schema::TypeSchema;
use crate::serializer::progress::{ProgressFn, Tracker};
use crate::serializer::{Encoding, Limits};
use crate::wire::error::{corrupt, DecodeError, DecodeErrorKind};
use crate::wire::format::{FieldHeader, TYPE_HEADER_SIZE, VARIANT_TAG_FIELD_ID, WORD_SIZE};
use crate::wire::index::IndexEntry;
use crate::wire::{
    check_depth, embedded_header, field_count, read_stream_header, stream_body, variant_tag, walk_object, Item,
};
use ahash::{AHashMap, AHashSet};
use std::mem::size_of;
use std::rc::Rc;

/// What holding one object, section or field costs beyond its bytes, charged against the
/// allocation budget (`Limits::allocation_budget`) as the typed decoder charges its objects.
const OBJECT_COST: usize = size_of::<DynamicObject>() + 48;
const SECTION_COST: usize = size_of::<DynamicSection>();
const FIELD_COST: usize = size_of::<DynamicField>();

/// A type as the stream's schema table describes it, with its fields sorted by (variant, ID) so that a stored field is checked
/// against the description without a scan.
struct StoredType {
    schema: Rc<TypeSchema>,
    keys: Vec<(Option<u32>, u16, WireShape)>,
}

impl StoredType {
    fn new(schema: TypeSchema) -> Self {
        let mut keys: Vec<_> = schema.fields.iter().map(|field| (None, field.id, field.shape)).collect();
        for variant in &schema.variants {
            keys.extend(variant.fields.iter().map(|field| (Some(variant.id), field.id, field.shape)));
        }
        keys.sort_unstable_by_key(|&(variant, id, _)| (variant, id));
        StoredType { schema: Rc::new(schema), keys }
    }

    fn lists(&self, variant: Option<u32>, header: &FieldHeader) -> bool {
        self.keys
            .binary_search_by_key(&(variant, header.id), |&(variant, id, _)| (variant, id))
            .is_ok_and(|index| self.keys[index].2 == header.shape)
    }
}

struct Parser<'d> {
    data: &'d [u8],
    limits: Limits,
    table: Option<TableIndex<'d>>,
    /// Entries parsed so far, by type ID (`None`: the table does not describe the type).
    described: AHashMap<u32, Option<Rc<StoredType>>>,
    /// For a stream with a fingerprint table, the types it lists: an object of another type is
    /// corrupt (the graph could not be written back with it listed).
    listed: Option<AHashSet<u32>>,
    objects: Vec<DynamicRef>,
    allocated: usize,
    budget: usize,
    /// Zero-size plain elements the rest of the stream may still hold (see `Reader`).
    zero_sized_left: usize,
}

/// The section being read: its type's description and, for an enum, the variant its tag named.
struct Open {
    described: Option<Rc<StoredType>>,
    variant: Option<u32>,
    section: DynamicSection,
}

impl Open {
    /// `error`, placed in this section's type and field `header` (by the names the stream's
    /// schema table gives, else by IDs), as the typed decoder places its errors.
    #[cold]
    fn frame(&self, error: DecodeError, header: &FieldHeader) -> DecodeError {
        let schema = self.described.as_ref().map(|described| &described.schema);
        let type_name = schema.map_or_else(|| format!("type {}", self.section.type_id()), |schema| schema.name.clone());
        let field = schema.and_then(|schema| schema.field(self.variant, header.id));
        let field = field.map_or_else(|| format!("field {}", header.id), |field| field.name.clone());
        error.within_named(type_name, Some(field))
    }
}

/// Reads `input`; `progress` hears every 1,024 objects and the end (see
/// [`Progress`](crate::serializer::Progress)).
pub(super) fn decode(
    input: &[u8],
    limits: Limits,
    progress: Option<ProgressFn<'_>>,
) -> Result<DynamicGraph, DecodeError> {
    if let Some(normal) = crate::serializer::compact::normalize(input, &limits, None)? {
        let mut graph = decode(&normal.bytes, limits, progress).map_err(|error| normal.locate(error))?;
        graph.checksum = normal.checksum;
        graph.encoding = Encoding::Compact;
        graph.plain_block = Some(normal.block.into());
        return Ok(graph);
    }
    let version = read_stream_header(&mut Reader::new(input))?;
    let body = stream_body(input)?;
    let checksum = body.checksum;
    let table = body.schema.map(|(start, end)| TableIndex::read(input, start, end)).transpose()?;
    // Without the types at hand, a fingerprint table is checked for form only, and kept.
    let fingerprints = match body.fingerprints {
        Some((start, end)) => Some(
            FingerprintTable::read(input, start, end)?
                .entries()
                .iter()
                .map(|entry| (entry.type_id, entry.fingerprint))
                .collect(),
        ),
        None => None,
    };
    let stored_table = table.as_ref().map(|table| {
        let mut entries: Vec<_> = table.entries().to_vec();
        entries.sort_unstable_by_key(|entry| entry.offset);
        entries
            .iter()
            .map(|entry| StoredEntry { type_id: entry.type_id, bytes: input[entry.offset - 4..entry.end].into() })
            .collect()
    });
    let index = crate::wire::index::index(body.data, &limits, body.objects, body.lengths)?;
    if let Some(recorded) = body.objects {
        if recorded as usize != index.len() {
            let kind = DecodeErrorKind::ObjectCountMismatch { recorded, found: index.len() };
            return Err(DecodeError::new(kind, body.data.len()));
        }
    }
    let mut parser = Parser {
        data: body.data,
        limits,
        table,
        described: AHashMap::new(),
        listed: fingerprints
            .as_ref()
            .map(|entries: &Vec<(u32, u64)>| entries.iter().map(|&(type_id, _)| type_id).collect()),
        objects: Vec::with_capacity(index.len()),
        allocated: 0,
        budget: limits.allocation_budget(input.len()),
        zero_sized_left: ZERO_SIZED_ALLOWANCE,
    };
    parser.charge(index.len().saturating_mul(OBJECT_COST), 0)?;
    parser.objects.extend(index.iter().map(|entry| DynamicRef::new(DynamicObject::new(entry.type_id, None))));
    let mut tracker = Tracker::new(progress, (Some(index.len() as u64), Some(input.len() as u64)));
    for (at, entry) in index.iter().enumerate() {
        match parser.top_level(entry) {
            Ok((object, end)) => {
                *parser.objects[at].borrow_mut() = object;
                tracker.object_done((end - entry.offset) as u64, true);
            }
            Err(error) => {
                // Objects read so far may point at each other in cycles: empty them all.
                super::graph::release(&parser.objects);
                return Err(error);
            }
        }
    }
    tracker.finished(None);
    let encoding = Encoding::Normal;
    let objects = parser.objects;
    Ok(DynamicGraph { version, checksum, objects, table: stored_table, fingerprints, encoding, plain_block: None })
}

impl Parser<'_> {
    fn charge(&mut self, bytes: usize, offset: usize) -> Result<(), DecodeError> {
        self.allocated = self.allocated.saturating_add(bytes);
        if self.allocated > self.budget {
            return Err(DecodeError::new(DecodeErrorKind::AllocationLimit { limit: self.budget }, offset));
        }
        Ok(())
    }

    /// The description of type `type_id`, parsed (and checked) the first time an object of it is met.
    fn describe(&mut self, type_id: u32) -> Result<Option<Rc<StoredType>>, DecodeError> {
        if let Some(described) = self.described.get(&type_id) {
            return Ok(described.clone());
        }
        let described = match self.table.as_ref().and_then(|table| Some((table, table.get(type_id)?))) {
            Some((table, entry)) => Some(Rc::new(StoredType::new(table.parse(entry)?))),
            None => None,
        };
        self.described.insert(type_id, described.clone());
        Ok(described)
    }

    /// The top-level object of `entry`, and the offset where it ends.
    fn top_level(&mut self, entry: &IndexEntry) -> Result<(DynamicObject, usize), DecodeError> {
        // One zero-size allowance for the whole stream, as the index walk of a version 3 stream
        // spends it (a version 5 index jumps over the objects).
        let mut reader = entry.body(self.data)?.with_zero_sized_left(self.zero_sized_left);
        let object = self.object(&mut reader, entry.instance(), entry.type_id, entry.offset, 0)?;
        entry.check_end(&reader)?;
        self.zero_sized_left = reader.zero_sized_left();
        Ok((object, reader.offset()))
    }

    /// One object (top-level, or embedded when `instance` is 0) after its type header (at
    /// `header`) and, for a top-level object of a version 5 stream, its length.
    fn object(
        &mut self,
        reader: &mut Reader<'_>,
        instance: u32,
        type_id: u32,
        header: usize,
        depth: usize,
    ) -> Result<DynamicObject, DecodeError> {
        let mut sections = Vec::with_capacity(1);
        let mut open = self.open(type_id, header)?;
        // Fields gather in a scratch list and move into one of their exact size: a graph holds
        // many small objects, and a list grown by doubling would hold up to twice their room.
        let mut fields = Vec::new();
        walk_object(reader, instance, instance == 0, |reader, item| match item {
            Item::Field(header) => {
                let field =
                    self.field(reader, &header, &mut open, depth).map_err(|error| open.frame(error, &header))?;
                fields.push(field);
                Ok(())
            }
            Item::Section(type_id) => {
                let next = self.open(type_id, reader.offset() - TYPE_HEADER_SIZE)?;
                let mut done = std::mem::replace(&mut open, next).section;
                *done.fields_mut() = exact(&mut fields);
                sections.push(done);
                Ok(())
            }
        })?;
        *open.section.fields_mut() = exact(&mut fields);
        sections.push(open.section);
        Ok(DynamicObject::from_sections(sections))
    }

    /// Opens a section of `type_id` whose header starts at `offset`.
    fn open(&mut self, type_id: u32, offset: usize) -> Result<Open, DecodeError> {
        self.charge(SECTION_COST, offset + TYPE_HEADER_SIZE)?;
        if self.listed.as_ref().is_some_and(|listed| type_id < FIRST_RESERVED_TYPE_ID && !listed.contains(&type_id)) {
            return Err(corrupt(offset, "an object of a type the fingerprint table does not list"));
        }
        let described = self.describe(type_id)?;
        let schema = described.as_ref().map(|described| described.schema.clone());
        Ok(Open { described, variant: None, section: DynamicSection::new(type_id, schema) })
    }

    fn field(
        &mut self,
        reader: &mut Reader<'_>,
        header: &FieldHeader,
        open: &mut Open,
        depth: usize,
    ) -> Result<DynamicField, DecodeError> {
        let header_at = reader.offset() - WORD_SIZE;
        self.charge(FIELD_COST, header_at)?;
        if let Some(described) = &open.described {
            let is_tag = described.schema.is_enum && header.id == VARIANT_TAG_FIELD_ID && open.variant.is_none();
            if is_tag {
                let tag = variant_tag(&mut reader.clone(), header)?; // read again as the field's value
                if described.schema.variant(tag).is_none() {
                    return Err(corrupt(
                        header_at + WORD_SIZE,
                        "a variant tag the stream's schema table does not list",
                    ));
                }
                open.variant = Some(tag);
            } else if !described.lists(open.variant, header) {
                return Err(corrupt(header_at, "a field header the stream's schema table does not describe"));
            }
        }
        let value = self.value(reader, header, depth)?;
        Ok(DynamicField::new(header.id, header.shape, value))
    }

    fn value(
        &mut self,
        reader: &mut Reader<'_>,
        header: &FieldHeader,
        depth: usize,
    ) -> Result<DynamicValue, DecodeError> {
        let count = field_count(reader, header, &self.limits)?;
        let start = reader.offset();
        Ok(match header.shape.kind {
            WireKind::Plain(size) => {
                match size {
                    Some(size) => reader.skip(usize::from(size) * count)?,
                    None => (0..count).try_for_each(|_| skip_elem(reader, None))?,
                }
                let bytes = &self.data[start..reader.offset()];
                if bytes.len() > 16 {
                    self.charge(bytes.len(), start)?;
                }
                DynamicValue::Plain(PlainBytes::from_wire(count as u32, bytes))
            }
            WireKind::Pointer => {
                self.charge(count * size_of::<Option<DynamicRef>>(), start)?;
                let mut targets = Vec::with_capacity(count);
                for _ in 0..count {
                    let at = reader.offset();
                    targets.push(match reader.read_u32()? {
                        0 => None,
                        id => Some(self.objects.get(id as usize - 1).cloned().ok_or_else(|| {
                            DecodeError::new(DecodeErrorKind::UnknownInstance { id, count: self.objects.len() }, at)
                        })?),
                    });
                }
                DynamicValue::Pointer(targets.into())
            }
            WireKind::Embedded => {
                self.charge(count * size_of::<Option<DynamicObject>>(), start)?;
                let mut objects = Vec::with_capacity(count);
                for _ in 0..count {
                    check_depth(reader, depth + 1, &self.limits)?;
                    let header = reader.offset();
                    objects.push(match embedded_header(reader)? {
                        None => None,
                        Some(type_id) => Some(self.object(reader, 0, type_id, header, depth + 1)?),
                    });
                }
                DynamicValue::Embedded(objects.into())
            }
        })
    }
}

/// Moves `fields` out into a list of exactly their number, leaving `fields` empty for reuse.
fn exact(fields: &mut Vec<DynamicField>) -> Vec<DynamicField> {
    let mut out = Vec::with_capacity(fields.len());
    out.append(fields);
    out
}
