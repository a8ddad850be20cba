//! ↑/↓ in a multi-line input box recall earlier inputs, as a shell does: the REPL page and the
//! runtime terminals share it. Only on the first line (↑) or the last (↓): elsewhere the keys
//! move the caret between the input's lines.

/// Where ↑/↓ goes: `to` is an index into the earlier inputs (oldest first), or None for the
/// draft that was being typed; `stash_draft` says that draft must be kept before leaving it.
#[derive(Debug, PartialEq)]
pub struct Recall {
    pub to: Option<usize>,
    pub stash_draft: bool,
}

/// The recall for `key` in `text` with the caret at `caret` (in chars), `earlier` inputs and the
/// current position `at`; None when the key is the text box's own.
pub fn recall(key: &str, text: &str, caret: usize, earlier: usize, at: Option<usize>) -> Option<Recall> {
    if earlier == 0 {
        return None;
    }
    let on_first_line = !text.chars().take(caret).any(|c| c == '\n');
    let on_last_line = !text.chars().skip(caret).any(|c| c == '\n');
    let (to, stash_draft) = match (key, at) {
        ("ArrowUp", _) if !on_first_line => return None,
        ("ArrowDown", _) if !on_last_line => return None,
        ("ArrowUp", None) => (Some(earlier - 1), true),
        ("ArrowUp", Some(p)) => (Some(p.saturating_sub(1)), false),
        ("ArrowDown", Some(p)) if p + 1 < earlier => (Some(p + 1), false),
        ("ArrowDown", Some(_)) => (None, false),
        _ => return None,
    };
    Some(Recall { to, stash_draft })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn up_and_down_walk_the_inputs_and_come_back_to_the_draft() {
        let step = |key, at| recall(key, "draft", 0, 3, at);
        assert_eq!(step("ArrowUp", None), Some(Recall { to: Some(2), stash_draft: true }));
        assert_eq!(step("ArrowUp", Some(0)), Some(Recall { to: Some(0), stash_draft: false }));
        assert_eq!(step("ArrowDown", Some(1)), Some(Recall { to: Some(2), stash_draft: false }));
        assert_eq!(step("ArrowDown", Some(2)), Some(Recall { to: None, stash_draft: false }));
        assert_eq!(step("ArrowDown", None), None);
        assert_eq!(recall("ArrowUp", "x", 0, 0, None), None, "nothing to recall");
    }

    #[test]
    fn inside_a_multi_line_input_the_keys_move_the_caret() {
        assert_eq!(recall("ArrowUp", "a\nb", 3, 2, None), None);
        assert_eq!(recall("ArrowDown", "a\nb", 0, 2, Some(0)), None);
        assert!(recall("ArrowUp", "a\nb", 1, 2, None).is_some());
    }
}
