//! `/object/{cid}`: what is known of a stored value.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::{get_stored_value, server_resource};
use crate::format::timestamp;
use crate::pages::NotFound;

#[component]
pub fn ObjectPage() -> impl IntoView {
    let params = use_params_map();
    let cid = move || params.read().get("cid").unwrap_or_default();
    let value = server_resource(cid, get_stored_value);
    view! {
        <Transition fallback=|| view! { <p class="hint">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match value.await {
                    Err(e) => view! { <p class="error">{e.to_string()}</p> }.into_any(),
                    Ok(None) => view! { <NotFound/> }.into_any(),
                    Ok(Some(v)) => view! {
                        <h1>"Stored value"</h1>
                        <dl class="meta">
                            <dt>"CID"</dt><dd class="mono cid">{v.cid.clone()}</dd>
                            <dt>"format"</dt><dd>{v.serialization_format.clone()}</dd>
                            <dt>"size"</dt><dd>{format!("{} bytes", v.size)}</dd>
                            <dt>"stored"</dt><dd>{timestamp(v.stored_at)}</dd>
                        </dl>
                        <pre class="output value">{v.display.clone()}</pre>
                    }.into_any(),
                }
            })}
        </Transition>
    }
}
