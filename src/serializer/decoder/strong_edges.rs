//! The strong pointers the decoder stored, as an integer graph of instance indices, and what it
//! answers without a walk over the objects themselves:
//!
//! - which objects the result holds strongly ([`StrongEdges::reachable_from_root`]): an object
//!   first reached through a `Weak` may end up held by nothing strong (an orphan), and orphans in
//!   a cycle would leak;
//! - how long the longest chain of strong pointers is ([`StrongEdges::chains`]): dropping a graph
//!   recurses once per link, so a chain too long for the stack would crash whoever drops it;
//! - an order to drop the decoder's own handles in, parents before children, so that each drop
//!   frees one object and never a whole chain at once.

/// Strong pointers stored while decoding: `(from, to)` instance indices (0 is the root). A
/// pointer inside an object embedded by value counts as its top-level object's.
#[derive(Default)]
pub(super) struct StrongEdges {
    edges: Vec<(u32, u32)>,
}

/// The edges as adjacency lists in two arrays: the targets of `n` are
/// `targets[starts[n]..starts[n + 1]]`.
struct Adjacency {
    starts: Vec<u32>,
    targets: Vec<u32>,
}

impl Adjacency {
    fn of(count: usize, edges: &[(u32, u32)]) -> Self {
        // A counting sort by source.
        let mut starts = vec![0u32; count + 1];
        for &(from, _) in edges {
            starts[from as usize + 1] += 1;
        }
        for i in 0..count {
            starts[i + 1] += starts[i];
        }
        let mut next = starts.clone();
        let mut targets = vec![0u32; edges.len()];
        for &(from, to) in edges {
            targets[next[from as usize] as usize] = to;
            next[from as usize] += 1;
        }
        Adjacency { starts, targets }
    }

    fn targets(&self, node: u32) -> &[u32] {
        &self.targets[self.starts[node as usize] as usize..self.starts[node as usize + 1] as usize]
    }
}

/// The longest strong chain and a parents-first order of the instances.
pub(super) struct Chains {
    /// Objects on the longest chain of strong pointers that does not close a cycle.
    pub longest: usize,
    /// Every instance, each before the instances it points at (where no cycle forbids it).
    pub parents_first: Vec<u32>,
}

impl StrongEdges {
    pub(super) fn push(&mut self, from: usize, to: usize) {
        // Instance indices come from the stream's index, which holds fewer than 2^30 entries.
        self.edges.push((from as u32, to as u32));
    }

    /// For each of `count` instances, whether the root reaches it through strong pointers.
    pub(super) fn reachable_from_root(&self, count: usize) -> Vec<bool> {
        let graph = Adjacency::of(count, &self.edges);
        let mut reached = vec![false; count];
        let mut stack = Vec::new();
        if count > 0 {
            reached[0] = true;
            stack.push(0u32);
        }
        while let Some(at) = stack.pop() {
            for &to in graph.targets(at) {
                if !std::mem::replace(&mut reached[to as usize], true) {
                    stack.push(to);
                }
            }
        }
        reached
    }

    /// The longest chain and a parents-first order of `count` instances, by one depth-first
    /// search from every instance (iterative: a long chain costs heap, not stack). An edge back to
    /// an instance on the current path closes a cycle and is not followed: a cycle is never freed
    /// by dropping (it leaks, or is broken by `break_cycles`), and everything not in or under a
    /// cycle gets its exact longest chain.
    pub(super) fn chains(&self, count: usize) -> Chains {
        const NEW: u32 = u32::MAX;
        const OPEN: u32 = u32::MAX - 1;
        let graph = Adjacency::of(count, &self.edges);
        // Per instance: NEW, OPEN (on the path), or the length of the longest chain from it.
        let mut depth = vec![NEW; count];
        let mut post_order = Vec::with_capacity(count);
        // Frames: an instance, and how many of its targets were taken up.
        let mut stack: Vec<(u32, usize)> = Vec::new();
        let mut longest = 0;
        for start in 0..count as u32 {
            if depth[start as usize] != NEW {
                continue;
            }
            depth[start as usize] = OPEN;
            stack.push((start, 0));
            while let Some(frame) = stack.last_mut() {
                let (node, next) = *frame;
                if let Some(&to) = graph.targets(node).get(next) {
                    frame.1 += 1;
                    if depth[to as usize] == NEW {
                        depth[to as usize] = OPEN;
                        stack.push((to, 0));
                    }
                    continue;
                }
                let below = graph.targets(node).iter().map(|&to| depth[to as usize]).filter(|&d| d < OPEN).max();
                let own = 1 + below.unwrap_or(0);
                depth[node as usize] = own;
                longest = longest.max(own as usize);
                post_order.push(node);
                stack.pop();
            }
        }
        post_order.reverse();
        Chains { longest, parents_first: post_order }
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
        assert_eq!(graph.reachable_from_root(6), [true, true, true, false, false, false]);
        assert_eq!(StrongEdges::default().reachable_from_root(0), Vec::<bool>::new());
        assert_eq!(StrongEdges::default().reachable_from_root(2), [true, false]);
    }

    #[test]
    fn the_longest_chain_counts_objects_whichever_way_the_stream_orders_them() {
        // A chain written backwards: 0 -> 4 -> 3 -> 2 -> 1, plus a shortcut 0 -> 1.
        let chains = edges(&[(0, 1), (0, 4), (4, 3), (3, 2), (2, 1)]).chains(5);
        assert_eq!(chains.longest, 5);
        let position = |n: u32| chains.parents_first.iter().position(|&m| m == n).unwrap();
        for (from, to) in [(0, 1), (0, 4), (4, 3), (3, 2), (2, 1)] {
            assert!(position(from) < position(to), "{from} before {to}");
        }
        // A cycle is not followed around: 0 -> 1 -> 2 -> 0 is a chain of 3.
        assert_eq!(edges(&[(0, 1), (1, 2), (2, 0)]).chains(3).longest, 3);
        // A tree is as deep as its deepest branch; unconnected objects are chains of 1.
        assert_eq!(edges(&[(0, 1), (0, 2), (2, 3)]).chains(6).longest, 3);
        assert_eq!(StrongEdges::default().chains(0).longest, 0);
    }

    #[test]
    fn a_million_links_cost_no_stack() {
        let pairs: Vec<(usize, usize)> = (0..1_000_000).map(|n| (n + 1, n)).collect();
        let chains = edges(&pairs).chains(1_000_001);
        assert_eq!(chains.longest, 1_000_001);
        assert_eq!(chains.parents_first[0], 1_000_000);
    }
}
