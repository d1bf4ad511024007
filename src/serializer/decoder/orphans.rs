//! Which decoded objects the result holds strongly, worked out from the stream's own pointers.
//!
//! An object first reached through a `Weak` may end up held by nothing strong (an orphan), and
//! orphans in a cycle would leak. Walking the finished graph through RTTI finds them but costs a
//! second pass over every object; the decoder instead records each strong pointer it stores, as a
//! pair of instance indices, and searches that small integer graph.

/// Strong pointers stored while decoding: `(from, to)` instance indices (0 is the root). A
/// pointer inside an object embedded by value counts as its top-level object's.
#[derive(Default)]
pub(super) struct StrongEdges {
    edges: Vec<(u32, u32)>,
}

impl StrongEdges {
    pub(super) fn push(&mut self, from: usize, to: usize) {
        // Instance indices come from the stream's index, which holds fewer than 2^30 entries.
        self.edges.push((from as u32, to as u32));
    }

    /// For each of `count` instances, whether the root reaches it through strong pointers.
    pub(super) fn reachable_from_root(&self, count: usize) -> Vec<bool> {
        // Adjacency lists in one array (counting sort by source), then a depth-first search.
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
        let mut reached = vec![false; count];
        let mut stack = Vec::new();
        if count > 0 {
            reached[0] = true;
            stack.push(0u32);
        }
        while let Some(at) = stack.pop() {
            let (start, end) = (starts[at as usize] as usize, starts[at as usize + 1] as usize);
            for &to in &targets[start..end] {
                if !std::mem::replace(&mut reached[to as usize], true) {
                    stack.push(to);
                }
            }
        }
        reached
    }
}

#[cfg(test)]
mod tests {
    use super::StrongEdges;

    #[test]
    fn reachability_follows_edges_from_the_root_only() {
        let mut edges = StrongEdges::default();
        // 0 -> 1 -> 2 -> 1 (a cycle reached from the root); 3 <-> 4 (an unreached cycle); 5 -> 2.
        for (from, to) in [(0, 1), (1, 2), (2, 1), (3, 4), (4, 3), (5, 2)] {
            edges.push(from, to);
        }
        assert_eq!(edges.reachable_from_root(6), [true, true, true, false, false, false]);
        assert_eq!(StrongEdges::default().reachable_from_root(0), Vec::<bool>::new());
        assert_eq!(StrongEdges::default().reachable_from_root(2), [true, false]);
    }
}
