//! `/repl/{pid}-{timestamp}`: one REPL session, live while its call is paused, read-only after.
//! The server renders the session's header and debug toolbar (refetched when a pause changes);
//! the transcript is typed data the page holds and appends to (`crate::pages::transcript`). The
//! draft, the busy state and the input history position live at page level: the header and the
//! input box below it are re-rendered when the session's pause changes, and typing must survive
//! that.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use wasm_bindgen::JsCast;

use crate::api::{eval_in_session, repl_page, repl_transcript, ACTIVE_SESSION, SIDEBAR_SLOT, TRANSCRIPT_SLOT};
use crate::controls::Control;
use crate::debug_api::debug_action;
use crate::encoding::{resource, server_resource, Hydrates};
use crate::live::use_live;
use crate::pages::input_history::recall;
use crate::pages::repl_complete::{Completer, CompletionList, Completions};
use crate::pages::transcript::{entries, TranscriptState};
use crate::pages::variables::VariablesPanel;
use crate::pages::watch::WatchPanel;
use crate::pages::{title_in, NotFound, PageTitle, ServerHtml};

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
    /// The open completion list, if any.
    completions: RwSignal<Option<Completions>>,
    /// The page is hydrated: until then the box is disabled, so a key pressed early is visibly
    /// not taken instead of silently lost.
    ready: RwSignal<bool>,
}

#[component]
pub fn ReplPage() -> impl IntoView {
    let params = use_params_map();
    let session_id = move || params.read().get("session_id").unwrap_or_default();
    let session_id_untracked = move || params.read_untracked().get("session_id").unwrap_or_default();
    let live = use_live();
    // Bumped after a debug action of this page: its header shows where the program is now.
    let refresh = RwSignal::new(0u64);
    // And by a pause, Continue or step of this session's program, or its own start or close:
    // the header (with the tasks it asks the program for) follows nothing else of the pauses.
    // Time travel and reconnects are `live.processes`.
    Effect::new(move |first: Option<()>| {
        let named = live.paused.with(|event| {
            event.as_deref().map(|e| (crate::live::read(e, "process_key"), crate::live::read(e, "session_id")))
        });
        let Some((key, session)) = named.filter(|_| first.is_some()) else { return };
        let header = document().query_selector(crate::parts::SESSION_HEADER).ok().flatten();
        let mine = header.and_then(|h| h.get_attribute(crate::parts::PROCESS_KEY));
        if (key.is_some() && key == mine) || session.is_some_and(|s| s == session_id_untracked()) {
            refresh.update(|n| *n += 1);
        }
    });
    // Read here (its parts, whether the session is active), not shown as it is: it hydrates whole.
    let head = resource(
        move || (session_id(), live.processes.get(), refresh.get()),
        |(id, _, _)| repl_page(id),
        Hydrates::Whole,
    );
    let opened = server_resource(session_id, repl_transcript);
    let state = PromptState {
        draft: RwSignal::new(String::new()),
        busy: RwSignal::new(None),
        error: RwSignal::new(None),
        history_pos: RwSignal::new(None),
        stash: RwSignal::new(String::new()),
        focused: RwSignal::new(false),
        completions: RwSignal::new(None),
        ready: RwSignal::new(false),
    };
    // Effects run in the browser only, once the page is hydrated.
    Effect::new(move |_| state.ready.set(true));
    let transcript = TranscriptState::new(session_id_untracked());
    let replay = Replay::new(transcript);
    Effect::new(move |_| replay.show(replay.shown.get()));
    // This session's entries come with the live events that announce them.
    Effect::new(move |_| {
        let id = session_id();
        transcript.set_session(id.clone());
        live.watching.set(Some(id));
    });
    on_cleanup(move || live.watching.set(None));
    Effect::new(move |_| {
        live.appended.track();
        for event in live.appended.try_update_untracked(std::mem::take).unwrap_or_default() {
            transcript.add_event(&event);
        }
    });
    // Events missed while the stream was away: fetch the entries after the last one held.
    Effect::new(move |opened_before: Option<()>| {
        live.reconnects.track();
        if opened_before.is_some() {
            transcript.catch_up();
        }
    });
    let loading = || view! { <p class="hint">"Loading…"</p> };
    // The header's HTML: the sidebar's part, the rest split where the transcript goes, and
    // whether the session is active.
    let head_parts = move || async move {
        head.await.map(|page| {
            page.map(|html| {
                let active = html.starts_with(ACTIVE_SESSION);
                let (side, main) = html.split_once(SIDEBAR_SLOT).unwrap_or(("", &html));
                let side = side.strip_prefix(ACTIVE_SESSION).unwrap_or(side);
                let (above, below) = main.split_once(TRANSCRIPT_SLOT).unwrap_or((main, ""));
                let parts = HeadParts { side: side.to_string(), above: above.to_string(), below: below.to_string() };
                (parts, active, title_in(&html))
            })
        })
    };
    // Two parts, each its own: the header, its foot, the input box and the sidebar (stack and
    // variables panel) follow the session's pause; the transcript follows its entries. The grid
    // puts the transcript between header and foot, the sidebar beside them (style/main.css,
    // `.repl-layout`).
    view! {
        <div class="repl-layout">
            <Transition fallback=loading>
                {move || Suspend::new(async move {
                    match head_parts().await {
                        Err(e) => view! { <p class="error">{e.to_string()}</p> }.into_any(),
                        Ok(None) => view! { <NotFound/> }.into_any(),
                        Ok(Some((HeadParts { side, above, below }, active, title))) => {
                            let session_id = params.read_untracked().get("session_id").unwrap_or_default();
                            let title = title.map(|text| view! { <PageTitle text/> });
                            let prompt = active.then(|| view! { <Prompt session_id=session_id.clone() state transcript/> });
                            let sidebar = (active || !side.trim().is_empty())
                                .then(|| view! { <SessionSide html=side session_id=session_id.clone() active refresh/> });
                            view! {
                                {title}
                                <SessionHead html=above session_id active replay refresh/>
                                <div class="page-body repl-foot" inner_html=below></div>
                                {prompt}
                                {sidebar}
                            }
                            .into_any()
                        }
                    }
                })}
            </Transition>
            <div class="transcript-area" on:click=move |ev| transcript.on_click(&ev)>
                <ServerHtml html=opened/>
            </div>
        </div>
    }
}

/// The server's HTML of the REPL page, in the places the page puts it.
struct HeadParts {
    /// The stack, for the sidebar.
    side: String,
    /// Header, debug toolbar and source, above the transcript.
    above: String,
    /// The closing note, below it.
    below: String,
}

/// Sends a debug control's action (see render::debug) to the server: a step's stop then
/// arrives as a live event, and everything else refetches the header.
fn debug_act(session_id: String, refresh: RwSignal<u64>) -> impl Fn(String, String) + Clone + 'static {
    move |action: String, arg: String| {
        let session_id = session_id.clone();
        leptos::task::spawn_local(async move {
            let _ = debug_action(session_id, action, arg).await;
            refresh.update(|n| *n += 1);
        });
    }
}

/// The debug control a click landed in, as its `data-action` and `data-arg`.
fn clicked_control(target: &web_sys::Element) -> Option<(String, String)> {
    let control = target.closest(".debug-control").ok().flatten()?;
    let attribute = |name: &str| control.get_attribute(name).unwrap_or_default();
    Some((attribute("data-action"), attribute("data-arg")))
}

/// The sidebar (issue 45): the stack (server HTML; a click selects a frame) and, while the
/// session is active, the watch expressions and the variables panel, beside the main column for the page's whole height.
#[component]
fn SessionSide(html: String, session_id: String, active: bool, refresh: RwSignal<u64>) -> impl IntoView {
    let act = debug_act(session_id.clone(), refresh);
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(target) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
        if let Some((action, arg)) = clicked_control(&target) {
            act(action, arg);
        }
    };
    let panels = active.then(|| {
        let (watches, watched) = (RwSignal::new(String::new()), RwSignal::new(String::new()));
        view! {
            <WatchPanel expressions=watches rows=watched/>
            <VariablesPanel session_id watches watched/>
        }
    });
    view! {
        <div class="repl-sidebar">
            <div class="page-body debug-side" inner_html=html on:click=on_click></div>
            {panels}
        </div>
    }
}

/// The session's header, debug toolbar and replay controls (server HTML): its debug controls
/// act on the program, and F5/F10/F11 do the same while the session is active.
#[component]
fn SessionHead(
    html: String,
    session_id: String,
    active: bool,
    replay: Replay,
    refresh: RwSignal<u64>,
) -> impl IntoView {
    let act = debug_act(session_id, refresh);
    if active {
        let act = act.clone();
        let keys = window_event_listener(leptos::ev::keydown, move |ev| {
            let control = match (ev.key().as_str(), ev.shift_key()) {
                ("F5", _) => Control::Continue,
                ("F10", _) => Control::StepOver,
                ("F11", true) => Control::StepOut,
                ("F11", false) => Control::StepInto,
                _ => return,
            };
            ev.prevent_default();
            act(control.as_str().to_string(), String::new());
        });
        on_cleanup(move || keys.remove());
    }
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(target) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
        if let Some((action, arg)) = clicked_control(&target) {
            act(action, arg);
        } else if target.closest(".replay-start").ok().flatten().is_some() {
            replay.start();
        } else if target.closest(".replay-stop").ok().flatten().is_some() {
            replay.stop();
        }
    };
    // The menu's own values, not a float parser (its tables alone are 10 KB of wasm).
    let on_change = move |ev: leptos::ev::Event| {
        let speed = match event_target_value(&ev).as_str() {
            "0.5" => 0.5,
            "2" => 2.0,
            "4" => 4.0,
            _ => 1.0,
        };
        replay.speed.set(speed);
    };
    view! { <div class="page-body repl-head" inner_html=html on:click=on_click on:change=on_change></div> }
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
    transcript: TranscriptState,
}

impl Replay {
    fn new(transcript: TranscriptState) -> Self {
        Replay { shown: RwSignal::new(None), speed: RwSignal::new(1.0), run: RwSignal::new(0), transcript }
    }

    /// Shows the first `shown` entries (all for None), and the controls for that state.
    fn show(self, shown: Option<usize>) {
        let document = document();
        let entries = entries();
        let total = entries.len();
        for (i, entry) in entries.into_iter().enumerate() {
            let _ = entry.class_list().toggle_with_force("replay-hidden", shown.is_some_and(|n| i >= n));
        }
        let set_hidden = |selector: &str, hidden: bool| {
            if let Ok(Some(element)) = document.query_selector(selector) {
                let _ = if hidden { element.set_attribute("hidden", "") } else { element.remove_attribute("hidden") };
            }
        };
        set_hidden(".replay-start", shown.is_some());
        set_hidden(".replay-stop", shown.is_none());
        set_hidden(".replay-progress", shown.is_none());
        if let (Ok(Some(progress)), Some(n)) = (document.query_selector(".replay-progress"), shown) {
            progress.set_text_content(Some(&format!("Replaying: {n} of {total}")));
        }
    }

    fn stop(self) {
        self.run.update(|r| *r += 1);
        self.shown.set(None);
    }

    /// Replays from the start, with every entry loaded first: the times are the session's
    /// start, then one per entry.
    fn start(self) {
        self.run.update(|r| *r += 1);
        self.shown.set(Some(0));
        let run = self.run.get_untracked();
        let begin = move || {
            self.show(Some(0));
            self.step(std::sync::Arc::new(self.transcript.times()), run);
        };
        self.transcript.load_earlier(true, begin);
    }

    fn step(self, times: std::sync::Arc<Vec<f64>>, run: u64) {
        let Some(n) = self.shown.get_untracked() else { return };
        if n + 1 >= times.len() || self.run.get_untracked() != run {
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

/// REPL input as the Python prompt shows it: `>>> `, then `... ` on every further line.
fn prompted(text: &str) -> String {
    let mut out = String::new();
    for (i, line) in text.split('\n').enumerate() {
        out.push_str(if i == 0 { ">>> " } else { "\n... " });
        out.push_str(line);
    }
    out
}

/// The input box: Enter evaluates, Shift+Enter adds a line, ↑/↓ walk the session's inputs,
/// Tab and Ctrl+Space complete.
#[component]
fn Prompt(session_id: String, state: PromptState, transcript: TranscriptState) -> impl IntoView {
    let textarea = NodeRef::<leptos::html::Textarea>::new();
    let PromptState { draft, busy, error, history_pos, stash, focused, completions, ready } = state;
    let completer = Completer { draft, list: completions, textarea, session_id: StoredValue::new(session_id.clone()) };
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
            // The answer is appended from this reply, not refetched (the live event carrying it
            // too finds it there).
            let outcome = eval_in_session(session_id, expr).await;
            busy.set(None);
            match outcome {
                Ok(entry) => {
                    transcript.add(entry);
                    draft.set(String::new());
                }
                Err(e) => error.set(Some(e.to_string())),
            }
        });
    };
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        let key = ev.key();
        if completer.on_key(&key) {
            ev.prevent_default();
            return;
        }
        let ctrl_space = key == " " && ev.ctrl_key();
        if ctrl_space || (key == "Tab" && !ev.shift_key() && !ev.ctrl_key() && !ev.alt_key() && !ev.meta_key()) {
            ev.prevent_default();
            completer.request(!ctrl_space);
            return;
        }
        if key == "Enter" && !ev.shift_key() {
            ev.prevent_default();
            submit();
            return;
        }
        if (key != "ArrowUp" && key != "ArrowDown") || ev.shift_key() || ev.alt_key() {
            return;
        }
        // The session's inputs, oldest first: the transcript's entries carry them.
        let history = transcript.inputs();
        let text = draft.get_untracked();
        let caret = textarea.get_untracked().and_then(|t| t.selection_start().ok().flatten()).unwrap_or(0) as usize;
        let Some(step) = recall(&key, &text, caret, history.len(), history_pos.get_untracked()) else { return };
        ev.prevent_default();
        if step.stash_draft {
            stash.set(text);
        }
        history_pos.set(step.to);
        draft.set(match step.to {
            Some(p) => history[p].clone(),
            None => stash.get_untracked(),
        });
    };
    // After every answer, here or another viewer's, and every re-render: keep the newest entry
    // and the input in view, and the focus where it was.
    Effect::new(move |_| {
        transcript.appended.track();
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
        <div class="repl-prompt">
        {move || busy.get().map(|expr| view! {
            <div class="entry pending"><pre class="input">{prompted(&expr)}</pre>
            <p class="hint busy">"running…"</p></div>
        })}
        <div class="prompt-box" class:busy=move || busy.get().is_some()>
            <span class="prompt-sign" aria-hidden="true">">>>"</span>
            <textarea
                node_ref=textarea
                class="repl-input"
                rows="3"
                spellcheck="false"
                autocomplete="off"
                aria-label="REPL input"
                placeholder="Enter runs, Shift+Enter adds a line, ↑/↓ history, Tab completes"
                prop:value=move || draft.get()
                on:input=move |ev| {
                    draft.set(event_target_value(&ev));
                    history_pos.set(None);
                    completions.set(None);
                }
                on:keydown=on_keydown
                on:focus=move |_| focused.set(true)
                // Disabling the box while an eval runs blurs it; that is not the user leaving.
                on:blur=move |_| {
                    if busy.get_untracked().is_none() {
                        focused.set(false);
                        completions.set(None);
                    }
                }
                disabled=move || busy.get().is_some() || !ready.get()
            ></textarea>
        </div>
        <CompletionList completer/>
        {move || error.get().map(|e| view! { <p class="error">{e}</p> })}
        </div>
    }
}
