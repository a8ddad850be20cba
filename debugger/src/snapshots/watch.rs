//! The debug page's watch expressions (issue 45): read at each stop in the paused frame, the
//! way a snapshot breakpoint reads its expressions — checked here for writes before anything is
//! sent (the same check a snapshot breakpoint's expressions pass), evaluated by the program under
//! its read-only guard, values bounded and redacted. Never recorded in the transcript.

use serde_json::{json, Value};

use super::{SnapshotService, WatchList, WatchValue, MAX_WATCHES, MAX_WATCH_BYTES};
use crate::breakpoints::read_only::check_expression;
use crate::error::{Error, Result};
use crate::eval::RequestKind;
use crate::model::FrameIndex;

/// What a client that cannot read values read-only answers (cideldill's, which only evaluates:
/// this is the "snippet" it is sent), and what every watch then shows.
/// (No `'` nor `\\` in it: the client answers the literal's repr, read back as `'…'`.)
const UNSUPPORTED: &str = "the client of this program evaluates plain REPL input only (a cideldill client): \
                           watch expressions need the Breakroom client, which evaluates them read-only";

impl<H: super::methods::SnapshotHost> SnapshotService<'_, H> {
    /// Each expression's value in the session's frame (`frame`: another one of the stack), or
    /// why it has none: it would write (refused before it is sent), it raised, or it would have
    /// run the program's own code (a property, a `__eq__` written in Python).
    pub async fn watch(self, session_id: &str, expressions: &[String], frame: Option<FrameIndex>) -> Result<WatchList> {
        checked_request(expressions)?;
        let refusals: Vec<Option<String>> = expressions
            .iter()
            .map(|text| check_expression(text, "watch expression").err().map(|e| e.message))
            .collect();
        let sent: Vec<&String> =
            expressions.iter().zip(&refusals).filter(|(_, r)| r.is_none()).map(|(t, _)| t).collect();
        let mut answered = if sent.is_empty() {
            WatchList::default()
        } else {
            let args = json!({"expressions": sent});
            let unsupported = format!("'{}'", json!({"unsupported": UNSUPPORTED}));
            let reply = self.debugger.sessions().ask(session_id, RequestKind::Watch, args, unsupported, frame).await?;
            read_reply(reply, &sent)?
        };
        // The refused ones back in their places, in the order asked.
        let mut values = std::mem::take(&mut answered.expressions).into_iter();
        answered.expressions = expressions
            .iter()
            .zip(refusals)
            .map(|(text, refusal)| match refusal {
                Some(error) => WatchValue { expression: text.clone(), value: None, error: Some(error) },
                None => values.next().unwrap_or_else(|| WatchValue {
                    expression: text.clone(),
                    value: None,
                    error: Some("the program gave no value for it".to_string()),
                }),
            })
            .collect();
        let policy = self.debugger.policy();
        answered.redacted += super::redact::snapshot(policy, &mut [], &mut answered.expressions);
        Ok(answered)
    }
}

/// A blank, too long or too many expressions is the caller's mistake: 400, nothing sent.
fn checked_request(expressions: &[String]) -> Result<()> {
    if expressions.len() > MAX_WATCHES {
        return Err(Error::invalid(
            "too_many_watches",
            format!("at most {MAX_WATCHES} watch expressions at once, not {}", expressions.len()),
        ));
    }
    if expressions.iter().any(|text| text.trim().is_empty()) {
        return Err(Error::MissingField { code: "missing_expr", field: "expressions" });
    }
    if let Some(long) = expressions.iter().find(|text| text.len() > MAX_WATCH_BYTES) {
        return Err(Error::invalid(
            "watch_too_long",
            format!("a watch expression is at most {MAX_WATCH_BYTES} bytes, not {}", long.len()),
        ));
    }
    Ok(())
}

/// The program's answer, one value per expression sent; an eval-only client's refusal becomes
/// every expression's error. A shape we do not know is the program's failure (502), not ours.
fn read_reply(reply: Value, sent: &[&String]) -> Result<WatchList> {
    if let Some(why) = reply.get("unsupported").and_then(Value::as_str) {
        let expressions = sent
            .iter()
            .map(|text| WatchValue { expression: text.to_string(), value: None, error: Some(why.to_string()) })
            .collect();
        return Ok(WatchList { expressions, ..WatchList::default() });
    }
    let list: WatchList = serde_json::from_value(reply)
        .map_err(|e| Error::ClientFailed(format!("the program's watch values are not a watch list: {e}")))?;
    if list.expressions.len() > sent.len() {
        return Err(Error::ClientFailed("the program answered more watch values than were asked".to_string()));
    }
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blank_too_long_or_too_many_watch_list_is_refused_before_anything_is_sent() {
        let code = |list: &[String]| checked_request(list).err().map(|e| e.code().to_string());
        assert_eq!(code(&["x".to_string(), " ".to_string()]).as_deref(), Some("missing_expr"));
        assert_eq!(code(&["x".repeat(MAX_WATCH_BYTES + 1)]).as_deref(), Some("watch_too_long"));
        assert_eq!(code(&vec!["x".to_string(); MAX_WATCHES + 1]).as_deref(), Some("too_many_watches"));
        assert_eq!(code(&vec!["x".to_string(); MAX_WATCHES]), None);
    }

    #[test]
    fn the_eval_only_answer_survives_its_repr() {
        assert!(!UNSUPPORTED.contains(['\'', '\\']));
        let literal = format!("'{}'", json!({"unsupported": UNSUPPORTED}));
        assert_eq!(crate::snippet::decode_result(&literal).unwrap()["unsupported"], UNSUPPORTED);
    }

    #[test]
    fn an_eval_only_client_leaves_every_watch_with_the_reason() {
        let (a, b) = ("a".to_string(), "b.c".to_string());
        let list = read_reply(json!({"unsupported": UNSUPPORTED}), &[&a, &b]).unwrap();
        assert_eq!(list.expressions.len(), 2);
        assert!(list.expressions.iter().all(|w| w.error.as_deref() == Some(UNSUPPORTED) && w.value.is_none()));
        assert_eq!(list.expressions[1].expression, "b.c");
    }

    #[test]
    fn an_answer_of_another_shape_is_the_programs_failure() {
        let a = "a".to_string();
        let wrong = read_reply(json!({"expressions": "no"}), &[&a]).unwrap_err();
        assert_eq!(wrong.code(), "client_failed");
        let more = json!({"expressions": [{"expression": "a"}, {"expression": "b"}]});
        assert_eq!(read_reply(more, &[&a]).unwrap_err().code(), "client_failed");
    }
}
