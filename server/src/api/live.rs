//! `/api/live`: server-sent events for every change pages show.

use breakroom_debugger::users::{Identity, Need};
use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::Extension;
use breakroom_debugger::model::LiveEventKind;
use breakroom_debugger::Debugger;
use futures::{Stream, StreamExt};
use tokio_stream::wrappers::BroadcastStream;

/// How often an idle stream sends a comment, so proxies and browsers keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How soon a page's stream reconnects once the server is unreachable.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

#[utoipa::path(operation_id = "live_events", extensions(("x-breakroom-needs" = json!(Need::Viewer))), get, path = "/api/live", tag = "browser",
    responses((status = 200, content_type = "text/event-stream",
        description = "server-sent events, one JSON LiveEvent each, named by `type`: `pause_added` and `pause_resumed` (`pause_id`, `process_key`: the paused program's), `session_started`, \
            `transcript_appended`, `session_closed`, `breakpoints_changed` (with `process_key` and `breakpoint_ids` when one process hit, logged, took a snapshot or counted hits: the breakpoints whose counts moved), `calls_changed`; for processes `process_started` \
            (`process`: TrackedProcess), `process_output` (`process_id`, `lines`: [OutputLine], one event per read), `process_exited` \
            (`process`: TrackedProcess with status, exit_code, signal, reason), `process_attached` (`process`, `method`: an attach's client called in), `process_forgotten` (`process_id`), `process_left_list` (`process_id`: its time in the active list ran out); for time travel \
            (`process_id`, `data`) `checkpoint` (a snapshot taken or refused), `rewind`, `branch_created`, `branch_switched`; `step_stopped` (`pause_id`, `previous_pause_id`, `reason`: step, `file`, `line`, `function`, `session_ids`, `process_key`); `logged` (`process_key`, `breakpoint_id`, `message`: a logpoint's message); `runtimes_changed` (`workspace`: a runtime workspace ran or finished a command, was reset or ended; sent to admins alone); `lagged` when \
            events were missed (refetch). Every kind is `breakroom_debugger::model::LiveEventKind`.")))]
pub async fn stream(
    State(debugger): State<Debugger>,
    caller: Option<Extension<Identity>>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    // What names what only admins may see (a runtime workspace) goes to admins alone.
    let admin = caller.is_some_and(|Extension(who)| Need::Admin.check(&who).is_ok());
    let events = BroadcastStream::new(debugger.subscribe()).filter_map(move |event| {
        let sent = match event {
            Ok(event) if event.for_admins_only() && !admin => None,
            Ok(event) => Some(Event::default().json_data(&event).unwrap_or_else(|_| Event::default().data("{}"))),
            // A slow page missed events: tell it to refetch everything.
            Err(_lagged) => Some(Event::default().data(format!(r#"{{"type":"{}"}}"#, LiveEventKind::Lagged.as_str()))),
        };
        std::future::ready(sent.map(Ok))
    });
    // A page whose server went away asks again every second (the browser's EventSource
    // reconnects by itself; the page shows a banner meanwhile and refetches once it is back).
    let retry = futures::stream::once(async { Ok(Event::default().retry(RECONNECT_AFTER).comment("retry")) });
    Sse::new(retry.chain(events)).keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
}
