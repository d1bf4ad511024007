//! [`Limits`]: what the decoder allows a stream to make it do.

/// Limits the decoder enforces on untrusted input (the encoder also refuses to nest deeper than
/// `max_depth`). Each violation is its own [`DecodeErrorKind`](crate::serializer::DecodeErrorKind).
/// `SECURITY.md` explains the threat model. Set the ones you need and take the rest from the
/// default: `Limits { max_depth: 16, ..Limits::default() }`.
///
/// ```
/// use reflectable::serializer::{BinarySerializer, DecodeErrorKind, Limits};
/// # use reflectable::Reflectable;
/// # #[derive(Reflectable, Default)]
/// # #[rtti(id = 9_981_002)]
/// # struct Note { #[rtti(id = 1)] lines: Vec<u32> }
///
/// let bytes = reflectable::to_vec(&Note { lines: vec![7; 1000] }).unwrap();
/// let tight = BinarySerializer::new().limits(Limits { max_array_len: 100, ..Limits::default() });
/// let Err(error) = tight.decode::<Note>(&bytes) else { panic!("an array over the limit") };
/// assert!(matches!(error.kind(), DecodeErrorKind::ArrayTooLong { .. }), "{error}");
/// assert!(BinarySerializer::new().decode::<Note>(&bytes).is_ok());
/// ```
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
    /// Most bytes of stack the drop of the decoded graph may take. Rust drops an object inside
    /// the drop of the pointer that held the last reference to it, so a chain of such links
    /// (`a.next -> b`, `b.next -> c`, ...) is dropped by recursion, and one long enough would
    /// overflow the stack of whoever drops the graph. The decoder plays the drop through on the
    /// pointers it stored (a link to an object something else still holds stops it) and refuses
    /// a graph that would need more ([`DecodeErrorKind::DropTooDeep`](crate::serializer::DecodeErrorKind::DropTooDeep)).
    /// `None` (the default) allows what the decoding thread has left
    /// ([`Limits::drop_stack_limit`]): the graph is then safe to drop on the thread that loaded
    /// it, no more than [`DROP_STACK_RESERVE`] deeper in its stack than the decode call, or on a
    /// thread with at least as much stack left. Set `Some(usize::MAX)` for a program that drops
    /// its graphs with care (or on a larger stack); `Weak` pointers never count.
    pub max_drop_stack: Option<usize>,
}

/// Stack kept back from the drop budget for the code between the decoder's caller and the drop.
pub const DROP_STACK_RESERVE: usize = 64 << 10;

/// The stack a thread is assumed to have where the platform does not say: Windows gives its main
/// thread 1 MiB, the least of the platforms Rust supports with threads.
const UNKNOWN_STACK: usize = 1 << 20;

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
            max_drop_stack: None,
        }
    }
}

impl Limits {
    /// The stack the drop of a decoded graph may take: [`Limits::max_drop_stack`], or what the
    /// calling thread has left (as the platform reports it: `pthread_getattr_np` on Linux, the
    /// thread's stack limits on Windows and macOS; 1 MiB where it does not say) less
    /// [`DROP_STACK_RESERVE`]. The decoder asks from inside its own calls, deeper than where its
    /// caller will drop the result.
    pub fn drop_stack_limit(&self) -> usize {
        self.max_drop_stack
            .unwrap_or_else(|| stacker::remaining_stack().unwrap_or(UNKNOWN_STACK).saturating_sub(DROP_STACK_RESERVE))
    }

    /// The allocation budget for an input of `input_len` bytes.
    pub fn allocation_budget(&self, input_len: usize) -> usize {
        self.max_allocation
            .unwrap_or_else(|| input_len.saturating_mul(ALLOCATION_PER_INPUT_BYTE).saturating_add(ALLOCATION_BASE))
    }
}
