//! The Debug Adapter Protocol (issue 31): editors (VS Code, nvim-dap, Emacs dap-mode, Helix,
//! Zed, JetBrains) debug the programs Breakroom holds. The adapter runs inside the server, a
//! thin door into the [`Debugger`] like the REST handlers and the MCP tools; an editor reaches it
//! three ways:
//!
//! - `breakroom dap`: the stdio adapter an editor launches. It upgrades one HTTP request to
//!   `GET /api/dap` (behind the same guard as the API) into a raw DAP stream and relays stdin
//!   and stdout over it (`bridge`).
//! - `breakroom --dap-port N`: the server listens for DAP on TCP port N as well (loopback only:
//!   DAP has no authentication), for an editor's `debugServer`.
//!
//! Types and framing are our own (`protocol`, `wire`): the published Rust DAP crates are stale
//! (`dap` 0.4.1-alpha1 is blocking std-io with a closed command enum; `debug_types` is from 2022;
//! `dap-types` is types only), and the ~25 requests used read into small serde structs.

mod breakpoints;
pub mod bridge;
mod control;
mod events;
mod inspect;
mod protocol;
mod session;
mod state;
mod wire;

use breakroom_debugger::users::Need;
use std::net::{Ipv4Addr, SocketAddr};

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use breakroom_debugger::Debugger;
use hyper_util::rt::TokioIo;

pub use session::{serve, Entry};

/// The HTTP path `breakroom dap` upgrades.
pub const PATH: &str = "/api/dap";
/// The `Upgrade` protocol name.
pub const PROTOCOL: &str = "dap";

/// `GET /api/dap` with `Connection: upgrade` and `Upgrade: dap`: the connection becomes a DAP
/// stream served by this server.
#[utoipa::path(operation_id = "dap_upgrade", extensions(("x-breakroom-needs" = json!(Need::Debugger))), get, path = "/api/dap", tag = "editors",
    responses((status = 101, description = "switched to DAP (`Upgrade: dap`): Content-Length framed DAP messages both ways"),
        (status = 426, body = crate::api::wire::ErrorBody, description = "`upgrade_required`: no `Upgrade: dap` header")))]
pub async fn upgrade(State(debugger): State<Debugger>, mut request: Request) -> Response {
    // The door checked the credential (a debugger's, or more); the session acts as its holder.
    let caller = request.extensions().get::<crate::access::Caller>().cloned();
    let entry = Entry {
        who: Some(caller.as_ref().map_or_else(breakroom_debugger::users::Identity::owner, |c| c.identity.clone())),
        sign_in: None,
        remote: caller.map_or("unknown".into(), |c| c.remote),
    };
    let asked = request
        .headers()
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case(PROTOCOL));
    if !asked {
        let body = serde_json::json!({
            "error": "upgrade_required",
            "message": "this is the DAP endpoint: connect with `breakroom dap` (Upgrade: dap), or use --dap-port",
        });
        return (StatusCode::UPGRADE_REQUIRED, axum::Json(body)).into_response();
    }
    let on_upgrade = hyper::upgrade::on(&mut request);
    tokio::spawn(async move {
        match on_upgrade.await {
            Ok(upgraded) => {
                let (reader, writer) = tokio::io::split(TokioIo::new(upgraded));
                serve(reader, writer, debugger, entry).await;
            }
            Err(e) => eprintln!("breakroom: a DAP upgrade failed: {e}"),
        }
    });
    let mut response = StatusCode::SWITCHING_PROTOCOLS.into_response();
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
    response.headers_mut().insert(header::UPGRADE, HeaderValue::from_static(PROTOCOL));
    response
}

/// Serves DAP on `127.0.0.1:port` (port 0: a free one); returns the address bound. With users
/// configured, a session gives its token in the `attach` or `launch` arguments; `owner_token`
/// is `--token`, which opens it too.
pub async fn listen(port: u16, debugger: Debugger, owner_token: Option<String>) -> std::io::Result<SocketAddr> {
    let access = std::sync::Arc::new(crate::access::Access::new(owner_token, debugger.clone(), 0));
    let listener = tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        loop {
            match listener.accept().await {
                Ok((stream, remote)) => {
                    let _ = stream.set_nodelay(true);
                    let (reader, writer) = stream.into_split();
                    // Without users the port is the owner's, as it always was (loopback only).
                    let open = !debugger.users().configured();
                    let entry = Entry {
                        who: open.then(breakroom_debugger::users::Identity::owner),
                        sign_in: (!open).then(|| access.clone()),
                        remote: remote.to_string(),
                    };
                    tokio::spawn(serve(reader, writer, debugger.clone(), entry));
                }
                Err(e) => {
                    eprintln!("breakroom: DAP port: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
            }
        }
    });
    Ok(addr)
}
