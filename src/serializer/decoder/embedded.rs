//! Objects embedded by value: decoded into the field's current value when it has the stored
//! type (so its own missing fields keep what the owner's constructor put there), else built
//! fresh from the stored type, or skipped and reported when this program lacks it.

use super::hooks::finish_hooks;
use super::{field_failure, Decoder, BOXED_OVERHEAD};
use crate::field::{Declared, EmbeddedAccess};
use crate::plain::Reader;
use crate::rtti::{Reflectable, RttiType};
use crate::serializer::error::DecodeError;
use crate::serializer::skip::skip_object;
use crate::serializer::wire::{check_depth, embedded_header};

impl Decoder<'_, '_> {
    pub(super) fn embedded_values(
        &mut self,
        reader: &mut Reader<'_>,
        count: usize,
        declared: Option<Declared>,
    ) -> Result<Vec<Option<Box<dyn Reflectable>>>, DecodeError> {
        self.depth += 1;
        check_depth(reader, self.depth, &self.limits)?;
        self.charge(reader.offset(), count.saturating_mul(std::mem::size_of::<Option<Box<dyn Reflectable>>>()))?;
        let mut values = Vec::with_capacity(count);
        for _ in 0..count {
            values.push(self.embedded(reader, declared)?);
        }
        self.depth -= 1;
        Ok(values)
    }

    /// A single by-value field whose current value has exactly the stream's type is decoded into
    /// that value, without a box to build and move out of. `false` (nothing read) otherwise.
    pub(super) fn embedded_in_place(
        &mut self,
        reader: &mut Reader<'_>,
        access: &dyn EmbeddedAccess,
        object: &mut dyn Reflectable,
    ) -> Result<bool, DecodeError> {
        let mut peek = reader.clone();
        let Some(type_id) = embedded_header(&mut peek)? else { return Ok(false) };
        let mut result = Ok(false);
        let found = access.with_value_mut(object, 0, &mut |value| {
            let Some(value) = value.filter(|value| value.rtti().id() == type_id) else { return };
            self.depth += 1;
            result = check_depth(reader, self.depth, &self.limits).and_then(|()| {
                *reader = peek.clone();
                self.object_sections(reader, value, 0, true)?;
                self.hooks_ran |= finish_hooks(value, self.context);
                self.note_map(value, reader.offset())?;
                Ok(true)
            });
            self.depth -= 1;
        });
        found.map_err(|error| field_failure(reader, error))?;
        result
    }

    /// One object embedded by value: `None` for an empty slot or a type this program lacks.
    pub(super) fn embedded(
        &mut self,
        reader: &mut Reader<'_>,
        declared: Option<Declared>,
    ) -> Result<Option<Box<dyn Reflectable>>, DecodeError> {
        let offset = reader.offset();
        let Some(type_id) = embedded_header(reader)? else { return Ok(None) };
        let rtti = self.lookup(type_id, || declared);
        if let Some(rtti) = rtti {
            self.charge(offset, rtti.instance_size() + BOXED_OVERHEAD)?;
        }
        match rtti.and_then(RttiType::create) {
            Some(mut object) => {
                self.object_sections(reader, &mut *object, 0, true)?;
                self.hooks_ran |= finish_hooks(&mut *object, self.context);
                self.note_map(&*object, reader.offset())?;
                Ok(Some(object))
            }
            None => {
                skip_object(reader, 0, true, self.depth, &self.limits)?;
                self.object_dropped(type_id, rtti.is_some(), offset)?;
                Ok(None)
            }
        }
    }
}
