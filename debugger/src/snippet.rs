//! Completion and the variables panel for clients that only evaluate (an unchanged cideldill
//! client): one Python expression carrying the client's own completer and panel code, evaluated
//! in the paused frame like any input, whose value is the answer as JSON text.

use std::sync::OnceLock;

use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// The helpers' modules, in the order they import each other; in the snippet they share one
/// namespace, so their relative imports (each a single line) are dropped.
const SOURCES: [&str; 3] = [
    include_str!("../../client/breakroom/repl/static_read.py"),
    include_str!("../../client/breakroom/repl/complete.py"),
    include_str!("../../client/breakroom/repl/variables.py"),
];
const RELATIVE_IMPORT: &str = "from .";

/// (module name, base64 of the source): the name changes with the source, so a process never
/// reuses helpers from an older server. Not compressed: there is no zlib here, and ~80 KB of
/// text on loopback costs less than a millisecond.
fn module_parts() -> &'static (String, String) {
    static PARTS: OnceLock<(String, String)> = OnceLock::new();
    PARTS.get_or_init(|| {
        let source: String = SOURCES
            .iter()
            .flat_map(|source| source.lines())
            .filter(|line| !line.starts_with(RELATIVE_IMPORT))
            .flat_map(|line| [line, "\n"])
            .collect();
        let digest = Sha256::digest(source.as_bytes());
        let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        (format!("_breakroom_helpers_{hex}"), base64::engine::general_purpose::STANDARD.encode(source))
    })
}

/// `module.CALL` evaluated with the helpers module loaded once per process (kept in
/// sys.modules; later snippets reuse it). `frame` in CALL is the eval's frame, whose locals are
/// the REPL's namespace. Binds no name in that namespace.
fn snippet(call: &str) -> String {
    let (name, packed) = module_parts();
    let loader = format!(
        "(lambda m: (exec(compile(__import__('base64').b64decode('{packed}'), '<breakroom helpers>', 'exec'), \
         m.__dict__), m)[1])(__import__('types').ModuleType('{name}'))"
    );
    format!(
        "(lambda sys: (lambda m, frame: m.{call})(sys.modules.get('{name}') or sys.modules.setdefault('{name}', \
         {loader}), sys._getframe(1)))(__import__('sys'))"
    )
}

/// A Python string literal for `text` (JSON's escapes are Python's, for what JSON emits).
fn py_str(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "''".to_string())
}

pub fn completion(code: &str, cursor_pos: usize) -> String {
    snippet(&format!("snippet_reply({}, {cursor_pos}, frame)", py_str(code)))
}

/// `kind` is `variables` or `expand`; `args` goes through JSON into the snippet.
pub fn panel(kind: &str, args: &Value) -> String {
    let args_json = py_str(&args.to_string());
    snippet(&format!("panel_snippet_reply({}, __import__('json').loads({args_json}), frame)", py_str(kind)))
}

/// The helper's answer from an eval's `result`: a Breakroom client sends the JSON text, an
/// eval-only client the repr of the snippet's JSON text (which has no `'`, so its repr is the
/// text in quotes with backslashes doubled).
pub fn decode_result(result: &str) -> Result<Value> {
    let text = match result.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        Some(inner) => inner.replace("\\\\", "\\"),
        None => result.to_string(),
    };
    serde_json::from_str(&text).map_err(|e| Error::ClientFailed(format!("the program's answer is not JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_both_answer_shapes() {
        let plain = decode_result(r#"{"matches":["a\\b"]}"#).unwrap();
        let quoted = decode_result(r#"'{"matches":["a\\\\b"]}'"#).unwrap();
        assert_eq!(plain, quoted);
        assert_eq!(plain["matches"][0], "a\\b");
        assert!(decode_result("Traceback").is_err());
    }
}
