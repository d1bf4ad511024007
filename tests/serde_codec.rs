//! `#[rtti(serde)]` (feature `serde`): serde values as postcard payloads in plain fields, and
//! malformed payloads as errors.
#![cfg(feature = "serde")]

use reflectable::plain::{read_elem_with, write_elem_with, PlainError, Reader, SerdeCodec};
use reflectable::Reflectable;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Stands for a type of another crate that implements serde's traits but not `PlainType`.
#[derive(Serialize, Deserialize, Debug, Default, Clone, PartialEq)]
struct Settings {
    volume: f32,
    name: String,
    bindings: BTreeMap<String, Vec<u32>>,
    mode: Mode,
}

#[derive(Serialize, Deserialize, Debug, Default, Clone, PartialEq)]
enum Mode {
    #[default]
    Windowed,
    Fullscreen {
        monitor: u8,
    },
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 471_000)]
struct Profile {
    #[rtti(id = 1, serde)]
    settings: Settings,
    #[rtti(id = 2, serde)]
    history: Vec<Settings>,
    #[rtti(id = 3, with = reflectable::plain::SerdeCodec)]
    extra: Option<(u64, String)>,
    #[rtti(id = 4)]
    plain: u16,
}

fn profile() -> Profile {
    let settings = Settings {
        volume: 0.75,
        name: "main".into(),
        bindings: BTreeMap::from([("jump".into(), vec![32, 57]), ("fire".into(), vec![])]),
        mode: Mode::Fullscreen { monitor: 2 },
    };
    Profile {
        settings: settings.clone(),
        history: vec![Settings::default(), settings],
        extra: Some((7, "x".into())),
        plain: 9,
    }
}

fn encode<T: Serialize + serde::de::DeserializeOwned + 'static>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    write_elem_with::<SerdeCodec, T>(value, &mut out);
    out
}

fn decode<T: Serialize + serde::de::DeserializeOwned + 'static>(bytes: &[u8]) -> Result<T, PlainError> {
    let mut reader = Reader::new(bytes);
    let value = read_elem_with::<SerdeCodec, T>(&mut reader)?;
    reader.expect_end()?;
    Ok(value)
}

#[test]
fn serde_fields_round_trip_through_a_stream() {
    let bytes = reflectable::to_vec(&profile()).unwrap();
    let back: Profile = reflectable::from_slice(&bytes).unwrap();
    assert_eq!(back, profile());
    let field = Profile::rtti_static().field_by_name("history").unwrap();
    assert!(field.is_array(), "a `Vec` with `serde` is an array field of payloads");
    assert_eq!(field.get_elem::<Settings>(&back, 1).unwrap(), profile().settings);
}

#[test]
fn a_serde_value_is_a_dynamic_element_holding_its_postcard_bytes() {
    // postcard: varint 300 = AC 02, then the string's varint length and bytes.
    assert_eq!(encode(&(300u32, String::from("ab"))), [9, 0, 0, 0, 0xac, 0x02, 2, b'a', b'b']);
    assert_eq!(decode::<(u32, String)>(&[9, 0, 0, 0, 0xac, 0x02, 2, b'a', b'b']), Ok((300, "ab".into())));
}

#[test]
fn malformed_payloads_are_errors_at_the_payload() {
    // A Vec<u64> claiming 2^32 - 1 elements in a 9-byte payload: an error, and no allocation
    // for the claim (postcard hints no capacity beyond what the payload can hold).
    let hostile = [13, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3, 4];
    let error = decode::<Vec<u64>>(&hostile).unwrap_err();
    assert_eq!(error, PlainError::Invalid { offset: 4, what: "serde payload ends inside its value" });
    assert!(decode::<Vec<String>>(&hostile).is_err());
    assert!(decode::<BTreeMap<u8, Vec<u8>>>(&hostile).is_err());

    // A varint that never ends, invalid UTF-8, a bad bool, an unknown enum variant.
    assert!(matches!(
        decode::<u64>(&[15, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
        Err(PlainError::Invalid { offset: 4, .. })
    ));
    assert!(matches!(decode::<String>(&[7, 0, 0, 0, 2, 0xff, 0xfe]), Err(PlainError::Invalid { offset: 4, .. })));
    assert!(matches!(decode::<bool>(&[5, 0, 0, 0, 2]), Err(PlainError::Invalid { offset: 4, .. })));
    assert!(matches!(decode::<Mode>(&[5, 0, 0, 0, 9]), Err(PlainError::Invalid { offset: 4, .. })));
    // Bytes after the value: one value has one encoding.
    assert_eq!(decode::<u8>(&[6, 0, 0, 0, 1, 2]), Err(PlainError::TrailingBytes { offset: 5, left: 1 }));
}

#[test]
fn every_truncation_and_byte_flip_of_a_serde_stream_is_an_error_or_a_value_never_a_panic() {
    let bytes = reflectable::to_vec(&profile()).unwrap();
    for cut in 0..bytes.len() {
        assert!(reflectable::from_slice::<Profile>(&bytes[..cut]).is_err());
    }
    for at in 0..bytes.len() {
        for mask in [0x01, 0x80, 0xff] {
            let mut flipped = bytes.clone();
            flipped[at] ^= mask;
            let _ = reflectable::from_slice::<Profile>(&flipped);
        }
    }
}

#[test]
fn a_corrupt_payload_inside_a_stream_is_a_decode_error_naming_its_offset() {
    let mut bytes = reflectable::to_vec(&profile()).unwrap();
    let name = bytes.windows(4).position(|window| window == b"main").unwrap();
    bytes[name] = 0xff; // no longer UTF-8
    let error = reflectable::from_slice::<Profile>(&bytes).unwrap_err();
    assert!(error.to_string().contains("serde payload has a string that is not UTF-8"), "{error}");
}
