//! Assets: types whose objects live in files of their own (meshes, textures, sounds), which a
//! graph refers to by a key instead of holding. A type is an asset when it, or a base of it,
//! names a field as its key (`#[rtti(id = N, asset_key)]`, or
//! [`RttiTypeBuilder::asset_key`](super::RttiTypeBuilder::asset_key)): a `u64`, a `u128` (a
//! UUID) or a `String` (a path). A pointer to an asset is saved as an external reference holding
//! that key (`FORMAT.md`, "External references"), and a load asks the program's asset manager
//! for the object
//! ([`BinarySerializer::assets`](crate::serializer::BinarySerializer::assets)).

use super::visit;
use super::{Reflectable, RttiType};
use crate::field::{ElemShape, RttiField};
use crate::plain::PlainType;
use std::fmt;

/// The key of an asset: what a stream stores in place of a pointer to it, and what the program's
/// asset manager is asked for on load.
///
/// ```
/// use reflectable::rtti::AssetKey;
///
/// assert_eq!(AssetKey::Uuid(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef).to_string(), "01234567-89ab-cdef-0123-456789abcdef");
/// assert_eq!(AssetKey::Path("textures/rock.png".into()).to_string(), "textures/rock.png");
/// assert_eq!(AssetKey::U64(7).to_string(), "7");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AssetKey {
    /// A number, from a `u64` key field.
    U64(u64),
    /// A UUID, from a `u128` key field (`uuid::Uuid::as_u128`).
    Uuid(u128),
    /// A path or name, from a `String` key field.
    Path(String),
}

impl fmt::Display for AssetKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AssetKey::U64(key) => write!(f, "{key}"),
            AssetKey::Uuid(uuid) => {
                let hex = format!("{uuid:032x}");
                write!(f, "{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
            }
            AssetKey::Path(path) => f.write_str(path),
        }
    }
}

/// Whether `field` can be an asset key: a single plain `u64`, `u128` or `String`.
pub(crate) fn can_be_key(field: &RttiField) -> bool {
    let ElemShape::Plain(info) = field.shape().elem else { return false };
    !field.is_array() && [u64::TYPE_ID, u128::TYPE_ID, String::TYPE_ID].contains(&info.type_id)
}

impl RttiType {
    /// The asset key field of this type or of the nearest base that has one, with the type that
    /// declares it; `None` when the type is not an asset.
    pub fn asset_key_field(&'static self) -> Option<(&'static RttiType, &'static RttiField)> {
        self.chain().find_map(|rtti| rtti.own_asset_key().map(|field| (rtti, field)))
    }

    /// `true` when pointers to objects of this type are saved as asset references.
    #[inline]
    pub fn is_asset(&'static self) -> bool {
        self.cached_is_asset(|| self.asset_key_field().is_some())
    }

    /// The asset key of `object`, an object of this type; `None` when the type is not an asset
    /// or the object is of another type.
    ///
    /// ```
    /// use reflectable::rtti::AssetKey;
    /// use reflectable::Reflectable;
    ///
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9_985_001)]
    /// struct Texture {
    ///     #[rtti(id = 1, asset_key)]
    ///     path: String,
    ///     #[rtti(id = 2)]
    ///     width: u32,
    /// }
    ///
    /// let rock = Texture { path: "rock.png".into(), width: 64 };
    /// assert_eq!(rock.rtti().asset_key(&rock), Some(AssetKey::Path("rock.png".into())));
    /// ```
    pub fn asset_key(&'static self, object: &dyn Reflectable) -> Option<AssetKey> {
        let (keyed, field) = self.asset_key_field()?;
        let section = visit::sections_from(self, object).find(|section| std::ptr::eq(section.rtti, keyed))?.object;
        let ElemShape::Plain(info) = field.shape().elem else { return None };
        match info.type_id {
            id if id == u64::TYPE_ID => field.get::<u64>(section).ok().map(AssetKey::U64),
            id if id == u128::TYPE_ID => field.get::<u128>(section).ok().map(AssetKey::Uuid),
            id if id == String::TYPE_ID => field.get::<String>(section).ok().map(AssetKey::Path),
            _ => None,
        }
    }
}
