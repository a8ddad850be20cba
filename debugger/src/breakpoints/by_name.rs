//! cideldill's breakpoints by function name: their behaviours and replacements, the decisions made
//! at call start and call completion (docs/src/protocol.md §7), registered functions and stored
//! values, and the `Debugger`'s methods for them.
//!
//! Breakroom differs from the reference server in one default: a call with a breakpoint pauses
//! once, before it runs. After-pauses happen only when the breakpoint's after-behaviour asks for
//! them, and exception pauses when the after-behaviour or the global behaviour asks.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::state::{BreakpointHost, BreakpointParts, BreakpointsState};
use crate::cid_store::{SerializationFormat, StoredObject};
use crate::display::{pickled_text, text_of};
use crate::error::{Error, Result};
use crate::ids;
use crate::model::{BreakpointView, BreakpointsView, LiveEvent, StoredValue};
use serde_json::{json, Value};

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
    pub(super) by_name: BTreeMap<String, Breakpoint>,
    pub(super) global: GlobalBehavior,
}

/// A function a client registered (cideldill's `POST /api/functions`), with what it said of it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RegisteredFunction {
    pub signature: Option<String>,
    pub metadata: Value,
}

impl BreakpointParts<'_> {
    pub(crate) fn save_breakpoint(&self, name: &str) -> Result<()> {
        match self.breakpoints.by_name.get(name) {
            Some(bp) => self.store.put_breakpoint(name, bp),
            None => self.store.delete_breakpoint(name),
        }
    }

    pub(crate) fn save_function(&self, name: &str) -> Result<()> {
        match self.functions.get(name) {
            Some(f) => self.store.put_function(name, &serde_json::to_value(f).unwrap_or(Value::Null)),
            None => Ok(()),
        }
    }
}

impl Breakpoints {
    /// Whether a function has a breakpoint by this name.
    pub fn has(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

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

crate::host::service!(
    /// cideldill's breakpoints by function name, registered functions and stored values: what the doors
    /// reach as `debugger.function_breakpoints()`.
    FunctionBreakpointService
);

impl<H: BreakpointHost> FunctionBreakpointService<'_, H> {
    /// Adds a breakpoint (keeping its behaviours if it exists) and records the signature. The
    /// same registration again (every run of a program wraps its functions anew) changes
    /// nothing: no program's breakpoint channel is woken and no page refetches for it.
    pub fn add_breakpoint(&self, name: &str, signature: Option<String>, behavior: Option<Behavior>) -> Result<()> {
        let name = required_name(name)?;
        let mut guard = self.debugger.state();
        let mut st = guard.breakpoint_parts();
        let before = st.breakpoints.by_name.get(name).cloned();
        let same_signature = st.functions.get(name).is_some_and(|f| f.signature == signature);
        let has_record = st.records.by_id.values().any(|r| r.function_name.as_deref() == Some(name));
        let bp = st.breakpoints.by_name.entry(name.to_string()).or_default();
        if let Some(b) = behavior {
            bp.behavior = b;
        }
        let registered = st
            .functions
            .entry(name.to_string())
            .or_insert_with(|| RegisteredFunction { signature: None, metadata: json!({}) });
        registered.signature = signature;
        if same_signature && has_record && before.as_ref() == st.breakpoints.by_name.get(name) {
            return Ok(());
        }
        st.ensure_function_record(name, ids::now())?;
        st.save_breakpoint(name)?;
        st.save_function(name)?;
        drop(guard);
        self.debugger.breakpoints().breakpoints_changed();
        Ok(())
    }

    pub fn remove_breakpoint(&self, name: &str) -> Result<()> {
        let mut guard = self.debugger.state();
        let mut st = guard.breakpoint_parts();
        st.breakpoints.by_name.remove(name);
        st.remove_function_records(name)?;
        st.save_breakpoint(name)?;
        drop(guard);
        self.debugger.breakpoints().breakpoints_changed();
        Ok(())
    }

    pub fn set_behavior(&self, name: &str, behavior: Behavior) -> Result<()> {
        self.with_breakpoint(name, |bp| bp.behavior = behavior)
    }

    pub fn set_after_behavior(&self, name: &str, behavior: AfterBehavior) -> Result<()> {
        self.with_breakpoint(name, |bp| bp.after_behavior = behavior)
    }

    /// Sets or clears (empty, or the breakpoint's own name) the function run instead.
    pub fn set_replacement(&self, name: &str, replacement: &str) -> Result<Option<String>> {
        let replacement = (!replacement.is_empty() && replacement != name).then(|| replacement.to_string());
        {
            let mut guard = self.debugger.state();
            let st = guard.breakpoint_parts();
            if !st.breakpoints.by_name.contains_key(name) {
                return Err(Error::BreakpointNotFound(name.to_string()));
            }
            if let Some(r) = &replacement {
                let sig = |n: &str| st.functions.get(n).and_then(|f| f.signature.clone()).filter(|s| !s.is_empty());
                if sig(name).is_none() || sig(name) != sig(r) {
                    return Err(Error::SignatureMismatch);
                }
            }
        }
        self.with_breakpoint(name, |bp| bp.replacement = replacement.clone())?;
        Ok(replacement)
    }

    fn with_breakpoint(&self, name: &str, change: impl FnOnce(&mut Breakpoint)) -> Result<()> {
        let mut guard = self.debugger.state();
        let st = guard.breakpoint_parts();
        let bp = st.breakpoints.by_name.get_mut(name).ok_or_else(|| Error::BreakpointNotFound(name.to_string()))?;
        change(bp);
        st.save_breakpoint(name)?;
        drop(guard);
        self.debugger.publish(LiveEvent::BREAKPOINTS_CHANGED);
        Ok(())
    }

    pub fn global_behavior(&self) -> GlobalBehavior {
        self.debugger.state().breakpoint_parts().breakpoints.global
    }

    pub fn set_global_behavior(&self, behavior: GlobalBehavior) -> Result<()> {
        {
            let mut guard = self.debugger.state();
            let st = guard.breakpoint_parts();
            st.breakpoints.global = behavior;
            st.store.put_global(behavior)?;
        }
        self.debugger.publish(LiveEvent::BREAKPOINTS_CHANGED);
        Ok(())
    }

    pub fn breakpoints(&self) -> BTreeMap<String, Breakpoint> {
        self.debugger.state().breakpoint_parts().breakpoints.by_name.clone()
    }

    /// Registers a function a client may replace calls with; its serialized code, when sent,
    /// is checked against its CID and stored first.
    pub fn register_function(&self, req: FunctionRegistration) -> Result<()> {
        let format = req.function_serialization_format.as_deref();
        SerializationFormat::parse(format)?;
        if let Some(cid) = req.function_cid.as_deref().filter(|c| !is_cid(c)) {
            return Err(Error::invalid(
                "invalid_cid",
                format!("function_cid must be 128 hex digits (a SHA-512), not {cid:?}"),
            ));
        }
        let now = ids::now();
        let mut guard = self.debugger.state();
        let st = guard.breakpoint_parts();
        if let (Some(cid), Some(data)) = (&req.function_cid, &req.function_data) {
            st.store.store_pair(cid, data, format, now)?;
        }
        let name = required_name(req.function_name.as_deref().unwrap_or(""))?;
        let metadata = json!({"client_ref": req.function_client_ref, "registered_at": now});
        st.functions.insert(name.to_string(), RegisteredFunction { signature: req.signature, metadata });
        st.save_function(name)
    }

    pub fn functions(&self) -> BTreeMap<String, RegisteredFunction> {
        self.debugger.state().breakpoint_parts().functions.clone()
    }

    /// A stored value as pages and tools show it.
    pub fn stored_value(&self, cid: &str) -> Result<StoredValue> {
        let cid = cid.to_ascii_lowercase();
        let obj = self.object(&cid)?.ok_or_else(|| Error::ObjectNotFound(cid.clone()))?;
        let display = match obj.format {
            SerializationFormat::Json => serde_json::from_slice::<Value>(&obj.bytes)
                .map(|v| text_of(&v))
                .unwrap_or_else(|_| "<invalid JSON>".into()),
            SerializationFormat::Dill => pickled_text(&obj.bytes),
        };
        Ok(StoredValue {
            cid,
            size: obj.bytes.len(),
            serialization_format: obj.format.as_str().into(),
            stored_at: obj.created_at,
            display,
        })
    }

    pub fn object(&self, cid: &str) -> Result<Option<StoredObject>> {
        self.debugger.state().breakpoint_parts().store.object(cid)
    }

    /// Breakpoints with what the main page needs to edit them.
    pub fn breakpoints_view(&self) -> BreakpointsView {
        let mut guard = self.debugger.state();
        let st = guard.breakpoint_parts();
        let breakpoints = st
            .breakpoints
            .by_name
            .iter()
            .map(|(name, bp)| {
                let signature = st.functions.get(name).and_then(|f| f.signature.clone());
                let replacements = st
                    .functions
                    .iter()
                    .filter(|(other, f)| {
                        *other != name
                            && signature.as_deref().is_some_and(|s| !s.is_empty() && f.signature.as_deref() == Some(s))
                    })
                    .map(|(other, _)| other.clone())
                    .collect();
                BreakpointView {
                    function_name: name.clone(),
                    behavior: bp.behavior,
                    after_behavior: bp.after_behavior,
                    replacement: bp.replacement.clone(),
                    signature,
                    replacements,
                }
            })
            .collect();
        BreakpointsView { breakpoints, global_behavior: st.breakpoints.global }
    }

    /// A breakpoint's completed calls, newest first.
    pub fn breakpoint_history(&self, name: &str, limit: usize) -> Result<Vec<Value>> {
        self.debugger.state().breakpoint_parts().store.history(name, limit)
    }
}

/// A SHA-512 in hex, as every CID is.
fn is_cid(text: &str) -> bool {
    text.len() == 128 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

pub(crate) fn required_name(name: &str) -> Result<&str> {
    if name.trim().is_empty() {
        Err(Error::MissingField { code: "function_name required", field: "function_name" })
    } else {
        Ok(name)
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
    fn the_same_registration_again_is_no_change_and_a_new_signature_is() {
        let debugger = crate::Debugger::for_tests(crate::Config::default());
        let functions = debugger.function_breakpoints();
        let mut events = debugger.subscribe();
        let changes = |events: &mut tokio::sync::broadcast::Receiver<LiveEvent>| {
            std::iter::from_fn(|| events.try_recv().ok()).filter(|e| *e == LiveEvent::BREAKPOINTS_CHANGED).count()
        };
        functions.add_breakpoint("checkout", Some("(cart)".into()), None).unwrap();
        assert_eq!(changes(&mut events), 1);
        // Every run of a program wraps its functions anew.
        functions.add_breakpoint("checkout", Some("(cart)".into()), None).unwrap();
        assert_eq!(changes(&mut events), 0);
        functions.add_breakpoint("checkout", Some("(cart, user)".into()), None).unwrap();
        functions.add_breakpoint("checkout", Some("(cart, user)".into()), Some(Behavior::Go)).unwrap();
        assert_eq!(changes(&mut events), 2);
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
