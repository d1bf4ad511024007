//! Which pointer elements of a base graph hold which objects strongly: what a merge must keep
//! when one side removes an object the other side still changes (the conflict keeps ours), and
//! where the object a side reaches only through a `Weak` is held.

use super::combine::{Key, Reached};
use crate::diff::DiffError;
use crate::rtti::{visit, Flow, GraphWalker, Reflectable};
use ahash::{AHashMap, AHashSet};

/// One strong pointer element: the object holding it (0 the root), the steps through objects held
/// by value to the field, the field's section and ID, the element.
type Slot = (Key, Vec<(u32, u16, u32)>, u32, u16, u32);

/// Every strong pointer element of the graph under `root`, by the address it points at.
pub(super) fn strong_holders(root: &dyn Reflectable) -> AHashMap<usize, Vec<Slot>> {
    let mut holders: AHashMap<usize, Vec<Slot>> = AHashMap::new();
    let _ = slots_of(root, 0, &mut Vec::new(), &mut holders);
    let mut shared = Vec::new();
    let _ = GraphWalker::new().walk(root, |visit| {
        if let Some(object) = visit.shared {
            shared.push(object.clone());
        }
        Ok::<_, std::convert::Infallible>(Flow::Continue)
    });
    for object in shared {
        // An object that cannot be read holds nothing the merge can keep.
        let _ = object.read(|inner| slots_of(inner, object.addr(), &mut Vec::new(), &mut holders));
    }
    holders
}

fn slots_of(
    object: &dyn Reflectable,
    key: Key,
    steps: &mut Vec<(u32, u16, u32)>,
    out: &mut AHashMap<usize, Vec<Slot>>,
) -> Result<(), DiffError> {
    for section in visit::sections_from(object.rtti(), object) {
        for slot in section.slots() {
            let (field, owner) = (slot.field, slot.owner);
            let section = slot.section.id();
            let len = field.len(owner).unwrap_or(0);
            if let Some(pointers) = field.as_pointer() {
                if pointers.is_weak() {
                    continue;
                }
                for index in 0..len {
                    if let Ok(Some(target)) = field.shared(owner, index) {
                        let slot = (key, steps.clone(), section, field.id(), index as u32);
                        out.entry(target.addr()).or_default().push(slot);
                    }
                }
            } else if field.as_embedded().is_some() {
                for index in 0..len {
                    steps.push((section, field.id(), index as u32));
                    let _ = field.with_embedded(owner, index, |inner| match inner {
                        Some(inner) => slots_of(inner, key, steps, out),
                        None => Ok(()),
                    });
                    steps.pop();
                }
            }
        }
    }
    Ok(())
}

/// The elements that hold `objects` in the base, and the objects that hold those, up to the
/// root: where a side's removal would take the objects away. As reach (see `combine.rs`).
pub(super) fn reach_of(objects: &[usize], holders: &AHashMap<usize, Vec<Slot>>) -> Reached {
    let mut reached = Reached::default();
    let mut seen: AHashSet<usize> = objects.iter().copied().collect();
    let mut stack: Vec<usize> = objects.to_vec();
    while let Some(addr) = stack.pop() {
        for (holder, steps, section, field, element) in holders.get(&addr).into_iter().flatten() {
            reached.entry((*holder, steps.clone(), *section, *field)).or_default().insert(*element, None);
            if *holder != 0 && seen.insert(*holder) {
                stack.push(*holder);
            }
        }
    }
    reached
}
