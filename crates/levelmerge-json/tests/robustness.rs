//! Bad input never crashes the codec or the merge: it is read, or refused with a problem.

use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{check_text, merge_texts, Codec, Options, Side, Sides};
use levelmerge_json::{Dialect, JsonCodec};
use levelmerge_testutils::gen::{level, style};
use proptest::prelude::*;

#[test]
fn every_regression_input_keeps_its_properties() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    levelmerge_testutils::fuzz::replay_regressions(
        &dir,
        3,
        levelmerge_json::fuzzing::parse_round_trip,
        levelmerge_json::fuzzing::merge_three,
    );
}

#[test]
fn every_splice_regression_input_splices_as_the_whole_merge_writes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    let inputs = levelmerge_testutils::fuzz::regressions_named(&dir, "splice-");
    assert!(!inputs.is_empty(), "the splice regression inputs are missing from {}", dir.display());
    for (name, data) in inputs {
        eprintln!("replaying {name}");
        levelmerge_testutils::fuzz::splice_agrees(&JsonCodec::default(), &data);
    }
}

fn run_everything(bytes: &[u8], other: &[u8]) {
    for dialect in [None, Some(Dialect::Json), Some(Dialect::Sjson)] {
        let codec = JsonCodec::new(dialect, Default::default());
        let _ = check_text(&codec, bytes);
        if let Ok(doc) = codec.parse(bytes) {
            let _ = codec.lower(&doc, Side::Base, &[]);
        }
        let _ = merge_texts(&codec, Sides::new(other, bytes, other), &Options::default(), &MarkerStyle::default());
        let _ = merge_texts(&codec, Sides::new(bytes, other, bytes), &Options::default(), &MarkerStyle::default());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn damaged_levels_never_crash(base in level(5), st in style(), cut_at in any::<prop::sample::Index>(), cut_len in 0usize..12, insert in "[{}\\[\\],:=\"\\\\ a-z0-9\n/*]{0,6}") {
        let text = base.to_json(st);
        let at = cut_at.index(text.len().max(1)).min(text.len());
        let end = (at + cut_len).min(text.len());
        let mut damaged = text.as_bytes()[..at].to_vec();
        damaged.extend_from_slice(insert.as_bytes());
        damaged.extend_from_slice(&text.as_bytes()[end..]);
        run_everything(&damaged, text.as_bytes());
    }

    #[test]
    fn random_text_never_crashes(s in "[{}\\[\\],:=\"\\\\ a-z0-9\n\t/*#-.eE]{0,64}") {
        run_everything(s.as_bytes(), b"{\"a\": [1, 2, {\"id\": 1}]}");
    }

    #[test]
    fn random_bytes_never_crash(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        run_everything(&bytes, b"[]");
    }
}

/// `text` with `name`'s value given a prefix (ours' edit), and with a member added at the end
/// (theirs'): both far from the middle of the file.
fn edited_at_both_ends(text: &str) -> (String, String) {
    let ours = text.replacen("\"name\": \"", "\"name\": \"o", 1);
    let end = text.rfind('}').expect("a JSON object");
    let theirs = format!("{},\"added\": 1{}", &text[..end], &text[end..]);
    (ours, theirs)
}

#[test]
fn a_syntax_error_every_version_shares_is_refused() {
    // The broken array lies in lines all three versions hold alike, which the merge leaves
    // unread: it is still checked.
    let base = "{\n\"name\": \"a\",\n\"big\": [\n[1, 2],\n[3 4],\n[5, 6]\n],\n\"z\": 1\n}\n";
    let (ours, theirs) = edited_at_both_ends(base);
    let texts = Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let error = merge_texts(&JsonCodec::default(), texts, &Options::default(), &MarkerStyle::default()).expect_err("broken input");
    assert!(error.to_string().contains("line 5"), "{error}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Damage all three versions share is found wherever it lies, as reading one alone finds it.
    #[test]
    fn damage_every_version_shares_is_refused(base in level(6), st in style(), cut_at in any::<prop::sample::Index>(), cut_len in 0usize..8, insert in "[{}\\[\\],:\" a-z0-9]{0,4}") {
        let text = base.to_json(st);
        let (ours, theirs) = edited_at_both_ends(&text);
        let Some(name_at) = text.find("\"name\": \"") else { return Ok(()) };
        // Damage between ours' edit and theirs' one, at the same bytes of every version.
        let after_name = name_at + "\"name\": \"".len();
        let end = text.rfind('}').unwrap_or(text.len());
        if end <= after_name + 1 {
            return Ok(());
        }
        let at = after_name + 1 + cut_at.index(end - after_name - 1);
        let cut = (at + cut_len).min(end);
        let damage = |t: &str, shift: usize| format!("{}{insert}{}", &t[..at + shift], &t[cut + shift..]);
        let (b, o, t) = (damage(&text, 0), damage(&ours, 1), damage(&theirs, 0));
        let codec = JsonCodec::default();
        if codec.parse(b.as_bytes()).is_err() {
            let merged = merge_texts(&codec, Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &Options::default(), &MarkerStyle::default());
            prop_assert!(merged.is_err(), "damage at {at} went unseen:\n{b}");
        }
    }
}
