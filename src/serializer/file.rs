//! [`FileSerializer`]: whole graphs to and from files, saved through [`write_atomically`].

use super::{write_atomically, BinarySerializer, DecodeError, DecodeErrorKind, DecodeReport, EncodeError};
use crate::field::SharedHandle;
use crate::rtti::AsRoot;
use crate::rtti::Reflectable;
use std::fs;
use std::io;
use std::path::Path;

/// Encodes to and decodes from files. Saves are atomic: the file holds the old graph or the new one,
/// never a part, and a save killed midway leaves no temporary file behind on Linux (elsewhere on
/// unix, the next save to the same path removes it). See [`write_atomically`].
#[derive(Clone, Copy)]
pub struct FileSerializer<'r> {
    core: BinarySerializer<'r>,
}

impl Default for FileSerializer<'static> {
    /// As [`FileSerializer::new`]: files carry a checksum.
    fn default() -> Self {
        Self::new()
    }
}

impl FileSerializer<'static> {
    /// A serializer decoding through the global registry, writing files with a checksum (see
    /// [`BinarySerializer::checksum`]).
    pub fn new() -> Self {
        FileSerializer { core: BinarySerializer::new().checksum(true) }
    }
}

impl<'r> FileSerializer<'r> {
    /// A serializer over a configured core.
    pub fn with(core: BinarySerializer<'r>) -> Self {
        FileSerializer { core }
    }

    /// Saves the graph from `root` (an object by reference, or the shared handle a root lives
    /// in; see [`AsRoot`]) to `path`, atomically (see [`write_atomically`]). Returns the file size.
    pub fn encode<R: AsRoot + ?Sized>(&self, root: &R, path: impl AsRef<Path>) -> Result<u64, EncodeError> {
        write_atomically(path.as_ref(), |writer| self.core.encode_to_writer(root.as_root(), writer, &mut ()))
    }

    /// Loads a graph, the root by value.
    pub fn decode(&self, path: impl AsRef<Path>) -> Result<Box<dyn Reflectable>, DecodeError> {
        self.core.decode(&read(path.as_ref())?, &mut ())
    }

    /// Loads a graph whose root is a `T`.
    pub fn decode_as<T: Reflectable>(&self, path: impl AsRef<Path>) -> Result<T, DecodeError> {
        self.core.decode_as(&read(path.as_ref())?, &mut ())
    }

    /// Loads a graph with the root in a shared allocation `H`.
    pub fn decode_shared<H: SharedHandle>(&self, path: impl AsRef<Path>) -> Result<H, DecodeError> {
        self.core.decode_shared(&read(path.as_ref())?, &mut ())
    }

    /// Loads a graph whose root is a `T`, with a report of what the load skipped, converted or
    /// dropped (see [`DecodeReport`]): what a game logs when it opens an old save.
    pub fn decode_as_with_report<T: Reflectable>(
        &self,
        path: impl AsRef<Path>,
    ) -> Result<(T, DecodeReport), DecodeError> {
        self.core.decode_as_with_report(&read(path.as_ref())?, &mut ())
    }

    /// Loads a graph with the root in a shared allocation `H`, with a report of what the load
    /// skipped, converted or dropped.
    pub fn decode_shared_with_report<H: SharedHandle>(
        &self,
        path: impl AsRef<Path>,
    ) -> Result<(H, DecodeReport), DecodeError> {
        self.core.decode_shared_with_report(&read(path.as_ref())?, &mut ())
    }
}

/// The file's bytes; an error names the path and keeps the I/O error's kind.
fn read(path: &Path) -> Result<Vec<u8>, DecodeError> {
    fs::read(path).map_err(|error| {
        let error = io::Error::new(error.kind(), format!("{}: {error}", path.display()));
        DecodeError::new(DecodeErrorKind::Io(error), None)
    })
}
