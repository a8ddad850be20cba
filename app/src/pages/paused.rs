//! `/`: every paused call, live, with Open REPL, Continue, Skip and Raise; and the breakpoints
//! with their behaviours, which decide what pauses.
//!
//! The server renders both lists (`crate::render::paused_calls`, `crate::render::breakpoints`);
//! their controls carry `data-action`, and this page's handlers, on the elements around them,
//! turn a click, a form's submission or a menu's change into an [`Action`].

use leptos::prelude::*;
use leptos_router::hooks::use_navigate;
use wasm_bindgen::JsCast;
use web_sys::{Element, Event, HtmlInputElement};

use crate::api::{continue_call, paused_html, raise_in_call, skip_call, start_repl};
use crate::breakpoint_api::{
    add_breakpoint_record, breakpoints_html, remove_breakpoint, remove_breakpoint_record, set_breakpoint_behavior,
    set_global_behavior, set_replacement, update_breakpoint_record,
};
use crate::controls::Control;
use crate::encoding::server_resource;
use crate::live::{use_live, Live};
use crate::pages::{field, PageTitle, ServerHtml};

#[component]
pub fn PausedPage() -> impl IntoView {
    let live = use_live();
    // Rendered once; then a pause or a session changes one card, and a checkpoint, a rewind or
    // a reconnect the whole list, one change at a time (`paused_cards`).
    let paused = server_resource(|| (), |_| paused_html());
    #[cfg(feature = "hydrate")]
    super::paused_cards::follow_cards(live);
    let navigate = use_navigate();
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some((control, action)) = action_of(&ev) else { return };
        let Some(card) = control.closest(crate::parts::PAUSED_CARD).ok().flatten() else { return };
        let pause_id = card.get_attribute(crate::parts::PAUSE_ID).unwrap_or_default();
        match action {
            Control::OpenRepl => {
                let navigate = navigate.clone();
                leptos::task::spawn_local(async move {
                    match perform(Action::OpenRepl { pause_id }).await {
                        Ok(session_id) => navigate(&format!("/repl/{session_id}"), Default::default()),
                        Err(e) => show_error(&card, Some(e)),
                    }
                });
            }
            Control::Continue => act(live, card, Action::Continue { pause_id }),
            _ => {}
        }
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        let Some((form, action)) = action_of(&ev) else { return };
        let Some(card) = form.closest(crate::parts::PAUSED_CARD).ok().flatten() else { return };
        ev.prevent_default();
        let pause_id = card.get_attribute(crate::parts::PAUSE_ID).unwrap_or_default();
        match action {
            Control::Skip => act(live, card, Action::Skip { pause_id, value: field(&form, "value") }),
            Control::Raise => {
                let (kind, message) = (field(&form, "type"), field(&form, "message"));
                act(live, card, Action::Raise { pause_id, kind, message })
            }
            _ => {}
        }
    };
    view! {
        <PageTitle text="Paused calls"/>
        <h1>"Paused calls"</h1>
        <div on:click=on_click on:submit=on_submit>
            <div class="paused-calls"><ServerHtml html=paused/></div>
        </div>
        <Breakpoints live/>
    }
}

#[component]
fn Breakpoints(live: Live) -> impl IntoView {
    // Rendered once; then a hit updates the forms of the breakpoints it counted, and a change of
    // the breakpoints or a reconnect the whole list, one change at a time (`breakpoint_hits`).
    let breakpoints = server_resource(|| (), |_| breakpoints_html());
    #[cfg(feature = "hydrate")]
    super::breakpoint_hits::follow_hits(live);
    let section = NodeRef::<leptos::html::Section>::new();
    let scope = move || section.get_untracked().map(|s| s.unchecked_into::<Element>());
    let on_change = move |ev: Event| {
        let (Some((control, action)), Some(scope)) = (action_of(&ev), scope()) else { return };
        let name = breakpoint_of(&control);
        let value = event_target_value(&ev);
        let action = match action {
            Control::Global => Action::SetGlobalBehavior { behavior: value },
            Control::Before | Control::After => {
                Action::SetBehavior { name, which: action.as_str().to_string(), behavior: value }
            }
            Control::Replacement => Action::SetReplacement { name, replacement: value },
            _ => return,
        };
        act(live, scope, action);
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let (Some((control, action)), Some(scope)) = (action_of(&ev), scope()) else { return };
        match action {
            Control::Remove => act(live, scope, Action::RemoveBreakpoint { name: breakpoint_of(&control) }),
            Control::RemoveRecord => act(live, scope, Action::RemoveRecord { id: record_of(&control) }),
            _ => {}
        }
    };
    // The forms of breakpoints by id: add one, or save one's options as edited in place.
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        let (Some((form, action)), Some(scope)) = (action_of(&ev), scope()) else { return };
        ev.prevent_default();
        let options = || RecordOptions {
            condition: field(&form, "condition"),
            hit_condition: field(&form, "hit_condition"),
            pattern: field(&form, "pattern"),
            log_message: field(&form, "log_message"),
        };
        let action = match action {
            Control::AddRecord => Action::AddRecord {
                kind: field(&form, "kind"),
                target: field(&form, "target"),
                options: options(),
                bounds: RecordBounds {
                    action: field(&form, "action"),
                    expressions: field(&form, "expressions"),
                    max_hits: field(&form, "max_hits"),
                    expires_in: field(&form, "expires_in"),
                    where_labels: field(&form, "where"),
                },
            },
            Control::SaveRecord => {
                Action::SaveRecord { id: record_of(&form), options: options(), enabled: checked(&form, "enabled") }
            }
            _ => return,
        };
        act(live, scope, action);
    };
    view! {
        <section class="breakpoints" node_ref=section>
            <h2>"Breakpoints"</h2>
            <div on:change=on_change on:click=on_click on:submit=on_submit>
                <ServerHtml html=breakpoints/>
            </div>
            <p class="error" hidden></p>
        </section>
    }
}

/// The control (an element with `data-action`) an event came from, and its action.
fn action_of(ev: &Event) -> Option<(Element, Control)> {
    let target: Element = ev.target()?.dyn_into().ok()?;
    let control = target.closest("[data-action]").ok()??;
    let action = Control::parse(&control.get_attribute("data-action")?)?;
    Some((control, action))
}

/// The function name of the breakpoint row a control is in.
fn breakpoint_of(control: &Element) -> String {
    control
        .closest("[data-breakpoint]")
        .ok()
        .flatten()
        .and_then(|row| row.get_attribute("data-breakpoint"))
        .unwrap_or_default()
}

/// The id of the breakpoint form a control is in.
fn record_of(control: &Element) -> String {
    control.closest("[data-record]").ok().flatten().and_then(|f| f.get_attribute("data-record")).unwrap_or_default()
}

/// Whether a form's checkbox `name` is ticked.
fn checked(form: &Element, name: &str) -> bool {
    form.query_selector(&format!("input[name={name}]"))
        .ok()
        .flatten()
        .and_then(|input| input.dyn_into::<HtmlInputElement>().ok())
        .is_some_and(|input| input.checked())
}

/// Shows `message` in the `.error` line of `scope` (a card, the breakpoints section), or
/// clears it.
fn show_error(scope: &Element, message: Option<String>) {
    let Some(line) = scope.query_selector(":scope > .error").ok().flatten() else { return };
    line.set_text_content(message.as_deref());
    let _ = match message {
        Some(_) => line.remove_attribute("hidden"),
        None => line.set_attribute("hidden", ""),
    };
}

/// What the buttons, forms and menus of this page ask of the server.
enum Action {
    OpenRepl { pause_id: String },
    Continue { pause_id: String },
    Skip { pause_id: String, value: String },
    Raise { pause_id: String, kind: String, message: String },
    RemoveBreakpoint { name: String },
    SetBehavior { name: String, which: String, behavior: String },
    SetReplacement { name: String, replacement: String },
    SetGlobalBehavior { behavior: String },
    AddRecord { kind: String, target: String, options: RecordOptions, bounds: RecordBounds },
    SaveRecord { id: String, options: RecordOptions, enabled: bool },
    RemoveRecord { id: String },
}

/// The options of a breakpoint's form.
struct RecordOptions {
    condition: String,
    hit_condition: String,
    pattern: String,
    log_message: String,
}

/// The add form's action, watch expressions (separated by `;`) and bounds (issue 34).
struct RecordBounds {
    action: String,
    expressions: String,
    max_hits: String,
    expires_in: String,
    where_labels: String,
}

/// Performs an action: the server functions' calls. Answers the new session's id for OpenRepl,
/// nothing for the others. (Part of the page's chunk, not a chunk of its own fetched at the first
/// click: a click followed at once by leaving the page must still reach the server.)
async fn perform(action: Action) -> Result<String, String> {
    let done = match action {
        Action::OpenRepl { pause_id } => return start_repl(pause_id).await.map_err(|e| e.to_string()),
        Action::Continue { pause_id } => continue_call(pause_id).await,
        Action::Skip { pause_id, value } => skip_call(pause_id, value).await,
        Action::Raise { pause_id, kind, message } => raise_in_call(pause_id, kind, message).await,
        Action::RemoveBreakpoint { name } => remove_breakpoint(name).await,
        Action::SetBehavior { name, which, behavior } => set_breakpoint_behavior(name, which, behavior).await,
        Action::SetReplacement { name, replacement } => set_replacement(name, replacement).await,
        Action::SetGlobalBehavior { behavior } => set_global_behavior(behavior).await,
        Action::AddRecord { kind, target, options: o, bounds: b } => {
            add_breakpoint_record(
                kind,
                target,
                o.condition,
                o.hit_condition,
                o.pattern,
                o.log_message,
                b.action,
                b.expressions,
                b.max_hits,
                b.expires_in,
                b.where_labels,
            )
            .await
        }
        Action::SaveRecord { id, options: o, enabled } => {
            update_breakpoint_record(id, o.condition, o.hit_condition, o.pattern, o.log_message, enabled).await
        }
        Action::RemoveRecord { id } => remove_breakpoint_record(id).await,
    };
    done.map(|()| String::new()).map_err(|e| e.to_string())
}

/// Runs an action from a button, a form or a menu; the page refetches what it shows when it
/// worked, and shows the error in `scope` when not.
fn act(live: Live, scope: Element, action: Action) {
    show_error(&scope, None);
    leptos::task::spawn_local(async move {
        match perform(action).await {
            Ok(_) => live.bump_all(),
            Err(e) => show_error(&scope, Some(e)),
        }
    });
}
