//! What a breakpoint does at a hit and how far it may go (issue 34): its action (pause, log,
//! snapshot), what a snapshot captures, and the bounds on hits (how many, how often, until
//! when, in which processes). Read from a breakpoint's REST body with a 400 code per bad field.
//!
//! Built for the browser too, like the records that carry these fields.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::breakpoints::record::SpecError;

/// What a hit does.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakpointAction {
    /// The program stops and shows up for a REPL.
    #[default]
    Pause,
    /// The log message is written with the frame's values; the program goes on.
    Log,
    /// The stack, the top frames' locals and the watch expressions are captured; the program
    /// goes on.
    Snapshot,
}

impl BreakpointAction {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pause => "pause",
            Self::Log => "log",
            Self::Snapshot => "snapshot",
        }
    }

    /// Snapshots and logpoints run in programs that must not stop: read-only and bounded.
    pub fn never_pauses(self) -> bool {
        self != Self::Pause
    }
}

/// How much a snapshot captures. Each limit has a default and a ceiling.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureLimits {
    /// Frames whose locals are captured, from the top; the rest only say where they are.
    pub frames: u32,
    /// Container levels below a local.
    pub depth: u32,
    /// Items shown of each container.
    pub items: u32,
    /// A string or repr is cut after this many bytes.
    pub string_bytes: u32,
    /// One snapshot, all told; past it the rest is left out and the snapshot says `truncated`.
    pub total_bytes: u32,
    /// The tables and pictures of the values that are data (issue 52), all told, beside
    /// `total_bytes`; 0 draws none. Absent in records from before it: the default.
    #[serde(default = "default_rich_bytes")]
    pub rich_bytes: u32,
}

const DEFAULT_RICH_BYTES: u32 = 128 * 1024;

fn default_rich_bytes() -> u32 {
    DEFAULT_RICH_BYTES
}

impl Default for CaptureLimits {
    fn default() -> Self {
        CaptureLimits {
            frames: 5,
            depth: 3,
            items: 100,
            string_bytes: 1024,
            total_bytes: 64 * 1024,
            rich_bytes: DEFAULT_RICH_BYTES,
        }
    }
}

/// (field, least, ceiling): a body may ask for less or more than the default, within these.
const CAPTURE_BOUNDS: [(&str, u32, u32); 6] = [
    ("frames", 1, 50),
    ("depth", 1, 10),
    ("items", 1, 1000),
    ("string_bytes", 1, 64 * 1024),
    ("total_bytes", 1, 1024 * 1024),
    ("rich_bytes", 0, 1024 * 1024),
];

pub const MAX_EXPRESSIONS: usize = 20;
pub const MAX_EXPRESSION_CHARS: usize = 1000;
pub const MAX_HITS_CEILING: u64 = 1000;
pub const DEFAULT_SNAPSHOT_EXPIRY_S: f64 = 24.0 * 3600.0;
pub const MAX_EXPIRY_S: f64 = 30.0 * 24.0 * 3600.0;
pub const MAX_PER_SECOND_CEILING: f64 = 1000.0;

/// The bounds on a breakpoint's hits.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HitLimits {
    /// Snapshots (or log lines) kept, then the breakpoint is `completed`.
    #[serde(default)]
    pub max_hits: Option<u64>,
    /// When it stops (epoch seconds); set with `expires_in`.
    #[serde(default)]
    pub expires_at: Option<f64>,
    /// Hits captured per second in each process; more are counted `skipped_rate`.
    #[serde(default)]
    pub max_per_second: Option<f64>,
    /// Labels a process must carry for the breakpoint to arm there.
    #[serde(default, rename = "where", skip_serializing_if = "BTreeMap::is_empty")]
    pub where_labels: BTreeMap<String, String>,
}

/// What became of a breakpoint's hits in the programs (snapshots and logs).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HitTally {
    /// Snapshots kept, or log lines received.
    #[serde(default)]
    pub captured: u64,
    /// Hits past a process's time budget for snapshots and logpoints.
    #[serde(default)]
    pub skipped_quota: u64,
    /// Hits past `max_per_second`.
    #[serde(default)]
    pub skipped_rate: u64,
    /// Snapshots taken that a program could not send (its queue was full).
    #[serde(default)]
    pub dropped: u64,
}

/// Whether a breakpoint still arms.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakpointState {
    #[default]
    Active,
    /// `max_hits` were kept.
    Completed,
    /// Past `expires_at`.
    Expired,
}

impl BreakpointState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Completed => "completed",
            Self::Expired => "expired",
        }
    }
}

impl HitLimits {
    pub fn state(&self, tally: &HitTally, now: f64) -> BreakpointState {
        if self.max_hits.is_some_and(|max| tally.captured >= max) {
            BreakpointState::Completed
        } else if self.expires_at.is_some_and(|at| now >= at) {
            BreakpointState::Expired
        } else {
            BreakpointState::Active
        }
    }

    /// Whether a process with these labels arms the breakpoint.
    pub fn arms_in(&self, labels: &BTreeMap<String, String>) -> bool {
        self.where_labels.iter().all(|(k, v)| labels.get(k) == Some(v))
    }
}

/// The fields of this module a `PATCH` may change, besides the record's own options.
pub const POLICY_FIELDS: [&str; 7] =
    ["action", "expressions", "capture", "max_hits", "expires_in", "max_per_second", "where"];

/// The policy part of a breakpoint, as read from a body and written back to its record.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Policy {
    pub action: BreakpointAction,
    pub expressions: Vec<String>,
    pub capture: Option<CaptureLimits>,
    pub limits: HitLimits,
}

/// The policy fields a breakpoint body gives: `None` leaves a field as it is, `Some(None)` (a
/// JSON null) clears it. Read with a 400 code per bad field (`BreakpointOptions`' reader).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PolicyChanges {
    /// `pause`, `log` (needs `log_message`) or `snapshot` (issue 34): snapshots and logpoints
    /// never pause, and their expressions are read-only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<Option<BreakpointAction>>,
    /// A snapshot's watch expressions (at most 20); null clears them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expressions: Option<Vec<String>>,
    /// How much a snapshot captures (the limits not given keep their defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<Option<CaptureLimits>>,
    /// Snapshots (or log lines) kept, then it is `completed`: 1 to 1000 (snapshots: 1).
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 1000))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_hits: Option<Option<u64>>,
    /// Seconds, or `90s`, `30m`, `1h`, `2d` (snapshots: 24 h), at most 30 days. Read as seconds.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in: Option<Option<f64>>,
    /// Hits captured per second in each process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_per_second: Option<Option<f64>>,
    /// Labels a process must carry to arm it: `{"service": "api"}`; null clears them.
    #[serde(default, rename = "where", skip_serializing_if = "Option::is_none")]
    pub where_labels: Option<BTreeMap<String, String>>,
}

impl PolicyChanges {
    /// The policy fields of a body, each checked.
    pub(crate) fn read(obj: &Map<String, Value>) -> Result<Self, SpecError> {
        let given = |key: &str| obj.contains_key(key);
        Ok(PolicyChanges {
            action: match obj.get("action") {
                None => None,
                Some(Value::Null) => Some(None),
                Some(Value::String(s)) if s == "pause" => Some(Some(BreakpointAction::Pause)),
                Some(Value::String(s)) if s == "log" => Some(Some(BreakpointAction::Log)),
                Some(Value::String(s)) if s == "snapshot" => Some(Some(BreakpointAction::Snapshot)),
                Some(other) => {
                    return Err(refuse(
                        "invalid_action",
                        format!("action must be \"pause\", \"log\" or \"snapshot\", not {other}"),
                    ))
                }
            },
            expressions: if given("expressions") { Some(expressions(obj.get("expressions"))?) } else { None },
            capture: if given("capture") { Some(capture(obj.get("capture"))?) } else { None },
            max_hits: if given("max_hits") {
                Some(whole_number(obj.get("max_hits"), "max_hits", 1, MAX_HITS_CEILING)?)
            } else {
                None
            },
            expires_in: match obj.get("expires_in") {
                None => None,
                Some(Value::Null) => Some(None),
                Some(v) => Some(Some(duration(v)?)),
            },
            max_per_second: match obj.get("max_per_second") {
                None => None,
                Some(Value::Null) => Some(None),
                Some(Value::Number(n)) if n.as_f64().is_some_and(per_second_ok) => Some(n.as_f64()),
                Some(other) => return Err(bad_per_second(other)),
            },
            where_labels: if given("where") { Some(labels(obj.get("where"))?) } else { None },
        })
    }
}

fn per_second_ok(rate: f64) -> bool {
    rate > 0.0 && rate <= MAX_PER_SECOND_CEILING
}

fn bad_per_second(shown: impl std::fmt::Display) -> SpecError {
    refuse(
        "invalid_max_per_second",
        format!("\"max_per_second\" is a number above 0, at most {MAX_PER_SECOND_CEILING}, not {shown}"),
    )
}

fn refuse(code: &'static str, message: impl Into<String>) -> SpecError {
    SpecError { code, message: message.into() }
}

impl Policy {
    /// Applies the policy fields given over `self` (null clears one). `has_log` says whether the
    /// breakpoint has a log message once the body is applied; `now` dates `expires_in`. A new
    /// breakpoint gets its action's defaults (`fresh`). Values built in Rust rather than read
    /// from a body are checked here too.
    pub fn apply(&mut self, changes: &PolicyChanges, has_log: bool, now: f64, fresh: bool) -> Result<(), SpecError> {
        let asked = changes.action.flatten();
        let derived = if has_log { BreakpointAction::Log } else { BreakpointAction::Pause };
        self.action = match asked {
            Some(action) => action,
            None if fresh || changes.action.is_some() => derived,
            // A PATCH that adds or clears a log message moves between pause and log.
            None if self.action == BreakpointAction::Snapshot => BreakpointAction::Snapshot,
            None => derived,
        };
        match (self.action, has_log) {
            (BreakpointAction::Log, false) => {
                return Err(refuse("missing_log_message", "a log breakpoint needs a \"log_message\""))
            }
            (BreakpointAction::Snapshot, true) => {
                return Err(refuse(
                    "invalid_action",
                    "a snapshot breakpoint has no log message (use \"expressions\" for values to capture)",
                ))
            }
            (BreakpointAction::Pause, true) => {
                return Err(refuse("invalid_action", "a breakpoint with a log message logs: its action is \"log\""))
            }
            _ => {}
        }
        if let Some(expressions) = &changes.expressions {
            let items: Vec<Value> = expressions.iter().map(|e| Value::String(e.clone())).collect();
            self.expressions = self::expressions(Some(&Value::Array(items)))?;
        }
        if let Some(capture) = changes.capture {
            if let Some(limits) = capture {
                check_capture(&limits)?;
            }
            self.capture = capture;
        }
        if let Some(max_hits) = changes.max_hits {
            if let Some(n) = max_hits.filter(|n| !(1..=MAX_HITS_CEILING).contains(n)) {
                return Err(refuse(
                    "invalid_max_hits",
                    format!("\"max_hits\" is a whole number from 1 to {MAX_HITS_CEILING}, not {n}"),
                ));
            }
            self.limits.max_hits = max_hits;
        }
        if let Some(expires_in) = changes.expires_in {
            self.limits.expires_at = match expires_in {
                None => None,
                Some(seconds) => Some(now + duration(&Value::from(seconds))?),
            };
        }
        if let Some(rate) = changes.max_per_second {
            if let Some(rate) = rate.filter(|r| !per_second_ok(*r)) {
                return Err(bad_per_second(rate));
            }
            self.limits.max_per_second = rate;
        }
        if let Some(where_labels) = &changes.where_labels {
            if let Some((k, v)) = where_labels.iter().find(|(k, v)| !valid_label(k) || v.is_empty()) {
                return Err(bad_label(k, &Value::String(v.clone())));
            }
            self.limits.where_labels = where_labels.clone();
        }
        if self.action == BreakpointAction::Snapshot && fresh {
            self.limits.max_hits = self.limits.max_hits.or(Some(1));
            if changes.expires_in.is_none() {
                self.limits.expires_at = Some(now + DEFAULT_SNAPSHOT_EXPIRY_S);
            }
        }
        if self.action != BreakpointAction::Snapshot {
            if !self.expressions.is_empty() || self.capture.is_some() {
                return Err(refuse(
                    "snapshot_only_field",
                    "\"expressions\" and \"capture\" are for snapshot breakpoints (\"action\": \"snapshot\")",
                ));
            }
            if self.action == BreakpointAction::Pause
                && (self.limits.max_hits.is_some() || self.limits.max_per_second.is_some())
            {
                return Err(refuse(
                    "snapshot_only_field",
                    "\"max_hits\" and \"max_per_second\" bound snapshots and logpoints, not pausing breakpoints",
                ));
            }
        }
        Ok(())
    }
}

/// Capture limits built in Rust: each within its ceiling.
fn check_capture(limits: &CaptureLimits) -> Result<(), SpecError> {
    let given = [limits.frames, limits.depth, limits.items, limits.string_bytes, limits.total_bytes, limits.rich_bytes];
    for ((name, least, ceiling), n) in CAPTURE_BOUNDS.into_iter().zip(given) {
        if !(least..=ceiling).contains(&n) {
            return Err(refuse(
                "invalid_capture",
                format!("{name:?} is a whole number from {least} to {ceiling}, not {n}"),
            ));
        }
    }
    Ok(())
}

fn expressions(value: Option<&Value>) -> Result<Vec<String>, SpecError> {
    let items = match value {
        None | Some(Value::Null) => return Ok(vec![]),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(refuse("invalid_expressions", format!("\"expressions\" is a list of strings, not {other}")))
        }
    };
    if items.len() > MAX_EXPRESSIONS {
        return Err(refuse(
            "invalid_expressions",
            format!("at most {MAX_EXPRESSIONS} expressions, not {}", items.len()),
        ));
    }
    items
        .iter()
        .map(|item| match item.as_str().map(str::trim) {
            Some(e) if !e.is_empty() && e.chars().count() <= MAX_EXPRESSION_CHARS => Ok(e.to_string()),
            Some(e) if !e.is_empty() => Err(refuse(
                "invalid_expressions",
                format!("an expression is at most {MAX_EXPRESSION_CHARS} characters"),
            )),
            _ => Err(refuse("invalid_expressions", format!("expressions are non-empty strings, not {item}"))),
        })
        .collect()
}

fn capture(value: Option<&Value>) -> Result<Option<CaptureLimits>, SpecError> {
    let obj = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(obj)) => obj,
        Some(other) => return Err(refuse("invalid_capture", format!("\"capture\" is an object, not {other}"))),
    };
    if let Some(key) = obj.keys().find(|k| !CAPTURE_BOUNDS.iter().any(|(name, _, _)| name == k)) {
        let known: Vec<&str> = CAPTURE_BOUNDS.iter().map(|(n, _, _)| *n).collect();
        return Err(refuse("invalid_capture", format!("capture has no {key:?} (it has {})", known.join(", "))));
    }
    let mut limits = CaptureLimits::default();
    for (name, least, ceiling) in CAPTURE_BOUNDS {
        let Some(n) = whole_number(obj.get(name), name, u64::from(least), u64::from(ceiling))? else { continue };
        let n = n as u32; // at most the ceiling
        match name {
            "frames" => limits.frames = n,
            "depth" => limits.depth = n,
            "items" => limits.items = n,
            "string_bytes" => limits.string_bytes = n,
            "total_bytes" => limits.total_bytes = n,
            _ => limits.rich_bytes = n,
        }
    }
    Ok(Some(limits))
}

fn whole_number(value: Option<&Value>, name: &str, min: u64, max: u64) -> Result<Option<u64>, SpecError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) if n.as_u64().is_some_and(|n| (min..=max).contains(&n)) => Ok(n.as_u64()),
        Some(other) => Err(refuse(
            if name == "max_hits" { "invalid_max_hits" } else { "invalid_capture" },
            format!("{name:?} is a whole number from {min} to {max}, not {other}"),
        )),
    }
}

/// `expires_in`: seconds, or `90s`, `30m`, `1h`, `2d`.
fn duration(value: &Value) -> Result<f64, SpecError> {
    let bad = || {
        refuse(
            "invalid_expires_in",
            format!("\"expires_in\" is seconds or a duration like 90s, 30m, 1h, 2d (at most 30 days), not {value}"),
        )
    };
    let seconds = match value {
        Value::Number(n) => n.as_f64().ok_or_else(bad)?,
        Value::String(s) => parse_duration(s).ok_or_else(bad)?,
        _ => return Err(bad()),
    };
    if !(seconds > 0.0 && seconds <= MAX_EXPIRY_S) {
        return Err(bad());
    }
    Ok(seconds)
}

/// `90s`, `30m`, `1h`, `2d`, or plain seconds; None when it is none of those.
pub fn parse_duration(text: &str) -> Option<f64> {
    let t = text.trim();
    let (digits, unit) = match t.char_indices().find(|(_, c)| !(c.is_ascii_digit() || *c == '.')) {
        Some((i, _)) => (&t[..i], t[i..].trim()),
        None => (t, "s"),
    };
    let n: f64 = digits.parse().ok().filter(|n: &f64| n.is_finite())?;
    let scale = match unit {
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        "d" => 86400.0,
        _ => return None,
    };
    Some(n * scale)
}

fn labels(value: Option<&Value>) -> Result<BTreeMap<String, String>, SpecError> {
    let obj = match value {
        None | Some(Value::Null) => return Ok(BTreeMap::new()),
        Some(Value::Object(obj)) => obj,
        Some(other) => {
            return Err(refuse("invalid_where", format!("\"where\" is an object of label → value, not {other}")))
        }
    };
    obj.iter()
        .map(|(k, v)| match v.as_str() {
            Some(text) if valid_label(k) && !text.is_empty() => Ok((k.clone(), text.to_string())),
            _ => Err(bad_label(k, v)),
        })
        .collect()
}

fn bad_label(k: &str, v: &Value) -> SpecError {
    refuse(
        "invalid_where",
        format!("\"where\" labels are names (letters, digits, . _ -) with non-empty text values, not {k:?}: {v}"),
    )
}

/// A label's name: what `BREAKROOM_LABELS` and `--label` accept.
pub fn valid_label(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 63
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn applied(body: Value) -> Result<Policy, &'static str> {
        let obj = body.as_object().cloned().unwrap_or_default();
        let has_log = obj.get("log_message").is_some_and(|v| v.as_str().is_some_and(|s| !s.is_empty()));
        let mut policy = Policy::default();
        let changes = PolicyChanges::read(&obj).map_err(|e| e.code)?;
        policy.apply(&changes, has_log, 1000.0, true).map(|_| policy).map_err(|e| e.code)
    }

    #[test]
    fn a_snapshot_gets_one_hit_and_a_day_by_default() {
        let p = applied(json!({"action": "snapshot", "expressions": ["len(x)"]})).unwrap();
        assert_eq!(p.action, BreakpointAction::Snapshot);
        assert_eq!(p.limits.max_hits, Some(1));
        assert_eq!(p.limits.expires_at, Some(1000.0 + DEFAULT_SNAPSHOT_EXPIRY_S));
        assert_eq!(applied(json!({"log_message": "x={x}"})).unwrap().action, BreakpointAction::Log);
        assert_eq!(applied(json!({})).unwrap().action, BreakpointAction::Pause);
    }

    #[test]
    fn bad_policy_fields_are_named() {
        assert_eq!(applied(json!({"action": "stop"})).err(), Some("invalid_action"));
        assert_eq!(applied(json!({"action": "log"})).err(), Some("missing_log_message"));
        assert_eq!(applied(json!({"action": "snapshot", "max_hits": 1001})).err(), Some("invalid_max_hits"));
        assert_eq!(applied(json!({"action": "snapshot", "max_hits": 0})).err(), Some("invalid_max_hits"));
        assert_eq!(applied(json!({"action": "snapshot", "expires_in": "soon"})).err(), Some("invalid_expires_in"));
        assert_eq!(applied(json!({"action": "snapshot", "expires_in": "31d"})).err(), Some("invalid_expires_in"));
        assert_eq!(applied(json!({"action": "snapshot", "capture": {"frames": 51}})).err(), Some("invalid_capture"));
        assert_eq!(applied(json!({"action": "snapshot", "capture": {"lines": 5}})).err(), Some("invalid_capture"));
        assert_eq!(applied(json!({"action": "snapshot", "where": {"a": 1}})).err(), Some("invalid_where"));
        assert_eq!(applied(json!({"expressions": ["x"]})).err(), Some("snapshot_only_field"));
        assert_eq!(applied(json!({"max_hits": 3})).err(), Some("snapshot_only_field"));
        assert_eq!(applied(json!({"action": "snapshot", "max_per_second": 0})).err(), Some("invalid_max_per_second"));
        let many: Vec<String> = (0..21).map(|i| format!("x{i}")).collect();
        assert_eq!(applied(json!({"action": "snapshot", "expressions": many})).err(), Some("invalid_expressions"));
    }

    #[test]
    fn durations_read_units() {
        assert_eq!(parse_duration("90s"), Some(90.0));
        assert_eq!(parse_duration("30m"), Some(1800.0));
        assert_eq!(parse_duration("1h"), Some(3600.0));
        assert_eq!(parse_duration("2d"), Some(172800.0));
        assert_eq!(parse_duration("15"), Some(15.0));
        assert_eq!(parse_duration("1w"), None);
    }

    #[test]
    fn state_follows_hits_then_expiry_and_where_needs_every_label() {
        let limits = HitLimits {
            max_hits: Some(2),
            expires_at: Some(50.0),
            where_labels: [("service".to_string(), "api".to_string())].into(),
            ..Default::default()
        };
        let tally = |captured| HitTally { captured, ..Default::default() };
        assert_eq!(limits.state(&tally(1), 10.0), BreakpointState::Active);
        assert_eq!(limits.state(&tally(2), 10.0), BreakpointState::Completed);
        assert_eq!(limits.state(&tally(0), 60.0), BreakpointState::Expired);
        let labels = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert!(limits.arms_in(&labels(&[("service", "api"), ("env", "prod")])));
        assert!(!limits.arms_in(&labels(&[("service", "web")])));
        assert!(!limits.arms_in(&labels(&[])));
    }
}
