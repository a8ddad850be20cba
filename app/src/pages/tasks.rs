//! `/process/{id}/tasks` (issue 51): a program's asyncio tasks as a tree of who awaits whom, from
//! typed data (`crate::task_tree`). Everything in it is the program's text, shown as text. Reading
//! the tasks asks the program, so the page reads them again only when a pause changes what they
//! show (a task's "Paused" link) or a task was cancelled from here (an admin's button).

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::encoding::data_resource;
use crate::live::use_live;
use crate::pages::{NotFound, PageTitle};
use crate::task_tree::{TaskNode, TaskTree};
use crate::tasks_api::{cancel_task, tasks_of};

/// What a Cancel button calls with the task's id.
type Cancel = Callback<String>;

#[component]
pub fn TasksPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("process_id").unwrap_or_default();
    let live = use_live();
    let cancelled = RwSignal::new(0u32);
    let tasks = data_resource(move || (id(), live.pauses.get(), cancelled.get()), |(id, _, _)| tasks_of(id));
    // The last cancel's answer (or refusal), and whether one is under way.
    let said = RwSignal::new(None::<Result<String, String>>);
    let busy = RwSignal::new(false);
    let cancel = Callback::new(move |task_id: String| {
        let process_id = params.read_untracked().get("process_id").unwrap_or_default();
        busy.set(true);
        leptos::task::spawn_local(async move {
            let answer = cancel_task(process_id, task_id).await.map_err(|e| e.to_string());
            said.set(Some(answer));
            busy.set(false);
            cancelled.update(|n| *n += 1);
        });
    });
    let outcome = move || {
        said.get().map(|answer| match answer {
            Ok(text) => view! { <p class="notice task-cancelled">{text}</p> }.into_any(),
            Err(why) => view! { <p class="error task-cancelled">{why}</p> }.into_any(),
        })
    };
    view! {
        {outcome}
        <Transition fallback=|| view! { <p class="hint">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match tasks.await {
                    Err(e) => view! { <p class="error">{e.to_string()}</p> }.into_any(),
                    Ok(None) => view! { <NotFound/> }.into_any(),
                    Ok(Some(tree)) => tree_view(tree, cancel, busy).into_any(),
                }
            })}
        </Transition>
    }
}

fn tree_view(tree: TaskTree, cancel: Cancel, busy: RwSignal<bool>) -> impl IntoView {
    let TaskTree { process_name, process_id, count, paused, roots } = tree;
    let body = if count == 0 {
        view! { <p class="empty">"No asyncio task runs in this program."</p> }.into_any()
    } else {
        view! { <ul class="task-tree">{roots.into_iter().map(|t| task_item(t, cancel, busy)).collect_view()}</ul> }
            .into_any()
    };
    // Whole sentences as one text each: the server's HTML reads as the page does (Leptos marks
    // the seams between a page's separate texts).
    let title = format!("Tasks · {process_name}");
    let counts = format!("{count} asyncio tasks, {paused} paused by Breakroom (read without stopping the loop)");
    view! {
        <PageTitle text=title.clone()/>
        <header class="page-header">
            <h1>{title}</h1>
            <p class="hint">{counts}</p>
            <nav class="links"><a class="button" href=format!("/process/{process_id}")>"Process"</a></nav>
        </header>
        <section class="tasks">{body}</section>
    }
}

/// One task, then the tasks awaiting it. A running or pending one has a Cancel button (the server
/// refuses it to anyone but an admin, and the refusal shows above the list).
fn task_item(task: TaskNode, cancel: Cancel, busy: RwSignal<bool>) -> AnyView {
    let TaskNode { id, name, state, pause_id, awaiting, stack, awaited_by } = task;
    let cancellable = matches!(state.as_str(), "running" | "pending").then(|| {
        let task_id = id.clone();
        view! {
            " "
            <button class="cancel-task" disabled=move || busy.get() on:click=move |_| cancel.run(task_id.clone())>
                "Cancel"
            </button>
        }
    });
    let class = format!("task state-{state}");
    let pause = pause_id.map(|pause| {
        view! { " " <a class="button" href=format!("/callstack/{pause}")>"Paused: call stack"</a> }
    });
    let awaits = awaiting.map(|what| view! { " " <span class="awaiting">{format!("awaits {what}")}</span> });
    let stack = (!stack.is_empty()).then(|| {
        view! { <ol class="task-stack">{stack.into_iter().map(|f| view! { <li class="mono">{f}</li> }).collect_view()}</ol> }
    });
    let children = (!awaited_by.is_empty()).then(|| {
        view! { <ul class="task-tree">{awaited_by.into_iter().map(|t| task_item(t, cancel, busy)).collect_view()}</ul> }
    });
    view! {
        <li class=class data-task-id=id>
            <span class="task-name">{name}</span> " " <span class="task-state">{state}</span>
            {cancellable} {pause} {awaits} {stack} {children}
        </li>
    }
    .into_any()
}
