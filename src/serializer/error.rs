//! Encode and decode errors.

use crate::field::FieldError;
use crate::plain::PlainError;
use std::fmt;
use thiserror::Error;

/// Where in the type model an error happened.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ErrorContext {
    /// Name of the type being decoded, if known.
    pub type_name: Option<String>,
    /// Name (or ID) of the field being decoded, if known.
    pub field: Option<String>,
}

impl fmt::Display for ErrorContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.type_name, &self.field) {
            (Some(type_name), Some(field)) => write!(f, " in {type_name}.{field}"),
            (Some(type_name), None) => write!(f, " in {type_name}"),
            (None, Some(field)) => write!(f, " in field {field}"),
            (None, None) => Ok(()),
        }
    }
}

/// Why decoding failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeErrorKind {
    /// The input does not start with the format's magic bytes.
    #[error("not a reflectable stream: magic bytes {found:02x?}")]
    BadMagic {
        /// The first bytes found.
        found: Vec<u8>,
    },
    /// The stream was written by an unknown format version.
    #[error("unsupported format version {version}")]
    UnsupportedVersion {
        /// The version found.
        version: u32,
    },
    /// The stream holds no object.
    #[error("the stream holds no object")]
    NoRoot,
    /// A plain value, count or header could not be read.
    #[error(transparent)]
    Plain(#[from] PlainError),
    /// The structure is inconsistent.
    #[error("corrupt stream: {0}")]
    Corrupt(&'static str),
    /// Top-level objects must carry instance IDs 1, 2, 3, ... in order.
    #[error("object has instance ID {found}, expected {expected}")]
    InstanceOutOfSequence {
        /// The ID expected next.
        expected: u32,
        /// The ID found.
        found: u32,
    },
    /// A pointer names an instance the stream does not hold.
    #[error("pointer to instance {id}, but the stream holds {count} objects")]
    UnknownInstance {
        /// The instance ID.
        id: u32,
        /// Objects in the stream.
        count: usize,
    },
    /// Objects are nested deeper than the configured limit.
    #[error("nesting deeper than the limit of {limit}")]
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// The stream holds more objects than [`Limits::max_objects`](super::Limits::max_objects).
    #[error("more than {limit} objects")]
    TooManyObjects {
        /// The limit.
        limit: usize,
    },
    /// An array field is longer than [`Limits::max_array_len`](super::Limits::max_array_len).
    #[error("array of {len} elements, over the limit of {limit}")]
    ArrayTooLong {
        /// The stored length.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// Decoding would allocate more than the budget of
    /// [`Limits::max_allocation`](super::Limits::max_allocation).
    #[error("decoding needs more than the allocation budget of {limit} bytes")]
    AllocationLimit {
        /// The budget.
        limit: usize,
    },
    /// The root object's type is not registered, or is abstract.
    #[error("root object type {type_id} is unknown or abstract")]
    UnknownRootType {
        /// The stored type ID.
        type_id: u32,
    },
    /// The root object is not of the type asked for.
    #[error("root object is a `{found}`, not a `{expected}`")]
    RootTypeMismatch {
        /// The Rust type asked for.
        expected: &'static str,
        /// The stored type's name.
        found: String,
    },
    /// Writing a decoded value into a field failed.
    #[error(transparent)]
    Field(#[from] FieldError),
    /// Reading the input failed.
    #[error("I/O error: {0}")]
    Io(String),
}

/// Decoding failed: what, at which byte offset, and in which type and field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("decode error at byte {offset}{context}: {kind}")]
pub struct DecodeError {
    /// Byte offset into the input where the problem was found.
    pub offset: usize,
    /// The type and field being decoded, where known.
    pub context: ErrorContext,
    /// What went wrong.
    pub kind: DecodeErrorKind,
}

impl DecodeError {
    /// An error at `offset` with no type context yet.
    pub fn new(offset: usize, kind: impl Into<DecodeErrorKind>) -> Self {
        DecodeError { offset, context: ErrorContext::default(), kind: kind.into() }
    }

    /// Adds the type and field names if none are set yet (the innermost context wins).
    pub(crate) fn within(mut self, type_name: &str, field: Option<&str>) -> Self {
        if self.context.type_name.is_none() {
            self.context.type_name = Some(type_name.to_owned());
            self.context.field = field.map(str::to_owned);
        }
        self
    }
}

impl From<PlainError> for DecodeError {
    fn from(error: PlainError) -> Self {
        let offset = match &error {
            PlainError::UnexpectedEnd { offset, .. }
            | PlainError::Invalid { offset, .. }
            | PlainError::LengthTooLarge { offset, .. }
            | PlainError::TrailingBytes { offset, .. } => *offset,
        };
        DecodeError::new(offset, error)
    }
}

/// Encoding failed.
#[derive(Debug, Error)]
pub enum EncodeError {
    /// More objects than instance IDs can number.
    #[error("more than {limit} objects: instance IDs have 30 bits")]
    TooManyObjects {
        /// The largest instance ID.
        limit: u32,
    },
    /// A field could not be read (a pointee borrowed elsewhere, a poisoned lock, a plain value
    /// whose encoding contradicts its declared size).
    #[error("cannot encode {type_name}.{field}: {source}")]
    Field {
        /// The type.
        type_name: String,
        /// The field.
        field: String,
        /// The cause.
        #[source]
        source: FieldError,
    },
    /// An array field holds more elements than a `u32` count can describe.
    #[error("an array field of {count} elements: counts have 32 bits")]
    TooManyElements {
        /// Its length.
        count: usize,
    },
    /// A shared object could not be read (borrowed mutably elsewhere, or a poisoned lock).
    #[error("cannot read instance {instance}: {source}")]
    Pointee {
        /// Its instance ID.
        instance: u32,
        /// The cause.
        #[source]
        source: FieldError,
    },
    /// Objects are nested by value deeper than the limit the decoder would accept.
    #[error("objects nested by value deeper than the limit of {limit}")]
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// The sink failed.
    #[error("I/O error while encoding: {0}")]
    Io(#[from] std::io::Error),
}
