//! What `#[derive(Reflectable)]` generates for a diff: per struct or enum, one function that tells
//! whether two objects' fields are equal, each compared through its static type (the way
//! [`PlainAccess::same`](crate::field::PlainAccess::same) compares one field through its erased
//! accessor), as far as a [`SameScope`] asks. A diff's commonest questions are whether two
//! objects' plain values are equal (their fingerprints) and whether two values held by value are,
//! usually yes: answered here without a descriptor walk or a dynamic call per field. A second
//! function hands each pointer field's elements, old and new, to the diff by their static type
//! ([`GeneratedPointers`]), for the question that follows: whether they all still lead where they
//! did. The functions below are the ones generated code calls, one per kind of field
//! (`same_*`, the shape a type parameter), and one for pointer fields (`pairs_pointer`).

use super::generate::PointerPairs;
use crate::field::{same_plains, EmbeddedSlot, PointerSlot, Shape};
use crate::plain::{Native, PlainCodec, PlainType};
use crate::rtti::visit;
use crate::rtti::{Reflectable, RttiType};
use std::any::Any;

/// How much of two objects a generated comparison compares.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SameScope {
    /// The plain fields: a shared object's fingerprint.
    Plain,
    /// The plain fields and what is held by value, compared as [`Content`](Self::Content):
    /// everything but the object's own pointer fields.
    Values,
    /// Everything: plain fields, what is held by value, and no pointer anywhere (equal content
    /// does not say that two pointers' targets are equal, so any pointer makes it "different").
    Content,
}

/// Whether two objects of a derived type are equal as far as the scope asks (their own fields, not
/// their base's; for an enum, those of the variant both hold, and objects of two variants differ):
/// `None` when a field's type cannot tell without writing its value out or walking it (the caller
/// then compares field by field), or an object is not of the type.
pub type GeneratedSame = fn(&dyn Any, &dyn Any, SameScope) -> Option<bool>;

/// The code the derive generated to compare a type's own fields and where its pointer fields
/// lead, attached to its descriptor ([`TypeData`](crate::rtti::TypeData)).
#[derive(Clone, Copy)]
pub(crate) struct GeneratedComparison {
    pub(crate) same: GeneratedSame,
    pub(crate) pointers: GeneratedPointers,
}

impl RttiType {
    /// The derive's generated comparison of the type's own fields.
    #[inline]
    pub(crate) fn generated_same(&self) -> Option<GeneratedSame> {
        self.data::<GeneratedComparison>().map(|code| code.same)
    }

    /// The derive's generated comparison of where the type's own pointer fields lead.
    #[inline]
    pub(crate) fn generated_pointers(&self) -> Option<GeneratedPointers> {
        self.data::<GeneratedComparison>().map(|code| code.pointers)
    }
}

/// A plain member or array member (compared in every scope).
#[inline(always)]
pub fn same_plain<C, S: Shape<C>>(a: &C, b: &C, _: SameScope) -> Option<bool>
where
    S::Elem: PlainType,
{
    same_plains::<C, S, Native>(a, b)
}

/// A member (or an array member) whose elements are stored through the codec `K`.
#[inline(always)]
pub fn same_plain_with<C, S: Shape<C>, K: PlainCodec<S::Elem>>(a: &C, b: &C, _: SameScope) -> Option<bool> {
    same_plains::<C, S, K>(a, b)
}

/// A member or array member held by value (compared from [`SameScope::Values`] on).
#[inline(always)]
pub fn same_embedded<C, S: Shape<C>>(a: &C, b: &C, scope: SameScope) -> Option<bool>
where
    S::Elem: EmbeddedSlot,
{
    if scope == SameScope::Plain {
        return Some(true);
    }
    let (a, b) = (S::as_slice(a), S::as_slice(b));
    if a.len() != b.len() {
        return Some(false);
    }
    for (x, y) in a.iter().zip(b) {
        let same = match (x.value(), y.value()) {
            (Some(x), Some(y)) => same_object(x, y, SameScope::Content)?,
            (x, y) => x.is_none() && y.is_none(),
        };
        if !same {
            return Some(false);
        }
    }
    Some(true)
}

/// A pointer member or array member: looked at only for [`SameScope::Content`], which it passes
/// when neither object's member points at anything.
#[inline(always)]
pub fn same_pointer<C, S: Shape<C>>(a: &C, b: &C, scope: SameScope) -> Option<bool>
where
    S::Elem: PointerSlot,
{
    let none = |c: &C| S::as_slice(c).iter().all(|elem| elem.addr().is_none());
    Some(scope != SameScope::Content || (none(a) && none(b)))
}

/// The pointer fields of two objects of a derived type (their own fields; for an enum, those of
/// the variant both hold), each field's elements compared through their static type by `pairs`,
/// in field order: `Some(true)` when every element of every field points where it did, `Some(false)`
/// at the first field that does not (`pairs` notes which, for the general alignment), `None` when
/// the comparison failed (`pairs` holds the error) or an object is not of the type. What
/// [`PointerPairs`] does per element is what the walk does through the erased field; only the way
/// to the elements differs: no descriptor lookups, no dynamic calls per field or element.
pub type GeneratedPointers = fn(&dyn Any, &dyn Any, &mut PointerPairs<'_>) -> Option<bool>;

/// A pointer member or array member, field `index` of the type's fields (see
/// [`GeneratedPointers`]).
#[inline(always)]
pub fn pairs_pointer<C, S: Shape<C>>(pairs: &mut PointerPairs<'_>, index: usize, a: &C, b: &C) -> Option<bool>
where
    S::Elem: PointerSlot,
{
    pairs.field(index, S::as_slice(a), S::as_slice(b))
}

/// Two objects of any type, every section compared in `scope` through their generated code (and
/// their variants): `None` when a section has none, or cannot tell.
pub(crate) fn same_object(a: &dyn Reflectable, b: &dyn Reflectable, scope: SameScope) -> Option<bool> {
    let own = a.rtti();
    if own.id() != b.rtti().id() {
        return Some(false);
    }
    same_sections(own, a, b, scope)
}

/// [`same_object`] of two objects both of type `own` (asked for once by the caller: a generic
/// type's descriptor costs a lookup).
pub(crate) fn same_sections(
    own: &'static RttiType,
    a: &dyn Reflectable,
    b: &dyn Reflectable,
    scope: SameScope,
) -> Option<bool> {
    for (sa, sb) in visit::sections_from(own, a).zip(visit::sections_from(own, b)) {
        if sa.same_variant(sb).is_err() {
            return Some(false);
        }
        if !sa.rtti.generated_same()?(sa.object as &dyn Any, sb.object as &dyn Any, scope)? {
            return Some(false);
        }
    }
    Some(true)
}

/// The two objects as the type `O`, for generated code.
#[inline(always)]
pub fn generated_pair<'a, O: 'static>(a: &'a dyn Any, b: &'a dyn Any) -> Option<(&'a O, &'a O)> {
    Some((a.downcast_ref::<O>()?, b.downcast_ref::<O>()?))
}

#[cfg(test)]
mod tests {
    use super::SameScope;
    use crate::field::FieldAccess;
    use crate::rtti::Reflectable;
    use std::any::Any;
    use std::rc::Rc;

    #[derive(crate::Reflectable, Default, Clone)]
    #[rtti(id = 9_990_001, crate = crate)]
    struct Part {
        #[rtti(id = 1)]
        label: String,
        #[rtti(id = 2)]
        next: Option<Rc<Part>>,
    }

    /// Plain fields of several shapes, one that is not stored, values held by value (one, an
    /// array), a pointer.
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
        #[rtti(id = 7, embedded)]
        parts: Vec<Part>,
        #[rtti(id = 8)]
        link: Option<Rc<Part>>,
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

    /// Two parts of equal content: equal labels, and no pointer (equal content says nothing of
    /// where two pointers lead).
    fn same_content(a: &Part, b: &Part) -> bool {
        a.label == b.label && a.next.is_none() && b.next.is_none()
    }

    fn part((label, next): (bool, bool)) -> Part {
        Part { label: if label { "x".into() } else { "y".into() }, next: next.then(|| Rc::new(Part::default())) }
    }

    fn sample(((count, name, weights, pair, maybe, cache, label), (parts, link)): (Plains, Others)) -> Sample {
        Sample {
            count: u32::from(count % 3),
            name: if name { "a".into() } else { "b".into() },
            // A NaN among the weights: the comparison is of what is written, bit for bit.
            weights: weights.iter().map(|&w| if w % 5 == 0 { f32::NAN } else { f32::from(w % 3) }).collect(),
            pair: [f64::from(pair % 2), 0.5],
            maybe: maybe.map(|m| i16::from(m % 2)),
            cache,
            part: part(label),
            parts: parts.into_iter().take(3).map(part).collect(),
            link: link.then(|| Rc::new(Part::default())),
        }
    }

    type Plains = (u8, bool, Vec<u8>, u8, Option<i8>, u64, (bool, bool));
    type Others = (Vec<(bool, bool)>, bool);

    quickcheck::quickcheck! {
        /// The generated comparison answers as the walk does in each scope, whichever one field
        /// differs: plain fields always, values held by value from `Values` on (as content:
        /// any pointer inside them makes them differ), pointers only in `Content`, the field
        /// not stored never.
        fn the_generated_comparison_agrees_with_the_walk(a: (Plains, Others), other: (Plains, Others), which: u8) -> bool {
            let (a, other) = (sample(a), sample(other));
            let mut b = a.clone();
            match which % 9 {
                0 => b.count = other.count,
                1 => b.name = other.name,
                2 => b.weights = other.weights,
                3 => b.pair = other.pair,
                4 => b.maybe = other.maybe,
                5 => b.cache = other.cache,
                6 => b.part = other.part,
                7 => b.parts = other.parts,
                _ => b.link = other.link,
            }
            let same = Sample::rtti_static().generated_same().expect("a derived struct has one");
            let plain = walked(&a, &b);
            let values = plain.map(|plain| {
                plain
                    && same_content(&a.part, &b.part)
                    && a.parts.len() == b.parts.len()
                    && a.parts.iter().zip(&b.parts).all(|(x, y)| same_content(x, y))
            });
            let content = values.map(|values| values && a.link.is_none() && b.link.is_none());
            same(&a, &b, SameScope::Plain) == plain
                && same(&a, &b, SameScope::Values) == values
                && same(&a, &b, SameScope::Content) == content
                // An object of another type is not compared.
                && same(&a, &a.part, SameScope::Plain).is_none()
        }
    }

    /// Every kind of variant: unit, named with a field not stored, tuple with a value held by
    /// value and a pointer.
    #[derive(crate::Reflectable, Clone, Default)]
    #[rtti(id = 9_990_003, crate = crate)]
    enum Choice {
        #[default]
        #[rtti(id = 1)]
        Nothing,
        #[rtti(id = 2)]
        Named {
            #[rtti(id = 1)]
            size: u16,
            // Never read: it is here to be left out of the comparison.
            #[allow(dead_code)]
            #[rtti(skip)]
            cache: u8,
        },
        #[rtti(id = 3)]
        Tuple(#[rtti(id = 1)] String, #[rtti(id = 2, embedded)] Part, #[rtti(id = 3)] Option<Rc<Part>>),
    }

    fn choice((kind, size, cache, label, held, link): (u8, u8, u8, bool, (bool, bool), bool)) -> Choice {
        match kind % 3 {
            0 => Choice::Nothing,
            1 => Choice::Named { size: u16::from(size % 2), cache },
            _ => Choice::Tuple(
                if label { "a".into() } else { "b".into() },
                part(held),
                link.then(|| Rc::new(Part::default())),
            ),
        }
    }

    type Choices = (u8, u8, u8, bool, (bool, bool), bool);

    quickcheck::quickcheck! {
        /// An enum's generated comparison: the fields of the variant both objects hold, as for a
        /// struct; objects of two variants differ.
        fn the_generated_comparison_of_an_enum_compares_the_variant_held(a: Choices, b: Choices) -> bool {
            let (a, b) = (choice(a), choice(b));
            let (plain, values, content) = match (&a, &b) {
                (Choice::Nothing, Choice::Nothing) => (true, true, true),
                (Choice::Named { size: x, .. }, Choice::Named { size: y, .. }) => (x == y, x == y, x == y),
                (Choice::Tuple(x, p, l), Choice::Tuple(y, q, m)) => {
                    let values = x == y && same_content(p, q);
                    (x == y, values, values && l.is_none() && m.is_none())
                }
                _ => (false, false, false),
            };
            let same = Choice::rtti_static().generated_same().expect("a derived enum has one");
            same(&a, &b, SameScope::Plain) == Some(plain)
                && same(&a, &b, SameScope::Values) == Some(values)
                && same(&a, &b, SameScope::Content) == Some(content)
                && !Choice::rtti_static().has_generated_codec()
        }
    }
}
