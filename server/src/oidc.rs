//! Signing in through the organisation's OpenID Connect provider (issue 49): the
//! authorization-code flow with PKCE, offered on `/login` beside the token form.
//!
//! `/login/oidc` starts a sign-in: a state, a nonce and a PKCE verifier are kept in this
//! server's memory for [`FLOW_FOR`], under the state, together with a random value also set as
//! a cookie on the browser, so that a callback only completes in the browser that started it
//! (an attacker's own callback link cannot sign a victim in as the attacker). The provider sends
//! the browser back to `/login/oidc/callback`: the state is taken out (so a replayed callback is
//! unknown), the code is exchanged with the verifier, and the ID token is verified by the
//! `openidconnect` crate against the provider's published keys, its issuer, this client as
//! audience, its expiry and the nonce. The person's name and groups come from the claims; the
//! groups give the role (`--oidc-role ROLE=GROUP`, else `--oidc-default-role`); a sign-in is
//! then made as `/login` makes one, and the audit records it under the person's name.
//!
//! The provider's metadata and keys are fetched at start and again when older than
//! [`METADATA_FOR`]. A provider that cannot be reached does not stop the server: `/login` says
//! so and each sign-in tries again.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::rejection::QueryRejection;
use axum::extract::{ConnectInfo, Query, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::Extension;
use breakroom_app::render::sign_in::{sign_in_page_with, sign_in_refused_page, signed_in_page, ProviderLink};
use breakroom_debugger::audit::{AuditRecord, Door, Outcome};
use breakroom_debugger::users::{check_name, new_token, Role, SignedOut, SIGN_IN_FOR};
use breakroom_debugger::Debugger;
use openidconnect::core::{
    CoreAuthenticationFlow, CoreClient, CoreGenderClaim, CoreIdToken, CoreJweContentEncryptionAlgorithm,
    CoreJwsSigningAlgorithm,
};
use openidconnect::url::Host;
use openidconnect::{
    AccessTokenHash, AdditionalClaims, AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointMaybeSet,
    EndpointNotSet, EndpointSet, IdToken, IssuerUrl, LogoutRequest, Nonce, OAuth2TokenResponse, PkceCodeChallenge,
    PkceCodeVerifier, PostLogoutRedirectUrl, ProviderMetadataWithLogout, RedirectUrl, RequestTokenError, Scope,
    TokenResponse,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::access::{constant_time_eq, cookie, SESSION_COOKIE};

/// How long a started sign-in may take at the provider.
pub const FLOW_FOR: Duration = Duration::from_secs(600);
/// How long the provider's metadata and keys are used before they are fetched again (keys rotate).
const METADATA_FOR: Duration = Duration::from_secs(600);
/// The most sign-ins under way at once: each holds a little memory until it ends or expires.
const MOST_FLOWS: usize = 10_000;
/// The cookie that ties a callback to the browser that started the sign-in.
const FLOW_COOKIE: &str = "breakroom_oidc";
/// The callback's path, which the provider must have registered (with this server's origin).
pub const CALLBACK_PATH: &str = "/login/oidc/callback";

/// The server's flags for signing in through an OpenID Connect provider.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct OidcArgs {
    /// Offer "Sign in with" an OpenID Connect provider on /login: its issuer URL (https, or http
    /// on loopback), whose /.well-known/openid-configuration is read.
    #[arg(long, value_name = "URL")]
    pub oidc_issuer: Option<String>,
    /// The client id this server is registered with at the provider.
    #[arg(long, value_name = "ID")]
    pub oidc_client_id: Option<String>,
    /// The client secret, for a confidential client (else PKCE alone, as a public client).
    /// Also read from BREAKROOM_OIDC_CLIENT_SECRET, to keep it off the command line.
    #[arg(long, env = "BREAKROOM_OIDC_CLIENT_SECRET", hide_env_values = true, value_name = "SECRET")]
    pub oidc_client_secret: Option<String>,
    /// ROLE=GROUP: members of GROUP get ROLE (viewer, debugger or admin). Repeatable; a member of
    /// several mapped groups gets the highest of their roles.
    #[arg(long = "oidc-role", value_name = "ROLE=GROUP")]
    pub oidc_role: Vec<String>,
    /// The role of a person in no mapped group: viewer, debugger, admin, or none (no access).
    #[arg(long, value_name = "ROLE|none", default_value = "none")]
    pub oidc_default_role: String,
    /// The claim that lists a person's groups (from the ID token, else the userinfo endpoint).
    #[arg(long, value_name = "CLAIM", default_value = "groups")]
    pub oidc_groups_claim: String,
    /// The claim that names a person in the top bar and the audit; `email`, then `sub` when it is
    /// missing or not a usable name.
    #[arg(long, value_name = "CLAIM", default_value = "preferred_username")]
    pub oidc_name_claim: String,
    /// A scope to ask for besides `openid profile email` (e.g. `groups`). Repeatable.
    #[arg(long = "oidc-scope", value_name = "SCOPE")]
    pub oidc_scope: Vec<String>,
    /// The callback URL registered at the provider, as the browser reaches this server, ending in
    /// /login/oidc/callback. Default on loopback: http://localhost:PORT/login/oidc/callback;
    /// required otherwise. The provider sends people back to /login at the same origin after
    /// sign-out.
    #[arg(long, value_name = "URL")]
    pub oidc_redirect_url: Option<String>,
    /// The CA (PEM) that signed the provider's certificate, when it is a private one; only it is
    /// trusted for the provider then. Default: the system's roots.
    #[arg(long, value_name = "FILE")]
    pub oidc_ca_file: Option<std::path::PathBuf>,
}

/// The checked flags.
#[derive(Clone, Debug)]
pub struct OidcConfig {
    issuer: IssuerUrl,
    client_id: ClientId,
    client_secret: Option<ClientSecret>,
    roles: Vec<(Role, String)>,
    default_role: Option<Role>,
    groups_claim: String,
    name_claim: String,
    scopes: Vec<String>,
    redirect: RedirectUrl,
    after_sign_out: PostLogoutRedirectUrl,
    ca_file: Option<std::path::PathBuf>,
}

/// Loopback hosts may be reached over plain http (a provider on the same machine, in tests).
fn is_loopback_host(url: &openidconnect::url::Url) -> bool {
    match url.host() {
        Some(Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

impl OidcArgs {
    /// The configuration, if an issuer is given; `bound` is where this server listens, for the
    /// default callback URL.
    pub fn config(&self, bound: SocketAddr) -> Result<Option<OidcConfig>, String> {
        self.config_on(bound, false)
    }

    /// The same, for a server that serves `https` (the default callback URL's scheme).
    pub fn config_on(&self, bound: SocketAddr, https: bool) -> Result<Option<OidcConfig>, String> {
        let Some(issuer) = self.oidc_issuer.as_deref().map(str::trim).filter(|i| !i.is_empty()) else {
            let given = self.oidc_client_id.is_some() || !self.oidc_role.is_empty() || self.oidc_redirect_url.is_some();
            if given {
                return Err("--oidc-client-id, --oidc-role and --oidc-redirect-url need --oidc-issuer URL".into());
            }
            return Ok(None);
        };
        // Exactly as given: the ID token's `iss` must equal it, trailing slash and all.
        let issuer =
            IssuerUrl::new(issuer.to_string()).map_err(|e| format!("--oidc-issuer {issuer:?} is not a URL: {e}"))?;
        let secure = |url: &openidconnect::url::Url| {
            url.scheme() == "https" || (url.scheme() == "http" && is_loopback_host(url))
        };
        if !secure(issuer.url()) {
            return Err(format!(
                "--oidc-issuer {} must be https (plain http only for a provider on loopback): its keys vouch for \
                 every sign-in",
                issuer.as_str()
            ));
        }
        let client_id = self
            .oidc_client_id
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .ok_or("--oidc-issuer needs --oidc-client-id ID, the client registered at the provider")?;
        let mut roles = vec![];
        for given in &self.oidc_role {
            let (role, group) = given
                .split_once('=')
                .filter(|(_, group)| !group.is_empty())
                .ok_or_else(|| format!("--oidc-role {given:?}: give ROLE=GROUP, e.g. admin=breakroom-admins"))?;
            let role = Role::parse(role.trim()).map_err(|e| format!("--oidc-role {given:?}: {e}"))?;
            roles.push((role, group.to_string()));
        }
        let default_role = match self.oidc_default_role.trim() {
            "none" => None,
            role => Some(Role::parse(role).map_err(|e| format!("--oidc-default-role: {e}, or none"))?),
        };
        let redirect = match &self.oidc_redirect_url {
            Some(url) => url.trim().to_string(),
            None if bound.ip().is_loopback() => {
                let scheme = if https { "https" } else { "http" };
                format!("{scheme}://localhost:{}{CALLBACK_PATH}", bound.port())
            }
            None => {
                return Err(format!(
                    "--oidc-issuer on {} needs --oidc-redirect-url https://NAME{CALLBACK_PATH}: the address the \
                     browser reaches this server at, as registered at the provider",
                    bound.ip()
                ))
            }
        };
        let redirect = RedirectUrl::new(redirect.clone())
            .map_err(|e| format!("--oidc-redirect-url {redirect:?} is not a URL: {e}"))?;
        let url = redirect.url();
        if !(url.scheme() == "https" || url.scheme() == "http") || url.cannot_be_a_base() {
            return Err(format!("--oidc-redirect-url {} must be an http or https URL", redirect.as_str()));
        }
        if !url.path().ends_with(CALLBACK_PATH) {
            return Err(format!(
                "--oidc-redirect-url {} must end in {CALLBACK_PATH}, where this server answers the provider",
                redirect.as_str()
            ));
        }
        // After sign-out the provider sends the browser back to this server's /login.
        let mut after = url.clone();
        let base = after.path().strip_suffix(CALLBACK_PATH).unwrap_or("").to_string();
        after.set_path(&format!("{base}/login"));
        after.set_query(None);
        let after_sign_out = PostLogoutRedirectUrl::from_url(after);
        let claim = |flag: &str, value: &str| {
            let value = value.trim();
            if value.is_empty() {
                Err(format!("--{flag} needs a claim name"))
            } else {
                Ok(value.to_string())
            }
        };
        Ok(Some(OidcConfig {
            issuer,
            client_id: ClientId::new(client_id.to_string()),
            client_secret: self.oidc_client_secret.clone().filter(|s| !s.is_empty()).map(ClientSecret::new),
            roles,
            default_role,
            groups_claim: claim("oidc-groups-claim", &self.oidc_groups_claim)?,
            name_claim: claim("oidc-name-claim", &self.oidc_name_claim)?,
            scopes: self.oidc_scope.iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect(),
            redirect,
            after_sign_out,
            ca_file: self.oidc_ca_file.clone(),
        }))
    }
}

impl OidcConfig {
    pub fn issuer(&self) -> &str {
        self.issuer.as_str()
    }

    pub fn redirect_url(&self) -> &str {
        self.redirect.as_str()
    }

    /// `; Secure` when browsers reach this server over https (the callback URL says how, also
    /// behind a proxy that terminates TLS): the cookies then never travel in clear.
    fn secure_cookies(&self) -> &'static str {
        if self.redirect.url().scheme() == "https" {
            "; Secure"
        } else {
            ""
        }
    }

    /// The highest role any of `groups` is mapped to, else the default role.
    pub fn role_of(&self, groups: &[String]) -> Option<Role> {
        let mapped = self.roles.iter().filter(|(_, group)| groups.contains(group)).map(|(role, _)| *role).max();
        mapped.or(self.default_role)
    }
}

/// Every claim beyond the standard ones (groups, or whatever the provider adds), as JSON.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct OtherClaims {
    #[serde(flatten)]
    claims: Map<String, Value>,
}

impl AdditionalClaims for OtherClaims {}

type PersonIdToken = IdToken<OtherClaims, CoreGenderClaim, CoreJweContentEncryptionAlgorithm, CoreJwsSigningAlgorithm>;
type DiscoveredClient =
    CoreClient<EndpointSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointMaybeSet, EndpointMaybeSet>;

/// One sign-in under way at the provider.
struct Flow {
    /// The value of the browser's [`FLOW_COOKIE`].
    browser: String,
    nonce: Nonce,
    verifier: PkceCodeVerifier,
    next: String,
    started: Instant,
}

/// The configured provider: its metadata once fetched, and the sign-ins under way.
pub struct Oidc {
    config: OidcConfig,
    http: openidconnect::reqwest::Client,
    metadata: tokio::sync::Mutex<Option<(ProviderMetadataWithLogout, Instant)>>,
    /// Why the provider could not be reached the last time it was asked (shown on `/login`).
    unreachable: Mutex<Option<String>>,
    flows: Mutex<HashMap<String, Flow>>,
}

/// An error and its causes, on one line ("a: b: c").
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

impl Oidc {
    pub fn new(config: OidcConfig) -> Result<Oidc, String> {
        let mut builder = openidconnect::reqwest::Client::builder()
            // Following redirects would let a provider's answer send this server elsewhere (SSRF).
            .redirect(openidconnect::reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(10));
        if let Some(file) = &config.ca_file {
            builder = crate::tls::trust_only(builder, file).map_err(|e| format!("--oidc-ca-file: {e}"))?;
        }
        let http = builder
            .build()
            .map_err(|e| format!("cannot make an HTTP client for the identity provider: {}", chain(&e)))?;
        Ok(Oidc {
            config,
            http,
            metadata: tokio::sync::Mutex::new(None),
            unreachable: Mutex::new(None),
            flows: Mutex::new(HashMap::new()),
        })
    }

    pub fn config(&self) -> &OidcConfig {
        &self.config
    }

    /// What the "Sign in with" button names: the issuer's host.
    pub fn name(&self) -> String {
        self.config.issuer.url().host_str().unwrap_or(self.config.issuer.as_str()).to_string()
    }

    /// Why the provider could not be reached, if the last attempt failed.
    pub fn unreachable(&self) -> Option<String> {
        self.unreachable.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The provider's metadata and keys, fetched when missing or old. A failure to refresh keeps
    /// using what was fetched before; with nothing fetched it is an error naming the issuer.
    pub async fn metadata(&self) -> Result<ProviderMetadataWithLogout, String> {
        let mut cached = self.metadata.lock().await;
        if let Some((metadata, at)) = cached.as_ref() {
            if at.elapsed() < METADATA_FOR {
                return Ok(metadata.clone());
            }
        }
        let fetched = ProviderMetadataWithLogout::discover_async(self.config.issuer.clone(), &self.http).await;
        let mut unreachable = self.unreachable.lock().unwrap_or_else(|p| p.into_inner());
        match fetched {
            Ok(metadata) => {
                *unreachable = None;
                *cached = Some((metadata.clone(), Instant::now()));
                Ok(metadata)
            }
            Err(e) => {
                let why = format!(
                    "the identity provider {} could not be reached: {}",
                    self.config.issuer.as_str(),
                    chain(&e)
                );
                *unreachable = Some(why.clone());
                match cached.as_ref() {
                    Some((metadata, _)) => Ok(metadata.clone()),
                    None => Err(why),
                }
            }
        }
    }

    fn client(&self, metadata: ProviderMetadataWithLogout) -> DiscoveredClient {
        CoreClient::from_provider_metadata(metadata, self.config.client_id.clone(), self.config.client_secret.clone())
            .set_redirect_uri(self.config.redirect.clone())
    }

    fn flows(&self) -> std::sync::MutexGuard<'_, HashMap<String, Flow>> {
        self.flows.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Where the browser goes after a sign-in through this provider ended here: the provider's
    /// end-session endpoint, when it has one, so its session ends too; else `None`.
    pub async fn end_session_url(&self, ended: &SignedOut) -> Option<String> {
        if ended.via != self.config.issuer.as_str() {
            return None;
        }
        // What was fetched before, however old: sign-out should not wait on a refresh.
        let cached = self.metadata.lock().await.as_ref().map(|(metadata, _)| metadata.clone());
        let metadata = match cached {
            Some(metadata) => metadata,
            None => self.metadata().await.ok()?,
        };
        let endpoint = metadata.additional_metadata().end_session_endpoint.clone()?;
        let mut request = LogoutRequest::from(endpoint)
            .set_client_id(self.config.client_id.clone())
            .set_post_logout_redirect_uri(self.config.after_sign_out.clone());
        // The ID token tells the provider whose session to end; it was verified at sign-in.
        if let Some(token) = ended.end_hint.as_deref().and_then(|t| t.parse::<CoreIdToken>().ok()) {
            request = request.set_id_token_hint(&token);
        }
        Some(request.http_get_url().to_string())
    }
}

/// The provider the flags configure, if any, asked for its metadata once: a provider that
/// cannot be reached is reported and asked again at each sign-in, so the server starts anyway.
pub async fn start_provider(args: &OidcArgs, bound: SocketAddr, https: bool) -> Result<Option<Arc<Oidc>>, String> {
    let Some(config) = args.config_on(bound, https)? else { return Ok(None) };
    let oidc = Oidc::new(config)?;
    match oidc.metadata().await {
        Ok(_) => println!(
            "Signing in through {} (register the callback {})",
            oidc.config.issuer(),
            oidc.config.redirect_url()
        ),
        Err(why) => eprintln!("breakroom: {why}; /login offers it anyway and tries again at each sign-in"),
    }
    Ok(Some(Arc::new(oidc)))
}

/// `/login`: the token form, and "Sign in with …" when a provider is configured.
pub fn sign_in_page(oidc: Option<&Oidc>, next: &str, problem: Option<&str>) -> String {
    let Some(oidc) = oidc else { return breakroom_app::render::sign_in::sign_in_page(next, problem) };
    let start = format!("/login/oidc?next={}", form_urlencoded::byte_serialize(next.as_bytes()).collect::<String>());
    let (name, unreachable) = (oidc.name(), oidc.unreachable().map(|why| advice(&why)));
    let link = ProviderLink { name: &name, start: &start, unreachable: unreachable.as_deref() };
    sign_in_page_with(next, problem, Some(&link))
}

#[derive(Deserialize, Default)]
pub struct StartParams {
    #[serde(default)]
    next: Option<String>,
    /// Set on the hop to the callback's origin, so that a proxy rewriting `Host` cannot loop it.
    #[serde(default)]
    hop: Option<String>,
}

/// `host[:port]` of the callback URL, as a browser would send it in `Host`.
fn callback_authority(config: &OidcConfig) -> Option<String> {
    let url = config.redirect.url();
    let host = url.host_str()?;
    Some(match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    })
}

/// An unreachable provider, as a page tells a person.
fn advice(why: &str) -> String {
    let mut text = why.to_string();
    if let Some(first) = text.get(..1).map(str::to_uppercase) {
        text.replace_range(..1, &first);
    }
    format!("{text}. Try again in a moment, or sign in with a token.")
}

fn page(status: StatusCode, title: &str, problem: &str) -> Response {
    (status, Html(sign_in_refused_page(title, problem))).into_response()
}

/// A query string that cannot be read (a parameter twice, say): a page, not a bare 400.
fn malformed(rejection: &QueryRejection) -> Response {
    page(
        StatusCode::BAD_REQUEST,
        "Sign-in failed",
        &format!("This sign-in's address is malformed ({}): start again from the sign-in page.", rejection.body_text()),
    )
}

fn not_configured() -> Response {
    page(
        StatusCode::NOT_FOUND,
        "No identity provider",
        "This server does not sign people in through an identity provider: sign in with a token.",
    )
}

fn flow_cookie(oidc: &Oidc, value: &str, max_age: u64) -> Option<HeaderValue> {
    // Lax, not Strict: the browser must send it when the provider's site sends it back here.
    HeaderValue::from_str(&format!(
        "{FLOW_COOKIE}={value}; Path=/login/oidc; HttpOnly; SameSite=Lax; Max-Age={max_age}{}",
        oidc.config.secure_cookies()
    ))
    .ok()
}

/// `GET /login/oidc`: off to the provider, to come back to `next` signed in.
pub async fn start(
    Extension(oidc): Extension<Option<Arc<Oidc>>>,
    params: Result<Query<StartParams>, QueryRejection>,
    headers: axum::http::HeaderMap,
) -> Response {
    let Some(oidc) = oidc else { return not_configured() };
    let Query(params) = match params {
        Ok(params) => params,
        Err(e) => return malformed(&e),
    };
    let next = crate::sign_in::local_path(params.next.as_deref());
    // The browser must start where the provider will send it back (`127.0.0.1:PORT` is not
    // `localhost:PORT` to a cookie): first over to the callback's origin, once.
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let wanted = callback_authority(&oidc.config);
    let elsewhere =
        matches!((host, wanted.as_deref()), (Some(host), Some(wanted)) if !host.eq_ignore_ascii_case(wanted));
    if params.hop.is_none() && elsewhere {
        let mut there = oidc.config.redirect.url().clone();
        let base = there.path().strip_suffix(CALLBACK_PATH).unwrap_or("").to_string();
        there.set_path(&format!("{base}/login/oidc"));
        there.query_pairs_mut().clear().append_pair("next", &next).append_pair("hop", "1");
        let mut response = StatusCode::SEE_OTHER.into_response();
        if let Ok(location) = HeaderValue::from_str(there.as_str()) {
            response.headers_mut().insert(header::LOCATION, location);
        }
        return response;
    }
    let metadata = match oidc.metadata().await {
        Ok(metadata) => metadata,
        Err(why) => return page(StatusCode::BAD_GATEWAY, "Identity provider unreachable", &advice(&why)),
    };
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let client = oidc.client(metadata);
    let mut request = client
        .authorize_url(CoreAuthenticationFlow::AuthorizationCode, CsrfToken::new_random, Nonce::new_random)
        .add_scope(Scope::new("profile".into()))
        .add_scope(Scope::new("email".into()))
        .set_pkce_challenge(challenge);
    for scope in &oidc.config.scopes {
        request = request.add_scope(Scope::new(scope.clone()));
    }
    let (url, state, nonce) = request.url();
    let browser = new_token();
    {
        let mut flows = oidc.flows();
        if flows.len() >= MOST_FLOWS {
            flows.retain(|_, flow| flow.started.elapsed() < FLOW_FOR);
        }
        // Still full (a flood of starts): the oldest goes. Refusing new ones instead would let a
        // flood lock everyone out for as long as it lasts plus 10 minutes.
        if flows.len() >= MOST_FLOWS {
            let oldest = flows.iter().min_by_key(|(_, flow)| flow.started).map(|(state, _)| state.clone());
            if let Some(oldest) = oldest {
                flows.remove(&oldest);
            }
        }
        flows.insert(
            state.secret().clone(),
            Flow { browser: browser.clone(), nonce, verifier, next, started: Instant::now() },
        );
    }
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let (Ok(location), Some(cookie)) =
        (HeaderValue::from_str(url.as_str()), flow_cookie(&oidc, &browser, FLOW_FOR.as_secs()))
    {
        response.headers_mut().insert(header::LOCATION, location);
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

#[derive(Deserialize, Default)]
pub struct CallbackParams {
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    error_description: Option<String>,
    #[serde(default)]
    iss: Option<String>,
}

/// One audit record of a sign-in through the provider.
fn record(debugger: &Debugger, actor: &str, role: &str, remote: &str, detail: Value, outcome: Outcome, status: u16) {
    debugger.audit().record(AuditRecord {
        id: 0,
        time: breakroom_debugger::ids::now(),
        actor: actor.into(),
        role: role.into(),
        door: Door::Page,
        remote: remote.into(),
        action: "sign in".into(),
        target: Default::default(),
        detail,
        outcome,
        status,
    });
}

/// The person's name: the configured claim, else `email`, else `sub`, the first that is a name
/// Breakroom can show and record (`users::check_name`).
fn person_name(claims: &Map<String, Value>, name_claim: &str) -> Option<String> {
    [name_claim, "email", "sub"]
        .into_iter()
        .filter_map(|claim| claims.get(claim).and_then(Value::as_str))
        .find(|name| check_name(name).is_ok())
        .map(str::to_string)
}

/// Claims as one JSON object, standard and others alike.
fn claim_map(claims: &impl Serialize) -> Map<String, Value> {
    match serde_json::to_value(claims) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// A groups claim: a list of names, or one name. `None` when the claim is absent.
fn groups_in(claims: &Map<String, Value>, name: &str) -> Option<Vec<String>> {
    match claims.get(name)? {
        Value::Array(items) => Some(items.iter().filter_map(Value::as_str).map(str::to_string).collect()),
        Value::String(one) => Some(vec![one.clone()]),
        _ => Some(vec![]),
    }
}

/// `GET /login/oidc/callback`: the provider sends the browser back here with a code (or an error).
pub async fn callback(
    State(debugger): State<Debugger>,
    Extension(oidc): Extension<Option<Arc<Oidc>>>,
    params: Result<Query<CallbackParams>, QueryRejection>,
    request: Request,
) -> Response {
    let Some(oidc) = oidc else { return not_configured() };
    let Query(params) = match params {
        Ok(params) => params,
        Err(e) => return malformed(&e),
    };
    let remote = request.extensions().get::<ConnectInfo<SocketAddr>>().map_or("unknown".into(), |c| c.0.to_string());
    let issuer = oidc.config.issuer.as_str().to_string();
    let refused = |status: StatusCode, actor: &str, detail: Value, title: &str, problem: &str| {
        record(&debugger, actor, "none", &remote, detail, Outcome::Refused, status.as_u16());
        let mut response = page(status, title, problem);
        if let Some(expired) = flow_cookie(&oidc, "", 0) {
            response.headers_mut().append(header::SET_COOKIE, expired);
        }
        response
    };
    let Some(state) = params.state.as_deref().filter(|s| !s.is_empty()) else {
        return refused(
            StatusCode::BAD_REQUEST,
            "anonymous",
            json!({ "via": issuer, "reason": "no_state" }),
            "Sign-in failed",
            "The identity provider sent the browser back without the sign-in's state: start again from the sign-in \
             page.",
        );
    };
    // Taken out at once: a callback replayed, or one whose code the provider will refuse, ends it.
    let flow = oidc.flows().remove(state);
    let Some(flow) = flow.filter(|f| f.started.elapsed() < FLOW_FOR) else {
        return refused(
            StatusCode::BAD_REQUEST,
            "anonymous",
            json!({ "via": issuer, "reason": "unknown_state" }),
            "Sign-in failed",
            "This sign-in is not one this server started, was already used, or took longer than 10 minutes: start \
             again from the sign-in page.",
        );
    };
    let same_browser =
        cookie(&request, FLOW_COOKIE).is_some_and(|c| constant_time_eq(c.as_bytes(), flow.browser.as_bytes()));
    if !same_browser {
        return refused(
            StatusCode::BAD_REQUEST,
            "anonymous",
            json!({ "via": issuer, "reason": "other_browser" }),
            "Sign-in failed",
            "This sign-in was started in another browser (or this browser refused its cookie): start again from \
             the sign-in page here.",
        );
    }
    // RFC 9207: a provider that names itself must be the one this sign-in went to (a mix-up).
    if params.iss.as_deref().is_some_and(|iss| iss != issuer) {
        return refused(
            StatusCode::BAD_REQUEST,
            "anonymous",
            json!({ "via": issuer, "reason": "other_issuer" }),
            "Sign-in failed",
            "The answer came from another identity provider than the one this sign-in went to.",
        );
    }
    if let Some(error) = params.error.as_deref() {
        // Whatever the address carries is kept short on the page and in the audit.
        let short = |text: &str| text.chars().take(200).collect::<String>();
        let error = short(error);
        let said = params.error_description.as_deref().map_or(String::new(), |d| format!(" ({})", short(d)));
        let status = if error == "access_denied" { StatusCode::FORBIDDEN } else { StatusCode::BAD_REQUEST };
        return refused(
            status,
            "anonymous",
            json!({ "via": issuer, "reason": "provider_error", "provider_error": error }),
            "Sign-in refused",
            &format!("The identity provider did not sign you in: {error}{said}."),
        );
    }
    let Some(code) = params.code.filter(|c| !c.is_empty()) else {
        return refused(
            StatusCode::BAD_REQUEST,
            "anonymous",
            json!({ "via": issuer, "reason": "no_code" }),
            "Sign-in failed",
            "The identity provider sent the browser back without a code: start again from the sign-in page.",
        );
    };
    let metadata = match oidc.metadata().await {
        Ok(metadata) => metadata,
        Err(why) => return page(StatusCode::BAD_GATEWAY, "Identity provider unreachable", &advice(&why)),
    };
    let client = oidc.client(metadata);
    let exchange = match client.exchange_code(AuthorizationCode::new(code)) {
        Ok(exchange) => exchange,
        Err(e) => {
            return page(
                StatusCode::BAD_GATEWAY,
                "Sign-in failed",
                &format!("The provider's metadata names no token endpoint: {e}."),
            )
        }
    };
    let tokens = match exchange.set_pkce_verifier(flow.verifier).request_async(&oidc.http).await {
        Ok(tokens) => tokens,
        // The provider refused the code: used before, expired, or not for this client.
        Err(RequestTokenError::ServerResponse(e)) => {
            return refused(
                StatusCode::BAD_REQUEST,
                "anonymous",
                json!({ "via": issuer, "reason": "code_refused", "provider_error": e.error().as_ref() }),
                "Sign-in failed",
                &format!("The identity provider refused this sign-in's code ({e}): start again from the sign-in page."),
            )
        }
        Err(e) => {
            let why =
                format!("The identity provider {issuer} could not be asked for the sign-in's tokens: {}.", chain(&e));
            return page(StatusCode::BAD_GATEWAY, "Sign-in failed", &why);
        }
    };
    let Some(token) = tokens.id_token().and_then(|t| t.to_string().parse::<PersonIdToken>().ok()) else {
        return page(StatusCode::BAD_GATEWAY, "Sign-in failed", "The identity provider answered without an ID token.");
    };
    let verifier = client.id_token_verifier();
    // The crate checks the signature against the provider's keys, the issuer, this client as
    // audience, the expiry and the nonce kept for this sign-in.
    let claims = match token.claims(&verifier, &flow.nonce) {
        Ok(claims) => claims.clone(),
        Err(e) => {
            return refused(
                StatusCode::FORBIDDEN,
                "anonymous",
                json!({ "via": issuer, "reason": "id_token", "id_token": e.to_string() }),
                "Sign-in refused",
                &format!("The identity provider's ID token did not verify: {e}."),
            )
        }
    };
    // The access token must be the one issued with this ID token, when the token says which.
    if let Some(expected) = claims.access_token_hash() {
        let actual = token
            .signing_alg()
            .ok()
            .zip(token.signing_key(&verifier).ok())
            .and_then(|(alg, key)| AccessTokenHash::from_token(tokens.access_token(), alg, key).ok());
        if actual.as_ref() != Some(expected) {
            return refused(
                StatusCode::FORBIDDEN,
                "anonymous",
                json!({ "via": issuer, "reason": "id_token", "id_token": "at_hash does not match the access token" }),
                "Sign-in refused",
                "The identity provider's access token is not the one its ID token names.",
            );
        }
    }
    let subject = claims.subject().as_str().to_string();
    let (name_claim, groups_claim) = (&oidc.config.name_claim, &oidc.config.groups_claim);
    let mut all = claim_map(&claims);
    if !all.contains_key(name_claim) || !all.contains_key(groups_claim) {
        // Many providers put little in the ID token, and the rest (groups) at the userinfo
        // endpoint. The crate checks its answer is about the same subject; the ID token wins.
        if let Ok(request) = client.user_info(tokens.access_token().clone(), Some(claims.subject().clone())) {
            if let Ok(info) = request.request_async::<OtherClaims, _, CoreGenderClaim>(&oidc.http).await {
                for (claim, value) in claim_map(&info) {
                    all.entry(claim).or_insert(value);
                }
            }
        }
    }
    let Some(name) = person_name(&all, name_claim) else {
        return refused(
            StatusCode::FORBIDDEN,
            "anonymous",
            json!({ "via": issuer, "reason": "no_name", "sub": subject }),
            "Sign-in refused",
            &format!(
                "The identity provider named you by no claim Breakroom can use ({name_claim}, email or sub, made of 1 \
                 to 64 letters, digits, '-', '_', '.' or '@')."
            ),
        );
    };
    let groups = groups_in(&all, groups_claim);
    let groups = groups.unwrap_or_default();
    let detail =
        json!({ "via": issuer, "sub": subject, groups_claim.as_str(): groups.iter().take(50).collect::<Vec<_>>() });
    let Some(role) = oidc.config.role_of(&groups) else {
        let mut detail = detail;
        detail["reason"] = json!("no_role");
        return refused(
            StatusCode::FORBIDDEN,
            &name,
            detail,
            "No access",
            &format!(
                "You signed in at {issuer} as {name}, but none of your groups gives you a role on this Breakroom. Ask \
                 an admin to add you to one of its groups."
            ),
        );
    };
    let id_token = token.to_string();
    let (session, who) = match debugger.users().sign_in_person(&name, role, &issuer, Some(&id_token)) {
        Ok(signed_in) => signed_in,
        Err(e) => {
            return page(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Sign-in failed",
                &format!("The sign-in could not be kept: {e}."),
            )
        }
    };
    record(&debugger, &name, role.as_str(), &remote, detail, Outcome::Done, 200);
    let mut response = Html(signed_in_page(&who.describe(), &flow.next)).into_response();
    let session_cookie = format!(
        "{SESSION_COOKIE}={session}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}{}",
        SIGN_IN_FOR.as_secs(),
        oidc.config.secure_cookies()
    );
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&session_cookie) {
        headers.append(header::SET_COOKIE, value);
    }
    if let Some(expired) = flow_cookie(&oidc, "", 0) {
        headers.append(header::SET_COOKIE, expired);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(extra: &[&str]) -> OidcArgs {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            oidc: OidcArgs,
        }
        let mut argv = vec!["breakroom"];
        argv.extend_from_slice(extra);
        Cli::try_parse_from(argv).unwrap().oidc
    }

    const LOOPBACK: SocketAddr = SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 5174);

    #[test]
    fn a_provider_ca_file_that_cannot_be_used_is_named() {
        let with = |file: &str| {
            let flags = ["--oidc-issuer=https://idp.example/", "--oidc-client-id=breakroom", file];
            Oidc::new(args(&flags).config(LOOPBACK).unwrap().unwrap()).err().unwrap_or_default()
        };
        assert!(
            with("--oidc-ca-file=/nonexistent/ca.pem").starts_with("--oidc-ca-file: cannot read /nonexistent/ca.pem")
        );
        let not_pem = std::env::temp_dir().join(format!("breakroom-not-a-ca-{}.pem", std::process::id()));
        std::fs::write(&not_pem, "no certificate here\n").unwrap();
        let said = with(&format!("--oidc-ca-file={}", not_pem.display()));
        let _ = std::fs::remove_file(&not_pem);
        assert!(said.contains("holds no PEM certificate"), "{said}");
    }

    #[test]
    fn flags_check_the_issuer_the_roles_and_the_callback() {
        assert!(args(&[]).config(LOOPBACK).unwrap().is_none());
        let config = args(&[
            "--oidc-issuer=https://idp.example/realms/x/",
            "--oidc-client-id=breakroom",
            "--oidc-role=admin=ops",
            "--oidc-role=viewer=staff",
            "--oidc-role=debugger=devs",
        ])
        .config(LOOPBACK)
        .unwrap()
        .unwrap();
        assert_eq!(config.issuer(), "https://idp.example/realms/x/");
        assert_eq!(config.redirect_url(), "http://localhost:5174/login/oidc/callback");
        assert_eq!(config.after_sign_out.as_str(), "http://localhost:5174/login");
        assert_eq!(config.role_of(&["staff".into(), "ops".into()]), Some(Role::Admin), "the highest role");
        assert_eq!(config.role_of(&["devs".into()]), Some(Role::Debugger));
        assert_eq!(config.role_of(&["Ops".into(), "other".into()]), None, "no group, default none");
        let viewer_by_default =
            args(&["--oidc-issuer=https://idp.example", "--oidc-client-id=b", "--oidc-default-role=viewer"]);
        assert_eq!(viewer_by_default.config(LOOPBACK).unwrap().unwrap().role_of(&[]), Some(Role::Viewer));
        let public = SocketAddr::from(([192, 0, 2, 1], 443));
        let behind = args(&[
            "--oidc-issuer=https://idp.example",
            "--oidc-client-id=b",
            "--oidc-redirect-url=https://debug.example/tools/login/oidc/callback",
        ]);
        let behind = behind.config(public).unwrap().unwrap();
        assert_eq!(behind.after_sign_out.as_str(), "https://debug.example/tools/login");
        assert_eq!((behind.secure_cookies(), config.secure_cookies()), ("; Secure", ""));
        for (bad, says) in [
            (vec!["--oidc-client-id=b"], "need --oidc-issuer"),
            (vec!["--oidc-issuer=http://idp.example", "--oidc-client-id=b"], "must be https"),
            (vec!["--oidc-issuer=https://idp.example"], "--oidc-client-id"),
            (vec!["--oidc-issuer=https://idp.example", "--oidc-client-id=b", "--oidc-role=root=x"], "not a role"),
            (vec!["--oidc-issuer=https://idp.example", "--oidc-client-id=b", "--oidc-role=admin"], "ROLE=GROUP"),
            (vec!["--oidc-issuer=https://idp.example", "--oidc-client-id=b", "--oidc-default-role=all"], "or none"),
            (
                vec!["--oidc-issuer=https://idp.example", "--oidc-client-id=b", "--oidc-redirect-url=https://x/cb"],
                "must end in /login/oidc/callback",
            ),
        ] {
            let error = args(&bad).config(LOOPBACK).unwrap_err();
            assert!(error.contains(says), "{bad:?}: {error}");
        }
        let error = args(&["--oidc-issuer=https://idp.example", "--oidc-client-id=b"]).config(public).unwrap_err();
        assert!(error.contains("needs --oidc-redirect-url"), "{error}");
        assert!(args(&["--oidc-issuer=http://127.0.0.1:9000", "--oidc-client-id=b"]).config(LOOPBACK).is_ok());
        let tls = args(&["--oidc-issuer=https://idp.example", "--oidc-client-id=b"]).config_on(LOOPBACK, true);
        let tls = tls.unwrap().unwrap();
        assert_eq!(tls.redirect_url(), "https://localhost:5174/login/oidc/callback");
        assert_eq!(tls.secure_cookies(), "; Secure");
    }

    #[test]
    fn groups_are_a_list_or_one_name_and_names_fall_back_to_usable_ones() {
        let claims: Map<String, Value> = serde_json::from_value(json!({"groups": ["a", 3, "b"], "team": "c"})).unwrap();
        assert_eq!(groups_in(&claims, "groups"), Some(vec!["a".to_string(), "b".to_string()]));
        assert_eq!(groups_in(&claims, "team"), Some(vec!["c".to_string()]));
        assert_eq!(groups_in(&claims, "roles"), None);
        let named: Map<String, Value> =
            serde_json::from_value(json!({"preferred_username": "Ada L", "email": "ada@example.org", "sub": "x"}))
                .unwrap();
        assert_eq!(person_name(&named, "preferred_username").as_deref(), Some("ada@example.org"), "a space");
        assert_eq!(person_name(&named, "nickname").as_deref(), Some("ada@example.org"));
        let opaque: Map<String, Value> = serde_json::from_value(json!({"sub": "248289761001"})).unwrap();
        assert_eq!(person_name(&opaque, "preferred_username").as_deref(), Some("248289761001"));
        let unusable: Map<String, Value> = serde_json::from_value(json!({"sub": "a b"})).unwrap();
        assert_eq!(person_name(&unusable, "preferred_username"), None);
    }
}
