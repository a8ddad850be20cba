//! A REPL session's transcript on its page (issue 45): typed entries rendered here, escaped by
//! construction. It opens at the newest [`PAGE_ENTRIES`]; earlier ones load on demand. An eval's
//! answer is appended from the eval's own reply, and every other viewer's from the live event that
//! carries it: nothing refetches the transcript. Only a gap (the live stream was away) fetches
//! what is missing, and only that.

use std::sync::Arc;

use leptos::prelude::*;

use breakroom_debugger::model::Language;
use breakroom_debugger::outputs::Table;

use crate::api::repl_entries;
use crate::highlight;
use crate::transcript::{Part, ShownEntry, ShownOutput, TranscriptPage, PAGE_ENTRIES};

/// The entries a page holds: `first_index..first_index + entries.len()` of the session's.
#[derive(Clone, Copy)]
pub struct TranscriptState {
    session_id: StoredValue<String>,
    pub entries: RwSignal<Vec<Arc<ShownEntry>>>,
    pub first_index: RwSignal<usize>,
    pub language: RwSignal<Language>,
    pub started_ms: RwSignal<i64>,
    /// A fetch of missing or earlier entries is under way.
    fetching: RwSignal<bool>,
}

impl TranscriptState {
    pub fn new() -> Self {
        TranscriptState {
            session_id: StoredValue::new(String::new()),
            entries: RwSignal::new(vec![]),
            first_index: RwSignal::new(0),
            language: RwSignal::new(Language::Python),
            started_ms: RwSignal::new(0),
            fetching: RwSignal::new(false),
        }
    }

    /// What the page opened with.
    pub fn load(&self, session_id: &str, page: TranscriptPage) {
        self.session_id.set_value(session_id.to_string());
        self.language.set(page.language);
        self.started_ms.set(page.started_ms);
        self.first_index.set(page.first_index);
        self.entries.set(page.entries.into_iter().map(Arc::new).collect());
    }

    /// The index the next entry will have.
    fn next_index(&self) -> usize {
        self.first_index.get_untracked() + self.entries.with_untracked(Vec::len)
    }

    /// A new entry, from the eval's reply or the live stream (whichever comes first; the other is
    /// the same entry). One past a gap fetches what the gap holds.
    pub fn add(&self, entry: ShownEntry) {
        let next = self.next_index();
        if entry.index == next {
            self.entries.update(|list| list.push(Arc::new(entry)));
        } else if entry.index > next {
            self.catch_up();
        }
    }

    /// The entry a live `transcript_appended` event carries (its JSON text).
    pub fn add_event(&self, event: &str) {
        #[cfg(feature = "hydrate")]
        if let Some(entry) = crate::transcript::browser::appended(event, &self.session_id.get_value()) {
            self.add(entry);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = event;
    }

    /// Fetches every entry after the last one held (after a gap, or a reconnect of the stream).
    pub fn catch_up(&self) {
        let state = *self;
        let start = self.next_index();
        self.fetch(start, usize::MAX, move |page| state.append_page(page));
    }

    fn append_page(&self, page: TranscriptPage) {
        for entry in page.entries {
            if entry.index == self.next_index() {
                self.entries.update(|list| list.push(Arc::new(entry)));
            }
        }
    }

    /// The [`PAGE_ENTRIES`] before the first one held (all of them with `all`), put in front.
    pub fn load_earlier(&self, all: bool, then: impl FnOnce() + 'static) {
        let state = *self;
        let end = self.first_index.get_untracked();
        let start = if all { 0 } else { end.saturating_sub(PAGE_ENTRIES) };
        self.fetch(start, end, move |page| {
            if page.first_index + page.entries.len() == state.first_index.get_untracked() {
                state.first_index.set(page.first_index);
                state.entries.update(|list| {
                    let earlier = page.entries.into_iter().map(Arc::new);
                    *list = earlier.chain(list.drain(..)).collect();
                });
            }
            then();
        });
    }

    fn fetch(&self, start: usize, end: usize, done: impl FnOnce(TranscriptPage) + 'static) {
        if start >= end || self.fetching.get_untracked() {
            return;
        }
        self.fetching.set(true);
        let (state, session_id) = (*self, self.session_id.get_value());
        leptos::task::spawn_local(async move {
            let page = repl_entries(session_id, start, end).await;
            state.fetching.set(false);
            if let Ok(Some(page)) = page {
                done(page);
            }
        });
    }

    /// The inputs typed in the session, oldest first (what ↑/↓ walk).
    pub fn inputs(&self) -> Vec<String> {
        self.entries
            .with_untracked(|list| list.iter().filter(|e| !e.input.is_empty()).map(|e| e.input.clone()).collect())
    }

    /// The entries' times in seconds, after the session's start (the replay's pace).
    pub fn times(&self) -> Vec<f64> {
        let start = self.started_ms.get_untracked();
        std::iter::once(start)
            .chain(self.entries.with_untracked(|list| list.iter().map(|e| e.ms).collect::<Vec<_>>()))
            .map(|ms| ms as f64 / 1000.0)
            .collect()
    }
}

/// The transcript: a button for earlier entries when there are any, then the entries.
/// `replaying`: while a replay runs, how many entries it shows.
#[component]
pub fn Transcript(state: TranscriptState, active: Signal<bool>, replaying: Signal<Option<usize>>) -> impl IntoView {
    let earlier = move || {
        let first = state.first_index.get();
        (first > 0).then(|| {
            view! {
                <button class="transcript-earlier" disabled=move || state.fetching.get()
                    on:click=move |_| state.load_earlier(false, || {})>
                    {format!("Show earlier entries ({first} more)")}
                </button>
            }
        })
    };
    let hint = move || {
        let empty = state.first_index.get() == 0 && state.entries.with(Vec::is_empty);
        empty.then(|| {
            let text = match (active.get(), state.language.get()) {
                (true, Language::Python) => {
                    "Type Python below: it runs inside the paused program, with the call's variables in scope."
                }
                (true, Language::Javascript) => {
                    "Type JavaScript below: it runs inside the paused program, with the call's arguments in scope."
                }
                (false, _) => "This session ended without any input.",
            };
            view! { <p class="hint">{text}</p> }
        })
    };
    view! {
        <div class="transcript-area">
        {earlier}
        {hint}
        <ol class="transcript" data-ms=move || state.started_ms.get()>
            <For each=move || state.entries.get() key=|entry| entry.index let:entry>
                <Entry
                    hidden=Signal::derive({
                        let index = entry.index;
                        move || replaying.get().is_some_and(|n| index >= n)
                    })
                    language=state.language.get_untracked()
                    entry
                />
            </For>
        </ol>
        </div>
    }
}

#[component]
fn Entry(entry: Arc<ShownEntry>, language: Language, hidden: Signal<bool>) -> impl IntoView {
    // A step's mark (`→ prog.py:12 in checkout`): no input, not an eval.
    if entry.input.is_empty() {
        return view! {
            <li class="entry step-mark" class:replay-hidden=hidden data-input="" data-ms=entry.ms>
                {entry.output.clone()}
            </li>
        }
        .into_any();
    }
    let stdout = (!entry.stdout.is_empty()).then(|| view! { <pre class="stdout">{entry.stdout.clone()}</pre> });
    let output = (!entry.output.is_empty() && entry.repr_shown)
        .then(|| view! { <pre class="output" class:error=entry.is_error>{entry.output.clone()}</pre> });
    let outputs = entry.outputs.iter().map(rich_output).collect_view();
    let stored = entry.result_cid.as_ref().map(|cid| {
        view! { <a class="object-link hint" href=format!("/object/{cid}") title="the stored value">"stored value"</a> }
    });
    view! {
        <li class="entry" class:failed=entry.is_error class:replay-hidden=hidden
            data-input=entry.input.clone() data-ms=entry.ms>
            {input_lines(&entry.input, language)}
            {stdout}
            {output}
            {outputs}
            {stored}
        </li>
    }
    .into_any()
}

/// REPL input as its language's prompt shows it (Python `>>> `, Node `> `, then `... `),
/// highlighted in that language: each token a span whose class is the token's kind.
fn input_lines(text: &str, language: Language) -> impl IntoView {
    let first = match language {
        Language::Python => ">>> ",
        Language::Javascript => "> ",
    };
    let lines = text.split('\n').enumerate().map(|(i, line)| {
        let tokens = highlight::tokens_in(line, language)
            .into_iter()
            .map(|(kind, piece)| view! { <span class=kind.class()>{piece}</span> })
            .collect_view();
        view! {
            {(i > 0).then_some("\n")}
            <span class="prompt">{if i == 0 { first } else { "... " }}</span>
            {tokens}
        }
    });
    view! { <pre class="input">{lines.collect_view()}</pre> }
}

fn rich_output(output: &ShownOutput) -> impl IntoView {
    let parts = output.parts.iter().map(part).collect_view();
    let row_count = output.parts.iter().find_map(|p| match p {
        Part::Table(table) => Some(table.row_count),
        _ => None,
    });
    let link = output.table_href.clone().zip(row_count).map(|(href, rows)| {
        // A page the server renders alone: the app's router must not take the click.
        view! { <a class="table-link" href=href rel="external">{format!("all {rows} rows, sortable →")}</a> }
    });
    let notes = output.notes.iter().map(|note| view! { <p class="hint rich-note">{note.clone()}</p> }).collect_view();
    view! {
        <div class="rich-output" data-output-type=output.output_type.clone()>
            {parts}
            {link}
            {notes}
        </div>
    }
}

fn part(part: &Part) -> AnyView {
    match part {
        Part::Text(text) => view! { <pre class="rich-text">{text.clone()}</pre> }.into_any(),
        Part::Image { src, alt } => view! { <img class="rich-image" src=src.clone() alt=alt.clone()/> }.into_any(),
        Part::Table(table) => table_view(table).into_any(),
        // An empty sandbox: no scripts, no same-origin, no forms, no navigation of this page.
        Part::Html(srcdoc) => view! {
            <iframe class="rich-html" sandbox="" referrerpolicy="no-referrer"
                title="HTML the value showed (sandboxed)" srcdoc=srcdoc.clone()></iframe>
        }
        .into_any(),
        Part::Plain(text) => view! { <pre class="output">{text.clone()}</pre> }.into_any(),
    }
}

fn table_view(table: &Table) -> impl IntoView {
    let shown = table.rows.len();
    let columns = table.column_count.max(table.columns.len() as u64);
    let mut shape = format!("{} rows × {columns} columns", table.row_count);
    if (shown as u64) < table.row_count {
        shape.push_str(&format!(" · the first {shown} shown"));
    }
    let dtypes = (!table.dtypes.is_empty()).then(|| {
        let text: Vec<String> = table.dtypes.iter().map(|(column, dtype)| format!("{column}: {dtype}")).collect();
        view! { <p class="hint table-dtypes">{text.join(", ")}</p> }
    });
    let labelled = !table.index.is_empty();
    let head = table.columns.iter().map(|c| view! { <th>{c.clone()}</th> }).collect_view();
    let rows = table
        .rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let label = labelled.then(|| {
                let text = table.index.get(i).cloned();
                let labelled = text.is_some();
                view! { <th class:row-label=labelled>{text}</th> }
            });
            let cells = row.iter().map(|cell| view! { <td>{cell.clone()}</td> }).collect_view();
            view! { <tr>{label}{cells}</tr> }
        })
        .collect_view();
    view! {
        <div class="rich-table">
            <p class="hint table-shape">{shape}</p>
            {dtypes}
            <div class="table-scroll">
                <table>
                    <thead><tr>{labelled.then(|| view! { <th></th> })}{head}</tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </div>
    }
}
