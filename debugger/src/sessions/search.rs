//! Finding sessions: one page of those that match a query (`/repls`, `GET /api/repl/sessions`,
//! MCP), newest first, from the store, with the open ones matched in memory.

use crate::error::Result;
use crate::host::Stored;
use crate::model::{ReplSession, SessionPage, SessionQuery, SessionSummary};
use crate::search::Needle;
use crate::sessions::methods::SessionService;
use crate::sessions::state::{SessionHost, SessionState};
use crate::sessions::store::{SessionFilter, SessionRow};
use crate::sessions::{DEFAULT_PER_PAGE, MAX_PER_PAGE};

impl<H: SessionHost> SessionService<'_, H> {
    /// Matching sessions, newest first, one page of them, with their transcripts.
    pub fn list_sessions(&self, query: &SessionQuery) -> Result<SessionPage<ReplSession>> {
        let st = self.debugger.state();
        find_sessions(&*st, query)?.page(|row| match st.sessions().get(&row.session.session_id) {
            Some(open) => Ok(open.clone()),
            None => st.store().with_transcript(row.session),
        })
    }

    /// Sessions for index pages: the same filters and pages, without transcripts.
    pub fn session_summaries(&self, query: &SessionQuery) -> Result<SessionPage<SessionSummary>> {
        let st = self.debugger.state();
        find_sessions(&*st, query)?.page(|row| Ok(row.summary()))
    }

    /// One session as `/repls` lists it, open (from memory) or closed (from the store), read
    /// alone when it closes; None for an unknown session.
    pub fn session_summary(&self, session_id: &str) -> Result<Option<SessionSummary>> {
        let st = self.debugger.state();
        match st.sessions().get(session_id) {
            Some(open) => Ok(Some(SessionSummary::of(open))),
            None => Ok(st.store().session_row(session_id)?.map(SessionRow::summary)),
        }
    }
}

/// One page of `/repls`, as found in the store, before it is shaped for its reader.
struct FoundSessions {
    rows: Vec<SessionRow>,
    total: usize,
    total_is_lower_bound: bool,
    page: usize,
    per_page: usize,
}

impl FoundSessions {
    fn page<T>(self, each: impl FnMut(SessionRow) -> Result<T>) -> Result<SessionPage<T>> {
        let sessions = self.rows.into_iter().map(each).collect::<Result<_>>()?;
        Ok(SessionPage {
            sessions,
            total: self.total,
            total_is_lower_bound: self.total_is_lower_bound,
            page: self.page,
            per_page: self.per_page,
        })
    }
}

/// One page of sessions from the store, with the open ones matched in memory.
fn find_sessions<S: SessionState + ?Sized>(st: &S, query: &SessionQuery) -> Result<FoundSessions> {
    let needle = Needle::parse(query.search.as_deref());
    let open_matches = needle.as_ref().map(|n| st.sessions().matching(n)).unwrap_or_default();
    let per_page = match query.per_page {
        0 => DEFAULT_PER_PAGE,
        n => n.min(MAX_PER_PAGE),
    };
    let page = query.page.max(1);
    let filter = SessionFilter {
        needle: needle.as_ref(),
        open_matches: &open_matches,
        status: query.status,
        from: query.from,
        to: query.to,
        offset: (page - 1).saturating_mul(per_page),
        limit: per_page,
    };
    let found = st.store().find_sessions(&filter)?;
    Ok(FoundSessions {
        rows: found.rows,
        total: found.total,
        total_is_lower_bound: found.total_is_lower_bound,
        page,
        per_page,
    })
}
