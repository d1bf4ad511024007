//! Files: a save that fails midway leaves the previous file byte-identical, and a save that is
//! killed midway leaves no temporary file behind for good.

#[path = "../examples/common/level.rs"]
mod level;

use reflectable::serializer::{write_atomically, BinarySerializer, EncodeError};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A fresh folder under the system's temp folder, removed on drop.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("reflectable-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Folder(path)
    }
    fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Passes `left` bytes through, then fails every write.
struct FailAfter<'a> {
    inner: &'a mut dyn Write,
    left: usize,
}

impl Write for FailAfter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::other("disk full"));
        }
        let n = buf.len().min(self.left);
        self.left -= n;
        self.inner.write(&buf[..n])
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn save_failing_after(path: &Path, level: &level::Level, bytes: usize) -> Result<u64, EncodeError> {
    let core = BinarySerializer::new().flush_threshold(512);
    write_atomically(path, |writer| {
        let mut failing = FailAfter { inner: writer, left: bytes };
        core.encode_to_writer(level, &mut failing)
    })
}

#[test]
fn a_save_failing_after_n_bytes_leaves_the_old_file_untouched() {
    let folder = Folder::new("atomic");
    let path = folder.0.join("level.bin");
    let (old_level, _) = level::build_level(40, 1);
    let serializer = BinarySerializer::new();
    serializer.save(&old_level, &path).unwrap();
    let old_bytes = std::fs::read(&path).unwrap();

    let (new_level, _) = level::build_level(400, 2);
    let new_size = BinarySerializer::new().encode(&new_level).unwrap().len();
    let mut failures = 0;
    for n in (0..new_size).step_by(new_size / 97).chain([1, 7, new_size - 1]) {
        let error = save_failing_after(&path, &new_level, n).unwrap_err();
        assert!(matches!(error, EncodeError::Io(_)), "{error}");
        assert_eq!(std::fs::read(&path).unwrap(), old_bytes, "failed after {n} bytes");
        assert_eq!(folder.entries(), ["level.bin"], "no temporary file is left behind");
        failures += 1;
    }
    assert!(failures > 90);

    // The old file still loads; a save that succeeds replaces it.
    let loaded: level::Level = serializer.load(&path).unwrap();
    level::compare_levels(&old_level, &loaded).unwrap();
    save_failing_after(&path, &new_level, usize::MAX).unwrap();
    let loaded_new: level::Level = serializer.load(&path).unwrap();
    level::compare_levels(&new_level, &loaded_new).unwrap();
    assert_eq!(folder.entries(), ["level.bin"]);
    for level in [&old_level, &new_level, &loaded, &loaded_new] {
        level::break_cycles(level);
    }
}

#[test]
fn an_encode_error_midway_leaves_the_old_file_untouched() {
    let folder = Folder::new("encode-error");
    let path = folder.0.join("level.bin");
    let (level, _) = level::build_level(100, 3);
    let serializer = BinarySerializer::new();
    let size = serializer.save(&level, &path).unwrap();
    let old_bytes = std::fs::read(&path).unwrap();
    assert_eq!(size as usize, old_bytes.len());

    // An object borrowed mutably elsewhere cannot be read: the save fails partway through.
    let object = level.root.as_ref().unwrap().borrow().children[0].clone();
    let guard = object.borrow_mut();
    let error = serializer.save(&level, &path).unwrap_err();
    assert!(matches!(error, EncodeError::Pointee { .. }), "{error}");
    drop(guard);
    assert_eq!(std::fs::read(&path).unwrap(), old_bytes);
    assert_eq!(folder.entries(), ["level.bin"]);
    level::break_cycles(&level);
}

#[test]
fn saving_into_a_missing_folder_fails_without_creating_anything() {
    let folder = Folder::new("missing");
    let path = folder.0.join("nope").join("level.bin");
    let (level, _) = level::build_level(5, 4);
    assert!(matches!(BinarySerializer::new().save(&level, &path), Err(EncodeError::Io(_))));
    assert!(folder.entries().is_empty());
    assert!(BinarySerializer::new().load::<Box<dyn reflectable::Reflectable>>(&path).is_err());
    level::break_cycles(&level);
}

/// Saves killed midway, in child processes: this test binary run again as `slow_save_helper`.
#[cfg(unix)]
mod killed_saves {
    use super::Folder;
    use reflectable::serializer::{write_atomically, EncodeError};
    use std::io::{self, BufRead, BufReader, Read, Write};
    use std::os::unix::process::ExitStatusExt;
    use std::path::Path;
    use std::process::{Child, Command, Stdio};
    use std::time::Duration;

    /// The environment variable that makes `slow_save_helper` run, naming the file it saves to.
    const SLOW_SAVE_PATH: &str = "REFLECTABLE_TEST_SLOW_SAVE_PATH";
    /// What `slow_save_helper` prints once the save has written its first bytes.
    const SLOW_SAVE_STARTED: &str = "slow save: bytes written, now blocking";

    /// Not a test: the child process of `a_save_killed_midway_leaves_the_old_file_and_no_temporary`.
    /// It starts a large save to the path it is given, writes 4 MiB (flushed to the file), says so
    /// on stdout and then blocks, waiting to be killed.
    #[test]
    #[ignore = "helper process, run by a_save_killed_midway_leaves_the_old_file_and_no_temporary"]
    fn slow_save_helper() {
        let Some(path) = std::env::var_os(SLOW_SAVE_PATH) else { return };
        let result: Result<(), _> = write_atomically(Path::new(&path), |writer| {
            writer.write_all(&vec![0xA5; 4 << 20])?;
            writer.flush()?;
            println!("{SLOW_SAVE_STARTED}");
            io::stdout().flush()?;
            // Bounded, so that a parent that died first does not leave this process behind for long.
            std::thread::sleep(Duration::from_secs(60));
            Err(EncodeError::Io(io::Error::other("the parent was to kill this save")))
        });
        panic!("the slow save was not killed: {result:?}");
    }

    /// A child process, killed (SIGKILL on unix) and reaped when dropped.
    struct Killed(Child);

    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    /// Starts this test binary again as `slow_save_helper`, saving to `path`, and returns once the
    /// helper has written its first bytes.
    fn start_slow_save(path: &Path) -> Killed {
        let child = Command::new(std::env::current_exe().unwrap())
            .args(["killed_saves::slow_save_helper", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
            .env(SLOW_SAVE_PATH, path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut child = Killed(child);
        let stdout = BufReader::new(child.0.stdout.take().unwrap());
        // libtest prints "test killed_saves::slow_save_helper ... " first, without a line break.
        if !stdout.lines().map_while(Result::ok).any(|line| line.ends_with(SLOW_SAVE_STARTED)) {
            let mut stderr = String::new();
            let _ = child.0.stderr.take().unwrap().read_to_string(&mut stderr);
            panic!("the helper did not start its save: {stderr}");
        }
        child
    }

    /// Whether the folder's file system makes anonymous files (Linux `O_TMPFILE`).
    #[cfg(target_os = "linux")]
    fn anonymous_files_supported(folder: &Path) -> bool {
        use rustix::fs::{open, Mode, OFlags};
        open(folder, OFlags::WRONLY | OFlags::TMPFILE | OFlags::CLOEXEC, Mode::from_raw_mode(0o600)).is_ok()
    }

    #[test]
    fn a_save_killed_midway_leaves_the_old_file_and_no_temporary() {
        let folder = Folder::new("killed");
        let path = folder.0.join("level.bin");
        write_atomically(&path, |writer| Ok(writer.write_all(b"the old file")?)).unwrap();

        let mut child = start_slow_save(&path);
        child.0.kill().unwrap();
        let status = child.0.wait().unwrap();
        assert_eq!(status.signal(), Some(9), "killed by SIGKILL, not ended otherwise: {status}");
        assert_eq!(std::fs::read(&path).unwrap(), b"the old file");

        #[cfg(target_os = "linux")]
        if anonymous_files_supported(&folder.0) {
            // The temporary was an anonymous file: the kernel freed it with the process.
            assert_eq!(folder.entries(), ["level.bin"], "the killed save left a temporary file");
        }

        // Wherever the killed save did leave a named temporary, the next save removes it.
        write_atomically(&path, |writer| Ok(writer.write_all(b"the new file")?)).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"the new file");
        assert_eq!(folder.entries(), ["level.bin"], "the next save left a stale temporary in place");
    }

    /// The ID of a process that has exited and been reaped.
    fn dead_pid() -> u32 {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .arg("--list")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn the_next_save_removes_the_stale_temporaries_of_dead_processes_only() {
        let folder = Folder::new("stale");
        let path = folder.0.join("level.bin");
        let dead = dead_pid();
        let me = std::process::id();
        let stale = format!(".level.bin.{dead}.7.tmp");
        let kept = [
            format!(".level.bin.{me}.7.tmp"),     // this process is alive
            ".level.bin.1.7.tmp".to_string(),     // so is init
            format!(".other.bin.{dead}.7.tmp"),   // another file's temporary
            format!(".level.bin.5.{dead}.7.tmp"), // the temporary of a file "level.bin.5"
            format!(".level.bin.{dead}.tmp"),     // not a name write_atomically makes
            format!(".level.bin.{dead}.7.tmp.keep"),
            format!(".level.bin.+{dead}.7.tmp"),
            format!("level.bin.{dead}.7.tmp"),
        ];
        for name in kept.iter().chain([&stale]) {
            std::fs::write(folder.0.join(name), b"half a save").unwrap();
        }

        write_atomically(&path, |writer| Ok(writer.write_all(b"saved")?)).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"saved");
        let mut expected: Vec<String> = kept.to_vec();
        expected.push("level.bin".to_string());
        expected.sort();
        assert_eq!(folder.entries(), expected, "exactly the dead process's temporary is gone");
    }
}

/// Long saves and loads report progress: every 1,024 objects and once at the end, counts only
/// growing, the last report of a save with the file's size, of a load with every object and
/// byte of the stream.
#[test]
fn saves_and_loads_report_progress_to_the_end() {
    use reflectable::serializer::Progress;
    use std::cell::RefCell;
    let folder = Folder::new("progress");
    let path = folder.0.join("level.bin");
    let (level, stats) = level::build_level(3_000, 11);
    let reports = RefCell::new(Vec::new());
    let report = |progress: Progress| reports.borrow_mut().push(progress);
    let files = BinarySerializer::new().checksum(true).progress(&report);

    let size = files.save(&level, &path).unwrap();
    let saved = reports.take();
    let objects = stats.shared_objects as u64 + 1; // and the root
    assert_eq!(saved.len() as u64, objects / 1024 + 1, "every 1,024 objects, then the end");
    assert!(saved.windows(2).all(|pair| pair[0].objects < pair[1].objects && pair[0].bytes <= pair[1].bytes));
    let last = *saved.last().unwrap();
    assert_eq!(last, Progress { objects, bytes: size, total_objects: None, total_bytes: None });

    let loaded: level::Level = files.load(&path).unwrap();
    let read = reports.take();
    assert_eq!(read.len() as u64, objects / 1024 + 1);
    assert!(read.windows(2).all(|pair| pair[0].objects < pair[1].objects && pair[0].bytes < pair[1].bytes));
    assert!(read.iter().all(|progress| progress.total_objects == Some(objects) && progress.total_bytes == Some(size)));
    let last = *read.last().unwrap();
    assert_eq!((last.objects, last.fraction()), (objects, Some(1.0)));
    // Each object's own bytes: all of the stream but its header, schema table and trailer.
    assert!(last.bytes < size && last.bytes > size * 9 / 10, "{} of {size}", last.bytes);

    // A load without the types reports the same way, to the same counts (it reads the objects in
    // ID order, the typed decoder as pointers reach them, so only the totals agree on the way).
    let bytes = std::fs::read(&path).unwrap();
    let limits = reflectable::serializer::Limits::default();
    let graph = reflectable::serializer::BinarySerializer::new()
        .limits(limits)
        .progress(&report)
        .decode::<reflectable::dynamic::DynamicGraph>(&bytes)
        .unwrap();
    let dynamic = reports.take();
    let objects_done = |reports: &[Progress]| reports.iter().map(|progress| progress.objects).collect::<Vec<_>>();
    assert_eq!(objects_done(&dynamic), objects_done(&read));
    assert_eq!(dynamic.last(), read.last(), "the same objects and bytes in all");
    drop(graph);
    level::break_cycles(&loaded);
    level::break_cycles(&level);
}
