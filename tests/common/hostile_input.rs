//! Hostile inputs for the surface suites (`tests/hostile_surfaces.rs`): a fixed-seed xorshift
//! generator, mutations of binary streams (flipped bytes, count-like words overwritten, ranges
//! duplicated or deleted) and structure-aware edits of JSON text (numbers, `$ref` ids and `$type`
//! names replaced, members duplicated, inserted or deleted, deep nesting), and a runner that
//! re-runs one test of the current binary in a child process, so an input that aborts the
//! process (an allocation failure, a stack overflow) is reported instead of ending the suite.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

pub use crate::rng::Rng;

// ---- binary mutations ---------------------------------------------------------------------------

/// Words that stand for counts, lengths, IDs and indices at their edges.
const WORDS: [u32; 10] = [0, 1, 2, 3, 7, 16, 255, 0x7FFF_FFFF, 0xFFFF_FFFE, 0xFFFF_FFFF];

/// One to three random edits of `seed`, and what they were: mostly edits in place (a stream's
/// trailer refuses most changes of its length at once).
pub fn mutate_bytes(rng: &mut Rng, seed: &[u8]) -> (Vec<u8>, String) {
    let mut bytes = seed.to_vec();
    let mut what = Vec::new();
    for _ in 0..1 + rng.below(3) {
        if bytes.is_empty() {
            break;
        }
        let len = bytes.len();
        match rng.below(16) {
            0..=5 => {
                let at = rng.below(len);
                let flip = 1 + rng.below(255) as u8;
                bytes[at] ^= flip;
                what.push(format!("byte {at} ^= {flip:#04x}"));
            }
            6..=12 => {
                // A word at an aligned offset (most counts and IDs are), sometimes anywhere.
                let at = if rng.below(4) == 0 { rng.below(len) } else { rng.below(len.div_ceil(4)) * 4 };
                let old = word_at(&bytes, at);
                let word = match rng.below(4) {
                    0 => old.wrapping_add(1),
                    1 => old.wrapping_sub(1),
                    _ => *rng.pick(&WORDS),
                };
                let end = (at + 4).min(len);
                bytes[at..end].copy_from_slice(&word.to_le_bytes()[..end - at]);
                what.push(format!("word at {at}: {old:#x} -> {word:#x}"));
            }
            13 => {
                let (start, end) = range(rng, len);
                let at = rng.below(len + 1);
                let copy = bytes[start..end].to_vec();
                bytes.splice(at..at, copy);
                what.push(format!("bytes {start}..{end} copied to {at}"));
            }
            14 => {
                let (start, end) = range(rng, len);
                bytes.drain(start..end);
                what.push(format!("bytes {start}..{end} deleted"));
            }
            _ => {
                let at = rng.below(len + 1);
                bytes.truncate(at);
                what.push(format!("cut at {at}"));
            }
        }
    }
    (bytes, what.join("; "))
}

fn word_at(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    let end = (at + 4).min(bytes.len());
    word[..end - at].copy_from_slice(&bytes[at..end]);
    u32::from_le_bytes(word)
}

/// A short range of `0..len` (mostly under 16 bytes, sometimes up to 256).
fn range(rng: &mut Rng, len: usize) -> (usize, usize) {
    let start = rng.below(len);
    let most = if rng.below(4) == 0 { 256 } else { 16 };
    (start, (start + 1 + rng.below(most)).min(len))
}

// ---- JSON text ----------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    Str,
    Num,
    /// `true`, `false`, `null` (or any other run of letters).
    Word,
    Open(u8),
    Close(u8),
    Colon,
    Comma,
    Other,
}

#[derive(Clone, Copy, Debug)]
pub struct Token {
    pub kind: Tok,
    pub start: usize,
    pub end: usize,
}

/// The tokens of JSON text, as well as they can be told apart in text that may be broken.
pub fn tokens(text: &[u8]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let start = at;
        let kind = match text[at] {
            b' ' | b'\n' | b'\r' | b'\t' => {
                at += 1;
                continue;
            }
            b'"' => {
                at += 1;
                while at < text.len() && text[at] != b'"' {
                    at += if text[at] == b'\\' { 2 } else { 1 };
                }
                at = (at + 1).min(text.len());
                Tok::Str
            }
            b'-' | b'0'..=b'9' => {
                at += 1;
                while at < text.len() && matches!(text[at], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
                    at += 1;
                }
                Tok::Num
            }
            b'a'..=b'z' | b'A'..=b'Z' => {
                while at < text.len() && text[at].is_ascii_alphabetic() {
                    at += 1;
                }
                Tok::Word
            }
            open @ (b'{' | b'[') => {
                at += 1;
                Tok::Open(open)
            }
            close @ (b'}' | b']') => {
                at += 1;
                Tok::Close(close)
            }
            b':' => {
                at += 1;
                Tok::Colon
            }
            b',' => {
                at += 1;
                Tok::Comma
            }
            _ => {
                at += 1;
                Tok::Other
            }
        };
        out.push(Token { kind, start, end: at });
    }
    out
}

/// The index of the last token of the value that starts at token `at`.
pub fn value_end(tokens: &[Token], at: usize) -> usize {
    if !matches!(tokens[at].kind, Tok::Open(_)) {
        return at;
    }
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(at) {
        match token.kind {
            Tok::Open(_) => depth += 1,
            Tok::Close(_) => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    tokens.len() - 1
}

/// The members of every object: the index of each key token (a string followed by `:` and a
/// value).
pub fn member_keys(tokens: &[Token]) -> Vec<usize> {
    (0..tokens.len().saturating_sub(2))
        .filter(|&i| tokens[i].kind == Tok::Str && tokens[i + 1].kind == Tok::Colon)
        .collect()
}

/// The byte range of the member whose key is token `key`: the key through the value's end.
pub fn member_span(tokens: &[Token], key: usize) -> (usize, usize) {
    (tokens[key].start, tokens[value_end(tokens, key + 2)].end)
}

/// The byte range of the value of the first member named `name` (quotes included in `name`'s
/// text, e.g. `"\"count\""`) at or after byte `from`.
pub fn member_value(text: &str, name: &str, from: usize) -> Option<(usize, usize)> {
    let tokens = tokens(text.as_bytes());
    let key = member_keys(&tokens)
        .into_iter()
        .find(|&key| tokens[key].start >= from && &text[tokens[key].start..tokens[key].end] == name)?;
    Some((tokens[key + 2].start, tokens[value_end(&tokens, key + 2)].end))
}

/// The byte range of the value (object, array or scalar) that starts at byte `at`.
pub fn value_at(text: &str, at: usize) -> Option<(usize, usize)> {
    let tokens = tokens(text.as_bytes());
    let first = tokens.iter().position(|token| token.start == at)?;
    Some((at, tokens[value_end(&tokens, first)].end))
}

/// Replacements for a number: the edges of the integer types, a float out of `f32`'s range, and
/// neighbours of the value.
const NUMBERS: [&str; 16] = [
    "4294967295",
    "-1",
    "1e39",
    "0",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "-2147483649",
    "0.5",
    "1e308",
    "-1e39",
    "65535",
    "65536",
    "256",
    "2",
    "-0",
];

/// Values of another kind for any value.
const VALUES: [&str; 10] = ["null", "\"x\"", "true", "[]", "{}", "0", "[0]", "{\"$ref\": 1}", "\"\"", "[[]]"];

/// Names of members to insert: unknown ones, and the reserved ones in the wrong place.
const MEMBERS: [&str; 8] = ["zz_unknown", "extra", "$ref", "$id", "$type", "$variant", "$bases", "$wire"];

/// One to three structure-aware edits of JSON text (or, now and then, of its bytes), and what
/// they were.
pub fn mutate_json(rng: &mut Rng, seed: &[u8]) -> (Vec<u8>, String) {
    let mut text = seed.to_vec();
    let mut what = Vec::new();
    for _ in 0..1 + rng.below(3) {
        if text.is_empty() {
            break;
        }
        if let Some(edit) = json_edit(rng, &mut text) {
            what.push(edit);
        }
    }
    (text, what.join("; "))
}

fn show(text: &[u8]) -> String {
    let shown = String::from_utf8_lossy(&text[..text.len().min(40)]).replace('\n', " ");
    if text.len() > 40 {
        format!("{shown}...")
    } else {
        shown
    }
}

/// Replaces `text[start..end]` with `with`, described.
fn splice(text: &mut Vec<u8>, start: usize, end: usize, with: &[u8], what: &str) -> String {
    let old = show(&text[start..end]);
    text.splice(start..end, with.iter().copied());
    format!("{what} at {start}: `{old}` -> `{}`", show(with))
}

fn json_edit(rng: &mut Rng, text: &mut Vec<u8>) -> Option<String> {
    let tokens = tokens(text);
    if tokens.is_empty() {
        return None;
    }
    let keys = member_keys(&tokens);
    let key_named = |name: &str| -> Vec<usize> {
        keys.iter().copied().filter(|&k| &text[tokens[k].start..tokens[k].end] == name.as_bytes()).collect()
    };
    match rng.below(14) {
        0..=2 => {
            let numbers: Vec<&Token> = tokens.iter().filter(|token| token.kind == Tok::Num).collect();
            if numbers.is_empty() {
                return None;
            }
            let number = **rng.pick(&numbers);
            let old = std::str::from_utf8(&text[number.start..number.end]).ok().and_then(|n| n.parse::<i128>().ok());
            let new = match (rng.below(3), old) {
                (0, Some(old)) => (old + if rng.below(2) == 0 { 1 } else { -1 }).to_string(),
                _ => rng.pick(&NUMBERS).to_string(),
            };
            Some(splice(text, number.start, number.end, new.as_bytes(), "number"))
        }
        3 => {
            // A graph's references, or a patch document's (pointer targets, found objects).
            let mut refs = key_named("\"$ref\"");
            if refs.is_empty() {
                refs = ["\"to\"", "\"from\"", "\"keep\"", "\"element\"", "\"old\""]
                    .iter()
                    .flat_map(|k| key_named(k))
                    .collect();
            }
            if refs.is_empty() {
                return None;
            }
            let value = tokens[*rng.pick(&refs) + 2];
            let ids = key_named("\"$id\"");
            let new = match rng.below(3) {
                0 if !ids.is_empty() => {
                    let id = tokens[*rng.pick(&ids) + 2];
                    String::from_utf8_lossy(&text[id.start..id.end]).into_owned()
                }
                1 => (ids.len() + 1 + rng.below(3)).to_string(),
                _ => rng.pick(&["0", "4294967295", "-1", "1.5", "\"1\"", "null", "18446744073709551615"]).to_string(),
            };
            Some(splice(text, value.start, value.end, new.as_bytes(), "$ref"))
        }
        4 => {
            let mut types = key_named("\"$type\"");
            if types.is_empty() {
                types = key_named("\"type\"");
            }
            if types.is_empty() {
                return None;
            }
            let value = tokens[*rng.pick(&types) + 2];
            let new = match rng.below(4) {
                0 | 1 => {
                    let other = tokens[*rng.pick(&types) + 2];
                    String::from_utf8_lossy(&text[other.start..other.end]).into_owned()
                }
                2 => rng.pick(&["\"Nope\"", "4294967041", "4294967040", "0", "null", "\"\""]).to_string(),
                _ => {
                    // A type ID the document's schema lists.
                    let ids = key_named("\"id\"");
                    if ids.is_empty() {
                        "1".to_owned()
                    } else {
                        let id = tokens[*rng.pick(&ids) + 2];
                        String::from_utf8_lossy(&text[id.start..id.end]).into_owned()
                    }
                }
            };
            Some(splice(text, value.start, value.end, new.as_bytes(), "$type"))
        }
        5 => {
            // A member duplicated right after itself, with its value or another's.
            if keys.is_empty() {
                return None;
            }
            let key = *rng.pick(&keys);
            let (start, end) = member_span(&tokens, key);
            let mut copy = b", ".to_vec();
            copy.extend_from_slice(&text[start..end]);
            Some(splice(text, end, end, &copy, "member duplicated"))
        }
        6 => {
            let opens: Vec<&Token> = tokens.iter().filter(|token| token.kind == Tok::Open(b'{')).collect();
            if opens.is_empty() {
                return None;
            }
            let open = **rng.pick(&opens);
            let next = tokens.iter().find(|token| token.start >= open.end);
            let comma = if next.is_some_and(|next| next.kind != Tok::Close(b'}')) { ", " } else { "" };
            let member =
                format!("\"{}\": {}{comma}", rng.pick(&MEMBERS), rng.pick(&["1", "\"x\"", "null", "{}", "[]", "2"]));
            Some(splice(text, open.end, open.end, member.as_bytes(), "member inserted"))
        }
        7 => {
            if keys.is_empty() {
                return None;
            }
            let key = rng.below(keys.len());
            let last = value_end(&tokens, keys[key] + 2);
            let (mut start, mut end) = (tokens[keys[key]].start, tokens[last].end);
            match (tokens.get(last + 1), keys[key].checked_sub(1).map(|i| tokens[i])) {
                (Some(next), _) if next.kind == Tok::Comma => end = next.end,
                (_, Some(before)) if before.kind == Tok::Comma => start = before.start,
                _ => {}
            }
            Some(splice(text, start, end, b"", "member deleted"))
        }
        8 => {
            // An array's first element duplicated (more references, objects listed twice).
            let arrays: Vec<usize> = (0..tokens.len().saturating_sub(1))
                .filter(|&i| tokens[i].kind == Tok::Open(b'[') && tokens[i + 1].kind != Tok::Close(b']'))
                .collect();
            if arrays.is_empty() {
                return None;
            }
            let first = *rng.pick(&arrays) + 1;
            let (start, end) = (tokens[first].start, tokens[value_end(&tokens, first)].end);
            let mut copy = b", ".to_vec();
            copy.extend_from_slice(&text[start..end]);
            // Now and then a long list (a few hundred KB at most): memory out of proportion to
            // the text shows there.
            let times = (*rng.pick(&[1, 1, 2, 100, 20_000])).min(300_000 / copy.len()).max(1);
            let copies = copy.repeat(times);
            Some(splice(text, end, end, &copies, "element duplicated"))
        }
        9 => {
            let values: Vec<usize> = (0..tokens.len())
                .filter(|&i| !matches!(tokens[i].kind, Tok::Close(_) | Tok::Colon | Tok::Comma | Tok::Other))
                .collect();
            let at = *rng.pick(&values);
            let (start, end) = (tokens[at].start, tokens[value_end(&tokens, at)].end);
            Some(splice(text, start, end, rng.pick(&VALUES).as_bytes(), "value replaced"))
        }
        10 => {
            // Deep nesting in place of a value: arrays, or objects of objects.
            let values: Vec<usize> =
                (0..tokens.len()).filter(|&i| matches!(tokens[i].kind, Tok::Open(_) | Tok::Num | Tok::Word)).collect();
            if values.is_empty() {
                return None;
            }
            let at = *rng.pick(&values);
            let (start, end) = (tokens[at].start, tokens[value_end(&tokens, at)].end);
            let depth = *rng.pick(&[64, 129, 300, 3000]);
            let nested = match rng.below(2) {
                0 => format!("{}0{}", "[".repeat(depth), "]".repeat(depth)),
                _ => format!("{}0{}", "{\"a\": ".repeat(depth), "}".repeat(depth)),
            };
            Some(splice(text, start, end, nested.as_bytes(), &format!("nesting {depth} deep")))
        }
        11 => {
            let at = rng.below(text.len());
            let flip = 1u8 << rng.below(8);
            text[at] ^= flip;
            Some(format!("byte {at} ^= {flip:#04x}"))
        }
        12 => {
            let (start, end) = range(rng, text.len());
            if rng.below(2) == 0 {
                text.drain(start..end);
                Some(format!("bytes {start}..{end} deleted"))
            } else {
                let at = rng.below(text.len() + 1);
                let copy = text[start..end].to_vec();
                text.splice(at..at, copy);
                Some(format!("bytes {start}..{end} copied to {at}"))
            }
        }
        _ => {
            let at = rng.below(text.len() + 1);
            text.truncate(at);
            Some(format!("cut at {at}"))
        }
    }
}

/// The first bytes of an input, to show where a problem came from: text as text, other bytes in
/// hex.
pub fn dump(input: &[u8], json: bool) -> String {
    let prefix = &input[..input.len().min(if json { 160 } else { 64 })];
    if json {
        format!("{:?}", String::from_utf8_lossy(prefix))
    } else {
        let mut out = String::new();
        for byte in prefix {
            let _ = write!(out, "{byte:02x}");
        }
        out
    }
}

// ---- child processes ----------------------------------------------------------------------------

/// Set in a child process to the name of the test it runs.
pub const CHILD: &str = "HOSTILE_SURFACES_CHILD";
/// Set in a child process to the first input it tries.
pub const START: &str = "HOSTILE_SURFACES_START";

/// `true` in the child process running `test`.
pub fn is_child(test: &str) -> bool {
    std::env::var(CHILD).is_ok_and(|name| name == test)
}

/// The first input a child tries.
pub fn start() -> usize {
    std::env::var(START).ok().and_then(|start| start.parse().ok()).unwrap_or(0)
}

/// How a child process ended.
pub struct ChildRun {
    /// `None` when it was killed for making no progress.
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl ChildRun {
    pub fn succeeded(&self) -> bool {
        self.status.is_some_and(|status| status.success())
    }

    pub fn how(&self) -> String {
        match self.status {
            None => "killed after making no progress".into(),
            Some(status) => status.to_string(),
        }
    }

    /// The last lines of its output, markers left out.
    pub fn tail(&self, lines: usize) -> String {
        let all: Vec<&str> = self
            .stdout
            .lines()
            .chain(self.stderr.lines())
            .filter(|line| !line.starts_with('@') && !line.starts_with('='))
            .filter(|line| !line.trim().is_empty())
            .collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }
}

/// How long a child may go without writing anything before it counts as hung.
const STALL: Duration = Duration::from_secs(120);

/// Runs test `test` of this binary alone in a child process, from input `start`; its output goes
/// to files, read back when it ends.
pub fn run_child(test: &str, start: usize) -> ChildRun {
    let stem = format!("hostile_surfaces-{}-{test}-{start}", std::process::id());
    let paths: [PathBuf; 2] = ["out", "err"].map(|kind| std::env::temp_dir().join(format!("{stem}.{kind}")));
    let files = paths.clone().map(|path| std::fs::File::create(path).expect("a temporary file"));
    let [out, err] = files;
    let started = Instant::now();
    let mut child = Command::new(std::env::current_exe().expect("the test binary"))
        .args([test, "--exact", "--nocapture", "--include-ignored", "--test-threads=1"])
        .env(CHILD, test)
        .env(START, start.to_string())
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .expect("the test binary runs");
    let (mut seen, mut moved) = (0, Instant::now());
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child is waited for") {
            break Some(status);
        }
        std::thread::sleep(Duration::from_millis(50));
        let size = paths.iter().map(|path| std::fs::metadata(path).map_or(0, |meta| meta.len())).sum::<u64>();
        if size != seen {
            (seen, moved) = (size, Instant::now());
        } else if moved.elapsed() > STALL {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
    };
    let [stdout, stderr] = paths.map(|path| {
        let text = std::fs::read(&path).map(|bytes| String::from_utf8_lossy(&bytes).into_owned()).unwrap_or_default();
        let _ = std::fs::remove_file(&path);
        text
    });
    ChildRun { status, stdout, stderr, elapsed: started.elapsed() }
}

/// Runs `body` in a child process (this test alone, re-run by the test binary), failing with its
/// output if it fails or dies: for reproductions that abort the process before their fix.
pub fn in_child(test: &str, body: impl FnOnce()) {
    if is_child(test) {
        body();
        return;
    }
    let run = run_child(test, 0);
    assert!(run.succeeded(), "`{test}` in a child process: {}\n{}", run.how(), run.tail(25));
}
