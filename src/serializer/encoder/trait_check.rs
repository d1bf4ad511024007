//! The encode-time check that every object in a trait-object field (`Box<dyn Reflectable>`,
//! `Rc<RefCell<dyn Component>>`) is of a type a reader with the serializer's registry creates by
//! its ID and casts back into that trait object: a decoder could not rebuild it otherwise, and it
//! would vanish on load. Only generic instantiations can be missing from a registry that
//! `inventory` filled (each other derived type registers itself), and only those a registered
//! type does not hold (`Registry::register` adds the held ones).

use super::FieldFailure;
use crate::field::TraitCheck;
use crate::rtti::{Registry, RttiType, TypeSet};
use crate::wire::error::EncodeError;
use std::any::TypeId;

/// The types found castable, per trait object, so that each (type, trait) pair costs one
/// registry lookup per encode and then a bit test.
#[derive(Default)]
pub(super) struct TraitChecks {
    passed: Vec<(Option<TypeId>, TypeSet)>,
}

impl TraitChecks {
    /// Refuses an object of type `rtti` in a field checked by `check` when `registry` cannot
    /// cast it back.
    #[inline]
    pub(super) fn check(
        &mut self,
        registry: &Registry,
        check: &TraitCheck,
        rtti: &'static RttiType,
    ) -> Result<(), FieldFailure> {
        let known = self.passed.iter().position(|(to, _)| *to == check.to);
        if known.is_some_and(|index| self.passed[index].1.contains(rtti)) {
            return Ok(());
        }
        if rtti.is_instantiation() && registry.get(rtti.id()).is_none() {
            return Err(EncodeError::UnregisteredType { type_name: rtti.name(), id: rtti.id() }.into());
        }
        if check.to.is_some_and(|to| !registry.casts().casts_into(rtti.rust_type(), to)) {
            return Err(FieldFailure::Unregistered { concrete: rtti.name(), trait_name: check.trait_name });
        }
        let index = known.unwrap_or_else(|| {
            self.passed.push((check.to, TypeSet::default()));
            self.passed.len() - 1
        });
        self.passed[index].1.insert(rtti);
        Ok(())
    }
}
