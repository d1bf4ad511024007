//! Comparing two schemas: what changed between an old program's types and a new one's, and which
//! changes lose data when the new program reads the old program's streams.

use super::convert::conversion;
use super::{FieldSchema, Schema, TypeSchema};
use crate::rtti::Registry;
use std::fmt;

/// One difference between an old schema and a new one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The type's ID.
    pub type_id: u32,
    /// The type's name (the new one when it was renamed).
    pub type_name: String,
    /// What changed.
    pub kind: ChangeKind,
    /// `true` when a migration of the running program takes the old values (set by
    /// [`Registry::changes_since`]; [`Schema::compare`] knows no migrations).
    pub migrated: bool,
}

/// What changed about a type.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChangeKind {
    /// A type the old schema lacks. Harmless.
    TypeAdded,
    /// A type the new schema lacks: old objects of it are dropped, pointers to them become null.
    TypeRemoved,
    /// The type's name changed (IDs matter, names do not). Harmless.
    TypeRenamed {
        /// The old name.
        from: String,
    },
    /// The base type changed: the old base section is skipped.
    BaseChanged {
        /// The old base type's ID.
        from: Option<u32>,
        /// The new one.
        to: Option<u32>,
    },
    /// The type can no longer be built: old objects of it are dropped.
    BecameAbstract,
    /// A field the old schema lacks: old objects keep the constructor's value. Harmless.
    FieldAdded {
        /// The variant, for an enum.
        variant: Option<u32>,
        /// The field's ID and name.
        field: (u16, String),
    },
    /// A field the new schema lacks: its old values are skipped unless a migration takes them.
    FieldRemoved {
        /// The variant, for an enum.
        variant: Option<u32>,
        /// The field's ID and name.
        field: (u16, String),
    },
    /// A field kept its ID and changed type.
    FieldRetyped {
        /// The variant, for an enum.
        variant: Option<u32>,
        /// The field's ID and (new) name.
        field: (u16, String),
        /// The old type, in words.
        from: String,
        /// The new type, in words.
        to: String,
        /// `true` when decoders convert old values without loss (widening, `T` to `Option<T>`,
        /// a value to an array of one); otherwise the old values need a migration or are lost.
        converts: bool,
    },
    /// A field kept its ID and type and changed name. Harmless.
    FieldRenamed {
        /// The variant, for an enum.
        variant: Option<u32>,
        /// The field's ID and new name.
        field: (u16, String),
        /// The old name.
        from: String,
    },
    /// A variant the old schema lacks. Harmless.
    VariantAdded {
        /// Its ID and name.
        variant: (u32, String),
    },
    /// A variant the new schema lacks: old objects holding it get the type's default, or what
    /// its variant migration chooses.
    VariantRemoved {
        /// Its ID and name.
        variant: (u32, String),
    },
}

impl Change {
    /// `true` when reading old streams with the new schema loses data (unless the new program
    /// registers a migration for it).
    pub fn loses_data(&self) -> bool {
        if self.migrated {
            return false;
        }
        match &self.kind {
            ChangeKind::TypeRemoved
            | ChangeKind::BaseChanged { .. }
            | ChangeKind::BecameAbstract
            | ChangeKind::FieldRemoved { .. }
            | ChangeKind::VariantRemoved { .. } => true,
            ChangeKind::FieldRetyped { converts, .. } => !converts,
            _ => false,
        }
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let in_variant = |variant: &Option<u32>| variant.map_or_else(String::new, |id| format!(" of variant {id}"));
        write!(f, "{} (id {}): ", self.type_name, self.type_id)?;
        // What happens to values the change would lose: a migration registered for them says
        // where they go.
        let lost = match self.migrated {
            true => ": a registered migration takes the old values",
            false => ": old values are lost unless a migration takes them",
        };
        let losing =
            matches!(self.kind, ChangeKind::FieldRemoved { .. } | ChangeKind::FieldRetyped { converts: false, .. });
        if self.migrated && !losing {
            write!(f, "(migrated) ")?;
        }
        match &self.kind {
            ChangeKind::TypeAdded => write!(f, "type added"),
            ChangeKind::TypeRemoved => write!(f, "type removed: old objects of it are dropped"),
            ChangeKind::TypeRenamed { from } => write!(f, "renamed from {from}"),
            ChangeKind::BaseChanged { from, to } => {
                write!(f, "base type changed from {from:?} to {to:?}: the old base's fields are skipped")
            }
            ChangeKind::BecameAbstract => write!(f, "became abstract: old objects of it are dropped"),
            ChangeKind::FieldAdded { variant, field } => {
                write!(f, "field {} `{}`{} added", field.0, field.1, in_variant(variant))
            }
            ChangeKind::FieldRemoved { variant, field } => {
                write!(f, "field {} `{}`{} removed{lost}", field.0, field.1, in_variant(variant))
            }
            ChangeKind::FieldRetyped { variant, field, from, to, converts } => {
                write!(f, "field {} `{}`{} retyped from {from} to {to}", field.0, field.1, in_variant(variant))?;
                match converts {
                    true => write!(f, " (converted without loss)"),
                    false => f.write_str(lost),
                }
            }
            ChangeKind::FieldRenamed { variant, field, from } => {
                write!(f, "field {} renamed from `{from}` to `{}`{}", field.0, field.1, in_variant(variant))
            }
            ChangeKind::VariantAdded { variant } => write!(f, "variant {} `{}` added", variant.0, variant.1),
            ChangeKind::VariantRemoved { variant } => write!(
                f,
                "variant {} `{}` removed: old objects holding it get the default or the variant migration's choice",
                variant.0, variant.1
            ),
        }
    }
}

impl Schema {
    /// What changed from `self` (the old schema) to `new`, type by type in ID order. Filter with
    /// [`Change::loses_data`] for a compatibility check:
    ///
    /// ```
    /// use reflectable::schema::{DeclaredSchema, FieldSchema, Schema, TypeSchema};
    /// use reflectable::Reflectable;
    ///
    /// mod old {
    ///     #[derive(reflectable::Reflectable, Default)]
    ///     #[rtti(id = 9810, name = "Player")]
    ///     pub struct Player { #[rtti(id = 1)] pub hp: u16, #[rtti(id = 2)] pub speed: u32 }
    /// }
    /// mod new {
    ///     #[derive(reflectable::Reflectable, Default)]
    ///     #[rtti(id = 9811, name = "Player")]
    ///     pub struct Player { #[rtti(id = 1)] pub hp: u32, #[rtti(id = 2)] pub speed: f32 }
    /// }
    /// // (Two IDs only because both versions live in one program here.)
    /// let mut old = TypeSchema::of(old::Player::rtti_static());
    /// let new = TypeSchema::of(new::Player::rtti_static());
    /// old.id = new.id;
    /// let changes = Schema::new(vec![old]).compare(&Schema::new(vec![new]));
    /// let losses: Vec<String> = changes.iter().filter(|c| c.loses_data()).map(|c| c.to_string()).collect();
    /// assert_eq!(losses, ["Player (id 9811): field 2 `speed` retyped from u32 to f32: old values are lost unless a migration takes them"]);
    /// ```
    pub fn compare(&self, new: &Schema) -> Vec<Change> {
        let mut changes = Vec::new();
        let mut push = |schema: &TypeSchema, kind| {
            changes.push(Change { type_id: schema.id, type_name: schema.name.clone(), kind, migrated: false })
        };
        for old in &self.types {
            let Some(current) = new.get(old.id) else {
                push(old, ChangeKind::TypeRemoved);
                continue;
            };
            if old.fingerprint == current.fingerprint && old == current {
                continue;
            }
            if old.name != current.name {
                push(current, ChangeKind::TypeRenamed { from: old.name.clone() });
            }
            if old.base != current.base {
                push(current, ChangeKind::BaseChanged { from: old.base, to: current.base });
            }
            if current.is_abstract && !old.is_abstract {
                push(current, ChangeKind::BecameAbstract);
            }
            compare_fields(None, &old.fields, &current.fields, &mut |kind| push(current, kind));
            for variant in &old.variants {
                match current.variant(variant.id) {
                    None => push(current, ChangeKind::VariantRemoved { variant: (variant.id, variant.name.clone()) }),
                    Some(now) => {
                        compare_fields(Some(variant.id), &variant.fields, &now.fields, &mut |kind| push(current, kind))
                    }
                }
            }
            for variant in current.variants.iter().filter(|variant| old.variant(variant.id).is_none()) {
                push(current, ChangeKind::VariantAdded { variant: (variant.id, variant.name.clone()) });
            }
        }
        for added in new.types.iter().filter(|schema| self.get(schema.id).is_none()) {
            push(added, ChangeKind::TypeAdded);
        }
        changes.sort_by_key(|change| change.type_id);
        changes
    }
}

fn compare_fields(variant: Option<u32>, old: &[FieldSchema], new: &[FieldSchema], push: &mut dyn FnMut(ChangeKind)) {
    for field in old {
        let Some(now) = new.iter().find(|now| now.id == field.id) else {
            push(ChangeKind::FieldRemoved { variant, field: (field.id, field.name.clone()) });
            continue;
        };
        // A stored field without a signature (too long to describe) is matched by shape, as the
        // decoder does.
        let same_signature = field.signature == now.signature || field.signature.is_empty();
        let same_type = field.shape == now.shape && same_signature && field.declared == now.declared;
        if !same_type || field.weak != now.weak {
            let converts = conversion((field.shape, &field.signature), (now.shape, &now.signature)).is_some()
                || (field.shape == now.shape && field.signature == now.signature && field.declared == now.declared);
            push(ChangeKind::FieldRetyped {
                variant,
                field: (now.id, now.name.clone()),
                from: field.type_description(),
                to: now.type_description(),
                converts,
            });
        } else if field.name != now.name {
            push(ChangeKind::FieldRenamed { variant, field: (now.id, now.name.clone()), from: field.name.clone() });
        }
    }
    for field in new.iter().filter(|now| !old.iter().any(|field| field.id == now.id)) {
        push(ChangeKind::FieldAdded { variant, field: (field.id, field.name.clone()) });
    }
}

impl Registry {
    /// The schema of every registered type.
    pub fn schema(&self) -> Schema {
        Schema::new(self.types().map(TypeSchema::of).collect())
    }

    /// What changed from `old` (a schema saved from an older program, or read from one of its
    /// streams with [`Schema::of_stream`](super::Schema::of_stream)) to this registry's types, each
    /// change marked [`migrated`](Change::migrated) when a registered migration takes the old
    /// values. The changes that still [lose data](Change::loses_data) are what old saves would
    /// lose: a CI check can fail on them.
    ///
    /// ```
    /// # use reflectable::Reflectable;
    /// # #[derive(Reflectable, Default)]
    /// # #[rtti(id = 9840)]
    /// # struct Door { #[rtti(id = 1)] open: bool }
    /// let registry = reflectable::Registry::global();
    /// let old = registry.schema(); // in a real check: loaded from the last release
    /// assert!(registry.changes_since(&old).iter().all(|change| !change.loses_data()));
    /// ```
    pub fn changes_since(&self, old: &Schema) -> Vec<Change> {
        // The registry holds the types its types hold (generic instantiations) as well.
        let mut changes = old.compare(&self.schema());
        for change in &mut changes {
            let Some(rtti) = self.get(change.type_id) else { continue };
            let stored = old.get(change.type_id);
            change.migrated = match &change.kind {
                ChangeKind::FieldRemoved { variant: None, field }
                | ChangeKind::FieldRetyped { variant: None, field, .. } => {
                    let stored = stored.and_then(|stored| stored.field(None, field.0));
                    stored.is_some_and(|stored| {
                        rtti.migrations_for(field.0).any(|migration| {
                            migration.wire_shape() == stored.shape
                                && migration.signature() == stored.signature.as_slice()
                        })
                    })
                }
                ChangeKind::VariantRemoved { variant } => rtti.has_variant_migration(variant.0),
                _ => false,
            };
        }
        changes
    }
}
