//! `/callstack/{pause_id}`: the stack at the moment a call paused. A snapshot: it does not
//! change while the call stays paused. Rendered by the server (`crate::render::call_stack`).

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::{call_stack_html, server_resource};
use crate::live::use_live;
use crate::pages::ServerHtml;

#[component]
pub fn CallStackPage() -> impl IntoView {
    let params = use_params_map();
    let pause_id = move || params.read().get("pause_id").unwrap_or_default();
    let live = use_live();
    // Sessions started on this pause show up live; the frames themselves never change.
    let stack = server_resource(move || (pause_id(), live.sessions.get()), |(id, _)| call_stack_html(id));
    view! { <ServerHtml html=stack/> }
}
