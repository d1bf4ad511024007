//! Writing the fields an object keeps for a newer build ([`UnknownFields`]): in its section after
//! the fields its type declares, and described in its type's schema entry beside them, as the
//! stream they came from described them.

use super::Encoder;
use crate::rtti::{Reflectable, RttiType};
use crate::runtime::{KeptFields, UnknownFields};
use crate::schema::table::schema_entry;
use crate::schema::{FieldSchema, TypeSchema};
use crate::wire::error::EncodeError;

impl Encoder<'_, '_, '_> {
    /// Writes the kept fields of `section` (of type `rtti`), if it keeps any. Out of line: few
    /// types keep fields, and the per-section loop stays small enough to inline its field writes.
    #[cold]
    #[inline(never)]
    pub(super) fn kept_fields(
        &mut self,
        rtti: &'static RttiType,
        section: &dyn Reflectable,
    ) -> Result<(), EncodeError> {
        let Some((kept, values)) = rtti.unknown_fields(section).and_then(UnknownFields::kept) else {
            return Ok(());
        };
        for field in kept.rtti.fields() {
            if rtti.field(field.id()).is_some() {
                return Err(EncodeError::KeptFieldClash { type_name: rtti.name(), field: field.id() });
            }
            self.field(field, values).map_err(|error| error.within(rtti.name(), field.name()))?;
        }
        if !self.kept.iter().any(|&(owner, set)| std::ptr::eq(owner, rtti) && std::ptr::eq(set, kept)) {
            self.kept.push((rtti, kept));
        }
        Ok(())
    }

    /// The schema entries of the types whose objects kept fields: each type's own fields, then
    /// the kept ones as they were stored.
    pub(super) fn kept_entries(&self) -> Result<Vec<(&'static RttiType, Vec<u8>)>, EncodeError> {
        let mut entries: Vec<(&'static RttiType, TypeSchema)> = Vec::new();
        for &(rtti, kept) in &self.kept {
            let at = match entries.iter().position(|(owner, _)| std::ptr::eq(*owner, rtti)) {
                Some(at) => at,
                None => {
                    entries.push((rtti, TypeSchema::of(rtti)));
                    entries.len() - 1
                }
            };
            let fields = &mut entries[at].1.fields;
            for stored in kept.stored.iter() {
                match fields.iter().find(|field| field.id == stored.id) {
                    Some(field) if same_description(field, stored) => {}
                    Some(_) => return Err(EncodeError::KeptFieldClash { type_name: rtti.name(), field: stored.id }),
                    None => fields.push(stored.clone()),
                }
            }
        }
        Ok(entries
            .into_iter()
            .map(|(rtti, schema)| {
                let entry = schema_entry(&schema);
                (rtti, entry)
            })
            .collect())
    }
}

/// `true` when two descriptions of a field agree on everything but its name.
fn same_description(a: &FieldSchema, b: &FieldSchema) -> bool {
    (a.shape, &a.signature, &a.declared, a.weak) == (b.shape, &b.signature, &b.declared, b.weak)
}

/// A kept set together with the type that holds it.
pub(super) type KeptSet = (&'static RttiType, &'static KeptFields);
