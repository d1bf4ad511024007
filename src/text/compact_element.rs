//! Compact elements (`FORMAT.md`, "Compact plain elements") and [`PlainValue`]s, both ways,
//! driven by the type's signature: the compact counterpart of `codec.rs`, with which it shares the
//! reading and writing of every value's content.
//!
//! By its signature, a type's compact element has one of four shapes: a varint (the integer
//! leaves of 16 bits and more, `char`), its normal content (every other static type), its normal
//! content framed by a varint length (dynamic leaves: strings, paths, serde values), or its parts
//! in compact form (sequences, maps, dynamic options, arrays and tuples, dynamic derived structs).

use super::codec::{count_of, read_content, static_size, undescribed, write_content, Form};
use super::memo;
use super::{PlainValue, TextError};
use crate::plain::described::{derived, PlainLayout};
use crate::plain::signature::Sig;
use crate::plain::{type_ids as id, varint, PlainType, Reader};

/// How a type is written in compact form.
enum Shape {
    /// A varint, of the integer type with this plain type ID.
    Varint(u32),
    /// The normal content, of the type's static size.
    Fixed(u32),
    /// A varint length, then the normal content.
    Framed,
    /// The parts, each in compact form (with varint counts).
    Parts,
}

fn shape(sig: &[u32]) -> Result<Shape, TextError> {
    let (node, _, _) = memo::split(sig).ok_or_else(|| undescribed(sig))?;
    if let Sig::Leaf(type_id) = node {
        if is_varint(type_id) {
            return Ok(Shape::Varint(type_id));
        }
    }
    if let Some(size) = static_size(sig)? {
        return Ok(Shape::Fixed(size));
    }
    Ok(match node {
        Sig::Leaf(type_id) => match derived(type_id) {
            Some(PlainLayout::Struct(_) | PlainLayout::Tuple(_)) => Shape::Parts,
            _ => Shape::Framed,
        },
        _ => Shape::Parts,
    })
}

fn is_varint(type_id: u32) -> bool {
    matches!(
        type_id,
        id::U16
            | id::U32
            | id::U64
            | id::U128
            | id::USIZE
            | id::I16
            | id::I32
            | id::I64
            | id::I128
            | id::ISIZE
            | id::CHAR
    )
}

/// Reads one compact element of type `sig`.
pub(super) fn read_value(sig: &[u32], reader: &mut Reader<'_>) -> Result<PlainValue, TextError> {
    match shape(sig)? {
        Shape::Varint(type_id) => read_varint(type_id, reader),
        Shape::Fixed(_) => read_content(sig, reader, Form::Normal),
        Shape::Framed => {
            let len = reader.read_compact_count(1)?;
            let mut content = reader.sub_reader(len)?;
            let value = read_content(sig, &mut content, Form::Normal)?;
            content.expect_end()?;
            reader.rejoin(&content);
            Ok(value)
        }
        Shape::Parts => read_content(sig, reader, Form::Compact),
    }
}

/// Appends `value` as one compact element of type `sig`.
pub(super) fn write_value(sig: &[u32], value: &PlainValue, out: &mut Vec<u8>) -> Result<(), TextError> {
    match shape(sig)? {
        Shape::Varint(type_id) => {
            // The normal writer checks the value against the type; the varint is made from its
            // bytes, so both forms take exactly the same values.
            let mut normal = Vec::new();
            write_content(sig, value, &mut normal, Form::Normal)?;
            recode_varint(type_id, &normal, out)
        }
        Shape::Fixed(_) => write_content(sig, value, out, Form::Normal),
        Shape::Framed => {
            let mut content = Vec::new();
            write_content(sig, value, &mut content, Form::Normal)?;
            varint::write_u64(u64::from(count_of(content.len())?), out);
            out.extend_from_slice(&content);
            Ok(())
        }
        Shape::Parts => write_content(sig, value, out, Form::Compact),
    }
}

/// The fewest bytes a compact element of type `sig` takes (what `PlainType::COMPACT_MIN_SIZE`
/// says of the type): a count read from the input is checked against it.
pub(super) fn min_size(sig: &[u32]) -> Result<usize, TextError> {
    memo::compact_min(sig, || work_out_min_size(sig))
}

fn work_out_min_size(sig: &[u32]) -> Result<usize, TextError> {
    let sum = |parts: &[&[u32]]| -> Result<usize, TextError> {
        parts.iter().try_fold(0usize, |total, part| Ok(total.saturating_add(min_size(part)?)))
    };
    Ok(match shape(sig)? {
        Shape::Varint(_) | Shape::Framed => 1,
        Shape::Fixed(size) => size as usize,
        Shape::Parts => match memo::split(sig).ok_or_else(|| undescribed(sig))?.0 {
            Sig::Array(len, elem) => (len as usize).saturating_mul(min_size(elem)?),
            Sig::Tuple(_, parts) => sum(&memo::split_all(parts))?,
            Sig::Leaf(type_id) => match derived(type_id) {
                Some(PlainLayout::Struct(fields)) => {
                    sum(&fields.iter().map(|(_, sig)| sig.as_slice()).collect::<Vec<_>>())?
                }
                Some(PlainLayout::Tuple(fields)) => sum(&fields.iter().map(Vec::as_slice).collect::<Vec<_>>())?,
                _ => 1,
            },
            Sig::Seq(..) | Sig::Map(..) | Sig::Option(_) => 1,
        },
    })
}

/// The integer types read and written as varints, with the value each becomes.
macro_rules! varint_types {
    ($($id:path => $t:ty, $variant:ident);* $(;)?) => {
        fn read_varint(type_id: u32, reader: &mut Reader<'_>) -> Result<PlainValue, TextError> {
            Ok(match type_id {
                $($id => PlainValue::$variant(<$t>::read_compact(reader)?.into()),)*
                _ => unreachable!("only varint types have the varint shape"),
            })
        }

        fn recode_varint(type_id: u32, normal: &[u8], out: &mut Vec<u8>) -> Result<(), TextError> {
            let mut reader = Reader::new(normal);
            match type_id {
                $($id => <$t>::read(&mut reader)?.write_compact(out),)*
                _ => unreachable!("only varint types have the varint shape"),
            }
            Ok(())
        }
    };
}

varint_types! {
    id::U16 => u16, UInt; id::U32 => u32, UInt; id::U64 => u64, UInt; id::USIZE => u64, UInt;
    id::U128 => u128, UInt; id::I16 => i16, Int; id::I32 => i32, Int; id::I64 => i64, Int;
    id::ISIZE => i64, Int; id::I128 => i128, Int; id::CHAR => char, Char;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plain::signature::sig;
    use crate::text::codec::{read_value as read_normal, write_value as write_normal};
    use quickcheck::quickcheck;
    use std::collections::BTreeMap;
    use std::fmt::Debug;

    #[derive(crate::PlainType, Debug, Clone, PartialEq)]
    #[plain(crate = crate, id = 9900)]
    struct Entry {
        id: u32,
        name: String,
        weights: Vec<i16>,
        at: (f32, f32),
    }

    #[derive(crate::PlainType, Debug, Clone, PartialEq)]
    #[plain(crate = crate, id = 9901)]
    struct Pair(i64, Option<String>);

    /// What the typed codecs write, read by signature, is the value the normal bytes give; and
    /// that value written by signature, in both forms, is what the typed codecs write.
    fn agrees<T: PlainType + Debug>(value: &T) {
        let signature = sig::<T>();
        let mut compact = Vec::new();
        value.write_compact(&mut compact);
        let mut normal = Vec::new();
        crate::plain::write_elem(value, &mut normal);

        let mut reader = Reader::new(&compact);
        let from_compact = read_value(&signature, &mut reader).unwrap_or_else(|e| panic!("{value:?}: {e}"));
        assert!(reader.is_empty(), "{value:?}: {} bytes left", reader.remaining());
        let from_normal = read_normal(&signature, &mut Reader::new(&normal)).unwrap();
        assert_eq!(from_compact, from_normal, "{value:?}");

        let mut again = Vec::new();
        write_value(&signature, &from_normal, &mut again).unwrap();
        assert_eq!(again, compact, "{value:?} written by signature");
        let mut again = Vec::new();
        write_normal(&signature, &from_compact, &mut again).unwrap();
        assert_eq!(again, normal, "{value:?} transcoded to normal");
        assert_eq!(min_size(&signature).unwrap(), T::COMPACT_MIN_SIZE, "{value:?}");
    }

    #[test]
    fn every_shape_agrees_with_the_typed_codecs() {
        agrees(&(7u16, String::from("door"), vec![300u32, 5]));
        agrees(&(-1i32, 'é', u128::MAX, i128::MIN, usize::MAX, isize::MIN));
        agrees(&(1u32, 2u32)); // static: normal bytes
        agrees(&Some(9u64)); // static option
        agrees(&Some(vec![1u8])); // dynamic option
        agrees(&[String::from("a"), String::new()]);
        agrees(&[300u32; 80]); // dynamic array of varints
        agrees(&vec![[0u8; 0]; 3]);
        agrees(&std::path::PathBuf::from("levels/a.lvl"));
        agrees(&BTreeMap::from([(2u8, vec![-5i64]), (1, vec![])]));
        agrees(&std::time::Duration::new(3, 4));
        agrees(&Entry { id: 70_000, name: "e".into(), weights: vec![-1, 1], at: (0.5, -0.5) });
        agrees(&vec![Pair(-3, None), Pair(i64::MAX, Some("x".into()))]);
    }

    quickcheck! {
        // Not hash maps: their entries are in the order of the keys' bytes, which differ between
        // the two forms.
        fn random_values_agree(a: Vec<(u32, String)>, b: BTreeMap<i16, Vec<char>>, c: Option<Vec<u64>>, d: (i64, bool, u8)) -> bool {
            agrees(&a);
            agrees(&b);
            agrees(&c);
            agrees(&d);
            agrees(&Entry { id: d.0 as u32, name: a.first().map(|x| x.1.clone()).unwrap_or_default(), weights: vec![d.0 as i16], at: (1.0, 2.0) });
            true
        }

        fn random_bytes_never_panic(bytes: Vec<u8>) -> bool {
            for signature in [sig::<Vec<String>>(), sig::<(u16, Option<String>, i128)>(), sig::<Entry>(), sig::<BTreeMap<char, Pair>>(), sig::<[u64; 70]>()] {
                let mut reader = Reader::new(&bytes);
                if let Ok(value) = read_value(&signature, &mut reader) {
                    let used = bytes.len() - reader.remaining();
                    let mut again = Vec::new();
                    write_value(&signature, &value, &mut again).unwrap();
                    assert_eq!(again, bytes[..used], "{value}");
                }
            }
            true
        }
    }

    #[test]
    fn hostile_counts_and_lengths_are_refused() {
        // A count of 2^32 - 1 strings in 5 bytes, and an array a signature claims over no bytes.
        let many = [0xFF, 0xFF, 0xFF, 0xFF, 0x0F];
        assert!(matches!(read_value(&sig::<Vec<String>>(), &mut Reader::new(&many)), Err(TextError::Corrupt(_))));
        let claimed = [id::ARRAY, 1_000_000, id::VEC, id::U8];
        assert!(matches!(read_value(&claimed, &mut Reader::new(&[1])), Err(TextError::Corrupt(_))));
        assert!(matches!(read_value(&sig::<u16>(), &mut Reader::new(&[0x80, 0x80, 0x04])), Err(TextError::Corrupt(_))));
        // Elements of no size: a few bytes claim millions, and each would become a node. The
        // typed decoder admits them; taking the value apart stops at the shown allowance.
        let no_size = [2, 0x80, 0x80, 0x80, 0x08, 0];
        let signature = sig::<Vec<Vec<[u8; 0]>>>();
        assert!(<Vec<Vec<[u8; 0]>> as crate::plain::PlainType>::read_compact(&mut Reader::new(&no_size)).is_ok());
        let mut reader = Reader::new(&no_size);
        assert!(matches!(crate::text::PlainValue::read_compact(&signature, &mut reader), Err(TextError::Corrupt(_))));
        let mut reader = Reader::new(&[1, 3]);
        assert!(crate::text::PlainValue::read_compact(&signature, &mut reader).is_ok());
        assert_eq!(reader.zero_sized_left(), crate::plain::ZERO_SIZED_ALLOWANCE - 3, "what was shown is spent");
        // A long signature over many elements: each node's facts are worked out once (this took
        // seconds per hundred bytes when they were worked out per element), and the value reads.
        let mut deep = vec![id::VEC];
        for _ in 0..60 {
            deep.extend([id::ARRAY, 1]);
        }
        deep.push(id::STRING);
        let mut bytes = vec![0xD0, 0x0F]; // 2,000 elements
        bytes.extend(std::iter::repeat_n(0u8, 2000)); // each an empty string, 60 arrays deep
        let value = crate::text::PlainValue::read_compact(&deep, &mut Reader::new(&bytes)).unwrap();
        let mut again = Vec::new();
        value.write_compact(&deep, &mut again).unwrap();
        assert_eq!(again, bytes);
        // Past `MAX_SHOWN_DEPTH` containers, a value is refused rather than walked.
        let mut deeper = vec![id::VEC];
        for _ in 0..126 {
            deeper.extend([id::ARRAY, 1]);
        }
        deeper.push(id::STRING);
        let error = crate::text::PlainValue::read_compact(&deeper, &mut Reader::new(&[1, 0])).unwrap_err();
        assert!(matches!(error, TextError::TooDeep { limit: crate::text::MAX_SHOWN_DEPTH }), "{error}");
        // A type nobody describes cannot be walked in compact form: it is named.
        assert!(matches!(read_value(&[5000], &mut Reader::new(&[0])), Err(TextError::Undescribed { .. })));
    }
}
