//! The DAP TCP port once users exist (issue 48): a session gives its token in the `attach` (or
//! `launch`) arguments, acts as that user, and what it changes is audited with door `dap`.

use std::time::Duration;

use breakroom_debugger::audit::AuditQuery;
use breakroom_debugger::users::{Holder, Role};
use breakroom_debugger::{Config, Debugger};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

struct Editor {
    reader: BufReader<tokio::net::tcp::OwnedReadHalf>,
    writer: tokio::net::tcp::OwnedWriteHalf,
    seq: i64,
}

impl Editor {
    async fn connect(addr: std::net::SocketAddr) -> Editor {
        let (reader, writer) = TcpStream::connect(addr).await.unwrap().into_split();
        Editor { reader: BufReader::new(reader), writer, seq: 0 }
    }

    /// Sends a request and returns its response (events in between are skipped).
    async fn request(&mut self, command: &str, arguments: Value) -> Value {
        self.seq += 1;
        let body = json!({"seq": self.seq, "type": "request", "command": command, "arguments": arguments}).to_string();
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.writer.write_all(frame.as_bytes()).await.unwrap();
        loop {
            let message = tokio::time::timeout(Duration::from_secs(10), self.read()).await.expect("a DAP answer");
            if message["type"] == "response" && message["request_seq"] == self.seq {
                return message;
            }
        }
    }

    async fn read(&mut self) -> Value {
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).await.unwrap();
            let line = line.trim();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length:") {
                length = n.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body).await.unwrap();
        serde_json::from_slice(&body).unwrap()
    }
}

#[tokio::test]
async fn with_users_the_dap_port_wants_a_debuggers_token_in_attach_and_audits_the_session() {
    let debugger = Debugger::for_tests(Config::default());
    let viewer = debugger.users().add("vera", Holder::Person(Role::Viewer)).unwrap();
    let dan = debugger.users().add("dan", Holder::Person(Role::Debugger)).unwrap();
    let addr = breakroom_server::dap::listen(0, debugger.clone(), None).await.unwrap();

    let mut editor = Editor::connect(addr).await;
    assert_eq!(editor.request("initialize", json!({"adapterID": "breakroom"})).await["success"], true);
    let early = editor.request("threads", json!({})).await;
    assert_eq!(early["success"], false);
    assert!(early["message"].as_str().unwrap().contains("token"), "{early}");
    let wrong = editor.request("attach", json!({"token": "brk_wrong"})).await;
    assert_eq!(wrong["success"], false, "{wrong}");
    let low = editor.request("attach", json!({"token": viewer})).await;
    assert_eq!(low["success"], false);
    assert!(low["message"].as_str().unwrap().contains("needs the debugger role"), "{low}");
    let attached = editor.request("attach", json!({"token": dan})).await;
    assert_eq!(attached["success"], true, "{attached}");
    assert_eq!(editor.request("threads", json!({})).await["success"], true);
    let set = editor.request("setFunctionBreakpoints", json!({"breakpoints": [{"name": "checkout"}]})).await;
    assert_eq!(set["success"], true, "{set}");

    let records = debugger.audit().read(&AuditQuery::default()).unwrap();
    let dap: Vec<(String, String, String)> = records
        .iter()
        .filter(|r| r.door.as_str() == "dap")
        .map(|r| (r.actor.clone(), r.action.clone(), format!("{:?}", r.outcome)))
        .collect();
    assert!(dap.contains(&("anonymous".into(), "dap threads".into(), "Refused".into())), "{dap:?}");
    assert!(dap.contains(&("anonymous".into(), "dap attach".into(), "Refused".into())), "the wrong token: {dap:?}");
    assert!(dap.contains(&("vera".into(), "dap attach".into(), "Refused".into())), "{dap:?}");
    assert!(dap.contains(&("dan".into(), "dap attach".into(), "Done".into())), "{dap:?}");
    assert!(dap.contains(&("dan".into(), "dap setFunctionBreakpoints".into(), "Done".into())), "{dap:?}");
    let text = serde_json::to_string(&records).unwrap();
    assert!(!text.contains(&dan) && !text.contains(&viewer), "no record holds a token");
}

#[tokio::test]
async fn without_users_the_dap_port_is_the_owners_as_before() {
    let debugger = Debugger::for_tests(Config::default());
    let addr = breakroom_server::dap::listen(0, debugger, None).await.unwrap();
    let mut editor = Editor::connect(addr).await;
    editor.request("initialize", json!({"adapterID": "breakroom"})).await;
    assert_eq!(editor.request("threads", json!({})).await["success"], true);
}
