//! Server functions behind the time-travel forms (issue 20), and the timeline page's HTML. The
//! pages post to the forms' functions as plain HTML forms: on success the browser is sent back to
//! the page it came from (or, from the REPL page, to a REPL on the pause it went back to); a
//! refusal comes back in the URL. The timeline page calls them itself (`crate::pages::timeline`).

use crate::rpc::TextRpc;
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::api::{debugger, failed, Need};

/// Step back from a pause (rewinding: the line left is killed). `repl` non-empty: the REPL
/// session the form is on; the page goes to it (it followed the program back), or to a new REPL
/// on the pause it went back to.
#[server(prefix = "/rpc", endpoint = "step_back_form", protocol = TextRpc)]
pub async fn step_back_form(pause_id: String, repl: String) -> Result<(), ServerFnError> {
    let debugger = debugger(Need::Debugger)?;
    let travel = debugger.checkpoints().step_back(&pause_id, Default::default()).await.map_err(failed)?;
    if !repl.is_empty() {
        let followed =
            debugger.sessions().session(&repl).map_err(failed)?.is_some_and(|s| s.pause_id == travel.pause_id);
        let session = if followed {
            repl
        } else {
            let id = travel.pause_id.clone();
            debugger.off_workers(move |d| d.sessions().start_session(&id)).await.map_err(failed)?
        };
        leptos_axum::redirect(&format!("/repl/{session}"));
    }
    Ok(())
}

#[server(prefix = "/rpc", endpoint = "rewind_form", protocol = TextRpc)]
pub async fn rewind_form(checkpoint_id: String) -> Result<(), ServerFnError> {
    debugger(Need::Debugger)?.checkpoints().rewind(&checkpoint_id).await.map(|_| ()).map_err(failed)
}

#[server(prefix = "/rpc", endpoint = "branch_form", protocol = TextRpc)]
pub async fn branch_form(checkpoint_id: String, name: String) -> Result<(), ServerFnError> {
    let name = Some(name).filter(|n| !n.trim().is_empty());
    debugger(Need::Debugger)?.checkpoints().branch_at(&checkpoint_id, name.as_deref()).await.map(|_| ()).map_err(failed)
}

#[server(prefix = "/rpc", endpoint = "switch_form", protocol = TextRpc)]
pub async fn switch_form(process_id: String, branch: String) -> Result<(), ServerFnError> {
    debugger(Need::Debugger)?.checkpoints().switch_branch(&process_id, &branch).await.map(|_| ()).map_err(failed)
}

/// `/process/{id}/timeline` (issue 20): the process's branches and checkpoints as HTML; None for
/// an unknown process.
#[server(prefix = "/rpc", endpoint = "timeline_html", protocol = TextRpc)]
pub async fn timeline_html(process_id: String) -> Result<Option<String>, ServerFnError> {
    use breakroom_debugger::ErrorKind;
    let debugger = debugger(Need::Viewer)?;
    let found = debugger.processes().tracked_process(&process_id).and_then(|detail| {
        debugger.checkpoints().timeline(&process_id).map(|timeline| (detail.process.name, timeline))
    });
    match found {
        Ok((name, timeline)) => {
            let keys = debugger.processes().keys_of(&process_id);
            Ok(Some(crate::render::time_travel::timeline_page(&name, &timeline, &keys)))
        }
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(failed(e)),
    }
}
