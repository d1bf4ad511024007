//! The schema table of a version 3 stream (`FORMAT.md`, "Schema table"): written by the encoder
//! after the objects, one entry per type the stream holds; indexed by the decoder before the
//! objects are read.
//!
//! ```text
//! table  = SCHEMA_MARK count:u32 entry{count} table-length:u32
//! entry  = length:u32 type-id:u32 fingerprint:u64 flags:u8 base-id:u32 name fields
//!          variant-count:u32 (variant-id:u32 name fields){variant-count}
//! fields = count:u32 (header:u32 field-flags:u8 sig-len:u8 name sig:u32{sig-len} [declared]){count}
//! name   = len:u16 utf8{len}
//! ```

use super::{DeclaredSchema, FieldSchema, Schema, TypeSchema, VariantSchema};
use crate::containers::MAP_TYPE_ID;
use crate::field::WireKind;
use crate::plain::signature::{is_well_formed, known_static_size, MAX_SIGNATURE_LEN};
use crate::plain::Reader;
use crate::rtti::RttiType;
use crate::wire::error::{corrupt, DecodeError, DecodeErrorKind};
use crate::wire::format::LENGTHS_VERSION;
use crate::wire::format::{FieldHeader, OBJECT_BIT, SCHEMA_MARK};
use crate::wire::stream_body;
use ahash::AHashMap;
use std::borrow::Cow;

/// Type entry flag: an enum.
const TYPE_ENUM: u8 = 1 << 0;
/// Type entry flag: abstract.
const TYPE_ABSTRACT: u8 = 1 << 1;
/// Field flag: `Weak` pointers.
const FIELD_WEAK: u8 = 1 << 0;
/// Field flag: the declared element type is a trait, named after the signature.
const FIELD_TRAIT: u8 = 1 << 1;
/// Field flag: the field is its type's identity (version 5; see [`for_version`]).
const FIELD_IDENTITY: u8 = 1 << 2;

/// Fewest bytes a type entry takes: length, ID, fingerprint, flags, base, an empty name, no
/// fields, no variants.
const MIN_ENTRY: usize = 4 + 4 + 8 + 1 + 4 + 2 + 4 + 4;
/// Fewest bytes a field entry takes: header, flags, signature length, an empty name.
const MIN_FIELD: usize = 4 + 1 + 1 + 2;
/// Fewest bytes a variant entry takes: ID, an empty name, no fields.
const MIN_VARIANT: usize = 4 + 2 + 4;
/// Longest name a table holds: longer ones are cut (at a character boundary).
const MAX_NAME_LEN: usize = u16::MAX as usize;

/// `types` with one descriptor per type ID: a type kept from a stream may share its ID with the
/// program's own (an abstract base the program has, copied to hold a section of a kept object),
/// and is written once when both describe it alike. `Err` with the ID when they differ.
pub(crate) fn one_per_id(
    types: &[&'static RttiType],
    written: &[(&'static RttiType, Vec<u8>)],
) -> Result<Vec<&'static RttiType>, &'static RttiType> {
    let entry = |rtti: &'static RttiType| -> &[u8] {
        written.iter().find(|(owner, _)| std::ptr::eq(*owner, rtti)).map_or_else(|| running_entry(rtti), |(_, e)| e)
    };
    let mut first: AHashMap<u32, &'static RttiType> = AHashMap::with_capacity(types.len());
    let mut distinct = Vec::with_capacity(types.len());
    for &rtti in types {
        match first.get(&rtti.id()) {
            None => {
                first.insert(rtti.id(), rtti);
                distinct.push(rtti);
            }
            Some(&earlier) if entry(earlier) == entry(rtti) => {}
            Some(_) => return Err(rtti),
        }
    }
    Ok(distinct)
}

/// Appends a whole table of `types`, in that order, for a stream of format `version`; a type
/// listed in `written` gets that entry instead of its running one (a type whose objects kept
/// fields it lacks).
pub(crate) fn write_table(
    types: &[&'static RttiType],
    written: &[(&'static RttiType, Vec<u8>)],
    version: u32,
    out: &mut Vec<u8>,
) {
    let start = out.len();
    out.extend_from_slice(&SCHEMA_MARK.to_le_bytes());
    out.extend_from_slice(&(types.len() as u32).to_le_bytes());
    for &rtti in types {
        let entry = match written.iter().find(|(owner, _)| std::ptr::eq(*owner, rtti)) {
            Some((_, entry)) => entry,
            None => running_entry(rtti),
        };
        out.extend_from_slice(&for_version(entry, version));
    }
    let length = (out.len() - start + 4) as u32;
    out.extend_from_slice(&length.to_le_bytes());
}

/// A table entry (length word first, well formed) as a stream of format `version` holds it: the
/// identity flag is version 5's, and readers of older versions refuse unknown flags, so an
/// older stream's entry goes without it (the field is then an ordinary one to every reader).
pub(crate) fn for_version(entry: &[u8], version: u32) -> Cow<'_, [u8]> {
    if version >= LENGTHS_VERSION {
        return Cow::Borrowed(entry);
    }
    let flags = field_flag_offsets(entry);
    if flags.iter().all(|&at| entry[at] & FIELD_IDENTITY == 0) {
        return Cow::Borrowed(entry);
    }
    let mut stripped = entry.to_vec();
    flags.iter().for_each(|&at| stripped[at] &= !FIELD_IDENTITY);
    Cow::Owned(stripped)
}

/// A whole schema table (`mark count entry{count} length`, checked) as [`for_version`] has each
/// entry; a fingerprint table as it is.
pub(crate) fn table_for_version(table: &[u8], version: u32) -> Cow<'_, [u8]> {
    let head = table.get(..8).filter(|head| head[..4] == SCHEMA_MARK.to_le_bytes());
    let (Some(head), false) = (head, version >= LENGTHS_VERSION) else { return Cow::Borrowed(table) };
    let mut out = head.to_vec();
    let mut at = 8;
    // Entries up to the table's length word.
    while let Some(word) = table.get(at..at + 4).filter(|_| at + 4 < table.len()) {
        let end = at + 4 + u32::from_le_bytes(word.try_into().expect("a word")) as usize;
        let Some(entry) = table.get(at..end) else { break };
        out.extend_from_slice(&for_version(entry, version));
        at = end;
    }
    out.extend_from_slice(&table[at..]);
    Cow::Owned(out)
}

/// Where each field's flag byte is in a well-formed entry (length word first): the types' and
/// each variant's fields. A malformed entry (never given: this crate wrote or checked every
/// entry it copies) ends the walk early.
fn field_flag_offsets(entry: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    let mut reader = Reader::new(entry);
    let mut walk = || -> Result<(), DecodeError> {
        reader.skip(4 + 4 + 8 + 1 + 4)?;
        skip_name(&mut reader)?;
        field_flags_in(&mut reader, &mut found)?;
        for _ in 0..reader.read_u32()? {
            reader.skip(4)?;
            skip_name(&mut reader)?;
            field_flags_in(&mut reader, &mut found)?;
        }
        Ok(())
    };
    let _ = walk();
    found
}

/// [`field_flag_offsets`] of one field list.
fn field_flags_in(reader: &mut Reader<'_>, found: &mut Vec<usize>) -> Result<(), DecodeError> {
    for _ in 0..reader.read_u32()? {
        let header = reader.read_u32()?;
        found.push(reader.offset());
        let [flags, sig_len] = reader.take_array::<2>()?;
        skip_name(reader)?;
        reader.skip(usize::from(sig_len) * 4)?;
        let plain =
            matches!(FieldHeader::unpack(header), Ok(Some(field)) if matches!(field.shape.kind, WireKind::Plain(_)));
        match (plain, flags & FIELD_TRAIT) {
            (true, _) => {}
            (false, 0) => reader.skip(4)?,
            (false, _) => skip_name(reader)?,
        }
    }
    Ok(())
}

fn encode_entry(rtti: &'static RttiType) -> Vec<u8> {
    schema_entry(&TypeSchema::of(rtti))
}

/// Appends the table entry a [`TypeSchema`] describes, length word first: the one encoding of an
/// entry, for running types (through [`TypeSchema::of`]) and for dynamic objects' types alike.
fn write_schema_entry(schema: &TypeSchema, out: &mut Vec<u8>) {
    let start = out.len();
    put(out, 0);
    put(out, schema.id);
    out.extend_from_slice(&schema.fingerprint.to_le_bytes());
    out.push((u8::from(schema.is_enum) * TYPE_ENUM) | (u8::from(schema.is_abstract) * TYPE_ABSTRACT));
    put(out, schema.base.unwrap_or(0));
    put_name(out, &schema.name);
    put_fields(out, &schema.fields);
    put(out, schema.variants.len() as u32);
    for variant in &schema.variants {
        put(out, variant.id);
        put_name(out, &variant.name);
        put_fields(out, &variant.fields);
    }
    let length = (out.len() - start - 4) as u32;
    out[start..start + 4].copy_from_slice(&length.to_le_bytes());
}

fn put(out: &mut Vec<u8>, word: u32) {
    out.extend_from_slice(&word.to_le_bytes());
}

fn put_name(out: &mut Vec<u8>, name: &str) {
    let mut len = name.len().min(MAX_NAME_LEN);
    while !name.is_char_boundary(len) {
        len -= 1;
    }
    out.extend_from_slice(&(len as u16).to_le_bytes());
    out.extend_from_slice(&name.as_bytes()[..len]);
}

fn put_fields(out: &mut Vec<u8>, fields: &[FieldSchema]) {
    put(out, fields.len() as u32);
    for field in fields {
        let is_trait = matches!(field.declared, Some(DeclaredSchema::Trait(_)));
        put(out, FieldHeader { id: field.id, shape: field.shape }.pack());
        out.push(
            (u8::from(field.weak) * FIELD_WEAK)
                | (u8::from(is_trait) * FIELD_TRAIT)
                | (u8::from(field.identity) * FIELD_IDENTITY),
        );
        // A signature too long for the table is left out: the field is matched by its header.
        let signature = if field.signature.len() > MAX_SIGNATURE_LEN { &[][..] } else { &field.signature[..] };
        out.push(signature.len() as u8);
        put_name(out, &field.name);
        signature.iter().for_each(|&word| put(out, word));
        match &field.declared {
            None => {}
            Some(DeclaredSchema::Type(id)) => put(out, *id),
            Some(DeclaredSchema::Trait(name)) => put_name(out, name),
        }
    }
}

/// `fields` of type `owner` checked as a stream's schema table entry is when read (IDs once
/// each, signatures well formed and fitting their sizes, flags where they belong), and as a
/// stream would hold them (names and signatures cut to what the table keeps): what fields
/// described by a value made elsewhere (a patch's kept set) must pass before they describe data.
pub(crate) fn checked_fields(owner: u32, fields: Vec<FieldSchema>) -> Result<Vec<FieldSchema>, DecodeError> {
    let schema = TypeSchema {
        id: owner,
        name: String::new(),
        base: None,
        is_enum: false,
        is_abstract: false,
        fields,
        variants: Vec::new(),
        fingerprint: 0,
    };
    let table = one_entry_table(&schema_entry(&schema));
    let index = TableIndex::read_table(&table)?;
    Ok(index.parse(&index.entries()[0])?.fields)
}

/// The entry `schema` describes (length word first).
pub(crate) fn schema_entry(schema: &TypeSchema) -> Vec<u8> {
    let mut entry = Vec::new();
    write_schema_entry(schema, &mut entry);
    entry
}

/// A whole table of one entry (length word first).
fn one_entry_table(entry: &[u8]) -> Vec<u8> {
    let mut table = Vec::new();
    put(&mut table, SCHEMA_MARK);
    put(&mut table, 1);
    table.extend_from_slice(entry);
    let length = table.len() as u32 + 4;
    put(&mut table, length);
    table
}

/// Where one type's entry is in a stream, and what the decoder checks first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EntryRef {
    pub type_id: u32,
    pub fingerprint: u64,
    /// Stream offset of the entry's first byte after its length word.
    pub offset: usize,
    /// Stream offset just past the entry.
    pub end: usize,
}

/// What lies between the mark and the length word of the table at `input[start..end]` (`end` is
/// where the trailer starts), once the mark is checked: the one framing of the schema table and
/// the fingerprint table that stands in for it.
pub(crate) fn table_body<'d>(
    input: &'d [u8],
    start: usize,
    end: usize,
    mark: u32,
    not_marked: &'static str,
) -> Result<Reader<'d>, DecodeError> {
    let mut reader = Reader::new(&input[..end]);
    reader.skip(start)?;
    let mark_at = reader.offset();
    if reader.read_u32()? != mark {
        return Err(corrupt(mark_at, not_marked));
    }
    Ok(reader.sub_reader(reader.remaining() - 4)?)
}

/// The entries of a stream's schema table, sorted by type ID.
pub(crate) struct TableIndex<'d> {
    input: &'d [u8],
    entries: Vec<EntryRef>,
    /// Whether fields may carry the identity flag: in the table of a version 5 stream, or in a
    /// table this crate made (of running types, of a graph's or a patch's entries).
    identity: bool,
}

impl<'d> TableIndex<'d> {
    /// Indexes the table at `input[start..end]` (`end` is where the trailer starts). Only each
    /// entry's ID and fingerprint are read here; an entry is parsed whole when a decoder needs it.
    pub(crate) fn read(input: &'d [u8], start: usize, end: usize) -> Result<Self, DecodeError> {
        // Only a version 5 stream's table may flag identities: an older version's never does.
        let version = input.get(4..8).map_or(0, |word| u32::from_le_bytes(word.try_into().expect("a word")));
        Self::read_with(input, start, end, version >= LENGTHS_VERSION)
    }

    /// Indexes a table made apart from any stream, which may flag identities (see the field).
    pub(crate) fn read_table(table: &'d [u8]) -> Result<Self, DecodeError> {
        Self::read_with(table, 0, table.len(), true)
    }

    fn read_with(input: &'d [u8], start: usize, end: usize, identity: bool) -> Result<Self, DecodeError> {
        let mut body = table_body(input, start, end, SCHEMA_MARK, "the schema table does not start with its mark")?;
        let count = body.read_count(MIN_ENTRY)?;
        let mut entries = Vec::with_capacity(count);
        for _ in 0..count {
            let length = body.read_u32()? as usize;
            let offset = body.offset();
            let mut entry = body.sub_reader(length)?;
            let type_id = entry.read_u32()?;
            let fingerprint = u64::from_le_bytes(entry.take_array()?);
            entries.push(EntryRef { type_id, fingerprint, offset, end: offset + length });
        }
        body.expect_end()?;
        // By offset too, so that a repeated type is reported where it repeats.
        entries.sort_unstable_by_key(|entry| (entry.type_id, entry.offset));
        if let Some(pair) = entries.windows(2).find(|pair| pair[0].type_id == pair[1].type_id) {
            return Err(corrupt(pair[1].offset, "the schema table describes a type twice"));
        }
        Ok(TableIndex { input, entries, identity })
    }

    pub(crate) fn entries(&self) -> &[EntryRef] {
        &self.entries
    }

    /// The entry of type `type_id`.
    pub(crate) fn get(&self, type_id: u32) -> Option<&EntryRef> {
        self.entries.binary_search_by_key(&type_id, |entry| entry.type_id).ok().map(|index| &self.entries[index])
    }

    /// `true` when the entry says exactly what the running type's own entry says, names aside:
    /// the check that makes a fingerprint match trustworthy without parsing or building anything.
    /// Comparing bytes, not only field headers, means a forged fingerprint cannot make a retyped
    /// field (`u32` stored, `f32` running) read as it is, and a corrupt detail (unknown flags, a
    /// malformed signature, a name that is not UTF-8) fails in [`parse`](Self::parse) instead of
    /// passing unseen. Malformed entries answer `false`.
    pub(crate) fn same_layout(&self, entry: &EntryRef, rtti: &'static RttiType) -> bool {
        let running = running_entry(rtti);
        // Both without their length word; the running entry is well formed (this crate wrote it).
        let mut ours = Reader::new(&running[4..]);
        let mut theirs = Reader::new(&self.input[entry.offset..entry.end]);
        let mut check = || -> Result<bool, DecodeError> {
            if !same_bytes(&mut ours, &mut theirs, 4 + 8 + 1 + 4)? || !same_name_slot(&mut ours, &mut theirs)? {
                return Ok(false);
            }
            if !same_field_list(&mut ours, &mut theirs, self.identity)? {
                return Ok(false);
            }
            let variants = ours.read_u32()?;
            if theirs.read_u32()? != variants {
                return Ok(false);
            }
            for _ in 0..variants {
                if !same_bytes(&mut ours, &mut theirs, 4)?
                    || !same_name_slot(&mut ours, &mut theirs)?
                    || !same_field_list(&mut ours, &mut theirs, false)?
                {
                    return Ok(false);
                }
            }
            Ok(theirs.is_empty())
        };
        check().unwrap_or(false)
    }

    /// The type name an entry records (`None` when it is malformed).
    pub(crate) fn name(&self, entry: &EntryRef) -> Option<String> {
        let mut reader = Reader::new(&self.input[..entry.end]);
        reader.skip(entry.offset + 4 + 8 + 1 + 4).ok()?;
        read_name(&mut reader).ok()
    }

    /// Parses an entry whole, checking it.
    pub(crate) fn parse(&self, entry: &EntryRef) -> Result<TypeSchema, DecodeError> {
        let mut reader = Reader::new(&self.input[..entry.end]);
        reader.skip(entry.offset)?;
        let id = reader.read_u32()?;
        let fingerprint = u64::from_le_bytes(reader.take_array()?);
        let flags_at = reader.offset();
        let [flags] = reader.take_array::<1>()?;
        if flags & !(TYPE_ENUM | TYPE_ABSTRACT) != 0 {
            return Err(corrupt(flags_at, "unknown schema type flags set"));
        }
        let base = reader.read_u32()?;
        let name = read_name(&mut reader)?;
        let fields = read_fields(&mut reader, self.identity)?;
        let count = reader.read_count(MIN_VARIANT)?;
        let mut variants = Vec::with_capacity(count);
        let mut ids = Vec::with_capacity(count);
        for _ in 0..count {
            let at = reader.offset();
            let id = reader.read_u32()?;
            ids.push((id, at));
            variants.push(VariantSchema {
                id,
                name: read_name(&mut reader)?,
                fields: read_fields(&mut reader, false)?,
            });
        }
        if let Some(offset) = first_repeat(ids) {
            return Err(corrupt(offset, "the schema table lists a variant twice"));
        }
        let is_enum = flags & TYPE_ENUM != 0;
        if !is_enum && !variants.is_empty() {
            return Err(corrupt(flags_at, "variants in the schema of a type that is not an enum"));
        }
        reader.expect_end()?;
        Ok(TypeSchema {
            id,
            name,
            base: (base != 0).then_some(base),
            is_enum,
            is_abstract: flags & TYPE_ABSTRACT != 0,
            fields,
            variants,
            fingerprint,
        })
    }

    /// Every entry parsed.
    pub(crate) fn schema(&self) -> Result<Schema, DecodeError> {
        let types = self.entries.iter().map(|entry| self.parse(entry)).collect::<Result<_, _>>()?;
        Ok(Schema::new(types))
    }
}

fn name_len(reader: &mut Reader<'_>) -> Result<usize, DecodeError> {
    Ok(usize::from(u16::from_le_bytes(reader.take_array()?)))
}

fn skip_name(reader: &mut Reader<'_>) -> Result<(), DecodeError> {
    let len = name_len(reader)?;
    Ok(reader.skip(len)?)
}

fn read_name(reader: &mut Reader<'_>) -> Result<String, DecodeError> {
    let offset = reader.offset();
    let len = name_len(reader)?;
    let bytes = reader.take(len)?;
    String::from_utf8(bytes.to_vec()).map_err(|_| corrupt(offset, "a name in the schema table is not UTF-8"))
}

/// The running type's table entry, encoded once.
fn running_entry(rtti: &'static RttiType) -> &'static [u8] {
    rtti.schema_cache().table_entry.get_or_init(|| encode_entry(rtti).into_boxed_slice())
}

/// Takes `n` bytes from both entries: `true` when they are equal.
fn same_bytes(ours: &mut Reader<'_>, theirs: &mut Reader<'_>, n: usize) -> Result<bool, DecodeError> {
    Ok(ours.take(n)? == theirs.take(n)?)
}

/// Skips a name in both entries (names may differ): `false` when the stored one is not UTF-8.
fn same_name_slot(ours: &mut Reader<'_>, theirs: &mut Reader<'_>) -> Result<bool, DecodeError> {
    skip_name(ours)?;
    let len = name_len(theirs)?;
    Ok(std::str::from_utf8(theirs.take(len)?).is_ok())
}

/// Compares a field list byte for byte, names aside, and the identity flag too: it says nothing of
/// the layout, so ours is ignored, and theirs where the table may carry it (`identity`; where it
/// may not, a set flag is a difference, which parsing the entry then reports).
fn same_field_list(ours: &mut Reader<'_>, theirs: &mut Reader<'_>, identity: bool) -> Result<bool, DecodeError> {
    let mut flagged = false;
    let count = ours.read_u32()?;
    if theirs.read_u32()? != count {
        return Ok(false);
    }
    for _ in 0..count {
        // Header, flags and signature length, read from our (well formed) entry.
        let (header, flags, sig_len) = match ours.rest() {
            [a, b, c, d, flags, sig_len, ..] => (u32::from_le_bytes([*a, *b, *c, *d]), *flags, *sig_len),
            _ => return Ok(false),
        };
        let (a, b) = (ours.take(6)?, theirs.take(6)?);
        // Their flag is let through only where a reader takes it (a field that can be an
        // identity, the first such in the list): anything else differs, and parsing reports it.
        let word = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let stored = if word & OBJECT_BIT == 0 { FieldHeader::unpack(word) } else { Ok(None) };
        let fits = matches!(stored, Ok(Some(field)) if crate::rtti::identity::identity_shape(field.shape));
        let theirs_flags = match b[4] & FIELD_IDENTITY != 0 && identity && fits && !flagged {
            true => {
                flagged = true;
                b[4] & !FIELD_IDENTITY
            }
            false => b[4],
        };
        let same_head = a[..4] == b[..4] && a[4] & !FIELD_IDENTITY == theirs_flags && a[5] == b[5];
        if !same_head || !same_name_slot(ours, theirs)? || !same_bytes(ours, theirs, usize::from(sig_len) * 4)? {
            return Ok(false);
        }
        if !matches!(FieldHeader::unpack(header), Ok(Some(field)) if matches!(field.shape.kind, WireKind::Plain(_))) {
            // The declared type: its ID, or the trait's name (compared too: it decides what fits).
            let declared = match (flags & FIELD_TRAIT, ours.rest()) {
                (0, _) => 4,
                (_, [low, high, ..]) => 2 + usize::from(u16::from_le_bytes([*low, *high])),
                _ => return Ok(false),
            };
            if !same_bytes(ours, theirs, declared)? {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// The fields of an entry; `identity`: the identity flag may be set.
fn read_fields(reader: &mut Reader<'_>, identity_allowed: bool) -> Result<Vec<FieldSchema>, DecodeError> {
    let count = reader.read_count(MIN_FIELD)?;
    let mut fields: Vec<FieldSchema> = Vec::with_capacity(count);
    let mut ids = Vec::with_capacity(count);
    for _ in 0..count {
        let offset = reader.offset();
        let word = reader.read_u32()?;
        if word & OBJECT_BIT != 0 {
            return Err(corrupt(offset, "a type header as a field of the schema table"));
        }
        let header = match FieldHeader::unpack(word) {
            Ok(Some(header)) => header,
            Ok(None) => return Err(corrupt(offset, "a terminator as a field of the schema table")),
            Err(what) => return Err(corrupt(offset, what)),
        };
        ids.push((header.id, offset));
        let [flags, len] = reader.take_array::<2>()?;
        let known = if identity_allowed { FIELD_WEAK | FIELD_TRAIT | FIELD_IDENTITY } else { FIELD_WEAK | FIELD_TRAIT };
        if flags & !known != 0 {
            return Err(corrupt(offset + 4, "unknown schema field flags set"));
        }
        let identity = flags & FIELD_IDENTITY != 0;
        if identity && !crate::rtti::identity::identity_shape(header.shape) {
            let why = "an identity flag on a field that is not a single plain value of a fixed size up to 16 bytes";
            return Err(corrupt(offset + 4, why));
        }
        if identity && fields.iter().any(|field| field.identity) {
            return Err(corrupt(offset + 4, "two identity fields in one entry of the schema table"));
        }
        let flags = flags & !FIELD_IDENTITY;
        let name = read_name(reader)?;
        let sig_at = reader.offset();
        let len = usize::from(len);
        let signature = (0..len).map(|_| reader.read_u32()).collect::<Result<Vec<_>, _>>()?;
        let plain = matches!(header.shape.kind, WireKind::Plain(_));
        let declared = if plain {
            if !signature.is_empty() && !is_well_formed(&signature) {
                return Err(corrupt(sig_at, "a malformed plain type signature in the schema table"));
            }
            if !signature_fits(&signature, header.shape.kind) {
                return Err(corrupt(sig_at, "a field's plain type contradicts its size in the schema table"));
            }
            None
        } else {
            if flags & FIELD_WEAK != 0 && header.shape.kind != WireKind::Pointer {
                return Err(corrupt(sig_at, "weak flag on a field of embedded objects in the schema table"));
            }
            let declared = match flags & FIELD_TRAIT {
                0 => DeclaredSchema::Type(reader.read_u32()?),
                _ => DeclaredSchema::Trait(read_name(reader)?),
            };
            // Only a map field has a signature among object fields: its keys'.
            let map = header.shape.kind == WireKind::Embedded && declared == DeclaredSchema::Type(MAP_TYPE_ID);
            let allowed = signature.is_empty() || (map && is_well_formed(&signature));
            if !allowed {
                return Err(corrupt(sig_at, "a field of objects with plain type facts in the schema table"));
            }
            Some(declared)
        };
        if plain && flags != 0 {
            return Err(corrupt(offset + 4, "pointer flags on a plain field in the schema table"));
        }
        fields.push(FieldSchema {
            id: header.id,
            name,
            shape: header.shape,
            signature,
            declared,
            weak: flags & FIELD_WEAK != 0,
            identity,
        });
    }
    if let Some(offset) = first_repeat(ids) {
        return Err(corrupt(offset, "the schema table lists a field twice"));
    }
    Ok(fields)
}

/// Where a key repeats among `(key, offset)` pairs: the later offset. Sorting, not a search per
/// key, so a hostile entry with 65,536 fields costs no more than reading it.
fn first_repeat<K: Ord>(mut keys: Vec<(K, usize)>) -> Option<usize> {
    keys.sort_unstable();
    keys.windows(2).find(|pair| pair[0].0 == pair[1].0).map(|pair| pair[1].1)
}

/// `false` when the signature names a type whose size the format fixes and the header disagrees.
fn signature_fits(sig: &[u32], kind: WireKind) -> bool {
    match (known_static_size(sig), kind) {
        (None, _) => true,
        (Some(size), WireKind::Plain(stored)) => size == stored.map(u32::from),
        (Some(_), _) => false,
    }
}

/// The schema a stream was written with ([`Schema::of_stream`]).
pub(crate) fn stored_schema(bytes: &[u8]) -> Result<Schema, DecodeError> {
    let body = stream_body(bytes)?;
    match body.schema {
        Some((start, end)) => TableIndex::read(bytes, start, end)?.schema(),
        None => Err(DecodeError::new(DecodeErrorKind::NoSchema, 4)),
    }
}

/// How many bytes of a stream its schema table (or fingerprint table) takes ([`Schema::size_in_stream`]).
pub(crate) fn table_size(bytes: &[u8]) -> Result<usize, DecodeError> {
    let body = stream_body(bytes)?;
    Ok(body.schema.or(body.fingerprints).map_or(0, |(start, end)| end - start))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::WireShape;

    fn field(id: u16, shape: WireShape, identity: bool) -> FieldSchema {
        let declared = (!matches!(shape.kind, WireKind::Plain(_))).then_some(DeclaredSchema::Type(77));
        FieldSchema { id, name: format!("f{id}"), shape, signature: Vec::new(), declared, weak: false, identity }
    }

    fn plain(size: Option<u8>) -> WireShape {
        WireShape { kind: WireKind::Plain(size), array: false }
    }

    #[test]
    fn an_identity_is_a_single_plain_value_of_a_fixed_size() {
        assert!(checked_fields(1, vec![field(1, plain(Some(8)), true)]).unwrap()[0].identity);
        assert!(checked_fields(1, vec![field(1, plain(Some(16)), true)]).is_ok());
        let refused = [
            field(1, plain(None), true),
            field(1, plain(Some(17)), true),
            field(1, WireShape { kind: WireKind::Plain(Some(8)), array: true }, true),
            field(1, WireShape { kind: WireKind::Pointer, array: false }, true),
            field(1, WireShape { kind: WireKind::Embedded, array: false }, true),
        ];
        for field in refused {
            let error = checked_fields(1, vec![field.clone()]).unwrap_err();
            assert!(error.to_string().contains("identity"), "{field:?}: {error}");
        }
        let two = vec![field(1, plain(Some(8)), true), field(2, plain(Some(4)), true)];
        assert!(checked_fields(1, two).unwrap_err().to_string().contains("two identity fields"));
    }

    #[test]
    fn a_variants_field_is_never_an_identity() {
        let variant = VariantSchema { id: 1, name: "On".into(), fields: vec![field(1, plain(Some(8)), true)] };
        let schema =
            TypeSchema { id: 9, name: "E".into(), is_enum: true, variants: vec![variant], ..TypeSchema::default() };
        let table = one_entry_table(&schema_entry(&schema));
        let index = TableIndex::read_table(&table).unwrap();
        let error = index.parse(&index.entries()[0]).unwrap_err();
        assert!(error.to_string().contains("unknown schema field flags"), "{error}");
    }

    #[test]
    fn older_versions_get_entries_without_the_identity_flag() {
        let fields =
            vec![field(1, WireShape { kind: WireKind::Pointer, array: true }, false), field(2, plain(Some(8)), true)];
        let schema = TypeSchema { id: 9, name: "T".into(), fields: fields.clone(), ..TypeSchema::default() };
        let with = schema_entry(&schema);
        let unmarked: Vec<FieldSchema> =
            fields.into_iter().map(|field| FieldSchema { identity: false, ..field }).collect();
        let without = schema_entry(&TypeSchema { fields: unmarked, ..schema });
        assert_ne!(with, without);
        assert_eq!(for_version(&with, 3).as_ref(), &without[..]);
        assert_eq!(for_version(&with, 4).as_ref(), &without[..]);
        assert_eq!(for_version(&with, 5).as_ref(), &with[..]);
        assert_eq!(table_for_version(&one_entry_table(&with), 4).as_ref(), &one_entry_table(&without)[..]);
    }
}
