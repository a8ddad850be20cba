//! Server functions of `/snapshots` and `/snapshots/{id}` (issue 34): what snapshot breakpoints
//! captured, as HTML the server renders (`crate::render::snapshots`, `crate::render::snapshot`).
//! The locals of a snapshot are trees of the program's values: maud escapes them, and the
//! pages' wasm needs no decoder nor view code for them.

use crate::rpc::TextRpc;
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::api::{debugger, failed, Need};

/// Snapshots a page shows unless `limit` says otherwise.
#[cfg(feature = "ssr")]
const PAGE: usize = 100;

/// A `/snapshots` list's parameters as the page sends them: empty ones (a form's "every
/// breakpoint") are no filter; `limit` is a count (anything else: a page of 100), at most 500.
#[cfg(feature = "ssr")]
struct ListParams {
    breakpoint_id: Option<String>,
    process_id: Option<String>,
    before: Option<String>,
    limit: usize,
}

#[cfg(feature = "ssr")]
fn given(value: &str) -> Option<String> {
    Some(value.trim().to_string()).filter(|v| !v.is_empty())
}

#[cfg(feature = "ssr")]
impl ListParams {
    fn read(breakpoint_id: &str, process_id: &str, before: &str, limit: &str) -> Self {
        ListParams {
            breakpoint_id: given(breakpoint_id),
            process_id: given(process_id),
            before: given(before),
            limit: limit.trim().parse::<usize>().unwrap_or(PAGE).clamp(1, 500),
        }
    }

    /// The snapshots of this list, newest first: from `before` on, or since `after`.
    fn filter(&self, after: Option<String>) -> breakroom_debugger::snapshots::SnapshotFilter {
        breakroom_debugger::snapshots::SnapshotFilter {
            breakpoint_id: self.breakpoint_id.clone(),
            process_id: self.process_id.clone(),
            before: self.before.clone(),
            after,
            limit: self.limit,
        }
    }

    fn query(&self) -> crate::render::snapshots::ListQuery<'_> {
        crate::render::snapshots::ListQuery {
            breakpoint_id: self.breakpoint_id.as_deref(),
            process_id: self.process_id.as_deref(),
            limit: self.limit,
        }
    }
}

/// `/snapshots`: the filter and the list, newest first (see [`ListParams`]).
#[server(prefix = "/rpc", endpoint = "snapshots_html", protocol = TextRpc)]
pub async fn snapshots_html(
    breakpoint_id: String,
    process_id: String,
    before: String,
    limit: String,
) -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let list = ListParams::read(&breakpoint_id, &process_id, &before, &limit);
    let found = debugger.snapshots().list(&list.filter(None)).map_err(failed)?;
    let records = debugger.breakpoints().breakpoint_records();
    let now = breakroom_debugger::ids::now();
    Ok(Some(crate::render::snapshots::snapshots_page(&records, &found, &list.query(), now)))
}

/// What a shown `/snapshots` list (the same parameters) needs since its newest row `after`: its
/// headers, and the snapshots that came since (none on a later page, `before`, which new ones
/// never reach). HTML (`crate::render::snapshots::news_fragment`); None when `after` is not a
/// snapshot id (the page then reads itself whole).
#[server(prefix = "/rpc", endpoint = "snapshot_list_news", protocol = TextRpc)]
pub async fn snapshot_list_news(
    breakpoint_id: String,
    process_id: String,
    before: String,
    limit: String,
    after: String,
) -> Result<Option<String>, ServerFnError> {
    use breakroom_debugger::snapshots::is_snapshot_id;
    let debugger = debugger(Need::Viewer)?;
    let Some(after) = given(&after).filter(|a| is_snapshot_id(a)) else { return Ok(None) };
    let list = ListParams::read(&breakpoint_id, &process_id, &before, &limit);
    let news = match list.before {
        Some(_) => vec![],
        None => debugger.snapshots().list(&list.filter(Some(after))).map_err(failed)?,
    };
    let records = debugger.breakpoints().breakpoint_records();
    let now = breakroom_debugger::ids::now();
    Ok(Some(crate::render::snapshots::news_fragment(&records, &news, &list.query(), now)))
}

/// `/snapshots/{id}`: one snapshot; None for an unknown one (the page is Not found, a 404).
#[server(prefix = "/rpc", endpoint = "snapshot_html", protocol = TextRpc)]
pub async fn snapshot_html(snapshot_id: String) -> Result<Option<String>, ServerFnError> {
    match debugger(Need::Viewer)?.snapshots().get(&snapshot_id) {
        Ok(found) => Ok(Some(crate::render::snapshot::snapshot_page(&found))),
        Err(e) if e.kind() == breakroom_debugger::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(failed(e)),
    }
}
