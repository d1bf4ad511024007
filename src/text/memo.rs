//! Facts about a signature's nodes (where each ends, its static size, its compact minimum size),
//! worked out once per value taken apart instead of once per element.
//!
//! Reading a value visits each node of its signature once per element, and a node's facts take
//! the whole node to work out: a long signature (a file's schema may hold 255 words) over many
//! elements cost time that grew with the fourth power of its depth, seconds for a few hundred
//! bytes. Within a [`scope`], the facts of every node of its root signature are remembered by the
//! node's offset in it. Slices outside the root (derived types' layouts, which are the program's
//! own) are worked out as before.

use crate::plain::signature::Sig;
use crate::plain::type_ids as id;
use std::cell::RefCell;

struct Memo {
    /// Address and length of the root signature.
    start: usize,
    len: usize,
    /// Per offset: the node's length in words (0: not known yet).
    extent: Vec<u16>,
    /// Per offset: the node's static size, once known.
    static_size: Vec<Option<Option<u32>>>,
    /// Per offset: the node's compact minimum size, once known.
    compact_min: Vec<Option<usize>>,
}

thread_local! {
    static MEMO: RefCell<Option<Memo>> = const { RefCell::new(None) };
}

/// Clears the memo when the scope that made it ends, panicking or not.
struct Installed;

impl Drop for Installed {
    fn drop(&mut self) {
        MEMO.with(|memo| *memo.borrow_mut() = None);
    }
}

/// Runs `f` remembering the facts of `root`'s nodes, unless a surrounding scope does already.
/// `root` is borrowed for the whole scope, so an offset in it always names the same node.
pub(super) fn scope<R>(root: &[u32], f: impl FnOnce() -> R) -> R {
    let install = MEMO.with(|memo| memo.borrow().is_none());
    let _installed = install.then(|| {
        let memo = Memo {
            start: root.as_ptr() as usize,
            len: root.len(),
            extent: vec![0; root.len()],
            static_size: vec![None; root.len()],
            compact_min: vec![None; root.len()],
        };
        MEMO.with(|slot| *slot.borrow_mut() = Some(memo));
        Installed
    });
    f()
}

/// The offset of `sig` in the current scope's root, when it lies inside it.
fn offset_in(memo: &Memo, sig: &[u32]) -> Option<usize> {
    if sig.is_empty() {
        return None;
    }
    let at = (sig.as_ptr() as usize).checked_sub(memo.start)? / std::mem::size_of::<u32>();
    (at < memo.len && at + sig.len() <= memo.len).then_some(at)
}

/// Looks up a fact of `sig`'s node, or works it out with `compute` and remembers it (an error
/// is not remembered: it is worked out again, at no cost that matters, when asked again).
fn cached<T: Copy, E>(
    sig: &[u32],
    field: impl Fn(&mut Memo) -> &mut Vec<Option<T>>,
    compute: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    let known = MEMO.with(|memo| {
        let mut memo = memo.borrow_mut();
        let memo = memo.as_mut()?;
        let at = offset_in(memo, sig)?;
        Some((at, field(memo)[at]))
    });
    match known {
        // Only for a slice that holds its whole node: a cut-off one has no such facts.
        Some(_) if extent(sig).is_none() => compute(),
        Some((_, Some(value))) => Ok(value),
        Some((at, None)) => {
            let value = compute()?;
            MEMO.with(|memo| {
                if let Some(memo) = memo.borrow_mut().as_mut() {
                    field(memo)[at] = Some(value);
                }
            });
            Ok(value)
        }
        None => compute(),
    }
}

/// `plain::signature::split_type`, with the extents of the node's parts remembered: the first whole type of
/// `sig`, that type's words, and what follows.
pub(super) fn split(sig: &[u32]) -> Option<(Sig<'_>, &[u32], &[u32])> {
    let &head = sig.first()?;
    let part = |from: usize| -> Option<&[u32]> {
        let rest = sig.get(from..)?;
        Some(&rest[..extent(rest)?])
    };
    let (node, end) = match head {
        id::VEC | id::VEC_DEQUE | id::SMALL_VEC | id::HASH_SET | id::BTREE_SET => {
            let elem = part(1)?;
            (Sig::Seq(head, elem), 1 + elem.len())
        }
        id::HASH_MAP | id::BTREE_MAP => {
            let key = part(1)?;
            let value = part(1 + key.len())?;
            (Sig::Map(head, key, value), 1 + key.len() + value.len())
        }
        id::OPTION => {
            let inner = part(1)?;
            (Sig::Option(inner), 1 + inner.len())
        }
        id::ARRAY => {
            let len = *sig.get(1)?;
            let elem = part(2)?;
            (Sig::Array(len, elem), 2 + elem.len())
        }
        id::TUPLE => {
            let end = extent(sig)?;
            (Sig::Tuple(*sig.get(1)?, &sig[2..end]), end)
        }
        leaf => (Sig::Leaf(leaf), 1),
    };
    Some((node, &sig[..end], &sig[end..]))
}

/// The whole types `sig` lists one after the other (a tuple's parts), by [`split`].
pub(super) fn split_all(mut sig: &[u32]) -> Vec<&[u32]> {
    let mut parts = Vec::new();
    while let Some((_, part, after)) = split(sig) {
        parts.push(part);
        sig = after;
    }
    parts
}

/// How many words the first whole type of `sig` takes; `None` when `sig` ends inside it.
fn extent(sig: &[u32]) -> Option<usize> {
    let known = MEMO.with(|memo| {
        let memo = memo.borrow();
        let memo = memo.as_ref()?;
        let at = offset_in(memo, sig)?;
        Some((at, memo.extent[at]))
    });
    // A remembered extent holds for any slice at that offset long enough to hold the node; a
    // shorter one ends inside it.
    if let Some((_, words)) = known.filter(|&(_, words)| words != 0) {
        return (usize::from(words) <= sig.len()).then_some(usize::from(words));
    }
    let words = match *sig.first()? {
        id::TUPLE => {
            let parts = *sig.get(1)?;
            let mut end = 2;
            for _ in 0..parts {
                end += extent(sig.get(end..)?)?;
            }
            end
        }
        // Any other node: `split` finds it through its parts' (remembered) extents.
        _ => split(sig)?.1.len(),
    };
    if let Some((at, _)) = known {
        MEMO.with(|memo| {
            if let (Some(memo), Ok(words16)) = (memo.borrow_mut().as_mut(), u16::try_from(words)) {
                memo.extent[at] = words16;
            }
        });
    }
    Some(words)
}

/// The static size of `sig`'s node, remembered (`compute` works it out).
pub(super) fn static_size<E>(sig: &[u32], compute: impl FnOnce() -> Result<Option<u32>, E>) -> Result<Option<u32>, E> {
    cached(sig, |memo| &mut memo.static_size, compute)
}

/// The compact minimum size of `sig`'s node, remembered (`compute` works it out).
pub(super) fn compact_min<E>(sig: &[u32], compute: impl FnOnce() -> Result<usize, E>) -> Result<usize, E> {
    cached(sig, |memo| &mut memo.compact_min, compute)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plain::signature::{sig, split_type};
    use quickcheck::quickcheck;
    use std::collections::{BTreeMap, HashSet};

    /// The same split as `split_type` everywhere in `root`, inside a scope and out of it, and on
    /// the second asking (remembered) as on the first.
    fn same_splits(root: &[u32]) {
        // Every slice of `root`, suffixes and cut-off ones, asked twice.
        let check = |root: &[u32]| {
            for at in 0..root.len() {
                for end in (at..=root.len()).rev() {
                    let slice = &root[at..end];
                    let expected = split_type(slice).map(|(_, node, rest)| (node.len(), rest.len()));
                    for _ in 0..2 {
                        let found = split(slice).map(|(_, node, rest)| (node.len(), rest.len()));
                        assert_eq!(found, expected, "{root:?} at {at}..{end}");
                        let size = crate::text::static_size(slice).ok();
                        let unscoped = MEMO.with(|memo| memo.borrow().is_none());
                        if !unscoped {
                            assert_eq!(size, uncached_size(slice), "{root:?} at {at}..{end}");
                        }
                    }
                }
            }
        };
        check(root);
        scope(root, || check(root));
    }

    /// `static_size` worked out with no memo in force.
    fn uncached_size(sig: &[u32]) -> Option<Option<u32>> {
        let memo = MEMO.with(|memo| memo.borrow_mut().take());
        let size = crate::text::static_size(sig).ok();
        MEMO.with(|slot| *slot.borrow_mut() = memo);
        size
    }

    #[test]
    fn splits_as_split_type_does() {
        same_splits(&sig::<Vec<(u8, Option<[String; 3]>, BTreeMap<u16, HashSet<i8>>)>>());
        same_splits(&sig::<((u8,), [u16; 0], Vec<Vec<Option<u32>>>)>());
        same_splits(&[id::TUPLE, 3, id::U8]); // ends inside the tuple
        same_splits(&[id::ARRAY]);
    }

    quickcheck! {
        /// Any words at all, well formed or not.
        fn splits_any_words_as_split_type_does(words: Vec<u8>) -> bool {
            let heads = [id::VEC, id::HASH_MAP, id::OPTION, id::ARRAY, id::TUPLE, id::U8, id::STRING, 2, 0];
            let root: Vec<u32> = words.iter().map(|&w| heads[usize::from(w) % heads.len()]).collect();
            same_splits(&root);
            true
        }
    }
}
