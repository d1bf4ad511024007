//! The encoder: writes an object graph in the layout of `FORMAT.md`.
//!
//! The root is instance 1; every object reached through a pointer gets the next instance ID when
//! first seen and is queued; the queue is drained in order, so instance IDs appear in the stream as
//! 1, 2, 3, ... and each object is written once. Identity is the address of the shared allocation.
//! Total work is linear in the graph (one hash lookup per pointer, no rescans).

use super::error::EncodeError;
use super::format::{
    FieldHeader, TypeHeader, WireKind, MAGIC, MAX_INSTANCE_ID, NULL_INSTANCE, NULL_TYPE_ID, TERMINATOR, VERSION,
};
use super::Limits;
use crate::field::{FieldAccess, FieldError, RttiField, SharedObject};
use crate::rtti::{Reflectable, RttiType};
use ahash::AHashMap;
use std::any::Any;
use std::collections::hash_map::Entry;
use std::collections::VecDeque;
use std::io;

/// The object a stream starts from.
pub enum Root<'a> {
    /// An object owned by the caller. Pointers back to it cannot be expressed; save it through
    /// [`Root::Shared`] if the graph points at it.
    Object(&'a dyn Reflectable),
    /// An object in a shared allocation: pointers to it inside the graph resolve to the root.
    Shared(SharedObject),
}

impl<'a> From<&'a dyn Reflectable> for Root<'a> {
    fn from(object: &'a dyn Reflectable) -> Self {
        Root::Object(object)
    }
}

impl From<SharedObject> for Root<'_> {
    fn from(shared: SharedObject) -> Self {
        Root::Shared(shared)
    }
}

/// Receives finished chunks of the stream.
pub(crate) type Sink<'s> = &'s mut dyn FnMut(&[u8]) -> io::Result<()>;

/// One encoding run.
pub(crate) struct Encoder<'s, 'c> {
    out: Vec<u8>,
    sink: Option<Sink<'s>>,
    flush_threshold: usize,
    written: u64,
    ids: AHashMap<usize, u32>,
    queue: VecDeque<SharedObject>,
    next_id: u32,
    depth: usize,
    limits: Limits,
    context: &'c mut dyn Any,
}

impl<'s, 'c> Encoder<'s, 'c> {
    /// An encoder writing into `out`, handing it to `sink` whenever it holds `flush_threshold`
    /// bytes (no sink: everything stays in `out`).
    pub(crate) fn new(
        out: Vec<u8>,
        sink: Option<Sink<'s>>,
        flush_threshold: usize,
        limits: Limits,
        context: &'c mut dyn Any,
    ) -> Self {
        Encoder {
            out,
            sink,
            flush_threshold,
            written: 0,
            ids: AHashMap::new(),
            queue: VecDeque::new(),
            next_id: 2,
            depth: 0,
            limits,
            context,
        }
    }

    /// Writes the whole graph; returns what is left in the buffer and the total bytes produced.
    pub(crate) fn run(mut self, root: Root<'_>) -> Result<(Vec<u8>, u64), EncodeError> {
        self.out.extend_from_slice(&MAGIC);
        self.out.extend_from_slice(&VERSION.to_le_bytes());
        match root {
            Root::Object(object) => self.object(object, 1)?,
            Root::Shared(shared) => {
                self.ids.insert(shared.addr(), 1);
                self.shared_object(&shared, 1)?;
            }
        }
        let mut id = 1;
        while let Some(shared) = self.queue.pop_front() {
            id += 1;
            self.shared_object(&shared, id)?;
        }
        if let Some(sink) = self.sink.as_mut() {
            if !self.out.is_empty() {
                sink(&self.out)?;
                self.written += self.out.len() as u64;
                self.out.clear();
            }
        }
        let total = self.written + self.out.len() as u64;
        Ok((self.out, total))
    }

    fn shared_object(&mut self, shared: &SharedObject, id: u32) -> Result<(), EncodeError> {
        let mut result = Ok(());
        shared
            .read(|object| result = self.object(object, id))
            .map_err(|source| EncodeError::Pointee { instance: id, source })?;
        result
    }

    fn maybe_flush(&mut self) -> Result<(), EncodeError> {
        if self.out.len() >= self.flush_threshold {
            if let Some(sink) = self.sink.as_mut() {
                sink(&self.out)?;
                self.written += self.out.len() as u64;
                self.out.clear();
            }
        }
        Ok(())
    }

    /// Every section of `object` (its own type, then each base), each with its type header and
    /// fields. `instance` is 0 for an object embedded by value, which then ends with a terminator.
    fn object(&mut self, object: &dyn Reflectable, instance: u32) -> Result<(), EncodeError> {
        let mut section = Some(object);
        let mut base = false;
        while let Some(current) = section {
            let rtti = current.rtti();
            TypeHeader { instance, base, type_id: rtti.id() }.write(&mut self.out);
            rtti.hooks().serialization_started(current, self.context);
            for field in rtti.fields() {
                self.field(rtti, field, current)?;
                if instance != 0 {
                    self.maybe_flush()?;
                }
            }
            rtti.hooks().serialization_ended(current, self.context);
            section = rtti.base_of(current);
            base = true;
        }
        if instance == 0 {
            self.out.extend_from_slice(&TERMINATOR.to_le_bytes());
        } else {
            self.maybe_flush()?;
        }
        Ok(())
    }

    /// Reserves a `u32` count and returns its position.
    fn count_placeholder(&mut self, array: bool) -> Option<usize> {
        array.then(|| {
            self.out.extend_from_slice(&[0; 4]);
            self.out.len() - 4
        })
    }

    fn patch_count(&mut self, at: Option<usize>, count: usize) -> Result<(), EncodeError> {
        if let Some(at) = at {
            let count = u32::try_from(count).map_err(|_| EncodeError::TooManyElements { count })?;
            self.out[at..at + 4].copy_from_slice(&count.to_le_bytes());
        }
        Ok(())
    }

    fn field(&mut self, rtti: &RttiType, field: &RttiField, owner: &dyn Reflectable) -> Result<(), EncodeError> {
        let array = field.is_array();
        match field.access() {
            FieldAccess::Plain(access) => {
                let kind = WireKind::Plain(access.info().static_size.map(|size| size as u8));
                self.out.extend_from_slice(&FieldHeader { id: field.id(), kind, array }.pack().to_le_bytes());
                let at = self.count_placeholder(array);
                let count = access
                    .write(owner, &mut self.out)
                    .map_err(|source| field_error(rtti.name(), field.name(), source))?
                    .unwrap_or(0);
                self.patch_count(at, count)?;
            }
            FieldAccess::Embedded(access) => {
                let header = FieldHeader { id: field.id(), kind: WireKind::Embedded, array };
                self.out.extend_from_slice(&header.pack().to_le_bytes());
                let at = self.count_placeholder(array);
                if self.depth >= self.limits.max_depth {
                    return Err(EncodeError::TooDeep { limit: self.limits.max_depth });
                }
                self.depth += 1;
                let mut count = 0;
                let mut result = Ok(());
                access.for_each(owner, &mut |value| {
                    count += 1;
                    if result.is_ok() {
                        result = match value {
                            Some(value) => self.object(value, 0),
                            None => {
                                TypeHeader { instance: 0, base: false, type_id: NULL_TYPE_ID }.write(&mut self.out);
                                Ok(())
                            }
                        };
                    }
                });
                self.depth -= 1;
                result?;
                self.patch_count(at, count)?;
            }
            FieldAccess::Pointer(access) => {
                let header = FieldHeader { id: field.id(), kind: WireKind::Pointer, array };
                self.out.extend_from_slice(&header.pack().to_le_bytes());
                let at = self.count_placeholder(array);
                let mut count = 0;
                let mut result = Ok(());
                access.for_each(owner, &mut |identity, only_pointer, handle| {
                    count += 1;
                    let id = match identity {
                        Some(identity) => self.instance_for(identity, only_pointer, handle).unwrap_or_else(|error| {
                            result = Err(error);
                            NULL_INSTANCE
                        }),
                        None => NULL_INSTANCE,
                    };
                    self.out.extend_from_slice(&id.to_le_bytes());
                });
                result?;
                self.patch_count(at, count)?;
            }
        }
        Ok(())
    }

    /// The instance ID of the object at `identity`, queueing it when first seen. An object behind
    /// its only pointer is never met again, so it stays out of the identity map: the map holds
    /// only objects that are really shared, which keeps its memory and hashing small.
    fn instance_for(
        &mut self,
        identity: usize,
        only_pointer: bool,
        handle: &dyn Fn() -> Option<SharedObject>,
    ) -> Result<u32, EncodeError> {
        let slot = if only_pointer {
            None
        } else {
            // One hash per pointer: the entry serves both the lookup and the insertion.
            match self.ids.entry(identity) {
                Entry::Occupied(known) => return Ok(*known.get()),
                Entry::Vacant(slot) => Some(slot),
            }
        };
        let Some(shared) = handle() else { return Ok(NULL_INSTANCE) };
        let id = self.next_id;
        if id > MAX_INSTANCE_ID {
            return Err(EncodeError::TooManyObjects { limit: MAX_INSTANCE_ID });
        }
        self.next_id += 1;
        if let Some(slot) = slot {
            slot.insert(id);
        }
        self.queue.push_back(shared);
        Ok(id)
    }
}

fn field_error(type_name: &str, field: &str, source: FieldError) -> EncodeError {
    EncodeError::Field { type_name: type_name.to_owned(), field: field.to_owned(), source }
}
