//! Breakpoints, behaviours and registered functions (PROTOCOL.md §5.1–5.3, §9.1).

use std::collections::BTreeMap;

use axum::extract::{Path, Query, State};
use axum::Json;
use breakroom_debugger::Debugger;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{ApiResult, JsonBody};

pub async fn list(State(debugger): State<Debugger>) -> Json<Value> {
    let bps = debugger.breakpoints();
    let names: Vec<&String> = bps.keys().collect();
    let before: BTreeMap<_, _> = bps.iter().map(|(n, b)| (n, b.behavior.as_str())).collect();
    let after: BTreeMap<_, _> = bps.iter().map(|(n, b)| (n, b.after_behavior.as_str())).collect();
    let replacements: BTreeMap<_, _> = bps.iter().filter_map(|(n, b)| b.replacement.as_ref().map(|r| (n, r))).collect();
    Json(json!({
        "breakpoints": names,
        "breakpoint_behaviors": before,
        "breakpoint_after_behaviors": after,
        "breakpoint_replacements": replacements,
        "global_behavior": debugger.global_behavior().as_str(),
    }))
}

#[derive(Deserialize)]
pub struct NewBreakpoint {
    #[serde(default)]
    function_name: Option<String>,
    #[serde(default)]
    signature: Option<String>,
    #[serde(default)]
    behavior: Option<Value>,
}

pub async fn add(State(debugger): State<Debugger>, JsonBody(req): JsonBody<NewBreakpoint>) -> ApiResult {
    let name = req.function_name.unwrap_or_default();
    // Unknown behaviour values are ignored, as the reference server does.
    debugger.add_breakpoint(&name, req.signature, req.behavior.as_ref().and_then(Value::as_str))?;
    Ok(Json(json!({"status": "ok", "function_name": name})))
}

pub async fn remove(State(debugger): State<Debugger>, Path(name): Path<String>) -> Json<Value> {
    debugger.remove_breakpoint(&name);
    Json(json!({"status": "ok", "function_name": name}))
}

#[derive(Deserialize)]
pub struct BehaviorBody {
    #[serde(default)]
    behavior: Option<Value>,
}

fn behavior_text(body: &BehaviorBody) -> &str {
    body.behavior.as_ref().and_then(Value::as_str).unwrap_or("")
}

pub async fn set_behavior(
    State(debugger): State<Debugger>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<BehaviorBody>,
) -> ApiResult {
    let behavior = debugger.set_behavior(&name, behavior_text(&body))?;
    Ok(Json(json!({"status": "ok", "function_name": name, "behavior": behavior.as_str()})))
}

pub async fn set_after_behavior(
    State(debugger): State<Debugger>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<BehaviorBody>,
) -> ApiResult {
    let behavior = debugger.set_after_behavior(&name, behavior_text(&body))?;
    Ok(Json(json!({"status": "ok", "function_name": name, "behavior": behavior.as_str()})))
}

#[derive(Deserialize)]
pub struct ReplacementBody {
    #[serde(default)]
    replacement_function: Option<String>,
}

pub async fn set_replacement(
    State(debugger): State<Debugger>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<ReplacementBody>,
) -> ApiResult {
    let replacement = debugger.set_replacement(&name, body.replacement_function.as_deref().unwrap_or(""))?;
    Ok(Json(json!({"status": "ok", "function_name": name, "replacement_function": replacement})))
}

#[derive(Deserialize)]
pub struct HistoryQuery {
    #[serde(default)]
    limit: Option<usize>,
}

pub async fn history(
    State(debugger): State<Debugger>,
    Path(name): Path<String>,
    Query(q): Query<HistoryQuery>,
) -> Json<Value> {
    let history = debugger.breakpoint_history(&name, q.limit.unwrap_or(50));
    Json(json!({"function_name": name, "history": history}))
}

pub async fn global_behavior(State(debugger): State<Debugger>) -> Json<Value> {
    Json(json!({"behavior": debugger.global_behavior().as_str()}))
}

pub async fn set_global_behavior(
    State(debugger): State<Debugger>,
    JsonBody(body): JsonBody<BehaviorBody>,
) -> ApiResult {
    let behavior = debugger.set_global_behavior(behavior_text(&body))?;
    Ok(Json(json!({"status": "ok", "behavior": behavior.as_str()})))
}

#[derive(Deserialize)]
pub struct NewFunction {
    #[serde(default)]
    function_name: Option<String>,
    #[serde(default)]
    signature: Option<String>,
    #[serde(default)]
    function_client_ref: Option<Value>,
    #[serde(default)]
    function_cid: Option<String>,
    #[serde(default)]
    function_data: Option<String>,
    #[serde(default)]
    function_serialization_format: Option<String>,
}

pub async fn register_function(State(debugger): State<Debugger>, JsonBody(req): JsonBody<NewFunction>) -> ApiResult {
    if let (Some(cid), Some(data)) = (&req.function_cid, &req.function_data) {
        debugger.store_value(cid, data, req.function_serialization_format.as_deref())?;
    }
    let name = req.function_name.unwrap_or_default();
    debugger.register_function(&name, req.signature.clone(), req.function_client_ref)?;
    Ok(Json(json!({"status": "ok", "function_name": name, "signature": req.signature})))
}

pub async fn functions(State(debugger): State<Debugger>) -> Json<Value> {
    let functions = debugger.functions();
    let names: Vec<&String> = functions.keys().collect();
    let signatures: BTreeMap<_, _> = functions.iter().map(|(n, f)| (n, &f.signature)).collect();
    let metadata: BTreeMap<_, _> = functions.iter().map(|(n, f)| (n, &f.metadata)).collect();
    Json(json!({"functions": names, "function_signatures": signatures, "function_metadata": metadata}))
}
