//! Objects a script holds by `[SerializeReference]`: its fields name them by `rid`, and its
//! `references.RefIds` holds one entry per `rid`. Entries are merged by their `rid`, and no
//! merge leaves a field naming an entry that is gone.

use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{check_text, merge_texts, MergeError, MergeOutcome, Options, Problem, Sides};
use levelmerge_unity::UnityCodec;

/// An entry: its `rid`, and the `Value` of its data.
type Entry = (u64, i32);

/// A scene with one script whose `Modifiers` and `Extra` name entries by `rid`.
fn scene(modifiers: &[u64], extra: &[u64], entries: &[Entry]) -> String {
    let uses = |rids: &[u64]| {
        if rids.is_empty() {
            " []\n".to_owned()
        } else {
            rids.iter().map(|r| format!("\n  - rid: {r}")).collect::<String>() + "\n"
        }
    };
    let refs = if entries.is_empty() {
        " []\n".to_owned()
    } else {
        entries.iter().map(|(r, v)| format!("\n    - rid: {r}\n      type: {{class: Modifier, ns: Game, asm: Assembly-CSharp}}\n      data:\n        Value: {v}\n        Weight: 1")).collect::<String>()
            + "\n"
    };
    format!(
        "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!1 &10\nGameObject:\n  m_Component:\n  - component: {{fileID: 11}}\n  m_Name: Camera\n--- !u!114 &11\nMonoBehaviour:\n  m_GameObject: {{fileID: 10}}\n  m_Enabled: 1\n  m_Script: {{fileID: 11500000, guid: a076c17fe76165e4f8ed21498b877bf9, type: 3}}\n  Modifiers:{}  Extra:{}  references:\n    version: 2\n    RefIds:{}",
        uses(modifiers),
        uses(extra),
        refs
    )
}

fn merge(b: &str, o: &str, t: &str) -> MergeOutcome {
    merge_texts(&UnityCodec, Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &Options::default(), &MarkerStyle::default())
        .expect("the merge runs")
}

#[test]
fn entries_are_merged_by_their_rid() {
    let base = scene(&[7], &[], &[(7, 1)]);
    // Both add an entry and a use of it: both kept.
    let merged = merge(&base, &scene(&[7, 8], &[], &[(7, 1), (8, 2)]), &scene(&[7], &[9], &[(7, 1), (9, 3)]));
    assert_eq!(merged.open_conflicts, 0);
    assert_eq!(String::from_utf8(merged.text).unwrap(), scene(&[7, 8], &[9], &[(7, 1), (8, 2), (9, 3)]));
    // One side reorders the entries, the other edits one: the edit stays on its entry.
    let merged =
        merge(&scene(&[7, 8], &[], &[(7, 1), (8, 2)]), &scene(&[7, 8], &[], &[(8, 2), (7, 1)]), &scene(&[7, 8], &[], &[(7, 1), (8, 5)]));
    assert_eq!(merged.open_conflicts, 0);
    assert_eq!(String::from_utf8(merged.text).unwrap(), scene(&[7, 8], &[], &[(8, 5), (7, 1)]));
}

#[test]
fn an_entry_one_side_dropped_that_the_other_side_starts_to_use_is_never_left_dangling() {
    let base = scene(&[7], &[], &[(7, 1)]);
    let dropped = scene(&[], &[], &[]);
    let used_again = scene(&[7], &[7], &[(7, 1)]);
    // Read as a level, the merge is refused (the command line then merges the lines, with
    // conflict markers), never written with a field naming no entry.
    let texts = Sides::new(base.as_bytes(), dropped.as_bytes(), used_again.as_bytes());
    match merge_texts(&UnityCodec, texts, &Options::default(), &MarkerStyle::default()) {
        Err(MergeError::Incoherent { problems }) => {
            assert!(
                problems.iter().any(|p| matches!(p, Problem::DanglingReference { target, .. } if target.as_str() == "7")),
                "{problems:?}"
            )
        }
        other => panic!("a merge naming a dropped entry: {other:?}"),
    }
    // What the check reports.
    let problems = check_text(&UnityCodec, scene(&[], &[7], &[]).as_bytes());
    assert!(
        matches!(problems.as_slice(), [Problem::DanglingReference { path, target, .. }] if path == "rid" && target.as_str() == "7"),
        "{problems:?}"
    );
    assert!(check_text(&UnityCodec, base.as_bytes()).is_empty());
    // Unity's empty reference names nothing.
    assert!(check_text(&UnityCodec, scene(&[], &[], &[]).replace("Extra: []", "Extra:\n  - rid: -2").as_bytes()).is_empty());
}
