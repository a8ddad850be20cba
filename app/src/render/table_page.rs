//! `/repl/{session}/table/{handle}`: every row of a table an eval showed, a page at a time and
//! sortable by any column, read from the live object in the paused program (issue 52). Plain
//! links, no script: the server renders it alone, like the timeline, so the wasm stays as it is.

use maud::{html, Markup};

use breakroom_debugger::outputs::Table;

/// What the page shows: the session and handle it reads, and the page asked for.
pub struct TableView<'a> {
    pub session_id: &'a str,
    pub handle: &'a str,
    pub offset: u64,
    pub limit: u64,
    pub sort: Option<&'a str>,
    pub descending: bool,
}

impl TableView<'_> {
    fn link(&self, offset: u64, sort: Option<&str>, descending: bool) -> String {
        let mut href = format!("/repl/{}/table/{}?offset={offset}&limit={}", self.session_id, self.handle, self.limit);
        if let Some(sort) = sort {
            href.push_str("&sort=");
            href.push_str(&super::encode(sort));
            if descending {
                href.push_str("&descending=true");
            }
        }
        href
    }
}

pub fn table_page(view: &TableView, table: &Table) -> Markup {
    let shown = table.rows.len() as u64;
    let last = view.offset + shown;
    html! {
        p.back { a href={ "/repl/" (view.session_id) } { "← the REPL session" } }
        h1 { "Table " (view.handle) }
        p.hint.table-shape {
            @if shown == 0 { "no rows here" } @else { "rows " (view.offset + 1) "–" (last) } " of " (table.row_count)
            @if let Some(sort) = view.sort { " · sorted by " (sort) @if view.descending { ", largest first" } }
        }
        nav.table-pages {
            @if view.offset > 0 {
                a.prev href=(view.link(view.offset.saturating_sub(view.limit), view.sort, view.descending)) { "← previous" }
            }
            @if last < table.row_count {
                a.next href=(view.link(last, view.sort, view.descending)) { "next →" }
            }
        }
        div.rich-table {
            div.table-scroll.full {
                table {
                    thead {
                        tr {
                            th {}
                            @for column in &table.columns {
                                @let descending = view.sort == Some(column.as_str()) && !view.descending;
                                th { a.sort href=(view.link(0, Some(column), descending)) title="sort by this column" { (column) } }
                            }
                        }
                    }
                    tbody {
                        @for (i, row) in table.rows.iter().enumerate() {
                            tr {
                                th.row-label { (table.index.get(i).map(String::as_str).unwrap_or("")) }
                                @for cell in row { td { (cell) } }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The page once the object is no longer there (the pause ended or moved on).
pub fn gone(session_id: &str, message: &str) -> Markup {
    html! {
        p.back { a href={ "/repl/" (session_id) } { "← the REPL session" } }
        h1 { "Table gone" }
        p.empty { (message) }
    }
}

/// `/repl/{session}/view?path=…`: a panel row's value in its rich forms (the panel's "view").
pub fn view_page(session_id: &str, name: &str, view: &breakroom_debugger::outputs::View) -> Markup {
    html! {
        p.back { a href={ "/repl/" (session_id) } { "← the REPL session" } }
        h1 { (name) }
        @if view.outputs.is_empty() {
            pre.output { (view.text) }
        } @else {
            (super::outputs::rich_outputs(&view.outputs, Some(session_id)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_programs_column_names_cells_and_sort_never_become_markup() {
        let table = Table {
            columns: vec!["<script>alert(1)</script>".into()],
            index: vec!["<b>0</b>".into()],
            rows: vec![vec!["<img src=x onerror=alert(2)>".into()]],
            row_count: 1,
            ..Table::default()
        };
        let view = TableView {
            session_id: "1-2.5",
            handle: "t1",
            offset: 0,
            limit: 100,
            sort: Some("\"><x>"),
            descending: false,
        };
        let html = table_page(&view, &table).into_string();
        assert!(
            !html.contains("<script>") && !html.contains("<img") && !html.contains("<b>0") && !html.contains("\"><x>"),
            "{html}"
        );
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;")
                && html.contains("sort=%3Cscript%3Ealert%281%29%3C%2Fscript%3E"),
            "{html}"
        );
    }
}
