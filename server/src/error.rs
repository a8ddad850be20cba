//! HTTP errors: every way a request fails is one [`ApiError`], which decides its status and its
//! JSON body `{"error": code, "message": text}` here and only here. The error itself rides along
//! with a 5xx answer (a response extension) so that the log (`logging.rs`) records its cause.

use std::sync::Arc;

use axum::extract::FromRequest;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use breakroom_debugger::Error;
use serde::de::DeserializeOwned;
use serde_json::json;

/// The most of a plain-text error body that is read to turn it into JSON.
const PLAIN_ERROR_READ_LIMIT: usize = 4096;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// What the session manager refused, or failed at; its kind decides the status.
    #[error(transparent)]
    Debugger(#[from] Error),
    /// A body or query value that cannot be read (400).
    #[error("{message}")]
    BadRequest { code: &'static str, message: String },
    /// A body larger than `--max-body` (413).
    #[error("request body is larger than --max-body allows")]
    PayloadTooLarge,
    /// `Host` is not a name this server answers to (403, `guard.rs`).
    #[error("{0}")]
    ForbiddenHost(String),
    /// `Origin` is not this server's own (403, `guard.rs`).
    #[error("{0}")]
    ForbiddenOrigin(String),
    /// No or a wrong access token (401, `guard.rs`).
    #[error("{0}")]
    TokenRequired(&'static str),
    /// A credential that may not call this operation (403, `access.rs`): the message says what
    /// the operation wants.
    #[error("{0}")]
    NotAllowed(String),
    /// Too many bad tokens from one address (429, `access.rs`).
    #[error("{0}")]
    TooManyAttempts(String),
    /// A body of a type this operation does not take (415, `guard.rs`).
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// What axum's own router and extractors answered in plain text (a malformed path or query,
    /// a wrong method), with the status they chose.
    #[error("{message}")]
    Routing { status: StatusCode, message: String },
    /// A handler panicked (500). The panic's message goes to the log, not to the client.
    #[error("the server failed while answering this request")]
    Panicked { panic: String },
}

impl ApiError {
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        ApiError::BadRequest { code, message: message.into() }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::Debugger(err) => {
                StatusCode::from_u16(err.kind().http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
            }
            ApiError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::ForbiddenHost(_) | ApiError::ForbiddenOrigin(_) => StatusCode::FORBIDDEN,
            ApiError::TokenRequired(_) => StatusCode::UNAUTHORIZED,
            ApiError::NotAllowed(_) => StatusCode::FORBIDDEN,
            ApiError::TooManyAttempts(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::Routing { status, .. } => *status,
            ApiError::Panicked { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The stable machine-readable code clients see in `{"error": ...}`.
    pub fn code(&self) -> &str {
        match self {
            ApiError::Debugger(err) => err.code(),
            ApiError::BadRequest { code, .. } => code,
            ApiError::PayloadTooLarge => "payload_too_large",
            ApiError::ForbiddenHost(_) => "forbidden_host",
            ApiError::ForbiddenOrigin(_) => "forbidden_origin",
            ApiError::TokenRequired(_) => "token_required",
            ApiError::NotAllowed(_) => "not_allowed",
            ApiError::TooManyAttempts(_) => "too_many_attempts",
            ApiError::UnsupportedMediaType(_) => "unsupported_media_type",
            ApiError::Routing { status, .. } => match *status {
                StatusCode::BAD_REQUEST => "invalid_request",
                StatusCode::NOT_FOUND => "not_found",
                StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
                StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
                StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
                status if status.is_server_error() => "internal_error",
                _ => "request_refused",
            },
            ApiError::Panicked { .. } => "internal_error",
        }
    }
}

/// A 5xx answer's error, whole, for the log (see `logging::log_failures`).
#[derive(Clone, Debug)]
pub struct Failure(pub Arc<ApiError>);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let mut body = json!({"error": self.code(), "message": self.to_string()});
        match &self {
            ApiError::Debugger(Error::CidMismatch { expected, provided }) => {
                body["expected_cid"] = json!(expected);
                body["provided_cid"] = json!(provided);
            }
            ApiError::Debugger(Error::CidNotFound { missing }) => body["missing_cids"] = json!(missing),
            _ => {}
        }
        let mut response = (status, Json(body)).into_response();
        if status.is_server_error() {
            response.extensions_mut().insert(Failure(Arc::new(self)));
        }
        response
    }
}

pub type ApiResult<T> = Result<Json<T>, ApiError>;

/// A JSON request body whose problems (not JSON, wrong shape, too large) answer with a JSON 4xx
/// naming the problem. An empty (or `null`) body reads as `{}`, so endpoints with all-optional
/// fields work.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = axum::body::Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge
            } else {
                ApiError::bad_request("invalid_body", rejection.body_text())
            }
        })?;
        let trimmed = bytes.trim_ascii();
        let text: &[u8] = if bytes.is_empty() || trimmed == b"null" { b"{}" } else { trimmed };
        if text.first() != Some(&b'{') {
            return Err(ApiError::bad_request("invalid_json", "request body must be a JSON object"));
        }
        // A field's own deserializer names its code (`invalid_line`); serde's own errors are
        // `invalid_json`.
        serde_json::from_slice(text).map(JsonBody).map_err(|e| Error::from_json(&e, "request body").into())
    }
}

/// Makes every error under `/api/` a JSON error body, including the ones axum's own extractors
/// and router answer in plain text (a malformed query string or path, a wrong method). A server
/// function's arguments that do not read (`/rpc/`, which server_fn answers 500 `Args|…`) are the
/// caller's error: 400 `invalid_arguments`, naming the problem.
pub async fn json_errors(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let path = req.uri().path().to_string();
    let is_api = path.starts_with("/api/");
    let response = next.run(req).await;
    let status = response.status();
    if path.starts_with("/rpc/") && status == StatusCode::INTERNAL_SERVER_ERROR {
        return bad_server_fn_arguments(response).await;
    }
    let is_json = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !is_api || is_json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, PLAIN_ERROR_READ_LIMIT)
        .await
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let message = if status == StatusCode::NOT_FOUND {
        format!("no API endpoint at {path}")
    } else if text.trim().is_empty() || text.trim_start().starts_with('<') {
        status.canonical_reason().unwrap_or("error").to_string()
    } else {
        text
    };
    let mut converted = ApiError::Routing { status, message }.into_response();
    // Keep headers such as `Allow` on a 405.
    for (name, value) in parts.headers.iter() {
        if name != axum::http::header::CONTENT_TYPE && name != axum::http::header::CONTENT_LENGTH {
            converted.headers_mut().insert(name.clone(), value.clone());
        }
    }
    converted
}

/// server_fn's text for arguments it could not read (`ServerFnErrorErr::Args`).
const SERVER_FN_ARGS: &str = "Args|";
/// A server function's own failure passes through whole up to this size.
const SERVER_FN_ERROR_READ_LIMIT: usize = 1 << 20;

async fn bad_server_fn_arguments(response: Response) -> Response {
    let (parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, SERVER_FN_ERROR_READ_LIMIT).await else {
        return ApiError::Routing { status: parts.status, message: "error".into() }.into_response();
    };
    match std::str::from_utf8(&bytes).ok().and_then(|text| text.strip_prefix(SERVER_FN_ARGS)) {
        Some(problem) => ApiError::bad_request("invalid_arguments", problem.to_string()).into_response(),
        None => Response::from_parts(parts, axum::body::Body::from(bytes)),
    }
}
