//! The crate's floors (`lib.rs`, "Layout"): each top-level module of `src/` uses only modules on
//! its own floor or below, and modules import each other in a cycle only on the type-model floor.
//!
//! Counted from the `crate::` paths in the code, grouped ones (`crate::{a::X, b::Y}`) member by
//! member, and from the `$crate::` paths of macro bodies, which count for the module defining the
//! macro; comments are left out, and so is a file's unit tests (a `#[cfg(test)] mod`, which may
//! use any module to check its own). A name `lib.rs` re-exports at the root
//! (`crate::Reflectable`) or a macro exported there counts as its home module's, except that a
//! macro expanding to `$crate::__private` paths (what derived code calls) counts as `__private`:
//! a module of the crate invoking it uses `__private`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every top-level module by floor, the ground first. `private` is `__private`, what derived code
/// and the crate's macros call.
const FLOORS: &[&[&str]] = &[
    // Plain values: codecs, signatures, layouts; the FNV hash; the derives (their own crate,
    // re-exported at the root).
    &["plain", "fnv", "reflectable_derive"],
    // The type model: fields, descriptors, the registry, containers. Cycles allowed here.
    &["field", "rtti", "containers"],
    // The stream grammar (headers, the walk over an object's sections and fields, the index of
    // top-level objects, skipping), DecodeError and Limits.
    &["wire"],
    // Schemas and fingerprints of the types.
    &["schema"],
    // Types defined at run time, kept unknown data.
    &["runtime"],
    // The binary format: encoder, decoder, files, compact streams.
    &["serializer"],
    // The tools built on the format and the model.
    &["text", "dynamic", "json", "clone", "diff"],
    // What derived code and the crate's macros call.
    &["private"],
    // The one import most programs need: its macros stand on `__private`.
    &["prelude"],
];

fn floor_of(module: &str) -> Option<usize> {
    FLOORS.iter().position(|floor| floor.contains(&module))
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to (`lib` for `lib.rs`).
fn module_of(src: &Path, file: &Path) -> String {
    let first = file.strip_prefix(src).expect("under src").components().next().expect("a component");
    let name = first.as_os_str().to_string_lossy();
    name.strip_suffix(".rs").unwrap_or(&name).to_owned()
}

/// The code of a file without its comments (line comments, doc comments, block comments).
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("/*") {
            let end = after.find("*/").map_or(after.len(), |end| end + 2);
            // Line numbers stay those of the file.
            out.extend(after[..end].matches('\n').map(|_| '\n'));
            rest = &after[end..];
        } else if rest.starts_with("//") {
            rest = rest.find('\n').map_or("", |end| &rest[end..]);
        } else if let Some(after) = rest.strip_prefix("r#\"") {
            // A raw string: to its closing `"#`.
            let end = after.find("\"#").map_or(rest.len(), |end| end + 5);
            out.push_str(&rest[..end]);
            rest = &rest[end..];
        } else if let Some(literal) = char_literal(rest) {
            out.push_str(literal);
            rest = &rest[literal.len()..];
        } else if rest.starts_with('"') {
            // A string (a URL's `//` is not a comment); escapes skipped in pairs.
            let bytes = rest.as_bytes();
            let mut end = 1;
            while end < bytes.len() && bytes[end] != b'"' {
                end += if bytes[end] == b'\\' { 2 } else { 1 };
            }
            let end = (end + 1).min(rest.len());
            out.push_str(&rest[..end]);
            rest = &rest[end..];
        } else {
            let next = rest.char_indices().nth(1).map_or(rest.len(), |(at, _)| at);
            out.push_str(&rest[..next]);
            rest = &rest[next..];
        }
    }
    out
}

/// A character literal at the start of `rest` (`'"'`, `'\\''`), not a lifetime.
fn char_literal(rest: &str) -> Option<&str> {
    let mut chars = rest.char_indices();
    if chars.next()?.1 != '\'' {
        return None;
    }
    let (_, first) = chars.next()?;
    if first == '\\' {
        let (_, _) = chars.next()?;
        let end = rest[1..].find('\'').map(|at| at + 2)?;
        return Some(&rest[..end.max(4)]);
    }
    let (at, quote) = chars.next()?;
    (quote == '\'').then(|| &rest[..at + 1])
}

/// The first segments of the `crate::` and `$crate::` paths in `code`; for a group
/// (`crate::{diff::Patch, rtti::RttiType}`), each member's. A `$crate::` path is in a macro's
/// body: it counts for the module that defines the macro, as if the expansion were there (a macro
/// a module exports for others to call is part of that module).
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        if before == Some('$') && rest.starts_with("__private::") {
            // What an exported macro's expansion calls in the user's crate; the crate's own
            // callers of such a macro count as using `__private` (see `root_names`).
            continue;
        }
        let Some(group) = rest.strip_prefix('{') else {
            out.push(segment(rest));
            continue;
        };
        // The members of the group, each to its first segment (nested groups are members' own).
        let mut depth = 0;
        let mut member_start = true;
        for (index, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => member_start = true,
                c if member_start && !c.is_whitespace() => {
                    out.push(segment(&group[index..]));
                    member_start = false;
                }
                _ => {}
            }
        }
    }
    out.retain(|name| !name.is_empty() && name != "self");
    out
}

/// The identifier `rest` starts with.
fn segment(rest: &str) -> String {
    rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// Where each name at the crate root lives: `lib.rs`'s re-exports and the exported macros.
fn root_names(src: &Path, files: &[PathBuf]) -> BTreeMap<String, String> {
    let mut homes = BTreeMap::from([("__private".to_owned(), "private".to_owned())]);
    let lib = code(&std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs"));
    for statement in lib.split(';') {
        let Some(path) = statement.trim().strip_prefix("pub use ") else { continue };
        let Some((module, names)) = path.split_once("::") else { continue };
        for name in names.trim_matches(|c| c == '{' || c == '}').split(',') {
            let name = name.split(" as ").last().unwrap_or(name).trim();
            if !name.is_empty() {
                homes.insert(name.to_owned(), module.to_owned());
            }
        }
    }
    for file in files {
        let text = std::fs::read_to_string(file).expect("a source");
        for (at, _) in text.match_indices("#[macro_export]") {
            let after = &text[at..];
            if let Some(start) = after.find("macro_rules!") {
                let name: String = after[start + "macro_rules!".len()..]
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                // A macro expanding to `__private` paths is derive support, on that floor.
                let end = after[start..].find("\n}\n").map_or(after.len(), |end| start + end);
                let home = match after[start..end].contains("$crate::__private::") {
                    true => "private".to_owned(),
                    false => module_of(src, file),
                };
                homes.insert(name, home);
            }
        }
    }
    homes
}

/// The lines (0-based) of the bodies of the macros in `text` that expand to `$crate::__private`
/// paths: derive support (see `root_names`).
fn derive_support_bodies(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut bodies = Vec::new();
    for (at, _) in text.match_indices("macro_rules!") {
        let end = text[at..].find("\n}\n").map_or(text.len(), |end| at + end);
        if text[at..end].contains("$crate::__private::") {
            let first = text[..at].matches('\n').count();
            bodies.push(first..first + text[at..end].matches('\n').count() + 1);
        }
    }
    bodies
}

/// Which top-level module imports which, with one place for each.
fn imports() -> BTreeMap<(String, String), String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let homes = root_names(&src, &files);
    let mut edges = BTreeMap::new();
    for file in &files {
        let from = module_of(&src, file);
        if from == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("a source");
        let text = text.find("#[cfg(test)]\nmod ").map_or(text.as_str(), |tests| &text[..tests]);
        let bodies = derive_support_bodies(text);
        for (line, code) in code(text).lines().enumerate() {
            // A derive-support macro's body is on the `__private` floor, wherever it is written.
            let from = match bodies.iter().any(|lines| lines.contains(&line)) {
                true => "private".to_owned(),
                false => from.clone(),
            };
            for name in crate_paths(code) {
                let to = homes.get(&name).cloned().unwrap_or(name);
                if to != from {
                    let place = format!("{}:{}", file.strip_prefix(&src).expect("under src").display(), line + 1);
                    edges.entry((from.clone(), to)).or_insert(place);
                }
            }
        }
    }
    edges
}

#[test]
fn every_module_imports_only_its_floor_and_below() {
    let edges = imports();
    let mut wrong = Vec::new();
    for ((from, to), place) in &edges {
        let (Some(low), Some(high)) = (floor_of(to), floor_of(from)) else {
            wrong.push(format!(
                "{from} -> {to} ({place}): a module with no floor; add it to FLOORS and lib.rs's Layout"
            ));
            continue;
        };
        if low > high {
            wrong.push(format!("{from} (floor {high}) -> {to} (floor {low}), at {place}"));
        }
    }
    assert!(wrong.is_empty(), "imports against the floors:\n{}", wrong.join("\n"));
}

#[test]
fn cycles_only_on_the_type_model_floor() {
    let edges = imports();
    // Modules on one floor reach each other only along that floor's own imports.
    for (floor, modules) in FLOORS.iter().enumerate().filter(|&(floor, _)| floor != 1) {
        let on_floor: BTreeSet<&str> = modules.iter().copied().collect();
        let next = |module: &str| -> Vec<&str> {
            edges
                .keys()
                .filter(|(from, to)| from == module && on_floor.contains(to.as_str()))
                .map(|(_, to)| to.as_str())
                .collect()
        };
        for &start in modules.iter() {
            let mut seen = BTreeSet::new();
            let mut stack = next(start);
            while let Some(module) = stack.pop() {
                assert!(module != start, "floor {floor}: {start} imports itself back through {seen:?}");
                if seen.insert(module) {
                    stack.extend(next(module));
                }
            }
        }
    }
}

#[test]
fn the_counting_sees_what_it_should() {
    let text = "use crate::plain::Reader; // crate::diff\n/* crate::json */ let s = \"//\"; crate::rtti::x();\n\
                $crate::serializer::y!(); let q = '\"'; // crate::text\nfn f<'a>(x: &'a u8) { crate::field::z(); }\n\
                use crate::{schema::S, wire::{a, b}, self}; $crate::__private::Z";
    assert_eq!(crate_paths(&code(text)), ["plain", "rtti", "serializer", "field", "schema", "wire"]);
    assert!(imports().contains_key(&("serializer".to_owned(), "rtti".to_owned())));
}
