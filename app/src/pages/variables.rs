//! The REPL page's variables panel: the paused frame's locals and the session's names, as HTML
//! from the server, refreshed after each eval; a row's toggle fetches one more level under it.
//! The same round trip reads the watch expressions (`watch.rs` holds their list and shows them).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::live::use_live;
use crate::repl_helpers::{expand_html, variables_html, PANELS_SPLIT};

#[component]
pub fn VariablesPanel(
    session_id: String,
    /// The watch expressions, one per line, read with the variables.
    watches: RwSignal<String>,
    /// Where their rows go.
    watched: RwSignal<String>,
) -> impl IntoView {
    let live = use_live();
    let session_id = StoredValue::new(session_id);
    let html = RwSignal::new(String::from(r#"<p class="hint">Loading variables…</p>"#));
    // Only the newest answer is shown: an older one may arrive after it.
    let asked = StoredValue::new(0u64);
    // Every entry of this session (an eval here or in another tab) may have changed the frame,
    // and a watch added or removed changes the list; another session's entries do not (see
    // `Live::sessions`).
    Effect::new(move |_| {
        live.sessions.track();
        let list = watches.get();
        let id = session_id.get_value();
        let this = asked.get_value() + 1;
        asked.set_value(this);
        leptos::task::spawn_local(async move {
            let answer = variables_html(id, list).await;
            // A newer request was made, or the panel is gone (the page re-rendered its sidebar
            // while this one was on its way): either way this answer is not shown.
            if asked.try_get_value() != Some(this) {
                return;
            }
            match answer {
                Ok(both) => {
                    let (watch_rows, rows) = both.split_once(PANELS_SPLIT).unwrap_or(("", &both));
                    watched.set(watch_rows.to_string());
                    html.set(rows.to_string());
                }
                Err(e) => html.set(format!(r#"<p class="error">{}</p>"#, escape(&e.to_string()))),
            }
        });
    });
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(target) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
        let Some(toggle) = target.closest(".var-toggle").ok().flatten() else { return };
        let Some(children) = toggle.parent_element().and_then(|row| row.query_selector(".var-children").ok().flatten())
        else {
            return;
        };
        if toggle.get_attribute("aria-expanded").as_deref() == Some("true") {
            let _ = children.set_attribute("hidden", "");
            let _ = toggle.set_attribute("aria-expanded", "false");
            toggle.set_text_content(Some("▸"));
            return;
        }
        let path = toggle.get_attribute("data-path").unwrap_or_default();
        let id = session_id.get_value();
        leptos::task::spawn_local(async move {
            let inner = match expand_html(id, path, 0).await {
                Ok(inner) => inner,
                Err(e) => format!(r#"<li class="error">{}</li>"#, escape(&e.to_string())),
            };
            children.set_inner_html(&inner);
            let _ = children.remove_attribute("hidden");
            let _ = toggle.set_attribute("aria-expanded", "true");
            toggle.set_text_content(Some("▾"));
        });
    };
    view! {
        <aside class="variables-panel" aria-label="Variables">
            <h2>"Variables"</h2>
            <div class="var-body" inner_html=move || html.get() on:click=on_click></div>
        </aside>
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
