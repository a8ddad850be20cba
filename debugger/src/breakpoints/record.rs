//! Breakpoints of every kind as the server's records (issue 18): `function`, `line` and `error`,
//! each with a condition, hit condition, pattern, log message, `enabled` and a hit count. The
//! REST body is checked here, so every bad field gets its own 400 code and message.
//!
//! Built for the browser too (the breakpoints panel shows these records); the checks that need
//! the regex engine only with `runtime`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::breakpoints::policy::{
    BreakpointAction, BreakpointState, CaptureLimits, HitLimits, HitTally, Policy, PolicyChanges, POLICY_FIELDS,
};

/// Which arrival pauses: a call of a function, a line reached, an exception not caught.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakpointKind {
    Function,
    Line,
    Error,
}

impl BreakpointKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Function => "function",
            Self::Line => "line",
            Self::Error => "error",
        }
    }
}

/// One breakpoint, as `GET /api/breakpoints` lists it (`items`) and the clients receive it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BreakpointRecord {
    /// `bp-N`.
    pub id: String,
    pub kind: BreakpointKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Error breakpoints: only these exception types (qualified or bare names); empty: any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exception_types: Vec<String>,
    /// A Python expression evaluated in the frame: pause only when true.
    #[serde(default)]
    pub condition: Option<String>,
    /// `5` (the 5th hit), `>= 5`, `> 5`, `<= 5`, `< 5`, `== 5`, `% 10` (every 10th).
    #[serde(default)]
    pub hit_condition: Option<String>,
    /// A regex searched in the repr of the call's arguments.
    #[serde(default)]
    pub pattern: Option<String>,
    /// A logpoint: `{expr}` parts are interpolated in the frame; it logs instead of pausing.
    #[serde(default)]
    pub log_message: Option<String>,
    /// What a hit does: pause, log, or take a snapshot (issue 34).
    #[serde(default)]
    pub action: BreakpointAction,
    /// A snapshot's watch expressions, evaluated at the hit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expressions: Vec<String>,
    /// How much a snapshot captures (the defaults when not given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<CaptureLimits>,
    #[serde(flatten)]
    pub limits: HitLimits,
    #[serde(flatten)]
    pub tally: HitTally,
    /// Whether it still arms (computed when listed).
    #[serde(default)]
    pub state: BreakpointState,
    /// The processes following the breakpoints whose labels match `where` (computed when
    /// listed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub armed_in: Vec<String>,
    pub enabled: bool,
    /// Arrivals that passed the condition and pattern (what the hit condition counts).
    #[serde(default)]
    pub hit_count: u64,
    /// The latest hit or log as reported: why it matched, a condition's error, a message.
    #[serde(default)]
    pub last_hit: Option<Value>,
    pub created_at: f64,
    /// Running processes this breakpoint cannot reach, and why (an unchanged cideldill client
    /// knows only function breakpoints). Computed when listed, not stored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused_by: Vec<Refusal>,
}

/// A running process that cannot take a breakpoint.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Refusal {
    pub process_key: String,
    pub reason: String,
}

/// A hit condition, parsed: `op n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HitCondition {
    op: HitOp,
    n: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HitOp {
    Eq,
    Ge,
    Gt,
    Le,
    Lt,
    Every,
}

impl HitCondition {
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = || format!("hit condition {text:?}: expected N, == N, >= N, > N, <= N, < N or % N");
        let t = text.trim();
        let (op, rest) = [
            ("==", HitOp::Eq),
            (">=", HitOp::Ge),
            ("<=", HitOp::Le),
            (">", HitOp::Gt),
            ("<", HitOp::Lt),
            ("%", HitOp::Every),
        ]
        .into_iter()
        .find_map(|(p, op)| t.strip_prefix(p).map(|rest| (op, rest)))
        .unwrap_or((HitOp::Eq, t));
        let digits = rest.trim();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let n: u64 = digits.parse().map_err(|_| bad())?;
        if op == HitOp::Every && n == 0 {
            return Err("hit condition '% 0': every 0th hit means nothing".into());
        }
        Ok(HitCondition { op, n })
    }

    pub fn holds(self, hits: u64) -> bool {
        let n = self.n;
        match self.op {
            HitOp::Eq => hits == n,
            HitOp::Ge => hits >= n,
            HitOp::Gt => hits > n,
            HitOp::Le => hits <= n,
            HitOp::Lt => hits < n,
            HitOp::Every => hits % n == 0,
        }
    }
}

/// Why a breakpoint body was refused: a code for the 400 and a message naming the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    pub code: &'static str,
    pub message: String,
}

fn refuse(code: &'static str, message: impl Into<String>) -> SpecError {
    SpecError { code, message: message.into() }
}

/// The options every kind has; `PATCH` changes only these.
pub const OPTION_FIELDS: [&str; 5] = ["condition", "hit_condition", "pattern", "log_message", "enabled"];

/// A new breakpoint of any kind: what `POST /api/breakpoints` takes (with `kind`), and what the
/// pages, MCP and DAP build. Read by hand (`Deserialize` below) so every bad field gets its own
/// 400 code; what one field cannot say alone (a line breakpoint's line) is checked when the record
/// is made (`BreakpointRecord::from_spec`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BreakpointSpec {
    pub kind: BreakpointKind,
    /// `function`: the function's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function_name: Option<String>,
    /// `line`: the file (as the program names it, or absolute).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// `line`: from 1; a line without code moves to the next line with code.
    #[cfg_attr(feature = "openapi", schema(minimum = 1))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// `error`: only these exception types; empty or missing: any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exception_types: Vec<String>,
    #[serde(flatten)]
    pub options: BreakpointOptions,
}

impl BreakpointSpec {
    fn of(kind: BreakpointKind) -> Self {
        BreakpointSpec {
            kind,
            function_name: None,
            file: None,
            line: None,
            exception_types: vec![],
            options: BreakpointOptions::default(),
        }
    }

    /// A function breakpoint on `name`.
    pub fn function(name: impl Into<String>) -> Self {
        BreakpointSpec { function_name: Some(name.into()), ..Self::of(BreakpointKind::Function) }
    }

    /// A line breakpoint at `line` of `file`.
    pub fn line(file: impl Into<String>, line: u32) -> Self {
        BreakpointSpec { file: Some(file.into()), line: Some(line), ..Self::of(BreakpointKind::Line) }
    }

    /// An error breakpoint on these exception types (none: any).
    pub fn error(exception_types: Vec<String>) -> Self {
        BreakpointSpec { exception_types, ..Self::of(BreakpointKind::Error) }
    }

    pub fn with(mut self, options: BreakpointOptions) -> Self {
        self.options = options;
        self
    }

    /// A body, checked field by field.
    fn read(body: &Value) -> Result<Self, SpecError> {
        let obj = body.as_object().ok_or_else(|| refuse("invalid_breakpoint", "a breakpoint is a JSON object"))?;
        let kind = match obj.get("kind").and_then(Value::as_str) {
            Some("function") => BreakpointKind::Function,
            Some("line") => BreakpointKind::Line,
            Some("error") => BreakpointKind::Error,
            _ => {
                return Err(refuse(
                    "invalid_kind",
                    format!("kind must be \"function\", \"line\" or \"error\", not {}", shown(obj.get("kind"))),
                ))
            }
        };
        // Text fields of the other kinds are ignored, but never of another type.
        let function_name = non_empty_text(obj, "function_name")?;
        let file = non_empty_text(obj, "file")?;
        let mut spec = Self::of(kind);
        match kind {
            BreakpointKind::Function => spec.function_name = function_name,
            BreakpointKind::Line => {
                spec.file = file;
                spec.line = match obj.get("line") {
                    None | Some(Value::Null) => None,
                    Some(value) => Some(
                        value
                            .as_i64()
                            .and_then(|n| u32::try_from(n).ok())
                            .filter(|n| *n >= 1)
                            .ok_or_else(|| bad_line(Some(value)))?,
                    ),
                };
            }
            BreakpointKind::Error => {
                spec.exception_types = match obj.get("exception_types") {
                    None | Some(Value::Null) => vec![],
                    Some(Value::Array(items)) => items
                        .iter()
                        .map(|t| match t.as_str().map(str::trim) {
                            Some(name) if !name.is_empty() => Ok(name.to_string()),
                            _ => Err(refuse(
                                "invalid_exception_types",
                                format!("exception type names are non-empty strings, not {t}"),
                            )),
                        })
                        .collect::<Result<_, _>>()?,
                    Some(other) => {
                        return Err(refuse(
                            "invalid_exception_types",
                            format!("\"exception_types\" is a list of names, not {other}"),
                        ))
                    }
                };
            }
        }
        spec.options = BreakpointOptions::read(obj)?;
        Ok(spec)
    }
}

fn bad_line(value: Option<&Value>) -> SpecError {
    refuse("invalid_line", format!("\"line\" must be a whole number from 1, not {}", shown(value)))
}

/// The options every kind has, each absent (left as it is), `Some(None)` (null: cleared) or set.
/// A new breakpoint takes them beside its kind; `PATCH` takes only these (`BreakpointPatch`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BreakpointOptions {
    /// A Python expression evaluated in the frame: pause only when it is true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<Option<String>>,
    /// `5` (the 5th hit), `>= 5`, `> 5`, `<= 5`, `< 5`, `== 5`, `% 10` (every 10th).
    #[cfg_attr(feature = "openapi", schema(pattern = "^\\s*(==|>=|<=|>|<|%)?\\s*[0-9]+\\s*$"))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hit_condition: Option<Option<String>>,
    /// A regular expression searched in the repr of the call's arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<Option<String>>,
    /// Makes it a logpoint: `{expr}` parts are interpolated in the frame, nothing pauses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_message: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(flatten)]
    pub policy: PolicyChanges,
}

impl BreakpointOptions {
    fn read(obj: &Map<String, Value>) -> Result<Self, SpecError> {
        let text = |key: &'static str| -> Result<Option<Option<String>>, SpecError> {
            if obj.contains_key(key) {
                Ok(Some(non_empty_text(obj, key)?))
            } else {
                Ok(None)
            }
        };
        Ok(BreakpointOptions {
            condition: text("condition")?,
            hit_condition: match obj.get("hit_condition") {
                Some(Value::Number(n)) => Some(Some(n.to_string())),
                _ => text("hit_condition")?,
            },
            pattern: text("pattern")?,
            log_message: text("log_message")?,
            enabled: match obj.get("enabled") {
                None => None,
                Some(Value::Bool(b)) => Some(*b),
                Some(other) => {
                    return Err(refuse("invalid_enabled", format!("\"enabled\" is true or false, not {other}")))
                }
            },
            policy: PolicyChanges::read(obj)?,
        })
    }
}

/// `PATCH /api/breakpoints/{id}`: the options to change. What a breakpoint is on (kind,
/// function, file, line) does not change (`immutable_field`): remove it and add another.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BreakpointPatch {
    #[serde(flatten)]
    pub options: BreakpointOptions,
}

impl BreakpointPatch {
    /// Only `enabled`.
    pub fn enabled(enabled: bool) -> Self {
        BreakpointPatch { options: BreakpointOptions { enabled: Some(enabled), ..Default::default() } }
    }

    /// A body, checked field by field.
    fn read(changes: &Value) -> Result<Self, SpecError> {
        let obj = changes.as_object().ok_or_else(|| refuse("invalid_breakpoint", "changes are a JSON object"))?;
        let changeable = |k: &str| OPTION_FIELDS.contains(&k) || POLICY_FIELDS.contains(&k) || k == "id";
        if let Some(key) = obj.keys().find(|k| !changeable(k)) {
            return Err(refuse(
                "immutable_field",
                format!(
                    "{key:?} cannot be changed (only {}, {}): remove the breakpoint and add another",
                    OPTION_FIELDS.join(", "),
                    POLICY_FIELDS.join(", ")
                ),
            ));
        }
        Ok(BreakpointPatch { options: BreakpointOptions::read(obj)? })
    }
}

/// serde's door to [`BreakpointSpec::read`]: the field's code goes with the error (`wire`).
impl<'de> Deserialize<'de> for BreakpointSpec {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        BreakpointSpec::read(&Value::deserialize(de)?).map_err(SpecError::into_serde)
    }
}

/// The options of a body, other fields left aside (the tools that set the kind themselves).
impl<'de> Deserialize<'de> for BreakpointOptions {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let body = Map::<String, Value>::deserialize(de)?;
        BreakpointOptions::read(&body).map_err(SpecError::into_serde)
    }
}

/// serde's door to [`BreakpointPatch::read`].
impl<'de> Deserialize<'de> for BreakpointPatch {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        BreakpointPatch::read(&Value::deserialize(de)?).map_err(SpecError::into_serde)
    }
}

impl SpecError {
    /// As serde's error, with the code (`wire::refuse`).
    pub fn into_serde<E: serde::de::Error>(self) -> E {
        crate::wire::refuse(self.code, self.message)
    }
}

impl BreakpointRecord {
    /// A line breakpoint at `line` of `file` (the same file named by a longer or shorter path,
    /// as the program matches it: `app.py` is `/srv/app.py`).
    pub fn is_line_at(&self, file: &str, line: u32) -> bool {
        self.kind == BreakpointKind::Line
            && self.line == Some(line)
            && self.file.as_deref().is_some_and(|f| same_file(f, file))
    }

    /// A new record from a spec: what each kind needs, then the options.
    pub fn from_spec(id: String, spec: &BreakpointSpec, now: f64) -> Result<Self, SpecError> {
        let kind = spec.kind;
        let mut record = BreakpointRecord {
            id,
            kind,
            function_name: None,
            file: None,
            line: None,
            exception_types: vec![],
            condition: None,
            hit_condition: None,
            pattern: None,
            log_message: None,
            action: BreakpointAction::Pause,
            expressions: vec![],
            capture: None,
            limits: HitLimits::default(),
            tally: HitTally::default(),
            state: BreakpointState::Active,
            armed_in: vec![],
            enabled: true,
            hit_count: 0,
            last_hit: None,
            created_at: now,
            refused_by: vec![],
        };
        let text = |t: &Option<String>| t.as_ref().filter(|t| !t.trim().is_empty()).cloned();
        match kind {
            BreakpointKind::Function => {
                let name = text(&spec.function_name)
                    .ok_or_else(|| refuse("missing_function_name", "a function breakpoint needs \"function_name\""))?;
                record.function_name = Some(name);
            }
            BreakpointKind::Line => {
                let file = text(&spec.file)
                    .ok_or_else(|| refuse("empty_file", "a line breakpoint needs a non-empty \"file\""))?;
                let line = spec.line.filter(|n| *n >= 1).ok_or_else(|| match spec.line {
                    Some(n) => bad_line(Some(&Value::from(n))),
                    None => bad_line(None),
                })?;
                record.file = Some(file);
                record.line = Some(line);
            }
            BreakpointKind::Error => {
                let names: Vec<String> = spec.exception_types.iter().map(|t| t.trim().to_string()).collect();
                if let Some(empty) = spec.exception_types.iter().find(|t| t.trim().is_empty()) {
                    return Err(refuse(
                        "invalid_exception_types",
                        format!("exception type names are non-empty strings, not {empty:?}"),
                    ));
                }
                record.exception_types = names;
            }
        }
        record.apply(&spec.options, now, true)?;
        Ok(record)
    }

    /// A `PATCH`: the options given (null clears one).
    pub fn patched(&self, changes: &BreakpointPatch, now: f64) -> Result<Self, SpecError> {
        let mut next = self.clone();
        next.apply(&changes.options, now, false)?;
        Ok(next)
    }

    fn apply(&mut self, options: &BreakpointOptions, now: f64, fresh: bool) -> Result<(), SpecError> {
        let text = |t: &Option<String>| t.as_ref().filter(|t| !t.trim().is_empty()).cloned();
        if let Some(condition) = &options.condition {
            self.condition = text(condition);
        }
        if let Some(hit_condition) = &options.hit_condition {
            self.hit_condition = text(hit_condition);
            if let Some(text) = &self.hit_condition {
                HitCondition::parse(text).map_err(|m| refuse("invalid_hit_condition", m))?;
            }
        }
        if let Some(pattern) = &options.pattern {
            self.pattern = text(pattern);
            #[cfg(feature = "runtime")]
            if let Some(p) = &self.pattern {
                fancy_regex::Regex::new(p).map_err(|e| {
                    refuse("invalid_pattern", format!("pattern {p:?} is not a regular expression: {e}"))
                })?;
            }
        }
        if let Some(log_message) = &options.log_message {
            self.log_message = text(log_message);
        }
        if let Some(enabled) = options.enabled {
            self.enabled = enabled;
        }
        let mut policy = Policy {
            action: self.action,
            expressions: std::mem::take(&mut self.expressions),
            capture: self.capture.take(),
            limits: std::mem::take(&mut self.limits),
        };
        policy.apply(&options.policy, self.log_message.is_some(), now, fresh)?;
        (self.action, self.expressions, self.capture, self.limits) =
            (policy.action, policy.expressions, policy.capture, policy.limits);
        Ok(())
    }

    /// Where it is, for lists and the CLI: `compute`, `app.py:12`, `error ValueError`.
    pub fn location(&self) -> String {
        match self.kind {
            BreakpointKind::Function => self.function_name.clone().unwrap_or_default(),
            BreakpointKind::Line => format!("{}:{}", self.file.as_deref().unwrap_or("?"), self.line.unwrap_or(0)),
            BreakpointKind::Error if self.exception_types.is_empty() => "any exception".into(),
            BreakpointKind::Error => self.exception_types.join(", "),
        }
    }
}

fn shown(value: Option<&Value>) -> String {
    value.map_or_else(|| "nothing".into(), Value::to_string)
}

/// A text field: a string, or null / blank for none; any other type is refused.
fn non_empty_text(obj: &Map<String, Value>, key: &'static str) -> Result<Option<String>, SpecError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
        Some(Value::String(_)) => Ok(None),
        Some(other) => Err(refuse("invalid_field", format!("{key:?} is a string, not {other}"))),
    }
}

/// Whether a breakpoint's `pattern` finds a match in `text` (Python `re.search`). A pattern
/// that does not compile, or runs past the backtracking limit, matches nothing.
#[cfg(feature = "runtime")]
pub fn pattern_matches(pattern: &str, text: &str) -> bool {
    fancy_regex::Regex::new(pattern).is_ok_and(|re| re.is_match(text).unwrap_or(false))
}

/// Whether two paths name the same file: equal, or one ends with the other at a `/`.
pub fn same_file(a: &str, b: &str) -> bool {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    !short.is_empty()
        && long.ends_with(short)
        && (long.len() == short.len() || long[..long.len() - short.len()].ends_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hit_conditions_parse_and_count() {
        assert!(HitCondition::parse("5").unwrap().holds(5));
        assert!(!HitCondition::parse("5").unwrap().holds(6));
        assert!(HitCondition::parse(">= 3").unwrap().holds(4));
        assert!(HitCondition::parse("% 10").unwrap().holds(20));
        assert!(!HitCondition::parse("%10").unwrap().holds(15));
        assert!(HitCondition::parse("% 0").is_err());
        assert!(HitCondition::parse("often").is_err());
        assert!(HitCondition::parse("").is_err());
    }

    #[test]
    fn bodies_are_checked_field_by_field() {
        let code = |body: Value| {
            let spec = BreakpointSpec::read(&body);
            spec.and_then(|spec| BreakpointRecord::from_spec("bp-1".into(), &spec, 0.0)).err().map(|e| e.code)
        };
        assert_eq!(code(json!({"kind": "line", "file": "a.py", "line": 0})), Some("invalid_line"));
        assert_eq!(code(json!({"kind": "line", "file": " ", "line": 3})), Some("empty_file"));
        assert_eq!(code(json!({"kind": "loop"})), Some("invalid_kind"));
        assert_eq!(
            code(json!({"kind": "function", "function_name": "f", "hit_condition": "x"})),
            Some("invalid_hit_condition")
        );
        assert_eq!(code(json!({"kind": "function", "function_name": "f", "pattern": "("})), Some("invalid_pattern"));
        // Python's look-around and backreferences are patterns too.
        assert_eq!(code(json!({"kind": "function", "function_name": "f", "pattern": r"(?<!admin)user=(\w)\1"})), None);
        assert_eq!(code(json!({"kind": "error", "exception_types": [1]})), Some("invalid_exception_types"));
        assert_eq!(code(json!({"kind": "function", "function_name": "f", "hit_condition": 5})), None);
    }

    #[cfg(feature = "runtime")]
    #[test]
    fn patterns_search_like_python_re() {
        assert!(pattern_matches(r"user=(?!root)\w+", "a=1, user=bob"));
        assert!(!pattern_matches(r"user=(?!root)", "user=root"));
        assert!(pattern_matches(r"(\d)\1", "n=33"));
        assert!(!pattern_matches("(", "anything"), "a broken pattern matches nothing");
    }

    #[test]
    fn a_file_is_the_same_by_a_longer_or_shorter_path_at_a_slash() {
        assert!(same_file("/srv/app.py", "app.py"));
        assert!(same_file("srv/app.py", "/srv/app.py"));
        assert!(same_file("/srv/app.py", "/srv/app.py"));
        assert!(!same_file("/srv/myapp.py", "app.py"), "not in the middle of a name");
        assert!(!same_file("/srv/app.py", ""));
    }
}
