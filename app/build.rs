//! Tells the pages whether this wasm build is split into per-route chunks.
//!
//! `cargo leptos build --split` links the wasm with `--emit-relocs` (so that wasm-split can cut it
//! into chunks afterwards) and splits it; without `--split` the wasm is used as linked. A function
//! marked `#[lazy]` imports its code from the split loader, which only a split build has: in an
//! unsplit wasm that import would stop the whole page from loading. So the pages mark their route
//! views `#[lazy]` only when the wasm build is going to be split (`cfg(wasm_split)`, set here) and
//! always on the server (where `#[lazy]` just asks for the route's chunks to be preloaded, if the
//! site has any). Both `cargo leptos watch` and `cargo leptos watch --split` therefore work.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(wasm_split)");
    // cargo-leptos passes the flags it adds for --split in RUSTFLAGS; cargo reruns this script when
    // that variable changes, and hands the final flags to it in CARGO_ENCODED_RUSTFLAGS.
    println!("cargo::rerun-if-env-changed=RUSTFLAGS");
    println!("cargo::rerun-if-changed=build.rs");
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|arch| arch == "wasm32");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let split = flags.split('\u{1f}').any(|flag| flag.contains("--emit-relocs"));
    if wasm && split {
        println!("cargo::rustc-cfg=wasm_split");
    }
}
