//! The one error type of the debugger. Each error has a stable code (sent to clients as
//! `{"error": code}`) and a kind that the HTTP layer maps to a status, in one place.

use std::error::Error as StdError;
use std::fmt;
use std::sync::Arc;

/// How an error should be treated by whoever called; the server maps each to a status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    BadRequest,
    NotFound,
    Conflict,
    /// Switched off on this server (runtimes on a non-loopback address).
    Forbidden,
    Timeout,
    TooLarge,
    /// The paused program answered, but not with what was asked.
    BadGateway,
    /// Understood, but not something this can be done to (422).
    Unprocessable,
    /// The data directory could not be read or written.
    Unavailable,
}

impl ErrorKind {
    /// The HTTP status every door into the manager (REST handlers, server functions) answers with.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorKind::BadRequest => 400,
            ErrorKind::NotFound => 404,
            ErrorKind::Conflict => 409,
            ErrorKind::Forbidden => 403,
            ErrorKind::Timeout => 504,
            ErrorKind::TooLarge => 413,
            ErrorKind::BadGateway => 502,
            ErrorKind::Unprocessable => 422,
            ErrorKind::Unavailable => 503,
        }
    }

    /// The kind another server answered with (issue 35), from its status.
    pub fn from_http_status(status: u16) -> ErrorKind {
        match status {
            404 => ErrorKind::NotFound,
            409 => ErrorKind::Conflict,
            403 => ErrorKind::Forbidden,
            504 => ErrorKind::Timeout,
            413 => ErrorKind::TooLarge,
            502 => ErrorKind::BadGateway,
            422 => ErrorKind::Unprocessable,
            503 => ErrorKind::Unavailable,
            _ => ErrorKind::BadRequest,
        }
    }
}

/// An eval refused, not run (issue 51): it awaits, and its pause stops the thread of the loop
/// it would run on. The client answers with it (`refused`); the eval is answered 409.
pub const LOOP_BLOCKED: &str = "loop_blocked";

#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum Error {
    #[error("{field} is required")]
    MissingField { code: &'static str, field: &'static str },
    #[error("{1}")]
    Invalid(&'static str, String),
    /// A request field refused while serde read it (`wire::refuse`): its code came with it.
    #[error("{message}")]
    Refused { code: String, message: String },
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
    #[error("the paused program could not answer: {0}")]
    ClientFailed(String),
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
    /// Something named in the request is not there (time travel: a checkpoint, a branch).
    #[error("{1}")]
    NotFound(&'static str, String),
    /// The request cannot be done in the state things are in (time travel: no checkpoint).
    #[error("{1}")]
    Conflict(&'static str, String),
    /// Not allowed here, and why (attach: ptrace refused, or switched off on this server).
    #[error("{1}")]
    Forbidden(&'static str, String),
    /// Well-formed, but the thing it names cannot be handled (attach: not a Python process).
    #[error("{1}")]
    Unprocessable(&'static str, String),
    /// Something outside the server did not answer in time (attach: the client never called in).
    #[error("{1}")]
    TimedOut(&'static str, String),
    #[error("no tracked process with id {0}")]
    ProcessNotFound(String),
    #[error("process {0} is still running: stop it first")]
    ProcessRunning(String),
    #[error("process {0} has already ended")]
    ProcessEnded(String),
    #[error("runtimes are off: this server listens beyond loopback; start it with --allow-runtimes to allow them")]
    RuntimesDisabled,
    #[error("no live runtime workspace named {0}")]
    WorkspaceNotFound(String),
    #[error("{0} runtime workspaces are live already (--runtime-max): stop one first")]
    TooManyWorkspaces(usize),
    /// The data directory could not be read or written. `cause` is the error underneath
    /// (SQLite's, the file system's), kept whole for the server's log.
    /// What the server holding a pause answered (several servers on one database, issue 35).
    #[error("{message}")]
    FromPeer { code: String, kind: ErrorKind, message: String },
    #[error("storage: {}", storage_message(.context, .cause))]
    Storage {
        context: String,
        #[source]
        cause: Option<Cause>,
    },
}

impl Error {
    pub fn invalid(code: &'static str, message: impl Into<String>) -> Self {
        Error::Invalid(code, message.into())
    }

    pub fn not_found(code: &'static str, message: impl Into<String>) -> Self {
        Error::NotFound(code, message.into())
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Error::Conflict(code, message.into())
    }

    /// What serde refused while reading a request: the field's own code when its deserializer
    /// gave one (`wire::refuse`), else `invalid_json` with serde's message.
    pub fn from_json(error: &serde_json::Error, what: &str) -> Self {
        let text = error.to_string();
        match crate::wire::coded(&text) {
            Some((code, message)) => Error::Refused { code: code.into(), message: message.into() },
            None => Error::Refused { code: "invalid_json".into(), message: format!("{what}: {text}") },
        }
    }

    /// A storage failure with nothing underneath (a refusal of ours, e.g. a newer schema).
    pub fn storage(context: impl Into<String>) -> Self {
        Error::Storage { context: context.into(), cause: None }
    }

    /// A storage failure caused by `cause`; `context` says what was being done (may be empty).
    pub fn storage_caused(context: impl Into<String>, cause: impl StdError + Send + Sync + 'static) -> Self {
        Error::Storage { context: context.into(), cause: Some(Cause(Arc::new(cause))) }
    }

    /// The machine-readable code clients see in `{"error": ...}`.
    pub fn code(&self) -> &str {
        match self {
            Error::MissingField { code, .. } => code,
            Error::Refused { code, .. } => code,
            Error::Invalid(code, _) | Error::NotFound(code, _) | Error::Conflict(code, _) => code,
            Error::Forbidden(code, _) | Error::Unprocessable(code, _) | Error::TimedOut(code, _) => code,
            Error::PauseNotFound(_) => "pause_not_found",
            Error::PauseResumed(_) => "pause_resumed",
            Error::InvalidPause => "invalid_pause",
            Error::SessionNotFound(_) => "session_not_found",
            Error::SessionClosed(_) => "session_closed",
            Error::EvalNotFound(_) => "eval_not_found",
            Error::EvalTimeout(_) => "eval_timeout",
            Error::ClientFailed(_) => "client_failed",
            Error::BreakpointNotFound(_) => "breakpoint_not_found",
            Error::CidMismatch { .. } => "cid_mismatch",
            Error::CidNotFound { .. } => "cid_not_found",
            Error::ObjectNotFound(_) => "object_not_found",
            Error::MissingProcessIdentity => "missing_process_identity",
            Error::SignatureMismatch => "signature_mismatch",
            Error::ProcessNotFound(_) => "process_not_found",
            Error::ProcessRunning(_) => "process_running",
            Error::ProcessEnded(_) => "process_ended",
            Error::RuntimesDisabled => "runtimes_disabled",
            Error::WorkspaceNotFound(_) => "workspace_not_found",
            Error::TooManyWorkspaces(_) => "too_many_workspaces",
            Error::Storage { .. } => "storage_unavailable",
            Error::FromPeer { code, .. } => code,
        }
    }

    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::PauseNotFound(_)
            | Error::SessionNotFound(_)
            | Error::EvalNotFound(_)
            | Error::BreakpointNotFound(_)
            | Error::ObjectNotFound(_)
            | Error::ProcessNotFound(_)
            | Error::WorkspaceNotFound(_) => ErrorKind::NotFound,
            Error::RuntimesDisabled | Error::Forbidden(..) => ErrorKind::Forbidden,
            Error::Unprocessable(..) => ErrorKind::Unprocessable,
            Error::TimedOut(..) => ErrorKind::Timeout,
            Error::TooManyWorkspaces(_) | Error::Conflict(..) => ErrorKind::Conflict,
            Error::NotFound(..) => ErrorKind::NotFound,
            Error::PauseResumed(_) | Error::SessionClosed(_) => ErrorKind::Conflict,
            Error::ProcessRunning(_) | Error::ProcessEnded(_) => ErrorKind::Conflict,
            Error::EvalTimeout(_) => ErrorKind::Timeout,
            Error::ClientFailed(_) => ErrorKind::BadGateway,
            Error::Storage { .. } => ErrorKind::Unavailable,
            Error::FromPeer { kind, .. } => *kind,
            Error::MissingField { .. }
            | Error::Invalid(..)
            | Error::Refused { .. }
            | Error::InvalidPause
            | Error::CidMismatch { .. }
            | Error::CidNotFound { .. }
            | Error::MissingProcessIdentity
            | Error::SignatureMismatch => ErrorKind::BadRequest,
        }
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Error::storage_caused("", e)
    }
}

/// The message keeps the cause's text, so a client (and the CLI) reads what went wrong
/// without walking the chain; the typed cause stays reachable through `source()`.
fn storage_message(context: &str, cause: &Option<Cause>) -> String {
    match (context.is_empty(), cause) {
        (_, None) => context.to_string(),
        (true, Some(cause)) => cause.to_string(),
        (false, Some(cause)) => format!("{context}: {cause}"),
    }
}

/// The error underneath a storage failure. Shared, so that [`Error`] stays `Clone`; two
/// causes are equal when they say the same thing.
#[derive(Clone)]
pub struct Cause(Arc<dyn StdError + Send + Sync>);

impl Cause {
    /// The original error, e.g. to downcast to `rusqlite::Error`.
    pub fn get(&self) -> &(dyn StdError + Send + Sync + 'static) {
        &*self.0
    }
}

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl StdError for Cause {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.0.source()
    }
}

impl PartialEq for Cause {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_storage_error_keeps_its_sqlite_cause_and_says_it() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let sqlite = conn.execute("INSERT INTO nowhere VALUES (1)", []).unwrap_err();
        let err = Error::storage_caused("saving a call", sqlite);
        assert_eq!(err.code(), "storage_unavailable");
        assert_eq!(err.kind(), ErrorKind::Unavailable);
        assert!(err.to_string().starts_with("storage: saving a call: no such table: nowhere"), "{err}");
        let cause = StdError::source(&err).expect("the cause is kept");
        assert!(cause.to_string().contains("no such table"));
        let Error::Storage { cause: Some(cause), .. } = &err else { panic!("{err:?}") };
        assert!(cause.get().downcast_ref::<rusqlite::Error>().is_some(), "still a rusqlite::Error");
    }

    #[test]
    fn a_storage_error_without_cause_reads_as_its_context() {
        assert_eq!(Error::storage("the data directory is in use").to_string(), "storage: the data directory is in use");
    }
}
