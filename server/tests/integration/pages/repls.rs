//! The sessions index (`/repls`): search, filters, pages.

use serde_json::json;

use super::{page, session_with_entry, visible};
use crate::common::{self, on_shared_runtime};

fn rows(html: &str) -> Vec<String> {
    html.split("data-session-id=\"").skip(1).map(|r| r.split('"').next().unwrap_or("").to_string()).collect()
}

#[test]
fn repls_page_renders_with_no_sessions() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (status, html) = page(&server, "/repls").await;
        assert_eq!(status, 200);
        let text = visible(&html);
        assert!(text.contains("REPL Sessions") && text.contains("No REPL sessions yet."), "{text}");
    })
}

#[test]
fn repls_page_renders_with_sessions() {
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
fn repls_page_shows_session_links() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4302).await;
        let session_id = server.start_session(&pause_id).await;
        let (_, html) = page(&server, "/repls").await;
        assert!(html.contains(&format!("href=\"/repl/{session_id}\"")));
    })
}

#[test]
fn repls_page_search_filters_by_function_name() {
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
fn repls_page_search_filters_by_transcript_content() {
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
fn repls_page_filter_by_active_status() {
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
fn repls_page_filter_by_closed_status() {
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
fn repls_page_filter_by_date_range() {
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
fn repls_page_sorted_by_most_recent_first() {
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
fn repls_page_pagination() {
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
fn repls_page_shows_callstack_links() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4311).await;
        server.start_session(&pause_id).await;
        let (_, html) = page(&server, "/repls").await;
        assert!(html.contains(&format!("href=\"/callstack/{pause_id}\"")));
    })
}

#[test]
fn a_sessions_row_read_alone_is_its_row_of_the_list() {
    common::in_turn(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4321).await;
        let open = session_with_entry(&server, &pause_id, "n + 1", "2").await;
        let closed = session_with_entry(&server, &pause_id, "n * 2", "84").await;
        let (status, reply) = server.post(&format!("/api/repl/{closed}/close"), json!({})).await;
        assert_eq!(status, 200, "{reply}");
        let (_, list) = page(&server, "/repls").await;
        for (id, badge) in [(&open, "Active"), (&closed, "Closed")] {
            let (status, row) = server.server_function("session_row", &[("session_id", id)]).await;
            assert_eq!(status, 200, "{row}");
            let row = row.strip_prefix('+').expect("a row");
            assert!(row.starts_with(&format!("<tr data-session-id=\"{id}\"")), "{row}");
            assert!(visible(row).contains(badge), "{row}");
            assert!(list.contains(row), "{id}: the list's row differs from {row}");
        }
        let (_, row) = server.server_function("session_row", &[("session_id", "repl-not-there")]).await;
        assert_eq!(row, "-", "an unknown session has no row");
    })
}
