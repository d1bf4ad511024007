//! Compact streams (`FORMAT.md`, "Compact streams"): the same graph, schema table and trailer as
//! a normal stream, with objects written without headers. A type reference and presence bits
//! stand for the type and field headers (the schema table says what each type lists), integers
//! are varints, bools are bits, fields that are all zeros are left out, and instance IDs follow
//! from the object order.
//!
//! The two forms hold exactly the same information, so each turns into the other by the table
//! alone, without the program's types: [`to_compact`] and [`to_normal`]. That is how the crate
//! reads and writes them. A compact stream is turned into its normal twin before decoding (every
//! decoder, with its evolution rules, limits and reports, then reads it as it reads any stream),
//! and the encoder writes the normal form and turns it compact. Decoding a compact stream thus
//! costs its transcoding on top, and memory for its normal twin, whose length is capped
//! (`SECURITY.md`, "Compact streams").
//!
//! ```
//! use reflectable::serializer::{compact, BinarySerializer, Encoding};
//! use reflectable::Reflectable;
//!
//! #[derive(Reflectable, Default, Debug, PartialEq)]
//! #[rtti(id = 9960)]
//! struct Crate {
//!     #[rtti(id = 1)]
//!     label: String,
//!     #[rtti(id = 2)]
//!     weight: u32,
//!     #[rtti(id = 3)]
//!     opened: bool,
//! }
//!
//! let value = Crate { label: "nails".into(), weight: 12, opened: false };
//! let serializer = BinarySerializer::new().encoding(Encoding::Compact);
//! let bytes = serializer.encode(&value).unwrap();
//! let normal = reflectable::to_vec(&value).unwrap();
//! assert!(bytes.len() < normal.len());
//!
//! // Every decoder reads both forms; each turns into the other exactly.
//! assert_eq!(reflectable::from_slice::<Crate>(&bytes).unwrap(), value);
//! assert_eq!(compact::to_normal(&bytes).unwrap(), normal);
//! assert_eq!(compact::to_compact(&normal).unwrap(), bytes);
//! ```

mod layout;
mod order;
mod plain;
mod plain_block;
mod running;
mod to_compact;
mod to_normal;

pub use plain::MAX_WALK_NESTING;
pub use plain_block::PLAIN_MARK;
pub use to_compact::to_compact;
pub(crate) use to_compact::to_compact_with;
pub(crate) use to_normal::normalize;

/// Checks that `block` is a well-formed plain block (a JSON document carries one in base64).
#[cfg(feature = "json")]
pub(crate) fn check_block(block: &[u8]) -> Result<(), DecodeError> {
    plain_block::PlainTypes::read(block, 0, block.len()).map(drop)
}
pub use to_normal::to_normal;

use crate::plain::DYNAMIC_SIZE_PREFIX;
use crate::wire::error::{DecodeError, DecodeErrorKind};
use crate::wire::WireWrite;

/// The normal bytes [`to_normal`] writes, bounded: a compact stream may stand for a normal one
/// many times its size (a bit for a field that is all zeros), so its growth is capped. The cap
/// is kept at every write, not only where [`check`](Self::check) is called: a write that would
/// pass it is dropped and the twin marked over (the next `check` reports it), and the vector
/// never grows its capacity past the cap. So one field of a hostile stream (a long array of
/// one-byte varints for 16-byte numbers) cannot run the twin past the cap before a check.
pub(super) struct Output {
    bytes: Vec<u8>,
    cap: usize,
    /// A write was dropped because it would have passed the cap.
    over: bool,
}

/// The grammar goes into the twin through its capped writes.
impl WireWrite for Output {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend(bytes);
    }
}

impl Output {
    fn new(capacity: usize, cap: usize) -> Self {
        Output { bytes: Vec::with_capacity(capacity.min(cap)), cap, over: false }
    }

    #[inline]
    pub(super) fn extend(&mut self, bytes: &[u8]) {
        // The capacity never exceeds the cap, so every write that would pass the cap comes here.
        if bytes.len() > self.bytes.capacity() - self.bytes.len() && !self.grow(bytes.len()) {
            return;
        }
        self.bytes.extend_from_slice(bytes);
    }

    /// Makes room for `additional` more bytes, doubling as a vector does but never past the cap;
    /// `false` (and the twin marked over) when they do not fit under it.
    #[cold]
    fn grow(&mut self, additional: usize) -> bool {
        let needed = self.bytes.len().saturating_add(additional);
        if needed > self.cap {
            self.over = true;
            return false;
        }
        let target = self.bytes.capacity().saturating_mul(2).clamp(needed, self.cap);
        self.bytes.reserve_exact(target - self.bytes.len());
        true
    }

    #[inline]
    pub(super) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Room for a dynamic element's size, set by [`patch_size`](Self::patch_size).
    #[inline]
    pub(super) fn reserve_word(&mut self) -> usize {
        self.word(0);
        self.bytes.len() - DYNAMIC_SIZE_PREFIX
    }

    /// Sets the size word reserved at `at` to the element written since (prefix included).
    /// `offset` is where the compact input stands, for the error.
    #[inline]
    pub(super) fn patch_size(&mut self, at: usize, offset: usize) -> Result<(), DecodeError> {
        // Writes since `at` may have been dropped: the size would be wrong.
        self.check(offset)?;
        let size = u32::try_from(self.bytes.len() - at).map_err(|_| self.too_large(offset))?;
        self.bytes[at..at + DYNAMIC_SIZE_PREFIX].copy_from_slice(&size.to_le_bytes());
        self.check(offset)
    }

    /// Refuses output past the cap.
    #[inline]
    pub(super) fn check(&self, offset: usize) -> Result<(), DecodeError> {
        if self.over || self.bytes.len() > self.cap {
            return Err(self.too_large(offset));
        }
        Ok(())
    }

    #[cold]
    fn too_large(&self, offset: usize) -> DecodeError {
        DecodeError::new(DecodeErrorKind::AllocationLimit { limit: self.cap }, offset)
    }
}

/// How much larger than a compact stream its normal twin may be, by default: the twin is an
/// allocation of the decode, and a hostile stream must not claim gigabytes in a few bytes.
/// `Limits::max_allocation`, when set, is the cap instead.
pub const MAX_EXPANSION: usize = 8;
/// What every compact stream may expand by on top of [`MAX_EXPANSION`] times its length.
pub const EXPANSION_BASE: usize = 1 << 16;
