//! `breakroom dap`: the stdio adapter an editor launches. One HTTP request to the running
//! server (`BREAKROOM_URL`, else the port file; `BREAKROOM_TOKEN` when set) is upgraded into a
//! DAP stream, and stdin and stdout are relayed over it byte for byte until either side ends.

use reqwest::header::{CONNECTION, UPGRADE};
use reqwest::{Method, StatusCode};

use crate::process_cli::Server;

pub async fn run() -> Result<i32, String> {
    let server = Server::find()?;
    let response = server
        .request(Method::GET, super::PATH)
        .header(CONNECTION, "upgrade")
        .header(UPGRADE, super::PROTOCOL)
        .send()
        .await
        .map_err(|e| {
            let why = crate::process_cli::error_chain(&e);
            format!(
                "cannot reach the Breakroom server at {} ({why}); start it with `breakroom`, or set BREAKROOM_URL",
                server.base
            )
        })?;
    if response.status() != StatusCode::SWITCHING_PROTOCOLS {
        let status = response.status();
        let text = response.text().await.unwrap_or_default();
        return Err(format!("the server refused the DAP connection ({status}): {text}"));
    }
    let upgraded = response.upgrade().await.map_err(|e| format!("the DAP connection failed: {e}"))?;
    let (mut from_server, mut to_server) = tokio::io::split(upgraded);
    let mut stdin = tokio::io::stdin();
    let mut stdout = tokio::io::stdout();
    let up = async {
        let _ = tokio::io::copy(&mut stdin, &mut to_server).await;
    };
    let down = async {
        let _ = tokio::io::copy(&mut from_server, &mut stdout).await;
    };
    // The editor closing stdin ends the session; so does the server closing the stream.
    tokio::select! {
        _ = up => {}
        _ = down => {}
    }
    Ok(0)
}
