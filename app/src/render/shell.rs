//! The page shell of a page the server renders alone, without the app (`/process/{id}/timeline`:
//! its buttons are forms, so it needs no wasm; `/snapshots`): the same `<head>`, top bar and nav
//! ([`crate::NAV`]) as the app's pages, then [`SERVER_ONLY_NAV`].

use maud::{html, Markup, DOCTYPE};

/// The top bar's links to pages the server renders alone, after [`crate::NAV`]: only these pages
/// show them. The app's nav is in the wasm every page shares, which has no bytes to spare for a
/// link (`/repl/{id}` is at its budget); the paused page's breakpoints panel links to
/// `/snapshots` instead.
pub const SERVER_ONLY_NAV: &[(&str, &str)] = &[("/snapshots", "Snapshots")];

/// A whole page: `title` (then the product's name) and `main`, in a `<main class=main_class>`.
pub fn page(title: &str, main_class: &str, main: Markup) -> String {
    page_for(None, title, main_class, main)
}

/// [`page`] for a caller whose role is `role` (`viewer`, …): the body carries `role-{role}`, so
/// a viewer's page hides its controls as the app's pages do (issue 48).
pub fn page_for(role: Option<&str>, title: &str, main_class: &str, main: Markup) -> String {
    let body_class = role.map(|role| format!("role-{role}"));
    let html = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                link rel="icon" href="/favicon.svg" type="image/svg+xml";
                title { (title) " · Breakroom" }
                link rel="stylesheet" href="/pkg/breakroom.css";
            }
            body class=[body_class] {
                header.topbar {
                    a.brand href="/" { "Breakroom" }
                    nav {
                        @for (href, label) in crate::NAV { a href=(href) { (label) } }
                        @for (href, label) in SERVER_ONLY_NAV { a href=(href) { (label) } }
                    }
                }
                main class=(main_class) { (main) }
            }
        }
    };
    html.into_string()
}

/// A page's whole content when there is nothing to show but why.
pub fn empty(message: &str) -> Markup {
    html! { section.empty { p { (message) } } }
}
