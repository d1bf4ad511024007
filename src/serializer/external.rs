//! Subtree saves: what the encoder does with `Weak` pointers that lead out of the saved graph
//! ([`WeakPointers`]), and the wire form of an external reference (`FORMAT.md`, "External
//! references"): a top-level object of the built-in type [`EXTERNAL_TYPE_ID`] holding the
//! caller's key for the object and the object's type ID, which the reading program re-links.

use super::Limits;
use crate::containers::EXTERNAL_TYPE_ID;
use crate::plain::Reader;
use crate::rtti::{AssetKey, Reflectable};
use crate::wire::error::DecodeError;
use crate::wire::format::{FieldHeader, TypeHeader, WireKind};
use crate::wire::skip::skip_field;
use crate::wire::{walk_object, Item, LengthSlot, WireWrite};
use std::fmt;

/// Field ID of an external reference's key (`u64`, static size 8).
pub const EXTERNAL_KEY_FIELD_ID: u16 = 1;
/// Field ID of an external reference's target type ID (`u32`, static size 4).
pub const EXTERNAL_TYPE_FIELD_ID: u16 = 2;
/// Field ID of an asset reference's key: a kind byte, then the key's bytes (plain, dynamic size).
pub(crate) const EXTERNAL_ASSET_FIELD_ID: u16 = 3;

/// Asset key kinds, the first byte of field 3 (`FORMAT.md`, "External references").
const ASSET_U64: u8 = 0;
const ASSET_UUID: u8 = 1;
const ASSET_PATH: u8 = 2;

/// What a stub holds: the key a subtree save's key function gave for a cut `Weak` (field 1), or
/// the key of an asset (field 3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StubKey {
    Cut(u64),
    Asset(AssetKey),
}

/// Finds the caller's asset by key and type on decode (`None`: the pointer stays null). See
/// [`BinarySerializer::assets`](super::BinarySerializer::assets).
pub(crate) type ResolveAsset<'f> = &'f dyn Fn(&AssetKey, u32) -> Option<crate::field::SharedObject>;

/// Re-links an external reference on decode: from the stored key and type ID to an object of
/// the caller's (`None`: the pointer stays null). See
/// [`BinarySerializer::relink`](super::BinarySerializer::relink).
pub(crate) type Relink<'f> = &'f dyn Fn(u64, u32) -> Option<crate::field::SharedObject>;

/// What the encoder does with a `Weak` pointer
/// ([`BinarySerializer::weak_pointers`](super::BinarySerializer::weak_pointers)).
///
/// A `Weak` whose target the saved graph also reaches through strong pointers (from the root,
/// through strong pointers and objects held by value) stays a pointer to that object in every
/// mode: the stream holds the object anyway. The modes differ for a `Weak` whose target is
/// reachable only through `Weak`s, such as an entity's parent when the entity is saved on its
/// own (copy and paste, a prefab):
///
/// - [`Follow`](WeakPointers::Follow) (the default) writes the target, and whatever it reaches,
///   as part of the graph: saving one child of a scene saves the whole scene.
/// - [`Null`](WeakPointers::Null) cuts the pointer: it is written as null, and loads as a dead
///   `Weak` (a single field of an unsized pointee, which cannot hold a dead `Weak`, keeps its
///   value).
/// - [`External`](WeakPointers::External) cuts the pointer but records what it pointed at: the
///   function gives a key for the target (an asset ID, an entity ID), written as an external
///   reference, which a decoder given a [`relink`](super::BinarySerializer::relink) function
///   turns back into a pointer to the caller's existing object. The function returning `None`
///   writes a null pointer.
///
/// Modes other than `Follow` first walk the graph to find what it reaches strongly, so only
/// subtree saves pay for that walk.
///
/// ```
/// use reflectable::serializer::{BinarySerializer, WeakPointers};
/// use reflectable::Reflectable;
/// use std::cell::RefCell;
/// use std::rc::{Rc, Weak};
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9800)]
/// struct Node {
///     #[rtti(id = 1)]
///     name: String,
///     #[rtti(id = 2)]
///     children: Vec<Rc<RefCell<Node>>>,
///     #[rtti(id = 3)]
///     parent: Weak<RefCell<Node>>,
/// }
///
/// let scene = Rc::new(RefCell::new(Node { name: "scene".into(), ..Node::default() }));
/// let door = Rc::new(RefCell::new(Node { name: "door".into(), parent: Rc::downgrade(&scene), ..Node::default() }));
/// scene.borrow_mut().children.push(door.clone());
///
/// // Copy the door without its scene; the key names the scene for the paste.
/// let key_of = |object: &dyn Reflectable| object.downcast_ref::<Node>().map(|node| node.name.len() as u64);
/// let copy = BinarySerializer::new().weak_pointers(WeakPointers::External(&key_of));
/// let bytes = copy.encode(&door).unwrap();
///
/// // Paste it into the same scene: the parent pointer is re-linked to the scene that exists.
/// let target = scene.clone();
/// let relink = move |key: u64, _type_id: u32| (key == 5).then(|| reflectable::field::SharedObject::new(target.clone()));
/// let paste = BinarySerializer::new().relink(&relink);
/// let pasted: Rc<RefCell<Node>> = paste.decode(&bytes).unwrap();
/// assert!(Rc::ptr_eq(&pasted.borrow().parent.upgrade().unwrap(), &scene));
/// assert!(!Rc::ptr_eq(&pasted, &door), "a copy of the door, with the same parent");
/// # scene.borrow_mut().children.clear();
/// ```
#[derive(Clone, Copy, Default)]
pub enum WeakPointers<'f> {
    /// Write the target of every live `Weak`, with what it reaches (the default).
    #[default]
    Follow,
    /// Write a `Weak` whose target the graph reaches only through `Weak`s as null.
    Null,
    /// Write a `Weak` whose target the graph reaches only through `Weak`s as an external
    /// reference holding the key the function gives for the target (`None`: null). It is called
    /// once per cut object, with the object borrowed.
    External(&'f dyn Fn(&dyn Reflectable) -> Option<u64>),
}

impl fmt::Debug for WeakPointers<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WeakPointers::Follow => "Follow",
            WeakPointers::Null => "Null",
            WeakPointers::External(_) => "External(..)",
        })
    }
}

/// What a subtree save cut ([`BinarySerializer::encode_subtree`](super::BinarySerializer::encode_subtree),
/// [`save_subtree`](crate::save_subtree)): each field whose `Weak`s led out of the saved graph,
/// with how many it cut and what they became. Empty when the subtree reaches nothing outside
/// itself.
///
/// ```
/// use reflectable::Reflectable;
/// use std::cell::RefCell;
/// use std::rc::{Rc, Weak};
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9_984_001)]
/// struct Entity {
///     #[rtti(id = 1)]
///     name: String,
///     #[rtti(id = 2)]
///     children: Vec<Rc<RefCell<Entity>>>,
///     #[rtti(id = 3)]
///     parent: Weak<RefCell<Entity>>,
/// }
///
/// let scene = Rc::new(RefCell::new(Entity { name: "scene".into(), ..Entity::default() }));
/// let player = Rc::new(RefCell::new(Entity { name: "player".into(), parent: Rc::downgrade(&scene), ..Entity::default() }));
/// scene.borrow_mut().children.push(player.clone());
///
/// let (bytes, cuts) = reflectable::to_vec_subtree(&player).unwrap();
/// assert_eq!(cuts.to_string(), "cut 1 Weak in Entity.parent (to Entity), written as null");
/// assert_eq!(cuts.count(), 1);
/// let copy: Rc<RefCell<Entity>> = reflectable::from_slice(&bytes).unwrap();
/// assert!(copy.borrow().parent.upgrade().is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubtreeReport {
    cuts: Vec<Cut>,
}

/// The `Weak`s one field had cut by a subtree save (see [`SubtreeReport`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Cut {
    /// The type owning the field (`"?"` for a field kept from another stream).
    pub type_name: &'static str,
    /// The field; for a `Weak` in a map or list, the field holding the container (several,
    /// joined by ` or `, when fields hold containers of the same type: `friends or enemies`).
    pub field_name: String,
    /// What the field declares it points at: a type's name, or `dyn Trait`.
    pub target: String,
    /// How many of its `Weak`s were written as null.
    pub nulled: u64,
    /// How many were written as external references.
    pub external: u64,
}

impl SubtreeReport {
    /// The cut fields, in the order first met.
    pub fn cuts(&self) -> &[Cut] {
        &self.cuts
    }
    /// How many `Weak`s were cut in all.
    pub fn count(&self) -> u64 {
        self.cuts.iter().map(|cut| cut.nulled + cut.external).sum()
    }
    /// `true` when nothing was cut.
    pub fn is_empty(&self) -> bool {
        self.cuts.is_empty()
    }
    pub(crate) fn new(cuts: Vec<Cut>) -> Self {
        SubtreeReport { cuts }
    }
}

impl fmt::Display for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.nulled + self.external;
        let plural = if count == 1 { "" } else { "s" };
        write!(
            f,
            "cut {count} Weak{plural} in {}.{} (to {}), written as ",
            self.type_name, self.field_name, self.target
        )?;
        match (self.nulled, self.external) {
            (_, 0) => f.write_str("null"),
            (0, _) => f.write_str("external references"),
            (nulled, external) => write!(f, "null ({nulled}) and external references ({external})"),
        }
    }
}

impl fmt::Display for SubtreeReport {
    /// One line per cut field.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.cuts.is_empty() {
            return f.write_str("nothing cut");
        }
        for (index, cut) in self.cuts.iter().enumerate() {
            if index > 0 {
                writeln!(f)?;
            }
            write!(f, "{cut}")?;
        }
        Ok(())
    }
}

/// Writes the external reference stub: top-level object `instance` of type
/// [`EXTERNAL_TYPE_ID`] with the key and the target's type ID, and its length first when the
/// stream records `lengths` (version 5; `Err` with the length when it does not fit its word).
pub(crate) fn write_stub(
    out: &mut Vec<u8>,
    instance: u32,
    key: &StubKey,
    type_id: u32,
    lengths: bool,
) -> Result<(), u64> {
    out.type_header(TypeHeader { instance, base: false, type_id: EXTERNAL_TYPE_ID });
    let length = lengths.then(|| LengthSlot::reserve(out));
    match key {
        StubKey::Cut(key) => {
            out.field_header(key_header());
            out.put(&key.to_le_bytes());
        }
        StubKey::Asset(key) => {
            let (kind, bytes): (u8, std::borrow::Cow<'_, [u8]>) = match key {
                AssetKey::U64(key) => (ASSET_U64, key.to_le_bytes().to_vec().into()),
                AssetKey::Uuid(uuid) => (ASSET_UUID, uuid.to_le_bytes().to_vec().into()),
                AssetKey::Path(path) => (ASSET_PATH, path.as_bytes().into()),
            };
            out.field_header(asset_header());
            // A dynamic plain value: its size counts its own four bytes, then the kind and key.
            out.word((4 + 1 + bytes.len()) as u32);
            out.push(kind);
            out.put(&bytes);
        }
    }
    out.field_header(type_header_field());
    out.word(type_id);
    length.map_or(Ok(()), |length| length.fill(out))
}

/// The asset key that field 3's content (after its size word) holds; `None` for an unknown
/// kind, a wrong length or a path that is not UTF-8.
pub(crate) fn asset_key(content: &[u8]) -> Option<AssetKey> {
    let (&kind, key) = content.split_first()?;
    match kind {
        ASSET_U64 => Some(AssetKey::U64(u64::from_le_bytes(key.try_into().ok()?))),
        ASSET_UUID => Some(AssetKey::Uuid(u128::from_le_bytes(key.try_into().ok()?))),
        ASSET_PATH => std::str::from_utf8(key).ok().map(|path| AssetKey::Path(path.to_owned())),
        _ => None,
    }
}

fn asset_header() -> FieldHeader {
    FieldHeader::new(EXTERNAL_ASSET_FIELD_ID, WireKind::Plain(None), false)
}

fn key_header() -> FieldHeader {
    FieldHeader::new(EXTERNAL_KEY_FIELD_ID, WireKind::Plain(Some(8)), false)
}

fn type_header_field() -> FieldHeader {
    FieldHeader::new(EXTERNAL_TYPE_FIELD_ID, WireKind::Plain(Some(4)), false)
}

/// Reads the stub of instance `instance` that `reader` stands at (past its first type header and
/// length): its key and target type ID,
/// or `None` when the type or a key is missing, a field has another shape, or it holds both keys
/// or an asset key it cannot read. Other fields and base sections are skipped, as any reader
/// skips what it does not know.
pub(crate) fn read_stub(
    reader: &mut Reader<'_>,
    instance: u32,
    depth: usize,
    limits: &Limits,
) -> Result<Option<(StubKey, u32)>, DecodeError> {
    let (mut cut, mut asset, mut type_id, mut own_section) = (None, None, None, true);
    walk_object(reader, instance, false, |reader, item| {
        match item {
            Item::Section(_) => own_section = false,
            Item::Field(field) if own_section && field == key_header() => {
                cut = Some(u64::from_le_bytes(reader.take_array()?));
            }
            Item::Field(field) if own_section && field == asset_header() => {
                let at = reader.offset();
                let size = reader.read_u32()? as usize;
                let content = size
                    .checked_sub(4)
                    .ok_or_else(|| crate::wire::error::corrupt(at, "a dynamic value's size below 4"))?;
                asset = Some(asset_key(reader.take(content)?));
            }
            Item::Field(field) if own_section && field == type_header_field() => type_id = Some(reader.read_u32()?),
            Item::Field(field) => skip_field(reader, &field, depth, limits)?,
        }
        Ok(())
    })?;
    let key = match (cut, asset) {
        (Some(key), None) => Some(StubKey::Cut(key)),
        (None, Some(Some(key))) => Some(StubKey::Asset(key)),
        _ => None,
    };
    Ok(key.zip(type_id))
}
