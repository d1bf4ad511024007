//! `reflectable deps`: the assets a file refers to (its dependencies), one line each: the asset's
//! type, as the file's schema table names it, and its key. Read without the program's types.

use crate::load::Loaded;
use std::collections::BTreeSet;
use std::io::{self, Write};

pub fn print(loaded: &Loaded, out: &mut dyn Write) -> io::Result<()> {
    let schema = loaded.graph.schema().ok();
    let name = |type_id: u32| {
        schema
            .as_ref()
            .and_then(|schema| schema.get(type_id))
            .map_or_else(|| format!("type {type_id}"), |entry| entry.name.clone())
    };
    // Each asset once, whatever the order and number of pointers to it; sorted, so that two
    // files' lists compare line by line.
    // The root is never a reference (the decoder refuses one there).
    let references: BTreeSet<(String, String)> = loaded
        .graph
        .objects()
        .iter()
        .skip(1)
        .filter_map(|object| object.borrow().asset_reference())
        .map(|(key, type_id)| (escape(&name(type_id)), escape(&key.to_string())))
        .collect();
    for (type_name, key) in &references {
        writeln!(out, "{type_name}\t{key}")?;
    }
    Ok(())
}

/// `text` as one field of a line: control characters (a tab or a newline a hostile file put in
/// a path), backslashes and quotes escaped as in Rust strings, and an empty text as `""`.
fn escape(text: &str) -> String {
    if text.is_empty() {
        return "\"\"".to_owned();
    }
    text.chars()
        .map(|c| match c {
            '\\' => "\\\\".to_owned(),
            '"' => "\\\"".to_owned(),
            c if c.is_control() => c.escape_default().to_string(),
            c => c.to_string(),
        })
        .collect()
}
