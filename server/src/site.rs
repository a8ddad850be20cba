//! Where the built site (wasm, js, css) lives and how the pages are configured.

use std::path::PathBuf;

use leptos::config::{Env, LeptosOptions};

/// `LEPTOS_SITE_ROOT` when cargo-leptos runs us; otherwise `target/site` beside the binary's
/// profile directory (target/release/breakroom → target/site).
pub fn site_root() -> PathBuf {
    if let Ok(root) = std::env::var("LEPTOS_SITE_ROOT") {
        return PathBuf::from(root);
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent()?.parent().map(|target| target.join("site")))
        .filter(|p| p.join("pkg").exists())
        .unwrap_or_else(|| PathBuf::from("target/site"))
}

pub fn leptos_options(addr: std::net::SocketAddr) -> LeptosOptions {
    let env = match std::env::var("LEPTOS_ENV").as_deref() {
        Ok("DEV") | Ok("dev") => Env::DEV,
        _ => Env::PROD,
    };
    let reload_port = std::env::var("LEPTOS_RELOAD_PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(5175);
    LeptosOptions::builder()
        .output_name("breakroom")
        .site_root(site_root().to_string_lossy().to_string())
        .site_pkg_dir("pkg")
        .site_addr(addr)
        .reload_port(reload_port)
        .env(env)
        .build()
}
