//! [`TypeSet`]: a set of type descriptors, a bit per [`RttiType::ordinal`], for the questions
//! asked once per object on the encode and decode paths ("met this type yet?", "does it read as
//! it is?"), where a hash lookup would cost more than the answer.

use super::RttiType;

#[derive(Default)]
pub(crate) struct TypeSet {
    bits: Vec<u64>,
}

impl TypeSet {
    /// `true` when `rtti` is in the set.
    #[inline]
    pub(crate) fn contains(&self, rtti: &RttiType) -> bool {
        let ordinal = rtti.ordinal() as usize;
        self.bits.get(ordinal / 64).is_some_and(|bits| bits & (1 << (ordinal % 64)) != 0)
    }

    /// Adds `rtti`; `true` when it was not in the set yet.
    #[inline]
    pub(crate) fn insert(&mut self, rtti: &RttiType) -> bool {
        if self.contains(rtti) {
            return false;
        }
        let ordinal = rtti.ordinal() as usize;
        if ordinal / 64 >= self.bits.len() {
            self.bits.resize(ordinal / 64 + 1, 0);
        }
        self.bits[ordinal / 64] |= 1 << (ordinal % 64);
        true
    }
}
