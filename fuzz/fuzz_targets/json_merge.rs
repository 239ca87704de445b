//! Three versions cut at 0xFF bytes: merging never panics and a clean merge is sound.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    levelmerge_json::fuzzing::merge_three(data);
});
