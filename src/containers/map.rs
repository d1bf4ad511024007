//! Maps whose values are objects or pointers. On the wire a map is an object of the built-in map
//! type with two array fields, `keys` and `values` ([`MapEntries`]); a map field reaches it through
//! a getter/setter pair that converts between the map and its entries.

use super::{Element, MAP_KEYS_FIELD_ID, MAP_TYPE_ID, MAP_VALUES_FIELD_ID};
use crate::field::{Accessor, Declared, EmbeddedSlot, One, PointerSlot, VecShape};
use crate::plain::{write_elem, PlainType};
use crate::rtti::{generic_rtti, Reflectable, Registry, RttiError, RttiType, RttiTypeBuilder};
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasher, Hash};
use std::sync::Arc;

/// The entries of a map as the format writes them: `keys[i]` maps to `values[i]`.
///
/// This is the object a map field shows through RTTI: its fields are `keys` (1) and `values` (2).
/// [`RttiField::map_get`](crate::field::RttiField::map_get) and its siblings work on it by key.
#[derive(Debug, Clone, PartialEq)]
pub struct MapEntries<K, V> {
    /// The keys, in the order written.
    pub keys: Vec<K>,
    /// The value of each key.
    pub values: Vec<MapValue<V>>,
}

/// One value of a map object. A value the decoder could not load (a pointer to an object of a
/// type it lacks or the map cannot hold, a null where the map holds no nulls) is `None` rather than
/// left out, so the values after it keep their keys; its entry is left out of the map.
#[derive(Debug, Clone, PartialEq)]
pub struct MapValue<V>(pub Option<V>);

impl<E: EmbeddedSlot> EmbeddedSlot for MapValue<E> {
    fn declared() -> Declared {
        E::declared()
    }
    fn value(&self) -> Option<&dyn Reflectable> {
        self.0.as_ref().and_then(E::value)
    }
    fn value_mut(&mut self) -> Option<&mut dyn Reflectable> {
        self.0.as_mut().and_then(E::value_mut)
    }
    fn from_object(object: Option<Box<dyn Reflectable>>, registry: &Registry) -> Option<Self> {
        Some(MapValue(E::from_object(object, registry)))
    }
}

impl<P: PointerSlot> PointerSlot for MapValue<P> {
    type Handle = P::Handle;
    const WEAK: bool = P::WEAK;
    fn handle(&self) -> Option<P::Handle> {
        self.0.as_ref().and_then(P::handle)
    }
    fn addr(&self) -> Option<usize> {
        self.0.as_ref().and_then(P::addr)
    }
    fn pointer_count(&self) -> usize {
        self.0.as_ref().map_or(0, P::pointer_count)
    }
    fn from_handle(target: Option<&P::Handle>) -> Option<Self> {
        Some(MapValue(P::from_handle(target)))
    }
}

impl<K, V> MapEntries<K, V> {
    /// The entries whose value loaded, as key-value pairs.
    pub fn pairs(self) -> impl Iterator<Item = (K, V)> {
        self.keys.into_iter().zip(self.values).filter_map(|(key, value)| Some((key, value.0?)))
    }
}

impl<K, V> Default for MapEntries<K, V> {
    fn default() -> Self {
        MapEntries { keys: Vec::new(), values: Vec::new() }
    }
}

impl<K: PlainType, V: Element> Reflectable for MapEntries<K, V> {
    fn rtti(&self) -> &'static RttiType {
        Self::rtti_static()
    }
    fn rtti_static() -> &'static RttiType {
        match generic_rtti::<Self>(build::<K, V>) {
            // A key type whose static size does not fit a field header, say.
            Ok(rtti) => rtti,
            Err(error) => {
                panic!("reflectable: a map of `{}` cannot be declared: {error}", std::any::type_name::<Self>())
            }
        }
    }
}

fn build<K: PlainType, V: Element>() -> Result<RttiType, RttiError> {
    let name = format!("Map<{}, {}>", std::any::type_name::<K>(), std::any::type_name::<V>());
    let builder = RttiTypeBuilder::<MapEntries<K, V>>::built_in(MAP_TYPE_ID, name)
        .default_constructor()
        .add_plain::<Vec<K>, VecShape>(
            MAP_KEYS_FIELD_ID,
            "keys",
            Accessor::Direct { get: |map| &map.keys, get_mut: |map| &mut map.keys },
            None,
        );
    V::map_values_field(
        builder,
        MAP_VALUES_FIELD_ID,
        "values",
        Accessor::Direct { get: |map| &map.values, get_mut: |map| &mut map.values },
    )
    .build()
}

/// A map whose values are objects or pointers: `HashMap`, `BTreeMap` and `ahash::AHashMap` with
/// plain keys and [`Element`] values.
///
/// A field of such a map needs no attribute beyond its ID:
///
/// ```
/// use reflectable::containers::ObjectMap;
/// use reflectable::Reflectable;
/// use std::cell::RefCell;
/// use std::collections::HashMap;
/// use std::rc::Rc;
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_970_014)]
/// # struct Material { #[rtti(id = 1)] roughness: f32 }
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9_970_019)]
/// struct Level {
///     #[rtti(id = 1)]
///     materials: HashMap<String, Rc<RefCell<Material>>>,
/// }
///
/// let oak = Rc::new(RefCell::new(Material { roughness: 0.8 }));
/// let level = Level { materials: HashMap::from([("oak".into(), oak.clone()), ("elm".into(), oak)]) };
/// assert_eq!(level.materials.to_entries().keys, ["elm", "oak"], "written in a fixed order");
///
/// let back: Level = reflectable::from_slice(&reflectable::to_vec(&level).unwrap()).unwrap();
/// assert_eq!(back.materials["oak"].borrow().roughness, 0.8);
/// assert!(Rc::ptr_eq(&back.materials["oak"], &back.materials["elm"]), "sharing is kept");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a map of objects",
    label = "a map field needs plain, `Clone` keys and values that are reflectable objects or pointers",
    note = "a map of plain values (`HashMap<String, u32>`) is a plain field: leave out `embedded`/`pointer`"
)]
pub trait ObjectMap: Default + 'static {
    /// The key type.
    type Key: PlainType + Clone;
    /// The value type.
    type Value: Element + Clone;
    /// The entries in the order the format writes them: key order for ordered maps, the order of
    /// the keys' encoded bytes for hash maps (the same in every process).
    fn to_entries(&self) -> MapEntries<Self::Key, Self::Value>;
    /// Replaces the contents with `entries`; a key given twice keeps its last value, and keys
    /// beyond the number of values (or values beyond the keys), or whose value is `None`, are left
    /// out.
    fn set_entries(&mut self, entries: MapEntries<Self::Key, Self::Value>);
}

impl<K: PlainType + Clone + Ord, V: Element + Clone> ObjectMap for BTreeMap<K, V> {
    type Key = K;
    type Value = V;
    fn to_entries(&self) -> MapEntries<K, V> {
        MapEntries {
            keys: self.keys().cloned().collect(),
            values: self.values().cloned().map(Some).map(MapValue).collect(),
        }
    }
    fn set_entries(&mut self, entries: MapEntries<K, V>) {
        *self = entries.pairs().collect();
    }
}

impl<K, V, S> ObjectMap for HashMap<K, V, S>
where
    K: PlainType + Clone + Eq + Hash,
    V: Element + Clone,
    S: BuildHasher + Default + 'static,
{
    type Key = K;
    type Value = V;
    fn to_entries(&self) -> MapEntries<K, V> {
        sorted_by_key(self.iter())
    }
    fn set_entries(&mut self, entries: MapEntries<K, V>) {
        *self = entries.pairs().collect();
    }
}

impl<K, V> ObjectMap for ahash::AHashMap<K, V>
where
    K: PlainType + Clone + Eq + Hash,
    V: Element + Clone,
{
    type Key = K;
    type Value = V;
    fn to_entries(&self) -> MapEntries<K, V> {
        sorted_by_key(self.iter())
    }
    fn set_entries(&mut self, entries: MapEntries<K, V>) {
        *self = entries.pairs().collect();
    }
}

/// The entries of a hash map in the order of their keys' encoded bytes (as the plain codec of
/// hash maps writes them), so two processes write the same bytes whatever their hashers' seeds.
fn sorted_by_key<'a, K: PlainType + Clone, V: Clone + 'a>(
    entries: impl Iterator<Item = (&'a K, &'a V)>,
) -> MapEntries<K, V> {
    let mut bytes = Vec::new();
    let mut order: Vec<(usize, usize, &K, &V)> = entries
        .map(|(key, value)| {
            let start = bytes.len();
            write_elem(key, &mut bytes);
            (start, bytes.len(), key, value)
        })
        .collect();
    order.sort_unstable_by(|a, b| bytes[a.0..a.1].cmp(&bytes[b.0..b.1]));
    MapEntries {
        keys: order.iter().map(|entry| entry.2.clone()).collect(),
        values: order.iter().map(|entry| MapValue(Some(entry.3.clone()))).collect(),
    }
}

/// Adds map field `id`/`name` of the map `M` that `access` reaches: an embedded map object, read
/// from and written back to the map through its entries.
pub(crate) fn add_map_field<O: Reflectable, M: ObjectMap>(
    builder: RttiTypeBuilder<O>,
    id: u16,
    name: &'static str,
    access: Accessor<O, M>,
) -> RttiTypeBuilder<O> {
    let access = Arc::new(access);
    let read = access.clone();
    let entries = Accessor::Computed {
        // Only the encoder and dynamic access read a field, and only of the variant an enum
        // holds: an inactive variant's map reads as empty.
        get: Box::new(move |owner: &O| read.with(owner, M::to_entries).unwrap_or_default()),
        set: Box::new(move |owner: &mut O, entries| {
            let _inactive_variant = access.modify(owner, |map| map.set_entries(entries));
        }),
    };
    builder.add_embedded::<MapEntries<M::Key, M::Value>, One>(id, name, entries, None)
}

/// `true` when storing `entries` (a decoded map object) into its map will drop values: keys and
/// values of different counts, or a key given twice. A decoder then looks for the objects those
/// values held, which nothing may own any more.
pub(crate) fn drops_values(entries: &dyn Reflectable) -> bool {
    let fields = entries.rtti().fields();
    let (Some(keys), Some(values)) = (fields.first(), fields.get(1)) else { return false };
    let (Ok(key_count), Ok(value_count)) = (keys.len(entries), values.len(entries)) else { return true };
    if key_count != value_count {
        return true;
    }
    let Some(access) = keys.as_plain() else { return false };
    let mut bytes = Vec::new();
    if access.write(entries, &mut bytes).is_err() {
        return true;
    }
    // Each key's element, compared byte by byte: equal keys encode equally.
    let static_size = access.info().static_size;
    if static_size == Some(0) {
        return key_count > 1;
    }
    let mut elements: Vec<&[u8]> = Vec::with_capacity(key_count);
    let mut rest = &bytes[..];
    while !rest.is_empty() {
        let size = match static_size {
            Some(size) => size as usize,
            None => rest
                .get(..4)
                .map_or(rest.len(), |prefix| u32::from_le_bytes(prefix.try_into().expect("4 bytes")) as usize),
        };
        let (element, tail) = rest.split_at(size.clamp(1, rest.len()));
        elements.push(element);
        rest = tail;
    }
    elements.sort_unstable();
    elements.windows(2).any(|pair| pair[0] == pair[1])
}
