//! The binary serializer: Banshee's layout (8-byte type headers, 4-byte field headers, every object
//! reachable through pointers written once), specified in `FORMAT.md`.
//!
//! - [`MemorySerializer`]: to and from byte vectors.
//! - [`FileSerializer`]: to and from files; a save replaces the old file atomically.
//! - [`BinarySerializer`]: the shared core, with streaming sinks (any `io::Write`, or a fixed
//!   buffer with a flush callback, so a level of any size encodes in bounded memory).
//!
//! Decoding is versioned per field: fields the type does not know are skipped, fields the data
//! lacks keep the constructor's defaults, unknown types decode as null, and a field whose stored
//! shape no longer matches is skipped unless the type registered a migration for it.
//!
//! ```
//! use reflectable::serializer::MemorySerializer;
//! use reflectable::Reflectable;
//! use std::cell::RefCell;
//! use std::rc::Rc;
//!
//! #[derive(Reflectable, Default)]
//! #[rtti(id = 9500)]
//! struct Node {
//!     #[rtti(id = 1)]
//!     name: String,
//!     #[rtti(id = 2)]
//!     next: Option<Rc<RefCell<Node>>>,
//! }
//!
//! let shared = Rc::new(RefCell::new(Node { name: "shared".into(), next: None }));
//! let a = Node { name: "a".into(), next: Some(shared.clone()) };
//! shared.borrow_mut().next = Some(shared.clone()); // a self-cycle
//!
//! let serializer = MemorySerializer::new();
//! let bytes = serializer.encode(&a).unwrap();
//! let back: Node = serializer.decode_as(&bytes).unwrap();
//! let next = back.next.clone().unwrap();
//! assert_eq!(next.borrow().name, "shared");
//! assert!(Rc::ptr_eq(&next, next.borrow().next.as_ref().unwrap()), "the cycle is restored");
//! # shared.borrow_mut().next = None;
//! # next.borrow_mut().next = None;
//! ```

mod decoder;
mod encoder;
mod error;
mod file;
pub mod format;
mod skip;

pub use encoder::Root;
pub use error::{DecodeError, DecodeErrorKind, EncodeError, ErrorContext};
pub use file::{write_atomically, FileSerializer};

use crate::field::{SharedHandle, SharedObject};
use crate::rtti::{downcast_box, Reflectable, Registry};
use decoder::Decoder;
use encoder::Encoder;
use std::any::Any;
use std::io;

/// Limits the decoder enforces on untrusted input (the encoder also refuses to nest deeper than
/// `max_depth`). Each violation is its own [`DecodeErrorKind`]. `SECURITY.md` explains the
/// threat model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Deepest nesting of objects embedded by value, and of immutable pointees decoded inside
    /// each other. Bounds the decoder's stack use. Default 128.
    pub max_depth: usize,
    /// Most top-level objects a stream may hold. Default 2^26.
    pub max_objects: usize,
    /// Most elements one array field may hold. Default 2^28.
    pub max_array_len: usize,
    /// Most bytes the decoder may allocate for objects and array storage; `None` allows
    /// [`ALLOCATION_PER_INPUT_BYTE`] times the input size plus [`ALLOCATION_BASE`].
    pub max_allocation: Option<usize>,
}

/// Default allocation budget per input byte.
pub const ALLOCATION_PER_INPUT_BYTE: usize = 32;
/// Default allocation budget independent of the input size.
pub const ALLOCATION_BASE: usize = 1 << 20;

impl Default for Limits {
    fn default() -> Self {
        Limits { max_depth: 128, max_objects: 1 << 26, max_array_len: 1 << 28, max_allocation: None }
    }
}

impl Limits {
    /// The allocation budget for an input of `input_len` bytes.
    pub fn allocation_budget(&self, input_len: usize) -> usize {
        self.max_allocation
            .unwrap_or_else(|| input_len.saturating_mul(ALLOCATION_PER_INPUT_BYTE).saturating_add(ALLOCATION_BASE))
    }
}

/// Default flush threshold of the streaming encoder.
pub const DEFAULT_FLUSH_THRESHOLD: usize = 64 * 1024;

impl Root<'static> {
    /// A root held in a shared allocation, so pointers to it inside the graph resolve to it.
    pub fn shared<H: SharedHandle>(handle: &H) -> Self {
        Root::Shared(crate::field::SharedObject::new(handle.clone()))
    }
}

/// The serializer core: a registry to create objects from, limits, and the streaming threshold.
#[derive(Clone, Copy)]
pub struct BinarySerializer<'r> {
    registry: &'r Registry,
    limits: Limits,
    flush_threshold: usize,
}

impl Default for BinarySerializer<'static> {
    fn default() -> Self {
        Self::new()
    }
}

impl BinarySerializer<'static> {
    /// A serializer decoding through the global registry.
    pub fn new() -> Self {
        BinarySerializer::with_registry(Registry::global())
    }
}

impl<'r> BinarySerializer<'r> {
    /// A serializer decoding through `registry`.
    pub fn with_registry(registry: &'r Registry) -> Self {
        BinarySerializer { registry, limits: Limits::default(), flush_threshold: DEFAULT_FLUSH_THRESHOLD }
    }

    /// Replaces the limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Streaming encoders hand their buffer to the sink whenever it holds this many bytes.
    pub fn flush_threshold(mut self, bytes: usize) -> Self {
        self.flush_threshold = bytes.max(1);
        self
    }

    /// Encodes the graph from `root` into a new vector; `context` reaches the serialization hooks.
    pub fn encode_to_vec(&self, root: Root<'_>, context: &mut dyn Any) -> Result<Vec<u8>, EncodeError> {
        Encoder::new(Vec::new(), None, usize::MAX, self.limits, context).run(root).map(|(bytes, _)| bytes)
    }

    /// Streams the graph into `writer`, buffering at most about the flush threshold plus the
    /// largest single field. Returns the bytes written.
    pub fn encode_to_writer(
        &self,
        root: Root<'_>,
        writer: &mut dyn io::Write,
        context: &mut dyn Any,
    ) -> Result<u64, EncodeError> {
        let mut sink = |chunk: &[u8]| writer.write_all(chunk);
        let buffer = Vec::with_capacity(self.flush_threshold.min(1 << 20));
        Encoder::new(buffer, Some(&mut sink), self.flush_threshold, self.limits, context).run(root).map(|(_, n)| n)
    }

    /// Streams the graph through the caller's fixed `buffer`: each time it is full, `flush` gets
    /// it (Banshee's `flushBufferCallback`); the last call may be partial. Returns the bytes
    /// produced.
    pub fn encode_to_buffer(
        &self,
        root: Root<'_>,
        buffer: &mut [u8],
        flush: &mut dyn FnMut(&[u8]) -> io::Result<()>,
        context: &mut dyn Any,
    ) -> Result<u64, EncodeError> {
        if buffer.is_empty() {
            return Err(EncodeError::Io(io::Error::new(io::ErrorKind::InvalidInput, "empty encode buffer")));
        }
        let threshold = self.flush_threshold.min(buffer.len());
        let mut filled = 0;
        let mut sink = |mut chunk: &[u8]| -> io::Result<()> {
            while !chunk.is_empty() {
                let n = chunk.len().min(buffer.len() - filled);
                buffer[filled..filled + n].copy_from_slice(&chunk[..n]);
                filled += n;
                chunk = &chunk[n..];
                if filled == buffer.len() {
                    flush(buffer)?;
                    filled = 0;
                }
            }
            Ok(())
        };
        let total = Encoder::new(Vec::new(), Some(&mut sink), threshold, self.limits, context).run(root)?.1;
        if filled > 0 {
            flush(&buffer[..filled])?;
        }
        Ok(total)
    }

    /// Decodes a graph, returning the root by value; `context` reaches the deserialization hooks.
    pub fn decode(&self, bytes: &[u8], context: &mut dyn Any) -> Result<Box<dyn Reflectable>, DecodeError> {
        Decoder::new(bytes, self.registry, self.limits, context)?.decode_boxed(None)
    }

    /// Decodes a graph whose root is a `T`; a root of another type is refused before anything is
    /// built.
    pub fn decode_as<T: Reflectable>(&self, bytes: &[u8], context: &mut dyn Any) -> Result<T, DecodeError> {
        let expected = (std::any::TypeId::of::<T>(), std::any::type_name::<T>());
        let root = Decoder::new(bytes, self.registry, self.limits, context)?.decode_boxed(Some(expected))?;
        downcast_box::<T>(root).map(|root| *root).map_err(|root| {
            let found = root.rtti().name().to_owned();
            DecodeError::new(0, DecodeErrorKind::RootTypeMismatch { expected: std::any::type_name::<T>(), found })
        })
    }

    /// Decodes a graph with its root in a shared allocation `H` (e.g. `Rc<RefCell<Scene>>`), so
    /// pointers inside the graph to the root share it.
    pub fn decode_shared<H: SharedHandle>(&self, bytes: &[u8], context: &mut dyn Any) -> Result<H, DecodeError> {
        let accepts = |root: &SharedObject| root.cast::<H>().is_some();
        let root = Decoder::new(bytes, self.registry, self.limits, context)?.decode_shared(H::FAMILY, &accepts)?;
        Ok(root.cast::<H>().expect("the root was checked"))
    }

    /// Reads `reader` to its end, then decodes.
    pub fn decode_from_reader(
        &self,
        reader: &mut dyn io::Read,
        context: &mut dyn Any,
    ) -> Result<Box<dyn Reflectable>, DecodeError> {
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .map_err(|error| DecodeError::new(bytes.len(), DecodeErrorKind::Io(error.to_string())))?;
        self.decode(&bytes, context)
    }
}

/// Encodes to and decodes from memory.
#[derive(Clone, Copy, Default)]
pub struct MemorySerializer<'r> {
    core: BinarySerializer<'r>,
}

impl MemorySerializer<'static> {
    /// A serializer decoding through the global registry.
    pub fn new() -> Self {
        MemorySerializer { core: BinarySerializer::new() }
    }
}

impl<'r> MemorySerializer<'r> {
    /// A serializer over a configured core (own registry, limits).
    pub fn with(core: BinarySerializer<'r>) -> Self {
        MemorySerializer { core }
    }

    /// Encodes the graph from `root`.
    pub fn encode(&self, root: &dyn Reflectable) -> Result<Vec<u8>, EncodeError> {
        self.core.encode_to_vec(Root::Object(root), &mut ())
    }

    /// Encodes the graph from a root held in a shared allocation.
    pub fn encode_shared<H: SharedHandle>(&self, root: &H) -> Result<Vec<u8>, EncodeError> {
        self.core.encode_to_vec(Root::shared(root), &mut ())
    }

    /// Decodes a graph, the root by value.
    pub fn decode(&self, bytes: &[u8]) -> Result<Box<dyn Reflectable>, DecodeError> {
        self.core.decode(bytes, &mut ())
    }

    /// Decodes a graph whose root is a `T`.
    pub fn decode_as<T: Reflectable>(&self, bytes: &[u8]) -> Result<T, DecodeError> {
        self.core.decode_as(bytes, &mut ())
    }

    /// Decodes a graph with the root in a shared allocation `H`.
    pub fn decode_shared<H: SharedHandle>(&self, bytes: &[u8]) -> Result<H, DecodeError> {
        self.core.decode_shared(bytes, &mut ())
    }

    /// The core, for contexts and streaming sinks.
    pub fn core(&self) -> &BinarySerializer<'r> {
        &self.core
    }
}
