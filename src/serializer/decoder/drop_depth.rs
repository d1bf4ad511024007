//! How deep Rust's drop of a decoded graph recurses, and how much stack it holds at its deepest.
//!
//! Dropping an `Rc` that holds the last reference to its target drops the target inside the
//! same call, so a drop recurses once per link only while each link it follows frees the last
//! reference to what it points at. The longest chain of strong pointers is not that depth: in a
//! scene tree whose components also point across the tree, most cross links meet an object
//! some other pointer still holds, and stop there. So the decoder plays the drop through on the
//! integer graph of the pointers it stored ([`StrongGraph`]), with the reference counts they
//! make: a top-level object's fields are let go of in declaration order and an array's elements
//! in index order, as Rust does. Where the order is not known (inside a value embedded by value,
//! such as a map, whose iteration order the stream cannot tell; a type made with the builder,
//! whose declaration order the descriptor does not record), the group of pointers is played
//! through in every order at once: which objects it frees does not depend on the order (reference
//! counting frees exactly the objects no survivor holds), and the deepest it can recurse is the
//! longest path through the objects it frees. Objects on a strong cycle are never freed by a
//! drop (they leak, or `break_cycles` takes them apart), so they stop a chain.
//!
//! The stack a link holds was measured (see [`link_stack`]); the budget is the decoding thread's
//! remaining stack ([`Limits::drop_stack_limit`](crate::serializer::Limits::drop_stack_limit)).

use super::strong_edges::{Link, StrongGraph};
use crate::rtti::RttiType;

/// The deepest point of a drop: the objects on its recursion path (the root counted) and the
/// stack they hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct DropDepth {
    pub(crate) objects: usize,
    pub(crate) stack: usize,
}

impl DropDepth {
    pub(crate) fn deeper(self, link: Link, below: DropDepth) -> DropDepth {
        DropDepth { objects: self.objects + below.objects, stack: self.stack + link_stack(link) + below.stack }
    }

    /// The one taking more stack (more objects between equals).
    pub(crate) fn max(self, other: DropDepth) -> DropDepth {
        if (other.stack, other.objects) > (self.stack, self.objects) {
            other
        } else {
            self
        }
    }
}

/// Bytes of stack the drop of a pointer at `link` holds while what it frees is dropped, with a
/// margin over the most measured on x86-64 (stable Rust 1.9x; `drop_frames_fit_their_estimate`
/// in `tests/deep_drops.rs` measures them again, for every shape below). Release builds: a
/// single pointer (`Option<Rc<RefCell<T>>>`, `Rc<T>`, `Arc<Mutex<T>>`, an enum's field) 32-64
/// bytes a link, the most for structs with other fields to drop around it; a `Vec` element up to
/// 80; each value held by value around the pointer (a struct, a `Box`, a map's value) 34-67 more,
/// and 149 for a `BTreeMap`'s value, whose drop walks its nodes. Debug builds: 128-225, 256,
/// and up to 661 a level (`BTreeMap` again). The drop glue is the program's, so this follows the
/// profile the crate is built with; a type whose own `Drop` keeps large locals on the stack is
/// beyond it.
pub(crate) fn link_stack(link: Link) -> usize {
    let (single, field, array, nested, anywhere) =
        if cfg!(debug_assertions) { (272, 48, 96, 800, 128) } else { (72, 24, 64, 192, 64) };
    single
        + field * link.weight()
        + if link.is_array_element() { array } else { 0 }
        + nested * link.nesting()
        + if link.is_anywhere() { anywhere } else { 0 }
}

/// How many of a type's fields (a struct's, or every variant's) have something to drop: each
/// makes the frame of the type's drop glue larger, inlined into it (a map's drop, a string's,
/// another pointer's). Plain values of a static size have nothing to drop.
pub(crate) fn drop_weight(rtti: &RttiType) -> u8 {
    let heavy =
        rtti.every_field().filter(|field| !matches!(field.wire_shape().kind, crate::field::WireKind::Plain(Some(_))));
    heavy.count().min(u8::MAX as usize) as u8
}

impl StrongGraph {
    /// Plays through the drop of `root` (held by the caller alone), where the objects `live`
    /// says (all without it) hold their pointers: the others are let go of before the caller
    /// gets the graph. Iterative: a chain of any length costs heap, not stack.
    pub(crate) fn drop_depth(&self, root: u32, live: Option<&[bool]>) -> DropDepth {
        let count = self.count();
        let is_live = |node: usize| live.is_none_or(|live| live[node]);
        let mut holders = vec![0u32; count];
        for node in (0..count).filter(|&node| is_live(node)) {
            for &target in self.targets(node as u32) {
                holders[target as usize] += 1;
            }
        }
        let mut unordered = Unordered::new(count);
        let start = DropDepth { objects: 1, stack: 0 };
        let mut deepest = start;
        let mut frames = vec![Frame::new(self, root, start)];
        while let Some(frame) = frames.last_mut() {
            let (targets, links) = (self.targets(frame.node), self.links(frame.node));
            let at = frame.next;
            if at == targets.len() {
                frames.pop();
                continue;
            }
            let here = frame.depth;
            if frame.anywhere || !links[at].in_order() {
                let end = if frame.anywhere {
                    targets.len()
                } else {
                    let group = links[at].group();
                    at + links[at..].iter().take_while(|link| link.group() == group).count()
                };
                frame.next = end;
                deepest = deepest.max(unordered.play(self, &targets[at..end], &links[at..end], &mut holders, here));
            } else {
                frame.next = at + 1;
                let target = targets[at];
                holders[target as usize] -= 1;
                if holders[target as usize] == 0 {
                    let depth = here.deeper(links[at], DropDepth { objects: 1, stack: 0 });
                    deepest = deepest.max(depth);
                    frames.push(Frame::new(self, target, depth));
                }
            }
        }
        deepest
    }
}

/// An object being dropped: its next pointer to let go of, and the depth it is dropped at.
struct Frame {
    node: u32,
    next: usize,
    depth: DropDepth,
    /// The object's pointers are let go of in no known order.
    anywhere: bool,
}

impl Frame {
    fn new(graph: &StrongGraph, node: u32, depth: DropDepth) -> Frame {
        let anywhere = graph.links(node).iter().any(|link| link.is_anywhere());
        Frame { node, next: 0, depth, anywhere }
    }
}

/// Scratch for playing a group of pointers through in every order.
struct Unordered {
    /// The objects the group frees, each after every freed object that points at it.
    freed: Vec<u32>,
    /// Per object, the group that freed it (0: none yet).
    group_of: Vec<u32>,
    group: u32,
    /// Per freed object, the deepest drop below it.
    below: Vec<DropDepth>,
}

impl Unordered {
    fn new(count: usize) -> Unordered {
        Unordered { freed: Vec::new(), group_of: vec![0; count], group: 0, below: vec![DropDepth::default(); count] }
    }

    /// Lets go of `targets` (at `links`) from an object dropped at `here`, in any order: frees
    /// whatever that frees, and returns the deepest point any order could reach.
    fn play(
        &mut self,
        graph: &StrongGraph,
        targets: &[u32],
        links: &[Link],
        holders: &mut [u32],
        here: DropDepth,
    ) -> DropDepth {
        self.group += 1;
        self.freed.clear();
        let group = self.group;
        let mut release = |target: u32, freed: &mut Vec<u32>, group_of: &mut [u32]| {
            holders[target as usize] -= 1;
            if holders[target as usize] == 0 {
                freed.push(target);
                group_of[target as usize] = group;
            }
        };
        for &target in targets {
            release(target, &mut self.freed, &mut self.group_of);
        }
        let mut at = 0;
        while let Some(&node) = self.freed.get(at) {
            for &target in graph.targets(node) {
                release(target, &mut self.freed, &mut self.group_of);
            }
            at += 1;
        }
        // An object is freed after every freed object that points at it, so walking the list
        // backwards meets what an object points at before the object.
        for &node in self.freed.iter().rev() {
            let mut below = DropDepth { objects: 1, stack: 0 };
            for (&target, &link) in graph.targets(node).iter().zip(graph.links(node)) {
                if self.group_of[target as usize] == self.group {
                    below = below.max(DropDepth { objects: 1, stack: 0 }.deeper(link, self.below[target as usize]));
                }
            }
            self.below[node as usize] = below;
        }
        let mut deepest = here;
        for (&target, &link) in targets.iter().zip(links) {
            if self.group_of[target as usize] == self.group {
                deepest = deepest.max(here.deeper(link, self.below[target as usize]));
            }
        }
        deepest
    }
}

#[cfg(test)]
mod tests {
    use super::super::strong_edges::{Link, StrongEdges};
    use super::{link_stack, DropDepth};

    /// Edges `(from, to, field position)`, single pointers in declaration order.
    fn graph(count: usize, edges: &[(usize, usize, usize)]) -> super::StrongGraph {
        let mut all = StrongEdges::default();
        for &(from, to, position) in edges {
            all.push_at(from, to, Link::at(Some(position), 0, false));
        }
        all.graph(count)
    }

    fn objects(depth: DropDepth) -> usize {
        depth.objects
    }

    #[test]
    fn a_chain_recurses_once_per_link() {
        let chain: Vec<_> = (0..9).map(|n| (n, n + 1, 0)).collect();
        let depth = graph(10, &chain).drop_depth(0, None);
        assert_eq!(depth, DropDepth { objects: 10, stack: 9 * link_stack(Link::at(Some(0), 0, false)) });
    }

    #[test]
    fn a_link_to_an_object_held_elsewhere_stops_the_recursion() {
        // 0 -> 1 -> 2 -> 3, and 0's second field holds 3 too: 3 is freed by 0's second field,
        // after 1 and 2 are gone, not at the end of the chain.
        assert_eq!(objects(graph(4, &[(0, 1, 0), (1, 2, 0), (2, 3, 0), (0, 3, 1)]).drop_depth(0, None)), 3);
        // The other order of fields: 3 is decremented first, then freed at the end of the chain.
        assert_eq!(objects(graph(4, &[(0, 3, 0), (0, 1, 1), (1, 2, 0), (2, 3, 0)]).drop_depth(0, None)), 4);
    }

    #[test]
    fn fields_go_in_declaration_order_whatever_order_the_stream_stored_them_in() {
        // Stored second field first: the drop still lets go of field 0 (the chain) first.
        let stored_backwards = graph(4, &[(0, 3, 1), (0, 1, 0), (1, 2, 0), (2, 3, 0)]);
        assert_eq!(objects(stored_backwards.drop_depth(0, None)), 3);
    }

    #[test]
    fn a_group_of_unknown_order_counts_its_worst_order() {
        // A map in 0 holds 1 and 3; 1 -> 2 -> 3. Freed in one order 3 ends the chain (depth 4),
        // in the other it does not (depth 3): the worst is reported.
        let mut edges = StrongEdges::default();
        edges.push_at(0, 1, Link::at(Some(0), 1, true));
        edges.push_at(0, 3, Link::at(Some(0), 1, true));
        edges.push_at(1, 2, Link::at(Some(0), 0, false));
        edges.push_at(2, 3, Link::at(Some(0), 0, false));
        assert_eq!(edges.graph(4).drop_depth(0, None).objects, 4);
        // The same when the type's declaration order is unknown.
        let mut edges = StrongEdges::default();
        edges.push_at(0, 1, Link::anywhere());
        edges.push_at(0, 3, Link::anywhere());
        edges.push_at(1, 2, Link::at(Some(0), 0, false));
        edges.push_at(2, 3, Link::at(Some(0), 0, false));
        assert_eq!(edges.graph(4).drop_depth(0, None).objects, 4);
    }

    #[test]
    fn cycles_and_dead_holders_are_accounted_for() {
        // 1 <-> 2 is a cycle: never freed, so 3 behind it is not either.
        assert_eq!(objects(graph(4, &[(0, 1, 0), (1, 2, 0), (2, 1, 0), (2, 3, 0)]).drop_depth(0, None)), 1);
        // 4 holds 2 too, but 4 is not live (an orphan let go of first): 0 -> 1 -> 2 -> 3.
        let edges = graph(5, &[(0, 1, 0), (1, 2, 0), (2, 3, 0), (4, 2, 0)]);
        assert_eq!(objects(edges.drop_depth(0, None)), 2);
        assert_eq!(objects(edges.drop_depth(0, Some(&[true, true, true, true, false]))), 4);
    }

    #[test]
    fn a_million_links_cost_no_stack() {
        let chain: Vec<_> = (0..1_000_000).map(|n| (n, n + 1, 0)).collect();
        assert_eq!(objects(graph(1_000_001, &chain).drop_depth(0, None)), 1_000_001);
        let mut edges = StrongEdges::default();
        (0..1_000_000).for_each(|n| edges.push_at(n, n + 1, Link::at(Some(0), 1, true)));
        assert_eq!(edges.graph(1_000_001).drop_depth(0, None).objects, 1_000_001);
    }
}
