//! Links the `levelmerge` binary for a fast start on Linux: most merges are of small files, and
//! git starts the merge driver once per file, so its start is much of a merge's time.
//!
//! * Position-dependent. A position-independent executable has its ~16,000 pointers in static
//!   data (vtables, panic locations, string tables) relocated by the dynamic loader at every
//!   start, which touches every page holding them: 70 of its 200 page faults, and a sixth of the
//!   time `levelmerge --version` takes (1.8 → 1.5 ms). Linked at a fixed address, they are
//!   written once, by the linker. The loader still places the heap, the stack and the shared
//!   libraries at random. Set `LEVELMERGE_PIE=1` when building to keep the executable
//!   position-independent.
//! * The unwinder linked in (glibc targets): Rust's standard library takes it from the shared
//!   `libgcc_s`, whose loading runs a CPU-model probe of many `cpuid` instructions, each a trip
//!   to the hypervisor on a virtual machine. Linked whole from GCC's static `libgcc_eh` (as a
//!   statically linked Rust program has it), `libgcc_s` is no longer needed: 0.3 ms less a
//!   start on the benchmark machine. Set `LEVELMERGE_SHARED_LIBGCC=1` to keep the shared one
//!   (kept too where the C compiler has no `libgcc_eh.a`).
//! * Neither where the C library is linked statically (`-C target-feature=+crt-static`): there
//!   is no loader and no `libgcc_s` then, and rustc links a static position-independent binary
//!   that `-no-pie` would turn into one that crashes at start (it would still name a loader).
//!   `-C relocation-model=static` as well gives the fixed address there.

fn main() {
    println!("cargo:rerun-if-env-changed=LEVELMERGE_PIE");
    println!("cargo:rerun-if-env-changed=LEVELMERGE_SHARED_LIBGCC");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let gnu = std::env::var("CARGO_CFG_TARGET_ENV").is_ok_and(|env| env == "gnu");
    let static_libc = std::env::var("CARGO_CFG_TARGET_FEATURE").is_ok_and(|features| features.split(',').any(|f| f == "crt-static"));
    if static_libc {
        return;
    }
    if linux && std::env::var_os("LEVELMERGE_PIE").is_none() {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    // Before the standard library's own `-lgcc_s` on the link line, and whole: every unwinder
    // symbol is then defined when that library is reached, and `--as-needed` drops it.
    if linux && gnu && std::env::var_os("LEVELMERGE_SHARED_LIBGCC").is_none() && linker_has("libgcc_eh.a") {
        println!("cargo:rustc-link-lib=static:+whole-archive=gcc_eh");
    }
}

/// Whether the C compiler that links Rust programs here (`cc`, or `$CC`) finds `file` among its
/// libraries: it prints the file's path when it does, the bare name when it does not.
fn linker_has(file: &str) -> bool {
    println!("cargo:rerun-if-env-changed=CC");
    let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
    let found = std::process::Command::new(cc).arg(format!("-print-file-name={file}")).output();
    found.is_ok_and(|out| {
        let path = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        out.status.success() && std::path::Path::new(&path).is_absolute() && std::path::Path::new(&path).exists()
    })
}
