//! `GET /api/debug-client.js`: Breakroom's JavaScript debug client (`client-js/breakroom.mjs`),
//! built into the binary so a page or a Node program loads the client of the server it talks to.
//! Not in the OpenAPI document, which describes JSON operations; served beside it.

use axum::http::header;
use axum::response::IntoResponse;

/// The client's files, each module before those that import it; the entry last.
const PARTS: [&str; 7] = [
    include_str!("../../../client-js/lib/protocol.mjs"),
    include_str!("../../../client-js/lib/redaction.mjs"),
    include_str!("../../../client-js/lib/values.mjs"),
    include_str!("../../../client-js/lib/program.mjs"),
    include_str!("../../../client-js/lib/evaluation.mjs"),
    include_str!("../../../client-js/lib/transport.mjs"),
    include_str!("../../../client-js/breakroom.mjs"),
];

/// The client as one module, as it is served and as `breakroom js-client` prints it: its parts
/// joined, their imports of each other (one line each) dropped and the parts' own exports made
/// plain declarations, so every name is declared once in one scope; the entry keeps its exports.
pub fn source() -> &'static str {
    static SOURCE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SOURCE.get_or_init(|| {
        let mut out = String::new();
        for (i, part) in PARTS.iter().enumerate() {
            let entry = i == PARTS.len() - 1;
            for line in part.lines() {
                if line.starts_with("import ") && line.contains(" from './") {
                    continue;
                }
                let line = if entry { line } else { line.strip_prefix("export ").unwrap_or(line) };
                out.push_str(line);
                out.push('\n');
            }
        }
        out
    })
}

pub async fn script() -> impl IntoResponse {
    // `no-cache`: a page always gets the client of the server it talks to, after an upgrade too.
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8"), (header::CACHE_CONTROL, "no-cache")], source())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_served_client_is_one_module_that_imports_nothing_of_its_own() {
        let source = super::source();
        assert!(!source.contains(" from './"), "a part's import was left in");
        for name in ["function repr(", "async function item(", "function evaluate(", "function withDebug("] {
            assert_eq!(source.matches(name).count(), 1, "{name} is declared once");
        }
        assert!(source.contains("export function withDebug(") && source.contains("export default breakroom;"));
        assert!(!source.contains("export async function item("), "a part's export stays a plain declaration");
    }
}
