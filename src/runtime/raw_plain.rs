//! Plain fields whose element type the program does not have: a type kept from a stream holds
//! their elements as the stream stored them, and writes them back unchanged.

use crate::field::{ErasedElems, FieldError, PlainAccess, PlainInfo};
use crate::plain::{skip_elem, PlainBytes, PlainError, Reader};
use crate::rtti::runtime_object::{RuntimeObject, SlotAt};
use std::any::{Any, TypeId};

/// A plain field of a stored element type: its signature and static size come from the stream's
/// schema table. Its elements are kept as [`PlainBytes`], which is what
/// [`RttiField::with_elem`](crate::field::RttiField::with_elem) shows of the field (for any index
/// in range), and what `set_elem` takes.
pub(super) struct RawPlainField {
    pub(super) at: SlotAt,
    pub(super) signature: Vec<u32>,
    pub(super) static_size: Option<u32>,
    pub(super) array: bool,
}

impl RawPlainField {
    fn elems<'a>(&self, owner: &'a dyn Any) -> Result<&'a PlainBytes, FieldError> {
        let owner = owner.downcast_ref::<RuntimeObject>().ok_or_else(FieldError::wrong_owner::<RuntimeObject>)?;
        owner.slot(&self.at)
    }

    fn elems_mut<'a>(&self, owner: &'a mut dyn Any) -> Result<&'a mut PlainBytes, FieldError> {
        let owner = owner.downcast_mut::<RuntimeObject>().ok_or_else(FieldError::wrong_owner::<RuntimeObject>)?;
        owner.slot_mut(&self.at)
    }
}

impl ErasedElems for RawPlainField {
    fn owner_type(&self) -> TypeId {
        TypeId::of::<RuntimeObject>()
    }
    fn owner_type_name(&self) -> &'static str {
        std::any::type_name::<RuntimeObject>()
    }
    fn elem_type_name(&self) -> &'static str {
        std::any::type_name::<PlainBytes>()
    }
    fn elem_size(&self) -> usize {
        self.static_size.unwrap_or(0) as usize
    }
    fn is_array(&self) -> bool {
        self.array
    }
    fn is_computed(&self) -> bool {
        false
    }
    fn len(&self, owner: &dyn Any) -> Result<usize, FieldError> {
        Ok(self.elems(owner)?.count())
    }
    fn resize(&self, owner: &mut dyn Any, len: usize) -> Result<(), FieldError> {
        // New elements of a type the program lacks have no value to start from.
        match self.elems_mut(owner)?.count() {
            count if count == len => Ok(()),
            count => Err(FieldError::FixedLength { expected: count, got: len }),
        }
    }
    fn with_elem(&self, owner: &dyn Any, index: usize, f: &mut dyn FnMut(&dyn Any)) -> Result<(), FieldError> {
        let elems = self.elems(owner)?;
        if index >= elems.count() {
            return Err(FieldError::OutOfRange { index, len: elems.count() });
        }
        f(elems);
        Ok(())
    }
    fn set_elem(&self, owner: &mut dyn Any, _index: usize, value: &mut dyn Any) -> Result<(), FieldError> {
        let value = value.downcast_mut::<Option<PlainBytes>>().ok_or_else(FieldError::wrong_type::<PlainBytes>)?;
        let elems = self.elems_mut(owner)?;
        if let Some(value) = value.take() {
            *elems = value;
        }
        Ok(())
    }
}

impl PlainAccess for RawPlainField {
    fn info(&self) -> PlainInfo {
        PlainInfo { type_id: self.signature.first().copied().unwrap_or(0), static_size: self.static_size }
    }

    fn signature(&self, out: &mut Vec<u32>) {
        out.extend_from_slice(&self.signature);
    }

    fn write(&self, owner: &dyn Any, out: &mut Vec<u8>) -> Result<usize, FieldError> {
        let elems = self.elems(owner)?;
        out.extend_from_slice(elems.bytes());
        Ok(elems.count())
    }

    fn read(&self, owner: &mut dyn Any, count: usize, reader: &mut Reader<'_>) -> Result<(), FieldError> {
        let rest = reader.rest();
        if count.saturating_mul(self.static_size.unwrap_or(0) as usize) > rest.len() {
            let available = rest.len();
            return Err(PlainError::LengthTooLarge { offset: reader.offset(), claimed: count as u64, available }.into());
        }
        match self.static_size {
            Some(size) => reader.skip(size as usize * count)?,
            None => (0..count).try_for_each(|_| skip_elem(reader, None))?,
        }
        // The field header's count is a `u32`, so every count read here fits one.
        let count = u32::try_from(count).expect("a field's element count is a u32");
        *self.elems_mut(owner)? = PlainBytes::from_wire(count, &rest[..rest.len() - reader.remaining()]);
        Ok(())
    }

    fn same(&self, a: &dyn Any, b: &dyn Any) -> Result<Option<bool>, FieldError> {
        let (a, b) = (self.elems(a)?, self.elems(b)?);
        Ok(Some(a == b))
    }
}
