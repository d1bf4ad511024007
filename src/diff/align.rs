//! Array alignment: which old element each new element is, as the longest common subsequence
//! of the two arrays under an equality the caller gives (element bytes, content, identity); and
//! what diff makes of an alignment (gaps, moves, plain elements and runs over them).

use super::patch::NONE;
use crate::plain::DYNAMIC_SIZE_PREFIX;
use std::ops::Range;

/// Most differences an alignment looks for (its memory grows with their square); past them, the
/// middle of the arrays counts as replaced.
const MAX_EDITS: usize = 2048;

/// For each of `new` elements, the index of the old element it matches, or `None` for an
/// element the old array lacks. Matches keep their order (a common subsequence); common leading
/// and trailing elements are matched first, so an edit near either end costs only its size.
pub(crate) fn align(old: usize, new: usize, mut same: impl FnMut(usize, usize) -> bool) -> Vec<Option<usize>> {
    let mut matched = vec![None; new];
    let mut head = 0;
    while head < old && head < new && same(head, head) {
        matched[head] = Some(head);
        head += 1;
    }
    let mut tail = 0;
    while tail < old - head && tail < new - head && same(old - 1 - tail, new - 1 - tail) {
        matched[new - 1 - tail] = Some(old - 1 - tail);
        tail += 1;
    }
    let (rows, cols) = (old - head - tail, new - head - tail);
    if rows > 0 && cols > 0 {
        let middle = myers(rows, cols, |i, j| same(head + i, head + j));
        for (i, j) in middle {
            matched[head + j] = Some(head + i);
        }
    }
    matched
}

/// Myers' O((N + M) D) longest common subsequence of `n` old and `m` new elements: the matched
/// pairs. Beyond [`MAX_EDITS`] differences, none (the middle counts as replaced).
fn myers(n: usize, m: usize, mut same: impl FnMut(usize, usize) -> bool) -> Vec<(usize, usize)> {
    let limit = (n + m).min(MAX_EDITS) as isize;
    let (n, m) = (n as isize, m as isize);
    let offset = limit + 1;
    let mut v = vec![0isize; 2 * limit as usize + 3];
    let mut trace: Vec<Vec<isize>> = Vec::new();
    for d in 0..=limit {
        trace.push(v.clone());
        for k in (-d..=d).step_by(2) {
            let at = (k + offset) as usize;
            let mut x = if k == -d || (k != d && v[at - 1] < v[at + 1]) { v[at + 1] } else { v[at - 1] + 1 };
            let mut y = x - k;
            while x < n && y < m && same(x as usize, y as usize) {
                x += 1;
                y += 1;
            }
            v[at] = x;
            if x >= n && y >= m {
                return backtrack(&trace, n, m, offset);
            }
        }
    }
    Vec::new()
}

/// The diagonal moves (matches) of the path Myers' search found, from the saved frontiers.
fn backtrack(trace: &[Vec<isize>], n: isize, m: isize, offset: isize) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    let (mut x, mut y) = (n, m);
    for (d, v) in trace.iter().enumerate().rev() {
        let d = d as isize;
        let k = x - y;
        let at = |k: isize| v[(k + offset) as usize];
        let previous = if d == 0 {
            (0, 0)
        } else {
            let k = if k == -d || (k != d && at(k - 1) < at(k + 1)) { k + 1 } else { k - 1 };
            (at(k), at(k) - k)
        };
        while x > previous.0.max(0) && y > previous.1.max(0) && (d == 0 || x - y == k) {
            x -= 1;
            y -= 1;
            pairs.push((x as usize, y as usize));
        }
        if d > 0 {
            (x, y) = previous;
        }
    }
    pairs
}

/// Which old elements `matched` uses.
pub(super) fn used(matched: &[Option<usize>], old: usize) -> Vec<bool> {
    let mut used = vec![false; old];
    for &i in matched.iter().flatten() {
        if let Some(slot) = used.get_mut(i) {
            *slot = true;
        }
    }
    used
}

/// Pairs the unmatched elements of each gap between matches, in order, where `kind` allows:
/// the same element, edited.
pub(super) fn fill_gaps(
    matched: &mut [Option<usize>],
    old: usize,
    kind: impl Fn(usize, usize) -> bool,
    allowed: impl Fn(usize, usize) -> bool,
) {
    let used = used(matched, old);
    let mut next_old = 0;
    let mut j = 0;
    while j < matched.len() {
        if let Some(i) = matched[j] {
            next_old = i + 1;
            j += 1;
            continue;
        }
        // The gap: new elements up to the next match, old ones up to its old index.
        let end = (j..matched.len()).find(|&k| matched[k].is_some()).unwrap_or(matched.len());
        let old_end = matched.get(end).copied().flatten().unwrap_or(old);
        let mut olds = (next_old..old_end.max(next_old)).filter(|&i| !used[i]).peekable();
        for (slot, matched) in matched.iter_mut().enumerate().take(end).skip(j) {
            if let Some(&i) = olds.peek() {
                if kind(i, slot) && allowed(i, slot) {
                    *matched = Some(i);
                    olds.next();
                }
            }
        }
        j = end;
    }
}

/// The ranges of `count` elements in `bytes` (static size, or each with its size prefix).
pub(crate) fn split(bytes: &[u8], count: usize, static_size: Option<u32>) -> Option<Vec<Range<usize>>> {
    // No more ranges than the bytes can hold: `count` may come from a patch.
    let most = match static_size {
        Some(0) => count,
        Some(size) => bytes.len() / size as usize,
        None => bytes.len() / DYNAMIC_SIZE_PREFIX,
    };
    if count > most {
        return None;
    }
    let mut out = Vec::with_capacity(count);
    let mut at = 0;
    for _ in 0..count {
        let size = match static_size {
            Some(size) => size as usize,
            None => u32::from_le_bytes(bytes.get(at..at + DYNAMIC_SIZE_PREFIX)?.try_into().ok()?) as usize,
        };
        let end = at.checked_add(size)?;
        if end > bytes.len() {
            return None;
        }
        out.push(at..end);
        at = end;
    }
    (at == bytes.len()).then_some(out)
}

/// A plain array as runs over the old one: `(start, len)` keeps old elements, `(NONE, len)`
/// takes new ones, whose bytes and count follow.
pub(super) fn runs(matched: &[Option<usize>], new: &[Range<usize>], bytes: &[u8]) -> (Vec<(u32, u32)>, u32, Vec<u8>) {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    let (mut count, mut inserted) = (0, Vec::new());
    for (j, m) in matched.iter().enumerate() {
        match (*m, runs.last_mut()) {
            (Some(i), Some((start, len))) if *start != NONE && *start + *len == i as u32 => *len += 1,
            (Some(i), _) => runs.push((i as u32, 1)),
            (None, last) => {
                inserted.extend_from_slice(&bytes[new[j].clone()]);
                count += 1;
                match last {
                    Some((NONE, len)) => *len += 1,
                    _ => runs.push((NONE, 1)),
                }
            }
        }
    }
    (runs, count, inserted)
}

#[cfg(test)]
mod tests {
    use super::align;

    fn run(old: &str, new: &str) -> Vec<Option<usize>> {
        let (old, new): (Vec<char>, Vec<char>) = (old.chars().collect(), new.chars().collect());
        align(old.len(), new.len(), |i, j| old[i] == new[j])
    }

    #[test]
    fn insertions_removals_and_moves_keep_the_rest_matched() {
        assert_eq!(run("abc", "abc"), [Some(0), Some(1), Some(2)]);
        assert_eq!(run("abc", "aXbc"), [Some(0), None, Some(1), Some(2)]);
        assert_eq!(run("abcd", "abd"), [Some(0), Some(1), Some(3)]);
        assert_eq!(run("abcd", "bcda"), [Some(1), Some(2), Some(3), None]);
        assert_eq!(run("", "ab"), [None, None]);
        assert_eq!(run("ab", ""), []);
        assert_eq!(run("axbycz", "abc"), [Some(0), Some(2), Some(4)]);
    }

    /// The length of a longest common subsequence, by the textbook table.
    fn lcs(old: &[u8], new: &[u8]) -> usize {
        let mut table = vec![vec![0; new.len() + 1]; old.len() + 1];
        for i in (0..old.len()).rev() {
            for j in (0..new.len()).rev() {
                table[i][j] =
                    if old[i] == new[j] { table[i + 1][j + 1] + 1 } else { table[i + 1][j].max(table[i][j + 1]) };
            }
        }
        table[0][0]
    }

    quickcheck::quickcheck! {
        fn the_alignment_is_a_longest_common_subsequence(old: Vec<u8>, new: Vec<u8>) -> bool {
            // Few distinct values, so that there is much to match.
            let (old, new): (Vec<u8>, Vec<u8>) = (old.iter().map(|b| b % 4).collect(), new.iter().map(|b| b % 4).collect());
            let matched = align(old.len(), new.len(), |i, j| old[i] == new[j]);
            let pairs: Vec<(usize, usize)> = matched.iter().enumerate().filter_map(|(j, m)| m.map(|i| (i, j))).collect();
            let ordered = pairs.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1);
            let equal = pairs.iter().all(|&(i, j)| old[i] == new[j]);
            ordered && equal && pairs.len() == lcs(&old, &new)
        }
    }
}
