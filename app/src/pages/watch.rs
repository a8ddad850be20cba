//! The debug page's watch expressions (issue 45), in the sidebar above the variables: each is
//! read at every stop and after every eval, in the variables panel's round trip, read-only as a
//! snapshot breakpoint's expressions are (the server refuses one that would write; the program's
//! guard stops one that would run the program's own code). The list is this browser's, kept in its local storage, so it follows the
//! reader from pause to pause as an editor's watch list does.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Where the list is kept: one expression per line (the input is one line), as the server
/// function (`variables_html`) takes it.
const STORAGE_KEY: &str = "breakroom.watch";
/// The server's limit (`snapshots::MAX_WATCHES`): the form stops adding past it.
const MAX_WATCHES: usize = breakroom_debugger::snapshots::MAX_WATCHES;

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

// The list is one string throughout (what is stored, what is sent): the page's wasm has string
// signals already, and a list type of its own would cost a few KB more (measured).
fn kept() -> String {
    storage().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten()).unwrap_or_default()
}

fn keep(list: String) -> String {
    if let Some(storage) = storage() {
        let _ = storage.set_item(STORAGE_KEY, &list);
    }
    list
}

/// The list (`expressions`, one per line; empty on the server and until hydrated, so both
/// render the same) and the rows read for it (`rows`, filled by the variables panel's fetch).
#[component]
pub fn WatchPanel(expressions: RwSignal<String>, rows: RwSignal<String>) -> impl IntoView {
    Effect::new(move |_| expressions.set(kept()));
    let input = NodeRef::<leptos::html::Input>::new();
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(input) = input.get_untracked() else { return };
        let text = input.value().trim().to_string();
        let list = expressions.get_untracked();
        if text.is_empty() || list.lines().any(|e| e == text) || list.lines().count() >= MAX_WATCHES {
            return;
        }
        let list = if list.is_empty() { text } else { list + "\n" + &text };
        expressions.set(keep(list));
        input.set_value("");
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(target) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
        if target.closest(".watch-remove").ok().flatten().is_none() {
            return;
        }
        let Some(row) = target.closest(".watch-row").ok().flatten() else { return };
        let Some(text) = row.get_attribute("data-expression") else { return };
        let all = expressions.get_untracked();
        let list: Vec<&str> = all.lines().filter(|e| *e != text).collect();
        expressions.set(keep(list.join("\n")));
    };
    view! {
        <aside class="watch-panel" aria-label="Watch">
            <h2>"Watch"</h2>
            <form class="watch-add" on:submit=on_submit>
                <input class="watch-input" name="watch" type="text" autocomplete="off" spellcheck="false"
                    placeholder="Add an expression" aria-label="Add a watch expression" node_ref=input/>
            </form>
            <p class="hint" hidden=move || expressions.with(|list| !list.is_empty())>
                "Read at each stop, read-only: nothing here can change the program. At most 20."
            </p>
            <div class="watch-body" inner_html=move || rows.get() on:click=on_click></div>
        </aside>
    }
}
