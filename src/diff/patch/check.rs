//! A patch checked against itself before anything applies it. A patch is as untrusted as a file
//! (undo histories and prefab overrides come from disk, replication deltas from the network), so
//! every count, index and reference it holds must be bounded by the patch's own size before
//! [`Patch::apply`](crate::diff::Patch::apply) allocates or walks by it. What depends on the graph it lands in
//! (an old element's index against the array's length) is checked by `apply`, before it
//! allocates, for each field.
//!
//! The rules, each of which a patch [`diff`](crate::diff::diff) makes keeps:
//! - edit 0 is the root, and no other edit is; a found object is found from an earlier edit, by
//!   a path no other edit of that object repeats;
//! - a body edits each field once, and names each section's kept set once; a patch names at
//!   most [`MAX_KEPT_SETS`] different kept sets (each defines a type for the rest of the process),
//!   each as valid as a stream's schema table entry;
//! - a plain value's element count fits its bytes, and its runs take each new element once and
//!   old elements in order;
//! - an element edited in place is named once, and a rebuilt array keeps each old element once;
//! - a pointer names null or an edit of the patch;
//! - an external object (re-linked by the apply's caller) has no path and no changes.

use super::{ObjectBody, Origin, Patch, NONE};
use crate::plain::ZERO_SIZED_ALLOWANCE;
use crate::schema::table::checked_fields;
use crate::schema::FieldSchema;
use ahash::AHashSet;
use std::fmt;

/// Where a patch breaks its own rules: the member's path in the patch (as its JSON form names
/// it, `objects[3].body.plain[0].count`), and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Malformed {
    pub(crate) at: String,
    pub(crate) why: String,
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at `{}`: {}", self.at, self.why)
    }
}

#[cold]
fn malformed(at: impl fmt::Display, why: impl Into<String>) -> Malformed {
    Malformed { at: at.to_string(), why: why.into() }
}

impl Patch {
    /// Checks the patch's structure: see the module's rules.
    pub(crate) fn check(&self) -> Result<(), Malformed> {
        let count = self.objects.len();
        let mut found = AHashSet::new();
        // Elements of no size cost no bytes: one allowance for the whole patch, as for a stream.
        let mut tally = Tally::default();
        for (index, edit) in self.objects.iter().enumerate() {
            let at = format_args!("objects[{index}]");
            match edit.origin {
                Origin::Root if index == 0 => {}
                Origin::Root => return Err(malformed(format_args!("{at}.origin"), "a second root")),
                _ if index == 0 => return Err(malformed(format_args!("{at}.origin"), "the first edit is the root")),
                // An origin code this build does not know (a newer writer's): `apply` reports it.
                Origin::Found { from: NONE } => {}
                Origin::Found { from } => {
                    if from as usize >= index {
                        let why = format!("found from edit {from}, which is not an earlier one");
                        return Err(malformed(format_args!("{at}.origin"), why));
                    }
                    // What an external object holds is the caller's, not the patch's to edit.
                    if self.objects[from as usize].origin == Origin::External {
                        let why = format!("found inside edit {from}, an external object");
                        return Err(malformed(format_args!("{at}.origin"), why));
                    }
                    if edit.path.is_empty() {
                        return Err(malformed(format_args!("{at}.path"), "a found object needs a path"));
                    }
                    if !found.insert((from, edit.path.as_slice())) {
                        return Err(malformed(format_args!("{at}.path"), "another edit finds the same object"));
                    }
                }
                Origin::Created { .. } => {}
                Origin::External => {
                    if !edit.body.is_empty() || !edit.path.is_empty() || !edit.identity.is_empty() {
                        let why = "an external object is re-linked as it is: the patch names it only";
                        return Err(malformed(format_args!("{at}.body"), why));
                    }
                }
            }
            if edit.key != 0 && edit.origin != Origin::External {
                return Err(malformed(format_args!("{at}.external"), "only an external object has a key"));
            }
            check_body(&edit.body, count, &mut tally, &format!("{at}.body"))?;
        }
        Ok(())
    }
}

/// A map edit's signature, checked as a schema table's are: no longer than a table holds, and
/// well formed (what reading its entries walks).
pub(crate) fn signature_fits(signature: &[u32]) -> Result<(), String> {
    let longest = crate::plain::signature::MAX_SIGNATURE_LEN;
    if signature.len() > longest {
        return Err(format!("a signature of {} words (at most {longest})", signature.len()));
    }
    if !crate::plain::signature::is_well_formed(signature) {
        return Err("a malformed signature".to_owned());
    }
    Ok(())
}

/// Checks one body and the bodies nested in it (their depth is the decoder's to bound).
/// How many different kept sets one patch may name.
pub(crate) const MAX_KEPT_SETS: usize = 64;

/// What the bodies of one patch add up to.
#[derive(Default)]
struct Tally<'p> {
    /// Elements of no size, over every plain edit.
    zero_sized: usize,
    /// The different kept sets named.
    kept_sets: Vec<&'p [FieldSchema]>,
}

fn check_body<'p>(body: &'p ObjectBody, objects: usize, tally: &mut Tally<'p>, at: &str) -> Result<(), Malformed> {
    let mut fields = AHashSet::new();
    let mut once = |section: u32, field: u16, at: &dyn Fn() -> String| {
        if fields.insert((section, field)) {
            Ok(())
        } else {
            Err(malformed(at(), format!("field {section}.{field} is edited twice")))
        }
    };
    let mut kept = AHashSet::new();
    for (n, edit) in body.kept.iter().enumerate() {
        if !kept.insert(edit.section) {
            let why = format!("the kept fields of section {} are replaced twice", edit.section);
            return Err(malformed(format_args!("{at}.kept[{n}]"), why));
        }
        if !tally.kept_sets.contains(&&edit.fields[..]) {
            if tally.kept_sets.len() == MAX_KEPT_SETS {
                let why = format!("more than {MAX_KEPT_SETS} different sets of kept fields");
                return Err(malformed(format_args!("{at}.kept[{n}]"), why));
            }
            // Checked as a stream's schema table entry is, once per set.
            if let Err(error) = checked_fields(edit.section, edit.fields.clone()) {
                return Err(malformed(format_args!("{at}.kept[{n}].fields"), error.to_string()));
            }
            tally.kept_sets.push(&edit.fields);
        }
    }
    for (n, edit) in body.plain.iter().enumerate() {
        once(edit.section, edit.field, &|| format!("{at}.plain[{n}]"))?;
        let count = edit.count as usize;
        // Each element takes at least a byte, except those of a type of no size, of which a
        // value holds no bytes at all.
        let fits = if edit.bytes.is_empty() && count > 0 {
            tally.zero_sized += count;
            tally.zero_sized <= ZERO_SIZED_ALLOWANCE
        } else {
            count <= edit.bytes.len()
        };
        if !fits {
            let why = match edit.bytes.is_empty() {
                true => format!("{count} elements of no size, past the patch's {ZERO_SIZED_ALLOWANCE}"),
                false => format!("{count} elements in {} bytes", edit.bytes.len()),
            };
            return Err(malformed(format_args!("{at}.plain[{n}].count"), why));
        }
        if edit.runs.is_empty() {
            continue;
        }
        let (mut taken, mut next_old) = (0u64, 0u64);
        for (r, &(start, len)) in edit.runs.iter().enumerate() {
            if start == NONE {
                taken += u64::from(len);
                continue;
            }
            if u64::from(start) < next_old {
                let why = "old elements out of order, or taken twice";
                return Err(malformed(format_args!("{at}.plain[{n}].runs[{r}]"), why));
            }
            next_old = u64::from(start) + u64::from(len);
        }
        if taken != count as u64 {
            let why = format!("the runs take {taken} new elements, the value has {count}");
            return Err(malformed(format_args!("{at}.plain[{n}].runs"), why));
        }
    }
    for (n, edit) in body.maps.iter().enumerate() {
        once(edit.section, edit.field, &|| format!("{at}.maps[{n}]"))?;
        signature_fits(&edit.signature).map_err(|why| malformed(format_args!("{at}.maps[{n}].signature"), why))?;
        // A map's stored value is its size, its entry count, then the entries: entries of no size
        // (a `BTreeMap<(), ()>`) hold no bytes, and go against the patch's allowance.
        for (part, bytes) in [("from", &edit.from), ("to", &edit.to)] {
            let count = bytes.get(4..8).map_or(0, |word| u32::from_le_bytes(word.try_into().expect("4 bytes")));
            if count as usize > bytes.len().saturating_sub(8) {
                tally.zero_sized += count as usize;
                if tally.zero_sized > ZERO_SIZED_ALLOWANCE {
                    let why = format!("{count} entries of no size, past the patch's {ZERO_SIZED_ALLOWANCE}");
                    return Err(malformed(format_args!("{at}.maps[{n}].{part}"), why));
                }
            }
        }
    }
    let mut olds = AHashSet::new();
    for (n, edit) in body.embedded.iter().enumerate() {
        once(edit.section, edit.field, &|| format!("{at}.embedded[{n}]"))?;
        olds.clear();
        for (e, element) in edit.elements.iter().enumerate() {
            let at = format!("{at}.embedded[{n}].elements[{e}]");
            match (element.old, &element.body) {
                (None, _) if !edit.rebuild => {
                    return Err(malformed(format_args!("{at}.old"), "an edit in place names no element"));
                }
                (Some(_), None) if !edit.rebuild => {
                    return Err(malformed(format_args!("{at}.body"), "an edit in place without changes"));
                }
                _ => {}
            }
            if let Some(old) = element.old {
                if !olds.insert(old) {
                    let why = format!("old element {old} is used twice");
                    return Err(malformed(format_args!("{at}.old"), why));
                }
            }
            if let Some(body) = &element.body {
                check_body(body, objects, tally, &format!("{at}.body"))?;
            }
        }
    }
    for (n, edit) in body.pointers.iter().enumerate() {
        once(edit.section, edit.field, &|| format!("{at}.pointers[{n}]"))?;
        olds.clear();
        for (e, &(old, target)) in edit.elements.iter().enumerate() {
            let at = || format!("{at}.pointers[{n}].elements[{e}]");
            if !edit.rebuild && !olds.insert(old) {
                return Err(malformed(at(), format!("element {old} is retargeted twice")));
            }
            // Rebuilt, an old element is kept as it is and names no target.
            if (!edit.rebuild || old == NONE) && target as usize > objects {
                return Err(malformed(at(), format!("target {target} names no edit of the {objects}")));
            }
        }
    }
    Ok(())
}
