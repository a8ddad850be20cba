//! One lazily loaded route per page. In a split build (`cargo leptos build --split`) each page's
//! code (its view, its server data's decoding, its actions) is a wasm chunk of its own, which the
//! browser fetches when the page is first shown, by server rendering (the server names the chunk
//! in a `<link rel="preload">`) or by a client-side navigation; the main wasm holds the router,
//! the shell, the live event stream and what every page shares.
//!
//! Each view function is a split point (`#[lazy]`), written out once per page: the chunk's name is
//! derived from where the attribute is written, so it must not come out of a macro. See
//! `app/build.rs` for why `#[lazy]` applies to the wasm only when it is split.

use leptos::prelude::*;
use leptos_router::LazyRoute;

use crate::pages;

macro_rules! route {
    ($route:ident, $view:ident) => {
        pub struct $route;

        impl LazyRoute for $route {
            fn data() -> Self {
                $route
            }

            async fn view(_this: Self) -> AnyView {
                $view().await
            }
        }
    };
}

route!(PausedRoute, paused_view);
route!(SessionsRoute, sessions_view);
route!(ReplRoute, repl_view);
route!(CallStackRoute, callstack_view);
route!(ProcessesRoute, processes_view);
route!(CallTreeRoute, call_tree_view);
route!(ObjectRoute, object_view);
route!(ProcessListRoute, process_list_view);
route!(ProcessRoute, process_view);
route!(RuntimesRoute, runtimes_view);
route!(RuntimeRoute, runtime_view);
route!(TimelineRoute, timeline_view);
route!(TasksRoute, tasks_view);
route!(SnapshotsRoute, snapshots_view);
route!(SnapshotRoute, snapshot_view);

#[cfg_attr(any(wasm_split, not(target_arch = "wasm32")), leptos::lazy)]
async fn paused_view() -> AnyView {
    view! { <pages::paused::PausedPage/> }.into_any()
}

#[cfg_attr(any(wasm_split, not(target_arch = "wasm32")), leptos::lazy)]
async fn sessions_view() -> AnyView {
    view! { <pages::repls::SessionsPage/> }.into_any()
}

#[cfg_attr(any(wasm_split, not(target_arch = "wasm32")), leptos::lazy)]
async fn repl_view() -> AnyView {
    view! { <pages::repl::ReplPage/> }.into_any()
}

#[cfg_attr(any(wasm_split, not(target_arch = "wasm32")), leptos::lazy)]
async fn callstack_view() -> AnyView {
    view! { <pages::callstack::CallStackPage/> }.into_any()
}

#[cfg_attr(any(wasm_split, not(target_arch = "wasm32")), leptos::lazy)]
async fn processes_view() -> AnyView {
    view! { <pages::call_tree::ProcessesPage/> }.into_any()
}

#[cfg_attr(any(wasm_split, not(target_arch = "wasm32")), leptos::lazy)]
async fn call_tree_view() -> AnyView {
    view! { <pages::call_tree::CallTreePage/> }.into_any()
}

#[cfg_attr(any(wasm_split, not(target_arch = "wasm32")), leptos::lazy)]
async fn object_view() -> AnyView {
    view! { <pages::object::ObjectPage/> }.into_any()
}

#[cfg_attr(any(wasm_split, not(target_arch = "wasm32")), leptos::lazy)]
async fn process_list_view() -> AnyView {
    view! { <pages::processes::ProcessListPage/> }.into_any()
}

#[cfg_attr(any(wasm_split, not(target_arch = "wasm32")), leptos::lazy)]
async fn process_view() -> AnyView {
    view! { <pages::processes::ProcessPage/> }.into_any()
}

#[cfg_attr(any(wasm_split, not(target_arch = "wasm32")), leptos::lazy)]
async fn runtimes_view() -> AnyView {
    view! { <pages::runtimes::RuntimesPage/> }.into_any()
}

#[cfg_attr(any(wasm_split, not(target_arch = "wasm32")), leptos::lazy)]
async fn runtime_view() -> AnyView {
    view! { <pages::runtimes::RuntimePage/> }.into_any()
}

#[cfg_attr(any(wasm_split, not(target_arch = "wasm32")), leptos::lazy)]
async fn timeline_view() -> AnyView {
    view! { <pages::timeline::TimelinePage/> }.into_any()
}

#[cfg_attr(any(wasm_split, not(target_arch = "wasm32")), leptos::lazy)]
async fn tasks_view() -> AnyView {
    view! { <pages::tasks::TasksPage/> }.into_any()
}

#[cfg_attr(any(wasm_split, not(target_arch = "wasm32")), leptos::lazy)]
async fn snapshots_view() -> AnyView {
    view! { <pages::snapshots::SnapshotsPage/> }.into_any()
}

#[cfg_attr(any(wasm_split, not(target_arch = "wasm32")), leptos::lazy)]
async fn snapshot_view() -> AnyView {
    view! { <pages::snapshots::SnapshotPage/> }.into_any()
}
