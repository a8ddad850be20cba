//! The variables panel's rows: name, type, bounded repr, and for containers and objects a
//! toggle that asks for one more level (`data-path` is what `expand_html` takes back).

use maud::{html, Markup};
use serde_json::Value;

/// The panel's "view" of a row: its value's table or picture, on a page of its own.
fn view_href(session_id: &str, path: &Value) -> String {
    format!("/repl/{session_id}/view?path={}", super::encode(&path.to_string()))
}

fn row(entry: &Value, session_id: &str) -> Markup {
    let text = |key: &str| entry.get(key).and_then(Value::as_str).unwrap_or("");
    let expandable = entry.get("expandable").and_then(Value::as_bool).unwrap_or(false);
    let count = entry.get("count").and_then(Value::as_u64);
    // A call argument links to the value stored at the call (the REPL may have changed it since).
    let stored = entry.get("cid").and_then(Value::as_str);
    html! {
        li.var data-name=(text("name")) {
            @if expandable {
                button.var-toggle type="button" aria-expanded="false"
                    data-path=(entry.get("path").map(Value::to_string).unwrap_or_default()) { "▸" }
            } @else {
                span.var-toggle-space {}
            }
            span.var-name { (text("name")) }
            " " span.var-type { (text("type")) }
            @if let Some(n) = count { " " span.var-count { "(" (n) ")" } }
            @if let Some(cid) = stored {
                " " a.object-link href={ "/object/" (cid) } title="the value stored at the call" { "as called" }
            }
            @if let (Some(true), Some(path)) = (entry.get("viewable").and_then(Value::as_bool), entry.get("path")) {
                " " a.var-view href=(view_href(session_id, path)) rel="external" target="_blank"
                    title="its table or picture, on a page of its own" { "view" }
            }
            code.var-repr { (text("repr")) }
            ul.var-children hidden {}
        }
    }
}

/// The panel's top level: the frame's locals, then the session's own names.
pub fn rows(variables: Option<&Value>, timed_out: Option<&Value>, session_id: &str) -> String {
    let entries = variables.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let timed_out = timed_out.and_then(Value::as_bool).unwrap_or(false);
    let html = html! {
        @if entries.is_empty() {
            p.hint { "No variables." }
        } @else {
            ul.var-list { @for entry in entries { (row(entry, session_id)) } }
            @if timed_out {
                p.hint { "Some reprs were skipped: the panel's time budget ran out." }
            }
        }
    };
    html.into_string()
}

/// The children of one row, as the `<li>`s of its `.var-children` list.
pub fn children(reply: &Value, session_id: &str) -> String {
    let entries = reply.get("children").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let truncated = reply.get("truncated").and_then(Value::as_bool).unwrap_or(false);
    let count = reply.get("count").and_then(Value::as_u64).unwrap_or(0);
    let html = html! {
        @for entry in entries { (row(entry, session_id)) }
        @if truncated {
            li.hint { "… " (count.saturating_sub(entries.len() as u64)) " more" }
        }
        @if entries.is_empty() {
            li.hint { "empty" }
        }
    };
    html.into_string()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn program_data_in_the_panel_never_becomes_markup() {
        let row = json!({"name": "<b>x</b>", "type": "str", "repr": "'<script>'", "expandable": true,
            "path": [["var", "\"><img>"]], "cid": "ab", "scope": "local"});
        let html = super::rows(Some(&json!([row])), None, "1-2.5");
        assert!(!html.contains("<b>") && !html.contains("<script>") && !html.contains("\"><img>"), "{html}");
        assert!(html.contains(r#"href="/object/ab""#), "{html}");
        assert!(html.contains(r#"data-path="[[&quot;var&quot;,&quot;\&quot;&gt;&lt;img&gt;&quot;]]""#), "{html}");
    }

    #[test]
    fn a_viewable_row_links_to_its_view_with_its_path_encoded() {
        let row = json!({"name": "df", "type": "DataFrame", "repr": "…", "expandable": true,
            "path": [["var", "df"]], "viewable": true});
        let html = super::rows(Some(&json!([row])), None, "1-2.5");
        assert!(html.contains(r#"href="/repl/1-2.5/view?path=%5B%5B%22var%22%2C%22df%22%5D%5D""#), "{html}");
    }
}
