//! `/runtimes` (the live workspaces, their idle countdown, a form to open one) and
//! `/runtime/{workspace}` (a terminal for bash and one for Python, in two tabs, each with the
//! REPL page's transcript look and keyboard: Enter runs, Shift+Enter adds a line, ↑/↓ recall;
//! and the workspace's state). Entries are HTML rendered by the server.

use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_params_map};
use wasm_bindgen::JsCast;

use crate::encoding::server_resource;
use crate::live::use_live;
use crate::pages::input_history::recall;
use crate::pages::ServerHtml;
use crate::runtime_api::{runtime_earlier_html, runtime_exec_html, runtime_reset, runtime_state_html, runtimes_html};

#[component]
pub fn RuntimesPage() -> impl IntoView {
    // Read again when a workspace starts or ends a command, is reset or ends (an admin's page:
    // the stream tells admins alone); the idle countdown runs in the page meanwhile.
    let live = use_live();
    super::count_down();
    let list = server_resource(move || (live.runtimes.get(), live.reconnects.get()), |_| runtimes_html());
    let navigate = use_navigate();
    let name = NodeRef::<leptos::html::Input>::new();
    let error = RwSignal::new(None::<String>);
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let text = name.get().map(|i| i.value()).unwrap_or_default();
        let text = text.trim();
        let valid =
            (1..=64).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if !valid {
            error.set(Some("A workspace name is 1 to 64 characters of A-Z a-z 0-9 . _ -".into()));
            return;
        }
        error.set(None);
        navigate(&format!("/runtime/{text}"), Default::default());
    };
    view! {
        <h1>"Runtimes"</h1>
        <p class="hint">"A long-lived bash and Python per workspace: variables, imports, "<code>"cd"</code>" and "
            <code>"export"</code>" persist between commands; a workspace unused for its idle timeout is ended."</p>
        <ServerHtml html=list/>
        <form class="launch-form open-workspace" on:submit=on_submit>
            <label>"Workspace " <input type="text" name="workspace" class="mono" placeholder="my-task" aria-label="Workspace" node_ref=name/></label>
            <button type="submit">"Open"</button>
        </form>
        {move || error.get().map(|e| view! { <p class="error">{e}</p> })}
    }
}

const LANGUAGES: [&str; 2] = ["bash", "python"];

#[component]
pub fn RuntimePage() -> impl IntoView {
    let params = use_params_map();
    let workspace = move || params.read().get("workspace").unwrap_or_default();
    let tab = RwSignal::new("bash");
    // Bumped after every command and reset: the state panel is fetched again.
    let version = RwSignal::new(0u32);
    // So is a command or a reset from elsewhere (another tab, an agent over MCP): any
    // workspace's, as the event counter says (an admin has few).
    let live = use_live();
    let state = server_resource(
        move || (workspace(), version.get(), live.runtimes.get(), live.reconnects.get()),
        |(ws, ..)| runtime_state_html(ws),
    );
    let error = RwSignal::new(String::new());
    let reset = move |_| {
        let ws = params.read_untracked().get("workspace").unwrap_or_default();
        leptos::task::spawn_local(async move {
            match runtime_reset(ws).await {
                Ok(()) => error.set(String::new()),
                Err(e) => error.set(e.to_string()),
            }
            version.update(|v| *v += 1);
        });
    };
    view! {
        <div class="session-header">
            <h1>"Runtime · " <span class="mono">{workspace}</span></h1>
            <button class="reset" on:click=reset title="End both processes; the next command starts fresh ones">"Reset"</button>
            <a href="/runtimes">"All workspaces"</a>
        </div>
        <div class="tabs" role="tablist">
            {LANGUAGES.map(|language| view! {
                <button role="tab" class="tab" data-language=language
                    aria-selected=move || (tab.get() == language).to_string()
                    on:click=move |_| tab.set(language)>{if language == "bash" { "bash" } else { "Python" }}</button>
            })}
        </div>
        {LANGUAGES.map(|language| view! { <Terminal language tab version/> })}
        <p class="error" hidden=move || error.with(String::is_empty)>{move || error.get()}</p>
        <ServerHtml html=state/>
    }
}

/// The inputs of one terminal, oldest first (its entries carry them).
fn inputs(language: &str) -> Vec<String> {
    let selector = format!(".terminal[data-language={language}] .entry");
    let Ok(list) = document().query_selector_all(&selector) else { return vec![] };
    (0..list.length())
        .filter_map(|i| list.item(i)?.dyn_into::<web_sys::Element>().ok())
        .filter_map(|e| e.get_attribute("data-input"))
        .collect()
}

#[component]
fn Terminal(language: &'static str, tab: RwSignal<&'static str>, version: RwSignal<u32>) -> impl IntoView {
    let params = use_params_map();
    let workspace = move || params.read().get("workspace").unwrap_or_default();
    // Earlier commands are fetched once, in the browser, and put above the new ones (a second
    // kind of resource on this page would cost its own copy of the resource code in the wasm).
    let earlier = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        let ws = workspace();
        leptos::task::spawn_local(async move {
            if let (Ok(Some(html)), Some(list)) =
                (runtime_earlier_html(ws, language.to_string()).await, earlier.get_untracked())
            {
                list.set_inner_html(&html);
            }
        });
    });
    // New entries are the server's HTML, appended as they come (no keyed list in the wasm).
    // The input is read and written through the DOM, and the pending command is the server's
    // too: each signal and conditional view here is bytes in every download of this page.
    let entries = NodeRef::<leptos::html::Div>::new();
    let busy = RwSignal::new(false);
    let error = RwSignal::new(String::new());
    let history_pos = RwSignal::new(None::<usize>);
    let stash = RwSignal::new(String::new());
    let textarea = NodeRef::<leptos::html::Textarea>::new();
    let input = move || textarea.get_untracked().map(|t| t.value()).unwrap_or_default();
    let set_input = move |text: &str| {
        if let Some(t) = textarea.get_untracked() {
            t.set_value(text);
        }
    };
    let submit = move || {
        let command = input();
        if command.trim().is_empty() || busy.get_untracked() {
            return;
        }
        busy.set(true);
        error.set(String::new());
        history_pos.set(None);
        let pending = r#"<div class="entry pending"><pre class="input"></pre><p class="hint busy">running…</p></div>"#;
        if let Some(list) = entries.get_untracked() {
            let _ = list.insert_adjacent_html("beforeend", pending);
            if let Some(pre) = list.last_element_child().and_then(|e| e.first_element_child()) {
                pre.set_text_content(Some(&command));
            }
        }
        let ws = params.read_untracked().get("workspace").unwrap_or_default();
        leptos::task::spawn_local(async move {
            let reply = runtime_exec_html(ws, language.to_string(), command).await;
            if let Some(list) = entries.get_untracked() {
                if let Some(pending) = list.last_element_child() {
                    pending.remove();
                }
                match reply {
                    Ok(html) => {
                        let _ = list.insert_adjacent_html("beforeend", &html);
                        set_input("");
                    }
                    Err(e) => error.set(e.to_string()),
                }
            }
            busy.set(false);
            version.update(|v| *v += 1);
            if let Some(element) = textarea.get_untracked() {
                let _ = element.focus();
            }
        });
    };
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        let key = ev.key();
        if key == "Enter" && !ev.shift_key() {
            ev.prevent_default();
            submit();
            return;
        }
        if (key != "ArrowUp" && key != "ArrowDown") || ev.shift_key() || ev.alt_key() {
            return;
        }
        let history = inputs(language);
        let text = input();
        let caret = textarea.get_untracked().and_then(|t| t.selection_start().ok().flatten()).unwrap_or(0) as usize;
        let Some(step) = recall(&key, &text, caret, history.len(), history_pos.get_untracked()) else { return };
        ev.prevent_default();
        if step.stash_draft {
            stash.set(text);
        }
        history_pos.set(step.to);
        match step.to {
            Some(p) => set_input(&history[p]),
            None => set_input(&stash.get_untracked()),
        }
    };
    let (sign, label) = if language == "bash" { ("$", "bash command") } else { (">>>", "Python input") };
    view! {
        <section class="terminal" data-language=language role="tabpanel" hidden=move || tab.get() != language>
            <div class="transcript">
                <div class="earlier-entries" node_ref=earlier></div>
                <div class="new-entries" node_ref=entries></div>
            </div>
            <div class="prompt-box" class:busy=move || busy.get()>
                <span class="prompt-sign" aria-hidden="true">{sign}</span>
                <textarea node_ref=textarea class="repl-input runtime-input" rows="3" spellcheck="false" autocomplete="off"
                    aria-label=label
                    placeholder="Enter runs it, Shift+Enter adds a line, ↑/↓ recall earlier inputs"
                    on:input=move |_| history_pos.set(None)
                    on:keydown=on_keydown
                    prop:disabled=move || busy.get()></textarea>
            </div>
            <p class="error" hidden=move || error.with(String::is_empty)>{move || error.get()}</p>
        </section>
    }
}
