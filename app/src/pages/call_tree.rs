//! `/call-tree` (the debugged processes) and `/call-tree/{process_key}` (one process's calls as
//! a tree, with REPL badges on calls that had sessions).

use breakroom_debugger::model::CallTreeNode;
use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::api::{get_call_tree, list_processes, server_resource};
use crate::format::timestamp;
use crate::live::use_live;
use crate::pages::NotFound;

#[component]
pub fn ProcessesPage() -> impl IntoView {
    let live = use_live();
    let processes = server_resource(move || live.calls.get(), |_| list_processes());
    view! {
        <h1>"Call trees"</h1>
        <Transition fallback=|| view! { <p class="hint">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match processes.await {
                    Err(e) => view! { <p class="error">{e.to_string()}</p> }.into_any(),
                    Ok(list) if list.is_empty() => view! {
                        <section class="empty">
                            <p>"No calls recorded yet."</p>
                            <p class="hint">"Every call a debugged program reports is recorded here, one tree per process."</p>
                        </section>
                    }.into_any(),
                    Ok(list) => view! {
                        <div class="table-wrap">
                        <table class="processes">
                            <thead><tr><th>"Process"</th><th>"PID"</th><th>"Calls"</th><th>"Paused"</th>
                                <th>"REPL sessions"</th><th>"First call"</th><th>"Last call"</th></tr></thead>
                            <tbody>
                                {list.into_iter().map(|p| view! {
                                    <tr>
                                        <td class="mono"><a href=format!("/call-tree/{}", p.process_key)>{p.process_key.clone()}</a></td>
                                        <td class="pid">{p.pid}</td>
                                        <td class="num">{p.calls}</td>
                                        <td class="num">{p.paused}</td>
                                        <td class="num">{p.repl_sessions}</td>
                                        <td>{timestamp(p.first_call_at)}</td>
                                        <td>{timestamp(p.last_call_at)}</td>
                                    </tr>
                                }).collect_view()}
                            </tbody>
                        </table>
                        </div>
                    }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
pub fn CallTreePage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let process_key = move || params.read().get("process_key").unwrap_or_default();
    let selected = move || query.read().get("selected").unwrap_or_default();
    let live = use_live();
    let tree = server_resource(
        move || (process_key(), live.calls.get(), live.sessions.get()),
        |(key, _, _)| get_call_tree(key),
    );
    view! {
        <Transition fallback=|| view! { <p class="hint">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match tree.await {
                    Err(e) => view! { <p class="error">{e.to_string()}</p> }.into_any(),
                    Ok(None) => view! { <NotFound/> }.into_any(),
                    Ok(Some(nodes)) => view! {
                        <h1>"Call tree of process " <span class="mono">{process_key()}</span></h1>
                        <p class="hint">{format!("{} calls. Calls with REPL sessions carry a REPL badge.", nodes.len())}</p>
                        <ol class="call-tree">
                            {nodes.into_iter().map(|node| view! { <Node node selected=selected()/> }).collect_view()}
                        </ol>
                    }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Node(node: CallTreeNode, selected: String) -> impl IntoView {
    let is_selected = node.call_id == selected;
    let class = format!("call-node status-{}{}", node.status, if is_selected { " selected" } else { "" });
    let indent = format!("--depth: {}", node.depth);
    let outcome = match node.status.as_str() {
        "running" => Some("running…".to_string()),
        _ => node.result_text.clone().map(|r| format!("→ {r}")),
    };
    let pause = node.pause_ids.last().cloned();
    view! {
        <li class=class style=indent id=format!("call-{}", node.call_id) data-call-id=node.call_id.clone()>
            <span class="fn-name">{node.function_name.clone()}</span>
            "(" <span class="args">{node.args_text.join(", ")}</span> ")"
            {outcome.map(|o| view! { <span class="result">" " {o}</span> })}
            <span class="when hint">{timestamp(node.started_at)}</span>
            {pause.map(|p| view! { <a class="stack-link" href=format!("/callstack/{p}")>"stack"</a> })}
            {node.repl_sessions.into_iter().map(|s| view! {
                <a class="badge repl" href=format!("/repl/{}", s.session_id) title=format!("REPL session {}", s.session_id)>"REPL"</a>
            }).collect_view()}
        </li>
    }
}
