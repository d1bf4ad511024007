//! [`PlainValue`]: a plain value as a tree, whatever its Rust type, and its text form.

use std::borrow::Cow;
use std::fmt::{self, Write};

/// A plain value taken apart: what its wire bytes say, given its type's signature. Text, JSON and
/// tools show and edit plain values through it, so every plain type reads and writes the same
/// way, including types only a file describes.
#[derive(Debug, Clone, PartialEq)]
pub enum PlainValue {
    /// `bool`.
    Bool(bool),
    /// A signed integer of any width.
    Int(i128),
    /// An unsigned integer of any width.
    UInt(u128),
    /// `f32`.
    F32(f32),
    /// `f64`.
    F64(f64),
    /// `char`.
    Char(char),
    /// `String`, and values shown as text (paths, network addresses).
    Str(String),
    /// Sequences, sets, arrays and tuples.
    Seq(Vec<PlainValue>),
    /// Maps, in stored order.
    Map(Vec<(PlainValue, PlainValue)>),
    /// `Option<T>`.
    Opt(Option<Box<PlainValue>>),
    /// A struct of named parts: a derived plain struct, a glam vector, a `Duration`.
    Struct(Vec<(Cow<'static, str>, PlainValue)>),
    /// A variant of a fieldless enum, by name.
    Variant(Cow<'static, str>),
    /// The bytes of a value whose type this program cannot take apart.
    Raw(Vec<u8>),
}

impl PlainValue {
    /// The part named `name` of a struct value.
    pub fn part(&self, name: &str) -> Option<&PlainValue> {
        match self {
            PlainValue::Struct(parts) => parts.iter().find(|(part, _)| part == name).map(|(_, value)| value),
            _ => None,
        }
    }
}

/// The text form: Rust-like literals (`3.5`, `"oak"`, `'x'`, `[1, 2]`, `{x: 1, y: 2}`, `Some(3)`,
/// `None`, a variant's name, `0x0a0b` for raw bytes), which [`parse`](super::parse) reads back.
impl fmt::Display for PlainValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlainValue::Bool(value) => write!(f, "{value}"),
            PlainValue::Int(value) => write!(f, "{value}"),
            PlainValue::UInt(value) => write!(f, "{value}"),
            PlainValue::F32(value) => shortest(f, *value, ryu::Buffer::new().format_finite(*value)),
            PlainValue::F64(value) => shortest(f, *value, ryu::Buffer::new().format_finite(*value)),
            PlainValue::Char(value) => write!(f, "{value:?}"),
            PlainValue::Str(value) => write!(f, "{value:?}"),
            PlainValue::Seq(values) => list(f, '[', ']', values.iter().map(|value| (None, value))),
            PlainValue::Map(entries) => {
                f.write_char('{')?;
                for (n, (key, value)) in entries.iter().enumerate() {
                    write!(f, "{}{key}: {value}", if n == 0 { "" } else { ", " })?;
                }
                f.write_char('}')
            }
            PlainValue::Opt(None) => f.write_str("None"),
            PlainValue::Opt(Some(value)) => write!(f, "Some({value})"),
            PlainValue::Struct(parts) => list(f, '{', '}', parts.iter().map(|(name, value)| (Some(name), value))),
            PlainValue::Variant(name) => f.write_str(name),
            PlainValue::Raw(bytes) => {
                f.write_str("0x")?;
                bytes.iter().try_for_each(|byte| write!(f, "{byte:02x}"))
            }
        }
    }
}

/// A float's shortest text that reads back to it: ryu's digits (what JSON shows too), or, where
/// ryu would write an exponent (`1e-7`), `Display`'s (`0.0000001`), which the text form reads.
pub(super) fn shortest<T: Copy + fmt::Display + Into<f64>>(
    f: &mut fmt::Formatter<'_>,
    value: T,
    fast: &str,
) -> fmt::Result {
    let finite = value.into().is_finite();
    match finite && !fast.contains('e') {
        true => float(f, true, fast),
        false => float(f, finite, &value.to_string()),
    }
}

/// A float that reads back as a float: `1` is written `1.0`; `inf`, `-inf` and `NaN` as they are.
fn float(f: &mut fmt::Formatter<'_>, finite: bool, text: &str) -> fmt::Result {
    f.write_str(text)?;
    if finite && !text.contains(['.', 'e', 'E']) {
        f.write_str(".0")?;
    }
    Ok(())
}

fn list<'a>(
    f: &mut fmt::Formatter<'_>,
    open: char,
    close: char,
    items: impl Iterator<Item = (Option<&'a Cow<'static, str>>, &'a PlainValue)>,
) -> fmt::Result {
    f.write_char(open)?;
    for (n, (name, value)) in items.enumerate() {
        if n > 0 {
            f.write_str(", ")?;
        }
        if let Some(name) = name {
            write!(f, "{name}: ")?;
        }
        write!(f, "{value}")?;
    }
    f.write_char(close)
}
