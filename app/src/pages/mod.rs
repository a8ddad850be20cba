pub mod call_tree;
pub mod callstack;
pub mod object;
pub mod paused;
pub mod repl;
pub mod repls;

use leptos::prelude::*;

use crate::api::{PageCodec, PageHtml};

/// Page content rendered by the server (see `crate::render`), refetched like any other data:
/// "Loading…" at first, the error if the server function failed, Not found for None.
#[component]
pub fn ServerHtml(html: Resource<PageHtml, PageCodec>) -> impl IntoView {
    view! {
        <Transition fallback=|| view! { <p class="hint">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match html.await {
                    Err(e) => view! { <p class="error">{e.to_string()}</p> }.into_any(),
                    Ok(None) => view! { <NotFound/> }.into_any(),
                    Ok(Some(html)) => view! { <div class="page-body" inner_html=html></div> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <section class="empty not-found">
            <h1>"Not found"</h1>
            <p>"Nothing lives at this address. " <a href="/">"See what is paused"</a> " or "
                <a href="/repls">"search past REPL sessions"</a> "."</p>
        </section>
    }
}
