//! One nav for every page: the app's top bar and the shell of the documents the server renders
//! alone (a REPL value's table) both list `breakroom_app::NAV`, in order.

use crate::common;

use serde_json::json;

/// The `(href, label)` of each link in the page's top-bar `<nav>`.
fn nav_links(html: &str) -> Vec<(String, String)> {
    let nav = html.split("<header class=\"topbar\">").nth(1).and_then(|h| h.split("<nav>").nth(1)).unwrap_or_default();
    let nav = nav.split("</nav>").next().unwrap_or_default();
    nav.split("<a ")
        .skip(1)
        .map(|link| {
            let href = link.split("href=\"").nth(1).and_then(|h| h.split('"').next()).unwrap_or_default();
            let label = link.split('>').nth(1).and_then(|l| l.split('<').next()).unwrap_or_default();
            (href.to_string(), label.to_string())
        })
        .collect()
}

#[test]
fn the_app_and_the_server_only_pages_show_every_nav_link_in_order() {
    crate::common::on_shared_runtime(
        the_app_and_the_server_only_pages_show_every_nav_link_in_order_on_the_shared_runtime(),
    )
}

async fn the_app_and_the_server_only_pages_show_every_nav_link_in_order_on_the_shared_runtime() {
    let server = common::start().await;
    let expected: Vec<(String, String)> =
        breakroom_app::NAV.iter().map(|(href, label)| (href.to_string(), label.to_string())).collect();
    let (status, launched) =
        server.post("/api/processes", json!({"command": ["python3", "-c", "import time; time.sleep(20)"]})).await;
    assert_eq!(status, 200, "{launched}");
    let id = launched["id"].as_str().unwrap();
    let pages = ["/".to_string(), "/repls".to_string(), format!("/process/{id}/timeline"), "/snapshots".to_string()];
    // A table's document is drawn by the server alone (here: the page saying the table is gone).
    for path in pages.into_iter().chain(["/repl/nope/table/t1".to_string()]) {
        let html = server.http.get(format!("{}{path}", server.base)).send().await.unwrap().text().await.unwrap();
        assert_eq!(nav_links(&html), expected, "{path}");
    }
    server.post(&format!("/api/processes/{id}/stop"), json!({})).await;
}
