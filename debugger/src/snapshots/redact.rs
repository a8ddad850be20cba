//! A snapshot from a client that does not redact (an older Breakroom client, issue 50): the
//! server applies the rules to every name, repr and table or picture text in it before
//! keeping it.

use super::{CapturedValue, CapturedVariable, SnapshotFrame, WatchValue};
use crate::policy::{Policy, REDACTED};

fn value(policy: &Policy, value: &mut CapturedValue) -> u64 {
    let (repr, mut count) = policy.redact_text(&value.repr);
    if count > 0 {
        value.repr = repr;
    }
    if let Some(error) = value.error.as_mut() {
        let (text, n) = policy.redact_text(error);
        *error = text;
        count += n as usize;
    }
    for output in &mut value.outputs {
        output.redact(policy);
    }
    count as u64 + variables(policy, &mut value.children)
}

fn variables(policy: &Policy, list: &mut [CapturedVariable]) -> u64 {
    let mut count = 0;
    for variable in list {
        if policy.name_matches(&variable.name) {
            variable.value = CapturedValue {
                type_name: variable.value.type_name.clone(),
                repr: REDACTED.to_string(),
                children: Vec::new(),
                length: None,
                truncated: false,
                error: None,
                outputs: Vec::new(),
            };
            count += 1;
        } else {
            count += value(policy, &mut variable.value);
        }
    }
    count
}

/// How many values were replaced.
pub(crate) fn snapshot(policy: &Policy, frames: &mut [SnapshotFrame], expressions: &mut [WatchValue]) -> u64 {
    let mut count = 0;
    for frame in frames {
        if let Some(locals) = frame.locals.as_mut() {
            count += variables(policy, locals);
        }
    }
    for watch in expressions {
        if let Some(v) = watch.value.as_mut() {
            count += value(policy, v);
        }
        if let Some(error) = watch.error.as_mut() {
            let (text, n) = policy.redact_text(error);
            *error = text;
            count += n as u64;
        }
    }
    count
}
