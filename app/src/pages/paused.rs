//! `/`: every paused call, live, with Open REPL and Continue.

use breakroom_debugger::model::{PauseReason, PausedCall};
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

use crate::api::{continue_call, list_paused, start_repl};
use crate::format::timestamp;
use crate::live::use_live_tick;

#[component]
pub fn PausedPage() -> impl IntoView {
    let tick = use_live_tick();
    let paused = Resource::new(move || tick.get(), |_| list_paused());
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
                                " and call it with " <code>"BREAKROOM_URL"</code>
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
    }
}

#[component]
fn PausedCard(call: PausedCall) -> impl IntoView {
    let tick = use_live_tick();
    let error = RwSignal::new(None::<String>);
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
    let resume = move |_| {
        let pause_id = pause_id.clone();
        leptos::task::spawn_local(async move {
            match continue_call(pause_id).await {
                Ok(()) => tick.update(|t| *t += 1),
                Err(e) => error.set(Some(e.to_string())),
            }
        });
    };
    let reason = match call.reason {
        PauseReason::Breakpoint => "before the call",
        PauseReason::After => "after the call",
        PauseReason::Exception => "on exception",
    };
    let existing = call.active_sessions.last().cloned();
    view! {
        <li class="paused-card" data-pause-id=call.pause_id.clone()>
            <div class="call">
                <span class="fn-name">{call.function_name.clone()}</span>
                "(" <span class="args">{call.args_text.join(", ")}</span> ")"
                {call.result_text.clone().map(|r| view! { <span class="result">" → " {r}</span> })}
            </div>
            <dl class="meta">
                <dt>"process"</dt><dd class="pid">{call.pid}</dd>
                <dt>"paused at"</dt><dd>{timestamp(call.paused_at)}</dd>
                <dt>"reason"</dt><dd>{reason}</dd>
            </dl>
            <div class="actions">
                {existing.map(|sid| view! { <a class="button" href=format!("/repl/{sid}")>"Go to open REPL"</a> })}
                <button class="primary" on:click=open_repl>"Open REPL"</button>
                <button on:click=resume>"Continue"</button>
            </div>
            {move || error.get().map(|e| view! { <p class="error">{e}</p> })}
        </li>
    }
}
