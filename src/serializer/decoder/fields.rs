//! One stored field read into the running field it matches, by kind. Each kind's steps (count
//! and budget, reading, storing, reporting what was lost) are written once and serve both the
//! descriptor walk ([`Decoder::known_field`], through the field's erased access) and a derived
//! type's generated code (`generated.rs`, through its members): only the final store differs.
//!
//! The decoder walks the stream, not the object (`wire::walk_object`): fields come in the order
//! the writer chose, each matched to the running field by the type plan, so the walk over an
//! object's fields (`rtti::visit`) cannot drive it. The generated path pays its way: without it
//! (the `walked-codecs` feature) a decode of the 10k level costs 14.3% more instructions
//! (callgrind, `profile_level 10000 3 decode`: 672.7M against 588.5M).

use super::strong_edges::Link;
use super::{field_failure, Decoder, State};
use crate::field::{Declared, Family, FieldAccess, FieldError, RttiField, SharedObject};
use crate::plain::Reader;
use crate::rtti::{Reflectable, Registry};
use crate::serializer::{DecodeEvent, NullReason};
use crate::wire::error::DecodeError;
use crate::wire::format::{FieldHeader, WireKind, NULL_INSTANCE};
use crate::wire::{embedded_header, field_count};
use smallvec::SmallVec;

/// The instance IDs a pointer field holds, and whether any of them will be null (its target was
/// not built).
pub(super) struct PointerIds {
    pub(super) ids: SmallVec<[u32; 8]>,
    pub(super) nulled: bool,
}

impl Decoder<'_, '_> {
    /// Reads stored field `header` into `field` of `object` (a section of the field's type),
    /// through the field's erased access.
    pub(super) fn known_field(
        &mut self,
        reader: &mut Reader<'_>,
        field: &RttiField,
        header: &FieldHeader,
        object: &mut dyn Reflectable,
    ) -> Result<(), DecodeError> {
        let count = self.count(reader, field, header)?;
        let type_name = object.rtti().name();
        match field.access() {
            FieldAccess::Plain(access) => {
                self.plain_values(reader, field, type_name, |reader| access.read(object, count, reader))
            }
            FieldAccess::Embedded(access) => {
                if !header.shape.array {
                    if let Some(peeked) = peek_embedded(reader)? {
                        let mut result = Ok(false);
                        access
                            .with_value_mut(object, 0, &mut |value| {
                                result = self.embedded_into(reader, peeked.clone(), value);
                            })
                            .map_err(|error| field_failure(reader, error))?;
                        if result? {
                            return Ok(());
                        }
                    }
                }
                let values = self.embedded_values(reader, count, Some(access.declared()))?;
                let registry = self.registry;
                let stored = access.store(object, values, registry);
                self.embedded_stored(reader, field, type_name, stored)
            }
            FieldAccess::Pointer(access) => {
                let family = access.family();
                let weak = access.is_weak();
                let array = header.shape.array;
                let ids = self.pointer_ids(reader, count, array, family, weak, &|| Some(access.declared()))?;
                let stored = self.with_targets(&ids, |targets, registry| access.store(object, targets, registry));
                self.pointers_stored(reader, field, type_name, &ids, stored, || access.holds_null())
            }
        }
    }

    /// A field's element count, charged against the allocation budget: the container's storage
    /// and, for pointers, the IDs and targets gathered first. Elements that take no memory are
    /// charged nothing: the zero-size allowance bounds their count instead.
    #[inline]
    pub(super) fn count(
        &mut self,
        reader: &mut Reader<'_>,
        field: &RttiField,
        header: &FieldHeader,
    ) -> Result<usize, DecodeError> {
        let count = field_count(reader, header, &self.limits)?;
        if header.shape.array {
            // Elements are charged at their size in memory: nothing for zero-sized ones, whose
            // count the zero-size allowance bounds instead. (A charge relative to the input would
            // refuse the re-encoding, shorter than its input, of a stream that decoded.)
            let scratch = if header.shape.kind == WireKind::Pointer { 12 } else { 0 };
            self.charge(reader.offset(), count.saturating_mul(field.elem_size() + scratch))?;
        }
        Ok(count)
    }

    /// A plain field's values, read and stored by `read`; values its type replaced (an unknown
    /// variant of a derived plain enum) are reported.
    #[inline]
    pub(super) fn plain_values(
        &mut self,
        reader: &mut Reader<'_>,
        field: &RttiField,
        type_name: &str,
        read: impl FnOnce(&mut Reader<'_>) -> Result<(), FieldError>,
    ) -> Result<(), DecodeError> {
        let before = reader.substitutions();
        read(reader).map_err(|error| field_failure(reader, error))?;
        let substituted = reader.substitutions() - before;
        self.values_replaced(substituted, reader.offset(), || field.name().to_owned(), type_name)
    }

    /// A single by-value field whose current `value` has exactly the stream's type (`peeked`: the
    /// type and the reader past its header) is decoded into that value, without a box to build
    /// and move out of. `false` (nothing read) otherwise.
    pub(super) fn embedded_into<'r>(
        &mut self,
        reader: &mut Reader<'r>,
        (type_id, after_header): (u32, Reader<'r>),
        value: Option<&mut dyn Reflectable>,
    ) -> Result<bool, DecodeError> {
        let Some(value) = value.filter(|value| value.rtti().id() == type_id) else { return Ok(false) };
        self.depth += 1;
        let result = self.embedded_body(reader, after_header, value);
        self.depth -= 1;
        result.map(|()| true)
    }

    /// Reports the objects an embedded field's store (`stored`) refused.
    #[inline]
    pub(super) fn embedded_stored(
        &mut self,
        reader: &Reader<'_>,
        field: &RttiField,
        type_name: &str,
        stored: Result<usize, FieldError>,
    ) -> Result<(), DecodeError> {
        let refused = stored.map_err(|error| field_failure(reader, error))?;
        if refused > 0 {
            self.orphans_possible = true;
            let event = crate::serializer::report::DecodeEvent::ValuesRefused {
                type_name: type_name.to_owned(),
                field_name: field.name().to_owned(),
            };
            self.record(event, refused as u64, reader.offset())?;
        }
        Ok(())
    }

    /// Reads a pointer field's `count` instance IDs (an `array` field's or a single one's) and
    /// builds (or finds) their targets, in the family of the field's elements (`weak` ones);
    /// `declared` names the type the field declares, asked for only when the registry lacks a
    /// stored type.
    pub(super) fn pointer_ids(
        &mut self,
        reader: &mut Reader<'_>,
        count: usize,
        array: bool,
        family: Family,
        weak: bool,
        declared: &dyn Fn() -> Option<Declared>,
    ) -> Result<PointerIds, DecodeError> {
        if count > 0 {
            self.complete_index()?;
        }
        let mut ids = PointerIds { ids: SmallVec::with_capacity(count), nulled: false };
        for _ in 0..count {
            let id = self.read_instance(reader)?;
            if id != NULL_INSTANCE {
                // Building the target may read other objects' bodies: they spend the same
                // zero-size allowance as this one.
                self.zero_sized_left = reader.zero_sized_left();
                let built = self.resolve(id, family, declared)?;
                reader.set_zero_sized_left(self.zero_sized_left);
                let ready = matches!(self.states[id as usize - 1], State::Ready(_) | State::External(_));
                ids.nulled |= !ready;
                if weak {
                    self.weak_built |= built;
                    self.weak_target(id as usize - 1);
                } else if matches!(self.states[id as usize - 1], State::Ready(_)) {
                    // A pointer that stays null (a missing type, the root by value, an immutable
                    // cycle's back edge) holds nothing.
                    let nesting = self.depth - self.body_depth + self.section_nesting;
                    let link = Link::at(self.place, nesting, array).weighing(self.weight);
                    self.strong_edges.push_at(self.current, id as usize - 1, link);
                }
            }
            ids.ids.push(id);
        }
        Ok(ids)
    }

    /// The targets of `ids`, as a pointer field's store takes them, given to `store`.
    #[inline]
    pub(super) fn with_targets<R>(
        &self,
        ids: &PointerIds,
        store: impl FnOnce(&[Option<&SharedObject>], &Registry) -> R,
    ) -> R {
        let targets: SmallVec<[Option<&SharedObject>; 8]> = ids.ids.iter().map(|&id| self.ready(id)).collect();
        store(&targets, self.registry)
    }

    /// Reports the pointers of a field that decoded as null, and those its store (`stored`)
    /// refused. `holds_null`: the elements can be null; when they cannot, the store drops the
    /// null ones from an array and counts them refused, but those whose target was not decoded
    /// are reported once, with that reason.
    #[inline]
    pub(super) fn pointers_stored(
        &mut self,
        reader: &Reader<'_>,
        field: &RttiField,
        type_name: &str,
        ids: &PointerIds,
        stored: Result<usize, FieldError>,
        holds_null: impl FnOnce() -> bool,
    ) -> Result<(), DecodeError> {
        let mut refused = stored.map_err(|error| field_failure(reader, error))?;
        if refused > 0 && field.is_array() && !holds_null() {
            // The ones `pointer_losses` reports with their reason.
            let explained = ids
                .ids
                .iter()
                .filter(|&&id| id != NULL_INSTANCE)
                .filter(|&&id| matches!(self.states[id as usize - 1], State::Missing | State::Root | State::Building))
                .count();
            // And the stream's own nulls, which the elements cannot hold.
            let nulls = ids.ids.iter().filter(|&&id| id == NULL_INSTANCE).count();
            refused = refused.saturating_sub(explained + nulls);
            if nulls > 0 {
                let (type_name, field_name) = (type_name.to_owned(), field.name().to_owned());
                let event = DecodeEvent::PointerNulled { type_name, field_name, why: NullReason::NotNullable };
                self.record(event, nulls as u64, reader.offset())?;
            }
        }
        self.orphans_possible |= refused > 0;
        if ids.nulled || refused > 0 {
            self.pointer_losses(reader, field, type_name, &ids.ids, refused)?;
        }
        Ok(())
    }

    /// Reads a pointer: an instance ID the stream holds, or null.
    pub(super) fn read_instance(&self, reader: &mut Reader<'_>) -> Result<u32, DecodeError> {
        let offset = reader.offset();
        let id = reader.read_u32()?;
        if id as usize > self.entries.len() {
            let kind = crate::wire::error::DecodeErrorKind::UnknownInstance { id, count: self.entries.len() };
            return Err(DecodeError::new(kind, offset));
        }
        Ok(id)
    }
}

/// The type of the embedded object `reader` is at, and a reader past its header; `None` for an
/// empty slot.
#[inline]
pub(super) fn peek_embedded<'d>(reader: &Reader<'d>) -> Result<Option<(u32, Reader<'d>)>, DecodeError> {
    let mut peek = reader.clone();
    Ok(embedded_header(&mut peek)?.map(|type_id| (type_id, peek)))
}
