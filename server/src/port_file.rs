//! Where the server writes its port, and where `breakroom run|ps|logs|stop` (and unchanged
//! cideldill clients) read it: `$CIDELDILL_PORT_FILE`, else `$CIDELDILL_HOME/port`, else
//! `~/.cideldill/port` (docs/src/protocol.md §2).

use std::path::PathBuf;

pub fn path() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("CIDELDILL_PORT_FILE") {
        Some(PathBuf::from(expand_tilde(&p)))
    } else if let Ok(home) = std::env::var("CIDELDILL_HOME") {
        Some(PathBuf::from(expand_tilde(&home)).join("port"))
    } else {
        std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cideldill").join("port"))
    }
}

pub fn expand_tilde(path: &str) -> String {
    match (path.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) => format!("{home}/{rest}"),
        _ => path.to_string(),
    }
}
