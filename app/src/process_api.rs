//! Server functions of the tracked processes' pages (`/processes`, `/process/{id}`): their lists,
//! a process and its output, and launching, attaching and stopping.

use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::api::{debugger, failed, Need};
#[cfg(feature = "ssr")]
use crate::output::{output_section, OutputLayout, OUTPUT_TAIL};
use crate::rpc::{JsonRpc, TextRpc};

/// `/processes`: the active list, or every recorded process with `all`; with the page's
/// `?label=` (`service=api`, `service`, several joined by commas) only the processes carrying it.
#[server(prefix = "/rpc", endpoint = "tracked_processes_html", protocol = TextRpc)]
pub async fn tracked_processes_html(all: bool) -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let (list, label) = listed(&debugger, all);
    let local = if all { None } else { Some(debugger.attach().local_python().await) };
    let now = breakroom_debugger::ids::now();
    Ok(Some(crate::render::processes::process_list(&list, all, label.as_deref(), now, local.as_ref())))
}

/// One row of `/processes` (the same list, filter and tree as [`tracked_processes_html`]), with
/// the id of the row before it: what the list fetches when a process event names process `id`.
/// None when the list does not show it (not active, another label, unknown).
#[server(prefix = "/rpc", endpoint = "tracked_process_row", protocol = TextRpc)]
pub async fn tracked_process_row(id: String, all: bool) -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let (list, _) = listed(&debugger, all);
    Ok(crate::render::processes::process_row_in(&list, &id, all, breakroom_debugger::ids::now()))
}

/// The processes `/processes` lists, and the label it filters on (the page's `?label=`).
#[cfg(feature = "ssr")]
fn listed(
    debugger: &breakroom_debugger::Debugger,
    all: bool,
) -> (Vec<breakroom_debugger::processes::TrackedProcess>, Option<String>) {
    use crate::render::process_family::has_labels;
    let label = page_query("label").map(|l| l.trim().to_string()).filter(|l| !l.is_empty());
    let mut list = debugger.processes().tracked_processes(all);
    if let Some(filter) = &label {
        list.retain(|p| has_labels(p, filter));
    }
    (list, label)
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

/// `/process/{id}`: the process, its family, logpoints, pauses and sessions; None for an unknown
/// process. Its output is [`process_output_html`]'s: a refetch of this (a status, a pause) does not
/// carry the output along.
#[server(prefix = "/rpc", endpoint = "process_html", protocol = TextRpc)]
pub async fn process_html(id: String) -> Result<Option<String>, ServerFnError> {
    let debugger = debugger(Need::Viewer)?;
    let Some(detail) = tracked(&debugger, &id)? else { return Ok(None) };
    let related = detail.process.parent_id.iter().chain(&detail.process.children);
    let names = related
        .filter_map(|id| debugger.processes().tracked_process(id).ok().map(|d| (id.clone(), d.process.name)))
        .collect();
    Ok(Some(crate::render::processes::process_page(&detail, &names)))
}

/// The output section of `/process/{id}`: the newest [`OUTPUT_TAIL`] lines. `view` is
/// `interleaved`, or anything else for side by side. Fetched when the page opens; the page then
/// follows the output from the live stream.
#[server(prefix = "/rpc", endpoint = "process_output_html", protocol = TextRpc)]
pub async fn process_output_html(id: String, view: String) -> Result<Option<String>, ServerFnError> {
    output_from(&debugger(Need::Viewer)?, &id, 0, OutputLayout::parse(&view)).await
}

/// The output section of process `id` holding only the lines from number `from` on (at most the
/// newest [`OUTPUT_TAIL`]), in the asking page's layout (its `?view=`): what the page appends
/// when the process prints, or after its live stream was away. None for an unknown process.
#[server(prefix = "/rpc", endpoint = "process_output_after", protocol = TextRpc)]
pub async fn process_output_after(id: String, from: u64) -> Result<Option<String>, ServerFnError> {
    let layout = OutputLayout::parse(page_query("view").as_deref().unwrap_or_default());
    output_from(&debugger(Need::Viewer)?, &id, from, layout).await
}

/// The output section of process `id` with its lines from number `from` on, at most the newest
/// [`OUTPUT_TAIL`]; None for an unknown process. Reads the process's record alone, not its pauses
/// and sessions: a page asks for this each time its process prints.
#[cfg(feature = "ssr")]
async fn output_from(
    debugger: &breakroom_debugger::Debugger,
    id: &str,
    from: u64,
    layout: OutputLayout,
) -> Result<Option<String>, ServerFnError> {
    let processes = debugger.processes();
    let record = || match processes.tracked_record(id) {
        Ok(record) => Ok(Some(record)),
        Err(breakroom_debugger::Error::ProcessNotFound(_)) => Ok(None),
        Err(e) => Err(failed(e)),
    };
    let Some(before) = record()? else { return Ok(None) };
    let total = before.stdout.lines + before.stderr.lines;
    let from = from.max(total.saturating_sub(OUTPUT_TAIL as u64));
    let output = processes.process_output(id, None, from, OUTPUT_TAIL).await.map_err(failed)?;
    // The counts as they are now: at least the lines just read (more may have come meanwhile).
    let Some(now) = record()? else { return Ok(None) };
    Ok(Some(output_section(&now, &output, layout)))
}

#[cfg(feature = "ssr")]
fn tracked(
    debugger: &breakroom_debugger::Debugger,
    id: &str,
) -> Result<Option<breakroom_debugger::processes::ProcessDetail>, ServerFnError> {
    match debugger.processes().tracked_process(id) {
        Ok(detail) => Ok(Some(detail)),
        Err(breakroom_debugger::Error::ProcessNotFound(_)) => Ok(None),
        Err(e) => Err(failed(e)),
    }
}

/// Launches `command` (split as a POSIX shell splits words, without running a shell) and answers
/// the new process's id, a JSON string.
#[server(prefix = "/rpc", endpoint = "launch_process", protocol = JsonRpc)]
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
#[server(prefix = "/rpc", endpoint = "attach_process", protocol = JsonRpc)]
pub async fn attach_process(pid: i64) -> Result<String, ServerFnError> {
    let request = breakroom_debugger::attach::AttachRequest { pid, ..Default::default() };
    Ok(debugger(Need::Admin)?.attach().process(request).await.map_err(failed)?.process_id)
}

/// SIGTERM to the process, SIGKILL 2 s later if it still runs.
#[server(prefix = "/rpc", endpoint = "stop_process", protocol = TextRpc)]
pub async fn stop_process(id: String) -> Result<(), ServerFnError> {
    debugger(Need::Admin)?.processes().stop_process(&id).map(|_| ()).map_err(failed)
}

#[cfg(test)]
mod tests {
    #[cfg(feature = "ssr")]
    #[test]
    fn a_query_value_is_decoded_as_browsers_encode_it() {
        assert_eq!(super::decode("service%3Dapi+x%2C%E2%9C%93"), "service=api x,✓");
        assert_eq!(super::decode("service=api"), "service=api");
        assert_eq!(super::decode("100%"), "100%");
    }
}
