//! A small highlighter for REPL input in Python or JavaScript: keywords, builtins, strings,
//! numbers, comments. It only splits text into classed pieces; the pieces joined are the input,
//! unchanged. Used by the server's rendering only (`render/`), so it adds nothing to the wasm.

use breakroom_debugger::model::Language;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Plain,
    Keyword,
    Builtin,
    String,
    Number,
    Comment,
}

impl Kind {
    pub fn class(self) -> &'static str {
        match self {
            Kind::Plain => "",
            Kind::Keyword => "tok-kw",
            Kind::Builtin => "tok-builtin",
            Kind::String => "tok-str",
            Kind::Number => "tok-num",
            Kind::Comment => "tok-comment",
        }
    }
}

const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "match", "case",
];

const BUILTINS: &[&str] = &[
    "print",
    "len",
    "range",
    "repr",
    "str",
    "int",
    "float",
    "list",
    "dict",
    "set",
    "tuple",
    "type",
    "dir",
    "vars",
    "isinstance",
    "sorted",
    "sum",
    "min",
    "max",
    "abs",
    "enumerate",
    "zip",
    "map",
    "filter",
    "open",
    "getattr",
    "setattr",
    "hasattr",
    "id",
    "bool",
    "bytes",
    "any",
    "all",
    "iter",
    "next",
    "help",
    "self",
];

const JS_KEYWORDS: &[&str] = &[
    "async",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "let",
    "new",
    "null",
    "of",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "undefined",
    "var",
    "void",
    "while",
    "with",
    "yield",
];

const JS_BUILTINS: &[&str] = &[
    "console",
    "Math",
    "JSON",
    "Object",
    "Array",
    "String",
    "Number",
    "Boolean",
    "Promise",
    "Map",
    "Set",
    "Date",
    "Error",
    "RegExp",
    "Symbol",
    "BigInt",
    "globalThis",
    "process",
    "window",
    "document",
    "parseInt",
    "parseFloat",
    "setTimeout",
    "fetch",
    "require",
    "args",
];

/// The pieces of `source` in `language`, each with its kind.
pub fn tokens_in(source: &str, language: Language) -> Vec<(Kind, String)> {
    match language {
        Language::Python => tokens(source),
        Language::Javascript => js_tokens(source),
    }
}

/// JavaScript: `//` and `/* */` comments, '…', "…" and `…` strings (template literals whole).
fn js_tokens(source: &str) -> Vec<(Kind, String)> {
    let chars: Vec<char> = source.chars().collect();
    let mut out: Vec<(Kind, String)> = vec![];
    let mut push = |kind: Kind, text: String| match out.last_mut() {
        Some((last, buf)) if *last == kind && kind == Kind::Plain => buf.push_str(&text),
        _ => out.push((kind, text)),
    };
    let mut i = 0;
    while i < chars.len() {
        let (c, start) = (chars[i], i);
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            push(Kind::Comment, chars[start..i].iter().collect());
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i = (i + 2).min(chars.len());
            push(Kind::Comment, chars[start..i].iter().collect());
        } else if c == '"' || c == '\'' || c == '`' {
            i += 1;
            while i < chars.len() && chars[i] != c && (c == '`' || chars[i] != '\n') {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(chars.len());
            push(Kind::String, chars[start..i].iter().collect());
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.' || chars[i] == '_') {
                i += 1;
            }
            push(Kind::Number, chars[start..i].iter().collect());
        } else if is_identifier_start(c) || c == '$' {
            while i < chars.len() && (is_identifier_start(chars[i]) || chars[i] == '$' || chars[i].is_ascii_digit()) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let kind = if JS_KEYWORDS.contains(&word.as_str()) {
                Kind::Keyword
            } else if JS_BUILTINS.contains(&word.as_str()) {
                Kind::Builtin
            } else {
                Kind::Plain
            };
            push(kind, word);
        } else {
            i += 1;
            push(Kind::Plain, c.to_string());
        }
    }
    out
}

/// The pieces of Python `source`, each with its kind.
pub fn tokens(source: &str) -> Vec<(Kind, String)> {
    let chars: Vec<char> = source.chars().collect();
    let mut out: Vec<(Kind, String)> = vec![];
    let mut push = |kind: Kind, text: String| match out.last_mut() {
        Some((last, buf)) if *last == kind && kind == Kind::Plain => buf.push_str(&text),
        _ => out.push((kind, text)),
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            push(Kind::Comment, chars[start..i].iter().collect());
        } else if c == '"' || c == '\'' {
            let triple = chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c);
            let quote_len = if triple { 3 } else { 1 };
            i += quote_len;
            while i < chars.len() {
                if chars[i] == '\\' {
                    i += 2;
                    continue;
                }
                if chars[i] == c && (!triple || (chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c))) {
                    i += quote_len;
                    break;
                }
                if chars[i] == '\n' && !triple {
                    break;
                }
                i += 1;
            }
            let i_end = i.min(chars.len());
            i = i_end;
            push(Kind::String, chars[start..i].iter().collect());
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.' || chars[i] == '_') {
                i += 1;
            }
            push(Kind::Number, chars[start..i].iter().collect());
        } else if is_identifier_start(c) {
            while i < chars.len() && (is_identifier_start(chars[i]) || chars[i].is_ascii_digit()) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // A string prefix (f"", rb'') belongs to the string.
            if matches!(word.to_ascii_lowercase().as_str(), "f" | "r" | "b" | "rb" | "br" | "fr" | "rf" | "u")
                && matches!(chars.get(i), Some('"') | Some('\''))
            {
                let prefix_len = i - start;
                let rest = tokens(&chars[i..].iter().collect::<String>());
                let mut rest = rest.into_iter();
                if let Some((Kind::String, s)) = rest.next() {
                    push(Kind::String, format!("{word}{s}"));
                    for (k, t) in rest {
                        push(k, t);
                    }
                    return out;
                }
                i = start + prefix_len;
                push(Kind::Plain, word);
                continue;
            }
            let kind = if KEYWORDS.contains(&word.as_str()) {
                Kind::Keyword
            } else if BUILTINS.contains(&word.as_str()) {
                Kind::Builtin
            } else {
                Kind::Plain
            };
            push(kind, word);
        } else {
            i += 1;
            push(Kind::Plain, c.to_string());
        }
    }
    out
}

/// Python identifiers may use any letter; every non-ASCII character is taken as one, which keeps
/// Unicode's letter tables out of the wasm (a non-ASCII operator would be mis-coloured, no more).
fn is_identifier_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || !c.is_ascii()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<(Kind, &'static str)> {
        tokens(source).into_iter().filter(|(k, _)| *k != Kind::Plain).map(|(k, t)| (k, &*t.leak())).collect()
    }

    #[test]
    fn classifies_keywords_strings_numbers_and_comments() {
        assert_eq!(
            kinds("for x in range(10): print('a#b', x)  # loop"),
            vec![
                (Kind::Keyword, "for"),
                (Kind::Keyword, "in"),
                (Kind::Builtin, "range"),
                (Kind::Number, "10"),
                (Kind::Builtin, "print"),
                (Kind::String, "'a#b'"),
                (Kind::Comment, "# loop"),
            ]
        );
    }

    #[test]
    fn pieces_join_back_to_the_input() {
        for source in ["f\"{x!r}\" + rb'\\x00'", "'''multi\nline''' + \"unterminated", "é = 1_000.5e3", ""] {
            let joined: String = tokens(source).into_iter().map(|(_, t)| t).collect();
            assert_eq!(joined, source);
        }
        assert_eq!(kinds("f\"{x}\""), vec![(Kind::String, "f\"{x}\"")]);
    }

    #[test]
    fn javascript_has_its_own_keywords_strings_and_comments() {
        let js = |source: &str| -> Vec<(Kind, String)> {
            tokens_in(source, Language::Javascript).into_iter().filter(|(k, _)| *k != Kind::Plain).collect()
        };
        let found = js("const s = `a ${b}` + 'c'; // note\nconsole.log(null, 2) /* end */ # not a comment");
        let expected = [
            (Kind::Keyword, "const"),
            (Kind::String, "`a ${b}`"),
            (Kind::String, "'c'"),
            (Kind::Comment, "// note"),
            (Kind::Builtin, "console"),
            (Kind::Keyword, "null"),
            (Kind::Number, "2"),
            (Kind::Comment, "/* end */"),
        ];
        let expected: Vec<(Kind, String)> = expected.iter().map(|(k, t)| (*k, t.to_string())).collect();
        assert_eq!(found, expected);
        for source in ["'unterminated", "/* open", "a\\`b`", "x = \"q\\\"\""] {
            let joined: String = tokens_in(source, Language::Javascript).into_iter().map(|(_, t)| t).collect();
            assert_eq!(joined, source);
        }
    }
}
