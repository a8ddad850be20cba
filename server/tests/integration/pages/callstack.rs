//! The call stack page (`/callstack/{pause_id}`).

use super::{page, pause_with_stack, visible};
use crate::common::{self, on_shared_runtime};

#[test]
fn callstack_page_renders_for_valid_pause_id() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = pause_with_stack(&server, "checkout", 4101).await;
        let (status, html) = page(&server, &format!("/callstack/{pause_id}")).await;
        assert_eq!(status, 200);
        assert!(visible(&html).contains("Call Stack for checkout"), "{}", visible(&html));
    })
}

#[test]
fn callstack_page_returns_404_for_invalid_pause_id() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (status, html) = page(&server, "/callstack/no-such-pause").await;
        assert_eq!(status, 404);
        assert!(visible(&html).contains("Not found"));
    })
}

#[test]
fn callstack_page_shows_all_stack_frames() {
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
fn callstack_page_shows_frame_filenames_and_line_numbers() {
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
fn callstack_page_shows_code_context() {
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
fn callstack_page_links_to_repl_sessions() {
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
fn callstack_page_links_to_call_tree() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (call_id, pause_id) = pause_with_stack(&server, "checkout", 4106).await;
        let (_, html) = page(&server, &format!("/callstack/{pause_id}")).await;
        assert!(html.contains(&format!("href=\"/call-tree/1795331833.750000+4106?selected={call_id}\"")), "{html}");
    })
}
