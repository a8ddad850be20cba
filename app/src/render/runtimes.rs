//! `/runtimes` and `/runtime/{workspace}` as HTML: the live workspaces with their idle
//! countdown, one command's transcript entry, a workspace's state and its earlier commands.
//! The terminals themselves (input boxes, tabs) are the page's (`crate::pages::runtimes`).

use std::fmt::Write;

use breakroom_debugger::runtimes::{ExecResult, HistoryEntry, Language, RuntimeState, WorkspaceList};

use super::{esc, titled};
use crate::format::timestamp;

/// `1h 02m`, `4m 05s`, `12s`.
fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s / 60 % 60),
    }
}

fn pid(p: Option<i64>) -> String {
    p.map(|p| p.to_string()).unwrap_or_else(|| "—".into())
}

pub fn workspace_list(list: &WorkspaceList) -> String {
    let mut out = String::new();
    if list.workspaces.is_empty() {
        out.push_str(r#"<p class="empty runtimes-empty">No live workspace. Open one below: its bash and Python start with its first command.</p>"#);
        return titled(out, "Runtimes");
    }
    out.push_str(
        r#"<table class="runtimes"><thead><tr><th>Workspace</th><th>bash</th><th>Python</th><th>Commands</th><th>Last used</th><th>Ends when idle for</th></tr></thead><tbody>"#,
    );
    for w in &list.workspaces {
        let ends = if w.busy { "running a command".to_string() } else { format!("{} more", duration(w.ends_in_s)) };
        let _ = write!(
            out,
            r#"<tr class="workspace" data-workspace="{name}"><td><a href="/runtime/{name}">{name}</a></td><td class="mono">{bash}</td><td class="mono">{python}</td><td>{commands}</td><td>{last}</td><td class="countdown" data-ends-in="{secs}">{ends}</td></tr>"#,
            name = esc(&w.workspace),
            bash = pid(w.bash_pid),
            python = pid(w.python_pid),
            commands = w.commands,
            last = esc(&timestamp(w.last_used_at)),
            secs = w.ends_in_s.round() as i64,
            ends = esc(&ends),
        );
    }
    let _ = write!(
        out,
        r#"</tbody></table><p class="hint">{} of at most {} workspaces.</p>"#,
        list.workspaces.len(),
        list.max_workspaces
    );
    titled(out, "Runtimes")
}

/// The prompt each language's transcript shows.
pub fn prompt(language: Language, line: usize) -> &'static str {
    match (language, line) {
        (Language::Bash, 0) => "$ ",
        (Language::Bash, _) => "&gt; ",
        (Language::Python, 0) => "&gt;&gt;&gt; ",
        (Language::Python, _) => "... ",
    }
}

fn input(out: &mut String, language: Language, command: &str) {
    out.push_str(r#"<pre class="input">"#);
    for (i, line) in command.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = write!(out, r#"<span class="prompt">{}</span>{}"#, prompt(language, i), esc(line));
    }
    out.push_str("</pre>");
}

/// One command and what it did, as a transcript entry.
pub fn exec_entry(language: Language, command: &str, result: &ExecResult) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<div class="{}" data-input="{}">"#,
        if result.success { "entry new-entry" } else { "entry new-entry failed" },
        esc(command)
    );
    input(&mut out, language, command);
    output(&mut out, &result.stdout, &result.stderr);
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
    let _ = write!(out, r#"<p class="hint exec-facts">{}</p>"#, esc(&facts.join(" · ")));
    if let Some(notice) = &result.notice {
        let _ = write!(out, r#"<p class="error notice">{}</p>"#, esc(notice));
    }
    out.push_str("</div>");
    out
}

fn output(out: &mut String, stdout: &str, stderr: &str) {
    if !stdout.is_empty() {
        let _ = write!(out, r#"<pre class="stdout">{}</pre>"#, esc(stdout));
    }
    if !stderr.is_empty() {
        let _ = write!(out, r#"<pre class="output error stderr">{}</pre>"#, esc(stderr));
    }
}

/// Commands run before this page was opened, with what they printed (as the history kept it).
pub fn earlier(language: Language, history: &[HistoryEntry]) -> String {
    let mut out = String::new();
    for h in history.iter().filter(|h| h.language == language) {
        let _ = write!(
            out,
            r#"<div class="{}" data-input="{}">"#,
            if h.success { "entry earlier" } else { "entry earlier failed" },
            esc(&h.command)
        );
        input(&mut out, language, &h.command);
        output(&mut out, &h.stdout, &h.stderr);
        let how = match (h.timed_out, h.exit_code) {
            (true, _) => "timed out".to_string(),
            (_, Some(code)) => format!("exit code {code}"),
            (_, None) => "its process ended".to_string(),
        };
        let _ = write!(
            out,
            r#"<p class="hint exec-facts">{} · {:.1} ms · {}</p></div>"#,
            esc(&how),
            h.duration_ms,
            esc(&timestamp(h.timestamp))
        );
    }
    out
}

fn list(out: &mut String, title: &str, class: &str, items: impl Iterator<Item = String>) {
    let items: Vec<String> = items.collect();
    let _ = write!(out, r#"<div class="{class}"><h3>{}</h3>"#, esc(title));
    if items.is_empty() {
        out.push_str(r#"<p class="hint">none</p>"#);
    } else {
        out.push_str("<ul>");
        for item in items {
            let _ = write!(out, "<li><code>{}</code></li>", esc(&item));
        }
        out.push_str("</ul>");
    }
    out.push_str("</div>");
}

/// What the workspace's live processes hold.
pub fn state_panel(state: &RuntimeState) -> String {
    let mut out = String::from(r#"<section class="runtime-state"><h2>State</h2>"#);
    if state.busy {
        out.push_str(r#"<p class="hint state-busy">A command is running: this is the state before it.</p>"#);
    }
    let dir = state.working_dir.as_deref().unwrap_or("(bash not running)");
    let _ = write!(out, r#"<p class="meta">bash working dir: <code class="bash-cwd">{}</code></p>"#, esc(dir));
    list(
        &mut out,
        "Imports",
        "state-imports",
        state.imports.iter().map(|i| {
            if i.name == i.module {
                i.name.clone()
            } else {
                format!("{} ({})", i.name, i.module)
            }
        }),
    );
    list(&mut out, "Python functions and classes", "state-functions", state.functions.iter().cloned());
    list(&mut out, "Python variables", "state-variables", state.variables.iter().map(|(k, v)| format!("{k}: {v}")));
    list(&mut out, "bash functions", "state-bash-functions", state.bash_functions.iter().cloned());
    let _ = write!(
        out,
        r#"<details class="state-env"><summary>Environment ({} exported)</summary><ul>"#,
        state.env_vars.len()
    );
    for (k, v) in &state.env_vars {
        let _ = write!(out, "<li><code>{}={}</code></li>", esc(k), esc(v));
    }
    out.push_str("</ul></details></section>");
    titled(out, &format!("Runtime · {}", state.workspace))
}
