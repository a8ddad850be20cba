//! `breakroom replay` and `breakroom export`: the recorded event log read
//! back from a data directory or from an exported `events.jsonl` file.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use breakroom_debugger::model::{EventKind, RecordedEvent};
use breakroom_debugger::store::{EventSelection, Store};
use serde_json::Value;

/// Longest wait between two events in a timed replay, whatever the original gap.
pub const MAX_GAP: Duration = Duration::from_secs(5);

#[derive(clap::Args, Debug, Clone)]
pub struct ReplayArgs {
    /// A session id (`{pid}-{timestamp}`), a process key (`{start_time}+{pid}`), or a file
    /// written by `breakroom export`.
    pub target: String,
    /// Wait between events as long as they were apart when recorded (each gap at most 5 s).
    #[arg(long)]
    pub timed: bool,
    /// With --timed: how much faster than recorded, e.g. 2x or 0.5x.
    #[arg(long, default_value = "1x", value_parser = parse_speed)]
    pub speed: f64,
    /// Only these event types, comma-separated (e.g. eval_request,eval_result).
    #[arg(long, value_delimiter = ',', value_parser = parse_event_type)]
    pub filter: Vec<EventKind>,
    /// Start at this sequence number.
    #[arg(long, default_value_t = 0)]
    pub from_sequence: i64,
}

fn parse_speed(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches(['x', 'X']);
    match number.parse::<f64>() {
        Ok(speed) if speed.is_finite() && speed > 0.0 => Ok(speed),
        _ => Err(format!("{text:?} is not a speed: use a positive multiplier such as 2x or 0.5x")),
    }
}

fn parse_event_type(text: &str) -> Result<EventKind, String> {
    let kind = text.trim();
    match EventKind::parse(kind) {
        Some(kind) => Ok(kind),
        None => {
            let known: Vec<&str> = EventKind::ALL.iter().map(|k| k.as_str()).collect();
            Err(format!("unknown event type {kind:?}; known types: {}", known.join(", ")))
        }
    }
}

/// How long a timed replay waits for a gap of `gap_s` recorded seconds.
pub fn replay_delay(gap_s: f64, speed: f64) -> Duration {
    if !gap_s.is_finite() || gap_s <= 0.0 || speed <= 0.0 {
        return Duration::ZERO;
    }
    Duration::from_secs_f64(gap_s / speed).min(MAX_GAP)
}

/// Reads the events of `target`: an exported file if one exists at that path, else a session or
/// process in the data directory (asked for only then, so a file needs no data directory).
pub fn load_events(
    target: &str,
    data_dir: impl FnOnce() -> Result<PathBuf, String>,
) -> Result<Vec<RecordedEvent>, String> {
    let as_file = Path::new(target);
    if as_file.is_file() {
        return read_jsonl(as_file);
    }
    let dir = data_dir()?;
    events_of(&dir, target)
}

fn open_store(dir: &Path) -> Result<Store, String> {
    if !dir.join(breakroom_debugger::store::DATABASE_FILE).is_file() {
        return Err(format!("no Breakroom history in {} (use --data-dir)", dir.display()));
    }
    Store::open(dir).map_err(|e| e.to_string())
}

fn events_of(dir: &Path, target: &str) -> Result<Vec<RecordedEvent>, String> {
    let store = open_store(dir)?;
    let selection = if store.has_session(target).map_err(|e| e.to_string())? {
        EventSelection { session_id: Some(target.to_string()), ..Default::default() }
    } else if store.has_process(target).map_err(|e| e.to_string())? {
        EventSelection { process_key: Some(target.to_string()), ..Default::default() }
    } else {
        return Err(format!(
            "{target:?} is not a file, and no REPL session or process by that id is recorded in {}",
            dir.display()
        ));
    };
    store.events(&selection).map_err(|e| e.to_string())
}

fn read_jsonl(path: &Path) -> Result<Vec<RecordedEvent>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut events = vec![];
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        let event = serde_json::from_str(&line)
            .map_err(|e| format!("{}, line {}: not an exported event: {e}", path.display(), i + 1))?;
        events.push(event);
    }
    Ok(events)
}

/// `breakroom export <target>`: the events as JSON lines on stdout.
pub fn export(dir: &Path, target: &str) -> Result<(), String> {
    let events = events_of(dir, target)?;
    let mut out = std::io::stdout().lock();
    for event in &events {
        let line = serde_json::to_string(event).map_err(|e| e.to_string())?;
        writeln!(out, "{line}").map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// `breakroom replay`: prints the chosen events in order, paced with --timed.
pub async fn replay(args: &ReplayArgs, data_dir: impl FnOnce() -> Result<PathBuf, String>) -> Result<(), String> {
    let events = load_events(&args.target, data_dir)?;
    let total = events.len();
    let chosen: Vec<&RecordedEvent> = events
        .iter()
        .filter(|e| e.sequence >= args.from_sequence)
        .filter(|e| args.filter.is_empty() || args.filter.contains(&e.kind))
        .collect();
    let mut previous: Option<f64> = None;
    for event in &chosen {
        if let (true, Some(before)) = (args.timed, previous) {
            tokio::time::sleep(replay_delay(event.timestamp - before, args.speed)).await;
        }
        previous = Some(event.timestamp);
        // Line by line, so a timed replay shows each event as it comes.
        let mut out = std::io::stdout().lock();
        writeln!(out, "{}", describe(event)).and_then(|_| out.flush()).map_err(|e| e.to_string())?;
    }
    println!("--- Replay complete: {} of {total} events ---", chosen.len());
    Ok(())
}

/// One line per event: sequence, UTC time, type, then what happened.
pub fn describe(event: &RecordedEvent) -> String {
    let d = &event.data;
    let text = |key: &str| d.get(key).map(display).unwrap_or_default();
    let what = match event.kind {
        EventKind::ProcessSeen => {
            format!("process {} (pid {})", event.process_key.as_deref().unwrap_or("?"), text("pid"))
        }
        EventKind::CallStart => {
            let mut args: Vec<String> =
                d.get("pretty_args").and_then(Value::as_array).map_or(vec![], |a| a.iter().map(display).collect());
            if let Some(kwargs) = d.get("pretty_kwargs").and_then(Value::as_object) {
                args.extend(kwargs.iter().map(|(k, v)| format!("{k}={}", display(v))));
            }
            format!("{}({})  [call {}]", text("function_name"), args.join(", "), text("call_id"))
        }
        EventKind::CallComplete => match d.get("exception").filter(|e| !e.is_null()) {
            Some(exc) => {
                format!("{} raised {}", text("function_name"), exc.get("summary").map(display).unwrap_or_default())
            }
            None => format!("{} returned {}", text("function_name"), text("pretty_result")),
        },
        EventKind::Pause => {
            format!("{} paused ({})  [pause {}]", text("function_name"), text("reason"), text("pause_id"))
        }
        EventKind::Resume => {
            let action =
                d.get("action").and_then(|a| a.get("action")).map(display).unwrap_or_else(|| "continue".into());
            let why =
                d.get("reason").filter(|r| !r.is_null()).map(|r| format!(" ({})", display(r))).unwrap_or_default();
            format!("pause {} resumed: {action}{why}", text("pause_id"))
        }
        EventKind::BreakpointHit => {
            let place = match (d.get("file"), d.get("line")) {
                (Some(f), Some(l)) => format!(" at {}:{}", display(f), display(l)),
                _ => String::new(),
            };
            let error = d.get("error").map(|e| format!(", condition raised {}", display(e))).unwrap_or_default();
            format!(
                "breakpoint {} ({}) hit {}{place}: {}{error}",
                text("breakpoint_id"),
                text("kind"),
                text("hit_count"),
                text("reason")
            )
        }
        EventKind::Log => format!("log [{}] {}", text("breakpoint_id"), text("message")),
        EventKind::Checkpoint => match d.get("refused").filter(|r| !r.is_null()) {
            Some(why) => format!("checkpoint refused at pause {}: {}", text("pause_id"), display(why)),
            None => format!("checkpoint {} at {} on {}", text("checkpoint_id"), text("function_name"), text("branch")),
        },
        EventKind::Rewind => format!("rewound to {} on {}", text("checkpoint_id"), text("branch")),
        EventKind::BranchCreated => format!("branch {} made at {}", text("branch"), text("checkpoint_id")),
        EventKind::BranchSwitched => format!("switched to branch {}", text("branch")),
        EventKind::SessionStart => format!("REPL session {} opened on {}", text("session_id"), text("function_name")),
        EventKind::SessionClose => {
            let why =
                d.get("reason").filter(|r| !r.is_null()).map(|r| format!(" ({})", display(r))).unwrap_or_default();
            format!("REPL session {} closed{why}", text("session_id"))
        }
        EventKind::EvalRequest => format!(">>> {}", text("expr")),
        EventKind::EvalResult => {
            let mut shown = String::new();
            let stdout = text("stdout");
            if !stdout.is_empty() {
                shown.push_str(stdout.trim_end_matches('\n'));
            }
            let output = text("output");
            if !output.is_empty() {
                if !shown.is_empty() {
                    shown.push_str(" | ");
                }
                shown.push_str(&output);
            }
            let mark = if d.get("is_error").and_then(Value::as_bool).unwrap_or(false) { "!! " } else { "" };
            format!("[{}] {}{}", text("index"), mark, shown.replace('\n', "\n    ")).trim_end().to_string()
        }
    };
    format!("#{:<5} {}  {:<13} {what}", event.sequence, utc(event.timestamp), event.kind.as_str())
}

fn display(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "None".into(),
        other => other.to_string(),
    }
}

/// `2026-11-23T19:42:01.123Z` from epoch seconds.
pub fn utc(epoch_s: f64) -> String {
    let millis = (epoch_s * 1000.0).round() as i64;
    let (days, ms_of_day) = (millis.div_euclid(86_400_000), millis.rem_euclid(86_400_000));
    // Days since 1970-01-01 to a civil date (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, ms) = (ms_of_day / 3_600_000, ms_of_day / 60_000 % 60, ms_of_day / 1000 % 60, ms_of_day % 1000);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_print_as_utc() {
        assert_eq!(utc(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(utc(1_795_462_921.123), "2026-11-23T19:42:01.123Z");
        assert_eq!(utc(951_782_400.0), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn timed_replay_gaps_scale_with_speed_and_are_capped_at_five_seconds() {
        assert_eq!(replay_delay(1.0, 2.0), Duration::from_millis(500));
        assert_eq!(replay_delay(1.0, 0.5), Duration::from_secs(2));
        assert_eq!(replay_delay(600.0, 1.0), MAX_GAP);
        assert_eq!(replay_delay(-3.0, 1.0), Duration::ZERO);
    }

    #[test]
    fn speeds_and_filters_are_checked() {
        assert_eq!(parse_speed("2x"), Ok(2.0));
        assert_eq!(parse_speed("0.5x"), Ok(0.5));
        assert_eq!(parse_speed("3"), Ok(3.0));
        assert!(parse_speed("0x").is_err());
        assert!(parse_speed("fast").is_err());
        assert!(parse_event_type("eval_result").is_ok());
        assert!(parse_event_type("tool_call").unwrap_err().contains("known types"));
    }
}
