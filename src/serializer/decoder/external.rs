//! External references (`FORMAT.md`, "External references"): a top-level stub standing for an
//! object a subtree save cut off, re-linked to an object of the caller's through the
//! serializer's [`Relink`] function, or for an asset, found through its [`ResolveAsset`]
//! function.
//!
//! A re-linked object is the caller's: it is held as [`State::External`], which teardown and the
//! orphan sweep never clear, and no strong edge is recorded for it (it is not the decoded
//! graph's to free, and its own pointers were never decoded). An unresolved one (no function,
//! a stub without its key or type, the function returning `None`) is [`State::Missing`]:
//! pointers to it load as null, as they do for an unknown type. An object that does not fit a
//! pointer field is refused by the field's `store`, like any misfit target.

use super::{Decoder, State};
use crate::serializer::external::{read_stub, Relink, ResolveAsset, StubKey};
use crate::serializer::DecodeEvent;
use crate::wire::error::DecodeError;

impl<'d> Decoder<'d, '_> {
    /// Re-links external references through `relink` (none: they load as null).
    pub(crate) fn with_relink(mut self, relink: Option<Relink<'d>>) -> Self {
        self.relink = relink;
        self
    }

    /// Finds assets through `resolve` (none: they load as null, reported).
    pub(crate) fn with_assets(mut self, resolve: Option<ResolveAsset<'d>>) -> Self {
        self.resolve_asset = resolve;
        self
    }

    /// Resolves top-level object `index`, an external reference stub: to the caller's object, or
    /// to nothing. This is where an unresolved external reference is decided; an asset not found
    /// is reported with its key.
    pub(super) fn resolve_external(&mut self, index: usize) -> Result<(), DecodeError> {
        let entry = self.entries[index];
        let offset = entry.offset;
        let mut reader = entry.body(self.data)?;
        let stub = read_stub(&mut reader, entry.instance(), self.depth, &self.limits)?;
        entry.check_end(&reader)?;
        let target = match stub {
            Some((StubKey::Cut(key), type_id)) => self.relink.and_then(|relink| relink(key, type_id)),
            Some((StubKey::Asset(key), type_id)) => {
                let found = self.resolve_asset.and_then(|resolve| resolve(&key, type_id));
                if found.is_none() {
                    let type_name = self.registry.get(type_id).map(|rtti| rtti.name().to_owned());
                    self.record(DecodeEvent::AssetUnresolved { type_id, type_name, key }, 1, offset)?;
                }
                found
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
