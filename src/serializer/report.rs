//! [`DecodeReport`]: what a decode left behind or changed, so that no loss is silent.

use crate::wire::error::{DecodeError, DecodeErrorKind};
use std::fmt;

/// What a decode did beyond reading every stored value into a field of the same type: fields it
/// skipped, values it converted or handed to migrations, objects and pointers it dropped.
///
/// Returned by the `*_with_report` decode methods
/// ([`BinarySerializer::decode_with_report`](super::BinarySerializer::decode_with_report) and
/// friends). Each kind of event is listed once, with how many times it happened. The decodes
/// that return no report (`from_slice`, `load`, [`BinarySerializer::decode`](super::BinarySerializer::decode))
/// log it instead, through the [`log`](https://docs.rs/log) facade under the target
/// [`LOG_TARGET`]: a warning per kind of loss. With [`strict`](super::BinarySerializer::strict)
/// decoding, the first [loss](DecodeEvent::is_loss) is an error instead.
///
/// ```
/// use reflectable::serializer::BinarySerializer;
/// use reflectable::Reflectable;
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9820)]
/// struct Door { #[rtti(id = 1)] open: bool }
///
/// let bytes = reflectable::to_vec(&Door { open: true }).unwrap();
/// let (door, report) = BinarySerializer::new().decode_with_report::<Door>(&bytes).unwrap();
/// assert!(door.open);
/// assert!(report.is_empty());
/// println!("{report}"); // "nothing skipped, converted or dropped"
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DecodeReport {
    entries: Vec<(DecodeEvent, u64)>,
}

/// One kind of thing a decode did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeEvent {
    /// A stored field was not read: its values are lost.
    FieldSkipped {
        /// The type the field belongs to.
        type_name: String,
        /// The stored field ID.
        field_id: u16,
        /// The field's stored name, when the stream has a schema.
        field_name: Option<String>,
        /// Why.
        why: SkipReason,
    },
    /// A base section whose type is no longer in the object's chain was skipped.
    SectionSkipped {
        /// The object's type.
        type_name: String,
        /// The stored base type's ID.
        base_id: u32,
    },
    /// Stored values of a field were converted without loss to the field's new type.
    FieldConverted {
        /// The type the field belongs to.
        type_name: String,
        /// The field's name.
        field_name: String,
        /// The stored type, in words.
        from: String,
        /// The running type, in words.
        to: String,
    },
    /// Stored values were handed to a migration handler.
    FieldMigrated {
        /// The type the migration belongs to.
        type_name: String,
        /// The stored field ID.
        field_id: u16,
        /// The stored field's name (when the stream has a schema).
        field_name: Option<String>,
        /// The stored type, in words (when the stream has a schema).
        from: Option<String>,
    },
    /// An object of a type this program cannot build was dropped (pointers to it are null).
    ObjectDropped {
        /// Its stored type ID.
        type_id: u32,
        /// Its stored type name, when the stream has a schema.
        type_name: Option<String>,
        /// `true` when the type is known but abstract.
        is_abstract: bool,
    },
    /// A stored pointer decoded as null (or, in a non-nullable field, left the field's default).
    PointerNulled {
        /// The type the field belongs to.
        type_name: String,
        /// The field's name.
        field_name: String,
        /// Why.
        why: NullReason,
    },
    /// Stored objects the field refused (their type does not fit it): dropped.
    ValuesRefused {
        /// The type the field belongs to.
        type_name: String,
        /// The field's name.
        field_name: String,
    },
    /// An enum's stored variant is one this program lacks: the object got the type's default,
    /// or what its variant migration chose (`handled`).
    UnknownVariant {
        /// The enum.
        type_name: String,
        /// The stored variant ID.
        variant_id: u32,
        /// `true` when a variant migration handled it (then no loss).
        handled: bool,
    },
    /// A plain value this program cannot represent (an unknown variant of a
    /// `#[derive(PlainType)]` enum) was replaced by a stand-in (its `#[default]` or first
    /// variant).
    ValueReplaced {
        /// The type the field belongs to.
        type_name: String,
        /// The field's name.
        field_name: String,
    },
    /// Entries of a map were dropped (keys without values, values without keys, repeated keys,
    /// values that did not load).
    MapEntriesDropped,
    /// Top-level objects of the stream that nothing decoded points at any more (their pointers
    /// were in skipped fields, or dropped): never built.
    ObjectsUnreached,
    /// Targets of `Weak`s that nothing in the result holds strongly (a save reached them through
    /// a `Weak` alone, or they belong to something the stream does not hold, such as an asset):
    /// they are freed when the load returns, and those `Weak`s are dead.
    ObjectsUnheld,
    /// An asset the stream refers to by key was not found: no asset function was given
    /// ([`BinarySerializer::assets`](super::BinarySerializer::assets)), or it returned nothing.
    /// The pointers to it load as null. (An object returned that does not fit a field is
    /// reported as a nulled pointer of that field.)
    AssetUnresolved {
        /// The asset's type ID.
        type_id: u32,
        /// Its name, when this program knows the type.
        type_name: Option<String>,
        /// Its key.
        key: crate::rtti::AssetKey,
    },
}

/// Why a stored field was skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// The type has no field with this ID (and no migration for it).
    NotInType,
    /// The field changed type, no lossless conversion exists and no migration takes the stored
    /// type. `from` / `to` are the types in words (the stored one is `?` without a schema).
    Retyped {
        /// The stored type.
        from: String,
        /// The running type.
        to: String,
    },
    /// The field belongs to a variant the object does not hold (an unknown stored variant).
    InactiveVariant,
}

/// Why a stored pointer decoded as null.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NullReason {
    /// Its target's type is unknown to this program, or abstract.
    TargetDropped,
    /// Its target is the root, which was decoded by value.
    RootByValue,
    /// It closes a cycle of immutable (`Rc<T>`/`Arc<T>`) objects, which memory cannot hold.
    ImmutableCycle,
    /// Its target's type does not fit the field.
    WrongType,
    /// Its target is an external reference (a subtree save's cut `Weak`, or an asset) that the
    /// decode's re-link or asset function did not resolve.
    ExternalUnresolved,
    /// The stream holds a null in a list whose elements cannot be null (`Vec<Rc<T>>`): it was
    /// left out of the list.
    NotNullable,
}

impl DecodeEvent {
    /// `true` for events that lose stored data; conversions, migrations and handled variants do
    /// not.
    pub fn is_loss(&self) -> bool {
        !matches!(
            self,
            DecodeEvent::FieldConverted { .. }
                | DecodeEvent::FieldMigrated { .. }
                | DecodeEvent::UnknownVariant { handled: true, .. }
        )
    }
}

impl DecodeReport {
    /// `true` when the decode read everything into fields of the same type.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `true` when nothing stored was lost (conversions and migrations may have run).
    pub fn is_lossless(&self) -> bool {
        self.entries.iter().all(|(event, _)| !event.is_loss())
    }

    /// Every event, once, with how many times it happened, in the order first met.
    pub fn events(&self) -> impl Iterator<Item = (&DecodeEvent, u64)> {
        self.entries.iter().map(|(event, count)| (event, *count))
    }

    /// How many times `event` happened.
    pub fn count(&self, event: &DecodeEvent) -> u64 {
        self.entries.iter().find(|(known, _)| known == event).map_or(0, |(_, count)| *count)
    }

    pub(crate) fn add(&mut self, event: DecodeEvent, times: u64) {
        match self.entries.iter_mut().find(|(known, _)| *known == event) {
            Some((_, count)) => *count += times,
            None => self.entries.push((event, times)),
        }
    }
}

/// The decoder's side of a report: strict decoding turns the first loss into an error at the
/// offset where it happened.
#[derive(Default)]
pub(crate) struct Recorder {
    pub(crate) report: DecodeReport,
    pub(crate) strict: bool,
}

impl Recorder {
    /// Records `times` occurrences of `event`, found at `offset`.
    #[cold]
    pub(crate) fn record(&mut self, event: DecodeEvent, times: u64, offset: usize) -> Result<(), DecodeError> {
        if times == 0 {
            return Ok(());
        }
        if self.strict && event.is_loss() {
            return Err(DecodeError::new(DecodeErrorKind::DataLoss { what: event.to_string() }, offset));
        }
        self.report.add(event, times);
        Ok(())
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::NotInType => write!(f, "the type has no such field"),
            SkipReason::Retyped { from, to } => {
                write!(f, "stored as {from}, now {to}, with no conversion or migration")
            }
            SkipReason::InactiveVariant => write!(f, "its variant is not one this program has"),
        }
    }
}

impl fmt::Display for NullReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NullReason::TargetDropped => "its target's type is unknown or abstract",
            NullReason::RootByValue => "its target is the root, decoded by value",
            NullReason::ImmutableCycle => "it closes a cycle of immutable objects",
            NullReason::WrongType => "its target's type does not fit the field",
            NullReason::ExternalUnresolved => {
                "its target is an external reference (a cut `Weak` or an asset) nothing resolved"
            }
            NullReason::NotNullable => "a null the list's elements cannot hold, left out",
        })
    }
}

impl fmt::Display for DecodeEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeEvent::FieldSkipped { type_name, field_id, field_name, why } => {
                write!(f, "skipped field {field_id}")?;
                if let Some(name) = field_name {
                    write!(f, " `{name}`")?;
                }
                write!(f, " of {type_name}: {why}")
            }
            DecodeEvent::SectionSkipped { type_name, base_id } => {
                write!(f, "skipped the base section of type {base_id} in {type_name}: no longer its base")
            }
            DecodeEvent::FieldConverted { type_name, field_name, from, to } => {
                write!(f, "converted {type_name}.{field_name} from {from} to {to}")
            }
            DecodeEvent::FieldMigrated { type_name, field_id, field_name, from } => {
                write!(f, "migrated stored field {field_id}")?;
                if let Some(name) = field_name {
                    write!(f, " `{name}`")?;
                }
                write!(f, " of {type_name}")?;
                match from {
                    Some(from) => write!(f, " (stored as {from})"),
                    None => Ok(()),
                }
            }
            DecodeEvent::ObjectDropped { type_id, type_name, is_abstract } => {
                write!(f, "dropped an object of ")?;
                match type_name {
                    Some(name) => write!(f, "{name} (type {type_id})")?,
                    None => write!(f, "type {type_id}")?,
                }
                f.write_str(if *is_abstract { ": the type is abstract" } else { ": the type is unknown here" })
            }
            DecodeEvent::PointerNulled { type_name, field_name, why } => {
                write!(f, "nulled a pointer in {type_name}.{field_name}: {why}")
            }
            DecodeEvent::ValuesRefused { type_name, field_name } => {
                write!(f, "dropped a value of {type_name}.{field_name}: its type does not fit the field")
            }
            DecodeEvent::UnknownVariant { type_name, variant_id, handled } => {
                write!(f, "unknown variant {variant_id} of {type_name}: ")?;
                f.write_str(if *handled { "handled by its variant migration" } else { "replaced by the default" })
            }
            DecodeEvent::ValueReplaced { type_name, field_name } => {
                write!(f, "replaced an unknown value in {type_name}.{field_name} by its type's default")
            }
            DecodeEvent::MapEntriesDropped => write!(f, "dropped map entries (uneven, repeated or unloadable)"),
            DecodeEvent::ObjectsUnreached => write!(f, "dropped top-level objects nothing decoded points at"),
            DecodeEvent::ObjectsUnheld => {
                write!(
                    f,
                    "freed objects only `Weak`s point at (nothing in the result holds them): those `Weak`s are dead"
                )
            }
            DecodeEvent::AssetUnresolved { type_id, type_name, key } => {
                write!(f, "asset `{key}` (")?;
                match type_name {
                    Some(name) => write!(f, "{name}, type {type_id}")?,
                    None => write!(f, "type {type_id}")?,
                }
                f.write_str(") was not found: pointers to it are null")
            }
        }
    }
}

/// The `log` target of what the decodes without a report log.
pub const LOG_TARGET: &str = "reflectable::decode";

impl DecodeReport {
    /// Logs the report through the [`log`] facade, for the decodes that return none: a `warn`
    /// per kind of loss, an `info` per conversion or migration, each with its count and where the
    /// stream came from (a path, or "bytes").
    pub(crate) fn log(&self, source: &dyn fmt::Display) {
        for (event, count) in self.events() {
            let level = if event.is_loss() { log::Level::Warn } else { log::Level::Info };
            match count {
                1 => log::log!(target: LOG_TARGET, level, "{source}: {event}"),
                _ => log::log!(target: LOG_TARGET, level, "{source}: {event} (x{count})"),
            }
        }
    }
}

impl fmt::Display for DecodeReport {
    /// One line per event, with its count: readable in a log.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.entries.is_empty() {
            return write!(f, "nothing skipped, converted or dropped");
        }
        for (index, (event, count)) in self.entries.iter().enumerate() {
            if index > 0 {
                writeln!(f)?;
            }
            write!(f, "{event}")?;
            if *count > 1 {
                write!(f, " (x{count})")?;
            }
        }
        Ok(())
    }
}
