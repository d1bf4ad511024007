//! `reflectable convert`: a file in the other encoding (normal or compact, `FORMAT.md`), the same
//! graph and schema table, written without the program that made it.

use crate::load::{Failure, Loaded};
use reflectable::serializer::Encoding;
use std::io::Write;
use std::path::Path;

/// Writes `loaded`'s graph to `output` in `encoding` (the previous file kept until the new one is
/// complete), and says how the size changed.
pub fn convert(loaded: &Loaded, encoding: Encoding, output: &Path, out: &mut dyn Write) -> Result<(), Failure> {
    let mut graph = loaded.graph.clone();
    graph.set_encoding(encoding);
    let bytes = graph.to_bytes().map_err(|error| format!("cannot write the graph in that encoding: {error}"))?;
    reflectable::serializer::write_atomically(output, |file| Ok(file.write_all(&bytes)?))
        .map_err(|error| format!("cannot write {}: {error}", output.display()))?;
    let ratio = bytes.len() as f64 / loaded.bytes.len().max(1) as f64;
    writeln!(out, "wrote {} ({} bytes, {ratio:.2}x the input)", output.display(), bytes.len())?;
    Ok(())
}
