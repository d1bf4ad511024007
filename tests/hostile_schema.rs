//! Hostile schema tables: real version 3 streams whose table (or whose body, against its table)
//! was edited. Every corruption is an error naming a byte of the table, from the decoder and from
//! `stored_schema` alike, found without allocating what the table claims; a table that differs
//! from the running types without being corrupt is read through the evolved path, never by
//! reinterpreting bytes.

#[path = "common/schema_edit.rs"]
mod schema_edit;

use quickcheck::{quickcheck, TestResult};
use reflectable::plain::{PlainError, PlainType};
use reflectable::schema::Schema;
use reflectable::serializer::format::{FieldHeader, WireKind, STREAM_HEADER_SIZE, TRAILER_SIZE};
use reflectable::serializer::{BinarySerializer, DecodeError, DecodeErrorKind, DecodeEvent, SkipReason};
use reflectable::Reflectable;
use schema_edit::{set, set_word, splice, table, word, TableAt};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 590_000)]
struct Gauge {
    #[rtti(id = 1)]
    reading: u32,
    #[rtti(id = 2)]
    label: String,
    #[rtti(id = 3)]
    history: Vec<u16>,
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 590_001)]
enum Dial {
    #[default]
    #[rtti(id = 1)]
    Off,
    #[rtti(id = 2)]
    On {
        #[rtti(id = 1)]
        level: u32,
    },
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 590_002)]
struct Panel {
    #[rtti(id = 1, embedded)]
    gauge: Gauge,
    #[rtti(id = 2, embedded)]
    dial: Dial,
    #[rtti(id = 3)]
    shared: Option<Rc<RefCell<Gauge>>>,
}

const GAUGE: u32 = 590_000;
const DIAL: u32 = 590_001;
/// Where the root's first field header is: after the stream header and the root's type header.
const FIRST_FIELD: usize = STREAM_HEADER_SIZE + 8;

fn gauge() -> Gauge {
    Gauge { reading: 0x0102_0304, label: "pressure".into(), history: vec![7, 8, 9] }
}

fn gauge_stream() -> Vec<u8> {
    reflectable::to_vec(&gauge()).unwrap()
}

fn panel_stream() -> Vec<u8> {
    let panel = Panel {
        gauge: gauge(),
        dial: Dial::On { level: 3 },
        shared: Some(Rc::new(RefCell::new(Gauge { reading: 1, ..Gauge::default() }))),
    };
    reflectable::to_vec(&panel).unwrap()
}

/// Counts the heap bytes of the thread that is measuring, for [`peak_heap`].
struct Counting;

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
    static CURRENT: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counters are only
// bookkeeping (thread-local `Cell`s, which do not allocate).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if MEASURING.try_with(Cell::get).unwrap_or(false) {
            let now = CURRENT.with(Cell::get) + layout.size();
            CURRENT.with(|current| current.set(now));
            PEAK.with(|peak| peak.set(peak.get().max(now)));
        }
        // SAFETY: same layout contract as our caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if MEASURING.try_with(Cell::get).unwrap_or(false) {
            CURRENT.with(|current| current.set(current.get().saturating_sub(layout.size())));
        }
        // SAFETY: `ptr` was allocated by `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f`, returning its result and the peak heap growth while it ran.
fn peak_heap<R>(f: impl FnOnce() -> R) -> (R, usize) {
    CURRENT.with(|current| current.set(0));
    PEAK.with(|peak| peak.set(0));
    MEASURING.with(|flag| flag.set(true));
    let result = f();
    MEASURING.with(|flag| flag.set(false));
    (result, PEAK.with(Cell::get))
}

/// Decodes `bytes` (the root's type is whatever the stream holds) and reads its stored schema:
/// both must fail with `expected` at one offset, inside the table of `original` (the stream
/// before the edit; offsets up to the edit are the same), within a small heap.
fn assert_table_error(bytes: &[u8], expected: DecodeErrorKind) -> DecodeError {
    let (decoded, peak) =
        peak_heap(|| BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(bytes).map(drop));
    let error = decoded.expect_err("a corrupt table is an error");
    assert!(peak < 8 * bytes.len() + 4096, "peak heap {peak} for {} input bytes", bytes.len());
    assert_eq!(error.kind(), &expected, "{error}");
    let (schema, peak) = peak_heap(|| Schema::of_stream(bytes).map(drop));
    let schema_error = schema.expect_err("stored_schema refuses a corrupt table");
    assert!(peak < 8 * bytes.len() + 4096, "stored_schema: peak heap {peak} for {} input bytes", bytes.len());
    assert_eq!((schema_error.kind(), schema_error.offset()), (error.kind(), error.offset()));
    let offset = error.offset().expect("an offset");
    let end = bytes.len() - TRAILER_SIZE;
    let start = end.saturating_sub(word(bytes, end - 4) as usize);
    assert!((start.min(end - 4)..end).contains(&offset), "offset {offset} outside the table {start}..{end}: {error}");
    assert!(error.to_string().contains(&format!("at byte {offset}")), "{error}");
    error
}

fn corrupt(what: &'static str) -> DecodeErrorKind {
    DecodeErrorKind::Corrupt(what)
}

fn at_offset(error: &DecodeError, offset: usize) {
    assert_eq!(error.offset(), Some(offset), "{error}");
}

#[test]
fn the_test_streams_are_what_the_edits_expect() {
    let bytes = gauge_stream();
    let found = table(&bytes);
    assert_eq!(found.end - found.start, Schema::size_in_stream(&bytes).unwrap());
    let entry = found.entry(GAUGE);
    assert_eq!(entry.fields.len(), 3);
    assert_eq!(word(&bytes, entry.fields[0].sig_at), <u32 as PlainType>::TYPE_ID);
    assert_eq!(word(&bytes, FIRST_FIELD), FieldHeader::new(1, WireKind::Plain(Some(4)), false).pack());
    let panel = table(&panel_stream());
    assert_eq!(panel.entry(DIAL).variants.len(), 2);
}

#[test]
fn a_signature_contradicting_its_header_is_corrupt() {
    let bytes = gauge_stream();
    let reading = table(&bytes).entry(GAUGE).fields[0].clone();
    let wide = FieldHeader::new(1, WireKind::Plain(Some(8)), false).pack();
    let error = assert_table_error(
        &set_word(&bytes, reading.at, wide),
        corrupt("a field's plain type contradicts its size in the schema table"),
    );
    at_offset(&error, reading.sig_at);
}

/// The table matches the running type exactly, so every field header in the body must be one it
/// lists: an unlisted one is corruption, not a field to skip.
#[test]
fn an_undescribed_field_header_in_a_matching_type_is_corrupt() {
    let bytes = gauge_stream();
    let stray = FieldHeader::new(9, WireKind::Plain(Some(4)), false).pack();
    let edited = set_word(&bytes, FIRST_FIELD, stray);
    let error = BinarySerializer::new().decode::<Gauge>(&edited).unwrap_err();
    assert_eq!(error.kind(), &corrupt("a field header the stream's schema table does not describe"));
    at_offset(&error, FIRST_FIELD);
    // Without a table (the same body as version 1) the field is merely unknown: skipped.
    let mut v1 = edited[..table(&edited).start].to_vec();
    v1[4..8].copy_from_slice(&1u32.to_le_bytes());
    let (read, report) = BinarySerializer::new().decode_with_report::<Gauge>(&v1).unwrap();
    assert_eq!(read, Gauge { reading: 0, ..gauge() });
    assert_eq!(report.events().count(), 1);
}

/// A flipped fingerprint sends the type down the evolved path: the same fields read the same,
/// and a body header the table's shape contradicts is still caught.
#[test]
fn an_evolved_type_reads_its_fields_and_refuses_contradicting_headers() {
    let bytes = gauge_stream();
    let entry = table(&bytes).entry(GAUGE).clone();
    let evolved = set(&bytes, entry.fingerprint_at, &[bytes[entry.fingerprint_at] ^ 1]);
    let (read, report) = BinarySerializer::new().decode_with_report::<Gauge>(&evolved).unwrap();
    assert_eq!(read, gauge());
    assert!(report.is_empty(), "{report}");
    let narrow = FieldHeader::new(1, WireKind::Plain(Some(2)), false).pack();
    let error = BinarySerializer::new().decode::<Gauge>(&set_word(&evolved, FIRST_FIELD, narrow)).unwrap_err();
    assert_eq!(error.kind(), &corrupt("a field header the stream's schema table does not describe"));
    at_offset(&error, FIRST_FIELD);
}

fn retyped_skip(from: &str) -> DecodeEvent {
    DecodeEvent::FieldSkipped {
        type_name: "Gauge".into(),
        field_id: 1,
        field_name: Some("reading".into()),
        why: SkipReason::Retyped { from: from.into(), to: "u32".into() },
    }
}

/// A table entry with the running type's fingerprint but other fields (a collision, or a forger)
/// is not trusted: the field it retyped is skipped and reported, not reinterpreted.
#[test]
fn a_fingerprint_collision_does_not_reinterpret_a_retyped_field() {
    let bytes = gauge_stream();
    let reading = table(&bytes).entry(GAUGE).fields[0].clone();
    assert_eq!(reading.sig_at - reading.at, 6 + 2 + "reading".len());
    // Stored as u64 in the table and the body (4 more value bytes); fingerprint untouched.
    let table_u64 = set_word(
        &set_word(&bytes, reading.sig_at, <u64 as PlainType>::TYPE_ID),
        reading.at,
        FieldHeader::new(1, WireKind::Plain(Some(8)), false).pack(),
    );
    let body_u64 = set_word(&table_u64, FIRST_FIELD, FieldHeader::new(1, WireKind::Plain(Some(8)), false).pack());
    let wide = schema_edit::fix_trailer([&body_u64[..FIRST_FIELD + 8], &[0; 4], &body_u64[FIRST_FIELD + 8..]].concat());
    let (read, report) = BinarySerializer::new().decode_with_report::<Gauge>(&wide).unwrap();
    assert_eq!(read, Gauge { reading: 0, ..gauge() });
    assert_eq!(report.events().collect::<Vec<_>>(), [(&retyped_skip("u64"), 1)]);
    // Same header, other plain type (f32): only the signature differs, and that is enough.
    let as_f32 = set_word(&bytes, reading.sig_at, <f32 as PlainType>::TYPE_ID);
    let (read, report) = BinarySerializer::new().decode_with_report::<Gauge>(&as_f32).unwrap();
    assert_eq!(read, Gauge { reading: 0, ..gauge() }, "the f32's bytes are not read as a u32");
    assert_eq!(report.events().collect::<Vec<_>>(), [(&retyped_skip("f32"), 1)]);
    let strict = BinarySerializer::new().strict(true);
    assert!(matches!(strict.decode::<Gauge>(&as_f32).unwrap_err().kind(), DecodeErrorKind::DataLoss { .. }));
}

fn too_large(offset: usize) -> impl Fn(&DecodeErrorKind) -> bool {
    move |kind| matches!(kind, DecodeErrorKind::Plain(PlainError::LengthTooLarge { offset: at, .. }) if *at == offset)
}

fn unexpected_end(kind: &DecodeErrorKind) -> bool {
    matches!(kind, DecodeErrorKind::Plain(PlainError::UnexpectedEnd { .. }))
}

/// Decodes and reads the schema of `bytes`: both fail as `expected` says, inside the table, with
/// a small heap.
fn assert_table_error_like(bytes: &[u8], expected: impl Fn(&DecodeErrorKind) -> bool) -> DecodeError {
    let error = BinarySerializer::new()
        .decode::<Box<dyn reflectable::Reflectable>>(bytes)
        .map(drop)
        .expect_err("a corrupt table is an error");
    assert!(expected(error.kind()), "{error}");
    assert_table_error(bytes, error.into_kind())
}

#[test]
fn counts_of_four_billion_allocate_nothing() {
    let bytes = panel_stream();
    let found = table(&bytes);
    let types = set_word(&bytes, found.start + 4, u32::MAX);
    assert_table_error_like(&types, too_large(found.start + 4));
    let fields_at = found.entry(GAUGE).fields_count_at;
    assert_table_error_like(&set_word(&bytes, fields_at, u32::MAX), too_large(fields_at));
    let variants_at = found.entry(DIAL).variants_count_at;
    assert_table_error_like(&set_word(&bytes, variants_at, u32::MAX), too_large(variants_at));
    let variant_fields_at = found.entry(DIAL).variants[1].at + 4 + 2 + "On".len();
    assert_eq!(word(&bytes, variant_fields_at), 1);
    assert_table_error_like(&set_word(&bytes, variant_fields_at, u32::MAX), too_large(variant_fields_at));
}

#[test]
fn long_names_and_signatures_running_past_their_entry_are_errors() {
    let bytes = gauge_stream();
    let entry = table(&bytes).entry(GAUGE).clone();
    for name_at in [entry.name_at, entry.fields[1].name_at] {
        let error = assert_table_error_like(&set(&bytes, name_at, &[0xFF, 0xFF]), unexpected_end);
        at_offset(&error, name_at + 2);
    }
    // The last field's signature: 255 words claimed, 2 left in the entry.
    let history = &entry.fields[2];
    let error = assert_table_error_like(&set(&bytes, history.sig_len_at, &[255]), unexpected_end);
    assert!(error.offset().unwrap() <= entry.end, "{error}");
}

#[test]
fn repeated_types_fields_and_variants_are_corrupt() {
    let bytes = gauge_stream();
    let found = table(&bytes);
    let entry = found.entry(GAUGE).clone();
    let copy = bytes[entry.at..entry.end].to_vec();
    let twice = set_word(&splice(&bytes, entry.end, 0, &copy, None), found.start + 4, 2);
    let error = assert_table_error(&twice, corrupt("the schema table describes a type twice"));
    at_offset(&error, entry.end + 4);

    let label = &entry.fields[1];
    let as_reading = FieldHeader::new(1, WireKind::Plain(None), false).pack();
    let error =
        assert_table_error(&set_word(&bytes, label.at, as_reading), corrupt("the schema table lists a field twice"));
    at_offset(&error, label.at);

    let bytes = panel_stream();
    let on = table(&bytes).entry(DIAL).variants[1].clone();
    let error = assert_table_error(&set_word(&bytes, on.at, 1), corrupt("the schema table lists a variant twice"));
    at_offset(&error, on.at);
}

#[test]
fn unknown_flags_and_malformed_fields_are_corrupt() {
    let bytes = gauge_stream();
    let entry = table(&bytes).entry(GAUGE).clone();
    let [reading, label, history] = [&entry.fields[0], &entry.fields[1], &entry.fields[2]];
    let cases: Vec<(Vec<u8>, &str, usize)> = vec![
        (set(&bytes, entry.flags_at, &[0x80]), "unknown schema type flags set", entry.flags_at),
        (set(&bytes, reading.flags_at, &[0x04]), "unknown schema field flags set", reading.flags_at),
        (
            set(&bytes, reading.flags_at, &[0x01]),
            "pointer flags on a plain field in the schema table",
            reading.flags_at,
        ),
        (set(&bytes, reading.at, &[0x01]), "a type header as a field of the schema table", reading.at),
        (set_word(&bytes, reading.at, 0x08), "a terminator as a field of the schema table", reading.at),
        (set(&bytes, reading.at, &[0x08]), "terminator with other bits set", reading.at),
        (
            set(&bytes, history.sig_at, &<Vec<u8> as PlainType>::TYPE_ID.to_le_bytes()),
            "a malformed plain type signature in the schema table",
            history.sig_at,
        ),
        (set(&bytes, label.name_at + 2, &[0xFF]), "a name in the schema table is not UTF-8", label.name_at),
        (set(&bytes, entry.name_at + 2, &[0xC3]), "a name in the schema table is not UTF-8", entry.name_at),
    ];
    for (edited, what, offset) in cases {
        let error = assert_table_error(&edited, corrupt(what));
        at_offset(&error, offset);
    }
}

#[test]
fn an_entry_length_that_lies_is_an_error() {
    let bytes = panel_stream();
    let found = table(&bytes);
    for entry in &found.entries {
        let length = word(&bytes, entry.at);
        for lie in [length - 1, length + 1, length + 4, 0, u32::MAX] {
            let edited = set_word(&bytes, entry.at, lie);
            let error = BinarySerializer::new()
                .decode::<Box<dyn reflectable::Reflectable>>(&edited)
                .map(drop)
                .expect_err("a lying entry length");
            assert_table_error(&edited, error.into_kind());
        }
        // Four bytes of padding the entry's length covers (and the table's).
        let padded = splice(&bytes, entry.end, 0, &[0; 4], Some(entry.at));
        assert_table_error_like(&padded, |kind| {
            matches!(kind, DecodeErrorKind::Plain(PlainError::TrailingBytes { .. }))
        });
        // The variant count cut off, the entry's length saying so.
        let cut = splice(&bytes, entry.end - 4, 4, &[], Some(entry.at));
        assert_table_error_like(&cut, unexpected_end);
    }
}

#[test]
fn table_lengths_that_do_not_fit_and_a_missing_mark_are_corrupt() {
    let bytes = gauge_stream();
    let found = table(&bytes);
    let length_at = found.end - 4;
    for length in [0, 11, found.end as u32 - 7, found.end as u32 + 1, u32::MAX] {
        let error = assert_table_error(
            &set_word(&bytes, length_at, length),
            corrupt("the schema table's length does not fit the stream"),
        );
        at_offset(&error, length_at);
    }
    let mark = || corrupt("the schema table does not start with its mark");
    at_offset(&assert_table_error(&set(&bytes, found.start, &[0]), mark()), found.start);
    // A length that reaches back into the objects finds no mark there.
    let longer = (found.end - found.start + 8) as u32;
    let error = BinarySerializer::new()
        .decode::<Box<dyn reflectable::Reflectable>>(&set_word(&bytes, length_at, longer))
        .unwrap_err();
    assert_eq!((error.kind(), error.offset()), (&mark(), Some(found.start - 8)));
}

/// A version 3 stream without its table, or with part of it, whose trailer says so.
#[test]
fn a_table_cut_off_is_an_error() {
    let bytes = gauge_stream();
    let found = table(&bytes);
    for cut in found.start..found.end {
        let edited = schema_edit::fix_trailer([&bytes[..cut], &bytes[found.end..]].concat());
        assert!(BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(&edited).is_err(), "cut at {cut}");
        assert!(Schema::of_stream(&edited).is_err(), "cut at {cut}");
    }
}

#[test]
fn every_truncation_is_an_error() {
    for bytes in [gauge_stream(), panel_stream()] {
        for len in 0..bytes.len() {
            let error = BinarySerializer::new()
                .decode::<Box<dyn reflectable::Reflectable>>(&bytes[..len])
                .map(drop)
                .expect_err("a truncated stream");
            assert!(error.offset().is_some_and(|offset| offset <= len), "{error}");
            assert!(Schema::of_stream(&bytes[..len]).is_err());
        }
    }
}

quickcheck! {
    /// Byte flips and overwrites inside the table never panic, in the decoder or `stored_schema`,
    /// and a decode that succeeds still gives a `Panel`.
    fn flips_inside_the_table_never_panic(edits: Vec<(u16, u8)>) -> TestResult {
        thread_local! {
            static STREAM: (Vec<u8>, TableAt) = {
                let bytes = panel_stream();
                let found = table(&bytes);
                (bytes, found)
            };
        }
        STREAM.with(|(bytes, found)| {
            let mut edited = bytes.clone();
            for &(at, value) in &edits {
                edited[found.start + usize::from(at) % (found.end - found.start)] ^= value.max(1);
            }
            if let Ok((root, _)) = BinarySerializer::new().decode_with_report::<Panel>(&edited) {
                drop(root);
            }
            let _ = BinarySerializer::new().decode::<Box<dyn reflectable::Reflectable>>(&edited);
            let _ = Schema::of_stream(&edited);
            TestResult::passed()
        })
    }
}

/// An entry listing every field ID there is, and a body naming the last one over and over: the
/// decoder's work stays proportional to the input (it once searched the stored fields linearly,
/// for the repeat check and for every field header: billions of steps for a 1 MB input).
#[test]
fn an_entry_of_65535_fields_costs_what_its_bytes_cost() {
    let bytes = gauge_stream();
    let found = table(&bytes);
    let repeats = 100_000;
    let last = FieldHeader::new(u16::MAX, WireKind::Plain(Some(0)), false).pack().to_le_bytes();
    let body = schema_edit::fix_trailer([&bytes[..found.start], &last.repeat(repeats), &bytes[found.start..]].concat());
    let entry = table(&body).entry(GAUGE).clone();
    let mut fields = body[entry.fields_count_at + 4..entry.variants_count_at].to_vec();
    for id in 4..=u16::MAX {
        fields.extend_from_slice(&FieldHeader::new(id, WireKind::Plain(Some(0)), false).pack().to_le_bytes());
        fields.extend_from_slice(&[0; 4]); // flags, signature length, an empty name
    }
    let list = [&u32::from(u16::MAX).to_le_bytes()[..], &fields].concat();
    let count = entry.variants_count_at - entry.fields_count_at;
    let edited = splice(&body, entry.fields_count_at, count, &list, Some(entry.at));
    let started = std::time::Instant::now();
    let (read, report) = BinarySerializer::new().decode_with_report::<Gauge>(&edited).unwrap();
    let elapsed = started.elapsed();
    assert_eq!(read, gauge());
    let skipped = DecodeEvent::FieldSkipped {
        type_name: "Gauge".into(),
        field_id: u16::MAX,
        field_name: Some(String::new()),
        why: SkipReason::NotInType,
    };
    assert_eq!(report.count(&skipped), repeats as u64, "{report}");
    assert!(elapsed < std::time::Duration::from_secs(10), "{} bytes took {elapsed:?}", edited.len());
}
