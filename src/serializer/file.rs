//! Files: saving never destroys the previous file if anything fails midway, and a save killed
//! midway leaves no temporary file behind for good.

use super::{BinarySerializer, DecodeError, DecodeErrorKind, EncodeError, Root};
use crate::field::SharedHandle;
use crate::rtti::Reflectable;
use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `path` through `write`, atomically: at every instant `path` holds either its complete old
/// content or the complete new one, whatever fails and whenever the process dies.
///
/// The bytes go to a temporary file in the same folder, which is flushed, synced and then renamed
/// over `path`; the folder is synced after the rename. If `write` or any step fails, `path` is left
/// exactly as it was and the temporary file is removed.
///
/// What a save killed midway (a crash, `SIGKILL`) leaves:
///
/// - On Linux the temporary is an anonymous file (`O_TMPFILE`), which the kernel frees when the
///   process dies. It gets a name, `.{name}.{pid}.{counter}.tmp`, only once it is complete and
///   synced, for the instant before the rename.
/// - Where the platform or the file system has no anonymous files, the temporary is that named
///   file from the start, and a killed save leaves it behind.
///
/// The saved file is a new file, with mode `0o666` less the umask (as [`File::create`] gives),
/// not the old file's mode.
pub fn write_atomically<T>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<T, EncodeError>,
) -> Result<T, EncodeError> {
    write_through(path, Temporary::Anonymous, write)
}

/// How [`write_through`] makes its temporary file.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Temporary {
    /// An anonymous file where the platform and the file system have them, else a named file.
    Anonymous,
    /// A named file (the fallback), whatever the platform has. Chosen by the tests only.
    #[cfg_attr(not(test), allow(dead_code))]
    Named,
}

fn write_through<T>(
    path: &Path,
    temporary: Temporary,
    write: impl FnOnce(&mut dyn Write) -> Result<T, EncodeError>,
) -> Result<T, EncodeError> {
    #[cfg(target_os = "linux")]
    if temporary == Temporary::Anonymous {
        // Any refusal (EOPNOTSUPP, EISDIR, EINVAL from a file system without O_TMPFILE, or an
        // error the named path will report in its own words) falls back to a named file.
        if let Ok(file) = anonymous::create(folder(path)) {
            return anonymous::write(file, path, write);
        }
    }
    let _ = temporary;
    write_named(path, write)
}

/// The fallback: the temporary is a named file from the start, removed if anything fails.
fn write_named<T>(path: &Path, write: impl FnOnce(&mut dyn Write) -> Result<T, EncodeError>) -> Result<T, EncodeError> {
    let (file, temporary) = create_named(path)?;
    let result: Result<T, EncodeError> = (|| {
        let mut writer = BufWriter::new(file);
        let value = write(&mut writer)?;
        let file = writer.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        drop(file);
        Ok(value)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    let value = result?;
    rename_over(&temporary, path)?;
    Ok(value)
}

/// Creates a new named temporary beside `path`. A name that is taken (by the temporary of a dead
/// process that had this process's ID) is skipped.
fn create_named(path: &Path) -> io::Result<(File, PathBuf)> {
    let mut attempts = 0;
    loop {
        let temporary = temporary_path(path);
        match OpenOptions::new().write(true).create_new(true).open(&temporary) {
            Ok(file) => return Ok((file, temporary)),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists && attempts < NAME_ATTEMPTS => attempts += 1,
            Err(error) => return Err(error),
        }
    }
}

/// How many taken temporary names a save skips before it gives up.
const NAME_ATTEMPTS: u32 = 64;

/// Renames the complete, synced `temporary` over `path` and syncs the folder; removes `temporary`
/// if the rename fails.
fn rename_over(temporary: &Path, path: &Path) -> io::Result<()> {
    if let Err(error) = fs::rename(temporary, path) {
        let _ = fs::remove_file(temporary);
        return Err(error);
    }
    sync_folder(path);
    Ok(())
}

/// Temporaries as anonymous files: Linux `O_TMPFILE`, named with `linkat` once complete.
#[cfg(target_os = "linux")]
mod anonymous {
    use super::{create_named, rename_over, temporary_path, EncodeError, NAME_ATTEMPTS};
    use rustix::fs::{linkat, open, AtFlags, Mode, OFlags, CWD};
    use rustix::io::Errno;
    use std::fs::File;
    use std::io::{self, BufWriter, Seek, SeekFrom, Write};
    use std::os::fd::AsRawFd;
    use std::path::{Path, PathBuf};

    /// An anonymous file in `folder`, readable too (for [`name_by_copy`]), with mode `0o666` less
    /// the umask, as `File::create` would give.
    pub(super) fn create(folder: &Path) -> io::Result<File> {
        let flags = OFlags::RDWR | OFlags::TMPFILE | OFlags::CLOEXEC;
        Ok(File::from(open(folder, flags, Mode::from_raw_mode(0o666))?))
    }

    pub(super) fn write<T>(
        file: File,
        path: &Path,
        write: impl FnOnce(&mut dyn Write) -> Result<T, EncodeError>,
    ) -> Result<T, EncodeError> {
        // Until it is linked, the file has no name: on any error (or death) it just goes away.
        let mut writer = BufWriter::new(file);
        let value = write(&mut writer)?;
        let mut file = writer.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        let temporary = match link(&file, path) {
            Ok(temporary) => temporary,
            Err(_) => name_by_copy(&mut file, path)?,
        };
        drop(file);
        // A death between the link and the rename leaves the named temporary.
        rename_over(&temporary, path)?;
        Ok(value)
    }

    /// Gives the anonymous `file` a fresh temporary name beside `path`. A name that is taken is
    /// skipped, as in [`create_named`].
    fn link(file: &File, path: &Path) -> io::Result<PathBuf> {
        let mut attempts = 0;
        loop {
            let temporary = temporary_path(path);
            match link_as(file, &temporary) {
                Ok(()) => return Ok(temporary),
                Err(Errno::EXIST) if attempts < NAME_ATTEMPTS => attempts += 1,
                Err(error) => return Err(error.into()),
            }
        }
    }

    /// Links `file` as `name`: through `/proc/self/fd` (allowed to anyone), else with
    /// `AT_EMPTY_PATH` (which needs `CAP_DAC_READ_SEARCH`, but not `/proc`).
    fn link_as(file: &File, name: &Path) -> Result<(), Errno> {
        let by_proc = format!("/proc/self/fd/{}", file.as_raw_fd());
        match linkat(CWD, by_proc.as_str(), CWD, name, AtFlags::SYMLINK_FOLLOW) {
            Err(error) if error != Errno::EXIST => match linkat(file, "", CWD, name, AtFlags::EMPTY_PATH) {
                Err(second) if second != Errno::EXIST => Err(error),
                other => other,
            },
            other => other,
        }
    }

    /// When the anonymous file cannot be linked (no `/proc` and no capability, say), copies it to
    /// a named temporary beside `path`, synced, and returns that name.
    pub(super) fn name_by_copy(file: &mut File, path: &Path) -> io::Result<PathBuf> {
        let (named, temporary) = create_named(path)?;
        let copied = (|| {
            file.seek(SeekFrom::Start(0))?;
            let mut writer = BufWriter::new(named);
            io::copy(file, &mut writer)?;
            writer.into_inner().map_err(io::IntoInnerError::into_error)?.sync_all()
        })();
        match copied {
            Ok(()) => Ok(temporary),
            Err(error) => {
                let _ = std::fs::remove_file(&temporary);
                Err(error)
            }
        }
    }
}

/// The counter in the names of this process's temporaries.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh name beside `path`: hidden, with the process ID and a counter,
/// `.{name}.{pid}.{counter}.tmp`.
fn temporary_path(path: &Path) -> PathBuf {
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut name = OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".{}.{unique}.tmp", std::process::id()));
    path.with_file_name(name)
}

/// The folder holding `path` (the current one for a bare file name).
fn folder(path: &Path) -> &Path {
    path.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Makes the rename durable where the platform allows syncing a folder (best effort).
fn sync_folder(path: &Path) {
    if let Ok(folder) = File::open(folder(path)) {
        let _ = folder.sync_all();
    }
}

/// Encodes to and decodes from files. Saves are atomic: the file holds the old graph or the new one,
/// never a part, and a save killed midway leaves no temporary file behind on Linux. See
/// [`write_atomically`].
#[derive(Clone, Copy, Default)]
pub struct FileSerializer<'r> {
    core: BinarySerializer<'r>,
}

impl FileSerializer<'static> {
    /// A serializer decoding through the global registry.
    pub fn new() -> Self {
        FileSerializer { core: BinarySerializer::new() }
    }
}

impl<'r> FileSerializer<'r> {
    /// A serializer over a configured core.
    pub fn with(core: BinarySerializer<'r>) -> Self {
        FileSerializer { core }
    }

    /// Saves the graph from `root` to `path`, atomically (see [`write_atomically`]). Returns the
    /// file size.
    pub fn encode(&self, root: &dyn Reflectable, path: impl AsRef<Path>) -> Result<u64, EncodeError> {
        self.encode_root(Root::Object(root), path)
    }

    /// Saves the graph from a root held in a shared allocation.
    pub fn encode_shared<H: SharedHandle>(&self, root: &H, path: impl AsRef<Path>) -> Result<u64, EncodeError> {
        self.encode_root(Root::shared(root), path)
    }

    fn encode_root(&self, root: Root<'_>, path: impl AsRef<Path>) -> Result<u64, EncodeError> {
        write_atomically(path.as_ref(), |writer| self.core.encode_to_writer(root, writer, &mut ()))
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

fn read(path: &Path) -> Result<Vec<u8>, DecodeError> {
    fs::read(path).map_err(|error| DecodeError::new(0, DecodeErrorKind::Io(format!("{}: {error}", path.display()))))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder under the system's temp folder, removed on drop.
    struct Folder(PathBuf);

    impl Folder {
        fn new(name: &str) -> Self {
            let path = std::env::temp_dir().join(format!("reflectable-unit-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&path);
            fs::create_dir_all(&path).unwrap();
            Folder(path)
        }
        fn entries(&self) -> Vec<String> {
            let mut names: Vec<String> =
                fs::read_dir(&self.0).unwrap().map(|entry| entry.unwrap().file_name().into_string().unwrap()).collect();
            names.sort();
            names
        }
    }

    impl Drop for Folder {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn save(path: &Path, temporary: Temporary, bytes: &[u8]) -> Result<(), EncodeError> {
        write_through(path, temporary, |writer| Ok(writer.write_all(bytes)?))
    }

    #[test]
    fn the_named_fallback_replaces_the_file_whole_or_not_at_all() {
        let folder = Folder::new("named");
        let path = folder.0.join("level.bin");
        save(&path, Temporary::Named, b"the old file").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"the old file");
        assert_eq!(folder.entries(), ["level.bin"]);

        let error = write_through(&path, Temporary::Named, |writer| -> Result<(), EncodeError> {
            writer.write_all(&[7; 100_000])?;
            writer.flush()?;
            Err(io::Error::other("disk full").into())
        })
        .unwrap_err();
        assert!(matches!(error, EncodeError::Io(_)), "{error}");
        assert_eq!(fs::read(&path).unwrap(), b"the old file");
        assert_eq!(folder.entries(), ["level.bin"], "the failed save removed its temporary");

        save(&path, Temporary::Named, b"the new file").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"the new file");
        assert_eq!(folder.entries(), ["level.bin"]);
    }

    #[test]
    fn a_bare_file_name_saves_in_the_current_folder() {
        assert_eq!(folder(Path::new("level.bin")), Path::new("."));
        assert_eq!(folder(Path::new("a/level.bin")), Path::new("a"));
    }

    #[cfg(unix)]
    #[test]
    fn both_ways_give_the_mode_file_create_gives() {
        use std::os::unix::fs::PermissionsExt;
        let folder = Folder::new("mode");
        let mode = |name: &str| fs::metadata(folder.0.join(name)).unwrap().permissions().mode() & 0o7777;
        File::create(folder.0.join("reference")).unwrap();
        save(&folder.0.join("anonymous"), Temporary::Anonymous, b"a").unwrap();
        save(&folder.0.join("named"), Temporary::Named, b"n").unwrap();
        assert_eq!(mode("anonymous"), mode("reference"));
        assert_eq!(mode("named"), mode("reference"));
    }

    #[test]
    fn names_taken_by_temporaries_of_an_earlier_process_with_this_id_are_skipped() {
        let folder = Folder::new("taken");
        let path = folder.0.join("level.bin");
        // The names this process would give its next temporaries, taken as if by a process that
        // had the same ID and died: they are skipped.
        let next = COUNTER.load(Ordering::Relaxed);
        let taken: Vec<String> =
            (next..next + 16).map(|n| format!(".level.bin.{}.{n}.tmp", std::process::id())).collect();
        for name in &taken {
            fs::write(folder.0.join(name), b"half a save").unwrap();
        }
        for temporary in [Temporary::Anonymous, Temporary::Named] {
            save(&path, temporary, format!("{temporary:?}").as_bytes()).unwrap();
            assert_eq!(fs::read(&path).unwrap(), format!("{temporary:?}").as_bytes());
        }
        let mut expected = taken.clone();
        expected.push("level.bin".into());
        expected.sort();
        assert_eq!(folder.entries(), expected);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn an_anonymous_file_that_cannot_be_linked_is_copied_to_a_named_temporary() {
        let folder = Folder::new("copy");
        let path = folder.0.join("level.bin");
        let mut file = anonymous::create(&folder.0).unwrap();
        let bytes: Vec<u8> = (0..300_000u32).map(|n| n as u8).collect();
        file.write_all(&bytes).unwrap();
        assert!(folder.entries().is_empty(), "an anonymous file has no name");
        let temporary = anonymous::name_by_copy(&mut file, &path).unwrap();
        assert_eq!(fs::read(&temporary).unwrap(), bytes);
        let name = temporary.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with(&format!(".level.bin.{}.", std::process::id())), "{name}");
        assert_eq!(folder.entries(), [name]);
    }
}
