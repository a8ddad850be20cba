//! The page shell of the documents the server renders alone, without the app (a REPL value's
//! table and view, opened in their own tab or frame; the audit trail's refusal): the same
//! `<head>`, top bar and nav ([`crate::NAV`]) as the app's pages.

use maud::{html, Markup, DOCTYPE};

/// A whole page: `title` (then the product's name) and `main`, in a `<main class=main_class>`.
pub fn page(title: &str, main_class: &str, main: Markup) -> String {
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
            body {
                header.topbar {
                    a.brand href="/" { "Breakroom" }
                    nav {
                        @for (href, label) in crate::NAV { a href=(href) { (label) } }
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
