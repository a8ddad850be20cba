//! Server functions of the runtime pages (issue 19): each is one registry call, answering
//! HTML rendered by the server (`crate::render::runtimes`), as the other pages' do.

use crate::rpc::TextRpc;
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::api::{debugger, failed, Need};

#[cfg(feature = "ssr")]
fn language(name: &str) -> Result<breakroom_debugger::runtimes::Language, ServerFnError> {
    breakroom_debugger::runtimes::Language::parse(name.trim()).ok_or_else(|| {
        failed(breakroom_debugger::Error::invalid(
            "invalid_language",
            format!("language must be bash or python, not {name:?}"),
        ))
    })
}

/// `/runtimes`: the live workspaces.
#[server(prefix = "/rpc", endpoint = "runtimes_html", protocol = TextRpc)]
pub async fn runtimes_html() -> Result<Option<String>, ServerFnError> {
    let list = debugger(Need::Admin)?.runtimes().list().map_err(failed)?;
    Ok(Some(crate::render::runtimes::workspace_list(&list)))
}

/// A workspace's state panel (none of its processes is started for it).
#[server(prefix = "/rpc", endpoint = "runtime_state_html", protocol = TextRpc)]
pub async fn runtime_state_html(workspace: String) -> Result<Option<String>, ServerFnError> {
    let state = debugger(Need::Admin)?.runtimes().state(&workspace).await.map_err(failed)?;
    Ok(Some(crate::render::runtimes::state_panel(&state)))
}

/// The commands of one language run before the page was opened.
#[server(prefix = "/rpc", endpoint = "runtime_earlier_html", protocol = TextRpc)]
pub async fn runtime_earlier_html(workspace: String, language: String) -> Result<Option<String>, ServerFnError> {
    let language = self::language(&language)?;
    let page = debugger(Need::Admin)?.runtimes().history(&workspace, 100).map_err(failed)?;
    Ok(Some(crate::render::runtimes::earlier(language, &page.history)))
}

/// Runs `command`; answers its transcript entry.
#[server(prefix = "/rpc", endpoint = "runtime_exec_html", protocol = TextRpc)]
pub async fn runtime_exec_html(workspace: String, language: String, command: String) -> Result<String, ServerFnError> {
    let language = self::language(&language)?;
    let request = breakroom_debugger::runtimes::ExecRequest {
        command: Some(command.clone()),
        language: Some(language.as_str().into()),
        ..Default::default()
    };
    let result = debugger(Need::Admin)?.runtimes().exec(&workspace, request).await.map_err(failed)?;
    Ok(crate::render::runtimes::exec_entry(language, &command, &result))
}

/// Ends the workspace's processes (a running command is killed).
#[server(prefix = "/rpc", endpoint = "runtime_reset", protocol = TextRpc)]
pub async fn runtime_reset(workspace: String) -> Result<(), ServerFnError> {
    let runtimes = debugger(Need::Admin)?.runtimes().clone();
    match runtimes.reset(&workspace).await {
        Ok(_) | Err(breakroom_debugger::Error::WorkspaceNotFound(_)) => Ok(()),
        Err(e) => Err(failed(e)),
    }
}
