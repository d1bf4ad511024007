//! Reading a derived type's fields through the code its derive generated: one function per type
//! that expects the stream to hold the type's fields in declaration order, each with the very
//! header the running field writes, and reads each into its member through the member's static
//! type. Where the descriptor walk unpacks every header, looks the field up and calls its erased
//! access (a downcast of the owner, the accessor's function pointer, a match on the kind), the
//! generated code compares one word.
//!
//! The first header that is not the next field's (a field the writer lacked or added, another
//! order, a base section, the object's end) stops the generated code where it is; the descriptor
//! walk goes on from there, with everything it knows (evolution, unknown fields, reports). So the
//! generated code is a fast path, never a second decoder: the steps of each field kind are the
//! walk's own (`fields.rs`), only the final store goes to the member instead of through the
//! erased access. It runs only on sections the stream describes as the running type does
//! (`Layout::AsIs`): a changed type takes the plan of `evolution.rs`.

use super::fields::peek_embedded;
use super::{Decoder, FieldScope};
use crate::field::{
    embedded_elems, pointer_elems, read_plain, EmbeddedSlot, FieldError, PointerSlot, RttiField, Shape, SharedHandle,
};
use crate::plain::{Native, PlainCodec, PlainType, Reader};
use crate::rtti::{AsReflectable, Reflectable, RttiType};
use crate::wire::error::DecodeError;
use crate::wire::format::{FieldHeader, WORD_SIZE};
use std::any::Any;

/// A derived type's generated decoder: reads the own fields of `owner` (a value of the type the
/// descriptor describes) for as long as the stream holds them in declaration order.
pub type GeneratedDecode = for<'a, 'f, 'r, 'd, 'c> fn(
    owner: &'a mut dyn Any,
    reader: &'a mut FieldReader<'f, 'r, 'd, 'c>,
) -> Result<(), DecodeError>;

/// What generated code reads fields through: the decoder, the stream and the section's type.
/// Public for the derive only.
pub struct FieldReader<'f, 'r, 'd, 'c> {
    decoder: &'f mut Decoder<'d, 'c>,
    reader: &'f mut Reader<'r>,
    rtti: &'static RttiType,
    fields: &'static [RttiField],
    /// How many of the section's fields are read (where the descriptor walk takes over).
    read: usize,
}

impl Decoder<'_, '_> {
    /// Reads what fields of `section` (a section of `scope`'s type, its header read) the type's
    /// generated code can, when it has some and the stream describes the type as it runs; the
    /// scope then expects the field after the last one read.
    #[inline(always)]
    pub(super) fn generated_fields(
        &mut self,
        reader: &mut Reader<'_>,
        section: &mut dyn Reflectable,
        scope: &mut FieldScope,
    ) -> Result<(), DecodeError> {
        let Some(decode) = scope.rtti.generated_decode().filter(|_| self.generated && scope.reads_as_is()) else {
            return Ok(());
        };
        let rtti = scope.rtti;
        let mut fields = FieldReader { decoder: self, reader, rtti, fields: rtti.fields(), read: 0 };
        decode(section, &mut fields)?;
        scope.expect_after(fields.read);
        Ok(())
    }
}

impl<'r> FieldReader<'_, 'r, '_, '_> {
    /// `owner` as the type the generated code was made for. The decoder passes a section of the
    /// type whose descriptor holds the code, so this fails only on a descriptor assembled by hand
    /// wrongly.
    #[inline(always)]
    pub fn owner<'o, O: 'static>(&self, owner: &'o mut dyn Any) -> Result<&'o mut O, DecodeError> {
        owner.downcast_mut::<O>().ok_or_else(|| {
            DecodeError::from(FieldError::wrong_owner::<O>()).at(self.reader.offset()).within(self.rtti.name(), None)
        })
    }

    /// Field `index` when the stream's next word is its header (consumed then); `None` leaves the
    /// rest of the section to the descriptor walk.
    #[inline(always)]
    fn expect(&mut self, index: usize) -> Option<(&'static RttiField, FieldHeader)> {
        let field = &self.fields[index];
        let header = FieldHeader::of(field);
        if self.reader.peek_u32() != Some(header.pack()) {
            return None;
        }
        self.reader.skip(WORD_SIZE).ok()?;
        self.read = index + 1;
        Some((field, header))
    }

    /// Reads field `index` with `read` when it is next; places an error at the field.
    #[inline(always)]
    fn field(
        &mut self,
        index: usize,
        read: impl FnOnce(
            &mut Decoder<'_, '_>,
            &mut Reader<'r>,
            &'static RttiField,
            &FieldHeader,
        ) -> Result<(), DecodeError>,
    ) -> Result<bool, DecodeError> {
        let Some((field, header)) = self.expect(index) else { return Ok(false) };
        let decoder = &mut *self.decoder;
        if decoder.depth == decoder.body_depth {
            decoder.place = decoder.place_known.then_some(index);
        }
        read(self.decoder, self.reader, field, &header)
            .map_err(|error| error.within(self.rtti.name(), Some(field.name())))?;
        Ok(true)
    }

    /// Plain field `index`, whose member is `container`, elements of shape `S` through codec `K`.
    #[inline]
    pub fn plain<C, S: Shape<C>, K: PlainCodec<S::Elem>>(
        &mut self,
        index: usize,
        container: &mut C,
    ) -> Result<bool, DecodeError> {
        let type_name = self.rtti.name();
        self.field(index, |decoder, reader, field, header| {
            let count = decoder.count(reader, field, header)?;
            decoder.plain_values(reader, field, type_name, |reader| {
                read_plain::<S::Elem, K>(header.shape.array, count, reader)?.store::<C, S>(container)
            })
        })
    }

    /// Embedded field `index`, whose member is `container`.
    #[inline]
    pub fn embedded<C, S: Shape<C>>(&mut self, index: usize, container: &mut C) -> Result<bool, DecodeError>
    where
        S::Elem: EmbeddedSlot,
    {
        let type_name = self.rtti.name();
        self.field(index, |decoder, reader, field, header| {
            let count = decoder.count(reader, field, header)?;
            if !header.shape.array {
                if let Some(peeked) = peek_embedded(reader)? {
                    let value = S::as_mut_slice(container).first_mut().and_then(EmbeddedSlot::value_mut);
                    if decoder.embedded_into(reader, peeked, value)? {
                        return Ok(());
                    }
                }
            }
            let values = decoder.embedded_values(reader, count, Some(S::Elem::declared()))?;
            let (elems, refused) = embedded_elems::<S::Elem>(header.shape.array, values, decoder.registry);
            let stored = elems.store::<C, S>(container).map(|()| refused);
            decoder.embedded_stored(reader, field, type_name, stored)
        })
    }

    /// Pointer field `index`, whose member is `container`.
    #[inline]
    pub fn pointer<C, S: Shape<C>>(&mut self, index: usize, container: &mut C) -> Result<bool, DecodeError>
    where
        S::Elem: PointerSlot,
    {
        type Handle<E> = <E as PointerSlot>::Handle;
        let type_name = self.rtti.name();
        self.field(index, |decoder, reader, field, header| {
            let count = decoder.count(reader, field, header)?;
            let family = <Handle<S::Elem> as SharedHandle>::FAMILY;
            let declared = || Some(<<Handle<S::Elem> as SharedHandle>::Pointee as AsReflectable>::declared());
            let ids = decoder.pointer_ids(reader, count, header.shape.array, family, S::Elem::WEAK, &declared)?;
            let stored = decoder.with_targets(&ids, |targets, registry| {
                let (elems, refused) = pointer_elems::<S::Elem>(header.shape.array, targets, registry);
                elems.store::<C, S>(container).map(|()| refused)
            });
            let holds_null = || S::Elem::from_handle(None).is_some();
            decoder.pointers_stored(reader, field, type_name, &ids, stored, holds_null)
        })
    }
}

// One function per kind of field, the shape a type parameter, as the encoder's are
// (`encoder/generated.rs`). Each returns `false` when the stream's next field is not this one: the
// generated code then stops.

/// A plain member, or an array of plain elements.
#[inline(always)]
pub fn decode_plain<C, S: Shape<C>>(
    r: &mut FieldReader<'_, '_, '_, '_>,
    index: usize,
    member: &mut C,
) -> Result<bool, DecodeError>
where
    S::Elem: PlainType,
{
    r.plain::<C, S, Native>(index, member)
}

/// A member (or an array member) whose elements are stored through the codec `K`.
#[inline(always)]
pub fn decode_plain_with<C, S: Shape<C>, K: PlainCodec<S::Elem>>(
    r: &mut FieldReader<'_, '_, '_, '_>,
    index: usize,
    member: &mut C,
) -> Result<bool, DecodeError> {
    r.plain::<C, S, K>(index, member)
}

/// An embedded member, or an array of them.
#[inline(always)]
pub fn decode_embedded<C, S: Shape<C>>(
    r: &mut FieldReader<'_, '_, '_, '_>,
    index: usize,
    member: &mut C,
) -> Result<bool, DecodeError>
where
    S::Elem: EmbeddedSlot,
{
    r.embedded::<C, S>(index, member)
}

/// A pointer member, or an array of them.
#[inline(always)]
pub fn decode_pointer<C, S: Shape<C>>(
    r: &mut FieldReader<'_, '_, '_, '_>,
    index: usize,
    member: &mut C,
) -> Result<bool, DecodeError>
where
    S::Elem: PointerSlot,
{
    r.pointer::<C, S>(index, member)
}
