//! The encoder: writes an object graph in the layout of `FORMAT.md`.
//!
//! The root is instance 1; every object reached through a pointer gets the next instance ID when
//! first seen and waits to be written. Objects are written depth first (FORMAT.md, "Object
//! order"): after an object, the objects it led to, lowest ID first, each followed by what it led
//! to in turn. What waits is then the unwritten siblings along one path, not a breadth-first
//! frontier that grows with the graph. Identity is the address of the shared allocation; an
//! object is remembered only while a pointer to it may still be met (its pointer count says how
//! many there are), so the identity map stays small too. Total work is linear in the graph (one
//! hash lookup per pointer, no rescans).

pub(crate) mod generated;
mod identities;
mod kept;
mod pending;
mod subtree;
mod trait_check;

use super::external::{write_stub, StubKey};
use super::progress::Tracker;
use super::{BinarySerializer, Limits, SchemaTable, SubtreeReport, WeakPointers};
use crate::containers::{LIST_TYPE_ID, MAP_TYPE_ID};
use crate::field::{DeclaredAsset, FieldAccess, FieldError, FieldKind, RttiField, SharedObject, TraitCheck};
use crate::rtti::visit;
use crate::rtti::Root;
use crate::rtti::{AssetKey, Reflectable, Registry, RttiType, TypeSet};
use crate::schema::fingerprint_table::{running_fingerprints, write_fingerprint_table};
use crate::schema::table::{one_per_id, write_table};
use crate::wire::error::EncodeError;
use crate::wire::format::{
    FieldHeader, TypeHeader, LENGTHS_VERSION, MAX_INSTANCE_ID, NULL_INSTANCE, SCHEMA_VERSION, VERSION,
};
use crate::wire::{write_stream_header, write_trailer, write_trailer_v5, LengthSlot, WireWrite};
use ahash::AHashSet;
use generated::FieldWriter;
use identities::Identities;
use pending::{Pending, Waiting, TRACKED};
use std::any::Any;
use std::collections::hash_map::Entry;
use std::io;
use trait_check::TraitChecks;

/// Receives finished chunks of the stream.
pub(crate) type Sink<'s> = &'s mut dyn FnMut(&[u8]) -> io::Result<()>;

/// One encoding run.
pub(crate) struct Encoder<'r, 's, 'c> {
    out: Vec<u8>,
    sink: Option<Sink<'s>>,
    flush_threshold: usize,
    written: u64,
    /// Objects that a pointer met later may lead to, by identity.
    ids: Identities,
    /// Objects met and not written yet, the next one to write on top: the objects one object led
    /// to go on it together, in reverse, once it is written.
    pending: Pending,
    next_id: u32,
    depth: usize,
    limits: Limits,
    context: &'c mut dyn Any,
    /// Where user-trait fields check that a decoder can cast their objects back.
    registry: &'r Registry,
    /// The shared object being written (its address, concrete type and name): the encoder holds
    /// its borrow or lock, so a pointer back to it is checked without taking it again.
    current: (usize, Option<&'static RttiType>),
    /// What `Weak`s whose target the stream does not hold become (`subtree.rs`).
    weak_pointers: WeakPointers<'r>,
    /// For a subtree save, the identities of the objects the stream holds (`subtree.rs`).
    strong: Option<AHashSet<usize>>,
    /// For a subtree save, the fields whose `Weak`s were cut: how many to null, how many to
    /// external references (`subtree.rs`).
    cuts: Vec<(&'static RttiField, u64, u64)>,
    /// Hashes every byte handed to the sink, when the stream carries a checksum.
    checksum: Option<crc32fast::Hasher>,
    /// Every type whose sections the stream holds, in the order first written: the schema table.
    types: Vec<&'static RttiType>,
    /// Which types are in `types`.
    seen_types: TypeSet,
    /// The kept unknown fields written, by type (`kept.rs`): their types' entries describe them.
    kept: Vec<kept::KeptSet>,
    /// `false` to write a version 2 stream, which has no schema table.
    schema_table: SchemaTable,
    /// The types found castable into each user trait (`trait_check.rs`).
    trait_checks: TraitChecks,
    /// Reports progress every so many objects.
    progress: Tracker<'r>,
    /// Whether sections of derived types are written by their generated code (`generated.rs`).
    generated: bool,
    /// Address and type name of a root passed by reference: a shared object holding that address
    /// is the root met again through a pointer, which the stream cannot express.
    root_by_reference: Option<(usize, &'static str)>,
    /// The format version written: 5 records each top-level object's length after its first type
    /// header, so such an object is held whole before it is flushed.
    version: u32,
}

impl<'r, 's, 'c> Encoder<'r, 's, 'c> {
    /// An encoder configured by `config` writing into `out`, handing it to `sink` whenever it
    /// holds `flush_threshold` bytes (no sink: everything stays in `out`).
    pub(crate) fn new(
        out: Vec<u8>,
        sink: Option<Sink<'s>>,
        flush_threshold: usize,
        config: &BinarySerializer<'r>,
        context: &'c mut dyn Any,
    ) -> Self {
        Encoder {
            out,
            sink,
            flush_threshold,
            written: 0,
            ids: Identities::default(),
            pending: Pending::new(),
            next_id: 2,
            depth: 0,
            limits: config.limits,
            context,
            registry: config.registry,
            current: (0, None),
            weak_pointers: config.weak_pointers,
            strong: None,
            cuts: Vec::new(),
            root_by_reference: None,
            generated: config.generated_codecs,
            checksum: config.checksum.unwrap_or(false).then(crc32fast::Hasher::new),
            types: Vec::new(),
            seen_types: TypeSet::default(),
            kept: Vec::new(),
            schema_table: config.schema_table,
            trait_checks: TraitChecks::default(),
            progress: Tracker::new(config.progress, (None, None)),
            version: config.format_version,
        }
    }

    /// Writes the whole graph; returns what is left in the buffer, the total bytes produced, and
    /// what a subtree save cut.
    pub(crate) fn run(mut self, root: Root<'_>) -> Result<(Vec<u8>, u64, SubtreeReport), EncodeError> {
        self.find_strong(&root);
        match (self.version, self.schema_table) {
            (VERSION, SchemaTable::Omitted) => self.version = SCHEMA_VERSION - 1,
            (VERSION, _) => {}
            (LENGTHS_VERSION, SchemaTable::Omitted) => {
                let why = "version 5 streams carry a schema or fingerprint table";
                return Err(EncodeError::UnsupportedVersion { version: LENGTHS_VERSION, why });
            }
            (LENGTHS_VERSION, _) => {}
            (version, _) => return Err(EncodeError::UnsupportedVersion { version, why: "this build writes 3 and 5" }),
        }
        write_stream_header(&mut self.out, self.version);
        match root {
            Root::Object(object) => {
                let address = object as *const dyn Reflectable as *const () as usize;
                self.root_by_reference = Some((address, object.rtti().name()));
                self.object(object, object.rtti(), 1)?
            }
            Root::Shared(shared) => {
                // The caller's handle is a pointer the walk never meets: the root stays known.
                self.ids.insert(shared.addr(), Seen::kept(1));
                self.shared_object(&shared, 1)?;
            }
        }
        self.object_done();
        self.pending.end_group();
        while let Some(next) = self.pending.pop() {
            match next {
                Waiting::Object { shared, tagged } => {
                    self.shared_object(&shared, tagged & !TRACKED)?;
                    if tagged & TRACKED != 0 {
                        self.written(&shared);
                    }
                }
                Waiting::External { id, key, type_id } => {
                    write_stub(&mut self.out, id, &key, type_id, self.version == LENGTHS_VERSION)
                        .map_err(|length| EncodeError::ObjectTooLarge { instance: id, length })?;
                    self.maybe_flush()?;
                }
            }
            self.object_done();
            self.pending.end_group();
        }
        let clash =
            |rtti: &RttiType| EncodeError::TypeIdClash { type_id: rtti.id(), type_name: rtti.name().to_owned() };
        // Where the table starts, in the stream and in the buffer (a version 5 trailer records both
        // the offset and the table's CRC).
        let table = (self.written + self.out.len() as u64, self.out.len());
        match self.schema_table {
            SchemaTable::Full => {
                let kept = self.kept_entries()?;
                let types = one_per_id(&self.types, &kept).map_err(clash)?;
                write_table(&types, &kept, self.version, &mut self.out);
            }
            SchemaTable::Fingerprints => {
                if let Some(&(rtti, _)) = self.kept.first() {
                    return Err(EncodeError::KeptDataNeedsSchema { type_name: rtti.name() });
                }
                let types = one_per_id(&self.types, &[]).map_err(clash)?;
                write_fingerprint_table(running_fingerprints(&types), &mut self.out);
            }
            SchemaTable::Omitted => {}
        }
        if let Some(hasher) = self.checksum.as_mut() {
            hasher.update(&self.out);
        }
        let objects = self.next_id - 1;
        let length = self.written + self.out.len() as u64;
        match self.version {
            LENGTHS_VERSION => write_trailer_v5(&mut self.out, objects, length, table, self.checksum.take()),
            _ => write_trailer(&mut self.out, objects, length, self.checksum.take(), false),
        }
        if let Some(sink) = self.sink.as_mut() {
            sink(&self.out)?;
            self.written += self.out.len() as u64;
            self.out.clear();
        }
        let total = self.written + self.out.len() as u64;
        self.progress.finished(Some(total));
        let cuts = self.cut_report();
        Ok((self.out, total, cuts))
    }

    /// Writes a queued object (its trait, for a user-trait field, was checked when it was met).
    fn shared_object(&mut self, shared: &SharedObject, id: u32) -> Result<(), EncodeError> {
        // Checked before reading: the root may be borrowed or locked by the caller (a `Mutex`
        // would deadlock), and is in any case not to be written twice.
        if let Some((root, type_name)) = self.root_by_reference {
            if shared.contains(root) {
                return Err(EncodeError::RootBehindPointer { type_name });
            }
        }
        let mut result = Ok(());
        shared
            .read(|object| {
                let rtti = object.rtti();
                self.current = (shared.addr(), Some(rtti));
                result = self.object(object, rtti, id);
            })
            .map_err(|source| EncodeError::Pointee { instance: id, source })?;
        self.current.0 = 0;
        result
    }

    /// After `shared`, an object in the identity map, is written: its identity is forgotten if
    /// every pointer to it has been met (the count includes the handle the encoder held while it
    /// waited).
    fn written(&mut self, shared: &SharedObject) {
        let address = shared.addr();
        if let Entry::Occupied(mut seen) = self.ids.entry(address) {
            let pointers = shared.pointer_count().saturating_sub(1);
            let seen_now = seen.get_mut();
            seen_now.set_written();
            if seen_now.met as usize >= pointers {
                seen.remove();
            }
        }
    }

    #[inline]
    fn object_done(&mut self) {
        self.progress.object_done(self.written + self.out.len() as u64, false);
    }

    /// Hands the buffer to the sink once it holds the flush threshold.
    #[inline]
    fn maybe_flush(&mut self) -> Result<(), EncodeError> {
        if self.out.len() >= self.flush_threshold {
            self.flush()?;
        }
        Ok(())
    }

    #[cold]
    fn flush(&mut self) -> Result<(), EncodeError> {
        if let Some(sink) = self.sink.as_mut() {
            if let Some(hasher) = self.checksum.as_mut() {
                hasher.update(&self.out);
            }
            sink(&self.out)?;
            self.written += self.out.len() as u64;
            self.out.clear();
        }
        Ok(())
    }

    /// Every section of `object` (its own type, then each base), each with its type header and
    /// fields. `instance` is 0 for an object embedded by value, which then ends with a terminator.
    ///
    /// The sections come from the one walk (`rtti::visit`); what is done in each is the encoder's
    /// own, on the hot path: the header, the hooks, then the fields through the code the derive
    /// generated for the type where there is some (callgrind, `profile_level 10000 3 decode`:
    /// the walked fields below cost the encode 13.5% more instructions, 76.1M against 67.0M, and
    /// the decode 14.3%), else through their descriptors, then the kept unknown fields with the
    /// stored descriptions a save needs (`kept.rs`).
    fn object(&mut self, object: &dyn Reflectable, own: &'static RttiType, instance: u32) -> Result<(), EncodeError> {
        // A version 5 object is held whole until its length is known; so is any embedded one.
        let flushes = instance != 0 && self.version != LENGTHS_VERSION;
        let mut length = None;
        for visit::Section { depth, rtti, object: section } in visit::sections_from(own, object) {
            self.out.type_header(TypeHeader { instance, base: depth > 0, type_id: rtti.id() });
            if depth == 0 && instance != 0 && self.version == LENGTHS_VERSION {
                length = Some(LengthSlot::reserve(&mut self.out));
            }
            self.note_type(rtti);
            rtti.hooks().serialization_started(section, self.context);
            let fields = match rtti.is_enum() {
                false => rtti.fields(),
                true => self.variant_tag(rtti, section)?,
            };
            match rtti.generated_encode().filter(|_| self.generated) {
                Some(encode) => {
                    encode(section, &mut FieldWriter::new(self, fields, flushes))
                        .map_err(|error| error.within(rtti.name()))?;
                }
                None => {
                    for field in fields {
                        self.field(field, section).map_err(|error| error.within(rtti.name(), field.name()))?;
                        if flushes {
                            self.maybe_flush()?;
                        }
                    }
                }
            }
            if rtti.keeps_unknown_fields() {
                self.kept_fields(rtti, section)?;
            }
            rtti.hooks().serialization_ended(section, self.context);
        }
        if let Some(length) = length {
            length.fill(&mut self.out).map_err(|length| EncodeError::ObjectTooLarge { instance, length })?;
        }
        if instance == 0 {
            self.out.terminator();
        } else {
            self.maybe_flush()?;
        }
        Ok(())
    }

    /// Records that the stream holds a section of `rtti`, for the schema table. The format's
    /// built-in containers are described by the fields that hold them, not in the table.
    #[inline]
    fn note_type(&mut self, rtti: &'static RttiType) {
        if !self.seen_types.insert(rtti) {
            return;
        }
        // Lists and maps share one ID across their instantiations, so no one entry describes
        // them: FORMAT.md fixes their layout, and the fields holding them say the rest.
        if !matches!(rtti.id(), LIST_TYPE_ID | MAP_TYPE_ID) {
            self.types.push(rtti);
        }
    }

    /// Writes the variant tag of `object`, an enum, and returns the fields of its variant.
    fn variant_tag(
        &mut self,
        rtti: &'static RttiType,
        object: &dyn Reflectable,
    ) -> Result<&'static [RttiField], EncodeError> {
        let variant = rtti.active_variant(object).ok_or(EncodeError::UnknownVariant { type_name: rtti.name() })?;
        self.out.variant_tag(variant.id());
        Ok(variant.fields())
    }

    /// One field: its header (from the shape computed when the type was built), the count of an
    /// array, then the elements. Inlined into the per-section loop, its one hot caller (the kept
    /// fields' writer, `kept.rs`, calls it too, which would otherwise keep it out of line). A
    /// derived type's generated code (`generated.rs`) writes its fields through the same
    /// [`begin_field`], [`end_field`] and element functions.
    #[inline(always)]
    fn field(&mut self, field: &'static RttiField, owner: &dyn Reflectable) -> Result<(), FieldFailure> {
        let (start, at) = begin_field(&mut self.out, field);
        let count = match field.access() {
            FieldAccess::Plain(access) => access.write(owner, &mut self.out)?,
            FieldAccess::Embedded(access) => {
                self.enter_embedded()?;
                let mut count = 0;
                let mut result = Ok(());
                let check = field.trait_check();
                let visited = access.for_each(owner, &mut |value| {
                    count += 1;
                    if result.is_ok() {
                        result = self.embedded_element(check, value);
                    }
                });
                self.depth -= 1;
                visited?;
                result?;
                count
            }
            FieldAccess::Pointer(access) => {
                let mut count = 0;
                let mut result = Ok(());
                let check = field.trait_check();
                let may_cut = access.is_weak() && self.strong.is_some();
                access.for_each(owner, &mut |identity, pointers, handle| {
                    count += 1;
                    if result.is_ok() {
                        result = self.pointer_element(field, may_cut, check, identity, pointers, handle);
                    } else {
                        self.out.extend_from_slice(&NULL_INSTANCE.to_le_bytes());
                    }
                })?;
                result?;
                count
            }
        };
        Ok(end_field(&mut self.out, field, start, at, count)?)
    }

    /// One level deeper into objects held by value, refused past the depth limit (the caller
    /// takes `depth` back down).
    #[inline]
    fn enter_embedded(&mut self) -> Result<(), FieldFailure> {
        if self.depth >= self.limits.max_depth {
            return Err(EncodeError::TooDeep { limit: self.limits.max_depth }.into());
        }
        self.depth += 1;
        Ok(())
    }

    /// One element of an embedded field: the object with its sections and terminator, or the
    /// null type header of an empty slot.
    #[inline]
    fn embedded_element(
        &mut self,
        check: Option<&TraitCheck>,
        value: Option<&dyn Reflectable>,
    ) -> Result<(), FieldFailure> {
        match value {
            Some(value) => {
                let rtti = value.rtti();
                self.check_object(check, rtti)?;
                Ok(self.object(value, rtti, 0)?)
            }
            None => {
                self.out.empty_slot();
                Ok(())
            }
        }
    }

    /// One element of a pointer field: the instance ID of its target (null for none), the target
    /// queued when first met. `may_cut`: the field holds `Weak`s and a subtree is being saved.
    #[inline]
    fn pointer_element(
        &mut self,
        field: &'static RttiField,
        may_cut: bool,
        check: Option<&TraitCheck>,
        identity: Option<usize>,
        pointers: usize,
        handle: &dyn Fn() -> Option<SharedObject>,
    ) -> Result<(), FieldFailure> {
        let id = match identity {
            // A `Weak` leading out of a subtree to an asset is not cut: the asset's reference
            // names it for any reader.
            Some(identity) if may_cut && self.is_cut(identity) => match handle() {
                Some(shared) if asset_of(field, &shared, self.root_by_reference, None)?.is_some() => {
                    self.pointer(identity, pointers, handle, check, field)?
                }
                _ => self.cut(identity, handle, check, field)?,
            },
            Some(identity) => self.pointer(identity, pointers, handle, check, field)?,
            None => NULL_INSTANCE,
        };
        self.out.extend_from_slice(&id.to_le_bytes());
        Ok(())
    }

    /// The instance ID a pointer to the object at `identity` is written as, queueing the object
    /// when first seen; `pointers` is how many pointers lead to it, `check` the field's when it
    /// declares a user trait object. An object behind its only pointer is never met again, so it
    /// stays out of the identity map, and an object leaves the map once its last pointer is met:
    /// the map holds only objects really shared and still to be met again, which keeps its
    /// memory and hashing small.
    #[inline]
    fn pointer(
        &mut self,
        identity: usize,
        pointers: usize,
        handle: &dyn Fn() -> Option<SharedObject>,
        check: Option<&TraitCheck>,
        field: &'static RttiField,
    ) -> Result<u32, FieldFailure> {
        let slot = if pointers <= 1 {
            None
        } else {
            // One hash per pointer: the entry serves the lookup, the insertion and the removal.
            match self.ids.entry(identity) {
                Entry::Occupied(mut known) => {
                    let seen = known.get_mut();
                    let id = seen.id();
                    seen.met = seen.met.saturating_add(1);
                    // While it waits, the encoder's own handle is one of the pointers.
                    if !seen.is_waiting() && seen.met as usize >= pointers {
                        known.remove();
                    }
                    if let Some(check) = check {
                        self.check_pointee(identity, handle, check)?;
                    }
                    return Ok(id);
                }
                Entry::Vacant(slot) => Some(slot),
            }
        };
        let Some(shared) = handle() else { return Ok(NULL_INSTANCE) };
        // A new target's trait is checked now, while its handle is at hand: the queue keeps no
        // note of the field that met it (that would make each waiting object larger).
        let seen = match check {
            Some(check) => check_target(&mut self.trait_checks, self.registry, check, &shared, self.root_by_reference)?,
            None => None,
        };
        if let Some((rtti, key)) = asset_of(field, &shared, self.root_by_reference, seen)? {
            let id = self.external(StubKey::Asset(key), rtti)?;
            // Every pointer to the asset names this one stub.
            self.ids.insert(identity, Seen::kept(id));
            return Ok(id);
        }
        let id = self.next_id;
        if id > MAX_INSTANCE_ID {
            return Err(EncodeError::TooManyObjects { limit: MAX_INSTANCE_ID }.into());
        }
        self.next_id += 1;
        let tagged = if slot.is_some() { id | TRACKED } else { id };
        if let Some(slot) = slot {
            slot.insert(Seen::waiting(id));
        }
        self.pending.add_object(shared, tagged);
        Ok(id)
    }

    /// Queues an external reference stub of `key` for an object of `rtti`; returns its instance
    /// ID. An asset's type gets a schema table entry, so a reader without the program can name
    /// it.
    pub(super) fn external(&mut self, key: StubKey, rtti: &'static RttiType) -> Result<u32, EncodeError> {
        let id = self.next_id;
        if id > MAX_INSTANCE_ID {
            return Err(EncodeError::TooManyObjects { limit: MAX_INSTANCE_ID });
        }
        self.next_id += 1;
        if matches!(key, StubKey::Asset(_)) {
            // With its bases: a table entry names its base, which must have one too.
            rtti.chain().for_each(|rtti| self.note_type(rtti));
        }
        self.pending.add_external(id, key, rtti.id());
        Ok(id)
    }

    /// Refuses an object by value in a user-trait field that the registry cannot cast back.
    #[inline]
    fn check_object(&mut self, check: Option<&TraitCheck>, rtti: &'static RttiType) -> Result<(), FieldFailure> {
        match check {
            Some(check) => self.trait_checks.check(self.registry, check, rtti),
            None => Ok(()),
        }
    }

    /// Refuses the target of a pointer in a user-trait field that the registry cannot cast back.
    /// Finding its type reads it; the object being written is already read (a `Mutex` would
    /// deadlock), and a root passed by reference is refused when written.
    fn check_pointee(
        &mut self,
        identity: usize,
        handle: &dyn Fn() -> Option<SharedObject>,
        check: &TraitCheck,
    ) -> Result<(), FieldFailure> {
        match self.current {
            (current, Some(rtti)) if current == identity => self.trait_checks.check(self.registry, check, rtti),
            _ => handle().map_or(Ok(()), |shared| {
                check_target(&mut self.trait_checks, self.registry, check, &shared, self.root_by_reference).map(drop)
            }),
        }
    }
}

/// Writes `field`'s header and, for an array, a count placeholder; returns where the field starts
/// and where the count goes.
#[inline(always)]
pub(super) fn begin_field(out: &mut Vec<u8>, field: &RttiField) -> (usize, Option<usize>) {
    let header = FieldHeader::of(field);
    let start = out.len();
    out.field_header(header);
    let at = header.shape.array.then(|| {
        out.extend_from_slice(&[0; 4]);
        out.len() - 4
    });
    (start, at)
}

/// Finishes a field [`begin_field`] started, once its `count` elements are written: the count
/// goes into its placeholder. A single plain field with no value (a kept field its stored object
/// lacked) is taken out again, as the stream it came from left it out.
#[inline(always)]
pub(super) fn end_field(
    out: &mut Vec<u8>,
    field: &RttiField,
    start: usize,
    at: Option<usize>,
    count: usize,
) -> Result<(), EncodeError> {
    match at {
        Some(at) => {
            let count = u32::try_from(count).map_err(|_| EncodeError::TooManyElements { count })?;
            out[at..at + 4].copy_from_slice(&count.to_le_bytes());
        }
        None if count == 0 && field.kind() == FieldKind::Plain => out.truncate(start),
        None => {}
    }
    Ok(())
}

/// Refuses the object `shared` holds when the registry cannot cast it back into `check`'s trait;
/// returns its type. A root passed by reference is not read (the caller may hold it borrowed or
/// locked): it is refused when written.
fn check_target(
    checks: &mut TraitChecks,
    registry: &Registry,
    check: &TraitCheck,
    shared: &SharedObject,
    root_by_reference: Option<(usize, &'static str)>,
) -> Result<Option<&'static RttiType>, FieldFailure> {
    if root_by_reference.is_some_and(|(root, _)| shared.contains(root)) {
        return Ok(None);
    }
    let rtti = shared.read(|object| object.rtti())?;
    checks.check(registry, check, rtti)?;
    Ok(Some(rtti))
}

/// The type and key of `shared`, the new target of a pointer in `field`, when it is an asset:
/// known from the field's declared type (cached in the field) without reading the target, or for
/// a trait object from `seen`, its type when the caller read it already, else read here. The
/// root passed by reference is never read (it is refused when written).
#[inline]
fn asset_of(
    field: &'static RttiField,
    shared: &SharedObject,
    root_by_reference: Option<(usize, &'static str)>,
    seen: Option<&'static RttiType>,
) -> Result<Option<(&'static RttiType, AssetKey)>, FieldError> {
    let is_root = || root_by_reference.is_some_and(|(root, _)| shared.contains(root));
    let rtti = match (field.declared_asset(), seen) {
        (Some(DeclaredAsset::NotAsset), _) => return Ok(None),
        (Some(DeclaredAsset::Asset(declared)), _) => declared,
        (None, Some(seen)) if !seen.is_asset() => return Ok(None),
        (None, Some(seen)) => seen,
        (None, None) if is_root() => return Ok(None),
        (None, None) => shared.read(|object| object.rtti())?,
    };
    // Pointers to the root are never references (and reading it could deadlock).
    if !rtti.is_asset() || is_root() {
        return Ok(None);
    }
    Ok(shared.read(|object| rtti.asset_key(object))?.map(|key| (rtti, key)))
}

const _: () = assert!(MAX_INSTANCE_ID < TRACKED, "instance IDs leave the tracked bit free");

/// An object in the identity map: its instance ID, whether it still waits to be written (the
/// encoder then holds one more handle to it), and how many pointers to it were met. Eight bytes:
/// the map can hold a million entries on a large level.
#[derive(Clone, Copy)]
pub(super) struct Seen {
    /// The instance ID (30 bits), and [`Seen::WAITING`].
    id_waiting: u32,
    met: u32,
}

impl Seen {
    /// Set while the object waits to be written; instance IDs never reach this bit.
    const WAITING: u32 = 1 << 31;

    /// An object just met for the first time, through one pointer.
    fn waiting(id: u32) -> Seen {
        Seen { id_waiting: id | Self::WAITING, met: 1 }
    }

    /// An entry that is never forgotten: the root passed as a handle, an external reference
    /// stub, or a target cut to null.
    pub(super) fn kept(id: u32) -> Seen {
        Seen { id_waiting: id | Self::WAITING, met: 0 }
    }

    pub(super) fn id(self) -> u32 {
        self.id_waiting & !Self::WAITING
    }

    fn is_waiting(self) -> bool {
        self.id_waiting & Self::WAITING != 0
    }

    fn set_written(&mut self) {
        self.id_waiting &= !Self::WAITING;
    }
}

const _: () = assert!(MAX_INSTANCE_ID < Seen::WAITING, "the waiting bit is outside every instance ID");

/// Why one field could not be written: its own access failed (the caller names the field), or
/// something inside it that already carries its context.
enum FieldFailure {
    Access(FieldError),
    Encode(EncodeError),
    /// An object in a user-trait field that the registry cannot cast back.
    Unregistered {
        concrete: &'static str,
        trait_name: &'static str,
    },
}

impl From<FieldError> for FieldFailure {
    fn from(error: FieldError) -> Self {
        FieldFailure::Access(error)
    }
}

impl From<EncodeError> for FieldFailure {
    fn from(error: EncodeError) -> Self {
        FieldFailure::Encode(error)
    }
}

impl FieldFailure {
    fn within(self, type_name: &'static str, field: &'static str) -> EncodeError {
        match self {
            FieldFailure::Access(source) => EncodeError::Field { type_name, field, source },
            FieldFailure::Encode(error) => error,
            FieldFailure::Unregistered { concrete, trait_name } => {
                EncodeError::UnregisteredTraitImpl { type_name, field, concrete, trait_name }
            }
        }
    }
}
