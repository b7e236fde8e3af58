//! The answer to a connection over a cap: a fixed `503` written straight on the socket, before
//! any byte is read, so that a refused client learns at once instead of waiting in the backlog.
//!
//! It never parses the client's request (no request exists: that is the point) and holds the
//! socket only briefly.

use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::OwnedSemaphorePermit;

use super::admission::Refusal;

/// What `Retry-After` says: slots free up as soon as any connection ends, and silent ones end
/// after the first-byte timeout.
pub(crate) const RETRY_AFTER_SECS: u64 = 1;

/// How long a refusal waits for the client's request before answering. HTTP clients treat bytes
/// that arrive before they have sent their request as a broken connection (hyper's client
/// fails with "unexpected message"), so the answer waits for the request when it comes quickly.
const AWAIT_REQUEST: Duration = Duration::from_millis(500);

/// Longest time a refusal may hold its socket: waiting for the request, the write, then
/// reading the rest of what the client sent.
const LINGER: Duration = Duration::from_millis(1500);

/// What a refusal reads at most before closing.
const DRAIN_BYTES: usize = 64 * 1024;

impl Refusal {
    fn code(self) -> &'static str {
        match self {
            Refusal::ServerFull => "service_busy",
            Refusal::AddressFull => "too_many_connections",
        }
    }

    fn message(self) -> String {
        match self {
            Refusal::ServerFull => format!(
                "The server has too many open connections; retry after {RETRY_AFTER_SECS} second."
            ),
            Refusal::AddressFull => format!(
                "Too many open connections from your address; reuse or close them, or retry \
                 after {RETRY_AFTER_SECS} second."
            ),
        }
    }
}

/// The whole HTTP/1.1 response: status line, headers, and an error body of the API's shape.
pub(crate) fn response(refusal: Refusal) -> Vec<u8> {
    let request_id = envelope_core::ids::new_id(envelope_core::ids::REQUEST);
    let body = json!({
        "object": "error",
        "status": 503,
        "type": "api_error",
        "code": refusal.code(),
        "message": refusal.message(),
        "param": null,
        "request_id": request_id,
    })
    .to_string();
    let mut out = format!(
        "HTTP/1.1 503 Service Unavailable\r\n\
         Content-Type: application/json\r\n\
         Content-Length: {}\r\n\
         Retry-After: {RETRY_AFTER_SECS}\r\n\
         Connection: close\r\n\
         Cache-Control: no-store\r\n\
         X-Content-Type-Options: nosniff\r\n\
         Service-Request-Id: {request_id}\r\n\
         \r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// Answers `503` once the request has started to arrive (or after [`AWAIT_REQUEST`]) and
/// closes. The socket stays open a moment to read what the client sent: closing with unread
/// bytes makes the kernel send a reset, and a reset can destroy the answer in the client's
/// receive buffer before the client reads it.
pub(crate) async fn refuse(mut stream: TcpStream, refusal: Refusal, _slot: OwnedSemaphorePermit) {
    let answer = response(refusal);
    let _ = tokio::time::timeout(LINGER, async {
        let mut buf = vec![0u8; 8 * 1024];
        let mut drained = 0;
        if let Ok(read) = tokio::time::timeout(AWAIT_REQUEST, stream.read(&mut buf)).await {
            match read? {
                0 => return Ok(()),
                n => drained += n,
            }
        }
        stream.write_all(&answer).await?;
        stream.shutdown().await?;
        while drained < DRAIN_BYTES {
            match stream.read(&mut buf).await? {
                0 => break,
                n => drained += n,
            }
        }
        Ok::<(), std::io::Error>(())
    })
    .await;
}

/// Answers `503` if the socket's send buffer takes it at once (an HTTP client that has not
/// sent its request yet may see a broken connection instead), and closes without waiting:
/// used when so many refusals are lingering already that waiting would hold more sockets.
pub(crate) fn refuse_now(stream: TcpStream, refusal: Refusal) {
    let _ = stream.try_write(&response(refusal));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_is_a_complete_http_response_with_an_api_error_body() {
        for (refusal, code) in [
            (Refusal::ServerFull, "service_busy"),
            (Refusal::AddressFull, "too_many_connections"),
        ] {
            let raw = response(refusal);
            let text = String::from_utf8(raw).unwrap();
            let (head, body) = text.split_once("\r\n\r\n").unwrap();
            let head = format!("{head}\r\n");
            assert!(head.starts_with("HTTP/1.1 503 Service Unavailable\r\n"));
            assert!(head.contains("\r\nRetry-After: 1\r\n"));
            assert!(head.contains("\r\nConnection: close\r\n"));
            assert!(head.contains(&format!("\r\nContent-Length: {}\r\n", body.len())));
            let b: serde_json::Value = serde_json::from_str(body).unwrap();
            assert_eq!(b["status"], 503);
            assert_eq!(b["code"], code);
            assert_eq!(b["type"], "api_error");
            assert!(b["param"].is_null());
            let id = b["request_id"].as_str().unwrap();
            assert!(id.starts_with("req_"));
            assert!(head.contains(&format!("\r\nService-Request-Id: {id}\r\n")));
        }
    }
}
