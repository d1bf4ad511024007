//! Reading the text form of a plain value (see [`PlainValue`]'s `Display`), guided by the type's
//! signature: the type decides what a token means (`3` is an integer for a `u8` field and a float
//! for an `f32` one), so the text needs no type annotations.

use super::codec::static_size;
use super::described::{derived, lanes, PlainLayout};
use super::{PlainValue, TextError};
use crate::plain::type_ids as id;
use crate::schema::describe::split_all;
use crate::schema::describe::{split_type, Sig};
use std::borrow::Cow;

/// Reads `text` as a value of the type `sig` describes. A `String` may be given bare (`oak` for
/// `"oak"`) when it is the whole text.
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

    /// An error about `word`, the token just read: placed where it starts.
    #[cold]
    fn bad_word(&self, word: &str, message: impl Into<String>) -> TextError {
        self.error_at(self.at - word.len(), message)
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
            Sig::Seq(_, elem) | Sig::Array(_, elem) => {
                PlainValue::Seq(self.list('[', ']', |parser| parser.nested(elem, next))?)
            }
            Sig::Map(_, key, value) => PlainValue::Map(self.list('{', '}', |parser| {
                let key = parser.nested(key, next)?;
                parser.expect(':')?;
                Ok((key, parser.nested(value, next)?))
            })?),
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

    /// `open item, item, ... close` (a trailing comma allowed).
    fn list<T>(
        &mut self,
        open: char,
        close: char,
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
            items.push(item(self)?);
        }
        Ok(items)
    }

    fn leaf(&mut self, type_id: u32, sig: &[u32], depth: usize) -> Result<PlainValue, TextError> {
        Ok(match type_id {
            id::U8 | id::U16 | id::U32 | id::U64 | id::U128 | id::USIZE => {
                let word = self.word();
                let value = word.replace('_', "").parse();
                PlainValue::UInt(
                    value.map_err(|_| self.bad_word(word, format!("`{word}` is not an unsigned integer")))?,
                )
            }
            id::I8 | id::I16 | id::I32 | id::I64 | id::I128 | id::ISIZE => {
                let word = self.word();
                let value = word.replace('_', "").parse();
                PlainValue::Int(value.map_err(|_| self.bad_word(word, format!("`{word}` is not an integer")))?)
            }
            id::F32 => {
                let word = self.word();
                PlainValue::F32(word.parse().map_err(|_| self.bad_word(word, format!("`{word}` is not a number")))?)
            }
            id::F64 => {
                let word = self.word();
                PlainValue::F64(word.parse().map_err(|_| self.bad_word(word, format!("`{word}` is not a number")))?)
            }
            id::BOOL => match self.word() {
                "true" => PlainValue::Bool(true),
                "false" => PlainValue::Bool(false),
                word => return Err(self.bad_word(word, format!("`{word}` is not `true` or `false`"))),
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
                self.space();
                match self.rest().starts_with('"') {
                    true => PlainValue::Str(self.quoted('"')?),
                    false => PlainValue::Str(self.address().to_owned()),
                }
            }
            id::DURATION => self.named_parts(&[("secs", &[id::U64]), ("nanos", &[id::U32])], depth)?,
            id::SYSTEM_TIME => self.named_parts(&[("secs", &[id::I64]), ("nanos", &[id::U32])], depth)?,
            _ => match (lanes(type_id), derived(type_id)) {
                (Some(lanes), _) => match lanes.names {
                    Some(names) => {
                        let parts: Vec<_> =
                            names.iter().map(|&name| (name, std::slice::from_ref(&lanes.lane))).collect();
                        self.named_parts(&parts, depth)?
                    }
                    None => {
                        PlainValue::Seq(self.list('[', ']', |parser| parser.leaf(lanes.lane, &[lanes.lane], depth))?)
                    }
                },
                (None, Some(PlainLayout::Struct(fields))) => {
                    let parts: Vec<_> = fields.iter().map(|(name, sig)| (*name, sig.as_slice())).collect();
                    self.named_parts(&parts, depth)?
                }
                (None, Some(PlainLayout::Tuple(fields))) => self.tuple(fields.iter().map(Vec::as_slice), depth)?,
                (None, Some(PlainLayout::Enum(variants))) => {
                    let word = self.word();
                    match variants.iter().find(|(name, _)| *name == word) {
                        Some((name, _)) => PlainValue::Variant(Cow::Borrowed(name)),
                        None => {
                            let names: Vec<_> = variants.iter().map(|(name, _)| *name).collect();
                            return Err(self.bad_word(word, format!("`{word}` is not one of {}", names.join(", "))));
                        }
                    }
                }
                // A type this program cannot take apart: its bytes, in hex (serde values too).
                (None, None) => self.raw(sig)?,
            },
        })
    }

    /// `{name: value, ...}` with exactly the given parts, in any order.
    fn named_parts(&mut self, parts: &[(&'static str, &[u32])], depth: usize) -> Result<PlainValue, TextError> {
        let mut values: Vec<Option<PlainValue>> = vec![None; parts.len()];
        self.list('{', '}', |parser| {
            let name = parser.word().to_owned();
            let at = parts.iter().position(|(part, _)| *part == name).ok_or_else(|| {
                let names: Vec<_> = parts.iter().map(|(part, _)| *part).collect();
                parser.error(format!("no part `{name}`; the parts are {}", names.join(", ")))
            })?;
            parser.expect(':')?;
            values[at] = Some(parser.nested(parts[at].1, depth)?);
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
            None => Err(match static_size(sig) {
                Err(undescribed) => undescribed,
                Ok(_) => self.error("expected the value's bytes as `0x...`"),
            }),
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
                                None => return Err(self.error("a `\\u{...}` escape names no character")),
                            }
                        }
                        _ => return Err(self.error("an unknown escape")),
                    };
                    out.push(escaped);
                }
                c => out.push(c),
            }
        }
        Err(self.error_at(opening, format!("no closing `{quote}`")))
    }
}
