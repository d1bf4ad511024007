//! What `#[derive(Reflectable)]` generates for a diff: per struct, one function that tells whether
//! two objects' plain fields are equal, each compared through its static type (the way
//! [`PlainAccess::same`](crate::field::PlainAccess::same) compares one field through its erased
//! accessor). A diff compares every pair of objects' plain values, usually equal, first: this is
//! its commonest question, answered here without a descriptor walk or a dynamic call per field.
//! The functions below are the one generated code calls, one per builder step of a plain field.

use crate::field::{Container, One, Shape};
use crate::plain::{Native, PlainCodec, PlainType};
use std::any::Any;

/// Whether two objects of a derived struct have equal plain fields (its own, not its base's):
/// `None` when a field's type cannot tell without writing its value out (the caller then
/// compares field by field) or an object is not of the struct.
pub type GeneratedSame = fn(&dyn Any, &dyn Any) -> Option<bool>;

/// The elements of two containers of shape `S`, compared through codec `K`: the one comparison
/// of plain values, for the erased accessors and for generated code.
#[inline(always)]
pub(crate) fn same_plains<C, S: Shape<C>, K: PlainCodec<S::Elem>>(a: &C, b: &C) -> Option<bool> {
    match (S::ARRAY, S::as_slice(a), S::as_slice(b)) {
        (false, [a], [b]) => K::same(a, b),
        (_, a, b) => K::same_slice(a, b),
    }
}

/// A plain member.
#[doc(hidden)]
#[inline(always)]
pub fn same_plain<C: PlainType>(a: &C, b: &C) -> Option<bool> {
    same_plains::<C, One, Native>(a, b)
}

/// A plain array member.
#[doc(hidden)]
#[inline(always)]
pub fn same_plain_array<C: Container>(a: &C, b: &C) -> Option<bool>
where
    C::Elem: PlainType,
{
    same_plains::<C, C::Shape, Native>(a, b)
}

/// A member stored through the codec `K`.
#[doc(hidden)]
#[inline(always)]
pub fn same_plain_with<C: 'static, K: PlainCodec<C>>(a: &C, b: &C) -> Option<bool> {
    same_plains::<C, One, K>(a, b)
}

/// An array member whose elements are stored through the codec `K`.
#[doc(hidden)]
#[inline(always)]
pub fn same_plain_with_array<C: Container, K: PlainCodec<C::Elem>>(a: &C, b: &C) -> Option<bool> {
    same_plains::<C, C::Shape, K>(a, b)
}

/// The two objects as the struct `O`, for generated code.
#[doc(hidden)]
#[inline(always)]
pub fn generated_pair<'a, O: 'static>(a: &'a dyn Any, b: &'a dyn Any) -> Option<(&'a O, &'a O)> {
    Some((a.downcast_ref::<O>()?, b.downcast_ref::<O>()?))
}

#[cfg(test)]
mod tests {
    use crate::field::FieldAccess;
    use crate::rtti::Reflectable;
    use std::any::Any;

    #[derive(crate::Reflectable, Default, Clone)]
    #[rtti(id = 9_990_001, crate = crate)]
    struct Part {
        #[rtti(id = 1)]
        label: String,
    }

    /// Plain fields of several shapes, one that is not stored, one held by value.
    #[derive(crate::Reflectable, Default, Clone)]
    #[rtti(id = 9_990_002, crate = crate)]
    struct Sample {
        #[rtti(id = 1)]
        count: u32,
        #[rtti(id = 2)]
        name: String,
        #[rtti(id = 3)]
        weights: Vec<f32>,
        #[rtti(id = 4)]
        pair: [f64; 2],
        #[rtti(id = 5)]
        maybe: Option<i16>,
        #[rtti(skip)]
        cache: u64,
        #[rtti(id = 6, embedded)]
        part: Part,
    }

    /// What the walk says of two samples' plain fields: each compared through its accessor.
    fn walked(a: &Sample, b: &Sample) -> Option<bool> {
        let mut all = true;
        for field in a.rtti().fields() {
            if let FieldAccess::Plain(plain) = field.access() {
                all &= plain.same(a as &dyn Any, b as &dyn Any).expect("readable")?;
            }
        }
        Some(all)
    }

    fn sample(
        (count, name, weights, pair, maybe, cache, label): (u8, bool, Vec<u8>, u8, Option<i8>, u64, bool),
    ) -> Sample {
        Sample {
            count: u32::from(count % 3),
            name: if name { "a".into() } else { "b".into() },
            // A NaN among the weights: the comparison is of what is written, bit for bit.
            weights: weights.iter().map(|&w| if w % 5 == 0 { f32::NAN } else { f32::from(w % 3) }).collect(),
            pair: [f64::from(pair % 2), 0.5],
            maybe: maybe.map(|m| i16::from(m % 2)),
            cache,
            part: Part { label: if label { "x".into() } else { "y".into() } },
        }
    }

    type Fields = (u8, bool, Vec<u8>, u8, Option<i8>, u64, bool);

    quickcheck::quickcheck! {
        /// The generated comparison answers as the walk does, whichever one field differs: the
        /// field not stored and the one held by value play no part in it.
        fn the_generated_comparison_agrees_with_the_walk(a: Fields, other: Fields, which: u8) -> bool {
            let (a, other) = (sample(a), sample(other));
            let mut b = a.clone();
            match which % 7 {
                0 => b.count = other.count,
                1 => b.name = other.name,
                2 => b.weights = other.weights,
                3 => b.pair = other.pair,
                4 => b.maybe = other.maybe,
                5 => b.cache = other.cache,
                _ => b.part = other.part,
            }
            let same = Sample::rtti_static().generated_same_plain().expect("a derived struct has one");
            let told = same(&a, &b);
            let expected = match which % 7 {
                5 | 6 => Some(true),
                _ => walked(&a, &b),
            };
            // An object of another type is not compared.
            told == expected && told == walked(&a, &b) && same(&a, &a.part).is_none()
        }
    }
}
