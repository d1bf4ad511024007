//! Finding a section's fields in its type's schema by ID and by name, in constant time however
//! many fields a (hostile) schema lists, and knowing which names are ambiguous: a stream's
//! schema may give two fields one name, and such a name cannot stand for either in JSON.

use crate::schema::FieldSchema;
use ahash::AHashMap;

/// Fields up to this many are searched in place; more get an index.
const SCAN: usize = 16;

pub(super) struct FieldLookup<'s> {
    fields: &'s [FieldSchema],
    index: Option<Index<'s>>,
}

struct Index<'s> {
    by_id: AHashMap<u16, usize>,
    /// `None` for a name two fields share.
    by_name: AHashMap<&'s str, Option<usize>>,
}

impl<'s> FieldLookup<'s> {
    pub(super) fn new(fields: &'s [FieldSchema]) -> Self {
        let index = (fields.len() > SCAN).then(|| {
            let mut by_id = AHashMap::with_capacity(fields.len());
            let mut by_name: AHashMap<&str, Option<usize>> = AHashMap::with_capacity(fields.len());
            for (at, field) in fields.iter().enumerate() {
                by_id.entry(field.id).or_insert(at);
                by_name.entry(field.name.as_str()).and_modify(|at| *at = None).or_insert(Some(at));
            }
            Index { by_id, by_name }
        });
        FieldLookup { fields, index }
    }

    /// The field with `id` (the first, should a schema list one twice).
    pub(super) fn by_id(&self, id: u16) -> Option<&'s FieldSchema> {
        match &self.index {
            Some(index) => index.by_id.get(&id).map(|&at| &self.fields[at]),
            None => self.fields.iter().find(|field| field.id == id),
        }
    }

    /// The one field named `name`; `None` when none or several are.
    pub(super) fn by_name(&self, name: &str) -> Option<&'s FieldSchema> {
        match &self.index {
            Some(index) => index.by_name.get(name).copied().flatten().map(|at| &self.fields[at]),
            None => {
                let mut named = self.fields.iter().filter(|field| field.name == name);
                match (named.next(), named.next()) {
                    (Some(field), None) => Some(field),
                    _ => None,
                }
            }
        }
    }
}
