//! Plain maps (`HashMap<String, f32>`) diffed and patched entry by entry, so that an override
//! holds only the keys an instance changed, and a prefab's later change to another key survives
//! it (see [`MapEdit`]). Entries are taken apart through the plain layouts the text and JSON
//! forms use; keys and values are compared by their stored bytes (map keys are `Eq` types, so
//! equal keys store alike; a value `-0.0` differs from `0.0`, and `NaN` equals itself).

use crate::diff::patch::MapEdit;
use crate::field::RttiField;
use crate::text::{map_parts, read_field, read_value, write_value, PlainValue};
use ahash::AHashMap;

/// A map field's entries, as a plain value holds them.
type Entries = Vec<(PlainValue, PlainValue)>;

/// A key an edit changed: its value before (`None`: added) and after (`None`: removed).
type KeyChange = (PlainValue, Option<PlainValue>, Option<PlainValue>);

/// The edit that turns map field `field`'s value `old` into `new` (each `count` stored elements
/// of the field), by key: `None` when the field is not a single map, or its entries cannot be
/// taken apart (then the value is replaced whole).
pub(crate) fn diff_entries(
    field: &RttiField,
    section: u32,
    (old, old_count): (&[u8], usize),
    (new, new_count): (&[u8], usize),
) -> Option<MapEdit> {
    if field.is_array() {
        return None;
    }
    let sig = field.value_signature().ok()?;
    let (key_sig, value_sig) = map_parts(&sig)?;
    let entries = |bytes: &[u8], count: usize| match read_field(&sig, field.static_size(), count, false, bytes) {
        Ok(PlainValue::Map(entries)) if entries.iter().all(|(k, v)| described(k) && described(v)) => Some(entries),
        _ => None,
    };
    let (old, new) = (entries(old, old_count)?, entries(new, new_count)?);
    let old_by_key = by_key(&key_sig, &old)?;
    let new_by_key = by_key(&key_sig, &new)?;
    let (mut from, mut to) = (Vec::new(), Vec::new());
    for (key, value) in &new {
        let kept = old_by_key.get(&key_bytes(&key_sig, key)?).map(|&at| &old[at]);
        if let Some((_, old_value)) = kept {
            if key_bytes(&value_sig, old_value)? == key_bytes(&value_sig, value)? {
                continue;
            }
        }
        if let Some(entry) = kept {
            from.push(entry.clone());
        }
        to.push((key.clone(), value.clone()));
    }
    for (key, value) in &old {
        if !new_by_key.contains_key(&key_bytes(&key_sig, key)?) {
            from.push((key.clone(), value.clone()));
        }
    }
    let (mut from_bytes, mut to_bytes) = (Vec::new(), Vec::new());
    write_value(&sig, &PlainValue::Map(from), &mut from_bytes).ok()?;
    write_value(&sig, &PlainValue::Map(to), &mut to_bytes).ok()?;
    Some(MapEdit { section, field: field.id(), signature: sig, from: from_bytes, to: to_bytes })
}

/// What applying `edit` to the entries `current` of a map of type `sig` gives: its `from` keys
/// removed unless `to` sets them, its `to` entries set. Also each key changed, with its value
/// before and after, for a description. Linear in the entries (keys found by their bytes).
pub(crate) fn apply_entries(
    sig: &[u32],
    current: Entries,
    edit: &MapEdit,
) -> Result<(Entries, Vec<KeyChange>), String> {
    let (key_sig, value_sig) = map_parts(sig).ok_or("the field is not a map")?;
    if edit.signature != sig {
        return Err("the entries are of another plain type than the field's".to_owned());
    }
    let read = |bytes: &[u8], what: &str| match read_value(sig, bytes) {
        Ok(PlainValue::Map(entries)) => Ok(entries),
        Ok(_) => Err(format!("the edit's {what} entries are not a map")),
        Err(error) => Err(format!("the edit's {what} entries: {error}")),
    };
    let (from, to) = (read(&edit.from, "old")?, read(&edit.to, "new")?);
    let cannot = || "a key cannot be told by its bytes".to_owned();
    let mut entries: Vec<Option<(PlainValue, PlainValue)>> = current.into_iter().map(Some).collect();
    let mut at: AHashMap<Vec<u8>, usize> = AHashMap::with_capacity(entries.len());
    for (index, entry) in entries.iter().enumerate() {
        let (key, _) = entry.as_ref().expect("all present yet");
        at.insert(key_bytes(&key_sig, key).ok_or_else(cannot)?, index);
    }
    let setting = by_key(&key_sig, &to).ok_or_else(cannot)?;
    let mut changed = Vec::new();
    for (key, _) in from {
        let bytes = key_bytes(&key_sig, &key).ok_or_else(cannot)?;
        if setting.contains_key(&bytes) {
            continue;
        }
        if let Some(index) = at.remove(&bytes) {
            let (key, value) = entries[index].take().expect("each key once");
            changed.push((key, Some(value), None));
        }
    }
    for (key, value) in to {
        let bytes = key_bytes(&key_sig, &key).ok_or_else(cannot)?;
        match at.get(&bytes) {
            Some(&index) => {
                let entry = entries[index].as_mut().expect("present");
                let before = std::mem::replace(&mut entry.1, value.clone());
                if key_bytes(&value_sig, &before) != key_bytes(&value_sig, &value) {
                    changed.push((key, Some(before), Some(value)));
                }
            }
            None => {
                at.insert(bytes, entries.len());
                changed.push((key.clone(), None, Some(value.clone())));
                entries.push(Some((key, value)));
            }
        }
    }
    Ok((entries.into_iter().flatten().collect(), changed))
}

/// Two edits of one map field, made from one base, merged key by key: each key either side
/// changed is changed as that side changed it; a key both changed is a conflict unless both left
/// it alike, and ours' change stands. Also the keys in conflict, as text. Linear in the entries.
pub(crate) fn merge_entries(ours: &MapEdit, theirs: &MapEdit) -> Result<(MapEdit, Vec<String>), String> {
    if ours.signature != theirs.signature {
        return Err("the two edits hold entries of different plain types".to_owned());
    }
    let sig = &ours.signature;
    let (key_sig, value_sig) = map_parts(sig).ok_or("the field is not a map")?;
    let read = |bytes: &[u8]| match read_value(sig, bytes) {
        Ok(PlainValue::Map(entries)) => Ok(entries),
        Ok(_) => Err("an edit's entries are not a map".to_owned()),
        Err(error) => Err(format!("an edit's entries: {error}")),
    };
    let cannot = || "a key cannot be told by its bytes".to_owned();
    let (mut from, mut to) = (read(&ours.from)?, read(&ours.to)?);
    let (theirs_from, theirs_to) = (read(&theirs.from)?, read(&theirs.to)?);
    // What each side leaves a changed key as: its value's bytes, or `None` (removed).
    let left = |from: &Entries, to: &Entries| -> Option<AHashMap<Vec<u8>, Option<Vec<u8>>>> {
        let mut left = AHashMap::with_capacity(from.len() + to.len());
        for (key, _) in from {
            left.insert(key_bytes(&key_sig, key)?, None);
        }
        for (key, value) in to {
            left.insert(key_bytes(&key_sig, key)?, Some(key_bytes(&value_sig, value)?));
        }
        Some(left)
    };
    let ours_left = left(&from, &to).ok_or_else(cannot)?;
    let mut in_from = by_key(&key_sig, &from).ok_or_else(cannot)?;
    for (key, value) in theirs_from {
        let bytes = key_bytes(&key_sig, &key).ok_or_else(cannot)?;
        if !in_from.contains_key(&bytes) {
            in_from.insert(bytes, from.len());
            from.push((key, value));
        }
    }
    let theirs_before = read(&theirs.from)?;
    let theirs_left = left(&theirs_before, &theirs_to).ok_or_else(cannot)?;
    let mut conflicts = Vec::new();
    let theirs_set = by_key(&key_sig, &theirs_to).ok_or_else(cannot)?;
    // In the edit's own order, so the merged entries are the same on every run.
    let mut done = ahash::AHashSet::with_capacity(theirs_left.len());
    for (key, _) in theirs_to.iter().chain(&theirs_before) {
        let bytes = key_bytes(&key_sig, key).ok_or_else(cannot)?;
        if !done.insert(bytes.clone()) {
            continue;
        }
        let theirs = &theirs_left[&bytes];
        match ours_left.get(&bytes) {
            Some(ours) if ours == theirs => {}
            Some(_) => conflicts.push(key.to_string()),
            None => {
                if let Some(&at) = theirs_set.get(&bytes) {
                    to.push(theirs_to[at].clone());
                }
            }
        }
    }
    // Conflicts in the order of the keys' text, as the rest of a merge's report is ordered.
    conflicts.sort();
    let (mut from_bytes, mut to_bytes) = (Vec::new(), Vec::new());
    write_value(sig, &PlainValue::Map(from), &mut from_bytes).map_err(|error| error.to_string())?;
    write_value(sig, &PlainValue::Map(to), &mut to_bytes).map_err(|error| error.to_string())?;
    Ok((MapEdit { from: from_bytes, to: to_bytes, ..ours.clone() }, conflicts))
}

/// Whether a value was taken apart (not kept as bytes of a type this program cannot read).
fn described(value: &PlainValue) -> bool {
    !matches!(value, PlainValue::Raw(_))
}

/// Each key's stored bytes, with where it is; `None` when a key cannot be stored again.
fn by_key(key_sig: &[u32], entries: &Entries) -> Option<AHashMap<Vec<u8>, usize>> {
    let mut found = AHashMap::with_capacity(entries.len());
    for (index, (key, _)) in entries.iter().enumerate() {
        found.insert(key_bytes(key_sig, key)?, index);
    }
    Some(found)
}

/// A key's (or value's) stored bytes, by which it is compared.
fn key_bytes(key_sig: &[u32], key: &PlainValue) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    write_value(key_sig, key, &mut bytes).ok()?;
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plain::PlainType;

    fn sig() -> Vec<u32> {
        let mut sig = Vec::new();
        <std::collections::BTreeMap<String, u32> as PlainType>::signature(&mut sig);
        sig
    }

    fn entry(key: &str, value: u32) -> (PlainValue, PlainValue) {
        (PlainValue::Str(key.into()), PlainValue::UInt(value.into()))
    }

    fn edit(from: Entries, to: Entries) -> MapEdit {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        write_value(&sig(), &PlainValue::Map(from), &mut a).unwrap();
        write_value(&sig(), &PlainValue::Map(to), &mut b).unwrap();
        MapEdit { signature: sig(), from: a, to: b, ..MapEdit::default() }
    }

    #[test]
    fn entries_are_removed_replaced_and_added_by_key() {
        let current = vec![entry("a", 1), entry("b", 2), entry("c", 3)];
        let edit = edit(vec![entry("a", 1), entry("b", 2)], vec![entry("b", 20), entry("d", 4)]);
        let (entries, changed) = apply_entries(&sig(), current, &edit).unwrap();
        assert_eq!(entries, [entry("b", 20), entry("c", 3), entry("d", 4)]);
        assert_eq!(changed.len(), 3);
    }

    #[test]
    fn bytes_that_are_not_entries_are_an_error() {
        let good = edit(Vec::new(), vec![entry("a", 1)]);
        for cut in 0..good.to.len() {
            let broken = MapEdit { to: good.to[..cut].to_vec(), ..good.clone() };
            assert!(apply_entries(&sig(), Vec::new(), &broken).is_err(), "cut at {cut}");
        }
        let huge = MapEdit { to: [0xFF; 12].to_vec(), ..good.clone() };
        assert!(apply_entries(&sig(), Vec::new(), &huge).is_err());
    }

    /// `patch/check.rs` charges a map edit's entries by the count after the size prefix.
    #[test]
    fn a_map_value_stores_its_size_then_its_entry_count() {
        let edit = edit(Vec::new(), vec![entry("a", 1), entry("b", 2)]);
        assert_eq!(u32::from_le_bytes(edit.to[..4].try_into().unwrap()) as usize, edit.to.len());
        assert_eq!(u32::from_le_bytes(edit.to[4..8].try_into().unwrap()), 2);
    }

    #[test]
    fn a_key_repeated_in_an_edit_is_set_once() {
        let edit = edit(Vec::new(), vec![entry("a", 1), entry("a", 2)]);
        let (entries, _) = apply_entries(&sig(), vec![entry("a", 0)], &edit).unwrap();
        assert_eq!(entries, [entry("a", 2)]);
    }
}
