//! [`PlainBytes`]: plain elements as a stream holds them, for values whose type is known only
//! from a schema, or not at all.

use super::{read_elem, write_elem, PlainError, PlainType, Reader};
use std::hash::{Hash, Hasher};

/// Plain elements in their wire form ("as an element", `FORMAT.md`): decoded into a Rust value
/// only on demand, so a value of a type this program lacks is kept byte for byte. The one form of
/// stored plain bytes: a [`DynamicGraph`](crate::dynamic::DynamicGraph)'s plain fields hold it,
/// and so does a field of a type kept from a stream whose element type this program lacks.
///
/// ```
/// use reflectable::plain::PlainBytes;
///
/// let bytes = PlainBytes::of(&[String::from("oak"), String::from("ash")]);
/// assert_eq!(bytes.count(), 2);
/// assert_eq!(bytes.bytes().len(), 2 * (4 + 3), "each element with its size prefix");
/// assert_eq!(bytes.get_all::<String>().unwrap(), ["oak", "ash"]);
/// assert!(bytes.get::<String>().is_err(), "two elements are not one");
/// ```
#[derive(Debug, Clone)]
pub struct PlainBytes(Repr);

/// Short values (most plain fields: numbers, vectors, short strings) in place, longer ones
/// boxed: with boxed object lists, this keeps a `DynamicField` at 32 bytes, which is most of
/// what a dynamic graph holds.
#[derive(Debug, Clone)]
enum Repr {
    Inline { count: u32, len: u8, data: [u8; INLINE] },
    Heap { count: u32, bytes: Box<[u8]> },
}

/// The most bytes a plain value holds in place.
const INLINE: usize = 16;

impl Default for PlainBytes {
    /// No elements.
    fn default() -> Self {
        PlainBytes::from_wire(0, &[])
    }
}

impl PlainBytes {
    /// `count` elements whose wire form is `bytes`, as a stream holds them (see
    /// [`bytes`](Self::bytes)).
    pub(crate) fn from_wire(count: u32, bytes: &[u8]) -> Self {
        PlainBytes(match bytes.len() {
            len @ 0..=INLINE => {
                let mut data = [0; INLINE];
                data[..len].copy_from_slice(bytes);
                Repr::Inline { count, len: len as u8, data }
            }
            _ => Repr::Heap { count, bytes: bytes.into() },
        })
    }

    /// The wire form of `values`.
    pub fn of<T: PlainType>(values: &[T]) -> Self {
        let mut out = Vec::new();
        values.iter().for_each(|value| write_elem(value, &mut out));
        PlainBytes::from_wire(values.len() as u32, &out)
    }

    /// How many elements.
    pub fn count(&self) -> usize {
        match self.0 {
            Repr::Inline { count, .. } | Repr::Heap { count, .. } => count as usize,
        }
    }

    /// The elements' bytes, as the stream holds them (dynamic elements with their size prefix).
    pub fn bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, data, .. } => &data[..usize::from(*len)],
            Repr::Heap { bytes, .. } => bytes,
        }
    }

    /// The single element as a `T`. There is no type check: the bytes say nothing of their type
    /// (a field's descriptor or schema does; [`DynamicSection::get`](crate::dynamic::DynamicSection::get)
    /// checks it).
    pub fn get<T: PlainType>(&self) -> Result<T, PlainError> {
        let mut reader = Reader::new(self.bytes());
        let value = read_elem::<T>(&mut reader)?;
        reader.expect_end()?;
        Ok(value)
    }

    /// Every element as a `T` (no type check, as for [`get`](Self::get)).
    pub fn get_all<T: PlainType>(&self) -> Result<Vec<T>, PlainError> {
        let mut reader = Reader::new(self.bytes());
        let values = (0..self.count()).map(|_| read_elem::<T>(&mut reader)).collect::<Result<_, _>>()?;
        reader.expect_end()?;
        Ok(values)
    }
}

/// Equal counts and bytes, however they are held.
impl PartialEq for PlainBytes {
    fn eq(&self, other: &Self) -> bool {
        self.count() == other.count() && self.bytes() == other.bytes()
    }
}

impl Eq for PlainBytes {}

impl Hash for PlainBytes {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.count().hash(state);
        self.bytes().hash(state);
    }
}
