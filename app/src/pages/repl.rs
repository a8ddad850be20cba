//! `/repl/{pid}-{timestamp}`: one REPL session, live while its call is paused, read-only after.

use breakroom_debugger::model::{ReplSession, TranscriptEntry};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::{eval_in_session, get_session};
use crate::format::timestamp;
use crate::live::use_live_tick;
use crate::pages::NotFound;

#[component]
pub fn ReplPage() -> impl IntoView {
    let params = use_params_map();
    let session_id = move || params.read().get("session_id").unwrap_or_default();
    let tick = use_live_tick();
    let session = Resource::new(move || (session_id(), tick.get()), |(id, _)| get_session(id));
    view! {
        <Transition fallback=|| view! { <p class="hint">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match session.await {
                    Err(e) => view! { <p class="error">{e.to_string()}</p> }.into_any(),
                    Ok(None) => view! { <NotFound/> }.into_any(),
                    Ok(Some(s)) => view! { <Session session=s/> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Session(session: ReplSession) -> impl IntoView {
    let active = session.is_active();
    let status = if active { "Active" } else { "Closed" };
    view! {
        <header class="session-header">
            <h1><span class="fn-name">{session.function_name.clone()}</span></h1>
            <span class=format!("badge {}", status.to_lowercase())>{status}</span>
            <dl class="meta">
                <dt>"session"</dt><dd class="mono">{session.session_id.clone()}</dd>
                <dt>"started"</dt><dd>{timestamp(session.started_at)}</dd>
                <dt>"closed"</dt><dd>{session.closed_at.map(timestamp).unwrap_or_else(|| "—".into())}</dd>
            </dl>
        </header>
        <ol class="transcript">
            {session.transcript.iter().map(|e| view! { <Entry entry=e.clone()/> }).collect_view()}
        </ol>
        {if active {
            view! { <Prompt session_id=session.session_id.clone()/> }.into_any()
        } else {
            view! { <p class="closed-note">"Breakpoint resumed — session closed"</p> }.into_any()
        }}
    }
}

#[component]
fn Entry(entry: TranscriptEntry) -> impl IntoView {
    let output = (!entry.output.is_empty()).then(|| {
        let class = if entry.is_error { "output error" } else { "output" };
        view! { <pre class=class>{entry.output.clone()}</pre> }
    });
    let stdout = (!entry.stdout.is_empty()).then(|| view! { <pre class="stdout">{entry.stdout.clone()}</pre> });
    view! {
        <li class="entry">
            <InputLines text=entry.input.clone()/>
            {stdout}
            {output}
        </li>
    }
}

/// REPL input as the Python prompt shows it: `>>> ` on the first line, `... ` on the rest.
#[component]
fn InputLines(text: String) -> impl IntoView {
    let lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let last = lines.len() - 1;
    view! {
        <pre class="input">
            {lines.into_iter().enumerate().map(|(i, line)| view! {
                <span class="prompt">{if i == 0 { ">>> " } else { "... " }}</span>{line}{(i < last).then_some("\n")}
            }).collect_view()}
        </pre>
    }
}

/// The input box: Enter evaluates, Shift+Enter adds a line.
#[component]
fn Prompt(session_id: String) -> impl IntoView {
    let tick = use_live_tick();
    let text = RwSignal::new(String::new());
    let busy = RwSignal::new(None::<String>);
    let error = RwSignal::new(None::<String>);
    let submit = move || {
        let expr = text.get_untracked();
        if expr.trim().is_empty() || busy.get_untracked().is_some() {
            return;
        }
        busy.set(Some(expr.clone()));
        error.set(None);
        let session_id = session_id.clone();
        leptos::task::spawn_local(async move {
            let outcome = eval_in_session(session_id, expr).await;
            busy.set(None);
            match outcome {
                Ok(_) => text.set(String::new()),
                Err(e) => error.set(Some(e.to_string())),
            }
            tick.update(|t| *t += 1);
        });
    };
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        if ev.key() == "Enter" && !ev.shift_key() {
            ev.prevent_default();
            submit();
        }
    };
    view! {
        {move || busy.get().map(|expr| view! {
            <div class="entry pending"><InputLines text=expr/>
            <p class="hint">"running in the paused program…"</p></div>
        })}
        <div class="prompt-box">
            <textarea
                class="repl-input"
                rows="3"
                spellcheck="false"
                placeholder="Python expression or statement — Enter runs it, Shift+Enter adds a line"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
                on:keydown=on_keydown
                prop:disabled=move || busy.get().is_some()
            ></textarea>
        </div>
        {move || error.get().map(|e| view! { <p class="error">{e}</p> })}
    }
}
