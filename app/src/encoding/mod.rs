//! How the pages' data travels: the server functions' reply encodings (text, a JSON string)
//! and the codecs that carry a page's HTML or typed data from the server's render into hydration.

use leptos::server_fn::codec::{Encoding, Post};
use leptos::server_fn::{ContentType, Decodes, Encodes, Format, FormatType};

use crate::transcript::{ShownEntry, TranscriptPage};

mod hydration;
pub use hydration::*;

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

#[cfg(test)]
mod tests {
    use super::*;
    use leptos::prelude::*;
    use leptos::server::codee;

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
