//! Looking at a paused program over DAP: its stack, scopes and variables (read statically, as
//! the variables panel reads them), evaluation, completion, the exception, and its sources.

use breakroom_debugger::calls::CallData;
use breakroom_debugger::calls::CallPauseReason;
use breakroom_debugger::eval::VariablePath;
use breakroom_debugger::steps::FrameIndex;
use breakroom_debugger::steps::StopKind;
use serde::Deserialize;
use serde_json::{json, Value};

use super::protocol::{DapError, Request};
use super::session::Dap;
use super::state::{Handle, Scope};

/// `stopped`'s reason for a pause.
pub fn stop_reason(call: &CallData) -> &'static str {
    if call.pause_reason == Some(CallPauseReason::Exception) {
        return "exception";
    }
    match call.stop.as_ref().map(|s| s.kind) {
        Some(StopKind::Step) => "step",
        Some(StopKind::Interrupt) | Some(StopKind::Task) => "pause",
        Some(StopKind::Entry) => "entry",
        Some(StopKind::Exception) => "exception",
        Some(StopKind::Line) | Some(StopKind::SetTrace) => "breakpoint",
        Some(StopKind::Call) | None => "function breakpoint",
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StackTraceArgs {
    #[serde(default)]
    start_frame: Option<usize>,
    #[serde(default)]
    levels: Option<usize>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReferenceArgs {
    variables_reference: i64,
    #[serde(default)]
    start: Option<usize>,
    #[serde(default)]
    count: Option<usize>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SetVariableArgs {
    variables_reference: i64,
    name: String,
    value: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EvaluateArgs {
    expression: String,
    #[serde(default)]
    frame_id: Option<i64>,
    #[serde(default)]
    context: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CompletionsArgs {
    text: String,
    column: i64,
    #[serde(default)]
    line: Option<i64>,
    #[serde(default)]
    frame_id: Option<i64>,
}

fn source_of(path: &str) -> Value {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    json!({"name": name, "path": path})
}

/// Code points ↔ UTF-16 units (DAP's columns count UTF-16 units).
fn utf16_len(text: &str) -> usize {
    text.encode_utf16().count()
}

fn chars_at_utf16(text: &str, units: usize) -> usize {
    let mut seen = 0;
    for (i, c) in text.chars().enumerate() {
        if seen >= units {
            return i;
        }
        seen += c.len_utf16();
    }
    text.chars().count()
}

impl Dap {
    pub fn stack_trace(&self, request: &Request) -> Result<Value, DapError> {
        let args: StackTraceArgs = request.args()?;
        let (_, pause) = self.paused_thread(request)?;
        let frames = self.debugger().steps().frames(&pause)?;
        let total = frames.len();
        let start = args.start_frame.unwrap_or(0).min(total);
        let levels = args.levels.filter(|l| *l > 0).unwrap_or(total);
        let mut shown = vec![];
        for frame in frames.into_iter().skip(start).take(levels) {
            let id = self.state().handle(Handle::Frame { pause: pause.clone(), index: frame.index });
            shown.push(json!({
                "id": id, "name": frame.function, "source": source_of(&frame.filename),
                "line": self.line_out(frame.lineno), "column": if self.state().columns_from_0 { 0 } else { 1 },
            }));
        }
        Ok(json!({"stackFrames": shown, "totalFrames": total}))
    }

    fn frame_handle(&self, id: i64) -> Result<(String, usize), DapError> {
        match self.state().get_handle(id) {
            Some(Handle::Frame { pause, index }) => Ok((pause, index)),
            _ => Err(DapError::new(format!("no frame {id}: the program has moved on since (ask for the stack again)"))),
        }
    }

    pub fn scopes(&self, request: &Request) -> Result<Value, DapError> {
        let frame_id =
            request.arguments.get("frameId").and_then(Value::as_i64).ok_or(DapError::new("scopes needs a frameId"))?;
        let (pause, frame) = self.frame_handle(frame_id)?;
        let mut scopes = vec![];
        let all = [
            (Scope::Locals, "Locals", "locals"),
            (Scope::Globals, "Globals", "globals"),
            (Scope::Session, "REPL session", "registers"),
        ];
        for (scope, name, hint) in all {
            let reference = self.state().handle(Handle::Scope { pause: pause.clone(), frame, scope });
            scopes.push(
                json!({"name": name, "presentationHint": hint, "variablesReference": reference, "expensive": false}),
            );
        }
        Ok(json!({ "scopes": scopes }))
    }

    fn variable(&self, pause: &str, frame: usize, globals: bool, row: &Value) -> Value {
        let expandable = row.get("expandable").and_then(Value::as_bool).unwrap_or(false);
        let expression = row.get("expression").and_then(Value::as_str).map(str::to_string);
        // A row the program says has children, at a path it gave: one level more on request.
        let path = row.get("path").filter(|_| expandable).and_then(|p| VariablePath::deserialize(p).ok());
        let reference = match path {
            Some(path) => {
                let value =
                    Handle::Value { pause: pause.to_string(), frame, path, expression: expression.clone(), globals };
                self.state().handle(value)
            }
            None => 0,
        };
        let mut variable = json!({
            "name": row.get("name").and_then(Value::as_str).unwrap_or("?"),
            "value": row.get("repr").and_then(Value::as_str).unwrap_or(""),
            "type": row.get("type").and_then(Value::as_str).unwrap_or(""),
            "variablesReference": reference,
        });
        if let Some(count) = row.get("count").and_then(Value::as_u64) {
            variable["indexedVariables"] = json!(count);
        }
        if let Some(expression) = expression {
            variable["evaluateName"] = json!(expression);
        }
        variable
    }

    pub async fn variables(&self, request: &Request) -> Result<Value, DapError> {
        let args: ReferenceArgs = request.args()?;
        let handle = self.state().get_handle(args.variables_reference);
        let (pause, frame, globals, rows) = match handle {
            Some(Handle::Scope { pause, frame, scope }) => {
                let session = self.repl_session(&pause).await?;
                let reply = match scope {
                    Scope::Globals => {
                        self.debugger().sessions().globals_panel(&session, Some(FrameIndex(frame)), None, 0).await?
                    }
                    _ => self.debugger().sessions().variables(&session, Some(FrameIndex(frame))).await?,
                };
                let rows: Vec<Value> = reply["variables"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|row| row.get("scope").and_then(Value::as_str) == Some(scope.row_scope()))
                    .cloned()
                    .collect();
                let start = args.start.unwrap_or(0).min(rows.len());
                let count = args.count.filter(|c| *c > 0).unwrap_or(rows.len());
                (pause, frame, scope == Scope::Globals, rows.into_iter().skip(start).take(count).collect::<Vec<_>>())
            }
            Some(Handle::Value { pause, frame, path, globals, .. }) => {
                let session = self.repl_session(&pause).await?;
                let offset = args.start.unwrap_or(0);
                let reply = if globals {
                    self.debugger()
                        .sessions()
                        .globals_panel(&session, Some(FrameIndex(frame)), Some(&path), offset)
                        .await?
                } else {
                    self.debugger().sessions().expand(&session, &path, offset, Some(FrameIndex(frame))).await?
                };
                if let Some(message) = reply.get("message").and_then(Value::as_str) {
                    return Err(DapError::new(message));
                }
                let mut rows: Vec<Value> = reply["children"].as_array().cloned().unwrap_or_default();
                if let Some(count) = args.count.filter(|c| *c > 0) {
                    rows.truncate(count);
                }
                (pause, frame, globals, rows)
            }
            _ => return Err(DapError::new(format!("no variables reference {}", args.variables_reference))),
        };
        let variables: Vec<Value> = rows.iter().map(|row| self.variable(&pause, frame, globals, row)).collect();
        Ok(json!({ "variables": variables }))
    }

    pub async fn set_variable(&self, request: &Request) -> Result<Value, DapError> {
        let args: SetVariableArgs = request.args()?;
        let (pause, frame, target) = match self.state().get_handle(args.variables_reference) {
            Some(Handle::Scope { pause, frame, scope: Scope::Globals }) => {
                (pause, frame, format!("globals()[{}]", serde_json::to_string(&args.name).unwrap_or_default()))
            }
            Some(Handle::Scope { pause, frame, .. }) => (pause, frame, args.name.clone()),
            Some(Handle::Value { pause, frame, expression: Some(parent), .. }) => {
                // A child is an item (`[0]`, `0`, `'key'`) or an attribute.
                let name = args.name.trim();
                let item = name.starts_with('[') || name.starts_with(['\'', '"']) || name.parse::<i64>().is_ok();
                let key = if item {
                    format!("({parent})[{}]", name.trim_start_matches('[').trim_end_matches(']'))
                } else {
                    format!("({parent}).{name}")
                };
                (pause, frame, key)
            }
            Some(Handle::Value { .. }) => return Err(DapError::new("this value has no expression to assign through")),
            _ => return Err(DapError::new(format!("no variables reference {}", args.variables_reference))),
        };
        let session = self.repl_session(&pause).await?;
        let assigned = self
            .debugger()
            .sessions()
            .eval_in_frame(&session, &format!("{target} = {}", args.value), Some(FrameIndex(frame)))
            .await?;
        if assigned.is_error {
            return Err(DapError::new(assigned.output));
        }
        let shown = self
            .debugger()
            .sessions()
            .evaluate_unrecorded(&pause, &format!("repr({target})"), Some(FrameIndex(frame)))
            .await?;
        let value = shown.output.trim_matches('\'').to_string();
        Ok(json!({"value": if shown.is_error { args.value } else { value }}))
    }

    /// The pause and frame an evaluation runs in: the frame named, else the one thread paused.
    fn eval_place(&self, frame_id: Option<i64>) -> Result<(String, usize), DapError> {
        if let Some(id) = frame_id {
            return self.frame_handle(id);
        }
        let paused = self.debugger().pauses().paused_calls();
        match paused.as_slice() {
            [one] => Ok((one.pause_id.clone(), 0)),
            [] => Err(DapError::new("nothing is paused: evaluate while a program is stopped")),
            _ => Err(DapError::new("several programs are paused: select a stack frame to evaluate in")),
        }
    }

    pub async fn evaluate(&self, request: &Request) -> Result<Value, DapError> {
        let args: EvaluateArgs = request.args()?;
        let (pause, frame) = self.eval_place(args.frame_id)?;
        let outcome = match args.context.as_deref() {
            // The editor's console is the REPL: the session's transcript has it.
            Some("repl") | None => {
                let session = self.repl_session(&pause).await?;
                self.debugger().sessions().eval_in_frame(&session, &args.expression, Some(FrameIndex(frame))).await?
            }
            _ => {
                self.debugger()
                    .sessions()
                    .evaluate_unrecorded(&pause, &args.expression, Some(FrameIndex(frame)))
                    .await?
            }
        };
        if !outcome.stdout.is_empty() {
            self.event("output", json!({"category": "stdout", "output": outcome.stdout}));
        }
        if outcome.is_error && args.context.as_deref() != Some("repl") {
            return Err(DapError::new(outcome.output));
        }
        Ok(json!({"result": outcome.output, "variablesReference": 0}))
    }

    pub async fn completions(&self, request: &Request) -> Result<Value, DapError> {
        let args: CompletionsArgs = request.args()?;
        let (pause, frame) = self.eval_place(args.frame_id)?;
        let columns_from_0 = self.state().columns_from_0;
        // The cursor: the text's line `line` (1-based unless told otherwise), column in UTF-16.
        let line_index =
            args.line.map(|l| if self.state().lines_from_0 { l } else { l - 1 }).unwrap_or(0).max(0) as usize;
        let lines: Vec<&str> = args.text.split('\n').collect();
        let units = (args.column - if columns_from_0 { 0 } else { 1 }).max(0) as usize;
        let before: usize = lines.iter().take(line_index).map(|l| l.chars().count() + 1).sum();
        let in_line = lines.get(line_index).map_or(0, |l| chars_at_utf16(l, units));
        let cursor = before + in_line;
        let session = self.repl_session(&pause).await?;
        let reply =
            self.debugger().sessions().complete(&session, &args.text, Some(cursor), Some(FrameIndex(frame))).await?;
        let start = reply["cursor_start"].as_u64().unwrap_or(cursor as u64) as usize;
        let end = reply["cursor_end"].as_u64().unwrap_or(cursor as u64) as usize;
        let chars: Vec<char> = args.text.chars().collect();
        let line_start = before.min(chars.len());
        let replaced_start = start.max(line_start).min(chars.len());
        let prefix: String = chars[line_start..replaced_start].iter().collect();
        let replaced: String = chars[replaced_start..end.clamp(replaced_start, chars.len())].iter().collect();
        let types = reply["metadata"]["types"].as_array().cloned().unwrap_or_default();
        let targets: Vec<Value> = reply["matches"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
            .filter_map(|(i, m)| {
                let text = m.as_str()?;
                let kind = types.get(i).and_then(Value::as_str).map(completion_type).unwrap_or("text");
                Some(json!({
                    "label": text, "text": text, "type": kind,
                    "start": utf16_len(&prefix) + usize::from(!columns_from_0), "length": utf16_len(&replaced),
                }))
            })
            .collect();
        Ok(json!({ "targets": targets }))
    }

    pub fn exception_info(&self, request: &Request) -> Result<Value, DapError> {
        let (_, pause) = self.paused_thread(request)?;
        let Some((call, _)) = self.debugger().pauses().pause_call(&pause)? else {
            return Err(DapError::new(format!("pause {pause} is gone")));
        };
        // The client's words for it (`KeyError: 'missing'`), else the call's recorded exception.
        let (type_name, message) = match call.stop.as_ref().and_then(|s| s.exception.clone()) {
            Some(text) => match text.split_once(": ") {
                Some((kind, message)) => (Some(kind.to_string()), Some(message.to_string())),
                None => (Some(text), None),
            },
            None => {
                let exception = call.exception.clone().unwrap_or(Value::Null);
                let field = |names: &[&str]| names.iter().find_map(|n| exception.get(*n)?.as_str().map(str::to_string));
                (field(&["type", "exception_type"]), field(&["message"]))
            }
        };
        let Some(type_name) = type_name else {
            return Err(DapError::new("this pause is not at an exception"));
        };
        let unhandled = call.pause_reason == Some(CallPauseReason::Exception)
            || call.stop.as_ref().is_some_and(|s| s.kind == StopKind::Exception);
        Ok(json!({
            "exceptionId": type_name,
            "description": message.clone().unwrap_or_else(|| type_name.clone()),
            "breakMode": if unhandled { "unhandled" } else { "always" },
            "details": {"message": message, "typeName": type_name},
        }))
    }

    pub fn source(&self, request: &Request) -> Result<Value, DapError> {
        let path = request.arguments.pointer("/source/path").and_then(Value::as_str).unwrap_or_default().to_string();
        if path.is_empty() {
            return Err(DapError::new("source needs source.path (Breakroom gives no sourceReference)"));
        }
        if path.ends_with(".py") {
            if let Ok(content) = std::fs::read_to_string(&path) {
                return Ok(json!({"content": content, "mimeType": "text/x-python"}));
            }
        }
        // Not readable here: the lines the program sent with its frames.
        for paused in self.debugger().pauses().paused_calls() {
            for frame in self.debugger().steps().frames(&paused.pause_id).unwrap_or_default() {
                if frame.filename == path && !frame.source_lines.is_empty() {
                    let mut lines = vec![String::new(); (frame.source_start.max(1) - 1) as usize];
                    lines.extend(frame.source_lines);
                    return Ok(json!({"content": lines.join("\n")}));
                }
            }
        }
        Err(DapError::new(format!("{path} cannot be read here and no paused frame has its lines")))
    }

    pub fn loaded_sources(&self) -> Value {
        let mut paths: Vec<String> = vec![];
        for paused in self.debugger().pauses().paused_calls() {
            for frame in self.debugger().steps().frames(&paused.pause_id).unwrap_or_default() {
                if !paths.contains(&frame.filename) && !frame.filename.starts_with('<') {
                    paths.push(frame.filename);
                }
            }
        }
        json!({"sources": paths.iter().map(|p| source_of(p)).collect::<Vec<_>>()})
    }
}

/// DAP's completion item type for the completer's.
fn completion_type(kind: &str) -> &'static str {
    match kind {
        "function" => "function",
        "class" => "class",
        "module" => "module",
        "keyword" => "keyword",
        "property" => "property",
        "instance" | "statement" => "variable",
        "key" => "value",
        _ => "text",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_map_to_code_points() {
        assert_eq!(chars_at_utf16("a😀b", 0), 0);
        assert_eq!(chars_at_utf16("a😀b", 3), 2);
        assert_eq!(chars_at_utf16("a😀b", 99), 3);
        assert_eq!(utf16_len("😀"), 2);
    }
}
