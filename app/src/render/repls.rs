//! `/repls`: the filter form (a plain GET form: it works without wasm) and one page of sessions.

use maud::{html, Markup};

use breakroom_debugger::model::{SessionPage, SessionSummary};

use super::{encode, options, titled};
use crate::format::{thousands, timestamp};

/// `/repls`'s filters, as the URL carries them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filters {
    pub search: String,
    pub status: String,
    pub from: String,
    pub to: String,
    pub page: usize,
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

pub fn sessions(page: &SessionPage<SessionSummary>, filters: &Filters) -> String {
    let pages = page.total.div_ceil(page.per_page.max(1));
    // Past the count's cap there are more pages than the count says: "20+", and always an older one.
    let more = if page.total_is_lower_bound { "+" } else { "" };
    let has_older = page.page < pages || page.total_is_lower_bound && !page.sessions.is_empty();
    let first = (page.page.max(1) - 1) * page.per_page + 1;
    let last = (first + page.sessions.len()).saturating_sub(1);
    let statuses = [("", "All"), ("active", "Active"), ("closed", "Closed")];
    let body = html! {
        form.filters method="get" action="/repls" {
            input type="search" name="search" placeholder="Search function names and transcripts" value=(filters.search) aria-label="Search";
            label { "Status " select name="status" { (options(statuses, &filters.status)) } }
            label { "From " input type="date" name="from" value=(filters.from); }
            label { "To " input type="date" name="to" value=(filters.to); }
            button.primary type="submit" { "Search" }
            a.button href="/repls" { "Clear" }
        }
        @if page.total == 0 {
            @if filters.href(1) != "/repls" {
                section.empty { p { "No session matches these filters. " a href="/repls" { "Show all sessions" } } }
            } @else {
                section.empty {
                    p { "No REPL sessions yet." }
                    p.hint {
                        "Open a REPL on a paused call (on " a href="/" { "the Paused page" }
                        "); every session is listed here, with its transcript searchable."
                    }
                }
            }
        } @else {
            p.hint.count { (first) "–" (last) " of " (thousands(page.total)) (more) " sessions" }
            div.table-wrap {
                table.sessions {
                    thead { tr {
                        th { "Session" } th { "Function" } th { "Status" } th { "Started" } th { "Closed" }
                        th { "Lines" } th { "Call stack" }
                    } }
                    tbody {
                        @for s in &page.sessions { (session_row(s)) }
                    }
                }
            }
            @if pages > 1 || has_older {
                nav.pagination aria-label="Pages" {
                    @if page.page > 1 {
                        a rel="prev" href=(filters.href(page.page - 1)) { "← Newer" }
                    }
                    span { "Page " (page.page) " of " (pages) (more) }
                    @if has_older {
                        a rel="next" href=(filters.href(page.page + 1)) { "Older →" }
                    }
                }
            }
        }
    };
    if page.total == 0 {
        // The empty pages keep the title the page gave itself.
        return body.into_string();
    }
    let title = match filters.search.trim() {
        "" => "REPL sessions".to_string(),
        search => format!("REPL sessions · {search}"),
    };
    titled(body, &title)
}

/// One session's row: in the list, and read alone when the session closes (`session_row`).
pub fn session_row(s: &SessionSummary) -> Markup {
    let status = if s.closed_at.is_none() { "Active" } else { "Closed" };
    html! {
        tr data-session-id=(s.session_id) {
            td.mono { a href={ "/repl/" (s.session_id) } { (s.session_id) } }
            td.fn-name { (s.function_name) }
            td { span class={ "badge " (status.to_ascii_lowercase()) } { (status) } }
            td { (timestamp(s.started_at)) }
            td { (s.closed_at.map(timestamp).unwrap_or_else(|| "—".into())) }
            td.num.lines { (s.transcript_len) }
            td { a href={ "/callstack/" (s.pause_id) } { "Call stack" } }
        }
    }
}
