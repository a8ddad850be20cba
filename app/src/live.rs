//! Live updates: one server-sent event stream (`/api/live`) per page. Every event bumps a
//! counter that resources depend on, so whatever a page shows is refetched when it changes.

use leptos::prelude::*;

#[derive(Clone, Copy)]
pub struct LiveTick(pub RwSignal<u64>);

pub fn provide_live_updates() {
    let tick = RwSignal::new(0u64);
    provide_context(LiveTick(tick));
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| connect(tick));
}

/// The counter to depend on; bump it to refetch by hand (after an action of this page).
pub fn use_live_tick() -> RwSignal<u64> {
    use_context::<LiveTick>().map(|t| t.0).unwrap_or_else(|| RwSignal::new(0))
}

#[cfg(feature = "hydrate")]
fn connect(tick: RwSignal<u64>) {
    use wasm_bindgen::{closure::Closure, JsCast};
    let Ok(source) = web_sys::EventSource::new("/api/live") else {
        return;
    };
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |_| tick.update(|t| *t += 1));
    source.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The stream lives as long as the page.
    on_message.forget();
    std::mem::forget(source);
}
