//! The stream grammar (`FORMAT.md`): the stream header, type and field headers read in sequence,
//! the rule an embedded object's header follows, element counts and nesting depth, and the one
//! walk over an object's sections and fields that the decoder, its immutable pre-scan and the
//! skipper all use. The header layouts themselves are in [`format`]; beside them the errors a
//! decode reports ([`error`]), the limits it enforces ([`limits`]), the index of a stream's
//! top-level objects ([`index`]) and skipping what is not read ([`skip`]). The encoder, the
//! decoder and the tools above build on this floor; it knows the type model (field kinds, the
//! errors of field access) and nothing above it.

pub(crate) mod error;
pub mod format;
pub(crate) mod index;
pub(crate) mod limits;
pub(crate) mod skip;
mod write;

pub(crate) use write::{write_stream_header, write_trailer, write_trailer_v5, LengthSlot, WireWrite};

use crate::plain::Reader;
use error::{corrupt, DecodeError, DecodeErrorKind};
use format::MIN_TABLE;
use format::{
    FieldHeader, Trailer, TrailerV5, TypeHeader, WireKind, COMPACT_VERSION, FINGERPRINT_MARK, LENGTHS_VERSION, MAGIC,
    NEWEST_VERSION, NULL_TYPE_ID, OBJECT_BIT, OLDEST_VERSION, SCHEMA_VERSION, STREAM_HEADER_SIZE, TRAILER_CHECKSUM,
    TRAILER_COMPACT, TRAILER_SIZE, TRAILER_V5_SIZE, TYPE_HEADER_SIZE, VARIANT_TAG, WORD_SIZE,
};
use limits::Limits;

/// Checks the magic and returns the version, one this decoder reads.
pub(crate) fn read_stream_header(reader: &mut Reader<'_>) -> Result<u32, DecodeError> {
    let found = &reader.rest()[..reader.remaining().min(STREAM_HEADER_SIZE)];
    if found.len() < MAGIC.len() || found[..MAGIC.len()] != MAGIC {
        let found = found[..found.len().min(MAGIC.len())].to_vec();
        return Err(DecodeError::new(DecodeErrorKind::BadMagic { found }, 0));
    }
    reader.skip(MAGIC.len())?;
    let version = reader.read_u32()?;
    if !(OLDEST_VERSION..=NEWEST_VERSION).contains(&version) {
        return Err(DecodeError::new(DecodeErrorKind::UnsupportedVersion { version }, MAGIC.len()));
    }
    Ok(version)
}

/// A stream's objects: the input without its trailer (the stream header stays in front, so
/// offsets into it are offsets into the input).
pub(crate) struct Body<'a> {
    /// Stream header and objects.
    pub data: &'a [u8],
    /// How many top-level objects the trailer says there are (version 2); `None` for version 1.
    pub objects: Option<u32>,
    /// Where the schema table is (start, end) in the input (version 3).
    pub schema: Option<(usize, usize)>,
    /// Where the fingerprint table is instead (version 3, `SchemaTable::Fingerprints`).
    pub fingerprints: Option<(usize, usize)>,
    /// The objects are in compact form (version 4): the `compact` module turns them into normal
    /// ones before anything else reads them.
    pub compact: bool,
    /// The trailer carries a checksum.
    pub checksum: bool,
    /// Each top-level object records its length after its first type header (version 5).
    pub lengths: bool,
}

/// Checks the stream header and, for version 2, the trailer: it must be there (a stream cut short
/// has none), record the input's exact length, and match its checksum if it has one.
pub(crate) fn stream_body(input: &[u8]) -> Result<Body<'_>, DecodeError> {
    let version = read_stream_header(&mut Reader::new(input))?;
    if version == LENGTHS_VERSION {
        return body_v5(input);
    }
    if version == 1 {
        return Ok(Body { data: input, ..EMPTY_BODY });
    }
    let end = input.len().checked_sub(TRAILER_SIZE).filter(|&end| end >= STREAM_HEADER_SIZE);
    let trailer = end.and_then(|end| Trailer::from_bytes(input[end..].try_into().expect("TRAILER_SIZE bytes")));
    let (Some(end), Some(trailer)) = (end, trailer) else {
        return Err(DecodeError::new(DecodeErrorKind::MissingTrailer, input.len()));
    };
    // Version 4 is exactly the compact streams: the flag says so twice, so that a decoder that
    // reads the trailer before the version still refuses them.
    let compact = version == COMPACT_VERSION;
    let allowed = if compact { TRAILER_CHECKSUM | TRAILER_COMPACT } else { TRAILER_CHECKSUM };
    let recorded = (trailer.length, trailer.flags, trailer.checksum);
    let checksum = check_trailer(input, end, recorded, allowed, Trailer::CHECKSUM_OFFSET)?;
    if compact && trailer.flags & TRAILER_COMPACT == 0 {
        return Err(corrupt(end + 4, "a version 4 stream without the compact flag"));
    }
    let objects = Some(trailer.objects);
    if version < SCHEMA_VERSION {
        return Ok(Body { data: &input[..end], objects, compact, checksum, ..EMPTY_BODY });
    }
    // The table ends with its own length, so it is found from the trailer backwards.
    let missing = || corrupt(end, "a version 3 stream without its schema table");
    let length_at = end.checked_sub(WORD_SIZE).filter(|&at| at >= STREAM_HEADER_SIZE).ok_or_else(missing)?;
    let length = u32::from_le_bytes(input[length_at..end].try_into().expect("a word")) as usize;
    let start = end
        .checked_sub(length)
        .filter(|&start| start >= STREAM_HEADER_SIZE && length >= MIN_TABLE)
        .ok_or_else(|| corrupt(length_at, "the schema table's length does not fit the stream"))?;
    Ok(with_table(input, (start, end), Body { objects, compact, checksum, ..EMPTY_BODY }))
}

/// The checks every trailer shares: the recorded `(length, flags, checksum)` give the input's
/// length, no flag outside `allowed`, and a checksum (at `checksum_at` in the trailer, covering
/// every byte before it) that matches when flagged and is 0 when not. `true`: the stream carries
/// a checksum.
fn check_trailer(
    input: &[u8],
    end: usize,
    (length, flags, recorded): (u64, u32, u32),
    allowed: u32,
    checksum_at: usize,
) -> Result<bool, DecodeError> {
    if length != input.len() as u64 {
        let kind = DecodeErrorKind::LengthMismatch { recorded: length, actual: input.len() };
        return Err(DecodeError::new(kind, end));
    }
    if flags & !allowed != 0 {
        return Err(corrupt(end + 4, "unknown trailer flags set"));
    }
    let checksum = flags & TRAILER_CHECKSUM != 0;
    let covered = end + checksum_at;
    if !checksum && recorded != 0 {
        return Err(corrupt(covered, "a checksum without the checksum flag"));
    }
    if checksum {
        let computed = crc32fast::hash(&input[..covered]);
        if computed != recorded {
            return Err(DecodeError::new(DecodeErrorKind::ChecksumMismatch { recorded, computed }, covered));
        }
    }
    Ok(checksum)
}

/// A body with nothing found yet.
const EMPTY_BODY: Body<'static> = Body {
    data: &[],
    objects: None,
    schema: None,
    fingerprints: None,
    compact: false,
    checksum: false,
    lengths: false,
};

/// `body` with its objects before the table at `start..end` of `input`, and the table as the
/// schema or the fingerprint table its mark says (any other mark is the schema table reader's to
/// refuse).
fn with_table<'a>(input: &'a [u8], (start, end): (usize, usize), body: Body<'_>) -> Body<'a> {
    let at = Some((start, end));
    let body = Body { data: &input[..start], ..body };
    if input[start..start + WORD_SIZE] == FINGERPRINT_MARK.to_le_bytes() {
        Body { fingerprints: at, ..body }
    } else {
        Body { schema: at, ..body }
    }
}

/// [`stream_body`] of a version 5 stream: its 56-byte trailer says where the table starts and
/// holds the table's CRC, checked here whether or not the stream carries a whole checksum.
fn body_v5(input: &[u8]) -> Result<Body<'_>, DecodeError> {
    let end = input.len().checked_sub(TRAILER_V5_SIZE).filter(|&end| end >= STREAM_HEADER_SIZE);
    let trailer = end.and_then(|end| TrailerV5::from_bytes(input[end..].try_into().expect("TRAILER_V5_SIZE bytes")));
    let (Some(end), Some(trailer)) = (end, trailer) else {
        return Err(DecodeError::new(DecodeErrorKind::MissingTrailer, input.len()));
    };
    let recorded = (trailer.length, trailer.flags, trailer.checksum);
    let checksum = check_trailer(input, end, recorded, TRAILER_CHECKSUM, TrailerV5::CHECKSUM_OFFSET)?;
    if trailer.index != 0 {
        return Err(corrupt(end + 28, "an object index, which this build does not read"));
    }
    if trailer.index_crc != 0 {
        return Err(corrupt(end + 48, "a checksum of an object index, which this build does not read"));
    }
    if trailer.blocks != 0 {
        return Err(corrupt(end + 36, "data blocks, which this build does not read"));
    }
    // The table ends with its own length too: both must say where it starts.
    let start = usize::try_from(trailer.table)
        .ok()
        .filter(|&start| start >= STREAM_HEADER_SIZE && end.checked_sub(start).is_some_and(|len| len >= MIN_TABLE))
        .ok_or_else(|| corrupt(end + 20, "the trailer's table offset does not fit the stream"))?;
    let length = u32::from_le_bytes(input[end - WORD_SIZE..end].try_into().expect("a word")) as usize;
    if length != end - start {
        return Err(corrupt(end + 20, "the trailer's table offset and the table's length disagree"));
    }
    let computed = crc32fast::hash(&input[start..end]);
    if computed != trailer.table_crc {
        let kind = DecodeErrorKind::TableChecksumMismatch { recorded: trailer.table_crc, computed };
        return Err(DecodeError::new(kind, end + 44));
    }
    let body = Body { objects: Some(trailer.objects), checksum, lengths: true, ..EMPTY_BODY };
    Ok(with_table(input, (start, end), body))
}

/// Reads a type header; the next word must have [`OBJECT_BIT`] set.
pub(crate) fn type_header(reader: &mut Reader<'_>) -> Result<TypeHeader, DecodeError> {
    let offset = reader.offset();
    let meta = reader.read_u32()?;
    if meta & OBJECT_BIT == 0 {
        return Err(corrupt(offset, "expected a type header, found a field header"));
    }
    Ok(TypeHeader::unpack(meta, reader.read_u32()?))
}

/// Reads an embedded object's type header: instance 0 and no base bit. `None` for an empty slot
/// (the null type, which has no fields and no terminator).
pub(crate) fn embedded_header(reader: &mut Reader<'_>) -> Result<Option<u32>, DecodeError> {
    let offset = reader.offset();
    let header = type_header(reader)?;
    if header.instance != 0 || header.base {
        return Err(corrupt(offset, "an embedded object must start with instance 0 and no base bit"));
    }
    Ok((header.type_id != NULL_TYPE_ID).then_some(header.type_id))
}

/// Reads an enum's variant tag (its field header read): the ID of the variant the object holds.
pub(crate) fn variant_tag(reader: &mut Reader<'_>, header: &FieldHeader) -> Result<u32, DecodeError> {
    if header.shape != VARIANT_TAG {
        return Err(corrupt(reader.offset(), "an enum's variant tag must be a single plain value of 4 bytes"));
    }
    Ok(reader.read_u32()?)
}

/// Fails when `depth` is past the nesting limit.
pub(crate) fn check_depth(reader: &Reader<'_>, depth: usize, limits: &Limits) -> Result<(), DecodeError> {
    if depth > limits.max_depth {
        Err(DecodeError::new(DecodeErrorKind::TooDeep { limit: limits.max_depth }, reader.offset()))
    } else {
        Ok(())
    }
}

/// Fewest bytes one element of `kind` occupies on the wire, so that a count read from the input
/// can be checked against the bytes that remain. Plain elements of static size 0 take none: their
/// counts go against the reader's zero-size allowance.
pub(crate) fn min_elem_size(kind: WireKind) -> usize {
    match kind {
        WireKind::Plain(Some(size)) => usize::from(size),
        WireKind::Plain(None) | WireKind::Pointer => WORD_SIZE,
        WireKind::Embedded => TYPE_HEADER_SIZE,
    }
}

/// The element count of a field: for arrays read, then checked against the bytes left and the
/// array length limit; 1 otherwise.
#[inline]
pub(crate) fn field_count(
    reader: &mut Reader<'_>,
    header: &FieldHeader,
    limits: &Limits,
) -> Result<usize, DecodeError> {
    if !header.shape.array {
        return Ok(1);
    }
    let offset = reader.offset();
    let len = reader.read_count(min_elem_size(header.shape.kind))?;
    if len > limits.max_array_len {
        return Err(DecodeError::new(DecodeErrorKind::ArrayTooLong { len, limit: limits.max_array_len }, offset));
    }
    Ok(len)
}

/// What comes next inside an object.
pub(crate) enum Item {
    /// A field of the current section (its header read; its data is the visitor's to consume).
    Field(FieldHeader),
    /// A base section of the given type ID starts.
    Section(u32),
}

/// Walks one object whose first type header was read: every field of every section goes to
/// `visit` (which must consume the field's data), and the start of each base section too. An
/// embedded object (`embedded`) ends at its terminator; a top-level one at the end of the input or
/// before the next top-level object's header. Base sections must carry the object's `instance`.
#[inline(always)]
pub(crate) fn walk_object(
    reader: &mut Reader<'_>,
    instance: u32,
    embedded: bool,
    mut visit: impl FnMut(&mut Reader<'_>, Item) -> Result<(), DecodeError>,
) -> Result<(), DecodeError> {
    loop {
        let Some(word) = reader.peek_u32() else {
            return match (reader.is_empty(), embedded) {
                (true, false) => Ok(()),
                (true, true) => Err(corrupt(reader.offset(), "embedded object without a terminator")),
                (false, _) => Err(corrupt(reader.offset(), "stray bytes at the end of the stream")),
            };
        };
        if word & OBJECT_BIT != 0 {
            let header = TypeHeader::unpack(word, 0);
            match (header.base, embedded) {
                (true, _) if header.instance == instance => {
                    let section = type_header(reader)?;
                    visit(reader, Item::Section(section.type_id))?;
                    continue;
                }
                (true, _) => return Err(corrupt(reader.offset(), "base section of another instance")),
                (false, true) => return Err(corrupt(reader.offset(), "embedded object without a terminator")),
                (false, false) => return Ok(()),
            }
        }
        let offset = reader.offset();
        reader.skip(WORD_SIZE)?;
        match FieldHeader::unpack(word) {
            Ok(Some(header)) => visit(reader, Item::Field(header))?,
            Ok(None) if embedded => return Ok(()),
            Ok(None) => return Err(corrupt(offset, "terminator outside an embedded object")),
            Err(what) => return Err(corrupt(offset, what)),
        }
    }
}
