//! `/repl/{session}/table/{handle}`: a table an eval showed, every row of it a page at a time,
//! sortable (issue 52). The rows come from the paused program, as `GET /api/repl/…/table/…`
//! reads them; the markup is `breakroom_app::render::table_page`.

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use breakroom_debugger::outputs::Table;
use breakroom_debugger::Debugger;

use crate::api::repl_tables::TableQuery;
use breakroom_app::render::{shell, table_page};

pub async fn page(
    State(debugger): State<Debugger>,
    Path((session_id, handle)): Path<(String, String)>,
    Query(query): Query<TableQuery>,
) -> Response {
    let page = match query.page() {
        Ok(page) => page,
        Err(refused) => return refused.into_response(),
    };
    let read = debugger.sessions().table_page(&session_id, &handle, &page).await.and_then(|reply| {
        serde_json::from_value::<Table>(reply).map_err(|e| {
            breakroom_debugger::Error::ClientFailed(format!("the program's table page is not a table: {e}"))
        })
    });
    let title = format!("Table {handle}");
    match read {
        Ok(table) => {
            let view = table_page::TableView {
                session_id: &session_id,
                handle: &handle,
                offset: page.offset,
                limit: page.limit,
                sort: page.sort.as_deref(),
                descending: page.descending,
            };
            Html(shell::page(&title, "table-page", table_page::table_page(&view, &table))).into_response()
        }
        Err(e) => {
            let status = StatusCode::from_u16(e.kind().http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let message = match e.code() {
                "table_gone" | "session_closed" | "session_not_found" => {
                    "This table is gone: the pause that showed it has ended (or stepped on), and with it the object."
                        .to_string()
                }
                _ => e.to_string(),
            };
            (status, Html(shell::page(&title, "table-page", table_page::gone(&session_id, &message)))).into_response()
        }
    }
}
