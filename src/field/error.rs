//! [`FieldError`]: what dynamic field access reports.

use super::FieldKind;
use crate::plain::PlainError;
use thiserror::Error;

/// Dynamic field access failed.
///
/// The field implementations report wrong owners and element types without the field's name;
/// [`RttiField`](super::RttiField)'s methods fill it in, so errors users see always name the field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FieldError {
    /// The object passed is not of the type that owns the field.
    #[error("field `{field}` belongs to `{owner}`, not to the object given")]
    WrongOwner {
        /// Field name.
        field: String,
        /// Rust name of the owning type.
        owner: &'static str,
    },
    /// The value's Rust type is not the field's element type.
    #[error("field `{field}` holds `{expected}` elements, not the type given")]
    WrongType {
        /// Field name.
        field: String,
        /// Rust name of the element type.
        expected: &'static str,
    },
    /// The operation does not apply to this field's kind.
    #[error("field `{field}` is a {kind:?} field; the operation needs another kind")]
    WrongKind {
        /// Field name.
        field: String,
        /// The field's kind.
        kind: FieldKind,
    },
    /// The field belongs to a variant of an enum other than the one the object holds.
    #[error("field `{field}` belongs to another variant than the one the object holds")]
    InactiveVariant {
        /// Field name.
        field: String,
    },
    /// The object's type (and its bases) has no field of this name.
    #[error("type `{type_name}` has no field `{field}`")]
    NoSuchField {
        /// The name asked for.
        field: String,
        /// The object's type.
        type_name: String,
    },
    /// The element index is past the end.
    #[error("index {index} out of range for a field of {len} elements")]
    OutOfRange {
        /// Requested index.
        index: usize,
        /// Elements present.
        len: usize,
    },
    /// The container has a fixed number of elements.
    #[error("the field holds exactly {expected} elements, not {got}")]
    FixedLength {
        /// Length it must have.
        expected: usize,
        /// Length asked for.
        got: usize,
    },
    /// The element type has no default to fill new slots with.
    #[error("elements of this field cannot be created empty: no Default")]
    NoDefault,
    /// The field cannot hold `None`.
    #[error("this field cannot hold a null value")]
    NotNullable,
    /// A `RefCell` was already borrowed in a conflicting way.
    #[error("the pointee is already borrowed")]
    Borrowed,
    /// A `Mutex`/`RwLock` was poisoned by a panic.
    #[error("the pointee's lock is poisoned")]
    Poisoned,
    /// The pointer family gives only shared access (`Rc<T>`, `Arc<T>`).
    #[error("`Rc<T>`/`Arc<T>` pointees are immutable; use `Rc<RefCell<T>>` or a lock")]
    NotMutable,
    /// A plain value read through the field failed to decode.
    #[error(transparent)]
    Plain(#[from] PlainError),
    /// A plain value's encoding had another size than its type declares.
    #[error("plain type {type_name} wrote {written} bytes but declares a static size of {declared}")]
    SizeMismatch {
        /// Rust name of the plain type.
        type_name: &'static str,
        /// Declared static size.
        declared: u32,
        /// Bytes actually written.
        written: usize,
    },
}

impl FieldError {
    /// A wrong owner, before the field's name is known.
    #[cold]
    pub(crate) fn wrong_owner<O>() -> Self {
        FieldError::WrongOwner { field: String::new(), owner: std::any::type_name::<O>() }
    }

    /// A field of a variant the owner does not hold, before the field's name is known.
    #[cold]
    pub(crate) fn inactive_variant() -> Self {
        FieldError::InactiveVariant { field: String::new() }
    }

    /// A wrong element type, before the field's name is known.
    #[cold]
    pub(crate) fn wrong_type<E>() -> Self {
        FieldError::WrongType { field: String::new(), expected: std::any::type_name::<E>() }
    }

    /// Names the field in an error that does not name one yet.
    #[cold]
    pub(crate) fn in_field(mut self, name: &str) -> Self {
        if let FieldError::WrongOwner { field, .. }
        | FieldError::WrongType { field, .. }
        | FieldError::WrongKind { field, .. }
        | FieldError::InactiveVariant { field } = &mut self
        {
            if field.is_empty() {
                *field = name.to_owned();
            }
        }
        self
    }
}
