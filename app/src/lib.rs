//! Breakroom's pages. Server functions (in [`api`]) are the only way the pages reach the
//! debugger; [`live`] turns the server's event stream into a signal pages refetch on.

pub mod api;
pub mod format;
pub mod highlight;
pub mod live;
pub mod pages;

use leptos::prelude::*;
use leptos_router::{
    components::{FlatRoutes, Route, Router, A},
    path, SsrMode,
};

pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <link rel="icon" href="/favicon.svg" type="image/svg+xml"/>
                // Title and stylesheet are the same on every page: they live in the shell, so the
                // wasm needs no leptos_meta (2-3 KB gzip).
                <title>"Breakroom"</title>
                <link rel="stylesheet" id="leptos" href="/pkg/breakroom.css"/>
                <AutoReload options=options.clone()/>
                <HydrationScripts options/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    live::provide_live_updates();
    view! {
        <Router>
            <header class="topbar">
                <A href="/" attr:class="brand">"Breakroom"</A>
                <nav>
                    <A href="/" exact=true>"Paused"</A>
                    <A href="/repls">"Sessions"</A>
                    <A href="/call-tree">"Call trees"</A>
                </nav>
            </header>
            <main>
                <FlatRoutes fallback=pages::NotFound>
                    // Async: the status (404 for an unknown session) is known before headers go out.
                    <Route path=path!("/") view=pages::paused::PausedPage ssr=SsrMode::Async/>
                    <Route path=path!("/repl/:session_id") view=pages::repl::ReplPage ssr=SsrMode::Async/>
                    <Route path=path!("/repls") view=pages::repls::SessionsPage ssr=SsrMode::Async/>
                    <Route path=path!("/callstack/:pause_id") view=pages::callstack::CallStackPage ssr=SsrMode::Async/>
                    <Route path=path!("/call-tree") view=pages::call_tree::ProcessesPage ssr=SsrMode::Async/>
                    <Route path=path!("/call-tree/:process_key") view=pages::call_tree::CallTreePage ssr=SsrMode::Async/>
                    <Route path=path!("/object/:cid") view=pages::object::ObjectPage ssr=SsrMode::Async/>
                </FlatRoutes>
            </main>
        </Router>
    }
}

#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(App);
    // Tests (and curious humans) can tell a hydrated page from server-rendered HTML. A timer runs
    // after the microtasks that hydrate the pages' already-loaded server data.
    set_timeout(
        || {
            if let Some(body) = document().body() {
                let _ = body.set_attribute("data-hydrated", "");
            }
        },
        std::time::Duration::ZERO,
    );
}
