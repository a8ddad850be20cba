//! The REPL page's helper requests to the paused program: completion and the variables panel.
//! They travel like evals (same queue, same poll) but are never recorded: no transcript entry,
//! no event. A Breakroom client answers them by `kind`; an eval-only client evaluates `expr`,
//! a snippet computing the same answer (`snippet.rs`).

use crate::error::{Error, Result};
use crate::eval::{EvalRequest, EvalResult, PendingEval, Reply, RequestKind, VariablePath};
use crate::ids;
use crate::model::{EvalOutcome, ReplSession};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;
use tokio::sync::oneshot;

use crate::model::FrameIndex;
use crate::pauses::state::PauseState;
use crate::sessions::methods::{checked_frame, session_target};
use crate::sessions::state::SessionHost;
use crate::snippet;

/// How long a helper waits for the program: completion answers within 200 ms once it runs, so
/// anything longer means the program is busy with a slow eval; the page just gets no list.
const HELPER_TIMEOUT: Duration = Duration::from_secs(5);

impl<H: SessionHost> super::methods::SessionService<'_, H> {
    /// Jupyter's complete_reply for `code` at `cursor_pos` (code points), from the session's
    /// names, the frame's locals and globals and builtins.
    ///
    /// `frame`: the stack frame to complete in (0 = innermost); None: the session's selected one.
    pub async fn complete(
        self,
        session_id: &str,
        code: &str,
        cursor_pos: Option<usize>,
        frame: Option<FrameIndex>,
    ) -> Result<Value> {
        let length = code.chars().count();
        let cursor_pos = cursor_pos.unwrap_or(length);
        if cursor_pos > length {
            return Err(Error::invalid(
                "cursor_out_of_range",
                format!("cursor_pos {cursor_pos} is past the end of code ({length} code points)"),
            ));
        }
        let args = json!({"code": code, "cursor_pos": cursor_pos});
        self.ask(session_id, RequestKind::Complete, args, snippet::completion(code, cursor_pos), frame).await
    }

    /// The variables panel: the frame's locals and the session's names. A local that is one of
    /// the call's arguments carries the CID its value was stored under at the call (`cid`).
    /// `frame` as for [`Debugger::complete`].
    pub async fn variables(self, session_id: &str, frame: Option<FrameIndex>) -> Result<Value> {
        let args = json!({});
        let mut reply = self
            .ask(session_id, RequestKind::Variables, args.clone(), snippet::panel("variables", &args), frame)
            .await?;
        self.debugger.policy().redact_panel(&mut reply);
        let stored = self.session(session_id)?.map(|session| argument_cids(&session)).unwrap_or_default();
        for row in reply.get_mut("variables").and_then(Value::as_array_mut).into_iter().flatten() {
            let name = row.get("name").and_then(Value::as_str).unwrap_or("");
            if row.get("scope").and_then(Value::as_str) == Some("local") {
                if let Some(cid) = stored.get(name) {
                    row["cid"] = json!(cid);
                }
            }
        }
        Ok(reply)
    }

    /// One level under a panel path (`[["var", name], ["attr", name] | ["item", i], …]`).
    pub async fn expand(
        self,
        session_id: &str,
        path: &VariablePath,
        offset: usize,
        frame: Option<FrameIndex>,
    ) -> Result<Value> {
        let args = json!({"path": path, "offset": offset});
        let mut reply =
            self.ask(session_id, RequestKind::Expand, args.clone(), snippet::panel("expand", &args), frame).await?;
        self.debugger.policy().redact_panel(&mut reply);
        Ok(reply)
    }

    /// A page of a table an eval of this session showed: rows `offset..offset + limit`, sorted
    /// by `sort` first when given, read from the object the paused program still holds.
    /// `table_gone` (404) once the program no longer holds it (its pause ended).
    pub async fn table_page(self, session_id: &str, handle: &str, query: &crate::outputs::TablePage) -> Result<Value> {
        let args = json!({"handle": handle, "offset": query.offset, "limit": query.limit,
            "sort": query.sort, "descending": query.descending});
        self.ask(session_id, RequestKind::Table, args.clone(), snippet::panel("table", &args), None).await
    }

    /// A panel row's value (at `path`) in its rich forms, as an eval's outputs, and its text:
    /// the panel's "view". Reads the value by its path; runs no code the caller wrote.
    pub async fn view(self, session_id: &str, path: &VariablePath) -> Result<crate::outputs::View> {
        let args = json!({"path": path});
        let reply = self.ask(session_id, RequestKind::View, args.clone(), snippet::panel("view", &args), None).await?;
        let mut view: crate::outputs::View = serde_json::from_value(reply)
            .map_err(|e| Error::ClientFailed(format!("the program's view is not one: {e}")))?;
        view.outputs = crate::outputs::checked(std::mem::take(&mut view.outputs));
        let policy = self.debugger.policy();
        view.text = policy.redact_text(&view.text).0;
        for output in &mut view.outputs {
            output.redact(policy);
            output.link_table(session_id);
        }
        Ok(view)
    }

    /// The variables panel over a frame's globals instead of its locals (an editor's Globals
    /// scope): the rows, or with `path` one level under a row (`offset` as for expand).
    pub async fn globals_panel(
        self,
        session_id: &str,
        frame: Option<FrameIndex>,
        path: Option<&VariablePath>,
        offset: usize,
    ) -> Result<Value> {
        let (kind, args) = match path {
            None => (RequestKind::Variables, json!({"scope": "globals"})),
            Some(path) => (RequestKind::Expand, json!({"path": path, "offset": offset, "scope": "globals"})),
        };
        let name = if path.is_some() { "expand" } else { "variables" };
        let mut reply = self.ask(session_id, kind, args.clone(), snippet::panel(name, &args), frame).await?;
        self.debugger.policy().redact_panel(&mut reply);
        Ok(reply)
    }

    /// Evaluates `expr` in a paused call outside any REPL session (a breakpoint condition):
    /// the client's answer as it gave it. `SessionClosed` when the pause ended meanwhile.
    pub(crate) async fn ask_unrecorded(self, pause_id: &str, expr: String) -> Result<EvalResult> {
        self.ask_unrecorded_in(pause_id, expr, None).await
    }

    /// Evaluates `expr` in frame `frame` of a paused call without recording it (an editor's
    /// watch or hover): the text shown and whether it failed.
    pub async fn evaluate_unrecorded(
        self,
        pause_id: &str,
        expr: &str,
        frame: Option<FrameIndex>,
    ) -> Result<EvalOutcome> {
        if expr.trim().is_empty() {
            return Err(Error::MissingField { code: "missing_expr", field: "expr" });
        }
        if let Some(frame) = frame {
            checked_frame(&*self.debugger.state(), pause_id, frame.get())?;
        }
        let result = self.ask_unrecorded_in(pause_id, expr.to_string(), frame).await?;
        let is_error = result.error.is_some();
        let output = result.error.or(result.result).unwrap_or_default();
        // The value rules again, for a client that does not redact (issue 50).
        let policy = self.debugger.policy();
        let mut outputs = crate::outputs::checked(result.outputs.unwrap_or_default());
        for output in &mut outputs {
            output.redact(policy);
        }
        Ok(EvalOutcome {
            output: policy.redact_text(&output).0,
            stdout: policy.redact_text(&result.stdout.unwrap_or_default()).0,
            is_error,
            result_cid: result.result_cid,
            outputs,
            index: None,
            timestamp: None,
        })
    }

    async fn ask_unrecorded_in(self, pause_id: &str, expr: String, frame: Option<FrameIndex>) -> Result<EvalResult> {
        let (reply, answer) = oneshot::channel();
        let eval_id = ids::new_uuid();
        {
            let mut st = self.debugger.state();
            let pause = st.pause_parts().pauses.get_mut(pause_id).filter(|p| p.is_paused());
            let pause = pause.ok_or_else(|| Error::SessionClosed(unrecorded_session(pause_id)))?;
            let request = EvalRequest {
                eval_id: eval_id.clone(),
                session_id: unrecorded_session(pause_id),
                pause_id: pause_id.to_string(),
                expr,
                timeout_s: self.debugger.eval_timeout().as_secs_f64(),
                kind: RequestKind::Eval,
                args: None,
                frame,
            };
            pause.evals.push(PendingEval { request, reply: Reply::Raw(reply), requested_at: ids::now() });
            pause.wake.notify_waiters();
        }
        match tokio::time::timeout(self.debugger.eval_timeout(), answer).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(_closed)) => Err(Error::SessionClosed(unrecorded_session(pause_id))),
            Err(_elapsed) => {
                let mut st = self.debugger.state();
                if let Some(pause) = st.pause_parts().pauses.get_mut(pause_id) {
                    pause.wake.notify_waiters();
                    pause.evals.give_up(&eval_id);
                }
                Err(Error::EvalTimeout(self.debugger.eval_timeout().as_secs()))
            }
        }
    }

    /// A helper request to the session's paused program, and its decoded answer.
    pub(crate) async fn ask(
        self,
        session_id: &str,
        kind: RequestKind,
        args: Value,
        expr: String,
        frame: Option<FrameIndex>,
    ) -> Result<Value> {
        let (reply, answer) = oneshot::channel();
        let eval_id = ids::new_uuid();
        let pause_id = {
            let mut st = self.debugger.state();
            let (pause_id, frame) = session_target(&*st, session_id, frame)?;
            let pause = st.pause_parts().pauses.get_mut(&pause_id).filter(|p| p.is_paused());
            let pause = pause.ok_or_else(|| Error::SessionClosed(session_id.to_string()))?;
            let request = EvalRequest {
                frame,
                eval_id: eval_id.clone(),
                session_id: session_id.to_string(),
                pause_id: pause_id.clone(),
                expr,
                timeout_s: HELPER_TIMEOUT.as_secs_f64(),
                kind,
                args: Some(args),
            };
            pause.evals.push(PendingEval { request, reply: Reply::Raw(reply), requested_at: ids::now() });
            pause.wake.notify_waiters();
            pause_id
        };
        let timeout = HELPER_TIMEOUT.min(self.debugger.eval_timeout());
        let result = match tokio::time::timeout(timeout, answer).await {
            Ok(Ok(result)) => result,
            Ok(Err(_closed)) => return Err(Error::SessionClosed(session_id.to_string())),
            Err(_elapsed) => {
                let mut st = self.debugger.state();
                if let Some(pause) = st.pause_parts().pauses.get_mut(&pause_id) {
                    pause.wake.notify_waiters();
                    pause.evals.give_up(&eval_id);
                }
                return Err(Error::EvalTimeout(timeout.as_secs()));
            }
        };
        if let Some(error) = result.error {
            return Err(Error::ClientFailed(error));
        }
        let value = snippet::decode_result(result.result.as_deref().unwrap_or(""))?;
        // The panel's own refusals (a path that no longer leads anywhere) are the caller's.
        match value.get("error").and_then(Value::as_str) {
            Some("invalid_path") => {
                let message = value.get("message").and_then(Value::as_str).unwrap_or("invalid path");
                Err(Error::invalid("invalid_path", message.to_string()))
            }
            Some(code @ ("table_gone" | "invalid_sort")) => {
                let message = value.get("message").and_then(Value::as_str).unwrap_or(code).to_string();
                Err(if code == "table_gone" {
                    Error::not_found("table_gone", message)
                } else {
                    Error::invalid("invalid_sort", message)
                })
            }
            Some(other) => {
                Err(Error::ClientFailed(format!("{other}: {}", value.get("message").unwrap_or(&Value::Null))))
            }
            None => Ok(value),
        }
    }
}

/// The call's arguments by parameter name, with the CIDs they were stored under: positional
/// ones matched to the signature's names in order (up to a `*`), keyword ones by their key.
fn argument_cids(session: &ReplSession) -> HashMap<String, String> {
    let cid = |item: &Value| item.get("cid").and_then(Value::as_str).map(str::to_string);
    let names = parameter_names(&session.signature);
    let positional = names.iter().zip(&session.args).filter_map(|(name, item)| Some((name.clone(), cid(item)?)));
    let keyword = session.kwargs.iter().filter_map(|(name, item)| Some((name.clone(), cid(item)?)));
    positional.chain(keyword).collect()
}

/// Plain parameter names of a signature text like `(self, a, b: int = 2, *rest, key=None)`,
/// in order, up to the first starred one.
fn parameter_names(signature: &str) -> Vec<String> {
    let inner = signature.trim().strip_prefix('(').and_then(|s| s.rsplit_once(')')).map(|(s, _)| s).unwrap_or("");
    let (mut names, mut depth, mut part) = (vec![], 0i32, String::new());
    for c in inner.chars().chain(std::iter::once(',')) {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                let name = part.split([':', '=']).next().unwrap_or("").trim().to_string();
                part.clear();
                if name.starts_with('*') {
                    break;
                }
                if name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') {
                    names.push(name);
                }
                continue;
            }
            _ => {}
        }
        part.push(c);
    }
    names
}

/// The session id an unrecorded request carries: clients keep a namespace per session id, and
/// this one is no REPL session of ours (`submit_eval_result` knows it by the prefix).
pub(crate) const UNRECORDED_SESSION_PREFIX: &str = "unrecorded-";

pub(super) fn unrecorded_session(pause_id: &str) -> String {
    format!("{UNRECORDED_SESSION_PREFIX}{pause_id}")
}

#[cfg(test)]
mod tests {
    use super::parameter_names;

    #[test]
    fn parameter_names_stop_at_a_star_and_skip_annotations() {
        assert_eq!(
            parameter_names("(self, a, b: dict[str, int] = {}, /, c=(1, 2), *rest, key=None)"),
            ["self", "a", "b", "c"]
        );
        assert_eq!(parameter_names("()"), Vec::<String>::new());
        assert_eq!(parameter_names(""), Vec::<String>::new());
    }
}
