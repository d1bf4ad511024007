//! A patch written as its readable document (see the module above). Every value is checked by
//! reading it back as the reader will: one whose text would not give the same bytes (or whose
//! field the writing program does not know) keeps its stored form, so the document always
//! converts back into the same patch.

use super::super::{
    EmbeddedEdit, KeptEdit, MapEdit, ObjectBody, ObjectEdit, Origin, Patch, PlainEdit, PointerEdit, NONE,
};
use super::read::{element_bytes, target_json};
use super::{family_name, FORM};
use crate::containers::{MAP_KEYS_FIELD_ID, MAP_TYPE_ID, MAP_VALUES_FIELD_ID};
use crate::diff::align::split;
use crate::field::{WireKind, WireShape};
use crate::json::{field_to_json, plain_to_json};
use crate::rtti::Registry;
use crate::schema::{DeclaredSchema, FieldSchema, TypeSchema};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// `patch` as its readable document, named with `registry`'s types.
pub(in crate::diff::patch) fn to_readable(patch: &Patch, registry: &Registry) -> String {
    let mut used = Used::default();
    for edit in &patch.objects {
        used.edit(edit);
    }
    let table = Table::new(&used, registry);
    let objects: Vec<Value> = patch.objects.iter().enumerate().map(|(at, edit)| table.edit(at, edit)).collect();
    let types: Vec<Value> = table.types.iter().map(|(&id, known)| known.to_json(id)).collect();
    let document = json!({ "format": FORM, "types": types, "objects": objects });
    let mut out = String::new();
    print(&document, 0, &mut out);
    out.push('\n');
    out
}

/// `value` printed with an indent of two spaces per level, as `serde_json` prints, except that
/// what fits on a line of about 100 characters without nested objects (a path step, a
/// signature, a run, a change of one value) stays on one line.
fn print(value: &Value, depth: usize, out: &mut String) {
    let indent = |out: &mut String, depth: usize| (0..depth).for_each(|_| out.push_str("  "));
    if let Some(line) = one_line(value) {
        out.push_str(&line);
        return;
    }
    match value {
        Value::Object(members) => {
            out.push_str("{\n");
            for (n, (name, member)) in members.iter().enumerate() {
                indent(out, depth + 1);
                out.push_str(&Value::String(name.clone()).to_string());
                out.push_str(": ");
                print(member, depth + 1, out);
                out.push_str(if n + 1 < members.len() { ",\n" } else { "\n" });
            }
            indent(out, depth);
            out.push('}');
        }
        Value::Array(items) => {
            out.push_str("[\n");
            for (n, item) in items.iter().enumerate() {
                indent(out, depth + 1);
                print(item, depth + 1, out);
                out.push_str(if n + 1 < items.len() { ",\n" } else { "\n" });
            }
            indent(out, depth);
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// `value` on one line, when it is short and holds no object inside a list (besides a stored
/// value's `{"$bytes": …}`).
fn one_line(value: &Value) -> Option<String> {
    // Objects two deep at most (a change and the map value it sets), none inside a list but a
    // stored value.
    fn simple(value: &Value, objects: usize, in_list: bool) -> bool {
        match value {
            Value::Array(items) => items.iter().all(|item| simple(item, objects, true)),
            Value::Object(members) if members.len() == 1 && members.contains_key("$bytes") => true,
            Value::Object(members) => {
                members.is_empty()
                    || (!in_list && objects > 0 && members.values().all(|m| simple(m, objects - 1, false)))
            }
            _ => true,
        }
    }
    if !simple(value, 2, false) {
        return None;
    }
    let line = serde_json::to_string(value).ok()?;
    // `serde_json` prints `{"a":1,"b":[1,2]}`: spaced after the separators for people.
    let mut spaced = String::with_capacity(line.len() + line.len() / 4);
    let mut in_string = false;
    let mut escaped = false;
    for c in line.chars() {
        spaced.push(c);
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            ':' | ',' if !in_string => spaced.push(' '),
            _ => {}
        }
    }
    (spaced.len() <= 100).then_some(spaced)
}

/// What the patch names: types, fields (by section), variants (by type).
#[derive(Default)]
struct Used {
    types: BTreeSet<u32>,
    fields: BTreeSet<(u32, u16)>,
    /// Fields of a section whose variant the body names: `(type, variant, field)`.
    variant_fields: BTreeSet<(u32, u32, u16)>,
    variants: BTreeSet<(u32, u32)>,
    /// Types whose identity some edit holds: their identity field goes in the table.
    identities: BTreeSet<u32>,
}

impl Used {
    fn edit(&mut self, edit: &ObjectEdit) {
        for &(section, field, _) in &edit.path {
            self.types.insert(section);
            self.fields.insert((section, field));
        }
        if let Some(declaring) = declaring_type(&edit.identity) {
            self.types.insert(declaring);
            self.identities.insert(declaring);
        }
        self.body(&edit.body);
    }

    fn body(&mut self, body: &ObjectBody) {
        self.types.insert(body.type_id);
        if let Some(variant) = body.variant {
            self.variants.insert((body.type_id, variant));
        }
        let fields = (body.plain.iter().map(|e| (e.section, e.field)))
            .chain(body.maps.iter().map(|e| (e.section, e.field)))
            .chain(body.embedded.iter().map(|e| (e.section, e.field)))
            .chain(body.pointers.iter().map(|e| (e.section, e.field)));
        for (section, field) in fields {
            self.types.insert(section);
            match body.variant.filter(|_| section == body.type_id) {
                Some(variant) => drop(self.variant_fields.insert((section, variant, field))),
                None => drop(self.fields.insert((section, field))),
            }
        }
        self.types.extend(body.kept.iter().map(|kept| kept.section));
        for element in body.embedded.iter().flat_map(|edit| &edit.elements) {
            if let Some(body) = &element.body {
                self.body(body);
            }
        }
    }
}

/// The type that declares an identity, from an edit's identity bytes: the object's type ID,
/// the declaring type's, then the identity's value.
fn declaring_type(identity: &[u8]) -> Option<u32> {
    Some(u32::from_le_bytes(identity.get(4..8)?.try_into().ok()?))
}

/// A type of the document's `types`: what of it the document names.
struct Known {
    name: String,
    /// Whether no other type of the table has this name (else the type is named by number).
    unique: bool,
    fields: BTreeMap<u16, FieldSchema>,
    variants: BTreeMap<u32, String>,
    /// The fields of variants the patch switches objects to, shown under their variant.
    variant_fields: BTreeMap<u32, BTreeMap<u16, FieldSchema>>,
}

impl Known {
    fn to_json(&self, id: u32) -> Value {
        let mut object = Map::new();
        object.insert("id".into(), id.into());
        object.insert("name".into(), self.name.clone().into());
        if !self.fields.is_empty() {
            object.insert("fields".into(), self.fields.values().map(field_to_json).collect());
        }
        if !self.variants.is_empty() {
            let variants = self.variants.iter().map(|(id, name)| {
                let mut variant = json!({ "id": id, "name": name });
                if let Some(fields) = self.variant_fields.get(id).filter(|fields| !fields.is_empty()) {
                    variant["fields"] = fields.values().map(field_to_json).collect();
                }
                variant
            });
            object.insert("variants".into(), variants.collect());
        }
        Value::Object(object)
    }
}

/// The document's `types`: the types the patch names that the writing program knows.
struct Table {
    types: BTreeMap<u32, Known>,
}

impl Table {
    fn new(used: &Used, registry: &Registry) -> Self {
        let mut types: BTreeMap<u32, Known> = BTreeMap::new();
        for &id in &used.types {
            let Some(rtti) = registry.get(id) else { continue };
            let schema = TypeSchema::of(rtti);
            let wanted = used.fields.range((id, 0)..=(id, u16::MAX)).map(|&(_, field)| field);
            let mut fields: BTreeMap<u16, FieldSchema> =
                wanted.filter_map(|field| only_field(&schema, field)).collect();
            if used.identities.contains(&id) {
                if let Some(field) = schema.fields.iter().find(|field| field.identity) {
                    fields.insert(field.id, field.clone());
                }
            }
            // A name two fields share names neither: both are shown by number.
            let mut names: BTreeMap<&str, usize> = BTreeMap::new();
            fields.values().for_each(|field| *names.entry(&field.name).or_default() += 1);
            let shared: BTreeSet<u16> =
                fields.values().filter(|field| names[field.name.as_str()] > 1).map(|field| field.id).collect();
            fields.retain(|id, _| !shared.contains(id));
            let mut variants = BTreeMap::new();
            let mut variant_fields: BTreeMap<u32, BTreeMap<u16, FieldSchema>> = BTreeMap::new();
            for &(_, variant) in used.variants.range((id, 0)..=(id, u32::MAX)) {
                let Some(found) = schema.variant(variant) else { continue };
                variants.insert(variant, found.name.clone());
                let wanted = used.variant_fields.range((id, variant, 0)..=(id, variant, u16::MAX));
                let fields = wanted.filter_map(|&(_, _, field)| found.fields.iter().find(|f| f.id == field));
                // The variant's own fields, named apart from the type's (a name both have is the
                // type's, so it is not shown by name for the variant).
                let own = fields.filter(|field| schema.fields.iter().all(|other| other.name != field.name));
                variant_fields.insert(variant, own.map(|field| (field.id, field.clone())).collect());
            }
            let mut names: BTreeMap<&str, usize> = BTreeMap::new();
            variants.values().for_each(|name| *names.entry(name).or_default() += 1);
            let shared: Vec<u32> =
                variants.iter().filter(|(_, name)| names[name.as_str()] > 1).map(|(&id, _)| id).collect();
            shared.iter().for_each(|id| drop(variants.remove(id)));
            variant_fields.retain(|variant, _| variants.contains_key(variant));
            types.insert(id, Known { name: schema.name, unique: true, fields, variants, variant_fields });
        }
        let mut names: BTreeMap<String, usize> = BTreeMap::new();
        types.values().for_each(|known| *names.entry(known.name.clone()).or_default() += 1);
        for known in types.values_mut() {
            known.unique = names[&known.name] == 1;
        }
        Table { types }
    }

    /// A type as the document names it: by name, or by number.
    fn type_ref(&self, id: u32) -> Value {
        match self.types.get(&id) {
            Some(known) if known.unique => known.name.clone().into(),
            // By number where a type of the table takes the name.
            _ if id == MAP_TYPE_ID && self.types.values().all(|known| known.name != MAP_NAME) => MAP_NAME.into(),
            _ => id.into(),
        }
    }

    fn field_ref(&self, section: u32, field: u16, scope: Scope<'_>) -> Value {
        match self.schema(section, field, scope) {
            Some(schema) => schema.name.clone().into(),
            None => field.into(),
        }
    }

    /// The field's schema, where the document names it: in the body's variant, in its type, or
    /// a map object's keys and values.
    fn schema(&self, section: u32, field: u16, scope: Scope<'_>) -> Option<Cow<'_, FieldSchema>> {
        if section == MAP_TYPE_ID && scope.own == MAP_TYPE_ID {
            return map_field(field, scope.keys).map(Cow::Owned);
        }
        let known = self.types.get(&section)?;
        let variant = scope.variant.filter(|_| section == scope.own);
        match variant.and_then(|variant| known.variant_fields.get(&variant)) {
            Some(fields) => fields.get(&field).map(Cow::Borrowed),
            None => known.fields.get(&field).map(Cow::Borrowed),
        }
    }

    fn edit(&self, at: usize, edit: &ObjectEdit) -> Value {
        let mut object = Map::new();
        object.insert("edit".into(), at.into());
        object.insert("type".into(), self.type_ref(edit.body.type_id));
        match edit.origin {
            Origin::Root => {}
            Origin::Found { from } => drop(object.insert("from".into(), from.into())),
            Origin::Created { family } => drop(object.insert("created".into(), family_name(family).into())),
            Origin::External => drop(object.insert("external".into(), wide(edit.key))),
        }
        if !edit.path.is_empty() {
            let steps = edit.path.iter().map(|&(section, field, index)| {
                json!([self.type_ref(section), self.field_ref(section, field, Scope::of(section)), index])
            });
            object.insert("path".into(), steps.collect());
        }
        if !edit.identity.is_empty() {
            object.insert("identity".into(), self.identity(&edit.identity, edit.body.type_id));
        }
        self.body_members(&edit.body, &mut object, None);
        Value::Object(object)
    }

    /// An identity's value as its field's type shows it: bare where the object's own type
    /// declares it, with `$type` where a base type does.
    fn identity(&self, bytes: &[u8], own: u32) -> Value {
        let shown = declaring_type(bytes).filter(|_| bytes[..4] == own.to_le_bytes()).and_then(|declaring| {
            let field = self.types.get(&declaring)?.fields.values().find(|field| field.identity)?;
            let value = value_json(&field.signature, &bytes[8..])?;
            Some(match declaring == own {
                true => value,
                false => json!({ "$type": self.type_ref(declaring), "$value": value }),
            })
        });
        shown.unwrap_or_else(|| stored(bytes))
    }

    fn body(&self, body: &ObjectBody, keys: Option<&[u32]>) -> Value {
        let mut object = Map::new();
        object.insert("type".into(), self.type_ref(body.type_id));
        self.body_members(body, &mut object, keys);
        Value::Object(object)
    }

    /// `keys`: the key signature of the map field holding the body, for a map object's body.
    fn body_members(&self, body: &ObjectBody, object: &mut Map<String, Value>, keys: Option<&[u32]>) {
        let scope = Scope { own: body.type_id, variant: body.variant, keys };
        if body.fresh {
            object.insert("fresh".into(), true.into());
        }
        if let Some(variant) = body.variant {
            let named = self.types.get(&body.type_id).and_then(|known| known.variants.get(&variant));
            object.insert("variant".into(), named.map_or_else(|| variant.into(), |name| name.clone().into()));
        }
        let mut changes = Vec::new();
        changes.extend(body.kept.iter().map(|edit| self.kept(edit)));
        changes.extend(body.plain.iter().map(|edit| self.plain(scope, edit)));
        changes.extend(body.maps.iter().map(|edit| self.map(scope, edit)));
        changes.extend(body.embedded.iter().map(|edit| self.embedded(scope, edit)));
        changes.extend(body.pointers.iter().map(|edit| self.pointers(scope, edit)));
        if !changes.is_empty() {
            object.insert("changes".into(), changes.into());
        }
    }

    /// A change's `field` (and `section`, for a field a base type declares).
    fn change(&self, scope: Scope<'_>, section: u32, field: u16) -> Map<String, Value> {
        let mut change = Map::new();
        change.insert("field".into(), self.field_ref(section, field, scope));
        if section != scope.own {
            change.insert("section".into(), self.type_ref(section));
        }
        change
    }

    /// A kept set's change always names its section: it has no field.
    fn kept(&self, edit: &KeptEdit) -> Value {
        let mut change = Map::new();
        change.insert("section".into(), self.type_ref(edit.section));
        change.insert("keep_fields".into(), edit.fields.iter().map(field_to_json).collect());
        Value::Object(change)
    }

    fn plain(&self, scope: Scope<'_>, edit: &PlainEdit) -> Value {
        let mut change = self.change(scope, edit.section, edit.field);
        let schema = self.schema(edit.section, edit.field, scope);
        let schema = schema.filter(|schema| schema.signature.first() == Some(&edit.plain_type));
        let shown = schema.and_then(|schema| match edit.runs.is_empty() {
            true => whole_json(&schema, edit).map(|to| ("to", to)),
            false => splice_json(&schema.signature, edit).map(|splice| ("splice", splice)),
        });
        match shown {
            Some((member, value)) => drop(change.insert(member.into(), value)),
            None => {
                change.insert("plain_type".into(), edit.plain_type.into());
                change.insert("count".into(), edit.count.into());
                change.insert("bytes".into(), BASE64.encode(&edit.bytes).into());
                if !edit.runs.is_empty() {
                    let runs = edit.runs.iter().map(|&(start, len)| json!([start, len]));
                    change.insert("runs".into(), runs.collect());
                }
            }
        }
        Value::Object(change)
    }

    fn map(&self, scope: Scope<'_>, edit: &MapEdit) -> Value {
        let mut change = self.change(scope, edit.section, edit.field);
        let schema = self.schema(edit.section, edit.field, scope);
        if schema.as_ref().map(|schema| &schema.signature) != Some(&edit.signature) {
            change.insert("signature".into(), edit.signature.clone().into());
        }
        for (member, bytes) in [("from", &edit.from), ("to", &edit.to)] {
            let value = value_json(&edit.signature, bytes).unwrap_or_else(|| stored(bytes));
            change.insert(member.into(), value);
        }
        Value::Object(change)
    }

    fn embedded(&self, scope: Scope<'_>, edit: &EmbeddedEdit) -> Value {
        let mut change = self.change(scope, edit.section, edit.field);
        // A map field's schema gives its keys' type, which its map object's body needs.
        let schema = self.schema(edit.section, edit.field, scope);
        let keys = schema.as_ref().map(|schema| schema.signature.as_slice()).filter(|keys| !keys.is_empty());
        let elements = edit.elements.iter().map(|element| {
            let mut object = Map::new();
            if let Some(old) = element.old {
                object.insert("old".into(), old.into());
            }
            if let Some(body) = &element.body {
                object.insert("body".into(), self.body(body, keys));
            }
            Value::Object(object)
        });
        let member = if edit.rebuild { "elements" } else { "edit" };
        change.insert(member.into(), elements.collect());
        Value::Object(change)
    }

    fn pointers(&self, scope: Scope<'_>, edit: &PointerEdit) -> Value {
        let mut change = self.change(scope, edit.section, edit.field);
        let elements = edit.elements.iter().map(|&(old, target)| match (edit.rebuild, old) {
            (false, _) => json!({ "element": old, "to": target_json(target) }),
            (true, NONE) => json!({ "to": target_json(target) }),
            (true, _) if target == 0 => json!({ "keep": old }),
            (true, _) => json!({ "keep": old, "to": target_json(target) }),
        });
        let member = if edit.rebuild { "targets" } else { "point" };
        change.insert(member.into(), elements.collect());
        Value::Object(change)
    }
}

/// What a body's changes name their fields in: the body's type, the variant it names, and for a
/// map object the key type of the map field holding it.
#[derive(Clone, Copy)]
pub(super) struct Scope<'k> {
    pub(super) own: u32,
    pub(super) variant: Option<u32>,
    pub(super) keys: Option<&'k [u32]>,
}

impl Scope<'_> {
    /// A path step's scope: the section's own fields.
    fn of(section: u32) -> Self {
        Scope { own: section, variant: None, keys: None }
    }
}

/// The name the document gives the format's built-in map object type.
pub(super) const MAP_NAME: &str = "$map";

/// A map object's field: `keys` (plain, of the map field's key type, when known) or `values`
/// (a map's values are objects or pointers, whose changes need no signature).
pub(super) fn map_field(field: u16, keys: Option<&[u32]>) -> Option<FieldSchema> {
    let (name, signature, kind) = match field {
        MAP_KEYS_FIELD_ID => ("keys", keys?.to_vec(), WireKind::Plain(None)),
        MAP_VALUES_FIELD_ID => ("values", Vec::new(), WireKind::Embedded),
        _ => return None,
    };
    let shape = WireShape { kind, array: true };
    let declared = (kind == WireKind::Embedded).then_some(DeclaredSchema::Type(0));
    Some(FieldSchema { id: field, name: name.into(), shape, signature, declared, weak: false, identity: false })
}

/// The field of `section` with ID `field`, where exactly one of the type's fields and its
/// variants' has that ID (a variant's field ID can repeat another variant's).
fn only_field(schema: &TypeSchema, field: u16) -> Option<(u16, FieldSchema)> {
    let mut found = (schema.fields.iter())
        .chain(schema.variants.iter().flat_map(|variant| &variant.fields))
        .filter(|candidate| candidate.id == field);
    let first = found.next()?;
    found.next().is_none().then(|| (field, first.clone()))
}

/// A number the document shows as protobuf's JSON does: a string past what a double holds.
fn wide(value: u64) -> Value {
    if value <= 1 << 53 {
        value.into()
    } else {
        value.to_string().into()
    }
}

/// A value's stored form.
fn stored(bytes: &[u8]) -> Value {
    json!({ "$bytes": BASE64.encode(bytes) })
}

/// One value of type `sig` (its stored element form, `bytes`) as text, when the text reads back
/// as the same bytes.
fn value_json(sig: &[u32], bytes: &[u8]) -> Option<Value> {
    let value = crate::text::read_value(sig, bytes).ok()?;
    let shown = plain_to_json(sig, &value);
    let mut back = Vec::with_capacity(bytes.len());
    element_bytes(sig, &shown.to_string(), &mut back).ok()?;
    (back == bytes).then_some(shown)
}

/// Where each of `count` elements of type `sig` lies in `bytes`, when they are all of it.
fn element_ranges(sig: &[u32], bytes: &[u8], count: u32) -> Option<Vec<std::ops::Range<usize>>> {
    let size = crate::text::static_size(sig).ok()?;
    let ranges = split(bytes, count as usize, size)?;
    (ranges.last().map_or(0, |range| range.end) == bytes.len()).then_some(ranges)
}

/// `count` elements of type `sig`, one after another in `bytes`, as a list.
fn elements_json(sig: &[u32], bytes: &[u8], count: u32) -> Option<Vec<Value>> {
    element_ranges(sig, bytes, count)?.into_iter().map(|range| value_json(sig, &bytes[range])).collect()
}

/// A plain field's whole new value: its elements for an array field, else its one value.
fn whole_json(schema: &FieldSchema, edit: &PlainEdit) -> Option<Value> {
    match schema.shape.array {
        true => elements_json(&schema.signature, &edit.bytes, edit.count).map(Value::Array),
        false if edit.count == 1 => value_json(&schema.signature, &edit.bytes),
        false => None,
    }
}

/// An array's new value as runs: old elements kept (`keep`: start and length) and new ones
/// inserted (`insert`: the elements).
fn splice_json(sig: &[u32], edit: &PlainEdit) -> Option<Value> {
    let ranges = element_ranges(sig, &edit.bytes, edit.count)?;
    let mut next = 0usize;
    let mut runs = Vec::with_capacity(edit.runs.len());
    for &(start, len) in &edit.runs {
        if start != NONE {
            runs.push(json!({ "keep": [start, len] }));
            continue;
        }
        let taken = ranges.get(next..next.checked_add(len as usize)?)?;
        next += len as usize;
        let values: Option<Vec<Value>> =
            taken.iter().map(|range| value_json(sig, &edit.bytes[range.clone()])).collect();
        runs.push(json!({ "insert": values? }));
    }
    (next == ranges.len()).then_some(Value::Array(runs))
}
