//! What a field holds, described once when its type is built: the [`FieldShape`] (kind, array,
//! element type) and the part of it a stream records, the [`WireShape`]. The encoder writes a
//! field's `WireShape` into its header; the decoder and migrations compare a stored `WireShape`
//! with the running field's by equality.

use super::Family;
use crate::plain::PlainType;
use crate::rtti::RttiType;
use std::fmt;

/// The three field kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// Copied through a [`PlainType`] codec.
    Plain,
    /// Another reflectable object stored by value inside the owner (an *embedded object*).
    Embedded,
    /// A shared pointer to a reflectable object; identity and sharing are preserved.
    Pointer,
}

/// What an embedded or pointer field declares its elements to be.
#[derive(Clone, Copy)]
pub enum Declared {
    /// Exactly this type.
    Type(fn() -> &'static RttiType),
    /// Any registered type implementing the named trait (`"Reflectable"` for `dyn Reflectable`).
    Trait(&'static str),
}

impl Declared {
    /// The declared type, or `None` for a trait object.
    pub fn rtti(&self) -> Option<&'static RttiType> {
        match self {
            Declared::Type(rtti) => Some(rtti()),
            Declared::Trait(_) => None,
        }
    }
}

impl fmt::Debug for Declared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Declared::Type(rtti) => write!(f, "Type({})", rtti().name()),
            Declared::Trait(name) => write!(f, "dyn {name}"),
        }
    }
}

/// Codec facts about a plain element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlainInfo {
    /// The [`PlainType::TYPE_ID`].
    pub type_id: u32,
    /// The [`PlainType::STATIC_SIZE`] (`None` = dynamic size).
    pub static_size: Option<u32>,
}

impl PlainInfo {
    /// The facts for `T`.
    pub const fn of<T: PlainType>() -> Self {
        PlainInfo { type_id: T::TYPE_ID, static_size: T::STATIC_SIZE }
    }
}

/// What one element of a field is.
#[derive(Debug, Clone, Copy)]
pub enum ElemShape {
    /// A plain value.
    Plain(PlainInfo),
    /// An embedded object.
    Embedded(Declared),
    /// A shared pointer.
    Pointer {
        /// What it points at.
        declared: Declared,
        /// The handle family.
        family: Family,
        /// `true` for `Weak` handles.
        weak: bool,
    },
}

/// A field's shape: whether it is an array, and what its elements are.
#[derive(Debug, Clone, Copy)]
pub struct FieldShape {
    /// `true` for `Vec`, `[T; N]` and `SmallVec` fields.
    pub array: bool,
    /// What each element is.
    pub elem: ElemShape,
}

impl FieldShape {
    /// The field's kind.
    pub fn kind(&self) -> FieldKind {
        match self.elem {
            ElemShape::Plain(_) => FieldKind::Plain,
            ElemShape::Embedded(_) => FieldKind::Embedded,
            ElemShape::Pointer { .. } => FieldKind::Pointer,
        }
    }

    /// What a stream records of this shape. A plain static size above 255 has no wire form; the
    /// builder refuses such fields, and here it reads as dynamic.
    pub fn wire(&self) -> WireShape {
        let kind = match self.elem {
            ElemShape::Plain(info) => WireKind::plain(info),
            ElemShape::Embedded(_) => WireKind::Embedded,
            ElemShape::Pointer { .. } => WireKind::Pointer,
        };
        WireShape { kind, array: self.array }
    }
}

/// What a field header says a field's elements are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WireKind {
    /// Plain elements: `Some(size)` static, `None` dynamic.
    Plain(Option<u8>),
    /// Embedded objects.
    Embedded,
    /// Instance IDs.
    Pointer,
}

impl WireKind {
    /// The wire kind of plain elements described by `info`.
    pub fn plain(info: PlainInfo) -> Self {
        WireKind::Plain(info.static_size.and_then(|size| u8::try_from(size).ok()))
    }
}

/// The part of a field's shape a stream records: enough to skip the field, and to tell whether a
/// stored field still fits the running one (they fit when their `WireShape`s are equal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WireShape {
    /// The element kind.
    pub kind: WireKind,
    /// `true` when a count and several elements follow.
    pub array: bool,
}
