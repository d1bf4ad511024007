//! External references (`FORMAT.md`, "External references"): a top-level stub standing for an
//! object a subtree save cut off, re-linked to an object of the caller's through the
//! serializer's [`Relink`] function.
//!
//! A re-linked object is the caller's: it is held as [`State::External`], which teardown and the
//! orphan sweep never clear, and no strong edge is recorded for it (it is not the decoded
//! graph's to free, and its own pointers were never decoded). An unresolved one (no function,
//! a stub without its key or type, the function returning `None`) is [`State::Missing`]:
//! pointers to it load as null, as they do for an unknown type. An object that does not fit a
//! pointer field is refused by the field's `store`, like any misfit target.

use super::{Decoder, State};
use crate::plain::Reader;
use crate::serializer::external::{read_stub, Relink};
use crate::wire::error::DecodeError;

impl<'d> Decoder<'d, '_> {
    /// Re-links external references through `relink` (none: they load as null).
    pub(crate) fn with_relink(mut self, relink: Option<Relink<'d>>) -> Self {
        self.relink = relink;
        self
    }

    /// Resolves top-level object `index`, an external reference stub: to the caller's object, or
    /// to nothing. This is where an unresolved external reference is decided.
    pub(super) fn resolve_external(&mut self, index: usize) -> Result<(), DecodeError> {
        let target = match self.relink {
            Some(relink) => {
                let mut reader = Reader::new(self.data);
                reader.skip(self.entries[index].offset)?;
                read_stub(&mut reader, self.depth, &self.limits)?.and_then(|(key, type_id)| relink(key, type_id))
            }
            None => None,
        };
        self.states[index] = match target {
            Some(target) => State::External(target),
            None => State::Missing,
        };
        Ok(())
    }
}
