//! Reflectable enums: a type's variants ([`RttiVariant`]), each with a stable numeric ID and its own
//! fields, and which one an object holds.
//!
//! An enum's type has no fields of its own: [`RttiType::fields_of`](super::RttiType::fields_of)
//! gives the fields of the variant an object holds, and the field accessors of the other variants
//! answer [`FieldError::InactiveVariant`].

use super::field_table::FieldTable;
use super::Reflectable;
use crate::field::{FieldError, RttiField};
use ahash::AHashMap;
use std::any::Any;
use std::borrow::Cow;
use std::fmt;

/// Puts a fresh value of one variant (fields at their defaults) into an object of the enum type;
/// `false` when the object is of another type.
pub(crate) type Activate = Box<dyn Fn(&mut dyn Any) -> bool + Send + Sync>;
/// A fresh value of one variant, boxed.
pub(crate) type CreateVariant = Box<dyn Fn() -> Box<dyn Reflectable> + Send + Sync>;
/// Changes an object of the enum type: resets it to the type's default, or runs a variant
/// migration on it.
pub(crate) type Reset = Box<dyn Fn(&mut dyn Any) + Send + Sync>;
/// The ID of the variant an object holds; `None` when the object is of another type.
pub(crate) type ActiveVariant = Box<dyn Fn(&dyn Any) -> Option<u32> + Send + Sync>;

/// One variant of a reflectable enum.
pub struct RttiVariant {
    id: u32,
    name: Cow<'static, str>,
    fields: FieldTable,
    activate: Activate,
    create: CreateVariant,
}

impl fmt::Debug for RttiVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RttiVariant")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("fields", &self.fields.all())
            .finish()
    }
}

impl RttiVariant {
    pub(crate) fn new(
        id: u32,
        name: Cow<'static, str>,
        fields: Vec<RttiField>,
        activate: Activate,
        create: CreateVariant,
    ) -> Self {
        RttiVariant { id, name, fields: FieldTable::new(fields), activate, create }
    }

    /// The variant's stable numeric ID, written in streams.
    pub fn id(&self) -> u32 {
        self.id
    }
    /// The variant's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The variant's fields, in declaration order.
    pub fn fields(&self) -> &[RttiField] {
        self.fields.all()
    }
    /// The variant's fields with their indexes.
    #[inline]
    pub(crate) fn field_table(&self) -> &FieldTable {
        &self.fields
    }
    /// The field with `id`, in O(1).
    #[inline]
    pub fn field(&self, id: u16) -> Option<&RttiField> {
        self.fields.by_id(id)
    }
    /// The field named `name`, in O(1).
    pub fn field_by_name(&self, name: &str) -> Option<&RttiField> {
        self.fields.by_name(name)
    }
    /// A fresh value of this variant, its fields at their defaults.
    pub fn create(&self) -> Box<dyn Reflectable> {
        (self.create)()
    }
    /// Makes this variant the one `object` holds, its fields at their defaults. An object that
    /// already holds this variant keeps its field values.
    pub fn activate(&self, object: &mut dyn Reflectable) -> Result<(), FieldError> {
        let rtti = object.rtti();
        if rtti.active_variant(object).is_some_and(|active| active.id == self.id) {
            return Ok(());
        }
        let owner: &mut dyn Any = object;
        if (self.activate)(owner) {
            Ok(())
        } else {
            Err(FieldError::WrongOwner { field: String::new(), owner: rtti.rust_name() })
        }
    }
}

/// The variants of an enum type, and how to tell which one an object holds.
pub(crate) struct Variants {
    pub(crate) list: Vec<RttiVariant>,
    by_id: AHashMap<u32, usize>,
    active: ActiveVariant,
    reset: Option<Reset>,
    migrations: Vec<VariantMigration>,
}

impl Variants {
    /// Indexes `list` (the builder checked that IDs and names are unique).
    pub(crate) fn new(
        list: Vec<RttiVariant>,
        active: ActiveVariant,
        reset: Option<Reset>,
        migrations: Vec<VariantMigration>,
    ) -> Self {
        let by_id = list.iter().enumerate().map(|(index, variant)| (variant.id, index)).collect();
        Variants { list, by_id, active, reset, migrations }
    }

    /// What a stored variant this enum does not have becomes: `object` is reset to the type's
    /// default, then handed to the variant's migration if there is one. Returns the variant whose
    /// fields the stored fields are read into: the one the migration chose, or `None` (no
    /// migration: they are skipped).
    pub(crate) fn fall_back(&self, object: &mut dyn Reflectable, stored_id: u32) -> Option<&RttiVariant> {
        if let Some(reset) = &self.reset {
            let owner: &mut dyn Any = object;
            reset(owner);
        }
        let migration = self.migrations.iter().find(|migration| migration.stored_id == stored_id)?;
        migration.apply(object);
        self.active(object)
    }

    /// `true` when a migration handles stored variant `stored_id`.
    pub(crate) fn has_migration(&self, stored_id: u32) -> bool {
        self.migrations.iter().any(|migration| migration.stored_id == stored_id)
    }

    /// The variant with `id`.
    #[inline]
    pub(crate) fn get(&self, id: u32) -> Option<&RttiVariant> {
        self.by_id.get(&id).map(|&index| &self.list[index])
    }

    /// The variant `object` holds; `None` when it is of another type.
    #[inline]
    pub(crate) fn active(&self, object: &dyn Any) -> Option<&RttiVariant> {
        (self.active)(object).and_then(|id| self.get(id))
    }
}

/// What to do with a stored variant an enum no longer has: a handler that may switch the object
/// (holding its default variant) to another variant.
pub(crate) struct VariantMigration {
    pub(crate) stored_id: u32,
    migrate: Reset,
}

impl VariantMigration {
    pub(crate) fn new<T: 'static>(stored_id: u32, migrate: impl Fn(&mut T) + Send + Sync + 'static) -> Self {
        VariantMigration {
            stored_id,
            migrate: Box::new(move |object| {
                if let Some(object) = object.downcast_mut::<T>() {
                    migrate(object)
                }
            }),
        }
    }

    /// Runs the handler on `object`.
    pub(crate) fn apply(&self, object: &mut dyn Reflectable) {
        let object: &mut dyn Any = object;
        (self.migrate)(object)
    }
}
