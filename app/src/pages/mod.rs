#[cfg(feature = "hydrate")]
mod breakpoint_hits;
pub mod call_tree;
pub mod callstack;
mod input_history;
pub mod object;
#[cfg(feature = "hydrate")]
mod one_at_a_time;
#[cfg(feature = "hydrate")]
pub(crate) mod patch;
pub mod paused;
#[cfg(feature = "hydrate")]
mod paused_cards;
#[cfg(feature = "hydrate")]
mod process_rows;
pub mod processes;
pub mod repl;
mod repl_complete;
pub mod repls;
pub mod runtimes;
pub mod snapshots;
pub mod tasks;
pub mod timeline;
mod transcript;
mod variables;
mod watch;

use leptos::prelude::*;

use crate::encoding::{PageCodec, PageHtml, TITLE_MARKER};

/// The page's `<title>`: what it shows, then the product ("REPL · compute_total — Breakroom").
///
/// Titles carry program data (a process's name, a function's), so the text is escaped (maud)
/// and given as the element's HTML: a title's content is RCDATA, where the browser reads
/// `&lt;` back as `<` and never makes an element. (A text child would not do: Leptos follows a
/// dynamic text with a `<!>` marker for hydration, which inside a title is text.)
///
/// The element is drawn where the page is, in the body, not in `<head>`: a document's title is
/// its first `<title>` element wherever it is (HTML's definition of `document.title`, which the
/// tab, history and bookmarks show), and the shell's `<head>` has none. On a client-side
/// navigation the old page's title goes with the old page and the new one's comes with it.
/// Putting it in `<head>` took leptos_meta, whose title and head machinery cost every page
/// some 8 KB of wasm (issue 45).
#[component]
pub fn PageTitle(#[prop(into)] text: String) -> impl IntoView {
    let html = maud::html! { (text) " — Breakroom" }.into_string();
    view! { <title inner_html=html></title> }
}

/// The title a server-rendered page carries, unescaped (the marker holds it HTML-escaped).
pub fn title_in(html: &str) -> Option<String> {
    let start = html.rfind(TITLE_MARKER)? + TITLE_MARKER.len();
    let escaped = html[start..].strip_suffix("-->")?;
    Some(
        escaped
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#x27;", "'")
            .replace("&amp;", "&"),
    )
}

/// The marker [`title_in`] reads, for the server's renderer. `escaped` must be HTML-escaped,
/// which also keeps `-->` out of it.
pub fn title_marker(escaped: &str) -> String {
    format!("{TITLE_MARKER}{escaped}-->")
}

/// Page content rendered by the server (see `crate::render`), refetched like any other data:
/// "Loading…" at first, the error if the server function failed, Not found for None.
///
/// In the browser a refetch (a live event, an action) patches the body in place instead of
/// replacing it (`patch`), so what the reader typed, opened or focused stays as it was: the body
/// is filled by a directive, which Leptos runs when the element is built, hydrated or rebuilt,
/// not by `inner_html`, which it would write back over the patch.
#[component]
pub fn ServerHtml(html: Resource<PageHtml, PageCodec>) -> impl IntoView {
    view! {
        <Transition fallback=|| view! { <p class="hint">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match html.await {
                    Err(e) => view! { <p class="error">{e.to_string()}</p> }.into_any(),
                    Ok(None) => view! { <NotFound/> }.into_any(),
                    Ok(Some(html)) => {
                        let title = title_in(&html).map(|text| view! { <PageTitle text/> });
                        #[cfg(feature = "ssr")]
                        let html = html.strip_prefix(crate::encoding::SHOWN).map(str::to_string).unwrap_or(html);
                        #[cfg(feature = "ssr")]
                        let body = view! { <div class="page-body" inner_html=html></div> };
                        #[cfg(not(feature = "ssr"))]
                        let body = view! { <div class="page-body" use:server_body=html></div> };
                        view! { {title} {body} }.into_any()
                    }
                }
            })}
        </Transition>
    }
}

/// A body built in the browser (a client-side navigation) gets the HTML as it is; one that
/// shows a page already (hydrated from the server's HTML, or rebuilt on a refetch) is patched.
#[cfg(not(feature = "ssr"))]
fn server_body(body: web_sys::Element, html: String) {
    // Hydrating: the server's render is in the page already, and only its title came along.
    if html.starts_with(crate::encoding::SHOWN) {
        return;
    }
    #[cfg(feature = "hydrate")]
    if body.has_child_nodes() {
        return patch::patch(&body, &html);
    }
    body.set_inner_html(&html);
    #[cfg(feature = "hydrate")]
    crate::live::body_built();
}

/// The value of a form's input or menu `name` ("" when it has none), read as the `value`
/// property both have: one helper instead of a cast per element type (the smaller wasm, measured).
fn field(form: &web_sys::Element, name: &str) -> String {
    form.query_selector(&format!("[name={name}]"))
        .ok()
        .flatten()
        .and_then(|control| js_sys::Reflect::get(&control, &"value".into()).ok())
        .and_then(|value| value.as_string())
        .unwrap_or_default()
}

/// Counts every `[data-left-ms]` element's `.left` text down each second between live updates
/// (a fresh render restarts it from the server's figure): a finished process's time left in the
/// active list, a runtime workspace's idle time left. The server's own event ends it.
fn count_down() {
    use wasm_bindgen::JsCast;
    Effect::new(move |_| {
        let last = std::cell::Cell::new(js_sys::Date::now());
        let tick = move || {
            let now = js_sys::Date::now();
            let elapsed = (now - last.replace(now)) as i64;
            let Ok(rows) = document().query_selector_all(crate::parts::COUNT_DOWN) else { return };
            for i in 0..rows.length() {
                let Some(row) = rows.item(i).and_then(|n| n.dyn_into::<web_sys::Element>().ok()) else { continue };
                // Whole milliseconds: float parsing and printing would add ~20 KB of wasm.
                let left = row.get_attribute(crate::parts::LEFT_MS).and_then(|v| v.parse::<i64>().ok()).unwrap_or(0);
                let left = (left - elapsed).max(0);
                let _ = row.set_attribute(crate::parts::LEFT_MS, &left.to_string());
                if let Some(text) = row.query_selector(crate::parts::COUNT_DOWN_TEXT).ok().flatten() {
                    text.set_text_content(Some(&crate::format::duration(left as f64 / 1000.0)));
                }
            }
        };
        if let Ok(handle) = set_interval_with_handle(tick, std::time::Duration::from_secs(1)) {
            on_cleanup(move || handle.clear());
        }
    });
}

#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <PageTitle text="Not found"/>
        <section class="empty not-found">
            <h1>"Not found"</h1>
            <p>"Nothing lives at this address. " <a href="/">"See what is paused"</a> " or "
                <a href="/repls">"search past REPL sessions"</a> "."</p>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_title_survives_the_marker_with_markup_characters() {
        // As the server's renderer escapes it: `<`, `&`, quotes, and no `-->` left to end the comment.
        let escaped = "REPL · f&lt;T&gt; &amp; &quot;x&quot; &#x27;y&#x27; --&gt;";
        let html = format!("<h1>f</h1>{}", title_marker(escaped));
        assert_eq!(title_in(&html).as_deref(), Some("REPL · f<T> & \"x\" 'y' -->"));
        assert_eq!(title_in("<h1>no marker</h1>"), None);
    }

    #[cfg(feature = "ssr")]
    #[test]
    fn a_page_title_is_escaped_text_with_nothing_else_inside() {
        let html = view! { <PageTitle text=r#"</title><script>alert("x")</script> & y"#/> }.to_html();
        assert_eq!(
            html,
            "<title>&lt;/title&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; y — Breakroom</title>"
        );
    }
}
