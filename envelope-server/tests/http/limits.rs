//! Rate limits, body size limits while streaming, read deadlines.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use envelope_core::{ManualClock, Settings, Timestamp};
use envelope_server::HttpLimits;

use crate::common::pdf::{fan_out_pdf, page_with_forms, stream};
use crate::common::{Options, TestServer, client_signer, envelope_body};

fn fixed_clock() -> Arc<ManualClock> {
    // 15 seconds into a minute: the window cannot roll over during the test.
    Arc::new(ManualClock::new(
        Timestamp::from_millis(1_790_000_000_000 / 60_000 * 60_000 + 15_000).unwrap(),
    ))
}

#[tokio::test]
async fn rate_limit_headers_and_429() {
    let clock = fixed_clock();
    let s = TestServer::start_with(Options {
        settings: Some(Settings {
            rate_limit_per_minute: 3,
            ..Settings::default()
        }),
        clock: Some(clock.clone()),
        ..Options::default()
    })
    .await;
    for remaining in [2, 1, 0] {
        let r = s.get(&s.test_key, "/v1/account").await;
        r.ok(200);
        assert_eq!(r.header("ratelimit-limit").as_deref(), Some("3"));
        assert_eq!(r.header("ratelimit-remaining"), Some(remaining.to_string()));
        assert_eq!(r.header("ratelimit-reset").as_deref(), Some("45"));
    }
    let r = s.get(&s.test_key, "/v1/account").await;
    let b = r.error(429, "rate_limited");
    assert_eq!(b["type"], "rate_limit_error");
    assert_eq!(r.header("retry-after").as_deref(), Some("45"));
    assert_eq!(r.header("ratelimit-remaining").as_deref(), Some("0"));

    // Keys are limited separately; the live key still has its allowance.
    s.get(&s.live_key, "/v1/account").await.ok(200);

    // A rate-limited POST with an idempotency key is not stored: it works once the window resets.
    let post = || {
        s.client
            .post(s.url("/v1/webhook_endpoints"))
            .bearer_auth(&s.test_key)
            .header("idempotency-key", "rl-1")
            .json(&json!({"url": "https://example.com/h"}))
    };
    s.send(post()).await.error(429, "rate_limited");
    clock.advance(chrono::Duration::seconds(60));
    let r = s.send(post()).await;
    r.ok(201);
    assert_eq!(r.header("idempotent-replayed").as_deref(), Some("false"));
}

#[tokio::test]
async fn requests_without_a_valid_key_are_limited_by_address() {
    let s = TestServer::start_with(Options {
        settings: Some(Settings {
            rate_limit_per_minute: 2,
            ..Settings::default()
        }),
        clock: Some(fixed_clock()),
        ..Options::default()
    })
    .await;
    s.get("sk_test_guess1", "/v1/account")
        .await
        .error(401, "invalid_api_key");
    s.get("sk_test_guess2", "/v1/account")
        .await
        .error(401, "invalid_api_key");
    let r = s.get("sk_test_guess3", "/v1/account").await;
    r.error(429, "rate_limited");
    assert!(r.header("retry-after").is_some());
    // A valid key has its own allowance.
    s.get(&s.test_key, "/v1/account").await.ok(200);
}

/// True once a whole response (head and Content-Length bytes of body) is in `got`.
fn response_complete(got: &[u8]) -> bool {
    let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&got[..end]).to_ascii_lowercase();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    got.len() >= end + 4 + len
}

/// Sends a request head and part of a body over a raw socket, then reads the response head.
async fn raw_exchange(s: &TestServer, head: &str, body_part: &[u8]) -> (String, Duration) {
    let addr = s.base.trim_start_matches("http://");
    let mut sock = TcpStream::connect(addr).await.unwrap();
    let started = Instant::now();
    sock.write_all(head.as_bytes()).await.unwrap();
    let _ = sock.write_all(body_part).await;
    let mut buf = vec![0u8; 4096];
    let mut got = Vec::new();
    loop {
        match tokio::time::timeout(Duration::from_secs(20), sock.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => {
                got.extend_from_slice(&buf[..n]);
                if response_complete(&got) {
                    break;
                }
            }
            Err(_) => panic!("no response within 20 s"),
        }
    }
    (
        String::from_utf8_lossy(&got).into_owned(),
        started.elapsed(),
    )
}

#[tokio::test]
async fn a_40_mb_body_is_refused_before_it_is_read() {
    let s = TestServer::start().await;
    // Through a real client: the whole 40 MB body is offered.
    let body = vec![b' '; 40_000_000];
    let res = s
        .client
        .post(s.url("/v1/envelopes"))
        .bearer_auth(&s.test_key)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await;
    let r = res.expect("the client gets the answer, not a reset");
    assert_eq!(r.status().as_u16(), 413);
    let b: serde_json::Value = r.json().await.unwrap();
    assert_eq!(b["code"], "file_too_large");

    // Exactly: only the head and 64 KiB are sent, and the answer comes anyway.
    let head = format!(
        "POST /v1/envelopes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 40000000\r\n\r\n",
        s.test_key
    );
    let (resp, _) = raw_exchange(&s, &head, &[b' '; 65536]).await;
    assert!(resp.starts_with("HTTP/1.1 413"), "{resp}");
    assert!(resp.contains("file_too_large"), "{resp}");
    assert!(
        resp.to_ascii_lowercase()
            .contains("service-request-id: req_")
    );

    // Multipart has its own, smaller limit (27 MiB).
    let head = format!(
        "POST /v1/templates HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 30000000\r\n\r\n",
        s.test_key
    );
    let (resp, _) = raw_exchange(&s, &head, b"--b\r\n").await;
    assert!(resp.starts_with("HTTP/1.1 413"), "{resp}");
}

#[tokio::test]
async fn a_chunked_body_is_counted_while_it_streams() {
    let s = TestServer::start_with(Options {
        limits: Some(HttpLimits {
            max_small_body: 1024,
            ..HttpLimits::for_max_file(25 * 1024 * 1024)
        }),
        ..Options::default()
    })
    .await;
    let head = format!(
        "POST /v1/webhook_endpoints HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
        s.test_key
    );
    let chunk = format!("800\r\n{}\r\n", " ".repeat(0x800));
    let (resp, _) = raw_exchange(&s, &head, chunk.as_bytes()).await;
    assert!(resp.starts_with("HTTP/1.1 413"), "{resp}");

    // Under the limit, a chunked body is read as usual.
    let body = json!({"url": "https://example.com/x"}).to_string();
    let chunks = format!("{:x}\r\n{body}\r\n0\r\n\r\n", body.len());
    let (resp, _) = raw_exchange(&s, &head, chunks.as_bytes()).await;
    assert!(resp.starts_with("HTTP/1.1 201"), "{resp}");
}

#[tokio::test]
async fn a_stalled_body_times_out() {
    let s = TestServer::start_with(Options {
        limits: Some(HttpLimits {
            body_idle_timeout: Duration::from_millis(300),
            ..HttpLimits::for_max_file(25 * 1024 * 1024)
        }),
        ..Options::default()
    })
    .await;
    let head = format!(
        "POST /v1/webhook_endpoints HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n",
        s.test_key
    );
    let (resp, took) = raw_exchange(&s, &head, b"{\"url\":").await;
    assert!(resp.starts_with("HTTP/1.1 408"), "{resp}");
    assert!(resp.contains("request_timeout"), "{resp}");
    assert!(took < Duration::from_secs(5));
}

#[tokio::test]
async fn a_slow_request_head_is_cut_off() {
    let s = TestServer::start_with(Options {
        limits: Some(HttpLimits {
            header_read_timeout: Duration::from_millis(300),
            ..HttpLimits::for_max_file(25 * 1024 * 1024)
        }),
        ..Options::default()
    })
    .await;
    let addr = s.base.trim_start_matches("http://");
    let mut sock = TcpStream::connect(addr).await.unwrap();
    sock.write_all(b"GET /v1/account HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 1024];
    let started = Instant::now();
    let n = tokio::time::timeout(Duration::from_secs(5), async {
        let mut total = 0;
        loop {
            match sock.read(&mut buf).await {
                Ok(0) | Err(_) => return total,
                Ok(n) => total += n,
            }
        }
    })
    .await
    .expect("the server closes a connection whose head does not arrive");
    let _ = n;
    assert!(started.elapsed() < Duration::from_secs(5));
    // The server still serves others.
    s.get(&s.test_key, "/v1/account").await.ok(200);
}

#[tokio::test]
async fn pdfs_that_would_stall_the_engine_are_answered() {
    let s = TestServer::start().await;
    // The file of issue 11: a form that draws itself 20 times. It is read once (the
    // self-reference is cut), so it is answered like any PDF without fields.
    let looping = page_with_forms(vec![stream(
        "/Type /XObject /Subtype /Form /BBox [0 0 9 9] /Resources <</XObject <</F 5 0 R>>>>",
        &"/F Do ".repeat(20),
    )]);
    let r = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            envelope_body(&looping, client_signer()),
        )
        .await;
    assert!(
        r.status < 500,
        "answered without an internal error: {}",
        r.status
    );
    // Eight levels of forms, each drawing the next 20 times, the last showing text: 20^8 copies
    // of a line. The glyph limit stops it: 400 invalid_pdf naming the limit.
    let fan_out = fan_out_pdf();
    assert!(fan_out.len() < 8192, "{} bytes", fan_out.len());
    let r = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            envelope_body(&fan_out, client_signer()),
        )
        .await;
    let b = r.error(400, "invalid_pdf");
    assert_eq!(b["param"], "file");
    let message = b["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("characters") && message.contains("too complex"),
        "{message}"
    );
}
