//! Reading a file into a dynamic graph, and saying precisely why when it is not a valid stream.

use indicatif::{ProgressBar, ProgressStyle};
use reflectable::dynamic::DynamicGraph;
use reflectable::rtti::{Flow, GraphWalker, Registry};
use reflectable::serializer::{BinarySerializer, DecodeError, DecodeReport, Encoding, Progress};
use reflectable::Reflectable;
use std::fmt::Write;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

/// A file read whole, and its graph.
pub struct Loaded {
    pub bytes: Vec<u8>,
    pub graph: DynamicGraph,
}

/// Why a command could not run.
pub type Failure = Box<dyn std::error::Error>;

/// Files from this size on show their progress (on a terminal): reading them takes a moment.
const LARGE: u64 = 32 << 20;

pub fn bytes(path: &Path) -> Result<Vec<u8>, Failure> {
    let failed = |error: std::io::Error| format!("cannot read {}: {error}", path.display());
    let mut file = std::fs::File::open(path).map_err(failed)?;
    let len = file.metadata().map_err(failed)?.len();
    if len < LARGE {
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(failed)?;
        return Ok(bytes);
    }
    let bar = ProgressBar::new(len).with_style(
        ProgressStyle::with_template("reading {bytes}/{total_bytes} {wide_bar} {eta}").expect("a valid template"),
    );
    let mut bytes = Vec::with_capacity(len as usize);
    let mut chunk = vec![0; 8 << 20];
    loop {
        let read = file.read(&mut chunk).map_err(failed)?;
        if read == 0 {
            break;
        }
        bytes.extend_from_slice(&chunk[..read]);
        bar.inc(read as u64);
    }
    bar.finish_and_clear();
    Ok(bytes)
}

/// The file's graph, or the decode error with the bytes around where it happened.
pub fn graph(path: &Path) -> Result<Loaded, Failure> {
    let bytes = bytes(path)?;
    let decoded = if (bytes.len() as u64) < LARGE {
        DynamicGraph::from_bytes(&bytes)
    } else {
        // The decoder reports every 1,024 objects, with the stream's object count.
        let bar = ProgressBar::new(0).with_style(
            ProgressStyle::with_template("decoding {pos}/{len} objects {wide_bar} {eta}").expect("a valid template"),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        let report = |progress: Progress| {
            bar.set_length(progress.total_objects.unwrap_or(0));
            bar.set_position(progress.objects);
        };
        let decoded = BinarySerializer::new().progress(&report).decode::<DynamicGraph>(&bytes);
        bar.finish_and_clear();
        decoded
    };
    match decoded {
        Ok(graph) => Ok(Loaded { bytes, graph }),
        Err(error) => Err(explain(&bytes, &error).into()),
    }
}

/// The error, and a hex view of the bytes around its offset.
pub fn explain(bytes: &[u8], error: &DecodeError) -> String {
    let mut message = format!("{} is not a valid reflectable stream: {error}", describe_len(bytes.len()));
    if let Some(offset) = error.offset() {
        let start = offset.saturating_sub(16) & !15;
        let end = (start + 48).min(bytes.len());
        for row in (start..end).step_by(16) {
            let line: Vec<String> = bytes[row..(row + 16).min(end)].iter().map(|byte| format!("{byte:02x}")).collect();
            let marker = if (row..row + 16).contains(&offset) { " <-" } else { "" };
            let _ = write!(message, "\n  {row:>8}: {}{marker}", line.join(" "));
        }
    }
    message
}

fn describe_len(len: usize) -> String {
    format!("the file ({len} bytes)")
}

/// The graph's format version as the file has it: a compact stream (version 4) is read by way
/// of its normal form, whose version the graph holds.
pub fn version(graph: &DynamicGraph) -> String {
    match graph.encoding() {
        Encoding::Compact => "4 (compact)".to_owned(),
        Encoding::Normal => graph.version().to_string(),
    }
}

/// What `check` prints for a valid file.
pub fn summary(loaded: &Loaded, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let graph = &loaded.graph;
    // A stream for readers with the same types lists its types' fingerprints, describing none.
    let types = match graph.fingerprints() {
        Some(listed) => format!("{} types listed by fingerprint only", listed.len()),
        None => format!("{} types described", graph.schema().map(|schema| schema.types.len()).unwrap_or(0)),
    };
    writeln!(
        out,
        "ok: format version {}, {} bytes, {} objects, {types}{}",
        version(graph),
        loaded.bytes.len(),
        graph.objects().len(),
        if graph.has_checksum() { ", checksum verified" } else { "" }
    )
}

/// The file's objects, of `types` and of types defined from its schema table for the others,
/// with the report of what those types lack. The comparing commands read every file into one
/// file's types, as a program of that file's types loads an older save.
pub fn objects(loaded: &Loaded, types: &Registry) -> Result<(Box<dyn Reflectable>, DecodeReport), Failure> {
    let serializer = BinarySerializer::with_registry(types).keep_unknown_types(true);
    serializer.decode_with_report(&loaded.bytes).map_err(|error| explain(&loaded.bytes, &error).into())
}

/// A registry of the types of every object under `root`.
pub fn types_of(root: &dyn Reflectable) -> Registry {
    let mut registry = Registry::new();
    add_types(&mut registry, root);
    registry
}

/// Adds the types of the objects under `root` that `registry` lacks (a type another file
/// defines, which objects a patch creates need).
pub fn add_types(registry: &mut Registry, root: &dyn Reflectable) {
    let walker = GraphWalker::new().follow_weak(true);
    let _ = walker.walk(root, |visit| {
        if registry.get(visit.object.rtti().id()).is_none() {
            // A type the registry cannot take (a reserved ID) is simply left out.
            let _ = registry.register(visit.object.rtti());
        }
        Ok::<_, std::convert::Infallible>(Flow::Continue)
    });
}
