//! Three versions cut at 0xFF bytes: with ours and theirs swapped, the merge leaves as many
//! conflicts open.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    levelmerge_testutils::fuzz::sides_swap_alike(&levelmerge_godot::GodotCodec, data);
});
