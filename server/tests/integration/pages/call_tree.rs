//! The call trees (`/call-tree`, `/call-tree/{process_key}`).

use super::{page, visible};
use crate::common::{self, on_shared_runtime};

fn node<'a>(html: &'a str, call_id: &str) -> &'a str {
    let start = html.find(&format!("data-call-id=\"{call_id}\"")).expect("node on the page");
    let end = html[start..].find("</li>").map(|e| start + e).unwrap_or(html.len());
    &html[start..end]
}

#[test]
fn call_tree_node_shows_repl_badge_when_session_exists() {
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
fn call_tree_node_no_repl_badge_when_no_session() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (call_id, _) = server.pause_call("compute", 4402).await;
        let (_, html) = page(&server, "/call-tree/1795331833.750000+4402").await;
        assert!(!node(&html, &call_id).contains("badge repl"));
    })
}

#[test]
fn call_tree_node_repl_badge_links_to_session_page() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (call_id, pause_id) = server.pause_call("compute", 4403).await;
        let session_id = server.start_session(&pause_id).await;
        let (_, html) = page(&server, "/call-tree/1795331833.750000+4403").await;
        assert!(node(&html, &call_id).contains(&format!("href=\"/repl/{session_id}\"")));
    })
}

#[test]
fn call_tree_node_multiple_sessions_shows_all_links() {
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
fn call_record_repl_sessions_field_populated_on_session_start() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (call_id, pause_id) = server.pause_call("compute", 4405).await;
        let session_id = server.start_session(&pause_id).await;
        assert_eq!(server.debugger.pauses().call_record(&call_id).unwrap().unwrap().repl_sessions, vec![session_id]);
    })
}

#[test]
fn call_record_repl_sessions_field_empty_by_default() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (call_id, _) = server.pause_call("compute", 4406).await;
        assert!(server.debugger.pauses().call_record(&call_id).unwrap().unwrap().repl_sessions.is_empty());
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

/// Reports `calls` calls of process `pid`, each done before the next; their ids, oldest first.
fn report_calls(server: &common::TestServer, pid: i64, calls: usize) -> Vec<String> {
    use breakroom_debugger::calls::{CallComplete, CallStart};
    use serde_json::json;
    (0..calls)
        .map(|i| {
            let start = CallStart {
                method_name: Some(format!("job_{i}")),
                process_pid: Some(json!(pid)),
                process_start_time: Some(json!(1795331833.75)),
                ..Default::default()
            };
            let call_id = server.debugger.calls().start_call(start).expect("start").call_id;
            let done = CallComplete {
                call_id: Some(call_id.clone()),
                status: Some("success".into()),
                process_pid: Some(json!(pid)),
                process_start_time: Some(json!(1795331833.75)),
                ..Default::default()
            };
            server.debugger.calls().complete_call(done).expect("complete");
            call_id
        })
        .collect()
}

#[test]
fn a_busy_process_shows_its_newest_calls_with_a_way_to_all_and_to_an_older_selected_one() {
    use breakroom_debugger::model::CALL_TREE_NEWEST;
    on_shared_runtime(async {
        let server = common::start().await;
        let ids = report_calls(&server, 4410, CALL_TREE_NEWEST + 3);
        let base = "/call-tree/1795331833.750000+4410";
        let (status, html) = page(&server, base).await;
        assert_eq!(status, 200);
        assert_eq!(html.matches("data-call-id=\"").count(), CALL_TREE_NEWEST);
        assert!(!html.contains(&format!("data-call-id=\"{}\"", ids[2])), "the oldest three are left out");
        assert!(html.contains(&format!("data-call-id=\"{}\"", ids[3])));
        let text = visible(&html);
        assert!(text.contains("The newest 1,000 of 1,003 calls"), "{text}");
        assert!(html.contains(&format!("href=\"{base}?all=1\"")), "a link to every call");

        let (_, all) = page(&server, &format!("{base}?all=1")).await;
        assert_eq!(all.matches("data-call-id=\"").count(), CALL_TREE_NEWEST + 3);
        assert!(visible(&all).contains("1,003 calls. Show the newest 1,000"));

        // A link to an older call (a call stack's "View Call Tree") shows it, marked.
        let (_, older) = page(&server, &format!("{base}?selected={}", ids[0])).await;
        assert_eq!(older.matches("data-call-id=\"").count(), CALL_TREE_NEWEST + 3);
        assert!(older.contains(&format!("id=\"call-{}\" data-call-id", ids[0])));
        assert!(node(&older, &ids[0]).contains("job_0"));
        assert!(older.contains("status-success selected\""), "the selected call is marked");
    })
}

#[test]
fn a_processs_row_read_alone_is_its_row_of_the_list() {
    common::in_turn(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4431).await;
        server.start_session(&pause_id).await;
        server.pause_call("compute", 4432).await;
        let (status, list) = page(&server, "/call-tree").await;
        assert_eq!(status, 200);
        for key in ["1795331833.750000+4431", "1795331833.750000+4432"] {
            let (status, row) = server.server_function("call_tree_process_row", &[("process_key", key)]).await;
            assert_eq!(status, 200, "{row}");
            let row = row.strip_prefix('+').expect("a row");
            assert!(row.starts_with(&format!("<tr data-process-key=\"{key}\"")), "{row}");
            assert!(list.contains(row), "{key}: the list's row differs from {row}");
        }
        let (_, row) = server.server_function("call_tree_process_row", &[("process_key", "1.0+1")]).await;
        assert_eq!(row, "-", "a process that reported no call has no row");
    })
}
