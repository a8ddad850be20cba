//! The `breakroom` server: the REST API, the live event stream and the Leptos pages, all on
//! one [`Debugger`].

pub mod access;
pub mod api;
pub mod attach_cli;
pub mod breakpoint_cli;
pub mod checkpoint_cli;
pub mod cors;
pub mod dap;
pub mod error;
pub mod guard;
pub mod logging;
pub mod mcp;
pub mod oidc;
pub mod port_file;
pub mod preflight;
pub mod process_cli;
pub mod replay;
pub mod runtime_cli;
pub mod sign_in;
pub mod site;
pub mod snapshot_cli;
pub mod step_cli;
pub mod table_page;
pub mod tls;
pub mod user_cli;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::Router;
use breakroom_app::{shell, App};
use breakroom_debugger::Debugger;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};

pub struct ServerOptions {
    pub max_body: usize,
    pub site: LeptosOptions,
    pub access: guard::AccessPolicy,
    /// Where processes this server starts call back (`None`: the site's port on loopback). With
    /// TLS it is the loopback plain-HTTP listener (`tls.rs`).
    pub local_url: Option<String>,
    /// Signing in through an OpenID Connect provider (`--oidc-issuer`), if configured.
    pub oidc: Option<Arc<oidc::Oidc>>,
}

/// The whole HTTP surface of one debugger.
pub fn router(debugger: Debugger, options: ServerOptions) -> Router {
    let leptos_options = options.site;
    // Launched processes call back on loopback, whatever address is bound.
    let port = leptos_options.site_addr.port();
    let local_url = options.local_url.clone().unwrap_or_else(|| format!("http://127.0.0.1:{port}"));
    debugger.processes().set_server_url(local_url);
    debugger.processes().watch_processes();
    debugger.runtimes().watch_idle();
    debugger.runtimes().warm_spares();
    prune_audit_daily(debugger.clone());
    let routes = generate_route_list(App);
    let context = {
        let debugger = debugger.clone();
        move || provide_context(debugger.clone())
    };
    let pages: Router = Router::new()
        .leptos_routes_with_context(&leptos_options, routes, context, {
            let leptos_options = leptos_options.clone();
            move || shell(leptos_options.clone())
        })
        .fallback(site_or_not_found(leptos_options.clone()))
        .with_state(leptos_options);
    let mcp = mcp::service(debugger.clone(), options.max_body);
    if options.oidc.is_some() {
        // People sign in through a provider: no owner's open server, even before any user exists.
        debugger.users().expect_people_from_provider();
    }
    let access = Arc::new(access::Access::new(options.access.token.clone(), debugger.clone(), options.max_body));
    let routes = api::routes()
        .route("/repl/{session_id}/table/{handle}", axum::routing::get(table_page::page))
        .route("/repl/{session_id}/view", axum::routing::get(table_page::view))
        .route("/login", axum::routing::get(sign_in::page).post(sign_in::submit))
        .route("/logout", axum::routing::get(sign_in::sign_out).post(sign_in::sign_out))
        .route("/audit", axum::routing::get(sign_in::audit))
        .route("/login/oidc", axum::routing::get(oidc::start))
        .route(oidc::CALLBACK_PATH, axum::routing::get(oidc::callback))
        .layer(axum::Extension(options.oidc))
        .layer(axum::Extension(access.clone()))
        .with_state(debugger)
        .route_service(mcp::PATH, mcp)
        .merge(pages)
        .layer(DefaultBodyLimit::max(options.max_body))
        .layer(axum::middleware::from_fn(error::json_errors));
    logging::with_failure_handling(routes)
        .layer(axum::middleware::from_fn(guard::body_rules))
        .layer(axum::middleware::from_fn_with_state(access, guard::credentials))
        .layer(axum::middleware::from_fn_with_state(Arc::new(options.access), guard::check))
}

/// The site's files (from the binary, or `--site-dir`), else leptos's 404 page.
fn site_or_not_found(
    options: LeptosOptions,
) -> impl Fn(
    axum::http::Uri,
    axum::extract::State<LeptosOptions>,
    axum::extract::Request,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = axum::response::Response> + Send>>
       + Clone
       + Send
       + Sync
       + 'static {
    let embedded = site::serves_embedded(&options);
    let files_or_404 = leptos_axum::file_and_error_handler(shell);
    move |uri, state, request| {
        if embedded {
            if let Some(file) = site::embedded_file(&request) {
                return Box::pin(std::future::ready(file));
            }
        }
        files_or_404(uri, state, request)
    }
}

/// Audit records older than `--audit-days` go once a day (and when the server starts), and
/// program credentials' claims on processes older than a week.
fn prune_audit_daily(debugger: Debugger) {
    tokio::spawn(async move {
        let mut daily = tokio::time::interval(std::time::Duration::from_secs(86_400));
        daily.tick().await;
        loop {
            daily.tick().await;
            let pruning = debugger.clone();
            if let Ok(Err(e)) = tokio::task::spawn_blocking(move || pruning.audit().prune()).await {
                eprintln!("breakroom: old audit records not removed: {e}");
            }
            // A week-old claim's process is gone; a program still polling claims it again.
            let pruning = debugger.clone();
            let week = std::time::Duration::from_secs(7 * 86_400);
            let _ = tokio::task::spawn_blocking(move || pruning.users().prune_claims(week)).await;
        }
    });
}

/// Serves until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, app: Router) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    // Streamed answers (an MCP tool call's event stream, /api/live) are written in several small
    // pieces: with Nagle's algorithm each waited for the client's delayed ACK, ~40 ms a call.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>()).await
}
