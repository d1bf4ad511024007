//! The encode-time check that every object in a user-trait field (`Box<dyn Component>`,
//! `Rc<RefCell<dyn Component>>`) is of a type the registry casts back into that trait object: a
//! decoder could not rebuild it otherwise, and it would vanish on load.

use super::FieldFailure;
use crate::field::TraitCheck;
use crate::rtti::{Registry, RttiType};
use std::any::TypeId;

/// The types found castable, per trait object: a bit per [`RttiType::ordinal`], so that each
/// (type, trait) pair costs one registry lookup per encode and then a bit test.
#[derive(Default)]
pub(super) struct TraitChecks {
    passed: Vec<(TypeId, Vec<u64>)>,
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
        let ordinal = rtti.ordinal() as usize;
        let (word, bit) = (ordinal / 64, 1u64 << (ordinal % 64));
        let known = self.passed.iter().position(|(to, _)| *to == check.to);
        if let Some(index) = known {
            if self.passed[index].1.get(word).is_some_and(|bits| bits & bit != 0) {
                return Ok(());
            }
        }
        if !registry.casts().casts_into(rtti.rust_type(), check.to) {
            return Err(FieldFailure::Unregistered { concrete: rtti.name(), trait_name: check.trait_name });
        }
        let index = known.unwrap_or_else(|| {
            self.passed.push((check.to, Vec::new()));
            self.passed.len() - 1
        });
        let bits = &mut self.passed[index].1;
        if word >= bits.len() {
            bits.resize(word + 1, 0);
        }
        bits[word] |= bit;
        Ok(())
    }
}
