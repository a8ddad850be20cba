//! The REST API: what debug clients call (docs/src/protocol.md §5, §6) and what the browser and tools
//! call (§9). Each handler translates HTTP into one debugger call. The OpenAPI document at
//! `/api/openapi.json` is collected from the same handlers and types that serve the routes.

mod attach;
mod breakpoint_records;
mod breakpoints;
mod calls;
mod checkpoints;
pub mod debug_client;
mod events;
mod live;
mod policy;
mod processes;
mod query;
mod repl;
mod repl_helpers;
pub mod repl_tables;
mod runtimes;
mod snapshots;
mod steps;
mod users;
pub mod wire;

use std::sync::Arc;

use axum::routing::get;
use axum::{Json, Router};
use breakroom_debugger::Debugger;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Breakroom",
        description = "A web debugger for live Python programs: the debug-client protocol (docs/src/protocol.md) \
            and the browser's API. Every error is a JSON `{\"error\": code, \"message\": text}`."
    ),
    tags(
        (name = "client", description = "Called by the paused program's debug client"),
        (name = "breakpoints", description = "Breakpoints, behaviours and registered functions"),
        (name = "repl", description = "REPL sessions on paused calls"),
        (name = "browser", description = "Pauses and reports, for pages and tools"),
        (name = "processes", description = "Processes launched under Breakroom or connected to it: status, output, stop"),
        (name = "time travel", description = "Checkpoints of live processes: step back, rewind, branch, switch, timeline, diff"),
        (name = "runtimes", description = "A long-lived bash and Python process per workspace: exec, state, reset, history"),
        (name = "snapshots", description = "What snapshot breakpoints captured in programs that did not stop"),
        (name = "access", description = "People, program credentials and the audit trail (admins); who is calling"),
    )
)]
struct ApiDoc;

fn documented_routes() -> OpenApiRouter<Debugger> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(breakpoints::list, breakpoints::add, breakpoint_records::clear))
        .routes(routes!(breakpoints::remove, breakpoint_records::update))
        .routes(routes!(breakpoint_records::changes))
        .routes(routes!(breakpoint_records::report_hit))
        .routes(routes!(snapshots::list, snapshots::take))
        .routes(routes!(snapshots::get))
        .routes(routes!(breakpoints::set_behavior))
        .routes(routes!(breakpoints::set_after_behavior))
        .routes(routes!(breakpoints::set_replacement))
        .routes(routes!(breakpoints::history))
        .routes(routes!(breakpoints::global_behavior, breakpoints::set_global_behavior))
        .routes(routes!(breakpoints::functions, breakpoints::register_function))
        .routes(routes!(calls::start))
        .routes(routes!(calls::complete))
        .routes(routes!(calls::event))
        .routes(routes!(calls::poll, calls::answer_and_poll))
        .routes(routes!(calls::paused))
        .routes(routes!(calls::resume))
        .routes(routes!(calls::report_com_error))
        .routes(routes!(calls::com_errors))
        .routes(routes!(calls::stored_value))
        .routes(routes!(repl::next_eval))
        .routes(routes!(repl::submit_result))
        .routes(routes!(repl::start))
        .routes(routes!(repl::list))
        .routes(routes!(repl::get))
        .routes(routes!(repl::eval))
        .routes(routes!(repl::close))
        .routes(routes!(repl_helpers::complete))
        .routes(routes!(repl_helpers::variables))
        .routes(routes!(repl_helpers::expand))
        .routes(routes!(repl_helpers::watch))
        .routes(routes!(repl_tables::page))
        .routes(routes!(repl_tables::view))
        .routes(routes!(live::stream))
        .routes(routes!(events::list))
        .routes(routes!(processes::list, processes::launch))
        .routes(routes!(processes::get, processes::forget))
        .routes(routes!(processes::output))
        .routes(routes!(processes::stop))
        .routes(routes!(processes::interrupt))
        .routes(routes!(processes::tasks))
        .routes(routes!(processes::report_tasks))
        .routes(routes!(processes::pause_task))
        .routes(routes!(processes::cancel_task))
        .routes(routes!(processes::report_task_order))
        .routes(routes!(attach::attach))
        .routes(routes!(attach::local))
        .routes(routes!(attach::not_followed))
        .routes(routes!(checkpoints::step_back))
        .routes(routes!(crate::dap::upgrade))
        .routes(routes!(steps::step))
        .routes(routes!(steps::frames))
        .routes(routes!(steps::reverse_continue))
        .routes(routes!(steps::select_frame))
        .routes(routes!(checkpoints::timeline))
        .routes(routes!(checkpoints::newest_process))
        .routes(routes!(checkpoints::create))
        .routes(routes!(checkpoints::rewind))
        .routes(routes!(checkpoints::branch))
        .routes(routes!(checkpoints::switch))
        .routes(routes!(checkpoints::diff))
        .routes(routes!(checkpoints::report))
        .routes(routes!(checkpoints::hold))
        .routes(routes!(runtimes::list))
        .routes(routes!(runtimes::exec))
        .routes(routes!(runtimes::state))
        .routes(routes!(runtimes::reset))
        .routes(routes!(runtimes::history))
        .routes(routes!(runtimes::stop))
        .routes(routes!(users::list, users::add))
        .routes(routes!(users::remove))
        .routes(routes!(users::set_role))
        .routes(routes!(users::rotate))
        .routes(routes!(users::audit))
        .routes(routes!(users::whoami))
        .routes(routes!(policy::get))
}

/// The OpenAPI 3.1 description of every route below.
pub fn openapi() -> utoipa::openapi::OpenApi {
    documented_routes().split_for_parts().1
}

pub fn routes() -> Router<Debugger> {
    let (router, doc) = documented_routes().split_for_parts();
    let doc = Arc::new(doc);
    router
        .route("/api/openapi.json", get(move || async move { Json(doc.as_ref().clone()) }))
        .route("/api/debug-client.js", get(debug_client::script))
}
