//! `/`: every paused call, live, with Open REPL, Continue, Skip and Raise; and the breakpoints
//! with their behaviours, which decide what pauses.

use breakroom_debugger::model::{BreakpointView, PauseReason, PausedCall};
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

use crate::api::{
    add_breakpoint, continue_call, get_breakpoints, list_paused, raise_in_call, remove_breakpoint, server_resource,
    set_breakpoint_behavior, set_global_behavior, set_replacement, skip_call, start_repl,
};
use crate::format::timestamp;
use crate::live::use_live;

#[component]
pub fn PausedPage() -> impl IntoView {
    let live = use_live();
    let paused = server_resource(move || live.pauses.get(), |_| list_paused());
    view! {
        <h1>"Paused calls"</h1>
        <Transition fallback=|| view! { <p class="hint">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match paused.await {
                    Err(e) => view! { <p class="error">{e.to_string()}</p> }.into_any(),
                    Ok(calls) if calls.is_empty() => view! {
                        <section class="empty">
                            <p>"Nothing is paused."</p>
                            <p class="hint">
                                "Wrap a function with " <code>"breakroom.with_debug(fn)"</code>
                                " (or call " <code>"breakroom.set_trace()"</code> ") in a program run with "
                                <code>"BREAKROOM_URL"</code>
                                " pointing here; the call shows up on this page when it pauses."
                            </p>
                        </section>
                    }.into_any(),
                    Ok(calls) => view! {
                        <ul class="paused-list">
                            {calls.into_iter().map(|call| view! { <PausedCard call/> }).collect_view()}
                        </ul>
                    }.into_any(),
                }
            })}
        </Transition>
        <Breakpoints/>
    }
}

/// Where an action reports: its error signal, and the live counters to bump when it worked
/// (the change also arrives as an event; bumping makes this tab not wait for it).
#[derive(Clone, Copy)]
struct Outcome {
    error: RwSignal<Option<String>>,
    live: crate::live::Live,
}

impl Outcome {
    fn new() -> Self {
        Outcome { error: RwSignal::new(None), live: use_live() }
    }
}

/// A server function call that answers with nothing but success or an error.
type ServerAction = std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), ServerFnError>>>>;

/// Runs a server action from a button or a form. Boxed, so the wasm holds one copy of this for
/// every kind of action.
fn act(outcome: Outcome, action: ServerAction) {
    let Outcome { error, live } = outcome;
    error.set(None);
    leptos::task::spawn_local(async move {
        match action.await {
            Ok(()) => live.bump_all(),
            Err(e) => error.set(Some(e.to_string())),
        }
    });
}

#[component]
fn PausedCard(call: PausedCall) -> impl IntoView {
    let outcome = Outcome::new();
    let error = outcome.error;
    let skip_value = RwSignal::new(String::new());
    let raise_type = RwSignal::new(String::from("RuntimeError"));
    let raise_message = RwSignal::new(String::new());
    let pause_id = call.pause_id.clone();
    let open_repl = {
        let pause_id = pause_id.clone();
        move |_| {
            let pause_id = pause_id.clone();
            let navigate = use_navigate();
            leptos::task::spawn_local(async move {
                match start_repl(pause_id).await {
                    Ok(session_id) => navigate(&format!("/repl/{session_id}"), Default::default()),
                    Err(e) => error.set(Some(e.to_string())),
                }
            });
        }
    };
    let resume = {
        let pause_id = pause_id.clone();
        move |_| {
            let pause_id = pause_id.clone();
            act(outcome, Box::pin(continue_call(pause_id)));
        }
    };
    let skip = {
        let pause_id = pause_id.clone();
        move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            let (pause_id, value) = (pause_id.clone(), skip_value.get_untracked());
            act(outcome, Box::pin(skip_call(pause_id, value)));
        }
    };
    let raise = {
        let pause_id = pause_id.clone();
        move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            let (pause_id, kind, message) =
                (pause_id.clone(), raise_type.get_untracked(), raise_message.get_untracked());
            act(outcome, Box::pin(raise_in_call(pause_id, kind, message)));
        }
    };
    let (reason_class, reason) = match call.reason {
        PauseReason::Breakpoint => ("breakpoint", "before the call"),
        PauseReason::After => ("after", "after the call returned"),
        PauseReason::Exception => ("exception", "on an exception"),
    };
    // Skip and raise replace running the call: only a call that has not run yet can take them.
    let before_call = call.reason == PauseReason::Breakpoint && call.result_text.is_none();
    let existing = call.active_sessions.last().cloned();
    view! {
        <li class=format!("paused-card reason-{reason_class}") data-pause-id=call.pause_id.clone()>
            <div class="call">
                <span class="fn-name">{call.function_name.clone()}</span>
                "(" <span class="args">{call.args_text.join(", ")}</span> ")"
                {call.result_text.clone().map(|r| view! { <span class="result">" → " {r}</span> })}
            </div>
            <dl class="meta">
                <dt>"process"</dt><dd class="pid">{call.pid}</dd>
                <dt>"paused at"</dt><dd>{timestamp(call.paused_at)}</dd>
                <dt>"reason"</dt><dd class="reason">{reason}</dd>
            </dl>
            <div class="actions">
                {match existing {
                    Some(sid) => view! { <a class="button primary" href=format!("/repl/{sid}")>"Go to open REPL"</a> }.into_any(),
                    None => view! { <button class="primary" on:click=open_repl>"Open REPL"</button> }.into_any(),
                }}
                <button on:click=resume>"Continue"</button>
                <a class="button" href=format!("/callstack/{}", call.pause_id)>"Call stack"</a>
            </div>
            {before_call.then(|| view! {
                <details class="more-actions">
                    <summary>"Skip or raise instead of running the call"</summary>
                    <form class="inline" on:submit=skip>
                        <label>"Return value (JSON) "
                            <input type="text" name="value" placeholder="null" prop:value=move || skip_value.get()
                                on:input=move |ev| skip_value.set(event_target_value(&ev))/>
                        </label>
                        <button type="submit">"Skip"</button>
                    </form>
                    <form class="inline" on:submit=raise>
                        <label>"Exception " <input type="text" name="type" size="14" prop:value=move || raise_type.get()
                            on:input=move |ev| raise_type.set(event_target_value(&ev))/></label>
                        <label>"message " <input type="text" name="message" prop:value=move || raise_message.get()
                            on:input=move |ev| raise_message.set(event_target_value(&ev))/></label>
                        <button type="submit" class="danger">"Raise"</button>
                    </form>
                </details>
            })}
            {move || error.get().map(|e| view! { <p class="error">{e}</p> })}
        </li>
    }
}

const BEFORE: &[(&str, &str)] = &[("stop", "pause"), ("go", "run"), ("yield", "follow global")];
const AFTER: &[(&str, &str)] = &[
    ("go", "run on"),
    ("stop", "pause after"),
    ("exception", "pause on exception"),
    ("stop_exception", "pause after, and on exception"),
    ("yield", "follow global"),
];
const GLOBAL: &[(&str, &str)] = &[
    ("stop", "pause at breakpoints"),
    ("go", "run everything"),
    ("exception", "pause on exceptions"),
    ("stop_exception", "pause at breakpoints and on exceptions"),
];

#[component]
fn Breakpoints() -> impl IntoView {
    let live = use_live();
    let breakpoints = server_resource(move || live.breakpoints.get(), |_| get_breakpoints());
    let outcome = Outcome::new();
    let error = outcome.error;
    let new_name = RwSignal::new(String::new());
    let add = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let name = new_name.get_untracked();
        if name.trim().is_empty() {
            return;
        }
        new_name.set(String::new());
        act(outcome, Box::pin(add_breakpoint(name)));
    };
    view! {
        <section class="breakpoints">
            <h2>"Breakpoints"</h2>
            <Transition fallback=|| view! { <p class="hint">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match breakpoints.await {
                        Err(e) => view! { <p class="error">{e.to_string()}</p> }.into_any(),
                        Ok(view) => {
                            let global = view.global_behavior.as_str().to_string();
                            view! {
                                <label class="global">"When a call has no breakpoint of its own: "
                                    <BehaviorSelect options=GLOBAL current=global outcome on_change=behavior_change(set_global_behavior)/>
                                </label>
                                {if view.breakpoints.is_empty() {
                                    view! { <p class="hint">"No breakpoints. Wrapping a function with "
                                        <code>"with_debug"</code> " adds one on its name; or add one here."</p> }.into_any()
                                } else {
                                    view! {
                                        <div class="table-wrap">
                                        <table class="breakpoint-table">
                                            <thead><tr><th>"Function"</th><th>"Before the call"</th><th>"After the call"</th>
                                                <th>"Replace with"</th><th></th></tr></thead>
                                            <tbody>
                                                {view.breakpoints.into_iter().map(|bp| view! { <BreakpointRow bp outcome/> }).collect_view()}
                                            </tbody>
                                        </table>
                                        </div>
                                    }.into_any()
                                }}
                            }.into_any()
                        }
                    }
                })}
            </Transition>
            <form class="inline add-breakpoint" on:submit=add>
                <input type="text" placeholder="function name" aria-label="Function name"
                    prop:value=move || new_name.get() on:input=move |ev| new_name.set(event_target_value(&ev))/>
                <button type="submit">"Add breakpoint"</button>
            </form>
            {move || error.get().map(|e| view! { <p class="error">{e}</p> })}
        </section>
    }
}

#[component]
fn BreakpointRow(bp: BreakpointView, outcome: Outcome) -> impl IntoView {
    let name = bp.function_name.clone();
    let (n1, n2, n3, n4) = (name.clone(), name.clone(), name.clone(), name.clone());
    let current_replacement = bp.replacement.clone().unwrap_or_default();
    let replace_options = bp.replacements.clone();
    view! {
        <tr data-breakpoint=name.clone()>
            <td class="fn-name">{name.clone()}
                {bp.signature.clone().map(|s| view! { <span class="hint signature">{s}</span> })}</td>
            <td><BehaviorSelect options=BEFORE current=bp.behavior.as_str().to_string() outcome
                on_change=behavior_change(move |b| set_breakpoint_behavior(n1.clone(), "before".into(), b))/></td>
            <td><BehaviorSelect options=AFTER current=bp.after_behavior.as_str().to_string() outcome
                on_change=behavior_change(move |b| set_breakpoint_behavior(n2.clone(), "after".into(), b))/></td>
            <td>
                {if replace_options.is_empty() && current_replacement.is_empty() {
                    view! { <span class="hint">"—"</span> }.into_any()
                } else {
                    let mut options = vec![(String::new(), "(itself)".to_string())];
                    options.extend(replace_options.iter().map(|r| (r.clone(), r.clone())));
                    view! {
                        <select aria-label="Replacement" on:change=move |ev| {
                            let (name, value) = (n3.clone(), event_target_value(&ev));
                            act(outcome, Box::pin(set_replacement(name, value)));
                        }>
                            {options.into_iter().map(|(value, label)| {
                                let selected = value == current_replacement;
                                view! { <option value=value selected=selected>{label}</option> }
                            }).collect_view()}
                        </select>
                    }.into_any()
                }}
            </td>
            <td><button class="small" on:click=move |_| {
                let name = n4.clone();
                act(outcome, Box::pin(remove_breakpoint(name)));
            }>"Remove"</button></td>
        </tr>
    }
}

/// What a behaviour menu does with the behaviour picked.
type BehaviorChange = std::sync::Arc<dyn Fn(String) -> ServerAction + Send + Sync>;

fn behavior_change<Fut>(change: impl Fn(String) -> Fut + Send + Sync + 'static) -> BehaviorChange
where
    Fut: std::future::Future<Output = Result<(), ServerFnError>> + 'static,
{
    std::sync::Arc::new(move |behavior| Box::pin(change(behavior)))
}

#[component]
fn BehaviorSelect(
    options: &'static [(&'static str, &'static str)],
    current: String,
    outcome: Outcome,
    on_change: BehaviorChange,
) -> impl IntoView {
    view! {
        <select aria-label="Behaviour" on:change=move |ev| act(outcome, on_change(event_target_value(&ev)))>
            {options.iter().map(|(value, label)| {
                let selected = *value == current;
                view! { <option value=*value selected=selected>{*label}</option> }
            }).collect_view()}
        </select>
    }
}
