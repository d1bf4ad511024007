//! The encode-time check that every object in a trait-object field (`Box<dyn Reflectable>`,
//! `Rc<RefCell<dyn Component>>`) is of a type a reader with the serializer's registry creates by
//! its ID and casts back into that trait object: a decoder could not rebuild it otherwise, and it
//! would vanish on load. From a registry that `inventory` filled, only generic instantiations no
//! registered type holds (`Registry::register` adds the held ones) and `no_register` types can be
//! missing; a registry of the program's own may lack anything.

use super::FieldFailure;
use crate::field::TraitCheck;
use crate::rtti::runtime_object::RuntimeObject;
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
        if check.to.is_some_and(|to| !registry.casts().casts_into(rtti.rust_type(), to)) {
            return Err(FieldFailure::Unregistered { concrete: rtti.name(), trait_name: check.trait_name });
        }
        // Objects of types defined at run time are described by the stream: a reader keeps them.
        if registry.get(rtti.id()).is_none() && rtti.rust_type() != TypeId::of::<RuntimeObject>() {
            let (type_name, rust_name, id) = (rtti.name(), rtti.rust_name(), rtti.id());
            return Err(EncodeError::UnregisteredType { type_name, rust_name, id }.into());
        }
        let index = known.unwrap_or_else(|| {
            self.passed.push((check.to, TypeSet::default()));
            self.passed.len() - 1
        });
        self.passed[index].1.insert(rtti);
        Ok(())
    }
}
