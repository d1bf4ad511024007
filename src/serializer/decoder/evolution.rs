//! Reading a stream whose types differ from the program's (`FORMAT.md`, "Typed evolution").
//!
//! A version 3 stream describes each type it holds. When the decoder starts, each described type
//! is compared with the running one: by fingerprint, confirmed by the field headers
//! ([`TableIndex::same_layout`]). Types that match need nothing more, and when all match (the
//! usual case) the decode loop never looks here. For a type that differs, a [`TypePlan`] says,
//! once per stream, what to do with each stored field: read it, convert it, hand it to a
//! migration, or skip and report it.

use super::scope::Layout;
use crate::containers::FIRST_RESERVED_TYPE_ID;
use crate::field::RttiField;
use crate::rtti::{Registry, RttiType, TypeSet};
use crate::runtime::{kept_fields, KeptFields};
use crate::schema::convert::{conversion, Conversion};
use crate::schema::fingerprint_table::{mismatch, FingerprintTable};
use crate::schema::table::{EntryRef, TableIndex};
use crate::schema::{field_signature, fingerprint, FieldSchema, TypeSchema};
use crate::serializer::report::SkipReason;
use crate::wire::error::{corrupt, DecodeError, DecodeErrorKind};
use crate::wire::format::FieldHeader;
use ahash::AHashMap;
use std::rc::Rc;

/// What to do with one stored field.
#[derive(Debug)]
pub(crate) enum Action {
    /// Read it into the running field of the same ID: their types agree.
    Read,
    /// Read it into the running field through a lossless conversion.
    Convert(Conversion),
    /// Hand it to the running type's migration at this index.
    Migrate(usize),
    /// Keep it in the object's [`UnknownFields`](crate::UnknownFields) member, in this set.
    Keep(&'static KeptFields),
    /// Skip it, and report why.
    Skip(SkipReason),
}

/// How the stored form of one type is read into the running one.
#[derive(Debug)]
pub(crate) struct TypePlan {
    /// The type as the stream describes it.
    pub(crate) stored: TypeSchema,
    /// Per stored field, keyed by (variant, field ID), sorted, with where the field is in
    /// `stored` (variant index, field index): found by one search however many fields it lists.
    actions: Vec<PlannedField>,
}

/// One stored field's plan: its key (variant, field ID), what to do, where it is stored.
type PlannedField = ((Option<u32>, u16), Action, StoredAt);

/// Where a stored field is in [`TypePlan::stored`]: its variant's index (in an enum), its index.
type StoredAt = (Option<usize>, usize);

impl TypePlan {
    fn new(stored: TypeSchema, rtti: &'static RttiType) -> Self {
        let mut actions = Vec::new();
        for (index, field) in stored.fields.iter().enumerate() {
            actions.push(((None, field.id), decide(rtti, None, field, rtti.field(field.id)), (None, index)));
        }
        if rtti.keeps_unknown_fields() {
            keep_unknown(&stored, rtti, &mut actions);
        }
        for (at, variant) in stored.variants.iter().enumerate() {
            let running = rtti.variant(variant.id);
            for (index, field) in variant.fields.iter().enumerate() {
                let action = match running {
                    Some(running) => decide(rtti, Some(variant.id), field, running.field(field.id)),
                    // A variant this enum lacks: the object gets the default (or what a variant
                    // migration chooses, decided field by field when that happens).
                    None => Action::Skip(SkipReason::InactiveVariant),
                };
                actions.push(((Some(variant.id), field.id), action, (Some(at), index)));
            }
        }
        actions.sort_by_key(|(key, ..)| *key);
        TypePlan { stored, actions }
    }

    /// The action for stored field `id` (of `variant`, in an enum), and the field as stored.
    /// `Err` when the stream's header for it contradicts its schema table.
    pub(crate) fn action(
        &self,
        variant: Option<u32>,
        header: &FieldHeader,
        offset: usize,
    ) -> Result<(&Action, &FieldSchema), DecodeError> {
        let key = (variant, header.id);
        let found = self.actions.binary_search_by_key(&key, |(key, ..)| *key).ok().map(|index| &self.actions[index]);
        let found = found.map(|(_, action, (variant, field))| {
            let fields = variant.map_or(&self.stored.fields, |variant| &self.stored.variants[variant].fields);
            (action, &fields[*field])
        });
        match found.filter(|(_, stored)| stored.shape == header.shape) {
            Some(found) => Ok(found),
            None => Err(corrupt(offset, "a field header the stream's schema table does not describe")),
        }
    }
}

/// Turns the skips of stored fields the running type lacks into keeps, all in one kept set.
fn keep_unknown(stored: &TypeSchema, rtti: &'static RttiType, actions: &mut [PlannedField]) {
    // Fields of the type itself: a stored enum's variants have nowhere to go in a struct.
    fn unknown(((variant, _), action, _): &PlannedField) -> bool {
        variant.is_none() && matches!(action, Action::Skip(SkipReason::NotInType))
    }
    let fields: Vec<FieldSchema> =
        actions.iter().filter(|entry| unknown(entry)).map(|(_, _, (_, at))| stored.fields[*at].clone()).collect();
    if fields.is_empty() {
        return;
    }
    // Past the process's limit on kept sets, the fields are skipped and reported as before.
    let Ok(kept) = kept_fields(rtti, fields) else { return };
    for (_, action, _) in actions.iter_mut().filter(|entry| unknown(entry)) {
        *action = Action::Keep(kept);
    }
}

/// The one decision per stored field (see the module docs): the running field when the types
/// agree; else a migration registered for the stored type; else a lossless conversion; else skip.
pub(crate) fn decide(
    rtti: &'static RttiType,
    variant: Option<u32>,
    stored: &FieldSchema,
    running: Option<&RttiField>,
) -> Action {
    let running_signature = running.map(|field| {
        let mut signature = Vec::new();
        field_signature(field, &mut signature);
        signature
    });
    if let (Some(field), Some(signature)) = (running, &running_signature) {
        // A stored field without a signature (too long to describe) is matched by shape alone.
        if field.wire_shape() == stored.shape && (*signature == stored.signature || stored.signature.is_empty()) {
            return Action::Read;
        }
    }
    // Migrations are by field ID of the type: an enum's field IDs are its variants'.
    if variant.is_none() {
        let migration = rtti.migrations.iter().position(|migration| {
            migration.field_id == stored.id
                && migration.wire_shape() == stored.shape
                && migration.signature() == stored.signature.as_slice()
        });
        if let Some(index) = migration {
            return Action::Migrate(index);
        }
    }
    match (running, running_signature) {
        (Some(field), Some(signature)) => {
            match conversion((stored.shape, &stored.signature), (field.wire_shape(), &signature)) {
                Some(conversion) => Action::Convert(conversion),
                None => Action::Skip(SkipReason::Retyped {
                    from: stored.type_description(),
                    to: crate::schema::FieldSchema::of(field).type_description(),
                }),
            }
        }
        _ => Action::Skip(SkipReason::NotInType),
    }
}

/// What the decoder knows of a stream's own description of its types.
pub(crate) struct StreamTypes<'d> {
    table: Option<TableIndex<'d>>,
    /// The described types that are not plain sailing: those that differ from the running ones,
    /// and those the registry lacks (a field may still declare them), settled when first met.
    /// Empty in the usual case, and then never consulted.
    layouts: AHashMap<u32, Slot>,
    /// Types known to read as they are although `layouts` is not empty: each section then costs
    /// a bit test, not a hash lookup.
    as_is: TypeSet,
    /// For a stream with a fingerprint table, the types it lists and their fingerprints, by ID:
    /// a section of any other type is corrupt, since nothing vouches for how it is written.
    /// (A listed type's sections then cost a bit test in `as_is`.)
    listed: Option<AHashMap<u32, u64>>,
}

enum Slot {
    /// Not compared yet: the registry lacks the type.
    Pending(EntryRef),
    /// Compared: the running type reads it as it is.
    Same,
    /// Compared: read through a plan.
    Evolved(Rc<TypePlan>),
}

impl<'d> StreamTypes<'d> {
    /// No schema (a stream before version 3).
    pub(crate) fn none() -> Self {
        StreamTypes { table: None, layouts: AHashMap::new(), as_is: TypeSet::default(), listed: None }
    }

    /// A stream with a fingerprint table: every listed type the registry has must have the
    /// listed fingerprint (checked now, before any object is read); the objects are then read as
    /// they are, each section's type checked against the list when first met, and a section of
    /// a type the table does not list is corrupt.
    pub(crate) fn fingerprinted(table: &FingerprintTable, registry: &Registry) -> Result<Self, DecodeError> {
        table.check(registry)?;
        let listed = table.entries().iter().map(|entry| (entry.type_id, entry.fingerprint)).collect();
        Ok(StreamTypes { listed: Some(listed), ..StreamTypes::none() })
    }

    /// Compares every described type the registry has with the running one.
    pub(crate) fn new(table: TableIndex<'d>, registry: &Registry) -> Result<Self, DecodeError> {
        let mut layouts = AHashMap::new();
        for entry in table.entries() {
            let slot = match registry.get(entry.type_id) {
                Some(rtti) => compare(&table, entry, rtti)?,
                None => Slot::Pending(*entry),
            };
            if !matches!(slot, Slot::Same) {
                layouts.insert(entry.type_id, slot);
            }
        }
        Ok(StreamTypes { table: Some(table), layouts, as_is: TypeSet::default(), listed: None })
    }

    /// How the sections of `rtti` (a type the decoder is about to read) are read.
    #[inline]
    pub(crate) fn layout(&mut self, rtti: &'static RttiType) -> Result<Layout, DecodeError> {
        if self.layouts.is_empty() && self.listed.is_none() {
            return Ok(Layout::AsIs);
        }
        self.layout_slow(rtti)
    }

    /// For a stream with a fingerprint table, the error for an object of type `type_id` (at
    /// `offset`) the reader cannot build: the stream was written for types the reader lacks.
    /// `None` for other streams, which drop such objects and report it.
    pub(crate) fn refuse_dropped(&self, type_id: u32, offset: usize) -> Option<DecodeError> {
        let listed = self.listed.as_ref()?;
        Some(match listed.get(&type_id) {
            Some(&recorded) => mismatch(type_id, recorded, None, offset),
            None => unlisted().at(offset),
        })
    }

    /// `true` when the stream describes type `type_id` exactly as the running type is: then
    /// every stored field header must be one of the running type's.
    pub(crate) fn describes_as_is(&self, type_id: u32) -> bool {
        let described = self.table.as_ref().is_some_and(|table| table.get(type_id).is_some());
        described && !matches!(self.layouts.get(&type_id), Some(Slot::Evolved(_) | Slot::Pending(_)))
    }

    #[inline]
    fn layout_slow(&mut self, rtti: &'static RttiType) -> Result<Layout, DecodeError> {
        if self.as_is.contains(rtti) {
            return Ok(Layout::AsIs);
        }
        if let Some(listed) = &self.listed {
            // Lists and maps are never listed: the format fixes their layout.
            let vouched = rtti.id() >= FIRST_RESERVED_TYPE_ID || listed.get(&rtti.id()) == Some(&fingerprint(rtti));
            if !vouched {
                return Err(unlisted());
            }
        }
        self.settle(rtti)
    }

    /// Looks `rtti` up (comparing it with its entry the first time), and remembers the types
    /// that read as they are.
    #[inline(never)]
    fn settle(&mut self, rtti: &'static RttiType) -> Result<Layout, DecodeError> {
        let layout = match self.layouts.get_mut(&rtti.id()) {
            None => Layout::AsIs,
            Some(slot) => {
                if let Slot::Pending(entry) = slot {
                    let table = self.table.as_ref().expect("slots come from a table");
                    *slot = compare(table, entry, rtti)?;
                }
                match slot {
                    Slot::Evolved(plan) => return Ok(Layout::Evolved(plan.clone())),
                    _ => Layout::AsIs,
                }
            }
        };
        // Only a descriptor that reads as it is gets its bit: the registry's and a field's
        // declared descriptor of one ID are compared with the entry each on its own.
        self.as_is.insert(rtti);
        Ok(layout)
    }

    /// The stored schema of type `type_id`, when the stream describes it (and the entry parses).
    pub(crate) fn stored(&self, type_id: u32) -> Option<crate::schema::TypeSchema> {
        let table = self.table.as_ref()?;
        table.parse(table.get(type_id)?).ok()
    }

    /// The stored name of type `type_id`, when the stream describes it.
    pub(crate) fn stored_name(&self, type_id: u32) -> Option<String> {
        let table = self.table.as_ref()?;
        let entry = table.get(type_id)?;
        // The name alone: this runs per dropped object, and the entry may be large.
        table.name(entry)
    }
}

/// A section of a type that a stream's fingerprint table does not list (or lists with another
/// fingerprint than the reader's descriptor has: a field's declared descriptor may differ from
/// the registry's). The caller places it at the section's header.
#[cold]
fn unlisted() -> DecodeError {
    let what = "an object of a type the fingerprint table does not list, or lists with another fingerprint";
    DecodeError::new(DecodeErrorKind::Corrupt(what), None)
}

fn compare(table: &TableIndex<'_>, entry: &EntryRef, rtti: &'static RttiType) -> Result<Slot, DecodeError> {
    if entry.fingerprint == fingerprint(rtti) && table.same_layout(entry, rtti) {
        return Ok(Slot::Same);
    }
    let stored = table.parse(entry)?;
    Ok(Slot::Evolved(Rc::new(TypePlan::new(stored, rtti))))
}
