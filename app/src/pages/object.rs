//! `/object/{cid}`: what is known of a stored value. Rendered by the server
//! (`crate::render::stored_value`).

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::stored_value_html;
use crate::encoding::server_resource;
use crate::pages::ServerHtml;

#[component]
pub fn ObjectPage() -> impl IntoView {
    let params = use_params_map();
    let cid = move || params.read().get("cid").unwrap_or_default();
    let value = server_resource(cid, stored_value_html);
    view! { <ServerHtml html=value/> }
}
