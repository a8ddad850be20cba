//! How the pages' data travels: the server functions' reply encodings (text, a JSON string)
//! and the codecs that carry a page's HTML or typed data from the server's render into hydration.

use leptos::prelude::*;
use leptos::server::codee;
use leptos::server_fn::codec::{Encoding, Post};
use leptos::server_fn::error::FromServerFnError;
use leptos::server_fn::{ContentType, Decodes, Encodes, Format, FormatType};

use crate::transcript::{ShownEntry, TranscriptPage};

/// The pages' server functions answer with text (HTML, a session id, or nothing), sent as it is
/// (`crate::rpc::TextRpc`): the wasm then has no JSON decoder at all (serde_json's alone was some
/// 15 KB gzip of every page's download).
pub struct TextEncoding;

impl ContentType for TextEncoding {
    const CONTENT_TYPE: &'static str = "text/plain; charset=utf-8";
}

impl FormatType for TextEncoding {
    const FORMAT_TYPE: Format = Format::Text;
}

/// Why a reply is not the text it should be.
#[derive(Debug)]
pub struct NotText;

impl std::fmt::Display for NotText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the reply is not UTF-8 text")
    }
}

fn text(bytes: &[u8]) -> Result<String, NotText> {
    String::from_utf8(bytes.to_vec()).map_err(|_| NotText)
}

impl Encodes<String> for TextEncoding {
    type Error = NotText;
    fn encode(output: &String) -> Result<leptos::server_fn::Bytes, NotText> {
        Ok(output.clone().into())
    }
}

impl Decodes<String> for TextEncoding {
    type Error = NotText;
    fn decode(bytes: leptos::server_fn::Bytes) -> Result<String, NotText> {
        text(&bytes)
    }
}

/// `Some(text)` is `+text`, `None` is `-`.
impl Encodes<Option<String>> for TextEncoding {
    type Error = NotText;
    fn encode(output: &Option<String>) -> Result<leptos::server_fn::Bytes, NotText> {
        Ok(match output {
            Some(text) => format!("+{text}").into(),
            None => "-".to_string().into(),
        })
    }
}

impl Decodes<Option<String>> for TextEncoding {
    type Error = NotText;
    fn decode(bytes: leptos::server_fn::Bytes) -> Result<Option<String>, NotText> {
        let reply = text(&bytes)?;
        match reply.strip_prefix('+') {
            Some(text) => Ok(Some(text.to_string())),
            None if reply == "-" => Ok(None),
            None => Err(NotText),
        }
    }
}

impl Encodes<()> for TextEncoding {
    type Error = NotText;
    fn encode(_: &()) -> Result<leptos::server_fn::Bytes, NotText> {
        Ok(leptos::server_fn::Bytes::new())
    }
}

impl Decodes<()> for TextEncoding {
    type Error = NotText;
    fn decode(_: leptos::server_fn::Bytes) -> Result<(), NotText> {
        Ok(())
    }
}

/// A JSON string as the reply (`crate::rpc::JsonRpc`): what scripts and tests read from
/// `start_repl`. The server writes it with serde_json; the page reads it with [`json_string`], so
/// that it needs no JSON decoder.
pub struct JsonStringEncoding;

impl ContentType for JsonStringEncoding {
    const CONTENT_TYPE: &'static str = "application/json";
}

impl FormatType for JsonStringEncoding {
    const FORMAT_TYPE: Format = Format::Text;
}

impl Encodes<String> for JsonStringEncoding {
    type Error = NotText;
    fn encode(output: &String) -> Result<leptos::server_fn::Bytes, NotText> {
        #[cfg(feature = "ssr")]
        return serde_json::to_vec(output).map(Into::into).map_err(|_| NotText);
        #[cfg(not(feature = "ssr"))]
        {
            let _ = output;
            Err(NotText)
        }
    }
}

impl Decodes<String> for JsonStringEncoding {
    type Error = NotText;
    fn decode(bytes: leptos::server_fn::Bytes) -> Result<String, NotText> {
        json_string(&text(&bytes)?).ok_or(NotText)
    }
}

/// Typed replies (issue 45) travel as JSON text: the server writes it with serde_json, the page
/// reads it with the browser's own JSON parser (`crate::browser_json`), so the wasm still
/// has no JSON decoder of its own.
#[cfg(feature = "ssr")]
pub trait Typed: serde::Serialize + serde::de::DeserializeOwned {}
#[cfg(feature = "ssr")]
impl<T: serde::Serialize + serde::de::DeserializeOwned> Typed for T {}

#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
pub trait Typed: crate::browser_json::FromJs {}
#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
impl<T: crate::browser_json::FromJs> Typed for T {}

#[cfg(not(any(feature = "ssr", feature = "hydrate")))]
pub trait Typed {}
#[cfg(not(any(feature = "ssr", feature = "hydrate")))]
impl<T> Typed for T {}

#[cfg(feature = "ssr")]
fn to_json<T: Typed>(value: &T) -> Result<String, NotText> {
    serde_json::to_string(value).map_err(|_| NotText)
}

#[cfg(not(feature = "ssr"))]
fn to_json<T>(_: &T) -> Result<String, NotText> {
    Err(NotText)
}

/// The value JSON text stands for, read as [`to_json`] wrote it.
pub fn from_json<T: Typed>(json: &str) -> Option<T> {
    #[cfg(feature = "ssr")]
    return serde_json::from_str(json).ok();
    #[cfg(all(feature = "hydrate", not(feature = "ssr")))]
    return crate::browser_json::parse(json);
    #[cfg(not(any(feature = "ssr", feature = "hydrate")))]
    {
        let _ = json;
        None
    }
}

macro_rules! typed_text {
    ($($t:ty),*) => {$(
        impl Encodes<$t> for TextEncoding {
            type Error = NotText;
            fn encode(output: &$t) -> Result<leptos::server_fn::Bytes, NotText> {
                to_json(output).map(Into::into)
            }
        }

        impl Decodes<$t> for TextEncoding {
            type Error = NotText;
            fn decode(bytes: leptos::server_fn::Bytes) -> Result<$t, NotText> {
                from_json(&text(&bytes)?).ok_or(NotText)
            }
        }
    )*};
}

typed_text!(ShownEntry, Option<TranscriptPage>, Option<crate::task_tree::TaskTree>);

/// Every key of every object in `value`: what serde wrote, for the tests that hold the browser's
/// readers (`FromJs`) to it.
#[cfg(all(test, feature = "ssr"))]
pub(crate) fn json_keys(value: &serde_json::Value) -> std::collections::BTreeSet<String> {
    let mut keys = std::collections::BTreeSet::new();
    let mut todo = vec![value];
    while let Some(value) = todo.pop() {
        match value {
            serde_json::Value::Object(map) => map.iter().for_each(|(k, v)| {
                keys.insert(k.clone());
                todo.push(v);
            }),
            serde_json::Value::Array(list) => todo.extend(list),
            _ => {}
        }
    }
    keys
}

/// The string a JSON string literal (`"…"`, with its escapes) stands for; None for anything else.
pub fn json_string(json: &str) -> Option<String> {
    let mut chars = json.trim().strip_prefix('"')?.strip_suffix('"')?.chars();
    let mut out = String::new();
    let hex = |chars: &mut std::str::Chars| -> Option<u32> {
        let digits: String = chars.by_ref().take(4).collect();
        if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(&digits, 16).ok()
    };
    while let Some(c) = chars.next() {
        match c {
            '"' => return None,
            '\\' => out.push(match chars.next()? {
                '"' => '"',
                '\\' => '\\',
                '/' => '/',
                'b' => '\u{8}',
                'f' => '\u{c}',
                'n' => '\n',
                'r' => '\r',
                't' => '\t',
                'u' => {
                    let unit = hex(&mut chars)?;
                    let code = if (0xD800..0xDC00).contains(&unit) {
                        // A surrogate pair: `\uD83D\uDE00`.
                        if chars.next()? != '\\' || chars.next()? != 'u' {
                            return None;
                        }
                        let low = hex(&mut chars)?;
                        if !(0xDC00..0xE000).contains(&low) {
                            return None;
                        }
                        0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        unit
                    };
                    char::from_u32(code)?
                }
                _ => return None,
            }),
            c => out.push(c),
        }
    }
    Some(out)
}

// `Post<TextEncoding>` is an `Encoding` through server_fn's blanket impls; checked here.
const _: fn() = || {
    fn is_encoding<E: Encoding>() {}
    is_encoding::<Post<TextEncoding>>();
    is_encoding::<Post<JsonStringEncoding>>();
};

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
    fn of<S: PartialEq + Send + Sync + 'static>(value: S) -> Self {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resource_key_is_equal_to_a_key_of_an_equal_value_of_the_same_type_only() {
        assert!(Key::of((String::from("p-1"), 3u64)) == Key::of((String::from("p-1"), 3u64)));
        assert!(Key::of((String::from("p-1"), 3u64)) != Key::of((String::from("p-1"), 4u64)));
        assert!(Key::of(3u64) != Key::of(3u32), "another type is another key");
    }
    use codee::{Decoder, Encoder};

    /// What Leptos does to the encoded text on its way through the page's script.
    fn through_the_page(encoded: &str) -> String {
        encoded.replace('<', "\\u003c")
    }

    #[test]
    fn a_shown_part_hydrates_with_its_title_alone_and_an_empty_or_unmarked_one_whole() {
        let html = format!("<ol><li>{}</li></ol>{}", "x".repeat(1000), crate::pages::title_marker("Calls &lt;3"));
        let encoded = PageCodec::encode(&Ok(Some(format!("{SHOWN}{html}")))).unwrap();
        assert!(encoded.len() < 40, "only the title travels: {encoded}");
        let decoded = PageCodec::decode(&through_the_page(&encoded)).unwrap().unwrap().unwrap();
        assert!(decoded.starts_with(SHOWN));
        assert_eq!(crate::pages::title_in(&decoded).as_deref(), Some("Calls <3"));
        // No title: the mark alone.
        let untitled = PageCodec::encode(&Ok(Some(format!("{SHOWN}<p>x</p>")))).unwrap();
        assert_eq!(PageCodec::decode(&untitled).unwrap().unwrap().as_deref(), Some("\u{2}"));
        // An empty part hydrates as it is (nothing of it is in the page); so does unmarked HTML.
        let empty = PageCodec::encode(&Ok(Some(SHOWN.to_string()))).unwrap();
        assert_eq!(PageCodec::decode(&empty).unwrap().unwrap().as_deref(), Some(""));
        let whole = PageCodec::encode(&Ok(Some(html.clone()))).unwrap();
        assert_eq!(PageCodec::decode(&through_the_page(&whole)).unwrap().unwrap(), Some(html));
    }

    #[test]
    fn page_html_survives_the_trip_through_the_page() {
        let html = r#"<p class="x">a\b \u003c <b>\\u003c</b></p>"#.to_string();
        for value in [Ok(Some(html.clone())), Ok(None), Ok(Some(String::new()))] {
            let encoded = PageCodec::encode(&value).unwrap();
            assert_eq!(PageCodec::decode(&through_the_page(&encoded)).unwrap(), value);
            // Were Leptos to send `<` as it is, the text would still read the same.
            assert_eq!(PageCodec::decode(&encoded).unwrap(), value);
        }
        let error: PageHtml = Err(ServerFnError::ServerError("no <debugger>".into()));
        let decoded = PageCodec::decode(&through_the_page(&PageCodec::encode(&error).unwrap())).unwrap();
        assert_eq!(decoded.unwrap_err().to_string(), error.unwrap_err().to_string());
    }

    #[cfg(feature = "ssr")]
    #[test]
    fn typed_page_data_survives_the_trip_through_the_page() {
        use crate::task_tree::TaskTree;
        let tree = TaskTree {
            process_name: r#"<script>"\u003c</script>"#.into(),
            process_id: "p-1".into(),
            process_keys: vec![],
            count: 0,
            paused: 0,
            roots: vec![],
        };
        for value in [Ok(Some(tree)), Ok(None)] {
            let encoded = <DataCodec as Encoder<PageData<TaskTree>>>::encode(&value).unwrap();
            let decoded: PageData<TaskTree> = DataCodec::decode(&through_the_page(&encoded)).unwrap();
            assert_eq!(decoded, value);
        }
    }

    #[test]
    fn json_strings_read_as_serde_json_writes_them() {
        for text in ["4502-1795376157.164899", "", "quote \" backslash \\ slash / tab \t nl \n", "é \u{1} 😀 \u{2028}"]
        {
            let json = serde_json::to_string(text).unwrap();
            assert_eq!(json_string(&json).as_deref(), Some(text), "{json}");
        }
        assert_eq!(json_string(r#""\ud83d\ude00 \u00e9""#).as_deref(), Some("😀 é"));
        for bad in ["", "\"x", "x\"", r#""a"b""#, r#""\q""#, r#""\u12""#, r#""\u+123""#, r#""\ud83d""#, "42"] {
            assert_eq!(json_string(bad), None, "{bad}");
        }
    }

    #[test]
    fn text_replies_tell_none_from_empty() {
        for value in [Some("<p>+</p>".to_string()), Some(String::new()), None] {
            let bytes = <TextEncoding as Encodes<Option<String>>>::encode(&value).unwrap();
            assert_eq!(<TextEncoding as Decodes<Option<String>>>::decode(bytes).unwrap(), value);
        }
    }
}
