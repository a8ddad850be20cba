//! The debug page's watch expressions (issue 45): each one's value as the snapshot page shows a
//! watch value (a tree, opened by a click), with the button that removes it. Everything in it
//! comes from the program and is escaped by construction. `data-expression` says which
//! expression a row's button removes.

use breakroom_debugger::snapshots::WatchList;
use maud::{html, Markup};

/// The rows, in the order the expressions were asked; `data-watch` is each one's index there.
pub fn rows(list: &WatchList) -> Markup {
    html! {
        ul.watch-rows {
            @for (i, w) in list.expressions.iter().enumerate() {
                li.watch-row data-watch=(i) data-expression=(w.expression) {
                    button.watch-remove type="button" title="Remove this watch" aria-label={ "Remove " (w.expression) } { "×" }
                    ul.var-tree { (super::snapshot::watch(w)) }
                }
            }
        }
        @if list.truncated { p.hint { "Some values were cut to fit." } }
    }
}

/// Why no watch was read (a list the server refused), as text.
pub fn refused(why: &str) -> Markup {
    html! { p.error { (why) } }
}

#[cfg(test)]
mod tests {
    use super::*;
    use breakroom_debugger::snapshots::{CapturedValue, WatchValue};

    #[test]
    fn a_watch_value_with_markup_is_shown_as_text() {
        let value = CapturedValue {
            type_name: "str".into(),
            repr: "'<img src=x onerror=alert(1)>'".into(),
            children: vec![],
            length: None,
            truncated: false,
            error: None,
            outputs: vec![],
        };
        let list = WatchList {
            expressions: vec![
                WatchValue { expression: "a<b".into(), value: Some(value), error: None },
                WatchValue { expression: "f()".into(), value: None, error: Some("<script>".into()) },
            ],
            truncated: false,
            redacted: 0,
        };
        let html = rows(&list).into_string();
        assert!(!html.contains("<img") && !html.contains("<script>"), "{html}");
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;") && html.contains("&lt;script&gt;"), "{html}");
        assert!(html.contains(r#"data-watch="1""#) && html.contains("Remove a&lt;b"), "{html}");
    }
}
