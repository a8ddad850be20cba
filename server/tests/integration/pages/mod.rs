//! The pages, rendered by the real router (SSR), one test list per page:
//! "Call Stack Page", "REPL Session Page", "Sessions Index Page", "Call Tree Integration" and
//! "Paused Execution Card". Browser behaviour (typing, live updates) is in end2end/.

mod call_tree;
mod callstack;
mod other;
mod paused;
mod repl;
mod repls;

use crate::common;

use common::TestServer;
use serde_json::{json, Value};

/// The text a reader sees: tags and hydration comments removed, whitespace collapsed.
fn visible(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        out.push_str(&rest[..start]);
        let end = if rest[start..].starts_with("<!--") {
            rest[start..].find("-->").map(|e| start + e + 3)
        } else {
            rest[start..].find('>').map(|e| start + e + 1)
        };
        match end {
            Some(end) => rest = &rest[end..],
            None => break,
        }
        out.push(' ');
    }
    let text = out
        .replace("&gt;", ">")
        .replace("&lt;", "<")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&amp;", "&");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

async fn page(server: &TestServer, path: &str) -> (u16, String) {
    let response = server.http.get(format!("{}{path}", server.base)).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

/// Pauses `name` in process `pid` with a three-frame stack and source around each line.
async fn pause_with_stack(server: &TestServer, name: &str, pid: i64) -> (String, String) {
    server.post("/api/breakpoints", json!({"function_name": name})).await;
    let frames = json!([
        {"filename": "/srv/app/orders.py", "lineno": 42, "function": name, "code_context": "total = sum(items)",
         "source_start": 40, "source_lines": ["def checkout(items):", "    items = list(items)", "    total = sum(items)", "    return total"],
         "locals": ["items", "total"]},
        {"filename": "/srv/app/views.py", "lineno": 17, "function": "order_view", "code_context": "checkout(cart)",
         "source_start": 17, "source_lines": ["    checkout(cart)"], "locals": ["cart"]},
        {"filename": "/srv/app/main.py", "lineno": 3, "function": "<module>", "code_context": "serve()",
         "source_start": 3, "source_lines": ["serve()"], "locals": []},
    ]);
    let stack: Vec<Value> = frames
        .as_array()
        .unwrap()
        .iter()
        .map(|f| json!({"filename": f["filename"], "lineno": f["lineno"], "function": f["function"], "code_context": f["code_context"]}))
        .collect();
    let (status, reply) = server
        .post(
            "/api/call/start",
            json!({
                "method_name": name,
                "args": [{"cid": common::INT_6_CID, "client_ref": 1, "data": "gARLBi4=", "repr": "6"}],
                "kwargs": {},
                "call_site": {"timestamp": 1.0, "stack_trace": stack},
                "frames": frames,
                "process_pid": pid,
                "process_start_time": 1_795_331_833.75,
            }),
        )
        .await;
    assert_eq!(status, 200, "{reply}");
    let pause_id = reply["poll_url"].as_str().unwrap().trim_start_matches("/api/poll/").to_string();
    (reply["call_id"].as_str().unwrap().to_string(), pause_id)
}

/// A session with one answered eval (`expr` → `output`).
async fn session_with_entry(server: &TestServer, pause_id: &str, expr: &str, output: &str) -> String {
    let session_id = server.start_session(pause_id).await;
    let eval = tokio::spawn({
        let http = server.http.clone();
        let url = format!("{}/api/repl/{session_id}/eval", server.base);
        let expr = expr.to_string();
        async move { http.post(url).json(&json!({"expr": expr})).send().await.unwrap().status() }
    });
    let output = output.to_string();
    server.answer_next_eval(pause_id, move |_| json!({"result": output, "stdout": "", "error": null})).await;
    assert_eq!(eval.await.unwrap(), 200);
    session_id
}
