//! A server-rendered list that follows live events part by part (issue 45: a process's row, a
//! breakpoint's form, a paused call's card). Every change to the list, of one part or of the
//! whole, is applied one at a time, in the order it came: a whole render that was fetched before
//! a part changed can never land after it and show the part's older state, a part never shows an
//! older state than one it showed, and a hot source of events costs one fetch at a time.

use std::collections::VecDeque;
use std::future::Future;

use leptos::prelude::*;

use crate::encoding::PageHtml;

#[derive(PartialEq)]
enum Step<T> {
    Part(T),
    Whole,
}

/// Follows a list whose server HTML fills the element `body` (a selector). The answer takes one
/// change of a part, which `part` applies (false: only a whole render can show it). The list is
/// fetched whole (`whole`) and patched in when a signal `whole_when` reads changes (not on its
/// first run: the page was rendered with it), and when a part asks. A change equal to one still
/// waiting is dropped when `covers` says so: applied later, from the server's newest state, the
/// waiting one shows it too.
pub fn follow<T, PartFut, WholeFut>(
    body: &'static str,
    whole_when: impl Fn() + Send + Sync + 'static,
    whole: impl Fn() -> WholeFut + Copy + 'static,
    covers: fn(&T) -> bool,
    part: impl Fn(T) -> PartFut + Copy + 'static,
) -> impl Fn(T) + Copy + 'static
where
    T: PartialEq + Send + Sync + 'static,
    PartFut: Future<Output = bool> + 'static,
    WholeFut: Future<Output = PageHtml> + 'static,
{
    let waiting = StoredValue::new(VecDeque::<Step<T>>::new());
    let running = StoredValue::new(false);
    // A whole render that had no list to go into: the page's own render was still on its way
    // (a client-side navigation), and may be older than the change that asked for this one.
    let missed = StoredValue::new(false);
    let bodies = crate::live::use_live().bodies;
    let push = move |step: Step<T>| {
        waiting.update_value(|w| {
            let covered = match &step {
                Step::Part(change) => covers(change),
                Step::Whole => true,
            };
            if !(covered && w.contains(&step)) {
                w.push_back(step);
            }
        });
        if running.get_value() {
            return;
        }
        running.set_value(true);
        leptos::task::spawn_local(async move {
            while let Some(next) = waiting.try_update_value(|w| w.pop_front()).flatten() {
                match next {
                    Step::Part(change) => {
                        if !part(change).await {
                            waiting.update_value(|w| w.push_back(Step::Whole));
                        }
                    }
                    Step::Whole => {
                        let Some(shown) = document().query_selector(body).ok().flatten() else {
                            missed.set_value(true);
                            continue;
                        };
                        if let Ok(Some(html)) = whole().await {
                            super::patch::patch(&shown, &html);
                        }
                    }
                }
            }
            running.set_value(false);
        });
    };
    Effect::new(move |first: Option<()>| {
        whole_when();
        if first.is_some() {
            push(Step::Whole);
        }
    });
    // Once a body is built, the list the missed render was for is there: fetched again, it
    // shows the newest state over the one it was built with.
    Effect::new(move |_| {
        bodies.track();
        if missed.get_value() {
            missed.set_value(false);
            push(Step::Whole);
        }
    });
    move |change: T| push(Step::Part(change))
}

/// Follows a server-rendered part that is only ever read whole (a process's call tree): one read
/// at a time, patched in, and the events that come while one is on its way make one more read,
/// not one each. A resource keyed on the events would start a read per event, each cancelling
/// the one before, whose work the server had begun.
pub fn follow_whole<WholeFut>(
    body: &'static str,
    whole_when: impl Fn() + Send + Sync + 'static,
    whole: impl Fn() -> WholeFut + Copy + 'static,
) where
    WholeFut: Future<Output = PageHtml> + 'static,
{
    // Nothing but the whole is ever asked for: the returned way to ask for a part is not kept.
    let _ = follow(body, whole_when, whole, |_: &()| true, |()| async { false });
}
