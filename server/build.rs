//! Two values for the compiler: the commit `breakroom --version` names, and a fingerprint of the
//! site `src/site.rs` embeds, so that a rebuilt site (new wasm chunk names included) is embedded
//! again rather than served stale.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::process::Command;

fn main() {
    let site = Path::new("../target/site");
    // A directory here makes cargo look at every file under it, added and removed ones too.
    println!("cargo:rerun-if-changed=../target/site");
    let mut hasher = DefaultHasher::new();
    let mut files = Vec::new();
    list(site, site, &mut files);
    files.sort();
    files.hash(&mut hasher);
    println!("cargo:rustc-env=BREAKROOM_SITE_FINGERPRINT={:016x}", hasher.finish());

    println!("cargo:rerun-if-env-changed=BREAKROOM_COMMIT");
    let commit = std::env::var("BREAKROOM_COMMIT").ok().or_else(|| {
        let head = git(&["rev-parse", "--short=12", "HEAD"])?;
        // A new commit on the branch, or a checkout of another one, changes these files.
        for path in [
            git(&["rev-parse", "--git-path", "HEAD"]),
            git(&["rev-parse", "--symbolic-full-name", "HEAD"])
                .and_then(|name| git(&["rev-parse", "--git-path", &name])),
        ]
        .into_iter()
        .flatten()
        {
            println!("cargo:rerun-if-changed={path}");
        }
        Some(head)
    });
    println!("cargo:rustc-env=BREAKROOM_COMMIT={}", commit.unwrap_or_else(|| "unknown commit".into()));
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// (path, size, modification time) of every file under `dir`.
fn list(root: &Path, dir: &Path, files: &mut Vec<(String, u64, u128)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_dir() {
            list(root, &path, files);
        } else {
            let modified = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            let name = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().into_owned();
            files.push((name, meta.len(), modified.map(|d| d.as_nanos()).unwrap_or(0)));
        }
    }
}
