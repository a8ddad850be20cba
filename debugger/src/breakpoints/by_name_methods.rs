//! Breakpoints, their behaviours and replacements, registered functions and stored values.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::breakpoints::by_name::{AfterBehavior, Behavior, Breakpoint, GlobalBehavior};
use crate::cid_store::{SerializationFormat, StoredObject};
use crate::debugger::{Debugger, RegisteredFunction};
use crate::display::{pickled_text, text_of};
use crate::error::{Error, Result};
use crate::ids;
use crate::model::{BreakpointView, BreakpointsView, LiveEvent, StoredValue};

use crate::breakpoints::by_name::FunctionRegistration;

impl Debugger {
    /// Adds a breakpoint (keeping its behaviours if it exists) and records the signature.
    pub fn add_breakpoint(&self, name: &str, signature: Option<String>, behavior: Option<Behavior>) -> Result<()> {
        let name = required_name(name)?;
        let mut st = self.state();
        let bp = st.breakpoints.by_name.entry(name.to_string()).or_default();
        if let Some(b) = behavior {
            bp.behavior = b;
        }
        let registered = st
            .functions
            .entry(name.to_string())
            .or_insert_with(|| RegisteredFunction { signature: None, metadata: json!({}) });
        registered.signature = signature;
        st.ensure_function_record(name, ids::now())?;
        st.save_breakpoint(name)?;
        st.save_function(name)?;
        drop(st);
        self.breakpoints_changed();
        Ok(())
    }

    pub fn remove_breakpoint(&self, name: &str) -> Result<()> {
        let mut st = self.state();
        st.breakpoints.by_name.remove(name);
        st.remove_function_records(name)?;
        st.save_breakpoint(name)?;
        drop(st);
        self.breakpoints_changed();
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
            let st = self.state();
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
        let mut st = self.state();
        let bp = st.breakpoints.by_name.get_mut(name).ok_or_else(|| Error::BreakpointNotFound(name.to_string()))?;
        change(bp);
        st.save_breakpoint(name)?;
        drop(st);
        self.publish(LiveEvent::BreakpointsChanged);
        Ok(())
    }

    pub fn global_behavior(&self) -> GlobalBehavior {
        self.state().breakpoints.global
    }

    pub fn set_global_behavior(&self, behavior: GlobalBehavior) -> Result<()> {
        {
            let mut st = self.state();
            st.breakpoints.global = behavior;
            st.store.put_global(behavior)?;
        }
        self.publish(LiveEvent::BreakpointsChanged);
        Ok(())
    }

    pub fn breakpoints(&self) -> BTreeMap<String, Breakpoint> {
        self.state().breakpoints.by_name.clone()
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
        let mut st = self.state();
        if let (Some(cid), Some(data)) = (&req.function_cid, &req.function_data) {
            st.store_pair(cid, data, format, now)?;
        }
        let name = required_name(req.function_name.as_deref().unwrap_or(""))?;
        let metadata = json!({"client_ref": req.function_client_ref, "registered_at": now});
        st.functions.insert(name.to_string(), RegisteredFunction { signature: req.signature, metadata });
        st.save_function(name)
    }

    pub fn functions(&self) -> BTreeMap<String, RegisteredFunction> {
        self.state().functions.clone()
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
        self.state().object(cid)
    }

    /// Breakpoints with what the main page needs to edit them.
    pub fn breakpoints_view(&self) -> BreakpointsView {
        let st = self.state();
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
        self.state().store.history(name, limit)
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
