//! Closed sets of values that travel as names (snake_case): a call's status, the breakpoint
//! behaviours, and the kinds of step and of stop. Built for the browser too, like `model`, which re-exports them.

use serde::{Deserialize, Serialize};

/// Where a recorded call is: still running, returned, or raised.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    Running,
    Success,
    Exception,
}

impl CallStatus {
    /// The serde name (pages use it as a CSS class too).
    pub fn as_str(self) -> &'static str {
        match self {
            CallStatus::Running => "running",
            CallStatus::Success => "success",
            CallStatus::Exception => "exception",
        }
    }
}

impl std::fmt::Display for CallStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a breakpoint does before the call runs. Requests may also say `continue` for `go`
/// (`breakpoint::Behavior::parse`); answers use these names.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Behavior {
    Stop,
    Go,
    /// Use the global behaviour.
    #[default]
    Yield,
}

/// What a breakpoint does after the call returns or raises.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum AfterBehavior {
    Stop,
    Go,
    #[default]
    Yield,
    Exception,
    StopException,
}

/// The behaviour of breakpoints whose own behaviour is `yield`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum GlobalBehavior {
    #[default]
    Stop,
    Go,
    Exception,
    StopException,
}

impl Behavior {
    /// Every behaviour, in the order the pages offer them.
    pub const ALL: [Self; 3] = [Self::Stop, Self::Go, Self::Yield];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stop => "stop",
            Self::Go => "go",
            Self::Yield => "yield",
        }
    }
}

impl AfterBehavior {
    /// Every behaviour, in the order the pages offer them.
    pub const ALL: [Self; 5] = [Self::Go, Self::Stop, Self::Exception, Self::StopException, Self::Yield];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stop => "stop",
            Self::Go => "go",
            Self::Yield => "yield",
            Self::Exception => "exception",
            Self::StopException => "stop_exception",
        }
    }
}

impl GlobalBehavior {
    /// Every behaviour, in the order the pages offer them.
    pub const ALL: [Self; 4] = [Self::Stop, Self::Go, Self::Exception, Self::StopException];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stop => "stop",
            Self::Go => "go",
            Self::Exception => "exception",
            Self::StopException => "stop_exception",
        }
    }
}

/// The language of the program a call runs in: what its REPL evaluates and how the transcript is
/// highlighted. A call names it (`language`); one that does not is Python, except that cideldill's
/// JavaScript client (JSON values, `process_pid` 0) is taken for JavaScript.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    #[default]
    Python,
    Javascript,
}

impl Language {
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::Javascript => "javascript",
        }
    }

    /// The name shown on pages.
    pub fn label(self) -> &'static str {
        match self {
            Language::Python => "Python",
            Language::Javascript => "JavaScript",
        }
    }
}

/// How a step runs (`kind` of `POST /api/paused/{id}/step`, `step` of the client's action).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// The next line of this frame (or of its caller when it returns).
    Over,
    /// The first line of the next function called, else as over.
    Into,
    /// Until this frame returns: the caller just after the call, with `__return__`.
    Out,
    /// Until `file:line` is reached (a one-shot breakpoint for this thread).
    ToLine,
}

impl StepKind {
    pub const ALL: [StepKind; 4] = [StepKind::Over, StepKind::Into, StepKind::Out, StepKind::ToLine];

    pub const fn as_str(self) -> &'static str {
        match self {
            StepKind::Over => "over",
            StepKind::Into => "into",
            StepKind::Out => "out",
            StepKind::ToLine => "to_line",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == text)
    }
}

/// Why a pause stopped where it did, as the client reports it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopKind {
    /// Before (or after) a wrapped function's call.
    Call,
    /// A line breakpoint.
    Line,
    /// `set_trace()` / `breakpoint()`.
    SetTrace,
    /// A step stopped here.
    Step,
    /// Post-mortem, where an exception was raised.
    Exception,
    /// Paused while running, at the next line it reached (`POST /api/processes/{id}/interrupt`,
    /// DAP's `pause`).
    Interrupt,
    /// One asyncio task held where it waits, its loop running on (`POST
    /// /api/processes/{id}/tasks/{task_id}/pause`, issue 51).
    Task,
    /// The program's first line (`python -m breakroom --stop-on-entry`, DAP's `stopOnEntry`).
    Entry,
}
