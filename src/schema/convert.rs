//! Lossless conversions of plain fields (`FORMAT.md`, "Typed evolution"): which changes of a
//! field's plain type a decoder applies by itself, and the transcoding of stored bytes into the
//! bytes the running field reads.
//!
//! A conversion is decided once per stream and field from the two signatures; applying it turns
//! each stored element into an element of the running type, so the running field's own codec
//! then reads it as if it had been written that way.

use crate::field::{WireKind, WireShape};
use crate::plain::signature::{known_static_size, split_type, Sig};
use crate::plain::{type_ids as id, PlainError, Reader, DYNAMIC_SIZE_PREFIX};

/// Number classes, for the widening rules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Num {
    Unsigned(u32),
    Signed(u32),
    Float(u32),
}

fn number(type_id: u32) -> Option<Num> {
    Some(match type_id {
        id::U8 => Num::Unsigned(8),
        id::U16 => Num::Unsigned(16),
        id::U32 => Num::Unsigned(32),
        id::U64 | id::USIZE => Num::Unsigned(64),
        id::U128 => Num::Unsigned(128),
        id::I8 => Num::Signed(8),
        id::I16 => Num::Signed(16),
        id::I32 => Num::Signed(32),
        id::I64 | id::ISIZE => Num::Signed(64),
        id::I128 => Num::Signed(128),
        id::F32 => Num::Float(32),
        id::F64 => Num::Float(64),
        _ => return None,
    })
}

/// `true` when every value of `from` has an exact value in `to`: integer widening (unsigned to a
/// wider signed too), `f32` to `f64`, and integers to floats whose mantissa holds them (16 bits
/// to `f32`, 32 to `f64`).
fn widens(from: Num, to: Num) -> bool {
    match (from, to) {
        (Num::Unsigned(a), Num::Unsigned(b)) | (Num::Signed(a), Num::Signed(b)) | (Num::Float(a), Num::Float(b)) => {
            b >= a
        }
        (Num::Unsigned(a), Num::Signed(b)) => b > a,
        (Num::Unsigned(a) | Num::Signed(a), Num::Float(b)) => a <= if b == 32 { 16 } else { 32 },
        _ => false,
    }
}

/// `Some(n)` static, `Some(None)` dynamic, `None` when the format does not fix it.
type Size = Option<Option<u32>>;

/// `true` when one element of `from` can be turned into one of `to` without loss, and both sides
/// can be walked (the format knows their sizes).
fn elem_converts(from: &[u32], to: &[u32]) -> bool {
    if from == to {
        return known_static_size(from).is_some();
    }
    let (Some((from_node, _, _)), Some((to_node, _, _))) = (split_type(from), split_type(to)) else { return false };
    match (from_node, to_node) {
        (Sig::Leaf(a), Sig::Leaf(b)) => matches!((number(a), number(b)), (Some(a), Some(b)) if widens(a, b)),
        (Sig::Option(a), Sig::Option(b)) => elem_converts(a, b) && known_static_size(to).is_some(),
        (_, Sig::Option(inner)) => elem_converts(from, inner) && known_static_size(to).is_some(),
        (Sig::Array(n, a), Sig::Array(m, b)) => n == m && elem_converts(a, b) && known_static_size(to).is_some(),
        (Sig::Seq(s, a), Sig::Seq(t, b)) => s == t && elem_converts(a, b),
        _ => false,
    }
}

/// How a stored plain field becomes the running one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Conversion {
    /// The stored element type's signature.
    pub from: Vec<u32>,
    /// The running element type's signature.
    pub to: Vec<u32>,
    /// The stored element's wire kind (sizes an element copied as it is).
    stored_kind: WireKind,
    /// A single stored value becomes an array of one.
    pub into_array: bool,
    how: How,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    /// The element stays as it is (only the field became an array).
    Copy,
    /// `T` becomes `Some(T)`, `T` sized by the stored header (any plain type).
    WrapOption,
    /// Element by element, through the signatures.
    Transcode,
}

/// The conversion from a stored plain field to a running one, when a lossless one exists.
pub(crate) fn conversion(stored: (WireShape, &[u32]), running: (WireShape, &[u32])) -> Option<Conversion> {
    let (WireKind::Plain(_), WireKind::Plain(_)) = (stored.0.kind, running.0.kind) else { return None };
    let into_array = match (stored.0.array, running.0.array) {
        (false, true) => true,
        (a, b) if a == b => false,
        _ => return None,
    };
    let how = if stored.1 == running.1 {
        How::Copy
    } else if elem_converts(stored.1, running.1) {
        How::Transcode
    } else if matches!(split_type(running.1), Some((Sig::Option(inner), _, _)) if inner == stored.1) {
        How::WrapOption
    } else {
        return None;
    };
    if how == How::Copy && !into_array {
        return None;
    }
    Some(Conversion { from: stored.1.to_vec(), to: running.1.to_vec(), stored_kind: stored.0.kind, into_array, how })
}

impl Conversion {
    /// Transcodes one stored element from `reader` into `out`.
    pub(crate) fn element(&self, reader: &mut Reader<'_>, out: &mut Vec<u8>) -> Result<(), PlainError> {
        match self.how {
            How::Transcode => transcode_elem(&self.from, &self.to, reader, out),
            How::Copy => {
                out.extend_from_slice(self.stored_elem(reader)?);
                Ok(())
            }
            How::WrapOption => {
                let elem = self.stored_elem(reader)?;
                // `Option<T>` is static exactly when `T` is and the tag still fits the header.
                match self.stored_kind {
                    WireKind::Plain(Some(size)) if size < u8::MAX => out.push(1),
                    _ => {
                        let total = u32::try_from(DYNAMIC_SIZE_PREFIX + 1 + elem.len()).map_err(|_| {
                            PlainError::Invalid { offset: reader.offset(), what: "a converted value larger than 4 GiB" }
                        })?;
                        out.extend_from_slice(&total.to_le_bytes());
                        out.push(1);
                    }
                }
                out.extend_from_slice(elem);
                Ok(())
            }
        }
    }

    /// One stored element as it is, sized by the stored header.
    fn stored_elem<'a>(&self, reader: &mut Reader<'a>) -> Result<&'a [u8], PlainError> {
        match self.stored_kind {
            WireKind::Plain(Some(size)) => reader.take(usize::from(size)),
            _ => {
                let start = reader.offset();
                let rest = reader.rest();
                let size = reader.read_u32()? as usize;
                if size < DYNAMIC_SIZE_PREFIX {
                    return Err(PlainError::Invalid {
                        offset: start,
                        what: "dynamic size smaller than its own prefix",
                    });
                }
                reader.skip(size - DYNAMIC_SIZE_PREFIX)?;
                Ok(&rest[..size])
            }
        }
    }
}

fn size_of(sig: &[u32]) -> Size {
    known_static_size(sig)
}

/// One element of `from` into one of `to` (an element: dynamic types with their size prefix).
fn transcode_elem(from: &[u32], to: &[u32], reader: &mut Reader<'_>, out: &mut Vec<u8>) -> Result<(), PlainError> {
    let mut content = match size_of(from) {
        Some(Some(size)) => reader.sub_reader(size as usize)?,
        _ => {
            let start = reader.offset();
            let size = reader.read_u32()? as usize;
            let len = size
                .checked_sub(DYNAMIC_SIZE_PREFIX)
                .ok_or(PlainError::Invalid { offset: start, what: "dynamic size smaller than its own prefix" })?;
            reader.sub_reader(len)?
        }
    };
    let prefix_at = out.len();
    let dynamic = !matches!(size_of(to), Some(Some(_)));
    if dynamic {
        out.extend_from_slice(&[0; 4]);
    }
    transcode_content(from, to, &mut content, out)?;
    content.expect_end()?;
    reader.rejoin(&content);
    if dynamic {
        let size = u32::try_from(out.len() - prefix_at).map_err(|_| PlainError::Invalid {
            offset: reader.offset(),
            what: "a converted value larger than 4 GiB",
        })?;
        out[prefix_at..prefix_at + 4].copy_from_slice(&size.to_le_bytes());
    }
    Ok(())
}

fn transcode_content(from: &[u32], to: &[u32], reader: &mut Reader<'_>, out: &mut Vec<u8>) -> Result<(), PlainError> {
    if from == to {
        out.extend_from_slice(reader.take(reader.remaining())?);
        return Ok(());
    }
    let (Some((from_node, _, _)), Some((to_node, _, _))) = (split_type(from), split_type(to)) else {
        return Err(PlainError::Invalid { offset: reader.offset(), what: "no conversion between these types" });
    };
    match (from_node, to_node) {
        (Sig::Leaf(a), Sig::Leaf(b)) => number_content(a, b, reader, out),
        (Sig::Option(a), Sig::Option(b)) => {
            let offset = reader.offset();
            match reader.take_array::<1>()?[0] {
                0 => {
                    reader.skip(reader.remaining())?;
                    none_content(to, out);
                    Ok(())
                }
                1 => {
                    out.push(1);
                    transcode_elem(a, b, reader, out)
                }
                _ => Err(PlainError::Invalid { offset, what: "Option tag is neither 0 nor 1" }),
            }
        }
        (_, Sig::Option(inner)) => {
            // `from` was read as content: it is presented again as an element of `inner`.
            out.push(1);
            transcode_content_as_elem(from, inner, reader, out)
        }
        (Sig::Array(n, a), Sig::Array(_, b)) => {
            for _ in 0..n {
                transcode_elem(a, b, reader, out)?;
            }
            Ok(())
        }
        (Sig::Seq(_, a), Sig::Seq(_, b)) => {
            let min_elem = match size_of(a) {
                Some(Some(size)) => size as usize,
                _ => DYNAMIC_SIZE_PREFIX,
            };
            let count = reader.read_count(min_elem)?;
            out.extend_from_slice(&(count as u32).to_le_bytes());
            for _ in 0..count {
                transcode_elem(a, b, reader, out)?;
            }
            Ok(())
        }
        _ => Err(PlainError::Invalid { offset: reader.offset(), what: "no conversion between these types" }),
    }
}

/// The content of a `from` value (the whole of `reader`) written as an element of `to`.
fn transcode_content_as_elem(
    from: &[u32],
    to: &[u32],
    reader: &mut Reader<'_>,
    out: &mut Vec<u8>,
) -> Result<(), PlainError> {
    let prefix_at = out.len();
    let dynamic = !matches!(size_of(to), Some(Some(_)));
    if dynamic {
        out.extend_from_slice(&[0; 4]);
    }
    transcode_content(from, to, reader, out)?;
    if dynamic {
        let size = (out.len() - prefix_at) as u32;
        out[prefix_at..prefix_at + 4].copy_from_slice(&size.to_le_bytes());
    }
    Ok(())
}

/// `None` of the option type `to`: the tag, and for a static option zero padding.
fn none_content(to: &[u32], out: &mut Vec<u8>) {
    out.push(0);
    if let Some(Some(size)) = size_of(to) {
        out.resize(out.len() + size as usize - 1, 0);
    }
}

fn number_content(from: u32, to: u32, reader: &mut Reader<'_>, out: &mut Vec<u8>) -> Result<(), PlainError> {
    let bytes = reader.take(reader.remaining())?;
    let mut wide = [0u8; 16];
    wide[..bytes.len()].copy_from_slice(bytes);
    let negative = matches!(number(from), Some(Num::Signed(_))) && bytes.last().is_some_and(|byte| byte & 0x80 != 0);
    if negative {
        wide[bytes.len()..].fill(0xFF);
    }
    let float = match number(from) {
        Some(Num::Float(32)) => Some(f64::from(f32::from_le_bytes(bytes.try_into().unwrap_or_default()))),
        Some(Num::Float(_)) => Some(f64::from_le_bytes(bytes.try_into().unwrap_or_default())),
        _ => None,
    };
    let integer = i128::from_le_bytes(wide);
    match number(to) {
        Some(Num::Float(32)) => {
            let value = float.unwrap_or(integer as f64) as f32;
            out.extend_from_slice(&value.to_le_bytes());
        }
        Some(Num::Float(_)) => out.extend_from_slice(&float.unwrap_or(integer as f64).to_le_bytes()),
        Some(Num::Unsigned(bits) | Num::Signed(bits)) => {
            out.extend_from_slice(&integer.to_le_bytes()[..bits as usize / 8]);
        }
        None => return Err(PlainError::Invalid { offset: reader.offset(), what: "not a number type" }),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plain::signature::sig;
    use crate::plain::{read_elem, write_elem, PlainType};

    fn shape<T: PlainType>(array: bool) -> WireShape {
        WireShape { kind: WireKind::plain(crate::field::PlainInfo::of::<T>()), array }
    }

    /// Converts one `A` into a `B` through the field-level conversion.
    fn convert<A: PlainType, B: PlainType>(value: A) -> Option<B> {
        let conversion = conversion((shape::<A>(false), &sig::<A>()), (shape::<B>(false), &sig::<B>()))?;
        let mut stored = Vec::new();
        write_elem(&value, &mut stored);
        let mut out = Vec::new();
        let mut reader = Reader::new(&stored);
        conversion.element(&mut reader, &mut out).unwrap();
        assert!(reader.is_empty());
        Some(read_elem::<B>(&mut Reader::new(&out)).unwrap())
    }

    #[test]
    fn widening_keeps_every_value() {
        assert_eq!(convert::<u32, u64>(u32::MAX), Some(u64::from(u32::MAX)));
        assert_eq!(convert::<i8, i64>(-5), Some(-5));
        assert_eq!(convert::<u16, i32>(65535), Some(65535));
        assert_eq!(convert::<f32, f64>(1.5), Some(1.5));
        assert_eq!(convert::<i16, f32>(-300), Some(-300.0));
        assert_eq!(convert::<u32, f64>(u32::MAX), Some(f64::from(u32::MAX)));
        assert_eq!(convert::<u64, usize>(7), Some(7));
        assert_eq!(convert::<[i32; 2], [i64; 2]>([-1, 2]), Some([-1, 2]));
        assert_eq!(convert::<Vec<u8>, Vec<u32>>(vec![1, 255]), Some(vec![1, 255]));
        assert_eq!(convert::<u32, Option<u32>>(9), Some(Some(9)));
        assert_eq!(convert::<u16, Option<u64>>(9), Some(Some(9)));
        assert_eq!(convert::<String, Option<String>>("a".into()), Some(Some("a".into())));
        assert_eq!(convert::<Option<u8>, Option<u16>>(None), Some(None));
        assert_eq!(convert::<Option<i8>, Option<f64>>(Some(-2)), Some(Some(-2.0)));
    }

    #[test]
    fn lossy_changes_have_no_conversion() {
        assert_eq!(convert::<u32, f32>(1), None);
        assert_eq!(convert::<u64, u32>(1), None);
        assert_eq!(convert::<i32, u64>(1), None);
        assert_eq!(convert::<f64, f32>(1.0), None);
        assert_eq!(convert::<i32, f32>(1), None);
        assert_eq!(convert::<[u8; 2], [u8; 3]>([1, 2]), None);
        assert_eq!(convert::<Option<u32>, u32>(Some(1)), None);
        assert_eq!(convert::<String, u32>("x".into()), None);
    }

    #[test]
    fn a_single_value_becomes_an_array_of_one() {
        let widen = conversion((shape::<u16>(false), &sig::<u16>()), (shape::<u32>(true), &sig::<u32>())).unwrap();
        assert!(widen.into_array);
        let mut out = Vec::new();
        widen.element(&mut Reader::new(&7u16.to_le_bytes()), &mut out).unwrap();
        assert_eq!(out, 7u32.to_le_bytes());
        let same = conversion((shape::<String>(false), &sig::<String>()), (shape::<String>(true), &sig::<String>()));
        assert!(same.is_some_and(|same| same.into_array));
        assert!(conversion((shape::<u16>(true), &sig::<u16>()), (shape::<u16>(false), &sig::<u16>())).is_none());
    }
}
