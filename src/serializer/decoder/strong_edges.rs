//! The strong pointers the decoder stored, as an integer graph of instance indices, and what it
//! answers without a walk over the objects themselves:
//!
//! - which objects the result holds strongly ([`StrongGraph::reachable_from_root`]): an object
//!   first reached through a `Weak` may end up held by nothing strong (an orphan), and orphans in
//!   a cycle would leak;
//! - how deep the drop of the result recurses (`drop_depth.rs`), from where each pointer sits
//!   in its object ([`Link`]);
//! - how long the longest chain of strong pointers is ([`StrongGraph::longest_chain`]), a bound
//!   on any drop whatever its order;
//! - an order to drop the decoder's own handles in, parents before children, so that each drop
//!   frees one object and never a whole chain at once.

use super::drop_depth::DropDepth;

/// Strong pointers stored while decoding: `from -> to` instance indices (0 is the root), each
/// with where it sits in `from` ([`Link`]). A pointer inside an object embedded by value counts
/// as its top-level object's. (`Patch::apply` asks the same of the links a patch makes, by edit
/// index.)
#[derive(Default)]
pub(crate) struct StrongEdges {
    edges: Vec<(u32, u32, Link)>,
}

/// Where a strong pointer sits in its top-level object, which is what decides when Rust's drop
/// of that object lets go of it, and how much stack that drop holds meanwhile: the top-level
/// field it belongs to (by declaration position), how many values embedded by value (structs,
/// lists, maps) it is inside, and whether it is an element of an array. A drop lets go of a
/// struct's fields in declaration order and of an array's elements in index order; a field
/// inside an embedded value (a map's values, say) is let go of in an order the stream cannot
/// tell, and so is every field of a type whose declaration order is unknown ([`Link::anywhere`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Link(u32);

impl Link {
    const POSITION: u32 = 0xFFFF;
    const NESTING_SHIFT: u32 = 16;
    const NESTING: u32 = 0x3FF;
    const WEIGHT_SHIFT: u32 = 26;
    const WEIGHT: u32 = 0xF;
    const ARRAY: u32 = 1 << 30;
    const ANYWHERE: u32 = 1 << 31;

    /// A pointer of top-level field `position` (its declared place, when the type's declaration
    /// order is known), `nesting` embedded values deep, an array element or not.
    pub(crate) fn at(position: Option<usize>, nesting: usize, array: bool) -> Link {
        let place = match position {
            Some(position) if position <= Self::POSITION as usize => position as u32,
            _ => Self::ANYWHERE,
        };
        let nesting = (nesting.min(Self::NESTING as usize) as u32) << Self::NESTING_SHIFT;
        Link(place | nesting | if array { Self::ARRAY } else { 0 })
    }

    /// The link in an object whose type has `weight` fields with something to drop (see
    /// [`drop_weight`](super::drop_depth::drop_weight)): each makes the drop's frame larger.
    pub(crate) fn weighing(self, weight: u8) -> Link {
        let weight = u32::from(weight).min(Self::WEIGHT) << Self::WEIGHT_SHIFT;
        Link((self.0 & !(Self::WEIGHT << Self::WEIGHT_SHIFT)) | weight)
    }

    /// See [`Link::weighing`].
    pub(crate) fn weight(self) -> usize {
        ((self.0 >> Self::WEIGHT_SHIFT) & Self::WEIGHT) as usize
    }

    /// A pointer whose place is unknown: a single one, not nested.
    pub(crate) fn anywhere() -> Link {
        Link(Self::ANYWHERE)
    }

    /// `true` when the drop order among this object's pointers is not known at all.
    pub(crate) fn is_anywhere(self) -> bool {
        self.0 & Self::ANYWHERE != 0
    }

    /// Embedded values this pointer is inside.
    pub(crate) fn nesting(self) -> usize {
        ((self.0 >> Self::NESTING_SHIFT) & Self::NESTING) as usize
    }

    /// `true` for an element of an array (a `Vec`, a map's values, ...).
    pub(crate) fn is_array_element(self) -> bool {
        self.0 & Self::ARRAY != 0
    }

    /// The group the pointer is let go of in: pointers of one field directly (in their order),
    /// or everything inside one field's embedded values (in no known order). Groups go in
    /// declaration order.
    pub(crate) fn group(self) -> u32 {
        ((self.0 & Self::POSITION) << 1) | u32::from(self.nesting() > 0)
    }

    /// `true` when the pointers of this link's group are let go of in their stored order.
    pub(crate) fn in_order(self) -> bool {
        self.nesting() == 0 && !self.is_anywhere()
    }
}

/// The edges as adjacency lists in two arrays: the targets of `n` are
/// `targets[starts[n]..starts[n + 1]]`, with their links beside them in `links`, in the order a
/// drop meets them where that is known. Built once per decode, for every question below.
pub(crate) struct StrongGraph {
    starts: Vec<u32>,
    targets: Vec<u32>,
    links: Vec<Link>,
}

impl StrongEdges {
    /// A pointer from `from` to `to` whose place in `from` is not known.
    #[cfg(test)]
    pub(crate) fn push(&mut self, from: usize, to: usize) {
        self.push_at(from, to, Link::anywhere());
    }

    /// A pointer from `from` to `to`, at `link` in `from`.
    #[inline]
    pub(crate) fn push_at(&mut self, from: usize, to: usize, link: Link) {
        // Instance indices come from the stream's index, which holds fewer than 2^30 entries.
        self.edges.push((from as u32, to as u32, link));
    }

    /// How many edges there are.
    pub(crate) fn len(&self) -> usize {
        self.edges.len()
    }

    /// A link as deep and as much an array element as the deepest stored (`None`: no edges).
    pub(crate) fn worst_link(&self) -> Option<Link> {
        let (nesting, array) = self.edges.iter().fold(None, |worst: Option<(usize, bool)>, (_, _, link)| {
            let (nesting, array) = worst.unwrap_or_default();
            Some((nesting.max(link.nesting()), array || link.is_array_element()))
        })?;
        let weight = self.edges.iter().map(|(_, _, link)| link.weight()).max().unwrap_or(0);
        Some(Link::at(None, nesting, array).weighing(weight as u8))
    }

    /// The edges among `count` instances as a graph (a counting sort by source, then each
    /// source's edges in drop order: by group, stably, so a field's elements keep their order).
    pub(crate) fn graph(&self, count: usize) -> StrongGraph {
        let mut starts = vec![0u32; count + 1];
        for &(from, _, _) in &self.edges {
            starts[from as usize + 1] += 1;
        }
        for i in 0..count {
            starts[i + 1] += starts[i];
        }
        let mut next = starts.clone();
        let mut slots = vec![(0u32, Link(0)); self.edges.len()];
        for &(from, to, link) in &self.edges {
            slots[next[from as usize] as usize] = (to, link);
            next[from as usize] += 1;
        }
        for node in 0..count {
            let own = &mut slots[starts[node] as usize..starts[node + 1] as usize];
            // A stream written by the running type holds its fields in declaration order already.
            if !own.is_sorted_by_key(|(_, link)| link.group()) {
                own.sort_by_key(|(_, link)| link.group());
            }
        }
        let (targets, links) = slots.into_iter().unzip();
        StrongGraph { starts, targets, links }
    }
}

impl StrongGraph {
    pub(crate) fn count(&self) -> usize {
        self.starts.len() - 1
    }

    /// The objects `node` points at, in drop order where known.
    pub(crate) fn targets(&self, node: u32) -> &[u32] {
        &self.targets[self.starts[node as usize] as usize..self.starts[node as usize + 1] as usize]
    }

    /// Where each of [`StrongGraph::targets`] sits in `node`.
    pub(crate) fn links(&self, node: u32) -> &[Link] {
        &self.links[self.starts[node as usize] as usize..self.starts[node as usize + 1] as usize]
    }

    /// For each instance, whether the root reaches it through strong pointers.
    pub(crate) fn reachable_from_root(&self) -> Vec<bool> {
        let mut reached = vec![false; self.count()];
        let mut stack = Vec::new();
        if self.count() > 0 {
            reached[0] = true;
            stack.push(0u32);
        }
        while let Some(at) = stack.pop() {
            for &to in self.targets(at) {
                if !std::mem::replace(&mut reached[to as usize], true) {
                    stack.push(to);
                }
            }
        }
        reached
    }

    /// The longest chain of strong pointers, in objects (see [`StrongGraph::search`]).
    #[cfg(test)]
    pub(crate) fn longest_chain(&self) -> usize {
        self.search(|_| {}).objects
    }

    /// The chain of strong pointers whose drop would take the most stack, whatever order the
    /// drop met its links in (see [`StrongGraph::search`]).
    pub(crate) fn longest_drop(&self) -> DropDepth {
        self.search(|_| {})
    }

    /// Every instance, each before the instances it points at (where no cycle forbids it): an
    /// order to let go of objects in so that no drop frees a whole chain (see
    /// [`StrongGraph::search`]).
    pub(super) fn parents_first(&self) -> Vec<u32> {
        let mut post_order = Vec::with_capacity(self.count());
        self.search(|node| post_order.push(node));
        post_order.reverse();
        post_order
    }

    /// One depth-first search from every instance (iterative: a long chain costs heap, not
    /// stack), calling `finished` on each instance after everything it points at (post-order);
    /// returns the chain that would take the most stack to drop, each link at its
    /// [`link_stack`](super::drop_depth::link_stack). An edge back to an instance on the current path closes a cycle and is not
    /// followed: a cycle is never freed by dropping (it leaks, or is broken by `break_cycles`),
    /// and everything not in or under a cycle gets its exact deepest chain.
    fn search(&self, mut finished: impl FnMut(u32)) -> DropDepth {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Open,
            Done,
        }
        let mut mark = vec![Mark::New; self.count()];
        // Per finished instance: the deepest chain from it, itself counted.
        let mut below = vec![DropDepth::default(); self.count()];
        // Frames: an instance, its next and end positions in `targets`, the deepest chain found
        // under it so far.
        let mut stack: Vec<(u32, u32, u32, DropDepth)> = Vec::new();
        let mut longest = DropDepth::default();
        let frame =
            |node: u32| (node, self.starts[node as usize], self.starts[node as usize + 1], DropDepth::default());
        // A link's price on top of the deepest chain below its target.
        let through = |link: Link, below: DropDepth| DropDepth::default().deeper(link, below);
        for start in 0..self.count() as u32 {
            if mark[start as usize] != Mark::New {
                continue;
            }
            mark[start as usize] = Mark::Open;
            stack.push(frame(start));
            while let Some(top) = stack.last_mut() {
                if top.1 < top.2 {
                    let at = top.1 as usize;
                    top.1 += 1;
                    let to = self.targets[at] as usize;
                    match mark[to] {
                        Mark::New => {
                            mark[to] = Mark::Open;
                            stack.push(frame(to as u32));
                        }
                        Mark::Open => {}
                        Mark::Done => top.3 = top.3.max(through(self.links[at], below[to])),
                    }
                    continue;
                }
                let (node, _, _, deepest) = *top;
                let own = DropDepth { objects: deepest.objects + 1, stack: deepest.stack };
                below[node as usize] = own;
                mark[node as usize] = Mark::Done;
                longest = longest.max(own);
                finished(node);
                stack.pop();
                if let Some(parent) = stack.last_mut() {
                    // The edge the parent followed last led here.
                    let edge = parent.1 as usize - 1;
                    parent.3 = parent.3.max(through(self.links[edge], own));
                }
            }
        }
        longest
    }
}

#[cfg(test)]
mod tests {
    use super::StrongEdges;

    fn edges(pairs: &[(usize, usize)]) -> StrongEdges {
        let mut edges = StrongEdges::default();
        pairs.iter().for_each(|&(from, to)| edges.push(from, to));
        edges
    }

    #[test]
    fn reachability_follows_edges_from_the_root_only() {
        // 0 -> 1 -> 2 -> 1 (a cycle reached from the root); 3 <-> 4 (an unreached cycle); 5 -> 2.
        let graph = edges(&[(0, 1), (1, 2), (2, 1), (3, 4), (4, 3), (5, 2)]);
        assert_eq!(graph.graph(6).reachable_from_root(), [true, true, true, false, false, false]);
        assert_eq!(StrongEdges::default().graph(0).reachable_from_root(), Vec::<bool>::new());
        assert_eq!(StrongEdges::default().graph(2).reachable_from_root(), [true, false]);
    }

    #[test]
    fn the_longest_chain_counts_objects_whichever_way_the_stream_orders_them() {
        // A chain written backwards: 0 -> 4 -> 3 -> 2 -> 1, plus a shortcut 0 -> 1.
        let graph = edges(&[(0, 1), (0, 4), (4, 3), (3, 2), (2, 1)]).graph(5);
        assert_eq!(graph.longest_chain(), 5);
        let order = graph.parents_first();
        let position = |n: u32| order.iter().position(|&m| m == n).unwrap();
        for (from, to) in [(0, 1), (0, 4), (4, 3), (3, 2), (2, 1)] {
            assert!(position(from) < position(to), "{from} before {to}");
        }
        // A cycle is not followed around: 0 -> 1 -> 2 -> 0 is a chain of 3.
        assert_eq!(edges(&[(0, 1), (1, 2), (2, 0)]).graph(3).longest_chain(), 3);
        // A tree is as deep as its deepest branch; unconnected objects are chains of 1.
        assert_eq!(edges(&[(0, 1), (0, 2), (2, 3)]).graph(6).longest_chain(), 3);
        assert_eq!(StrongEdges::default().graph(0).longest_chain(), 0);
    }

    #[test]
    fn a_million_links_cost_no_stack() {
        let pairs: Vec<(usize, usize)> = (0..1_000_000).map(|n| (n + 1, n)).collect();
        let graph = edges(&pairs).graph(1_000_001);
        assert_eq!(graph.longest_chain(), 1_000_001);
        assert_eq!(graph.parents_first()[0], 1_000_000);
    }
}
