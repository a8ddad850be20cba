pub mod paused;
pub mod repl;

use leptos::prelude::*;

#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <section class="empty">
            <h1>"Not found"</h1>
            <p>"Nothing lives at this address. " <a href="/">"See what is paused"</a> "."</p>
        </section>
    }
}
