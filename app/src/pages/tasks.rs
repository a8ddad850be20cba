//! `/process/{id}/tasks` (issue 51): a program's asyncio tasks as a tree of who awaits whom,
//! rendered by the server (`crate::render::tasks`). Reading them asks the program, so the page
//! reads them again only when a pause changes what they show (a task's "Paused" link).

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::server_resource;
use crate::live::use_live;
use crate::pages::ServerHtml;
use crate::tasks_api::tasks_html;

#[component]
pub fn TasksPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("process_id").unwrap_or_default();
    let live = use_live();
    let tasks = server_resource(move || (id(), live.pauses.get()), |(id, _)| tasks_html(id));
    view! { <ServerHtml html=tasks/> }
}
