//! Truncated, corrupt and hostile input: every decoder path returns an error (or a valid value),
//! never a panic, a hang, a stack overflow or an allocation the input does not justify.

#[path = "common/stream.rs"]
mod stream;
use stream::Stream;

#[path = "../examples/common/level.rs"]
mod level;

use quickcheck::{quickcheck, TestResult};
use reflectable::plain::PlainError;
use reflectable::serializer::format::{WireKind, EMPTY_SCHEMA_TABLE, FIELD_TERMINATOR, TRAILER_SIZE};
use reflectable::serializer::{BinarySerializer, DecodeErrorKind, ErrorFrame, Limits};
use reflectable::Reflectable;
use std::rc::Rc;

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 430_000)]
struct Door {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    hinges: Vec<u64>,
    #[rtti(id = 3, embedded)]
    inner: Option<Box<Door>>,
    #[rtti(id = 4)]
    next: Option<Rc<Door>>,
    #[rtti(id = 5)]
    many: Vec<Option<Rc<Door>>>,
}

/// Has none of `Door`'s fields: everything in a `Door` stream is skipped when decoded as this.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 430_001)]
struct Empty {}

fn serializer() -> BinarySerializer<'static> {
    BinarySerializer::new()
}

fn door_chain(depth: usize) -> Door {
    let mut door = Door { name: "leaf".into(), ..Door::default() };
    for i in 0..depth {
        door = Door {
            name: format!("d{i}"),
            hinges: vec![i as u64; i % 3],
            inner: Some(Box::new(door)),
            ..Door::default()
        };
    }
    door
}

fn samples() -> Vec<Vec<u8>> {
    let shared = Rc::new(door_chain(2));
    let root = Door {
        name: "root".into(),
        hinges: vec![1, 2, 3],
        inner: Some(Box::new(door_chain(3))),
        next: Some(shared.clone()),
        many: vec![Some(shared.clone()), None, Some(Rc::new(Door::default()))],
    };
    let (level, _) = level::build_level(20, 11);
    let checksummed = reflectable::serializer::BinarySerializer::new().checksum(true);
    let samples = vec![
        serializer().encode(&root).unwrap(),
        serializer().encode(&level).unwrap(),
        checksummed.encode(&level).unwrap(),
    ];
    level::break_cycles(&level);
    samples
}

/// A stream cut anywhere is an error (never a smaller graph and `Ok`), placed within the bytes
/// that remain.
#[test]
fn every_truncation_is_an_error() {
    for bytes in samples() {
        for len in 0..bytes.len() {
            match serializer().decode::<Box<dyn reflectable::Reflectable>>(&bytes[..len]) {
                Ok(_) => panic!("a stream of {} bytes cut at {len} decoded", bytes.len()),
                Err(error) => assert!(
                    error.offset().is_some_and(|offset| offset <= len),
                    "offset {:?} past the end {len}: {error}",
                    error.offset()
                ),
            }
        }
        // Bytes appended after the trailer are refused too.
        assert!(serializer().decode::<Box<dyn reflectable::Reflectable>>(&[&bytes[..], &[0]].concat()).is_err());
    }
}

#[test]
fn a_trailer_that_lies_is_an_error() {
    let bytes = serializer().encode(&door_chain(2)).unwrap();
    let end = bytes.len() - TRAILER_SIZE;
    let with = |at: usize, value: &[u8]| {
        let mut bytes = bytes.clone();
        bytes[end + at..end + at + value.len()].copy_from_slice(value);
        serializer().decode::<Box<dyn reflectable::Reflectable>>(&bytes).unwrap_err().into_kind()
    };
    assert_eq!(with(0, b"\xC8ENX"), DecodeErrorKind::MissingTrailer);
    assert!(matches!(with(4, &[2, 0, 0, 0]), DecodeErrorKind::Corrupt(_)), "unknown flags");
    assert_eq!(with(8, &[7, 0, 0, 0]), DecodeErrorKind::ObjectCountMismatch { recorded: 7, found: 1 });
    // The recorded count sizes the index, but never beyond what the input could hold.
    let most = u32::MAX.to_le_bytes();
    assert_eq!(with(8, &most), DecodeErrorKind::ObjectCountMismatch { recorded: u32::MAX, found: 1 });
    assert!(matches!(with(20, &[1, 0, 0, 0]), DecodeErrorKind::Corrupt(_)), "a checksum without its flag");
    let length = (bytes.len() as u64 + 1).to_le_bytes();
    assert_eq!(
        with(12, &length),
        DecodeErrorKind::LengthMismatch { recorded: bytes.len() as u64 + 1, actual: bytes.len() }
    );
    assert_eq!(
        with(4, &[1, 0, 0, 0]),
        DecodeErrorKind::ChecksumMismatch {
            recorded: 0,
            computed: crc32fast::hash(&{
                let mut flagged = bytes.clone();
                flagged[end + 4] = 1;
                flagged.truncate(bytes.len() - 4);
                flagged
            })
        }
    );
}

#[test]
fn a_tiny_input_claiming_four_billion_elements_is_an_error_not_an_allocation() {
    let bytes = Stream::new().object(1, 430_000).field(2, WireKind::Plain(Some(8)), true).word(u32::MAX).end();
    assert_eq!(bytes.len(), 24 + EMPTY_SCHEMA_TABLE.len() + TRAILER_SIZE);
    let error = serializer().decode::<Box<dyn reflectable::Reflectable>>(&bytes).unwrap_err();
    assert_eq!(
        *error.kind(),
        DecodeErrorKind::Plain(PlainError::LengthTooLarge { offset: 20, claimed: u32::MAX as u64, available: 0 })
    );
    assert_eq!(error.offset(), Some(20));
    // The same claim in a field the type does not know (skipped), and in pointer and embedded arrays.
    let skipped = Stream::new().object(1, 430_001).field(2, WireKind::Plain(Some(8)), true).word(u32::MAX).end();
    assert!(matches!(
        serializer().decode::<Box<dyn reflectable::Reflectable>>(&skipped).unwrap_err().kind(),
        DecodeErrorKind::Plain(PlainError::LengthTooLarge { .. })
    ));
    let pointers = Stream::new().object(1, 430_000).field(5, WireKind::Pointer, true).word(u32::MAX).end();
    assert!(matches!(
        serializer().decode::<Box<dyn reflectable::Reflectable>>(&pointers).unwrap_err().kind(),
        DecodeErrorKind::Plain(PlainError::LengthTooLarge { .. })
    ));
    let embedded = Stream::new().object(1, 430_000).field(3, WireKind::Embedded, true).word(u32::MAX).end();
    assert!(serializer().decode::<Box<dyn reflectable::Reflectable>>(&embedded).is_err());
}

/// A megabyte of nested embedded objects: the depth limit stops it, known fields and skipped ones
/// alike, long before the stack could overflow.
#[test]
fn maximal_nesting_hits_the_depth_limit() {
    let mut stream = Stream::new().object(1, 430_000);
    while stream.bytes.len() < 1 << 20 {
        stream = stream.field(3, WireKind::Embedded, false).object(0, 430_000);
    }
    let started = std::time::Instant::now();
    for root_type in [430_000u32, 430_001] {
        let mut bytes = stream.end_clone();
        bytes[12..16].copy_from_slice(&root_type.to_le_bytes());
        let error = serializer().decode::<Box<dyn reflectable::Reflectable>>(&bytes).unwrap_err();
        assert_eq!(*error.kind(), DecodeErrorKind::TooDeep { limit: 128 }, "root type {root_type}");
    }
    assert!(started.elapsed().as_secs() < 10);
    // Encoding refuses to write what decoding would refuse.
    assert!(serializer().encode(&door_chain(200)).is_err());
    assert!(serializer().encode(&door_chain(100)).is_ok());
}

#[test]
fn pointer_cycles_and_self_references_in_the_stream_terminate() {
    // 1 -> 1 (the root by value: null), 1 -> 2, 2 -> 3, 3 -> 2 and 3 -> 3, all immutable `Rc<Door>`.
    let bytes = Stream::new()
        .object(1, 430_000)
        .field(4, WireKind::Pointer, false)
        .word(1)
        .field(5, WireKind::Pointer, true)
        .word(3) // count
        .word(2)
        .word(2)
        .word(1)
        .object(2, 430_000)
        .field(4, WireKind::Pointer, false)
        .word(3)
        .object(3, 430_000)
        .field(4, WireKind::Pointer, false)
        .word(2)
        .field(5, WireKind::Pointer, true)
        .word(2) // count
        .word(1)
        .word(3)
        .end();
    let door: Door = serializer().decode(&bytes).unwrap();
    assert!(door.next.is_none(), "a pointer to the by-value root is null");
    let two = door.many[0].clone().unwrap();
    assert!(Rc::ptr_eq(&two, door.many[1].as_ref().unwrap()));
    assert!(door.many[2].is_none());
    let three = two.next.clone().unwrap();
    assert!(three.next.is_none(), "an immutable cycle cannot exist in memory: the back edge is null");
    assert_eq!(three.many.len(), 2);
    assert!(three.many.iter().all(Option::is_none));
}

#[test]
fn a_million_references_to_missing_objects_decode_quickly_as_nulls() {
    let count = 1_000_000u32;
    let mut stream = Stream::new().object(1, 430_000).field(5, WireKind::Pointer, true).word(count);
    for id in 0..count {
        stream.bytes.extend_from_slice(&(2 + id % 1000).to_le_bytes());
    }
    for instance in 2..1002 {
        stream = stream.object(instance, 999_999); // a type nobody registered
    }
    let started = std::time::Instant::now();
    let door: Door = serializer().decode(&stream.end()).unwrap();
    assert_eq!(door.many.len(), count as usize);
    assert!(door.many.iter().all(Option::is_none));
    assert!(started.elapsed().as_secs() < 10);

    // References past the objects the stream holds are an error.
    let bytes = Stream::new().object(1, 430_000).field(4, WireKind::Pointer, false).word(5).end();
    let error = serializer().decode::<Box<dyn reflectable::Reflectable>>(&bytes).unwrap_err();
    assert_eq!(*error.kind(), DecodeErrorKind::UnknownInstance { id: 5, count: 1 });
    assert_eq!(error.offset(), Some(20));
}

#[test]
fn corrupt_structure_is_reported_with_its_offset() {
    let reserved = Stream::new().object(1, 430_000).word(0x0001_00C0).end();
    let error = serializer().decode::<Box<dyn reflectable::Reflectable>>(&reserved).unwrap_err();
    assert_eq!((error.offset(), error.kind()), (Some(16), &DecodeErrorKind::Corrupt("reserved field header bits set")));

    let sequence = Stream::new().object(2, 430_000).end();
    let error = serializer().decode::<Box<dyn reflectable::Reflectable>>(&sequence).unwrap_err();
    assert_eq!(*error.kind(), DecodeErrorKind::InstanceOutOfSequence { expected: 1, found: 2 });

    // After the root, objects may come in any order, but their IDs must be 1 to their count.
    let root = || Stream::new().object(1, 430_000).field(5, WireKind::Pointer, true).word(3).word(2).word(2).word(3);
    let any_order = root().object(3, 430_000).field(2, WireKind::Plain(Some(8)), true).word(1).raw(&[3; 8]);
    let any_order = any_order.object(2, 430_000).field(2, WireKind::Plain(Some(8)), true).word(1).raw(&[2; 8]).end();
    let door: Door = serializer().decode(&any_order).unwrap();
    let hinges: Vec<u64> = door.many.iter().map(|target| target.as_ref().unwrap().hinges[0]).collect();
    assert_eq!(hinges, [0x0202_0202_0202_0202, 0x0202_0202_0202_0202, 0x0303_0303_0303_0303]);
    assert!(Rc::ptr_eq(door.many[0].as_ref().unwrap(), door.many[1].as_ref().unwrap()));
    let twice = root().object(2, 430_000).object(2, 430_000).end();
    let error = serializer().decode::<Box<dyn reflectable::Reflectable>>(&twice).unwrap_err();
    assert_eq!((error.offset(), error.kind()), (Some(44), &DecodeErrorKind::DuplicateInstance { id: 2 }));
    let gap = root().object(3, 430_000).object(4, 430_000).end();
    let error = serializer().decode::<Box<dyn reflectable::Reflectable>>(&gap).unwrap_err();
    assert_eq!((error.offset(), error.kind()), (Some(44), &DecodeErrorKind::InstanceOutOfRange { id: 4, count: 3 }));
    let second_root = root().object(1, 430_000).end();
    assert_eq!(
        *serializer().decode::<Box<dyn reflectable::Reflectable>>(&second_root).unwrap_err().kind(),
        DecodeErrorKind::DuplicateInstance { id: 1 }
    );

    let stray_terminator = Stream::new().object(1, 430_000).word(FIELD_TERMINATOR).end();
    assert!(matches!(
        serializer().decode::<Box<dyn reflectable::Reflectable>>(&stray_terminator).unwrap_err().kind(),
        DecodeErrorKind::Corrupt(_)
    ));

    let unterminated = Stream::new().object(1, 430_000).field(3, WireKind::Embedded, false).object(0, 430_000).end();
    assert!(matches!(
        serializer().decode::<Box<dyn reflectable::Reflectable>>(&unterminated).unwrap_err().kind(),
        DecodeErrorKind::Corrupt(_)
    ));

    let stray_bytes = Stream::new().object(1, 430_000).raw(&[1, 2]).end();
    assert!(matches!(
        serializer().decode::<Box<dyn reflectable::Reflectable>>(&stray_bytes).unwrap_err().kind(),
        DecodeErrorKind::Corrupt(_)
    ));

    let unknown_root = Stream::new().object(1, 999_999).end();
    assert_eq!(
        serializer().decode::<Box<dyn reflectable::Reflectable>>(&unknown_root).unwrap_err().into_kind(),
        DecodeErrorKind::UnknownRootType { type_id: 999_999 }
    );

    let wrong_root = Stream::new().object(1, 430_001).end();
    assert!(matches!(
        serializer().decode::<Door>(&wrong_root).unwrap_err().kind(),
        DecodeErrorKind::RootTypeMismatch { .. }
    ));
}

#[test]
fn errors_inside_fields_name_the_type_and_field() {
    let bytes =
        Stream::new().object(1, 430_000).field(1, WireKind::Plain(None), false).word(6).raw(&[0xff, 0xfe]).end();
    let error = serializer().decode::<Box<dyn reflectable::Reflectable>>(&bytes).unwrap_err();
    assert_eq!(error.offset(), Some(24));
    assert_eq!(error.context()[0], ErrorFrame { type_name: "Door".into(), field: Some("name".into()) });
    assert_eq!(
        error.to_string(),
        "decode error at byte 24 in Door.name: invalid data at byte 24: string is not valid UTF-8"
    );
}

quickcheck! {
    fn random_bytes_never_panic(body: Vec<u8>) -> bool {
        let _ = serializer().decode::<Box<dyn reflectable::Reflectable>>(&body);
        let _ = serializer().decode::<Box<dyn reflectable::Reflectable>>(&Stream::new().raw(&body).end());
        let _ = serializer().decode::<Box<dyn reflectable::Reflectable>>(&Stream::new().object(1, 430_000).raw(&body).end());
        true
    }

    fn mutated_encodings_never_panic(mutations: Vec<(u16, u8, u8)>) -> TestResult {
        for mut bytes in samples() {
            for &(position, value, how) in &mutations {
                let at = position as usize % bytes.len();
                match how % 4 {
                    0 => bytes[at] = value,
                    1 => bytes[at] ^= 1 << (value % 8),
                    2 => bytes.insert(at, value),
                    _ => { bytes.remove(at); }
                }
                if bytes.is_empty() {
                    break;
                }
            }
            if let Ok(root) = serializer().decode::<Box<dyn reflectable::Reflectable>>(&bytes) {
                // Whatever decoded must encode again.
                if let Some(level) = root.downcast_ref::<level::Level>() {
                    let _ = serializer().encode(level);
                    level::break_cycles(level);
                }
            }
        }
        TestResult::passed()
    }
}

static LIVE: std::sync::atomic::AtomicIsize = std::sync::atomic::AtomicIsize::new(0);

/// Counts its live instances.
#[derive(Reflectable)]
#[rtti(id = 430_010)]
struct Counted {
    #[rtti(id = 1)]
    next: Option<Rc<std::cell::RefCell<Counted>>>,
    #[rtti(id = 2)]
    name: String,
    #[rtti(id = 3)]
    watch: std::rc::Weak<std::cell::RefCell<Counted>>,
    #[rtti(id = 4)]
    other: Option<Rc<std::cell::RefCell<Counted>>>,
}

impl Default for Counted {
    fn default() -> Self {
        LIVE.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Counted { next: None, name: String::new(), watch: std::rc::Weak::new(), other: None }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn a_failed_decode_frees_the_cycles_it_built() {
    // 1 -> 2, 2 -> 3, 3 -> 2 (a cycle), then 3's name is not UTF-8: decoding fails after the cycle
    // is closed.
    let cycle = || {
        Stream::new()
            .object(1, 430_010)
            .field(1, WireKind::Pointer, false)
            .word(2)
            .object(2, 430_010)
            .field(1, WireKind::Pointer, false)
            .word(3)
            .object(3, 430_010)
            .field(1, WireKind::Pointer, false)
            .word(2)
    };
    let bytes = cycle().field(2, WireKind::Plain(None), false).word(6).raw(&[0xff, 0xfe]).end();
    assert!(serializer().decode::<Box<dyn reflectable::Reflectable>>(&bytes).is_err());
    assert_eq!(LIVE.load(std::sync::atomic::Ordering::SeqCst), 0, "every object built was freed");
    // The same graph without the bad bytes decodes, and break_cycles frees it.
    let good = cycle().end();
    let root: Counted = serializer().decode(&good).unwrap();
    assert_eq!(LIVE.load(std::sync::atomic::Ordering::SeqCst), 3);
    reflectable::rtti::break_cycles(&root);
    drop(root);
    assert_eq!(LIVE.load(std::sync::atomic::Ordering::SeqCst), 0);

    // A successful decode that builds objects the result does not hold strongly: instance 2 is
    // reached only through a weak pointer and points at itself; instances 3 and 4 are of another
    // type than the field pointing at them expects, and form a cycle. All of them must be freed.
    let bytes = Stream::new()
        .object(1, 430_010)
        .field(3, WireKind::Pointer, false)
        .word(2)
        .field(4, WireKind::Pointer, false)
        .word(3)
        .object(2, 430_010)
        .field(1, WireKind::Pointer, false)
        .word(2)
        .object(3, 430_011)
        .field(1, WireKind::Pointer, false)
        .word(4)
        .object(4, 430_011)
        .field(1, WireKind::Pointer, false)
        .word(3)
        .end();
    let root: Counted = serializer().decode(&bytes).unwrap();
    assert!(root.watch.upgrade().is_none() && root.other.is_none());
    assert_eq!(LIVE.load(std::sync::atomic::Ordering::SeqCst), 1, "only the root is alive");
    drop(root);
    assert_eq!(LIVE.load(std::sync::atomic::Ordering::SeqCst), 0);

    // Orphans found from the stream's strong pointers alone (no refused target, no hook): 2 and 4
    // form a cycle reached only through the root's weak pointer, so they are freed; 5, first
    // reached through 2's weak pointer, is then held strongly by 3 (held by the root) and keeps its
    // strong pointer to itself.
    let bytes = Stream::new()
        .object(1, 430_010)
        .field(3, WireKind::Pointer, false)
        .word(2)
        .field(1, WireKind::Pointer, false)
        .word(3)
        .object(2, 430_010)
        .field(1, WireKind::Pointer, false)
        .word(4)
        .field(3, WireKind::Pointer, false)
        .word(5)
        .object(3, 430_010)
        .field(1, WireKind::Pointer, false)
        .word(5)
        .object(4, 430_010)
        .field(1, WireKind::Pointer, false)
        .word(2)
        .object(5, 430_010)
        .field(1, WireKind::Pointer, false)
        .word(5)
        .end();
    let root: Counted = serializer().decode(&bytes).unwrap();
    assert!(root.watch.upgrade().is_none(), "the weak-only cycle was freed");
    let kept = root.next.as_ref().expect("instance 3").borrow().next.clone().expect("instance 5");
    assert!(Rc::ptr_eq(kept.borrow().next.as_ref().expect("its pointer to itself"), &kept));
    assert_eq!(LIVE.load(std::sync::atomic::Ordering::SeqCst), 3, "the root, 3 and 5");
    drop(kept);
    reflectable::rtti::break_cycles(&root);
    drop(root);
    assert_eq!(LIVE.load(std::sync::atomic::Ordering::SeqCst), 0);
}

/// Another type, so a `Counted` field refuses it.
#[derive(Reflectable)]
#[rtti(id = 430_011)]
struct CountedOther {
    #[rtti(id = 1)]
    next: Option<Rc<std::cell::RefCell<CountedOther>>>,
}

impl Default for CountedOther {
    fn default() -> Self {
        LIVE.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        CountedOther { next: None }
    }
}

impl Drop for CountedOther {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn each_limit_has_its_own_error() {
    let root = Door {
        name: "root".into(),
        hinges: vec![7; 100],
        many: (0..10).map(|_| Some(Rc::new(Door::default()))).collect(),
        ..Door::default()
    };
    let bytes = serializer().encode(&root).unwrap();
    let decode = |limits: Limits| {
        BinarySerializer::new()
            .limits(limits)
            .decode::<Box<dyn reflectable::Reflectable>>(&bytes)
            .map(drop)
            .map_err(|e| e.into_kind())
    };
    assert_eq!(decode(Limits::default()), Ok(()));
    assert_eq!(
        decode(Limits { max_objects: 5, ..Limits::default() }),
        Err(DecodeErrorKind::TooManyObjects { limit: 5 })
    );
    assert_eq!(
        decode(Limits { max_array_len: 50, ..Limits::default() }),
        Err(DecodeErrorKind::ArrayTooLong { len: 100, limit: 50 })
    );
    assert_eq!(
        decode(Limits { max_allocation: Some(500), ..Limits::default() }),
        Err(DecodeErrorKind::AllocationLimit { limit: 500 })
    );
    let nested = serializer().encode(&door_chain(10)).unwrap();
    let error = BinarySerializer::new()
        .limits(Limits { max_depth: 5, ..Limits::default() })
        .decode::<Box<dyn reflectable::Reflectable>>(&nested);
    assert_eq!(error.unwrap_err().into_kind(), DecodeErrorKind::TooDeep { limit: 5 });
    // The default budget follows the input size.
    assert_eq!(Limits::default().allocation_budget(1000), 32 * 1000 + (1 << 20));
}

/// A link of a chain behind `RefCell`s.
#[derive(Reflectable, Default)]
#[rtti(id = 430_020)]
struct Link {
    #[rtti(id = 1)]
    next: Option<Rc<std::cell::RefCell<Link>>>,
}

/// `n` objects of `type_id`, each pointing through field `field` at the next (`forward`), or
/// written backwards: the root points at the last object, and each object at the one before it.
fn chain(type_id: u32, field: u16, n: u32, forward: bool) -> Vec<u8> {
    let mut stream = Stream::new();
    for instance in 1..=n {
        let next = match (forward, instance) {
            (true, last) if last == n => 0,
            (true, instance) => instance + 1,
            (false, 1) => n,
            (false, 2) => 0,
            (false, instance) => instance - 1,
        };
        stream = stream.object(instance, type_id).field(field, WireKind::Pointer, false).word(next);
    }
    stream.end()
}

/// Rust drops a chain of `Rc`s recursively: a file holding a long one decoded fine, then crashed
/// the program that dropped it. Now such a graph is an error, the decoder frees what it built
/// without recursing, and a chain the thread's stack can drop loads and drops on the smallest
/// default thread stack.
#[test]
fn a_chain_too_long_to_drop_is_an_error_and_nothing_overflows() {
    let on_a_small_stack = std::thread::Builder::new().stack_size(2 << 20).spawn(|| {
        for forward in [true, false] {
            for (type_id, field) in [(430_000, 4), (430_020, 1)] {
                let error = serializer()
                    .decode::<Box<dyn reflectable::Reflectable>>(&chain(type_id, field, 200_000, forward))
                    .unwrap_err();
                let DecodeErrorKind::DropTooDeep { length, stack, limit } = *error.kind() else {
                    panic!("type {type_id}, forward {forward}: {error}")
                };
                assert_eq!(length, 200_000, "type {type_id}, forward {forward}");
                assert!(stack > limit && limit < 2 << 20, "{stack} > {limit}");
            }
        }
        drop(serializer().decode::<Door>(&chain(430_000, 4, 2_000, false)).unwrap());
        drop(serializer().decode::<Link>(&chain(430_020, 1, 2_000, true)).unwrap());
        let longer = Limits { max_drop_stack: Some(usize::MAX), ..Limits::default() };
        let bytes = chain(430_020, 1, 10_000, true);
        let link = BinarySerializer::new().limits(longer).decode::<Box<dyn reflectable::Reflectable>>(&bytes).unwrap();
        // A long mutable chain one built on purpose is torn down without recursion.
        reflectable::rtti::break_cycles(&*link);
    });
    on_a_small_stack.unwrap().join().expect("no stack overflow, no panic");
}

/// Zero-size elements take no bytes, so their counts cannot be checked against the input: a
/// decode admits 2^24 in all, shared by every array of the stream.
#[test]
fn counts_of_zero_size_elements_are_bounded_by_the_stream() {
    #[derive(reflectable::PlainType, Default, Clone, Copy)]
    #[plain(id = 4300)]
    struct Nothing;

    #[derive(Reflectable, Default)]
    #[rtti(id = 430_030)]
    struct Nothings {
        #[rtti(id = 1)]
        many: Vec<Nothing>,
        #[rtti(id = 2, plain)]
        whole: Vec<Nothing>,
    }

    let started = std::time::Instant::now();
    let claim = |field: u16, kind: WireKind, array: bool, count: u32| {
        let stream = Stream::new().object(1, 430_030).field(field, kind, array);
        let stream = if array { stream.word(count) } else { stream.word(8).word(count) };
        serializer().decode::<Box<dyn reflectable::Reflectable>>(&stream.end())
    };
    // As an array field, and as a plain `Vec` (a dynamic element: size 8, then the count).
    for (field, kind, array) in [(1, WireKind::Plain(Some(0)), true), (2, WireKind::Plain(None), false)] {
        let error = claim(field, kind, array, u32::MAX).unwrap_err();
        assert!(matches!(error.kind(), DecodeErrorKind::Plain(PlainError::TooManyZeroSized { .. })), "{error}");
        assert!(claim(field, kind, array, 1 << 20).is_ok());
    }
    // Many arrays share one allowance: 300 arrays of 2^16 each are 2^24 * 1.17.
    let mut stream = Stream::new().object(1, 430_030);
    for _ in 0..300 {
        stream = stream.field(1, WireKind::Plain(Some(0)), true).word(1 << 16);
    }
    assert!(serializer().decode::<Box<dyn reflectable::Reflectable>>(&stream.end()).is_err());
    assert!(started.elapsed().as_secs() < 5);
}

/// A plain type of static size 0.
#[derive(reflectable::PlainType, Default, Clone, Copy)]
#[plain(id = 4301)]
struct Unit;

#[derive(Reflectable, Default)]
#[rtti(id = 430_040)]
struct ZeroRoot {
    #[rtti(id = 1)]
    holders: Vec<Rc<std::cell::RefCell<ZeroHolder>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 430_041)]
struct ZeroHolder {
    #[rtti(id = 1)]
    units: Option<Rc<ZeroUnits>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 430_042)]
struct ZeroUnits {
    #[rtti(id = 1)]
    units: std::collections::VecDeque<Unit>,
}

/// Immutable pointees are decoded inside the body of the object that points at them: they must
/// spend the same zero-size allowance, or every such object would get it whole again (a 13 KB
/// input took 1.4 s before).
#[test]
fn nested_object_bodies_share_one_zero_size_allowance() {
    let units = || Rc::new(ZeroUnits { units: std::iter::repeat_n(Unit, (1 << 23) + 1).collect() });
    let holder = |units| Rc::new(std::cell::RefCell::new(ZeroHolder { units: Some(units) }));
    let three = ZeroRoot { holders: vec![holder(units()), holder(units()), holder(units())] };
    let error =
        serializer().decode::<Box<dyn reflectable::Reflectable>>(&serializer().encode(&three).unwrap()).unwrap_err();
    assert!(matches!(error.kind(), DecodeErrorKind::Plain(PlainError::TooManyZeroSized { .. })), "{error}");
    let one = ZeroRoot { holders: vec![holder(units())] };
    assert!(serializer().decode::<Box<dyn reflectable::Reflectable>>(&serializer().encode(&one).unwrap()).is_ok());
}
