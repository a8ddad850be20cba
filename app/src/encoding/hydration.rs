//! How a page's HTML and typed data travel from the server's render into the hydrating page:
//! the codecs, the mark of a part shown as it is (`SHOWN`), and the one resource machinery.

use leptos::prelude::*;
use leptos::server::codee;
use leptos::server_fn::error::FromServerFnError;

use super::{from_json, text, to_json, NotText, Typed};

/// What a page shows: the HTML the server rendered for it (None: there is nothing at this
/// address), or why there is none.
pub type PageHtml = Result<Option<String>, ServerFnError>;

/// The mark the server puts before the HTML of a part a page shows as it is (`ServerHtml`, see
/// [`server_resource`]): the body is in the document already, where it hydrates, so its copy for
/// hydration carries only the page's title (`=` and the title's marker) instead of the body again,
/// which was half of every document (`scripts/page-bytes.sh`). A control character: no HTML the
/// server renders starts with it.
pub const SHOWN: char = '\u{2}';

/// Where a server-rendered page names itself: a comment at the end of its HTML (see
/// `crate::render::title_marker`), so that the page's title comes with the data it depends on.
pub(crate) const TITLE_MARKER: &str = "<!--title:";

/// How a page's HTML travels from the server-rendered document into the hydrating page: as text,
/// like the server functions' replies (`+html`, `-`, or `!` and the error as server functions
/// send errors), or, for a part shown as it is, `=` and its title's marker (see [`SHOWN`]).
///
/// Leptos 0.8 (hydration_context 0.3) writes this text into the page's script with every `<`
/// escaped twice: the script hands the browser `\u003c`, six characters, where a JSON decoder
/// (what the data is usually for) would read `<` again. So the text travels with its backslashes
/// doubled, and the page reads `\\` as `\` and `\u003c` as `<`: a `\u003c` the server wrote stays
/// what it was, and a fixed Leptos that sends `<` itself is read right too.
pub struct PageCodec;

impl codee::Encoder<PageHtml> for PageCodec {
    type Error = NotText;
    type Encoded = String;

    fn encode(value: &PageHtml) -> Result<String, NotText> {
        let text = match value {
            Ok(Some(html)) => match html.strip_prefix(SHOWN) {
                Some(body) if !body.is_empty() => {
                    format!("={}", &body[body.rfind(TITLE_MARKER).unwrap_or(body.len())..])
                }
                Some(body) => format!("+{body}"),
                None => format!("+{html}"),
            },
            Ok(None) => "-".into(),
            Err(e) => format!("!{}", text(&e.ser())?),
        };
        Ok(text.replace('\\', "\\\\"))
    }
}

impl codee::Decoder<PageHtml> for PageCodec {
    type Error = NotText;
    type Encoded = str;

    fn decode(encoded: &str) -> Result<PageHtml, NotText> {
        let mut text = String::with_capacity(encoded.len());
        let mut rest = encoded;
        while let Some(at) = rest.find('\\') {
            text.push_str(&rest[..at]);
            rest = &rest[at..];
            if let Some(after) = rest.strip_prefix("\\\\") {
                text.push('\\');
                rest = after;
            } else if let Some(after) = rest.strip_prefix("\\u003c") {
                text.push('<');
                rest = after;
            } else {
                return Err(NotText);
            }
        }
        text.push_str(rest);
        match text.split_at_checked(1) {
            Some(("+", html)) => Ok(Ok(Some(html.to_string()))),
            Some(("=", title)) => Ok(Ok(Some(format!("{SHOWN}{title}")))),
            Some(("-", "")) => Ok(Ok(None)),
            Some(("!", error)) => Ok(Err(ServerFnError::de(error.to_string().into()))),
            _ => Err(NotText),
        }
    }
}

/// A page's HTML from a server function, rendered into the page during server rendering and
/// refetched whenever `source` changes, for `ServerHtml` to show as it is (its hydration copy is
/// only its title: [`SHOWN`]).
///
/// Every page's resources are one `Resource` type: the source's value and the fetch are erased
/// ([`Key`], a boxed future), so the resource's machinery (its async derived value, memo and
/// hydration) is compiled once for all pages instead of once per resource, which each page's
/// wasm would otherwise carry (about 2 KB before compression per resource, measured).
pub fn server_resource<S, Fut>(
    source: impl Fn() -> S + Send + Sync + 'static,
    fetcher: impl Fn(S) -> Fut + Send + Sync + 'static,
) -> Resource<PageHtml, PageCodec>
where
    S: Clone + PartialEq + Send + Sync + 'static,
    Fut: std::future::Future<Output = PageHtml> + Send + 'static,
{
    resource(source, fetcher, Hydrates::FromDocument)
}

/// What a page's HTML hydrates from.
#[derive(Clone, Copy, PartialEq)]
pub enum Hydrates {
    /// The document, where `ServerHtml` put it: only its title travels ([`SHOWN`]).
    FromDocument,
    /// A copy of it all, for a page that reads the HTML itself (the REPL page's header) rather
    /// than showing it as it is.
    Whole,
}

/// A page's HTML from a server function (see [`server_resource`]), hydrating as `hydrates` says.
pub fn resource<S, Fut>(
    source: impl Fn() -> S + Send + Sync + 'static,
    fetcher: impl Fn(S) -> Fut + Send + Sync + 'static,
    hydrates: Hydrates,
) -> Resource<PageHtml, PageCodec>
where
    S: Clone + PartialEq + Send + Sync + 'static,
    Fut: std::future::Future<Output = PageHtml> + Send + 'static,
{
    let source: Box<dyn Fn() -> Key + Send + Sync> = Box::new(move || Key::of(source()));
    let fetcher: Box<dyn Fn(Key) -> PageFetch + Send + Sync> =
        Box::new(move |key: Key| match key.value.downcast_ref::<S>() {
            Some(value) => mark(Box::pin(fetcher(value.clone())), hydrates == Hydrates::FromDocument),
            // A key is only ever made from this resource's own source.
            None => Box::pin(async { Ok(None) }),
        });
    erased_resource(source, fetcher)
}

/// On the server, the HTML of a part `shown` as it is gets its mark ([`SHOWN`]); the browser's
/// fetches are never marked.
#[cfg(feature = "ssr")]
fn mark(fetch: PageFetch, shown: bool) -> PageFetch {
    if !shown {
        return fetch;
    }
    Box::pin(async move { fetch.await.map(|html| html.map(|html| format!("{SHOWN}{html}"))) })
}

#[cfg(not(feature = "ssr"))]
fn mark(fetch: PageFetch, _: bool) -> PageFetch {
    fetch
}

type PageFetch = std::pin::Pin<Box<dyn std::future::Future<Output = PageHtml> + Send>>;

/// The one instance of the resource's machinery (see [`server_resource`]).
fn erased_resource(
    source: Box<dyn Fn() -> Key + Send + Sync>,
    fetcher: Box<dyn Fn(Key) -> PageFetch + Send + Sync>,
) -> Resource<PageHtml, PageCodec> {
    Resource::new_with_options(source, fetcher, false)
}

/// A resource's source value, of any type, compared as that type.
#[derive(Clone)]
pub struct Key {
    value: std::sync::Arc<dyn std::any::Any + Send + Sync>,
    same: fn(&dyn std::any::Any, &dyn std::any::Any) -> bool,
}

impl Key {
    pub(super) fn of<S: PartialEq + Send + Sync + 'static>(value: S) -> Self {
        fn same<S: PartialEq + 'static>(a: &dyn std::any::Any, b: &dyn std::any::Any) -> bool {
            matches!((a.downcast_ref::<S>(), b.downcast_ref::<S>()), (Some(a), Some(b)) if a == b)
        }
        Key { value: std::sync::Arc::new(value), same: same::<S> }
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        (self.same)(&*self.value, &*other.value)
    }
}

/// What a page shows as typed data (None: there is nothing at this address), or why there is none.
pub type PageData<T> = Result<Option<T>, ServerFnError>;

/// How a page's typed data travels from the server-rendered document into the hydrating page: its
/// JSON text in [`PageCodec`]'s envelope (which survives Leptos's escaping), read back as
/// [`from_json`] reads a server function's reply.
pub struct DataCodec;

impl<T: Typed> codee::Encoder<PageData<T>> for DataCodec {
    type Error = NotText;
    type Encoded = String;

    fn encode(value: &PageData<T>) -> Result<String, NotText> {
        let text = match value {
            Ok(Some(data)) => Ok(Some(to_json(data)?)),
            Ok(None) => Ok(None),
            Err(e) => Err(e.clone()),
        };
        PageCodec::encode(&text)
    }
}

impl<T: Typed> codee::Decoder<PageData<T>> for DataCodec {
    type Error = NotText;
    type Encoded = str;

    fn decode(encoded: &str) -> Result<PageData<T>, NotText> {
        Ok(match PageCodec::decode(encoded)? {
            Ok(Some(json)) => Ok(Some(from_json(&json).ok_or(NotText)?)),
            Ok(None) => Ok(None),
            Err(e) => Err(e),
        })
    }
}

/// A page's typed data from a server function, sent with the server-rendered page and refetched
/// whenever `source` changes (see [`server_resource`]).
pub fn data_resource<S, T, Fut>(
    source: impl Fn() -> S + Send + Sync + 'static,
    fetcher: impl Fn(S) -> Fut + Send + Sync + 'static,
) -> Resource<PageData<T>, DataCodec>
where
    S: Clone + PartialEq + Send + Sync + 'static,
    T: Typed + Clone + Send + Sync + 'static,
    Fut: std::future::Future<Output = PageData<T>> + Send + 'static,
{
    Resource::new_with_options(source, fetcher, false)
}
