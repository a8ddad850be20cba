//! Breakroom's pages. Server functions (in [`api`]) are the only way the pages reach the
//! debugger; [`live`] turns the server's event stream into a signal pages refetch on.

#[cfg(feature = "ssr")]
mod access;
pub mod api;
pub mod breakpoint_api;
pub mod browser_json;
pub mod controls;
pub mod debug_api;
pub mod encoding;
pub mod format;
pub mod highlight;
pub mod live;
pub mod output;
pub mod pages;
pub mod parts;
pub mod process_api;
#[cfg(feature = "ssr")]
pub mod render;
pub mod repl_helpers;
pub mod routes;
pub mod rpc;
pub mod runtime_api;
pub mod snapshot_api;
pub mod task_tree;
pub mod tasks_api;
pub mod time_travel_api;
pub mod transcript;

use leptos::prelude::*;
use leptos_router::{
    components::{FlatRoutes, Route, Router, A},
    path, Lazy, SsrMode,
};

/// The top bar's links (path, label), in order: the shell of the pages the server renders alone
/// (`render::shell`) draws them from here, and a test holds the app's `<nav>` to them.
pub const NAV: &[(&str, &str)] = &[
    ("/", "Paused"),
    ("/repls", "Sessions"),
    ("/processes", "Processes"),
    ("/call-tree", "Call trees"),
    ("/runtimes", "Runtimes"),
    ("/snapshots", "Snapshots"),
];

pub fn shell(options: LeptosOptions) -> impl IntoView {
    // A viewer's pages hide every control (style/main.css, `body.role-viewer`): the body is
    // drawn here, outside what hydrates, so this costs the shared wasm nothing. The server
    // refuses a control forced anyway (issue 48).
    #[cfg(feature = "ssr")]
    let role = use_context::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<breakroom_debugger::users::Identity>().map(|who| who.holder))
        .map(|holder| format!("role-{}", holder.label()));
    #[cfg(not(feature = "ssr"))]
    let role: Option<String> = None;
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <link rel="icon" href="/favicon.svg" type="image/svg+xml"/>
                <link rel="stylesheet" id="leptos" href="/pkg/breakroom.css"/>
                <AutoReload options=options.clone()/>
                <HydrationScripts options/>
            </head>
            <body class=role>
                <App/>
                <SignedIn/>
            </body>
        </html>
    }
}

/// Who is signed in, with their role, and a way out (issue 48). Drawn by the server after the
/// app, outside what hydrates, so it costs the shared wasm nothing; shown only to people who
/// signed in with a user's token (a server without users has one owner and shows nothing).
#[component]
fn SignedIn() -> impl IntoView {
    #[cfg(feature = "ssr")]
    let who = use_context::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<breakroom_debugger::users::Identity>().cloned())
        .and_then(|who| match who.holder {
            breakroom_debugger::users::Holder::Person(role) => Some(format!("{} ({})", who.name, role.as_str())),
            _ => None,
        });
    #[cfg(not(feature = "ssr"))]
    let who: Option<String> = None;
    who.map(|who| {
        view! {
            <p class="signed-in">
                <span class="who">{who}</span>
                " · "
                // A server route: the router must not take it for a page of the app.
                <a href="/logout" rel="external">"Sign out"</a>
            </p>
        }
    })
}

#[component]
pub fn App() -> impl IntoView {
    live::provide_live_updates();
    view! {
        <Router>
            <header class="topbar">
                <A href="/" attr:class="brand">"Breakroom"</A>
                // NAV's links, written as literals: read from NAV they cost the shared wasm ~150 B
                // (dynamic text), a loop ~1.7 KB. server/tests/integration/page_shell.rs checks
                // that this nav and a table page's, drawn from NAV, are the same.
                <nav>
                    <A href="/" exact=true>"Paused"</A>
                    <A href="/repls">"Sessions"</A>
                    <A href="/processes">"Processes"</A>
                    <A href="/call-tree">"Call trees"</A>
                    <A href="/runtimes">"Runtimes"</A>
                    <A href="/snapshots">"Snapshots"</A>
                </nav>
                // Shown (style/main.css) while the live stream cannot reach the server.
                <p class="unreachable" role="status">"Server unreachable: reconnecting…"</p>
            </header>
            <main>
                <FlatRoutes fallback=pages::NotFound>
                    // Async: the status (404 for an unknown session) is known before headers go out.
                    <Route path=path!("/") view={Lazy::<routes::PausedRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=path!("/repl/:session_id") view={Lazy::<routes::ReplRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=path!("/repls") view={Lazy::<routes::SessionsRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=path!("/callstack/:pause_id") view={Lazy::<routes::CallStackRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=path!("/call-tree") view={Lazy::<routes::ProcessesRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=path!("/call-tree/:process_key") view={Lazy::<routes::CallTreeRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=path!("/processes") view={Lazy::<routes::ProcessListRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=path!("/process/:process_id") view={Lazy::<routes::ProcessRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=path!("/process/:process_id/timeline") view={Lazy::<routes::TimelineRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=path!("/process/:process_id/tasks") view={Lazy::<routes::TasksRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=path!("/snapshots") view={Lazy::<routes::SnapshotsRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=path!("/snapshots/:snapshot_id") view={Lazy::<routes::SnapshotRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=path!("/runtimes") view={Lazy::<routes::RuntimesRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=path!("/runtime/:workspace") view={Lazy::<routes::RuntimeRoute>::new()} ssr=SsrMode::Async/>
                    <Route path=path!("/object/:cid") view={Lazy::<routes::ObjectRoute>::new()} ssr=SsrMode::Async/>
                </FlatRoutes>
            </main>
        </Router>
    }
}

#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // Hydration waits for the current page's chunk (a lazy route), so it is asynchronous. (Not
    // leptos's spawn_local: hydrate_from_async is what starts leptos's executor.)
    wasm_bindgen_futures::spawn_local(async {
        leptos::mount::hydrate_from_async(document().body().expect("a <body>"), App).await.forget();
        live::connect_after_hydration();
        // Tests (and curious humans) can tell a hydrated page from server-rendered HTML. A timer
        // runs after the microtasks that hydrate the pages' already-loaded server data.
        set_timeout(
            || {
                if let Some(body) = document().body() {
                    let _ = body.set_attribute("data-hydrated", "");
                }
            },
            std::time::Duration::ZERO,
        );
    });
}

/// Room for wasm-split to move each chunk's constant data (strings, tables, vtables) out of the
/// main wasm and into the chunk that uses it. It regroups the data by chunk, which adds alignment
/// padding; when the regrouped data no longer fits where the linker put it, all of it stays in the
/// main wasm (with this app: 50 KB that no page needs at load). These bytes are kept by the linker
/// and used by nothing, so the splitter drops them and the padding fits in their place.
#[cfg(all(wasm_split, target_arch = "wasm32"))]
#[used]
static WASM_SPLIT_DATA_SLACK: [u8; 4096] = [0x5a; 4096];
