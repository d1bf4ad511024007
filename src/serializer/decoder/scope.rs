//! Where a section's stored fields go: the section's type, or for an enum the variant its tag
//! names ([`FieldScope`]), and the reading of that tag.

use super::Decoder;
use crate::field::RttiField;
use crate::plain::Reader;
use crate::rtti::{FieldTable, Reflectable, RttiType, RttiVariant};
use crate::serializer::error::DecodeError;
use crate::serializer::format::{FieldHeader, VARIANT_TAG_FIELD_ID};
use crate::serializer::wire::variant_tag;

/// Where the stored fields of a section are looked up: the section's type, and for an enum the
/// variant its tag named (none yet, or one this program lacks: its fields are skipped).
#[derive(Clone, Copy)]
pub(crate) struct FieldScope {
    pub(crate) rtti: &'static RttiType,
    /// Where field IDs are looked up: the type's fields, the variant's, or none.
    fields: Option<&'static FieldTable>,
    /// `true` for an enum: its field 0 is the variant tag.
    is_enum: bool,
}

impl FieldScope {
    #[inline(always)]
    pub(crate) fn of(rtti: &'static RttiType) -> Self {
        let is_enum = rtti.is_enum();
        FieldScope { rtti, fields: (!is_enum).then(|| rtti.field_table()), is_enum }
    }

    /// `true` when a field with stored ID `id` is this section's variant tag.
    #[inline(always)]
    pub(crate) fn is_variant_tag(&self, id: u16) -> bool {
        self.is_enum && id == VARIANT_TAG_FIELD_ID
    }

    /// Fields are looked up among those of `variant` from now on (`None`: skipped).
    pub(crate) fn enter(&mut self, variant: Option<&'static RttiVariant>) {
        self.fields = variant.map(RttiVariant::field_table);
    }

    /// `true` when the fields read are those of a variant, or skipped for want of one.
    #[inline(always)]
    pub(crate) fn is_enum(&self) -> bool {
        self.is_enum
    }

    /// The running field with stored ID `id`.
    #[inline(always)]
    pub(crate) fn field(&self, id: u16) -> Option<&'static RttiField> {
        self.fields?.by_id(id)
    }
}

impl Decoder<'_, '_> {
    /// Reads an enum's variant tag and makes `object` hold that variant, whose fields the stored
    /// fields that follow go to. A variant this enum lacks leaves the default variant, or what its
    /// variant migration chooses. (Out of line: the per-field loop stays small.)
    #[inline(never)]
    pub(super) fn variant_tag(
        &mut self,
        reader: &mut Reader<'_>,
        scope: &mut FieldScope,
        header: &FieldHeader,
        object: &mut dyn Reflectable,
    ) -> Result<(), DecodeError> {
        let offset = reader.offset();
        let stored = variant_tag(reader, header)?;
        let rtti = scope.rtti;
        let variant = match rtti.variant(stored) {
            Some(variant) => {
                variant.activate(object).map_err(|error| DecodeError::from(error).at(offset))?;
                Some(variant)
            }
            None => rtti.unknown_variant(object, stored),
        };
        scope.enter(variant);
        Ok(())
    }
}
