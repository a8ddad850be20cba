//! Server HTML refetched after a live event lands in the page by patching what is shown, not by
//! replacing it (issue 45): an element whose HTML did not change is not touched, a card or a row
//! that moved is moved (told apart by its record's id), and only changed attributes and texts are
//! written. So what the reader typed, opened or focused stays as it was, wherever the update
//! came from, with no list of fields to save and restore.
//!
//! Form controls follow the browser's own rule: a text field the reader has typed in keeps its
//! text when the server's `value` changes (the field is "dirty"); one not typed in shows the
//! server's. Menus and checkboxes show the server's state, which must win: they act at once.

use wasm_bindgen::JsCast;
use web_sys::{DocumentFragment, Element, Node};

/// The attributes that name the record an element shows: a paused call, a breakpoint by name or
/// by id, a process. Elements with one are matched by it, wherever they moved to.
const KEYS: [&str; 5] =
    [crate::parts::PAUSE_ID, "data-breakpoint", crate::parts::RECORD, crate::parts::PROCESS_ID, "id"];

/// Makes `shown`'s children what `html` says, touching as little as it can.
pub fn patch(shown: &Element, html: &str) {
    if let Some(fresh) = inert(html) {
        children(shown, &fresh);
    }
}

/// Makes `shown` itself what `html`, one element fetched alone (a breakpoint's form), says;
/// false when the reply is not an element like it (the same tag, the same record).
pub fn patch_element(shown: &Element, html: &str) -> bool {
    let Some(fresh) = inert(html).and_then(|f| f.first_child()) else { return false };
    if !alike(shown, &fresh) {
        return false;
    }
    node(shown, &fresh);
    true
}

/// `html` parsed into a template's content, which is inert: nothing in it loads or runs while
/// it is compared or moved into the page. Every reply of server HTML is read through this.
pub fn inert(html: &str) -> Option<DocumentFragment> {
    let template = leptos::prelude::document().create_element("template").ok()?;
    template.set_inner_html(html);
    js_sys::Reflect::get(&template, &"content".into()).ok()?.dyn_into::<DocumentFragment>().ok()
}

fn key(node: &Node) -> Option<String> {
    let element = node.dyn_ref::<Element>()?;
    KEYS.iter().find_map(|name| element.get_attribute(name).map(|value| format!("{name}={value}")))
}

fn alike(old: &Node, new: &Node) -> bool {
    if old.node_type() != new.node_type() {
        return false;
    }
    match (old.dyn_ref::<Element>(), new.dyn_ref::<Element>()) {
        (Some(a), Some(b)) => a.tag_name() == b.tag_name() && key(old) == key(new),
        _ => true,
    }
}

/// The old sibling from `from` on that shows the record `wanted`.
fn keyed(from: Option<Node>, wanted: &str) -> Option<Node> {
    let mut at = from;
    while let Some(node) = at {
        if key(&node).as_deref() == Some(wanted) {
            return Some(node);
        }
        at = node.next_sibling();
    }
    None
}

fn children(old_parent: &Node, new_parent: &Node) {
    let mut old = old_parent.first_child();
    let mut new = new_parent.first_child();
    while let Some(fresh) = new {
        new = fresh.next_sibling();
        match old.clone() {
            Some(here) if alike(&here, &fresh) => {
                node(&here, &fresh);
                old = here.next_sibling();
            }
            Some(here) => match key(&fresh).and_then(|k| keyed(here.next_sibling(), &k)) {
                // The record is further on: bring it here, unchanged where it did not change.
                Some(moved) => {
                    let _ = old_parent.insert_before(&moved, Some(&here));
                    node(&moved, &fresh);
                }
                None => {
                    let _ = old_parent.insert_before(&fresh, Some(&here));
                }
            },
            None => {
                let _ = old_parent.append_child(&fresh);
            }
        }
    }
    while let Some(gone) = old {
        old = gone.next_sibling();
        let _ = old_parent.remove_child(&gone);
    }
}

fn node(old: &Node, new: &Node) {
    let (Some(old_element), Some(new_element)) = (old.dyn_ref::<Element>(), new.dyn_ref::<Element>()) else {
        if old.node_value() != new.node_value() {
            old.set_node_value(new.node_value().as_deref());
        }
        return;
    };
    attributes(old_element, new_element);
    children(old, new);
    server_state_wins(old_element);
}

fn attributes(old: &Element, new: &Element) {
    let names = |element: &Element| -> Vec<String> {
        element.get_attribute_names().iter().filter_map(|name| name.as_string()).collect()
    };
    for name in names(new) {
        let value = new.get_attribute(&name);
        if old.get_attribute(&name) != value {
            let _ = old.set_attribute(&name, value.as_deref().unwrap_or(""));
        }
    }
    // A `<details>` the reader opened stays open.
    let opened = |name: &str| name == "open" && old.tag_name() == "DETAILS";
    for name in names(old) {
        if !new.has_attribute(&name) && !opened(&name) {
            let _ = old.remove_attribute(&name);
        }
    }
}

/// A checkbox's tick and a menu's choice are what the server says (they act as soon as they
/// change, so the server's state is the reader's last choice, or its refusal).
fn server_state_wins(element: &Element) {
    let property = match element.tag_name().as_str() {
        "INPUT" if matches!(element.get_attribute("type").as_deref(), Some("checkbox" | "radio")) => "checked",
        "OPTION" => "selected",
        _ => return,
    };
    let attribute = element.has_attribute(property);
    let _ = js_sys::Reflect::set(element, &property.into(), &attribute.into());
}
