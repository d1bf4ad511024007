//! Writing a derived type's fields through the code its derive generated: one function per type,
//! each field reached as a member and written through its static type, where the descriptor-driven
//! loop ([`Encoder::field`]) makes an erased call per field (a downcast of the owner, the
//! accessor's function pointer, a match on the field kind). Both write the same bytes: the
//! generated code calls the functions the loop calls ([`begin_field`], [`write_plain`],
//! [`Encoder::embedded_element`], [`Encoder::pointer_element`], [`end_field`]) with the field's
//! descriptor, and `tests/generated_codecs.rs` compares the two paths on every test type.
//!
//! The generated function writes a section's own fields only; the encoder still writes the type
//! header, calls the hooks and appends kept unknown fields. Types the derive does not generate for
//! (enums, `extend`, maps) and types built at run time take the loop.

use super::{begin_field, end_field, Encoder, FieldFailure};
use crate::field::{write_plain, EmbeddedSlot, FieldError, PointerSlot, RttiField, Shape, SharedObject};
use crate::plain::{Native, PlainCodec, PlainType};
use crate::serializer::EncodeError;
use std::any::Any;

/// A derived type's generated encoder: writes the own fields of `owner` (a value of the type the
/// descriptor describes) in declaration order, as the descriptor's fields say.
pub type GeneratedEncode = for<'a, 'w, 'r, 's, 'c> fn(
    owner: &'a dyn Any,
    writer: &'a mut FieldWriter<'w, 'r, 's, 'c>,
) -> Result<(), FieldWriteError>;

/// What generated code writes fields through: the encoder and the section's field descriptors.
/// Public for the derive only.
pub struct FieldWriter<'w, 'r, 's, 'c> {
    encoder: &'w mut Encoder<'r, 's, 'c>,
    fields: &'static [RttiField],
    /// A shared object's section (not one held by value): the buffer may be handed to the sink
    /// after each field, as the loop does.
    flushes: bool,
}

/// Why generated code could not write a field: the failure and the field. Public for the derive
/// only.
pub struct FieldWriteError {
    field: &'static str,
    failure: FieldFailure,
}

impl FieldWriteError {
    /// The encode error, with the field and the type it belongs to.
    pub(super) fn within(self, type_name: &'static str) -> EncodeError {
        self.failure.within(type_name, self.field)
    }
}

impl<'w, 'r, 's, 'c> FieldWriter<'w, 'r, 's, 'c> {
    pub(super) fn new(encoder: &'w mut Encoder<'r, 's, 'c>, fields: &'static [RttiField], flushes: bool) -> Self {
        FieldWriter { encoder, fields, flushes }
    }

    /// Field `index` of the section; the derive numbers them as it declares them.
    #[inline(always)]
    fn field(&self, index: usize) -> &'static RttiField {
        &self.fields[index]
    }

    /// After a field: the buffer goes to the sink once it holds the flush threshold.
    #[inline(always)]
    fn done(&mut self, field: &'static RttiField) -> Result<(), FieldWriteError> {
        if self.flushes {
            self.encoder.maybe_flush().map_err(|error| fail(field, error.into()))?;
        }
        Ok(())
    }

    /// Plain field `index`, whose member is `container`, elements of shape `S` through codec `K`.
    #[inline]
    pub fn plain<C, S: Shape<C>, K: PlainCodec<S::Elem>>(
        &mut self,
        index: usize,
        container: &C,
    ) -> Result<(), FieldWriteError> {
        let field = self.field(index);
        let out = &mut self.encoder.out;
        let (start, at) = begin_field(out, field);
        let count = write_plain::<C, S, K>(container, out).map_err(|error| fail(field, error.into()))?;
        end_field(out, field, start, at, count).map_err(|error| fail(field, error.into()))?;
        self.done(field)
    }

    /// Embedded field `index`, whose member is `container`.
    #[inline]
    pub fn embedded<C, S: Shape<C>>(&mut self, index: usize, container: &C) -> Result<(), FieldWriteError>
    where
        S::Elem: EmbeddedSlot,
    {
        let field = self.field(index);
        let (start, at) = begin_field(&mut self.encoder.out, field);
        self.encoder.enter_embedded().map_err(|failure| fail(field, failure))?;
        let elems = S::as_slice(container);
        let check = field.trait_check();
        for elem in elems {
            self.encoder.embedded_element(check, elem.value()).map_err(|failure| fail(field, failure))?;
        }
        self.encoder.depth -= 1;
        end_field(&mut self.encoder.out, field, start, at, elems.len()).map_err(|error| fail(field, error.into()))?;
        self.done(field)
    }

    /// Pointer field `index`, whose member is `container`.
    #[inline]
    pub fn pointer<C, S: Shape<C>>(&mut self, index: usize, container: &C) -> Result<(), FieldWriteError>
    where
        S::Elem: PointerSlot,
    {
        let field = self.field(index);
        let (start, at) = begin_field(&mut self.encoder.out, field);
        let elems = S::as_slice(container);
        let check = field.trait_check();
        let may_cut = <S::Elem as PointerSlot>::WEAK && self.encoder.strong.is_some();
        for elem in elems {
            let handle = || elem.handle().map(SharedObject::new);
            self.encoder
                .pointer_element(field, may_cut, check, elem.addr(), elem.pointer_count(), &handle)
                .map_err(|failure| fail(field, failure))?;
        }
        end_field(&mut self.encoder.out, field, start, at, elems.len()).map_err(|error| fail(field, error.into()))?;
        self.done(field)
    }
}

fn fail(field: &'static RttiField, failure: FieldFailure) -> FieldWriteError {
    FieldWriteError { field: field.name(), failure }
}

/// `owner` as the type the generated code was made for. The encoder passes a section of the type
/// whose descriptor holds the code, so this fails only on a descriptor assembled by hand wrongly.
#[inline(always)]
pub fn generated_owner<O: 'static>(owner: &dyn Any) -> Result<&O, FieldWriteError> {
    owner.downcast_ref::<O>().ok_or_else(|| FieldWriteError {
        field: "(the object)",
        failure: FieldFailure::Access(FieldError::wrong_owner::<O>()),
    })
}

// One function per kind of field, the shape (`One`, or an array container's) a type parameter, as
// the builder steps that add the field are (`__private::plain`, ...): generated code calls the one
// matching the field's step, so the two agree on the kind, shape and codec of every field. Each
// states its element bound itself, so a member of the wrong kind is reported by that bound's
// message.

/// A plain member, or an array of plain elements.
#[inline(always)]
pub fn encode_plain<C, S: Shape<C>>(
    w: &mut FieldWriter<'_, '_, '_, '_>,
    index: usize,
    member: &C,
) -> Result<(), FieldWriteError>
where
    S::Elem: PlainType,
{
    w.plain::<C, S, Native>(index, member)
}

/// A member (or an array member) whose elements are stored through the codec `K`.
#[inline(always)]
pub fn encode_plain_with<C, S: Shape<C>, K: PlainCodec<S::Elem>>(
    w: &mut FieldWriter<'_, '_, '_, '_>,
    index: usize,
    member: &C,
) -> Result<(), FieldWriteError> {
    w.plain::<C, S, K>(index, member)
}

/// An embedded member, or an array of them.
#[inline(always)]
pub fn encode_embedded<C, S: Shape<C>>(
    w: &mut FieldWriter<'_, '_, '_, '_>,
    index: usize,
    member: &C,
) -> Result<(), FieldWriteError>
where
    S::Elem: EmbeddedSlot,
{
    w.embedded::<C, S>(index, member)
}

/// A pointer member, or an array of them.
#[inline(always)]
pub fn encode_pointer<C, S: Shape<C>>(
    w: &mut FieldWriter<'_, '_, '_, '_>,
    index: usize,
    member: &C,
) -> Result<(), FieldWriteError>
where
    S::Elem: PointerSlot,
{
    w.pointer::<C, S>(index, member)
}
