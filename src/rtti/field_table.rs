//! [`FieldTable`]: a list of fields with O(1) lookup by ID and by name. A struct's type has one; an
//! enum has one per variant.

use crate::field::RttiField;
use ahash::AHashMap;
use std::borrow::Cow;

/// Field lookup by ID: a dense table when IDs are small (the usual case), a map otherwise.
enum FieldIndex {
    Dense(Vec<u16>),
    Sparse(AHashMap<u16, u16>),
}

/// Largest field ID served by the dense table.
const DENSE_FIELD_IDS: usize = 1024;
const NO_FIELD: u16 = u16::MAX;

/// Fields in declaration order, indexed by ID and by name.
pub(crate) struct FieldTable {
    fields: Vec<RttiField>,
    by_id: FieldIndex,
    by_name: AHashMap<Cow<'static, str>, u16>,
}

impl FieldTable {
    /// Indexes `fields` (their IDs and names are unique: the builder checked).
    pub(crate) fn new(fields: Vec<RttiField>) -> Self {
        let max_id = fields.iter().map(|field| field.id() as usize).max().unwrap_or(0);
        let by_id = if max_id < DENSE_FIELD_IDS {
            let mut table = vec![NO_FIELD; max_id + 1];
            for (index, field) in fields.iter().enumerate() {
                table[field.id() as usize] = index as u16;
            }
            FieldIndex::Dense(table)
        } else {
            FieldIndex::Sparse(fields.iter().enumerate().map(|(index, field)| (field.id(), index as u16)).collect())
        };
        let by_name = fields
            .iter()
            .enumerate()
            .map(|(index, field)| (Cow::Owned(field.name().to_owned()), index as u16))
            .collect();
        FieldTable { fields, by_id, by_name }
    }

    /// The fields, in declaration order.
    #[inline]
    pub(crate) fn all(&self) -> &[RttiField] {
        &self.fields
    }

    /// Position of the field with `id`.
    #[inline]
    pub(crate) fn index(&self, id: u16) -> Option<usize> {
        match &self.by_id {
            FieldIndex::Dense(table) => table.get(id as usize).copied().filter(|&i| i != NO_FIELD).map(usize::from),
            FieldIndex::Sparse(map) => map.get(&id).map(|&i| usize::from(i)),
        }
    }

    /// The field with `id`.
    #[inline]
    pub(crate) fn by_id(&self, id: u16) -> Option<&RttiField> {
        self.index(id).map(|index| &self.fields[index])
    }

    /// The field named `name`.
    pub(crate) fn by_name(&self, name: &str) -> Option<&RttiField> {
        self.by_name.get(name).map(|&index| &self.fields[usize::from(index)])
    }
}
