//! Every field a program, a user or an agent controls is shown as text on every page that shows
//! it: `<script>`, quotes and `&` in function names, argument reprs, stack frames, REPL input and
//! output, process names, commands and output, breakpoint options, runtime output and stored
//! values come out escaped, never as markup. The pages can run code in every debugged process,
//! so one unescaped field is remote code execution.

use crate::common;

use base64::Engine;
use common::TestServer;
use serde_json::json;

/// What an attacker would send: a script, both quotes, an ampersand and a tag-closing attribute.
const EVIL: &str = r#"<script>alert("x&y")</script>'"><img src=x onerror=alert(1)>"#;

/// The start of `EVIL` as escaped text: what every page must show instead.
const EVIL_ESCAPED: &str = "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;";

/// `EVIL` with a field's name, so a failure says which field leaked.
fn evil(field: &str) -> String {
    format!("{field}{EVIL}")
}

async fn page(server: &TestServer, path: &str) -> String {
    let response = server.http.get(format!("{}{path}", server.base)).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "{path}");
    response.text().await.unwrap()
}

/// `html` has none of the markup of `EVIL`, and shows each of `fields` escaped.
fn assert_escaped(path: &str, html: &str, fields: &[&str]) {
    for raw in ["<script>alert", "<img src=x", "onerror=alert(1)>"] {
        assert!(!html.contains(raw), "{path}: `{raw}` reached the page as markup:\n{html}");
    }
    for field in fields {
        assert!(html.contains(&format!("{field}{EVIL_ESCAPED}")), "{path}: {field} is not shown escaped:\n{html}");
    }
}

/// A pickled Python `str` (protocol 2): the stored value's display is its repr.
fn pickled_str(text: &str) -> (String, String) {
    let mut bytes = vec![0x80, 0x02, b'X'];
    bytes.extend((text.len() as u32).to_le_bytes());
    bytes.extend(text.as_bytes());
    bytes.push(b'.');
    (breakroom_debugger::cid_store::cid_of(&bytes), base64::engine::general_purpose::STANDARD.encode(&bytes))
}

#[test]
fn every_user_controlled_field_is_escaped_on_every_page() {
    crate::common::on_shared_runtime(every_user_controlled_field_is_escaped_on_every_page_on_the_shared_runtime())
}

async fn every_user_controlled_field_is_escaped_on_every_page_on_the_shared_runtime() {
    let server = common::start().await;
    let function = evil("function");
    let (cid, data) = pickled_str(&evil("stored"));

    // A paused call whose name, argument, frames and source carry markup.
    server.post("/api/breakpoints", json!({"function_name": function})).await;
    let frame = json!({"filename": evil("file"), "lineno": 2, "function": function, "code_context": evil("context"),
        "source_start": 1, "source_lines": [evil("source"), "x = 1"], "locals": [evil("local")]});
    let (status, reply) = server
        .post(
            "/api/call/start",
            json!({
                "method_name": function,
                "args": [{"cid": cid, "client_ref": 1, "data": data, "repr": evil("repr")}],
                "kwargs": {},
                "call_site": {"timestamp": 1.0, "stack_trace": [frame]},
                "frames": [frame],
                "process_pid": 4242,
                "process_start_time": 1_795_331_833.75,
            }),
        )
        .await;
    assert_eq!(status, 200, "{reply}");
    let pause_id = reply["poll_url"].as_str().unwrap().trim_start_matches("/api/poll/").to_string();

    // A REPL session whose input, output and stdout carry markup.
    let session_id = server.start_session(&pause_id).await;
    let eval = tokio::spawn({
        let (http, url) = (server.http.clone(), format!("{}/api/repl/{session_id}/eval", server.base));
        let expr = evil("input");
        async move { http.post(url).json(&json!({"expr": expr})).send().await.unwrap().status() }
    });
    server
        .answer_next_eval(&pause_id, |_| json!({"result": evil("output"), "stdout": evil("stdout"), "error": null}))
        .await;
    assert_eq!(eval.await.unwrap(), 200);

    // Breakpoints by id whose options and places carry markup.
    // A logpoint's condition is read-only Python (issue 34): the markup rides in a string literal.
    let condition = format!("'{}'", evil("condition").replace('\'', "\\'"));
    let options = json!({"condition": condition, "pattern": evil("pattern"), "log_message": evil("log")});
    for mut body in [
        json!({"kind": "function", "function_name": evil("target")}),
        json!({"kind": "line", "file": evil("path"), "line": 3}),
        json!({"kind": "error", "exception_types": [evil("exception")]}),
    ] {
        body.as_object_mut().unwrap().extend(options.as_object().unwrap().clone());
        let (status, reply) = server.post("/api/breakpoints", body).await;
        assert_eq!(status, 200, "{reply}");
    }

    let html = page(&server, "/").await;
    assert_escaped("/", &html, &["function", "repr", "condition", "log", "pattern", "target", "path", "exception"]);
    let html = page(&server, &format!("/callstack/{pause_id}")).await;
    assert_escaped("/callstack", &html, &["function", "file", "context", "source", "local"]);
    let html = page(&server, &format!("/repl/{session_id}")).await;
    // With the debug panel (issue 30): the stack's files and the frame's source lines.
    assert_escaped("/repl", &html, &["function", "repr", "input", "output", "stdout", "file", "source"]);
    assert!(html.contains("debug-source"), "the debug panel is on the page:\n{html}");
    let html = page(&server, "/repls").await;
    assert_escaped("/repls", &html, &["function"]);
    // The row `/repls` reads alone when the session closes.
    let (status, row) = server.server_function("session_row", &[("session_id", &session_id)]).await;
    assert_eq!(status, 200, "{row}");
    assert_escaped("session_row", &row, &["function"]);
    let html = page(&server, &format!("/repls?search={}", urlencode(&evil("search")))).await;
    assert_escaped("/repls?search", &html, &["search"]);
    let html = page(&server, &format!("/object/{cid}")).await;
    assert_escaped("/object", &html, &["stored"]);
    let key = server.debugger.pauses().process_summaries().unwrap()[0].process_key.clone();
    let html = page(&server, &format!("/call-tree/{}", urlencode(&key))).await;
    assert_escaped("/call-tree/{key}", &html, &["function", "repr"]);

    // A launched process whose name, command and output carry markup.
    let script = format!(
        "import sys, time\nprint({:?})\nprint({:?}, file=sys.stderr)\nsys.stdout.flush()\ntime.sleep(30)",
        evil("out"),
        evil("err")
    );
    let (status, launched) =
        server.post("/api/processes", json!({"command": ["python3", "-c", script], "name": evil("name")})).await;
    assert_eq!(status, 200, "{launched}");
    let id = launched["id"].as_str().unwrap().to_string();
    common::wait_until("the process's output", async || {
        let (_, output) = server.get(&format!("/api/processes/{id}/output?limit=100")).await;
        output["lines"].as_array().is_some_and(|lines| lines.len() >= 2)
    })
    .await;
    let html = page(&server, "/processes").await;
    assert_escaped("/processes", &html, &["name"]);
    let html = page(&server, &format!("/process/{id}")).await;
    assert_escaped("/process/{id}", &html, &["name", "out", "err"]);
    assert!(
        html.contains(
            &format!("print({:?})", evil("out"))
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
        ),
        "the command is shown escaped:\n{html}"
    );
    let html = page(&server, &format!("/process/{id}/timeline")).await;
    assert_escaped("/process/{id}/timeline", &html, &["name"]);
    server.post(&format!("/api/processes/{id}/stop"), json!({})).await;

    // A runtime whose output carries markup.
    let quoted = |text: &str| format!("'{}'", text.replace('\'', "'\\''"));
    let command = format!("export SHOWN={}; echo {}", quoted(&evil("env")), quoted(&evil("bash")));
    let (status, reply) = server.post("/api/runtimes/esc/exec", json!({ "command": command })).await;
    assert_eq!(status, 200, "{reply}");
    let (status, reply) = server
        .post(
            "/api/runtimes/esc/exec",
            json!({"command": format!("shown = {:?}\nprint(shown)", evil("python")), "language": "python"}),
        )
        .await;
    assert_eq!(status, 200, "{reply}");
    let html = page(&server, "/runtime/esc").await;
    assert_escaped("/runtime/{ws}", &html, &["env"]);
    // The earlier commands come after the page loads, from a server function.
    for (language, fields) in [("bash", ["bash"]), ("python", ["python"])] {
        let (status, html) =
            server.server_function("runtime_earlier_html", &[("workspace", "esc"), ("language", language)]).await;
        assert_eq!(status, 200);
        assert_escaped("runtime_earlier_html", &html, &fields);
    }
    let html = page(&server, "/runtimes").await;
    assert_escaped("/runtimes", &html, &[]);
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
