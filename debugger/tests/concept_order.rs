//! The concepts of the session manager form a declared order (the list at the top of
//! `src/lib.rs`): a module may use its own level and the levels above it, never one below.
//! This test reads that list and every `crate::` path in `src/` (in `use` lines and inline),
//! and fails on any use against the order that is not listed in `STILL_AGAINST_THE_ORDER`.
//! That list names what is left to untangle; an entry that no longer holds must be taken
//! away, so the list only shrinks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Uses against the order that exist today, as (module, module it uses). Each is a concept's
/// service that still holds a `&Debugger` to take the owner's one lock over `State`
/// (`crate::debugger`), where a converted one holds any owner that implements its own
/// `…Host` trait (`crate::host`; `processes` is the first).
const STILL_AGAINST_THE_ORDER: &[(&str, &str)] = &[("call_reports", "debugger")];

/// Names `lib.rs` re-exports at the crate's root, and the module each comes from.
const ROOT_REEXPORTS: &[(&str, &str)] = &[
    ("Debugger", "debugger"),
    ("Config", "debugger"),
    ("Continued", "debugger"),
    ("PollReply", "debugger"),
    ("RegisteredFunction", "breakpoints"),
    ("BreakpointSnapshot", "debugger"),
    ("for_tests", "debugger"),
    ("Error", "error"),
    ("ErrorKind", "error"),
    ("Result", "error"),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The declared levels, read from the numbered list in `lib.rs`'s header: module -> level.
fn declared_levels() -> BTreeMap<String, usize> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("lib.rs is readable");
    let mut levels = BTreeMap::new();
    for line in lib.lines().take_while(|l| l.starts_with("//!")) {
        let text = line.trim_start_matches("//!").trim();
        let Some((number, rest)) = text.split_once(". ") else { continue };
        let Ok(level) = number.parse::<usize>() else { continue };
        let names = rest.split(':').next().unwrap_or("");
        for name in names.split('`').skip(1).step_by(2) {
            levels.insert(name.to_string(), level);
        }
    }
    levels
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The first segments of every `crate::` path in `code`: `crate::a::b` and `use crate::{a, b::c}`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    for (at, _) in code.match_indices("crate::") {
        let after = &code[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            // Top-level items of the group: depth-1 names before `::`, `,` or `}`.
            let mut depth = 0;
            let mut start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && depth == 0 && !c.is_whitespace() => {
                        found.insert(ident(&group[i..]));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.insert(ident(after));
        }
    }
    found.retain(|name| !name.is_empty());
    found
}

/// The code of a file without its comments, so that prose naming a path is not a use, and
/// without its unit tests (`#[cfg(test)] mod …` at the end), which may try other modules' types.
fn without_comments(text: &str) -> String {
    let code = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    match code.find("#[cfg(test)]\nmod ") {
        Some(tests) => code[..tests].to_string(),
        None => code,
    }
}

/// (module, module it uses) -> the files where it happens.
fn uses() -> BTreeMap<(String, String), BTreeSet<String>> {
    let levels = declared_levels();
    let mut files = vec![];
    rust_files(&src(), &mut files);
    let mut uses: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for path in files {
        let relative = path.strip_prefix(src()).expect("under src/").to_string_lossy().to_string();
        let module = relative.split('/').next().unwrap_or("").trim_end_matches(".rs").to_string();
        if module == "lib" {
            continue;
        }
        let code = without_comments(&std::fs::read_to_string(&path).expect("readable"));
        for name in crate_paths(&code) {
            let used = ROOT_REEXPORTS.iter().find(|(n, _)| *n == name).map_or(name.clone(), |(_, m)| m.to_string());
            if used != module && levels.contains_key(&used) {
                uses.entry((module.clone(), used)).or_default().insert(relative.clone());
            }
        }
    }
    uses
}

#[test]
fn every_module_of_src_has_a_declared_level() {
    let levels = declared_levels();
    let mut missing = vec![];
    for entry in std::fs::read_dir(src()).expect("src/ is readable").flatten() {
        let name = entry.file_name().to_string_lossy().trim_end_matches(".rs").to_string();
        if name != "lib" && !levels.contains_key(&name) {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "modules missing from the order in lib.rs: {missing:?}");
}

#[test]
fn no_module_uses_one_below_it_in_the_declared_order() {
    let levels = declared_levels();
    let known: BTreeSet<(String, String)> =
        STILL_AGAINST_THE_ORDER.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let mut new = vec![];
    let mut against = BTreeSet::new();
    for ((module, used), files) in uses() {
        // A module missing from the list is the other test's failure.
        let Some(&level) = levels.get(&module) else { continue };
        if levels[&used] > level {
            against.insert((module.clone(), used.clone()));
            if !known.contains(&(module.clone(), used.clone())) {
                new.push(format!(
                    "{module} (level {}) uses {used} (level {}) in {files:?}",
                    levels[&module], levels[&used]
                ));
            }
        }
    }
    assert!(new.is_empty(), "uses against the declared order in lib.rs:\n{}", new.join("\n"));
    let gone: Vec<_> = known.difference(&against).collect();
    assert!(gone.is_empty(), "no longer against the order: take these out of STILL_AGAINST_THE_ORDER: {gone:?}");
}

#[test]
fn the_path_reader_sees_grouped_and_inline_uses() {
    let code = "use crate::{a::X, b, c::{d, e}};\nfn f() { crate::g::h(); }\n";
    let found: Vec<_> = crate_paths(code).into_iter().collect();
    assert_eq!(found, ["a", "b", "c", "g"]);
}
