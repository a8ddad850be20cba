//! What came since a list of snapshots was read (issue 45): `GET /api/snapshots?after=` for
//! tools and agents, and `snapshot_list_news`, what `/snapshots` fetches on a hit instead of
//! reading itself whole.

use crate::common;

use serde_json::{json, Value};

async fn snapshot_breakpoint(server: &common::TestServer, line: u32) -> String {
    let (status, bp) = server
        .post(
            "/api/breakpoints",
            json!({"kind": "line", "file": "/srv/a.py", "line": line, "action": "snapshot", "max_hits": 50}),
        )
        .await;
    assert_eq!(status, 200, "{bp}");
    bp["id"].as_str().expect("an id").to_string()
}

/// Posts a snapshot of `breakpoint`, as a program's client does; answers its id.
async fn take(server: &common::TestServer, breakpoint: &str, pid: i64, note: &str) -> String {
    let body = json!({
        "breakpoint_id": breakpoint, "process_pid": pid, "process_start_time": 1.5, "taken_at": 1000.0,
        "frames": [{"file": "/srv/a.py", "line": 3, "function": "handle", "locals": [
            {"name": "note", "value": {"type": "str", "repr": note}},
        ]}],
    });
    let (status, kept) = server.post("/api/snapshots", body).await;
    assert_eq!(status, 201, "{kept}");
    kept["snapshot_id"].as_str().expect("an id").to_string()
}

fn ids(list: &Value) -> Vec<&str> {
    list["snapshots"].as_array().expect("a list").iter().filter_map(|s| s["snapshot_id"].as_str()).collect()
}

#[test]
fn a_list_after_a_snapshot_has_what_came_since_newest_first() {
    common::in_turn(async {
        let server = common::start().await;
        let (one, two) = (snapshot_breakpoint(&server, 3).await, snapshot_breakpoint(&server, 4).await);
        let first = take(&server, &one, 4242, "first").await;
        let taken = [take(&server, &two, 4242, "second").await, take(&server, &one, 4242, "third").await];

        let (status, since) = server.get(&format!("/api/snapshots?after={first}")).await;
        assert_eq!(status, 200, "{since}");
        assert_eq!(ids(&since), [taken[1].as_str(), taken[0].as_str()]);
        let (_, one_since) = server.get(&format!("/api/snapshots?after={first}&breakpoint_id={one}")).await;
        assert_eq!(ids(&one_since), [taken[1].as_str()]);
        let (_, newest) = server.get(&format!("/api/snapshots?after={first}&limit=1")).await;
        assert_eq!(ids(&newest), [taken[1].as_str()], "more came than the limit: the newest");
        let (_, nothing) = server.get(&format!("/api/snapshots?after={}", taken[1])).await;
        assert!(ids(&nothing).is_empty(), "{nothing}");

        for bad in ["3", "snap-", "snap-x", "<b>"] {
            let (status, body) = server.get(&format!("/api/snapshots?after={}", urlencode(bad))).await;
            assert_eq!(status, 400, "{bad}: {body}");
            assert_eq!(body["error"], "invalid_after", "{body}");
        }
    })
}

#[test]
fn the_lists_news_are_its_headers_and_the_rows_since_its_newest_one() {
    common::in_turn(async {
        let server = common::start().await;
        let (one, two) = (snapshot_breakpoint(&server, 5).await, snapshot_breakpoint(&server, 6).await);
        let first = take(&server, &one, 4242, "first").await;
        let second = take(&server, &two, 4242, "<script>alert(1)</script>").await;
        let news = |form: Vec<(&'static str, String)>| {
            let server = &server;
            async move {
                let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
                server.server_function("snapshot_list_news", &form).await
            }
        };
        let form = |after: &str, breakpoint: &str, before: &str| {
            vec![
                ("breakpoint_id", breakpoint.to_string()),
                ("process_id", String::new()),
                ("before", before.to_string()),
                ("limit", "7".to_string()),
                ("after", after.to_string()),
            ]
        };

        let (status, html) = news(form(&first, "", "")).await;
        assert_eq!(status, 200, "{html}");
        let html = html.strip_prefix('+').expect("some news").to_string();
        let page = scraper::Html::parse_fragment(&html);
        let select = |css: &str| scraper::Selector::parse(css).expect("a selector");
        let table = page.select(&select("table.snapshot-news")).next().expect("the news table");
        assert_eq!(table.value().attr("data-limit"), Some("7"));
        assert_eq!(table.value().attr("data-older"), Some("/snapshots?before="));
        let headers: Vec<&str> = page
            .select(&select("tbody.headers tr.snapshot-bp"))
            .filter_map(|row| row.value().attr("data-breakpoint-id"))
            .collect();
        assert_eq!(headers, [one.as_str(), two.as_str()], "every snapshot breakpoint's header");
        let rows: Vec<&str> = page
            .select(&select("tbody.rows tr.snapshot-row"))
            .filter_map(|row| row.value().attr("data-snapshot-id"))
            .collect();
        assert_eq!(rows, [second.as_str()], "only what came after {first}");
        assert!(!html.contains("<script>alert"), "a program's text is escaped: {html}");
        let captured: Vec<String> =
            page.select(&select("tbody.headers td.captured")).map(|c| c.text().collect()).collect();
        assert_eq!(captured, ["1", "1"]);

        // One breakpoint's list: its header alone, its rows alone.
        let (_, html) = news(form(&first, &two, "")).await;
        let html = html.trim_start_matches('+').to_string();
        let page = scraper::Html::parse_fragment(&html);
        assert_eq!(page.select(&select("tr.snapshot-bp")).count(), 1, "{html}");
        assert_eq!(
            page.select(&select("table.snapshot-news")).next().and_then(|t| t.value().attr("data-older")),
            Some(format!("/snapshots?breakpoint_id={two}&before=").as_str())
        );
        assert_eq!(page.select(&select("tr.snapshot-row")).count(), 1);
        // A later page gets no new rows: they are on the first.
        let (_, html) = news(form(&first, "", &second)).await;
        assert_eq!(scraper::Html::parse_fragment(&html).select(&select("tr.snapshot-row")).count(), 0, "{html}");
        // No cursor, or not a snapshot's: nothing to apply, the page reads itself whole.
        for after in ["", "bp-1"] {
            let (status, body) = news(form(after, "", "")).await;
            assert_eq!((status, body.as_str()), (200, "-"), "{after:?}");
        }
    })
}

fn urlencode(text: &str) -> String {
    text.bytes().map(|b| format!("%{b:02X}")).collect()
}

#[test]
fn the_news_are_refused_without_the_servers_token() {
    common::in_turn(async {
        let server = common::start_full(breakroom_debugger::Config::default(), Some("sesame")).await;
        let form = [("breakpoint_id", ""), ("process_id", ""), ("before", ""), ("limit", ""), ("after", "snap-1")];
        let (status, body) = server.server_function("snapshot_list_news", &form).await;
        assert_eq!(status, 401, "{body}");
        let (status, body) = server.get("/api/snapshots?after=snap-1").await;
        assert_eq!(status, 401, "{body}");
        let url = format!("{}/api/snapshots?after=snap-1", server.base);
        let allowed = server.http.get(url).bearer_auth("sesame").send().await.expect("an answer");
        assert_eq!(allowed.status().as_u16(), 200);
    })
}
