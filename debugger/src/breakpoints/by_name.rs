//! Breakpoints and the decisions made at call start and call completion (docs/src/protocol.md §7).
//!
//! Breakroom differs from the reference server in one default: a call with a breakpoint pauses
//! once, before it runs. After-pauses happen only when the breakpoint's after-behaviour asks for
//! them, and exception pauses when the after-behaviour or the global behaviour asks.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

pub use crate::model::{AfterBehavior, Behavior, GlobalBehavior};

// Parsing accepts the reference server's aliases (`continue`, `both`, …); the model types keep
// only the names Breakroom answers with.
impl Behavior {
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "stop" => Ok(Self::Stop),
            "go" | "continue" => Ok(Self::Go),
            "yield" => Ok(Self::Yield),
            _ => Err(Error::invalid("invalid_behavior", "behavior must be 'stop', 'go', or 'yield'")),
        }
    }
}

impl AfterBehavior {
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "stop" | "breakpoints" | "stop_at_breakpoints" => Ok(Self::Stop),
            "go" | "continue" => Ok(Self::Go),
            "yield" | "defer" | "default" => Ok(Self::Yield),
            "exception" | "exceptions" | "stop_at_exceptions" => Ok(Self::Exception),
            "stop_exception" | "breakpoints_and_exceptions" | "stop_at_breakpoints_and_exceptions" | "both" => {
                Ok(Self::StopException)
            }
            _ => Err(Error::invalid(
                "invalid_behavior",
                "behavior must be one of 'stop', 'go', 'exception', 'stop_exception', or 'yield'",
            )),
        }
    }
}

impl GlobalBehavior {
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "stop" | "breakpoints" | "stop_at_breakpoints" => Ok(Self::Stop),
            "go" | "continue" => Ok(Self::Go),
            "exception" | "exceptions" | "stop_at_exceptions" => Ok(Self::Exception),
            "stop_exception" | "breakpoints_and_exceptions" | "stop_at_breakpoints_and_exceptions" | "both" => {
                Ok(Self::StopException)
            }
            _ => Err(Error::invalid(
                "invalid_behavior",
                "behavior must be one of 'stop', 'go', 'exception', or 'stop_exception'",
            )),
        }
    }
}

/// A behaviour as requests name it: a name or one of the reference server's aliases.
pub trait BehaviorName: Sized {
    fn parse(text: &str) -> Result<Self>;
}

impl BehaviorName for Behavior {
    fn parse(text: &str) -> Result<Self> {
        Behavior::parse(text)
    }
}

impl BehaviorName for AfterBehavior {
    fn parse(text: &str) -> Result<Self> {
        AfterBehavior::parse(text)
    }
}

impl BehaviorName for GlobalBehavior {
    fn parse(text: &str) -> Result<Self> {
        GlobalBehavior::parse(text)
    }
}

/// serde's reader of a `behavior` field: null is none; a name or an alias is the behaviour;
/// anything else is `invalid_behavior`, as the field is read.
pub fn behavior_field<'de, D, B>(de: D) -> std::result::Result<Option<B>, D::Error>
where
    D: serde::Deserializer<'de>,
    B: BehaviorName,
{
    let value = serde_json::Value::deserialize(de)?;
    if value.is_null() {
        return Ok(None);
    }
    B::parse(value.as_str().unwrap_or_default()).map(Some).map_err(|e| crate::wire::refuse(e.code(), &e))
}

/// cideldill's `behavior` of a new breakpoint: a value that names none is ignored, as the
/// reference server does.
pub fn lenient_behavior<'de, D: serde::Deserializer<'de>>(de: D) -> std::result::Result<Option<Behavior>, D::Error> {
    let value = serde_json::Value::deserialize(de)?;
    Ok(value.as_str().and_then(|text| Behavior::parse(text).ok()))
}

/// `POST /api/functions` (docs/src/protocol.md §5.3): a function a breakpoint may be replaced with. Fields
/// a client may get wrong are kept loose and checked by the debugger, for a precise error.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, Deserialize)]
pub struct FunctionRegistration {
    #[cfg_attr(feature = "openapi", schema(value_type = String, required = true, pattern = "\\S"))]
    #[serde(default)]
    pub function_name: Option<String>,
    /// Text, or a JavaScript function's arity as a number (cideldill's JS client).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<serde_json::Value>))]
    #[serde(default, deserialize_with = "crate::client_shapes::signature")]
    pub signature: Option<String>,
    #[serde(default)]
    pub function_client_ref: Option<serde_json::Value>,
    #[cfg_attr(feature = "openapi", schema(pattern = "^[0-9a-fA-F]{128}$"))]
    #[serde(default)]
    pub function_cid: Option<String>,
    /// Base64 of the serialized function; its SHA-512 must be `function_cid`.
    #[cfg_attr(feature = "openapi", schema(format = Byte))]
    #[serde(default)]
    pub function_data: Option<String>,
    #[cfg_attr(feature = "openapi", schema(pattern = "^(dill|json)$"))]
    #[serde(default)]
    pub function_serialization_format: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Breakpoint {
    pub behavior: Behavior,
    pub after_behavior: AfterBehavior,
    pub replacement: Option<String>,
}

/// What to tell a client at call start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartDecision {
    Pause,
    Replace(String),
    Continue,
}

#[derive(Default)]
pub struct Breakpoints {
    pub by_name: BTreeMap<String, Breakpoint>,
    pub global: GlobalBehavior,
}

impl Breakpoints {
    pub fn decide_start(&self, name: &str) -> StartDecision {
        let Some(bp) = self.by_name.get(name) else {
            return StartDecision::Continue;
        };
        let pauses = match bp.behavior {
            Behavior::Stop => true,
            Behavior::Go => false,
            Behavior::Yield => matches!(self.global, GlobalBehavior::Stop | GlobalBehavior::StopException),
        };
        if pauses {
            StartDecision::Pause
        } else if let Some(r) = &bp.replacement {
            StartDecision::Replace(r.clone())
        } else {
            StartDecision::Continue
        }
    }

    /// Whether a completed call pauses again.
    pub fn pauses_after(&self, name: &str, raised: bool) -> bool {
        let Some(bp) = self.by_name.get(name) else {
            return false;
        };
        let effective = match bp.after_behavior {
            // The global behaviour asks for exception pauses, never for a second pause on success.
            AfterBehavior::Yield => match self.global {
                GlobalBehavior::Exception | GlobalBehavior::StopException => AfterBehavior::Exception,
                GlobalBehavior::Stop | GlobalBehavior::Go => AfterBehavior::Go,
            },
            own => own,
        };
        if raised {
            matches!(effective, AfterBehavior::Exception | AfterBehavior::StopException)
        } else {
            matches!(effective, AfterBehavior::Stop | AfterBehavior::StopException)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(name: &str, bp: Breakpoint, global: GlobalBehavior) -> Breakpoints {
        let mut b = Breakpoints { global, ..Default::default() };
        b.by_name.insert(name.into(), bp);
        b
    }

    #[test]
    fn default_breakpoint_pauses_once_before_the_call() {
        let b = with("f", Breakpoint::default(), GlobalBehavior::Stop);
        assert_eq!(b.decide_start("f"), StartDecision::Pause);
        assert!(!b.pauses_after("f", false));
        assert!(!b.pauses_after("f", true));
        assert_eq!(b.decide_start("g"), StartDecision::Continue);
    }

    #[test]
    fn after_behaviour_asks_for_after_pauses() {
        let bp = Breakpoint { after_behavior: AfterBehavior::Stop, ..Default::default() };
        let b = with("f", bp, GlobalBehavior::Go);
        assert_eq!(b.decide_start("f"), StartDecision::Continue);
        assert!(b.pauses_after("f", false));
        assert!(!b.pauses_after("f", true));
    }

    #[test]
    fn global_exception_behaviour_pauses_on_raise_only() {
        let b = with("f", Breakpoint::default(), GlobalBehavior::Exception);
        assert_eq!(b.decide_start("f"), StartDecision::Continue);
        assert!(b.pauses_after("f", true));
        assert!(!b.pauses_after("f", false));
    }

    #[test]
    fn replacement_applies_only_when_not_pausing() {
        let bp = Breakpoint { behavior: Behavior::Go, replacement: Some("g".into()), ..Default::default() };
        let b = with("f", bp, GlobalBehavior::Stop);
        assert_eq!(b.decide_start("f"), StartDecision::Replace("g".into()));
    }

    #[test]
    fn aliases_parse() {
        assert_eq!(Behavior::parse("continue").unwrap(), Behavior::Go);
        assert_eq!(AfterBehavior::parse("both").unwrap(), AfterBehavior::StopException);
        assert_eq!(GlobalBehavior::parse("stop_at_exceptions").unwrap(), GlobalBehavior::Exception);
        assert!(GlobalBehavior::parse("yield").is_err());
        assert!(Behavior::parse("breakpoints").is_err());
    }
}
