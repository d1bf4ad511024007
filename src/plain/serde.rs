//! [`SerdeCodec`]: any serde value as a plain value, the payload of `#[rtti(id = N, serde)]`.

use super::{type_ids, PlainCodec, PlainError, Reader};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Stores any `Serialize + DeserializeOwned` value as a dynamic-size plain value whose content is
/// its [postcard](https://docs.rs/postcard) encoding: compact, and specified in postcard's own
/// stable wire format. It is what `#[rtti(id = N, serde)]` stores a field through (feature
/// `serde`); `#[rtti(id = N, with = reflectable::plain::SerdeCodec)]` is the same.
///
/// A stored serde value is one opaque plain value to the format: a reader skips it by its size
/// like any dynamic plain value, and evolving the Rust type follows postcard's rules, not field
/// IDs (postcard is not self-describing: a field added to a serde struct makes old payloads fail
/// to decode, an error for that field, so give the field a new ID instead).
///
/// Decoding is from the payload's bytes only, and an error is a [`PlainError::Invalid`] at the
/// payload's first byte (postcard does not say where in the payload it failed). Payload bytes left
/// over after the value are an error too. (Postcard itself accepts a few forms it would not
/// write, such as a `char` stored as a longer string: they decode, and re-encode in postcard's
/// own form.) A sequence's claimed length preallocates at most what the payload's remaining bytes
/// could hold, as serde and postcard do from a slice. Types that need a self-describing format (`#[serde(flatten)]`,
/// `#[serde(untagged)]`, `deserialize_any`) fail to decode; and because elements of a zero-size
/// type (`()`, unit structs) take no bytes, a sequence of them can claim billions of elements
/// that take as long to decode: keep such types out of values read from untrusted input. Nor does
/// postcard limit nesting: a recursive type (`enum Tree { Leaf, Node(Box<Tree>) }`) decodes one
/// level per byte on the call stack, so a hostile payload of a million bytes overflows the stack
/// and aborts the process. Store recursive data as reflectable objects (whose nesting the decoder
/// bounds), not through serde, when the input is not trusted.
///
/// # Panics
/// Encoding panics when postcard refuses the value: a sequence or map serialized without a
/// known length, or a `Serialize` impl that returns an error (such as a non-UTF-8 path). The
/// plain format has no encode errors, as for a `PlainType` value over 4 GiB.
///
/// # Example
///
/// ```
/// use reflectable::Reflectable;
/// use serde::{Deserialize, Serialize};
///
/// // A type of another crate that implements serde's traits, but not `PlainType`.
/// #[derive(Serialize, Deserialize, Debug, Default, PartialEq)]
/// struct Settings {
///     volume: f32,
///     bindings: Vec<(String, u32)>,
/// }
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9710)]
/// struct Profile {
///     #[rtti(id = 1, serde)]
///     settings: Settings,
/// }
///
/// let profile = Profile { settings: Settings { volume: 0.5, bindings: vec![("jump".into(), 32)] } };
/// let bytes = reflectable::to_vec(&profile).unwrap();
/// let back: Profile = reflectable::from_slice(&bytes).unwrap();
/// assert_eq!(back.settings, profile.settings);
/// ```
pub struct SerdeCodec;

impl<T: Serialize + DeserializeOwned + 'static> PlainCodec<T> for SerdeCodec {
    /// Every serde value has this one ID, and its signature is this ID alone: postcard does not
    /// describe types, so a schema cannot tell one serde type from another. A field that changes
    /// its serde type needs a new field ID.
    const TYPE_ID: u32 = type_ids::SERDE;
    const STATIC_SIZE: Option<u32> = None;

    fn size(value: &T) -> usize {
        // Counts the bytes without writing them; the stable form of `experimental::serialized_size`.
        postcard::serialize_with_flavor::<T, _, usize>(value, postcard::ser_flavors::Size::default())
            .unwrap_or_else(|error| refused::<T>(error))
    }
    fn write(value: &T, out: &mut Vec<u8>) {
        // `to_extend` takes its buffer by value; moving the `Vec` in and out copies nothing.
        match postcard::to_extend(value, std::mem::take(out)) {
            Ok(written) => *out = written,
            Err(error) => refused::<T>(error),
        }
    }
    fn read(reader: &mut Reader<'_>) -> Result<T, PlainError> {
        let offset = reader.offset();
        let payload = reader.take(reader.remaining())?;
        match postcard::take_from_bytes::<T>(payload) {
            Ok((value, [])) => Ok(value),
            Ok((_, rest)) => {
                Err(PlainError::TrailingBytes { offset: offset + payload.len() - rest.len(), left: rest.len() })
            }
            Err(error) => Err(PlainError::Invalid { offset, what: malformed(&error) }),
        }
    }
}

#[cold]
fn refused<T>(error: postcard::Error) -> ! {
    panic!("postcard cannot encode this `{}` value: {error}", std::any::type_name::<T>())
}

/// What postcard found wrong, as the static text a [`PlainError`] carries.
fn malformed(error: &postcard::Error) -> &'static str {
    use postcard::Error::*;
    match error {
        DeserializeUnexpectedEnd => "serde payload ends inside its value",
        DeserializeBadVarint => "serde payload has a malformed or oversized varint",
        DeserializeBadBool => "serde payload has a bool that is neither 0 nor 1",
        DeserializeBadChar => "serde payload has an invalid char",
        DeserializeBadUtf8 => "serde payload has a string that is not UTF-8",
        DeserializeBadOption => "serde payload has an Option tag that is neither 0 nor 1",
        DeserializeBadEnum => "serde payload has an enum variant out of range",
        WontImplement | NotYetImplemented => "serde type needs a self-describing format, which postcard is not",
        SerdeDeCustom => "serde payload refused by the type's Deserialize impl",
        _ => "malformed serde payload",
    }
}
