//! Paths to values inside an object graph (`transform.position.x`, `components[2].mesh`,
//! `weights["stone"]`, `materials["oak"].roughness`): followed through embedded objects, maps of
//! objects and pointers (by key), pointers (borrowing each pointee on the way) and into plain
//! values (parts of structs, elements, map entries), for reading and
//! setting one value as text, what an editor's property rows and a console command need.

use super::codec::parts_of;
use super::{parse, value_column, PlainValue, TextError};
use crate::field::{FieldAccess, RttiField};
use crate::plain::signature::{split_type, Sig};
use crate::rtti::visit::{self, Slot, SlotMut};
use crate::rtti::{FieldPath, PathStep, Reflectable};
use std::borrow::Cow;
use std::str::FromStr;

/// Reads `text` as a path: names separated by `.`, element indices and map keys in brackets
/// (`a.b[2].c`, `weights["stone"]`, `grid[1][0]`).
impl FromStr for FieldPath {
    type Err = TextError;

    fn from_str(text: &str) -> Result<Self, TextError> {
        let error = |at: usize, message: &str| TextError::Syntax {
            column: text[..at].chars().count() + 1,
            message: message.into(),
        };
        let mut steps = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let rest = &text[at..];
            if let Some(inside) = rest.strip_prefix('[') {
                let close = matching_bracket(inside).ok_or_else(|| error(at, "no closing `]`"))?;
                let key = inside[..close].trim();
                steps.push(match key.parse::<usize>() {
                    Ok(index) => PathStep::Index(index),
                    Err(_) if key.is_empty() => return Err(error(at, "an empty `[]`")),
                    Err(_) => PathStep::Key(key.to_owned()),
                });
                at += close + 2;
                continue;
            }
            let rest = match (steps.is_empty(), rest.strip_prefix('.')) {
                (false, Some(after)) => {
                    at += 1;
                    after
                }
                (true, None) => rest,
                _ => return Err(error(at, "expected `.` or `[` between steps")),
            };
            let len = rest.find(['.', '[']).unwrap_or(rest.len());
            let name = rest[..len].trim();
            if name.is_empty() {
                return Err(error(at, "expected a field name"));
            }
            steps.push(PathStep::Field(Cow::Owned(name.to_owned())));
            at += len;
        }
        if steps.is_empty() {
            return Err(error(0, "an empty path"));
        }
        Ok(FieldPath::new(steps))
    }
}

/// Where the `]` closing a bracket whose inside is `inside` is, skipping quoted text.
fn matching_bracket(inside: &str) -> Option<usize> {
    let mut quoted = false;
    let mut escaped = false;
    for (at, c) in inside.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ']' if !quoted => return Some(at),
            _ => {}
        }
    }
    None
}

/// The plain value at `path` in the graph of `root`.
///
/// ```
/// use reflectable::text::{get_text, set_text};
/// use reflectable::{PlainType, Reflectable};
/// use std::cell::RefCell;
/// use std::rc::Rc;
///
/// #[derive(PlainType, Clone, Copy, Default, Debug, PartialEq)]
/// #[plain(id = 9650)]
/// struct Vec3 { x: f32, y: f32, z: f32 }
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9651)]
/// struct Transform {
///     #[rtti(id = 1)]
///     position: Vec3,
/// }
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9652)]
/// struct Entity {
///     #[rtti(id = 1, embedded)]
///     transform: Transform,
///     #[rtti(id = 2)]
///     children: Vec<Rc<RefCell<Entity>>>,
/// }
///
/// let child = Rc::new(RefCell::new(Entity::default()));
/// let mut root = Entity { children: vec![child.clone()], ..Default::default() };
/// set_text(&mut root, "transform.position.x", "2.5").unwrap();
/// set_text(&mut root, "children[0].transform.position", "{x: 1, y: 2, z: 3}").unwrap();
/// assert_eq!(root.transform.position.x, 2.5);
/// assert_eq!(child.borrow().transform.position, Vec3 { x: 1.0, y: 2.0, z: 3.0 });
/// assert_eq!(get_text(&root, "children[0].transform.position.z").unwrap(), "3.0");
/// assert!(get_text(&root, "children[1]").is_err());
/// ```
pub fn get_value(root: &dyn Reflectable, path: &str) -> Result<PlainValue, TextError> {
    let path: FieldPath = path.parse()?;
    get(root, path.steps())
}

/// [`get_value`] as text.
///
/// ```
/// use reflectable::text::get_text;
/// # use reflectable::Reflectable;
/// # use std::collections::BTreeMap;
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_970_012)]
/// # struct Shed {
/// #     #[rtti(id = 1)] name: String,
/// #     #[rtti(id = 2)] counts: BTreeMap<String, u32>,
/// #     #[rtti(id = 3)] sizes: Vec<(u8, f32)>,
/// # }
///
/// let shed = Shed { name: "shed".into(), counts: [("stone".into(), 12)].into(), sizes: vec![(1, 0.5)] };
/// assert_eq!(get_text(&shed, "name").unwrap(), r#""shed""#);
/// assert_eq!(get_text(&shed, r#"counts["stone"]"#).unwrap(), "12");
/// assert_eq!(get_text(&shed, "sizes").unwrap(), "[[1, 0.5]]");
/// assert_eq!(get_text(&shed, "sizes[0][1]").unwrap(), "0.5");
/// let error = get_text(&shed, r#"counts["moss"]"#).unwrap_err();
/// assert_eq!(error.to_string(), r#"no value at `["moss"]`: no such key"#);
/// ```
pub fn get_text(root: &dyn Reflectable, path: &str) -> Result<String, TextError> {
    Ok(get_value(root, path)?.to_string())
}

/// Sets the plain value at `path` in the graph of `root` from `text`, read as that value's type.
/// Nothing changes unless the whole value is valid. Pointees on the way are borrowed mutably
/// (they must be behind `RefCell`, `Mutex` or `RwLock`).
///
/// ```
/// use reflectable::text::set_text;
/// # use reflectable::Reflectable;
/// # use std::collections::BTreeMap;
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_970_013)]
/// # struct Shed {
/// #     #[rtti(id = 1)] name: String,
/// #     #[rtti(id = 2)] counts: BTreeMap<String, u32>,
/// #     #[rtti(id = 3)] sizes: Vec<(u8, f32)>,
/// # }
///
/// let mut shed = Shed { counts: [("stone".into(), 12)].into(), sizes: vec![(1, 0.5)], ..Default::default() };
/// set_text(&mut shed, "name", r#""barn""#).unwrap();
/// set_text(&mut shed, r#"counts["stone"]"#, "15").unwrap();
/// set_text(&mut shed, "sizes", "[[2, 1.5], [3, 0]]").unwrap();
/// assert_eq!((shed.name.as_str(), shed.counts["stone"]), ("barn", 15));
/// assert_eq!(shed.sizes, [(2, 1.5), (3, 0.0)]);
///
/// // A value that does not fit its type changes nothing.
/// assert!(set_text(&mut shed, "sizes", "[[2, 1.5], [300, 0]]").is_err());
/// assert_eq!(shed.sizes, [(2, 1.5), (3, 0.0)]);
/// ```
pub fn set_text(root: &mut dyn Reflectable, path: &str, text: &str) -> Result<(), TextError> {
    let path: FieldPath = path.parse()?;
    set(root, path.steps(), text)
}

/// The first step of a path, which must name a field, and the steps after it.
fn field_name(steps: &[PathStep]) -> Result<(&str, &[PathStep]), TextError> {
    match steps.split_first() {
        Some((PathStep::Field(name), rest)) => Ok((name, rest)),
        _ => Err(TextError::NoPath {
            path: FieldPath::new(steps.to_vec()).to_string(),
            reason: "expected a field name".into(),
        }),
    }
}

#[cold]
fn no_field(object: &'static crate::rtti::RttiType, name: &str) -> TextError {
    TextError::NoPath { path: name.to_owned(), reason: format!("`{}` has no such field", object.name()) }
}

/// For a field of objects: the element the next step selects (an array field needs an index),
/// and the steps after it.
/// The path must go on past the object: an object is not a plain value.
fn element<'p>(field: &RttiField, rest: &'p [PathStep]) -> Result<(usize, &'p [PathStep]), TextError> {
    let (index, after) = match (field.is_array(), rest.split_first()) {
        (true, Some((PathStep::Index(index), after))) => (*index, after),
        (true, _) if !rest.is_empty() => {
            let reason = "an array field needs an element index".into();
            return Err(TextError::NoPath { path: field.name().to_owned(), reason });
        }
        _ => (0, rest),
    };
    match after.is_empty() {
        true => Err(TextError::NotPlain { field: field.name().to_owned() }),
        false => Ok((index, after)),
    }
}

/// For a map field of objects or pointers (`materials["oak"].roughness`): the steps into its map
/// object that reach the entry the next step's key names (`values[3]` there, then the rest).
fn map_entry(field: &RttiField, map: &dyn Reflectable, rest: &[PathStep]) -> Result<Vec<PathStep>, TextError> {
    let no_path = |reason: &str| TextError::NoPath { path: field.name().to_owned(), reason: reason.into() };
    let (key_text, after) = match rest.split_first() {
        Some((PathStep::Key(key), after)) => (key.clone(), after),
        Some((PathStep::Index(index), after)) => (index.to_string(), after),
        _ => return Err(no_path("a map field needs a key: `field[key]`")),
    };
    let fields = map.rtti().fields();
    let (Some(keys), Some(values)) = (fields.first(), fields.get(1)) else { return Err(no_path("not a map")) };
    let mut key_signature = Vec::new();
    keys.as_plain().ok_or_else(|| no_path("not a map"))?.signature(&mut key_signature);
    let key = parse(&key_signature, &key_text)?;
    let PlainValue::Seq(stored) = keys.plain_value(map)? else { return Err(no_path("not a map")) };
    let at = stored.iter().position(|stored| *stored == key).ok_or_else(|| no_path("no such key"))?;
    let mut steps = vec![PathStep::Field(Cow::Owned(values.name().to_owned())), PathStep::Index(at)];
    steps.extend_from_slice(after);
    Ok(steps)
}

fn get(object: &dyn Reflectable, steps: &[PathStep]) -> Result<PlainValue, TextError> {
    let (name, rest) = field_name(steps)?;
    let Slot { field, owner: section, .. } =
        visit::slot_by_name(object, name).ok_or_else(|| no_field(object.rtti(), name))?;
    match field.access() {
        FieldAccess::Embedded(_) if field.is_map() => field.with_embedded(section, 0, |map| {
            let map = map.ok_or_else(|| empty(field))?;
            get(map, &map_entry(field, map, rest)?)
        })?,
        FieldAccess::Plain(_) => {
            let value = field.plain_value(section)?;
            let signature = field.value_signature()?;
            Ok(step_into(&signature, &mut value.clone(), rest)?.1.clone())
        }
        FieldAccess::Embedded(_) => {
            let (index, rest) = element(field, rest)?;
            field.with_embedded(section, index, |value| get(value.ok_or_else(|| empty(field))?, rest))?
        }
        FieldAccess::Pointer(_) => {
            let (index, rest) = element(field, rest)?;
            field.with_pointee(section, index, |value| get(value.ok_or_else(|| empty(field))?, rest))?
        }
    }
}

fn set(object: &mut dyn Reflectable, steps: &[PathStep], text: &str) -> Result<(), TextError> {
    let (name, rest) = field_name(steps)?;
    let own = object.rtti();
    let SlotMut { field, owner: section, .. } =
        visit::slot_by_name_mut(object, name).ok_or_else(|| no_field(own, name))?;
    match field.access() {
        FieldAccess::Embedded(_) if field.is_map() => field.with_embedded_mut(section, 0, |map| {
            let map = map.ok_or_else(|| empty(field))?;
            let steps = map_entry(field, map, rest)?;
            set(map, &steps, text)
        })?,
        FieldAccess::Plain(_) if rest.is_empty() => field.set_from_text(section, text),
        FieldAccess::Plain(_) => {
            let mut value = field.plain_value(section)?;
            let signature = field.value_signature()?;
            let (part_signature, slot) = step_into(&signature, &mut value, rest)?;
            *slot = parse(&part_signature, text)?;
            field.set_plain_value(section, &value).map_err(|error| error.at_column(value_column(text)))
        }
        FieldAccess::Embedded(_) => {
            let (element_index, rest) = element(field, rest)?;
            field.with_embedded_mut(section, element_index, |value| {
                set(value.ok_or_else(|| empty(field))?, rest, text)
            })?
        }
        FieldAccess::Pointer(_) => {
            let (element_index, rest) = element(field, rest)?;
            field
                .with_pointee_mut(section, element_index, |value| set(value.ok_or_else(|| empty(field))?, rest, text))?
        }
    }
}

#[cold]
fn empty(field: &RttiField) -> TextError {
    TextError::NoPath { path: field.name().to_owned(), reason: "the slot is empty".into() }
}

/// Follows `steps` into a plain value of type `signature`: the part they name and its type.
/// An `Option` holding a value is stepped through.
fn step_into<'v>(
    signature: &[u32],
    value: &'v mut PlainValue,
    steps: &[PathStep],
) -> Result<(Vec<u32>, &'v mut PlainValue), TextError> {
    let Some((step, rest)) = steps.split_first() else { return Ok((signature.to_vec(), value)) };
    let no_path =
        |reason: &str| TextError::NoPath { path: FieldPath::new(steps.to_vec()).to_string(), reason: reason.into() };
    let (node, _, _) = split_type(signature).ok_or_else(|| no_path("a malformed type"))?;
    let value = match (node, value) {
        (Sig::Option(inner), PlainValue::Opt(option)) => {
            let inner_value = option.as_deref_mut().ok_or_else(|| no_path("the value is None"))?;
            return step_into(inner, inner_value, steps);
        }
        (_, value) => value,
    };
    let parts = parts_of(signature);
    let (part_signature, part): (Vec<u32>, &mut PlainValue) = match (step, value) {
        (PathStep::Index(index), PlainValue::Seq(values)) => {
            let part_signature = match node {
                Sig::Seq(_, elem) | Sig::Array(_, elem) => elem.to_vec(),
                _ => parts.get(*index).cloned().ok_or_else(|| no_path("no such element"))?,
            };
            (part_signature, values.get_mut(*index).ok_or_else(|| no_path("no such element"))?)
        }
        (PathStep::Index(_) | PathStep::Key(_), PlainValue::Map(entries)) => {
            let Sig::Map(_, key_signature, value_signature) = node else { return Err(no_path("not a map")) };
            let key_text = match step {
                PathStep::Index(index) => index.to_string(),
                PathStep::Key(key) => key.clone(),
                PathStep::Field(_) => unreachable!("matched above"),
            };
            let key = parse(key_signature, &key_text)?;
            let (_, entry) =
                entries.iter_mut().find(|(stored, _)| *stored == key).ok_or_else(|| no_path("no such key"))?;
            (value_signature.to_vec(), entry)
        }
        (PathStep::Field(name), PlainValue::Struct(named)) => {
            let at = named.iter().position(|(part, _)| part == name).ok_or_else(|| no_path("no such part"))?;
            let part_signature = parts.get(at).cloned().ok_or_else(|| no_path("no such part"))?;
            (part_signature, &mut named[at].1)
        }
        _ => return Err(no_path("the value has no such part")),
    };
    step_into(&part_signature, part, rest)
}
