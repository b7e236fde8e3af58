//! Connections a stranger controls: silent or trickling clients are dropped, HTTP/2 connections
//! idle out, and the caps per address and in total answer `503` at once instead of stalling
//! everyone else.
//!
//! Timeouts here are short through `HttpLimits`; the only bound on the test side is a generous
//! one (10 s) that catches a hang, never a measure of speed.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use envelope_server::HttpLimits;

use crate::common::{Options, TestServer};

/// Catches a hang; never reached when the server behaves.
const HANG: Duration = Duration::from_secs(10);

/// A second client address: Linux routes all of 127.0.0.0/8 to loopback.
const OTHER_CLIENT: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);

fn limits(change: impl FnOnce(&mut HttpLimits)) -> Option<HttpLimits> {
    let mut l = HttpLimits::for_max_file(25 * 1024 * 1024);
    change(&mut l);
    Some(l)
}

fn addr(s: &TestServer) -> SocketAddr {
    s.base.trim_start_matches("http://").parse().unwrap()
}

async fn connect_from(from: Ipv4Addr, to: SocketAddr) -> TcpStream {
    let sock = TcpSocket::new_v4().unwrap();
    sock.bind(SocketAddr::new(IpAddr::V4(from), 0)).unwrap();
    sock.connect(to).await.unwrap()
}

/// Reads until the server closes the connection (end of stream or reset); returns what came.
async fn read_until_closed(sock: &mut TcpStream) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    tokio::time::timeout(HANG, async {
        loop {
            match sock.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .expect("the server closes the connection");
    got
}

/// Sends one keep-alive request on a raw socket and reads its whole answer, so that the
/// connection is known to be accepted and open when this returns.
async fn request_on(sock: &mut TcpStream, key: &str) -> String {
    let head =
        format!("GET /v1/account HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\r\n");
    sock.write_all(head.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    tokio::time::timeout(HANG, async {
        loop {
            let n = sock.read(&mut buf).await.unwrap();
            assert!(n > 0, "closed before the answer");
            got.extend_from_slice(&buf[..n]);
            if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&got[..end]).to_ascii_lowercase();
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map(|v| v.trim().parse().unwrap())
                    .unwrap_or(0);
                if got.len() >= end + 4 + len {
                    return;
                }
            }
        }
    })
    .await
    .expect("an answer");
    String::from_utf8(got).unwrap()
}

/// Checks a refusal read from a raw socket: a `503` with `Retry-After`, `Connection: close` and
/// an error body of the API's shape; returns the body.
fn assert_refusal(raw: &[u8], code: &str) -> serde_json::Value {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").expect("a whole response");
    let head = head.to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 503 "), "{text}");
    assert!(head.contains("\r\nretry-after: 1"), "{text}");
    assert!(head.contains("\r\nconnection: close"), "{text}");
    let b: serde_json::Value = serde_json::from_str(body).expect("a JSON body");
    assert_eq!(
        (
            b["object"].as_str(),
            b["status"].as_u64(),
            b["code"].as_str()
        ),
        (Some("error"), Some(503), Some(code)),
        "{b}"
    );
    assert!(b["message"].is_string() && b["param"].is_null(), "{b}");
    b
}

#[tokio::test]
async fn a_silent_connection_is_closed_after_the_first_byte_timeout() {
    let s = TestServer::start_with(Options {
        limits: limits(|l| l.first_byte_timeout = Duration::from_millis(300)),
        ..Options::default()
    })
    .await;
    let mut sock = TcpStream::connect(addr(&s)).await.unwrap();
    let got = read_until_closed(&mut sock).await;
    assert!(got.is_empty(), "nothing is written to a silent client");
    s.get(&s.test_key, "/v1/account").await.ok(200);
}

/// The bytes of an HTTP/2 preface, stopped half-way: hyper-util's protocol detection alone
/// would wait for the rest for ever.
#[tokio::test]
async fn a_half_sent_http2_preface_is_closed() {
    let s = TestServer::start_with(Options {
        limits: limits(|l| l.first_byte_timeout = Duration::from_millis(300)),
        ..Options::default()
    })
    .await;
    let mut sock = TcpStream::connect(addr(&s)).await.unwrap();
    sock.write_all(b"PRI * HTTP/2.0\r\n").await.unwrap();
    read_until_closed(&mut sock).await;
}

#[tokio::test]
async fn a_trickled_request_head_is_closed() {
    let s = TestServer::start_with(Options {
        limits: limits(|l| l.header_read_timeout = Duration::from_millis(500)),
        ..Options::default()
    })
    .await;
    let sock = TcpStream::connect(addr(&s)).await.unwrap();
    let (mut rd, mut wr) = sock.into_split();
    // One byte every 50 ms: a head that would take 30 s, each byte well inside any idle limit.
    let trickle = tokio::spawn(async move {
        wr.write_all(b"GET /v1/account HTTP/1.1\r\nHost: x\r\n")
            .await
            .unwrap();
        for _ in 0..600 {
            if wr.write_all(b"a").await.is_err() {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        true
    });
    let mut buf = [0u8; 1024];
    tokio::time::timeout(HANG, async {
        loop {
            match rd.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await
    .expect("the server closes a connection whose head trickles in");
    trickle.abort();
}

#[tokio::test]
async fn at_the_global_cap_a_new_connection_gets_503_at_once() {
    let s = TestServer::start_with(Options {
        limits: limits(|l| {
            l.max_connections = 4;
            l.max_connections_per_address = 100;
            l.header_read_timeout = Duration::from_secs(60);
        }),
        ..Options::default()
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut sock = TcpStream::connect(addr(&s)).await.unwrap();
        assert!(
            request_on(&mut sock, &s.test_key)
                .await
                .starts_with("HTTP/1.1 200")
        );
        held.push(sock);
    }
    // A raw client that sends nothing still gets the answer.
    let mut fifth = TcpStream::connect(addr(&s)).await.unwrap();
    let b = assert_refusal(&read_until_closed(&mut fifth).await, "service_busy");
    assert!(b["request_id"].as_str().unwrap().starts_with("req_"));
    // A real client that sends its request reads it too.
    let started = Instant::now();
    let r = s
        .client
        .get(s.url("/v1/account"))
        .bearer_auth(&s.test_key)
        .send()
        .await;
    let r = r.expect("the refusal is an HTTP answer");
    eprintln!(
        "503 at the global cap read by reqwest after {:?}",
        started.elapsed()
    );
    assert_eq!(r.status().as_u16(), 503);
    assert_eq!(r.headers()["retry-after"], "1");
    assert_eq!(
        r.json::<serde_json::Value>().await.unwrap()["code"],
        "service_busy"
    );

    // A freed slot is usable again.
    drop(held.pop());
    tokio::time::timeout(HANG, async {
        loop {
            let r = reqwest::Client::new()
                .get(s.url("/v1/account"))
                .bearer_auth(&s.test_key)
                .send()
                .await
                .unwrap();
            if r.status() == 200 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("served once a connection closed");
}

#[tokio::test]
async fn over_the_per_address_cap_only_that_address_is_refused() {
    let s = TestServer::start_with(Options {
        limits: limits(|l| {
            l.max_connections_per_address = 3;
            l.header_read_timeout = Duration::from_secs(60);
        }),
        ..Options::default()
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut sock = TcpStream::connect(addr(&s)).await.unwrap();
        assert!(
            request_on(&mut sock, &s.test_key)
                .await
                .starts_with("HTTP/1.1 200")
        );
        held.push(sock);
    }
    let mut fourth = TcpStream::connect(addr(&s)).await.unwrap();
    assert_refusal(
        &read_until_closed(&mut fourth).await,
        "too_many_connections",
    );

    let mut other = connect_from(OTHER_CLIENT, addr(&s)).await;
    assert!(
        request_on(&mut other, &s.test_key)
            .await
            .starts_with("HTTP/1.1 200")
    );
}

#[tokio::test]
async fn an_idle_http2_connection_is_closed() {
    let s = TestServer::start_with(Options {
        limits: limits(|l| l.http2_idle_timeout = Duration::from_millis(300)),
        ..Options::default()
    })
    .await;
    let tcp = TcpStream::connect(addr(&s)).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tcp))
            .await
            .unwrap();
    let conn = tokio::spawn(conn);
    let req = hyper::Request::get(s.url("/v1/account"))
        .header("authorization", format!("Bearer {}", s.test_key))
        .body(Empty::<Bytes>::new())
        .unwrap();
    let res = sender.send_request(req).await.unwrap();
    assert_eq!(res.status(), 200);
    let body = res.into_body().collect().await.unwrap().to_bytes();
    assert!(body.starts_with(b"{"));
    // The client keeps the connection; only the server can end it.
    tokio::time::timeout(HANG, conn)
        .await
        .expect("the server closes an idle HTTP/2 connection")
        .unwrap()
        .expect("a clean close (GOAWAY), not an error");
}

/// Issue 11: 1,100 idle connections from one address do not stop another client's request.
/// Default limits: the first 64 from 127.0.0.1 are held until their first-byte timeout, the
/// rest are refused at once; the client on 127.0.0.2 is served meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eleven_hundred_idle_connections_do_not_stop_another_client() {
    let s = TestServer::start().await;
    let to = addr(&s);
    let mut idle = Vec::with_capacity(1100);
    for _ in 0..1100 {
        idle.push(TcpStream::connect(to).await.unwrap());
    }
    let client = reqwest::Client::builder()
        .local_address(IpAddr::V4(OTHER_CLIENT))
        .build()
        .unwrap();
    let started = Instant::now();
    let r = tokio::time::timeout(
        HANG,
        client
            .get(s.url("/v1/account"))
            .bearer_auth(&s.test_key)
            .send(),
    )
    .await
    .expect("the other client is answered")
    .unwrap();
    let latency = started.elapsed();
    assert_eq!(r.status(), 200);
    eprintln!("answered with 1100 idle connections open: {latency:?}");

    // The last of the flood was refused rather than left waiting.
    let mut last = idle.pop().unwrap();
    assert_refusal(&read_until_closed(&mut last).await, "too_many_connections");
}

/// A client that asks and never reads: pipelined requests fill both socket buffers with
/// answers, the server's write stalls, and the connection is closed rather than held.
#[tokio::test]
async fn a_client_that_stops_reading_is_closed() {
    // More requests than the socket buffers of both sides hold: the client's writes block once
    // the server stops reading, and fail once it closes.
    const MAX_REQUESTS: usize = 1_000_000;
    let s = TestServer::start_with(Options {
        limits: limits(|l| {
            l.write_stall_timeout = Duration::from_millis(200);
            l.header_read_timeout = Duration::from_secs(60);
        }),
        ..Options::default()
    })
    .await;
    let sock = TcpStream::connect(addr(&s)).await.unwrap();
    let (mut rd, mut wr) = sock.into_split();
    let head = format!(
        "GET /v1/account HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\r\n",
        s.test_key
    );
    // The client never reads while it writes, however slow the server is on a loaded machine:
    // the only way for the writes to end is the server closing the connection.
    let written = tokio::time::timeout(HANG * 3, async move {
        for sent in 0..MAX_REQUESTS {
            if wr.write_all(head.as_bytes()).await.is_err() {
                return sent;
            }
        }
        MAX_REQUESTS
    })
    .await
    .expect("the server closes a connection whose client does not read");
    assert!(
        written < MAX_REQUESTS,
        "every request was written: the server kept reading"
    );
    // What had arrived before the close (a reset may cut it short).
    let mut got = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let _ = tokio::time::timeout(HANG, async {
        loop {
            match rd.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    let answers = got.windows(12).filter(|w| w == b"HTTP/1.1 200").count();
    assert!(
        answers < written,
        "{answers} answers to {written} requests: the server never gave up"
    );
    eprintln!(
        "a client that stopped reading got {answers} answers to {written} requests before the close"
    );
}
