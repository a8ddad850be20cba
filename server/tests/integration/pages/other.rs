//! The other pages: stored values, processes, titles.

use serde_json::json;

use super::{page, visible};
use crate::common::{self, on_shared_runtime};

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
