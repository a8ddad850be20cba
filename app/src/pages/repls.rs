//! `/repls`: every REPL session, searchable. The filters live in the URL, so a search can be
//! bookmarked and shared, and the page works as a plain form without wasm.

use breakroom_debugger::model::{SessionPage, SessionSummary};
use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_query_map;

use crate::api::{list_sessions, server_resource};
use crate::format::timestamp;
use crate::live::use_live;

#[derive(Clone, Debug, PartialEq)]
struct Filters {
    search: String,
    status: String,
    from: String,
    to: String,
    page: usize,
}

impl Filters {
    /// The query string for these filters on another page (empty values left out).
    fn href(&self, page: usize) -> String {
        let mut parts = vec![];
        for (key, value) in [("search", &self.search), ("status", &self.status), ("from", &self.from), ("to", &self.to)]
        {
            if !value.is_empty() {
                parts.push(format!("{key}={}", encode(value)));
            }
        }
        if page > 1 {
            parts.push(format!("page={page}"));
        }
        if parts.is_empty() {
            "/repls".into()
        } else {
            format!("/repls?{}", parts.join("&"))
        }
    }
}

fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[component]
pub fn SessionsPage() -> impl IntoView {
    let query = use_query_map();
    let filters = Memo::new(move |_| {
        let q = query.read();
        let get = |k: &str| q.get(k).unwrap_or_default();
        Filters {
            search: get("search"),
            status: get("status"),
            from: get("from"),
            to: get("to"),
            page: get("page").parse().unwrap_or(1).max(1),
        }
    });
    let live = use_live();
    let sessions = server_resource(
        move || (filters.get(), live.sessions.get()),
        |(f, _)| list_sessions(f.search, f.status, f.from, f.to, f.page),
    );
    view! {
        <h1>"REPL Sessions"</h1>
        // A plain GET form: submitting loads the filtered page from the server, with or without
        // wasm (leptos_router's <Form> would add ~10 KB gzip to the wasm for a client-side fetch).
        <form method="get" action="/repls" class="filters">
            <input type="search" name="search" placeholder="Search function names and transcripts"
                prop:value=move || filters.get().search aria-label="Search"/>
            <label>"Status "
                <select name="status">
                    {[("", "All"), ("active", "Active"), ("closed", "Closed")].into_iter().map(|(value, label)| view! {
                        <option value=value selected=move || filters.get().status == value>{label}</option>
                    }).collect_view()}
                </select>
            </label>
            <label>"From " <input type="date" name="from" prop:value=move || filters.get().from/></label>
            <label>"To " <input type="date" name="to" prop:value=move || filters.get().to/></label>
            <button type="submit" class="primary">"Search"</button>
            <A href="/repls" attr:class="button">"Clear"</A>
        </form>
        <Transition fallback=|| view! { <p class="hint">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match sessions.await {
                    Err(e) => view! { <p class="error">{e.to_string()}</p> }.into_any(),
                    Ok(page) => view! { <SessionTable page filters=filters.get_untracked()/> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn SessionTable(page: SessionPage<SessionSummary>, filters: Filters) -> impl IntoView {
    if page.total == 0 {
        let filtered = filters.href(1) != "/repls";
        return view! {
            <section class="empty">
                {if filtered {
                    view! { <p>"No session matches these filters. " <a href="/repls">"Show all sessions"</a></p> }.into_any()
                } else {
                    view! {
                        <p>"No REPL sessions yet."</p>
                        <p class="hint">"Open a REPL on a paused call (on " <a href="/">"the Paused page"</a>
                            "); every session is listed here, with its transcript searchable."</p>
                    }.into_any()
                }}
            </section>
        }
        .into_any();
    }
    let pages = page.total.div_ceil(page.per_page.max(1));
    let first = (page.page - 1) * page.per_page + 1;
    let last = (first + page.sessions.len()).saturating_sub(1);
    view! {
        <p class="hint count">{format!("{first}–{last} of {} sessions", page.total)}</p>
        <div class="table-wrap">
        <table class="sessions">
            <thead><tr>
                <th>"Session"</th><th>"Function"</th><th>"Status"</th><th>"Started"</th>
                <th>"Closed"</th><th>"Lines"</th><th>"Call stack"</th>
            </tr></thead>
            <tbody>
                {page.sessions.into_iter().map(|s| {
                    let status = if s.closed_at.is_none() { "Active" } else { "Closed" };
                    view! {
                        <tr data-session-id=s.session_id.clone()>
                            <td class="mono"><a href=format!("/repl/{}", s.session_id)>{s.session_id.clone()}</a></td>
                            <td class="fn-name">{s.function_name.clone()}</td>
                            <td><span class=format!("badge {}", status.to_ascii_lowercase())>{status}</span></td>
                            <td>{timestamp(s.started_at)}</td>
                            <td>{s.closed_at.map(timestamp).unwrap_or_else(|| "—".into())}</td>
                            <td class="num">{s.transcript_len}</td>
                            <td><a href=format!("/callstack/{}", s.pause_id)>"Call stack"</a></td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
        </div>
        {(pages > 1).then(|| view! {
            <nav class="pagination" aria-label="Pages">
                {(page.page > 1).then(|| view! { <a rel="prev" href=filters.href(page.page - 1)>"← Newer"</a> })}
                <span>{format!("Page {} of {pages}", page.page)}</span>
                {(page.page < pages).then(|| view! { <a rel="next" href=filters.href(page.page + 1)>"Older →"</a> })}
            </nav>
        })}
    }
    .into_any()
}
