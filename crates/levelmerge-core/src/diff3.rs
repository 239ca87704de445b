//! diff3 over any sequence of hashed elements: lines of text or elements of a list.
//!
//! Elements are compared by a 64-bit hash the caller computes (a line's bytes, a value's
//! semantic hash). Two 2-way diffs (base→ours, base→theirs) give the stretches that both
//! sides keep; between them lie the changed stretches, each taken from the side that changed
//! it, or a conflict when both changed it differently.

use std::ops::Range;

use similar::{capture_diff_slices, Algorithm, DiffOp};

use crate::sequence_diff::diff_ops;

/// One stretch of the merged sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chunk {
    /// Kept by both sides: the same elements in all three.
    Stable { base: Range<usize>, ours: Range<usize>, theirs: Range<usize> },
    /// Changed by one side or by both in the same way: take `take` from that side.
    Changed { base: Range<usize>, ours: Range<usize>, theirs: Range<usize>, take: Take },
    /// Both sides changed the same stretch differently.
    Conflict { base: Range<usize>, ours: Range<usize>, theirs: Range<usize> },
}

/// Which side a cleanly changed chunk comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Take {
    Ours,
    Theirs,
    /// Both sides made the same change; ours is taken.
    Both,
}

/// For each element of `a`, the index of the equal element of `b` the diff aligned it with.
fn alignment(a: &[u64], b: &[u64]) -> Vec<Option<usize>> {
    let mut map = vec![None; a.len()];
    for op in diff_ops(a, b) {
        if let DiffOp::Equal { old_index, new_index, len } = op {
            for i in 0..len {
                map[old_index + i] = Some(new_index + i);
            }
        }
    }
    map
}

/// 2-way diff: stretches of `a` and `b` that differ, in order.
pub fn changed_stretches(a: &[u64], b: &[u64]) -> Vec<(Range<usize>, Range<usize>)> {
    diff_ops(a, b)
        .into_iter()
        .filter_map(|op| match op {
            DiffOp::Equal { .. } => None,
            DiffOp::Delete { old_index, old_len, new_index } => Some((old_index..old_index + old_len, new_index..new_index)),
            DiffOp::Insert { old_index, new_index, new_len } => Some((old_index..old_index, new_index..new_index + new_len)),
            DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                Some((old_index..old_index + old_len, new_index..new_index + new_len))
            }
        })
        .fold(Vec::new(), |mut acc: Vec<(Range<usize>, Range<usize>)>, (x, y)| {
            // Adjacent stretches (a delete next to an insert) form one.
            if let Some(last) = acc.last_mut() {
                if last.0.end == x.start && last.1.end == y.start {
                    last.0.end = x.end;
                    last.1.end = y.end;
                    return acc;
                }
            }
            acc.push((x, y));
            acc
        })
}

/// Merge three sequences of element hashes.
pub fn diff3(base: &[u64], ours: &[u64], theirs: &[u64]) -> Vec<Chunk> {
    chunks(base, ours, theirs, &alignment(base, ours), &alignment(base, theirs))
}

/// [`diff3`] for long sequences that differ in few places: each side is aligned with base by
/// walking their equal stretches and diffing only a window after each difference, grown until
/// the two are back in step (`windowed_alignment`). The alignment may be less than the
/// smallest diff's where a window cut a change short; what it pairs is always equal.
pub fn diff3_windowed(base: &[u64], ours: &[u64], theirs: &[u64]) -> Vec<Chunk> {
    chunks(base, ours, theirs, &windowed_alignment(base, ours), &windowed_alignment(base, theirs))
}

/// Equal elements in a row that put two sequences back in step after a difference.
const RESYNC: usize = 3;

/// From this window size on, the windows are put back in step at a line each holds once
/// ([`unique_resync`]) instead of by a diff: a diff of two windows that differ throughout
/// costs their length times their difference (a region of 2,500 lines rewritten as 5,000 took
/// 25 ms of a 45 ms merge).
const UNIQUE_FROM: usize = 1024;

/// For each element of `a`, the equal element of `b` it is paired with: equal stretches are
/// walked, and after a difference a window of 64 elements of each (then 256, 1,024, …) is diffed
/// until it shows `RESYNC` equal elements in a row (from [`UNIQUE_FROM`] on: until they hold
/// such a row that starts with an element each window holds once).
pub(crate) fn windowed_alignment(a: &[u64], b: &[u64]) -> Vec<Option<usize>> {
    let mut map = vec![None; a.len()];
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            map[i] = Some(j);
            i += 1;
            j += 1;
            continue;
        }
        let mut window = 64;
        loop {
            let (a_end, b_end) = ((i + window).min(a.len()), (j + window).min(b.len()));
            let whole = a_end == a.len() && b_end == b.len();
            let back_in_step = if window >= UNIQUE_FROM {
                unique_resync(&a[i..a_end], &b[j..b_end])
            } else {
                capture_diff_slices(Algorithm::Myers, &a[i..a_end], &b[j..b_end]).into_iter().find_map(|op| match op {
                    DiffOp::Equal { old_index, new_index, len } if len >= RESYNC || whole => Some((old_index, new_index)),
                    _ => None,
                })
            };
            match back_in_step {
                Some((x, y)) => {
                    i += x;
                    j += y;
                    break;
                }
                None if whole => return map,
                None => window *= 4,
            }
        }
    }
    map
}

/// Where `a` and `b` are back in step nearest their starts (least `x + y`): an element each
/// holds once, at `a[x]` and `b[y]`, followed by equal elements up to `RESYNC` in a row (or to
/// an end). An element held once on each side can only be paired with itself, so the pairing
/// never crosses a moved copy of repeated lines. `None` when there is no such place.
fn unique_resync(a: &[u64], b: &[u64]) -> Option<(usize, usize)> {
    // Per element: how often `a` and `b` hold it (counting to 2), and where `b` holds it.
    let mut seen: rustc_hash::FxHashMap<u64, (u8, u8, usize)> = rustc_hash::FxHashMap::default();
    seen.reserve(b.len());
    for (y, h) in b.iter().enumerate() {
        let e = seen.entry(*h).or_insert((0, 0, y));
        e.1 = (e.1 + 1).min(2);
    }
    for h in a {
        if let Some(e) = seen.get_mut(h) {
            e.0 = (e.0 + 1).min(2);
        }
    }
    let in_step = |x: usize, y: usize| a[x..].iter().zip(&b[y..]).take(RESYNC).take_while(|(p, q)| p == q).count();
    let run_needed = |x: usize, y: usize| RESYNC.min(a.len() - x).min(b.len() - y);
    a.iter()
        .enumerate()
        .filter_map(|(x, h)| match seen.get(h) {
            Some(&(1, 1, y)) if in_step(x, y) >= run_needed(x, y) => Some((x, y)),
            _ => None,
        })
        .min_by_key(|&(x, y)| x + y)
}

fn chunks(base: &[u64], ours: &[u64], theirs: &[u64], to_ours: &[Option<usize>], to_theirs: &[Option<usize>]) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let (mut b, mut o, mut t) = (0usize, 0usize, 0usize);
    loop {
        // A stable run: base elements aligned with the current positions of both sides.
        let start = (b, o, t);
        while b < base.len() && to_ours[b] == Some(o) && to_theirs[b] == Some(t) {
            b += 1;
            o += 1;
            t += 1;
        }
        if b > start.0 {
            chunks.push(Chunk::Stable { base: start.0..b, ours: start.1..o, theirs: start.2..t });
        }
        if b == base.len() && o == ours.len() && t == theirs.len() {
            break;
        }
        // The next base element that both sides kept closes the unstable stretch.
        let sync = (b..base.len()).find(|&k| to_ours[k].is_some() && to_theirs[k].is_some());
        let (nb, no, nt) = match sync {
            Some(k) => (k, to_ours[k].expect("checked"), to_theirs[k].expect("checked")),
            None => (base.len(), ours.len(), theirs.len()),
        };
        let (br, or, tr) = (b..nb, o..no, t..nt);
        let ours_same = base[br.clone()] == ours[or.clone()];
        let theirs_same = base[br.clone()] == theirs[tr.clone()];
        let chunk = if ours_same && theirs_same {
            Chunk::Stable { base: br, ours: or, theirs: tr }
        } else if ours_same {
            Chunk::Changed { base: br, ours: or, theirs: tr, take: Take::Theirs }
        } else if theirs_same {
            Chunk::Changed { base: br, ours: or, theirs: tr, take: Take::Ours }
        } else if ours[or.clone()] == theirs[tr.clone()] {
            Chunk::Changed { base: br, ours: or, theirs: tr, take: Take::Both }
        } else {
            Chunk::Conflict { base: br, ours: or, theirs: tr }
        };
        chunks.push(chunk);
        b = nb;
        o = no;
        t = nt;
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_windowed_alignment_pairs_equal_elements_in_order_and_finds_far_resyncs() {
        let base: Vec<u64> = (0..5000).collect();
        let mut side = base.clone();
        side[10] = 99_999; // a change
        side.splice(2000..2000, 100_000..103_000); // a long insertion, past the first windows
        side.remove(7000); // a removal: base element 4000
        let map = windowed_alignment(&base, &side);
        let mut last = None;
        for (i, j) in map.iter().enumerate().filter_map(|(i, j)| j.map(|j| (i, j))) {
            assert_eq!(base[i], side[j]);
            assert!(last.is_none_or(|l| l < j), "in order");
            last = Some(j);
        }
        let unpaired: Vec<usize> = map.iter().enumerate().filter(|(_, j)| j.is_none()).map(|(i, _)| i).collect();
        assert_eq!(unpaired, [10, 4000], "all else is paired, beyond the insertion too");
        // Chunks over it are diff3's.
        let chunks = diff3_windowed(&base, &side, &base);
        assert!(chunks.iter().all(|c| !matches!(c, Chunk::Conflict { .. })));
    }

    #[test]
    fn big_windows_resync_at_the_nearest_element_each_holds_once() {
        // 7 and 8 are held twice by `b`; 5 once by each, with two more equal after it.
        let a = [1, 2, 7, 8, 5, 6, 4];
        let b = [9, 7, 8, 9, 7, 8, 3, 5, 6, 4];
        assert_eq!(unique_resync(&a, &b), Some((4, 7)));
        // Equal only for a row shorter than RESYNC, short of an end: no resync there.
        assert_eq!(unique_resync(&[5, 6, 1, 2], &[5, 6, 3, 4]), None);
        // Up to an end is enough.
        assert_eq!(unique_resync(&[0, 5, 6], &[1, 2, 5, 6]), Some((1, 2)));
        // Only repeated elements: nothing to anchor on.
        assert_eq!(unique_resync(&[7, 7, 7], &[7, 7, 7, 7]), None);
    }

    #[test]
    fn a_rewritten_region_longer_than_the_diffed_windows_is_stepped_over() {
        // Base's elements 2,000..4,500 rewritten as 5,000 new ones: past every window that is
        // diffed, so the unique elements after it put the two back in step.
        let base: Vec<u64> = (0..6000).collect();
        let mut side = base.clone();
        side.splice(2000..4500, 100_000..105_000);
        let map = windowed_alignment(&base, &side);
        assert!((0..2000).all(|i| map[i] == Some(i)));
        assert!((2000..4500).all(|i| map[i].is_none()));
        assert!((4500..6000).all(|i| map[i] == Some(i + 2500)));
    }

    fn h(s: &str) -> Vec<u64> {
        s.bytes().map(u64::from).collect()
    }

    fn merged(b: &str, o: &str, t: &str) -> Result<String, usize> {
        let (bh, oh, th) = (h(b), h(o), h(t));
        let mut out = String::new();
        let mut conflicts = 0;
        for c in diff3(&bh, &oh, &th) {
            match c {
                Chunk::Stable { ours, .. } => out.push_str(&o[ours]),
                Chunk::Changed { ours, theirs, take, .. } => match take {
                    Take::Theirs => out.push_str(&t[theirs]),
                    _ => out.push_str(&o[ours]),
                },
                Chunk::Conflict { .. } => conflicts += 1,
            }
        }
        if conflicts > 0 {
            Err(conflicts)
        } else {
            Ok(out)
        }
    }

    #[test]
    fn laws() {
        assert_eq!(merged("abc", "abc", "abc"), Ok("abc".into()));
        assert_eq!(merged("abc", "xbc", "abc"), Ok("xbc".into()));
        assert_eq!(merged("abc", "abc", "abx"), Ok("abx".into()));
        assert_eq!(merged("abc", "xbc", "xbc"), Ok("xbc".into()));
    }

    #[test]
    fn disjoint_changes_merge() {
        assert_eq!(merged("abcde", "Xbcde", "abcdY"), Ok("XbcdY".into()));
        assert_eq!(merged("abcde", "abde", "abcdeF"), Ok("abdeF".into()));
    }

    #[test]
    fn overlapping_changes_conflict() {
        assert_eq!(merged("abc", "aXc", "aYc"), Err(1));
        assert_eq!(merged("", "x", "y"), Err(1));
    }

    #[test]
    fn stretches() {
        assert_eq!(changed_stretches(&h("abc"), &h("aXc")), vec![(1..2, 1..2)]);
        assert_eq!(changed_stretches(&h("abc"), &h("abc")), vec![]);
    }
}
