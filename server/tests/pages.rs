//! The pages, rendered by the real router (SSR), one test list per page:
//! "Call Stack Page", "REPL Session Page", "Sessions Index Page", "Call Tree Integration" and
//! "Paused Execution Card". Browser behaviour (typing, live updates) is in end2end/.

mod common;

use std::sync::LazyLock;

use common::TestServer;
use serde_json::{json, Value};

/// Page tests run one at a time, on one runtime. Several servers rendering pages at once in
/// one test process now and then stall a render (Leptos keeps process-wide SSR state); one
/// server under 840 concurrent page loads did not, so only the tests are serialized.
fn on_shared_runtime(test: impl std::future::Future<Output = ()>) {
    static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime")
    });
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    RUNTIME.block_on(test)
}

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

// ---- Call Stack Page ----------------------------------------------------------------------

#[test]
fn test_callstack_page_renders_for_valid_pause_id() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = pause_with_stack(&server, "checkout", 4101).await;
        let (status, html) = page(&server, &format!("/callstack/{pause_id}")).await;
        assert_eq!(status, 200);
        assert!(visible(&html).contains("Call Stack for checkout"), "{}", visible(&html));
    })
}

#[test]
fn test_callstack_page_returns_404_for_invalid_pause_id() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (status, html) = page(&server, "/callstack/no-such-pause").await;
        assert_eq!(status, 404);
        assert!(visible(&html).contains("Not found"));
    })
}

#[test]
fn test_callstack_page_shows_all_stack_frames() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = pause_with_stack(&server, "checkout", 4102).await;
        let (_, html) = page(&server, &format!("/callstack/{pause_id}")).await;
        assert_eq!(html.matches("class=\"frame\"").count(), 3);
        let text = visible(&html);
        assert!(text.contains("3 frames, innermost first"));
        let order: Vec<usize> =
            ["checkout /srv", "order_view", "<module>"].iter().map(|f| text.find(f).unwrap()).collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "innermost first: {order:?}");
    })
}

#[test]
fn test_callstack_page_shows_frame_filenames_and_line_numbers() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = pause_with_stack(&server, "checkout", 4103).await;
        let text = visible(&page(&server, &format!("/callstack/{pause_id}")).await.1);
        for place in ["/srv/app/orders.py:42", "/srv/app/views.py:17", "/srv/app/main.py:3"] {
            assert!(text.contains(place), "{place} missing from {text}");
        }
    })
}

#[test]
fn test_callstack_page_shows_code_context() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = pause_with_stack(&server, "checkout", 4104).await;
        let (_, html) = page(&server, &format!("/callstack/{pause_id}")).await;
        let text = visible(&html);
        assert!(text.contains("total = sum(items)") && text.contains("checkout(cart)"));
        // The innermost frame's source is expanded, its current line marked.
        assert!(html.contains("class=\"line current\""));
        assert!(text.contains("41 items = list(items)"), "{text}");
    })
}

#[test]
fn test_callstack_page_links_to_repl_sessions() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = pause_with_stack(&server, "checkout", 4105).await;
        let first = server.start_session(&pause_id).await;
        let second = server.start_session(&pause_id).await;
        let (_, html) = page(&server, &format!("/callstack/{pause_id}")).await;
        assert!(html.contains(&format!("href=\"/repl/{first}\"")));
        assert!(html.contains(&format!("href=\"/repl/{second}\"")));
    })
}

#[test]
fn test_callstack_page_links_to_call_tree() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (call_id, pause_id) = pause_with_stack(&server, "checkout", 4106).await;
        let (_, html) = page(&server, &format!("/callstack/{pause_id}")).await;
        assert!(html.contains(&format!("href=\"/call-tree/1795331833.750000+4106?selected={call_id}\"")), "{html}");
    })
}

// ---- REPL Session Page --------------------------------------------------------------------

#[test]
fn test_repl_page_renders_for_active_session() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4201).await;
        let session_id = server.start_session(&pause_id).await;
        let (status, html) = page(&server, &format!("/repl/{session_id}")).await;
        assert_eq!(status, 200);
        let text = visible(&html);
        assert!(text.contains("compute") && text.contains("Active") && text.contains(&session_id), "{text}");
    })
}

#[test]
fn test_repl_page_renders_for_closed_session() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4202).await;
        let session_id = server.start_session(&pause_id).await;
        server.post(&format!("/api/repl/{session_id}/close"), json!({})).await;
        let (status, html) = page(&server, &format!("/repl/{session_id}")).await;
        assert_eq!(status, 200);
        assert!(visible(&html).contains("Closed"));
    })
}

#[test]
fn test_repl_page_shows_transcript() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4203).await;
        let session_id = session_with_entry(&server, &pause_id, "a * 7", "42").await;
        let (_, html) = page(&server, &format!("/repl/{session_id}")).await;
        let text = visible(&html);
        assert!(text.contains(">>> a * 7 42"), "{text}");
        assert!(html.contains("class=\"tok-num\""), "inputs are highlighted as Python");
    })
}

#[test]
fn test_repl_page_shows_input_field_when_active() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4204).await;
        let session_id = server.start_session(&pause_id).await;
        let (_, html) = page(&server, &format!("/repl/{session_id}")).await;
        assert!(html.contains("<textarea") && html.contains("repl-input"));
    })
}

#[test]
fn test_repl_page_hides_input_field_when_closed() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4205).await;
        let session_id = session_with_entry(&server, &pause_id, "a", "6").await;
        server.post(&format!("/api/paused/{pause_id}/continue"), json!({"action": "continue"})).await;
        let (_, html) = page(&server, &format!("/repl/{session_id}")).await;
        assert!(!html.contains("<textarea"));
        assert!(visible(&html).contains(">>> a 6"), "the transcript stays readable");
    })
}

#[test]
fn test_repl_page_shows_closed_message_when_closed() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4206).await;
        let session_id = server.start_session(&pause_id).await;
        server.post(&format!("/api/paused/{pause_id}/continue"), json!({"action": "continue"})).await;
        let (_, html) = page(&server, &format!("/repl/{session_id}")).await;
        assert!(visible(&html).contains("Breakpoint resumed — session closed"));
    })
}

#[test]
fn test_repl_page_says_a_session_closed_by_a_restart_was_closed_by_it() {
    on_shared_runtime(async {
        let dir = tempfile::tempdir().unwrap();
        let config = breakroom_debugger::Config::default();
        let session_id = {
            let before = breakroom_debugger::Debugger::open(config.clone(), dir.path()).unwrap();
            before.add_breakpoint("compute", None, None).unwrap();
            let reply = before
                .start_call(breakroom_debugger::calls::CallStart {
                    method_name: Some("compute".into()),
                    process_pid: Some(json!(4207)),
                    process_start_time: Some(json!(1.5)),
                    ..Default::default()
                })
                .unwrap();
            let poll_url = serde_json::to_value(&reply).unwrap()["poll_url"].as_str().unwrap().to_string();
            before.start_session(poll_url.rsplit('/').next().unwrap()).unwrap()
        };
        let server = common::start_on(breakroom_debugger::Debugger::open(config, dir.path()).unwrap(), None).await;
        let (status, html) = page(&server, &format!("/repl/{session_id}")).await;
        assert_eq!(status, 200);
        assert!(visible(&html).contains("Session closed — server restarted"), "{}", visible(&html));
        assert!(!html.contains("<textarea"));
    })
}

#[test]
fn test_repl_page_returns_404_for_nonexistent_session() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (status, html) = page(&server, "/repl/123-1795331833.750000").await;
        assert_eq!(status, 404);
        assert!(visible(&html).contains("Not found"));
    })
}

#[test]
fn test_repl_page_links_to_callstack() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4207).await;
        let session_id = server.start_session(&pause_id).await;
        let (_, html) = page(&server, &format!("/repl/{session_id}")).await;
        assert!(html.contains(&format!("href=\"/callstack/{pause_id}\"")));
        assert!(visible(&html).contains("View Call Stack"));
    })
}

#[test]
fn test_repl_page_links_to_call_tree() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (call_id, pause_id) = server.pause_call("compute", 4208).await;
        let session_id = server.start_session(&pause_id).await;
        let (_, html) = page(&server, &format!("/repl/{session_id}")).await;
        assert!(html.contains(&format!("href=\"/call-tree/1795331833.750000+4208?selected={call_id}\"")));
        assert!(visible(&html).contains("View Call Tree"));
    })
}

// ---- Sessions Index Page ------------------------------------------------------------------

fn rows(html: &str) -> Vec<String> {
    html.split("data-session-id=\"").skip(1).map(|r| r.split('"').next().unwrap_or("").to_string()).collect()
}

#[test]
fn test_repls_page_renders_with_no_sessions() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (status, html) = page(&server, "/repls").await;
        assert_eq!(status, 200);
        let text = visible(&html);
        assert!(text.contains("REPL Sessions") && text.contains("No REPL sessions yet."), "{text}");
    })
}

#[test]
fn test_repls_page_renders_with_sessions() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4301).await;
        let a = server.start_session(&pause_id).await;
        let b = server.start_session(&pause_id).await;
        let (_, html) = page(&server, "/repls").await;
        assert_eq!(rows(&html), vec![b, a]);
        assert!(visible(&html).contains("1–2 of 2 sessions"));
    })
}

#[test]
fn test_repls_page_shows_session_links() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4302).await;
        let session_id = server.start_session(&pause_id).await;
        let (_, html) = page(&server, "/repls").await;
        assert!(html.contains(&format!("href=\"/repl/{session_id}\"")));
    })
}

#[test]
fn test_repls_page_search_filters_by_function_name() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, p1) = server.pause_call("checkout_cart", 4303).await;
        let (_, p2) = server.pause_call("send_email", 4304).await;
        let cart = server.start_session(&p1).await;
        server.start_session(&p2).await;
        let (_, html) = page(&server, "/repls?search=CHECKOUT").await;
        assert_eq!(rows(&html), vec![cart]);
    })
}

#[test]
fn test_repls_page_search_filters_by_transcript_content() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4305).await;
        let hit = session_with_entry(&server, &pause_id, "user.email", "'ada@example.com'").await;
        session_with_entry(&server, &pause_id, "1 + 1", "2").await;
        let (_, html) = page(&server, "/repls?search=ada%40example").await;
        assert_eq!(rows(&html), vec![hit]);
    })
}

#[test]
fn test_repls_page_filter_by_active_status() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4306).await;
        let open = server.start_session(&pause_id).await;
        let closed = server.start_session(&pause_id).await;
        server.post(&format!("/api/repl/{closed}/close"), json!({})).await;
        let (_, html) = page(&server, "/repls?status=active").await;
        assert_eq!(rows(&html), vec![open]);
    })
}

#[test]
fn test_repls_page_filter_by_closed_status() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4307).await;
        server.start_session(&pause_id).await;
        let closed = server.start_session(&pause_id).await;
        server.post(&format!("/api/repl/{closed}/close"), json!({})).await;
        let (_, html) = page(&server, "/repls?status=closed").await;
        assert_eq!(rows(&html), vec![closed.clone()]);
        assert!(visible(&html).contains("Closed"));
    })
}

#[test]
fn test_repls_page_filter_by_date_range() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4308).await;
        let session_id = server.start_session(&pause_id).await;
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
        let day = |offset: f64| breakroom_app::format::timestamp(now + offset * 86_400.0)[..10].to_string();
        let (today, yesterday, tomorrow) = (day(0.0), day(-1.0), day(1.0));
        assert_eq!(rows(&page(&server, &format!("/repls?from={today}&to={today}")).await.1), vec![session_id.clone()]);
        assert_eq!(rows(&page(&server, &format!("/repls?from={yesterday}")).await.1), vec![session_id]);
        assert!(rows(&page(&server, &format!("/repls?from={tomorrow}")).await.1).is_empty());
        assert!(rows(&page(&server, &format!("/repls?to={yesterday}")).await.1).is_empty());
    })
}

#[test]
fn test_repls_page_sorted_by_most_recent_first() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4309).await;
        let mut started = vec![];
        for _ in 0..4 {
            started.push(server.start_session(&pause_id).await);
        }
        started.reverse();
        assert_eq!(rows(&page(&server, "/repls").await.1), started);
    })
}

#[test]
fn test_repls_page_pagination() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4310).await;
        let mut started = vec![];
        for _ in 0..53 {
            started.push(server.start_session(&pause_id).await);
        }
        started.reverse();
        let (_, first) = page(&server, "/repls?search=compute").await;
        assert_eq!(rows(&first), started[..50].to_vec());
        assert!(visible(&first).contains("Page 1 of 2"));
        // The next-page link keeps the filters.
        assert!(first.contains("href=\"/repls?search=compute&amp;page=2\""), "{first}");
        let (_, second) = page(&server, "/repls?search=compute&page=2").await;
        assert_eq!(rows(&second), started[50..].to_vec());
        assert!(visible(&second).contains("51–53 of 53 sessions"));
    })
}

#[test]
fn test_repls_page_shows_callstack_links() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4311).await;
        server.start_session(&pause_id).await;
        let (_, html) = page(&server, "/repls").await;
        assert!(html.contains(&format!("href=\"/callstack/{pause_id}\"")));
    })
}

// ---- Call Tree Integration ----------------------------------------------------------------

fn node<'a>(html: &'a str, call_id: &str) -> &'a str {
    let start = html.find(&format!("data-call-id=\"{call_id}\"")).expect("node on the page");
    let end = html[start..].find("</li>").map(|e| start + e).unwrap_or(html.len());
    &html[start..end]
}

#[test]
fn test_call_tree_node_shows_repl_badge_when_session_exists() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (call_id, pause_id) = server.pause_call("compute", 4401).await;
        server.start_session(&pause_id).await;
        let (status, html) = page(&server, "/call-tree/1795331833.750000+4401").await;
        assert_eq!(status, 200);
        assert!(visible(node(&html, &call_id)).contains("REPL"));
    })
}

#[test]
fn test_call_tree_node_no_repl_badge_when_no_session() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (call_id, _) = server.pause_call("compute", 4402).await;
        let (_, html) = page(&server, "/call-tree/1795331833.750000+4402").await;
        assert!(!node(&html, &call_id).contains("badge repl"));
    })
}

#[test]
fn test_call_tree_node_repl_badge_links_to_session_page() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (call_id, pause_id) = server.pause_call("compute", 4403).await;
        let session_id = server.start_session(&pause_id).await;
        let (_, html) = page(&server, "/call-tree/1795331833.750000+4403").await;
        assert!(node(&html, &call_id).contains(&format!("href=\"/repl/{session_id}\"")));
    })
}

#[test]
fn test_call_tree_node_multiple_sessions_shows_all_links() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (call_id, pause_id) = server.pause_call("compute", 4404).await;
        let a = server.start_session(&pause_id).await;
        let b = server.start_session(&pause_id).await;
        let (_, html) = page(&server, "/call-tree/1795331833.750000+4404").await;
        let node = node(&html, &call_id);
        assert!(node.contains(&format!("href=\"/repl/{a}\"")) && node.contains(&format!("href=\"/repl/{b}\"")));
    })
}

#[test]
fn test_call_record_repl_sessions_field_populated_on_session_start() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (call_id, pause_id) = server.pause_call("compute", 4405).await;
        let session_id = server.start_session(&pause_id).await;
        assert_eq!(server.debugger.call_record(&call_id).unwrap().unwrap().repl_sessions, vec![session_id]);
    })
}

#[test]
fn test_call_record_repl_sessions_field_empty_by_default() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (call_id, _) = server.pause_call("compute", 4406).await;
        assert!(server.debugger.call_record(&call_id).unwrap().unwrap().repl_sessions.is_empty());
    })
}

#[test]
fn call_tree_pages_list_processes_and_404_unknown_ones() {
    on_shared_runtime(async {
        let server = common::start().await;
        server.pause_call("compute", 4407).await;
        let (status, html) = page(&server, "/call-tree").await;
        assert_eq!(status, 200);
        assert!(html.contains("href=\"/call-tree/1795331833.750000+4407\""));
        assert_eq!(page(&server, "/call-tree/nope").await.0, 404);
    })
}

// ---- Paused Execution Card ----------------------------------------------------------------

#[test]
fn test_paused_card_shows_open_repl_button() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4501).await;
        let (_, html) = page(&server, "/").await;
        let card = &html[html.find(&format!("data-pause-id=\"{pause_id}\"")).unwrap()..];
        let card = &card[..card.find("</li>").unwrap()];
        let text = visible(card);
        assert!(text.contains("Open REPL") && text.contains("Continue") && text.contains("compute ( 6 )"), "{text}");
    })
}

#[test]
fn test_paused_card_repl_button_starts_session_and_redirects() {
    on_shared_runtime(async {
        // The click is a browser's (end2end/tests/pages.spec.ts drives it); here, the server
        // function the button calls, through the router.
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4502).await;
        let response = server
            .http
            .post(format!("{}{}", server.base, <breakroom_app::api::StartRepl as leptos::server_fn::ServerFn>::PATH))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!("pause_id={pause_id}"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
        let session_id: String = response.json().await.unwrap();
        assert!(session_id.starts_with("4502-"));
        assert_eq!(server.debugger.sessions_for_pause(&pause_id).unwrap(), vec![session_id.clone()]);
        assert_eq!(page(&server, &format!("/repl/{session_id}")).await.0, 200);
    })
}

#[test]
fn test_paused_card_shows_existing_repl_link_if_session_active() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4503).await;
        let session_id = server.start_session(&pause_id).await;
        let (_, html) = page(&server, "/").await;
        assert!(html.contains(&format!("href=\"/repl/{session_id}\"")));
        assert!(visible(&html).contains("Go to open REPL"));
    })
}

// ---- Other pages ----------------------------------------------------------------------------

#[test]
fn object_page_shows_a_stored_value_and_404s_unknown_cids() {
    on_shared_runtime(async {
        let server = common::start().await;
        server.pause_call("compute", 4601).await;
        let (status, html) = page(&server, &format!("/object/{}", common::INT_6_CID)).await;
        assert_eq!(status, 200);
        let text = visible(&html);
        assert!(text.contains("Stored value") && text.contains("6") && text.contains("dill"), "{text}");
        assert_eq!(page(&server, "/object/abc").await.0, 404);
    })
}

#[test]
fn main_page_lists_breakpoints_and_the_global_behaviour() {
    on_shared_runtime(async {
        let server = common::start().await;
        server.pause_call("compute", 4602).await;
        let (_, html) = page(&server, "/").await;
        assert!(html.contains("data-breakpoint=\"compute\""));
        assert!(visible(&html).contains("When a call has no breakpoint of its own"));
    })
}

#[test]
fn a_process_named_with_markup_gets_an_escaped_page_title() {
    on_shared_runtime(async {
        let server = common::start().await;
        let name = "</title><script>alert(3)</script>";
        let (status, launched) = server
            .post("/api/processes", json!({"command": ["python3", "-c", "import time; time.sleep(20)"], "name": name}))
            .await;
        assert_eq!(status, 200, "{launched}");
        let id = launched["id"].as_str().unwrap().to_string();
        let (status, html) = page(&server, &format!("/process/{id}")).await;
        assert_eq!(status, 200);
        assert!(!html.contains("<script>alert(3)"), "the name became markup: {html}");
        let title = html.split("<title>").nth(1).and_then(|t| t.split("</title>").next()).unwrap_or_default();
        assert_eq!(title, "Process · &lt;/title&gt;&lt;script&gt;alert(3)&lt;/script&gt; — Breakroom");
        server.post(&format!("/api/processes/{id}/stop"), json!({})).await;
    })
}
