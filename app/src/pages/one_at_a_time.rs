//! Changes a page puts in place part by part (issue 45: a process's row, a breakpoint's form, a
//! paused call's card), applied one at a time, in the order they came: a part never shows an
//! older state than one it showed, and a hot source of events costs one fetch at a time.

use std::collections::VecDeque;
use std::future::Future;

use leptos::prelude::*;

/// A queue of changes: the answer takes one change, applies it after those waiting, and bumps
/// `refresh` when `apply` says only a whole render can show it (false). A change equal to one
/// still waiting is dropped when `covers` says so: applied later, from the server's newest
/// state, the waiting one shows it too.
pub fn queue<T, Fut>(
    refresh: RwSignal<u64>,
    covers: fn(&T) -> bool,
    apply: impl Fn(T) -> Fut + Copy + 'static,
) -> impl Fn(T) + Copy + 'static
where
    T: PartialEq + Send + Sync + 'static,
    Fut: Future<Output = bool> + 'static,
{
    let waiting = StoredValue::new(VecDeque::<T>::new());
    let running = StoredValue::new(false);
    move |change: T| {
        waiting.update_value(|w| {
            if !(covers(&change) && w.contains(&change)) {
                w.push_back(change);
            }
        });
        if running.get_value() {
            return;
        }
        running.set_value(true);
        leptos::task::spawn_local(async move {
            while let Some(next) = waiting.try_update_value(|w| w.pop_front()).flatten() {
                if !apply(next).await {
                    refresh.update(|n| *n += 1);
                }
            }
            running.set_value(false);
        });
    }
}
