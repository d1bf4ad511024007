//! Strings, std collections, `Option`, `Box`, arrays, tuples and `SmallVec`.
//!
//! Sequences and maps are a `u32` count followed by their elements (each in element form, see
//! [`write_elem`]). Element counts read from the input are checked against the bytes left before
//! anything is allocated.

use super::compact::{sum_min_sizes, write_len};
use super::{
    elem_size, inline_or_dynamic, min_elem_size, read_elem, sum_static_sizes, type_ids, write_elem, PlainError,
    PlainType, Reader, MAX_INLINE_SIZE,
};
use smallvec::SmallVec;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::hash::{BuildHasher, Hash};

/// What to reserve for `count` elements read: nothing for elements that take no bytes on the wire,
/// whose count only the zero-size allowance bounds.
fn reserve(count: usize, min_elem_size: usize) -> usize {
    if min_elem_size == 0 {
        0
    } else {
        count
    }
}

/// Content size of a sequence of `len` elements: the `u32` count, then each element.
fn sequence_size<'a, T: PlainType>(len: usize, elems: impl Iterator<Item = &'a T>) -> usize {
    4 + match T::STATIC_SIZE {
        Some(n) => n as usize * len,
        None => elems.map(elem_size).sum(),
    }
}

/// The element form a collection writes its entries in.
#[derive(Clone, Copy)]
enum Form {
    /// [`write_elem`]: dynamic elements carry their size.
    Normal,
    /// [`PlainType::write_compact`].
    Compact,
}

impl Form {
    #[inline]
    fn write<T: PlainType>(self, value: &T, out: &mut Vec<u8>) {
        match self {
            Form::Normal => write_elem(value, out),
            Form::Compact => value.write_compact(out),
        }
    }
}

/// Writes each key (and its value, for maps) in iteration order: the order of sequences and of
/// ordered maps and sets.
fn in_order<'a, K: PlainType + 'a, V: PlainType + 'a>(
    entries: impl Iterator<Item = (&'a K, Option<&'a V>)>,
    form: Form,
    out: &mut Vec<u8>,
) {
    for (key, value) in entries {
        form.write(key, out);
        if let Some(value) = value {
            form.write(value, out);
        }
    }
}

/// Writes each key (and its value) in the order of the keys' encoded bytes, so that a hash map
/// or set gives the same bytes whatever its hasher's seed, in every process: builds that cache
/// or diff saved files depend on it.
fn by_key<'a, K: PlainType + 'a, V: PlainType + 'a>(
    entries: impl Iterator<Item = (&'a K, Option<&'a V>)>,
    form: Form,
    out: &mut Vec<u8>,
) {
    let mut keys = Vec::new();
    let mut order: Vec<(usize, usize, Option<&V>)> = entries
        .map(|(key, value)| {
            let start = keys.len();
            form.write(key, &mut keys);
            (start, keys.len(), value)
        })
        .collect();
    order.sort_unstable_by(|a, b| keys[a.0..a.1].cmp(&keys[b.0..b.1]));
    for (start, end, value) in order {
        out.extend_from_slice(&keys[start..end]);
        if let Some(value) = value {
            form.write(value, out);
        }
    }
}

fn write_count(count: usize, out: &mut Vec<u8>) {
    let count = u32::try_from(count).expect("a plain collection must have fewer than 2^32 elements");
    out.extend_from_slice(&count.to_le_bytes());
}

/// The next `len` bytes as a string.
#[inline(always)]
fn read_str(reader: &mut Reader<'_>, len: usize) -> Result<String, PlainError> {
    let offset = reader.offset();
    let bytes = reader.take(len)?;
    std::str::from_utf8(bytes)
        .map(str::to_owned)
        .map_err(|_| PlainError::Invalid { offset, what: "string is not valid UTF-8" })
}

impl PlainType for String {
    const TYPE_ID: u32 = type_ids::STRING;
    const STATIC_SIZE: Option<u32> = None;

    fn size(&self) -> usize {
        self.len()
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.as_bytes());
    }
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        let len = reader.remaining();
        read_str(reader, len)
    }
    fn write_compact(&self, out: &mut Vec<u8>) {
        write_len(self.len(), "a string", out);
        out.extend_from_slice(self.as_bytes());
    }
    fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        let len = reader.read_compact_count(1)?;
        read_str(reader, len)
    }
    #[inline]
    fn same(&self, other: &Self) -> Option<bool> {
        Some(self == other)
    }
}

/// Shared body of the sequence impls: `u32` count, then the elements.
macro_rules! sequence {
    ($id:expr, [$($gen:tt)*], $ty:ty, $elem:ty, $write:ident, |$count:ident| $with_capacity:expr, |$seq:ident, $value:ident| $push:expr) => {
        impl<$($gen)*> PlainType for $ty {
            const TYPE_ID: u32 = $id;
            const STATIC_SIZE: Option<u32> = None;

            fn signature(out: &mut Vec<u32>) {
                out.push($id);
                <$elem>::signature(out);
            }
            fn size(&self) -> usize {
                sequence_size(self.len(), self.iter())
            }
            fn write(&self, out: &mut Vec<u8>) {
                write_count(self.len(), out);
                $write(self.iter().map(|value| (value, None::<&$elem>)), Form::Normal, out);
            }
            fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
                let count = reader.read_count(min_elem_size::<$elem>())?;
                let mut $seq = {
                    let $count = reserve(count, min_elem_size::<$elem>());
                    $with_capacity
                };
                for _ in 0..count {
                    let $value = read_elem::<$elem>(reader)?;
                    $push;
                }
                Ok($seq)
            }
            fn write_compact(&self, out: &mut Vec<u8>) {
                write_len(self.len(), "a plain collection", out);
                $write(self.iter().map(|value| (value, None::<&$elem>)), Form::Compact, out);
            }
            fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
                let count = reader.read_compact_count(<$elem>::COMPACT_MIN_SIZE)?;
                let mut $seq = {
                    let $count = reserve(count, <$elem>::COMPACT_MIN_SIZE);
                    $with_capacity
                };
                for _ in 0..count {
                    let $value = <$elem>::read_compact(reader)?;
                    $push;
                }
                Ok($seq)
            }
        }
    };
}

/// A compact sequence's elements: a varint count, checked against the input, then the elements.
fn read_compact_vec<T: PlainType>(reader: &mut Reader<'_>) -> Result<Vec<T>, PlainError> {
    let count = reader.read_compact_count(T::COMPACT_MIN_SIZE)?;
    let mut values = Vec::with_capacity(reserve(count, T::COMPACT_MIN_SIZE));
    T::read_compact_slice(reader, count, &mut values)?;
    Ok(values)
}

impl<T: PlainType> PlainType for Vec<T> {
    const TYPE_ID: u32 = type_ids::VEC;
    const STATIC_SIZE: Option<u32> = None;

    fn signature(out: &mut Vec<u32>) {
        out.push(Self::TYPE_ID);
        T::signature(out);
    }

    fn size(&self) -> usize {
        sequence_size(self.len(), self.iter())
    }
    fn write(&self, out: &mut Vec<u8>) {
        write_count(self.len(), out);
        T::write_slice(self, out);
    }
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        let count = reader.read_count(min_elem_size::<T>())?;
        let mut values = Vec::with_capacity(reserve(count, min_elem_size::<T>()));
        T::read_slice(reader, count, &mut values)?;
        Ok(values)
    }
    fn write_compact(&self, out: &mut Vec<u8>) {
        write_len(self.len(), "a plain collection", out);
        T::write_compact_slice(self, out);
    }
    fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        read_compact_vec(reader)
    }
    #[inline]
    fn same(&self, other: &Self) -> Option<bool> {
        T::same_slice(self, other)
    }
}

impl<A> PlainType for SmallVec<A>
where
    A: smallvec::Array + 'static,
    A::Item: PlainType,
{
    const TYPE_ID: u32 = type_ids::SMALL_VEC;
    const STATIC_SIZE: Option<u32> = None;

    fn signature(out: &mut Vec<u32>) {
        out.push(Self::TYPE_ID);
        A::Item::signature(out);
    }

    fn size(&self) -> usize {
        sequence_size(self.len(), self.iter())
    }
    fn write(&self, out: &mut Vec<u8>) {
        write_count(self.len(), out);
        A::Item::write_slice(self, out);
    }
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        let count = reader.read_count(min_elem_size::<A::Item>())?;
        let mut values = Vec::with_capacity(reserve(count, min_elem_size::<A::Item>()));
        A::Item::read_slice(reader, count, &mut values)?;
        Ok(SmallVec::from_vec(values))
    }
    fn write_compact(&self, out: &mut Vec<u8>) {
        write_len(self.len(), "a plain collection", out);
        A::Item::write_compact_slice(self, out);
    }
    fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        read_compact_vec(reader).map(SmallVec::from_vec)
    }
    #[inline]
    fn same(&self, other: &Self) -> Option<bool> {
        A::Item::same_slice(self, other)
    }
}

sequence!(type_ids::VEC_DEQUE, [T: PlainType], VecDeque<T>, T, in_order,
    |count| VecDeque::with_capacity(count), |seq, value| seq.push_back(value));
sequence!(type_ids::BTREE_SET, [T: PlainType + Ord], BTreeSet<T>, T, in_order,
    |_count| BTreeSet::new(), |seq, value| seq.insert(value));
sequence!(type_ids::HASH_SET, [T: PlainType + Eq + Hash, S: BuildHasher + Default + 'static], HashSet<T, S>, T, by_key,
    |count| HashSet::with_capacity_and_hasher(count, S::default()), |seq, value| seq.insert(value));
/// Maps: `u32` count, then each entry as key element then value element.
macro_rules! map {
    ($id:expr, [$($gen:tt)*], $ty:ty, $write:ident, |$count:ident| $with_capacity:expr) => {
        impl<$($gen)*> PlainType for $ty {
            const TYPE_ID: u32 = $id;
            const STATIC_SIZE: Option<u32> = None;

            fn signature(out: &mut Vec<u32>) {
                out.push($id);
                K::signature(out);
                V::signature(out);
            }
            fn size(&self) -> usize {
                4 + self.iter().map(|(key, value)| elem_size(key) + elem_size(value)).sum::<usize>()
            }
            fn write(&self, out: &mut Vec<u8>) {
                write_count(self.len(), out);
                $write(self.iter().map(|(key, value)| (key, Some(value))), Form::Normal, out);
            }
            fn write_compact(&self, out: &mut Vec<u8>) {
                write_len(self.len(), "a plain collection", out);
                $write(self.iter().map(|(key, value)| (key, Some(value))), Form::Compact, out);
            }
            fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
                let min_entry_size = K::COMPACT_MIN_SIZE.saturating_add(V::COMPACT_MIN_SIZE);
                let count = reader.read_compact_count(min_entry_size)?;
                let mut map = {
                    let $count = reserve(count, min_entry_size);
                    $with_capacity
                };
                for _ in 0..count {
                    let key = K::read_compact(reader)?;
                    map.insert(key, V::read_compact(reader)?);
                }
                Ok(map)
            }
            fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
                let min_entry_size = min_elem_size::<K>() + min_elem_size::<V>();
                let count = reader.read_count(min_entry_size)?;
                let mut map = {
                    let $count = reserve(count, min_entry_size);
                    $with_capacity
                };
                for _ in 0..count {
                    let key = read_elem::<K>(reader)?;
                    map.insert(key, read_elem::<V>(reader)?);
                }
                Ok(map)
            }
        }
    };
}

map!(type_ids::BTREE_MAP, [K: PlainType + Ord, V: PlainType], BTreeMap<K, V>, in_order, |_count| BTreeMap::new());
map!(type_ids::HASH_MAP, [K: PlainType + Eq + Hash, V: PlainType, S: BuildHasher + Default + 'static],
    HashMap<K, V, S>, by_key, |count| HashMap::with_capacity_and_hasher(count, S::default()));

impl<T: PlainType> PlainType for Option<T> {
    const TYPE_ID: u32 = type_ids::OPTION;
    /// Static when `T` is: `None` is written as a zero tag and zero-filled content, so every
    /// value has the same size and arrays of options stay fixed-stride.
    const STATIC_SIZE: Option<u32> = match T::STATIC_SIZE {
        Some(n) => inline_or_dynamic(Some(1 + n)),
        None => None,
    };

    fn signature(out: &mut Vec<u32>) {
        out.push(Self::TYPE_ID);
        T::signature(out);
    }
    fn size(&self) -> usize {
        match (Self::STATIC_SIZE, self) {
            (Some(n), _) => n as usize,
            (None, None) => 1,
            (None, Some(value)) => 1 + elem_size(value),
        }
    }
    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Some(value) => {
                out.push(1);
                write_elem(value, out);
            }
            None => {
                out.push(0);
                if let Some(n) = Self::STATIC_SIZE {
                    out.resize(out.len() + n as usize - 1, 0);
                }
            }
        }
    }
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        let offset = reader.offset();
        match reader.take_array::<1>()?[0] {
            0 => {
                if let Some(n) = Self::STATIC_SIZE {
                    let padding_offset = reader.offset();
                    if reader.take(n as usize - 1)?.iter().any(|&byte| byte != 0) {
                        return Err(PlainError::Invalid { offset: padding_offset, what: "None with nonzero padding" });
                    }
                }
                Ok(None)
            }
            1 => Ok(Some(read_elem(reader)?)),
            _ => Err(PlainError::Invalid { offset, what: "Option tag is neither 0 nor 1" }),
        }
    }
    /// A static option keeps its normal bytes; a dynamic one is its tag, then the value.
    fn write_compact(&self, out: &mut Vec<u8>) {
        match (Self::STATIC_SIZE, self) {
            (Some(_), _) => self.write(out),
            (None, None) => out.push(0),
            (None, Some(value)) => {
                out.push(1);
                value.write_compact(out);
            }
        }
    }
    fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        if Self::STATIC_SIZE.is_some() {
            return Self::read(reader);
        }
        let offset = reader.offset();
        match reader.take_array::<1>()?[0] {
            0 => Ok(None),
            1 => Ok(Some(T::read_compact(reader)?)),
            _ => Err(PlainError::Invalid { offset, what: "Option tag is neither 0 nor 1" }),
        }
    }
    #[inline]
    fn same(&self, other: &Self) -> Option<bool> {
        match (self, other) {
            (Some(a), Some(b)) => a.same(b),
            (None, None) => Some(true),
            _ => Some(false),
        }
    }
}

impl<T: PlainType> PlainType for Box<T> {
    const TYPE_ID: u32 = T::TYPE_ID;
    const STATIC_SIZE: Option<u32> = T::STATIC_SIZE;
    const COMPACT_SIZE: Option<u32> = T::COMPACT_SIZE;
    const COMPACT_MIN_SIZE: usize = T::COMPACT_MIN_SIZE;

    fn signature(out: &mut Vec<u32>) {
        T::signature(out);
    }

    fn size(&self) -> usize {
        (**self).size()
    }
    fn write(&self, out: &mut Vec<u8>) {
        (**self).write(out);
    }
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        T::read(reader).map(Box::new)
    }
    fn write_compact(&self, out: &mut Vec<u8>) {
        (**self).write_compact(out);
    }
    fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        T::read_compact(reader).map(Box::new)
    }
    #[inline]
    fn same(&self, other: &Self) -> Option<bool> {
        (**self).same(other)
    }
}

/// `N` elements read with `read`, each at least `min_elem_size` bytes.
#[inline(always)]
fn read_array<T, const N: usize>(
    reader: &mut Reader<'_>,
    min_elem_size: usize,
    mut read: impl FnMut(&mut Reader<'_>) -> Result<T, PlainError>,
) -> Result<[T; N], PlainError> {
    let offset = reader.offset();
    if N.saturating_mul(min_elem_size) > reader.remaining() {
        return Err(PlainError::LengthTooLarge { offset, claimed: N as u64, available: reader.remaining() });
    }
    // Read into inline storage: no heap allocation per array.
    let mut values: SmallVec<[T; N]> = SmallVec::new();
    for _ in 0..N {
        values.push(read(reader)?);
    }
    values.into_inner().map_err(|_| PlainError::Invalid { offset, what: "array length mismatch" })
}

impl<T: PlainType, const N: usize> PlainType for [T; N] {
    const TYPE_ID: u32 = type_ids::ARRAY;
    const STATIC_SIZE: Option<u32> = match T::STATIC_SIZE {
        Some(n) if (n as u64) * (N as u64) <= MAX_INLINE_SIZE as u64 => Some(n * N as u32),
        _ => None,
    };
    const COMPACT_MIN_SIZE: usize = match Self::STATIC_SIZE {
        Some(n) => n as usize,
        None => N.saturating_mul(T::COMPACT_MIN_SIZE),
    };

    fn signature(out: &mut Vec<u32>) {
        out.push(Self::TYPE_ID);
        out.push(u32::try_from(N).unwrap_or(u32::MAX));
        T::signature(out);
    }
    fn size(&self) -> usize {
        match (Self::STATIC_SIZE, T::STATIC_SIZE) {
            (Some(n), _) => n as usize,
            (None, Some(n)) => n as usize * N,
            (None, None) => self.iter().map(elem_size).sum(),
        }
    }
    fn write(&self, out: &mut Vec<u8>) {
        T::write_slice(self, out);
    }
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        read_array(reader, min_elem_size::<T>(), read_elem)
    }
    /// A static array keeps its normal bytes; a dynamic one is its elements in compact form.
    fn write_compact(&self, out: &mut Vec<u8>) {
        match Self::STATIC_SIZE {
            Some(_) => self.write(out),
            None => T::write_compact_slice(self, out),
        }
    }
    fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        match Self::STATIC_SIZE {
            Some(_) => Self::read(reader),
            None => read_array(reader, T::COMPACT_MIN_SIZE, T::read_compact),
        }
    }
    #[inline]
    fn same(&self, other: &Self) -> Option<bool> {
        T::same_slice(self, other)
    }
}

macro_rules! tuple {
    ($($name:ident : $index:tt),+) => {
        impl<$($name: PlainType),+> PlainType for ($($name,)+) {
            const TYPE_ID: u32 = type_ids::TUPLE;
            const STATIC_SIZE: Option<u32> = inline_or_dynamic(sum_static_sizes(&[$($name::STATIC_SIZE),+]));
            const COMPACT_MIN_SIZE: usize = match Self::STATIC_SIZE {
                Some(n) => n as usize,
                None => sum_min_sizes(&[$($name::COMPACT_MIN_SIZE),+]),
            };

            fn signature(out: &mut Vec<u32>) {
                out.push(Self::TYPE_ID);
                out.push([$($index),+].len() as u32);
                $($name::signature(out);)+
            }

            fn size(&self) -> usize {
                0 $(+ elem_size(&self.$index))+
            }
            fn write(&self, out: &mut Vec<u8>) {
                $(write_elem(&self.$index, out);)+
            }
            fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
                Ok(($(read_elem::<$name>(reader)?,)+))
            }
            /// A static tuple keeps its normal bytes; a dynamic one is its parts in compact form.
            fn write_compact(&self, out: &mut Vec<u8>) {
                match Self::STATIC_SIZE {
                    Some(_) => self.write(out),
                    None => {$(self.$index.write_compact(out);)+}
                }
            }
            fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
                match Self::STATIC_SIZE {
                    Some(_) => Self::read(reader),
                    None => Ok(($($name::read_compact(reader)?,)+)),
                }
            }
            #[inline]
            fn same(&self, other: &Self) -> Option<bool> {
                let mut known = true;
                $(match self.$index.same(&other.$index) {
                    Some(false) => return Some(false),
                    Some(true) => {}
                    None => known = false,
                })+
                known.then_some(true)
            }
        }
    };
}

tuple!(A: 0);
tuple!(A: 0, B: 1);
tuple!(A: 0, B: 1, C: 2);
tuple!(A: 0, B: 1, C: 2, D: 3);
tuple!(A: 0, B: 1, C: 2, D: 3, E: 4);
tuple!(A: 0, B: 1, C: 2, D: 3, E: 4, F: 5);
tuple!(A: 0, B: 1, C: 2, D: 3, E: 4, F: 5, G: 6);
tuple!(A: 0, B: 1, C: 2, D: 3, E: 4, F: 5, G: 6, H: 7);
