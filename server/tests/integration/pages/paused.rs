//! The paused execution cards (`/`).

use super::{page, visible};
use crate::common::{self, on_shared_runtime};

#[test]
fn paused_card_shows_open_repl_button() {
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
fn paused_card_repl_button_starts_session_and_redirects() {
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
        assert_eq!(server.debugger.sessions().sessions_for_pause(&pause_id).unwrap(), vec![session_id.clone()]);
        assert_eq!(page(&server, &format!("/repl/{session_id}")).await.0, 200);
    })
}

#[test]
fn paused_card_shows_existing_repl_link_if_session_active() {
    on_shared_runtime(async {
        let server = common::start().await;
        let (_, pause_id) = server.pause_call("compute", 4503).await;
        let session_id = server.start_session(&pause_id).await;
        let (_, html) = page(&server, "/").await;
        assert!(html.contains(&format!("href=\"/repl/{session_id}\"")));
        assert!(visible(&html).contains("Go to open REPL"));
    })
}
