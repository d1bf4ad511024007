//! Finding a section's fields in its type's schema by ID and by name, in constant time however
//! many fields a (hostile) schema lists, and knowing which names are ambiguous: a stream's
//! schema may give two fields one name, and such a name cannot stand for either in JSON.

use crate::schema::FieldSchema;
use ahash::AHashMap;
use std::rc::Rc;

/// Fields up to this many are searched in place; more get an index.
const SCAN: usize = 16;

/// Made once per type (and variant) a document's objects name, and kept for all of them.
pub(super) struct FieldLookup {
    fields: Rc<[FieldSchema]>,
    index: Option<Index>,
}

struct Index {
    by_id: AHashMap<u16, usize>,
    /// `None` for a name two fields share.
    by_name: AHashMap<Box<str>, Option<usize>>,
}

impl FieldLookup {
    pub(super) fn new(fields: &[FieldSchema]) -> Self {
        let index = (fields.len() > SCAN).then(|| {
            let mut by_id = AHashMap::with_capacity(fields.len());
            let mut by_name: AHashMap<Box<str>, Option<usize>> = AHashMap::with_capacity(fields.len());
            for (at, field) in fields.iter().enumerate() {
                by_id.entry(field.id).or_insert(at);
                by_name.entry(field.name.as_str().into()).and_modify(|at| *at = None).or_insert(Some(at));
            }
            Index { by_id, by_name }
        });
        FieldLookup { fields: fields.into(), index }
    }

    /// The field with `id` (the first, should a schema list one twice).
    pub(super) fn by_id(&self, id: u16) -> Option<&FieldSchema> {
        match &self.index {
            Some(index) => index.by_id.get(&id).map(|&at| &self.fields[at]),
            None => self.fields.iter().find(|field| field.id == id),
        }
    }

    /// The one field named `name`; `None` when none or several are.
    pub(super) fn by_name(&self, name: &str) -> Option<&FieldSchema> {
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
