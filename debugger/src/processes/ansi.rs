//! Terminal escape codes in captured output. Built for the browser too: the process page colours
//! the lines the live stream brings as the server colours the ones it renders.

/// Drops ANSI escape sequences (Python 3.13 colours tracebacks when asked to).
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            // Parameters and intermediates, up to the final byte (@ to ~).
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
