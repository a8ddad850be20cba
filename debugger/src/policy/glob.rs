//! `--no-debug` rules: a file path glob whose `*` crosses `/` (as Python's fnmatch reads it,
//! which is what the Python client matches with), or a module name (`myapp.auth`: the module,
//! its submodules and their files).

use regex::Regex;

use crate::error::{Error, Result};

#[derive(Clone, Debug, Default)]
pub struct NoDebug {
    rules: Vec<String>,
    matchers: Vec<Matcher>,
}

#[derive(Clone, Debug)]
enum Matcher {
    Path(Regex),
    Module(String),
}

/// A rule is a module name when it is dotted identifiers and nothing else.
pub fn is_module_rule(rule: &str) -> bool {
    !rule.is_empty()
        && !rule.ends_with(".py")
        && rule.split('.').all(|part| {
            let mut chars = part.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

fn glob_regex(glob: &str) -> std::result::Result<Regex, regex::Error> {
    let mut out = String::from("^");
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => out.push_str(".*"),
            '?' => out.push('.'),
            '[' => {
                let mut class = String::new();
                let mut closed = false;
                if chars.peek() == Some(&'!') {
                    chars.next();
                    class.push('^');
                }
                for d in chars.by_ref() {
                    if d == ']' && !(class.is_empty() || class == "^") {
                        closed = true;
                        break;
                    }
                    if d == '\\' || d == '[' {
                        class.push('\\');
                    }
                    class.push(d);
                }
                if closed {
                    out.push('[');
                    out.push_str(&class);
                    out.push(']');
                } else {
                    // fnmatch reads an unclosed `[` as itself.
                    out.push_str(&regex::escape("["));
                    out.push_str(&regex::escape(class.trim_start_matches('^')));
                }
            }
            other => out.push_str(&regex::escape(&other.to_string())),
        }
    }
    out.push('$');
    Regex::new(&format!("(?s){out}"))
}

impl NoDebug {
    pub fn new(rules: &[String]) -> Result<Self> {
        let mut matchers = Vec::new();
        for rule in rules {
            if is_module_rule(rule) {
                matchers.push(Matcher::Module(rule.clone()));
            } else {
                let re = glob_regex(rule)
                    .map_err(|e| Error::invalid("invalid_rule", format!("--no-debug {rule:?} is not a glob: {e}")))?;
                matchers.push(Matcher::Path(re));
            }
        }
        Ok(NoDebug { rules: rules.to_vec(), matchers })
    }

    pub fn rules(&self) -> &[String] {
        &self.rules
    }

    /// The first rule `target` (a file path or a module name) falls under.
    pub fn blocking(&self, target: &str) -> Option<&str> {
        let found = self.matchers.iter().position(|m| match m {
            Matcher::Path(re) => re.is_match(target),
            Matcher::Module(module) => {
                let as_path = module.replace('.', "/");
                target == module
                    || target.strip_prefix(module.as_str()).is_some_and(|rest| rest.starts_with('.'))
                    || target.ends_with(&format!("/{as_path}.py"))
                    || target == format!("{as_path}.py")
                    || target.contains(&format!("/{as_path}/"))
                    || target.starts_with(&format!("{as_path}/"))
            }
        })?;
        self.rules.get(found).map(String::as_str)
    }
}
