//! Resources: cideldill's five `breakpoint://` documents plus processes and sessions, read from
//! the manager when asked; and subscriptions, fed by the manager's live event stream (the one
//! `/api/live` serves), so a new pause or a finished process sends
//! `notifications/resources/updated` to each MCP session that subscribed to what changed.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use breakroom_debugger::model::{LiveEvent, SessionQuery, SessionStatus};
use breakroom_debugger::Debugger;
use rmcp::model::{Resource, ResourceUpdatedNotificationParam};
use rmcp::service::SubscriptionContext;
use rmcp::{ErrorData as McpError, Peer, RoleServer};
use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;

use super::tools_breakpoints::recent_calls;
use crate::api::wire::{BreakpointList, FunctionList};

pub const STATUS: &str = "breakpoint://status";
pub const BREAKPOINTS: &str = "breakpoint://breakpoints";
pub const PAUSED: &str = "breakpoint://paused";
pub const CALL_HISTORY: &str = "breakpoint://call-history";
pub const FUNCTIONS: &str = "breakpoint://functions";
pub const PROCESSES: &str = "breakpoint://processes";
pub const SESSIONS: &str = "breakpoint://sessions";

/// Calls the call-history resource holds, as cideldill's.
const HISTORY_LIMIT: usize = 50;

const ALL: [(&str, &str, &str); 7] = [
    (STATUS, "Breakpoint Status", "How many breakpoints, paused calls, calls, processes and open sessions."),
    (BREAKPOINTS, "Breakpoints", "Function breakpoints with behaviours, and every breakpoint of every kind."),
    (PAUSED, "Paused Executions", "Calls paused now, oldest first."),
    (CALL_HISTORY, "Call History", "The 50 newest recorded calls."),
    (FUNCTIONS, "Registered Functions", "Registered functions, signatures and metadata."),
    (PROCESSES, "Processes", "Launched and connected processes, running and finished."),
    (SESSIONS, "REPL Sessions", "Open REPL sessions."),
];

pub fn list() -> Vec<Resource> {
    ALL.iter()
        .map(|(uri, name, description)| {
            Resource::new(*uri, *name).with_description(*description).with_mime_type("application/json")
        })
        .collect()
}

/// A resource's JSON now. `uri` may carry a query or fragment, or a trailing slash.
pub fn read(d: &Debugger, uri: &str) -> Result<Value, McpError> {
    let failed = |e: breakroom_debugger::Error| McpError::internal_error(e.to_string(), None);
    let uri = uri.split(['?', '#']).next().unwrap_or("").trim_end_matches('/');
    Ok(match uri {
        STATUS => {
            let calls: usize = d.pauses().process_summaries().map_err(failed)?.iter().map(|p| p.calls).sum();
            json!({
                "breakpoints": d.breakpoints().breakpoint_records().len(),
                "paused": d.pauses().paused_calls().len(),
                "total_calls": calls,
                "processes": d.processes().tracked_processes(false).len(),
                "open_sessions": open_sessions(d).map_err(failed)?.total,
            })
        }
        BREAKPOINTS => {
            let mut list = BreakpointList::from(d.function_breakpoints().breakpoints_view());
            list.items = d.breakpoints().breakpoint_records();
            serde_json::to_value(list).unwrap_or_default()
        }
        PAUSED => json!({"paused": d.pauses().paused_protocol_view().map_err(failed)?}),
        CALL_HISTORY => json!({"calls": recent_calls(d, HISTORY_LIMIT).map_err(failed)?}),
        FUNCTIONS => serde_json::to_value(FunctionList::from(d.function_breakpoints().functions())).unwrap_or_default(),
        PROCESSES => json!({"processes": d.processes().tracked_processes(true)}),
        SESSIONS => serde_json::to_value(open_sessions(d).map_err(failed)?).unwrap_or_default(),
        other => {
            return Err(McpError::resource_not_found(
                format!("no resource {other:?}: the resources are {}", ALL.map(|r| r.0).join(", ")),
                Some(json!({"uri": other})),
            ))
        }
    })
}

fn open_sessions(
    d: &Debugger,
) -> breakroom_debugger::Result<breakroom_debugger::model::SessionPage<breakroom_debugger::model::SessionSummary>> {
    let query =
        SessionQuery { search: None, status: SessionStatus::Active, from: None, to: None, page: 0, per_page: 0 };
    d.sessions().session_summaries(&query)
}

pub fn is_known(uri: &str) -> bool {
    ALL.iter().any(|r| r.0 == uri)
}

/// Which resources an event changes. Output lines change none (they would flood agents).
fn changed_by(event: &LiveEvent) -> &'static [&'static str] {
    match event {
        LiveEvent::PauseAdded { .. } | LiveEvent::PauseResumed { .. } => &[PAUSED, STATUS],
        LiveEvent::StepStopped { .. } => &[PAUSED, SESSIONS, STATUS],
        LiveEvent::SessionStarted { .. } | LiveEvent::SessionClosed { .. } => &[SESSIONS, STATUS],
        LiveEvent::BreakpointsChanged { .. } => &[BREAKPOINTS, FUNCTIONS, STATUS],
        LiveEvent::CallsChanged { .. } => &[CALL_HISTORY, STATUS],
        LiveEvent::ProcessStarted { .. } | LiveEvent::ProcessExited { .. } => &[PROCESSES, STATUS],
        LiveEvent::ProcessForgotten { .. } => &[PROCESSES],
        _ => &[],
    }
}

/// One MCP session's subscribed URIs, and whether its watcher runs.
#[derive(Clone, Default)]
pub struct Subscriptions {
    inner: Arc<Mutex<(HashSet<String>, bool)>>,
}

impl Subscriptions {
    fn lock(&self) -> std::sync::MutexGuard<'_, (HashSet<String>, bool)> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds `uri`; the first subscription starts the watcher that notifies `peer`.
    pub fn subscribe(&self, d: &Debugger, uri: &str, peer: Peer<RoleServer>) {
        let start = {
            let mut inner = self.lock();
            inner.0.insert(uri.to_string());
            !std::mem::replace(&mut inner.1, true)
        };
        if start {
            tokio::spawn(watch(self.clone(), d.subscribe(), peer));
        }
    }

    pub fn unsubscribe(&self, uri: &str) {
        self.lock().0.remove(uri);
    }

    fn wanted(&self, uris: &[&str]) -> Vec<String> {
        let inner = self.lock();
        uris.iter().filter(|u| inner.0.contains(**u)).map(|u| u.to_string()).collect()
    }

    fn all(&self) -> Vec<String> {
        self.lock().0.iter().cloned().collect()
    }
}

/// Until the session's transport is gone: each event becomes one notification per subscribed
/// resource it changed; missed events (a lagging receiver) notify every subscribed resource.
async fn watch(subs: Subscriptions, mut events: tokio::sync::broadcast::Receiver<LiveEvent>, peer: Peer<RoleServer>) {
    loop {
        let uris = match events.recv().await {
            Ok(event) => subs.wanted(changed_by(&event)),
            Err(RecvError::Lagged(_)) => subs.all(),
            Err(RecvError::Closed) => return,
        };
        for uri in uris {
            if peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri)).await.is_err() {
                subs.lock().1 = false;
                return;
            }
        }
    }
}

/// One `subscriptions/listen` stream (2026-07-28): notifies the accepted URIs an event changed
/// until the client cancels it or the stream is gone.
pub async fn listen(d: &Debugger, context: SubscriptionContext) {
    let uris: HashSet<String> = context.accepted().resource_subscriptions.iter().flatten().cloned().collect();
    let mut events = d.subscribe();
    loop {
        let changed: Vec<&str> = tokio::select! {
            _ = context.cancelled() => return,
            event = events.recv() => match event {
                Ok(event) => changed_by(&event).iter().copied().filter(|u| uris.contains(*u)).collect(),
                Err(RecvError::Lagged(_)) => uris.iter().map(String::as_str).collect(),
                Err(RecvError::Closed) => return,
            },
        };
        for uri in changed {
            if context.sink().notify_resource_updated(uri).await.is_err() {
                return;
            }
        }
    }
}
