//! Immutable pointees (`Rc<T>`, `Arc<T>`) must be complete before they are shared, so they are
//! built dependencies first. A pre-scan of each object finds the immutable objects its pointer
//! fields (and those of the objects it holds by value) need; an explicit stack builds them, so a
//! long chain of `Rc`s costs heap, not call stack. A cycle among immutable objects cannot exist in
//! memory: the edge that closes it decodes as null.

use super::{finish_hooks, matches_wire, Decoder, State};
use crate::field::{Family, FieldAccess};
use crate::plain::Reader;
use crate::rtti::{Reflectable, RttiType};
use crate::serializer::error::{DecodeError, DecodeErrorKind};
use crate::serializer::format::{FieldHeader, NULL_TYPE_ID};
use crate::serializer::skip::{
    check_depth, corrupt, field_count, next_field, next_section, skip_field, skip_fields, skip_sections, type_header,
};

impl Decoder<'_, '_> {
    /// Builds immutable object `index` (already created as `object`) in `family`, after every
    /// immutable object it needs.
    pub(super) fn build_immutable(
        &mut self,
        index: usize,
        family: Family,
        object: Box<dyn Reflectable>,
    ) -> Result<(), DecodeError> {
        self.states[index] = State::Building;
        // Each frame: the object, its family, and whether its needs were scheduled yet.
        let mut stack: Vec<(usize, Family, Box<dyn Reflectable>, bool)> = vec![(index, family, object, false)];
        while let Some(frame) = stack.last_mut() {
            if !frame.3 {
                frame.3 = true;
                let current = frame.0;
                for (need, need_family) in self.immutable_needs(current)? {
                    if !matches!(self.states[need], State::Pending) {
                        continue;
                    }
                    let entry = self.entries[need];
                    let rtti = self.registry.get(entry.type_id);
                    if let Some(rtti) = rtti {
                        self.charge(entry.offset, rtti.instance_size() + super::SHARED_OVERHEAD)?;
                    }
                    match rtti.and_then(RttiType::create) {
                        Some(object) => {
                            self.states[need] = State::Building;
                            stack.push((need, need_family, object, false));
                        }
                        None => self.states[need] = State::Missing,
                    }
                }
                continue;
            }
            let (current, family, mut object, _) = stack.pop().expect("the loop saw a frame");
            self.object_body(&mut *object, current)?;
            self.hooks_ran |= finish_hooks(&mut *object, self.context);
            let rtti = object.rtti();
            let shared = rtti.make_shared(family, object).expect("a fresh object always fits its own type");
            self.states[current] = State::Ready(shared);
        }
        Ok(())
    }

    /// The objects that immutable pointer fields of top-level object `index` point at, with the
    /// family each is wanted in.
    fn immutable_needs(&self, index: usize) -> Result<Vec<(usize, Family)>, DecodeError> {
        let mut reader = Reader::new(self.data);
        reader.skip(self.entries[index].offset)?;
        let header = type_header(&mut reader)?;
        let rtti = self.registry.get(header.type_id);
        let mut needs = Vec::new();
        self.scan_sections(&mut reader, rtti, header.instance, false, self.depth, &mut needs)?;
        Ok(needs)
    }

    /// Walks an object's sections as decoding would, collecting immutable pointer targets.
    fn scan_sections(
        &self,
        reader: &mut Reader<'_>,
        rtti: Option<&'static RttiType>,
        instance: u32,
        embedded: bool,
        depth: usize,
        needs: &mut Vec<(usize, Family)>,
    ) -> Result<(), DecodeError> {
        let Some(own) = rtti else { return skip_sections(reader, instance, embedded, depth, &self.limits) };
        let mut section = Some(own);
        loop {
            let stop = match section {
                Some(rtti) => self.scan_fields(reader, rtti, depth, needs)?,
                None => skip_fields(reader, depth, &self.limits)?,
            };
            match next_section(reader, stop, instance, embedded)? {
                Some(header) => section = own.chain().find(|rtti| rtti.id() == header.type_id),
                None => return Ok(()),
            }
        }
    }

    fn scan_fields(
        &self,
        reader: &mut Reader<'_>,
        rtti: &'static RttiType,
        depth: usize,
        needs: &mut Vec<(usize, Family)>,
    ) -> Result<super::Stop, DecodeError> {
        loop {
            let header: FieldHeader = match next_field(reader)? {
                Ok(header) => header,
                Err(stop) => return Ok(stop),
            };
            let field = rtti.field(header.id).filter(|field| matches_wire(field, &header));
            match field.map(|field| field.access()) {
                Some(FieldAccess::Pointer(pointers)) if !pointers.family().is_mutable() => {
                    for _ in 0..field_count(reader, &header, &self.limits)? {
                        let offset = reader.offset();
                        let id = reader.read_u32()? as usize;
                        if id > self.entries.len() {
                            let kind = DecodeErrorKind::UnknownInstance { id: id as u32, count: self.entries.len() };
                            return Err(DecodeError::new(offset, kind));
                        }
                        if id != 0 {
                            needs.push((id - 1, pointers.family()));
                        }
                    }
                }
                Some(FieldAccess::Embedded(_)) => {
                    for _ in 0..field_count(reader, &header, &self.limits)? {
                        check_depth(reader, depth + 1, &self.limits)?;
                        let offset = reader.offset();
                        let embedded = type_header(reader)?;
                        if embedded.instance != 0 || embedded.base {
                            return Err(corrupt(
                                offset,
                                "an embedded object must start with instance 0 and no base bit",
                            ));
                        }
                        if embedded.type_id != NULL_TYPE_ID {
                            let rtti = self.registry.get(embedded.type_id);
                            self.scan_sections(reader, rtti, 0, true, depth + 1, needs)?;
                        }
                    }
                }
                // Plain, mutable pointers, unknown or migrated fields: nothing immutable to build.
                _ => skip_field(reader, &header, depth, &self.limits)?,
            }
        }
    }
}
