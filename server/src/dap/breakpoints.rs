//! Breakpoints over DAP are the server's breakpoint records, shown on the pages too. Each
//! `set…Breakpoints` replaces the set *this connection* made (for one source, or all function
//! or exception ones): records made on the pages or by another editor are never touched.

use breakroom_debugger::breakpoints::record::{
    same_file, BreakpointKind, BreakpointOptions, BreakpointRecord, BreakpointSpec,
};
use serde::Deserialize;
use serde_json::{json, Value};

use super::protocol::{DapError, Request, RAISED, UNCAUGHT};
use super::session::Dap;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SourceBreakpoint {
    line: i64,
    #[serde(default)]
    condition: Option<String>,
    #[serde(default)]
    hit_condition: Option<String>,
    #[serde(default)]
    log_message: Option<String>,
}

#[derive(Deserialize)]
struct SourceArg {
    #[serde(default)]
    path: Option<String>,
}

#[derive(Deserialize)]
struct SetBreakpointsArgs {
    source: SourceArg,
    #[serde(default)]
    breakpoints: Vec<SourceBreakpoint>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FunctionBreakpoint {
    name: String,
    #[serde(default)]
    condition: Option<String>,
    #[serde(default)]
    hit_condition: Option<String>,
}

#[derive(Deserialize)]
struct SetFunctionBreakpointsArgs {
    #[serde(default)]
    breakpoints: Vec<FunctionBreakpoint>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FilterOption {
    filter_id: String,
    #[serde(default)]
    condition: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SetExceptionBreakpointsArgs {
    #[serde(default)]
    filters: Vec<String>,
    #[serde(default)]
    filter_options: Vec<FilterOption>,
}

/// The record options a DAP breakpoint carries (empty texts are no option).
fn options(condition: &Option<String>, hit: &Option<String>, log: &Option<String>) -> BreakpointOptions {
    let text =
        |value: &Option<String>| Some(value.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(String::from));
    BreakpointOptions {
        condition: text(condition),
        hit_condition: text(hit),
        log_message: text(log),
        ..Default::default()
    }
}

impl Dap {
    /// A record as a DAP breakpoint.
    pub fn dap_breakpoint(&self, record: &BreakpointRecord) -> Value {
        let id = self.state().breakpoint_id(&record.id);
        let mut shown = json!({"id": id, "verified": record.enabled});
        if let (Some(file), Some(line)) = (&record.file, record.line) {
            shown["source"] = json!({"path": file});
            shown["line"] = json!(self.line_out(i64::from(line)));
        }
        if !record.refused_by.is_empty() {
            shown["message"] = json!(format!("not followed by {} program(s)", record.refused_by.len()));
        }
        shown
    }

    fn refused(&self, message: String) -> Value {
        json!({"verified": false, "message": message})
    }

    /// Replaces this connection's records in `made` with ones made from `bodies`; returns each
    /// one as a DAP breakpoint, in order.
    fn replace(&self, made: Vec<String>, bodies: Vec<Result<BreakpointSpec, String>>) -> (Vec<String>, Vec<Value>) {
        for id in made {
            let _ = self.debugger().breakpoints().remove_breakpoint_record(&id);
        }
        let mut kept = vec![];
        let mut shown = vec![];
        for body in bodies {
            match body.and_then(|b| self.debugger().breakpoints().add_breakpoint_record(&b).map_err(|e| e.to_string()))
            {
                Ok(record) => {
                    shown.push(self.dap_breakpoint(&record));
                    kept.push(record.id);
                }
                Err(message) => shown.push(self.refused(message)),
            }
        }
        self.remember_records();
        (kept, shown)
    }

    pub fn set_breakpoints(&self, request: &Request) -> Result<Value, DapError> {
        let args: SetBreakpointsArgs = request.args()?;
        let path = args
            .source
            .path
            .filter(|p| !p.trim().is_empty())
            .ok_or(DapError::new("setBreakpoints needs source.path"))?;
        let made = self.state().line_records.remove(&path).unwrap_or_default();
        // A line someone else has a breakpoint on keeps theirs: it is shown, not duplicated.
        let others: Vec<BreakpointRecord> = self
            .debugger()
            .breakpoints()
            .breakpoint_records()
            .into_iter()
            .filter(|r| {
                r.kind == BreakpointKind::Line
                    && !made.contains(&r.id)
                    && r.file.as_deref().is_some_and(|f| same_file(f, &path))
            })
            .collect();
        let mut bodies = vec![];
        let mut theirs = vec![];
        for (i, bp) in args.breakpoints.iter().enumerate() {
            let line = self.line_in(bp.line);
            match others.iter().find(|r| r.line.map(i64::from) == Some(line)) {
                Some(record) => theirs.push((i, self.dap_breakpoint(record))),
                None if line < 1 => bodies.push(Err(format!("line {} is before the file's first line", bp.line))),
                None => bodies.push(
                    u32::try_from(line)
                        .map(|line| {
                            BreakpointSpec::line(path.clone(), line).with(options(
                                &bp.condition,
                                &bp.hit_condition,
                                &bp.log_message,
                            ))
                        })
                        .map_err(|_| format!("line {} is past any file's last line", bp.line)),
                ),
            }
        }
        let (kept, mut shown) = self.replace(made, bodies);
        for (i, breakpoint) in theirs {
            shown.insert(i.min(shown.len()), breakpoint);
        }
        self.state().line_records.insert(path, kept);
        Ok(json!({ "breakpoints": shown }))
    }

    pub fn set_function_breakpoints(&self, request: &Request) -> Result<Value, DapError> {
        let args: SetFunctionBreakpointsArgs = request.args()?;
        let made = std::mem::take(&mut self.state().function_records);
        let bodies = args
            .breakpoints
            .iter()
            .map(|bp| {
                if bp.name.trim().is_empty() {
                    return Err("a function breakpoint needs a name".to_string());
                }
                Ok(BreakpointSpec::function(bp.name.trim()).with(options(&bp.condition, &bp.hit_condition, &None)))
            })
            .collect();
        let (kept, shown) = self.replace(made, bodies);
        self.state().function_records = kept;
        Ok(json!({ "breakpoints": shown }))
    }

    /// Both filters are error records (types from the condition): Breakroom pauses where a
    /// wrapped call raises and at uncaught exceptions; `raised` says it does not stop at an
    /// exception caught inside code that is not wrapped.
    pub fn set_exception_breakpoints(&self, request: &Request) -> Result<Value, DapError> {
        let args: SetExceptionBreakpointsArgs = request.args()?;
        let mut chosen: Vec<(String, Option<String>)> = args.filters.into_iter().map(|f| (f, None)).collect();
        chosen.extend(args.filter_options.into_iter().map(|o| (o.filter_id, o.condition)));
        let made = std::mem::take(&mut self.state().exception_records);
        let mut notes = vec![];
        let bodies = chosen
            .iter()
            .map(|(filter, condition)| {
                if filter != RAISED && filter != UNCAUGHT {
                    return Err(format!("no exception filter {filter:?}: {RAISED} or {UNCAUGHT}"));
                }
                let types: Vec<String> = condition
                    .as_deref()
                    .unwrap_or("")
                    .split(',')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string)
                    .collect();
                notes.push((filter == RAISED).then_some(
                    "stops where a wrapped call raises and at uncaught exceptions, not where code that is not wrapped catches one",
                ));
                Ok(BreakpointSpec::error(types))
            })
            .collect();
        let (kept, mut shown) = self.replace(made, bodies);
        for (breakpoint, note) in shown.iter_mut().zip(notes) {
            if let Some(note) = note {
                breakpoint["message"] = json!(note);
            }
        }
        self.state().exception_records = kept;
        Ok(json!({ "breakpoints": shown }))
    }

    /// The records as they are now, so the next change can be told apart.
    pub fn remember_records(&self) {
        let records = self.debugger().breakpoints().breakpoint_records();
        let mut state = self.state();
        state.seen_records = records.iter().map(|r| (r.id.clone(), json!(r))).collect();
    }

    /// Line and function records made elsewhere that changed since last seen, as `breakpoint`
    /// events.
    pub fn breakpoints_changed(&self) {
        let records = self.debugger().breakpoints().breakpoint_records();
        let before = std::mem::take(&mut self.state().seen_records);
        let shown_kinds = [BreakpointKind::Line, BreakpointKind::Function];
        for record in records.iter().filter(|r| shown_kinds.contains(&r.kind)) {
            if self.state().made_here(&record.id) {
                continue;
            }
            let reason = match before.get(&record.id) {
                None => "new",
                Some(old) if *old != json!(record) => "changed",
                Some(_) => continue,
            };
            let breakpoint = self.dap_breakpoint(record);
            self.event("breakpoint", json!({"reason": reason, "breakpoint": breakpoint}));
        }
        for (id, old) in &before {
            let kind = old.get("kind").and_then(Value::as_str);
            if !records.iter().any(|r| &r.id == id)
                && matches!(kind, Some("line") | Some("function"))
                && !self.state().made_here(id)
            {
                let dap_id = self.state().breakpoint_id(id);
                self.event("breakpoint", json!({"reason": "removed", "breakpoint": {"id": dap_id, "verified": false}}));
            }
        }
        self.remember_records();
    }
}
