//! `/api/openapi.json`: generated from the handlers, and it matches the routes that serve.

use crate::common;

use std::collections::BTreeSet;

use serde_json::Value;

/// docs/src/protocol.md §10's checklist, plus Breakroom's own routes.
const EXPECTED: &[(&str, &str)] = &[
    ("get", "/api/breakpoints"),
    ("get", "/api/dap"),
    ("post", "/api/breakpoints"),
    ("delete", "/api/breakpoints/{name}"),
    ("delete", "/api/breakpoints"),
    ("patch", "/api/breakpoints/{name}"),
    ("get", "/api/breakpoint-changes"),
    ("post", "/api/breakpoint-hits"),
    ("get", "/api/snapshots"),
    ("post", "/api/snapshots"),
    // People, program credentials and the audit trail (issue 48).
    ("get", "/api/users"),
    ("post", "/api/users"),
    ("delete", "/api/users/{name}"),
    ("post", "/api/users/{name}/role"),
    ("post", "/api/users/{name}/rotate"),
    ("get", "/api/audit"),
    ("get", "/api/whoami"),
    ("get", "/api/snapshots/{id}"),
    ("post", "/api/breakpoints/{name}/behavior"),
    ("post", "/api/breakpoints/{name}/after_behavior"),
    ("post", "/api/breakpoints/{name}/replacement"),
    ("get", "/api/breakpoints/{name}/history"),
    ("get", "/api/behavior"),
    ("post", "/api/behavior"),
    ("get", "/api/functions"),
    ("post", "/api/functions"),
    ("post", "/api/call/start"),
    ("post", "/api/call/complete"),
    ("post", "/api/call/event"),
    ("get", "/api/poll/{pause_id}"),
    ("post", "/api/poll/{pause_id}"),
    ("get", "/api/paused"),
    ("post", "/api/paused/{pause_id}/continue"),
    ("post", "/api/report-com-error"),
    ("get", "/api/com-errors"),
    ("get", "/api/events"),
    ("get", "/api/poll-repl/{pause_id}"),
    ("post", "/api/call/repl-result"),
    ("post", "/api/repl/start"),
    ("get", "/api/repl/sessions"),
    ("get", "/api/repl/{session_id}"),
    ("post", "/api/repl/{session_id}/eval"),
    ("post", "/api/repl/{session_id}/close"),
    ("post", "/api/repl/{session_id}/complete"),
    ("get", "/api/repl/{session_id}/variables"),
    ("post", "/api/repl/{session_id}/variables/expand"),
    ("post", "/api/repl/{session_id}/watch"),
    ("post", "/api/repl/{session_id}/variables/view"),
    ("get", "/api/repl/{session_id}/table/{handle}"),
    ("get", "/api/live"),
    ("get", "/api/local-processes"),
    ("get", "/api/objects/{cid}"),
    ("get", "/api/processes"),
    ("post", "/api/processes"),
    ("post", "/api/processes/attach"),
    ("post", "/api/processes/not-followed"),
    ("get", "/api/processes/{id}"),
    ("delete", "/api/processes/{id}"),
    ("get", "/api/processes/{id}/output"),
    ("post", "/api/processes/{id}/stop"),
    ("post", "/api/processes/{id}/interrupt"),
    ("get", "/api/processes/{id}/tasks"),
    ("post", "/api/task-lists"),
    ("post", "/api/processes/{id}/tasks/{task_id}/pause"),
    ("post", "/api/processes/{id}/tasks/{task_id}/cancel"),
    ("post", "/api/task-orders"),
    ("get", "/api/runtimes"),
    ("post", "/api/runtimes/{workspace}/exec"),
    ("get", "/api/runtimes/{workspace}/state"),
    ("post", "/api/runtimes/{workspace}/reset"),
    ("get", "/api/runtimes/{workspace}/history"),
    ("delete", "/api/runtimes/{workspace}"),
    ("post", "/api/paused/{pause_id}/step-back"),
    ("post", "/api/paused/{pause_id}/step"),
    ("get", "/api/paused/{pause_id}/frames"),
    ("get", "/api/policy"),
    ("post", "/api/paused/{pause_id}/reverse-continue"),
    ("post", "/api/repl/{session_id}/frame"),
    ("get", "/api/processes/{id}/timeline"),
    ("post", "/api/processes/{id}/checkpoints"),
    ("post", "/api/checkpoints/{id}/rewind"),
    ("post", "/api/checkpoints/{id}/branch"),
    ("post", "/api/processes/{id}/branches/{name}/switch"),
    ("get", "/api/processes/{id}/branches/diff"),
    ("post", "/api/checkpoints"),
    ("get", "/api/checkpoints/{id}/hold"),
    ("get", "/api/checkpoints/newest-process"),
];

fn operations(doc: &Value) -> Vec<(String, String, Value)> {
    let mut ops = vec![];
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            ops.push((method.clone(), path.clone(), op.clone()));
        }
    }
    ops
}

fn refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if k == "$ref" {
                    out.extend(v.as_str().map(str::to_string));
                }
                refs(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

#[tokio::test]
async fn openapi_json_is_openapi_3_1_and_documents_every_endpoint() {
    let server = common::start().await;
    let (status, doc) = server.get("/api/openapi.json").await;
    assert_eq!(status, 200);
    assert!(doc["openapi"].as_str().is_some_and(|v| v.starts_with("3.1")), "{}", doc["openapi"]);

    let documented: BTreeSet<(String, String)> = operations(&doc).into_iter().map(|(m, p, _)| (m, p)).collect();
    let expected: BTreeSet<(String, String)> = EXPECTED.iter().map(|(m, p)| (m.to_string(), p.to_string())).collect();
    assert_eq!(documented, expected);

    let ids: Vec<String> =
        operations(&doc).iter().filter_map(|(_, _, op)| op["operationId"].as_str().map(String::from)).collect();
    assert_eq!(ids.len(), EXPECTED.len(), "every operation has an id");
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), ids.len(), "operation ids are unique: {ids:?}");

    let mut found = vec![];
    refs(&doc, &mut found);
    for reference in found {
        let name = reference.trim_start_matches("#/components/schemas/");
        assert!(doc["components"]["schemas"].get(name).is_some(), "{reference} does not resolve");
    }
    // The request shapes a client must get right are described field by field.
    let call_start = &doc["components"]["schemas"]["CallStart"]["properties"];
    for field in ["method_name", "args", "kwargs", "process_pid", "process_start_time", "call_site"] {
        assert!(call_start.get(field).is_some(), "CallStart lacks {field}");
    }
}

#[tokio::test]
async fn every_documented_operation_is_served_with_a_json_answer() {
    let server = common::start().await;
    let (_, doc) = server.get("/api/openapi.json").await;
    for (method, path, _) in operations(&doc) {
        if path == "/api/live" {
            continue; // an endless event stream; tested in live_events
        }
        let url = format!(
            "{}{}",
            server.base,
            path.replace("{name}", "nothing")
                .replace("{pause_id}", "nope")
                .replace("{session_id}", "1-2")
                .replace("{cid}", "ab12")
        );
        let request = match method.as_str() {
            "get" => server.http.get(&url),
            "post" => server.http.post(&url).json(&serde_json::json!({})),
            "delete" => server.http.delete(&url),
            "patch" => server.http.patch(&url).json(&serde_json::json!({})),
            other => panic!("unexpected method {other}"),
        };
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let body: Result<Value, _> = response.json().await;
        assert!(status != 405 && status < 500, "{method} {path}: {status}");
        let body = body.unwrap_or_else(|e| panic!("{method} {path} answered {status} without JSON: {e}"));
        if status >= 400 {
            assert!(body["error"].is_string() && body["message"].is_string(), "{method} {path}: {body}");
        }
    }
}

#[tokio::test]
async fn kinds_are_documented_as_closed_sets_of_values() {
    let server = common::start().await;
    let (_, doc) = server.get("/api/openapi.json").await;
    let schemas = &doc["components"]["schemas"];
    let values = |name: &str| -> Vec<String> {
        let schema = &schemas[name];
        let listed = schema["enum"].as_array().cloned().unwrap_or_else(|| {
            // utoipa writes an enum with documented variants as `oneOf` single-value enums.
            let variants = schema["oneOf"].as_array().into_iter().flatten();
            variants.flat_map(|v| v["enum"].as_array().cloned().unwrap_or_default()).collect()
        });
        listed.iter().filter_map(|v| v.as_str().map(String::from)).collect()
    };
    assert_eq!(values("Behavior"), ["stop", "go", "yield"]);
    assert_eq!(values("AfterBehavior"), ["stop", "go", "yield", "exception", "stop_exception"]);
    assert_eq!(values("GlobalBehavior"), ["stop", "go", "exception", "stop_exception"]);
    assert_eq!(values("ResumeKind"), ["continue", "skip", "raise", "modify", "replace"]);
    assert_eq!(values("EventKind").len(), 15);
    assert_eq!(values("CheckpointStatus"), ["held", "dropped", "ended"]);
    assert_eq!(values("BreakpointKind"), ["function", "line", "error"]);
    assert_eq!(values("SerializationFormat"), ["dill", "json"]);
    assert_eq!(values("OkStatus"), ["ok"]);
    // The answers name them instead of free text.
    let list = &schemas["BreakpointList"]["properties"];
    assert_eq!(list["global_behavior"]["$ref"], "#/components/schemas/GlobalBehavior");
    assert_eq!(list["breakpoint_behaviors"]["additionalProperties"]["$ref"], "#/components/schemas/Behavior");
}

#[tokio::test]
async fn the_live_stream_documents_every_event_kind() {
    let server = common::start().await;
    let (_, doc) = server.get("/api/openapi.json").await;
    let description = doc["paths"]["/api/live"]["get"]["responses"]["200"]["description"].as_str().unwrap_or_default();
    for kind in breakroom_debugger::model::LiveEventKind::ALL {
        assert!(
            description.contains(&format!("`{}`", kind.as_str())),
            "`{}` is missing from {description:?}",
            kind.as_str()
        );
    }
}
