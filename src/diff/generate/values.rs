//! Comparing what objects hold by value: plain fields (arrays as runs over the old elements), and
//! objects stored by value, arrays of them aligned by content.

use super::identity::{has_identity, value_key};
use super::{unreadable, DiffError, Differ, Forced};
use crate::diff::align::{align, fill_gaps, runs, split, used};
use crate::diff::map_entries::diff_entries;
use crate::diff::patch::{EmbeddedEdit, EmbeddedElement, ObjectBody, PlainEdit};
use crate::diff::{same_sections, SameScope};
use crate::field::{FieldAccess, RttiField};
use crate::plain::type_ids;
use crate::rtti::visit::{self, Slot};
use crate::rtti::{Reflectable, RttiType};
use crate::serializer::generated_codecs_by_default;
use ahash::AHashMap;
use std::any::Any;
use std::ops::Range;

impl Differ {
    /// A plain field. With `keys` (a map's), returns how its elements align, for the values.
    pub(super) fn plain(
        &mut self,
        body: &mut ObjectBody,
        rtti: &'static RttiType,
        field: &RttiField,
        sa: Option<&dyn Reflectable>,
        sb: &dyn Reflectable,
        keys: bool,
    ) -> Result<Option<Vec<Option<usize>>>, DiffError> {
        let plain = field.as_plain().expect("a plain field");
        self.scratch.1.clear();
        let count_b = plain.write(sb, &mut self.scratch.1).map_err(unreadable(field))?;
        let mut edit = PlainEdit {
            section: rtti.id(),
            field: field.id(),
            plain_type: plain.info().type_id,
            count: count_b as u32,
            bytes: Vec::new(),
            runs: Vec::new(),
        };
        let mut alignment = None;
        if let Some(sa) = sa {
            self.scratch.0.clear();
            let count_a = plain.write(sa, &mut self.scratch.0).map_err(unreadable(field))?;
            let identical = count_a == count_b && self.scratch.0 == self.scratch.1;
            if identical && !keys {
                return Ok(None);
            }
            // A map of a Rust type is edited by key (its type orders the entries); one of a
            // type defined at run time stores its entries' bytes as they come, in the order of
            // the file: it is replaced whole, so that it saves exactly as the new one.
            let map = matches!(plain.info().type_id, type_ids::HASH_MAP | type_ids::BTREE_MAP);
            let typed = || sb.rtti().rust_type() != std::any::TypeId::of::<crate::runtime::RuntimeObject>();
            // A merge takes maps of either kind by key: their entries meet the other side's.
            if map && !identical && !keys && (self.by_element || typed()) {
                let (old, new) = ((&self.scratch.0[..], count_a), (&self.scratch.1[..], count_b));
                if let Some(edit) = diff_entries(field, rtti.id(), old, new) {
                    body.maps.push(edit);
                    return Ok(None);
                }
            }
            let static_size = plain.info().static_size;
            if let (true, Some(old), Some(new)) = (
                field.is_array(),
                split(&self.scratch.0, count_a, static_size),
                split(&self.scratch.1, count_b, static_size),
            ) {
                let matched = if identical {
                    (0..count_b).map(Some).collect()
                } else {
                    align(old.len(), new.len(), |i, j| self.scratch.0[old[i].clone()] == self.scratch.1[new[j].clone()])
                };
                if !identical {
                    let (runs, count, bytes) = runs(&matched, &new, &self.scratch.1);
                    if bytes.len() < self.scratch.1.len() / 2 || self.by_element {
                        (edit.runs, edit.count, edit.bytes) = (runs, count, bytes);
                    }
                }
                alignment = Some(matched);
            }
            if identical {
                return Ok(alignment);
            }
        }
        if edit.runs.is_empty() {
            edit.bytes = self.scratch.1.clone();
        }
        body.plain.push(edit);
        Ok(alignment)
    }

    /// The keys of every element of an embedded field (identity or content, see
    /// [`value_key`]), with each element's type (0 empty) and whether the key is an identity.
    fn contents(&mut self, field: &RttiField, owner: &dyn Reflectable) -> Result<Contents, DiffError> {
        let mut contents = Contents::default();
        for index in 0..field.len(owner).map_err(unreadable(field))? {
            let start = contents.bytes.len();
            let mut bytes = std::mem::take(&mut contents.bytes);
            let kind = field
                .with_embedded(owner, index, |value| match value {
                    Some(value) => value_key(value, &mut bytes).map(|()| (value.rtti().id(), has_identity(value))),
                    None => Ok((0, false)),
                })
                .map_err(unreadable(field))??;
            contents.bytes = bytes;
            contents.elements.push((start..contents.bytes.len(), kind));
        }
        Ok(contents)
    }

    /// An embedded field, elements aligned by content (or as `forced`, a map's key alignment).
    pub(super) fn embedded(
        &mut self,
        body: &mut ObjectBody,
        rtti: &'static RttiType,
        field: &RttiField,
        sa: Option<&dyn Reflectable>,
        sb: &dyn Reflectable,
        forced: Forced<'_>,
    ) -> Result<(), DiffError> {
        let len_b = field.len(sb).map_err(unreadable(field))?;
        let mut edit = EmbeddedEdit { section: rtti.id(), field: field.id(), rebuild: true, elements: Vec::new() };
        let Some(sa) = sa else {
            for j in 0..len_b {
                let body = field
                    .with_embedded(sb, j, |value| value.map(|value| self.body(None, value)).transpose())
                    .map_err(unreadable(field))??;
                edit.elements.push(EmbeddedElement { old: None, body });
            }
            body.embedded.push(edit);
            return Ok(());
        };
        if forced.is_none() && !field.is_array() {
            // A single value, the common case: compared in place, no alignment to build.
            if self.unchanged_value(field, sa, sb)? {
                return Ok(());
            }
            if let Some(step) = self.path.last_mut() {
                step.2 = 0;
            }
            let element = field
                .with_embedded(sa, 0, |x| field.with_embedded(sb, 0, |y| self.element(x, y, 0)))
                .and_then(|r| r)
                .map_err(unreadable(field))??;
            if let Some(element) = element {
                edit.rebuild = element.old.is_none();
                edit.elements.push(element);
                body.embedded.push(edit);
            }
            return Ok(());
        }
        let len_a = field.len(sa).map_err(unreadable(field))?;
        let matched = match forced {
            Some(Some(matched)) if matched.len() == len_b => matched.to_vec(),
            Some(_) => vec![None; len_b],
            None => {
                let (old, new) = (self.contents(field, sa)?, self.contents(field, sb)?);
                let mut matched = align(len_a, len_b, |i, j| old.get(i) == new.get(j));
                // Left over in one gap, one type: the same element, edited, unless an identity
                // says otherwise (equal identities matched above).
                let kind = |c: &Contents, i: usize| c.elements[i].1;
                let guess = |i: usize, j: usize| kind(&old, i) == kind(&new, j) && !kind(&old, i).1;
                fill_gaps(&mut matched, len_a, guess, |_, _| true);
                // Moves: a new element equal to an old one left over elsewhere.
                let mut left: AHashMap<&[u8], Vec<usize>> = AHashMap::new();
                let used: Vec<bool> = used(&matched, len_a);
                for i in (0..len_a).rev().filter(|&i| !used[i]) {
                    left.entry(old.get(i)).or_default().push(i);
                }
                for (j, m) in matched.iter_mut().enumerate() {
                    if m.is_none() {
                        *m = left.get_mut(new.get(j)).and_then(Vec::pop);
                    }
                }
                matched
            }
        };
        let mut in_place = len_a == len_b;
        for (j, m) in matched.iter().enumerate() {
            let element = match *m {
                Some(i) if i < len_a => {
                    if let Some(step) = self.path.last_mut() {
                        step.2 = i as u32;
                    }
                    let element = field
                        .with_embedded(sa, i, |x| field.with_embedded(sb, j, |y| self.element(x, y, i as u32)))
                        .and_then(|r| r)
                        .map_err(unreadable(field))??;
                    element.unwrap_or(EmbeddedElement { old: Some(i as u32), body: None })
                }
                _ => {
                    let body = field
                        .with_embedded(sb, j, |value| value.map(|value| self.body(None, value)).transpose())
                        .map_err(unreadable(field))??;
                    EmbeddedElement { old: None, body }
                }
            };
            in_place &= element.old == Some(j as u32);
            edit.elements.push(element);
        }
        if in_place {
            edit.rebuild = false;
            edit.elements.retain(|element| element.body.is_some());
            if edit.elements.is_empty() {
                return Ok(());
            }
        }
        body.embedded.push(edit);
        Ok(())
    }

    /// `true` when a single embedded value is the same in `sa` and `sb` and points at nothing:
    /// equal content then says all there is to say, with no walk of its fields.
    fn unchanged_value(
        &mut self,
        field: &RttiField,
        sa: &dyn Reflectable,
        sb: &dyn Reflectable,
    ) -> Result<bool, DiffError> {
        same_values(field, sa, sb, &mut self.scratch)
    }

    /// One element held by value: `None` when unchanged.
    fn element(
        &mut self,
        a: Option<&dyn Reflectable>,
        b: Option<&dyn Reflectable>,
        old: u32,
    ) -> Result<Option<EmbeddedElement>, DiffError> {
        Ok(match (a, b) {
            (None, None) => None,
            (Some(_), None) => Some(EmbeddedElement { old: None, body: None }),
            (Some(a), Some(b)) if a.rtti().id() == b.rtti().id() => {
                let body = self.body(Some(a), b)?;
                (!body.is_empty()).then_some(EmbeddedElement { old: Some(old), body: Some(body) })
            }
            (_, Some(b)) => Some(EmbeddedElement { old: None, body: Some(self.body(None, b)?) }),
        })
    }
}

/// Element contents of an array, one after another.
#[derive(Default)]
struct Contents {
    bytes: Vec<u8>,
    /// Each element's key in `bytes`, its type ID and whether the key is its identity.
    elements: Vec<(Range<usize>, (u32, bool))>,
}

impl Contents {
    fn get(&self, index: usize) -> &[u8] {
        &self.bytes[self.elements[index].0.clone()]
    }
}

/// Whether `a` and `b` have the same [`content`], told in place: each section through the code
/// its derive generated when there is some and it can tell, otherwise field by field, plain ones
/// through [`PlainAccess::same`](crate::field::PlainAccess::same), written out into `scratch`
/// only where their type cannot tell. With `deep`, `false` as soon as either points at anything:
/// equal content would not say that the targets are equal.
pub(super) fn same_content(
    a: &dyn Reflectable,
    b: &dyn Reflectable,
    deep: bool,
    scratch: &mut (Vec<u8>, Vec<u8>),
) -> Result<bool, DiffError> {
    let Ok(sections) = visit::section_pairs(a, b) else { return Ok(false) };
    for (sa, sb) in sections {
        let rtti = sa.rtti;
        let scope = if deep { SameScope::Content } else { SameScope::Plain };
        // Generated code compares the declared fields (and cannot tell when any are kept).
        let declared_same = match generated_same(rtti, sa.object, sb.object, scope) {
            Some(true) => true,
            Some(false) => return Ok(false),
            None => false,
        };
        // With the declared fields told equal, only the kept ones are left (usually none).
        let Ok(slots) = sa.slot_pairs(sb, !declared_same) else { return Ok(false) };
        for (x, y) in slots {
            let (field, sa, sb) = (x.field, x.owner, y.owner);
            let same = match field.access() {
                FieldAccess::Plain(plain) => match plain.same(sa, sb).map_err(unreadable(field))? {
                    Some(same) => same,
                    None => {
                        let (x, y) = (&mut scratch.0, &mut scratch.1);
                        x.clear();
                        y.clear();
                        let count_a = plain.write(sa, x).map_err(unreadable(field))?;
                        let count_b = plain.write(sb, y).map_err(unreadable(field))?;
                        count_a == count_b && x == y
                    }
                },
                FieldAccess::Embedded(_) if deep => same_values(field, sa, sb, scratch)?,
                FieldAccess::Pointer(pointers) if deep => {
                    let mut none = true;
                    for owner in [sa, sb] {
                        pointers
                            .for_each(owner, &mut |addr, _, _| none &= addr.is_none())
                            .map_err(unreadable(field))?;
                    }
                    none
                }
                _ => true,
            };
            if !same {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// What the code generated for section type `rtti` says of sections `a` and `b` (see
/// [`SameScope`]); `None` when there is none (or it is switched off), or it cannot tell.
#[inline]
pub(super) fn generated_same(
    rtti: &RttiType,
    a: &dyn Reflectable,
    b: &dyn Reflectable,
    scope: SameScope,
) -> Option<bool> {
    let same = rtti.generated_same().filter(|_| generated_codecs_by_default())?;
    same(a as &dyn Any, b as &dyn Any, scope)
}

/// Whether objects `a` and `b`, both of type `own`, are equal in `scope`, every section, as
/// generated code tells: `false` when it tells they differ, cannot tell, or is switched off.
#[inline]
pub(super) fn generated_same_sections(
    own: &'static RttiType,
    a: &dyn Reflectable,
    b: &dyn Reflectable,
    scope: SameScope,
) -> bool {
    generated_codecs_by_default() && same_sections(own, a, b, scope) == Some(true)
}

/// [`same_content`] of every element of embedded field `field` in `a` and `b`.
fn same_values(
    field: &RttiField,
    a: &dyn Reflectable,
    b: &dyn Reflectable,
    scratch: &mut (Vec<u8>, Vec<u8>),
) -> Result<bool, DiffError> {
    // A single value is one element; only arrays have lengths to ask for.
    let len = if field.is_array() { field.len(a).map_err(unreadable(field))? } else { 1 };
    if field.is_array() && len != field.len(b).map_err(unreadable(field))? {
        return Ok(false);
    }
    for index in 0..len {
        let same = field
            .with_embedded(a, index, |x| {
                field.with_embedded(b, index, |y| match (x, y) {
                    (Some(x), Some(y)) => same_content(x, y, true, scratch),
                    (x, y) => Ok(x.is_none() && y.is_none()),
                })
            })
            .and_then(|inner| inner)
            .map_err(unreadable(field))??;
        if !same {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The content of `object` for matching: its type, variants and plain values, then, when `deep`,
/// what it holds by value and which of its pointers are null (never their targets). Without
/// `deep`, a shared object's fingerprint. Written out to be hashed; [`same_content`] compares two
/// objects' in place.
pub(super) fn content(object: &dyn Reflectable, out: &mut Vec<u8>, deep: bool) -> Result<(), DiffError> {
    let own = object.rtti();
    out.extend_from_slice(&own.id().to_le_bytes());
    for section in visit::sections_from(own, object) {
        if let Some(variant) = section.variant() {
            out.extend_from_slice(&variant.id().to_le_bytes());
        }
        for Slot { field, owner: section, .. } in section.slots() {
            match field.access() {
                FieldAccess::Plain(plain) => {
                    let count = plain.write(section, out).map_err(unreadable(field))?;
                    out.extend_from_slice(&(count as u32).to_le_bytes());
                }
                FieldAccess::Embedded(values) if deep => {
                    let mut result = Ok(());
                    values
                        .for_each(section, &mut |value| match value {
                            Some(value) if result.is_ok() => result = content(value, out, true),
                            _ => out.extend_from_slice(&0u32.to_le_bytes()),
                        })
                        .map_err(unreadable(field))?;
                    result?;
                }
                FieldAccess::Pointer(pointers) if deep => {
                    pointers
                        .for_each(section, &mut |addr, _, _| out.push(u8::from(addr.is_some())))
                        .map_err(unreadable(field))?;
                    out.push(0xFF);
                }
                _ => {}
            }
        }
    }
    Ok(())
}
