pub mod call_tree;
pub mod callstack;
pub mod object;
pub mod paused;
pub mod repl;
pub mod repls;

use breakroom_debugger::model::SessionLink;
use leptos::prelude::*;

#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <section class="empty not-found">
            <h1>"Not found"</h1>
            <p>"Nothing lives at this address. " <a href="/">"See what is paused"</a> " or "
                <a href="/repls">"search past REPL sessions"</a> "."</p>
        </section>
    }
}

/// Links to REPL sessions, with their state, or a hint when there are none.
#[component]
pub fn SessionLinks(sessions: Vec<SessionLink>, empty: &'static str) -> impl IntoView {
    if sessions.is_empty() {
        return view! { <p class="hint">{empty}</p> }.into_any();
    }
    view! {
        <ul class="session-links">
            {sessions.into_iter().map(|s| {
                let status = if s.active { "Active" } else { "Closed" };
                view! {
                    <li>
                        <a class="mono" href=format!("/repl/{}", s.session_id)>{s.session_id.clone()}</a>
                        " " <span class=format!("badge {}", status.to_ascii_lowercase())>{status}</span>
                        <span class="hint">{format!(" {} lines", s.entries)}</span>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
    .into_any()
}
