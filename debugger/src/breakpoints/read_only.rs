//! Read-only by construction (issue 34): the condition, watch expressions and log template of a
//! snapshot or log breakpoint may read the program's values but never change them. Checked here
//! when the breakpoint is added or changed, so a refusal is a 400 naming the part; the client
//! checks the same rules again and, at the hit, refuses to run any of the program's own code
//! (a property, a `__len__` written in Python), which only the live objects can tell.
//!
//! Parsed with `rustpython-parser` (Python 3 grammar; maintained by the RustPython project).

use rustpython_ast::Visitor;
use rustpython_parser::ast::{self, Ranged};
use rustpython_parser::Parse;

use crate::breakpoints::record::{BreakpointRecord, SpecError};

/// Builtins that read and build values, never change one (their arguments' Python code, if any,
/// is stopped by the client's guard at the hit).
pub const PURE_BUILTINS: &[&str] = &[
    "abs",
    "all",
    "any",
    "ascii",
    "bin",
    "bool",
    "bytes",
    "callable",
    "chr",
    "complex",
    "dict",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "hasattr",
    "hash",
    "hex",
    "id",
    "int",
    "isinstance",
    "issubclass",
    "len",
    "list",
    "map",
    "max",
    "min",
    "oct",
    "ord",
    "pow",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "slice",
    "sorted",
    "str",
    "sum",
    "tuple",
    "type",
    "vars",
    "zip",
];

/// Methods of builtin types (str, bytes, dict, list, tuple, set, int, datetime) that only read.
/// A method of the same name on the program's own class is Python code: the guard stops it.
pub const PURE_METHODS: &[&str] = &[
    "get",
    "keys",
    "values",
    "items",
    "count",
    "index",
    "find",
    "rfind",
    "startswith",
    "endswith",
    "lower",
    "upper",
    "strip",
    "lstrip",
    "rstrip",
    "split",
    "rsplit",
    "splitlines",
    "join",
    "replace",
    "partition",
    "rpartition",
    "isdigit",
    "isalpha",
    "isalnum",
    "isspace",
    "islower",
    "isupper",
    "isdecimal",
    "isnumeric",
    "isidentifier",
    "title",
    "capitalize",
    "casefold",
    "zfill",
    "center",
    "ljust",
    "rjust",
    "encode",
    "decode",
    "hex",
    "bit_length",
    "copy",
    "issubset",
    "issuperset",
    "isdisjoint",
    "union",
    "intersection",
    "difference",
    "symmetric_difference",
    "isoformat",
    "timestamp",
    "total_seconds",
    "date",
    "time",
    "most_common",
    "conjugate",
    "is_integer",
    "as_integer_ratio",
];

/// Checks every expression of a snapshot or log breakpoint; a pausing one keeps full Python.
pub fn check_record(record: &BreakpointRecord) -> Result<(), SpecError> {
    if !record.action.never_pauses() {
        return Ok(());
    }
    if let Some(condition) = &record.condition {
        check_expression(condition, "condition")?;
    }
    for expression in &record.expressions {
        check_expression(expression, "expression")?;
    }
    if let Some(message) = &record.log_message {
        check_log_template(message)?;
    }
    Ok(())
}

/// One expression (`what` names it in the message: condition, expression).
pub fn check_expression(source: &str, what: &str) -> Result<(), SpecError> {
    match ast::Expr::parse(source, "<breakpoint>") {
        Ok(expr) => first_write(expr, source).map_or(Ok(()), |why| Err(not_read_only(what, source, &why))),
        Err(parse_error) => Err(match statement(source) {
            Some(why) => not_read_only(what, source, &why),
            None => SpecError {
                code: "invalid_expression",
                message: format!("{what} {source:?} is not a Python expression: {}", parse_error.error),
            },
        }),
    }
}

/// A logpoint's message is an f-string: its `{…}` parts are checked as expressions.
pub fn check_log_template(message: &str) -> Result<(), SpecError> {
    // The f-string the client compiles (`"f" + repr(message)`).
    let source = format!("f{}", crate::pickle::str_repr(message));
    match ast::Expr::parse(&source, "<log message>") {
        Ok(expr) => first_write(expr, &source).map_or(Ok(()), |why| Err(not_read_only("log message", message, &why))),
        Err(e) => Err(SpecError {
            code: "invalid_log_message",
            message: format!("log message {message:?}: its {{…}} parts are not Python expressions: {}", e.error),
        }),
    }
}

fn not_read_only(what: &str, source: &str, why: &str) -> SpecError {
    SpecError {
        code: "not_read_only",
        message: format!(
            "{what} {source:?} is not read-only: it {why}. Snapshot and log breakpoints only read the program: \
             they may call pure builtins (len, str, repr, min, max, sorted, isinstance, getattr, …) and reading \
             methods of builtin types (get, keys, items, startswith, …)"
        ),
    }
}

/// What a source that is not an expression does, when it parses as statements.
fn statement(source: &str) -> Option<String> {
    let suite = ast::Suite::parse(source, "<breakpoint>").ok()?;
    let text = |node: &dyn Ranged| slice(source, node.range()).to_string();
    suite.iter().find_map(|stmt| match stmt {
        ast::Stmt::Assign(a) => {
            Some(format!("assigns to {}", a.targets.iter().map(|t| text(t)).collect::<Vec<_>>().join(", ")))
        }
        ast::Stmt::AugAssign(a) => Some(format!("assigns to {}", text(&*a.target))),
        ast::Stmt::AnnAssign(a) => Some(format!("assigns to {}", text(&*a.target))),
        ast::Stmt::Delete(d) => {
            Some(format!("deletes {}", d.targets.iter().map(|t| text(t)).collect::<Vec<_>>().join(", ")))
        }
        ast::Stmt::Import(_) | ast::Stmt::ImportFrom(_) => Some("imports a module".into()),
        ast::Stmt::Expr(_) => None,
        _ => Some("is a statement, not an expression".into()),
    })
}

fn slice(source: &str, range: ast::text_size::TextRange) -> &str {
    source.get(usize::from(range.start())..usize::from(range.end())).unwrap_or("")
}

/// The first thing in `expr` that could change the program, said as "it …".
fn first_write(expr: ast::Expr, source: &str) -> Option<String> {
    let mut finder = Writes { source, found: None };
    finder.visit_expr(expr);
    finder.found
}

struct Writes<'a> {
    source: &'a str,
    found: Option<String>,
}

impl Visitor for Writes<'_> {
    fn visit_expr(&mut self, node: ast::Expr) {
        if self.found.is_some() {
            return;
        }
        let text = slice(self.source, node.range()).to_string();
        let why = match &node {
            ast::Expr::NamedExpr(_) => Some(format!("assigns with := ({text})")),
            ast::Expr::Lambda(_) => Some("defines a lambda".to_string()),
            ast::Expr::Await(_) => Some("awaits".to_string()),
            ast::Expr::Yield(_) | ast::Expr::YieldFrom(_) => Some("yields".to_string()),
            ast::Expr::Call(call) => match call.func.as_ref() {
                ast::Expr::Name(name) if PURE_BUILTINS.contains(&name.id.as_str()) => None,
                ast::Expr::Name(name) if name.id.as_str() == "__import__" => Some("imports a module".to_string()),
                ast::Expr::Attribute(attr) if PURE_METHODS.contains(&attr.attr.as_str()) => None,
                func => Some(format!("calls {}", slice(self.source, func.range()))),
            },
            _ => None,
        };
        match (why, node) {
            (Some(why), _) => self.found = Some(why),
            // The visitor does not walk into keyword arguments: they are walked here.
            (None, ast::Expr::Call(call)) => {
                self.visit_expr(*call.func);
                for arg in call.args {
                    self.visit_expr(arg);
                }
                for keyword in call.keywords {
                    self.visit_expr(keyword.value);
                }
            }
            (None, node) => self.generic_visit_expr(node),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(source: &str) -> Option<(&'static str, String)> {
        check_expression(source, "expression").err().map(|e| (e.code, e.message))
    }

    #[test]
    fn mutations_are_refused_naming_the_part() {
        let (code, message) = refusal("x.append(1)").unwrap();
        assert_eq!(code, "not_read_only");
        assert!(message.contains("calls x.append"), "{message}");
        assert!(refusal("obj.attr = 1").unwrap().1.contains("assigns to obj.attr"));
        assert!(refusal("del d['k']").unwrap().1.contains("deletes d['k']"));
        assert!(refusal("import os").unwrap().1.contains("imports"));
        assert!(refusal("__import__('os')").unwrap().1.contains("imports"));
        assert!(refusal("compute(x) + 1").unwrap().1.contains("calls compute"));
        assert!(refusal("(n := 3)").unwrap().1.contains(":="));
        assert!(refusal("sorted(xs, key=lambda v: v)").unwrap().1.contains("lambda"));
        assert!(refusal("len(xs.pop())").unwrap().1.contains("calls xs.pop"));
        assert!(refusal("x +").unwrap().0 == "invalid_expression");
    }

    #[test]
    fn reads_are_allowed() {
        for ok in [
            "len(order.items)",
            "d.get('k', 0) + sum(v for v in xs if v > 2)",
            "sorted(d)[:3]",
            "[i * 2 for i in range(3)]",
            "isinstance(x, (int, str)) and not x.startswith('_')",
            "f'{x!r:>10}'",
            "getattr(obj, 'name')",
        ] {
            assert_eq!(refusal(ok), None, "{ok}");
        }
    }

    #[test]
    fn log_templates_are_checked_part_by_part() {
        assert!(check_log_template("n={n} items={len(xs)} it's {d['a']}").is_ok());
        let e = check_log_template("popped {xs.pop()}").unwrap_err();
        assert_eq!(e.code, "not_read_only");
        assert!(e.message.contains("calls xs.pop"), "{}", e.message);
        assert_eq!(check_log_template("broken {").unwrap_err().code, "invalid_log_message");
        assert!(check_log_template("no parts, a \\ backslash and \"quotes\"").is_ok());
    }
}
