//! `GET /api/debug-client.js`: Breakroom's JavaScript debug client (`client-js/breakroom.mjs`),
//! built into the binary so a page or a Node program loads the client of the server it talks to.
//! Not in the OpenAPI document, which describes JSON operations; served beside it.

use axum::http::header;
use axum::response::IntoResponse;

/// The module's text, as `breakroom js-client` prints it.
pub const SOURCE: &str = include_str!("../../../client-js/breakroom.mjs");

pub async fn script() -> impl IntoResponse {
    // `no-cache`: a page always gets the client of the server it talks to, after an upgrade too.
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8"), (header::CACHE_CONTROL, "no-cache")], SOURCE)
}
