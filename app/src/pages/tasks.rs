//! `/process/{id}/tasks` (issue 51): a program's asyncio tasks as a tree of who awaits whom, from
//! typed data (`crate::task_tree`). Everything in it is the program's text, shown as text. Reading
//! the tasks asks the program, so the page reads them again only when a pause of this program
//! changes what they show (a task's "Paused" link) or a task was paused or cancelled from here
//! (a debugger's Pause, an admin's Cancel).

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::encoding::data_resource;
use crate::live::use_live;
use crate::pages::{NotFound, PageTitle};
use crate::task_tree::{TaskNode, TaskTree};
use crate::tasks_api::{order_task, tasks_of};

/// The Pause and Cancel buttons (one click handler for the page reads which task from its row,
/// and which order from the button's class).
const ORDER_SELECTOR: &str = "button.pause-task, button.cancel-task";
const PAUSE_CLASS: &str = "pause-task";

#[component]
pub fn TasksPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("process_id").unwrap_or_default();
    let live = use_live();
    let ordered = RwSignal::new(0u32);
    // Reading the tasks asks the program: only a pause or a Continue of this program's own
    // calls reads them again (and a reconnect, which may have missed one).
    let keys = RwSignal::new(Vec::<String>::new());
    let paused_here = RwSignal::new(0u32);
    Effect::new(move |first: Option<()>| {
        let key = live.paused.with(|event| event.as_deref().and_then(|e| crate::live::read(e, "process_key")));
        if first.is_some() && key.is_some_and(|key| keys.with_untracked(|keys| keys.contains(&key))) {
            paused_here.update(|n| *n += 1);
        }
    });
    let tasks =
        data_resource(move || (id(), paused_here.get(), live.reconnects.get(), ordered.get()), |(id, ..)| tasks_of(id));
    Effect::new(move || {
        if let Some(Ok(Some(tree))) = tasks.get() {
            keys.set(tree.process_keys);
        }
    });
    // The last order's answer, or why it was refused.
    let said = RwSignal::new(None::<Result<String, String>>);
    let on_click = move |ev: leptos::ev::MouseEvent| {
        use wasm_bindgen::JsCast;
        let Some(target) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
        let Some(button) = target.closest(ORDER_SELECTOR).ok().flatten() else { return };
        let pause = button.class_list().contains(PAUSE_CLASS);
        let Some(task_id) = button.closest("li.task").ok().flatten().and_then(|row| row.get_attribute("data-task-id"))
        else {
            return;
        };
        let _ = button.set_attribute("disabled", "");
        let process_id = params.read_untracked().get("process_id").unwrap_or_default();
        leptos::task::spawn_local(async move {
            let answer = order_task(process_id, task_id, pause).await.map_err(|e| e.to_string());
            let _ = button.remove_attribute("disabled");
            said.set(Some(answer));
            ordered.update(|n| *n += 1);
        });
    };
    let outcome = move || {
        said.get().map(|answer| match answer {
            Ok(text) => view! { <p class="notice task-order">{text}</p> }.into_any(),
            Err(why) => view! { <p class="error task-order">{why}</p> }.into_any(),
        })
    };
    view! {
        {outcome}
        <div on:click=on_click>
            <Transition fallback=|| view! { <p class="hint">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match tasks.await {
                        Err(e) => view! { <p class="error">{e.to_string()}</p> }.into_any(),
                        Ok(None) => view! { <NotFound/> }.into_any(),
                        Ok(Some(tree)) => tree_view(tree).into_any(),
                    }
                })}
            </Transition>
        </div>
    }
}

fn tree_view(tree: TaskTree) -> impl IntoView {
    let TaskTree { process_name, process_id, count, paused, roots, .. } = tree;
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

/// One task, then the tasks awaiting it. A running or pending one has Pause and Cancel buttons (the
/// server refuses them to viewers, and Cancel to anyone but an admin; a refusal shows above the
/// list).
fn task_item(task: TaskNode) -> AnyView {
    let TaskNode { id, name, state, pause_id, awaiting, stack, awaited_by } = task;
    let cancellable = matches!(state.as_str(), "running" | "pending").then(|| {
        view! {
            " " <button class="pause-task debug-control">"Pause"</button>
            " " <button class="cancel-task admin-only">"Cancel"</button>
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
        view! { <ul class="task-tree">{awaited_by.into_iter().map(task_item).collect_view()}</ul> }
    });
    view! {
        <li class=class data-task-id=id>
            <span class="task-name">{name}</span> " " <span class="task-state">{state}</span>
            {cancellable} {pause} {awaits} {stack} {children}
        </li>
    }
    .into_any()
}
