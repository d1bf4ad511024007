//! [`Limits`]: what the decoder allows a stream to make it do.

/// Limits the decoder enforces on untrusted input (the encoder also refuses to nest deeper than
/// `max_depth`). Each violation is its own [`DecodeErrorKind`](super::DecodeErrorKind).
/// `SECURITY.md` explains the threat model. Set the ones you need and take the rest from the
/// default: `Limits { max_depth: 16, ..Limits::default() }`.
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
    /// Most objects on one chain of strong pointers (`a.next -> b`, `b.next -> c`, ...) in the
    /// decoded graph. Rust drops such a chain recursively, one stack frame or more per link, so
    /// a longer one could overflow the stack of the thread that drops the graph. The default,
    /// 4096, drops safely on a 2 MiB thread stack (the smallest default Rust gives a thread) even
    /// in debug builds; raise it for data with long chains if your threads have the stack for
    /// it. Chains through `Weak` pointers do not count; a cycle counts once around.
    pub max_pointer_chain: usize,
}

/// Default allocation budget per input byte.
pub const ALLOCATION_PER_INPUT_BYTE: usize = 32;
/// Default allocation budget independent of the input size.
pub const ALLOCATION_BASE: usize = 1 << 20;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 128,
            max_objects: 1 << 26,
            max_array_len: 1 << 28,
            max_allocation: None,
            max_pointer_chain: 4096,
        }
    }
}

impl Limits {
    /// The allocation budget for an input of `input_len` bytes.
    pub fn allocation_budget(&self, input_len: usize) -> usize {
        self.max_allocation
            .unwrap_or_else(|| input_len.saturating_mul(ALLOCATION_PER_INPUT_BYTE).saturating_add(ALLOCATION_BASE))
    }
}
