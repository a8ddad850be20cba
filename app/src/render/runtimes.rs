//! `/runtimes` and `/runtime/{workspace}` as HTML: the live workspaces with their idle
//! countdown, one command's transcript entry, a workspace's state and its earlier commands.
//! The terminals themselves (input boxes, tabs) are the page's (`crate::pages::runtimes`).

use maud::{html, Markup};

use breakroom_debugger::runtimes::{ExecResult, HistoryEntry, Language, RuntimeState, WorkspaceList};

use super::titled;
use crate::format::timestamp;

fn pid(p: Option<i64>) -> String {
    p.map(|p| p.to_string()).unwrap_or_else(|| "—".into())
}

pub fn workspace_list(list: &WorkspaceList) -> String {
    let body = html! {
        @if list.workspaces.is_empty() {
            p.empty.runtimes-empty { "No live workspace. Open one below: its bash and Python start with its first command." }
        } @else {
            table.runtimes {
                thead { tr {
                    th { "Workspace" } th { "bash" } th { "Python" } th { "Commands" } th { "Last used" }
                    th { "Ends when idle for" }
                } }
                tbody {
                    @for w in &list.workspaces {
                        tr.workspace data-workspace=(w.workspace) {
                            td { a href={ "/runtime/" (w.workspace) } { (w.workspace) } }
                            td.mono { (pid(w.bash_pid)) }
                            td.mono { (pid(w.python_pid)) }
                            td { (w.commands) }
                            td { (timestamp(w.last_used_at)) }
                            @if w.busy {
                                td.countdown { "running a command" }
                            } @else {
                                // Counted down in the page (`pages::count_down`) until the
                                // workspace's next event.
                                td.countdown data-left-ms=((w.ends_in_s * 1000.0).round() as i64) {
                                    span.left { (crate::format::duration(w.ends_in_s)) } " more"
                                }
                            }
                        }
                    }
                }
            }
            p.hint { (list.workspaces.len()) " of at most " (list.max_workspaces) " workspaces." }
        }
    };
    titled(body, "Runtimes")
}

/// The prompt each language's transcript shows.
pub fn prompt(language: Language, line: usize) -> &'static str {
    match (language, line) {
        (Language::Bash, 0) => "$ ",
        (Language::Bash, _) => "> ",
        (Language::Python, 0) => ">>> ",
        (Language::Python, _) => "... ",
    }
}

fn input(language: Language, command: &str) -> Markup {
    html! {
        pre.input {
            @for (i, line) in command.split('\n').enumerate() {
                @if i > 0 { "\n" }
                span.prompt { (prompt(language, i)) }
                (line)
            }
        }
    }
}

fn output(stdout: &str, stderr: &str) -> Markup {
    html! {
        @if !stdout.is_empty() { pre.stdout { (stdout) } }
        @if !stderr.is_empty() { pre.output.error.stderr { (stderr) } }
    }
}

/// One command and what it did, as a transcript entry.
pub fn exec_entry(language: Language, command: &str, result: &ExecResult) -> String {
    let mut facts = vec![];
    match (result.timed_out, result.exit_code) {
        (true, _) => facts.push("interrupted: timed out".to_string()),
        (false, Some(code)) if code != 0 => facts.push(format!("exit code {code}")),
        _ => {}
    }
    facts.push(format!("{:.1} ms", result.duration_ms));
    if result.started {
        facts.push(format!("{} started", language.as_str()));
    }
    let html = html! {
        div.entry.new-entry.failed[!result.success] data-input=(command) {
            (input(language, command))
            (output(&result.stdout, &result.stderr))
            p.hint.exec-facts { (facts.join(" · ")) }
            @if let Some(notice) = &result.notice {
                p.error.notice { (notice) }
            }
        }
    };
    html.into_string()
}

/// Commands run before this page was opened, with what they printed (as the history kept it).
pub fn earlier(language: Language, history: &[HistoryEntry]) -> String {
    let html = html! {
        @for h in history.iter().filter(|h| h.language == language) {
            @let how = match (h.timed_out, h.exit_code) {
                (true, _) => "timed out".to_string(),
                (_, Some(code)) => format!("exit code {code}"),
                (_, None) => "its process ended".to_string(),
            };
            div.entry.earlier.failed[!h.success] data-input=(h.command) {
                (input(language, &h.command))
                (output(&h.stdout, &h.stderr))
                p.hint.exec-facts { (how) " · " (format!("{:.1}", h.duration_ms)) " ms · " (timestamp(h.timestamp)) }
            }
        }
    };
    html.into_string()
}

fn list(title: &str, class: &str, items: impl Iterator<Item = String>) -> Markup {
    let items: Vec<String> = items.collect();
    html! {
        div class=(class) {
            h3 { (title) }
            @if items.is_empty() {
                p.hint { "none" }
            } @else {
                ul { @for item in items { li { code { (item) } } } }
            }
        }
    }
}

/// What the workspace's live processes hold.
pub fn state_panel(state: &RuntimeState) -> String {
    let imports = state.imports.iter().map(|i| {
        if i.name == i.module {
            i.name.clone()
        } else {
            format!("{} ({})", i.name, i.module)
        }
    });
    let body = html! {
        section.runtime-state {
            h2 { "State" }
            @if state.busy {
                p.hint.state-busy { "A command is running: this is the state before it." }
            }
            p.meta { "bash working dir: " code.bash-cwd { (state.working_dir.as_deref().unwrap_or("(bash not running)")) } }
            (list("Imports", "state-imports", imports))
            (list("Python functions and classes", "state-functions", state.functions.iter().cloned()))
            (list("Python variables", "state-variables", state.variables.iter().map(|(k, v)| format!("{k}: {v}"))))
            (list("bash functions", "state-bash-functions", state.bash_functions.iter().cloned()))
            details.state-env {
                summary { "Environment (" (state.env_vars.len()) " exported)" }
                ul { @for (k, v) in &state.env_vars { li { code { (k) "=" (v) } } } }
            }
        }
    };
    titled(body, &format!("Runtime · {}", state.workspace))
}
