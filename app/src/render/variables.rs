//! The variables panel's rows: name, type, bounded repr, and for containers and objects a
//! toggle that asks for one more level (`data-path` is what `expand_html` takes back).

use serde_json::Value;

use super::esc;

fn row(entry: &Value) -> String {
    let text = |key: &str| entry.get(key).and_then(Value::as_str).unwrap_or("");
    let expandable = entry.get("expandable").and_then(Value::as_bool).unwrap_or(false);
    let count = entry.get("count").and_then(Value::as_u64).map(|n| format!(" <span class=\"var-count\">({n})</span>"));
    let toggle = if expandable {
        let path = entry.get("path").map(Value::to_string).unwrap_or_default();
        format!(
            r#"<button type="button" class="var-toggle" aria-expanded="false" data-path="{}">▸</button>"#,
            esc(&path)
        )
    } else {
        r#"<span class="var-toggle-space"></span>"#.to_string()
    };
    // A call argument links to the value stored at the call (the REPL may have changed it since).
    let stored = entry.get("cid").and_then(Value::as_str).map(|cid| {
        format!(
            r#" <a class="object-link" href="/object/{}" title="the value stored at the call">as called</a>"#,
            esc(cid)
        )
    });
    format!(
        r#"<li class="var" data-name="{name}">{toggle}<span class="var-name">{name}</span> <span class="var-type">{kind}</span>{count}{stored}<code class="var-repr">{repr}</code><ul class="var-children" hidden></ul></li>"#,
        stored = stored.unwrap_or_default(),
        name = esc(text("name")),
        kind = esc(text("type")),
        count = count.unwrap_or_default(),
        repr = esc(text("repr")),
    )
}

/// The panel's top level: the frame's locals, then the session's own names.
pub fn rows(variables: Option<&Value>, timed_out: Option<&Value>) -> String {
    let entries = variables.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if entries.is_empty() {
        return r#"<p class="hint">No variables.</p>"#.to_string();
    }
    let mut html = String::from(r#"<ul class="var-list">"#);
    entries.iter().for_each(|entry| html.push_str(&row(entry)));
    html.push_str("</ul>");
    if timed_out.and_then(Value::as_bool).unwrap_or(false) {
        html.push_str(r#"<p class="hint">Some reprs were skipped: the panel's time budget ran out.</p>"#);
    }
    html
}

/// The children of one row, as the `<li>`s of its `.var-children` list.
pub fn children(reply: &Value) -> String {
    let entries = reply.get("children").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let mut html: String = entries.iter().map(row).collect();
    if reply.get("truncated").and_then(Value::as_bool).unwrap_or(false) {
        let count = reply.get("count").and_then(Value::as_u64).unwrap_or(0);
        html.push_str(&format!(r#"<li class="hint">… {} more</li>"#, count.saturating_sub(entries.len() as u64)));
    }
    if entries.is_empty() {
        html.push_str(r#"<li class="hint">empty</li>"#);
    }
    html
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn program_data_in_the_panel_never_becomes_markup() {
        let row = json!({"name": "<b>x</b>", "type": "str", "repr": "'<script>'", "expandable": true,
            "path": [["var", "\"><img>"]], "cid": "ab", "scope": "local"});
        let html = super::rows(Some(&json!([row])), None);
        assert!(!html.contains("<b>") && !html.contains("<script>") && !html.contains("\"><img>"), "{html}");
        assert!(html.contains(r#"href="/object/ab""#), "{html}");
        assert!(html.contains(r#"data-path="[[&quot;var&quot;,&quot;\&quot;&gt;&lt;img&gt;&quot;]]""#), "{html}");
    }
}
