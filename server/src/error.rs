//! HTTP errors: every failure becomes a 4xx (or 504) JSON body `{"error": code, "message": text}`.
//! The debugger's errors map to statuses here and only here.

use axum::extract::FromRequest;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use breakroom_debugger::{Error, ErrorKind};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub body: Value,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        ApiError { status, body: json!({"error": code, "message": message.into()}) }
    }

    pub fn bad_request(code: &str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }

    pub fn not_found(code: &str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, code, message)
    }
}

impl From<Error> for ApiError {
    fn from(err: Error) -> Self {
        let status = match err.kind() {
            ErrorKind::BadRequest => StatusCode::BAD_REQUEST,
            ErrorKind::NotFound => StatusCode::NOT_FOUND,
            ErrorKind::Conflict => StatusCode::CONFLICT,
            ErrorKind::Timeout => StatusCode::GATEWAY_TIMEOUT,
            ErrorKind::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorKind::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        };
        let mut body = json!({"error": err.code(), "message": err.to_string()});
        match &err {
            Error::CidMismatch { expected, provided } => {
                body["expected_cid"] = json!(expected);
                body["provided_cid"] = json!(provided);
            }
            Error::CidNotFound { missing } => body["missing_cids"] = json!(missing),
            _ => {}
        }
        ApiError { status, body }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body)).into_response()
    }
}

pub type ApiResult<T = Value> = Result<Json<T>, ApiError>;

/// A JSON request body whose problems (not JSON, wrong shape, too large) answer with a JSON 4xx
/// naming the problem. An empty (or `null`) body reads as `{}`, so endpoints with all-optional
/// fields work.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = axum::body::Bytes::from_request(req, state).await.map_err(|rejection| {
            let status = rejection.status();
            if status == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(status, "payload_too_large", "request body is larger than --max-body allows")
            } else {
                ApiError::bad_request("invalid_body", rejection.body_text())
            }
        })?;
        let trimmed = bytes.trim_ascii();
        let text: &[u8] = if bytes.is_empty() || trimmed == b"null" { b"{}" } else { trimmed };
        if text.first() != Some(&b'{') {
            return Err(ApiError::bad_request("invalid_json", "request body must be a JSON object"));
        }
        serde_json::from_slice(text)
            .map(JsonBody)
            .map_err(|e| ApiError::bad_request("invalid_json", format!("request body: {e}")))
    }
}

/// Makes every error under `/api/` a JSON error body, including the ones axum's own extractors
/// and router answer in plain text (a malformed query string or path, a wrong method).
pub async fn json_errors(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let path = req.uri().path().to_string();
    let is_api = path.starts_with("/api/");
    let response = next.run(req).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !is_api || is_json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let code = match status {
        StatusCode::BAD_REQUEST => "invalid_request",
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        _ if status.is_server_error() => "internal_error",
        _ => "request_refused",
    };
    let (parts, body) = response.into_parts();
    let text =
        axum::body::to_bytes(body, 4096).await.map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
    let message = if status == StatusCode::NOT_FOUND {
        format!("no API endpoint at {path}")
    } else if text.trim().is_empty() || text.trim_start().starts_with('<') {
        status.canonical_reason().unwrap_or("error").to_string()
    } else {
        text
    };
    let mut converted = ApiError::new(status, code, message).into_response();
    // Keep headers such as `Allow` on a 405.
    for (name, value) in parts.headers.iter() {
        if name != axum::http::header::CONTENT_TYPE && name != axum::http::header::CONTENT_LENGTH {
            converted.headers_mut().insert(name.clone(), value.clone());
        }
    }
    converted
}
