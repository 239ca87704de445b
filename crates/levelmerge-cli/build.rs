//! Links the `levelmerge` binary as a position-dependent executable on Linux.
//!
//! A position-independent one has its ~16,000 pointers in static data (vtables, panic
//! locations, string tables) relocated by the dynamic loader at every start, which touches
//! every page holding them: 70 of its 200 page faults, and a sixth of the time `levelmerge
//! --version` takes (1.8 → 1.5 ms). Linked at a fixed address, they are written once, by the
//! linker.
//! The loader still places the heap, the stack and the shared libraries at random. Set
//! `LEVELMERGE_PIE=1` when building to keep the executable position-independent.

fn main() {
    println!("cargo:rerun-if-env-changed=LEVELMERGE_PIE");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    if linux && std::env::var_os("LEVELMERGE_PIE").is_none() {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
