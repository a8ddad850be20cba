//! The server's integration tests, in one test binary: each module is one area, against a real
//! server (in this process, or the real binary where the whole process matters: `common::binary`).
//! One binary links the server once instead of once per file. Tests that render pages take turns
//! (`common::on_shared_runtime`): Leptos keeps process-wide SSR state.

mod common;

mod allow_origin;
mod answering_polls;
mod api_endpoints;
mod bad_input;
mod blocking_eval;
mod breakpoint_cli;
mod breakpoint_kinds;
mod checkpoints;
mod cideldill_js_client;
mod client_protocol;
mod continue_policy;
mod dap_access;
mod escaping;
mod every_route_guarded;
mod failure_logging;
mod js_client;
mod needs_table;
mod oidc;
mod openapi;
mod page_shell;
mod pages;
mod parts;
mod processes;
mod repl_helpers;
mod roles;
mod runtimes;
mod security;
mod snapshot_list;
mod snapshot_outputs;
