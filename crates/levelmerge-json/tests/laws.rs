//! The merge laws over generated levels written in every style.

use levelmerge_core::codec::ConflictReport;
use levelmerge_core::policy::Policy;
use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{check_text, merge_texts, MergeOutcome, Options, Side, Sides};
use levelmerge_json::JsonCodec;
use levelmerge_testutils::gen::{edits, level, style, GenLevel};
use proptest::prelude::*;

fn merge_with(b: &str, o: &str, t: &str, prefer: Option<Side>) -> MergeOutcome {
    let options = Options { policy: Policy { prefer, rules: vec![] }, ..Options::default() };
    merge_texts(&JsonCodec::default(), Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &options, &MarkerStyle::default())
        .unwrap_or_else(|e| panic!("merge failed: {e}\nbase:\n{b}\nours:\n{o}\ntheirs:\n{t}"))
}

fn merge(b: &str, o: &str, t: &str) -> MergeOutcome {
    merge_with(b, o, t, None)
}

/// A merge with or without lowering unchanged parts as opaque values.
fn merge_skipping(b: &str, x: &str, y: &str, skip: bool) -> MergeOutcome {
    let codec = JsonCodec { skip_unchanged: skip, ..JsonCodec::default() };
    merge_texts(&codec, Sides::new(b.as_bytes(), x.as_bytes(), y.as_bytes()), &Options::default(), &MarkerStyle::default())
        .expect("merge runs")
}

fn edited(base: &GenLevel, edits: &[levelmerge_testutils::gen::Edit]) -> GenLevel {
    let mut l = base.clone();
    for e in edits {
        l.apply(e);
    }
    l
}

type Key = (String, String, &'static str, Option<String>, Option<String>, Option<String>);

fn keys(conflicts: &[ConflictReport], swap: bool) -> Vec<Key> {
    let mut v: Vec<Key> = conflicts
        .iter()
        .map(|c| {
            let (o, t) = if swap { (c.theirs.clone(), c.ours.clone()) } else { (c.ours.clone(), c.theirs.clone()) };
            (c.object.clone(), c.path.clone(), c.kind, c.base.clone(), o, t)
        })
        .collect();
    v.sort();
    v
}

fn text(o: &MergeOutcome) -> String {
    String::from_utf8(o.text.clone()).expect("merged JSON is UTF-8")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn identity_laws(base in level(8), ours_edits in edits(1000), theirs_edits in edits(2000), st in style()) {
        let b = base.to_json(st);
        let x = edited(&base, &ours_edits).to_json(st);
        let y = edited(&base, &theirs_edits).to_json(st);
        let r = merge(&b, &x, &b);
        prop_assert_eq!(r.open_conflicts, 0);
        prop_assert_eq!(text(&r), x.clone());
        let r = merge(&b, &b, &y);
        prop_assert_eq!(r.open_conflicts, 0);
        prop_assert_eq!(text(&r), y.clone());
        let r = merge(&b, &x, &x);
        prop_assert_eq!(r.open_conflicts, 0);
        prop_assert_eq!(text(&r), x);
        let r = merge(&b, &b, &b);
        prop_assert_eq!(text(&r), b);
    }

    #[test]
    fn swapping_sides_swaps_conflicts(base in level(8), ours_edits in edits(1000), theirs_edits in edits(2000), st in style()) {
        let b = base.to_json(st);
        let x = edited(&base, &ours_edits).to_json(st);
        let y = edited(&base, &theirs_edits).to_json(st);
        let forward = merge(&b, &x, &y);
        let backward = merge(&b, &y, &x);
        prop_assert_eq!(forward.open_conflicts, backward.open_conflicts);
        prop_assert_eq!(keys(&forward.conflicts, false), keys(&backward.conflicts, true));
    }

    #[test]
    fn results_are_sound(base in level(8), ours_edits in edits(1000), theirs_edits in edits(2000), st in style()) {
        let b = base.to_json(st);
        let x = edited(&base, &ours_edits).to_json(st);
        let y = edited(&base, &theirs_edits).to_json(st);
        let codec = JsonCodec::default();
        let r = merge(&b, &x, &y);
        if r.open_conflicts == 0 {
            let problems = check_text(&codec, &r.text);
            prop_assert!(problems.is_empty(), "clean merge has problems: {:?}\n{}", problems, text(&r));
        } else {
            prop_assert!(r.marked_regions > 0);
            prop_assert!(text(&r).contains("<<<<<<< ours"));
        }
        // Settling every conflict from one side always gives a sound level.
        for side in [Side::Ours, Side::Theirs] {
            let settled = merge_with(&b, &x, &y, Some(side));
            prop_assert_eq!(settled.open_conflicts, 0);
            let problems = check_text(&codec, &settled.text);
            prop_assert!(problems.is_empty(), "{:?} settled merge has problems: {:?}\n{}", side, problems, text(&settled));
        }
    }

    #[test]
    fn skipping_unchanged_parts_changes_nothing(base in level(8), ours_edits in edits(1000), theirs_edits in edits(2000), st in style()) {
        let b = base.to_json(st);
        let x = edited(&base, &ours_edits).to_json(st);
        let y = edited(&base, &theirs_edits).to_json(st);
        let (fast, full) = (merge_skipping(&b, &x, &y, true), merge_skipping(&b, &x, &y, false));
        prop_assert_eq!(text(&fast), text(&full));
        prop_assert_eq!(keys(&fast.conflicts, false), keys(&full.conflicts, false));
    }

    #[test]
    fn skipping_unchanged_parts_changes_nothing_when_elements_move_far(
        base in level(60), ours_edits in edits(1000), theirs_edits in edits(2000), far in 20usize..59,
    ) {
        // Moves farther than the lowering looks for an element's peers.
        let st = levelmerge_testutils::gen::Style::TWO;
        let b = base.to_json(st);
        let mut ours = edited(&base, &ours_edits);
        if ours.entities.len() > far {
            let moved = ours.entities.remove(0);
            ours.entities.insert(far, moved);
        }
        let x = ours.to_json(st);
        let y = edited(&base, &theirs_edits).to_json(st);
        let (fast, full) = (merge_skipping(&b, &x, &y, true), merge_skipping(&b, &x, &y, false));
        prop_assert_eq!(text(&fast), text(&full));
        prop_assert_eq!(keys(&fast.conflicts, false), keys(&full.conflicts, false));
    }

    #[test]
    fn one_sided_edits_survive_the_merge(base in level(8), ours_edits in edits(1000), st in style()) {
        // Theirs only moves the sun; every edit of ours must be in the result unchanged.
        let b = base.to_json(st);
        let ours = edited(&base, &ours_edits);
        let mut theirs = base.clone();
        theirs.sun = 77;
        let r = merge(&b, &ours.to_json(st), &theirs.to_json(st));
        let mut expected = ours.clone();
        expected.sun = 77;
        if ours.sun == base.sun {
            prop_assert_eq!(r.open_conflicts, 0);
            prop_assert_eq!(text(&r), expected.to_json(st));
        } else {
            prop_assert_eq!(r.open_conflicts, 1);
        }
    }
}
