//! Streams and patches built to slip a deep drop past the decoder's drop check (and
//! `Patch::apply`'s), from an adversarial review of the check: orphans that hold nothing at the
//! drop, a table of handles freed in the wrong order, links the estimate priced too low, a
//! failed decode's teardown, patch links nested deep, and orphan cycles a fixed array kept alive.
//! Each is decoded (or applied) with the default limits on the main thread and on a worker
//! thread of 2 MiB: it is refused with the error named, or loads and drops.
//!
//! libtest runs tests on 2 MiB threads, so this binary has its own `main` (`harness = false`),
//! like `deep_drops.rs`: each case runs on the main thread and on a spawned one. A stack overflow
//! aborts the process, which fails the run.

#[path = "common/stack_mark.rs"]
mod stack_mark;
#[path = "common/stream.rs"]
mod stream;
use stack_mark::{chain_bytes, on_both, release, sole, Thread};
use stream::Stream;

use reflectable::diff::{self, ApplyProblemKind, Patch};
use reflectable::serializer::{BinarySerializer, DecodeError, DecodeErrorKind, Limits};
use reflectable::{Reflectable, Registry};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::{Rc, Weak};

/// Links enough to overflow any stack here when dropped by recursion, fewer in debug builds
/// (where each link takes several times the stack, and decoding is slower).
fn long_chain() -> u32 {
    if release() {
        1_000_000
    } else {
        200_000
    }
}

/// Decodes `bytes` with the default limits: `Ok` after dropping what loaded (where it must
/// drop), or the decoder's refusal.
fn load_and_drop<T: Reflectable>(bytes: &[u8]) -> Result<(), DecodeError> {
    BinarySerializer::new().decode::<T>(bytes).map(drop)
}

/// Refused as a drop too deep, or loaded and dropped.
fn refused_or_dropped(what: &str, thread: Thread, loaded: Result<(), DecodeError>) {
    if let Err(error) = loaded {
        assert!(matches!(error.kind(), DecodeErrorKind::DropTooDeep { .. }), "{what}, {thread:?}: {error}");
    }
}

/// The decoder's price per link of a chain of `T`, read from its refusal under a limit of 0.
fn price_per_link(bytes: &[u8], decode: impl Fn(Limits, &[u8]) -> Result<(), DecodeError>) -> usize {
    let error = decode(Limits { max_drop_stack: Some(0), ..Limits::default() }, bytes).expect_err("refused");
    let DecodeErrorKind::DropTooDeep { length, stack, .. } = *error.kind() else { panic!("{error}") };
    stack / (length - 1)
}

/// Links of a price that fit (nearly all of) this thread's drop limit.
fn links_at_the_limit(price: usize) -> usize {
    Limits::default().drop_stack_limit() / price * 98 / 100
}

// ---- orphans hold nothing at the drop --------------------------------------------------------

#[derive(Reflectable, Default)]
#[rtti(id = 490_000)]
struct Node {
    #[rtti(id = 1)]
    next: Option<Rc<RefCell<Node>>>,
    #[rtti(id = 2)]
    side: Option<Rc<RefCell<Node>>>,
}

const NODE: u32 = 490_000;

/// A long chain from the root (1 -> 2 -> ... ), cut every 1,000 links by an orphan pointing
/// into it: each orphan's only holder stored it, then stored null over it. The orphans are let
/// go of before the caller has the graph, so they hold nothing at its drop: the check must not
/// count them as holders that stop the recursion (it once did, in the fallback that gathers
/// pointers from the objects, and passed a chain that overflowed the stack).
fn orphans_do_not_cut_a_chain(thread: Thread) {
    let links = long_chain();
    let last = links + 1;
    let mut stream = Stream::new().object(1, NODE).pointer(1, 2);
    let mut orphans = Vec::new();
    for at in 2..=last {
        stream = stream.object(at, NODE);
        if at < last {
            stream = stream.pointer(1, at + 1);
        }
        let target = at + 1;
        if target <= last && (target - 2) % 1_000 == 0 {
            let orphan = last + 1 + orphans.len() as u32;
            orphans.push((orphan, target));
            stream = stream.pointer(2, orphan).pointer(2, 0);
        }
    }
    for (orphan, target) in orphans {
        stream = stream.object(orphan, NODE).pointer(1, target);
    }
    let error = load_and_drop::<Node>(&stream.end()).expect_err("a chain past any stack");
    let DecodeErrorKind::DropTooDeep { length, stack, limit } = *error.kind() else { panic!("{thread:?}: {error}") };
    assert_eq!(length, links as usize + 1, "{thread:?}: {error}");
    assert!(stack > limit, "{thread:?}: {error}");
}

/// The root stores a pointer to the head of a long chain, then null over it: the chain is an
/// orphan, held by the decoder's table alone, and its objects come in descending instance order
/// (the head last). Letting go of the table in index order would free the chain from its head
/// at the end, by recursion; the decoder must let go of it parents first, and the result (the
/// root alone) loads and drops.
fn an_orphaned_chain_is_let_go_of_parents_first(thread: Thread) {
    let head = long_chain() + 1;
    let mut stream = Stream::new().object(1, NODE).pointer(2, head).pointer(2, 0);
    for at in 2..=head {
        stream = stream.object(at, NODE);
        if at > 2 {
            stream = stream.pointer(1, at - 1);
        }
    }
    let root = BinarySerializer::new().decode::<Node>(&stream.end());
    let root = root.unwrap_or_else(|error| panic!("{thread:?}: {error}"));
    assert!(root.next.is_none() && root.side.is_none());
}

// ---- links priced at least what their drop takes ---------------------------------------------

/// Through a `BTreeMap`'s values, whose drop walks its nodes (the costliest link measured).
#[derive(Reflectable, Default)]
#[rtti(id = 490_010)]
struct TreeMapLink {
    #[rtti(id = 1)]
    next: BTreeMap<u32, Rc<RefCell<TreeMapLink>>>,
}

/// A struct with other fields to drop around its pointer.
#[derive(Reflectable, Default)]
#[rtti(id = 490_011)]
struct WideLink {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    tags: Vec<u32>,
    #[rtti(id = 3)]
    next: Option<Rc<RefCell<WideLink>>>,
    #[rtti(id = 4)]
    label: String,
    #[rtti(id = 5)]
    more: Vec<u32>,
}

/// Chains of a costly link, as long as the decoder's own price lets through on this thread (and
/// far longer): each loads and drops, or is refused. Priced as a plain pointer, a `BTreeMap`
/// link (over 600 bytes of stack in debug builds) and a struct's pointer among other fields
/// once overflowed the stack at the length the check passed.
fn costly_links_fit_their_price(thread: Thread) {
    fn tree_map(links: usize) -> Vec<u8> {
        chain_bytes(
            links,
            |n| TreeMapLink { next: BTreeMap::from([(1, Rc::new(RefCell::new(n)))]) },
            |n| n.next.pop_first().and_then(|(_, n)| sole(n)),
        )
    }
    fn wide(links: usize) -> Vec<u8> {
        chain_bytes(
            links,
            |n| WideLink { next: Some(Rc::new(RefCell::new(n))), ..WideLink::default() },
            |n| n.next.take().and_then(sole),
        )
    }
    let decode_tree_map =
        |limits: Limits, bytes: &[u8]| BinarySerializer::new().limits(limits).decode::<TreeMapLink>(bytes).map(drop);
    let decode_wide =
        |limits: Limits, bytes: &[u8]| BinarySerializer::new().limits(limits).decode::<WideLink>(bytes).map(drop);
    let at_the_limit = links_at_the_limit(price_per_link(&tree_map(100), decode_tree_map));
    let past_any_stack = if release() { 200_000 } else { 50_000 };
    for links in [at_the_limit, past_any_stack] {
        refused_or_dropped("a BTreeMap chain", thread, load_and_drop::<TreeMapLink>(&tree_map(links)));
    }
    let at_the_limit = links_at_the_limit(price_per_link(&wide(100), decode_wide));
    for links in [at_the_limit, long_chain() as usize] {
        refused_or_dropped("a chain of wide structs", thread, load_and_drop::<WideLink>(&wide(links)));
    }
}

// ---- base sections of kept types -------------------------------------------------------------

/// The type at the bottom of a chain of bases: the pointer sits in it.
#[derive(Reflectable, Default)]
#[rtti(id = 490_100)]
struct Base0 {
    #[rtti(id = 1)]
    next: Option<Rc<RefCell<Derived12>>>,
}

/// Reaches the bottom base of a derived type.
trait Bottom {
    fn bottom(&mut self) -> &mut Base0;
}

impl Bottom for Base0 {
    fn bottom(&mut self) -> &mut Base0 {
        self
    }
}

/// Reaches the bottom base through the one above (a type's bases, one level each).
macro_rules! bottom_through_base {
    ($($name:ident)*) => {$(
        impl Bottom for $name {
            fn bottom(&mut self) -> &mut Base0 {
                self.base.bottom()
            }
        }
    )*};
}

#[derive(Reflectable, Default)]
#[rtti(id = 490_101)]
struct Derived1 {
    #[rtti(base)]
    base: Base0,
}

#[derive(Reflectable, Default)]
#[rtti(id = 490_102)]
struct Derived2 {
    #[rtti(base)]
    base: Derived1,
}

#[derive(Reflectable, Default)]
#[rtti(id = 490_103)]
struct Derived3 {
    #[rtti(base)]
    base: Derived2,
}

#[derive(Reflectable, Default)]
#[rtti(id = 490_104)]
struct Derived4 {
    #[rtti(base)]
    base: Derived3,
}

#[derive(Reflectable, Default)]
#[rtti(id = 490_105)]
struct Derived5 {
    #[rtti(base)]
    base: Derived4,
}

#[derive(Reflectable, Default)]
#[rtti(id = 490_106)]
struct Derived6 {
    #[rtti(base)]
    base: Derived5,
}

#[derive(Reflectable, Default)]
#[rtti(id = 490_107)]
struct Derived7 {
    #[rtti(base)]
    base: Derived6,
}

#[derive(Reflectable, Default)]
#[rtti(id = 490_108)]
struct Derived8 {
    #[rtti(base)]
    base: Derived7,
}

#[derive(Reflectable, Default)]
#[rtti(id = 490_109)]
struct Derived9 {
    #[rtti(base)]
    base: Derived8,
}

#[derive(Reflectable, Default)]
#[rtti(id = 490_110)]
struct Derived10 {
    #[rtti(base)]
    base: Derived9,
}

#[derive(Reflectable, Default)]
#[rtti(id = 490_111)]
struct Derived11 {
    #[rtti(base)]
    base: Derived10,
}

#[derive(Reflectable, Default)]
#[rtti(id = 490_112)]
struct Derived12 {
    #[rtti(base)]
    base: Derived11,
}

bottom_through_base!(Derived1 Derived2 Derived3 Derived4 Derived5 Derived6 Derived7 Derived8 Derived9 Derived10 Derived11 Derived12);

/// A chain of `links` objects with twelve bases each, the pointer in the bottom one, encoded
/// and taken apart.
fn based_chain(links: usize) -> Vec<u8> {
    let mut head: Option<Rc<RefCell<Derived12>>> = None;
    for _ in 0..links {
        let mut link = Derived12::default();
        link.bottom().next = head.take();
        head = Some(Rc::new(RefCell::new(link)));
    }
    let head = head.expect("at least one link");
    let bytes = BinarySerializer::new().encode(&head).expect("encode");
    let mut at = Some(head);
    while let Some(link) = at {
        at = link.borrow_mut().bottom().next.take();
    }
    bytes
}

/// Decodes as kept types (`keep_unknown_types` with a registry that knows none of them).
fn decode_kept(limits: Limits, bytes: &[u8]) -> Result<(), DecodeError> {
    let none = Registry::new();
    let serializer = BinarySerializer::with_registry(&none).keep_unknown_types(true).limits(limits);
    serializer.decode::<Rc<RefCell<dyn Reflectable>>>(bytes).map(drop)
}

/// A kept type boxes its base, so a pointer in the twelfth base of a kept object sits twelve
/// boxes deep: its drop takes twelve levels of stack a link. Priced as a pointer of the object's
/// own, such chains once loaded at lengths whose drop overflowed the stack.
fn kept_bases_count_as_levels(thread: Thread) {
    let at_the_limit = links_at_the_limit(price_per_link(&based_chain(100), decode_kept));
    let past_any_stack = if release() { 20_000 } else { 5_000 };
    for links in [at_the_limit, past_any_stack] {
        refused_or_dropped("a chain of kept types", thread, decode_kept(Limits::default(), &based_chain(links)));
    }
}

// ---- a failed decode's teardown --------------------------------------------------------------

/// Holds by value, nested in maps, the pointer to the previous link.
#[derive(Reflectable, Default, Clone)]
#[rtti(id = 490_020)]
struct NestedPrevious {
    #[rtti(id = 1, embedded)]
    inner: BTreeMap<u32, NestedPrevious>,
    #[rtti(id = 2)]
    previous: Option<Rc<ImmutableLink>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 490_021)]
struct ImmutableLink {
    #[rtti(id = 1, embedded)]
    inner: BTreeMap<u32, NestedPrevious>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 490_022)]
struct ImmutableLinks {
    #[rtti(id = 1)]
    all: Vec<Rc<ImmutableLink>>,
}

/// `links` immutable objects, each holding the one before sixty maps deep, all listed by the
/// root in order.
fn immutable_links(links: usize) -> Vec<u8> {
    let mut all: Vec<Rc<ImmutableLink>> = Vec::new();
    for _ in 0..links {
        let mut nested = NestedPrevious { inner: BTreeMap::new(), previous: all.last().cloned() };
        for _ in 1..60 {
            nested = NestedPrevious { inner: BTreeMap::from([(1, nested)]), previous: None };
        }
        all.push(Rc::new(ImmutableLink { inner: BTreeMap::from([(1, nested)]) }));
    }
    let root = ImmutableLinks { all };
    let bytes = BinarySerializer::new().encode(&root).expect("encode");
    // The last link frees all the others by recursion: let go of them from the end.
    let ImmutableLinks { mut all } = root;
    while all.pop().is_some() {}
    bytes
}

/// 250 immutable objects (few: the decoder once let go of so few in index order after a failure,
/// as a cascade it took for shallow), each holding the one before sixty maps deep: a chain
/// whose drop needs more than 2 MiB of stack in release builds (and than 8 in debug builds). Where
/// the check refuses it, the failed decode's teardown (immutable objects keep their pointers)
/// must not free it from its far end.
fn a_failed_decode_lets_go_of_nested_chains_parents_first(thread: Thread) {
    refused_or_dropped("a short, deep immutable chain", thread, load_and_drop::<ImmutableLinks>(&immutable_links(250)));
}

// ---- Patch::apply prices a patch's links by their nesting -------------------------------------

#[derive(Reflectable, Default, Clone)]
#[rtti(id = 490_030)]
struct NestedNext {
    #[rtti(id = 1, embedded)]
    inner: BTreeMap<u32, NestedNext>,
    #[rtti(id = 2)]
    next: Option<Rc<RefCell<PatchedLink>>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 490_031)]
struct PatchedLink {
    #[rtti(id = 1, embedded)]
    inner: BTreeMap<u32, NestedNext>,
}

/// Twenty maps deep.
const PATCH_NESTING: usize = 20;

fn patched_link(next: Option<Rc<RefCell<PatchedLink>>>) -> PatchedLink {
    let mut nested = NestedNext { inner: BTreeMap::new(), next };
    for _ in 1..PATCH_NESTING {
        nested = NestedNext { inner: BTreeMap::from([(1, nested)]), next: None };
    }
    PatchedLink { inner: BTreeMap::from([(1, nested)]) }
}

/// Takes the pointer out of a link, wherever in its maps it sits.
fn take_next(link: &mut PatchedLink) -> Option<Rc<RefCell<PatchedLink>>> {
    let mut at = link.inner.values_mut().next()?;
    loop {
        if at.next.is_some() {
            return at.next.take();
        }
        at = at.inner.values_mut().next()?;
    }
}

/// A patch (loaded from bytes) that turns an empty value into a chain whose pointers each sit
/// twenty maps deep, each link thousands of bytes of stack to drop: `apply` once priced every
/// link as one map's value and applied chains whose drop overflowed the stack. It is refused as
/// malformed, or applied and dropped.
fn patch_links_are_priced_by_nesting(thread: Thread) {
    let links = if release() { 4_000 } else { 2_000 };
    let mut head = None;
    for _ in 0..links {
        head = Some(Rc::new(RefCell::new(patched_link(head))));
    }
    let target = patched_link(head);
    let mut value = PatchedLink::default();
    let patch = diff::diff(&value, &target).expect("diff");
    let bytes = patch.to_bytes().expect("patch to bytes");
    drop(patch);
    let mut target = target;
    let mut at = take_next(&mut target);
    while let Some(link) = at {
        at = take_next(&mut link.borrow_mut());
    }
    let (patch, _) = Patch::from_bytes(&bytes).expect("the patch loads");
    let report = patch.apply(&mut value);
    for problem in report.problems() {
        assert!(
            matches!(&problem.kind, ApplyProblemKind::Malformed { at, .. } if at == "objects"),
            "{thread:?}: {problem:?}"
        );
    }
    drop(value);
}

// ---- orphan cycles through fixed arrays ------------------------------------------------------

#[derive(Reflectable, Default)]
#[rtti(id = 490_040)]
struct FixedArrays {
    #[rtti(id = 1)]
    pair: [Option<Rc<RefCell<FixedArrays>>>; 2],
    #[rtti(id = 2)]
    back: Weak<RefCell<FixedArrays>>,
}

/// Two objects holding each other through `[Option<Rc<_>>; 2]`, reached only through a `Weak`:
/// orphans, whose pointers the decoder clears so their cycle cannot leak (it once left fixed
/// arrays of optional pointers alone, and the cycle outlived the result).
fn orphan_cycles_through_fixed_arrays_are_freed(_: Thread) {
    let a = Rc::new(RefCell::new(FixedArrays::default()));
    let b = Rc::new(RefCell::new(FixedArrays::default()));
    a.borrow_mut().pair[0] = Some(b.clone());
    b.borrow_mut().pair[0] = Some(a.clone());
    let root = FixedArrays { back: Rc::downgrade(&a), ..FixedArrays::default() };
    let bytes = BinarySerializer::new().encode(&root).expect("encode");
    a.borrow_mut().pair[0] = None;
    let loaded: FixedArrays = BinarySerializer::new().decode(&bytes).expect("decode");
    assert!(loaded.back.upgrade().is_none(), "the orphan cycle was freed");
}

fn main() {
    on_both("orphans do not cut a chain", orphans_do_not_cut_a_chain);
    on_both("an orphaned chain is let go of parents first", an_orphaned_chain_is_let_go_of_parents_first);
    on_both("costly links fit their price", costly_links_fit_their_price);
    on_both("kept bases count as levels", kept_bases_count_as_levels);
    on_both(
        "a failed decode lets go of nested chains parents first",
        a_failed_decode_lets_go_of_nested_chains_parents_first,
    );
    on_both("patch links are priced by nesting", patch_links_are_priced_by_nesting);
    on_both("orphan cycles through fixed arrays are freed", orphan_cycles_through_fixed_arrays_are_freed);
}
