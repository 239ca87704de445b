//! Three versions cut at 0xFF bytes: where the merge splices parts (Cocos elements), it
//! writes what reading every object writes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == 0xFF).map(std::str::from_utf8);
    let (Some(Ok(base)), Some(Ok(ours)), Some(Ok(theirs))) = (parts.next(), parts.next(), parts.next()) else { return };
    let codec = levelmerge_json::JsonCodec::default();
    if let Err(difference) = levelmerge_testutils::corpus::splice_agrees_with_whole_merge(&codec, base, ours, theirs) {
        panic!("the splice and the whole merge disagree: {difference}");
    }
});
