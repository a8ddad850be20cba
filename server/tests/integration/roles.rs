//! Users, roles and program credentials at every door (issue 48). The doors are read from the
//! running server (`every_route_guarded::doors`), and each REST operation's need from the same
//! OpenAPI document the server enforces, so a new operation is walked without editing this file.

use std::time::Duration;

use breakroom_debugger::users::{Holder, Identity, Need, Role};
use reqwest::Method;
use serde_json::{json, Value};

use crate::common::{self, TestServer};
use crate::every_route_guarded::{doors, good_body, knock, Door};

/// A server with one user of each role and a program credential; their tokens by name.
struct Team {
    server: TestServer,
    tokens: Vec<(&'static str, Holder, String)>,
}

impl Team {
    async fn start() -> Team {
        let config = breakroom_debugger::Config {
            eval_timeout: Duration::from_secs(2),
            poll_hold: Duration::from_secs(1),
            ..breakroom_debugger::Config::default()
        };
        let server = common::start_full(config, None).await;
        let users = server.debugger.users();
        let mut tokens = vec![];
        for (name, holder) in [
            ("vera", Holder::Person(Role::Viewer)),
            ("dan", Holder::Person(Role::Debugger)),
            ("ada", Holder::Person(Role::Admin)),
            ("worker", Holder::Program),
        ] {
            tokens.push((name, holder, users.add(name, holder).unwrap()));
        }
        Team { server, tokens }
    }

    fn token(&self, name: &str) -> &str {
        &self.tokens.iter().find(|(n, _, _)| *n == name).unwrap().2
    }

    /// The same server, as `name` (every request carries their token).
    fn as_user(&self, name: &str) -> TestServer {
        let mut headers = reqwest::header::HeaderMap::new();
        let value = format!("Bearer {}", self.token(name));
        headers.insert(reqwest::header::AUTHORIZATION, value.parse().unwrap());
        let http =
            reqwest::Client::builder().default_headers(headers).timeout(Duration::from_secs(20)).build().unwrap();
        TestServer { base: self.server.base.clone(), debugger: self.server.debugger.clone(), http }
    }
}

/// `(METHOD, path as `doors` fills it)` → the need the OpenAPI entry declares.
fn declared_needs(doc: &Value) -> Vec<(Method, String, Need)> {
    let mut needs = vec![];
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let need = op["x-breakroom-needs"]
                .as_str()
                .and_then(Need::parse)
                .unwrap_or_else(|| panic!("{method} {path} declares no x-breakroom-needs"));
            let filled: Vec<&str> = path.split('/').map(|s| if s.starts_with('{') { "x1" } else { s }).collect();
            needs.push((method.to_uppercase().parse().unwrap(), filled.join("/"), need));
        }
    }
    needs
}

fn is_refusal((status, code): &(u16, String)) -> bool {
    matches!((*status, code.as_str()), (401, "token_required") | (403, "not_allowed") | (429, _))
}

#[test]
fn every_operation_answers_each_credential_as_its_declared_need_says() {
    common::on_shared_runtime(every_operation_answers_each_credential_on_the_shared_runtime())
}

async fn every_operation_answers_each_credential_on_the_shared_runtime() {
    let team = Team::start().await;
    let doors: Vec<Door> = doors(&team.server, Some(team.token("vera"))).await;
    let doc = team.as_user("vera").get("/api/openapi.json").await.1;
    let needs = declared_needs(&doc);
    let mut failures = vec![];
    let mut checked = 0;
    for door in &doors {
        let body = good_body(door);
        // Without a credential: 401 everywhere (the server has users).
        let got = knock(&team.server, door, &[], body).await;
        if got != (401, "token_required".into()) {
            failures.push(format!("{} {} without a credential: {got:?}", door.method, door.path));
        }
        let need = needs.iter().find(|(m, p, _)| *m == door.method && *p == door.path).map(|(_, _, n)| *n);
        for (name, holder, token) in &team.tokens {
            let auth = format!("Bearer {token}");
            let got = knock(&team.server, door, &[("authorization", auth.as_str())], body).await;
            let who = Identity { name: name.to_string(), holder: *holder };
            let expected_allowed = match need {
                Some(need) => need.check(&who).is_ok(),
                // Pages, server functions and /mcp: a person gets through the door (the function
                // or tool then checks its own need); a program does not.
                None => *holder != Holder::Program,
            };
            let refused = is_refusal(&got);
            if expected_allowed == refused {
                failures.push(format!(
                    "{} {} as {name} ({}), need {need:?}: {got:?}",
                    door.method,
                    door.path,
                    holder.label()
                ));
            }
            if !expected_allowed && got != (403, "not_allowed".into()) {
                failures.push(format!(
                    "{} {} as {name}: refused with {got:?}, not 403 not_allowed",
                    door.method, door.path
                ));
            }
            checked += 1;
        }
    }
    assert!(checked > 400, "only {checked} checks: the doors were not read");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[tokio::test]
async fn a_refusal_names_the_role_wanted_and_a_person_cannot_use_the_program_protocol() {
    let team = Team::start().await;
    let vera = team.as_user("vera");
    let (status, body) = vera.post("/api/repl/start", json!({"pause_id": "p-1"})).await;
    assert_eq!((status, body["error"].as_str()), (403, Some("not_allowed")), "{body}");
    assert!(body["message"].as_str().unwrap().contains("needs the debugger role; vera is a viewer"), "{body}");
    let ada = team.as_user("ada");
    let (status, body) = ada.get("/api/poll-repl/p-1").await;
    assert_eq!(status, 403, "{body}");
    assert!(body["message"].as_str().unwrap().contains("program credential"), "{body}");
    let worker = team.as_user("worker");
    let (status, body) = worker.get("/api/paused").await;
    assert_eq!(status, 403, "a program reads nothing of the API: {body}");
    // A program registers a breakpoint by name (cideldill's client does), but adds none of a kind.
    let (status, body) = worker.post("/api/breakpoints", json!({"function_name": "f", "timestamp": 1.0})).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = worker.post("/api/breakpoints", json!({"kind": "line", "file": "/a.py", "line": 3})).await;
    assert_eq!((status, body["error"].as_str()), (403, Some("not_allowed")), "{body}");
    let (status, who) = worker.get("/api/whoami").await;
    assert_eq!((status, who), (200, json!({"name": "worker", "role": "program"})));
}

#[tokio::test]
async fn a_program_token_cannot_poll_or_answer_another_credentials_pause() {
    let team = Team::start().await;
    let other = team.server.debugger.users().add("intruder", Holder::Program).unwrap();
    let worker = team.as_user("worker");
    let (_, pause_id) = worker.pause_call("compute", 4242).await;
    let intruder = TestServer {
        base: team.server.base.clone(),
        debugger: team.server.debugger.clone(),
        http: reqwest::Client::builder()
            .default_headers(
                [(reqwest::header::AUTHORIZATION, format!("Bearer {other}").parse().unwrap())].into_iter().collect(),
            )
            .build()
            .unwrap(),
    };
    for path in [format!("/api/poll/{pause_id}"), format!("/api/poll-repl/{pause_id}")] {
        let (status, body) = intruder.get(&path).await;
        assert_eq!(status, 403, "{path}: {body}");
        assert!(body["message"].as_str().unwrap().contains("\"worker\""), "{body}");
    }
    let answer = json!({"eval_id": "e-1", "pause_id": pause_id, "session_id": "s-1", "result": "1"});
    let (status, body) = intruder.post("/api/call/repl-result", answer.clone()).await;
    assert_eq!(status, 403, "{body}");
    let (status, body) = intruder.post(&format!("/api/poll/{pause_id}"), answer).await;
    assert_eq!(status, 403, "{body}");
    // Its own program polls it, and a debugger drives it.
    let (status, body) = worker.get(&format!("/api/poll-repl/{pause_id}")).await;
    assert_eq!((status, body["eval_id"].clone()), (200, Value::Null), "{body}");
    let dan = team.as_user("dan");
    let (status, body) = dan.post(&format!("/api/paused/{pause_id}/continue"), json!({})).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_removed_or_rotated_token_stops_at_once_and_a_new_role_applies_at_once() {
    let team = Team::start().await;
    let users = team.server.debugger.users();
    let dan = team.as_user("dan");
    assert_eq!(dan.get("/api/paused").await.0, 200);
    users.set_role("dan", Role::Viewer).unwrap();
    assert_eq!(dan.post("/api/repl/start", json!({"pause_id": "p-1"})).await.0, 403);
    let fresh = users.rotate("dan").unwrap();
    assert_eq!(dan.get("/api/paused").await.0, 401, "the old token no longer works");
    let auth = format!("Bearer {fresh}");
    let response =
        team.server.http.get(format!("{}/api/paused", team.server.base)).header("authorization", auth.as_str());
    assert_eq!(response.send().await.unwrap().status(), 200);
    users.remove("dan").unwrap();
    let response = team.server.http.get(format!("{}/api/paused", team.server.base)).header("authorization", auth);
    assert_eq!(response.send().await.unwrap().status(), 401);
}

#[tokio::test]
async fn bad_tokens_are_rate_limited_per_address_and_a_good_token_still_passes() {
    let team = Team::start().await;
    let mut statuses = vec![];
    for i in 0..25 {
        let response = team
            .server
            .http
            .get(format!("{}/api/paused", team.server.base))
            .bearer_auth(format!("brk_wrong{i}"))
            .send()
            .await
            .unwrap();
        statuses.push(response.status().as_u16());
    }
    assert_eq!(&statuses[..20], &[401; 20]);
    assert_eq!(&statuses[21..], &[429; 4], "{statuses:?}");
    assert_eq!(team.as_user("vera").get("/api/paused").await.0, 200, "a good token from the same address passes");
}

#[tokio::test]
async fn without_users_the_owner_needs_nothing_on_loopback_and_only_the_token_with_one() {
    let open = common::start().await;
    assert_eq!(open.get("/api/paused").await.0, 200);
    assert_eq!(open.get("/api/whoami").await.1, json!({"name": "owner", "role": "owner"}));
    for bad in ["0", "10001", "99999999999", "x"] {
        let (status, body) = open.get(&format!("/api/audit?limit={bad}")).await;
        assert_eq!(status, 400, "limit={bad}: {body}");
    }
    assert_eq!(open.get("/api/audit?limit=10000").await.0, 200);
    for bad in ["nan", "inf", "-inf"] {
        let (status, body) = open.get(&format!("/api/audit?since={bad}")).await;
        assert_eq!((status, body["error"].as_str()), (400, Some("invalid_since")), "since={bad}: {body}");
    }
    let guarded = common::start_full(breakroom_debugger::Config::default(), Some("s3cret")).await;
    assert_eq!(guarded.get("/api/paused").await.0, 401);
    let response = guarded.http.get(format!("{}/api/users", guarded.base)).bearer_auth("s3cret").send().await.unwrap();
    assert_eq!(response.status(), 200, "--token is the owner's: it opens everything");
}

#[test]
fn a_browser_signs_in_with_a_token_gets_an_expiring_cookie_and_signs_out() {
    common::on_shared_runtime(a_browser_signs_in_on_the_shared_runtime())
}

async fn a_browser_signs_in_on_the_shared_runtime() {
    let team = Team::start().await;
    let browser = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let page = browser.get(format!("{}/", team.server.base)).header("accept", "text/html").send().await.unwrap();
    assert_eq!(page.status(), 303);
    assert_eq!(page.headers()["location"], "/login?next=%2F");
    // A mangled link (two `next`) still gets the page, going to the first, never bare text.
    let mangled =
        browser.get(format!("{}/login?next=%2Frepls&next=%2F%2Fevil.example", team.server.base)).send().await.unwrap();
    assert_eq!(mangled.status(), 200);
    let mangled = mangled.text().await.unwrap();
    assert!(mangled.contains("value=\"/repls\"") && !mangled.contains("evil.example"), "{mangled}");
    let refused = browser
        .post(format!("{}/login", team.server.base))
        .header("origin", &team.server.base)
        .form(&[("token", "brk_nope"), ("next", "/repls")])
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    assert!(refused.text().await.unwrap().contains("That token is not known here."));
    let program = browser
        .post(format!("{}/login", team.server.base))
        .header("origin", &team.server.base)
        .form(&[("token", team.token("worker")), ("next", "/")])
        .send()
        .await
        .unwrap();
    assert_eq!(program.status(), 401, "programs cannot sign in");
    let signed = browser
        .post(format!("{}/login", team.server.base))
        .header("origin", &team.server.base)
        .form(&[("token", team.token("vera")), ("next", "//evil.example/x")])
        .send()
        .await
        .unwrap();
    assert_eq!(signed.status(), 303);
    assert_eq!(signed.headers()["location"], "/", "never a redirect off this server");
    let cookie = signed.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.starts_with("breakroom_session=brk_"), "{cookie}");
    for attribute in ["HttpOnly", "SameSite=Strict", "Max-Age=43200", "Path=/"] {
        assert!(cookie.contains(attribute), "{cookie}");
    }
    assert!(!cookie.contains(team.token("vera")), "the cookie is not the token");
    let session = cookie.split(';').next().unwrap().to_string();
    let who = browser.get(format!("{}/api/whoami", team.server.base)).header("cookie", &session).send().await.unwrap();
    assert_eq!(who.json::<Value>().await.unwrap(), json!({"name": "vera", "role": "viewer"}));
    let page = browser.get(format!("{}/", team.server.base)).header("cookie", &session).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(
        html.contains(r#"<p class="signed-in"><span class="who">vera (viewer)"#),
        "the top bar names who is signed in"
    );
    assert!(html.contains(r#"<body class="role-viewer">"#), "the body names the role, which hides the controls");
    let timeline = browser
        .get(format!("{}/process/nope/timeline", team.server.base))
        .header("cookie", &session)
        .send()
        .await
        .unwrap();
    assert!(timeline.text().await.unwrap().contains(r#"<body class="role-viewer">"#), "server-rendered pages too");
    let out = browser.get(format!("{}/logout", team.server.base)).header("cookie", &session).send().await.unwrap();
    assert_eq!(out.status(), 303);
    let after =
        browser.get(format!("{}/api/paused", team.server.base)).header("cookie", &session).send().await.unwrap();
    assert_eq!(after.status(), 401, "the session ended");
}

#[test]
fn the_pages_server_functions_are_audited_unless_they_only_read_and_refuse_a_role_too_low() {
    common::on_shared_runtime(server_functions_audited_on_the_shared_runtime())
}

async fn server_functions_audited_on_the_shared_runtime() {
    let team = Team::start().await;
    let (status, body) =
        team.as_user("dan").server_function("add_breakpoint", &[("function_name", "page_target")]).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = team.as_user("vera").server_function("add_breakpoint", &[("function_name", "nope")]).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("needs the debugger role"), "{body}");
    let (status, body) = team.as_user("vera").server_function("paused_html", &[]).await;
    assert_eq!(status, 200, "{body}");
    let records = team.server.debugger.audit().read(&Default::default()).unwrap();
    let page: Vec<(&str, &str, String)> = records
        .iter()
        .filter(|r| r.door.as_str() == "page")
        .map(|r| (r.actor.as_str(), r.action.as_str(), format!("{:?}", r.outcome)))
        .collect();
    assert_eq!(page.len(), 2, "the read is not audited: {page:?}");
    assert!(page[0].0 == "dan" && page[0].1.contains("/rpc/add_breakpoint") && page[0].2 == "Done", "{page:?}");
    assert!(page[1].0 == "vera" && page[1].2 == "Refused", "{page:?}");
    let dans = records.iter().find(|r| r.actor == "dan").unwrap();
    assert_eq!(dans.detail["function_name"], "page_target");
    assert!(!dans.remote.is_empty() && dans.remote != "unknown", "{}", dans.remote);
    // The Tasks page's orders: Cancel is an admin's, Pause a debugger's; a refusal comes before
    // anything reaches a program.
    let cancel = [("process_id", "no-such-process"), ("task_id", "task-1"), ("pause", "false")];
    let pause = [("process_id", "no-such-process"), ("task_id", "task-1"), ("pause", "true")];
    let (status, body) = team.as_user("dan").server_function("order_task", &cancel).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("needs the admin role"), "{body}");
    let (status, body) = team.as_user("vera").server_function("order_task", &pause).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("needs the debugger role"), "{body}");
    let (status, body) = team.as_user("dan").server_function("order_task", &pause).await;
    assert!(status >= 400 && body.contains("no-such-process"), "let through, then not found: {status} {body}");
    let (status, body) = team.as_user("ada").server_function("order_task", &cancel).await;
    assert!(status >= 400 && body.contains("no-such-process"), "let through, then not found: {status} {body}");
    // `/repls`'s row read alone is a viewer's, as the list is; nobody signed in reads it.
    let row = [("session_id", "repl-not-there")];
    let (status, body) = team.server.server_function("session_row", &row).await;
    assert_eq!(status, 401, "{body}");
    let (status, body) = team.as_user("vera").server_function("session_row", &row).await;
    assert_eq!((status, body.as_str()), (200, "-"));
}

#[tokio::test]
async fn runtime_events_reach_admins_alone_on_the_live_stream() {
    let team = Team::start().await;
    let listen = |name: &'static str| {
        let user = team.as_user(name);
        async move { user.http.get(format!("{}/api/live", user.base)).send().await.unwrap() }
    };
    let (mut viewer, mut admin) = (listen("vera").await, listen("ada").await);
    assert_eq!((viewer.status().as_u16(), admin.status().as_u16()), (200, 200));
    let (status, reply) = team.as_user("ada").post("/api/runtimes/secret-ws/exec", json!({"command": "true"})).await;
    assert_eq!(status, 200, "{reply}");
    // Then a change every reader is told of: each stream is in order, so what it was told of the
    // command comes before this.
    let (status, reply) =
        team.as_user("dan").post("/api/breakpoints", json!({"kind": "line", "file": "/srv/app.py", "line": 3})).await;
    assert_eq!(status, 200, "{reply}");
    let told_viewer = read_until_breakpoints_changed(&mut viewer).await;
    let told_admin = read_until_breakpoints_changed(&mut admin).await;
    assert!(!told_viewer.contains("runtimes_changed") && !told_viewer.contains("secret-ws"), "{told_viewer}");
    let changed = r#"{"type":"runtimes_changed","workspace":"secret-ws"}"#;
    assert_eq!(told_admin.matches(changed).count(), 2, "its start and its end: {told_admin}");
}

/// What a live stream says up to its first `breakpoints_changed`.
async fn read_until_breakpoints_changed(live: &mut reqwest::Response) -> String {
    let mut seen = String::new();
    let read = tokio::time::timeout(Duration::from_secs(10), async {
        while let Ok(Some(chunk)) = live.chunk().await {
            seen.push_str(&String::from_utf8_lossy(&chunk));
            if seen.contains(r#""type":"breakpoints_changed""#) {
                break;
            }
        }
    })
    .await;
    assert!(read.is_ok(), "no breakpoints_changed in: {seen}");
    seen
}
