//! Recording what a decode drops, converts or replaces in its
//! [`DecodeReport`](crate::serializer::DecodeReport); in strict decoding, the first loss is an
//! error instead.

use super::scope::FieldScope;
use super::{Decoder, State};
use crate::containers::{drops_values, EXTERNAL_TYPE_ID, MAP_TYPE_ID};
use crate::field::RttiField;
use crate::plain::Reader;
use crate::rtti::Reflectable;
use crate::serializer::report::{DecodeEvent, NullReason};
use crate::wire::error::DecodeError;
use crate::wire::format::NULL_INSTANCE;

impl Decoder<'_, '_> {
    /// Records an event of the report (an error instead, for a loss in strict decoding).
    #[cold]
    pub(super) fn record(&mut self, event: DecodeEvent, times: u64, offset: usize) -> Result<(), DecodeError> {
        self.recorder.record(event, times, offset)
    }

    #[cold]
    pub(super) fn unknown_variant(
        &mut self,
        reader: &Reader<'_>,
        scope: &FieldScope,
        variant_id: u32,
    ) -> Result<(), DecodeError> {
        let handled = !scope.has_no_fields();
        let event = DecodeEvent::UnknownVariant { type_name: scope.rtti.name().to_owned(), variant_id, handled };
        self.record(event, 1, reader.offset())
    }

    /// Reports the `substituted` plain values codecs replaced by a stand-in (an unknown enum
    /// discriminant; see `Reader::substitutions`) in `field_name` of `object`, read up to
    /// `offset`. Nothing to do, and nothing allocated, when there were none.
    #[inline]
    pub(super) fn values_replaced(
        &mut self,
        substituted: u64,
        offset: usize,
        field_name: impl FnOnce() -> String,
        type_name: &str,
    ) -> Result<(), DecodeError> {
        match substituted {
            0 => Ok(()),
            times => {
                let event = DecodeEvent::ValueReplaced { type_name: type_name.to_owned(), field_name: field_name() };
                self.record(event, times, offset)
            }
        }
    }

    /// Reports the pointers of a field that decoded as null, and those its field refused.
    #[cold]
    pub(super) fn pointer_losses(
        &mut self,
        reader: &Reader<'_>,
        field: &RttiField,
        type_name: &str,
        ids: &[u32],
        refused: usize,
    ) -> Result<(), DecodeError> {
        let names = || (type_name.to_owned(), field.name().to_owned());
        for &id in ids.iter().filter(|&&id| id != NULL_INSTANCE) {
            let index = id as usize - 1;
            let why = match self.states[index] {
                State::Ready(_) | State::Pending | State::External(_) => continue,
                State::Missing if self.entries[index].type_id == EXTERNAL_TYPE_ID => NullReason::ExternalUnresolved,
                State::Missing => NullReason::TargetDropped,
                State::Root => NullReason::RootByValue,
                State::Building => NullReason::ImmutableCycle,
            };
            let (type_name, field_name) = names();
            self.record(DecodeEvent::PointerNulled { type_name, field_name, why }, 1, reader.offset())?;
        }
        let (type_name, field_name) = names();
        let event = DecodeEvent::PointerNulled { type_name, field_name, why: NullReason::WrongType };
        self.record(event, refused as u64, reader.offset())
    }

    /// Reports an object of type `type_id` that could not be built.
    #[cold]
    pub(super) fn object_dropped(&mut self, type_id: u32, is_abstract: bool, offset: usize) -> Result<(), DecodeError> {
        if let Some(refused) = self.types.refuse_dropped(type_id, offset) {
            return Err(refused);
        }
        let type_name = self.types.stored_name(type_id);
        self.record(DecodeEvent::ObjectDropped { type_id, type_name, is_abstract }, 1, offset)
    }

    /// A decoded map object whose map will drop values (repeated keys, uneven counts) may leave
    /// objects those values held without an owner: the orphan sweep must look for them.
    #[inline]
    pub(super) fn note_map(&mut self, object: &dyn Reflectable, offset: usize) -> Result<(), DecodeError> {
        if object.rtti().id() == MAP_TYPE_ID && drops_values(object) {
            self.orphans_possible = true;
            return self.record(DecodeEvent::MapEntriesDropped, 1, offset);
        }
        Ok(())
    }
}
