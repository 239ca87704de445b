//! Three versions cut at 0xFF bytes: where the merge splices parts (Cocos elements), it
//! writes what reading every object writes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == 0xFF).map(std::str::from_utf8);
    let (Some(Ok(base)), Some(Ok(ours)), Some(Ok(theirs))) = (parts.next(), parts.next(), parts.next()) else { return };
    let codec = levelmerge_json::JsonCodec::default();
    // Promised of sound versions, as the merge fuzz targets promise it: a version with a
    // problem (an element both a child and a component) may be read one way by each merge.
    if [base, ours, theirs].iter().any(|t| !levelmerge_core::check_text(&codec, t.as_bytes()).is_empty()) {
        return;
    }
    if let Err(difference) = levelmerge_testutils::corpus::splice_agrees_with_whole_merge(&codec, base, ours, theirs) {
        panic!("the splice and the whole merge disagree: {difference}");
    }
});
