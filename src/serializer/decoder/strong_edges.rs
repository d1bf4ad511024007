//! The strong pointers the decoder stored, as an integer graph of instance indices, and what it
//! answers without a walk over the objects themselves:
//!
//! - which objects the result holds strongly ([`StrongGraph::reachable_from_root`]): an object
//!   first reached through a `Weak` may end up held by nothing strong (an orphan), and orphans in
//!   a cycle would leak;
//! - how long the longest chain of strong pointers is ([`StrongGraph::longest_chain`]): dropping a graph
//!   recurses once per link, so a chain too long for the stack would crash whoever drops it;
//! - an order to drop the decoder's own handles in, parents before children, so that each drop
//!   frees one object and never a whole chain at once.

/// Strong pointers stored while decoding: `(from, to)` instance indices (0 is the root). A
/// pointer inside an object embedded by value counts as its top-level object's. (`diff::apply`
/// asks the same of the links a patch makes, by edit index.)
#[derive(Default)]
pub(crate) struct StrongEdges {
    edges: Vec<(u32, u32)>,
}

/// The edges as adjacency lists in two arrays: the targets of `n` are
/// `targets[starts[n]..starts[n + 1]]`. Built once per decode, for every question below.
pub(crate) struct StrongGraph {
    starts: Vec<u32>,
    targets: Vec<u32>,
}

impl StrongEdges {
    pub(crate) fn push(&mut self, from: usize, to: usize) {
        // Instance indices come from the stream's index, which holds fewer than 2^30 entries.
        self.edges.push((from as u32, to as u32));
    }

    /// The edges among `count` instances as a graph (a counting sort by source).
    pub(crate) fn graph(&self, count: usize) -> StrongGraph {
        let mut starts = vec![0u32; count + 1];
        for &(from, _) in &self.edges {
            starts[from as usize + 1] += 1;
        }
        for i in 0..count {
            starts[i + 1] += starts[i];
        }
        let mut next = starts.clone();
        let mut targets = vec![0u32; self.edges.len()];
        for &(from, to) in &self.edges {
            targets[next[from as usize] as usize] = to;
            next[from as usize] += 1;
        }
        StrongGraph { starts, targets }
    }
}

impl StrongGraph {
    fn count(&self) -> usize {
        self.starts.len() - 1
    }

    fn targets(&self, node: u32) -> &[u32] {
        &self.targets[self.starts[node as usize] as usize..self.starts[node as usize + 1] as usize]
    }

    /// For each instance, whether the root reaches it through strong pointers.
    pub(super) fn reachable_from_root(&self) -> Vec<bool> {
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
    pub(crate) fn longest_chain(&self) -> usize {
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
    /// returns the longest chain. An edge back to an instance on the current path closes a cycle
    /// and is not followed: a cycle is never freed by dropping (it leaks, or is broken by
    /// `break_cycles`), and everything not in or under a cycle gets its exact longest chain.
    fn search(&self, mut finished: impl FnMut(u32)) -> usize {
        const NEW: u32 = u32::MAX;
        const OPEN: u32 = u32::MAX - 1;
        // Per instance: NEW, OPEN (on the path), or the length of the longest chain from it.
        let mut depth = vec![NEW; self.count()];
        // Frames: an instance, its next and end positions in `targets`, the deepest chain below.
        let mut stack: Vec<(u32, u32, u32, u32)> = Vec::new();
        let mut longest = 0;
        let frame = |node: u32| (node, self.starts[node as usize], self.starts[node as usize + 1], 0);
        for start in 0..self.count() as u32 {
            if depth[start as usize] != NEW {
                continue;
            }
            depth[start as usize] = OPEN;
            stack.push(frame(start));
            while let Some(top) = stack.last_mut() {
                if top.1 < top.2 {
                    let to = self.targets[top.1 as usize];
                    top.1 += 1;
                    match depth[to as usize] {
                        NEW => {
                            depth[to as usize] = OPEN;
                            stack.push(frame(to));
                        }
                        OPEN => {}
                        done => top.3 = top.3.max(done),
                    }
                    continue;
                }
                let (node, _, _, below) = *top;
                let own = below + 1;
                depth[node as usize] = own;
                longest = longest.max(own);
                finished(node);
                stack.pop();
                if let Some(parent) = stack.last_mut() {
                    parent.3 = parent.3.max(own);
                }
            }
        }
        longest as usize
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
