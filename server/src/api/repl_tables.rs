//! Tables paged from the live program (issue 52): an eval that showed a DataFrame, a list of
//! dicts or a 2-D array names its table's route in the output's metadata; each page is read
//! from the object the paused program still holds, sorted there when asked.

use axum::extract::{Path, Query, State};
use axum::Json;
use breakroom_debugger::eval::VariablePath;
use breakroom_debugger::outputs::{Table, TablePage, View, MAX_TABLE_PAGE};
use breakroom_debugger::users::Need;
use breakroom_debugger::Debugger;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::wire::ErrorBody;
use crate::error::{ApiError, ApiResult, JsonBody};

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TableQuery {
    /// The first row (0 by default).
    #[param(value_type = Option<u64>, maximum = 9_223_372_036_854_775_807_i64)]
    offset: Option<String>,
    /// How many rows: 100 by default, from 1 to 1,000.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 1000)]
    limit: Option<String>,
    /// A column's name (a 2-D array's: its number): the rows are sorted by it first.
    sort: Option<String>,
    /// `true` to sort from the largest.
    #[param(value_type = Option<bool>)]
    descending: Option<String>,
}

/// One page: the table's columns, the rows asked for, and where they start.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct TablePageReply {
    pub columns: Vec<String>,
    /// Each row's label (a DataFrame's index; else its position).
    pub index: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub row_count: u64,
    pub offset: u64,
    pub limit: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sort: Option<String>,
    pub descending: bool,
}

impl TableQuery {
    pub fn page(self) -> Result<TablePage, ApiError> {
        let offset = super::query::count("offset", self.offset.as_deref())?.unwrap_or(0) as u64;
        let limit = super::query::count("limit", self.limit.as_deref())?.unwrap_or(100) as u64;
        if !(1..=MAX_TABLE_PAGE).contains(&limit) {
            return Err(ApiError::bad_request(
                "invalid_pagination",
                format!("limit must be from 1 to {MAX_TABLE_PAGE}, not {limit}"),
            ));
        }
        let descending = match self.descending.as_deref().map(str::trim) {
            None | Some("") | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                return Err(ApiError::bad_request(
                    "invalid_sort",
                    format!("descending must be true or false, not {other:?}"),
                ))
            }
        };
        let sort = self.sort.filter(|s| !s.is_empty());
        Ok(TablePage { offset, limit, sort, descending })
    }
}

#[utoipa::path(operation_id = "table_page", extensions(("x-breakroom-needs" = json!(Need::Debugger))), get, path = "/api/repl/{session_id}/table/{handle}", tag = "repl",
    params(("session_id" = String, Path), ("handle" = String, Path), TableQuery),
    responses((status = 200, body = TablePageReply),
        (status = 400, body = ErrorBody, description = "`invalid_pagination`, `invalid_sort`"),
        (status = 404, body = ErrorBody, description = "`table_gone`: the pause that held it ended; `session_not_found`"),
        (status = 409, body = ErrorBody), (status = 502, body = ErrorBody), (status = 504, body = ErrorBody)))]
pub async fn page(
    State(debugger): State<Debugger>,
    Path((session_id, handle)): Path<(String, String)>,
    Query(query): Query<TableQuery>,
) -> ApiResult<TablePageReply> {
    let page = query.page()?;
    let reply = debugger.sessions().table_page(&session_id, &handle, &page).await?;
    let table: Table = serde_json::from_value(reply).map_err(|e| {
        breakroom_debugger::Error::ClientFailed(format!("the program's table page is not a table: {e}"))
    })?;
    Ok(Json(TablePageReply {
        columns: table.columns,
        index: table.index,
        rows: table.rows,
        row_count: table.row_count,
        offset: page.offset,
        limit: page.limit,
        sort: page.sort,
        descending: page.descending,
    }))
}

/// `POST /api/repl/{session_id}/variables/view`: which panel row.
#[derive(Deserialize, ToSchema)]
pub struct ViewBody {
    /// A row's `path`, as the panel gave it.
    #[schema(value_type = Vec<Vec<Object>>)]
    #[serde(default)]
    path: Option<VariablePath>,
}

#[utoipa::path(operation_id = "view_variable", extensions(("x-breakroom-needs" = json!(Need::Debugger))), post, path = "/api/repl/{session_id}/variables/view", tag = "repl",
    request_body = ViewBody, params(("session_id" = String, Path)),
    responses((status = 200, body = View, description = "the value's text and rich outputs (a table's pages named in its metadata)"),
        (status = 400, body = ErrorBody, description = "`invalid_path`"), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 502, body = ErrorBody), (status = 504, body = ErrorBody)))]
pub async fn view(
    State(debugger): State<Debugger>,
    Path(session_id): Path<String>,
    JsonBody(body): JsonBody<ViewBody>,
) -> ApiResult<View> {
    let path = body.path.ok_or_else(VariablePath::refusal)?;
    Ok(Json(debugger.sessions().view(&session_id, &path).await?))
}
