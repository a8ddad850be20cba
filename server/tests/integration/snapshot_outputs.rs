//! A snapshot's tables and pictures (issue 52), as the server keeps and shows them whatever a
//! client sends: forms past their bounds left out with a note, no claim of a live table, a
//! client that does not redact redacted, and every cell escaped text on the snapshot page.

use crate::common;

use serde_json::{json, Value};

const EVIL: &str = r#"<script>alert("x")</script><img src=x onerror=alert(1)>"#;

async fn add_snapshot_breakpoint(server: &common::TestServer) -> String {
    let (status, bp) = server
        .post("/api/breakpoints", json!({"kind": "line", "file": "/srv/a.py", "line": 3, "action": "snapshot"}))
        .await;
    assert_eq!(status, 200, "{bp}");
    bp["id"].as_str().expect("an id").to_string()
}

fn table_output() -> Value {
    json!({
        "output_type": "execute_result",
        "data": {
            "text/plain": "frame",
            "application/vnd.breakroom.table+json": {
                "columns": ["order", EVIL], "index": ["0"], "rows": [["AKIAIOSFODNN7EXAMPLE", EVIL]],
                "row_count": 5000, "column_count": 2
            },
            "image/png": "A".repeat(600 * 1024),
        },
        "metadata": {"breakroom": {"table": {"handle": "t1", "rows": 5000}}}
    })
}

#[test]
fn a_snapshots_outputs_are_bounded_unlinked_redacted_and_shown_as_text() {
    common::on_shared_runtime(async {
        let server = common::start().await;
        let bp = add_snapshot_breakpoint(&server).await;
        // No "redacted" field: a client that does not redact, whose snapshot the server redacts.
        let body = json!({
            "breakpoint_id": bp, "process_pid": 4242, "process_start_time": 1.5, "taken_at": 1000.0,
            "frames": [{"file": "/srv/a.py", "line": 3, "function": "handle", "locals": [
                {"name": "frame", "value": {"type": "pandas.DataFrame", "repr": "frame", "outputs": [table_output()]}},
            ]}],
        });
        let (status, kept) = server.post("/api/snapshots", body).await;
        assert_eq!(status, 201, "{kept}");
        let id = kept["snapshot_id"].as_str().expect("an id");
        let (status, snap) = server.get(&format!("/api/snapshots/{id}")).await;
        assert_eq!(status, 200, "{snap}");
        let output = &snap["frames"][0]["locals"][0]["value"]["outputs"][0];
        assert!(output["data"].get("image/png").is_none(), "the image past 512 KB is left out: {output}");
        let notes = output["metadata"]["breakroom"]["notes"].to_string();
        assert!(notes.contains("image/png left out"), "{notes}");
        assert!(output["metadata"]["breakroom"].get("table").is_none(), "no live table is claimed: {output}");
        let cells = output["data"]["application/vnd.breakroom.table+json"]["rows"][0].to_string();
        assert!(!cells.contains("AKIAIOSFODNN7EXAMPLE") && cells.contains("[redacted]"), "{cells}");

        let page = server.http.get(format!("{}/snapshots/{id}", server.base)).send().await.expect("the page");
        assert_eq!(page.status().as_u16(), 200);
        let html = page.text().await.expect("its text");
        assert!(html.contains("<table"), "the table is shown");
        assert!(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"), "escaped cells");
        assert!(!html.contains(EVIL) && !html.contains("<img src=x"), "nothing the program sent is markup");
        assert!(!html.contains("/table/t1"), "no link to a table no program answers for");
    });
}
