//! Pointer fields compared through the code `#[derive(Reflectable)]` generates
//! ([`GeneratedPointers`](crate::diff::GeneratedPointers)): the elements of each field reached
//! through their static type, with no descriptor walk, no dynamic call per field or element and no
//! element stack. What happens per element is [`Differ::unchanged`], the walk's own common case;
//! a field that is not unchanged goes to the walk's general alignment, and the walk carries on
//! from there.

use super::pointers::Elements;
use super::{DiffError, Differ};
use crate::field::{FieldAccess, PointerSlot, RttiField, SharedObject};
use crate::rtti::{Reflectable, RttiType};
use std::any::Any;

/// What generated code compares the pointer fields of two objects through. Public for the derive
/// only.
pub struct PointerPairs<'a> {
    differ: &'a mut Differ,
    section: u32,
    /// The section's fields (for an enum, those of the variant both objects hold).
    fields: &'static [RttiField],
    /// The first field not known to be unchanged.
    next: usize,
    /// Field `next` is known to have changed (it goes to the general alignment).
    changed: bool,
    error: Option<DiffError>,
}

impl PointerPairs<'_> {
    /// Field `index` of the section, a pointer field whose elements are `a` (old) and `b` (new):
    /// `Some(true)` when every element points where it did.
    #[inline]
    pub(crate) fn field<E: PointerSlot>(&mut self, index: usize, a: &[E], b: &[E]) -> Option<bool> {
        // Generated code and the descriptor come from one declaration; should they disagree, the
        // walk takes over at this field.
        let field = self.fields.get(index).filter(|field| matches!(field.access(), FieldAccess::Pointer(_)))?;
        match self.differ.typed_field(self.section, field.id(), a, b) {
            Ok(true) => {
                self.next = index + 1;
                Some(true)
            }
            Ok(false) => {
                (self.next, self.changed) = (index, true);
                Some(false)
            }
            Err(error) => {
                self.error = Some(error);
                None
            }
        }
    }
}

/// Where the walk of a section's fields picks up after generated code compared its pointer
/// fields (by default, at the first field: nothing was compared).
#[derive(Default)]
pub(super) struct Resume {
    /// The first field the walk compares.
    pub(super) from: usize,
    /// That field, a pointer field, is known to have changed: it goes straight to the general
    /// alignment.
    pub(super) changed: bool,
}

impl Differ {
    /// Compares the pointer fields of sections `sa` and `sb` of type `rtti`, whose other fields
    /// are known equal, through generated code when there is some (and it is switched on).
    pub(super) fn generated_pointers(
        &mut self,
        rtti: &'static RttiType,
        sa: &dyn Reflectable,
        sb: &dyn Reflectable,
    ) -> Result<Resume, DiffError> {
        let Some(pointers) = rtti.generated_pointers().filter(|_| self.typed_pointers) else {
            return Ok(Resume::default());
        };
        let fields = rtti.fields_of(sb);
        let mut pairs = PointerPairs { differ: self, section: rtti.id(), fields, next: 0, changed: false, error: None };
        let done = pointers(sa as &dyn Any, sb as &dyn Any, &mut pairs);
        if let Some(error) = pairs.error {
            return Err(error);
        }
        Ok(match done {
            Some(true) => Resume { from: fields.len(), changed: false },
            _ => Resume { from: pairs.next, changed: pairs.changed },
        })
    }

    /// One pointer field through its elements' static type: `true` when unchanged (see
    /// [`unchanged`](Self::unchanged)), `false` when it needs the general alignment.
    fn typed_field<E: PointerSlot>(&mut self, section: u32, field: u16, a: &[E], b: &[E]) -> Result<bool, DiffError> {
        if a.len() != b.len() {
            return Ok(false);
        }
        self.path.push((section, field, 0));
        let unchanged = self.unchanged(&Typed { a, b }, a.len());
        self.path.pop();
        unchanged
    }
}

/// A pointer field's old and new elements, as they are.
struct Typed<'a, E> {
    a: &'a [E],
    b: &'a [E],
}

impl<E: PointerSlot> Elements for Typed<'_, E> {
    // Read as each element is reached, where the walk reads a field's counts before comparing any
    // of its elements: the same answer, since the diff holds a handle only to an object it has
    // met through another pointer, whose count was 2 or more already.
    #[inline]
    fn at(&self, _: &[(Option<usize>, bool)], j: usize) -> ((Option<usize>, bool), (Option<usize>, bool)) {
        let key = |elem: &E| (elem.addr(), elem.pointer_count() == 1);
        (key(&self.a[j]), key(&self.b[j]))
    }
    #[inline]
    fn old_target(&self, j: usize) -> Result<Option<SharedObject>, DiffError> {
        Ok(self.a[j].handle().map(SharedObject::new))
    }
    #[inline]
    fn new_target(&self, j: usize) -> Result<Option<SharedObject>, DiffError> {
        Ok(self.b[j].handle().map(SharedObject::new))
    }
}
