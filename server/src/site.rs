//! Where the built site (wasm, js, css, images) comes from and how the pages are configured.
//!
//! A release binary carries the site it was built with (issue 53): cargo-leptos, run with
//! `--precompress`, builds and compresses the site before it compiles the server, and `build.rs`
//! makes a change to the site recompile the embedding. `--site-dir` (or `LEPTOS_SITE_ROOT`, which
//! `cargo leptos watch` sets) serves a directory instead.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, Method, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use leptos::config::{Env, LeptosOptions};

/// The site as it was when this binary was compiled (empty if `target/site` was not built yet).
#[derive(rust_embed::Embed)]
#[folder = "../target/site"]
#[allow_missing = true]
struct Embedded;

/// Changes whenever the embedded site does: `build.rs` hashes the site's listing, and this use of
/// the value makes rustc recompile the embedding when it changes (new wasm chunks have new names).
const SITE_FINGERPRINT: &str = env!("BREAKROOM_SITE_FINGERPRINT");

/// The leptos file that names the page's wasm chunks: leptos reads it from the site directory, once.
const SPLIT_MANIFEST: &str = "pkg/__wasm_split_manifest.json";

/// The directory leptos is told is the site's when the embedded site is served: it holds only
/// the split manifest, which leptos insists on reading from disk.
static EMBEDDED_ROOT: OnceLock<PathBuf> = OnceLock::new();

/// Whether this binary was built with a site in it.
pub fn has_embedded_site() -> bool {
    Embedded::get("pkg/breakroom.js").is_some()
}

/// A hash of the embedded site's file names and sizes, shown by `breakroom --version`.
pub fn embedded_fingerprint() -> &'static str {
    SITE_FINGERPRINT
}

/// `LEPTOS_SITE_ROOT` if set, else the embedded site, else `target/site` beside the binary's
/// profile directory (a binary built before its site was).
pub fn site_root() -> PathBuf {
    choose_site(std::env::var_os("LEPTOS_SITE_ROOT").map(PathBuf::from))
}

/// `dir` (`--site-dir`) if given, else as [`site_root`] without the variable.
pub fn choose_site(dir: Option<PathBuf>) -> PathBuf {
    if let Some(dir) = dir {
        return dir;
    }
    if has_embedded_site() {
        return embedded_root().clone();
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent()?.parent().map(|target| target.join("site")))
        .filter(|p| p.join("pkg").exists())
        .unwrap_or_else(|| PathBuf::from("target/site"))
}

/// Whether the pages are served from the binary (not from a directory).
pub fn serves_embedded(options: &LeptosOptions) -> bool {
    EMBEDDED_ROOT.get().is_some_and(|root| Path::new(options.site_root.as_ref()) == root.as_path())
}

fn embedded_root() -> &'static PathBuf {
    EMBEDDED_ROOT.get_or_init(|| {
        let base = std::env::temp_dir();
        remove_stale_roots(&base);
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let root = base.join(format!("breakroom-site-{}-{nanos}", std::process::id()));
        if let Err(e) = write_split_manifest(&root) {
            eprintln!("breakroom: cannot write the page manifest under {}: {e}", root.display());
        }
        root
    })
}

/// `create_dir`, not `create_dir_all`: a directory someone else made under the shared temp
/// directory is never used.
fn write_split_manifest(root: &Path) -> std::io::Result<()> {
    std::fs::create_dir(root)?;
    std::fs::create_dir(root.join("pkg"))?;
    if let Some(file) = Embedded::get(SPLIT_MANIFEST) {
        std::fs::write(root.join(SPLIT_MANIFEST), file.data)?;
    }
    Ok(())
}

/// Manifest directories of servers that have ended (their pid is gone).
fn remove_stale_roots(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("breakroom-site-")).and_then(|n| n.split('-').next())
        else {
            continue;
        };
        use std::os::unix::fs::MetadataExt;
        let me = std::fs::metadata("/proc/self").map(|m| m.uid()).ok();
        let mine = entry.metadata().ok().is_some_and(|m| Some(m.uid()) == me);
        if mine && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A file of the embedded site, compressed as the browser accepts, with an ETag; `None` when
/// there is no such file (the caller renders the 404 page).
pub fn embedded_file(request: &Request<Body>) -> Option<Response> {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return None;
    }
    let path = request.uri().path().trim_start_matches('/');
    if path.is_empty() {
        return None;
    }
    let file = Embedded::get(path)?;
    let accepted = accepted_encodings(request.headers());
    // cargo-leptos's `--precompress` wrote a .br and a .gz beside every file.
    let (body, encoding) = [("br", ".br"), ("gzip", ".gz")]
        .into_iter()
        .filter(|(name, _)| accepted.iter().any(|a| a == name))
        .find_map(|(name, suffix)| Embedded::get(&format!("{path}{suffix}")).map(|f| (f.data, Some(name))))
        .unwrap_or((file.data.clone(), None));
    let hash: String = file.metadata.sha256_hash().iter().take(16).map(|b| format!("{b:02x}")).collect();
    let etag = match encoding {
        Some(name) => format!("\"{hash}-{name}\""),
        None => format!("\"{hash}\""),
    };
    let mut headers = HeaderMap::new();
    if let Ok(value) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, value);
    }
    // The names do not change between builds: the browser asks again, and the ETag makes that a 304.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    let unchanged = request
        .headers()
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|tag| tag.trim() == etag || tag.trim() == "*");
    if unchanged {
        return Some((StatusCode::NOT_MODIFIED, headers).into_response());
    }
    if let Ok(value) = HeaderValue::from_str(file.metadata.mimetype()) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    if let Some(name) = encoding {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(name));
    }
    if request.method() == Method::HEAD {
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        return Some((StatusCode::OK, headers).into_response());
    }
    Some((StatusCode::OK, headers, Body::from(body.into_owned())).into_response())
}

/// The encodings `Accept-Encoding` allows (a `q=0` one is refused).
fn accepted_encodings(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|item| {
            let mut parts = item.split(';');
            let name = parts.next()?.trim().to_ascii_lowercase();
            let refused = parts.any(|p| {
                let p = p.trim();
                p.strip_prefix("q=").and_then(|q| q.trim().parse::<f32>().ok()).is_some_and(|q| q <= 0.0)
            });
            (!refused && !name.is_empty()).then_some(name)
        })
        .collect()
}

pub fn leptos_options(addr: std::net::SocketAddr) -> LeptosOptions {
    leptos_options_at(addr, site_root())
}

pub fn leptos_options_at(addr: std::net::SocketAddr, site_root: PathBuf) -> LeptosOptions {
    let env = match std::env::var("LEPTOS_ENV").as_deref() {
        Ok("DEV") | Ok("dev") => Env::DEV,
        _ => Env::PROD,
    };
    let reload_port = std::env::var("LEPTOS_RELOAD_PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(5175);
    LeptosOptions::builder()
        .output_name("breakroom")
        .site_root(site_root.to_string_lossy().to_string())
        .site_pkg_dir("pkg")
        .site_addr(addr)
        .reload_port(reload_port)
        .env(env)
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_and_weighted_encodings() {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT_ENCODING, HeaderValue::from_static("gzip;q=0.5, br;q=0, deflate"));
        assert_eq!(accepted_encodings(&headers), vec!["gzip".to_string(), "deflate".to_string()]);
    }
}
