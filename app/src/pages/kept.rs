//! What a reader set up inside server-rendered HTML survives the refetch that replaces it: text
//! typed into an input and a `<details>` opened. Without this, any live update (another program
//! pausing, the stream reconnecting) would re-render a card and close the form being filled in.
//!
//! Elements are told apart by the record they belong to (the nearest `data-pause-id`,
//! `data-breakpoint` or `data-process-id`) and their input name or details class.

use std::collections::{HashMap, HashSet};

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement};

/// The kept state of one `ServerHtml`, across its refetches.
#[derive(Clone, Copy)]
pub struct KeptState {
    inputs: StoredValue<HashMap<String, String>>,
    open: StoredValue<HashSet<String>>,
}

const RECORD: &str = "[data-pause-id],[data-breakpoint],[data-process-id]";

fn record_of(element: &Element) -> String {
    let record = element.closest(RECORD).ok().flatten();
    let attribute = |name: &str| record.as_ref().and_then(|r| r.get_attribute(name));
    attribute("data-pause-id")
        .or_else(|| attribute("data-breakpoint"))
        .or_else(|| attribute("data-process-id"))
        .unwrap_or_default()
}

/// Text inputs only: menus and checkboxes show the server's state, which must win.
fn text_input(element: &Element) -> Option<HtmlInputElement> {
    let input = element.clone().dyn_into::<HtmlInputElement>().ok()?;
    matches!(input.type_().as_str(), "text" | "search").then_some(input)
}

fn input_key(input: &HtmlInputElement) -> String {
    format!("{}|{}", record_of(input), input.name())
}

fn details_key(details: &Element) -> String {
    format!("{}|{}", record_of(details), details.class_name())
}

impl KeptState {
    pub fn new() -> Self {
        KeptState { inputs: StoredValue::new(HashMap::new()), open: StoredValue::new(HashSet::new()) }
    }

    /// An `input` event inside the HTML: remember what was typed.
    pub fn note_input(&self, ev: &leptos::ev::Event) {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()).and_then(|e| text_input(&e)) else {
            return;
        };
        self.inputs.update_value(|inputs| {
            inputs.insert(input_key(&input), input.value());
        });
    }

    /// A click inside the HTML: a `<summary>` clicked opens or closes its details.
    pub fn note_click(&self, ev: &leptos::ev::MouseEvent) {
        let Some(target) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
        let Some(summary) = target.closest("summary").ok().flatten() else { return };
        let Some(details) = summary.parent_element() else { return };
        // The click comes before the browser toggles it.
        let opening = !details.has_attribute("open");
        let key = details_key(&details);
        self.open.update_value(|open| {
            if opening {
                open.insert(key);
            } else {
                open.remove(&key);
            }
        });
    }

    /// Puts the remembered state back into freshly rendered HTML.
    pub fn restore(&self, body: &Element) {
        if let Ok(inputs) = body.query_selector_all("input") {
            for i in 0..inputs.length() {
                let Some(input) = inputs.get(i).and_then(|n| n.dyn_into::<Element>().ok()).and_then(|e| text_input(&e))
                else {
                    continue;
                };
                if let Some(value) = self.inputs.with_value(|kept| kept.get(&input_key(&input)).cloned()) {
                    input.set_value(&value);
                }
            }
        }
        if let Ok(all) = body.query_selector_all("details") {
            for i in 0..all.length() {
                let Some(details) = all.get(i).and_then(|n| n.dyn_into::<Element>().ok()) else { continue };
                if self.open.with_value(|open| open.contains(&details_key(&details))) {
                    let _ = details.set_attribute("open", "");
                }
            }
        }
    }
}
