//! Whole graphs to and from files: [`BinarySerializer::save`] through [`write_atomically`], and
//! [`BinarySerializer::load`].

use super::{
    write_atomically, BinarySerializer, DecodeError, DecodeErrorKind, DecodeReport, DecodeTarget, EncodeError,
    SubtreeReport,
};
use crate::rtti::AsRoot;
use std::fs;
use std::io;
use std::path::Path;

impl BinarySerializer<'_> {
    /// Saves the graph from `root` (an object by reference, or the shared handle a root lives
    /// in; see [`AsRoot`]) to `path`. Returns the file size. Saves are atomic (see
    /// [`write_atomically`]): the file holds the old graph or the new one, never a part, and a
    /// save killed midway leaves no temporary file behind on Linux (elsewhere on unix, the next
    /// save to the same path removes it). Files carry a checksum unless
    /// [`checksum`](Self::checksum) says otherwise. Saving one entity of a scene saves the scene
    /// its `Weak` parent leads to, unless [`weak_pointers`](Self::weak_pointers) says otherwise:
    /// [`save_subtree`](Self::save_subtree) saves the entity alone and says what it cut.
    pub fn save<R: AsRoot + ?Sized>(&self, root: &R, path: impl AsRef<Path>) -> Result<u64, EncodeError> {
        let file = BinarySerializer { checksum: Some(self.checksum.unwrap_or(true)), ..*self };
        write_atomically(path.as_ref(), |writer| file.encode_to_writer(root, writer))
    }

    /// [`encode_subtree`](Self::encode_subtree) saved to `path` as [`save`](Self::save) saves:
    /// atomically, with a checksum. Returns the file size and what was cut.
    pub fn save_subtree<R: AsRoot + ?Sized>(
        &self,
        root: &R,
        path: impl AsRef<Path>,
    ) -> Result<(u64, SubtreeReport), EncodeError> {
        let subtree = BinarySerializer { checksum: Some(self.checksum.unwrap_or(true)), ..self.cutting() };
        write_atomically(path.as_ref(), |writer| subtree.write_to(root, writer))
    }

    /// Loads a graph from `path` into `T` (see [`decode`](Self::decode)); what the load lost is
    /// logged with the path.
    pub fn load<T: DecodeTarget>(&self, path: impl AsRef<Path>) -> Result<T, DecodeError> {
        let path = path.as_ref();
        self.decode_logged(&read(path)?, &path.display())
    }

    /// [`load`](Self::load), with a report of what the load skipped, converted or dropped (see
    /// [`DecodeReport`]): what a game logs when it opens an old save.
    pub fn load_with_report<T: DecodeTarget>(&self, path: impl AsRef<Path>) -> Result<(T, DecodeReport), DecodeError> {
        self.decode_with_report(&read(path.as_ref())?)
    }
}

/// The file's bytes; an error names the path and keeps the I/O error's kind.
fn read(path: &Path) -> Result<Vec<u8>, DecodeError> {
    fs::read(path).map_err(|error| {
        let error = io::Error::new(error.kind(), format!("{}: {error}", path.display()));
        DecodeError::new(DecodeErrorKind::Io(error), None)
    })
}
