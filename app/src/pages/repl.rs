//! `/repl/{pid}-{timestamp}`: one REPL session, live while its call is paused, read-only after.
//! The draft, the busy state and the input history position live at page level: the session
//! is re-rendered whenever it changes (here or in another tab), and typing must survive that.

use breakroom_debugger::model::{ReplSession, TranscriptEntry};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::{eval_in_session, get_session, server_resource};
use crate::format::timestamp;
use crate::highlight;
use crate::live::use_live;
use crate::pages::NotFound;

/// Page-level state of the input box.
#[derive(Clone, Copy)]
struct PromptState {
    draft: RwSignal<String>,
    /// The input being evaluated, while the paused program works on it.
    busy: RwSignal<Option<String>>,
    error: RwSignal<Option<String>>,
    /// Position in the input history while walking it with ↑/↓, and the draft put aside.
    history_pos: RwSignal<Option<usize>>,
    stash: RwSignal<String>,
    focused: RwSignal<bool>,
}

#[component]
pub fn ReplPage() -> impl IntoView {
    let params = use_params_map();
    let session_id = move || params.read().get("session_id").unwrap_or_default();
    let live = use_live();
    let session = server_resource(move || (session_id(), live.sessions.get()), |(id, _)| get_session(id));
    let state = PromptState {
        draft: RwSignal::new(String::new()),
        busy: RwSignal::new(None),
        error: RwSignal::new(None),
        history_pos: RwSignal::new(None),
        stash: RwSignal::new(String::new()),
        focused: RwSignal::new(false),
    };
    view! {
        <Transition fallback=|| view! { <p class="hint">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match session.await {
                    Err(e) => view! { <p class="error">{e.to_string()}</p> }.into_any(),
                    Ok(None) => view! { <NotFound/> }.into_any(),
                    Ok(Some(s)) => view! { <Session session=s state/> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Session(session: ReplSession, state: PromptState) -> impl IntoView {
    let active = session.is_active();
    let status = if active { "Active" } else { "Closed" };
    let call_text = {
        let mut parts: Vec<String> = session.pretty_args.iter().map(value_text).collect();
        parts.extend(session.pretty_kwargs.iter().map(|(k, v)| format!("{k}={}", value_text(v))));
        parts.join(", ")
    };
    let tree_href = match &session.call_id {
        Some(call) => format!("/call-tree/{}?selected={call}", session.process_key),
        None => format!("/call-tree/{}", session.process_key),
    };
    let history: Vec<String> = session.transcript.iter().map(|e| e.input.clone()).collect();
    let times: std::sync::Arc<Vec<f64>> = std::sync::Arc::new(
        std::iter::once(session.started_at).chain(session.transcript.iter().map(|e| e.timestamp)).collect(),
    );
    let replay = Replay::new();
    view! {
        <header class="page-header session-header">
            <h1>
                <span class="fn-name">{session.function_name.clone()}</span>
                <span class="args">"(" {call_text} ")"</span>
            </h1>
            <span class=format!("badge {}", status.to_ascii_lowercase())>{status}</span>
            <dl class="meta">
                <dt>"session"</dt><dd class="mono">{session.session_id.clone()}</dd>
                <dt>"process"</dt><dd class="pid">{session.pid}</dd>
                <dt>"started"</dt><dd>{timestamp(session.started_at)}</dd>
                <dt>"closed"</dt><dd>{session.closed_at.map(timestamp).unwrap_or_else(|| "—".into())}</dd>
            </dl>
            <nav class="links">
                <a class="button" href=format!("/callstack/{}", session.pause_id)>"View Call Stack"</a>
                <a class="button" href=tree_href>"View Call Tree"</a>
                <a class="button" href=format!("/api/events?session_id={}&format=jsonl", session.session_id)
                    download=format!("breakroom-{}.jsonl", session.session_id)
                    title="This session's recorded events, for `breakroom replay FILE`">"Events (.jsonl)"</a>
            </nav>
        </header>
        {session.transcript.is_empty().then(|| view! {
            <p class="hint">{if active {
                "Type Python below: it runs inside the paused program, with the call's variables in scope."
            } else {
                "This session ended without any input."
            }}</p>
        })}
        {(!active && !session.transcript.is_empty()).then(|| view! { <ReplayControls replay times=times.clone()/> })}
        <ol class="transcript">
            {session.transcript.iter().enumerate().map(|(i, e)| view! {
                <Entry entry=e.clone() hidden=Signal::derive(move || replay.shown.get().is_some_and(|n| i >= n))/>
            }).collect_view()}
        </ol>
        {if active {
            view! { <Prompt session_id=session.session_id.clone() history state/> }.into_any()
        } else {
            let note = match &session.closed_reason {
                Some(reason) => format!("Session closed — {reason}"),
                None => "Breakpoint resumed — session closed".to_string(),
            };
            view! { <p class="closed-note">{note}</p> }.into_any()
        }}
    }
}

/// Replaying a closed session's transcript: its entries appear again at the pace they were
/// first answered (each gap at most 5 s), faster or slower with the speed control.
#[derive(Clone, Copy)]
struct Replay {
    /// While replaying, how many entries are shown; None shows them all.
    shown: RwSignal<Option<usize>>,
    speed: RwSignal<f64>,
    /// Bumped by every start and stop, so a timer from an earlier run does nothing.
    run: RwSignal<u64>,
}

impl Replay {
    fn new() -> Self {
        Replay { shown: RwSignal::new(None), speed: RwSignal::new(1.0), run: RwSignal::new(0) }
    }

    fn stop(self) {
        self.run.update(|r| *r += 1);
        self.shown.set(None);
    }

    /// `times[0]` is the session start, then one time per entry.
    fn start(self, times: std::sync::Arc<Vec<f64>>) {
        self.run.update(|r| *r += 1);
        self.shown.set(Some(0));
        self.step(times, self.run.get_untracked());
    }

    fn step(self, times: std::sync::Arc<Vec<f64>>, run: u64) {
        let Some(n) = self.shown.get_untracked() else { return };
        if n + 1 >= times.len() {
            self.shown.set(None);
            return;
        }
        let gap = (times[n + 1] - times[n]).clamp(0.0, 5.0) / self.speed.get_untracked().max(0.01);
        set_timeout(
            move || {
                if self.run.get_untracked() == run {
                    self.shown.set(Some(n + 1));
                    self.step(times, run);
                }
            },
            std::time::Duration::from_secs_f64(gap),
        );
    }
}

#[component]
fn ReplayControls(replay: Replay, times: std::sync::Arc<Vec<f64>>) -> impl IntoView {
    let total = times.len() - 1;
    view! {
        <div class="replay">
            {move || match replay.shown.get() {
                None => view! {
                    <button class="replay-start" on:click={
                        let times = times.clone();
                        move |_| replay.start(times.clone())
                    }>"▶ Replay"</button>
                }.into_any(),
                Some(n) => view! {
                    <button class="replay-stop" on:click=move |_| replay.stop()>"■ Stop"</button>
                    <span class="replay-progress">{format!("Replaying: {n} of {total}")}</span>
                }.into_any(),
            }}
            <label class="hint">"speed "
                <select class="replay-speed" on:change=move |ev| {
                    if let Ok(speed) = event_target_value(&ev).parse::<f64>() {
                        replay.speed.set(speed);
                    }
                }>
                    <option value="0.5">"0.5×"</option>
                    <option value="1" selected>"1×"</option>
                    <option value="2">"2×"</option>
                    <option value="4">"4×"</option>
                </select>
            </label>
        </div>
    }
}

fn value_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[component]
fn Entry(entry: TranscriptEntry, #[prop(into)] hidden: Signal<bool>) -> impl IntoView {
    let output = (!entry.output.is_empty()).then(|| {
        let class = if entry.is_error { "output error" } else { "output" };
        view! { <pre class=class>{entry.output.clone()}</pre> }
    });
    let stdout = (!entry.stdout.is_empty()).then(|| view! { <pre class="stdout">{entry.stdout.clone()}</pre> });
    let object = entry.result_cid.clone().map(|cid| {
        view! { <a class="object-link hint" href=format!("/object/{cid}") title="the stored value">"stored value"</a> }
    });
    view! {
        <li class=if entry.is_error { "entry failed" } else { "entry" } class:replay-hidden=move || hidden.get()>
            <InputLines text=entry.input.clone()/>
            {stdout}
            {output}
            {object}
        </li>
    }
}

/// REPL input as the Python prompt shows it (`>>> `, then `... `), highlighted as Python.
#[component]
fn InputLines(text: String) -> impl IntoView {
    let lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let last = lines.len() - 1;
    view! {
        <pre class="input">
            {lines.into_iter().enumerate().map(|(i, line)| view! {
                <span class="prompt">{if i == 0 { ">>> " } else { "... " }}</span>
                {highlight::tokens(&line).into_iter().map(|(kind, piece)| view! {
                    <span class=kind.class()>{piece}</span>
                }).collect_view()}
                {(i < last).then_some("\n")}
            }).collect_view()}
        </pre>
    }
}

/// The input box: Enter evaluates, Shift+Enter adds a line, ↑/↓ walk the session's inputs.
#[component]
fn Prompt(session_id: String, history: Vec<String>, state: PromptState) -> impl IntoView {
    let live = use_live();
    let textarea = NodeRef::<leptos::html::Textarea>::new();
    let PromptState { draft, busy, error, history_pos, stash, focused } = state;
    let submit = move || {
        let expr = draft.get_untracked();
        if expr.trim().is_empty() || busy.get_untracked().is_some() {
            return;
        }
        busy.set(Some(expr.clone()));
        error.set(None);
        history_pos.set(None);
        let session_id = session_id.clone();
        leptos::task::spawn_local(async move {
            let outcome = eval_in_session(session_id, expr).await;
            busy.set(None);
            match outcome {
                Ok(_) => draft.set(String::new()),
                Err(e) => error.set(Some(e.to_string())),
            }
            live.sessions.update(|n| *n += 1);
        });
    };
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        let key = ev.key();
        if key == "Enter" && !ev.shift_key() {
            ev.prevent_default();
            submit();
            return;
        }
        if (key != "ArrowUp" && key != "ArrowDown") || ev.shift_key() || ev.alt_key() || history.is_empty() {
            return;
        }
        let text = draft.get_untracked();
        let caret = textarea.get_untracked().and_then(|t| t.selection_start().ok().flatten()).unwrap_or(0) as usize;
        let before: String = text.chars().take(caret).collect();
        let on_first_line = !before.contains('\n');
        let on_last_line = !text.chars().skip(caret).any(|c| c == '\n');
        let pos = history_pos.get_untracked();
        let next = match (key.as_str(), pos) {
            ("ArrowUp", _) if !on_first_line => return,
            ("ArrowDown", _) if !on_last_line => return,
            ("ArrowUp", None) => {
                stash.set(text);
                Some(history.len() - 1)
            }
            ("ArrowUp", Some(p)) => Some(p.saturating_sub(1)),
            ("ArrowDown", Some(p)) if p + 1 < history.len() => Some(p + 1),
            ("ArrowDown", Some(_)) => None,
            _ => return,
        };
        ev.prevent_default();
        history_pos.set(next);
        draft.set(match next {
            Some(p) => history[p].clone(),
            None => stash.get_untracked(),
        });
    };
    // Re-rendered after every change of the session: keep the newest entry and the input in
    // view, and the focus where it was.
    Effect::new(move |_| {
        let running = busy.get().is_some();
        if let (Some(element), false) = (textarea.get(), running) {
            let options = web_sys::ScrollIntoViewOptions::new();
            options.set_block(web_sys::ScrollLogicalPosition::End);
            element.scroll_into_view_with_scroll_into_view_options(&options);
            if focused.get_untracked() {
                let _ = element.focus();
            }
        }
    });
    view! {
        {move || busy.get().map(|expr| view! {
            <div class="entry pending"><InputLines text=expr/>
            <p class="hint busy">"running in the paused program…"</p></div>
        })}
        <div class="prompt-box" class:busy=move || busy.get().is_some()>
            <span class="prompt-sign" aria-hidden="true">">>>"</span>
            <textarea
                node_ref=textarea
                class="repl-input"
                rows="3"
                spellcheck="false"
                autocomplete="off"
                aria-label="Python input"
                placeholder="Python expression or statement — Enter runs it, Shift+Enter adds a line, ↑/↓ recall earlier inputs"
                prop:value=move || draft.get()
                on:input=move |ev| {
                    draft.set(event_target_value(&ev));
                    history_pos.set(None);
                }
                on:keydown=on_keydown
                on:focus=move |_| focused.set(true)
                // Disabling the box while an eval runs blurs it; that is not the user leaving.
                on:blur=move |_| {
                    if busy.get_untracked().is_none() {
                        focused.set(false);
                    }
                }
                prop:disabled=move || busy.get().is_some()
            ></textarea>
        </div>
        {move || error.get().map(|e| view! { <p class="error">{e}</p> })}
    }
}
