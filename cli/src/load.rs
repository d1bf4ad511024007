//! Reading a file into a dynamic graph, and saying precisely why when it is not a valid stream.

use reflectable::dynamic::DynamicGraph;
use reflectable::serializer::DecodeError;
use std::fmt::Write;
use std::path::Path;

/// A file read whole, and its graph.
pub struct Loaded {
    pub bytes: Vec<u8>,
    pub graph: DynamicGraph,
}

/// Why a command could not run.
pub type Failure = Box<dyn std::error::Error>;

pub fn bytes(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|error| format!("cannot read {}: {error}", path.display()).into())
}

/// The file's graph, or the decode error with the bytes around where it happened.
pub fn graph(path: &Path) -> Result<Loaded, Failure> {
    let bytes = bytes(path)?;
    match DynamicGraph::from_bytes(&bytes) {
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

/// What `check` prints for a valid file.
pub fn summary(loaded: &Loaded) {
    let graph = &loaded.graph;
    let types = graph.schema().map(|schema| schema.types.len()).unwrap_or(0);
    println!(
        "ok: format version {}, {} bytes, {} objects, {} types described{}",
        graph.version(),
        loaded.bytes.len(),
        graph.objects().len(),
        types,
        if graph.has_checksum() { ", checksum verified" } else { "" }
    );
}
