//! Measuring the stack a drop takes: a field whose drop notes how deep the stack is.

use std::cell::Cell;

thread_local! {
    static LOWEST: Cell<usize> = const { Cell::new(usize::MAX) };
    static HIGHEST: Cell<usize> = const { Cell::new(0) };
}

/// A field whose drop notes how deep the stack is: declared before an object's pointers, it is
/// dropped before them, so it marks each link of a chain as the drop recurses down it.
#[derive(Default)]
pub struct StackMark;

impl Drop for StackMark {
    #[inline(never)]
    fn drop(&mut self) {
        let local = 0u8;
        let at = std::hint::black_box(&local) as *const u8 as usize;
        LOWEST.with(|lowest| lowest.set(lowest.get().min(at)));
        HIGHEST.with(|highest| highest.set(highest.get().max(at)));
    }
}

/// The stack a recursive drop of `value` takes, between its first mark and its deepest.
pub fn measured_drop<T>(value: T) -> usize {
    LOWEST.with(|lowest| lowest.set(usize::MAX));
    HIGHEST.with(|highest| highest.set(0));
    drop(value);
    HIGHEST.with(Cell::get).saturating_sub(LOWEST.with(Cell::get))
}
