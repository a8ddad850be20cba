//! The concepts of the session manager form a declared order (the list at the top of
//! `src/lib.rs`): a module may use its own level and the levels above it, never one below.
//! This test reads that list and every `crate::` path in `src/` (in `use` lines and inline),
//! and fails on any use against the order. A concept that needs something of one later in the
//! order (a pause's end closes its REPL sessions) asks the owner for it through its own
//! `…Host` or `…State` trait (see `src/host.rs`), which the owner, last in the order, answers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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

/// Each use of a module below the user in the order, named with its levels and files.
fn against_the_order(
    levels: &BTreeMap<String, usize>,
    uses: &BTreeMap<(String, String), BTreeSet<String>>,
) -> Vec<String> {
    let mut against = vec![];
    for ((module, used), files) in uses {
        // A module missing from the list is the other test's failure.
        let (Some(&level), Some(&used_level)) = (levels.get(module), levels.get(used)) else { continue };
        if used_level > level {
            against.push(format!("{module} (level {level}) uses {used} (level {used_level}) in {files:?}"));
        }
    }
    against
}

#[test]
fn no_module_uses_one_below_it_in_the_declared_order() {
    let against = against_the_order(&declared_levels(), &uses());
    assert!(against.is_empty(), "uses against the declared order in lib.rs:\n{}", against.join("\n"));
}

#[test]
fn a_concept_that_uses_a_later_one_is_named_with_its_file() {
    let levels = BTreeMap::from([("pauses".to_string(), 9), ("sessions".to_string(), 10)]);
    let file = |f: &str| BTreeSet::from([f.to_string()]);
    let uses = BTreeMap::from([
        (("sessions".to_string(), "pauses".to_string()), file("sessions/methods.rs")),
        (("pauses".to_string(), "sessions".to_string()), file("pauses/methods.rs")),
    ]);
    assert_eq!(
        against_the_order(&levels, &uses),
        [r#"pauses (level 9) uses sessions (level 10) in {"pauses/methods.rs"}"#]
    );
}

#[test]
fn the_path_reader_sees_grouped_and_inline_uses() {
    let code = "use crate::{a::X, b, c::{d, e}};\nfn f() { crate::g::h(); }\n";
    let found: Vec<_> = crate_paths(code).into_iter().collect();
    assert_eq!(found, ["a", "b", "c", "g"]);
}
