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

/// `/snapshots`: the filter and the list, newest first. Empty parameters (a form's "every
/// breakpoint") are no filter; `limit` is a count (anything else: a page of 100), at most 500.
#[server(prefix = "/rpc", endpoint = "snapshots_html", protocol = TextRpc)]
pub async fn snapshots_html(
    breakpoint_id: String,
    process_id: String,
    before: String,
    limit: String,
) -> Result<Option<String>, ServerFnError> {
    use crate::render::snapshots::{snapshots_page, ListQuery};
    use breakroom_debugger::snapshots::SnapshotFilter;
    let debugger = debugger(Need::Viewer)?;
    let given = |value: &str| Some(value.trim().to_string()).filter(|v| !v.is_empty());
    let (breakpoint_id, process_id, before) = (given(&breakpoint_id), given(&process_id), given(&before));
    let limit = limit.trim().parse::<usize>().unwrap_or(PAGE).clamp(1, 500);
    let filter = SnapshotFilter {
        breakpoint_id: breakpoint_id.clone(),
        process_id: process_id.clone(),
        before,
        limit,
        ..Default::default()
    };
    let found = debugger.snapshots().list(&filter).map_err(failed)?;
    let query = ListQuery { breakpoint_id: breakpoint_id.as_deref(), process_id: process_id.as_deref(), limit };
    let records = debugger.breakpoints().breakpoint_records();
    Ok(Some(snapshots_page(&records, &found, &query, breakroom_debugger::ids::now())))
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
    use crate::render::snapshots::{news_fragment, ListQuery};
    use breakroom_debugger::snapshots::SnapshotFilter;
    let debugger = debugger(Need::Viewer)?;
    let given = |value: &str| Some(value.trim().to_string()).filter(|v| !v.is_empty());
    let (breakpoint_id, process_id) = (given(&breakpoint_id), given(&process_id));
    let Some(after) = given(&after).filter(|a| a.starts_with("snap-")) else { return Ok(None) };
    let limit = limit.trim().parse::<usize>().unwrap_or(PAGE).clamp(1, 500);
    let news = match given(&before) {
        Some(_) => vec![],
        None => {
            let filter = SnapshotFilter {
                breakpoint_id: breakpoint_id.clone(),
                process_id: process_id.clone(),
                after: Some(after),
                limit,
                ..Default::default()
            };
            debugger.snapshots().list(&filter).map_err(failed)?
        }
    };
    let query = ListQuery { breakpoint_id: breakpoint_id.as_deref(), process_id: process_id.as_deref(), limit };
    let records = debugger.breakpoints().breakpoint_records();
    Ok(Some(news_fragment(&records, &news, &query, breakroom_debugger::ids::now())))
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
