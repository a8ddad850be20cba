//! The one error type of the debugger. Each error has a stable code (sent to clients as
//! `{"error": code}`) and a kind that the HTTP layer maps to a status, in one place.

/// How an error should be treated by whoever called; the server maps each to a status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    BadRequest,
    NotFound,
    Conflict,
    Timeout,
    TooLarge,
    /// The data directory could not be read or written.
    Unavailable,
}

#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum Error {
    #[error("{field} is required")]
    MissingField { code: &'static str, field: &'static str },
    #[error("{1}")]
    Invalid(&'static str, String),
    #[error("no paused call with id {0}")]
    PauseNotFound(String),
    #[error("the paused call {0} has already been resumed")]
    PauseResumed(String),
    #[error("the paused call has no process id")]
    InvalidPause,
    #[error("no REPL session with id {0}")]
    SessionNotFound(String),
    #[error("the REPL session {0} is closed")]
    SessionClosed(String),
    #[error("no pending eval with id {0} (the browser may have given up waiting)")]
    EvalNotFound(String),
    #[error("the paused program did not answer within {0} seconds")]
    EvalTimeout(u64),
    #[error("no breakpoint named {0}")]
    BreakpointNotFound(String),
    #[error("Provided CID does not match SHA-512 hash of data")]
    CidMismatch { expected: String, provided: String },
    #[error("Resend with full data")]
    CidNotFound { missing: Vec<String> },
    #[error("no stored value with CID {0}")]
    ObjectNotFound(String),
    #[error("process_pid and process_start_time are required")]
    MissingProcessIdentity,
    #[error("replacement must have the same, non-empty signature")]
    SignatureMismatch,
    #[error("no tracked process with id {0}")]
    ProcessNotFound(String),
    #[error("process {0} is still running: stop it first")]
    ProcessRunning(String),
    #[error("process {0} has already ended")]
    ProcessEnded(String),
    #[error("storage: {0}")]
    Storage(String),
}

impl Error {
    pub fn invalid(code: &'static str, message: impl Into<String>) -> Self {
        Error::Invalid(code, message.into())
    }

    /// The machine-readable code clients see in `{"error": ...}`.
    pub fn code(&self) -> &str {
        match self {
            Error::MissingField { code, .. } => code,
            Error::Invalid(code, _) => code,
            Error::PauseNotFound(_) => "pause_not_found",
            Error::PauseResumed(_) => "pause_resumed",
            Error::InvalidPause => "invalid_pause",
            Error::SessionNotFound(_) => "session_not_found",
            Error::SessionClosed(_) => "session_closed",
            Error::EvalNotFound(_) => "eval_not_found",
            Error::EvalTimeout(_) => "eval_timeout",
            Error::BreakpointNotFound(_) => "breakpoint_not_found",
            Error::CidMismatch { .. } => "cid_mismatch",
            Error::CidNotFound { .. } => "cid_not_found",
            Error::ObjectNotFound(_) => "object_not_found",
            Error::MissingProcessIdentity => "missing_process_identity",
            Error::SignatureMismatch => "signature_mismatch",
            Error::ProcessNotFound(_) => "process_not_found",
            Error::ProcessRunning(_) => "process_running",
            Error::ProcessEnded(_) => "process_ended",
            Error::Storage(_) => "storage_unavailable",
        }
    }

    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::PauseNotFound(_)
            | Error::SessionNotFound(_)
            | Error::EvalNotFound(_)
            | Error::BreakpointNotFound(_)
            | Error::ObjectNotFound(_)
            | Error::ProcessNotFound(_) => ErrorKind::NotFound,
            Error::PauseResumed(_) | Error::SessionClosed(_) => ErrorKind::Conflict,
            Error::ProcessRunning(_) | Error::ProcessEnded(_) => ErrorKind::Conflict,
            Error::EvalTimeout(_) => ErrorKind::Timeout,
            Error::Storage(_) => ErrorKind::Unavailable,
            Error::MissingField { .. }
            | Error::Invalid(..)
            | Error::InvalidPause
            | Error::CidMismatch { .. }
            | Error::CidNotFound { .. }
            | Error::MissingProcessIdentity
            | Error::SignatureMismatch => ErrorKind::BadRequest,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
