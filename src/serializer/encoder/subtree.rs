//! Subtree saves ([`WeakPointers`] other than `Follow`): a `Weak` whose target the stream will not
//! hold anyway is cut, written as null or as an external reference stub.
//!
//! The encoder streams, so when it meets a `Weak` it cannot know whether a strong pointer met
//! later reaches the same object. A walk before encoding collects the identities of everything
//! the root reaches through strong pointers and objects held by value: exactly what the stream
//! will hold. Only subtree saves pay for that walk.

use super::{Encoder, FieldFailure, Seen};
use crate::field::{Declared, ElemShape, RttiField, SharedObject, TraitCheck};
use crate::rtti::graph::strong_identities;
use crate::rtti::Root;
use crate::serializer::external::StubKey;
use crate::serializer::{Cut, SubtreeReport, WeakPointers};
use crate::wire::error::EncodeError;
use crate::wire::format::NULL_INSTANCE;

impl Encoder<'_, '_, '_> {
    /// For a subtree save, before anything is written: what the stream will hold.
    pub(super) fn find_strong(&mut self, root: &Root<'_>) {
        if matches!(self.weak_pointers, WeakPointers::Follow) {
            return;
        }
        self.strong = Some(match root {
            Root::Object(object) => {
                let address = *object as *const dyn crate::rtti::Reflectable as *const () as usize;
                strong_identities(Some(*object), None, Some(address))
            }
            Root::Shared(shared) => strong_identities(None, Some(shared), None),
        });
    }

    /// `true` when a `Weak` to `identity` is cut: a subtree save, and a target the stream will
    /// not hold. This is where a cut weak pointer is decided.
    #[inline]
    pub(super) fn is_cut(&self, identity: usize) -> bool {
        self.strong.as_ref().is_some_and(|strong| !strong.contains(&identity))
    }

    /// The instance ID a cut `Weak` is written as: null, or the stub of an external reference
    /// (one per target, however many `Weak`s lead to it).
    pub(super) fn cut(
        &mut self,
        identity: usize,
        handle: &dyn Fn() -> Option<SharedObject>,
        check: Option<&TraitCheck>,
        field: &'static RttiField,
    ) -> Result<u32, FieldFailure> {
        let id = self.cut_to(identity, handle, check)?;
        let at = match self.cuts.iter().position(|(known, ..)| std::ptr::eq(*known, field)) {
            Some(at) => at,
            None => {
                self.cuts.push((field, 0, 0));
                self.cuts.len() - 1
            }
        };
        match id {
            NULL_INSTANCE => self.cuts[at].1 += 1,
            _ => self.cuts[at].2 += 1,
        }
        Ok(id)
    }

    /// What [`cut`](Self::cut) writes.
    fn cut_to(
        &mut self,
        identity: usize,
        handle: &dyn Fn() -> Option<SharedObject>,
        check: Option<&TraitCheck>,
    ) -> Result<u32, FieldFailure> {
        // The root passed by reference is in the stream but cannot be pointed at: an error, as
        // without cutting. Checked before reading: the caller may hold it locked.
        if let Some((root, type_name)) = self.root_by_reference {
            if handle().is_some_and(|shared| shared.contains(root)) {
                return Err(EncodeError::RootBehindPointer { type_name }.into());
            }
        }
        let WeakPointers::External(key_of) = self.weak_pointers else { return Ok(NULL_INSTANCE) };
        // A stub written before, or a target the key function gave no key (remembered as null).
        if let Some(id) = self.ids.get(identity).map(|seen| seen.id()) {
            // Met again, perhaps through a field of another trait: that trait is checked too.
            if let (Some(check), true) = (check, id != NULL_INSTANCE) {
                self.check_pointee(identity, handle, check)?;
            }
            return Ok(id);
        }
        let Some(shared) = handle() else { return Ok(NULL_INSTANCE) };
        let (key, rtti) = shared.read(|object| (key_of(object), object.rtti()))?;
        let id = match key {
            None => NULL_INSTANCE,
            Some(key) => {
                // The caller re-links the target into the field: the registry must cast it there.
                if let Some(check) = check {
                    self.trait_checks.check(self.registry, check, rtti)?;
                }
                self.external(StubKey::Cut(key), rtti)?
            }
        };
        self.ids.insert(identity, Seen::kept(id));
        Ok(id)
    }
}

impl Encoder<'_, '_, '_> {
    /// The cuts, each field named with the type whose section holds it (a field kept from
    /// another stream belongs to no type the stream notes: `"?"`).
    pub(super) fn cut_report(&self) -> SubtreeReport {
        let cuts = self.cuts.iter().map(|&(field, nulled, external)| {
            let target = match field.shape().elem {
                ElemShape::Pointer { declared: Declared::Type(rtti), .. } => rtti().name().to_owned(),
                ElemShape::Pointer { declared: Declared::Trait(name), .. } => format!("dyn {name}"),
                _ => String::from("?"),
            };
            let (type_name, field_name) = self.holders(field);
            Cut { type_name, field_name, target, nulled, external }
        });
        SubtreeReport::new(cuts.collect())
    }

    /// The type and field that hold `field`: its own type's, or, for the field of a map or list
    /// (a built-in type the schema table leaves out), the fields of the stream's types that hold
    /// that container, by value and through nested containers. Fields holding containers of one
    /// type share their descriptors, so every such field is named (`friends or enemies`).
    fn holders(&self, field: &'static RttiField) -> (&'static str, String) {
        // Whether `within`, a field, holds `field` through built-in containers.
        fn reaches(within: &'static RttiField, field: &'static RttiField, depth: usize) -> bool {
            if std::ptr::eq(within, field) {
                return true;
            }
            match within.shape().elem {
                ElemShape::Embedded(Declared::Type(container)) if depth < 8 => {
                    let container = container();
                    container.id() >= crate::containers::FIRST_RESERVED_TYPE_ID
                        && container.fields().iter().any(|inner| reaches(inner, field, depth + 1))
                }
                _ => false,
            }
        }
        let mut found: Vec<(&'static str, &'static str)> = Vec::new();
        for &rtti in &self.types {
            for own in rtti.every_field() {
                if reaches(own, field, 0) && !found.contains(&(rtti.name(), own.name())) {
                    found.push((rtti.name(), own.name()));
                }
            }
        }
        let Some(&(type_name, _)) = found.first() else { return ("?", field.name().to_owned()) };
        let names: Vec<String> = found
            .iter()
            .map(|&(owner, name)| if owner == type_name { name.to_owned() } else { format!("{owner}.{name}") })
            .collect();
        (type_name, names.join(" or "))
    }
}
