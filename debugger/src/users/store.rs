//! The `users` table (schema step 11): one row per person or program credential, holding the
//! SHA-256 of its token, never the token.

use serde::Serialize;

use super::{Holder, Identity, Role, SignedOut, TokenHash};
use crate::error::{Error, Result};
use crate::ids;
use crate::store::{values, Store};

/// A user as `user list` and `/api/users` show it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UserRow {
    pub name: String,
    /// `viewer`, `debugger`, `admin`, or `program`.
    pub role: String,
    pub created_at: f64,
    /// When its token last changed (added or rotated).
    pub token_changed_at: f64,
}

fn holder_text(holder: Holder) -> &'static str {
    holder.label()
}

fn holder_from(text: &str) -> Option<Holder> {
    match text {
        "program" => Some(Holder::Program),
        role => Role::parse(role).ok().map(Holder::Person),
    }
}

pub(super) fn count(store: &Store) -> Result<i64> {
    store.row("SELECT count(*) FROM users", values![])?.map_or(Ok(0), |r| r.int(0))
}

pub(super) fn by_hash(store: &Store, hash: &TokenHash) -> Result<Option<Identity>> {
    let Some(row) = store.row("SELECT name, role FROM users WHERE token_hash = ?1", values![&hash[..]])? else {
        return Ok(None);
    };
    let (name, role) = (row.text(0)?, row.text(1)?);
    Ok(holder_from(&role).map(|holder| Identity { name, holder }))
}

pub(super) fn insert(store: &Store, name: &str, holder: Holder, hash: &TokenHash) -> Result<()> {
    let now = ids::now();
    let added = store.execute(
        "INSERT INTO users (name, role, token_hash, created_at, token_changed_at) VALUES (?1, ?2, ?3, ?4, ?4)
         ON CONFLICT (name) DO NOTHING",
        values![name, holder_text(holder), &hash[..], now],
    )?;
    if added == 0 {
        return Err(Error::Conflict("user_exists", format!("a user named {name:?} exists already")));
    }
    Ok(())
}

pub(super) fn list(store: &Store) -> Result<Vec<UserRow>> {
    let rows = store.rows("SELECT name, role, created_at, token_changed_at FROM users ORDER BY name", values![])?;
    rows.into_iter()
        .map(|r| {
            Ok(UserRow { name: r.text(0)?, role: r.text(1)?, created_at: r.real(2)?, token_changed_at: r.real(3)? })
        })
        .collect()
}

fn changed(n: u64, name: &str) -> Result<()> {
    if n == 0 {
        return Err(Error::NotFound("user_not_found", format!("no user named {name:?}")));
    }
    Ok(())
}

pub(super) fn remove(store: &Store, name: &str) -> Result<()> {
    changed(store.execute("DELETE FROM users WHERE name = ?1", values![name])?, name)
}

pub(super) fn set_role(store: &Store, name: &str, role: Role) -> Result<()> {
    let current = store.row("SELECT role FROM users WHERE name = ?1", values![name])?;
    match current.map(|r| r.text(0)).transpose()? {
        None => changed(0, name),
        Some(r) if r == "program" => Err(Error::Invalid(
            "invalid_role",
            format!("{name} is a program credential: programs have no role; add a user for a person"),
        )),
        Some(_) => {
            changed(store.execute("UPDATE users SET role = ?2 WHERE name = ?1", values![name, role.as_str()])?, name)
        }
    }
}

pub(super) fn set_hash(store: &Store, name: &str, hash: &TokenHash) -> Result<()> {
    let n = store.execute(
        "UPDATE users SET token_hash = ?2, token_changed_at = ?3 WHERE name = ?1",
        values![name, &hash[..], ids::now()],
    )?;
    changed(n, name)
}

/// A browser's sign-in, for `name`, until `expires_at`.
pub(super) fn add_sign_in(store: &Store, hash: &TokenHash, name: &str, expires_at: f64) -> Result<()> {
    store.execute("DELETE FROM sign_ins WHERE expires_at < ?1", values![ids::now()])?;
    store.execute(
        "INSERT INTO sign_ins (session_hash, name, expires_at) VALUES (?1, ?2, ?3)",
        values![&hash[..], name, expires_at],
    )?;
    Ok(())
}

/// A sign-in through an identity provider, for `name` with `role`, until `expires_at`.
pub(super) fn add_person_sign_in(
    store: &Store,
    hash: &TokenHash,
    name: &str,
    role: Role,
    via: &str,
    end_hint: Option<&str>,
    expires_at: f64,
) -> Result<()> {
    store.execute("DELETE FROM sign_ins WHERE expires_at < ?1", values![ids::now()])?;
    store.execute(
        "INSERT INTO sign_ins (session_hash, name, expires_at, role, via, end_hint) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        values![&hash[..], name, expires_at, role.as_str(), via, end_hint],
    )?;
    Ok(())
}

/// The person a live sign-in stands for: a user with the role they have now, or someone the
/// identity provider vouched for, with the role their groups gave them at sign-in.
pub(super) fn by_sign_in(store: &Store, hash: &TokenHash) -> Result<Option<Identity>> {
    let row = store.row(
        "SELECT s.name, COALESCE(s.role, u.role) FROM sign_ins s LEFT JOIN users u ON u.name = s.name
         WHERE s.session_hash = ?1 AND s.expires_at > ?2",
        values![&hash[..], ids::now()],
    )?;
    let Some(row) = row else { return Ok(None) };
    // NULL: a token sign-in whose user has been removed.
    let (name, Some(role)) = (row.text(0)?, row.opt_text(1)?) else { return Ok(None) };
    Ok(holder_from(&role).filter(|h| *h != Holder::Program).map(|holder| Identity { name, holder }))
}

/// Ends a sign-in; answers what its identity provider needs to end its own session too.
pub(super) fn end_sign_in(store: &Store, hash: &TokenHash) -> Result<Option<SignedOut>> {
    let row = store.row("SELECT via, end_hint FROM sign_ins WHERE session_hash = ?1", values![&hash[..]])?;
    store.execute("DELETE FROM sign_ins WHERE session_hash = ?1", values![&hash[..]])?;
    let Some(row) = row else { return Ok(None) };
    Ok(row.opt_text(0)?.map(|via| SignedOut { via, end_hint: row.opt_text(1).ok().flatten() }))
}

/// Ends every sign-in of `name`; answers how many there were.
pub(super) fn end_sign_ins_of(store: &Store, name: &str) -> Result<u64> {
    store.execute("DELETE FROM sign_ins WHERE name = ?1", values![name])
}

/// The credential `process_key` belongs to: `name`, if none claimed it before (every server on
/// the database sees the same first claim).
pub(super) fn claim(store: &Store, process_key: &str, name: &str) -> Result<String> {
    store.execute(
        "INSERT INTO process_claims (process_key, credential, claimed_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (process_key) DO NOTHING",
        values![process_key, name, ids::now()],
    )?;
    let owner = store.row("SELECT credential FROM process_claims WHERE process_key = ?1", values![process_key])?;
    owner.map_or_else(|| Ok(name.to_string()), |row| row.text(0))
}

/// Forgets claims older than `before` (their processes are long gone; a program still polling
/// claims its process again).
pub(super) fn prune_claims(store: &Store, before: f64) -> Result<u64> {
    store.execute("DELETE FROM process_claims WHERE claimed_at < ?1", values![before])
}
