//! `/callstack/{pause_id}`: the stack at the moment a call paused. A snapshot: it does not
//! change while the call stays paused.

use breakroom_debugger::model::{CallStackView, FrameView, PauseReason};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::{get_call_stack, server_resource};
use crate::format::timestamp;
use crate::live::use_live;
use crate::pages::{NotFound, SessionLinks};

#[component]
pub fn CallStackPage() -> impl IntoView {
    let params = use_params_map();
    let pause_id = move || params.read().get("pause_id").unwrap_or_default();
    let live = use_live();
    // Sessions started on this pause show up live; the frames themselves never change.
    let stack = server_resource(move || (pause_id(), live.sessions.get()), |(id, _)| get_call_stack(id));
    view! {
        <Transition fallback=|| view! { <p class="hint">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match stack.await {
                    Err(e) => view! { <p class="error">{e.to_string()}</p> }.into_any(),
                    Ok(None) => view! { <NotFound/> }.into_any(),
                    Ok(Some(view)) => view! { <CallStack view/> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn CallStack(view: CallStackView) -> impl IntoView {
    let reason = match view.reason {
        PauseReason::Breakpoint => "paused before the call",
        PauseReason::After => "paused after the call returned",
        PauseReason::Exception => "paused on an exception",
    };
    let state = if view.still_paused { "Paused" } else { "Resumed" };
    let tree_href = format!("/call-tree/{}?selected={}", view.process_key, view.call_id);
    let frame_count = view.frames.len();
    view! {
        <header class="page-header">
            <h1>"Call Stack for " <span class="fn-name">{view.function_name.clone()}</span></h1>
            <span class=format!("badge {}", state.to_ascii_lowercase())>{state}</span>
            <dl class="meta">
                <dt>"process"</dt><dd class="pid">{view.pid}</dd>
                <dt>"paused at"</dt><dd>{timestamp(view.paused_at)}</dd>
                <dt>"reason"</dt><dd>{reason}</dd>
            </dl>
            <nav class="links">
                <a class="button" href=tree_href>"View Call Tree"</a>
            </nav>
        </header>
        <section class="related">
            <h2>"REPL sessions on this pause"</h2>
            <SessionLinks sessions=view.sessions.clone() empty="None yet: open one from the Paused page while the call is paused."/>
        </section>
        <section>
            <h2>{format!("{frame_count} frames, innermost first")}</h2>
            {if view.frames.is_empty() {
                view! { <p class="hint">"The client sent no stack for this call."</p> }.into_any()
            } else {
                view! {
                    <ol class="frames">
                        {view.frames.into_iter().enumerate().map(|(i, frame)| view! { <Frame frame open=i == 0/> }).collect_view()}
                    </ol>
                }.into_any()
            }}
        </section>
    }
}

/// A frame: where it is and the line it was at; expands to the source around that line.
#[component]
fn Frame(frame: FrameView, open: bool) -> impl IntoView {
    let has_source = !frame.source_lines.is_empty();
    let lineno = frame.lineno;
    let start = frame.source_start;
    let summary = view! {
        <summary>
            <span class="fn-name">{frame.function.clone()}</span>
            <span class="where">{format!("{}:{}", frame.filename, frame.lineno)}</span>
            {frame.code_context.clone().map(|c| view! { <code class="context">{c}</code> })}
        </summary>
    };
    let source = has_source.then(|| {
        view! {
            <pre class="source">
                {frame.source_lines.iter().enumerate().map(|(i, line)| {
                    let n = start + i as i64;
                    let class = if n == lineno { "line current" } else { "line" };
                    view! { <span class=class><span class="lineno">{format!("{n:>5} ")}</span>{line.clone()}"\n"</span> }
                }).collect_view()}
            </pre>
        }
    });
    let locals = (!frame.locals.is_empty()).then(|| {
        view! { <p class="locals hint">"locals: " <code>{frame.locals.join(", ")}</code></p> }
    });
    view! {
        <li class="frame">
            <details open=open && has_source>
                {summary}
                {source}
                {locals}
            </details>
        </li>
    }
}
