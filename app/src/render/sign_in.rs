//! `/login` and `/audit` (issue 48), rendered by the server alone: no wasm, so they cost the
//! app's shared chunk nothing. Everything shown is text (maud escapes it).

use maud::{html, Markup, DOCTYPE};

/// The sign-in page: a token, kept by the browser as an HttpOnly session cookie.
pub fn sign_in_page(next: &str, problem: Option<&str>) -> String {
    sign_in_page_with(next, problem, None)
}

/// An identity provider `/login` offers beside the token form (issue 49).
pub struct ProviderLink<'a> {
    /// What the button names: the issuer's host.
    pub name: &'a str,
    /// `/login/oidc?next=…`.
    pub start: &'a str,
    /// Why the provider could not be reached last time it was asked, if it could not.
    pub unreachable: Option<&'a str>,
}

/// The sign-in page, with a "Sign in with …" link when an identity provider is configured.
pub fn sign_in_page_with(next: &str, problem: Option<&str>, provider: Option<&ProviderLink<'_>>) -> String {
    let html = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                link rel="icon" href="/favicon.svg" type="image/svg+xml";
                title { "Sign in · Breakroom" }
                link rel="stylesheet" href="/pkg/breakroom.css";
            }
            body {
                header.topbar { a.brand href="/login" { "Breakroom" } }
                main.sign-in {
                    h1 { "Sign in" }
                    p { "Paste the token " code { "breakroom user add" } " printed for you, or an admin gave you." }
                    @if let Some(problem) = problem {
                        p.error role="alert" { (problem) }
                    }
                    form method="post" action="/login" {
                        input type="hidden" name="next" value=(next);
                        label for="token" { "Token" }
                        input #token type="password" name="token" autocomplete="current-password" required autofocus;
                        button type="submit" { "Sign in" }
                    }
                    @if let Some(provider) = provider {
                        section.provider {
                            p { "Or sign in through your organisation's identity provider:" }
                            a.button.provider-sign-in href=(provider.start) { "Sign in with " (provider.name) }
                            @if let Some(why) = provider.unreachable {
                                p.error role="alert" { (why) }
                            }
                        }
                    }
                }
            }
        }
    };
    html.into_string()
}

/// A page of its own for the sign-in through a provider: signed in (then on to `next`), or why
/// not. Server-rendered like `/login`.
fn plain_page(title: &str, head_extra: Option<Markup>, body: Markup) -> String {
    let html = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                @if let Some(extra) = head_extra { (extra) }
                link rel="icon" href="/favicon.svg" type="image/svg+xml";
                title { (title) " · Breakroom" }
                link rel="stylesheet" href="/pkg/breakroom.css";
            }
            body {
                header.topbar { a.brand href="/login" { "Breakroom" } }
                main.sign-in { (body) }
            }
        }
    };
    html.into_string()
}

/// Signed in through the provider: the browser goes on to `next` by itself. A page rather than
/// a redirect because the sign-in cookie is SameSite=Strict, and a browser does not send it on
/// a redirect at the end of a chain the provider's site started; a navigation this page starts
/// is the server's own.
pub fn signed_in_page(who: &str, next: &str) -> String {
    let refresh = html! { meta http-equiv="refresh" content=(format!("0;url={next}")); };
    plain_page(
        "Signed in",
        Some(refresh),
        html! {
            h1 { "Signed in" }
            p { "Signed in as " strong.who { (who) } "." }
            p { a href=(next) { "Continue" } }
        },
    )
}

/// A sign-in through the provider that did not give access: what went wrong, and the way back.
pub fn sign_in_refused_page(title: &str, problem: &str) -> String {
    plain_page(
        title,
        None,
        html! {
            h1 { (title) }
            p.error role="alert" { (problem) }
            p { a href="/login" { "Back to sign-in" } }
        },
    )
}

/// One audit record as the page shows it.
pub struct AuditRow<'a> {
    pub time: String,
    pub actor: &'a str,
    pub role: &'a str,
    pub door: &'a str,
    pub remote: &'a str,
    pub action: &'a str,
    pub target: String,
    pub outcome: &'a str,
    pub status: u16,
    pub detail: String,
}

/// The filters the audit page was asked for.
pub struct AuditFilters<'a> {
    pub user: &'a str,
    pub action: &'a str,
    pub process: &'a str,
    pub live: bool,
}

/// The audit page, for admins: newest first, filtered, refreshed every 2 s when live.
pub fn audit_page(rows: &[AuditRow<'_>], filters: &AuditFilters<'_>, signed_in: &str) -> String {
    let main = html! {
        h1 { "Audit" }
        form.filters method="get" action="/audit" {
            label { "User " input type="text" name="user" value=(filters.user); }
            label { "Action " input type="text" name="action" value=(filters.action); }
            label { "Process " input type="text" name="process" value=(filters.process); }
            label { input type="checkbox" name="live" value="1" checked[filters.live]; " Live" }
            button type="submit" { "Filter" }
        }
        @if rows.is_empty() {
            section.empty { p { "No audit records match." } }
        } @else {
            table.audit {
                thead { tr { th { "Time" } th { "Who" } th { "Door" } th { "From" } th { "Action" } th { "Target" } th { "Outcome" } th { "Given" } } }
                tbody {
                    @for row in rows {
                        tr class=(format!("outcome-{}", row.outcome)) {
                            td { (row.time) }
                            td { (row.actor) " (" (row.role) ")" }
                            td { (row.door) }
                            td { (row.remote) }
                            td { code { (row.action) } }
                            td { (row.target) }
                            td { (row.outcome) @if row.status > 0 { " " (row.status) } }
                            td { pre { (row.detail) } }
                        }
                    }
                }
            }
        }
    };
    let page = super::shell::page("Audit", "audit", main);
    let refresh = if filters.live { r#"<meta http-equiv="refresh" content="2">"# } else { "" };
    page.replacen("<head>", &format!("<head>{refresh}"), 1).replacen(
        "</header>",
        &format!("{}</header>", signed_in_markup(signed_in).into_string()),
        1,
    )
}

/// "alice (admin) · Sign out", for the top bar.
pub fn signed_in_markup(who: &str) -> Markup {
    html! {
        @if !who.is_empty() {
            p.signed-in { span.who { (who) } " · " a href="/logout" { "Sign out" } }
        }
    }
}
