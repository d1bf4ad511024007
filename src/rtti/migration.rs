//! Migration handlers: what to do with a stored field the type no longer has, or has retyped.

use super::Reflectable;
use crate::field::{PlainInfo, WireKind, WireShape};
use crate::plain::{read_elem, PlainError, PlainType, Reader};
use std::any::Any;

type PlainApply = Box<dyn Fn(&mut dyn Any, usize, &mut Reader<'_>) -> Result<(), PlainError> + Send + Sync>;
type EmbeddedApply = Box<dyn Fn(&mut dyn Any, Vec<Option<Box<dyn Reflectable>>>) + Send + Sync>;

/// A handler for one stored field ID, registered with
/// [`RttiTypeBuilder::migrate_plain`](super::RttiTypeBuilder::migrate_plain) and friends. A decoder
/// calls it when the stored field's ID is unknown to the type, or known with another type, and
/// the stored type is the one the handler expects: compared by signature when the stream has a
/// schema table (version 3), by wire shape for older streams, which record no plain types.
pub struct Migration {
    pub(crate) field_id: u16,
    shape: WireShape,
    /// The stored plain type's signature (empty for embedded objects).
    signature: Vec<u32>,
    elem_size: usize,
    plain: Option<PlainApply>,
    embedded: Option<EmbeddedApply>,
}

impl std::fmt::Debug for Migration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Migration").field("field_id", &self.field_id).field("shape", &self.shape).finish()
    }
}

impl Migration {
    /// A handler for a plain field stored as `Old` (`array`: a `Vec<Old>`).
    pub(crate) fn plain<T: 'static, Old: PlainType>(
        field_id: u16,
        array: bool,
        apply: impl Fn(&mut T, Vec<Old>) + Send + Sync + 'static,
    ) -> Self {
        let mut signature = Vec::new();
        Old::signature(&mut signature);
        Migration {
            field_id,
            shape: WireShape { kind: WireKind::plain(PlainInfo::of::<Old>()), array },
            signature,
            elem_size: std::mem::size_of::<Old>(),
            plain: Some(Box::new(move |object, count, reader| {
                let mut values = Vec::with_capacity(count);
                if array {
                    Old::read_slice(reader, count, &mut values)?;
                } else {
                    values.push(read_elem::<Old>(reader)?);
                }
                if let Some(object) = object.downcast_mut::<T>() {
                    apply(object, values);
                }
                Ok(())
            })),
            embedded: None,
        }
    }

    /// A handler for embedded objects.
    pub(crate) fn embedded<T: 'static>(
        field_id: u16,
        array: bool,
        apply: impl Fn(&mut T, Vec<Option<Box<dyn Reflectable>>>) + Send + Sync + 'static,
    ) -> Self {
        Migration {
            field_id,
            shape: WireShape { kind: WireKind::Embedded, array },
            signature: Vec::new(),
            elem_size: std::mem::size_of::<Option<Box<dyn Reflectable>>>(),
            plain: None,
            embedded: Some(Box::new(move |object, values| {
                if let Some(object) = object.downcast_mut::<T>() {
                    apply(object, values);
                }
            })),
        }
    }

    /// The stored field ID it handles.
    pub fn field_id(&self) -> u16 {
        self.field_id
    }

    /// The stored shape it accepts: a stored field whose header has exactly this shape.
    pub fn wire_shape(&self) -> WireShape {
        self.shape
    }

    /// The signature of the stored plain type it accepts (see
    /// [`PlainType::signature`](crate::plain::PlainType::signature)); empty for embedded objects.
    /// When a stream records its fields' plain types (version 3), a handler runs only for a stored
    /// field of exactly this type, even when the running field has the same ID and shape.
    pub fn signature(&self) -> &[u32] {
        &self.signature
    }

    /// `size_of` one value the handler receives.
    pub fn elem_size(&self) -> usize {
        self.elem_size
    }

    /// Reads `count` stored plain elements and hands them to the handler.
    pub fn apply_plain(&self, object: &mut dyn Any, count: usize, reader: &mut Reader<'_>) -> Result<(), PlainError> {
        match &self.plain {
            Some(apply) => apply(object, count, reader),
            None => Ok(()),
        }
    }

    /// Hands decoded embedded objects to the handler.
    pub fn apply_embedded(&self, object: &mut dyn Any, values: Vec<Option<Box<dyn Reflectable>>>) {
        if let Some(apply) = &self.embedded {
            apply(object, values)
        }
    }
}
