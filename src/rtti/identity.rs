//! Object identity: a type may name one of its fields as what tells its objects apart for good,
//! across edits, saves and processes (`#[rtti(id = N, identity)]`, or
//! [`RttiTypeBuilder::identity`](super::RttiTypeBuilder::identity)): a single plain value of a
//! fixed size of at most 16 bytes, such as a `u64` counter or a UUID held as a `u128` or
//! `[u8; 16]`. [`diff`](crate::diff::diff) pairs objects by it (two objects of one type with
//! equal identities are one object, edited; with different ones, two objects), before any
//! matching by content, and version 5 streams record it in their schema table (`FORMAT.md`,
//! "Version 5"), so that a tool without the program can align files by it too.

use super::visit;
use super::{Reflectable, RttiType};
use crate::field::{RttiField, WireKind, WireShape};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once any type of the process declares an identity: until then a diff need not look out
/// for two objects claiming one identity (`diff/generate/identity.rs`).
static DECLARED: AtomicBool = AtomicBool::new(false);

/// Whether any type of the process declares an identity. A type's descriptor is built when
/// first asked for, so the submitted types are built once first: a graph's types must count
/// before the first diff reads their objects.
pub(crate) fn identities_declared() -> bool {
    static SUBMITTED_BUILT: std::sync::Once = std::sync::Once::new();
    SUBMITTED_BUILT.call_once(|| {
        for registration in inventory::iter::<super::registry::TypeRegistration> {
            // A type whose declaration is in error declares nothing; its error is the
            // registry's to report.
            let _ = (registration.rtti)();
        }
    });
    DECLARED.load(Ordering::Relaxed)
}

/// Notes that a type declares an identity.
pub(crate) fn note_declared() {
    DECLARED.store(true, Ordering::Relaxed);
}

/// Whether a field stored as `shape` can be an identity: a single plain value of a fixed size of
/// 1 to 16 bytes (a UUID at most). The one rule for running fields and schema table entries.
pub(crate) fn identity_shape(shape: WireShape) -> bool {
    !shape.array && matches!(shape.kind, WireKind::Plain(Some(1..=16)))
}

/// Whether `field` can be an identity (see [`identity_shape`]).
pub(crate) fn can_be_identity(field: &RttiField) -> bool {
    identity_shape(field.wire_shape())
}

impl RttiType {
    /// The identity field of this type or of the nearest base that has one, with the type that
    /// declares it; `None` when objects of the type have no declared identity.
    pub fn identity_field(&'static self) -> Option<(&'static RttiType, &'static RttiField)> {
        self.chain().find_map(|rtti| rtti.own_identity().map(|field| (rtti, field)))
    }

    /// Appends what identifies `object`, an object of this type, to `out`: the ID of the type
    /// that declares the identity, then the identity's stored bytes. `false` (nothing appended)
    /// when the type declares none, or the field cannot be read.
    pub(crate) fn write_identity(&'static self, object: &dyn Reflectable, out: &mut Vec<u8>) -> bool {
        let Some((declaring, field)) = self.cached_identity(|| self.identity_field()) else { return false };
        let Some(section) = visit::sections_from(self, object).find(|section| std::ptr::eq(section.rtti, declaring))
        else {
            return false;
        };
        let start = out.len();
        out.extend_from_slice(&declaring.id().to_le_bytes());
        let crate::field::FieldAccess::Plain(plain) = field.access() else { return false };
        if plain.write(section.object, out).is_err() {
            out.truncate(start);
            return false;
        }
        true
    }

    /// The key a patch finds `object` (of this type) by: its own type's ID, then what
    /// [`write_identity`](Self::write_identity) appends. `None` when the type declares none.
    pub(crate) fn identity_key(&'static self, object: &dyn Reflectable) -> Option<Vec<u8>> {
        let mut key = self.id().to_le_bytes().to_vec();
        self.write_identity(object, &mut key).then_some(key)
    }

    /// `object`'s identity as text (`11`, or a UUID as its number), when its type declares one.
    pub(crate) fn identity_text(&'static self, object: &dyn Reflectable) -> Option<String> {
        let (declaring, field) = self.cached_identity(|| self.identity_field())?;
        let section = visit::sections_from(self, object).find(|section| std::ptr::eq(section.rtti, declaring))?;
        field.to_text(section.object).ok()
    }
}

#[cfg(test)]
mod tests {
    use crate::rtti::{Reflectable, RttiError, RttiTypeBuilder};

    #[derive(Default)]
    struct Tagged {
        id: u64,
        names: Vec<u64>,
    }

    crate::rtti::built_in_reflectable!(Tagged, || {
        RttiTypeBuilder::<Tagged>::new(9_640_001, "Tagged")
            .default_constructor()
            .plain::<u64>(1, "id", |t| &t.id, |t| &mut t.id)
            .plain::<Vec<u64>>(2, "names", |t| &t.names, |t| &mut t.names)
            .identity(1)
            .build()
    });

    #[test]
    fn an_identity_is_written_with_its_declaring_type() {
        let object = Tagged { id: 7, names: vec![1] };
        let mut out = Vec::new();
        assert!(object.rtti().write_identity(&object, &mut out));
        let mut expected = 9_640_001u32.to_le_bytes().to_vec();
        expected.extend_from_slice(&7u64.to_le_bytes());
        assert_eq!(out, expected);
    }

    #[test]
    fn an_array_or_a_missing_field_cannot_be_an_identity() {
        let array = RttiTypeBuilder::<Tagged>::new(9_640_002, "TaggedArray")
            .plain::<Vec<u64>>(2, "names", |t| &t.names, |t| &mut t.names)
            .identity(2)
            .build();
        assert!(matches!(array, Err(RttiError::BadIdentity { field_id: 2, .. })), "{array:?}");
        let missing = RttiTypeBuilder::<Tagged>::new(9_640_003, "TaggedMissing").identity(5).build();
        assert!(matches!(missing, Err(RttiError::BadIdentity { field_id: 5, .. })), "{missing:?}");
    }
}
