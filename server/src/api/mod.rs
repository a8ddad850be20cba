//! The REST API: what debug clients call (PROTOCOL.md §5, §6) and what the browser and tools
//! call (§9). Each handler translates HTTP into one debugger call.

mod breakpoints;
mod calls;
mod live;
mod repl;

use axum::routing::{delete, get, post};
use axum::Router;
use breakroom_debugger::Debugger;

pub fn routes() -> Router<Debugger> {
    Router::new()
        .route("/api/breakpoints", get(breakpoints::list).post(breakpoints::add))
        .route("/api/breakpoints/{name}", delete(breakpoints::remove))
        .route("/api/breakpoints/{name}/behavior", post(breakpoints::set_behavior))
        .route("/api/breakpoints/{name}/after_behavior", post(breakpoints::set_after_behavior))
        .route("/api/breakpoints/{name}/replacement", post(breakpoints::set_replacement))
        .route("/api/breakpoints/{name}/history", get(breakpoints::history))
        .route("/api/behavior", get(breakpoints::global_behavior).post(breakpoints::set_global_behavior))
        .route("/api/functions", get(breakpoints::functions).post(breakpoints::register_function))
        .route("/api/call/start", post(calls::start))
        .route("/api/call/complete", post(calls::complete))
        .route("/api/call/event", post(calls::event))
        .route("/api/poll/{pause_id}", get(calls::poll))
        .route("/api/paused", get(calls::paused))
        .route("/api/paused/{pause_id}/continue", post(calls::resume))
        .route("/api/report-com-error", post(calls::report_com_error))
        .route("/api/com-errors", get(calls::com_errors))
        .route("/api/poll-repl/{pause_id}", get(repl::next_eval))
        .route("/api/call/repl-result", post(repl::submit_result))
        .route("/api/repl/start", post(repl::start))
        .route("/api/repl/sessions", get(repl::list))
        .route("/api/repl/{session_id}", get(repl::get))
        .route("/api/repl/{session_id}/eval", post(repl::eval))
        .route("/api/repl/{session_id}/close", post(repl::close))
        .route("/api/live", get(live::stream))
}
