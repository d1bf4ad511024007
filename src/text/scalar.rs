//! The commonest plain values (numbers, `bool`, `char`, `String`, single or as a list, and
//! arrays of them such as `[f32; 3]`) read straight from their stored bytes, with no value tree:
//! what a tool printing every field of a large file spends most of its time on. Anything else
//! goes through [`PlainValue`](super::PlainValue), which shows these the same way.

use super::value::shortest;
use crate::plain::{type_ids as id, PlainType, Reader};
use smallvec::SmallVec;
use std::fmt;

/// One scalar.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scalar<'a> {
    Unsigned(u64),
    Signed(i64),
    F32(f32),
    F64(f64),
    Bool(bool),
    Char(char),
    Str(&'a str),
}

/// The scalars of one plain field: one value, or a list; `leaf` is their type's ID.
#[derive(Debug, Clone)]
pub(crate) struct Scalars<'a> {
    #[cfg_attr(not(feature = "json"), allow(dead_code))] // only the JSON form reads it
    pub(crate) leaf: u32,
    pub(crate) values: SmallVec<[Scalar<'a>; 4]>,
    pub(crate) list: bool,
}

/// The field's `count` stored elements of type `signature` as scalars, when that type is a
/// scalar (elements of an `array` field, or one value) or an array of one (`[f32; 3]`); `None`
/// sends the value the general way.
pub(crate) fn scalars<'a>(signature: &[u32], count: usize, array: bool, bytes: &'a [u8]) -> Option<Scalars<'a>> {
    let (leaf, per_element, list) = match (signature, array) {
        (&[leaf], array) => (leaf, 1, array),
        (&[id::ARRAY, len, leaf], false) => (leaf, len as usize, true),
        _ => return None,
    };
    // Every scalar takes at least a byte: a hostile count ends the loop with the bytes.
    let total = per_element.checked_mul(count)?;
    if !list && total != 1 {
        return None;
    }
    let mut reader = Reader::new(bytes);
    let mut values = SmallVec::with_capacity(total.min(64));
    for _ in 0..total {
        values.push(scalar(leaf, &mut reader)?);
    }
    reader.is_empty().then_some(Scalars { leaf, values, list })
}

fn scalar<'a>(leaf: u32, reader: &mut Reader<'a>) -> Option<Scalar<'a>> {
    fn typed<T: PlainType>(reader: &mut Reader<'_>) -> Option<T> {
        T::read(reader).ok()
    }
    Some(match leaf {
        id::U8 => Scalar::Unsigned(typed::<u8>(reader)?.into()),
        id::U16 => Scalar::Unsigned(typed::<u16>(reader)?.into()),
        id::U32 => Scalar::Unsigned(typed::<u32>(reader)?.into()),
        id::U64 | id::USIZE => Scalar::Unsigned(typed::<u64>(reader)?),
        id::I8 => Scalar::Signed(typed::<i8>(reader)?.into()),
        id::I16 => Scalar::Signed(typed::<i16>(reader)?.into()),
        id::I32 => Scalar::Signed(typed::<i32>(reader)?.into()),
        id::I64 | id::ISIZE => Scalar::Signed(typed::<i64>(reader)?),
        id::F32 => Scalar::F32(typed(reader)?),
        id::F64 => Scalar::F64(typed(reader)?),
        id::BOOL => Scalar::Bool(typed(reader)?),
        id::CHAR => Scalar::Char(typed(reader)?),
        id::STRING => {
            // Element form: a size that counts itself, then the UTF-8 bytes.
            let size = reader.read_u32().ok()? as usize;
            let text = reader.take(size.checked_sub(4)?).ok()?;
            Scalar::Str(std::str::from_utf8(text).ok()?)
        }
        _ => return None,
    })
}

/// The text form, as [`PlainValue`](super::PlainValue) writes it.
impl fmt::Display for Scalar<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Scalar::Unsigned(value) => write!(f, "{value}"),
            Scalar::Signed(value) => write!(f, "{value}"),
            Scalar::F32(value) => shortest(f, value, ryu::Buffer::new().format_finite(value)),
            Scalar::F64(value) => shortest(f, value, ryu::Buffer::new().format_finite(value)),
            Scalar::Bool(value) => write!(f, "{value}"),
            Scalar::Char(value) => write!(f, "{value:?}"),
            Scalar::Str(value) => write!(f, "{value:?}"),
        }
    }
}

impl fmt::Display for Scalars<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.list, self.values.as_slice()) {
            (false, [value]) => value.fmt(f),
            (_, values) => {
                f.write_str("[")?;
                for (n, value) in values.iter().enumerate() {
                    if n > 0 {
                        f.write_str(", ")?;
                    }
                    value.fmt(f)?;
                }
                f.write_str("]")
            }
        }
    }
}

/// A plain value ready to show as text (see
/// [`DynamicSection::plain_text`](crate::dynamic::DynamicSection::plain_text)): read straight from
/// its bytes when it is a scalar or a list of them, else taken apart into a
/// [`PlainValue`](super::PlainValue). Both show the same text.
#[derive(Debug, Clone)]
pub struct PlainText<'a>(pub(crate) Text<'a>);

#[derive(Debug, Clone)]
pub(crate) enum Text<'a> {
    Scalars(Scalars<'a>),
    Value(super::PlainValue),
}

impl fmt::Display for PlainText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Text::Scalars(scalars) => scalars.fmt(f),
            Text::Value(value) => value.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plain::write_elem;

    /// The scalars of `values` show what the general reading shows.
    fn same<T: PlainType>(values: &[T], array: bool) {
        let mut signature = Vec::new();
        T::signature(&mut signature);
        let mut bytes = Vec::new();
        values.iter().for_each(|value| write_elem(value, &mut bytes));
        let fast = scalars(&signature, values.len(), array, &bytes).expect("scalars");
        let size = T::STATIC_SIZE.and_then(|size| u8::try_from(size).ok());
        let general = super::super::read_field(&signature, size, values.len(), array, &bytes).unwrap();
        assert_eq!(fast.to_string(), general.to_string());
    }

    #[test]
    fn scalars_show_as_plain_values_do() {
        same(&[7u8], false);
        same(&[i64::MIN], false);
        same(&[u64::MAX, 0], true);
        same(&[1.0f32, 0.1, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e-45, 3.4e38], true);
        same(&[2.5f64, 1e300, f64::NAN, 1e-7, 123456789.125, 0.30000000000000004], true);
        same(&[1e-7f32, 16777216.0, 1e16, 1e17, 0.3], true);
        same(&[true, false], true);
        same(&['x', '\n', '\u{1F600}'], true);
        same(&["plain".to_owned(), "quote \" and \\ and \n".to_owned(), String::new()], true);
        same(&[[1.5f32, -2.0, 3.25]], false);
    }

    #[test]
    fn other_types_and_bad_bytes_go_the_general_way() {
        let mut signature = Vec::new();
        <Option<u32>>::signature(&mut signature);
        assert!(scalars(&signature, 1, false, &[1, 0, 0, 0, 0]).is_none(), "an option is not a scalar");
        assert!(scalars(&[id::BOOL], 1, false, &[2]).is_none(), "a bool byte of 2 is not a bool");
        assert!(scalars(&[id::STRING], 1, false, &[6, 0, 0, 0, 0xFF, 0xFE]).is_none(), "not UTF-8");
        assert!(scalars(&[id::U32], 2, false, &[0; 8]).is_none(), "a single field holds one value");
        assert!(scalars(&[id::U32], u32::MAX as usize, true, &[0; 8]).is_none(), "a count the bytes cannot hold");
    }
}
