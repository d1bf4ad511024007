//! Atomic file writes: saving never destroys the previous file if anything fails midway, and a
//! save killed midway leaves no temporary file behind for good.

use super::EncodeError;
use std::ffi::{OsStr, OsString};
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
/// A save killed midway (a crash, `SIGKILL`) cannot leave its temporary file behind for good:
///
/// - On Linux the temporary is an anonymous file (`O_TMPFILE`), which the kernel frees when the
///   process dies. It gets a name, `.{name}.{pid}.{counter}.tmp`, only once it is complete and
///   synced, for the instant before the rename.
/// - Where the platform or the file system has no anonymous files, the temporary is that named
///   file from the start.
/// - Before each save, the named temporaries of the same `path` whose process no longer exists
///   are removed: what a killed save left, in the fallback or in that instant. A temporary whose
///   process still runs, or whose ID a new process has taken, is kept. This needs a way to test
///   for a process, which unix systems have; on other platforms (Windows) stale temporaries are
///   kept. Process IDs are those of the saving machine: if several machines or PID namespaces
///   save to one path at once, a save can remove another's temporary and make it fail (with
///   `path` still whole).
///
/// The saved file is a new file, with mode `0o666` less the umask (as [`File::create`] gives),
/// not the old file's mode.
///
/// ```
/// use reflectable::serializer::{write_atomically, BinarySerializer};
/// use std::io::Write;
/// # use reflectable::Reflectable;
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_970_018)]
/// # struct Score { #[rtti(id = 1)] points: u32 }
///
/// let path = std::env::temp_dir().join(format!("score-{}.bin", std::process::id()));
/// let score = Score { points: 9 };
/// write_atomically(&path, |out| BinarySerializer::new().encode_to_writer(&score, out)).unwrap();
/// assert_eq!(reflectable::load::<Score>(&path).unwrap().points, 9);
///
/// // A write that fails midway leaves the old file whole.
/// let failed = write_atomically(&path, |out| {
///     out.write_all(b"half a file")?;
///     Err::<(), _>(std::io::Error::other("disk full").into())
/// });
/// assert!(failed.is_err());
/// assert_eq!(reflectable::load::<Score>(&path).unwrap().points, 9);
/// # std::fs::remove_file(&path).unwrap();
/// ```
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
    remove_stale_temporaries(path);
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
        // A death between the link and the rename leaves the named temporary; the next save to
        // `path` removes it.
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

/// The process ID in `candidate` if it is the name of a temporary of the file named `target`
/// (see [`temporary_path`]).
fn temporary_owner(target: &OsStr, candidate: &OsStr) -> Option<u32> {
    let rest = candidate.as_encoded_bytes().strip_prefix(b".")?;
    let rest = rest.strip_prefix(target.as_encoded_bytes())?.strip_prefix(b".")?.strip_suffix(b".tmp")?;
    let digits = |part: &[u8]| !part.is_empty() && part.iter().all(u8::is_ascii_digit);
    let dot = rest.iter().position(|&byte| byte == b'.')?;
    let (pid, counter) = (&rest[..dot], &rest[dot + 1..]);
    if !digits(pid) || !digits(counter) {
        return None;
    }
    std::str::from_utf8(pid).ok()?.parse().ok()
}

/// Removes the temporaries of `path` whose process no longer exists: what a save killed midway
/// left (best effort: errors are ignored, and nothing is removed where liveness cannot be told).
fn remove_stale_temporaries(path: &Path) {
    let Some(target) = path.file_name() else { return };
    let Ok(entries) = fs::read_dir(folder(path)) else { return };
    for entry in entries.flatten() {
        if let Some(pid) = temporary_owner(target, &entry.file_name()) {
            if process_is_gone(pid) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

/// Whether no process has ID `pid`: `kill(pid, 0)` fails with `ESRCH`. A live process, a zombie,
/// one of another user (`EPERM`) or any other answer counts as present.
#[cfg(unix)]
fn process_is_gone(pid: u32) -> bool {
    use rustix::process::{test_kill_process, Pid};
    let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else { return false };
    test_kill_process(pid) == Err(rustix::io::Errno::SRCH)
}

/// Without a way to test for a process here, every temporary is presumed to be in use.
#[cfg(not(unix))]
fn process_is_gone(_pid: u32) -> bool {
    false
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
        // had the same ID and died: they are not removed (the ID is alive), only skipped.
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

    #[test]
    fn only_the_names_of_the_targets_temporaries_are_read() {
        let owner = |target: &str, candidate: &str| temporary_owner(OsStr::new(target), OsStr::new(candidate));
        assert_eq!(owner("level.bin", ".level.bin.1234.0.tmp"), Some(1234));
        assert_eq!(owner("level.bin", ".level.bin.1.18446744073709551615.tmp"), Some(1));
        assert_eq!(owner("a.5", ".a.5.77.3.tmp"), Some(77));
        assert_eq!(owner("a", ".a.5.77.3.tmp"), None, "the temporary of a.5");
        assert_eq!(owner("a.5", ".a.77.3.tmp"), None, "the temporary of a");
        for candidate in [
            "level.bin.1234.0.tmp",
            ".level.bin.1234.tmp",
            ".level.bin.1234..tmp",
            ".level.bin..0.tmp",
            ".level.bin.+1234.0.tmp",
            ".level.bin.12a4.0.tmp",
            ".level.bin.1234.0.tmp.old",
            ".level.bin.99999999999.0.tmp",
            ".other.bin.1234.0.tmp",
        ] {
            assert_eq!(owner("level.bin", candidate), None, "{candidate}");
        }
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
        let name = temporary.file_name().unwrap();
        assert_eq!(temporary_owner(OsStr::new("level.bin"), name), Some(std::process::id()));
        assert_eq!(folder.entries(), [name.to_str().unwrap()]);
    }

    /// A save killed midway, in a child process: this test binary run again as
    /// `slow_named_save_helper`.
    #[cfg(unix)]
    mod killed {
        use super::{save, Folder};
        use crate::serializer::atomic_write::{temporary_owner, write_through, Temporary};
        use std::ffi::OsStr;
        use std::fs;
        use std::io::{self, BufRead, BufReader, Read, Write};
        use std::path::Path;
        use std::process::{Child, Command, Stdio};
        use std::time::Duration;

        /// The environment variable that makes `slow_named_save_helper` run, naming its file.
        const SLOW_SAVE_PATH: &str = "REFLECTABLE_TEST_SLOW_NAMED_SAVE_PATH";
        /// What `slow_named_save_helper` prints once its save has written its first bytes.
        const SLOW_SAVE_STARTED: &str = "slow named save: bytes written, now blocking";

        /// Not a test: the child process of `a_named_temporary_left_by_a_killed_save_goes_at_the_next_save`.
        #[test]
        #[ignore = "helper process, run by a_named_temporary_left_by_a_killed_save_goes_at_the_next_save"]
        fn slow_named_save_helper() {
            let Some(path) = std::env::var_os(SLOW_SAVE_PATH) else { return };
            let result: Result<(), _> = write_through(Path::new(&path), Temporary::Named, |writer| {
                writer.write_all(&[0xA5; 1 << 20])?;
                writer.flush()?;
                println!("{SLOW_SAVE_STARTED}");
                io::stdout().flush()?;
                std::thread::sleep(Duration::from_secs(60));
                Err(io::Error::other("the parent was to kill this save").into())
            });
            panic!("the slow save was not killed: {result:?}");
        }

        /// A child process, killed and reaped when dropped.
        struct Killed(Child);

        impl Drop for Killed {
            fn drop(&mut self) {
                let _ = self.0.kill();
                let _ = self.0.wait();
            }
        }

        #[test]
        fn a_named_temporary_left_by_a_killed_save_goes_at_the_next_save() {
            let folder = Folder::new("killed-named");
            let path = folder.0.join("level.bin");
            save(&path, Temporary::Named, b"the old file").unwrap();

            let helper = "serializer::atomic_write::tests::killed::slow_named_save_helper";
            let child = Command::new(std::env::current_exe().unwrap())
                .args([helper, "--exact", "--ignored", "--nocapture", "--test-threads=1"])
                .env(SLOW_SAVE_PATH, &path)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut child = Killed(child);
            let stdout = BufReader::new(child.0.stdout.take().unwrap());
            if !stdout.lines().map_while(Result::ok).any(|line| line.ends_with(SLOW_SAVE_STARTED)) {
                let mut stderr = String::new();
                let _ = child.0.stderr.take().unwrap().read_to_string(&mut stderr);
                panic!("the helper did not start its save: {stderr}");
            }
            let pid = child.0.id();
            child.0.kill().unwrap();
            child.0.wait().unwrap();

            let entries = folder.entries();
            assert_eq!(entries.len(), 2, "{entries:?}");
            assert_eq!(temporary_owner(OsStr::new("level.bin"), OsStr::new(&entries[0])), Some(pid));
            assert!(fs::metadata(folder.0.join(&entries[0])).unwrap().len() >= 1 << 20);
            assert_eq!(fs::read(&path).unwrap(), b"the old file");

            save(&path, Temporary::Named, b"the new file").unwrap();
            assert_eq!(fs::read(&path).unwrap(), b"the new file");
            assert_eq!(folder.entries(), ["level.bin"]);
        }
    }
}
