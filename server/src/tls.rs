//! HTTPS (issue 49): with `--tls-cert` and `--tls-key` every route, the live stream, MCP and the
//! DAP upgrade are served over rustls. Plain HTTP sent to that port is answered with one 400
//! `https_required` and the connection is closed, so a client given `http://` by mistake says
//! why instead of hanging on a handshake that never comes.
//!
//! Programs and commands on this machine that the server starts itself (launched processes,
//! runtimes, attach) call back on a second, loopback-only listener in plain HTTP: their traffic
//! never leaves the machine, and they need no certificate naming `127.0.0.1`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{header, HeaderValue, Request, Response, StatusCode};
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::rustls::{self, ServerConfig};
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt;

/// The first byte of every TLS connection: a handshake record.
const TLS_HANDSHAKE: u8 = 0x16;
/// A connection that sends nothing, or stalls in its handshake, is dropped after this long.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// The error code of a plain-HTTP request to the TLS port.
pub const HTTPS_REQUIRED: &str = "https_required";

/// The server's certificate chain and key, read from PEM files. Errors name the file.
pub fn config(cert: &Path, key: &Path) -> Result<Arc<ServerConfig>, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .map_err(|e| format!("cannot read the certificate {}: {e}", cert.display()))?
        .collect::<Result<_, _>>()
        .map_err(|e| format!("cannot read the certificate {}: {e}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!("{} holds no PEM certificate (-----BEGIN CERTIFICATE-----)", cert.display()));
    }
    let key =
        PrivateKeyDer::from_pem_file(key).map_err(|e| format!("cannot read the private key {}: {e}", key.display()))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("the certificate {} and its key do not make a TLS identity: {e}", cert.display()))?;
    // HTTP/1.1 only: the server's connections (held polls, the DAP upgrade) are HTTP/1.1 ones.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Serves `app` over TLS until the process ends.
pub async fn serve(listener: TcpListener, app: Router, config: Arc<ServerConfig>) -> std::io::Result<()> {
    let acceptor = TlsAcceptor::from(config);
    loop {
        let (tcp, remote) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of file descriptors, or a connection reset before it was taken: not fatal.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        // As on plain HTTP: streamed answers go out in small writes.
        let _ = tcp.set_nodelay(true);
        tokio::spawn(connection(tcp, remote, acceptor.clone(), app.clone()));
    }
}

async fn connection(tcp: TcpStream, remote: SocketAddr, acceptor: TlsAcceptor, app: Router) {
    let mut first = [0u8; 1];
    match tokio::time::timeout(HANDSHAKE_TIMEOUT, tcp.peek(&mut first)).await {
        Ok(Ok(1)) => {}
        _ => return,
    }
    if first[0] != TLS_HANDSHAKE {
        refuse_plain_http(tcp).await;
        return;
    }
    let Ok(Ok(tls)) = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await else {
        return;
    };
    let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
        // What `into_make_service_with_connect_info` gives on plain HTTP: the audit's remote.
        request.extensions_mut().insert(ConnectInfo(remote));
        app.clone().oneshot(request)
    });
    let _ = http1::Builder::new().serve_connection(TokioIo::new(tls), service).with_upgrades().await;
}

/// One JSON 400 naming the fix, then the connection closes.
async fn refuse_plain_http(tcp: TcpStream) {
    let service = hyper::service::service_fn(|_request: Request<Incoming>| async {
        let body = serde_json::json!({
            "error": HTTPS_REQUIRED,
            "message": "this port speaks HTTPS only: use an https:// URL (same host and port)",
        });
        let mut response = Response::new(Body::from(body.to_string()));
        *response.status_mut() = StatusCode::BAD_REQUEST;
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        Ok::<_, Infallible>(response)
    });
    let serving = http1::Builder::new().keep_alive(false).serve_connection(TokioIo::new(tcp), service);
    let _ = tokio::time::timeout(HANDSHAKE_TIMEOUT, serving).await;
}

/// Every cookie the server sets is `Secure` once it speaks TLS, so a browser never sends a
/// session over plain HTTP (one place, whichever route sets it).
pub fn secure_cookies(app: Router) -> Router {
    app.layer(axum::middleware::map_response(|mut response: axum::response::Response| async move {
        let headers = response.headers_mut();
        let cookies: Vec<HeaderValue> = headers.get_all(header::SET_COOKIE).iter().cloned().collect();
        if !cookies.is_empty() {
            headers.remove(header::SET_COOKIE);
            for cookie in cookies {
                let secured = match cookie.to_str() {
                    Ok(text) if !text.to_ascii_lowercase().contains("; secure") => {
                        HeaderValue::from_str(&format!("{text}; Secure")).unwrap_or(cookie)
                    }
                    _ => cookie,
                };
                headers.append(header::SET_COOKIE, secured);
            }
        }
        response
    }))
}

/// `builder` trusting only the CA certificates in `file` (PEM): a server meant to be checked
/// against a private CA is not also trusted for some public CA's certificate.
pub fn trust_only(mut builder: reqwest::ClientBuilder, file: &Path) -> Result<reqwest::ClientBuilder, String> {
    let shown = file.display();
    let pem = std::fs::read(file).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let roots =
        reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| format!("{shown} is not PEM certificates: {e}"))?;
    if roots.is_empty() {
        return Err(format!("{shown} holds no PEM certificate"));
    }
    builder = builder.tls_built_in_root_certs(false);
    for root in roots {
        builder = builder.add_root_certificate(root);
    }
    Ok(builder)
}
