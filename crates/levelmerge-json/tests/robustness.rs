//! Bad input never crashes the codec or the merge: it is read, or refused with a problem.

use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{check_text, merge_texts, Codec, Options, Side, Sides};
use levelmerge_json::{Dialect, JsonCodec};
use levelmerge_testutils::gen::{level, style};
use proptest::prelude::*;

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
