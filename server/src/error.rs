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
/// naming the problem. An empty body reads as `{}`, so endpoints with all-optional fields work.
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
        let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) { b"{}" } else { &bytes };
        serde_json::from_slice(text)
            .map(JsonBody)
            .map_err(|e| ApiError::bad_request("invalid_json", format!("request body: {e}")))
    }
}
