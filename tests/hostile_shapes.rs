//! Hostile input against the newer shapes: reflectable enums (the variant tag), object maps and
//! nested lists (the built-in container types), and generic instantiations. Every stream here is
//! assembled by hand from the format's constants (`FORMAT.md`), so each test says exactly which
//! bytes the decoder gets and what it must make of them.

#[path = "common/stream.rs"]
mod stream;
use stream::Stream;

use reflectable::containers::{LIST_TYPE_ID, MAP_TYPE_ID};
use reflectable::plain::PlainError;
use reflectable::rtti::derived_instantiation_id;
use reflectable::serializer::format::{WireKind, VARIANT_TAG_FIELD_ID};
use reflectable::serializer::{BinarySerializer, DecodeError, DecodeErrorKind, Limits};
use reflectable::{Reflectable, RttiTypeBuilder};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 560_000)]
struct Item {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    weight: u32,
}

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 560_001)]
enum Shape {
    #[default]
    #[rtti(id = 1)]
    Empty,
    #[rtti(id = 2)]
    Circle {
        #[rtti(id = 1)]
        radius: u32,
        #[rtti(id = 2)]
        tags: Vec<u16>,
    },
    #[rtti(id = 3)]
    Held(#[rtti(id = 1)] Option<Rc<RefCell<Item>>>, #[rtti(id = 2, embedded)] Item),
}

/// An embedded enum whose owner's constructor puts a non-default variant there: an unknown tag
/// must reset it to the enum's default, not keep the owner's.
#[derive(Reflectable, Debug)]
#[rtti(id = 560_002)]
struct Slot {
    #[rtti(id = 1, embedded)]
    shape: Shape,
    #[rtti(id = 2)]
    after: u32,
    #[rtti(id = 3)]
    shared: Option<Rc<RefCell<Shape>>>,
}

impl Default for Slot {
    fn default() -> Self {
        Slot { shape: Shape::Circle { radius: 5, tags: vec![1] }, after: 0, shared: None }
    }
}

/// Maps, nested lists and slots whose declared type is not a container.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 560_003)]
struct Store {
    #[rtti(id = 1)]
    items: HashMap<String, Rc<RefCell<Item>>>,
    #[rtti(id = 2, embedded)]
    shapes: BTreeMap<u32, Shape>,
    #[rtti(id = 3)]
    lists: Vec<Vec<Rc<RefCell<Item>>>>,
    #[rtti(id = 4, embedded)]
    item: Option<Item>,
    #[rtti(id = 5, embedded)]
    boxed: Option<Boxed<Item>>,
    #[rtti(id = 6)]
    any: Option<Rc<RefCell<dyn Reflectable>>>,
    #[rtti(id = 7)]
    tail: u32,
}

/// Field 0 of a struct is an ordinary field, not a variant tag.
#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 560_004)]
struct ZeroField {
    #[rtti(id = 0)]
    first: u64,
    #[rtti(id = 1)]
    second: u32,
}

/// A generic type; no instantiation of it is registered.
#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 560_010)]
struct Boxed<T: Reflectable + Default> {
    #[rtti(id = 1, embedded)]
    value: T,
    #[rtti(id = 2)]
    count: u32,
}

fn serializer() -> BinarySerializer<'static> {
    BinarySerializer::new()
}

fn decode_as<T: Reflectable + Default>(bytes: &[u8]) -> Result<T, DecodeError> {
    serializer().decode(bytes)
}

/// The map object of `Store::items`: `keys` strings and `values` instance IDs.
fn items_map(stream: Stream, keys: &[&str], values: &[u32]) -> Stream {
    let mut stream = stream
        .field(1, WireKind::Embedded, false)
        .embedded(MAP_TYPE_ID)
        .field(1, WireKind::Plain(None), true)
        .word(keys.len() as u32);
    for key in keys {
        stream = stream.string(key);
    }
    stream = stream.field(2, WireKind::Pointer, true).word(values.len() as u32);
    for &value in values {
        stream = stream.word(value);
    }
    stream.end_object()
}

/// Top-level `Item` objects from instance `first` on, named after their instance.
fn items(mut stream: Stream, first: u32, count: u32) -> Stream {
    for instance in first..first + count {
        stream =
            stream.object(instance, 560_000).field(1, WireKind::Plain(None), false).string(&format!("i{instance}"));
    }
    stream
}

fn names(store: &Store) -> BTreeMap<String, String> {
    store.items.iter().map(|(key, item)| (key.clone(), item.borrow().name.clone())).collect()
}

#[test]
fn an_unknown_variant_tag_loads_the_default_variant_and_the_rest_of_the_object() {
    // Slot { shape: <tag u32::MAX, then fields of that unknown variant>, after: 77 }
    let stream = Stream::new()
        .object(1, 560_002)
        .field(1, WireKind::Embedded, false)
        .embedded(560_001)
        .tag(u32::MAX)
        .u32_field(1, 9)
        .field(2, WireKind::Plain(Some(2)), true)
        .word(2)
        .word(0x0004_0003)
        .field(2, WireKind::Embedded, false)
        .embedded(560_000)
        .u32_field(2, 3)
        .end_object()
        .end_object()
        .u32_field(2, 77);
    let slot: Slot = decode_as(&stream.end()).unwrap();
    assert_eq!(slot.shape, Shape::Empty, "reset to the enum's default, not the owner's Circle");
    assert_eq!(slot.after, 77);

    // As the root, and behind a shared pointer.
    let root = Stream::new().object(1, 560_001).tag(u32::MAX).u32_field(1, 9).end();
    assert_eq!(decode_as::<Shape>(&root).unwrap(), Shape::Empty);
    let shared = Stream::new()
        .object(1, 560_002)
        .field(3, WireKind::Pointer, false)
        .word(2)
        .u32_field(2, 78)
        .object(2, 560_001)
        .tag(u32::MAX)
        .u32_field(1, 9)
        .end();
    let slot: Slot = decode_as(&shared).unwrap();
    assert_eq!(*slot.shared.expect("the object is built").borrow(), Shape::Empty);
    assert_eq!(slot.after, 78);
}

#[test]
fn a_variant_tag_of_the_wrong_shape_is_an_error_at_its_offset() {
    let wrong_shapes = [
        (WireKind::Plain(Some(4)), true),
        (WireKind::Plain(None), false),
        (WireKind::Plain(Some(8)), false),
        (WireKind::Pointer, false),
    ];
    for (kind, array) in wrong_shapes {
        // Field header at 16 (after the stream and type headers): the error names the tag's data.
        let root = Stream::new().object(1, 560_001).field(VARIANT_TAG_FIELD_ID, kind, array).word(2).word(2).end();
        let error = serializer().decode::<Box<dyn reflectable::Reflectable>>(&root).unwrap_err();
        assert_eq!(
            (error.offset(), error.kind()),
            (Some(20), &DecodeErrorKind::Corrupt("an enum's variant tag must be a single plain value of 4 bytes")),
            "{kind:?}, array {array}"
        );
        // The same tag in an embedded enum, and in an immutable pointee (read by the pre-scan).
        let embedded = Stream::new()
            .object(1, 560_002)
            .field(1, WireKind::Embedded, false)
            .embedded(560_001)
            .field(VARIANT_TAG_FIELD_ID, kind, array)
            .word(2)
            .word(2)
            .end_object()
            .end();
        let error = serializer().decode::<Box<dyn reflectable::Reflectable>>(&embedded).unwrap_err();
        assert!(matches!(error.kind(), DecodeErrorKind::Corrupt(_)), "{error}");
        assert_eq!(error.offset(), Some(32));
    }
}

#[test]
fn a_second_tag_switches_the_variant_and_the_fields_after_it_follow() {
    // Circle { radius: 5 }, then tag Held: Held starts from its defaults, then takes field 2.
    let switched = Stream::new()
        .object(1, 560_001)
        .tag(2)
        .u32_field(1, 5)
        .tag(3)
        .field(2, WireKind::Embedded, false)
        .embedded(560_000)
        .u32_field(2, 40)
        .end_object()
        .end();
    assert_eq!(decode_as::<Shape>(&switched).unwrap(), Shape::Held(None, Item { name: String::new(), weight: 40 }));
    // The same tag twice keeps what the first part set.
    let repeated = Stream::new()
        .object(1, 560_001)
        .tag(2)
        .u32_field(1, 5)
        .tag(2)
        .field(2, WireKind::Plain(Some(2)), true)
        .word(1)
        .raw_u16(7)
        .end();
    assert_eq!(decode_as::<Shape>(&repeated).unwrap(), Shape::Circle { radius: 5, tags: vec![7] });
    // An unknown tag after a known one resets to the default and drops what followed it.
    let then_unknown = Stream::new().object(1, 560_001).tag(2).u32_field(1, 5).tag(99).u32_field(1, 6).end();
    assert_eq!(decode_as::<Shape>(&then_unknown).unwrap(), Shape::Empty);
    // Fields before any tag belong to no variant: skipped.
    let untagged = Stream::new().object(1, 560_001).u32_field(1, 5).tag(2).end();
    assert_eq!(decode_as::<Shape>(&untagged).unwrap(), Shape::Circle { radius: 0, tags: vec![] });
}

#[test]
fn field_zero_of_a_struct_is_an_ordinary_field() {
    let value = ZeroField { first: 1 << 40, second: 8 };
    let bytes = serializer().encode(&value).unwrap();
    assert_eq!(decode_as::<ZeroField>(&bytes).unwrap(), value);
    // A field 0 shaped like a variant tag is a field of the wrong shape for this struct: skipped,
    // never an error and never a tag.
    let tag_like = Stream::new().object(1, 560_004).tag(2).u32_field(1, 8).end();
    assert_eq!(decode_as::<ZeroField>(&tag_like).unwrap(), ZeroField { first: 0, second: 8 });
    let eight = Stream::new().object(1, 560_004).field(0, WireKind::Plain(Some(8)), false).word(3).word(0).end();
    assert_eq!(decode_as::<ZeroField>(&eight).unwrap(), ZeroField { first: 3, second: 0 });
    // Field 0 of an object embedded in an enum's variant (Held's Item has no field 0): skipped.
    let nested = Stream::new()
        .object(1, 560_001)
        .tag(3)
        .field(2, WireKind::Embedded, false)
        .embedded(560_000)
        .tag(1)
        .u32_field(2, 4)
        .end_object()
        .end();
    assert_eq!(decode_as::<Shape>(&nested).unwrap(), Shape::Held(None, Item { name: String::new(), weight: 4 }));
}

#[test]
fn map_keys_claiming_four_billion_entries_are_an_error() {
    let stream = Stream::new().object(1, 560_003).field(1, WireKind::Embedded, false).embedded(MAP_TYPE_ID).field(
        1,
        WireKind::Plain(None),
        true,
    );
    let at = stream.len();
    let bytes = stream.word(u32::MAX).end();
    let error = serializer().decode::<Box<dyn reflectable::Reflectable>>(&bytes).unwrap_err();
    assert_eq!(error.offset(), Some(at));
    assert!(
        matches!(error.kind(), DecodeErrorKind::Plain(PlainError::LengthTooLarge { claimed, .. }) if *claimed == u64::from(u32::MAX)),
        "{error}"
    );
    // The values array too, pointers and embedded objects.
    for (field, kind, type_field) in [(1, WireKind::Pointer, 2), (2, WireKind::Embedded, 2)] {
        let bytes = Stream::new()
            .object(1, 560_003)
            .field(field, WireKind::Embedded, false)
            .embedded(MAP_TYPE_ID)
            .field(type_field, kind, true)
            .word(u32::MAX)
            .end();
        assert!(
            matches!(
                serializer().decode::<Box<dyn reflectable::Reflectable>>(&bytes).unwrap_err().kind(),
                DecodeErrorKind::Plain(PlainError::LengthTooLarge { .. })
            ),
            "{kind:?}"
        );
    }
}

#[test]
fn map_keys_and_values_of_different_lengths_load_the_pairs_that_exist() {
    let more_keys = items(items_map(Stream::new().object(1, 560_003), &["a", "b", "c"], &[2]).u32_field(7, 5), 2, 1);
    let store: Store = decode_as(&more_keys.end()).unwrap();
    assert_eq!(names(&store), BTreeMap::from([("a".into(), "i2".into())]));
    assert_eq!(store.tail, 5, "the rest of the object loads");

    let more_values = items(items_map(Stream::new().object(1, 560_003), &["a"], &[2, 3, 2]), 2, 2);
    let store: Store = decode_as(&more_values.end()).unwrap();
    assert_eq!(names(&store), BTreeMap::from([("a".into(), "i2".into())]));

    let no_values = items_map(Stream::new().object(1, 560_003), &["a", "b"], &[]);
    assert!(decode_as::<Store>(&no_values.end()).unwrap().items.is_empty());

    // A map of embedded enums: two keys, one value.
    let shapes = Stream::new()
        .object(1, 560_003)
        .field(2, WireKind::Embedded, false)
        .embedded(MAP_TYPE_ID)
        .field(1, WireKind::Plain(Some(4)), true)
        .word(2)
        .word(10)
        .word(20)
        .field(2, WireKind::Embedded, true)
        .word(1)
        .embedded(560_001)
        .tag(2)
        .u32_field(1, 3)
        .end_object()
        .end_object();
    let store: Store = decode_as(&shapes.end()).unwrap();
    assert_eq!(store.shapes, BTreeMap::from([(10, Shape::Circle { radius: 3, tags: vec![] })]));
}

#[test]
fn duplicate_map_keys_keep_the_last_value() {
    let stream = items(items_map(Stream::new().object(1, 560_003), &["a", "b", "a"], &[2, 3, 4]), 2, 3);
    let store: Store = decode_as(&stream.end()).unwrap();
    assert_eq!(names(&store), BTreeMap::from([("a".into(), "i4".into()), ("b".into(), "i3".into())]));
}

#[test]
fn map_values_pointing_at_missing_objects_are_an_error_at_the_pointer() {
    let stream = items_map(Stream::new().object(1, 560_003), &["a", "b"], &[2, 9]);
    // The second value's word: after the map header, the keys, the values header and count, the
    // first value.
    let at = stream.len() - 8;
    let bytes = items(stream, 2, 1).end();
    let error = serializer().decode::<Box<dyn reflectable::Reflectable>>(&bytes).unwrap_err();
    assert_eq!(error.kind(), &DecodeErrorKind::UnknownInstance { id: 9, count: 2 });
    assert_eq!(error.offset(), Some(at));
}

/// The values of a map of `Rc<RefCell<Item>>` are non-nullable pointers. One that does not load
/// (null, a target of another type, a type nobody registered) must not shift the values after it
/// onto other keys: every key the map ends up with maps to the value stored with it. (They did
/// shift, found by this test: the values array dropped what it could not hold.)
#[test]
fn map_values_that_do_not_load_do_not_shift_the_other_pairs() {
    // "a" -> a Shape (the wrong type), "b" -> null, "c" -> an unregistered type, "d" -> item 5.
    let stream = items_map(Stream::new().object(1, 560_003), &["a", "b", "c", "d"], &[2, 0, 3, 4])
        .object(2, 560_001)
        .tag(1)
        .object(3, 999_999);
    let bytes = items(stream, 4, 1).end();
    let store: Store = decode_as(&bytes).unwrap();
    let loaded = names(&store);
    for (key, name) in &loaded {
        assert!(key == "d" && name == "i4", "key {key:?} got {name:?}, the value stored for another key: {loaded:?}");
    }
}

#[test]
fn lists_nested_past_the_depth_limit_are_too_deep() {
    // Lists inside lists inside `Store::lists` (declared two deep: the deeper ones are of another
    // shape and skipped), 200 deep.
    let mut stream = Stream::new().object(1, 560_003).field(3, WireKind::Embedded, true).word(1).embedded(LIST_TYPE_ID);
    for _ in 0..200 {
        stream = stream.field(1, WireKind::Embedded, true).word(1).embedded(LIST_TYPE_ID);
    }
    let error = serializer().decode::<Box<dyn reflectable::Reflectable>>(&stream.end()).unwrap_err();
    assert_eq!(error.kind(), &DecodeErrorKind::TooDeep { limit: 128 });
    assert!(error.offset().is_some());

    // A legitimately deep list type, encoded, then decoded with a tighter limit.
    #[derive(Reflectable, Default)]
    #[rtti(id = 560_020)]
    struct Deep {
        // An alias would hide the nesting from the derive, which reads the field's tokens.
        #[allow(clippy::type_complexity)]
        #[rtti(id = 1)]
        deep: Vec<Vec<Vec<Vec<Vec<Rc<RefCell<Item>>>>>>>,
    }
    let deep = Deep { deep: vec![vec![vec![vec![vec![Rc::new(RefCell::new(Item::default()))]]]]] };
    let bytes = serializer().encode(&deep).unwrap();
    let decode = |max_depth| {
        BinarySerializer::new()
            .limits(Limits { max_depth, ..Limits::default() })
            .decode::<Box<dyn reflectable::Reflectable>>(&bytes)
            .map(drop)
    };
    assert!(decode(4).is_ok());
    let error = decode(3).unwrap_err();
    assert_eq!(error.kind(), &DecodeErrorKind::TooDeep { limit: 3 });
    assert!(error.offset().is_some());
}

#[test]
fn container_type_ids_in_slots_that_declare_another_type_are_skipped() {
    for container in [LIST_TYPE_ID, MAP_TYPE_ID] {
        // A list or map object where an `Item`, a `Boxed<Item>`, a map of enums or a nested list
        // belongs, each holding a pointer array as its field 1 and a plain array as its field 2.
        let slot = |stream: Stream, field: u16, array: bool| {
            let stream = stream.field(field, WireKind::Embedded, array);
            let stream = if array { stream.word(1) } else { stream };
            stream
                .embedded(container)
                .field(1, WireKind::Pointer, true)
                .word(1)
                .word(2)
                .field(2, WireKind::Plain(Some(4)), true)
                .word(1)
                .word(7)
                .end_object()
        };
        let mut stream = Stream::new().object(1, 560_003);
        stream = slot(stream, 4, false);
        stream = slot(stream, 5, false);
        if container == LIST_TYPE_ID {
            stream = slot(stream, 2, false);
        } else {
            stream = slot(stream, 3, true);
        }
        let stream = items(stream.u32_field(7, 31), 2, 1);
        let store: Store = decode_as(&stream.end()).unwrap();
        assert!(store.item.is_none() && store.boxed.is_none(), "{container:#x}");
        assert!(store.shapes.is_empty() && store.lists.iter().all(Vec::is_empty), "{container:#x}");
        assert_eq!(store.tail, 31);

        // As a top-level object behind a `dyn Reflectable` pointer, and as the root: never registered.
        let pointee =
            Stream::new().object(1, 560_003).field(6, WireKind::Pointer, false).word(2).object(2, container).end();
        assert!(decode_as::<Store>(&pointee).unwrap().any.is_none());
        let root = Stream::new().object(1, container).end();
        assert_eq!(
            serializer().decode::<Box<dyn reflectable::Reflectable>>(&root).unwrap_err().into_kind(),
            DecodeErrorKind::UnknownRootType { type_id: container }
        );
    }
}

#[test]
fn generic_instantiation_ids_no_registered_type_declares_are_skipped() {
    let unregistered = derived_instantiation_id(560_010, &[560_000]);
    assert_eq!(unregistered, Boxed::<Item>::rtti_static().id());
    let other = derived_instantiation_id(560_010, &[560_001]); // Boxed<Shape>: declared nowhere
    for type_id in [other, 0x8123_4567, unregistered ^ 1] {
        let stream = Stream::new()
            .object(1, 560_003)
            .field(5, WireKind::Embedded, false)
            .embedded(type_id)
            .u32_field(2, 6)
            .end_object()
            .field(6, WireKind::Pointer, false)
            .word(2)
            .u32_field(7, 32)
            .object(2, type_id)
            .u32_field(2, 6);
        let store: Store = decode_as(&stream.end()).unwrap();
        assert!(store.boxed.is_none() && store.any.is_none(), "{type_id:#x}");
        assert_eq!(store.tail, 32);
        let root = Stream::new().object(1, type_id).end();
        assert_eq!(
            serializer().decode::<Box<dyn reflectable::Reflectable>>(&root).unwrap_err().into_kind(),
            DecodeErrorKind::UnknownRootType { type_id }
        );
    }
    // The declared one (`Store` holds a `Boxed<Item>`) is registered with its holder: it loads
    // where it is declared, through a `dyn Reflectable` pointer, and as a root.
    let declared = Stream::new()
        .object(1, 560_003)
        .field(5, WireKind::Embedded, false)
        .embedded(unregistered)
        .u32_field(2, 6)
        .end_object()
        .field(6, WireKind::Pointer, false)
        .word(2)
        .object(2, unregistered)
        .u32_field(2, 7);
    let store: Store = decode_as(&declared.end()).unwrap();
    assert_eq!(store.boxed, Some(Boxed { value: Item::default(), count: 6 }));
    let any = store.any.expect("a registered instantiation loads behind `dyn Reflectable`");
    assert_eq!(any.borrow().downcast_ref::<Boxed<Item>>().map(|boxed| boxed.count), Some(7));
    let root = Stream::new().object(1, unregistered).u32_field(2, 6).end();
    let boxed = serializer().decode::<Box<dyn reflectable::Reflectable>>(&root).unwrap();
    assert_eq!(boxed.downcast_ref::<Boxed<Item>>().map(|boxed| boxed.count), Some(6));
    assert_eq!(decode_as::<Boxed<Item>>(&root).unwrap().count, 6);
}

/// An enum whose stored variant 9 (which no build wrote) migrates to `Link`, an immutable pointer
/// to the next link. The immutable pre-scan does not run migrations, so it does not see that
/// pointer: the decoder meets it while decoding the pointee's body.
#[derive(Reflectable, Default)]
#[rtti(id = 560_030, extend = Chain::migrations)]
enum Chain {
    #[default]
    #[rtti(id = 1)]
    End,
    #[rtti(id = 2)]
    Link(#[rtti(id = 1)] Option<Rc<Chain>>),
}

impl Chain {
    fn migrations(builder: RttiTypeBuilder<Self>) -> RttiTypeBuilder<Self> {
        builder.migrate_variant(9, |chain| *chain = Chain::Link(None))
    }
}

#[derive(Reflectable, Default)]
#[rtti(id = 560_031)]
struct ChainRoot {
    #[rtti(id = 1)]
    first: Option<Rc<Chain>>,
}

/// `n` links of `Chain` behind the root, each stored with `tag`.
fn chain(n: u32, tag: u32) -> Vec<u8> {
    let mut stream = Stream::new().object(1, 560_031).field(1, WireKind::Pointer, false).word(2);
    for instance in 2..n + 2 {
        let next = if instance == n + 1 { 0 } else { instance + 1 };
        stream = stream.object(instance, 560_030).tag(tag).field(1, WireKind::Pointer, false).word(next);
    }
    stream.end()
}

fn chain_length(root: &ChainRoot) -> usize {
    let mut length = 0;
    let mut link = root.first.clone();
    while let Some(current) = link {
        length += 1;
        link = match &*current {
            Chain::Link(next) => next.clone(),
            Chain::End => None,
        };
    }
    length
}

#[test]
fn a_variant_migration_to_an_immutable_pointer_loads_the_chain() {
    for tag in [2, 9] {
        let root: ChainRoot = decode_as(&chain(3, tag)).unwrap();
        assert_eq!(chain_length(&root), 3, "tag {tag}");
    }
}

/// Immutable pointees are built with an explicit stack so a long chain costs heap, not call stack
/// (SECURITY.md). The pre-scan runs variant migrations on a scratch object, so it sees the
/// pointers of the variant a migration chooses: a migrated chain is built without nesting like any
/// other, and only its length is refused. (It once nested, one call per link, and overflowed.)
#[test]
fn a_long_chain_through_variant_migrations_does_not_overflow_the_stack() {
    let on_a_small_stack = std::thread::Builder::new().stack_size(2 << 20).spawn(|| {
        for tag in [2, 9] {
            let error = serializer().decode::<Box<dyn reflectable::Reflectable>>(&chain(100_000, tag)).unwrap_err();
            assert!(
                matches!(error.kind(), &DecodeErrorKind::DropTooDeep { length: 100_001, stack, limit } if stack > limit),
                "tag {tag}: {error}"
            );
        }
        // Within the chain limit, a migrated chain loads, far deeper than `max_depth`.
        let root: ChainRoot = decode_as(&chain(1_000, 9)).unwrap();
        assert_eq!(chain_length(&root), 1_000);
    });
    on_a_small_stack.unwrap().join().expect("no stack overflow, no panic");
}

/// The same through a field migration: `Node` no longer has field 9, which held a `Wrapper` by
/// value; its handler keeps the wrapper's pointer. The pre-scan skips migrated fields, so the
/// pointee is met while decoding the wrapper.
#[derive(Reflectable, Default)]
#[rtti(id = 560_032, extend = Node::migrations)]
struct Node {
    #[rtti(id = 1)]
    next: Option<Rc<Node>>,
}

impl Node {
    fn migrations(builder: RttiTypeBuilder<Self>) -> RttiTypeBuilder<Self> {
        builder.migrate_embedded(9, |node, mut wrapper| {
            if let Some(wrapper) = wrapper.as_deref_mut().and_then(|wrapper| wrapper.downcast_mut::<Wrapper>()) {
                node.next = wrapper.next.take();
            }
        })
    }
}

#[derive(Reflectable, Default)]
#[rtti(id = 560_033)]
struct Wrapper {
    #[rtti(id = 1)]
    next: Option<Rc<Node>>,
}

/// `n` nodes after the root node, each linked through its old field 9 (or field 1 today).
fn node_chain(n: u32, migrated: bool) -> Vec<u8> {
    let mut stream = Stream::new();
    for instance in 1..n + 2 {
        let next = if instance == n + 1 { 0 } else { instance + 1 };
        stream = stream.object(instance, 560_032);
        stream = if migrated {
            stream
                .field(9, WireKind::Embedded, false)
                .embedded(560_033)
                .field(1, WireKind::Pointer, false)
                .word(next)
                .end_object()
        } else {
            stream.field(1, WireKind::Pointer, false).word(next)
        };
    }
    stream.end()
}

#[test]
fn a_field_migration_to_an_immutable_pointer_loads_the_chain() {
    for migrated in [false, true] {
        let root: Node = decode_as(&node_chain(3, migrated)).unwrap();
        let mut length = 0;
        let mut node = root.next.clone();
        while let Some(current) = node {
            length += 1;
            node = current.next.clone();
        }
        assert_eq!(length, 3, "migrated {migrated}");
    }
}

#[test]
fn a_long_chain_through_field_migrations_is_too_deep() {
    let on_a_small_stack = std::thread::Builder::new().stack_size(2 << 20).spawn(|| {
        let error = serializer().decode::<Box<dyn reflectable::Reflectable>>(&node_chain(100_000, false)).unwrap_err();
        assert!(
            matches!(error.kind(), &DecodeErrorKind::DropTooDeep { length: 100_001, stack, limit } if stack > limit),
            "{error}"
        );
        // Each migrated field is an embedded object decoded inside its owner's body.
        let error = serializer().decode::<Box<dyn reflectable::Reflectable>>(&node_chain(100_000, true)).unwrap_err();
        assert_eq!(error.kind(), &DecodeErrorKind::TooDeep { limit: 128 });
        assert!(error.offset().is_some());
    });
    on_a_small_stack.unwrap().join().expect("no stack overflow, no panic");
}
