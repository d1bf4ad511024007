//! Objects matched by their declared identity (`rtti/identity.rs`): a type that names an identity
//! field says which of its objects are one object, edited, and which are two. Where it does, the
//! identity decides every pairing of two objects that are not the very same allocation: equal
//! identities pair whatever else changed, and different ones never pair, not even as a guess.
//! Types without one are matched by their fingerprint (type, variants, plain values), as before.

use super::values::{content, same_content};
use super::{unreadable_object, DiffError, Told};
use crate::field::SharedObject;
use crate::rtti::{Flow, GraphWalker, Reflectable, Root};
use ahash::{AHashMap, AHashSet};

/// First byte of a match key made from an identity (a fingerprint's is the family's
/// mutability, 0 or 1), so that the two kinds of key never compare equal.
const IDENTITY_KEY: u8 = 2;

/// Appends the key an object is matched by: its identity, when its type declares one, or else its
/// fingerprint (family, type, variants, plain values). An identity key holds the object's own
/// type and its family's mutability too: objects of two types that share a base declaring the
/// identity, or one editable and one not, are never one object.
pub(super) fn match_key(object: &SharedObject, out: &mut Vec<u8>) -> Result<(), DiffError> {
    let mutable = object.family().is_mutable();
    object
        .read(|object| {
            if has_identity(object) {
                out.push(IDENTITY_KEY);
                out.push(u8::from(mutable));
                out.extend_from_slice(&object.rtti().id().to_le_bytes());
                object.rtti().write_identity(object, out);
                Ok(())
            } else {
                out.push(u8::from(mutable));
                content(object, out, false)
            }
        })
        .map_err(unreadable_object)?
}

/// Appends the key an object held by value is aligned by: its identity, or else its content
/// (what it holds by value included).
pub(super) fn value_key(object: &dyn Reflectable, out: &mut Vec<u8>) -> Result<(), DiffError> {
    if has_identity(object) {
        out.push(IDENTITY_KEY);
        out.extend_from_slice(&object.rtti().id().to_le_bytes());
        object.rtti().write_identity(object, out);
        Ok(())
    } else {
        content(object, out, true)
    }
}

/// Whether a key was made from an identity: two objects with equal such keys are one object,
/// but their plain values may differ (a key made from a fingerprint says they are equal).
pub(super) fn is_identity_key(key: &[u8]) -> bool {
    key.first() == Some(&IDENTITY_KEY)
}

/// Whether `object`'s type (or a base) declares an identity.
pub(super) fn has_identity(object: &dyn Reflectable) -> bool {
    object.rtti().identity_field().is_some()
}

/// Whether `a` and `b` (two shared objects, neither being read elsewhere) are one object, and what
/// that tells of their plain values: by identity when the type declares one (`Told::Nothing`:
/// other plain values may differ), by fingerprint otherwise (`Told::Plain`: they are equal).
/// `None`: two objects.
pub(super) fn same_object(
    a: &dyn Reflectable,
    b: &dyn Reflectable,
    scratch: &mut (Vec<u8>, Vec<u8>),
) -> Result<Option<Told>, DiffError> {
    if has_identity(a) || has_identity(b) {
        let (x, y) = (&mut scratch.0, &mut scratch.1);
        x.clear();
        y.clear();
        let same =
            a.rtti().id() == b.rtti().id() && a.rtti().write_identity(a, x) && b.rtti().write_identity(b, y) && x == y;
        return Ok(same.then_some(Told::Nothing));
    }
    Ok(same_content(a, b, false, scratch)?.then_some(Told::Plain))
}

/// Every shared object the graph under `root` holds strongly (by address). `Weak`s are not
/// followed: they may lead to an object the caller holds locked (the old root), which the diff
/// itself never reads through them.
pub(super) fn shared_objects(root: Root<'_>) -> AHashSet<usize> {
    let mut found = AHashSet::new();
    let walker = GraphWalker::new();
    let mut note = |visit: &crate::rtti::Visit<'_>| {
        if let Some(shared) = visit.shared {
            found.insert(shared.addr());
        }
        Ok::<_, std::convert::Infallible>(Flow::Continue)
    };
    // A graph that cannot be read whole (an object locked elsewhere) is as far as it was read.
    let _ = match root {
        Root::Object(object) => walker.walk(object, &mut note),
        Root::Shared(object) => walker.walk_shared(&object, &mut note),
    };
    found
}

/// The shared objects of the graph under `root` that `key` gives a key for (see
/// [`diff_external`](super::diff_external)), by address, through strong and `Weak` pointers as
/// the diff follows them; the walk does not go inside them. `key` is called with no object of
/// the graph read (locked), so it may read the object it is given. Two objects given one key are
/// an error: a key names one object.
pub(super) fn external_objects(
    root: Root<'_>,
    key: &dyn Fn(&SharedObject) -> Option<u64>,
    found: &mut AHashMap<usize, u64>,
) -> Result<(), DiffError> {
    // One level at a time: the shared objects directly under an object (not inside others).
    let under = |start: Root<'_>, out: &mut Vec<SharedObject>| {
        let start_addr = match &start {
            Root::Shared(object) => Some(object.addr()),
            Root::Object(_) => None,
        };
        let mut note = |visit: &crate::rtti::Visit<'_>| {
            Ok::<_, std::convert::Infallible>(match visit.shared {
                Some(shared) if Some(shared.addr()) != start_addr => {
                    out.push(shared.clone());
                    Flow::SkipFields
                }
                _ => Flow::Continue,
            })
        };
        // A graph that cannot be read whole (an object locked elsewhere) is as far as it was read.
        let walker = GraphWalker::new().follow_weak(true);
        let _ = match start {
            Root::Object(object) => walker.walk(object, &mut note),
            Root::Shared(object) => walker.walk_shared(&object, &mut note),
        };
    };
    let mut by_key: AHashMap<u64, usize> = found.iter().map(|(&addr, &key)| (key, addr)).collect();
    let mut seen = AHashSet::new();
    let mut queue = Vec::new();
    if let Root::Shared(object) = &root {
        seen.insert(object.addr());
    }
    under(root, &mut queue);
    while let Some(object) = queue.pop() {
        if !seen.insert(object.addr()) {
            continue;
        }
        match key(&object) {
            Some(given) => {
                if by_key.insert(given, object.addr()).is_some_and(|other| other != object.addr()) {
                    return Err(DiffError::ExternalKey { key: given });
                }
                found.insert(object.addr(), given);
            }
            None => under(Root::Shared(object.clone()), &mut queue),
        }
    }
    Ok(())
}
