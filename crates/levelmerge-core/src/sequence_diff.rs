//! 2-way diff of two sequences at a cost that stays bounded however much they differ.
//!
//! Myers' diff, the smallest diff, costs the sequences' length times their difference: two
//! lists of 60,000 elements, each rewritten by one side, took minutes to merge. So a long
//! differing middle is first diffed coarsely: cut at the elements each sequence holds once,
//! kept in the order both hold them (as patience diff does: such an element can only pair with
//! itself), the stretches between these anchors diffed by Myers when short and counted as
//! replaced whole when long. That diff's size bounds the smallest one's, and so the cost of
//! Myers: where that cost is affordable, Myers' diff is taken after all, so that sequences
//! that differ in few places get the smallest diff at any length. Replaced whole is never
//! wrong, only coarser: a merge then sees one larger change, which it takes from the side
//! that made it, or marks as a conflict where both sides changed it.

use std::hash::Hash;
use std::ops::Range;

use rustc_hash::FxHashMap;
use similar::{capture_diff_slices, Algorithm, DiffOp};

/// Up to this many elements of the two together, a differing stretch is diffed by Myers
/// straight away: at worst about its square in steps (a millisecond).
const MYERS_LIMIT: usize = 1024;

/// Myers' diff is taken where its length times its difference is at most this many steps
/// (about ten milliseconds).
const MYERS_BUDGET: usize = 1 << 24;

/// The operations that turn `a` into `b`, in order, as [`similar`] gives them: Myers' smallest
/// diff wherever its cost is affordable, else the coarser diff the module describes.
pub fn diff_ops<T: Hash + Ord>(a: &[T], b: &[T]) -> Vec<DiffOp> {
    let (prefix, suffix) = common_ends(a, b);
    let middle = a.len() + b.len() - 2 * (prefix + suffix);
    if middle <= MYERS_LIMIT {
        return myers(a, b);
    }
    let coarse = anchored_ops(a, b, prefix, suffix);
    let differing: usize =
        coarse.iter().filter(|op| !matches!(op, DiffOp::Equal { .. })).map(|op| op.old_range().len() + op.new_range().len()).sum();
    if middle.saturating_mul(differing) <= MYERS_BUDGET {
        return myers(a, b);
    }
    coarse
}

/// Myers' diff as [`similar`] gives it, with the position on the other side that a deletion
/// or an insertion gives made true: similar 2.7 can give a deletion the position after a
/// later equal run (its issue 78), while its equal runs and lengths are right. Where the
/// operations still do not follow one another, the two's common ends and their middle
/// replaced whole are given instead, which is always true.
fn myers<T: Hash + Ord>(a: &[T], b: &[T]) -> Vec<DiffOp> {
    let mut ops = Ops::default();
    let (mut x, mut y) = (0, 0);
    for op in capture_diff_slices(Algorithm::Myers, a, b) {
        let op = match op {
            DiffOp::Delete { old_index, old_len, .. } => DiffOp::Delete { old_index, old_len, new_index: y },
            DiffOp::Insert { new_index, new_len, .. } => DiffOp::Insert { old_index: x, new_index, new_len },
            other => other,
        };
        let (ra, rb) = (op.old_range(), op.new_range());
        if (ra.start, rb.start) != (x, y) {
            let mut whole = Ops::default();
            whole.ends_and_replaced(a, b, 0..a.len(), 0..b.len());
            return whole.0;
        }
        ops.shifted(op, 0, 0);
        (x, y) = (ra.end, rb.end);
    }
    ops.0
}

/// The coarse diff of `a` and `b`, which share `prefix` elements at their starts and
/// `suffix` at their ends: the middle cut at anchors, each stretch between them diffed alone.
fn anchored_ops<T: Hash + Ord>(a: &[T], b: &[T], prefix: usize, suffix: usize) -> Vec<DiffOp> {
    let mut ops = Ops::default();
    ops.equal(0, 0, prefix);
    let (middle_a, middle_b) = (prefix..a.len() - suffix, prefix..b.len() - suffix);
    let (mut x, mut y) = (middle_a.start, middle_b.start);
    for (ax, by) in unique_anchors(&a[middle_a.clone()], &b[middle_b.clone()]) {
        let (ax, by) = (middle_a.start + ax, middle_b.start + by);
        ops.stretch(a, b, x..ax, y..by);
        ops.equal(ax, by, 1);
        (x, y) = (ax + 1, by + 1);
    }
    ops.stretch(a, b, x..middle_a.end, y..middle_b.end);
    ops.equal(a.len() - suffix, b.len() - suffix, suffix);
    ops.0
}

/// How many elements `a` and `b` share at their starts and, after those, at their ends.
fn common_ends<T: Eq>(a: &[T], b: &[T]) -> (usize, usize) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a_rest, b_rest) = (&a[prefix..], &b[prefix..]);
    let suffix = a_rest.iter().rev().zip(b_rest.iter().rev()).take_while(|(x, y)| x == y).count();
    (prefix, suffix)
}

/// Diff operations being gathered, equal runs that touch joined into one.
#[derive(Default)]
struct Ops(Vec<DiffOp>);

impl Ops {
    fn equal(&mut self, old_index: usize, new_index: usize, len: usize) {
        if len == 0 {
            return;
        }
        if let Some(DiffOp::Equal { old_index: o, new_index: n, len: l }) = self.0.last_mut() {
            if *o + *l == old_index && *n + *l == new_index {
                *l += len;
                return;
            }
        }
        self.0.push(DiffOp::Equal { old_index, new_index, len });
    }

    /// A stretch between anchors: Myers' diff when short, else its common ends and the rest
    /// replaced whole.
    fn stretch<T: Hash + Ord>(&mut self, a: &[T], b: &[T], ra: Range<usize>, rb: Range<usize>) {
        if ra.len() + rb.len() <= MYERS_LIMIT {
            for op in myers(&a[ra.clone()], &b[rb.clone()]) {
                self.shifted(op, ra.start, rb.start);
            }
            return;
        }
        self.ends_and_replaced(a, b, ra, rb);
    }

    /// `ra` of `a` and `rb` of `b`: their common ends equal, the rest replaced whole.
    fn ends_and_replaced<T: Eq>(&mut self, a: &[T], b: &[T], ra: Range<usize>, rb: Range<usize>) {
        let (prefix, suffix) = common_ends(&a[ra.clone()], &b[rb.clone()]);
        self.equal(ra.start, rb.start, prefix);
        self.replaced(ra.start + prefix..ra.end - suffix, rb.start + prefix..rb.end - suffix);
        self.equal(ra.end - suffix, rb.end - suffix, suffix);
    }

    /// `ra` of the old sequence replaced by `rb` of the new (either may be empty).
    fn replaced(&mut self, ra: Range<usize>, rb: Range<usize>) {
        let (old_index, old_len, new_index, new_len) = (ra.start, ra.len(), rb.start, rb.len());
        self.0.push(match (old_len, new_len) {
            (0, 0) => return,
            (_, 0) => DiffOp::Delete { old_index, old_len, new_index },
            (0, _) => DiffOp::Insert { old_index, new_index, new_len },
            _ => DiffOp::Replace { old_index, old_len, new_index, new_len },
        });
    }

    fn shifted(&mut self, op: DiffOp, da: usize, db: usize) {
        match op {
            DiffOp::Equal { old_index, new_index, len } => self.equal(old_index + da, new_index + db, len),
            DiffOp::Delete { old_index, old_len, new_index } => {
                self.0.push(DiffOp::Delete { old_index: old_index + da, old_len, new_index: new_index + db })
            }
            DiffOp::Insert { old_index, new_index, new_len } => {
                self.0.push(DiffOp::Insert { old_index: old_index + da, new_index: new_index + db, new_len })
            }
            DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                self.0.push(DiffOp::Replace { old_index: old_index + da, old_len, new_index: new_index + db, new_len })
            }
        }
    }
}

/// Pairs `(x, y)` with `a[x] == b[y]` an element each holds once, the longest chain of them
/// in the same order in both (ascending in both `x` and `y`).
fn unique_anchors<T: Hash + Eq>(a: &[T], b: &[T]) -> Vec<(usize, usize)> {
    // Per element: how often `a` and `b` hold it (counting to 2), and where.
    let mut seen: FxHashMap<&T, (u8, u8, usize, usize)> = FxHashMap::default();
    seen.reserve(a.len());
    for (x, e) in a.iter().enumerate() {
        let s = seen.entry(e).or_insert((0, 0, x, 0));
        s.0 = (s.0 + 1).min(2);
    }
    for (y, e) in b.iter().enumerate() {
        if let Some(s) = seen.get_mut(e) {
            s.1 = (s.1 + 1).min(2);
            s.3 = y;
        }
    }
    let mut pairs: Vec<(usize, usize)> = seen.into_values().filter(|s| s.0 == 1 && s.1 == 1).map(|s| (s.2, s.3)).collect();
    pairs.sort_unstable();
    longest_ascending_chain(&pairs)
}

/// The longest subsequence of `pairs` (sorted by their first member) whose second members
/// ascend too: patience sorting, with each pile's top and each pair's predecessor.
fn longest_ascending_chain(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut tops: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = Vec::with_capacity(pairs.len());
    for (i, &(_, y)) in pairs.iter().enumerate() {
        let pile = tops.partition_point(|&t| pairs[t].1 < y);
        before.push(pile.checked_sub(1).map(|p| tops[p]));
        if pile == tops.len() {
            tops.push(i);
        } else {
            tops[pile] = i;
        }
    }
    let mut chain = Vec::with_capacity(tops.len());
    let mut at = tops.last().copied();
    while let Some(i) = at {
        chain.push(pairs[i]);
        at = before[i];
    }
    chain.reverse();
    chain
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies `ops` to `a` taking inserted elements from `b`, checking that every equal run
    /// pairs equal elements and that the operations cover both sequences in order.
    fn apply(ops: &[DiffOp], a: &[u64], b: &[u64]) -> Vec<u64> {
        let (mut x, mut y) = (0, 0);
        let mut out = Vec::new();
        for op in ops {
            let (ra, rb) = (op.old_range(), op.new_range());
            assert_eq!((ra.start, rb.start), (x, y), "operations in order, with no gaps");
            if let DiffOp::Equal { .. } = op {
                assert_eq!(a[ra.clone()], b[rb.clone()]);
            }
            out.extend_from_slice(&b[rb.clone()]);
            (x, y) = (ra.end, rb.end);
        }
        assert_eq!((x, y), (a.len(), b.len()), "both sequences covered");
        out
    }

    fn equal_count(ops: &[DiffOp]) -> usize {
        ops.iter().map(|op| if let DiffOp::Equal { len, .. } = op { *len } else { 0 }).sum()
    }

    #[test]
    fn short_sequences_get_myers_smallest_diff() {
        let a: Vec<u64> = vec![1, 2, 3, 4, 5, 6, 7];
        let b: Vec<u64> = vec![1, 9, 3, 4, 6, 7, 8];
        assert_eq!(diff_ops(&a, &b), capture_diff_slices(Algorithm::Myers, &a, &b));
    }

    #[test]
    fn deletions_and_insertions_are_placed_where_they_happen() {
        // similar 2.7 gives this deletion the position 4 on the new side (its issue 78).
        let (a, b): (Vec<u64>, Vec<u64>) = (vec![1, 1, 0, 2], vec![2, 1, 0, 0, 0, 0]);
        let ops = diff_ops(&a, &b);
        assert_eq!(apply(&ops, &a, &b), b);
        assert!(ops.contains(&DiffOp::Delete { old_index: 1, old_len: 1, new_index: 2 }), "{ops:?}");
    }

    #[test]
    fn long_sequences_rewritten_throughout_are_diffed_fast_and_soundly() {
        // Distinct values on every side: nothing to pair but the common ends.
        let a: Vec<u64> = (0..200_000).collect();
        let mut b: Vec<u64> = (1_000_000..1_200_001).collect();
        b[0] = 0;
        // (Myers' diff of these takes minutes.)
        let ops = diff_ops(&a, &b);
        assert_eq!(apply(&ops, &a, &b), b);
        assert_eq!(equal_count(&ops), 1);
    }

    #[test]
    fn long_sequences_with_scattered_edits_keep_every_unchanged_element_paired() {
        let a: Vec<u64> = (0..50_000).collect();
        let mut b = a.clone();
        // Every 7th element rewritten, some removed and some inserted: a middle far longer
        // than Myers is given.
        for i in (0..50_000).step_by(7) {
            b[i] = 1_000_000 + i as u64;
        }
        b.retain(|&e| e % 1000 != 500);
        b.splice(25_000..25_000, 2_000_000..2_000_300);
        let ops = diff_ops(&a, &b);
        assert_eq!(apply(&ops, &a, &b), b);
        let kept = a.iter().filter(|&&e| e % 7 != 0 && e % 1000 != 500).count();
        assert_eq!(equal_count(&ops), kept, "every element both hold is paired");
    }

    #[test]
    fn repeated_elements_between_anchors_are_diffed_where_short_and_replaced_where_long() {
        // A long run of one repeated value on each side (no element to anchor on), with
        // unique elements around it.
        let mut a: Vec<u64> = (0..100).collect();
        a.extend(std::iter::repeat_n(7_000, 6_000));
        a.extend(100..200);
        let mut b: Vec<u64> = (0..100).collect();
        b.push(5_000);
        b.extend(std::iter::repeat_n(7_000, 5_000));
        b.extend(100..200);
        b.insert(150, 6_000);
        let ops = diff_ops(&a, &b);
        assert_eq!(apply(&ops, &a, &b), b);
        // The long stretch of repeats before the anchors is too long for Myers: its common
        // ends are paired (5,000 repeats), the rest replaced. Here that is the smallest diff.
        assert_eq!(equal_count(&ops), 100 + 5_000 + 50 + 50);
    }

    #[test]
    fn the_longest_ascending_chain_is_found() {
        let pairs = [(0, 4), (1, 1), (2, 2), (3, 9), (4, 3), (5, 0), (6, 5)];
        assert_eq!(longest_ascending_chain(&pairs), [(1, 1), (2, 2), (4, 3), (6, 5)]);
        assert_eq!(longest_ascending_chain(&[]), []);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]

        /// Long sequences (past the length Myers is given at once), edited at random places,
        /// over alphabets from mostly repeated elements to mostly unique ones: the operations
        /// always turn one into the other, pairing only equal elements.
        #[test]
        fn every_diff_is_a_true_edit_script(
            len in 600usize..2_500,
            alphabet in proptest::sample::select(vec![3u64, 50, 1_000, 1_000_000]),
            seed in proptest::prelude::any::<u64>(),
            edits in 0usize..400,
        ) {
            let mut state = seed | 1;
            let mut next = move || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let a: Vec<u64> = (0..len).map(|_| next() % alphabet).collect();
            let mut b = a.clone();
            for _ in 0..edits {
                let at = (next() as usize) % (b.len() + 1);
                match next() % 3 {
                    0 if at < b.len() => { b.remove(at); }
                    1 => b.insert(at, next() % alphabet),
                    _ if at < b.len() => b[at] = next() % alphabet,
                    _ => {}
                }
            }
            let ops = diff_ops(&a, &b);
            proptest::prop_assert_eq!(apply(&ops, &a, &b), b.clone());
            let reverse = diff_ops(&b, &a);
            proptest::prop_assert_eq!(apply(&reverse, &b, &a), a);
        }
    }

    #[test]
    fn identical_and_empty_sequences() {
        let a: Vec<u64> = (0..10_000).collect();
        assert_eq!(diff_ops(&a, &a), [DiffOp::Equal { old_index: 0, new_index: 0, len: 10_000 }]);
        assert_eq!(apply(&diff_ops(&a, &[]), &a, &[]), Vec::<u64>::new());
        assert_eq!(apply(&diff_ops(&[], &a), &[], &a), a);
    }
}
