//! Generic reflectable types: every instantiation (`Handle<Texture>`, `Handle<Mesh>`) is a type of
//! its own, with its own descriptor, type ID and name.
//!
//! A Rust `static` cannot depend on a type parameter, so the descriptors of instantiations live in
//! one table keyed by [`TypeId`], built on first use ([`generic_rtti`]).
//!
//! **Type IDs.** An instantiation's ID is, in this order:
//! 1. the ID given where it is registered: `register_type!(Handle<Texture>, id = 200_310)`;
//! 2. otherwise derived from the generic type's ID and its arguments' IDs ([`instantiation_id`]):
//!    64-bit FNV-1a over those `u32`s in little-endian order, folded to 32 bits (high half XOR low
//!    half), with bit 31 set; a result in the top 256 IDs, which the format reserves for its
//!    built-in types, is lowered by 256.
//!
//! The derived ID depends on nothing but numbers the program declares (no `TypeId`, no Rust type
//! name, no address), so every build on every platform computes the same ID. Bit 31 keeps derived
//! IDs apart from declared ones: give your own types IDs below 2^31. Two instantiations whose
//! derived IDs collide are reported when both are registered (`DuplicateTypeId`); give one of them
//! an ID with `register_type!(..., id = N)`.

use super::{RttiError, RttiType};
use ahash::AHashMap;
use once_cell::sync::Lazy;
use std::any::TypeId;
use std::borrow::Cow;
use std::cell::Cell;
use std::hash::{Hash, Hasher};
use std::sync::RwLock;

/// What a type contributes when it is the argument of a generic reflectable type: a stable ID
/// and a name. `#[derive(Reflectable)]` and `#[derive(PlainType)]` implement it; so do the
/// primitive plain types and `String`.
///
/// ```
/// use reflectable::rtti::{derived_instantiation_id, TypeArgument};
/// use reflectable::Reflectable;
/// # use std::marker::PhantomData;
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_970_016)]
/// # struct Texture { #[rtti(id = 1)] path: String }
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_970_017)]
/// # struct Handle<T: Default> { #[rtti(id = 1)] asset: u64, #[rtti(skip)] kind: PhantomData<T> }
///
/// assert_eq!((Texture::type_argument_id(), Texture::type_argument_name()), (9_970_016, "Texture".into()));
/// assert_eq!(u32::type_argument_name(), "u32");
///
/// // An instantiation of the generic `Handle<T>` (ID 9_970_017) is named and numbered by its
/// // argument's.
/// let rtti = Handle::<Texture>::rtti_static();
/// assert_eq!(rtti.name(), "Handle<Texture>");
/// assert_eq!(rtti.id(), derived_instantiation_id(9_970_017, &[Texture::type_argument_id()]));
/// assert_eq!(Handle::<Texture>::type_argument_name(), "Handle<Texture>");
/// ```
pub trait TypeArgument: 'static {
    /// The type's stable numeric ID: its RTTI type ID, or its plain type ID.
    fn type_argument_id() -> u32;
    /// The type's name as an argument shows it (`Texture`, `u32`, `Handle<Mesh>`).
    fn type_argument_name() -> Cow<'static, str>;
}

/// An ID given to an instantiation where it is registered (`register_type!(T, id = N)`).
pub struct InstantiationId {
    /// The instantiation's Rust type.
    pub rust_type: fn() -> TypeId,
    /// Its type ID.
    pub id: u32,
}

inventory::collect!(InstantiationId);

/// Each declared instantiation's ID, and a second ID if it was declared twice with another.
static DECLARED_IDS: Lazy<AHashMap<TypeId, (u32, Option<u32>)>> = Lazy::new(|| {
    let mut ids: AHashMap<TypeId, (u32, Option<u32>)> = AHashMap::new();
    for declared in inventory::iter::<InstantiationId> {
        let entry = ids.entry((declared.rust_type)()).or_insert((declared.id, None));
        if entry.0 != declared.id {
            entry.1 = Some(declared.id);
        }
    }
    ids
});

/// Bit 31, set in every derived instantiation ID.
pub const DERIVED_ID_BIT: u32 = 1 << 31;

/// The ID of instantiation `T` of the generic type with ID `generic_id` and arguments with IDs
/// `arguments`: the one declared for `T` where it is registered, or the derived one (see the
/// module docs).
///
/// # Panics
/// When `T` is registered twice with different IDs.
pub fn instantiation_id<T: 'static>(generic_id: u32, arguments: &[u32]) -> u32 {
    match DECLARED_IDS.get(&TypeId::of::<T>()) {
        Some(&(declared, None)) => declared,
        // Files would depend on which declaration won.
        Some(&(first, Some(second))) => {
            panic!(
                "reflectable: `{}` is registered with two type IDs, {first} and {second}",
                std::any::type_name::<T>()
            )
        }
        None => derived_instantiation_id(generic_id, arguments),
    }
}

/// The derived ID (see the module docs): FNV-1a 64 over the little-endian bytes of `generic_id`
/// then each argument ID, folded to 32 bits, bit 31 set, kept below the reserved range.
///
/// ```
/// use reflectable::rtti::derived_instantiation_id;
/// assert_eq!(derived_instantiation_id(200, &[3]), derived_instantiation_id(200, &[3]));
/// assert_ne!(derived_instantiation_id(200, &[3]), derived_instantiation_id(200, &[4]));
/// assert!(derived_instantiation_id(200, &[3]) >= 1 << 31);
/// ```
pub fn derived_instantiation_id(generic_id: u32, arguments: &[u32]) -> u32 {
    let mut fnv = crate::fnv::Fnv64::new();
    std::iter::once(generic_id).chain(arguments.iter().copied()).for_each(|word| fnv.word(word));
    let hash = fnv.finish();
    let folded = (hash ^ (hash >> 32)) as u32 | DERIVED_ID_BIT;
    // The top 256 IDs are the format's built-in types.
    if folded >= crate::containers::FIRST_RESERVED_TYPE_ID {
        folded - 0x100
    } else {
        folded
    }
}

/// `Name<Arg1, Arg2>`.
pub fn instantiation_name(generic_name: &str, arguments: &[Cow<'static, str>]) -> String {
    format!("{generic_name}<{}>", arguments.join(", "))
}

/// Descriptors of generic instantiations, built on first use.
static GENERIC: Lazy<RwLock<AHashMap<TypeId, &'static Result<RttiType, RttiError>>>> =
    Lazy::new(|| RwLock::new(AHashMap::new()));

/// The descriptor of instantiation `T`, built by `build` the first time it is asked for (what
/// `#[derive(Reflectable)]` generates for a generic type's `rtti_static`). A build error is kept
/// and returned as it is for a non-generic type.
pub fn generic_rtti<T: 'static>(build: fn() -> Result<RttiType, RttiError>) -> &'static Result<RttiType, RttiError> {
    let key = TypeId::of::<T>();
    let slot = recent_slot(key);
    if let Some((found, rtti)) = RECENT.with(|recent| recent[slot].get()) {
        if found == key {
            return rtti;
        }
    }
    let rtti = shared_rtti(key, build);
    RECENT.with(|recent| recent[slot].set(Some((key, rtti))));
    rtti
}

/// A descriptor one thread found, with the instantiation it describes.
type Recent = Cell<Option<(TypeId, &'static Result<RttiType, RttiError>)>>;

thread_local! {
    /// The descriptors this thread found last, by a hash of their `TypeId`: a decode asks for an
    /// instantiation's descriptor for every object of it, and a hit here is one comparison where
    /// the shared table takes a lock and a lookup. Entries never go stale: the table never
    /// replaces a descriptor once stored.
    static RECENT: [Recent; 16] = const { [const { Cell::new(None) }; 16] };
}

/// Where `key` goes in `RECENT`.
#[inline]
fn recent_slot(key: TypeId) -> usize {
    struct Last(u64);
    impl Hasher for Last {
        fn finish(&self) -> u64 {
            self.0
        }
        fn write(&mut self, bytes: &[u8]) {
            for &byte in bytes {
                self.0 = self.0.rotate_left(8) ^ u64::from(byte);
            }
        }
        fn write_u64(&mut self, word: u64) {
            self.0 ^= word;
        }
        fn write_u128(&mut self, word: u128) {
            self.0 ^= word as u64 ^ (word >> 64) as u64;
        }
    }
    let mut hasher = Last(0);
    key.hash(&mut hasher);
    let hash = hasher.finish();
    ((hash ^ hash >> 29 ^ hash >> 47) & 15) as usize
}

/// The shared table's descriptor of the instantiation `key`, built by `build` the first time.
#[inline(never)]
fn shared_rtti(key: TypeId, build: fn() -> Result<RttiType, RttiError>) -> &'static Result<RttiType, RttiError> {
    if let Some(&rtti) = GENERIC.read().unwrap_or_else(|poisoned| poisoned.into_inner()).get(&key) {
        return rtti;
    }
    // Built outside the lock: building may ask for other instantiations' descriptors. If two
    // threads race, the first one stored wins and the other's is a small one-time leak.
    let mut built = build();
    if let Ok(rtti) = &mut built {
        rtti.mark_instantiation();
    }
    let built: &'static Result<RttiType, RttiError> = Box::leak(Box::new(built));
    GENERIC.write().unwrap_or_else(|poisoned| poisoned.into_inner()).entry(key).or_insert(built)
}

macro_rules! plain_type_arguments {
    ($($type:ty),* $(,)?) => {$(
        impl TypeArgument for $type {
            fn type_argument_id() -> u32 {
                <$type as crate::plain::PlainType>::TYPE_ID
            }
            fn type_argument_name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($type))
            }
        }
    )*};
}

plain_type_arguments!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128, f32, f64, bool, char, usize, isize, String);
