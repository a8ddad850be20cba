//! The bash side: an interactive bash (`-i`, so that SIGINT abandons the running command line
//! and bash goes on reading the next one, as at a terminal) with no rc files, no prompts, no
//! history and no job control. Each command is one line on bash's stdin:
//!
//! ```text
//! eval $'<the command, quoted>' </dev/null; __br_end $? TOKEN
//! ```
//!
//! `eval` runs a multi-line command as one unit in the shell itself (so `cd`, `export`,
//! variables and functions persist); `</dev/null` gives a command that reads stdin an EOF
//! instead of the rest of our input; `__br_end` writes the markers and `TOKEN CODE` on the
//! status fd. After an interrupt the aborted line never reaches `__br_end`, so `after_interrupt`
//! sends one on its own.

use std::collections::BTreeMap;

use super::exec::STATUS_FD;

/// Defines the helpers and quiets the interactive shell. One line: bash reads line by line.
pub fn init(token: &str) -> String {
    format!(
        "PS1=''; PS2=''; PS0=''; PROMPT_COMMAND=''; unset HISTFILE MAILCHECK; set +H +m; set +o history; \
         __br_end() {{ builtin printf '\\0BRK%s\\0' \"$2\"; builtin printf '\\0BRK%s\\0' \"$2\" >&2; \
         builtin printf '%s %s\\n' \"$2\" \"$1\" >&{STATUS_FD}; }}; \
         __br_state() {{ builtin printf '%s\\037' \"$PWD\"; builtin declare -F; builtin printf '\\037'; \
         local __br_v; for __br_v in $(builtin compgen -e); do builtin printf '%s=%s\\036' \"$__br_v\" \"${{!__br_v}}\"; done; }}; \
         __br_end 0 {token}\n"
    )
}

pub fn command() -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new("bash");
    cmd.args(["--norc", "--noprofile", "--noediting", "-i"]);
    cmd
}

/// `$'…'`: every byte bash could read as syntax is escaped, newlines included, so the whole
/// command fits one line. (NUL is refused before this.)
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str("$'");
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

pub fn exec_line(command: &str, token: &str) -> String {
    format!("eval {} </dev/null; __br_end $? {token}\n", quote(command))
}

/// What ends an interrupted command's exchange: bash abandoned the line holding `__br_end`.
pub fn after_interrupt(token: &str) -> String {
    format!("__br_end 130 {token}\n")
}

pub fn state_line(token: &str) -> String {
    format!("__br_state </dev/null; __br_end $? {token}\n")
}

pub const EXIT_LINE: &str = "exit\n";

/// The status line's rest: the exit code.
pub fn exit_code(rest: &str) -> Option<i32> {
    rest.trim().parse().ok()
}

/// What `__br_state` printed: working dir, functions (ours left out), exported environment.
pub struct BashState {
    pub working_dir: String,
    pub functions: Vec<String>,
    pub env: BTreeMap<String, String>,
}

pub fn parse_state(out: &str) -> BashState {
    let mut parts = out.splitn(3, '\u{1f}');
    let working_dir = parts.next().unwrap_or_default().to_string();
    let functions = parts
        .next()
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.rsplit(' ').next())
        .filter(|name| !name.is_empty() && !name.starts_with("__br_"))
        .map(str::to_string)
        .collect();
    let env = parts
        .next()
        .unwrap_or_default()
        .split('\u{1e}')
        .filter_map(|entry| entry.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    BashState { working_dir, functions, env }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_keeps_a_multi_line_command_on_one_line() {
        let q = quote("echo 'a'\nprintf \"%s\\n\" $HOME\ttab\u{1}");
        assert!(!q.contains('\n'));
        assert_eq!(q, "$'echo \\'a\\'\\nprintf \"%s\\\\n\" $HOME\\ttab\\x01'");
    }

    #[test]
    fn state_output_is_split_into_its_parts() {
        let s = parse_state("/tmp\u{1f}declare -f greet\ndeclare -f __br_end\n\u{1f}A=1\u{1e}B=x=y\nz\u{1e}");
        assert_eq!(s.working_dir, "/tmp");
        assert_eq!(s.functions, ["greet"]);
        assert_eq!(s.env.get("B").map(String::as_str), Some("x=y\nz"));
    }
}
