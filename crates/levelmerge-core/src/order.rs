//! 3-way merge of the order of identity lists (map keys, child slots, keyed list elements).
//!
//! Which elements belong in the result is decided by the caller; this module only decides where
//! they go. The base order is kept unless a side reordered; when both did, each pair of elements
//! keeps the order of the side that changed it, or each side's moved elements go where it put
//! them; where the moves clash, the reading of them nearest ours' order is taken (ours' order
//! itself when none makes sense), which is reported as a clash; an element inserted by one
//! side goes after the element that precedes it on that side; when both sides insert at the same
//! place, ours come first, whichever side supplies the skeleton.

use std::hash::Hash;

use rustc_hash::{FxHashMap, FxHashSet};

/// The merged order, and whether both sides reordered the shared elements differently (in which
/// case the order nearest ours' was used and the caller may report it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergedOrder<K> {
    pub order: Vec<K>,
    pub reorder_clash: bool,
    /// Where the moves clashed and were settled nearest ours' order: pairs whose order that
    /// settled (each as merged; the first 64).
    pub disputed: Vec<(K, K)>,
}

/// Whether `side` changed the relative order of the elements it shares with `base`:
/// the base positions of its elements, in its order, must rise.
fn reordered<K: Eq + Hash>(base_pos: &FxHashMap<&K, usize>, side: &[K]) -> bool {
    let mut last = None;
    for k in side {
        if let Some(&p) = base_pos.get(k) {
            if last.is_some_and(|l| p < l) {
                return true;
            }
            last = Some(p);
        }
    }
    false
}

/// Pairs of elements (whose order the sides' moves disputed).
type Pairs<K> = Vec<(K, K)>;

/// Longest list whose moves are reconciled pair by pair (the check is quadratic).
const RECONCILE_LIMIT: usize = 512;

/// Both sides moved elements: each pair of shared elements keeps the relative order of the side
/// that changed it (both sides changing it the same way is agreement), or, where those choices
/// are cyclic, each side's moved elements go where that side put them ([`moved_apart`]). When
/// that gives one consistent order, returns ours rearranged to it, each of ours' own elements
/// staying right after the element it follows, and the pairs whose order the moves disputed,
/// settled nearest ours' order; `None` when they clash beyond that.
fn reconcile_moves<K: Eq + Hash + Clone>(base_pos: &FxHashMap<&K, usize>, ours: &[K], theirs: &[K]) -> Option<(Vec<K>, Pairs<K>)> {
    let theirs_pos: FxHashMap<&K, usize> = theirs.iter().enumerate().map(|(i, k)| (k, i)).collect();
    let shared: Vec<&K> = ours.iter().filter(|k| base_pos.contains_key(k) && theirs_pos.contains_key(k)).collect();
    if shared.len() > RECONCILE_LIMIT {
        return None;
    }
    let in_shared: FxHashSet<&K> = shared.iter().copied().collect();
    let theirs_shared: Vec<&K> = theirs.iter().filter(|k| in_shared.contains(k)).collect();
    let (order, disputed) = pairwise(base_pos, &shared, &theirs_pos)
        .map(|order| (order, Vec::new()))
        .or_else(|| moved_apart(base_pos, &shared, &theirs_shared))?;
    // Ours' own elements travel with the shared element they follow.
    let mut groups: FxHashMap<&K, Vec<K>> = FxHashMap::default();
    let mut lead = Vec::new();
    let mut current: Option<&K> = None;
    for k in ours {
        if base_pos.contains_key(k) && theirs_pos.contains_key(k) {
            current = Some(k);
            groups.entry(k).or_default().push(k.clone());
        } else {
            match current {
                Some(c) => groups.entry(c).or_default().push(k.clone()),
                None => lead.push(k.clone()),
            }
        }
    }
    let disputed = disputed.into_iter().map(|(a, b)| (a.clone(), b.clone())).collect();
    Some((lead.into_iter().chain(order.iter().flat_map(|k| groups.remove(k).unwrap_or_default())).collect(), disputed))
}

/// The shared elements (`shared`, in ours' order) in the order where each pair keeps the
/// relative order of the side that changed it; `None` when a pair was changed both ways or the
/// choices are cyclic.
fn pairwise<'k, K: Eq + Hash>(base_pos: &FxHashMap<&K, usize>, shared: &[&'k K], theirs_pos: &FxHashMap<&K, usize>) -> Option<Vec<&'k K>> {
    // `shared` is in ours' order: its index is ours' relative order.
    let ours_pos: FxHashMap<&K, usize> = shared.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    // Whether `x` goes before `y` in the merged order, or None when the sides disagree.
    let before = |x: &K, y: &K| {
        let in_base = base_pos[x] < base_pos[y];
        let in_ours = ours_pos[x] < ours_pos[y];
        let in_theirs = theirs_pos[x] < theirs_pos[y];
        match (in_ours != in_base, in_theirs != in_base) {
            (true, true) if in_ours != in_theirs => None,
            (true, _) => Some(in_ours),
            (false, _) => Some(in_theirs),
        }
    };
    // Each element's count of elements it goes before: the pairwise choices form one order
    // exactly when these counts are all different (a tournament is transitive iff its scores
    // are 0..n), and sorting by them gives that order.
    let mut wins = vec![0usize; shared.len()];
    for (i, x) in shared.iter().enumerate() {
        for (j, y) in shared.iter().enumerate().skip(i + 1) {
            if before(x, y)? {
                wins[i] += 1;
            } else {
                wins[j] += 1;
            }
        }
    }
    let mut seen = vec![false; shared.len()];
    for &w in &wins {
        if std::mem::replace(&mut seen[w], true) {
            return None; // the choices are cyclic
        }
    }
    let mut order: Vec<(usize, &K)> = wins.into_iter().zip(shared.iter().copied()).collect();
    order.sort_unstable_by_key(|(wins, _)| std::cmp::Reverse(*wins));
    Some(order.into_iter().map(|(_, k)| k).collect())
}

/// Where pairwise choices are cyclic, two sides that each moved other elements: ours moves
/// `c` from after `a` to the end, theirs moves `b` (after `c` in base) to the end too; that
/// `b` now follows `c` on ours only because `c` left. A side's moved elements are those out of
/// a longest run of its elements in base order; when no element is moved by both sides, the
/// elements neither moved keep base's order and each moved one goes right after the element
/// before it on its side that the other side did not move (ours first where both place one
/// after the same element). A side may have several longest runs (`c` moved before `d`, or
/// `d` after `c`): every reading of the two sides that moves no element twice should give the
/// same order; where they differ the moves clash (a swap of two neighbours on one side, of one
/// of them with a third on the other), and the reading nearest ours' order is taken (returned
/// with the pairs whose order that settled). `None` when every reading moves some element on
/// both sides. `shared` is in ours' order, `theirs_shared` in theirs'.
fn moved_apart<'k, K: Eq + Hash>(
    base_pos: &FxHashMap<&K, usize>,
    shared: &[&'k K],
    theirs_shared: &[&'k K],
) -> Option<(Vec<&'k K>, Pairs<&'k K>)> {
    let ours_readings = moved_out_of_longest_runs(base_pos, shared)?;
    let theirs_readings = moved_out_of_longest_runs(base_pos, theirs_shared)?;
    let mut found: Vec<Vec<&K>> = Vec::new();
    for ours_moved in &ours_readings {
        for theirs_moved in theirs_readings.iter().filter(|t| !t.iter().any(|k| ours_moved.contains(k))) {
            let order = order_of_moves(base_pos, shared, theirs_shared, ours_moved, theirs_moved);
            if !found.contains(&order) {
                found.push(order);
            }
        }
    }
    match found.len() {
        0 => None,
        1 => found.pop().map(|order| (order, Vec::new())),
        // The readings disagree on where some elements go: a clash, settled by the reading
        // nearest ours' order, which still makes every move of either side no reading
        // disputes (a node the other side moved under a new parent goes after it).
        _ => {
            let ours_at: FxHashMap<&K, usize> = shared.iter().enumerate().map(|(i, k)| (*k, i)).collect();
            let distance = |order: &Vec<&K>| inversions(&order.iter().map(|k| ours_at[*k]).collect::<Vec<_>>());
            let nearest = found.iter().min_by_key(|order| distance(order))?;
            Some((nearest.clone(), disputed_pairs(nearest, &found)))
        }
    }
}

/// Most pairs [`disputed_pairs`] lists.
const DISPUTED_LIMIT: usize = 64;

/// Pairs of elements, each in `chosen`'s order, that another of `orders` puts the other way
/// round (up to [`DISPUTED_LIMIT`], the first first).
fn disputed_pairs<'k, K: Eq + Hash>(chosen: &[&'k K], orders: &[Vec<&'k K>]) -> Pairs<&'k K> {
    let index: FxHashMap<&K, usize> = chosen.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    // Where each other order puts each of `chosen`'s elements.
    let places: Vec<Vec<usize>> = orders
        .iter()
        .filter(|o| o.as_slice() != chosen)
        .map(|o| {
            let mut at = vec![0; chosen.len()];
            for (p, k) in o.iter().enumerate() {
                at[index[k]] = p;
            }
            at
        })
        .collect();
    let mut pairs = Vec::new();
    for i in 0..chosen.len() {
        for j in i + 1..chosen.len() {
            if places.iter().any(|at| at[j] < at[i]) {
                pairs.push((chosen[i], chosen[j]));
                if pairs.len() == DISPUTED_LIMIT {
                    return pairs;
                }
            }
        }
    }
    pairs
}

/// The number of pairs out of order in a permutation of `0..n` (a Fenwick tree's count of the
/// larger values seen before each).
fn inversions(permutation: &[usize]) -> usize {
    let n = permutation.len();
    let mut tree = vec![0usize; n + 1];
    let mut count = 0;
    for (seen, &v) in permutation.iter().enumerate() {
        let mut at = v + 1;
        let mut not_larger = 0;
        while at > 0 {
            not_larger += tree[at];
            at &= at - 1;
        }
        count += seen - not_larger;
        let mut at = v + 1;
        while at <= n {
            tree[at] += 1;
            at += at & at.wrapping_neg();
        }
    }
    count
}

/// The order [`moved_apart`] gives for one reading of which elements each side moved.
fn order_of_moves<'k, K: Eq + Hash>(
    base_pos: &FxHashMap<&K, usize>,
    shared: &[&'k K],
    theirs_shared: &[&'k K],
    ours_moved: &FxHashSet<&'k K>,
    theirs_moved: &FxHashSet<&'k K>,
) -> Vec<&'k K> {
    let mut after: FxHashMap<Option<&K>, Vec<&K>> = FxHashMap::default();
    for (list, moved, other_moved) in [(shared, ours_moved, theirs_moved), (theirs_shared, theirs_moved, ours_moved)] {
        let mut anchor: Option<&K> = None;
        for &k in list {
            if moved.contains(k) {
                after.entry(anchor).or_default().push(k);
            }
            if !other_moved.contains(k) {
                anchor = Some(k);
            }
        }
    }
    let mut stable: Vec<&K> = shared.iter().copied().filter(|k| !ours_moved.contains(k) && !theirs_moved.contains(k)).collect();
    stable.sort_unstable_by_key(|k| base_pos[k]);
    let mut order = Vec::with_capacity(shared.len());
    laid_out(stable, &after, |k| order.push(k));
    order
}

/// Most readings of a side's moves weighed ([`moved_apart`]); beyond, the moves clash.
const READINGS_LIMIT: usize = 16;

/// For each longest subsequence of `list` (all in base) in base order, the elements outside
/// it; `None` when there are more than [`READINGS_LIMIT`] such subsequences.
fn moved_out_of_longest_runs<'k, K: Eq + Hash>(base_pos: &FxHashMap<&K, usize>, list: &[&'k K]) -> Option<Vec<FxHashSet<&'k K>>> {
    let at: Vec<usize> = list.iter().map(|k| base_pos[k]).collect();
    let n = at.len();
    // The longest rising runs ending at, and starting from, each element (quadratic: the
    // lists reconciled are short).
    let mut ending = vec![1usize; n];
    for i in 0..n {
        for j in 0..i {
            if at[j] < at[i] {
                ending[i] = ending[i].max(ending[j] + 1);
            }
        }
    }
    let mut starting = vec![1usize; n];
    for i in (0..n).rev() {
        for j in i + 1..n {
            if at[i] < at[j] {
                starting[i] = starting[i].max(starting[j] + 1);
            }
        }
    }
    let longest = ending.iter().copied().max().unwrap_or(0);
    // Elements on some longest run: the runs through them reach that length. A run takes one
    // of them at each step, rising.
    let on_one: Vec<usize> = (0..n).filter(|&i| ending[i] + starting[i] - 1 == longest).collect();
    let mut runs: Vec<Vec<usize>> = Vec::new();
    let mut partial: Vec<Vec<usize>> = vec![Vec::new()];
    while let Some(run) = partial.pop() {
        if run.len() == longest {
            runs.push(run);
            if runs.len() > READINGS_LIMIT {
                return None;
            }
            continue;
        }
        for &i in on_one.iter().rev() {
            let next_step = ending[i] == run.len() + 1;
            let rising = run.last().is_none_or(|&l| l < i && at[l] < at[i]);
            if next_step && rising {
                let mut longer = run.clone();
                longer.push(i);
                partial.push(longer);
            }
        }
        if partial.len() > READINGS_LIMIT * n.max(1) {
            return None;
        }
    }
    Some(
        runs.into_iter()
            .map(|run| {
                let kept: FxHashSet<usize> = run.into_iter().collect();
                (0..n).filter(|i| !kept.contains(i)).map(|i| list[i]).collect()
            })
            .collect(),
    )
}

/// Merge three orders. `keep` says which elements the result holds; each kept element appears
/// once, even if it is missing from some lists.
pub fn merge_order<K, F>(base: &[K], ours: &[K], theirs: &[K], keep: F) -> MergedOrder<K>
where
    K: Eq + Hash + Clone,
    F: Fn(&K) -> bool,
{
    let base_pos: FxHashMap<&K, usize> = base.iter().enumerate().map(|(i, k)| (k, i)).collect();
    let ours_moved = reordered(&base_pos, ours);
    let theirs_moved = reordered(&base_pos, theirs);
    let reorder_clash = ours_moved && theirs_moved && {
        let in_t: FxHashSet<&K> = theirs.iter().collect();
        let in_o: FxHashSet<&K> = ours.iter().collect();
        let a = ours.iter().filter(|k| in_t.contains(k));
        let b = theirs.iter().filter(|k| in_o.contains(k));
        !a.eq(b)
    };
    let (reconciled, disputed) = match reorder_clash.then(|| reconcile_moves(&base_pos, ours, theirs)).flatten() {
        Some((order, disputed)) => (Some(order), disputed),
        None => (None, Vec::new()),
    };
    let reorder_clash = reorder_clash && (reconciled.is_none() || !disputed.is_empty());
    let ours = reconciled.as_deref().unwrap_or(ours);
    let skeleton_is_ours = !theirs_moved || ours_moved;
    let (skeleton, other) = if skeleton_is_ours { (ours, theirs) } else { (theirs, ours) };

    let skeleton_kept: Vec<&K> = skeleton.iter().filter(|k| keep(k)).collect();
    let skeleton_pos: FxHashMap<&K, usize> = skeleton_kept.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    let mut placed: FxHashSet<&K> = skeleton_kept.iter().copied().collect();
    // Elements placed after an anchor (None = at the start), in placement order.
    let mut after: FxHashMap<Option<&K>, Vec<&K>> = FxHashMap::default();

    struct Skeleton<'k, K> {
        kept: Vec<&'k K>,
        pos: FxHashMap<&'k K, usize>,
        in_base: FxHashMap<&'k K, usize>,
    }
    /// Plan where each kept element of `list` not yet placed goes: after the element that
    /// precedes it in `list` (skipping the skeleton's own new elements when ours come first).
    fn place_from<'k, K: Eq + Hash>(
        list: &'k [K],
        ours_first: bool,
        placed: &mut FxHashSet<&'k K>,
        skeleton: &Skeleton<'k, K>,
        keep: &impl Fn(&K) -> bool,
    ) -> Vec<(Option<&'k K>, &'k K)> {
        let mut anchor: Option<&K> = None;
        let mut plan = Vec::new();
        // The skeleton's own insertions: neither in base nor in `list` (what both hold is a
        // shared anchor even without a base, as in an object both sides added).
        let in_list: FxHashSet<&K> = if ours_first { list.iter().collect() } else { FxHashSet::default() };
        for k in list {
            if placed.contains(k) {
                anchor = Some(k);
                continue;
            }
            if !keep(k) {
                continue;
            }
            let mut at = anchor;
            if ours_first {
                let mut next = match at {
                    None => 0,
                    Some(a) => skeleton.pos.get(a).map_or(usize::MAX, |p| p + 1),
                };
                while next < skeleton.kept.len()
                    && !skeleton.in_base.contains_key(skeleton.kept[next])
                    && !in_list.contains(skeleton.kept[next])
                {
                    at = Some(skeleton.kept[next]);
                    next += 1;
                }
            }
            plan.push((at, k));
            placed.insert(k);
            anchor = Some(k);
        }
        plan
    }
    let skel = Skeleton { kept: skeleton_kept, pos: skeleton_pos, in_base: base_pos };
    let plan_other = place_from(other, skeleton_is_ours, &mut placed, &skel, &keep);
    let plan_base = place_from(base, false, &mut placed, &skel, &keep);
    for (at, k) in plan_other.into_iter().chain(plan_base) {
        after.entry(at).or_default().push(k);
    }

    let mut order = Vec::with_capacity(placed.len());
    laid_out(skel.kept.iter().copied(), &after, |k| order.push(k.clone()));
    MergedOrder { order, reorder_clash, disputed }
}

/// Elements placed after others (`after`: by the element they follow, `None` for the start)
/// laid out in order: those placed at the start, then each of `leads`, each followed by what
/// was placed after it, depth first.
fn laid_out<'k, K: Eq + Hash>(
    leads: impl IntoIterator<Item = &'k K>,
    after: &FxHashMap<Option<&'k K>, Vec<&'k K>>,
    mut push: impl FnMut(&'k K),
) {
    let mut emit = |k: &'k K| {
        let mut stack = vec![k];
        while let Some(k) = stack.pop() {
            push(k);
            if let Some(next) = after.get(&Some(k)) {
                stack.extend(next.iter().rev());
            }
        }
    };
    for &k in after.get(&None).into_iter().flatten() {
        emit(k);
    }
    for k in leads {
        emit(k);
    }
}

/// Where both sides inserted elements at one place of a merged order, between neighbours in
/// ascending order, and each side's insertions ascend too, the insertions are put in ascending
/// order: such a list is kept sorted by its editor (Godot's theme items, GDevelop's members),
/// which would have saved them so. Elsewhere ours stay first ([`merge_order`]).
pub fn sort_concurrent_insertions<K: Ord + Eq + Hash>(order: &mut [K], base: &[K], ours: &[K], theirs: &[K]) {
    let in_base: FxHashSet<&K> = base.iter().collect();
    // Most merged orders hold nothing new.
    if order.iter().all(|k| in_base.contains(k)) {
        return;
    }
    let (in_ours, in_theirs): (FxHashSet<&K>, FxHashSet<&K>) = (ours.iter().collect(), theirs.iter().collect());
    let mut start = 0;
    while start < order.len() {
        if in_base.contains(&order[start]) {
            start += 1;
            continue;
        }
        let end = start + order[start..].iter().take_while(|k| !in_base.contains(k)).count();
        let run = &order[start..end];
        let only = |mine: &FxHashSet<&K>, other: &FxHashSet<&K>| run.iter().filter(|k| mine.contains(k) && !other.contains(k)).count();
        let concurrent = only(&in_ours, &in_theirs) > 0 && only(&in_theirs, &in_ours) > 0;
        let ascends = |side: &FxHashSet<&K>| run.iter().filter(|k| side.contains(k)).is_sorted_by(|x, y| x < y);
        let sides_ascend = ascends(&in_ours) && ascends(&in_theirs);
        let (low, high) = (run.iter().min(), run.iter().max());
        let between = start > 0 && end < order.len() && low.is_some_and(|l| order[start - 1] < *l) && high.is_some_and(|h| *h < order[end]);
        if concurrent && sides_ascend && between {
            order[start..end].sort();
        }
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(b: &str, o: &str, t: &str) -> String {
        let (b, o, t): (Vec<char>, Vec<char>, Vec<char>) = (b.chars().collect(), o.chars().collect(), t.chars().collect());
        let present = |k: &char| {
            let ib = b.contains(k);
            let io = o.contains(k);
            let it = t.contains(k);
            if ib {
                io && it
            } else {
                io || it
            }
        };
        merge_order(&b, &o, &t, present).order.into_iter().collect()
    }

    #[test]
    fn unchanged() {
        assert_eq!(m("abc", "abc", "abc"), "abc");
    }

    #[test]
    fn one_side_inserts_and_deletes() {
        assert_eq!(m("abc", "axbc", "abc"), "axbc");
        assert_eq!(m("abc", "abc", "ac"), "ac");
        assert_eq!(m("abc", "xabc", "ab"), "xab");
    }

    /// [`m`], then [`sort_concurrent_insertions`].
    fn sorted(b: &str, o: &str, t: &str) -> String {
        let mut order: Vec<char> = m(b, o, t).chars().collect();
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        sort_concurrent_insertions(&mut order, &chars(b), &chars(o), &chars(t));
        order.into_iter().collect()
    }

    #[test]
    fn insertions_both_sides_made_between_sorted_neighbours_are_sorted() {
        assert_eq!(m("az", "amnz", "abz"), "amnbz");
        assert_eq!(sorted("az", "amnz", "abz"), "abmnz");
        assert_eq!(sorted("az", "abz", "amnz"), "abmnz", "whichever side comes first");
        assert_eq!(sorted("za", "zmna", "zba"), "zmnba", "neighbours out of order: ours first");
        assert_eq!(sorted("az", "anmz", "abz"), "anmbz", "a side's own insertions out of order: ours first");
        assert_eq!(sorted("a", "amn", "ab"), "amnb", "no neighbour after them: ours first");
        assert_eq!(sorted("az", "anz", "az"), "anz", "one side's insertions stay as they are");
    }

    #[test]
    fn both_insert_at_same_place_ours_first_either_way() {
        assert_eq!(m("ab", "axb", "ayb"), "axyb");
        // Theirs reorders, so theirs is the skeleton: ours still comes first.
        assert_eq!(m("abc", "axbc", "aybc"), "axybc");
        assert_eq!(m("abc", "abcx", "cbay"), "cxbay");
    }

    #[test]
    fn without_a_base_what_both_hold_anchors_the_insertions() {
        // An object both sides added: its shared members keep their place, and each side's
        // own members go after the member they follow.
        assert_eq!(m("", "ltn", "lsn"), "ltsn");
    }

    #[test]
    fn insert_at_start_ours_first() {
        assert_eq!(m("ab", "xab", "yab"), "xyab");
    }

    #[test]
    fn runs_stay_together() {
        assert_eq!(m("ab", "a12b", "aXYb"), "a12XYb");
    }

    #[test]
    fn one_side_reorders_other_inserts() {
        assert_eq!(m("abc", "cba", "abxc"), "cbxa");
        let r = merge_order(&['a', 'b'], &['b', 'a'], &['b', 'a'], |_| true);
        assert!(!r.reorder_clash);
        let r = merge_order(&['a', 'b', 'c'], &['b', 'a', 'c'], &['a', 'c', 'b'], |_| true);
        assert!(r.reorder_clash);
    }

    #[test]
    fn moves_of_both_sides_are_reconciled_pair_by_pair() {
        // Ours moves b to the end; theirs moves a to the end and c before b.
        let r = merge_order(&['a', 'b', 'c'], &['a', 'c', 'b'], &['c', 'b', 'a'], |_| true);
        assert_eq!(r.order, vec!['c', 'b', 'a']);
        assert!(!r.reorder_clash);
        // Ours' own insertions travel with the element they follow.
        assert_eq!(m("abcd", "axbdc", "bacd"), "baxdc");
        // Swapping one pair both ways is a real clash: ours' order stands and it is reported.
        let r = merge_order(&['a', 'b', 'c'], &['b', 'a', 'c'], &['a', 'c', 'b'], |_| true);
        assert_eq!(r.order, vec!['b', 'a', 'c']);
        assert!(r.reorder_clash);
    }

    #[test]
    fn elements_each_side_moved_past_the_other_sides_go_where_their_side_put_them() {
        // Ours moves c after a, theirs moves n (after c in base) to the end: pair by pair the
        // choices are cyclic (n before c on ours, only because c left).
        assert_eq!(m("bcnfat", "bnfact", "bcfatn"), "bfactn");
        assert_eq!(m("bcnfat", "bcfatn", "bnfact"), "bfactn", "whichever side is ours");
        // Runs a side moved stay together, and ours' own insertions travel with them.
        assert_eq!(m("bcdnfat", "bnfacdxt", "bcdfatn"), "bfacdxtn");
        assert!(!merge_order(&['b', 'c', 'n', 'f'], &['b', 'n', 'f', 'c'], &['b', 'c', 'f', 'n'], |_| true).reorder_clash);
        // Ours moves d before c (or c after d, alike) beside theirs' move: one order either way.
        assert_eq!(m("bcnfatd", "bnfactd", "bcfatnd"), "bfactnd");
        assert_eq!(m("bcnfadt", "bnfactd", "bcfadtn"), "bfactdn");
        // One element both sides moved is a clash, and so is a swap either side could have made.
        assert!(merge_order(&['a', 'b', 'c', 'd'], &['b', 'c', 'a', 'd'], &['b', 'a', 'd', 'c'], |_| true).reorder_clash);
    }

    #[test]
    fn clashing_moves_keep_the_moves_no_reading_disputes() {
        // Theirs moves `s` before `v` and `w` (a node moved under a new parent goes after it)
        // and swaps `d` and `t`; ours swaps `t` and `y`. Where `t` goes is a clash, settled
        // nearest ours' order; theirs' move of `s` stands, whichever side is ours.
        let chars = |s: &str| s.chars().collect::<Vec<char>>();
        let r = merge_order(&chars("vwsdty"), &chars("vwsdyt"), &chars("svwtdy"), |_| true);
        assert!(r.reorder_clash);
        assert_eq!(r.order.iter().collect::<String>(), "svwdyt");
        assert!(!r.disputed.is_empty() && r.disputed.iter().all(|(a, b)| "dty".contains(*a) && "dty".contains(*b)), "{:?}", r.disputed);
        let r = merge_order(&chars("vwsdty"), &chars("svwtdy"), &chars("vwsdyt"), |_| true);
        assert!(r.reorder_clash);
        assert_eq!(r.order.iter().collect::<String>(), "svwtdy");
    }

    #[test]
    fn inversions_count_the_pairs_out_of_order() {
        assert_eq!(inversions(&[]), 0);
        assert_eq!(inversions(&[0, 1, 2, 3]), 0);
        assert_eq!(inversions(&[3, 2, 1, 0]), 6);
        assert_eq!(inversions(&[1, 0, 3, 2]), 2);
        assert_eq!(inversions(&[2, 0, 1]), 2);
    }

    #[test]
    fn kept_elements_missing_from_skeleton_come_back_in_base_place() {
        let r = merge_order(&['a', 'b', 'c'], &['a', 'c'], &['a', 'b', 'c'], |_| true);
        assert_eq!(r.order, vec!['a', 'b', 'c']);
    }
}
