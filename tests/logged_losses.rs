//! The decodes that return no report (`from_slice`, `load`, `load_shared`,
//! `BinarySerializer::decode`) log what they lost through the `log` facade, so that a loss is
//! never silent in a program with a logger.

use reflectable::serializer::{BinarySerializer, LOG_TARGET};
use reflectable::Reflectable;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Mutex;

/// Every record logged under the crate's target, as `(level, message)`.
static RECORDS: Mutex<Vec<(log::Level, String)>> = Mutex::new(Vec::new());
/// The tests share the logger, so they run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

struct Capture;

impl log::Log for Capture {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.target() == LOG_TARGET
    }
    fn log(&self, record: &log::Record) {
        if self.enabled(record.metadata()) {
            RECORDS.lock().unwrap().push((record.level(), record.args().to_string()));
        }
    }
    fn flush(&self) {}
}

/// Runs `body` with the capture installed and empty; returns what it logged.
fn logged(body: impl FnOnce()) -> Vec<(log::Level, String)> {
    let _serial = SERIAL.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let _ = log::set_logger(&Capture);
    log::set_max_level(log::LevelFilter::Trace);
    RECORDS.lock().unwrap().clear();
    body();
    std::mem::take(&mut *RECORDS.lock().unwrap())
}

/// Version 1 of a script component.
#[derive(Reflectable, Default)]
#[rtti(id = 9_871_001, name = "Script", no_register)]
struct ScriptV1 {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    speed: u16,
    #[rtti(id = 3)]
    tick_rate: f32,
}

/// Version 2: `speed` widened (converted), `tick_rate` retyped beyond conversion (lost).
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 9_871_001, name = "Script")]
struct Script {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    speed: u32,
    #[rtti(id = 3)]
    tick_rate: u32,
}

fn old_bytes() -> Vec<u8> {
    reflectable::to_vec(&ScriptV1 { name: "door".into(), speed: 4, tick_rate: 0.5 }).unwrap()
}

#[test]
fn from_slice_logs_a_loss_as_a_warning_and_a_conversion_as_info() {
    let records = logged(|| {
        let script: Script = reflectable::from_slice(&old_bytes()).unwrap();
        assert_eq!((script.name.as_str(), script.speed, script.tick_rate), ("door", 4, 0));
    });
    let warnings: Vec<_> = records.iter().filter(|(level, _)| *level == log::Level::Warn).collect();
    assert_eq!(warnings.len(), 1, "{records:?}");
    assert!(warnings[0].1.starts_with("bytes: skipped field 3 `tick_rate` of Script"), "{records:?}");
    assert!(records
        .iter()
        .any(|(level, message)| *level == log::Level::Info && message.contains("converted Script.speed")));
}

#[test]
fn load_and_load_shared_log_with_the_path() {
    let path = std::env::temp_dir().join(format!("reflectable-logged-losses-{}.bin", std::process::id()));
    std::fs::write(&path, old_bytes()).unwrap();
    for records in [
        logged(|| drop(reflectable::load::<Script>(&path).unwrap())),
        logged(|| drop(reflectable::load_shared::<Rc<RefCell<Script>>>(&path).unwrap())),
        logged(|| drop(BinarySerializer::new().load::<Box<dyn Reflectable>>(&path).unwrap())),
    ] {
        let expected = format!("{}: skipped field 3 `tick_rate` of Script", path.display());
        assert!(
            records.iter().any(|(level, message)| *level == log::Level::Warn && message.starts_with(&expected)),
            "{records:?}"
        );
    }
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_lossless_load_logs_nothing_and_a_report_is_not_logged_twice() {
    let bytes = reflectable::to_vec(&Script { name: "gate".into(), speed: 1, tick_rate: 2 }).unwrap();
    assert!(logged(|| drop(reflectable::from_slice::<Script>(&bytes).unwrap())).is_empty());
    // The caller who asks for the report gets it, and nothing is logged behind its back.
    let records = logged(|| {
        let (_, report) = BinarySerializer::new().decode_with_report::<Script>(&old_bytes()).unwrap();
        assert!(!report.is_lossless());
    });
    assert!(records.is_empty(), "{records:?}");
    // Strict decoding refuses the loss instead.
    let error = BinarySerializer::new().strict(true).decode::<Script>(&old_bytes()).unwrap_err();
    assert!(error.to_string().contains("tick_rate"), "{error}");
}
