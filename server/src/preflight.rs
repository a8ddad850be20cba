//! What `OPTIONS` on an API path answers: the methods the OpenAPI document gives that path, in
//! `Allow`. (The router cannot say: inside its middleware the `Allow` of a 405 is not set yet.)

use std::sync::OnceLock;

use utoipa::openapi::path::PathItem;

/// A documented path, as segments (`None` for a `{parameter}`), and its methods.
struct DocumentedPath {
    segments: Vec<Option<String>>,
    allow: String,
}

fn documented() -> &'static [DocumentedPath] {
    static PATHS: OnceLock<Vec<DocumentedPath>> = OnceLock::new();
    PATHS.get_or_init(|| {
        let mut paths: Vec<DocumentedPath> = crate::api::openapi()
            .paths
            .paths
            .iter()
            .map(|(path, item)| DocumentedPath { segments: segments(path), allow: methods(item) })
            .collect();
        // Served beside the document, not described in it.
        paths.push(DocumentedPath { segments: segments("/api/openapi.json"), allow: "GET, OPTIONS".into() });
        paths.push(DocumentedPath { segments: segments("/api/debug-client.js"), allow: "GET, OPTIONS".into() });
        paths
    })
}

fn segments(template: &str) -> Vec<Option<String>> {
    template
        .trim_matches('/')
        .split('/')
        .map(|s| if s.starts_with('{') && s.ends_with('}') { None } else { Some(s.to_string()) })
        .collect()
}

fn methods(item: &PathItem) -> String {
    let operations = [
        ("GET", item.get.is_some()),
        ("POST", item.post.is_some()),
        ("PUT", item.put.is_some()),
        ("PATCH", item.patch.is_some()),
        ("DELETE", item.delete.is_some()),
    ];
    let mut allow: Vec<&str> = operations.iter().filter(|(_, present)| *present).map(|(m, _)| *m).collect();
    allow.push("OPTIONS");
    allow.join(", ")
}

/// `Allow` for `path`, or None when no documented path matches it. A literal segment wins over
/// a parameter (`/api/repl/sessions` is not `/api/repl/{session_id}`).
pub fn allowed_methods(path: &str) -> Option<&'static str> {
    let asked: Vec<&str> = path.trim_matches('/').split('/').collect();
    documented()
        .iter()
        .filter(|d| d.segments.len() == asked.len())
        .filter(|d| d.segments.iter().zip(&asked).all(|(s, a)| s.as_deref().is_none_or(|s| s == *a)))
        .max_by_key(|d| d.segments.iter().filter(|s| s.is_some()).count())
        .map(|d| d.allow.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_answered_with_its_documented_methods_only() {
        assert_eq!(allowed_methods("/api/call/start"), Some("POST, OPTIONS"));
        assert_eq!(allowed_methods("/api/breakpoints"), Some("GET, POST, DELETE, OPTIONS"));
        assert_eq!(allowed_methods("/api/repl/sessions"), Some("GET, OPTIONS"));
        assert_eq!(allowed_methods("/api/openapi.json"), Some("GET, OPTIONS"));
        assert_eq!(allowed_methods("/api/nowhere"), None);
    }
}
