//! `/repl/{session}/table/{handle}`: a table an eval showed, every row of it a page at a time,
//! sortable (issue 52). The rows come from the paused program, as `GET /api/repl/…/table/…`
//! reads them; the markup is `breakroom_app::render::table_page`. And `/repl/{session}/view`:
//! a variables panel row's value as a table or a picture.

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use breakroom_debugger::eval::VariablePath;
use breakroom_debugger::outputs::Table;
use breakroom_debugger::Debugger;
use serde::Deserialize;

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

#[derive(Deserialize)]
pub struct ViewQuery {
    /// The row's path, as JSON (what the panel's link carries).
    #[serde(default)]
    path: Option<String>,
}

pub async fn view(
    State(debugger): State<Debugger>,
    Path(session_id): Path<String>,
    Query(query): Query<ViewQuery>,
) -> Response {
    let path = query.path.as_deref().and_then(|p| serde_json::from_str::<VariablePath>(p).ok());
    let Some(path) = path else {
        return crate::error::ApiError::from(VariablePath::refusal()).into_response();
    };
    let name = query.path.as_deref().map(shown_path).unwrap_or_default();
    match debugger.sessions().view(&session_id, &path).await {
        Ok(view) => Html(shell::page(
            &format!("View · {name}"),
            "table-page view-page",
            table_page::view_page(&session_id, &name, &view),
        ))
        .into_response(),
        Err(e) => {
            let status = StatusCode::from_u16(e.kind().http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            (status, Html(shell::page("View", "table-page", table_page::gone(&session_id, &e.to_string()))))
                .into_response()
        }
    }
}

/// A row's path as the REPL would write it: `df`, `cfg["rows"]`, `obj.frame`.
fn shown_path(json: &str) -> String {
    let steps: Vec<(String, serde_json::Value)> = serde_json::from_str(json).unwrap_or_default();
    let mut text = String::new();
    for (kind, key) in steps {
        let key_text = key.as_str().map(str::to_string).unwrap_or_else(|| key.to_string());
        match kind.as_str() {
            "var" => text.push_str(&key_text),
            "attr" => {
                text.push('.');
                text.push_str(&key_text);
            }
            _ => text.push_str(&format!("[{key}]")),
        }
    }
    text
}
