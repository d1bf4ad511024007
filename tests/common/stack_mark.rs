//! Deep drops, for the suites that test them: measuring the stack a drop takes (a field whose
//! drop notes how deep the stack is), and long chains made, encoded and taken apart without
//! recursion, and cases run on the main thread and on a 2 MiB one.
#![allow(dead_code)]

use reflectable::serializer::BinarySerializer;
use reflectable::Reflectable;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

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

/// A chain of `links` values linked by `link`, encoded, then taken apart one link at a time by
/// `next` (dropping it whole would recurse once per link).
pub fn chain_bytes<T: Reflectable + Default>(
    links: usize,
    link: impl Fn(T) -> T,
    next: impl Fn(&mut T) -> Option<T>,
) -> Vec<u8> {
    let mut head = T::default();
    for _ in 0..links {
        head = link(head);
    }
    let bytes = BinarySerializer::new().encode(&head).expect("encode");
    let mut at = Some(head);
    while let Some(mut current) = at {
        at = next(&mut current);
    }
    bytes
}

/// Takes the value out of a handle no one else holds.
pub fn sole<T>(handle: Rc<RefCell<T>>) -> Option<T> {
    Rc::try_unwrap(handle).ok().map(RefCell::into_inner)
}

/// The stack Rust gives a spawned thread by default, and libtest's threads.
pub const SMALL_STACK: usize = 2 << 20;

/// Which thread a case runs on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Thread {
    Main,
    Small,
}

/// Runs `case` on this (the main) thread and on a 2 MiB one.
pub fn on_both(name: &str, case: fn(Thread)) {
    case(Thread::Main);
    let spawned = std::thread::Builder::new().stack_size(SMALL_STACK).spawn(move || case(Thread::Small));
    spawned.expect("spawn").join().unwrap_or_else(|_| panic!("{name}: the 2 MiB thread panicked"));
    println!("ok: {name}");
}

/// Whether this is a release build (drops take several times less stack per link).
pub fn release() -> bool {
    !cfg!(debug_assertions)
}
