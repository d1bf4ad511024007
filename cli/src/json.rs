//! `reflectable json` and `reflectable from-json`: a file's JSON twin, and back.

use crate::load::{Failure, Loaded};
use std::io::{self, Write};
use std::path::Path;

/// The file as a JSON document.
pub fn print(loaded: &Loaded, out: &mut dyn Write) -> io::Result<()> {
    loaded.graph.write_json(&mut *out).map_err(io::Error::other)?;
    writeln!(out)
}

/// The binary stream of a JSON document, saved to `output` (the previous file kept until the new
/// one is complete).
pub fn convert(input: &Path, output: &Path, out: &mut dyn Write) -> Result<(), Failure> {
    let text = std::fs::read_to_string(input).map_err(|error| format!("cannot read {}: {error}", input.display()))?;
    let bytes = reflectable::json::to_bytes(&text).map_err(|error| format!("{}: {error}", input.display()))?;
    reflectable::serializer::write_atomically(output, |out| Ok(out.write_all(&bytes)?))
        .map_err(|error| format!("cannot write {}: {error}", output.display()))?;
    writeln!(out, "wrote {} ({} bytes)", output.display(), bytes.len())?;
    Ok(())
}
