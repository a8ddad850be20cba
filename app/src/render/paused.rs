//! `/`: paused calls and breakpoints. Controls carry `data-action` (a [`Control`]; the card its
//! `data-pause-id`, the row its `data-breakpoint`); the page's handlers (`crate::pages::paused`)
//! act on them.

use maud::{html, Markup};

use breakroom_debugger::kinds::{AfterBehavior, Behavior, GlobalBehavior};
use breakroom_debugger::model::{BreakpointView, BreakpointsView, PauseReason, PausedCall};
use breakroom_debugger::steps::StopKind;

use super::options;
use crate::controls::Control;
use crate::format::timestamp;

/// The paused calls, newest last, or how to get one. `process_page` names the tracked process
/// (`/process/{id}`) of a call's process key, when there is one; `travel` is a call's
/// time-travel controls (`super::time_travel::pause_controls`).
pub fn paused_calls(
    calls: &[PausedCall],
    process_page: &dyn Fn(&str) -> Option<String>,
    travel: &dyn Fn(&str) -> Markup,
) -> String {
    let html = html! {
        @if calls.is_empty() {
            section.empty {
                p { "Nothing is paused." }
                p.hint {
                    "Wrap a function with " code { "breakroom.with_debug(fn)" } " (or call "
                    code { "breakroom.set_trace()" } ") in a program run with " code { "BREAKROOM_URL" }
                    " pointing here; the call shows up on this page when it pauses."
                }
            }
        } @else {
            ul.paused-list {
                @for call in calls {
                    (paused_card(call, process_page(&call.process_key), travel(&call.pause_id), None))
                }
            }
        }
    };
    html.into_string()
}

/// The card of the paused call `pause_id` alone, as [`paused_calls`] would show it among
/// `calls`, or None when it is not paused (any more). It carries `data-after`, the pause of the
/// card before it ("" for the first), so that the page can put it in its place.
pub fn paused_card_in(
    calls: &[PausedCall],
    pause_id: &str,
    process_page: &dyn Fn(&str) -> Option<String>,
    travel: &dyn Fn(&str) -> Markup,
) -> Option<String> {
    let at = calls.iter().position(|c| c.pause_id == pause_id)?;
    let after = at.checked_sub(1).map_or("", |before| calls[before].pause_id.as_str());
    let call = &calls[at];
    Some(paused_card(call, process_page(&call.process_key), travel(&call.pause_id), Some(after)).into_string())
}

fn paused_card(call: &PausedCall, process_id: Option<String>, travel: Markup, after: Option<&str>) -> Markup {
    let (reason_class, reason) = match call.reason {
        PauseReason::Breakpoint => ("breakpoint", "before the call"),
        PauseReason::After => ("after", "after the call returned"),
        PauseReason::Exception => ("exception", "on an exception"),
    };
    // A line, a step, breakpoint(): where it stopped, not "before the call".
    let stopped_at = call.stop.as_ref().filter(|s| s.kind != StopKind::Call).map(|s| s.describe());
    let reason = stopped_at.as_deref().unwrap_or(reason);
    // Skip and raise replace running the call: only a call that has not run yet can take them.
    let can_skip = call.reason == PauseReason::Breakpoint && call.result_text.is_none();
    html! {
        li class={ "paused-card reason-" (reason_class) } data-pause-id=(call.pause_id) data-after=[after] {
            div.call {
                span class={ "lang lang-" (call.language.as_str()) } title="the program's language" { (call.language.label()) }
                " " span.fn-name { (call.function_name) }
                "(" span.args { (call.args_text.join(", ")) } ")"
                @if let Some(result) = &call.result_text {
                    span.result { " → " (result) }
                }
            }
            dl.meta {
                dt { "process" }
                dd.pid {
                    @match &process_id {
                        Some(process) => a.process-link href={ "/process/" (process) } { (call.pid) },
                        None => (call.pid),
                    }
                }
                dt { "paused at" } dd { (timestamp(call.paused_at)) }
                dt { "reason" } dd.reason { (reason) }
            }
            div.actions {
                @match call.active_sessions.last() {
                    Some(session) => a.button.primary href={ "/repl/" (session) } { "Go to open REPL" },
                    None => button.primary data-action=(Control::OpenRepl.as_str()) { "Open REPL" },
                }
                button data-action=(Control::Continue.as_str()) { "Continue" }
                a.button href={ "/callstack/" (call.pause_id) } { "Call stack" }
            }
            @if can_skip {
                details.more-actions {
                    summary { "Skip or raise instead of running the call" }
                    form.inline data-action=(Control::Skip.as_str()) {
                        label { "Return value (JSON) " input type="text" name="value" placeholder="null"; }
                        button type="submit" { "Skip" }
                    }
                    form.inline data-action=(Control::Raise.as_str()) {
                        label { "Exception " input type="text" name="type" size="14" value="RuntimeError"; }
                        label { "message " input type="text" name="message"; }
                        button type="submit" class="danger" { "Raise" }
                    }
                }
            }
            (travel)
            p.error hidden {}
        }
    }
}

/// How the pages name a behaviour before the call. A match, not a table: a new behaviour does
/// not compile until it has a name here.
fn before_label(behavior: Behavior) -> &'static str {
    match behavior {
        Behavior::Stop => "pause",
        Behavior::Go => "run",
        Behavior::Yield => "follow global",
    }
}

fn after_label(behavior: AfterBehavior) -> &'static str {
    match behavior {
        AfterBehavior::Go => "run on",
        AfterBehavior::Stop => "pause after",
        AfterBehavior::Exception => "pause on exception",
        AfterBehavior::StopException => "pause after, and on exception",
        AfterBehavior::Yield => "follow global",
    }
}

fn global_label(behavior: GlobalBehavior) -> &'static str {
    match behavior {
        GlobalBehavior::Stop => "pause at breakpoints",
        GlobalBehavior::Go => "run everything",
        GlobalBehavior::Exception => "pause on exceptions",
        GlobalBehavior::StopException => "pause at breakpoints and on exceptions",
    }
}

/// The global behaviour, then the functions registered by name (cideldill's by-name breakpoints,
/// which `with_debug` makes), if any. The breakpoints by id follow in the same list
/// (`breakpoint_records`), under the one add form; `records` says whether there are any, so that
/// the hint that there are none shows only when there are none of either kind.
pub fn breakpoints(view: &BreakpointsView, records: bool) -> String {
    let global = GlobalBehavior::ALL.map(|b| (b.as_str(), global_label(b)));
    let html = html! {
        label.global {
            "When a call has no breakpoint of its own: "
            select aria-label="Behaviour" data-action=(Control::Global.as_str()) {
                (options(global, view.global_behavior.as_str()))
            }
        }
        @if view.breakpoints.is_empty() && !records {
            p.hint.no-breakpoints {
                "No breakpoints. Wrapping a function with " code { "with_debug" } " adds one on its name; "
                "add one of any kind below."
            }
        } @else if !view.breakpoints.is_empty() {
            div.table-wrap {
                table.breakpoint-table {
                    thead { tr { th { "Function (by name)" } th { "Before the call" } th { "After the call" } th { "Replace with" } th {} } }
                    tbody {
                        @for bp in &view.breakpoints { (breakpoint_row(bp)) }
                    }
                }
            }
        }
    };
    html.into_string()
}

fn breakpoint_row(bp: &BreakpointView) -> Markup {
    let before = Behavior::ALL.map(|b| (b.as_str(), before_label(b)));
    let after = AfterBehavior::ALL.map(|b| (b.as_str(), after_label(b)));
    let current = bp.replacement.clone().unwrap_or_default();
    let replacements =
        std::iter::once(("", "(itself)")).chain(bp.replacements.iter().map(|r| (r.as_str(), r.as_str())));
    html! {
        tr data-breakpoint=(bp.function_name) {
            td.fn-name {
                (bp.function_name)
                @if let Some(signature) = &bp.signature {
                    span.hint.signature { (signature) }
                }
            }
            td { select aria-label="Behaviour" data-action=(Control::Before.as_str()) { (options(before, bp.behavior.as_str())) } }
            td { select aria-label="Behaviour" data-action=(Control::After.as_str()) { (options(after, bp.after_behavior.as_str())) } }
            td {
                @if bp.replacements.is_empty() && current.is_empty() {
                    span.hint { "—" }
                } @else {
                    select aria-label="Replacement" data-action=(Control::Replacement.as_str()) {
                        (options(replacements, &current))
                    }
                }
            }
            td { button.small data-action=(Control::Remove.as_str()) { "Remove" } }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(pause_id: &str, function_name: &str) -> PausedCall {
        PausedCall {
            pause_id: pause_id.into(),
            call_id: format!("call-{pause_id}"),
            function_name: function_name.into(),
            reason: PauseReason::Breakpoint,
            args_text: vec![],
            result_text: None,
            pid: 7,
            process_key: "1.5+7".into(),
            paused_at: 0.0,
            active_sessions: vec![],
            language: Default::default(),
            stop: None,
            blocking: false,
            blocking_reason: None,
        }
    }

    #[test]
    fn a_card_alone_names_the_card_before_it_and_a_resumed_call_has_none() {
        let calls = [call("p1", "first"), call("p2", "<b>second</b>")];
        let card = |id| paused_card_in(&calls, id, &|_| None, &|_| maud::html! {});
        let second = card("p2").unwrap();
        assert!(second.contains(r#"data-pause-id="p2" data-after="p1""#), "{second}");
        assert!(second.contains("&lt;b&gt;second&lt;/b&gt;") && !second.contains("<b>"), "{second}");
        assert!(card("p1").unwrap().contains(r#"data-after="""#));
        assert_eq!(card("resumed"), None);
        // The whole list's cards carry no `data-after`: only a card fetched alone is placed by it.
        assert!(!paused_calls(&calls, &|_| None, &|_| maud::html! {}).contains("data-after"));
    }
}
