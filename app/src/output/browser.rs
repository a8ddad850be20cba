//! The page's side of following a process's output: a reply of `process_output_after` is the
//! section as the server renders it, holding only the lines the page did not have; [`append`]
//! moves those lines to the end of the page's columns, takes the reply's counts, and keeps the
//! newest [`OUTPUT_TAIL`] lines.

use leptos::prelude::document;
use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

use super::{
    COLUMN_CLASS, COUNTS_CLASS, NEXT_ATTRIBUTE, OUTPUT_TAIL, SECTION_CLASS, SEQ_ATTRIBUTE, SHOWN_CLASS,
    SHOWN_LINES_CLASS,
};

/// The output section on the page, once it shows.
pub fn section() -> Option<Element> {
    document().query_selector(&format!("section.{SECTION_CLASS}[{NEXT_ATTRIBUTE}]")).ok().flatten()
}

/// The number of the line the section expects next.
pub fn next(section: &Element) -> u64 {
    number(section.get_attribute(NEXT_ATTRIBUTE))
}

/// Puts the lines of `reply` (the server's section with only newer lines) at the end of the
/// page's columns. A reply that starts past the page's last line (the page was away for more than
/// [`OUTPUT_TAIL`] lines) holds the newest [`OUTPUT_TAIL`], so the trim then leaves only those.
pub fn append(section: &Element, reply: &str) {
    let Some(fresh) = parse(reply) else { return };
    // Lines the page holds already (two fetches crossed) are not added twice.
    let expected = next(section);
    if number(fresh.get_attribute(NEXT_ATTRIBUTE)) <= expected {
        return;
    }
    for held in all(&fresh, &format!("[{SEQ_ATTRIBUTE}]")) {
        if number(held.get_attribute(SEQ_ATTRIBUTE)) < expected {
            remove_line(&held);
        }
    }
    let columns = all(&fresh, &format!("pre.{COLUMN_CLASS}"));
    for new in &columns {
        let selector = format!("pre[class=\"{}\"]", new.class_name());
        let Some(column) = section.query_selector(&selector).ok().flatten() else { continue };
        while let Some(line) = new.first_child() {
            let _ = column.append_child(&line);
        }
    }
    if let Some(next) = fresh.get_attribute(NEXT_ATTRIBUTE) {
        let _ = section.set_attribute(NEXT_ATTRIBUTE, &next);
    }
    // The counts line as the server has it now; how many lines show is the page's own.
    let counts = format!("p.{COUNTS_CLASS}");
    let was_trimmed = find(section, &format!(".{SHOWN_CLASS}")).is_some_and(|s| !s.has_attribute("hidden"));
    if let (Some(old), Some(new)) = (find(section, &counts), find(&fresh, &counts)) {
        let _ = old.replace_with_with_node_1(&new);
    }
    let (shown, trimmed) = keep_the_newest(section);
    if let Some(label) = find(section, &format!(".{SHOWN_CLASS}")) {
        if let Some(count) = find(&label, &format!(".{SHOWN_LINES_CLASS}")) {
            count.set_text_content(Some(&shown.to_string()));
        }
        if was_trimmed || trimmed {
            let _ = label.remove_attribute("hidden");
        }
    }
}

/// The section element of `html`, parsed inert.
fn parse(html: &str) -> Option<Element> {
    // The reply is the one section.
    crate::pages::patch::inert(html)?.first_child()?.dyn_into::<Element>().ok()
}

/// Drops the oldest lines past [`OUTPUT_TAIL`]; answers how many lines show, and whether any
/// were dropped.
fn keep_the_newest(section: &Element) -> (usize, bool) {
    let columns = all(section, &format!("pre.{COLUMN_CLASS}"));
    let mut shown: usize = columns.iter().map(|c| c.child_element_count() as usize).sum();
    let trimmed = shown > OUTPUT_TAIL;
    while shown > OUTPUT_TAIL {
        // The oldest line is the first of one of the columns: the one with the lowest number.
        let oldest = columns
            .iter()
            .filter_map(|c| c.first_element_child())
            .min_by_key(|line| number(line.get_attribute(SEQ_ATTRIBUTE)));
        let Some(line) = oldest else { break };
        remove_line(&line);
        shown -= 1;
    }
    (shown, trimmed)
}

/// Removes a line: its span and the newline after it.
fn remove_line(line: &Element) {
    if let Some(newline) = line.next_sibling().filter(|n| n.node_type() == Node::TEXT_NODE) {
        if let Some(parent) = newline.parent_node() {
            let _ = parent.remove_child(&newline);
        }
    }
    line.remove();
}

fn find(scope: &Element, selector: &str) -> Option<Element> {
    scope.query_selector(selector).ok().flatten()
}

fn all(scope: &Element, selector: &str) -> Vec<Element> {
    let Ok(list) = scope.query_selector_all(selector) else { return vec![] };
    (0..list.length()).filter_map(|i| list.item(i)?.dyn_into::<Element>().ok()).collect()
}

fn number(text: Option<String>) -> u64 {
    text.and_then(|t| t.trim().parse().ok()).unwrap_or(0)
}
