//! Signing in through an OpenID Connect provider (issue 49), as an attacker would try it: a
//! callback this server did not start, one from another browser, a replayed one, one naming
//! another issuer, and a code the provider refuses. None signs anyone in. The provider here
//! answers only discovery, its (empty) key set and a token endpoint that refuses every code: no
//! callback below gets as far as an ID token (the browser tests sign in against a real provider).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::routing::{get, post};
use axum::{Json, Router};
use breakroom_debugger::audit::AuditQuery;
use breakroom_debugger::{Config, Debugger};
use breakroom_server::guard::AccessPolicy;
use breakroom_server::oidc::{Oidc, OidcArgs};
use breakroom_server::{router, serve, site, ServerOptions};
use reqwest::header::{COOKIE, LOCATION, SET_COOKIE};
use reqwest::StatusCode;
use serde_json::json;

/// A provider that publishes its metadata and refuses every code, on a free loopback port.
async fn refusing_provider() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let metadata = json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/auth"),
        "token_endpoint": format!("{issuer}/token"),
        "jwks_uri": format!("{issuer}/jwks"),
        "end_session_endpoint": format!("{issuer}/session/end"),
        "response_types_supported": ["code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
    });
    let app = Router::new()
        .route("/.well-known/openid-configuration", get(move || async move { Json(metadata) }))
        .route("/jwks", get(|| async { Json(json!({ "keys": [] })) }))
        .route(
            "/token",
            post(|| async {
                (
                    axum::http::StatusCode::BAD_REQUEST,
                    Json(json!({ "error": "invalid_grant", "error_description": "no such code" })),
                )
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    issuer
}

struct Server {
    base: String,
    debugger: Debugger,
    http: reqwest::Client,
}

async fn breakroom_with(issuer: &str) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let args = OidcArgs {
        oidc_issuer: Some(issuer.to_string()),
        oidc_client_id: Some("breakroom".into()),
        oidc_role: vec!["admin=admins".into()],
        oidc_default_role: "none".into(),
        oidc_groups_claim: "groups".into(),
        oidc_name_claim: "preferred_username".into(),
        ..OidcArgs::default()
    };
    let oidc = Oidc::new(args.config(addr).unwrap().unwrap()).unwrap();
    let options = ServerOptions {
        max_body: 1024 * 1024,
        site: site::leptos_options(addr),
        access: AccessPolicy::loopback(addr.port(), None),
        local_url: None,
        oidc: Some(Arc::new(oidc)),
    };
    let debugger = Debugger::for_tests(Config::default());
    tokio::spawn(serve(listener, router(debugger.clone(), options)));
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    // The name the default callback URL uses: a sign-in starts and ends on one origin.
    Server { base: format!("http://localhost:{}", addr.port()), debugger, http }
}

impl Server {
    /// GET `path` with `cookie`: the status, the cookies set, and the body.
    async fn get(&self, path: &str, cookie: Option<&str>) -> (StatusCode, Vec<String>, String) {
        let mut request = self.http.get(format!("{}{path}", self.base)).header("Accept", "text/html");
        if let Some(cookie) = cookie {
            request = request.header(COOKIE, cookie);
        }
        let response = request.send().await.unwrap();
        let cookies = response.headers().get_all(SET_COOKIE).iter().map(|v| v.to_str().unwrap().to_string()).collect();
        (response.status(), cookies, response.text().await.unwrap())
    }

    /// Starts a sign-in: the state the provider would send back, and the browser's flow cookie.
    async fn start(&self) -> (String, String) {
        let response = self.http.get(format!("{}/login/oidc?next=/audit", self.base)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::SEE_OTHER);
        let location = reqwest::Url::parse(response.headers()[LOCATION].to_str().unwrap()).unwrap();
        let query: std::collections::HashMap<_, _> = location.query_pairs().into_owned().collect();
        assert!(location.as_str().contains("/auth?"), "{location}");
        assert_eq!(query["code_challenge_method"], "S256", "PKCE: {location}");
        assert!(query["code_challenge"].len() >= 43 && query["nonce"].len() >= 16, "{location}");
        let cookie = response.headers()[SET_COOKIE].to_str().unwrap();
        assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"), "{cookie}");
        let cookie = cookie.split(';').next().unwrap().to_string();
        (query["state"].clone(), cookie)
    }
}

fn signs_in(cookies: &[String]) -> bool {
    cookies.iter().any(|c| c.starts_with("breakroom_session=") && !c.starts_with("breakroom_session=;"))
}

#[tokio::test]
async fn callbacks_this_server_did_not_start_or_that_come_back_twice_sign_no_one_in() {
    let issuer = refusing_provider().await;
    let server = breakroom_with(&issuer).await;
    let (status, _, page) = server.get("/login", None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("Sign in with 127.0.0.1") && page.contains("/login/oidc?next=%2F"), "{page}");

    // Started on another name for this server: over to the callback's origin first, once.
    let port = server.base.rsplit(':').next().unwrap();
    let other = server.http.get(format!("http://127.0.0.1:{port}/login/oidc?next=/audit")).send().await.unwrap();
    assert_eq!(other.status(), StatusCode::SEE_OTHER);
    assert_eq!(other.headers()[LOCATION], format!("http://localhost:{port}/login/oidc?next=%2Faudit&hop=1").as_str());
    assert!(other.headers().get(SET_COOKIE).is_none());
    let hopped = server.http.get(format!("http://127.0.0.1:{port}/login/oidc?next=/audit&hop=1")).send().await.unwrap();
    assert!(hopped.headers()[LOCATION].to_str().unwrap().starts_with(&format!("{issuer}/auth?")), "no second hop");

    let (status, cookies, page) = server.get("/login/oidc/callback?code=stolen&state=forged", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("not one this server started"), "{page}");
    assert!(!signs_in(&cookies));
    let (status, _, page) = server.get("/login/oidc/callback?code=a&state=x&state=y", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("<h1>Sign-in failed</h1>") && page.contains("duplicate field"), "a page: {page}");
    let (status, _, page) = server.get("/login/oidc/callback?code=stolen", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("without the sign-in&#39;s state") || page.contains("without the sign-in's state"), "{page}");

    // A real state, but the callback comes to another browser (an attacker's link): refused, and
    // that sign-in is over, so the right browser cannot finish it afterwards either.
    let (state, cookie) = server.start().await;
    let callback = format!("/login/oidc/callback?code=c&state={state}");
    let (status, cookies, page) = server.get(&callback, None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("started in another browser"), "{page}");
    assert!(!signs_in(&cookies));
    let (status, _, _) = server.get(&callback, Some(&cookie)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // The right browser, but the answer names another issuer (a mix-up attack).
    let (state, cookie) = server.start().await;
    let (status, _, page) = server
        .get(&format!("/login/oidc/callback?code=c&state={state}&iss=https%3A%2F%2Fevil.example"), Some(&cookie))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("another identity provider"), "{page}");

    // The right browser and state, a code the provider refuses; then the same callback replayed.
    let (state, cookie) = server.start().await;
    let callback = format!("/login/oidc/callback?code=c&state={state}&iss={}", urlencode(&issuer));
    let (status, cookies, page) = server.get(&callback, Some(&cookie)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("refused this sign-in") && page.contains("invalid_grant"), "{page}");
    assert!(!signs_in(&cookies));
    let (status, _, page) = server.get(&callback, Some(&cookie)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("already used"), "{page}");

    // The provider's refusal comes back too.
    let (state, cookie) = server.start().await;
    let (status, _, page) =
        server.get(&format!("/login/oidc/callback?error=access_denied&state={state}"), Some(&cookie)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(page.contains("did not sign you in: access_denied"), "{page}");

    let query = AuditQuery { action: Some("sign in".into()), ..AuditQuery::default() };
    let records = server.debugger.audit().read(&query).unwrap();
    let reasons: Vec<_> = records.iter().map(|r| (r.status, r.detail["reason"].as_str().unwrap_or(""))).collect();
    assert_eq!(
        reasons,
        [
            (400, "unknown_state"),
            (400, "no_state"),
            (400, "other_browser"),
            (400, "unknown_state"),
            (400, "other_issuer"),
            (400, "code_refused"),
            (400, "unknown_state"),
            (403, "provider_error"),
        ]
    );
    assert!(records.iter().all(|r| r.actor == "anonymous" && r.role == "none"));
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

#[tokio::test]
async fn an_unreachable_provider_is_named_and_the_server_stays_closed_without_users() {
    // A port nothing listens on any more.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
    let issuer = format!("http://{closed}");
    let server = breakroom_with(&issuer).await;
    let (status, cookies, page) = server.get("/login/oidc", None).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    assert!(page.contains(&format!("The identity provider {issuer} could not be reached")), "{page}");
    assert!(cookies.is_empty(), "no sign-in was started: {cookies:?}");
    let (_, _, page) = server.get("/login", None).await;
    assert!(page.contains("could not be reached"), "/login says so: {page}");
    // A mistyped token keeps the way through the provider on the page that says so.
    let refused =
        server.http.post(format!("{}/login", server.base)).form(&[("token", "brk_nope")]).send().await.unwrap();
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    let page = refused.text().await.unwrap();
    assert!(page.contains("not known here") && page.contains("Sign in with 127.0.0.1"), "{page}");
    // No user exists, but people sign in through the provider: no request is the owner's.
    let (status, _, _) = server.get("/api/paused", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _, _) = server.get("/login/oidc/callback?state=x&code=y", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}
