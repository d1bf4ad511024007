//! `TypeData`: values attached to a type's descriptor by the modules that use it, such as the
//! code the derive generated to encode, decode and compare the type, each found by its own Rust
//! type. The type model defines the mechanism and names none of its users (in the manner of
//! bevy_reflect's `TypeData`), so the serializer's and diff's generated code hang off a
//! descriptor without the descriptor knowing either.

use std::any::{Any, TypeId};
use std::fmt;

/// Values attached to a type's descriptor, one per Rust type, found by that type (see
/// [`RttiTypeBuilder::data`](crate::RttiTypeBuilder::data)).
#[derive(Default)]
pub struct TypeData {
    // A handful at most per type: a scan beats hashing.
    entries: Vec<(TypeId, Box<dyn Any + Send + Sync>)>,
}

impl TypeData {
    /// Attaches `value`, replacing one of the same type.
    pub fn insert<D: Any + Send + Sync>(&mut self, value: D) {
        let id = TypeId::of::<D>();
        match self.entries.iter_mut().find(|(entry, _)| *entry == id) {
            Some((_, slot)) => *slot = Box::new(value),
            None => self.entries.push((id, Box::new(value))),
        }
    }

    /// The value of type `D`, if one is attached.
    #[inline]
    pub fn get<D: Any>(&self) -> Option<&D> {
        let id = TypeId::of::<D>();
        self.entries.iter().find(|(entry, _)| *entry == id).and_then(|(_, value)| value.downcast_ref())
    }

    /// Moves every value of `other` in, replacing those of the same types.
    pub(crate) fn extend(&mut self, other: TypeData) {
        for (id, value) in other.entries {
            match self.entries.iter_mut().find(|(entry, _)| *entry == id) {
                Some((_, slot)) => *slot = value,
                None => self.entries.push((id, value)),
            }
        }
    }
}

impl fmt::Debug for TypeData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TypeData({} values)", self.entries.len())
    }
}
