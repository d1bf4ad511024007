//! Where a section's stored fields go: the section's type, or for an enum the variant its tag
//! names ([`FieldScope`]), the reading of that tag, and how the stream describes the type
//! ([`Layout`]).

use super::evolution::TypePlan;
use crate::field::RttiField;
use crate::plain::Reader;
use crate::rtti::{FieldTable, Reflectable, RttiType, RttiVariant};
use crate::wire::error::DecodeError;
use crate::wire::format::{FieldHeader, VARIANT_TAG_FIELD_ID};
use crate::wire::variant_tag;
use std::rc::Rc;

/// How a stream describes the type of a section.
#[derive(Clone, Debug)]
pub(crate) enum Layout {
    /// As the running type, or not at all (a stream before version 3, a built-in container):
    /// stored fields are matched by ID and wire shape.
    AsIs,
    /// Differently: each stored field is read as its plan says.
    Evolved(Rc<TypePlan>),
}

/// Where the stored fields of a section are looked up: the section's type, and for an enum the
/// variant its tag named (none yet, or one this program lacks: its fields are skipped).
#[derive(Clone)]
pub(crate) struct FieldScope {
    pub(crate) rtti: &'static RttiType,
    /// Where field IDs are looked up: the type's fields, the variant's, or none.
    fields: Option<&'static FieldTable>,
    /// `true` for an enum: its field 0 is the variant tag.
    is_enum: bool,
    /// The stored variant, once an enum's tag is read.
    variant: Option<u32>,
    /// Where the next stored field is expected among the running ones: a stream written by this
    /// type stores its fields in their declared order, so the next header is usually that
    /// field's, told by one comparison.
    next: usize,
    pub(crate) layout: Layout,
}

impl FieldScope {
    #[inline(always)]
    pub(crate) fn of(rtti: &'static RttiType) -> Self {
        let is_enum = rtti.is_enum();
        FieldScope {
            rtti,
            fields: (!is_enum).then(|| rtti.field_table()),
            is_enum,
            variant: None,
            next: 0,
            layout: Layout::AsIs,
        }
    }

    /// The scope with the stream's description of its type.
    #[inline(always)]
    pub(crate) fn with_layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self
    }

    /// `true` when a stored field whose header matches a running field is read into it as it
    /// is (no plan to consult).
    #[inline(always)]
    pub(crate) fn reads_as_is(&self) -> bool {
        !matches!(self.layout, Layout::Evolved(_))
    }

    /// `true` when a field with stored ID `id` is this section's variant tag.
    #[inline(always)]
    pub(crate) fn is_variant_tag(&self, id: u16) -> bool {
        self.is_enum && id == VARIANT_TAG_FIELD_ID
    }

    /// Reads an enum's variant tag (its header read) and looks the fields that follow up among
    /// those of the variant they belong to: the tag's own, or for a variant this enum lacks the
    /// one its variant migration chooses (none: they are skipped). The decoder passes the object,
    /// which is switched to that variant; the immutable pre-scan passes none, and a migration is
    /// then run on a scratch object, so both read the same fields. Returns the stored variant ID
    /// when this enum lacks it.
    #[inline(never)]
    pub(crate) fn read_variant_tag(
        &mut self,
        reader: &mut Reader<'_>,
        header: &FieldHeader,
        object: Option<&mut dyn Reflectable>,
    ) -> Result<Option<u32>, DecodeError> {
        let offset = reader.offset();
        let stored = variant_tag(reader, header)?;
        let rtti = self.rtti;
        self.variant = Some(stored);
        let variant = match (rtti.variant(stored), object) {
            (Some(variant), Some(object)) => {
                variant.activate(object).map_err(|error| DecodeError::from(error).at(offset))?;
                Some(variant)
            }
            (Some(variant), None) => Some(variant),
            (None, Some(object)) => rtti.unknown_variant(object, stored),
            (None, None) => rtti.create().and_then(|mut scratch| rtti.unknown_variant(&mut *scratch, stored)),
        };
        self.fields = variant.map(RttiVariant::field_table);
        self.next = 0;
        Ok(rtti.variant(stored).is_none().then_some(stored))
    }

    /// The stored variant of an enum whose tag was read.
    #[inline(always)]
    pub(crate) fn variant(&self) -> Option<u32> {
        self.variant
    }

    /// `true` when the fields read are those of a variant, or skipped for want of one.
    #[inline(always)]
    pub(crate) fn is_enum(&self) -> bool {
        self.is_enum
    }

    /// `true` when an enum's fields have no variant to go to.
    #[inline(always)]
    pub(crate) fn has_no_fields(&self) -> bool {
        self.fields.is_none()
    }

    /// Expects the running field at `index` next: the fields before it were read (by generated
    /// code, `generated.rs`).
    #[inline(always)]
    pub(crate) fn expect_after(&mut self, read: usize) {
        self.next = read;
    }

    /// The running field with stored ID `id`.
    #[inline(always)]
    pub(crate) fn field(&self, id: u16) -> Option<&'static RttiField> {
        self.fields?.by_id(id)
    }

    /// The declared position, among the section's (or the variant's) fields, of the field
    /// [`FieldScope::field_for`] found last.
    #[inline(always)]
    pub(crate) fn found_position(&self) -> usize {
        self.next - 1
    }

    /// The running field stored header `header` is for, when its wire shape is that field's:
    /// the field expected next, or else the one with its ID.
    #[inline(always)]
    pub(crate) fn field_for(&mut self, header: &FieldHeader) -> Option<&'static RttiField> {
        let fields = self.fields?;
        let all = fields.all();
        let index = match all.get(self.next) {
            Some(expected) if expected.id() == header.id => self.next,
            _ => fields.index(header.id)?,
        };
        self.next = index + 1;
        Some(&all[index]).filter(|field| field.wire_shape() == header.shape)
    }
}
