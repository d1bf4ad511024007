//! Immutable pointees (`Rc<T>`, `Arc<T>`) must be complete before they are shared, so they are
//! built dependencies first. A pre-scan of each object finds the immutable objects its pointer
//! fields (and those of the objects it holds by value) need; an explicit stack builds them, so a
//! long chain of `Rc`s costs heap, not call stack. A cycle among immutable objects cannot exist in
//! memory: the edge that closes it decodes as null.

use super::{Decoder, FieldScope, State};
use crate::field::{Declared, Family, FieldAccess, RttiField};
use crate::plain::Reader;
use crate::rtti::lifecycle::finish_hooks;
use crate::rtti::{Reflectable, RttiType};
use crate::wire::error::DecodeError;
use crate::wire::format::{FieldHeader, NULL_INSTANCE};
use crate::wire::skip::skip_field;
use crate::wire::{check_depth, embedded_header, field_count, walk_object, Item};

/// An immutable object another one needs: its index, the family and whether it is wanted through
/// a `Weak`, and the type the pointer declares.
type Need = (usize, Family, bool, Declared);

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
                let (current, rtti) = (frame.0, frame.2.rtti());
                for (need, need_family, weak, declared) in self.immutable_needs(current, rtti)? {
                    if !matches!(self.states[need], State::Pending) {
                        continue;
                    }
                    // Built for a `Weak`, it may end up held by nothing strong: an orphan the
                    // sweep must look for.
                    self.weak_built |= weak;
                    if weak {
                        self.weak_target(need);
                    }
                    let entry = self.entries[need];
                    if entry.type_id == crate::containers::EXTERNAL_TYPE_ID {
                        self.resolve_external(need)?;
                        continue;
                    }
                    let rtti = self.lookup(entry.type_id, || Some(declared));
                    if let Some(rtti) = rtti {
                        self.charge(entry.offset, rtti.instance_size() + super::SHARED_OVERHEAD)?;
                    }
                    match rtti.and_then(RttiType::create) {
                        Some(object) => {
                            self.states[need] = State::Building;
                            stack.push((need, need_family, object, false));
                        }
                        None => {
                            self.states[need] = State::Missing;
                            self.object_dropped(entry.type_id, rtti.is_some(), entry.offset)?;
                        }
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
    fn immutable_needs(&self, index: usize, rtti: &'static RttiType) -> Result<Vec<Need>, DecodeError> {
        let entry = self.entries[index];
        let mut reader = entry.body(self.data)?;
        let mut needs = Vec::new();
        self.scan_object(&mut reader, Some(rtti), entry.instance(), false, self.depth, &mut needs)?;
        entry.check_end(&reader)?;
        Ok(needs)
    }

    /// Walks an object (its first type header read) as decoding would, collecting the targets of
    /// immutable pointer fields. `rtti` is its type, `None` when unknown (then it is skipped).
    fn scan_object(
        &self,
        reader: &mut Reader<'_>,
        rtti: Option<&'static RttiType>,
        instance: u32,
        embedded: bool,
        depth: usize,
        needs: &mut Vec<Need>,
    ) -> Result<(), DecodeError> {
        let mut section = rtti.map(FieldScope::of);
        walk_object(reader, instance, embedded, |reader, item| match item {
            Item::Section(type_id) => {
                section = rtti.and_then(|own| own.chain().find(|rtti| rtti.id() == type_id)).map(FieldScope::of);
                Ok(())
            }
            Item::Field(header) => match &mut section {
                // The fields that follow are those of the variant the decoder will read them
                // into, migrations included.
                Some(scope) if scope.is_variant_tag(header.id) => {
                    scope.read_variant_tag(reader, &header, None).map(|_| ())
                }
                _ => self.scan_field(reader, section.as_ref(), &header, depth, needs),
            },
        })
    }

    fn scan_field(
        &self,
        reader: &mut Reader<'_>,
        section: Option<&FieldScope>,
        header: &FieldHeader,
        depth: usize,
        needs: &mut Vec<Need>,
    ) -> Result<(), DecodeError> {
        let field = section.and_then(|scope| scope.field(header.id)).filter(|field| field.wire_shape() == header.shape);
        match field.map(RttiField::access) {
            Some(FieldAccess::Pointer(pointers)) if !pointers.family().is_mutable() => {
                for _ in 0..field_count(reader, header, &self.limits)? {
                    let id = self.read_instance(reader)?;
                    if id != NULL_INSTANCE {
                        needs.push((id as usize - 1, pointers.family(), pointers.is_weak(), pointers.declared()));
                    }
                }
                Ok(())
            }
            Some(FieldAccess::Embedded(values)) => {
                for _ in 0..field_count(reader, header, &self.limits)? {
                    check_depth(reader, depth + 1, &self.limits)?;
                    if let Some(type_id) = embedded_header(reader)? {
                        // An abstract or unknown type is skipped by the decoder: nothing under it is needed.
                        let rtti = self.lookup(type_id, || Some(values.declared())).filter(|rtti| !rtti.is_abstract());
                        self.scan_object(reader, rtti, 0, true, depth + 1, needs)?;
                    }
                }
                Ok(())
            }
            // Plain, mutable pointers, unknown or migrated fields: nothing immutable to build.
            _ => skip_field(reader, header, depth, &self.limits),
        }
    }
}
