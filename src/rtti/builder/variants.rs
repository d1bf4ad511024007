//! The enum half of [`RttiTypeBuilder`]: declaring variants, variant migrations, and checking
//! and assembling them when the type is built.

use super::{check_fields, RttiTypeBuilder};
use crate::field::RttiField;
use crate::rtti::variant::ActiveVariant;
use crate::rtti::variant::{Activate, CreateVariant, Reset, VariantMigration, Variants};
use crate::rtti::{Reflectable, RttiError, RttiVariant};
use ahash::AHashMap;
use std::any::Any;
use std::borrow::Cow;
use std::sync::Arc;

/// A variant being declared.
pub(super) struct PendingVariant {
    id: u32,
    name: Cow<'static, str>,
    pub(super) fields: Vec<RttiField>,
    activate: Activate,
    create: CreateVariant,
}

impl<T: Reflectable> RttiTypeBuilder<T> {
    /// Declares `T` an enum: `active` gives the ID of the variant an object holds. Declare each
    /// variant with [`variant`](Self::variant); the fields added after a variant are its fields,
    /// reached only while the object holds that variant.
    ///
    /// ```
    /// use reflectable::field::Accessor;
    /// use reflectable::{Reflectable, RttiTypeBuilder};
    ///
    /// #[derive(Debug, Default, PartialEq)]
    /// enum Shape {
    ///     #[default]
    ///     Empty,
    ///     Circle { radius: f32 },
    /// }
    ///
    /// fn shape_rtti() -> reflectable::RttiType {
    ///     RttiTypeBuilder::<Shape>::new(9300, "Shape")
    ///         .default_constructor()
    ///         .variants(|shape| match shape {
    ///             Shape::Empty => 1,
    ///             Shape::Circle { .. } => 2,
    ///         })
    ///         .variant(1, "Empty", || Shape::Empty)
    ///         .variant(2, "Circle", || Shape::Circle { radius: 0.0 })
    ///         .add_plain::<f32, reflectable::field::One>(
    ///             1,
    ///             "radius",
    ///             Accessor::Variant {
    ///                 get: |shape| match shape {
    ///                     Shape::Circle { radius } => Some(radius),
    ///                     _ => None,
    ///                 },
    ///                 get_mut: |shape| match shape {
    ///                     Shape::Circle { radius } => Some(radius),
    ///                     _ => None,
    ///                 },
    ///             },
    ///             None,
    ///         )
    ///         .build()
    ///         .expect("valid RTTI")
    /// }
    /// # impl Reflectable for Shape {
    /// #     fn rtti(&self) -> &'static reflectable::RttiType { Self::rtti_static() }
    /// #     fn rtti_static() -> &'static reflectable::RttiType {
    /// #         static RTTI: once_cell::sync::Lazy<reflectable::RttiType> = once_cell::sync::Lazy::new(shape_rtti);
    /// #         &RTTI
    /// #     }
    /// # }
    ///
    /// let rtti = Shape::rtti_static();
    /// let mut shape = Shape::Empty;
    /// rtti.variant_by_name("Circle").unwrap().activate(&mut shape).unwrap();
    /// rtti.fields_of(&shape)[0].set(&mut shape, 2.5f32).unwrap();
    /// assert_eq!(shape, Shape::Circle { radius: 2.5 });
    /// ```
    pub fn variants(mut self, active: fn(&T) -> u32) -> Self {
        self.active = Some(Box::new(move |object: &dyn Any| object.downcast_ref::<T>().map(active)));
        self
    }

    /// Declares variant `id` named `name` of an enum; `make` builds a value of it with its fields
    /// at their defaults. Fields added next belong to this variant.
    pub fn variant(
        mut self,
        id: u32,
        name: impl Into<Cow<'static, str>>,
        make: impl Fn() -> T + Send + Sync + 'static,
    ) -> Self {
        let make = Arc::new(make);
        let boxed = make.clone();
        self.variants.push(PendingVariant {
            id,
            name: name.into(),
            fields: Vec::new(),
            activate: Box::new(move |object: &mut dyn Any| match object.downcast_mut::<T>() {
                Some(object) => {
                    *object = make();
                    true
                }
                None => false,
            }),
            create: Box::new(move || Box::new(boxed())),
        });
        self
    }

    /// Handles a stored variant `stored_id` that this enum no longer has (removed, or from a newer
    /// program): `migrate` gets the object (holding its default variant) and may switch it to
    /// another variant; the stored variant's fields are then read into the fields of the variant
    /// it holds, by ID. Without a handler an unknown variant leaves the default variant and its
    /// fields are skipped. The reset happens when the tag is read, after the type's
    /// `on_deserialization_started` hook ran: what that hook set on the object is replaced too.
    pub fn migrate_variant(mut self, stored_id: u32, migrate: impl Fn(&mut T) + Send + Sync + 'static) -> Self {
        self.variant_migrations.push(VariantMigration::new::<T>(stored_id, migrate));
        self
    }

    /// Checks the declared variants (unique IDs and names, each variant's fields as a struct's,
    /// no field outside them, no base) and assembles them.
    pub(super) fn assemble_variants(&mut self, type_name: &str, active: ActiveVariant) -> Result<Variants, RttiError> {
        let type_name = type_name.to_owned();
        if !self.fields.is_empty() || self.base.is_some() || !self.migrations.is_empty() {
            return Err(RttiError::EnumWithFields { type_name });
        }
        let mut ids: AHashMap<u32, &str> = AHashMap::new();
        for variant in &self.variants {
            if let Some(first) = ids.insert(variant.id, &variant.name) {
                return Err(RttiError::DuplicateVariant {
                    type_name,
                    what: format!("ID {} is used by both `{first}` and `{}`", variant.id, variant.name),
                });
            }
            if self.variants.iter().filter(|other| other.name == variant.name).count() > 1 {
                return Err(RttiError::DuplicateVariant {
                    type_name,
                    what: format!("name `{}` is used twice", variant.name),
                });
            }
            check_fields(&format!("{type_name}::{}", variant.name), &variant.fields, true)?;
        }
        let list = std::mem::take(&mut self.variants)
            .into_iter()
            .map(|v| RttiVariant::new(v.id, v.name, v.fields, v.activate, v.create))
            .collect();
        let reset = self.make_default.take().map(|make| -> Reset {
            Box::new(move |object: &mut dyn Any| {
                if let Some(object) = object.downcast_mut::<T>() {
                    *object = make();
                }
            })
        });
        Ok(Variants::new(list, active, reset, std::mem::take(&mut self.variant_migrations)))
    }
}
