//! Foreign types: fields stored through a codec the user names (`with = Codec`), through serde
//! (`serde`, feature `serde`), glam's types (feature `glam`) and the std types with plain codecs,
//! each through a whole stream: round trips, the wire shape old readers skip by, reflection, and
//! hostile bytes.

use reflectable::field::{ElemShape, FieldKind, PlainInfo};
use reflectable::plain::{PlainCodec, PlainError, Reader, FIRST_USER_PLAIN_TYPE_ID};
use reflectable::serializer::{BinarySerializer, DecodeError};
use reflectable::{Reflectable, Registry};
use smallvec::SmallVec;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Stands for another crate: its types implement nothing of ours, and the orphan rule keeps us
/// from implementing `PlainType` for them.
mod other_crate {
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct Uuid(pub u128);

    /// A validated name: lowercase ASCII only.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct Tag(pub String);
}

use other_crate::{Tag, Uuid};

/// `Uuid` as its 16 bytes: a static codec.
struct UuidCodec;

impl PlainCodec<Uuid> for UuidCodec {
    const TYPE_ID: u32 = FIRST_USER_PLAIN_TYPE_ID + 700;
    const STATIC_SIZE: Option<u32> = Some(16);

    fn size(_: &Uuid) -> usize {
        16
    }
    fn write(value: &Uuid, out: &mut Vec<u8>) {
        out.extend_from_slice(&value.0.to_le_bytes());
    }
    fn read(reader: &mut Reader<'_>) -> Result<Uuid, PlainError> {
        Ok(Uuid(u128::from_le_bytes(reader.take_array()?)))
    }
}

/// `Tag` as its bytes: a dynamic codec that refuses what is not a valid tag.
struct TagCodec;

impl PlainCodec<Tag> for TagCodec {
    const TYPE_ID: u32 = FIRST_USER_PLAIN_TYPE_ID + 701;
    const STATIC_SIZE: Option<u32> = None;

    fn size(value: &Tag) -> usize {
        value.0.len()
    }
    fn write(value: &Tag, out: &mut Vec<u8>) {
        out.extend_from_slice(value.0.as_bytes());
    }
    fn read(reader: &mut Reader<'_>) -> Result<Tag, PlainError> {
        let offset = reader.offset();
        let bytes = reader.take(reader.remaining())?;
        match bytes.iter().all(u8::is_ascii_lowercase) {
            true => Ok(Tag(bytes.iter().map(|&byte| char::from(byte)).collect())),
            false => Err(PlainError::Invalid { offset, what: "a tag is lowercase ASCII" }),
        }
    }
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 470_000)]
struct Asset {
    #[rtti(id = 1, with = UuidCodec)]
    id: Uuid,
    #[rtti(id = 2, with = UuidCodec)]
    dependencies: Vec<Uuid>,
    #[rtti(id = 3, with = TagCodec, name = "label", flags = 0x10)]
    tag: Tag,
    #[rtti(id = 4, with = TagCodec)]
    tags: SmallVec<[Tag; 2]>,
    #[rtti(id = 5, with = UuidCodec)]
    pair: [Uuid; 2],
    #[rtti(id = 6)]
    version: u32,
}

/// `Asset` as a reader that knows only its plain `version` sees it.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 470_000, no_register)]
struct AssetVersionOnly {
    #[rtti(id = 6)]
    version: u32,
}

/// `Asset` with its codec fields read as the plain types of the same wire shape.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 470_000, no_register)]
struct AssetAsPlain {
    #[rtti(id = 1)]
    id: u128,
    #[rtti(id = 2)]
    dependencies: Vec<u128>,
    #[rtti(id = 3)]
    tag: String,
}

fn asset() -> Asset {
    Asset {
        id: Uuid(0x1234),
        dependencies: vec![Uuid(1), Uuid(u128::MAX)],
        tag: Tag("rock".into()),
        tags: SmallVec::from_vec(vec![Tag("a".into()), Tag(String::new()), Tag("zz".into())]),
        pair: [Uuid(5), Uuid(6)],
        version: 3,
    }
}

#[test]
fn codec_fields_single_and_array_round_trip_through_a_stream() {
    let bytes = reflectable::to_vec(&asset()).unwrap();
    let back: Asset = reflectable::from_slice(&bytes).unwrap();
    assert_eq!(back, asset());
}

#[test]
fn codec_fields_are_plain_fields_to_rtti_with_the_codecs_facts() {
    let rtti = Asset::rtti_static();
    let shape = |name: &str| {
        let field = rtti.field_by_name(name).unwrap();
        assert_eq!(field.kind(), FieldKind::Plain);
        match field.shape().elem {
            ElemShape::Plain(info) => (info, field.is_array()),
            other => panic!("{name} is {other:?}"),
        }
    };
    let uuid = PlainInfo { type_id: FIRST_USER_PLAIN_TYPE_ID + 700, static_size: Some(16) };
    let tag = PlainInfo { type_id: FIRST_USER_PLAIN_TYPE_ID + 701, static_size: None };
    assert_eq!(shape("id"), (uuid, false));
    assert_eq!(shape("dependencies"), (uuid, true));
    assert_eq!(shape("label"), (tag, false));
    assert_eq!(shape("tags"), (tag, true));
    assert_eq!(shape("pair"), (uuid, true), "a `[T; N]` with a codec is an array field");
    assert_eq!(rtti.field_by_name("label").unwrap().flags(), 0x10);
}

#[test]
fn codec_fields_are_read_and_written_dynamically_as_the_foreign_type() {
    let mut asset = asset();
    let rtti = Asset::rtti_static();
    let id = rtti.field_by_name("id").unwrap();
    assert_eq!(id.get::<Uuid>(&asset).unwrap(), Uuid(0x1234));
    id.set(&mut asset, Uuid(99)).unwrap();
    assert_eq!(asset.id, Uuid(99));
    assert!(id.set(&mut asset, 99u128).is_err(), "the element type is the foreign type, not its wire form");

    let tags = rtti.field_by_name("tags").unwrap();
    assert_eq!(tags.len(&asset).unwrap(), 3);
    assert_eq!(tags.get_elem::<Tag>(&asset, 2).unwrap(), Tag("zz".into()));
    tags.set_elem(&mut asset, 0, Tag("new".into())).unwrap();
    tags.resize(&mut asset, 1).unwrap();
    assert_eq!(asset.tags.as_slice(), [Tag("new".into())]);
}

#[test]
fn codec_fields_have_the_wire_shape_of_plain_fields_so_old_readers_skip_or_read_them() {
    fn read_as<T: Reflectable>(bytes: &[u8]) -> T {
        let mut registry = Registry::new();
        registry.register_type::<T>().unwrap();
        BinarySerializer::with_registry(&registry).decode(bytes).unwrap()
    }
    let bytes = reflectable::to_vec(&asset()).unwrap();
    let old: AssetVersionOnly = read_as(&bytes);
    assert_eq!(old.version, 3, "every codec field was skipped by its size");

    // A stream without a schema (version 2) is read by shape: the codec's bytes fit the plain
    // fields of the same size.
    let v2 = BinarySerializer::new().schema_table(false).encode(&asset()).unwrap();
    let plain: AssetAsPlain = read_as(&v2);
    assert_eq!(plain.id, 0x1234);
    assert_eq!(plain.dependencies, [1, u128::MAX]);
    assert_eq!(plain.tag, "rock", "a dynamic codec value has the size prefix of any dynamic value");

    // With the schema, the stored types say these are a codec's values, not `u128`s or
    // strings: they are not reinterpreted, and the report says so.
    let mut registry = Registry::new();
    registry.register_type::<AssetAsPlain>().unwrap();
    let (plain, report) =
        BinarySerializer::with_registry(&registry).decode_with_report::<AssetAsPlain>(&bytes).unwrap();
    assert_eq!((plain.id, plain.tag.as_str()), (0, ""));
    let report = report.to_string();
    assert!(report.starts_with(
        "skipped field 1 `id` of AssetAsPlain: stored as plain type 1700, now u128, with no conversion or migration\n\
         skipped field 2 `dependencies` of AssetAsPlain: stored as [plain type 1700], now [u128], with no conversion or migration\n\
         skipped field 3 `label` of AssetAsPlain: stored as plain type 1701, now String, with no conversion or migration\n"
    ), "{report}");
}

/// The bytes of `asset` with the first occurrence of `from` replaced by `to`.
fn patched(from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut bytes = reflectable::to_vec(&asset()).unwrap();
    let at = bytes.windows(from.len()).position(|window| window == from).expect("pattern in the stream");
    bytes[at..at + to.len()].copy_from_slice(to);
    bytes
}

#[test]
fn a_codec_refusing_its_content_is_a_decode_error_at_its_offset() {
    let bytes = patched(b"rock", b"Rock");
    let error: DecodeError = reflectable::from_slice::<Asset>(&bytes).unwrap_err();
    let offset = bytes.windows(4).position(|window| window == b"Rock").unwrap();
    assert!(error.to_string().contains(&format!("byte {offset}")), "{error}");
    assert!(error.to_string().contains("a tag is lowercase ASCII"), "{error}");
}

#[test]
fn every_truncation_and_byte_flip_of_a_codec_stream_is_an_error_or_a_value_never_a_panic() {
    let bytes = reflectable::to_vec(&asset()).unwrap();
    for cut in 0..bytes.len() {
        assert!(reflectable::from_slice::<Asset>(&bytes[..cut]).is_err());
    }
    for at in 0..bytes.len() {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0xff;
        let _ = reflectable::from_slice::<Asset>(&flipped);
    }
}

#[derive(Reflectable, Debug, PartialEq)]
#[rtti(id = 470_001)]
struct Endpoint {
    #[rtti(id = 1)]
    root: PathBuf,
    #[rtti(id = 2)]
    listen: SocketAddr,
    #[rtti(id = 3)]
    peers: Vec<IpAddr>,
    #[rtti(id = 4)]
    v4: Ipv4Addr,
    #[rtti(id = 5)]
    v6: Ipv6Addr,
    #[rtti(id = 6)]
    modified: SystemTime,
    #[rtti(id = 7)]
    history: Vec<SystemTime>,
}

/// Addresses and times have no `Default`.
impl Default for Endpoint {
    fn default() -> Self {
        Endpoint {
            root: PathBuf::new(),
            listen: SocketAddr::from(([0, 0, 0, 0], 0)),
            peers: Vec::new(),
            v4: Ipv4Addr::UNSPECIFIED,
            v6: Ipv6Addr::UNSPECIFIED,
            modified: UNIX_EPOCH,
            history: Vec::new(),
        }
    }
}

#[test]
fn std_types_round_trip_as_plain_fields() {
    let endpoint = Endpoint {
        root: PathBuf::from("/srv/data/ünïcode"),
        listen: "[fe80::1%3]:8080".parse().unwrap(),
        peers: vec![IpAddr::V4(Ipv4Addr::LOCALHOST), IpAddr::V6(Ipv6Addr::LOCALHOST)],
        v4: Ipv4Addr::new(10, 0, 0, 1),
        v6: "2001:db8::1".parse().unwrap(),
        modified: UNIX_EPOCH + Duration::new(1_700_000_000, 123_456_789),
        history: vec![UNIX_EPOCH - Duration::new(5, 1), UNIX_EPOCH, SystemTime::now()],
    };
    let bytes = reflectable::to_vec(&endpoint).unwrap();
    let back: Endpoint = reflectable::from_slice(&bytes).unwrap();
    assert_eq!(back, endpoint);
}

/// Declared by hand, as `with` declares it.
#[derive(Default, Debug, PartialEq)]
struct Bundle {
    id: Uuid,
    parts: Vec<Uuid>,
    label: Tag,
}

impl Reflectable for Bundle {
    fn rtti(&self) -> &'static reflectable::RttiType {
        Self::rtti_static()
    }
    fn rtti_static() -> &'static reflectable::RttiType {
        static RTTI: once_cell::sync::Lazy<reflectable::RttiType> = once_cell::sync::Lazy::new(|| {
            reflectable::RttiTypeBuilder::<Bundle>::new(470_002, "Bundle")
                .default_constructor()
                .plain_with::<UuidCodec, _>(1, "id", |b| &b.id, |b| &mut b.id)
                .plain_array_with::<UuidCodec, _>(2, "parts", |b| &b.parts, |b| &mut b.parts)
                .plain_with::<TagCodec, _>(3, "label", |b| &b.label, |b| &mut b.label)
                .build()
                .expect("valid RTTI")
        });
        &RTTI
    }
}
reflectable::register_type!(Bundle);

#[test]
fn the_builder_declares_codec_fields_by_hand() {
    let bundle = Bundle { id: Uuid(1), parts: vec![Uuid(2), Uuid(3)], label: Tag("box".into()) };
    let bytes = reflectable::to_vec(&bundle).unwrap();
    let back: Bundle = reflectable::from_slice(&bytes).unwrap();
    assert_eq!(back, bundle);
    let parts = Bundle::rtti_static().field_by_name("parts").unwrap();
    assert!(parts.is_array());
    assert_eq!(parts.get_elem::<Uuid>(&bundle, 1).unwrap(), Uuid(3));
}
