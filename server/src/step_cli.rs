//! `breakroom step over|into|out [PAUSE]` and `breakroom step to FILE:LINE [PAUSE]` (issue 30):
//! the command line's door to stepping, on PAUSE or else the newest paused call.

use breakroom_debugger::steps::{StepKind, StepReply, StepRequest};
use serde_json::Value;

use crate::process_cli::Server;

#[derive(clap::Subcommand, Debug)]
pub enum StepCommand {
    /// Run to the next line of this frame (or of its caller when it returns).
    Over { pause: Option<String> },
    /// Stop at the first line of the next function called, else as over.
    Into { pause: Option<String> },
    /// Run until this frame returns: stop in the caller just after the call.
    Out { pause: Option<String> },
    /// Run until FILE:LINE is reached.
    To {
        #[arg(value_name = "FILE:LINE")]
        place: String,
        pause: Option<String>,
    },
}

/// `FILE:LINE` (the file may itself hold colons).
fn place(text: &str) -> Result<(String, i64), String> {
    let (file, line) = text.rsplit_once(':').ok_or_else(|| format!("{text:?} is not FILE:LINE"))?;
    let line = line.parse::<i64>().ok().filter(|l| *l >= 1).ok_or_else(|| format!("{line:?} is not a line number"))?;
    if file.is_empty() {
        return Err(format!("{text:?} names no file"));
    }
    Ok((file.to_string(), line))
}

async fn newest_pause(server: &Server) -> Result<String, String> {
    let paused: Value = server.get("/api/paused").await?;
    paused["paused"]
        .as_array()
        .and_then(|list| list.last())
        .and_then(|p| p["id"].as_str())
        .map(str::to_string)
        .ok_or_else(|| "nothing is paused".to_string())
}

pub async fn run(command: &StepCommand) -> Result<i32, String> {
    let server = Server::find()?;
    let (body, pause) = match command {
        StepCommand::Over { pause } => (StepRequest::new(StepKind::Over), pause),
        StepCommand::Into { pause } => (StepRequest::new(StepKind::Into), pause),
        StepCommand::Out { pause } => (StepRequest::new(StepKind::Out), pause),
        StepCommand::To { place: text, pause } => {
            let (file, line) = place(text)?;
            (StepRequest::to_line(file, line), pause)
        }
    };
    let pause = match pause {
        Some(id) => id.clone(),
        None => newest_pause(&server).await?,
    };
    let reply: StepReply =
        server.call(server.request(reqwest::Method::POST, &format!("/api/paused/{pause}/step")).json(&body)).await?;
    match reply {
        StepReply::Stopped { pause_id, file, line, function, how, .. } => {
            let returned = if how.as_deref() == Some("return") { " (returned)" } else { "" };
            println!("{file}:{line} in {function}{returned}: pause {pause_id}");
        }
        StepReply::Running { previous_pause_id } => {
            println!("running: the step from {previous_pause_id} has not stopped yet (breakroom ps, or the page)");
        }
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::place;

    #[test]
    fn a_place_is_file_colon_line() {
        assert_eq!(place("app.py:12"), Ok(("app.py".into(), 12)));
        assert_eq!(place("C:/x/app.py:3"), Ok(("C:/x/app.py".into(), 3)));
        assert!(place("app.py").is_err());
        assert!(place("app.py:0").is_err());
        assert!(place(":4").is_err());
    }
}
