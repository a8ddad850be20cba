//! The process list follows process events row by row (issue 45): a process that started, was
//! attached or ended has its row fetched alone (`tracked_process_row`) and put in place; one that
//! was forgotten, or left the active list, has its row taken out with no fetch at all. The whole
//! list is fetched only when a row cannot be placed by itself: the first row of an empty list, a
//! row that moved, or a parent whose children would change depth. A call that paused or went on
//! has its process's row fetched alone too (its status).

use leptos::prelude::*;
use web_sys::Element;

use crate::live::{Live, RecordChange, RecordChangeKind};
use crate::process_api::{tracked_process_row, tracked_processes_html};

/// Follows `live.record` and `live.paused` on the list, and `live.processes` (a checkpoint or a
/// rewind; a reconnect) with the whole list. `all` is whether the page shows every recorded
/// process (read untracked).
pub fn follow_rows(live: Live, all: impl Fn() -> bool + Copy + Send + Sync + 'static) {
    // A row waiting for its fetch shows the newest state when it is fetched; a removal is kept.
    let changed = |change: &RecordChange| change.kind == RecordChangeKind::Changed;
    let push = super::one_at_a_time::follow(
        ".process-list .page-body",
        move || live.processes.track(),
        move || tracked_processes_html(all()),
        changed,
        move |change: RecordChange| async move { apply(&change, all()).await },
    );
    // Not on their first run: the last change may be from before the page opened.
    Effect::new(move |first: Option<()>| {
        let change = live.record.get();
        if let (Some(()), Some(change)) = (first, change) {
            push(change);
        }
    });
    Effect::new(move |first: Option<()>| {
        let key = live.paused.with(|p| p.as_deref().and_then(|p| crate::live::read(p, "process_key")));
        // A process with no row here is not listed (another label, or not tracked).
        if let (Some(()), Some(id)) = (first, key.and_then(|key| row_of_key(&key))) {
            push(RecordChange { process_id: id, parent_id: None, kind: RecordChangeKind::Changed });
        }
    });
}

/// The id of the row whose process has the debug protocol's key `key`.
fn row_of_key(key: &str) -> Option<String> {
    let body = rows()?;
    let rows = body.children();
    (0..rows.length())
        .filter_map(|i| rows.item(i))
        .find(|row| row.get_attribute(crate::parts::PROCESS_KEY).as_deref() == Some(key))
        .and_then(|row| row.get_attribute(crate::parts::PROCESS_ID))
}

/// Puts one change into the list; false when only a whole render can show it.
async fn apply(change: &RecordChange, all: bool) -> bool {
    let id = change.process_id.as_str();
    match change.kind {
        RecordChangeKind::Forgotten => return remove(id),
        // The full list keeps a process whose time in the active list ran out.
        RecordChangeKind::LeftList if !all => return remove(id),
        RecordChangeKind::LeftList => return true,
        RecordChangeKind::Changed => {}
    }
    let Ok(reply) = tracked_process_row(id.to_string(), all).await else { return false };
    // Not listed (another label, no longer active): as if it left.
    let Some(html) = reply else { return remove(id) };
    // An empty list has no table yet.
    let (Some(body), Some(new)) = (rows(), parse_row(&html)) else { return false };
    let after = new.get_attribute("data-after").unwrap_or_default();
    let before = |row: &Element| row.previous_element_sibling().and_then(|p| p.get_attribute(crate::parts::PROCESS_ID));
    match row(&body, id) {
        // Where it was: changed in place.
        Some(old) if before(&old).unwrap_or_default() == after => {
            let _ = old.replace_with_with_node_1(&new);
        }
        // It moved (its parent came into the list after it).
        Some(_) => return false,
        None if after.is_empty() => {
            let _ = body.prepend_with_node_1(&new);
        }
        None => {
            let Some(previous) = row(&body, &after) else { return false };
            let _ = previous.after_with_node_1(&new);
        }
    }
    show_debugged(&new, id);
    true
}

/// Takes process `id`'s row out; false when rows under it (its children) would need a new depth,
/// or the list is left empty (a whole render says "No processes.").
fn remove(id: &str) -> bool {
    let Some(body) = rows() else { return true };
    let Some(old) = row(&body, id) else { return true };
    let depth = |row: &Element| row.get_attribute("data-depth").and_then(|d| d.parse::<u32>().ok()).unwrap_or(0);
    if old.next_element_sibling().is_some_and(|next| depth(&next) > depth(&old)) {
        return false;
    }
    old.remove();
    body.child_element_count() > 0
}

/// The list's rows, once it shows a table.
fn rows() -> Option<Element> {
    document().query_selector(crate::parts::TRACKED_ROWS).ok().flatten()
}

fn row(body: &Element, id: &str) -> Option<Element> {
    body.query_selector(&format!("tr[{}=\"{}\"]", crate::parts::PROCESS_ID, css_text(id))).ok().flatten()
}

/// The `<tr>` of a reply.
fn parse_row(html: &str) -> Option<Element> {
    super::patch::inert(html)?.first_element_child()
}

/// The machine's Python process that is now tracked no longer offers Attach: its row links to it,
/// as a whole render would show it.
fn show_debugged(new: &Element, id: &str) {
    let Some(pid) = new.get_attribute("data-pid") else { return };
    let selector = format!("table.processes.local tr[data-pid=\"{}\"] td:last-child", css_text(&pid));
    let Some(cell) = document().query_selector(&selector).ok().flatten() else { return };
    let Ok(link) = document().create_element("a") else { return };
    let _ = link.set_attribute("href", &format!("/process/{id}"));
    link.set_text_content(Some("debugged"));
    cell.set_text_content(None);
    let _ = cell.append_child(&link);
}

/// A value for a quoted CSS attribute selector: ids and pids are hex and digits, anything else
/// is dropped rather than escaped.
fn css_text(value: &str) -> String {
    value.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect()
}
