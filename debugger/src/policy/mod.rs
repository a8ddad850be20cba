//! What never leaves a debugged program (issue 50): redaction rules on names and values, and
//! places that are not debugged (`--no-debug`). The server holds one [`Policy`]; programs receive
//! it over the breakpoint channel ([`Policy::wire`]) and apply it before anything is sent, and the
//! server applies the value rules again ([`Policy::redact_text`]) to what it keeps from a client
//! that does not redact (an unchanged cideldill client, an older Breakroom client).
//!
//! Rules are written in the regex dialect Rust, Python and JavaScript share: no inline flags, no
//! look-around, no named groups. Name rules always match case-insensitively, anywhere in a name.

mod glob;

use regex::Regex;
use serde::Serialize;

use crate::error::{Error, Result};

pub use glob::NoDebug;

/// What a redacted value shows instead.
pub const REDACTED: &str = "[redacted]";

/// The default name rules (case-insensitive, anywhere in the name). The Python and JavaScript
/// clients hold the same list: `client/tests/test_redaction.py` compares them with `/api/policy`.
pub const DEFAULT_NAMES: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "token",
    "api_?key",
    "auth",
    "credential",
    "private_?key",
    "cookie",
    "session_?id",
    "ssn",
];

/// The default value rules, matched anywhere inside a string. Card numbers are a rule of their
/// own ([`CARD_NUMBER`]): a match only counts when it passes the Luhn check.
pub const DEFAULT_VALUES: &[&str] = &[
    // JWT: base64url header and payload (both JSON objects, so `eyJ`), and a signature.
    r"eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*",
    // AWS access key ids.
    r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b",
    // PEM private key blocks, whole.
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    // `Bearer …` credentials.
    r"\bBearer\s+[A-Za-z0-9._~+/=-]+",
];

/// What each default value rule cannot match without: a cheap substring test first (the
/// regexes cost microseconds per hundred characters, and most text holds none of these). The
/// Python and JavaScript clients hold the same hints.
const DEFAULT_HINTS: &[&[&str]] = &[
    &["eyJ"],
    &["AKIA", "ASIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"],
    &["-----BEGIN"],
    &["Bearer"],
];

/// Payment card numbers: 13 to 19 digits, maybe grouped by spaces or dashes; Luhn-checked.
pub const CARD_NUMBER: &str = r"\b\d(?:[ -]?\d){12,18}\b";

/// `KEY=value`, `key: value`, `'key': 'value'`: a name followed by its value in text (an
/// environment block, a dict's or a dataclass's repr). The value is redacted when the name matches.
pub const KEY_VALUE: &str = r#"([A-Za-z_][A-Za-z0-9_.-]*)(['"]?)(\s*[=:]\s*)('[^']*'|"[^"]*"|[^\s,;&)}\]]+)"#;

/// The rules in force on a server.
#[derive(Clone, Debug)]
pub struct Policy {
    names: Vec<String>,
    values: Vec<String>,
    cards: bool,
    no_debug: NoDebug,
    name_re: Option<Regex>,
    /// Each value rule, with the substrings it cannot match without (a default's), if known.
    value_res: Vec<(Regex, Option<&'static [&'static str]>)>,
    card_re: Regex,
    key_value: Regex,
}

impl Default for Policy {
    fn default() -> Self {
        // The built-in rules are constants checked by this module's tests.
        Policy::new(true, &[], &[], &[]).unwrap_or_else(|_| Policy::empty())
    }
}

/// The rules as programs and viewers receive them (`/api/policy`, the breakpoint channel).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PolicyWire {
    /// Name rules in force (defaults first, then `--redact-names`), case-insensitive.
    pub names: Vec<String>,
    /// Value rules in force (defaults first, then `--redact-values`).
    pub values: Vec<String>,
    /// Whether card numbers (Luhn-checked) are redacted: the defaults are on.
    pub cards: bool,
    /// `--no-debug` rules: file path globs (`*` crosses `/`) or module names.
    pub no_debug: Vec<String>,
}

impl Policy {
    fn empty() -> Self {
        Policy {
            names: Vec::new(),
            values: Vec::new(),
            cards: false,
            no_debug: NoDebug::default(),
            name_re: None,
            value_res: Vec::new(),
            card_re: Regex::new(CARD_NUMBER).unwrap_or_else(|_| unreachable!("CARD_NUMBER is a checked constant")),
            key_value: Regex::new(KEY_VALUE).unwrap_or_else(|_| unreachable!("KEY_VALUE is a checked constant")),
        }
    }

    /// The defaults (unless `defaults` is false) and the user's rules. A rule that is not in the
    /// shared dialect is refused with `invalid_rule`, naming it.
    pub fn new(defaults: bool, names: &[String], values: &[String], no_debug: &[String]) -> Result<Self> {
        let mut policy = Policy::empty();
        let builtin = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        if defaults {
            policy.names = builtin(DEFAULT_NAMES);
            policy.values = builtin(DEFAULT_VALUES);
            policy.cards = true;
        }
        for rule in split_rules(names) {
            check_rule("--redact-names", &rule)?;
            policy.names.push(rule);
        }
        for rule in split_rules(values) {
            check_rule("--redact-values", &rule)?;
            policy.values.push(rule);
        }
        if !policy.names.is_empty() {
            let joined = policy.names.iter().map(|r| format!("(?:{r})")).collect::<Vec<_>>().join("|");
            policy.name_re = Some(
                Regex::new(&format!("(?i){joined}"))
                    .map_err(|e| Error::invalid("invalid_rule", format!("name rules do not combine: {e}")))?,
            );
        }
        policy.value_res = policy
            .values
            .iter()
            .map(|r| {
                let hint = DEFAULT_VALUES.iter().position(|d| d == r).and_then(|i| DEFAULT_HINTS.get(i).copied());
                Regex::new(r)
                    .map(|re| (re, hint))
                    .map_err(|e| Error::invalid("invalid_rule", format!("value rule {r:?}: {e}")))
            })
            .collect::<Result<_>>()?;
        policy.no_debug = NoDebug::new(no_debug)?;
        Ok(policy)
    }

    pub fn wire(&self) -> PolicyWire {
        PolicyWire {
            names: self.names.clone(),
            values: self.values.clone(),
            cards: self.cards,
            no_debug: self.no_debug.rules().to_vec(),
        }
    }

    /// Whether a name (a local, an argument, a key, an attribute) is a secret's.
    pub fn name_matches(&self, name: &str) -> bool {
        self.name_re.as_ref().is_some_and(|re| re.is_match(name))
    }

    /// `text` with every secret in it replaced by [`REDACTED`], and how many were.
    pub fn redact_text(&self, text: &str) -> (String, usize) {
        let mut out = std::borrow::Cow::Borrowed(text);
        let mut count = 0;
        for (re, hint) in &self.value_res {
            if hint.is_some_and(|h| !h.iter().any(|s| out.contains(s))) {
                continue;
            }
            if re.is_match(&out) {
                let replaced = re.replace_all(&out, |_: &regex::Captures| {
                    count += 1;
                    REDACTED
                });
                out = std::borrow::Cow::Owned(replaced.into_owned());
            }
        }
        let digits = out.bytes().filter(u8::is_ascii_digit).count();
        if self.cards && digits >= 13 && self.card_re.is_match(&out) {
            let replaced = self.card_re.replace_all(&out, |c: &regex::Captures| {
                if luhn(&c[0]) {
                    count += 1;
                    REDACTED.to_string()
                } else {
                    c[0].to_string()
                }
            });
            out = std::borrow::Cow::Owned(replaced.into_owned());
        }
        if let Some(names) = &self.name_re {
            // KEY=value and 'key': value need one of these.
            if (out.contains('=') || out.contains(':')) && names.is_match(&out) {
                let replaced = self.key_value.replace_all(&out, |c: &regex::Captures| {
                    let value = &c[4];
                    if !names.is_match(&c[1]) || value.contains(REDACTED) {
                        return c[0].to_string();
                    }
                    count += 1;
                    let quote = value.chars().next().filter(|q| *q == '\'' || *q == '"');
                    let shown = quote.map_or(REDACTED.to_string(), |q| format!("{q}{REDACTED}{q}"));
                    format!("{}{}{}{shown}", &c[1], &c[2], &c[3])
                });
                out = std::borrow::Cow::Owned(replaced.into_owned());
            }
        }
        (out.into_owned(), count)
    }

    /// A variables-panel answer (`variables` or `expand`) from a client that does not redact
    /// (it sent no `redacted` count): the rules applied here, and the count added.
    pub fn redact_panel(&self, reply: &mut serde_json::Value) {
        if reply.get("redacted").is_some() || !reply.is_object() {
            return;
        }
        let mut count = 0;
        for key in ["variables", "children"] {
            let Some(rows) = reply.get_mut(key).and_then(serde_json::Value::as_array_mut) else { continue };
            for row in rows {
                let name = row.get("name").and_then(serde_json::Value::as_str).unwrap_or("");
                if self.name_matches(name) {
                    row["repr"] = REDACTED.into();
                    row["expandable"] = false.into();
                    if let Some(fields) = row.as_object_mut() {
                        fields.remove("count");
                    }
                    count += 1;
                } else if let Some(text) = row.get("repr").and_then(serde_json::Value::as_str) {
                    let (clean, n) = self.redact_text(text);
                    if n > 0 {
                        row["repr"] = clean.into();
                        count += n;
                    }
                }
            }
        }
        reply["redacted"] = count.into();
    }

    /// Every string in a JSON value redacted, and the value under every key a name rule
    /// matches (an audit record's request body: eval code, a form). How many were replaced.
    pub fn redact_json(&self, value: &mut serde_json::Value) -> usize {
        use serde_json::Value;
        match value {
            Value::String(text) => {
                let (clean, n) = self.redact_text(text);
                if n > 0 {
                    *text = clean;
                }
                n
            }
            Value::Array(items) => items.iter_mut().map(|v| self.redact_json(v)).sum(),
            Value::Object(fields) => fields
                .iter_mut()
                .map(|(key, v)| {
                    if self.name_matches(key) && !v.is_null() {
                        *v = Value::String(REDACTED.into());
                        1
                    } else {
                        self.redact_json(v)
                    }
                })
                .sum(),
            _ => 0,
        }
    }

    /// The `--no-debug` rule a file (or module) falls under, if any.
    pub fn blocked(&self, file: &str) -> Option<&str> {
        self.no_debug.blocking(file)
    }

    /// Refuses a breakpoint or snapshot at `file` with 400 `blocked_location`, naming the rule.
    pub fn check_location(&self, file: &str) -> Result<()> {
        match self.blocked(file) {
            None => Ok(()),
            Some(rule) => Err(Error::invalid(
                "blocked_location",
                format!("{file} is not debugged here: it falls under --no-debug {rule:?}"),
            )),
        }
    }
}

/// Several rules in one value are separated by commas (`pin_code,otp`); a comma inside `{…}` or
/// `[…]`, or escaped, belongs to its rule (`\d{2,4}`). The clients split the same way.
pub fn split_rules(given: &[String]) -> Vec<String> {
    let mut rules = Vec::new();
    for text in given {
        let (mut depth, mut escaped, mut start) = (0i32, false, 0);
        for (i, c) in text.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '{' | '[' => depth += 1,
                '}' | ']' => depth -= 1,
                ',' if depth <= 0 => {
                    rules.push(text[start..i].to_string());
                    start = i + 1;
                }
                _ => {}
            }
        }
        rules.push(text[start..].to_string());
    }
    rules.into_iter().map(|r| r.trim().to_string()).filter(|r| !r.is_empty()).collect()
}

/// Refuses what the three regex engines do not read alike: inline flags and named groups
/// (Python and JavaScript spell them differently, JavaScript has no inline flags), look-around
/// (Rust's engine has none) and what does not compile.
fn check_rule(flag: &str, rule: &str) -> Result<()> {
    let bytes = rule.as_bytes();
    let mut escaped = false;
    for (i, b) in bytes.iter().enumerate() {
        if escaped {
            escaped = false;
            continue;
        }
        match b {
            b'\\' => escaped = true,
            b'(' if bytes.get(i + 1) == Some(&b'?') && bytes.get(i + 2) != Some(&b':') => {
                return Err(Error::invalid(
                    "invalid_rule",
                    format!(
                        "{flag} {rule:?}: only (?:…) groups are shared by Rust, Python and JavaScript \
                         (no inline flags, look-around or named groups); name rules are case-insensitive already"
                    ),
                ));
            }
            _ => {}
        }
    }
    Regex::new(rule)
        .map_err(|e| Error::invalid("invalid_rule", format!("{flag} {rule:?} is not a valid regex: {e}")))?;
    Ok(())
}

/// The Luhn check of a card number's digits (spaces and dashes ignored).
pub fn luhn(text: &str) -> bool {
    let digits: Vec<u32> = text.chars().filter_map(|c| c.to_digit(10)).collect();
    if !(13..=19).contains(&digits.len()) {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, d)| {
            if i % 2 == 1 {
                let doubled = d * 2;
                if doubled > 9 {
                    doubled - 9
                } else {
                    doubled
                }
            } else {
                *d
            }
        })
        .sum();
    sum % 10 == 0
}

#[cfg(test)]
mod tests;
