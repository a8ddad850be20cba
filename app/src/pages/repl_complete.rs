//! Completion in the REPL input: asking the paused program (Tab, Ctrl+Space), the list of
//! matches, and putting the chosen one into the text. The server speaks code points (Jupyter's
//! cursor_pos); the textarea speaks UTF-16 units.

use leptos::prelude::*;

use crate::repl_helpers::complete_input;

/// An open list of matches for `text[start..end]` (code points).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Completions {
    pub start: usize,
    pub end: usize,
    /// (match, its type)
    pub items: Vec<(String, String)>,
    pub selected: usize,
}

/// The server's text answer (`start end`, then `match\ttype` lines).
pub fn parse(reply: &str) -> Option<Completions> {
    let mut lines = reply.lines();
    let (start, end) = lines.next()?.split_once(' ')?;
    let items = lines
        .filter(|line| !line.is_empty())
        .map(|line| {
            let (text, kind) = line.split_once('\t').unwrap_or((line, ""));
            (text.to_string(), kind.to_string())
        })
        .collect();
    Some(Completions { start: start.parse().ok()?, end: end.parse().ok()?, items, selected: 0 })
}

/// Code points before a UTF-16 position.
pub fn chars_before(text: &str, utf16: usize) -> usize {
    let mut units = 0;
    for (i, c) in text.chars().enumerate() {
        if units >= utf16 {
            return i;
        }
        units += c.len_utf16();
    }
    text.chars().count()
}

/// UTF-16 units of the first `chars` code points.
pub fn utf16_of(text: &str, chars: usize) -> usize {
    text.chars().take(chars).map(char::len_utf16).sum()
}

/// `text` with code points `start..end` replaced by `with`, and the caret after it (code points).
pub fn replaced(text: &str, start: usize, end: usize, with: &str) -> (String, usize) {
    let before: String = text.chars().take(start).collect();
    let after: String = text.chars().skip(end.max(start)).collect();
    (format!("{before}{with}{after}"), start + with.chars().count())
}

/// Whether Tab here should indent instead: the caret's line is blank before it.
pub fn indents(text: &str, caret: usize) -> bool {
    let before: String = text.chars().take(caret).collect();
    before.rsplit('\n').next().unwrap_or("").trim().is_empty()
}

/// The input box's text, its completion list and the caret, as the prompt keeps them.
#[derive(Clone, Copy)]
pub struct Completer {
    pub draft: RwSignal<String>,
    pub list: RwSignal<Option<Completions>>,
    pub textarea: NodeRef<leptos::html::Textarea>,
    pub session_id: StoredValue<String>,
}

impl Completer {
    fn caret(self) -> usize {
        let utf16 = self.textarea.get_untracked().and_then(|t| t.selection_start().ok().flatten()).unwrap_or(0);
        chars_before(&self.draft.get_untracked(), utf16 as usize)
    }

    /// Puts `with` in place of `start..end` and the caret after it.
    fn insert(self, start: usize, end: usize, with: &str) {
        let (text, caret) = replaced(&self.draft.get_untracked(), start, end, with);
        let at = utf16_of(&text, caret) as u32;
        if let Some(element) = self.textarea.get_untracked() {
            element.set_value(&text);
            let _ = element.set_selection_range(at, at);
        }
        self.draft.set(text);
    }

    /// Accepts the list's selected match.
    pub fn accept(self, index: usize) {
        let Some(open) = self.list.get_untracked() else { return };
        self.list.set(None);
        if let Some((text, _)) = open.items.get(index) {
            self.insert(open.start, open.end, text);
        }
    }

    /// Tab / Ctrl+Space: indents on a blank line, else asks the paused program. One match is
    /// inserted, several open the list.
    pub fn request(self, tab: bool) {
        let caret = self.caret();
        let text = self.draft.get_untracked();
        if tab && indents(&text, caret) {
            self.insert(caret, caret, "    ");
            return;
        }
        let session_id = self.session_id.get_value();
        leptos::task::spawn_local(async move {
            let Ok(reply) = complete_input(session_id, text.clone(), caret as u32).await else { return };
            // The user typed on meanwhile: this answer is for text that is gone.
            if self.draft.get_untracked() != text {
                return;
            }
            let Some(found) = parse(&reply) else { return };
            match found.items.len() {
                0 => {}
                1 => self.insert(found.start, found.end, &found.items[0].0),
                _ => self.list.set(Some(found)),
            }
        });
    }

    /// Keys while the list is open; true when the key was the list's.
    pub fn on_key(self, key: &str) -> bool {
        let Some(open) = self.list.get_untracked() else { return false };
        let n = open.items.len().max(1);
        match key {
            "ArrowDown" => self.list.set(Some(Completions { selected: (open.selected + 1) % n, ..open })),
            "ArrowUp" => self.list.set(Some(Completions { selected: (open.selected + n - 1) % n, ..open })),
            "Enter" | "Tab" => self.accept(open.selected),
            "Escape" => self.list.set(None),
            _ => {
                self.list.set(None);
                return false;
            }
        }
        true
    }
}

/// The open list under the input: each match with its type; a click takes it. Written as HTML
/// (with one handler on the list) rather than a view per item: the REPL page's wasm must stay
/// within its download budget, and a reactive list costs several KB more.
#[component]
pub fn CompletionList(completer: Completer) -> impl IntoView {
    let on_mousedown = move |ev: leptos::ev::MouseEvent| {
        ev.prevent_default();
        let item = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .and_then(|t| t.closest("[data-index]").ok().flatten());
        if let Some(index) = item.and_then(|i| i.get_attribute("data-index")).and_then(|i| i.parse().ok()) {
            completer.accept(index);
        }
    };
    view! {
        <ul class="completions" role="listbox" aria-label="Completions"
            hidden=move || completer.list.with(Option::is_none)
            inner_html=move || completer.list.with(|open| open.as_ref().map(list_html).unwrap_or_default())
            on:mousedown=on_mousedown></ul>
    }
}

/// The list's items; every text is escaped (match names come from the debugged program).
fn list_html(open: &Completions) -> String {
    let mut out = String::new();
    for (i, (text, kind)) in open.items.iter().enumerate() {
        let selected = i == open.selected;
        out.push_str(&format!(
            r#"<li role="option" class="completion{}" aria-selected="{selected}" data-index="{i}"><span class="completion-text">{}</span><span class="completion-type">{}</span></li>"#,
            if selected { " selected" } else { "" },
            escape(text),
            escape(kind),
        ));
    }
    out
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_servers_lines() {
        let parsed = parse("2 4\nfield\tinstance\nfilter\tfunction\n").unwrap();
        assert_eq!((parsed.start, parsed.end), (2, 4));
        assert_eq!(parsed.items[1], ("filter".to_string(), "function".to_string()));
        assert!(parse("").is_none());
    }

    #[test]
    fn replaces_by_code_points_and_maps_utf16() {
        let (text, caret) = replaced("ü.fi + 1", 2, 4, "field");
        assert_eq!((text.as_str(), caret), ("ü.field + 1", 7));
        assert_eq!(chars_before("😀a", 2), 1);
        assert_eq!(utf16_of("😀a", 1), 2);
        assert!(indents("if x:\n  ", 8));
        assert!(!indents("if x:\n  y", 9));
    }
}
