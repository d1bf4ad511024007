//! Objects embedded by value: decoded into the field's current value when it has the stored
//! type (so its own missing fields keep what the owner's constructor put there), else built
//! fresh from the stored type, or skipped and reported when this program lacks it.

use super::{Decoder, BOXED_OVERHEAD};
use crate::containers::{LIST_ITEMS_FIELD_ID, LIST_TYPE_ID, MAP_KEYS_FIELD_ID, MAP_TYPE_ID, MAP_VALUES_FIELD_ID};
use crate::field::{Declared, WireKind};
use crate::plain::Reader;
use crate::rtti::lifecycle::finish_hooks;
use crate::rtti::{Reflectable, RttiType};
use crate::runtime::ContainerShape;
use crate::wire::error::DecodeError;
use crate::wire::format::{FieldHeader, OBJECT_BIT, WORD_SIZE};
use crate::wire::skip::{skip_field, skip_object};
use crate::wire::{check_depth, embedded_header};

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

    /// Decodes the embedded object `after_header` is inside of (its type header read; the
    /// depth counted) into `value`, leaving `reader` past it.
    pub(super) fn embedded_body<'r>(
        &mut self,
        reader: &mut Reader<'r>,
        after_header: Reader<'r>,
        value: &mut dyn Reflectable,
    ) -> Result<(), DecodeError> {
        check_depth(reader, self.depth, &self.limits)?;
        *reader = after_header;
        self.object_sections(reader, value, 0, true)?;
        self.hooks_ran |= finish_hooks(value, self.context);
        self.note_map(value, reader.offset())
    }

    /// One object embedded by value: `None` for an empty slot or a type this program lacks.
    pub(super) fn embedded(
        &mut self,
        reader: &mut Reader<'_>,
        declared: Option<Declared>,
    ) -> Result<Option<Box<dyn Reflectable>>, DecodeError> {
        let offset = reader.offset();
        let Some(type_id) = embedded_header(reader)? else { return Ok(None) };
        let rtti = self.lookup(type_id, || declared).or_else(|| self.kept_container(type_id, reader));
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

impl Decoder<'_, '_> {
    /// A type for a list or map object (its type header read) that no field of this program
    /// declares, as inside the data of types it lacks: kept, when keeping unknown types.
    #[cold]
    fn kept_container(&self, type_id: u32, reader: &Reader<'_>) -> Option<&'static RttiType> {
        if !self.keep_unknown_types {
            return None;
        }
        crate::runtime::kept_container(container_shape(type_id, reader.clone(), self.depth, &self.limits)?)
    }
}

/// The shape of the list or map object of type `type_id` that `peek` is at the fields of, from
/// their headers. Only a map's keys are skipped to reach its values: they are plain, so the look
/// ahead costs no more than the keys and never nests (a hostile stream cannot make it quadratic).
fn container_shape(
    type_id: u32,
    mut peek: Reader<'_>,
    depth: usize,
    limits: &crate::serializer::Limits,
) -> Option<ContainerShape> {
    let elems = match type_id {
        LIST_TYPE_ID => LIST_ITEMS_FIELD_ID,
        MAP_TYPE_ID => MAP_VALUES_FIELD_ID,
        _ => return None,
    };
    let mut keys = None;
    loop {
        let word = peek.peek_u32().filter(|word| word & OBJECT_BIT == 0)?;
        peek.skip(WORD_SIZE).ok()?;
        let header = FieldHeader::unpack(word).ok()??;
        match header.shape.kind {
            kind if header.id == elems => return Some(ContainerShape { type_id, keys, elems: kind }),
            kind @ WireKind::Plain(_) if type_id == MAP_TYPE_ID && header.id == MAP_KEYS_FIELD_ID => {
                keys = Some(kind);
                skip_field(&mut peek, &header, depth, limits).ok()?;
            }
            _ => return None,
        }
    }
}
