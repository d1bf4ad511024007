//! Plain values as trees and as text: every plain field can be shown and set through its RTTI
//! ([`RttiField::to_text`](crate::field::RttiField::to_text),
//! [`set_from_text`](crate::field::RttiField::set_from_text)), whatever its type, including
//! `#[derive(PlainType)]` structs and enums, options, sequences, arrays, tuples and maps.
//!
//! One reading of the wire format serves all of it: a value is written with its own codec, then
//! taken apart by its type's *signature* into a [`PlainValue`] (`codec.rs`), and back. Signatures
//! describe the standard library's types and glam's; `#[derive(PlainType)]` describes the
//! program's own types (their field names and types) to this module. So the same code shows a
//! field of a Rust object and a value of a file read without its types.
//!
//! ```
//! use reflectable::plain::PlainType;
//! use reflectable::text::{parse, PlainValue};
//!
//! #[derive(reflectable::PlainType, Clone, Copy, Debug, PartialEq, Default)]
//! #[plain(id = 9640)]
//! struct Spot {
//!     x: i16,
//!     y: i16,
//! }
//!
//! let mut signature = Vec::new();
//! <Vec<Option<Spot>>>::signature(&mut signature);
//! let value = parse(&signature, "[Some({y: -2, x: 1}), None]").unwrap();
//! assert_eq!(value.to_string(), "[Some({x: 1, y: -2}), None]");
//! assert_eq!(value, PlainValue::Seq(vec![
//!     PlainValue::Opt(Some(Box::new(PlainValue::Struct(vec![
//!         ("x".into(), PlainValue::Int(1)),
//!         ("y".into(), PlainValue::Int(-2)),
//!     ])))),
//!     PlainValue::Opt(None),
//! ]));
//! let error = parse(&signature, "[{x: 1}]").unwrap_err();
//! assert_eq!(error.to_string(), "column 8: part `y` is missing");
//! ```

mod codec;
mod compact_element;
mod field;
mod memo;
mod parse;
mod path;
mod scalar;
mod value;

pub(crate) use codec::read_field;
#[cfg(feature = "json")]
pub(crate) use codec::static_size;
pub use codec::{MAX_SHOWN_DEPTH, MAX_ZERO_SIZED_SHOWN};

/// Appends `value` as one element of type `sig` (what a field stores).
pub(crate) fn write_value(sig: &[u32], value: &PlainValue, out: &mut Vec<u8>) -> Result<(), TextError> {
    memo::scope(sig, || codec::write_value(sig, value, out))
}

/// The key and value types of a map's signature (`HashMap`, `BTreeMap`): a value whose entries
/// a patch edits one by one. `None` for any other type.
pub(crate) fn map_parts(sig: &[u32]) -> Option<(Vec<u32>, Vec<u32>)> {
    match memo::split(sig) {
        Some((crate::plain::signature::Sig::Map(_, key, value), _, _)) => Some((key.to_vec(), value.to_vec())),
        _ => None,
    }
}

/// Reads one element of type `sig` (what [`write_value`] appends) that is the whole of `bytes`.
pub(crate) fn read_value(sig: &[u32], bytes: &[u8]) -> Result<PlainValue, TextError> {
    memo::scope(sig, || {
        let mut reader = crate::plain::Reader::new(bytes).with_zero_sized_left(MAX_ZERO_SIZED_SHOWN);
        reader.limit_depth(MAX_SHOWN_DEPTH);
        let value = codec::read_value(sig, &mut reader)?;
        reader.expect_end()?;
        Ok(value)
    })
}

/// Runs `f` with the facts of `sig`'s nodes remembered (see `memo`): what a reader of many
/// values of one signature wraps them in.
#[cfg(feature = "json")]
pub(crate) fn remembering<R>(sig: &[u32], f: impl FnOnce() -> R) -> R {
    memo::scope(sig, f)
}

pub use parse::parse;
pub use path::{get_text, get_value, set_text};
pub use scalar::PlainText;
pub(crate) use scalar::{scalars, Text};
#[cfg(feature = "json")]
pub(crate) use scalar::{Scalar, Scalars};
pub use value::PlainValue;

use crate::field::FieldError;
use crate::plain::PlainError;
use crate::schema::describe_signature;
use std::borrow::Cow;
use std::fmt::{self, Write as _};

/// A value could not be shown, read or stored.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TextError {
    /// The text is not a value of the type: where (1-based, in characters), and why. Every
    /// refusal of a text is one of these (also when the value as a whole does not fit: then
    /// the column is where the value starts), and its message quotes at most a short excerpt
    /// of the text, however long the text is.
    #[error("column {column}: {message}")]
    Syntax {
        /// Where the problem starts.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A [`PlainValue`] of another shape than the type's (a list for a number, a number too
    /// large). A text of such a value is refused as a [`TextError::Syntax`] instead.
    #[error("expected {expected}, found {found}")]
    Mismatch {
        /// The type, in words.
        expected: String,
        /// The value given, cut to a short excerpt when it is long.
        found: String,
    },
    /// The type is one this program cannot take apart (a codec's, another program's plain
    /// type): its values are shown and set as bytes.
    #[error("cannot take apart values of {}", type_name(signature))]
    Undescribed {
        /// The type's signature.
        signature: Vec<u32>,
    },
    /// A path leads nowhere: no such field, element, key or part, or an empty slot on the way.
    #[error("no value at `{path}`: {reason}")]
    NoPath {
        /// The path, or the part of it that failed.
        path: String,
        /// Why.
        reason: String,
    },
    /// The field is not a plain field.
    #[error("field `{field}` holds objects, not a plain value")]
    NotPlain {
        /// The field's name.
        field: String,
    },
    /// Stored bytes that do not decode as their type.
    #[error("corrupt value: {0}")]
    Corrupt(String),
    /// A value nested more deeply than this module takes apart ([`MAX_SHOWN_DEPTH`] levels,
    /// every container and derived struct counting one): a valid value, kept as its bytes by
    /// the tools.
    #[error("value nested more than {limit} deep: too deep to take apart")]
    TooDeep {
        /// The depth limit in force.
        limit: usize,
    },
    /// The field refused the value, or could not be read.
    #[error(transparent)]
    Field(#[from] FieldError),
}

impl From<PlainError> for TextError {
    fn from(error: PlainError) -> Self {
        match error {
            PlainError::TooDeep { limit, .. } => TextError::TooDeep { limit },
            error => TextError::Corrupt(error.to_string()),
        }
    }
}

impl TextError {
    /// A value of another shape than `signature`'s, quoted as an [`excerpt`].
    #[cold]
    pub(crate) fn mismatch(signature: &[u32], value: &PlainValue) -> Self {
        TextError::Mismatch { expected: type_name(signature), found: excerpt(value) }
    }

    /// The error placed at `column` of the text the value was read from, when it is about the
    /// value (a shape the type cannot hold, a length the field does not have, bytes of the wrong
    /// size) and is not placed already: every refusal of a text says where. Errors about the
    /// call (no such path, not a plain field, the wrong owner, a borrowed pointee) stay as they
    /// are: no column of the text is wrong.
    #[cold]
    pub(crate) fn at_column(self, column: usize) -> Self {
        let about_the_value = match &self {
            TextError::Syntax { .. } | TextError::NoPath { .. } | TextError::NotPlain { .. } => false,
            TextError::Mismatch { .. } | TextError::Undescribed { .. } | TextError::Corrupt(_) => true,
            TextError::TooDeep { .. } => true,
            TextError::Field(error) => matches!(
                error,
                FieldError::FixedLength { .. }
                    | FieldError::NoDefault
                    | FieldError::NotNullable
                    | FieldError::Plain(_)
                    | FieldError::SizeMismatch { .. }
            ),
        };
        match about_the_value {
            true => TextError::Syntax { column, message: cut(&self.to_string(), MAX_MESSAGE).into_owned() },
            false => self,
        }
    }
}

/// The column (1-based, in characters) where the value in `text` starts: past leading spaces.
pub(crate) fn value_column(text: &str) -> usize {
    text[..text.len() - text.trim_start().len()].chars().count() + 1
}

/// How many characters of a text or value an error quotes at most.
pub(crate) const EXCERPT: usize = 40;

/// How many characters a type's name or a list of names takes in an error at most.
pub(crate) const NAME_EXCERPT: usize = 60;

/// How many characters the message of an error placed by [`TextError::at_column`] has at most.
const MAX_MESSAGE: usize = 160;

/// `text`, or its first characters and `…` when it has more than `limit`: what an error quotes
/// of a text, never all of it however long it is.
pub(crate) fn cut(text: &str, limit: usize) -> Cow<'_, str> {
    match text.chars().nth(limit) {
        None => Cow::Borrowed(text),
        Some(_) => {
            let end = text.char_indices().nth(limit.saturating_sub(1)).map_or(0, |(at, _)| at);
            Cow::Owned(format!("{}…", &text[..end]))
        }
    }
}

/// The text of `value`, cut at [`EXCERPT`] characters as [`cut`] does, written only that far:
/// a value of millions of elements is not written out to be quoted.
pub(crate) fn excerpt(value: &impl fmt::Display) -> String {
    struct Bounded {
        out: String,
        left: usize,
        over: bool,
    }
    impl fmt::Write for Bounded {
        fn write_str(&mut self, text: &str) -> fmt::Result {
            for c in text.chars() {
                if self.left == 0 {
                    self.over = true;
                    return Err(fmt::Error);
                }
                self.out.push(c);
                self.left -= 1;
            }
            Ok(())
        }
    }
    let mut bounded = Bounded { out: String::new(), left: EXCERPT, over: false };
    let _ = write!(bounded, "{value}");
    if bounded.over {
        bounded.out.pop();
        bounded.out.push('…');
    }
    bounded.out
}

/// The name of the type `signature` describes, cut at [`NAME_EXCERPT`] characters.
pub(crate) fn type_name(signature: &[u32]) -> String {
    cut(&describe_signature(signature), NAME_EXCERPT).into_owned()
}

/// Reading and writing values by their type's signature (see
/// [`PlainType::signature`](crate::plain::PlainType::signature)), without the type.
impl PlainValue {
    /// Plain elements as stored (`count` of them, each in element form) taken apart by their
    /// type's `signature` into one value, or a list of them when `array`; `static_size` is what
    /// the field header records (it delimits elements of types this program cannot take apart,
    /// which come as bytes). What a tool uses when it knows a value's type from elsewhere (a map's
    /// keys, from the field that holds the map).
    ///
    /// ```
    /// use reflectable::plain::{write_elem, PlainType};
    /// use reflectable::text::PlainValue;
    ///
    /// let mut signature = Vec::new();
    /// <(u16, String)>::signature(&mut signature);
    /// let mut bytes = Vec::new();
    /// write_elem(&(7u16, String::from("oak")), &mut bytes);
    /// let value = PlainValue::read(&signature, None, 1, false, &bytes).unwrap();
    /// assert_eq!(value.to_string(), r#"[7, "oak"]"#);
    /// ```
    pub fn read(
        signature: &[u32],
        static_size: Option<u8>,
        count: usize,
        array: bool,
        bytes: &[u8],
    ) -> Result<PlainValue, TextError> {
        read_field(signature, static_size, count, array, bytes)
    }

    /// One compact element ([`PlainType::write_compact`](crate::plain::PlainType::write_compact);
    /// `FORMAT.md`, "Compact plain elements") taken apart by its type's `signature`. The compact
    /// form has no size prefixes, so every type in it must be one this program can take apart: a
    /// type nobody describes is [`TextError::Undescribed`].
    ///
    /// ```
    /// use reflectable::plain::{PlainType, Reader};
    /// use reflectable::text::PlainValue;
    ///
    /// let mut signature = Vec::new();
    /// <(u16, String)>::signature(&mut signature);
    /// let mut bytes = Vec::new();
    /// (300u16, String::from("oak")).write_compact(&mut bytes);
    ///
    /// let value = PlainValue::read_compact(&signature, &mut Reader::new(&bytes)).unwrap();
    /// assert_eq!(value.to_string(), r#"[300, "oak"]"#);
    /// let mut again = Vec::new();
    /// value.write_compact(&signature, &mut again).unwrap();
    /// assert_eq!(again, bytes);
    /// ```
    ///
    /// As with [`read`](Self::read), one value may hold at most [`MAX_ZERO_SIZED_SHOWN`] elements
    /// of no size and nest at most [`MAX_SHOWN_DEPTH`] levels (fewer if `reader` admits fewer),
    /// although a typed decoder admits more.
    pub fn read_compact(signature: &[u32], reader: &mut crate::plain::Reader<'_>) -> Result<PlainValue, TextError> {
        let admitted = reader.zero_sized_left();
        let shown = admitted.min(MAX_ZERO_SIZED_SHOWN);
        reader.set_zero_sized_left(shown);
        let depth = reader.limit_depth(MAX_SHOWN_DEPTH);
        let value = memo::scope(signature, || compact_element::read_value(signature, reader));
        reader.set_zero_sized_left(admitted - (shown - reader.zero_sized_left()));
        reader.restore_depth(depth);
        value
    }

    /// Appends this value as one compact element of the type `signature` describes: the inverse
    /// of [`read_compact`](Self::read_compact), and what `PlainType::write_compact` writes for the
    /// same value.
    pub fn write_compact(&self, signature: &[u32], out: &mut Vec<u8>) -> Result<(), TextError> {
        memo::scope(signature, || compact_element::write_value(signature, self, out))
    }
}
