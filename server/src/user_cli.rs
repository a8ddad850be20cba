//! `breakroom user …`, `breakroom token add-program` and `breakroom audit`: people, program
//! credentials and the audit trail, read and written in the store itself (a data directory or a
//! database URL), so they work whether a server runs or not. A running server sees a change
//! within `users::CACHE_FOR`.

use std::time::Duration;

use breakroom_debugger::audit::{AuditQuery, AuditRecord, AuditTrail, Door, Outcome};
use breakroom_debugger::store::Location;
use breakroom_debugger::users::{Holder, Role, Users};
use serde_json::Value;

#[derive(clap::Subcommand, Debug)]
pub enum UserCommand {
    /// Add a person with a role; prints the new token alone on the last line.
    Add {
        name: String,
        #[arg(long, value_parser = parse_role)]
        role: Role,
    },
    /// List people and program credentials (never their tokens).
    List,
    /// Remove a person or a program credential: its token and sign-ins stop working.
    Remove { name: String },
    /// Change a person's role.
    SetRole {
        name: String,
        #[arg(value_parser = parse_role)]
        role: Role,
    },
    /// Give a person or program a new token; the old one stops working.
    Rotate { name: String },
}

#[derive(clap::Subcommand, Debug)]
pub enum TokenCommand {
    /// A credential for debugged programs: it opens the debug-client protocol only. Prints the
    /// token alone on the last line.
    AddProgram { name: String },
}

#[derive(clap::Args, Debug)]
pub struct AuditArgs {
    /// Keep printing records as they are written.
    #[arg(long)]
    follow: bool,
    /// Only this user's or program's records.
    #[arg(long)]
    user: Option<String>,
    /// Only actions containing this text (`eval`, `continue`, `user add`…).
    #[arg(long)]
    action: Option<String>,
    /// Only records about this process.
    #[arg(long)]
    process: Option<String>,
    /// Only records since this time: Unix seconds, or an age such as 30m, 2h, 7d.
    #[arg(long, value_parser = parse_since)]
    since: Option<f64>,
    /// Print JSON lines instead of text.
    #[arg(long)]
    json: bool,
}

fn parse_role(text: &str) -> Result<Role, String> {
    Role::parse(text).map_err(|e| e.to_string())
}

fn parse_since(text: &str) -> Result<f64, String> {
    if let Ok(seconds) = text.parse::<f64>() {
        if seconds.is_finite() && seconds >= 0.0 {
            return Ok(seconds);
        }
    }
    let (number, unit) = text.split_at(text.len().saturating_sub(1));
    let scale = match unit {
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        _ => 0.0,
    };
    match number.parse::<f64>() {
        Ok(n) if scale > 0.0 && n.is_finite() && n >= 0.0 => Ok(breakroom_debugger::ids::now() - n * scale),
        _ => Err(format!("{text:?} is no time: give Unix seconds or an age such as 30m, 2h or 7d")),
    }
}

/// Who runs the command line, for the audit: the operating system's user name.
fn local_actor() -> String {
    let user = std::env::var("USER").ok().filter(|u| !u.is_empty()).unwrap_or_else(|| "unknown".into());
    format!("local:{user}")
}

fn audit_change(location: &Location, action: &str, name: &str, detail: Value, ok: bool) -> Result<(), String> {
    // A short keep: this trail only writes; the server's own `--audit-days` prunes.
    let trail = AuditTrail::open(location, Duration::from_secs(u64::MAX / 4), None).map_err(|e| e.to_string())?;
    trail.record(AuditRecord {
        id: 0,
        time: breakroom_debugger::ids::now(),
        actor: local_actor(),
        role: Holder::Owner.label().into(),
        door: Door::Cli,
        remote: "local".into(),
        action: action.into(),
        target: [("user".to_string(), name.to_string())].into_iter().collect(),
        detail,
        outcome: if ok { Outcome::Done } else { Outcome::Failed },
        status: 0,
    });
    trail.flush();
    Ok(())
}

fn open(location: &Location) -> Result<Users, String> {
    Users::open(location).map_err(|e| format!("cannot open the users of {}: {e}", shown(location)))
}

fn shown(location: &Location) -> String {
    match location {
        Location::Directory(dir) => dir.display().to_string(),
        Location::Postgres(url) => breakroom_debugger::store::postgres::display_url(url),
    }
}

pub fn user(location: &Location, command: &UserCommand) -> Result<(), String> {
    let users = open(location)?;
    let (action, name, detail, outcome) = match command {
        UserCommand::Add { name, role } => {
            let added = users.add(name, Holder::Person(*role));
            if let Ok(token) = &added {
                println!("Added {name} ({}). Their token, shown once:", role.as_str());
                println!("{token}");
            }
            ("user add", name, serde_json::json!({"role": role.as_str()}), added.map(drop))
        }
        UserCommand::List => {
            let list = users.list().map_err(|e| e.to_string())?;
            if list.is_empty() {
                println!("No users: the server is open to its owner (--token, or loopback without one).");
            }
            for user in list {
                println!(
                    "{:<24} {:<9} added {}  token from {}",
                    user.name,
                    user.role,
                    crate::replay::utc(user.created_at),
                    crate::replay::utc(user.token_changed_at)
                );
            }
            return Ok(());
        }
        UserCommand::Remove { name } => {
            let removed = users.remove(name);
            if removed.is_ok() {
                println!("Removed {name}: their token and sign-ins no longer work.");
            }
            ("user remove", name, Value::Null, removed)
        }
        UserCommand::SetRole { name, role } => {
            let set = users.set_role(name, *role);
            if set.is_ok() {
                println!("{name} is now a {}.", role.as_str());
            }
            ("user set-role", name, serde_json::json!({"role": role.as_str()}), set)
        }
        UserCommand::Rotate { name } => {
            let rotated = users.rotate(name);
            if let Ok(token) = &rotated {
                println!("A new token for {name}; the old one no longer works. Shown once:");
                println!("{token}");
            }
            ("user rotate", name, Value::Null, rotated.map(drop))
        }
    };
    audit_change(location, action, name, detail, outcome.is_ok())?;
    outcome.map_err(|e| e.to_string())
}

pub fn token(location: &Location, command: &TokenCommand) -> Result<(), String> {
    let TokenCommand::AddProgram { name } = command;
    let users = open(location)?;
    let added = users.add(name, Holder::Program);
    if let Ok(token) = &added {
        println!("Added the program credential {name}. Give it to programs as BREAKROOM_TOKEN; shown once:");
        println!("{token}");
    }
    audit_change(location, "token add-program", name, Value::Null, added.is_ok())?;
    added.map(drop).map_err(|e| e.to_string())
}

pub fn audit(location: &Location, args: &AuditArgs) -> Result<(), String> {
    let trail = AuditTrail::open(location, Duration::from_secs(u64::MAX / 4), None)
        .map_err(|e| format!("cannot open the audit trail of {}: {e}", shown(location)))?;
    let mut query = AuditQuery {
        user: args.user.clone(),
        action: args.action.clone(),
        process: args.process.clone(),
        since: args.since,
        after: None,
        limit: Some(10_000),
    };
    loop {
        let records = trail.read(&query).map_err(|e| e.to_string())?;
        for record in &records {
            if args.json {
                println!("{}", serde_json::to_string(record).unwrap_or_default());
            } else {
                println!("{}", line(record));
            }
        }
        if let Some(last) = records.last() {
            query.after = Some(last.id);
        }
        if !args.follow {
            return Ok(());
        }
        if records.is_empty() {
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

/// One record as a line of text: time, who, door, what, on what, how it ended, what was given.
pub fn line(record: &AuditRecord) -> String {
    let target: Vec<String> = record.target.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let outcome = match record.outcome {
        Outcome::Done => "done",
        Outcome::Failed => "failed",
        Outcome::Refused => "refused",
    };
    let status = if record.status > 0 { format!(" {}", record.status) } else { String::new() };
    let detail = if record.detail.is_null() { String::new() } else { format!(" {}", record.detail) };
    format!(
        "{} {} ({}) {} {} {}{} {}{}{}",
        crate::replay::utc(record.time),
        record.actor,
        record.role,
        record.door.as_str(),
        record.remote,
        record.action,
        if target.is_empty() { String::new() } else { format!(" [{}]", target.join(" ")) },
        outcome,
        status,
        detail
    )
}
