//! [`PlainSlot`]: the plain element types a runtime-defined field can hold.

use super::description::SlotSpec;
use crate::field::{One, VecShape};
use crate::plain::PlainType;
use crate::rtti::runtime_object::{slot_accessor, RuntimeObject};
use crate::rtti::RttiTypeBuilder;
use std::any::Any;

/// One plain element type for fields of runtime-defined types: the Rust type the slot stores
/// (`f32`, `String`, any [`PlainType`] with a `Default`), so the field is read and written with
/// that type like a derived field, and encodes exactly as one.
///
/// ```
/// use reflectable::runtime::PlainSlot;
///
/// assert_eq!(PlainSlot::named("f32").unwrap().type_name(), "f32");
/// assert_eq!(PlainSlot::of::<Vec<u8>>().type_name(), "alloc::vec::Vec<u8>");
/// assert!(PlainSlot::named("quaternion").is_none());
/// ```
#[derive(Clone, Copy)]
pub struct PlainSlot {
    type_name: &'static str,
    signature: fn(&mut Vec<u32>),
    pub(super) add: fn(RttiTypeBuilder<RuntimeObject>, SlotSpec) -> RttiTypeBuilder<RuntimeObject>,
    pub(super) default: fn(bool) -> Box<dyn Any>,
    pub(super) size: fn(bool) -> usize,
}

impl std::fmt::Debug for PlainSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.type_name)
    }
}

/// Makes the slot of one element type.
type MakeSlot = fn() -> PlainSlot;

/// The element types [`PlainSlot::named`] knows, by the names a description uses.
const NAMED: &[(&str, MakeSlot)] = &[
    ("bool", PlainSlot::of::<bool>),
    ("u8", PlainSlot::of::<u8>),
    ("u16", PlainSlot::of::<u16>),
    ("u32", PlainSlot::of::<u32>),
    ("u64", PlainSlot::of::<u64>),
    ("i8", PlainSlot::of::<i8>),
    ("i16", PlainSlot::of::<i16>),
    ("i32", PlainSlot::of::<i32>),
    ("i64", PlainSlot::of::<i64>),
    ("f32", PlainSlot::of::<f32>),
    ("f64", PlainSlot::of::<f64>),
    ("char", PlainSlot::of::<char>),
    ("String", PlainSlot::of::<String>),
    ("bytes", PlainSlot::of::<Vec<u8>>),
];

impl PlainSlot {
    /// Fields holding `T`.
    pub fn of<T: PlainType + Default>() -> Self {
        PlainSlot {
            type_name: std::any::type_name::<T>(),
            signature: T::signature,
            add: add_field::<T>,
            default: |array| if array { Box::new(Vec::<T>::new()) } else { Box::new(T::default()) },
            size: |array| if array { size_of::<Vec<T>>() } else { size_of::<T>() },
        }
    }

    /// A built-in element type by name: `bool`, `u8` to `u64`, `i8` to `i64`, `f32`, `f64`,
    /// `char`, `String`, and `bytes` (`Vec<u8>`). Other types: [`PlainSlot::of`].
    pub fn named(name: &str) -> Option<Self> {
        NAMED.iter().find(|(known, _)| *known == name).map(|(_, slot)| slot())
    }

    /// The built-in element type (see [`named`](Self::named)) whose
    /// [signature](crate::plain::PlainType::signature) is `signature`.
    pub fn with_signature(signature: &[u32]) -> Option<Self> {
        NAMED.iter().map(|(_, slot)| slot()).find(|slot| slot.signature() == signature)
    }

    /// Rust name of the element type.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }

    /// The element type's signature.
    pub fn signature(&self) -> Vec<u32> {
        let mut out = Vec::new();
        (self.signature)(&mut out);
        out
    }
}

fn add_field<T: PlainType + Default>(
    builder: RttiTypeBuilder<RuntimeObject>,
    spec: SlotSpec,
) -> RttiTypeBuilder<RuntimeObject> {
    if spec.array {
        builder.add_plain::<Vec<T>, VecShape>(spec.id, spec.name, slot_accessor(spec.at), Some(T::default))
    } else {
        builder.add_plain::<T, One>(spec.id, spec.name, slot_accessor(spec.at), None)
    }
}
