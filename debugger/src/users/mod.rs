//! Who may do what (issue 48): people with a role, programs with a program credential, and what
//! each operation needs. Tokens are random (256 bits), so only their SHA-256 is kept and a
//! verified one is cached for [`CACHE_FOR`]: a token removed or rotated on this server stops at
//! once, one changed by another server or by `breakroom user` within that time.
//!
//! Without any user or program credential, a server is what it always was: one owner, with
//! `--token` (or on loopback, without one) opening everything.

mod store;
mod token;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::store::{Location, Store};
pub use store::UserRow;
pub use token::{hash_token, new_token, TokenHash};

/// How long a verified token is trusted before the store is asked again.
pub const CACHE_FOR: Duration = Duration::from_secs(2);
/// How long a browser's sign-in lasts.
pub const SIGN_IN_FOR: Duration = Duration::from_secs(12 * 3600);

/// A person's role, each including the one before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Reads what the pages show, and the live stream.
    Viewer,
    /// Also drives paused programs: evals, resuming, stepping, time travel, breakpoints.
    Debugger,
    /// Also attach, launch, stop, runtimes, users, tokens and the audit.
    Admin,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Viewer, Role::Debugger, Role::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Debugger => "debugger",
            Role::Admin => "admin",
        }
    }

    pub fn parse(text: &str) -> Result<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == text).ok_or_else(|| {
            Error::Invalid("invalid_role", format!("{text:?} is not a role: give viewer, debugger or admin"))
        })
    }
}

/// Who holds a credential.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "role")]
pub enum Holder {
    /// A person, with a role.
    Person(Role),
    /// A debugged program: the debug-client protocol only.
    Program,
    /// The one credential of a server without users (`--token`, or loopback without one): both.
    Owner,
}

impl Holder {
    /// `viewer`, `debugger`, `admin`, `program` or `owner`: what the audit and the top bar show.
    pub fn label(self) -> &'static str {
        match self {
            Holder::Person(role) => role.as_str(),
            Holder::Program => "program",
            Holder::Owner => "owner",
        }
    }
}

/// A sign-in through an identity provider, as it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedOut {
    /// The provider (its issuer URL).
    pub via: String,
    /// What the provider's end-session endpoint takes as `id_token_hint`.
    pub end_hint: Option<String>,
}

/// A credential a request came with, once verified.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    pub name: String,
    pub holder: Holder,
}

impl Identity {
    pub fn owner() -> Identity {
        Identity { name: "owner".into(), holder: Holder::Owner }
    }

    /// A short description for messages: `alice (viewer)`.
    pub fn describe(&self) -> String {
        format!("{} ({})", self.name, self.holder.label())
    }
}

/// What an operation needs of its caller. Every door declares one per operation, next to its
/// handler: REST in the operation's OpenAPI entry, server functions where they take the
/// debugger, MCP tools in their spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Need {
    /// Nobody in particular: the sign-in page, static files, the OpenAPI document.
    Open,
    Viewer,
    Debugger,
    Admin,
    /// The debug-client protocol: a program's (or the owner's) credential.
    Program,
    /// Shared by programs and people who may read (a program's connection check lists breakpoints).
    ProgramOrViewer,
    /// Shared by programs and people who may change things (registering a function by name).
    ProgramOrDebugger,
}

impl Need {
    pub const ALL: [Need; 7] = [
        Need::Open,
        Need::Viewer,
        Need::Debugger,
        Need::Admin,
        Need::Program,
        Need::ProgramOrViewer,
        Need::ProgramOrDebugger,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Need::Open => "open",
            Need::Viewer => "viewer",
            Need::Debugger => "debugger",
            Need::Admin => "admin",
            Need::Program => "program",
            Need::ProgramOrViewer => "program_or_viewer",
            Need::ProgramOrDebugger => "program_or_debugger",
        }
    }

    pub fn parse(text: &str) -> Option<Need> {
        Need::ALL.into_iter().find(|n| n.as_str() == text)
    }

    /// The role a person needs here, if people may call it at all.
    fn person_role(self) -> Option<Role> {
        match self {
            Need::Open | Need::Viewer | Need::ProgramOrViewer => Some(Role::Viewer),
            Need::Debugger | Need::ProgramOrDebugger => Some(Role::Debugger),
            Need::Admin => Some(Role::Admin),
            Need::Program => None,
        }
    }

    fn programs_may(self) -> bool {
        matches!(self, Need::Open | Need::Program | Need::ProgramOrViewer | Need::ProgramOrDebugger)
    }

    /// Whether `who` may call an operation that needs this; the refusal says what it wants.
    pub fn check(self, who: &Identity) -> std::result::Result<(), String> {
        match who.holder {
            Holder::Owner => Ok(()),
            _ if self == Need::Open => Ok(()),
            Holder::Program if self.programs_may() => Ok(()),
            Holder::Program => Err(format!(
                "this operation is for people with the {} role; {} holds a program credential, which opens only \
                 the debug-client protocol",
                self.person_role().map_or("admin", Role::as_str),
                who.name
            )),
            Holder::Person(role) => match self.person_role() {
                Some(wanted) if role >= wanted => Ok(()),
                Some(wanted) => Err(format!(
                    "this operation needs the {} role; {} is a {}",
                    wanted.as_str(),
                    who.name,
                    role.as_str()
                )),
                None => Err(format!(
                    "this operation is for debugged programs: it wants a program credential \
                     (breakroom token add-program), not {}'s token",
                    who.name
                )),
            },
        }
    }
}

/// A name: letters, digits and `-_.@`, 1 to 64 of them.
pub fn check_name(name: &str) -> Result<()> {
    let ok =
        !name.is_empty() && name.len() <= 64 && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.@".contains(c));
    if ok {
        Ok(())
    } else {
        Err(Error::Invalid(
            "invalid_name",
            format!("{name:?} is not a user name: use 1 to 64 letters, digits, '-', '_', '.' or '@'"),
        ))
    }
}

/// What a cached verification was of: a sign-in session is never good as a token, nor a
/// token as a session, so the two are cached apart.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Presented {
    Token,
    Session,
}

/// The users and program credentials of one store, with the cache of verified tokens.
pub struct Users {
    store: Mutex<Store>,
    /// Which program credential each process reported with (process key → credential name), as
    /// read from the store's `process_claims`: the first claims it, and another credential may
    /// not drive its pauses.
    claims: Mutex<HashMap<String, String>>,
    cache: Mutex<HashMap<(Presented, TokenHash), (Option<Identity>, Instant)>>,
    /// Whether any credential exists; re-read every [`CACHE_FOR`].
    any: AtomicBool,
    /// People sign in through an identity provider (issue 49): credentials are needed anyway.
    from_provider: AtomicBool,
    any_checked: Mutex<Instant>,
}

impl Users {
    /// On a store of its own (the server's other connections never wait for it).
    pub fn open(location: &Location) -> Result<Users> {
        Users::on(Store::at(location)?)
    }

    pub fn on(store: Store) -> Result<Users> {
        let any = store::count(&store)? > 0;
        Ok(Users {
            store: Mutex::new(store),
            claims: Mutex::new(HashMap::new()),
            cache: Mutex::new(HashMap::new()),
            any: AtomicBool::new(any),
            from_provider: AtomicBool::new(false),
            any_checked: Mutex::new(Instant::now()),
        })
    }

    fn store(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn cache(&self) -> MutexGuard<'_, HashMap<(Presented, TokenHash), (Option<Identity>, Instant)>> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn cached(&self, key: &(Presented, TokenHash)) -> Option<Option<Identity>> {
        match self.cache().get(key) {
            Some((who, at)) if at.elapsed() < CACHE_FOR => Some(who.clone()),
            _ => None,
        }
    }

    fn remember(&self, key: (Presented, TokenHash), who: &Option<Identity>) {
        let mut cache = self.cache();
        // Unknown credentials are cached too (a client retrying a bad one costs no query), but
        // the map is bounded: a flood of random ones empties it instead of growing it.
        if cache.len() >= 10_000 {
            cache.clear();
        }
        cache.insert(key, (who.clone(), Instant::now()));
    }

    /// People will sign in through an identity provider: from now on every request needs a
    /// credential, and launched programs get credentials of their own, even before any user
    /// or program credential exists.
    pub fn expect_people_from_provider(&self) {
        self.from_provider.store(true, Ordering::Relaxed);
    }

    /// Whether this store has any user or program credential (or people sign in through a
    /// provider): then every request needs one.
    pub fn configured(&self) -> bool {
        if self.from_provider.load(Ordering::Relaxed) {
            return true;
        }
        let mut checked = self.any_checked.lock().unwrap_or_else(|p| p.into_inner());
        if checked.elapsed() >= CACHE_FOR {
            if let Ok(n) = store::count(&self.store()) {
                self.any.store(n > 0, Ordering::Relaxed);
            }
            *checked = Instant::now();
        }
        self.any.load(Ordering::Relaxed)
    }

    /// The identity a token stands for, if any.
    pub fn verify(&self, token: &str) -> Result<Option<Identity>> {
        let key = (Presented::Token, hash_token(token));
        if let Some(who) = self.cached(&key) {
            return Ok(who);
        }
        let who = store::by_hash(&self.store(), &key.1)?;
        self.remember(key, &who);
        Ok(who)
    }

    /// Adds a person (`Some(role)`) or a program credential, and returns its token.
    pub fn add(&self, name: &str, holder: Holder) -> Result<String> {
        check_name(name)?;
        if holder == Holder::Owner {
            return Err(Error::Invalid("invalid_role", "the owner is no user to add".into()));
        }
        let token = new_token();
        store::insert(&self.store(), name, holder, &hash_token(&token))?;
        self.any.store(true, Ordering::Relaxed);
        Ok(token)
    }

    pub fn list(&self) -> Result<Vec<UserRow>> {
        store::list(&self.store())
    }

    /// Removes a user and ends their sign-ins. A person who signed in through an identity
    /// provider is no user, but removing their name ends their sign-ins too (issue 49): they
    /// may sign in again while their groups allow it.
    pub fn remove(&self, name: &str) -> Result<()> {
        let store = self.store();
        let removed = store::remove(&store, name);
        let ended = store::end_sign_ins_of(&store, name)?;
        drop(store);
        self.forget(name);
        match removed {
            Err(Error::NotFound(..)) if ended > 0 => Ok(()),
            other => other,
        }
    }

    /// A browser signs in with a person's token: the returned session token goes in a cookie.
    /// `None` for a token that is not a person's.
    pub fn sign_in(&self, token: &str) -> Result<Option<(String, Identity)>> {
        let Some(who) = self.verify(token)? else { return Ok(None) };
        if !matches!(who.holder, Holder::Person(_)) {
            return Ok(None);
        }
        let session = new_token();
        let expires = crate::ids::now() + SIGN_IN_FOR.as_secs_f64();
        store::add_sign_in(&self.store(), &hash_token(&session), &who.name, expires)?;
        Ok(Some((session, who)))
    }

    /// The person a sign-in cookie stands for (cached like tokens).
    pub fn verify_session(&self, session: &str) -> Result<Option<Identity>> {
        let key = (Presented::Session, hash_token(session));
        if let Some(who) = self.cached(&key) {
            return Ok(who);
        }
        let who = store::by_sign_in(&self.store(), &key.1)?;
        self.remember(key, &who);
        Ok(who)
    }

    /// A browser signs in as a person its identity provider vouched for (issue 49): no token
    /// and no row in `users`, so the sign-in itself keeps the name, the role (from the person's
    /// groups, fixed until it ends) and the provider (`via`). `end_hint` is what sign-out gives
    /// back to the provider to end its session too (the ID token).
    pub fn sign_in_person(
        &self,
        name: &str,
        role: Role,
        via: &str,
        end_hint: Option<&str>,
    ) -> Result<(String, Identity)> {
        check_name(name)?;
        let session = new_token();
        let expires = crate::ids::now() + SIGN_IN_FOR.as_secs_f64();
        store::add_person_sign_in(&self.store(), &hash_token(&session), name, role, via, end_hint, expires)?;
        Ok((session, Identity { name: name.to_string(), holder: Holder::Person(role) }))
    }

    /// Ends a sign-in. For one made through an identity provider, answers the provider and the
    /// hint to end its session with.
    pub fn sign_out(&self, session: &str) -> Result<Option<SignedOut>> {
        let hash = hash_token(session);
        self.cache().remove(&(Presented::Session, hash));
        store::end_sign_in(&self.store(), &hash)
    }

    pub fn set_role(&self, name: &str, role: Role) -> Result<()> {
        store::set_role(&self.store(), name, role)?;
        self.forget(name);
        Ok(())
    }

    /// A new token for `name`; the old one stops working.
    pub fn rotate(&self, name: &str) -> Result<String> {
        let token = new_token();
        store::set_hash(&self.store(), name, &hash_token(&token))?;
        self.forget(name);
        Ok(token)
    }

    /// `who` reports for `process_key`: the first program credential to do so owns it, on every
    /// server of the database. `Err` names the owner when it is another credential. Only program
    /// credentials claim. A claim never changes, so each server asks the store once per process.
    pub fn claim_process(&self, process_key: &str, who: &Identity) -> std::result::Result<(), String> {
        if who.holder != Holder::Program {
            return Ok(());
        }
        let known = self.claims.lock().unwrap_or_else(|p| p.into_inner()).get(process_key).cloned();
        let owner = match known {
            Some(owner) => owner,
            None => {
                // A store that cannot answer lets the poll through rather than stop a program.
                let Ok(owner) = store::claim(&self.store(), process_key, &who.name) else { return Ok(()) };
                let mut claims = self.claims.lock().unwrap_or_else(|p| p.into_inner());
                if claims.len() >= 100_000 {
                    claims.clear();
                }
                claims.insert(process_key.to_string(), owner.clone());
                owner
            }
        };
        if owner == who.name {
            Ok(())
        } else {
            Err(owner)
        }
    }

    /// Forgets process claims older than `age`.
    pub fn prune_claims(&self, age: Duration) -> Result<u64> {
        store::prune_claims(&self.store(), crate::ids::now() - age.as_secs_f64())
    }

    /// Drops `name`'s cached tokens, so a change on this server takes effect at once.
    fn forget(&self, name: &str) {
        self.cache().retain(|_, (who, _)| who.as_ref().is_none_or(|w| w.name != name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(role: Role) -> Identity {
        Identity { name: "alice".into(), holder: Holder::Person(role) }
    }

    #[test]
    fn roles_include_the_ones_below_and_programs_only_their_protocol() {
        assert!(Need::Viewer.check(&person(Role::Viewer)).is_ok());
        assert!(Need::Debugger.check(&person(Role::Viewer)).unwrap_err().contains("needs the debugger role"));
        assert!(Need::Debugger.check(&person(Role::Admin)).is_ok());
        assert!(Need::Admin.check(&person(Role::Debugger)).is_err());
        let program = Identity { name: "worker".into(), holder: Holder::Program };
        assert!(Need::Program.check(&program).is_ok());
        assert!(Need::ProgramOrViewer.check(&program).is_ok());
        assert!(Need::Viewer.check(&program).unwrap_err().contains("program credential"));
        assert!(Need::Program.check(&person(Role::Admin)).unwrap_err().contains("for debugged programs"));
        assert!(Need::ProgramOrDebugger.check(&person(Role::Viewer)).is_err());
        for need in Need::ALL {
            assert!(need.check(&Identity::owner()).is_ok());
            assert_eq!(Need::parse(need.as_str()), Some(need));
        }
    }

    #[test]
    fn a_process_belongs_to_the_first_program_credential_on_every_server_of_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let location = Location::Directory(dir.path().to_path_buf());
        let (one, two) = (Users::open(&location).unwrap(), Users::open(&location).unwrap());
        let worker = Identity { name: "worker".into(), holder: Holder::Program };
        let intruder = Identity { name: "intruder".into(), holder: Holder::Program };
        assert_eq!(one.claim_process("1700000000.5+42", &worker), Ok(()));
        assert_eq!(two.claim_process("1700000000.5+42", &intruder), Err("worker".into()), "the other server knows");
        assert_eq!(two.claim_process("1700000000.5+42", &worker), Ok(()));
        let person = Identity { name: "dan".into(), holder: Holder::Person(Role::Debugger) };
        assert_eq!(two.claim_process("1700000000.5+42", &person), Ok(()), "people are not limited by claims");
        assert_eq!(one.prune_claims(Duration::ZERO).unwrap(), 1);
    }

    #[test]
    fn a_person_the_provider_vouched_for_signs_in_with_their_role_and_signs_out_with_the_hint() {
        let users = Users::on(Store::in_memory().unwrap()).unwrap();
        let (session, who) =
            users.sign_in_person("ada@example.org", Role::Admin, "https://idp", Some("id.tok")).unwrap();
        assert_eq!(who, Identity { name: "ada@example.org".into(), holder: Holder::Person(Role::Admin) });
        assert_eq!(users.verify_session(&session).unwrap(), Some(who));
        let ended = users.sign_out(&session).unwrap().unwrap();
        assert_eq!((ended.via.as_str(), ended.end_hint.as_deref()), ("https://idp", Some("id.tok")));
        assert_eq!(users.verify_session(&session).unwrap(), None);
        assert_eq!(users.sign_out(&session).unwrap(), None, "ended once");
        // Removing the name ends a provider sign-in at once; a name with none is still unknown.
        let (session, _) = users.sign_in_person("ada@example.org", Role::Admin, "https://idp", None).unwrap();
        users.remove("ada@example.org").unwrap();
        assert_eq!(users.verify_session(&session).unwrap(), None);
        assert!(users.remove("ada@example.org").is_err());
        assert!(users.sign_in_person("<script>", Role::Viewer, "https://idp", None).is_err());
        assert!(!users.configured(), "no user yet");
        users.expect_people_from_provider();
        assert!(users.configured(), "people sign in through the provider");
        // A token sign-in still takes the user's role from `users`, and its sign-out has no hint.
        let token = users.add("dan", Holder::Person(Role::Debugger)).unwrap();
        let (session, _) = users.sign_in(&token).unwrap().unwrap();
        assert_eq!(users.verify_session(&session).unwrap().unwrap().holder, Holder::Person(Role::Debugger));
        assert_eq!(users.sign_out(&session).unwrap(), None);
    }

    #[test]
    fn a_sign_in_session_is_no_token_and_a_token_no_session_even_while_cached() {
        let users = Users::on(Store::in_memory().unwrap()).unwrap();
        let token = users.add("dan", Holder::Person(Role::Debugger)).unwrap();
        let (session, _) = users.sign_in(&token).unwrap().unwrap();
        // Each verified once, so each is in the cache.
        assert!(users.verify_session(&session).unwrap().is_some());
        assert!(users.verify(&token).unwrap().is_some());
        assert_eq!(users.verify(&session).unwrap(), None, "a session cookie's value as a Bearer token");
        assert_eq!(users.verify_session(&token).unwrap(), None, "a token as a session cookie");
    }

    #[test]
    fn tokens_verify_until_removed_or_rotated_and_only_their_hash_is_kept() {
        let users = Users::on(Store::in_memory().unwrap()).unwrap();
        assert!(!users.configured());
        let token = users.add("alice", Holder::Person(Role::Viewer)).unwrap();
        assert!(users.configured());
        assert!(token.len() >= 43, "{token}");
        assert_eq!(users.verify(&token).unwrap().unwrap().holder, Holder::Person(Role::Viewer));
        assert_eq!(users.verify("nope").unwrap(), None);
        users.set_role("alice", Role::Debugger).unwrap();
        assert_eq!(users.verify(&token).unwrap().unwrap().holder, Holder::Person(Role::Debugger));
        let rotated = users.rotate("alice").unwrap();
        assert_eq!(users.verify(&token).unwrap(), None, "the old token stops at once");
        assert!(users.verify(&rotated).unwrap().is_some());
        let listed = users.list().unwrap();
        assert_eq!(listed.len(), 1);
        assert!(!format!("{listed:?}").contains(&rotated));
        assert!(users.add("alice", Holder::Program).is_err(), "names are unique");
        assert!(users.add("bad name", Holder::Program).is_err());
        users.remove("alice").unwrap();
        assert_eq!(users.verify(&rotated).unwrap(), None);
        assert!(users.remove("alice").is_err());
    }
}
