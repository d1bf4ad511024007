//! Files: saving never destroys the previous file if anything fails midway.

use super::{AsRoot, BinarySerializer, DecodeError, DecodeErrorKind, EncodeError};
use crate::field::SharedHandle;
use crate::rtti::Reflectable;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `path` through `write`, atomically: the bytes go to a new temporary file in the same
/// folder, which is flushed, synced and then renamed over `path`. If `write` or any step fails,
/// the temporary file is removed and `path` is left exactly as it was.
pub fn write_atomically<T>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<T, EncodeError>,
) -> Result<T, EncodeError> {
    let temporary = temporary_path(path);
    let file = OpenOptions::new().write(true).create_new(true).open(&temporary)?;
    let result = (|| {
        let mut writer = BufWriter::new(file);
        let value = write(&mut writer)?;
        let file = writer.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temporary, path)?;
        Ok(value)
    })();
    match result {
        Ok(value) => {
            sync_folder(path);
            Ok(value)
        }
        Err(error) => {
            let _ = fs::remove_file(&temporary);
            Err(error)
        }
    }
}

/// A fresh name beside `path`: hidden, with the process ID and a counter.
fn temporary_path(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}.{unique}.tmp", std::process::id()))
}

/// Makes the rename durable where the platform allows syncing a folder (best effort).
fn sync_folder(path: &Path) {
    let folder = path.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if let Ok(folder) = File::open(folder) {
        let _ = folder.sync_all();
    }
}

/// Encodes to and decodes from files.
#[derive(Clone, Copy, Default)]
pub struct FileSerializer<'r> {
    core: BinarySerializer<'r>,
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
}

/// The file's bytes; an error names the path and keeps the I/O error's kind.
fn read(path: &Path) -> Result<Vec<u8>, DecodeError> {
    fs::read(path).map_err(|error| {
        let error = io::Error::new(error.kind(), format!("{}: {error}", path.display()));
        DecodeError::new(DecodeErrorKind::Io(error), None)
    })
}
