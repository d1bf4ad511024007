//! The common case in one call: save and load whole graphs through the global registry, with the
//! default limits and no hook context. [`BinarySerializer`](super::BinarySerializer) configures
//! everything these fix.

use super::{DecodeError, EncodeError, FileSerializer, MemorySerializer};
use crate::field::SharedHandle;
use crate::rtti::AsRoot;
use crate::rtti::Reflectable;
use std::path::Path;

/// Encodes the graph from `root` (an object, or the shared handle its root lives in) to bytes.
///
/// ```
/// use reflectable::Reflectable;
///
/// #[derive(Reflectable, Default, Debug, PartialEq)]
/// #[rtti(id = 9800)]
/// struct Settings {
///     #[rtti(id = 1)]
///     volume: f32,
/// }
///
/// let bytes = reflectable::to_vec(&Settings { volume: 0.5 }).unwrap();
/// let back: Settings = reflectable::from_slice(&bytes).unwrap();
/// assert_eq!(back, Settings { volume: 0.5 });
/// ```
pub fn to_vec<R: AsRoot + ?Sized>(root: &R) -> Result<Vec<u8>, EncodeError> {
    MemorySerializer::new().encode(root)
}

/// Decodes a graph whose root is a `T`.
pub fn from_slice<T: Reflectable>(bytes: &[u8]) -> Result<T, DecodeError> {
    MemorySerializer::new().decode_as(bytes)
}

/// Decodes a graph with its root in a shared allocation `H` (`Rc<RefCell<Scene>>`, ...), so that
/// pointers back to the root share it.
pub fn from_slice_shared<H: SharedHandle>(bytes: &[u8]) -> Result<H, DecodeError> {
    MemorySerializer::new().decode_shared(bytes)
}

/// Saves the graph from `root` to `path`, atomically: the old file stays whole until the new one
/// is. Returns the file size.
pub fn save<R: AsRoot + ?Sized>(root: &R, path: impl AsRef<Path>) -> Result<u64, EncodeError> {
    FileSerializer::new().encode(root, path)
}

/// Loads a graph whose root is a `T` from `path`.
pub fn load<T: Reflectable>(path: impl AsRef<Path>) -> Result<T, DecodeError> {
    FileSerializer::new().decode_as(path)
}

/// Loads a graph with its root in a shared allocation `H` from `path`.
pub fn load_shared<H: SharedHandle>(path: impl AsRef<Path>) -> Result<H, DecodeError> {
    FileSerializer::new().decode_shared(path)
}
