//! Reading the text form of a plain value (see [`PlainValue`]'s `Display`), guided by the type's
//! signature: the type decides what a token means (`3` is an integer for a `u8` field and a float
//! for an `f32` one), so the text needs no type annotations.
//!
//! A value the parser returns is one its type holds: a number in its type's range (a finite
//! decimal too large for a float is refused, never made infinity), an array of its length, a map
//! without a key given twice, an address that parses. So a refusal is found here, where its column
//! is known; every refusal names its column and quotes at most an excerpt of the text.

use super::codec::{self, static_size};
use super::{cut, type_name, PlainValue, TextError, EXCERPT, NAME_EXCERPT};
use crate::plain::described::{derived, lanes, PlainLayout};
use crate::plain::signature::split_all;
use crate::plain::signature::{split_type, Sig};
use crate::plain::type_ids as id;
use std::borrow::Cow;
use std::collections::HashSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::num::IntErrorKind;

/// Reads `text` as a value of the type `sig` describes. A `String` may be given bare (`oak` for
/// `"oak"`) when it is the whole text.
///
/// A text that is not a value of the type is a [`TextError::Syntax`] naming the column where it
/// goes wrong, quoting at most a short excerpt of it: an integer out of its type's range, a
/// finite decimal too large for its float type (infinity is spelt `inf`; a decimal is rounded
/// to the nearest float), an array of another length, a map key, set element or struct part
/// given twice.
///
/// ```
/// use reflectable::plain::PlainType;
/// use reflectable::text::{parse, PlainValue};
///
/// let mut signature = Vec::new();
/// <Vec<(u8, f32)>>::signature(&mut signature);
/// assert_eq!(parse(&signature, "[(1, 0.1), (2, inf)]").unwrap().to_string(), "[[1, 0.1], [2, inf]]");
/// let error = |text| parse(&signature, text).unwrap_err().to_string();
/// assert_eq!(error("[(1, 0.5), (256, 0.5)]"), "column 13: `256` is out of range for u8 (0 to 255)");
/// assert_eq!(error("[(1, 1e39)]"), "column 6: `1e39` is out of range for f32 (at most ±3.4028235e38)");
/// ```
pub fn parse(sig: &[u32], text: &str) -> Result<PlainValue, TextError> {
    let trimmed = text.trim();
    if matches!(split_type(sig), Some((Sig::Leaf(id::STRING | id::PATH_BUF), _, []))) && !trimmed.starts_with('"') {
        return Ok(PlainValue::Str(trimmed.to_owned()));
    }
    let mut parser = Parser { text, at: 0 };
    let value = parser.value(sig)?;
    parser.space();
    if parser.at < text.len() {
        return Err(parser.error("unexpected text after the value"));
    }
    Ok(value)
}

struct Parser<'t> {
    text: &'t str,
    /// Byte position.
    at: usize,
}

/// Nesting a text may have: each level costs stack.
const MAX_NESTING: usize = 64;

impl<'t> Parser<'t> {
    #[cold]
    fn error(&self, message: impl Into<String>) -> TextError {
        self.error_at(self.at, message)
    }

    /// An error about `word`, the token just read: placed where it starts, quoting at most an
    /// excerpt of it (`is` says what it is not), or saying what was `expected` when it is empty.
    #[cold]
    fn bad_word(&self, word: &str, is: &str, expected: &str) -> TextError {
        let message = match word.is_empty() {
            true => format!("expected {expected}"),
            false => format!("`{}` {is}", cut(word, EXCERPT)),
        };
        self.error_at(self.at - word.len(), message)
    }

    /// Where the next token starts (past spaces).
    fn start(&mut self) -> usize {
        self.space();
        self.at
    }

    #[cold]
    fn error_at(&self, at: usize, message: impl Into<String>) -> TextError {
        let column = self.text[..at.min(self.text.len())].chars().count() + 1;
        TextError::Syntax { column, message: message.into() }
    }

    fn rest(&self) -> &'t str {
        &self.text[self.at..]
    }

    fn space(&mut self) {
        let rest = self.rest();
        self.at += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, token: char) -> bool {
        self.space();
        if self.rest().starts_with(token) {
            self.at += token.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, token: char) -> Result<(), TextError> {
        match self.eat(token) {
            true => Ok(()),
            false => Err(self.error(format!("expected `{token}`"))),
        }
    }

    /// A run of characters that can make a number or a name.
    fn word(&mut self) -> &'t str {
        self.space();
        self.until(",:[](){}\"'")
    }

    /// The text up to whitespace or one of `stops`.
    fn until(&mut self, stops: &str) -> &'t str {
        let rest = self.rest();
        let len = rest.find(|c: char| c.is_whitespace() || stops.contains(c)).unwrap_or(rest.len());
        self.at += len;
        &rest[..len]
    }

    fn value(&mut self, sig: &[u32]) -> Result<PlainValue, TextError> {
        self.nested(sig, 0)
    }

    fn nested(&mut self, sig: &[u32], depth: usize) -> Result<PlainValue, TextError> {
        if depth > MAX_NESTING {
            return Err(self.error("nested too deep"));
        }
        let (node, _, _) = split_type(sig).ok_or_else(|| TextError::Undescribed { signature: sig.to_vec() })?;
        let next = depth + 1;
        Ok(match node {
            Sig::Leaf(type_id) => self.leaf(type_id, sig, next)?,
            Sig::Seq(head, elem) => {
                let mut seen = Seen::new(matches!(head, id::HASH_SET | id::BTREE_SET).then_some(elem), "element");
                PlainValue::Seq(self.list('[', ']', None, |parser| {
                    let start = parser.start();
                    let value = parser.nested(elem, next)?;
                    seen.admit(parser, start, &value)?;
                    Ok(value)
                })?)
            }
            Sig::Array(len, elem) => {
                let len = len as usize;
                PlainValue::Seq(self.list('[', ']', Some((len, sig)), |parser| parser.nested(elem, next))?)
            }
            Sig::Map(_, key, value) => {
                let mut seen = Seen::new(Some(key), "key");
                PlainValue::Map(self.list('{', '}', None, |parser| {
                    let start = parser.start();
                    let key = parser.nested(key, next)?;
                    seen.admit(parser, start, &key)?;
                    parser.expect(':')?;
                    Ok((key, parser.nested(value, next)?))
                })?)
            }
            Sig::Option(inner) => {
                self.space();
                let rest = self.rest();
                if rest.starts_with("None") && !rest[4..].starts_with(|c: char| c.is_alphanumeric() || c == '_') {
                    self.at += 4;
                    PlainValue::Opt(None)
                } else if rest.starts_with("Some(") {
                    self.at += 5;
                    let value = self.nested(inner, next)?;
                    self.expect(')')?;
                    PlainValue::Opt(Some(Box::new(value)))
                } else {
                    PlainValue::Opt(Some(Box::new(self.nested(inner, next)?)))
                }
            }
            Sig::Tuple(_, parts) => self.tuple(split_all(parts), next)?,
        })
    }

    /// `(a, b, ...)` or `[a, b, ...]`: exactly one value of each of `parts`, in order (a trailing
    /// comma allowed). Tuples and tuple structs.
    fn tuple<'s>(&mut self, parts: impl IntoIterator<Item = &'s [u32]>, depth: usize) -> Result<PlainValue, TextError> {
        let close = if self.eat('(') { ')' } else { self.expect('[').map(|()| ']')? };
        let mut values = Vec::new();
        for part in parts {
            if !values.is_empty() {
                self.expect(',')?;
            }
            values.push(self.nested(part, depth)?);
        }
        self.eat(',');
        self.expect(close)?;
        Ok(PlainValue::Seq(values))
    }

    /// `open item, item, ... close` (a trailing comma allowed); `exactly` so many items when
    /// the type (`sig`, for the message) is an array: an item too many is refused where it
    /// starts, before it is read, and too few at the close.
    fn list<T>(
        &mut self,
        open: char,
        close: char,
        exactly: Option<(usize, &[u32])>,
        mut item: impl FnMut(&mut Self) -> Result<T, TextError>,
    ) -> Result<Vec<T>, TextError> {
        self.expect(open)?;
        let mut items = Vec::new();
        while !self.eat(close) {
            if !items.is_empty() {
                self.expect(',')?;
                if self.eat(close) {
                    break;
                }
            }
            if let Some((len, sig)) = exactly.filter(|&(len, _)| items.len() == len) {
                self.space();
                return Err(self.error(format!("{} holds {len} elements, not more", type_name(sig))));
            }
            items.push(item(self)?);
        }
        match exactly {
            Some((len, sig)) if items.len() != len => {
                let message = format!("{} holds {len} elements, not {}", type_name(sig), items.len());
                Err(self.error_at(self.at - close.len_utf8(), message))
            }
            _ => Ok(items),
        }
    }

    /// An integer of the type `type_id` names, in its range.
    fn integer(&mut self, type_id: u32) -> Result<PlainValue, TextError> {
        let (min, max, name) = int_range(type_id).expect("an integer type");
        let signed = min < 0;
        let word = self.word();
        let digits = word.replace('_', "");
        let typed = |value: u128| match signed {
            true => PlainValue::Int(value as i128), // at most `max`, an `i128`'s at most
            false => PlainValue::UInt(value),
        };
        let value = match digits.parse::<i128>() {
            Ok(value) if value < 0 => (value >= min).then_some(PlainValue::Int(value)),
            Ok(value) => (value as u128 <= max).then(|| typed(value as u128)),
            Err(error) if *error.kind() == IntErrorKind::PosOverflow => {
                digits.parse::<u128>().ok().filter(|&value| value <= max).map(typed)
            }
            Err(error) if *error.kind() == IntErrorKind::NegOverflow => None,
            Err(_) => {
                let what = if signed { "an integer" } else { "an unsigned integer" };
                return Err(self.bad_word(word, &format!("is not {what}"), what));
            }
        };
        value.ok_or_else(|| self.bad_word(word, &format!("is out of range for {name} ({min} to {max})"), name))
    }

    /// A float: a finite decimal too large for the type is refused (infinity is spelt `inf`).
    fn float<T>(&mut self, name: &str, max: T) -> Result<T, TextError>
    where
        T: std::str::FromStr + std::fmt::LowerExp + Copy + Into<f64>,
    {
        let word = self.word();
        let value: T = word.parse().map_err(|_| self.bad_word(word, "is not a number", "a number"))?;
        let spelt_infinite = || {
            let unsigned = word.trim_start_matches(['+', '-']);
            unsigned.eq_ignore_ascii_case("inf") || unsigned.eq_ignore_ascii_case("infinity")
        };
        match value.into().is_infinite() && !spelt_infinite() {
            true => Err(self.bad_word(word, &format!("is out of range for {name} (at most ±{max:e})"), name)),
            false => Ok(value),
        }
    }

    fn leaf(&mut self, type_id: u32, sig: &[u32], depth: usize) -> Result<PlainValue, TextError> {
        Ok(match type_id {
            id::U8 | id::U16 | id::U32 | id::U64 | id::U128 | id::USIZE => self.integer(type_id)?,
            id::I8 | id::I16 | id::I32 | id::I64 | id::I128 | id::ISIZE => self.integer(type_id)?,
            id::F32 => PlainValue::F32(self.float("f32", f32::MAX)?),
            id::F64 => PlainValue::F64(self.float("f64", f64::MAX)?),
            id::BOOL => match self.word() {
                "true" => PlainValue::Bool(true),
                "false" => PlainValue::Bool(false),
                word => return Err(self.bad_word(word, "is not `true` or `false`", "`true` or `false`")),
            },
            id::CHAR => {
                let text = self.quoted('\'')?;
                let mut chars = text.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => PlainValue::Char(c),
                    _ => return Err(self.error("a char is one character in single quotes")),
                }
            }
            id::STRING | id::PATH_BUF => PlainValue::Str(self.quoted('"')?),
            id::IPV4_ADDR | id::IPV6_ADDR | id::IP_ADDR | id::SOCKET_ADDR => {
                let start = self.start();
                let text = match self.rest().starts_with('"') {
                    true => self.quoted('"')?,
                    false => self.address().to_owned(),
                };
                let (valid, what) = match type_id {
                    id::IPV4_ADDR => (text.parse::<Ipv4Addr>().is_ok(), "an IPv4 address"),
                    id::IPV6_ADDR => (text.parse::<Ipv6Addr>().is_ok(), "an IPv6 address"),
                    id::IP_ADDR => (text.parse::<IpAddr>().is_ok(), "an IP address"),
                    _ => (codec::parse_socket(&text).is_some(), "a socket address"),
                };
                match valid {
                    true => PlainValue::Str(text),
                    false => return Err(self.error_at(start, format!("`{}` is not {what}", cut(&text, EXCERPT)))),
                }
            }
            id::DURATION => self.named_parts(&[("secs", &[id::U64]), ("nanos", &[id::U32])], depth, under_a_second)?,
            id::SYSTEM_TIME => {
                self.named_parts(&[("secs", &[id::I64]), ("nanos", &[id::U32])], depth, under_a_second)?
            }
            _ => match (lanes(type_id), derived(type_id)) {
                (Some(lanes), _) => match lanes.names {
                    Some(names) => {
                        let parts: Vec<_> =
                            names.iter().map(|&name| (name, std::slice::from_ref(&lanes.lane))).collect();
                        self.named_parts(&parts, depth, any_value)?
                    }
                    None => PlainValue::Seq(self.list('[', ']', Some((lanes.count, sig)), |parser| {
                        parser.leaf(lanes.lane, &[lanes.lane], depth)
                    })?),
                },
                (None, Some(PlainLayout::Struct(fields))) => {
                    let parts: Vec<_> = fields.iter().map(|(name, sig)| (*name, sig.as_slice())).collect();
                    self.named_parts(&parts, depth, any_value)?
                }
                (None, Some(PlainLayout::Tuple(fields))) => self.tuple(fields.iter().map(Vec::as_slice), depth)?,
                (None, Some(PlainLayout::Enum(variants))) => {
                    let word = self.word();
                    match variants.iter().find(|(name, _)| *name == word) {
                        Some((name, _)) => PlainValue::Variant(Cow::Borrowed(name)),
                        None => {
                            let names = listed(variants.iter().map(|(name, _)| *name));
                            return Err(self.bad_word(word, &format!("is not one of {names}"), "a variant's name"));
                        }
                    }
                }
                // A type this program cannot take apart: its bytes, in hex (serde values too).
                (None, None) => self.raw(sig)?,
            },
        })
    }

    /// `{name: value, ...}` with exactly the given parts, each once, in any order; `check`
    /// refuses a part's value its type holds but the whole does not (a second's nanoseconds).
    fn named_parts(
        &mut self,
        parts: &[(&'static str, &[u32])],
        depth: usize,
        check: fn(&str, &PlainValue) -> Option<String>,
    ) -> Result<PlainValue, TextError> {
        let mut values: Vec<Option<PlainValue>> = vec![None; parts.len()];
        self.list('{', '}', None, |parser| {
            let name_at = parser.start();
            let name = parser.word();
            let at = parts.iter().position(|(part, _)| *part == name).ok_or_else(|| {
                let names = listed(parts.iter().map(|(part, _)| *part));
                let message = match name.is_empty() {
                    true => format!("expected a part's name: {names}"),
                    false => format!("no part `{}`; the parts are {names}", cut(name, EXCERPT)),
                };
                parser.error_at(name_at, message)
            })?;
            if values[at].is_some() {
                return Err(parser.error_at(name_at, format!("part `{name}` is given twice")));
            }
            parser.expect(':')?;
            let value_at = parser.start();
            let value = parser.nested(parts[at].1, depth)?;
            if let Some(message) = check(name, &value) {
                return Err(parser.error_at(value_at, message));
            }
            values[at] = Some(value);
            Ok(())
        })?;
        let mut named = Vec::with_capacity(parts.len());
        for ((name, _), value) in parts.iter().zip(values) {
            let value = value.ok_or_else(|| self.error(format!("part `{name}` is missing")))?;
            named.push((Cow::Borrowed(*name), value));
        }
        Ok(PlainValue::Struct(named))
    }

    /// A network address: everything up to a separator that cannot be part of one (`:` and
    /// brackets can: `[::1]:80`).
    fn address(&mut self) -> &'t str {
        self.until(",(){}\"'")
    }

    fn raw(&mut self, sig: &[u32]) -> Result<PlainValue, TextError> {
        let word = self.word();
        let hex = word.strip_prefix("0x").filter(|hex| hex.len() % 2 == 0);
        let bytes = hex.and_then(|hex| {
            (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
                .collect::<Option<Vec<u8>>>()
        });
        match bytes {
            Some(bytes) => Ok(PlainValue::Raw(bytes)),
            None => {
                let message = match static_size(sig) {
                    Err(_) => format!("cannot take apart values of {}: give their bytes as `0x...`", type_name(sig)),
                    Ok(_) => "expected the value's bytes as `0x...`".to_owned(),
                };
                Err(self.error_at(self.at - word.len(), message))
            }
        }
    }

    /// A quoted string with Rust's escapes (`\"`, `\\`, `\n`, `\t`, `\r`, `\0`, `\u{...}`).
    fn quoted(&mut self, quote: char) -> Result<String, TextError> {
        self.expect(quote)?;
        let opening = self.at - 1;
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((offset, c)) = chars.next() {
            match c {
                c if c == quote => {
                    self.at += offset + 1;
                    return Ok(out);
                }
                '\\' => {
                    let escape_at = self.at + offset;
                    let escaped = match chars.next().map(|(_, c)| c) {
                        Some('n') => '\n',
                        Some('t') => '\t',
                        Some('r') => '\r',
                        Some('0') => '\0',
                        Some(c @ ('\\' | '"' | '\'')) => c,
                        Some('u') => {
                            let code: String = chars.by_ref().map(|(_, c)| c).take_while(|&c| c != '}').collect();
                            let code = code.strip_prefix('{').and_then(|hex| u32::from_str_radix(hex, 16).ok());
                            match code.and_then(char::from_u32) {
                                Some(c) => c,
                                None => return Err(self.error_at(escape_at, "a `\\u{...}` escape names no character")),
                            }
                        }
                        _ => return Err(self.error_at(escape_at, "an unknown escape")),
                    };
                    out.push(escaped);
                }
                c => out.push(c),
            }
        }
        Err(self.error_at(opening, format!("no closing `{quote}`")))
    }
}

/// The range of values of the integer type `type_id`, and its name (`usize` and `isize` are 64
/// bits wide in the format).
fn int_range(type_id: u32) -> Option<(i128, u128, &'static str)> {
    Some(match type_id {
        id::U8 => (0, u8::MAX.into(), "u8"),
        id::U16 => (0, u16::MAX.into(), "u16"),
        id::U32 => (0, u32::MAX.into(), "u32"),
        id::U64 => (0, u64::MAX.into(), "u64"),
        id::USIZE => (0, u64::MAX.into(), "usize"),
        id::U128 => (0, u128::MAX, "u128"),
        id::I8 => (i8::MIN.into(), i8::MAX as u128, "i8"),
        id::I16 => (i16::MIN.into(), i16::MAX as u128, "i16"),
        id::I32 => (i32::MIN.into(), i32::MAX as u128, "i32"),
        id::I64 => (i64::MIN.into(), i64::MAX as u128, "i64"),
        id::ISIZE => (i64::MIN.into(), i64::MAX as u128, "isize"),
        id::I128 => (i128::MIN, i128::MAX as u128, "i128"),
        _ => return None,
    })
}

/// Names for a message, as many as fit in [`NAME_EXCERPT`] characters, then `…`.
fn listed<'n>(names: impl Iterator<Item = &'n str>) -> String {
    let mut out = String::new();
    for name in names {
        if out.chars().count() + name.chars().count() > NAME_EXCERPT {
            out.push_str(", …");
            break;
        }
        if !out.is_empty() {
            out.push_str(", ");
        }
        out.push_str(name);
    }
    out
}

/// Any value of a part's type is one the whole holds.
fn any_value(_: &str, _: &PlainValue) -> Option<String> {
    None
}

/// A `Duration`'s or `SystemTime`'s `nanos` is less than a second.
fn under_a_second(name: &str, value: &PlainValue) -> Option<String> {
    match value {
        PlainValue::UInt(nanos) if name == "nanos" && *nanos >= 1_000_000_000 => {
            Some(format!("`{nanos}` is out of range for nanos (0 to 999999999)"))
        }
        _ => None,
    }
}

/// The keys of a map (or the elements of a set) read so far, by their bytes: the map would keep
/// one of two equal keys and drop the other's value, so a key given twice is refused. `sig`
/// is `None` for a sequence that may repeat elements.
struct Seen<'s> {
    sig: Option<&'s [u32]>,
    what: &'static str,
    keys: HashSet<Vec<u8>>,
}

impl<'s> Seen<'s> {
    fn new(sig: Option<&'s [u32]>, what: &'static str) -> Self {
        Seen { sig, what, keys: HashSet::new() }
    }

    /// Refuses `value`, read from `start` to where `parser` is, if it was read before. A value
    /// that does not write (a type this program cannot take apart) is left to the writer.
    fn admit(&mut self, parser: &Parser<'_>, start: usize, value: &PlainValue) -> Result<(), TextError> {
        let Some(sig) = self.sig else { return Ok(()) };
        let mut bytes = Vec::new();
        if codec::write_value(sig, value, &mut bytes).is_ok() && !self.keys.insert(bytes) {
            let text = parser.text[start..parser.at].trim_end();
            let message = format!("{} `{}` is given twice", self.what, cut(text, EXCERPT));
            return Err(parser.error_at(start, message));
        }
        Ok(())
    }
}
