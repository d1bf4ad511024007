//! A bounds-checked little-endian cursor over a byte slice that remembers absolute offsets, so
//! every error can say where in the input it happened.

use thiserror::Error;

/// A plain value could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PlainError {
    /// The input ended before the value did.
    #[error("unexpected end of input at byte {offset}: needed {needed} more bytes, {available} left")]
    UnexpectedEnd {
        /// Absolute offset where the read started.
        offset: usize,
        /// Bytes the read needed.
        needed: usize,
        /// Bytes that were left.
        available: usize,
    },
    /// The bytes do not form a valid value of the type.
    #[error("invalid data at byte {offset}: {what}")]
    Invalid {
        /// Absolute offset of the offending bytes.
        offset: usize,
        /// What was wrong.
        what: &'static str,
    },
    /// A length or count read from the input is larger than the rest of the input can hold.
    #[error("length {claimed} at byte {offset} exceeds the {available} bytes that remain")]
    LengthTooLarge {
        /// Absolute offset of the length.
        offset: usize,
        /// The count or length claimed.
        claimed: u64,
        /// Bytes that remain.
        available: usize,
    },
    /// More elements that take no bytes than the reader admits (see [`ZERO_SIZED_ALLOWANCE`]).
    #[error("{claimed} zero-size elements at byte {offset}, but only {left} more are admitted")]
    TooManyZeroSized {
        /// Absolute offset of the count.
        offset: usize,
        /// The count claimed.
        claimed: u64,
        /// Zero-size elements still admitted.
        left: usize,
    },
    /// Plain values nested deeper than [`MAX_PLAIN_DEPTH`] (a recursive `#[derive(PlainType)]`
    /// type, such as a tree whose nodes hold a `Vec` of nodes).
    #[error("plain values nested more than {limit} deep at byte {offset}")]
    TooDeep {
        /// Absolute offset of the value one level too deep.
        offset: usize,
        /// The nesting limit.
        limit: usize,
    },
    /// Bytes were left over after a dynamic-size value's content.
    #[error("{left} unread bytes at the end of a dynamic-size value ending at byte {offset}")]
    TrailingBytes {
        /// Absolute offset of the first unread byte.
        offset: usize,
        /// Number of unread bytes.
        left: usize,
    },
}

/// Zero-size elements (those of a plain type whose static size is 0) a [`Reader`] and the
/// sub-readers made from it admit in all. Their counts cannot be checked against the bytes that
/// remain, so they are checked against this allowance instead, which bounds the time a tiny input
/// can claim for them (a few tens of milliseconds at most). It does not depend on the input's
/// length, so whatever decodes also decodes from its own re-encoding.
pub const ZERO_SIZED_ALLOWANCE: usize = 1 << 24;

impl PlainError {
    /// Where in the input the error is: the offset every variant records.
    pub fn offset(&self) -> usize {
        match self {
            PlainError::UnexpectedEnd { offset, .. }
            | PlainError::Invalid { offset, .. }
            | PlainError::LengthTooLarge { offset, .. }
            | PlainError::TooManyZeroSized { offset, .. }
            | PlainError::TooDeep { offset, .. }
            | PlainError::TrailingBytes { offset, .. } => *offset,
        }
    }

    /// The offset, to move it (an error found in a compact stream's normal twin).
    pub(crate) fn offset_mut(&mut self) -> &mut usize {
        match self {
            PlainError::UnexpectedEnd { offset, .. }
            | PlainError::Invalid { offset, .. }
            | PlainError::LengthTooLarge { offset, .. }
            | PlainError::TooManyZeroSized { offset, .. }
            | PlainError::TooDeep { offset, .. }
            | PlainError::TrailingBytes { offset, .. } => offset,
        }
    }
}

/// How deep a [`Reader`] lets values of recursive plain types nest ([`Reader::nested`]). Each
/// level is a call of the type's reader, so a hostile input of nested values would otherwise
/// overflow the stack, one level per few bytes. Objects have their own limit
/// ([`Limits::max_depth`](crate::serializer::Limits)).
pub const MAX_PLAIN_DEPTH: usize = 128;

/// A cursor over input bytes. Reads never panic: running out of input is a [`PlainError`].
///
/// ```
/// use reflectable::plain::{PlainError, PlainType, Reader};
///
/// let bytes = [1, 0, 0, 0, 0xAA, 0xBB, 0x2C, 0x01];
/// let mut reader = Reader::new(&bytes);
/// assert_eq!(reader.read_u32().unwrap(), 1);
/// assert_eq!(reader.take(2).unwrap(), [0xAA, 0xBB]);
/// assert_eq!(reader.offset(), 6);
/// assert_eq!(u16::read(&mut reader).unwrap(), 300, "plain types read from a reader");
///
/// // Reading past the end is an error that says where.
/// let error = reader.take_array::<4>().unwrap_err();
/// assert_eq!(error, PlainError::UnexpectedEnd { offset: 8, needed: 4, available: 0 });
/// assert_eq!(error.offset(), 8);
/// ```
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    /// Absolute offset of `data[0]` in the whole input (for error messages).
    base: usize,
    /// Zero-size elements still admitted (see [`ZERO_SIZED_ALLOWANCE`]).
    zero_sized_left: usize,
    /// Values read as a stand-in for one this program cannot represent (see
    /// [`note_substitution`](Reader::note_substitution)).
    substitutions: u64,
    /// Levels of nesting still admitted, and the limit they count down from (see
    /// [`MAX_PLAIN_DEPTH`]).
    depth_left: usize,
    depth_limit: usize,
}

impl<'a> Reader<'a> {
    /// A reader over `data`, reporting offsets from its start. It admits
    /// [`ZERO_SIZED_ALLOWANCE`] zero-size elements in all.
    pub fn new(data: &'a [u8]) -> Self {
        Reader {
            data,
            pos: 0,
            base: 0,
            zero_sized_left: ZERO_SIZED_ALLOWANCE,
            substitutions: 0,
            depth_left: MAX_PLAIN_DEPTH,
            depth_limit: MAX_PLAIN_DEPTH,
        }
    }

    /// Records that a codec read a stand-in for a stored value it cannot represent, such as the
    /// default variant of a `#[derive(PlainType)]` enum for a discriminant it lacks. Decoders
    /// report these (a [`DecodeReport`](crate::serializer::DecodeReport) line, an error when
    /// strict), so a codec should call this rather than substitute silently.
    pub fn note_substitution(&mut self) {
        self.substitutions += 1;
    }

    /// How many substitutions codecs have noted while reading (sub-readers included, once
    /// rejoined).
    pub fn substitutions(&self) -> u64 {
        self.substitutions
    }

    /// Runs `read` one level of nesting deeper: how a recursive type reads the values it holds
    /// (`#[derive(PlainType)]` structs do it for each of their fields). Past [`MAX_PLAIN_DEPTH`]
    /// levels it fails with [`PlainError::TooDeep`] instead of calling `read`.
    ///
    /// ```
    /// use reflectable::plain::{PlainError, Reader, MAX_PLAIN_DEPTH};
    ///
    /// fn nest(reader: &mut Reader<'_>) -> Result<usize, PlainError> {
    ///     reader.nested(|reader| Ok(1 + nest(reader)?))
    /// }
    /// let error = nest(&mut Reader::new(&[])).unwrap_err();
    /// assert_eq!(error, PlainError::TooDeep { offset: 0, limit: MAX_PLAIN_DEPTH });
    /// ```
    #[inline(always)]
    pub fn nested<T, E, F>(&mut self, read: F) -> Result<T, E>
    where
        F: FnOnce(&mut Self) -> Result<T, E>,
        E: From<PlainError>,
    {
        if self.depth_left == 0 {
            return Err(PlainError::TooDeep { offset: self.offset(), limit: self.depth_limit }.into());
        }
        self.depth_left -= 1;
        let result = read(self);
        self.depth_left += 1;
        result
    }

    /// Admits at most `limit` more levels of nesting (see [`nested`](Reader::nested)), for a
    /// reader whose frames are larger than the typed codecs'; returns what to give back to
    /// [`restore_depth`](Reader::restore_depth) after.
    pub(crate) fn limit_depth(&mut self, limit: usize) -> (usize, usize) {
        let before = (self.depth_left, self.depth_limit);
        if limit < self.depth_left {
            self.depth_left = limit;
            self.depth_limit = limit;
        }
        before
    }

    /// Undoes [`limit_depth`](Reader::limit_depth).
    pub(crate) fn restore_depth(&mut self, (left, limit): (usize, usize)) {
        self.depth_left = left;
        self.depth_limit = limit;
    }

    /// Zero-size elements this reader still admits.
    pub fn zero_sized_left(&self) -> usize {
        self.zero_sized_left
    }

    /// The same reader admitting `left` more zero-size elements: how several readers over one
    /// input share one allowance.
    pub fn with_zero_sized_left(mut self, left: usize) -> Self {
        self.zero_sized_left = left;
        self
    }

    /// Sets how many more zero-size elements this reader admits (see
    /// [`with_zero_sized_left`](Reader::with_zero_sized_left)).
    pub fn set_zero_sized_left(&mut self, left: usize) {
        self.zero_sized_left = left;
    }

    /// Absolute offset of the next byte to read.
    #[inline]
    pub fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// Bytes left to read.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// `true` when everything has been read.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The unread bytes, without consuming them.
    #[inline]
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    /// Consumes and returns the next `n` bytes.
    #[inline]
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], PlainError> {
        if n > self.remaining() {
            return Err(PlainError::UnexpectedEnd { offset: self.offset(), needed: n, available: self.remaining() });
        }
        let bytes = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    /// Consumes the next `N` bytes as an array.
    #[inline]
    pub fn take_array<const N: usize>(&mut self) -> Result<[u8; N], PlainError> {
        let bytes = self.take(N)?;
        let mut array = [0u8; N];
        array.copy_from_slice(bytes);
        Ok(array)
    }

    /// Skips `n` bytes.
    #[inline]
    pub fn skip(&mut self, n: usize) -> Result<(), PlainError> {
        self.take(n).map(|_| ())
    }

    /// The next little-endian `u32`, without consuming it; `None` when fewer than 4 bytes remain.
    #[inline]
    pub fn peek_u32(&self) -> Option<u32> {
        self.data.get(self.pos..self.pos + 4).map(|bytes| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    /// Reads a little-endian `u32`.
    #[inline]
    pub fn read_u32(&mut self) -> Result<u32, PlainError> {
        Ok(u32::from_le_bytes(self.take_array()?))
    }

    /// Reads a `u32` element count and checks that `count * min_elem_size` bytes remain, so that a
    /// hostile count cannot make the caller allocate more than the input justifies. Elements that
    /// take no bytes (`min_elem_size` 0) are counted against the zero-size allowance instead.
    pub fn read_count(&mut self, min_elem_size: usize) -> Result<usize, PlainError> {
        let offset = self.offset();
        let count = self.read_u32()? as usize;
        self.admit_count(offset, count, min_elem_size)
    }

    /// [`read_count`](Reader::read_count) for the compact element form: the count is a varint of
    /// at most 32 bits.
    pub fn read_compact_count(&mut self, min_elem_size: usize) -> Result<usize, PlainError> {
        let offset = self.offset();
        let count = super::varint::read_u64(self, 32)? as usize;
        self.admit_count(offset, count, min_elem_size)
    }

    #[inline]
    fn admit_count(&mut self, offset: usize, count: usize, min_elem_size: usize) -> Result<usize, PlainError> {
        if min_elem_size == 0 {
            if count > self.zero_sized_left {
                return Err(PlainError::TooManyZeroSized { offset, claimed: count as u64, left: self.zero_sized_left });
            }
            self.zero_sized_left -= count;
            return Ok(count);
        }
        if count.saturating_mul(min_elem_size) > self.remaining() {
            return Err(PlainError::LengthTooLarge { offset, claimed: count as u64, available: self.remaining() });
        }
        Ok(count)
    }

    /// Splits off a reader over the next `len` bytes and advances past them. The sub-reader
    /// shares this reader's zero-size allowance through [`Reader::rejoin`].
    #[inline]
    pub fn sub_reader(&mut self, len: usize) -> Result<Reader<'a>, PlainError> {
        let base = self.offset();
        if len > self.remaining() {
            return Err(PlainError::LengthTooLarge { offset: base, claimed: len as u64, available: self.remaining() });
        }
        let data = &self.data[self.pos..self.pos + len];
        self.pos += len;
        Ok(Reader {
            data,
            pos: 0,
            base,
            zero_sized_left: self.zero_sized_left,
            substitutions: self.substitutions,
            depth_left: self.depth_left,
            depth_limit: self.depth_limit,
        })
    }

    /// Takes back the zero-size allowance a sub-reader left unspent, and the substitutions it
    /// noted.
    #[inline]
    pub fn rejoin(&mut self, sub: &Reader<'a>) {
        self.zero_sized_left = sub.zero_sized_left;
        self.substitutions = sub.substitutions;
    }

    /// Fails with [`PlainError::TrailingBytes`] unless everything has been read.
    pub fn expect_end(&self) -> Result<(), PlainError> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(PlainError::TrailingBytes { offset: self.offset(), left: self.remaining() })
        }
    }
}
