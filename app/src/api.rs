//! Server functions: the pages' doors into the debugger. Each one translates a call and its
//! error, nothing more.

use leptos::prelude::*;
use leptos::server::codee;
use leptos::server_fn::codec::{Encoding, Post};
use leptos::server_fn::error::FromServerFnError;
use leptos::server_fn::{ContentType, Decodes, Encodes, Format, FormatType};

use crate::transcript::{ShownEntry, TranscriptPage};

/// The pages' server functions answer with text (HTML, a session id, or nothing), sent as it is:
/// the wasm then has no JSON decoder at all (serde_json's alone was some 15 KB gzip of every
/// page's download).
pub type PlainText = Post<TextEncoding>;

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

/// A JSON string as the reply: what scripts and tests read from `start_repl`. The server writes it
/// with serde_json; the page reads it with [`json_string`], so that it needs no JSON decoder.
pub type JsonText = Post<JsonStringEncoding>;

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
/// reads it with the browser's own JSON parser (`crate::transcript::browser`), so the wasm still
/// has no JSON decoder of its own.
#[cfg(feature = "ssr")]
pub trait Typed: serde::Serialize + serde::de::DeserializeOwned {}
#[cfg(feature = "ssr")]
impl<T: serde::Serialize + serde::de::DeserializeOwned> Typed for T {}

#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
pub trait Typed: crate::transcript::browser::FromJs {}
#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
impl<T: crate::transcript::browser::FromJs> Typed for T {}

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
    return crate::transcript::browser::parse(json);
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
    is_encoding::<PlainText>();
};

/// What a page shows: the HTML the server rendered for it (None: there is nothing at this
/// address), or why there is none.
pub type PageHtml = Result<Option<String>, ServerFnError>;

/// How a page's HTML travels from the server-rendered document into the hydrating page: as text,
/// like the server functions' replies (`+html`, `-`, or `!` and the error as server functions
/// send errors).
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
            Ok(Some(html)) => format!("+{html}"),
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
            Some(("-", "")) => Ok(Ok(None)),
            Some(("!", error)) => Ok(Err(ServerFnError::de(error.to_string().into()))),
            _ => Err(NotText),
        }
    }
}

/// A page's HTML from a server function, rendered into the page during server rendering and
/// refetched whenever `source` changes.
pub fn server_resource<S, Fut>(
    source: impl Fn() -> S + Send + Sync + 'static,
    fetcher: impl Fn(S) -> Fut + Send + Sync + 'static,
) -> Resource<PageHtml, PageCodec>
where
    S: Clone + PartialEq + Send + Sync + 'static,
    Fut: std::future::Future<Output = PageHtml> + Send + 'static,
{
    Resource::new_with_options(source, fetcher, false)
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

#[cfg(feature = "ssr")]
pub(crate) use crate::access::{debugger, Need};

#[cfg(feature = "ssr")]
pub(crate) fn failed(err: breakroom_debugger::Error) -> ServerFnError {
    // The same status the REST API gives this error: a refused input is the caller's 4xx, not
    // the server's 500 (which the log reports as a failure of ours).
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(
            http::StatusCode::from_u16(err.kind().http_status()).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR),
        );
    }
    ServerFnError::new(err.to_string())
}

// Pages' content comes as HTML rendered by the server (see `crate::render`): the wasm needs no
// decoder for the data and no view code for the markup. `Option` for the pages with a 404.

/// The paused calls, as `/` shows them.
#[server(prefix = "/rpc", endpoint = "paused_html", output = PlainText)]
pub async fn paused_html() -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let travel = |pause_id: &str| {
        crate::render::time_travel::pause_controls(
            pause_id,
            debugger.checkpoints().pause_travel(pause_id).as_ref(),
            None,
        )
    };
    Ok(Some(crate::render::paused_calls(
        &debugger.pauses().paused_calls(),
        &|key| debugger.processes().process_id_for_key(key),
        &travel,
    )))
}

/// A JSON string, unlike the others: scripts and tests call it for the id.
#[server(prefix = "/rpc", endpoint = "start_repl", output = JsonText)]
pub async fn start_repl(pause_id: String) -> Result<String, ServerFnError> {
    debugger(Need::Debugger)?.off_workers(move |d| d.sessions().start_session(&pause_id)).await.map_err(failed)
}

#[server(prefix = "/rpc", endpoint = "continue_call", output = PlainText)]
pub async fn continue_call(pause_id: String) -> Result<(), ServerFnError> {
    use breakroom_debugger::pauses::ResumeRequest;
    let resume =
        move |d: &breakroom_debugger::Debugger| d.pauses().continue_pause(&pause_id, ResumeRequest::continue_());
    debugger(Need::Debugger)?.off_workers(resume).await.map(|_| ()).map_err(failed)
}

/// Skips the call, returning `value` (JSON; anything that is not JSON is taken as a string).
#[server(prefix = "/rpc", endpoint = "skip_call", output = PlainText)]
pub async fn skip_call(pause_id: String, value: String) -> Result<(), ServerFnError> {
    use breakroom_debugger::pauses::{CallValue, ResumeKind, ResumeRequest};
    let fake_result = serde_json::from_str(value.trim()).unwrap_or(serde_json::Value::String(value));
    let request = ResumeRequest {
        action: Some(ResumeKind::Skip),
        fake_result: Some(CallValue(fake_result)),
        ..Default::default()
    };
    let resume = move |d: &breakroom_debugger::Debugger| d.pauses().continue_pause(&pause_id, request);
    debugger(Need::Debugger)?.off_workers(resume).await.map(|_| ()).map_err(failed)
}

/// Makes the call raise `exception_type(message)` instead of running.
#[server(prefix = "/rpc", endpoint = "raise_in_call", output = PlainText)]
pub async fn raise_in_call(pause_id: String, exception_type: String, message: String) -> Result<(), ServerFnError> {
    use breakroom_debugger::pauses::{ResumeKind, ResumeRequest};
    let exception_type = Some(exception_type.trim().to_string()).filter(|t| !t.is_empty());
    let request = ResumeRequest {
        action: Some(ResumeKind::Raise),
        exception_type: exception_type.or(Some("Exception".into())),
        exception_message: Some(message),
        ..Default::default()
    };
    let resume = move |d: &breakroom_debugger::Debugger| d.pauses().continue_pause(&pause_id, request);
    debugger(Need::Debugger)?.off_workers(resume).await.map(|_| ()).map_err(failed)
}

/// Starts the HTML of an active session's page: the page adds the input box below it.
pub const ACTIVE_SESSION: &str = r#"<span hidden class="session-active"></span>"#;

/// Where a REPL session's HTML leaves room for its transcript, which the page renders itself.
pub const TRANSCRIPT_SLOT: &str = "<!--transcript-->";

/// Ends the part of a REPL session's HTML that goes in the page's sidebar (its stack), which
/// comes first.
pub const SIDEBAR_SLOT: &str = "<!--sidebar-->";

/// A REPL session's page above the input box (see `crate::render::repl_session`).
#[server(prefix = "/rpc", endpoint = "repl_page", output = PlainText)]
pub async fn repl_page(session_id: String) -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let Some(session) = debugger.sessions().session(&session_id).map_err(failed)? else { return Ok(None) };
    let mut travel = debugger.checkpoints().pause_travel(&session.pause_id).filter(|_| session.is_active());
    // With frames, Step back is on the debug toolbar; the header keeps a refusal's reason.
    let has_frames = debugger.steps().debug_state(&session_id).map_err(failed)?.is_some_and(|s| !s.frames.is_empty());
    let step_back = travel.as_mut().filter(|_| has_frames).and_then(|t| t.checkpoint_before.take());
    let (debug, stack) = crate::debug_api::debug_markup(&debugger, &session_id, step_back.as_deref())?;
    let travel = crate::render::time_travel::pause_controls(&session.pause_id, travel.as_ref(), Some(&session_id));
    Ok(Some(crate::render::repl_session(&session, travel, debug, stack)))
}

/// Waits for the paused program's answer: the new entry, which the page appends where it is
/// (other viewers get it from the live stream).
#[server(prefix = "/rpc", endpoint = "eval_in_session", output = PlainText)]
pub async fn eval_in_session(session_id: String, expr: String) -> Result<ShownEntry, ServerFnError> {
    let outcome = debugger(Need::Debugger)?.sessions().eval(&session_id, &expr).await.map_err(failed)?;
    let entry = outcome.entry(&expr).ok_or_else(|| ServerFnError::new("the answer was not recorded"))?;
    Ok(crate::transcript::shown(&entry, &session_id))
}

/// A session's transcript as its page opens it: the newest [`crate::transcript::PAGE_ENTRIES`]
/// entries (HTML, `crate::render::repl_transcript`); "" when there is no such session (the page's
/// header says so).
#[server(prefix = "/rpc", endpoint = "repl_transcript", output = PlainText)]
pub async fn repl_transcript(session_id: String) -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let Some(session) = debugger.sessions().session(&session_id).map_err(failed)? else {
        return Ok(Some(String::new()));
    };
    Ok(Some(crate::render::repl_transcript(&session)))
}

/// Entries `start..end` of a session's transcript (clamped to it; at most [`MAX_ENTRIES`]): the
/// earlier ones a reader asks for, or those a page missed while its live stream was away.
#[server(prefix = "/rpc", endpoint = "repl_entries", output = PlainText)]
pub async fn repl_entries(
    session_id: String,
    start: usize,
    end: usize,
) -> Result<Option<TranscriptPage>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    entries_of(&debugger, &session_id, start, end.min(start.saturating_add(MAX_ENTRIES)))
}

/// The most entries one `repl_entries` answers with.
pub const MAX_ENTRIES: usize = 10_000;

#[cfg(feature = "ssr")]
fn entries_of(
    debugger: &breakroom_debugger::Debugger,
    session_id: &str,
    start: usize,
    end: usize,
) -> Result<Option<TranscriptPage>, ServerFnError> {
    let Some(session) = debugger.sessions().session(session_id).map_err(failed)? else { return Ok(None) };
    let total = session.transcript.len();
    let (start, end) = (start.min(total), end.min(total).max(start.min(total)));
    Ok(Some(TranscriptPage {
        entries: session.transcript[start..end].iter().map(|e| crate::transcript::shown(e, session_id)).collect(),
        first_index: start,
        total,
        language: session.language,
        started_ms: crate::transcript::millis(session.started_at),
    }))
}

/// `/repls`: the filter form and one page of sessions. `from` and `to` are `YYYY-MM-DD` dates
/// (UTC, the whole `to` day included; anything else means no bound); `status` is all, active or
/// closed.
#[server(prefix = "/rpc", endpoint = "sessions_html", output = PlainText)]
pub async fn sessions_html(
    search: String,
    status: String,
    from: String,
    to: String,
    page: usize,
) -> Result<Option<String>, ServerFnError> {
    use crate::format::date_to_epoch;
    use breakroom_debugger::model::{SessionQuery, SessionStatus};
    let filters = crate::render::Filters { search, status, from, to, page };
    let query = SessionQuery {
        search: Some(filters.search.trim().to_string()).filter(|s| !s.is_empty()),
        status: SessionStatus::parse(filters.status.trim()).unwrap_or_default(),
        from: date_to_epoch(&filters.from),
        to: date_to_epoch(&filters.to).map(|t| t + 86_399.999),
        page,
        per_page: 50,
    };
    Ok(Some(crate::render::sessions(
        &debugger(Need::Viewer)?.pauses().session_summaries(&query).map_err(failed)?,
        &filters,
    )))
}

/// `/callstack/{pause_id}` as HTML (see [`crate::render`]); None for an unknown pause.
#[server(prefix = "/rpc", endpoint = "call_stack_html", output = PlainText)]
pub async fn call_stack_html(pause_id: String) -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let breakpoints = debugger.breakpoints().breakpoint_records();
    Ok(debugger
        .pauses()
        .call_stack(&pause_id)
        .map_err(failed)?
        .map(|view| crate::render::call_stack(&view, &breakpoints)))
}

#[server(prefix = "/rpc", endpoint = "processes_html", output = PlainText)]
pub async fn processes_html() -> Result<Option<String>, ServerFnError> {
    Ok(Some(crate::render::processes(&debugger(Need::Viewer)?.pauses().process_summaries().map_err(failed)?)))
}

/// One process's call tree, the call `selected` marked; None for an unknown process.
#[server(prefix = "/rpc", endpoint = "call_tree_html", output = PlainText)]
pub async fn call_tree_html(process_key: String, selected: String) -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let process_id = debugger.processes().process_id_for_key(&process_key);
    let tree = debugger.pauses().call_tree(&process_key).map_err(failed)?;
    Ok(tree.map(|nodes| crate::render::call_tree(&process_key, process_id.as_deref(), &nodes, &selected)))
}

#[server(prefix = "/rpc", endpoint = "stored_value_html", output = PlainText)]
pub async fn stored_value_html(cid: String) -> Result<Option<String>, ServerFnError> {
    Ok(debugger(Need::Viewer)?
        .function_breakpoints()
        .stored_value(&cid)
        .ok()
        .map(|value| crate::render::stored_value(&value)))
}

/// `/processes`: the active list, or every recorded process with `all`; with the page's
/// `?label=` (`service=api`, `service`, several joined by commas) only the processes carrying it.
#[server(prefix = "/rpc", endpoint = "tracked_processes_html", output = PlainText)]
pub async fn tracked_processes_html(all: bool) -> Result<Option<String>, ServerFnError> {
    use crate::render::process_family::has_labels;
    let debugger = debugger(Need::Viewer)?;
    let label = page_query("label");
    let label = label.as_deref().map(str::trim).filter(|l| !l.is_empty());
    let mut list = debugger.processes().tracked_processes(all);
    if let Some(filter) = label {
        list.retain(|p| has_labels(p, filter));
    }
    let local = if all { None } else { Some(debugger.attach().local_python().await) };
    let now = breakroom_debugger::ids::now();
    Ok(Some(crate::render::processes::process_list(&list, all, label, now, local.as_ref())))
}

/// A parameter of the page's address: the request's own when the server renders the page, the
/// asking page's (its `Referer`, which a same-origin fetch sends whole) when the page refetches.
/// Read here instead of being passed by the page: a new argument costs the pages' wasm, and the
/// wasm every page shares is at its budget (`/processes?label=`, issue 34).
#[cfg(feature = "ssr")]
fn page_query(name: &str) -> Option<String> {
    let parts = use_context::<http::request::Parts>()?;
    let query = if parts.uri.path().starts_with("/rpc/") {
        let referer = parts.headers.get(http::header::REFERER)?.to_str().ok()?;
        referer.split_once('?')?.1.split('#').next()?.to_string()
    } else {
        parts.uri.query()?.to_string()
    };
    query.split('&').filter_map(|pair| pair.split_once('=')).find(|(k, _)| *k == name).map(|(_, v)| decode(v))
}

/// A query string's value, `+` and `%XX` decoded.
#[cfg(feature = "ssr")]
fn decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let (mut out, mut i) = (Vec::with_capacity(bytes.len()), 0);
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `/process/{id}`: the process, the newest lines of its output, its pauses and sessions; None
/// for an unknown process. `view` is `interleaved` or anything else for side by side.
#[server(prefix = "/rpc", endpoint = "process_html", output = PlainText)]
pub async fn process_html(id: String, view: String) -> Result<Option<String>, ServerFnError> {
    use crate::render::processes::{process_page, OutputLayout, OUTPUT_TAIL};
    let debugger = debugger(Need::Viewer)?;
    let detail = match debugger.processes().tracked_process(&id) {
        Ok(detail) => detail,
        Err(breakroom_debugger::Error::ProcessNotFound(_)) => return Ok(None),
        Err(e) => return Err(failed(e)),
    };
    let total = detail.process.stdout.lines + detail.process.stderr.lines;
    let from = total.saturating_sub(OUTPUT_TAIL as u64);
    let output = debugger.processes().process_output(&id, None, from, OUTPUT_TAIL).await.map_err(failed)?;
    let related = detail.process.parent_id.iter().chain(&detail.process.children);
    let names = related
        .filter_map(|id| debugger.processes().tracked_process(id).ok().map(|d| (id.clone(), d.process.name)))
        .collect();
    Ok(Some(process_page(&detail, &output, OutputLayout::parse(view.trim()), &names)))
}

/// Launches `command` (split as a POSIX shell splits words, without running a shell) and answers
/// the new process's id, a JSON string.
#[server(prefix = "/rpc", endpoint = "launch_process", output = JsonText)]
pub async fn launch_process(command: String, name: String, cwd: String) -> Result<String, ServerFnError> {
    let command = shlex::split(&command)
        .ok_or_else(|| ServerFnError::new("the command has an unclosed quote or a trailing backslash"))?;
    let given = |text: String| Some(text.trim().to_string()).filter(|t| !t.is_empty());
    let request = breakroom_debugger::processes::LaunchRequest {
        command,
        name: given(name),
        cwd: given(cwd),
        ..Default::default()
    };
    Ok(debugger(Need::Admin)?.processes().launch_process(request).map_err(failed)?.id)
}

/// Attaches to the local Python process `pid` (issue 33) and answers its record's id, a JSON
/// string.
#[server(prefix = "/rpc", endpoint = "attach_process", output = JsonText)]
pub async fn attach_process(pid: i64) -> Result<String, ServerFnError> {
    let request = breakroom_debugger::attach::AttachRequest { pid, ..Default::default() };
    Ok(debugger(Need::Admin)?.attach().process(request).await.map_err(failed)?.process_id)
}

/// SIGTERM to the process, SIGKILL 2 s later if it still runs.
#[server(prefix = "/rpc", endpoint = "stop_process", output = PlainText)]
pub async fn stop_process(id: String) -> Result<(), ServerFnError> {
    debugger(Need::Admin)?.processes().stop_process(&id).map(|_| ()).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use codee::{Decoder, Encoder};

    /// What Leptos does to the encoded text on its way through the page's script.
    fn through_the_page(encoded: &str) -> String {
        encoded.replace('<', "\\u003c")
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

    #[cfg(feature = "ssr")]
    #[test]
    fn a_query_value_is_decoded_as_browsers_encode_it() {
        assert_eq!(super::decode("service%3Dapi+x%2C%E2%9C%93"), "service=api x,✓");
        assert_eq!(super::decode("service=api"), "service=api");
        assert_eq!(super::decode("100%"), "100%");
    }
}
