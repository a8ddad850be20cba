//! A second Continue means the same from every door (the manager decides, `continue_pause`): the
//! pause was already resumed, which is harmless. A pause that never was: the debug-client
//! protocol's REST door answers success, as the reference server does; the page says so.

use serde_json::json;

use crate::common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_continue_is_harmless_from_rest_and_from_the_page() {
    let server = common::start().await;
    let (_, pause_id) = server.pause_call("twice", 4801).await;
    let continue_path = format!("/api/paused/{pause_id}/continue");
    let (status, first) = server.post(&continue_path, json!({})).await;
    assert_eq!((status, first["status"].clone()), (200, json!("ok")), "{first}");
    let (status, second) = server.post(&continue_path, json!({})).await;
    assert_eq!((status, second["status"].clone()), (200, json!("ok")), "{second}");
    let (status, body) = server.server_function("continue_call", &[("pause_id", &pause_id)]).await;
    assert_eq!(status, 200, "the page's Continue on a resumed pause: {body}");
    let (status, body) = server.server_function("skip_call", &[("pause_id", &pause_id), ("value", "1")]).await;
    assert_eq!(status, 200, "the page's Skip on a resumed pause: {body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_continue_of_a_pause_that_never_was_is_protocol_success_on_rest_and_an_error_on_the_page() {
    let server = common::start().await;
    let (status, body) = server.post("/api/paused/no-such-pause/continue", json!({})).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = server.post("/api/paused/no-such-pause/continue", json!({"action": "AAA"})).await;
    assert_eq!(
        (status, body["error"].clone()),
        (400, json!("invalid_action")),
        "a bad action is refused as such: {body}"
    );
    let (status, body) = server.server_function("continue_call", &[("pause_id", "no-such-pause")]).await;
    assert!(status >= 400, "{status} {body}");
    assert!(body.contains("no-such-pause"), "the page is told which pause: {body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pause_and_its_continue_name_the_paused_process_on_the_live_stream() {
    use breakroom_debugger::model::LiveEvent;
    let server = common::start().await;
    let mut events = server.debugger.subscribe();
    let (_, pause_id) = server.pause_call("named", 4802).await;
    let (status, reply) = server.post(&format!("/api/paused/{pause_id}/continue"), json!({})).await;
    assert_eq!(status, 200, "{reply}");
    let key = breakroom_debugger::ids::process_key(4802, 1795331833.75);
    let mut seen = vec![];
    while let Ok(event) = events.try_recv() {
        if matches!(event, LiveEvent::PauseAdded { .. } | LiveEvent::PauseResumed { .. }) {
            seen.push(event);
        }
    }
    // A page of another process, or the list's other rows, have nothing to refetch for these.
    assert_eq!(seen, [LiveEvent::pause_added(&pause_id, &key), LiveEvent::pause_resumed(&pause_id, &key)]);
}
