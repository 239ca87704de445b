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
    levelmerge_testutils::fuzz::replay_regressions_named(&dir, "splice-", |data| {
        levelmerge_testutils::fuzz::splice_agrees(&JsonCodec::default(), data)
    });
}

#[test]
fn every_swap_regression_input_leaves_as_many_conflicts_with_its_sides_swapped() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    levelmerge_testutils::fuzz::replay_regressions_named(&dir, "swap-", |data| {
        levelmerge_testutils::fuzz::sides_swap_alike(&JsonCodec::default(), data)
    });
}

/// The JSON codec, but for a writer that leaves a stray bracket at the end: what a fault in
/// the writing would give.
struct MisWriting(JsonCodec);

impl Codec for MisWriting {
    type Document<'src> = levelmerge_json::Document<'src>;

    fn name(&self) -> &'static str {
        "json"
    }

    fn parse<'src>(&self, src: &'src [u8]) -> Result<Self::Document<'src>, levelmerge_core::Problem> {
        self.0.parse(src)
    }

    fn lower<'d>(
        &self,
        doc: &'d Self::Document<'_>,
        side: Side,
        others: &[&'d Self::Document<'_>],
    ) -> Result<levelmerge_core::Level<'d>, Vec<levelmerge_core::Problem>> {
        self.0.lower(doc, side, others)
    }

    fn render(&self, docs: Sides<&Self::Document<'_>>, level: &levelmerge_core::resolve::Resolved<'_>) -> Vec<u8> {
        let mut text = self.0.render(docs, level);
        text.push(b']');
        text
    }
}

#[test]
fn a_clean_merge_is_read_back_and_a_text_that_does_not_read_is_refused() {
    let (base, ours, theirs): (&[u8], &[u8], &[u8]) = (b"{\"a\": 1, \"b\": 2}\n", b"{\"a\": 5, \"b\": 2}\n", b"{\"a\": 1, \"b\": 7}\n");
    let texts = Sides::new(base, ours, theirs);
    let merged = merge_texts(&JsonCodec::default(), texts, &Options::default(), &MarkerStyle::default()).expect("a sound merge");
    assert_eq!(merged.text, b"{\"a\": 5, \"b\": 7}\n");
    // The model of the broken text is the same level: only reading the text back finds it.
    let error = merge_texts(&MisWriting(JsonCodec::default()), texts, &Options::default(), &MarkerStyle::default())
        .expect_err("a text that does not read is never a clean merge");
    assert!(error.to_string().contains("line 2"), "{error}");
}

#[test]
fn members_two_sides_wrote_without_a_lead_are_kept_apart() {
    // Each side's member opened its file: side by side they need a separator, or `b = 2`
    // and `c = 3` read as `b = 2c = 3`, and `11:4` and `1:2.1` as `11:41:2.1`.
    let sjson = JsonCodec::new(Some(Dialect::Sjson), Default::default());
    let merged = merge_texts(&sjson, Sides::new(b"a = 1", b"b = 2", b"c = 3"), &Options::default(), &MarkerStyle::default()).unwrap();
    assert_eq!((merged.open_conflicts, merged.text.as_slice()), (0, &b"b = 2\nc = 3"[..]));
    let merged =
        merge_texts(&JsonCodec::default(), Sides::new(b"11P\x11\x11:4", b"11:4", b"1:2.1"), &Options::default(), &MarkerStyle::default());
    let merged = merged.expect("read as SJSON");
    assert_eq!(merged.text, b"11:4\n1:2.1");
    // Inside braces, on one line: a space.
    let merged =
        merge_texts(&sjson, Sides::new(b"{a = 1}", b"{a = \"x\"b = 2}", b"{a = 1 c = 3}"), &Options::default(), &MarkerStyle::default())
            .unwrap();
    assert!(sjson.parse(&merged.text).is_ok() && merged.open_conflicts == 0, "{}", String::from_utf8_lossy(&merged.text));
}

fn run_everything(bytes: &[u8], other: &[u8]) {
    for dialect in [None, Some(Dialect::Json), Some(Dialect::Sjson)] {
        let codec = JsonCodec::new(dialect, Default::default());
        let _ = check_text(&codec, bytes);
        // Reading the syntax alone finds what reading the whole file finds.
        assert_eq!(codec.reads(bytes), codec.parse(bytes).map(|_| ()), "{:?}", String::from_utf8_lossy(bytes));
        // And so does reading it with what another version's reading read left unread.
        if let Ok(read) = codec.parse(other) {
            assert_eq!(codec.reads_like(bytes, &read), codec.parse(bytes).map(|_| ()), "{:?}", String::from_utf8_lossy(bytes));
        }
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
