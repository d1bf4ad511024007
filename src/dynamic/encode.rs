//! Writing a [`DynamicGraph`] back: instance `i + 1` is the graph's `objects[i]`, and any object a
//! pointer reaches that the graph does not list is numbered after them, in the order first met.
//! Objects are written in the encoder's depth-first order (FORMAT.md, "Object order"): the root,
//! then the objects it leads to (each followed by what it leads to in turn); listed objects no
//! pointer reaches come after, in instance order. Then the stored schema table with an entry
//! added for each type it lacks, and the trailer of the graph's format version. A graph read from
//! a stream that this version wrote, and not changed, writes that stream's bytes again.

use super::object::{DynamicObject, DynamicRef, DynamicValue};
use super::DynamicGraph;
use crate::containers::FIRST_RESERVED_TYPE_ID;
use crate::field::FieldError;
use crate::schema::fingerprint_table::write_fingerprint_table;
use crate::schema::table::{for_version, schema_entry};
use crate::schema::TypeSchema;
use crate::serializer::{EncodeError, Limits};
use crate::wire::format::{FieldHeader, TypeHeader, LENGTHS_VERSION, MAX_INSTANCE_ID, SCHEMA_MARK, SCHEMA_VERSION};
use crate::wire::{write_stream_header, write_trailer, write_trailer_v5, LengthSlot, WireWrite};
use ahash::{AHashMap, AHashSet};
use std::rc::Rc;

struct Writer<'g> {
    out: Vec<u8>,
    /// Instance number by object address.
    instances: AHashMap<usize, u32>,
    /// Every object to write, in instance order.
    queue: Vec<DynamicRef>,
    /// Whether each object of `queue` is written or waits to be.
    scheduled: Vec<bool>,
    /// Instances waiting to be written, the next one last.
    pending: Vec<u32>,
    /// The instances the object being written leads to first, in the order met.
    fresh: Vec<u32>,
    /// Types the stored table describes, and types described since (with their schemas, in the
    /// order first met).
    described: AHashSet<u32>,
    added: Vec<Rc<TypeSchema>>,
    graph: &'g DynamicGraph,
    max_depth: usize,
}

pub(super) fn encode(graph: &DynamicGraph) -> Result<Vec<u8>, EncodeError> {
    let mut writer = Writer {
        out: Vec::new(),
        instances: AHashMap::with_capacity(graph.objects.len()),
        queue: Vec::with_capacity(graph.objects.len()),
        scheduled: Vec::with_capacity(graph.objects.len()),
        pending: Vec::new(),
        fresh: Vec::new(),
        described: graph
            .table
            .iter()
            .flatten()
            .map(|entry| entry.type_id)
            .chain(graph.fingerprints.iter().flatten().map(|&(type_id, _)| type_id))
            .collect(),
        added: Vec::new(),
        graph,
        max_depth: Limits::default().max_depth,
    };
    graph.objects.iter().try_for_each(|object| writer.instance(object).map(drop))?;
    write_stream_header(&mut writer.out, graph.version);
    // Listed objects no pointer reaches start a walk of their own, in instance order.
    let mut unreached = 0;
    while let Some(start) = writer.scheduled[unreached..].iter().position(|&scheduled| !scheduled) {
        unreached += start;
        writer.scheduled[unreached] = true;
        writer.pending.push(unreached as u32 + 1);
        while let Some(instance) = writer.pending.pop() {
            let object = writer.queue[instance as usize - 1].clone();
            let object =
                object.0.try_borrow().map_err(|_| EncodeError::Pointee { instance, source: FieldError::Borrowed })?;
            writer.object(&object, instance, 0)?;
            writer.pending.extend(writer.fresh.drain(..).rev());
        }
    }
    let next = writer.queue.len();
    let table = writer.out.len();
    if graph.version >= SCHEMA_VERSION {
        writer.table();
    }
    let mut out = writer.out;
    if graph.version >= 2 {
        let checksum = graph.checksum.then(|| {
            let mut hasher = crc32fast::Hasher::new();
            hasher.update(&out);
            hasher
        });
        let length = out.len() as u64;
        match graph.version {
            LENGTHS_VERSION => write_trailer_v5(&mut out, next as u32, length, (table as u64, table), checksum),
            _ => write_trailer(&mut out, next as u32, length, checksum, false),
        }
    }
    Ok(out)
}

impl Writer<'_> {
    /// The instance number of `object`, numbering it (and queueing it) when first met.
    fn instance(&mut self, object: &DynamicRef) -> Result<u32, EncodeError> {
        let next = self.queue.len() as u32 + 1;
        let instance = *self.instances.entry(object.addr()).or_insert(next);
        if instance == next {
            if next > MAX_INSTANCE_ID {
                return Err(EncodeError::TooManyObjects { limit: MAX_INSTANCE_ID });
            }
            self.queue.push(object.clone());
            self.scheduled.push(false);
        }
        Ok(instance)
    }

    /// The instance number a pointer to `target` is written as; a target not written and not
    /// waiting yet is written after the object being written, with the others it leads to.
    fn target(&mut self, target: &DynamicRef) -> Result<u32, EncodeError> {
        let instance = self.instance(target)?;
        let scheduled = &mut self.scheduled[instance as usize - 1];
        if !*scheduled {
            *scheduled = true;
            self.fresh.push(instance);
        }
        Ok(instance)
    }

    fn object(&mut self, object: &DynamicObject, instance: u32, depth: usize) -> Result<(), EncodeError> {
        if depth > self.max_depth {
            return Err(EncodeError::TooDeep { limit: self.max_depth });
        }
        let mut length = None;
        for (index, section) in object.sections().iter().enumerate() {
            self.out.type_header(TypeHeader { instance, base: index > 0, type_id: section.type_id() });
            if index == 0 && instance != 0 && self.graph.version == LENGTHS_VERSION {
                length = Some(LengthSlot::reserve(&mut self.out));
            }
            if self.graph.version >= SCHEMA_VERSION && section.type_id() < FIRST_RESERVED_TYPE_ID {
                let type_id = section.type_id();
                match section.schema() {
                    Some(schema) if self.described.insert(type_id) => self.added.push(schema.clone()),
                    // A fingerprint table lists every type: one not listed needs its schema.
                    None if self.graph.fingerprints.is_some() && !self.described.contains(&type_id) => {
                        return Err(EncodeError::NoFingerprint { type_id });
                    }
                    _ => {}
                }
            }
            for field in section.fields() {
                self.out.field_header(FieldHeader { id: field.id(), shape: field.shape() });
                let count = match field.value() {
                    DynamicValue::Plain(bytes) => bytes.count(),
                    DynamicValue::Embedded(objects) => objects.len(),
                    DynamicValue::Pointer(targets) => targets.len(),
                };
                if !field.shape().array && count != 1 {
                    // A single field holds one element; an edit left another number.
                    return Err(EncodeError::TooManyElements { count });
                }
                if field.shape().array {
                    let count = u32::try_from(count).map_err(|_| EncodeError::TooManyElements { count })?;
                    self.out.extend_from_slice(&count.to_le_bytes());
                }
                match field.value() {
                    DynamicValue::Plain(bytes) => self.out.extend_from_slice(bytes.bytes()),
                    DynamicValue::Pointer(targets) => {
                        for target in targets {
                            let id = match target {
                                Some(target) => self.target(target)?,
                                None => 0,
                            };
                            self.out.extend_from_slice(&id.to_le_bytes());
                        }
                    }
                    DynamicValue::Embedded(objects) => {
                        for object in objects {
                            match object {
                                Some(object) => {
                                    self.object(object, 0, depth + 1)?;
                                    self.out.terminator();
                                }
                                None => self.out.empty_slot(),
                            }
                        }
                    }
                }
            }
        }
        if let Some(length) = length {
            length.fill(&mut self.out).map_err(|length| EncodeError::ObjectTooLarge { instance, length })?;
        }
        Ok(())
    }

    fn table(&mut self) {
        if let Some(stored) = &self.graph.fingerprints {
            let added = self.added.iter().map(|schema| (schema.id, schema.fingerprint));
            let entries: Vec<(u32, u64)> = stored.iter().copied().chain(added).collect();
            write_fingerprint_table(entries.into_iter(), &mut self.out);
            return;
        }
        let start = self.out.len();
        let stored = self.graph.table.as_deref().unwrap_or_default();
        self.out.extend_from_slice(&SCHEMA_MARK.to_le_bytes());
        self.out.extend_from_slice(&((stored.len() + self.added.len()) as u32).to_le_bytes());
        // The stored entries are of the graph's version (its stream's, or its document's); only
        // the types added since are described anew, as that version describes them.
        let version = self.graph.version;
        stored.iter().for_each(|entry| self.out.extend_from_slice(&entry.bytes));
        for schema in &self.added {
            let entry = schema_entry(schema);
            self.out.extend_from_slice(&for_version(&entry, version));
        }
        let length = (self.out.len() - start + 4) as u32;
        self.out.extend_from_slice(&length.to_le_bytes());
    }
}
