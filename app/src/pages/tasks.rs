//! `/process/{id}/tasks` (issue 51): a program's asyncio tasks as a tree of who awaits whom, from
//! typed data (`crate::task_tree`). Everything in it is the program's text, shown as text. Reading
//! the tasks asks the program, so the page reads them again only when a pause changes what they
//! show (a task's "Paused" link).

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::encoding::data_resource;
use crate::live::use_live;
use crate::pages::{NotFound, PageTitle};
use crate::task_tree::{TaskNode, TaskTree};
use crate::tasks_api::tasks_of;

#[component]
pub fn TasksPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("process_id").unwrap_or_default();
    let live = use_live();
    let tasks = data_resource(move || (id(), live.pauses.get()), |(id, _)| tasks_of(id));
    view! {
        <Transition fallback=|| view! { <p class="hint">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match tasks.await {
                    Err(e) => view! { <p class="error">{e.to_string()}</p> }.into_any(),
                    Ok(None) => view! { <NotFound/> }.into_any(),
                    Ok(Some(tree)) => tree_view(tree).into_any(),
                }
            })}
        </Transition>
    }
}

fn tree_view(tree: TaskTree) -> impl IntoView {
    let TaskTree { process_name, process_id, count, paused, roots } = tree;
    let body = if count == 0 {
        view! { <p class="empty">"No asyncio task runs in this program."</p> }.into_any()
    } else {
        view! { <ul class="task-tree">{roots.into_iter().map(task_item).collect_view()}</ul> }.into_any()
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

/// One task, then the tasks awaiting it.
fn task_item(task: TaskNode) -> AnyView {
    let TaskNode { id, name, state, pause_id, awaiting, stack, awaited_by } = task;
    let class = format!("task state-{state}");
    let pause = pause_id.map(|pause| {
        view! { " " <a class="button" href=format!("/callstack/{pause}")>"Paused: call stack"</a> }
    });
    let awaits = awaiting.map(|what| view! { " " <span class="awaiting">{format!("awaits {what}")}</span> });
    let stack = (!stack.is_empty()).then(|| {
        view! { <ol class="task-stack">{stack.into_iter().map(|f| view! { <li class="mono">{f}</li> }).collect_view()}</ol> }
    });
    let children = (!awaited_by.is_empty()).then(|| {
        view! { <ul class="task-tree">{awaited_by.into_iter().map(task_item).collect_view()}</ul> }
    });
    view! {
        <li class=class data-task-id=id>
            <span class="task-name">{name}</span> " " <span class="task-state">{state}</span>
            {pause} {awaits} {stack} {children}
        </li>
    }
    .into_any()
}
