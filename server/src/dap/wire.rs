//! DAP's base protocol: each message is `Content-Length: N\r\n\r\n` and N bytes of JSON. The
//! specification's framing is small enough that a reader and a writer here are clearer than a
//! codec crate; the published DAP crates are stale or blocking (see `mod.rs`).

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// A message larger than this is refused (the connection ends): no editor sends one.
const MAX_MESSAGE: usize = 16 * 1024 * 1024;

/// Why a message could not be read.
#[derive(Debug)]
pub enum WireError {
    /// The stream broke or ended inside a message.
    Io(std::io::Error),
    /// The header block has no usable `Content-Length`, or too large a one.
    Header(String),
    /// The body is not a JSON object (the connection can go on: the framing held).
    Body(String),
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Io(e) => write!(f, "reading: {e}"),
            WireError::Header(m) | WireError::Body(m) => f.write_str(m),
        }
    }
}

/// The next message; `Ok(None)` when the stream ended between messages.
pub async fn read_message<R: AsyncBufRead + Unpin>(reader: &mut R) -> Result<Option<Value>, WireError> {
    let mut length: Option<usize> = None;
    let mut line = String::new();
    let mut first = true;
    loop {
        line.clear();
        let n = reader.read_line(&mut line).await.map_err(WireError::Io)?;
        if n == 0 {
            return if first { Ok(None) } else { Err(WireError::Header("the stream ended inside a header".into())) };
        }
        first = false;
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            if length.is_some() {
                break;
            }
            continue; // blank lines before a header block are tolerated
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                let parsed = value
                    .trim()
                    .parse::<usize>()
                    .map_err(|_| WireError::Header(format!("Content-Length is not a number: {:?}", value.trim())))?;
                length = Some(parsed);
            }
        } else {
            return Err(WireError::Header(format!("not a header line: {header:?}")));
        }
    }
    let length = length.unwrap_or(0);
    if length > MAX_MESSAGE {
        return Err(WireError::Header(format!("a message of {length} bytes is over the {MAX_MESSAGE} byte limit")));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await.map_err(WireError::Io)?;
    match serde_json::from_slice::<Value>(&body) {
        Ok(value) if value.is_object() => Ok(Some(value)),
        Ok(_) => Err(WireError::Body("a message must be a JSON object".into())),
        Err(e) => Err(WireError::Body(format!("a message is not JSON: {e}"))),
    }
}

/// Writes one message with its header.
pub async fn write_message<W: AsyncWrite + Unpin>(writer: &mut W, message: &Value) -> std::io::Result<()> {
    let body = serde_json::to_vec(message)?;
    let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    framed.extend_from_slice(&body);
    writer.write_all(&framed).await?;
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn messages_read_back_as_written_and_the_end_is_none() {
        let mut bytes = vec![];
        write_message(&mut bytes, &json!({"seq": 1, "type": "request", "command": "threads"})).await.unwrap();
        write_message(&mut bytes, &json!({"seq": 2, "text": "é ✓"})).await.unwrap();
        let mut reader = tokio::io::BufReader::new(&bytes[..]);
        assert_eq!(read_message(&mut reader).await.unwrap().unwrap()["command"], "threads");
        assert_eq!(read_message(&mut reader).await.unwrap().unwrap()["text"], "é ✓");
        assert!(read_message(&mut reader).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn a_bad_body_is_an_error_the_stream_survives() {
        let bytes = b"Content-Length: 3\r\n\r\nnopContent-Length: 2\r\n\r\n{}".to_vec();
        let mut reader = tokio::io::BufReader::new(&bytes[..]);
        assert!(matches!(read_message(&mut reader).await, Err(WireError::Body(_))));
        assert!(read_message(&mut reader).await.unwrap().is_some());
        let mut bad = tokio::io::BufReader::new(&b"Content-Length: x\r\n\r\n"[..]);
        assert!(matches!(read_message(&mut bad).await, Err(WireError::Header(_))));
    }
}
