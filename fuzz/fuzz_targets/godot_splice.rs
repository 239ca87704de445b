//! Three versions cut at 0xFF bytes: where the merge splices parts (Godot sections), it writes
//! what reading every object writes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    levelmerge_testutils::fuzz::splice_agrees(&levelmerge_godot::GodotCodec, data);
});
