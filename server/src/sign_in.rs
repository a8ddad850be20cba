//! Signing in from a browser (issue 48): `/login` takes a token and sets an HttpOnly,
//! SameSite=Strict session cookie that expires (`users::SIGN_IN_FOR`); `/logout` ends it. The
//! owner's `--token` is kept as the `breakroom_token` cookie instead, as `?token=` does. Also
//! the `/audit` page, for admins.

use std::sync::Arc;

use axum::extract::{Query, RawQuery, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::{Extension, Form};
use breakroom_app::render::sign_in::{audit_page, AuditFilters, AuditRow};
use breakroom_debugger::audit::{AuditQuery, AuditRecord, Door, Outcome};
use breakroom_debugger::users::{Holder, Identity, Need, SIGN_IN_FOR};
use breakroom_debugger::Debugger;
use serde::Deserialize;
use serde_json::Value;

use crate::access::{cookie, Access, Caller, SESSION_COOKIE};
use crate::oidc::Oidc;

#[derive(Deserialize)]
pub struct SignInForm {
    #[serde(default)]
    token: String,
    #[serde(default)]
    next: Option<String>,
}

/// Only a path on this server: never `//elsewhere` or a scheme (an open redirect).
pub(crate) fn local_path(next: Option<&str>) -> String {
    match next {
        Some(p) if p.starts_with('/') && !p.starts_with("//") && !p.contains('\\') && !p.contains("://") => p.into(),
        _ => "/".into(),
    }
}

/// The sign-in page. Its query is read leniently (the first `next`, anything else ignored): a
/// mangled link still gets the page, never a bare-text 400.
pub async fn page(Extension(oidc): Extension<Option<Arc<Oidc>>>, RawQuery(query): RawQuery) -> Html<String> {
    let next = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(name, _)| name == "next")
        .map(|(_, value)| value.into_owned());
    Html(crate::oidc::sign_in_page(oidc.as_deref(), &local_path(next.as_deref()), None))
}

fn record(debugger: &Debugger, who: Option<&Identity>, remote: &str, action: &str, outcome: Outcome, status: u16) {
    debugger.audit().record(AuditRecord {
        id: 0,
        time: breakroom_debugger::ids::now(),
        actor: who.map_or("anonymous".into(), |w| w.name.clone()),
        role: who.map_or("none", |w| w.holder.label()).into(),
        door: Door::Page,
        remote: remote.into(),
        action: action.into(),
        target: Default::default(),
        detail: Value::Null,
        outcome,
        status,
    });
}

fn remote(request_remote: Option<std::net::SocketAddr>) -> String {
    request_remote.map_or("unknown".into(), |a| a.to_string())
}

pub async fn submit(
    State(debugger): State<Debugger>,
    Extension(access): Extension<Arc<Access>>,
    Extension(oidc): Extension<Option<Arc<Oidc>>>,
    connect: Option<Extension<axum::extract::ConnectInfo<std::net::SocketAddr>>>,
    Form(form): Form<SignInForm>,
) -> Response {
    let addr = connect.map(|Extension(c)| c.0);
    let from = remote(addr);
    let next = local_path(form.next.as_deref());
    if access.too_many_bad_tokens(addr.map(|a| a.ip()), false) {
        record(&debugger, None, &from, "sign in", Outcome::Refused, 429);
        let page = crate::oidc::sign_in_page(
            oidc.as_deref(),
            &next,
            Some("Too many bad tokens from this address: wait a minute."),
        );
        return (StatusCode::TOO_MANY_REQUESTS, Html(page)).into_response();
    }
    let token = form.token.trim();
    let who = access.identify_token(token);
    let refused = |message: &str| {
        (StatusCode::UNAUTHORIZED, Html(crate::oidc::sign_in_page(oidc.as_deref(), &next, Some(message))))
            .into_response()
    };
    let cookie_value = match who.as_ref().map(|w| w.holder) {
        None => {
            access.too_many_bad_tokens(addr.map(|a| a.ip()), true);
            record(&debugger, None, &from, "sign in", Outcome::Refused, 401);
            return refused("That token is not known here.");
        }
        Some(Holder::Program) => {
            record(&debugger, who.as_ref(), &from, "sign in", Outcome::Refused, 403);
            return refused("That is a program credential: programs cannot sign in to the pages.");
        }
        Some(Holder::Owner) => format!("breakroom_token={token}; Path=/; HttpOnly; SameSite=Strict"),
        Some(Holder::Person(_)) => match debugger.users().sign_in(token) {
            Ok(Some((session, _))) => format!(
                "{SESSION_COOKIE}={session}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}",
                SIGN_IN_FOR.as_secs()
            ),
            _ => return refused("That token is not known here."),
        },
    };
    record(&debugger, who.as_ref(), &from, "sign in", Outcome::Done, 303);
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let (Ok(cookie), Ok(location)) = (HeaderValue::from_str(&cookie_value), HeaderValue::from_str(&next)) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
        response.headers_mut().insert(header::LOCATION, location);
    }
    response
}

pub async fn sign_out(State(debugger): State<Debugger>, request: Request) -> Response {
    let who = request.extensions().get::<Caller>().map(|c| c.identity.clone());
    let addr = request.extensions().get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0);
    // The door verified the cookie: `who` is whoever it signed in.
    let mut location = None;
    if let Some(session) = cookie(&request, SESSION_COOKIE) {
        let ended = debugger.users().sign_out(&session).ok().flatten();
        record(&debugger, who.as_ref(), &remote(addr), "sign out", Outcome::Done, 303);
        // Signed in through an identity provider: its session ends too (issue 49).
        if let (Some(ended), Some(oidc)) = (ended, request.extensions().get::<Option<Arc<Oidc>>>().cloned().flatten()) {
            location = oidc.end_session_url(&ended).await;
        }
    }
    let mut response = StatusCode::SEE_OTHER.into_response();
    let headers = response.headers_mut();
    let location = location.and_then(|l| HeaderValue::from_str(&l).ok());
    headers.insert(header::LOCATION, location.unwrap_or(HeaderValue::from_static("/login")));
    for expired in [
        format!("{SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"),
        "breakroom_token=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0".to_string(),
    ] {
        if let Ok(value) = HeaderValue::from_str(&expired) {
            headers.append(header::SET_COOKIE, value);
        }
    }
    response
}

#[derive(Deserialize, Default)]
pub struct AuditParams {
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    action: Option<String>,
    #[serde(default)]
    process: Option<String>,
    #[serde(default)]
    live: Option<String>,
}

/// `/audit`: the newest records, for admins only (the door lets any person reach pages).
pub async fn audit(
    State(debugger): State<Debugger>,
    caller: Option<Extension<Caller>>,
    Query(params): Query<AuditParams>,
) -> Response {
    let who = caller.map_or_else(Identity::owner, |Extension(c)| c.identity);
    if let Err(why) = Need::Admin.check(&who) {
        return (
            StatusCode::FORBIDDEN,
            Html(breakroom_app::render::shell::page("Audit", "audit", breakroom_app::render::shell::empty(&why))),
        )
            .into_response();
    }
    let given = |v: &Option<String>| v.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_string);
    let query = AuditQuery {
        user: given(&params.user),
        action: given(&params.action),
        process: given(&params.process),
        since: None,
        after: None,
        limit: None,
    };
    let reader = debugger.clone();
    let mut records = match tokio::task::spawn_blocking(move || reader.audit().read_newest(&query, 500)).await {
        Ok(Ok(records)) => records,
        _ => vec![],
    };
    records.reverse();
    let rows: Vec<AuditRow<'_>> = records
        .iter()
        .map(|r| AuditRow {
            time: crate::replay::utc(r.time),
            actor: &r.actor,
            role: &r.role,
            door: r.door.as_str(),
            remote: &r.remote,
            action: &r.action,
            target: r.target.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "),
            outcome: match r.outcome {
                Outcome::Done => "done",
                Outcome::Failed => "failed",
                Outcome::Refused => "refused",
            },
            status: r.status,
            detail: if r.detail.is_null() { String::new() } else { r.detail.to_string() },
        })
        .collect();
    let filters = AuditFilters {
        user: params.user.as_deref().unwrap_or(""),
        action: params.action.as_deref().unwrap_or(""),
        process: params.process.as_deref().unwrap_or(""),
        live: params.live.as_deref() == Some("1"),
    };
    let signed_in = match who.holder {
        Holder::Person(role) => format!("{} ({})", who.name, role.as_str()),
        _ => String::new(),
    };
    Html(audit_page(&rows, &filters, &signed_in)).into_response()
}
