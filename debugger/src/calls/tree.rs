//! The call tree of one process, inferred from the stacks clients report: a call's parent is
//! the deepest earlier call of the same process that was still running when it started and
//! whose stack is the outer part of its own (the way cideldill's reference server infers it).

use std::collections::HashMap;

use serde_json::Value;

use crate::calls::CallRecord;
use crate::display::text_of;
use crate::model::{CallTreeNode, SessionLink};

/// How far back to look for a caller; calls further apart than this many records are roots.
const CALLER_SEARCH: usize = 2_000;

type FrameKey = (String, i64, String);

fn stack_of(record: &CallRecord) -> Vec<FrameKey> {
    record
        .call_site
        .get("stack_trace")
        .and_then(Value::as_array)
        .map(|frames| {
            frames
                .iter()
                .map(|f| {
                    (
                        f.get("filename").and_then(Value::as_str).unwrap_or("").to_string(),
                        f.get("lineno").and_then(Value::as_i64).unwrap_or(0),
                        f.get("function").and_then(Value::as_str).unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `records` in start order, all of one process. Nodes come out depth first, siblings in
/// start order.
pub fn build(records: &[&CallRecord], sessions: impl Fn(&str) -> Vec<SessionLink>) -> Vec<CallTreeNode> {
    let stacks: Vec<Vec<FrameKey>> = records.iter().map(|r| stack_of(r)).collect();
    let mut parent: Vec<Option<usize>> = vec![None; records.len()];
    for (i, record) in records.iter().enumerate() {
        let mine = &stacks[i];
        let mut best: Option<usize> = None;
        for j in (i.saturating_sub(CALLER_SEARCH)..i).rev() {
            let theirs = &stacks[j];
            let running = records[j].completed_at.is_none_or(|done| done >= record.started_at);
            let encloses = !theirs.is_empty() && theirs.len() < mine.len() && mine.ends_with(theirs);
            if running && encloses && best.is_none_or(|b| stacks[b].len() < theirs.len()) {
                best = Some(j);
            }
        }
        parent[i] = best;
    }

    let mut children: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
    for (i, p) in parent.iter().enumerate() {
        children.entry(*p).or_default().push(i);
    }
    let mut nodes = Vec::with_capacity(records.len());
    // Iterative depth-first walk: deep recursion in a debugged program must not overflow ours.
    let mut todo: Vec<(usize, usize)> = children.get(&None).into_iter().flatten().rev().map(|&i| (i, 0)).collect();
    while let Some((i, depth)) = todo.pop() {
        let r = records[i];
        let mut args_text: Vec<String> = r.pretty_args.iter().map(text_of).collect();
        args_text.extend(r.pretty_kwargs.iter().map(|(k, v)| format!("{k}={}", text_of(v))));
        nodes.push(CallTreeNode {
            call_id: r.call_id.clone(),
            function_name: r.method_name.clone(),
            depth,
            parent: parent[i].map(|p| records[p].call_id.clone()),
            args_text,
            status: r.status,
            result_text: match (&r.pretty_result, &r.exception) {
                (_, Some(exc)) => Some(text_of(exc)),
                (Some(result), None) => Some(text_of(result)),
                (None, None) => None,
            },
            started_at: r.started_at,
            completed_at: r.completed_at,
            pause_ids: r.pause_ids.clone(),
            repl_sessions: sessions(&r.call_id),
        });
        if let Some(kids) = children.get(&Some(i)) {
            todo.extend(kids.iter().rev().map(|&k| (k, depth + 1)));
        }
    }
    nodes
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn record(id: &str, started: f64, done: Option<f64>, stack: &[(&str, i64, &str)]) -> CallRecord {
        let frames: Vec<Value> =
            stack.iter().map(|(f, l, func)| json!({"filename": f, "lineno": l, "function": func})).collect();
        CallRecord {
            call_id: id.into(),
            method_name: id.into(),
            process_key: "p".into(),
            started_at: started,
            completed_at: done,
            status: crate::model::CallStatus::Success,
            pretty_args: vec![],
            pretty_kwargs: Default::default(),
            pretty_result: None,
            exception: None,
            call_site: json!({"stack_trace": frames}),
            pause_ids: vec![],
            repl_sessions: vec![],
        }
    }

    #[test]
    fn nested_calls_become_children_and_later_siblings_stay_siblings() {
        let main = ("app.py", 30, "<module>");
        let outer = record("outer", 1.0, Some(5.0), &[main]);
        let inner = record("inner", 2.0, Some(3.0), &[("app.py", 12, "outer"), main]);
        let deeper = record("deeper", 2.5, Some(2.6), &[("app.py", 5, "inner"), ("app.py", 12, "outer"), main]);
        let sibling = record("sibling", 4.0, Some(4.5), &[("app.py", 13, "outer"), main]);
        let after = record("after", 6.0, None, &[("app.py", 31, "<module>")]);
        let records = [&outer, &inner, &deeper, &sibling, &after];
        let nodes = build(&records, |_| vec![]);
        let shape: Vec<(&str, usize, Option<&str>)> =
            nodes.iter().map(|n| (n.call_id.as_str(), n.depth, n.parent.as_deref())).collect();
        assert_eq!(
            shape,
            vec![
                ("outer", 0, None),
                ("inner", 1, Some("outer")),
                ("deeper", 2, Some("inner")),
                ("sibling", 1, Some("outer")),
                ("after", 0, None),
            ]
        );
    }

    #[test]
    fn a_finished_call_is_nobodys_parent() {
        let main = ("app.py", 30, "<module>");
        let first = record("first", 1.0, Some(2.0), &[main]);
        let later = record("later", 3.0, None, &[("app.py", 12, "first"), main]);
        let nodes = build(&[&first, &later], |_| vec![]);
        assert!(nodes.iter().all(|n| n.depth == 0));
    }
}
