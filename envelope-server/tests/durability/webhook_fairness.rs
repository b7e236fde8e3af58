//! Webhook fairness on the real binary with its default worker (128 slots, 16 per endpoint, 32
//! per account): one account's receivers never answer (like endpoints that take the whole 10 s),
//! and another account's delivery still goes out while every one of those attempts hangs.
//!
//! Order, not time, is asserted: when the second account's request arrives, the first account
//! holds exactly its 32 slots. Without the per-account cap its 8 endpoints x 16 would hold all
//! 128, and the second account would wait for a 10 s timeout to free one.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use http_body_util::Full;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use crate::pdf::client_contract;
use crate::process::{BIN, ServerProcess, send, test_key_in};

#[derive(Default)]
struct Counts {
    slow_now: AtomicUsize,
    slow_max: AtomicUsize,
    /// `slow_now + 1` when the fast request arrived (0: not yet).
    fast_seen_with: AtomicUsize,
}

/// Decrements the in-flight count however the slow request ends (answered or dropped).
struct InFlight(Arc<Counts>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.slow_now.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A receiver on 127.0.0.1: `/slow/...` waits for the gate, `/fast` answers at once.
async fn receiver(counts: Arc<Counts>, gate: Arc<Semaphore>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (counts, gate) = (counts.clone(), gate.clone());
            tokio::spawn(async move {
                let svc = service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let (counts, gate) = (counts.clone(), gate.clone());
                    async move {
                        if req.uri().path().starts_with("/slow") {
                            let now = counts.slow_now.fetch_add(1, Ordering::SeqCst) + 1;
                            let _guard = InFlight(counts.clone());
                            counts.slow_max.fetch_max(now, Ordering::SeqCst);
                            let _ = gate.acquire().await;
                        } else {
                            let now = counts.slow_now.load(Ordering::SeqCst);
                            let _ = counts.fast_seen_with.compare_exchange(
                                0,
                                now + 1,
                                Ordering::SeqCst,
                                Ordering::SeqCst,
                            );
                        }
                        Ok::<_, std::convert::Infallible>(hyper::Response::new(Full::new(
                            Bytes::from_static(b"ok"),
                        )))
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    format!("http://{addr}")
}

async fn post(base: &str, key: &str, path: &str, body: Value) -> Value {
    let a = send(
        reqwest::Client::new()
            .post(format!("{base}{path}"))
            .bearer_auth(key)
            .json(&body),
    )
    .await
    .expect("an answer");
    assert!((200..300).contains(&a.status), "{path}: {}", a.body);
    a.body
}

async fn until(what: &str, done: impl Fn() -> bool) {
    for _ in 0..3000 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("never happened: {what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_account_does_not_delay_another_accounts_delivery() {
    let counts = Arc::new(Counts::default());
    let gate = Arc::new(Semaphore::new(0));
    let hooks = receiver(counts.clone(), gate.clone()).await;
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let data_arg = data.to_str().unwrap().to_string();
    let log = tmp.path().join("server.log");
    let server = ServerProcess::start(
        BIN,
        &["--data-dir", &data_arg, "--allow-insecure-webhooks"],
        &log,
    );
    let slow_key = server.printed_test_key();
    let base = server.base.clone();

    for i in 0..8 {
        let url = format!("{hooks}/slow/{i}");
        post(
            &base,
            &slow_key,
            "/v1/webhook_endpoints",
            json!({"url": url}),
        )
        .await;
    }
    let pdf = base64::engine::general_purpose::STANDARD.encode(client_contract());
    let envelope = json!({
        "file_base64": pdf,
        "file_name": "contract.pdf",
        "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
        "delivery": "embedded",
    });
    // 16 envelopes x 8 endpoints: more due deliveries than the worker has slots.
    for _ in 0..16 {
        post(&base, &slow_key, "/v1/envelopes", envelope.clone()).await;
    }
    until("the slow account fills its 32 slots", || {
        counts.slow_now.load(Ordering::SeqCst) == 32
    })
    .await;

    let out = std::process::Command::new(BIN)
        .args([
            "accounts",
            "--data-dir",
            &data_arg,
            "create",
            "--name",
            "Fast",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fast_key = test_key_in(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(String::from),
    );
    let url = format!("{hooks}/fast");
    post(
        &base,
        &fast_key,
        "/v1/webhook_endpoints",
        json!({"url": url}),
    )
    .await;
    post(&base, &fast_key, "/v1/envelopes", envelope).await;
    until("the fast account's delivery", || {
        counts.fast_seen_with.load(Ordering::SeqCst) > 0
    })
    .await;
    assert_eq!(
        counts.fast_seen_with.load(Ordering::SeqCst) - 1,
        32,
        "delivered while the slow account held its whole share"
    );
    assert_eq!(
        counts.slow_max.load(Ordering::SeqCst),
        32,
        "never more than its share"
    );

    gate.close();
    server.kill();
}
