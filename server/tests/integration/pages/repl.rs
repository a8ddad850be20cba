//! The REPL session page (`/repl/{session_id}`).

use serde_json::json;

use super::{page, session_with_entry, visible};
use crate::common::{self, on_shared_runtime};

#[test]
fn repl_page_renders_for_active_session() {
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
fn repl_page_renders_for_closed_session() {
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
fn repl_page_shows_transcript() {
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
fn repl_page_shows_input_field_when_active() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4204).await;
        let session_id = server.start_session(&pause_id).await;
        let (_, html) = page(&server, &format!("/repl/{session_id}")).await;
        assert!(html.contains("<textarea") && html.contains("repl-input"));
    })
}

#[test]
fn repl_page_hides_input_field_when_closed() {
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
fn repl_page_shows_closed_message_when_closed() {
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
fn repl_page_says_a_session_closed_by_a_restart_was_closed_by_it() {
    on_shared_runtime(async {
        let dir = tempfile::tempdir().unwrap();
        let config = breakroom_debugger::Config::default();
        let session_id = {
            let before = breakroom_debugger::Debugger::open(config.clone(), dir.path()).unwrap();
            before.function_breakpoints().add_breakpoint("compute", None, None).unwrap();
            let reply = before
                .calls()
                .start_call(breakroom_debugger::calls::CallStart {
                    method_name: Some("compute".into()),
                    process_pid: Some(json!(4207)),
                    process_start_time: Some(json!(1.5)),
                    ..Default::default()
                })
                .unwrap();
            let poll_url = serde_json::to_value(&reply).unwrap()["poll_url"].as_str().unwrap().to_string();
            before.sessions().start_session(poll_url.rsplit('/').next().unwrap()).unwrap()
        };
        let server = common::start_on(breakroom_debugger::Debugger::open(config, dir.path()).unwrap(), None).await;
        let (status, html) = page(&server, &format!("/repl/{session_id}")).await;
        assert_eq!(status, 200);
        assert!(visible(&html).contains("Session closed — server restarted"), "{}", visible(&html));
        assert!(!html.contains("<textarea"));
    })
}

#[test]
fn repl_page_returns_404_for_nonexistent_session() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (status, html) = page(&server, "/repl/123-1795331833.750000").await;
        assert_eq!(status, 404);
        assert!(visible(&html).contains("Not found"));
    })
}

#[test]
fn repl_page_links_to_callstack() {
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
fn repl_page_links_to_call_tree() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (call_id, pause_id) = server.pause_call("compute", 4208).await;
        let session_id = server.start_session(&pause_id).await;
        let (_, html) = page(&server, &format!("/repl/{session_id}")).await;
        assert!(html.contains(&format!("href=\"/call-tree/1795331833.750000+4208?selected={call_id}\"")));
        assert!(visible(&html).contains("View Call Tree"));
    })
}
