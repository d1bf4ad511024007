//! Stored fields that are not simply read into the running field of the same ID and type: the
//! stream's plan for a type that changed (`evolution.rs`), lossless conversions, migrations, and
//! for streams without a schema the older rule, matching by wire shape. Whatever is skipped is
//! reported (`losses.rs`).

use super::evolution::{decide, Action};
use super::scope::{FieldScope, Layout};
use super::Decoder;
use crate::field::{FieldAccess, RttiField};
use crate::plain::Reader;
use crate::rtti::{Migration, Reflectable};
use crate::schema::convert::Conversion;
use crate::schema::FieldSchema;
use crate::serializer::report::{DecodeEvent, SkipReason};
use crate::wire::error::{corrupt, DecodeError};
use crate::wire::field_count;
use crate::wire::format::{FieldHeader, WireKind, FIELD_HEADER_SIZE};
use crate::wire::skip::skip_field;

impl Decoder<'_, '_> {
    /// A stored field that is not simply read into the running field of its ID: the stream's
    /// plan for it, or for streams that do not describe the type, a migration expecting its wire
    /// shape; else it is skipped and reported.
    #[inline(never)]
    pub(super) fn other_field(
        &mut self,
        reader: &mut Reader<'_>,
        scope: &FieldScope,
        header: &FieldHeader,
        object: &mut dyn Reflectable,
    ) -> Result<(), DecodeError> {
        let rtti = scope.rtti;
        let header_at = reader.offset() - FIELD_HEADER_SIZE;
        let plan = match &scope.layout {
            Layout::Evolved(plan) => plan.clone(),
            Layout::AsIs if !scope.has_no_fields() && self.types.describes_as_is(rtti.id()) => {
                return Err(corrupt(header_at, "a field header the stream's schema table does not describe"));
            }
            Layout::AsIs => return self.undescribed_field(reader, scope, header, object, header_at),
        };
        let stored_variant = scope.variant();
        if stored_variant.is_some_and(|variant| rtti.variant(variant).is_none()) && !scope.has_no_fields() {
            // A stored variant this enum lacks, whose migration chose another variant: its
            // fields go to that variant's by ID, each decided as the plan decides, from the
            // stored variant's description.
            let stored = plan
                .stored
                .field(stored_variant, header.id)
                .filter(|stored| stored.shape == header.shape)
                .ok_or_else(|| corrupt(header_at, "a field header the stream's schema table does not describe"))?;
            let action = decide(rtti, stored_variant, stored, scope.field(header.id));
            return self.apply(reader, scope, header, object, &action, stored, header_at);
        }
        let (action, stored) = plan.action(stored_variant, header, header_at)?;
        self.apply(reader, scope, header, object, action, stored, header_at)
    }

    /// Carries out the decision for one stored field (described by `stored`) and reports it.
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &mut self,
        reader: &mut Reader<'_>,
        scope: &FieldScope,
        header: &FieldHeader,
        object: &mut dyn Reflectable,
        action: &Action,
        stored: &FieldSchema,
        header_at: usize,
    ) -> Result<(), DecodeError> {
        let rtti = scope.rtti;
        // A plan names running fields by ID; an object of a same-ID twin descriptor (not the one
        // the plan was made for) may lack one: its data is then skipped like any other.
        let field = scope.field(header.id);
        let why = match (action, field) {
            (Action::Read, Some(field)) => {
                return self
                    .known_field(reader, field, header, object)
                    .map_err(|e| e.within(rtti.name(), Some(field.name())));
            }
            (Action::Convert(conversion), Some(field)) => {
                self.converted_field(reader, field, conversion, header, object)
                    .map_err(|e| e.within(rtti.name(), Some(field.name())))?;
                let event = DecodeEvent::FieldConverted {
                    type_name: rtti.name().to_owned(),
                    field_name: field.name().to_owned(),
                    from: stored.type_description(),
                    to: FieldSchema::of(field).type_description(),
                };
                return self.record(event, 1, header_at);
            }
            (Action::Migrate(index), _) => {
                let migration = &rtti.migrations[*index];
                self.migrate(reader, migration, header, object).map_err(|e| e.within(rtti.name(), None))?;
                let event = DecodeEvent::FieldMigrated {
                    type_name: rtti.name().to_owned(),
                    field_id: header.id,
                    field_name: Some(stored.name.clone()),
                    from: Some(stored.type_description()),
                };
                return self.record(event, 1, header_at);
            }
            (Action::Keep(kept), _) => {
                let field = kept.rtti.field(header.id).expect("a kept set declares each field it keeps");
                // An object of a same-ID twin descriptor may have no member to keep it in.
                if let Some(unknown) = rtti.unknown_fields_mut(object) {
                    return self
                        .known_field(reader, field, header, unknown.object_for(kept))
                        .map_err(|e| e.within(rtti.name(), Some(field.name())));
                }
                SkipReason::NotInType
            }
            (Action::Skip(why), _) => why.clone(),
            (_, None) => SkipReason::NotInType,
        };
        skip_field(reader, header, self.depth, &self.limits)?;
        let event = DecodeEvent::FieldSkipped {
            type_name: rtti.name().to_owned(),
            field_id: header.id,
            field_name: Some(stored.name.clone()),
            why,
        };
        self.record(event, 1, header_at)
    }

    /// A stored field of a type the stream does not describe (a stream before version 3, a
    /// built-in container): into the running field of its ID and wire shape, else to a
    /// migration expecting that shape, else skipped and reported.
    fn undescribed_field(
        &mut self,
        reader: &mut Reader<'_>,
        scope: &FieldScope,
        header: &FieldHeader,
        object: &mut dyn Reflectable,
        header_at: usize,
    ) -> Result<(), DecodeError> {
        let rtti = scope.rtti;
        if let Some(field) = scope.field(header.id).filter(|field| field.wire_shape() == header.shape) {
            return self
                .known_field(reader, field, header, object)
                .map_err(|e| e.within(rtti.name(), Some(field.name())));
        }
        // Migrations are by field ID of the type: an enum's field IDs are its variants'.
        let migration = if scope.is_enum() { None } else { rtti.migration(header.id) };
        if let Some(migration) = migration.filter(|migration| migration.wire_shape() == header.shape) {
            self.migrate(reader, migration, header, object).map_err(|e| e.within(rtti.name(), None))?;
            let event = DecodeEvent::FieldMigrated {
                type_name: rtti.name().to_owned(),
                field_id: header.id,
                field_name: None,
                from: None,
            };
            return self.record(event, 1, header_at);
        }
        let why = match scope.field(header.id) {
            _ if scope.is_enum() && scope.has_no_fields() => SkipReason::InactiveVariant,
            Some(field) => SkipReason::Retyped { from: "?".to_owned(), to: FieldSchema::of(field).type_description() },
            None => SkipReason::NotInType,
        };
        let field_name = scope.field(header.id).map(|field| field.name().to_owned());
        skip_field(reader, header, self.depth, &self.limits)?;
        let event =
            DecodeEvent::FieldSkipped { type_name: rtti.name().to_owned(), field_id: header.id, field_name, why };
        self.record(event, 1, header_at)
    }

    /// Reads a stored plain field through a lossless conversion into the running field.
    pub(super) fn converted_field(
        &mut self,
        reader: &mut Reader<'_>,
        field: &RttiField,
        conversion: &Conversion,
        header: &FieldHeader,
        object: &mut dyn Reflectable,
    ) -> Result<(), DecodeError> {
        let FieldAccess::Plain(access) = field.access() else {
            return skip_field(reader, header, self.depth, &self.limits);
        };
        let count = field_count(reader, header, &self.limits)?;
        // At their size in memory, as `count` charges them (nothing for zero-sized elements).
        self.charge(reader.offset(), count.saturating_mul(field.elem_size()))?;
        let mut converted = Vec::new();
        for _ in 0..count {
            let (offset, before) = (reader.offset(), converted.len());
            conversion.element(reader, &mut converted).map_err(|error| DecodeError::from(error).at(offset))?;
            self.charge(offset, converted.len() - before)?;
        }
        let offset = reader.offset();
        let mut converted_reader = Reader::new(&converted).with_zero_sized_left(reader.zero_sized_left());
        access.read(object, count, &mut converted_reader).map_err(|error| DecodeError::from(error).at(offset))?;
        reader.set_zero_sized_left(converted_reader.zero_sized_left());
        self.values_replaced(
            converted_reader.substitutions(),
            reader.offset(),
            || field.name().to_owned(),
            object.rtti().name(),
        )
    }

    /// Feeds a field the type no longer has (or has retyped) to its migration handler.
    pub(super) fn migrate(
        &mut self,
        reader: &mut Reader<'_>,
        migration: &Migration,
        header: &FieldHeader,
        object: &mut dyn Reflectable,
    ) -> Result<(), DecodeError> {
        let count = field_count(reader, header, &self.limits)?;
        // Migrations take plain or embedded fields.
        if migration.wire_shape().kind == WireKind::Embedded {
            let values = self.embedded_values(reader, count, None)?;
            self.orphans_possible |= values.iter().any(Option::is_some);
            migration.apply_embedded(object, values);
        } else {
            self.charge(reader.offset(), count.saturating_mul(migration.elem_size()))?;
            // A stand-in a codec read (an unknown enum discriminant) reaches the handler as a
            // value: the report says so, as for a field read directly.
            let before = reader.substitutions();
            migration.apply_plain(object, count, reader)?;
            let substituted = reader.substitutions() - before;
            self.values_replaced(
                substituted,
                reader.offset(),
                || format!("stored field {}", header.id),
                object.rtti().name(),
            )?;
        }
        Ok(())
    }
}
