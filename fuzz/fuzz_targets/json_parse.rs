//! Parsing never panics, and a parsed file is given back byte for byte.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    levelmerge_json::fuzzing::parse_round_trip(data);
});
