//! Every part the browser finds again on a page to update it in place (`breakroom_app::parts`)
//! is on the page the server renders, with the attribute that says what it stands for. A class
//! or an attribute renamed in a template would otherwise leave a page that silently stops
//! following its events (the browser tests see it only where they happen to look).

use crate::common;

use breakroom_app::parts;
use common::TestServer;
use scraper::{Html, Selector};
use serde_json::json;

async fn page(server: &TestServer, path: &str) -> Html {
    let response = server.http.get(format!("{}{path}", server.base)).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "{path}");
    Html::parse_document(&response.text().await.unwrap())
}

/// The elements of `html` that `selector` finds; fails naming the page when there are none.
fn found<'a>(path: &str, html: &'a Html, selector: &str) -> Vec<scraper::ElementRef<'a>> {
    let parsed = Selector::parse(selector).unwrap_or_else(|e| panic!("{selector} is not a selector: {e:?}"));
    let all: Vec<_> = html.select(&parsed).collect();
    assert!(!all.is_empty(), "{path}: nothing matches {selector}:\n{}", html.html());
    all
}

/// Some element that `selector` finds carries `attribute` with the value `value`.
fn found_with(path: &str, html: &Html, selector: &str, attribute: &str, value: &str) {
    let values: Vec<_> = found(path, html, selector).iter().filter_map(|e| e.value().attr(attribute)).collect();
    assert!(
        values.iter().any(|v| *v == value || v.split(' ').any(|part| part == value)),
        "{path}: no {selector} has {attribute}={value:?} (it has {values:?})"
    );
}

/// Some element that `outer` finds holds one that `inner` finds.
fn found_inside(path: &str, html: &Html, outer: &str, inner: &str) {
    let inner_selector = Selector::parse(inner).unwrap_or_else(|e| panic!("{inner} is not a selector: {e:?}"));
    let holds = found(path, html, outer).iter().any(|e| e.select(&inner_selector).next().is_some());
    assert!(holds, "{path}: no {outer} holds a {inner}");
}

#[test]
fn every_part_the_browser_updates_is_on_its_page() {
    crate::common::in_turn(every_part_the_browser_updates_is_on_its_page_in_turn())
}

async fn every_part_the_browser_updates_is_on_its_page_in_turn() {
    let server = common::start().await;
    // A paused call with a REPL session of one entry, and a breakpoint record.
    let (_, pause_id) = server.pause_call("compute", 4343).await;
    let session_id = server.start_session(&pause_id).await;
    let eval = tokio::spawn({
        let (http, url) = (server.http.clone(), format!("{}/api/repl/{session_id}/eval", server.base));
        async move { http.post(url).json(&json!({"expr": "a + 1"})).send().await.unwrap().status() }
    });
    server.answer_next_eval(&pause_id, |_| json!({"result": "7", "stdout": "", "error": null})).await;
    assert_eq!(eval.await.unwrap(), 200);
    let (status, record) =
        server.post("/api/breakpoints", json!({"kind": "line", "file": "/app/main.py", "line": 12})).await;
    assert_eq!(status, 200, "{record}");
    let record_id = record["id"].as_str().unwrap();
    let key = server.debugger.pauses().process_summaries().unwrap()[0].process_key.clone();

    let html = page(&server, "/").await;
    found("/", &html, parts::PAUSED_LIST);
    found_with("/", &html, parts::PAUSED_CARD, parts::PAUSE_ID, &pause_id);
    found_with("/", &html, parts::RECORD_FORMS, parts::RECORD, record_id);

    for path in [format!("/callstack/{pause_id}"), "/repls".to_string()] {
        let html = page(&server, &path).await;
        found_with(&path, &html, parts::SESSION_ROWS, parts::SESSION_ID, &session_id);
        found_inside(&path, &html, parts::SESSION_ROWS, parts::SESSION_LINES);
    }

    let path = format!("/repl/{session_id}");
    let html = page(&server, &path).await;
    found_with(&path, &html, parts::SESSION_HEADER, parts::PROCESS_KEY, &key);
    found(&path, &html, parts::TRANSCRIPT);
    found(&path, &html, parts::TRANSCRIPT_ENTRIES);

    let path = format!("/call-tree/{}", key.replace('+', "%2B"));
    let html = page(&server, &path).await;
    found_with(&path, &html, parts::CALL_TREE_PAUSED, parts::PAUSE_IDS, &pause_id);

    // A launched program that calls in and stays, and one that has ended (it leaves the list
    // after a while, counted down on the page).
    let launch = async |script: &str| {
        let (status, launched) = server.post("/api/processes", json!({"command": ["python3", "-c", script]})).await;
        assert_eq!(status, 200, "{launched}");
        launched["id"].as_str().unwrap().to_string()
    };
    let staying = launch("import time\ntime.sleep(30)").await;
    let ended = launch("pass").await;
    let process = async |id: &str| server.get(&format!("/api/processes/{id}")).await.1;
    common::wait_until("the program's call-in", async || process(&staying).await["process_key"].is_string()).await;
    common::wait_until("the program's end", async || process(&ended).await["leaves_list_at"].is_number()).await;
    let staying_key = process(&staying).await["process_key"].as_str().unwrap().to_string();

    let html = page(&server, "/processes").await;
    let rows = format!("{} tr", parts::TRACKED_ROWS);
    found_with("/processes", &html, &rows, parts::PROCESS_ID, &staying);
    found_with("/processes", &html, &rows, parts::PROCESS_KEY, &staying_key);
    found_with("/processes", &html, &rows, parts::PROCESS_ID, &ended);
    found_inside("/processes", &html, parts::COUNT_DOWN, parts::COUNT_DOWN_TEXT);
    let left = found("/processes", &html, parts::COUNT_DOWN)[0].value().attr(parts::LEFT_MS).map(str::parse::<i64>);
    assert!(matches!(left, Some(Ok(ms)) if ms > 0), "{}={left:?}", parts::LEFT_MS);

    let path = format!("/process/{staying}");
    let html = page(&server, &path).await;
    found_with(&path, &html, parts::PROCESS_HEADER, parts::PROCESS_KEY, &staying_key);
    let path = format!("/process/{staying}/timeline");
    let html = page(&server, &path).await;
    found_with(&path, &html, parts::TIMELINE_HEADER, parts::PROCESS_KEYS, &staying_key);
    server.post(&format!("/api/processes/{staying}/stop"), json!({})).await;
}
