//! Webhook delivery end to end: the real `envelope-server` binary (SQLite in a temp data dir,
//! `--allow-insecure-webhooks`, a shrunken retry schedule) delivering to a real HTTP receiver on
//! 127.0.0.1, across a SIGKILL and restart; and, without the switch, refusing a name that
//! resolves to a private address with the category alone.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

const CONTRACT: &[u8] = include_bytes!("../../examples/contract.pdf");

/// What the receiver got: path, signature header, body.
type Received = Arc<Mutex<Vec<(String, String, Bytes)>>>;

/// A webhook receiver: answers 503 to the first `fail[path]` requests of a path, 200 after.
struct Receiver {
    addr: SocketAddr,
    received: Received,
    fail: Arc<Mutex<HashMap<String, usize>>>,
}

impl Receiver {
    async fn start() -> Receiver {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let received: Received = Arc::default();
        let fail: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
        let (r, f) = (received.clone(), fail.clone());
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let (r, f) = (r.clone(), f.clone());
                tokio::spawn(async move {
                    let svc = service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                        let (r, f) = (r.clone(), f.clone());
                        async move {
                            let path = req.uri().path().to_string();
                            let sig = req
                                .headers()
                                .get("service-signature")
                                .map(|v| v.to_str().unwrap_or_default().to_string())
                                .unwrap_or_default();
                            let body = req
                                .into_body()
                                .collect()
                                .await
                                .map(|b| b.to_bytes())
                                .unwrap_or_default();
                            r.lock().unwrap().push((path.clone(), sig, body));
                            let status = {
                                let mut f = f.lock().unwrap();
                                match f.get_mut(&path) {
                                    Some(n) if *n > 0 => {
                                        *n -= 1;
                                        503
                                    }
                                    _ => 200,
                                }
                            };
                            let resp = hyper::Response::builder()
                                .status(status)
                                .body(Full::new(Bytes::from_static(b"ok")));
                            Ok::<_, std::convert::Infallible>(resp.unwrap())
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), svc)
                        .await;
                });
            }
        });
        Receiver {
            addr,
            received,
            fail,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn fail_first(&self, path: &str, n: usize) {
        self.fail.lock().unwrap().insert(path.to_string(), n);
    }

    fn at(&self, path: &str) -> Vec<(String, Value)> {
        self.received
            .lock()
            .unwrap()
            .iter()
            .filter(|(p, _, _)| p == path)
            .map(|(_, s, b)| (s.clone(), serde_json::from_slice(b).unwrap()))
            .collect()
    }

    fn raw(&self, path: &str) -> Vec<(String, Bytes)> {
        self.received
            .lock()
            .unwrap()
            .iter()
            .filter(|(p, _, _)| p == path)
            .map(|(_, s, b)| (s.clone(), b.clone()))
            .collect()
    }

    /// Waits until `cond` holds for what `path` received.
    async fn wait_for(&self, path: &str, what: &str, cond: impl Fn(&[(String, Value)]) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if cond(&self.at(path)) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what} at {path}: {:?}",
                self.at(path)
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// The server binary on a data dir.
struct Server {
    child: Child,
    base: String,
    test_key: String,
    live_key: String,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Server {
    /// Starts the binary; `keys` are those printed on first start (None: read them now).
    fn start(data: &std::path::Path, keys: Option<(String, String)>) -> Server {
        Server::start_with(data, keys, &["--allow-insecure-webhooks"])
    }

    /// [`Server::start`] with `flags` in place of `--allow-insecure-webhooks` (the retry schedule
    /// stays `1s,1s,1s`).
    fn start_with(
        data: &std::path::Path,
        keys: Option<(String, String)>,
        flags: &[&str],
    ) -> Server {
        let port = free_port();
        let mut child = Command::new(env!("CARGO_BIN_EXE_envelope-server"))
            .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
            .args(flags)
            .args(["--webhook-retry-schedule", "1s,1s,1s"])
            .arg("--data-dir")
            .arg(data)
            .env("ENVELOPE_LOG", "info")
            .current_dir(data)
            .stdout(Stdio::piped())
            .stderr(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(data.join("server.log"))
                    .unwrap(),
            )
            .spawn()
            .expect("the server binary starts");
        // Read stdout to its end on a thread: closing it early would make the server's next
        // print fail (EPIPE) and stop it.
        let out = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                if let Some(key) = line.split_whitespace().last()
                    && (key.starts_with("sk_test_") || key.starts_with("sk_live_"))
                {
                    let _ = tx.send(key.to_string());
                }
            }
        });
        let (test_key, live_key) = match keys {
            Some(k) => k,
            None => {
                let wait = Duration::from_secs(30);
                let a = rx
                    .recv_timeout(wait)
                    .expect("a key is printed on first start");
                let b = rx
                    .recv_timeout(wait)
                    .expect("two keys are printed on first start");
                let (test, live) = if a.starts_with("sk_test_") {
                    (a, b)
                } else {
                    (b, a)
                };
                assert!(test.starts_with("sk_test_") && live.starts_with("sk_live_"));
                (test, live)
            }
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        let log = || std::fs::read_to_string(data.join("server.log")).unwrap_or_default();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = child.try_wait() {
                panic!("the server exited with {status}:\n{}", log());
            }
            assert!(
                Instant::now() < deadline,
                "the server did not start listening:\n{}",
                log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Server {
            child,
            base: format!("http://127.0.0.1:{port}/v1"),
            test_key,
            live_key,
        }
    }

    fn keys(&self) -> (String, String) {
        (self.test_key.clone(), self.live_key.clone())
    }

    fn kill(mut self) {
        // SIGKILL: no graceful shutdown, as in a crash.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    async fn call(
        &self,
        key: &str,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut req = reqwest::Client::new()
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(key);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let res = req.send().await.unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    async fn post(&self, key: &str, path: &str, body: Value) -> Value {
        let (status, v) = self
            .call(key, reqwest::Method::POST, path, Some(body))
            .await;
        assert!((200..300).contains(&status), "{path}: {status} {v}");
        v
    }

    async fn get(&self, key: &str, path: &str) -> Value {
        let (status, v) = self.call(key, reqwest::Method::GET, path, None).await;
        assert_eq!(status, 200, "{path}: {v}");
        v
    }

    async fn envelope(&self, key: &str) -> String {
        let body = json!({
            "file_base64": base64_encode(CONTRACT), "file_name": "contract.pdf",
            "signers": [{"name": "Zoë Client", "email": "zoe@example.com"}, {"name": "Paul", "email": "paul@example.com"}],
            "data": {"start_date": "2027-01-01"}, "delivery": "embedded"
        });
        self.post(key, "/envelopes", body).await["id"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn base64_encode(b: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(b)
}

fn now_unix() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

#[tokio::test(flavor = "multi_thread")]
async fn receiver_gets_every_event_type_signed_filtered_and_per_mode() {
    let rx = Receiver::start().await;
    let data = tempfile::tempdir().unwrap();
    let srv = Server::start(data.path(), None);
    let (test, live) = srv.keys();
    let all = srv
        .post(&test, "/webhook_endpoints", json!({"url": rx.url("/all")}))
        .await;
    let secret = all["secret"].as_str().unwrap().to_string();
    srv.post(
        &test,
        "/webhook_endpoints",
        json!({"url": rx.url("/completed"), "events": ["envelope.completed"]}),
    )
    .await;
    srv.post(&live, "/webhook_endpoints", json!({"url": rx.url("/live")}))
        .await;

    let a = srv.envelope(&test).await;
    srv.post(
        &test,
        &format!("/test_helpers/envelopes/{a}/complete"),
        json!({}),
    )
    .await;
    let b = srv.envelope(&test).await;
    srv.post(
        &test,
        &format!("/envelopes/{b}/void"),
        json!({"reason": "changed terms"}),
    )
    .await;

    let spec_types = [
        "envelope.created",
        "envelope.sent",
        "envelope.signer_completed",
        "envelope.completed",
        "envelope.voided",
    ];
    rx.wait_for("/all", "every event type", |got| {
        spec_types
            .iter()
            .all(|t| got.iter().any(|(_, v)| v["type"] == *t))
    })
    .await;
    rx.wait_for("/completed", "the completed event", |got| !got.is_empty())
        .await;
    for (sig, body) in rx.raw("/all") {
        envelope_core::webhook::verify(&body, &sig, &secret, 300, now_unix())
            .expect("the signature verifies");
    }
    let all_got = rx.at("/all");
    assert!(
        all_got
            .iter()
            .all(|(_, v)| v["livemode"] == false && v["object"] == "event")
    );
    let voided = all_got
        .iter()
        .find(|(_, v)| v["type"] == "envelope.voided")
        .unwrap();
    assert_eq!(voided.1["data"]["object"]["void_reason"], "changed terms");
    let completed = rx.at("/completed");
    assert!(
        completed
            .iter()
            .all(|(_, v)| v["type"] == "envelope.completed"),
        "filtered per endpoint"
    );
    assert_eq!(completed[0].1["data"]["object"]["id"], a.as_str());
    // Test-mode events never reach live endpoints.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(rx.at("/live").is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn failing_receiver_gets_retries_and_a_restart_loses_nothing() {
    let rx = Receiver::start().await;
    let data = tempfile::tempdir().unwrap();
    let srv = Server::start(data.path(), None);
    let keys = srv.keys();
    let (test, _) = keys.clone();

    // Fails twice: three attempts on the 1s schedule.
    rx.fail_first("/flaky", 2);
    srv.post(
        &test,
        "/webhook_endpoints",
        json!({"url": rx.url("/flaky"), "events": ["envelope.created"]}),
    )
    .await;
    srv.envelope(&test).await;
    rx.wait_for("/flaky", "three attempts", |got| got.len() >= 3)
        .await;
    let events = srv.get(&test, "/events?type=envelope.created").await;
    let first_event = events["data"][0]["id"].as_str().unwrap().to_string();
    let deliveries = srv
        .get(&test, &format!("/events/{first_event}/deliveries"))
        .await;
    let statuses: Vec<Value> = deliveries["data"][0]["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["status"].clone())
        .collect();
    assert_eq!(statuses, [json!(503), json!(503), json!(200)]);
    let errors: Vec<Value> = deliveries["data"][0]["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["error"].clone())
        .collect();
    assert_eq!(
        errors,
        [
            json!("HTTP status 503"),
            json!("HTTP status 503"),
            Value::Null
        ]
    );
    assert_eq!(deliveries["data"][0]["status"], "delivered");

    // A receiver that fails the first attempt; the server dies before the retry.
    rx.fail_first("/restart", 1);
    srv.post(
        &test,
        "/webhook_endpoints",
        json!({"url": rx.url("/restart"), "events": ["envelope.voided"]}),
    )
    .await;
    let e = srv.envelope(&test).await;
    srv.post(&test, &format!("/envelopes/{e}/void"), json!({}))
        .await;
    rx.wait_for("/restart", "the first attempt", |got| !got.is_empty())
        .await;
    // Kill once the failed attempt is on record (a kill between the receiver's answer and the
    // record is covered by the lease: the delivery is retried when it runs out, a minute later).
    let voided = srv.get(&test, "/events?type=envelope.voided").await;
    let id = voided["data"][0]["id"].as_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    while srv.get(&test, &format!("/events/{id}/deliveries")).await["data"][0]["attempts"]
        .as_array()
        .unwrap()
        .is_empty()
    {
        assert!(
            Instant::now() < deadline,
            "the first attempt was never recorded"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    srv.kill();
    let srv = Server::start(data.path(), Some(keys));
    rx.wait_for("/restart", "the retry after the restart", |got| {
        got.len() >= 2
    })
    .await;
    let got = rx.at("/restart");
    assert_eq!(
        got[0].1["id"], got[1].1["id"],
        "the same event, delivered after the restart"
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let d = srv.get(&test, &format!("/events/{id}/deliveries")).await;
        let statuses: Vec<Value> = d["data"][0]["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["status"].clone())
            .collect();
        if d["data"][0]["status"] == "delivered" {
            assert_eq!(
                statuses,
                [json!(503), json!(200)],
                "the attempt before the crash is on record"
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "never recorded as delivered: {d}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A name of this machine that resolves to loopback or private addresses only (its host name,
/// through /etc/hosts), or `None` with the reason when there is none.
async fn private_name() -> Result<(String, Vec<String>), String> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map_err(|e| format!("no host name: {e}"))?
        .trim()
        .to_string();
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((name.as_str(), 443))
        .await
        .map_err(|e| format!("{name} does not resolve: {e}"))?
        .collect();
    if addrs.is_empty()
        || addrs
            .iter()
            .any(|a| envelope_core::webhook::is_public(a.ip()))
    {
        return Err(format!(
            "{name} resolves to {addrs:?}, not only to private addresses"
        ));
    }
    Ok((name, addrs.iter().map(|a| a.ip().to_string()).collect()))
}

/// An endpoint whose host name resolves to a private address (the SSRF guard refuses it at
/// delivery): the attempt says `private address refused`, and neither the attempt nor anything
/// else the API answers shows what the name resolved to. The server runs without
/// `--allow-insecure-webhooks`, as in production.
#[tokio::test(flavor = "multi_thread")]
async fn a_private_address_is_refused_by_category_without_the_address() {
    let (name, addrs) = match private_name().await {
        Ok(found) => found,
        Err(why) => {
            eprintln!("SKIPPED: no name of this machine resolves to a private address: {why}");
            return;
        }
    };
    let data = tempfile::tempdir().unwrap();
    let srv = Server::start_with(data.path(), None, &[]);
    let (test, _) = srv.keys();
    srv.post(
        &test,
        "/webhook_endpoints",
        json!({"url": format!("https://{name}/hook"), "events": ["envelope.created"]}),
    )
    .await;
    srv.envelope(&test).await;
    let events = srv.get(&test, "/events?type=envelope.created").await;
    let event = events["data"][0]["id"].as_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    let deliveries = loop {
        let d = srv.get(&test, &format!("/events/{event}/deliveries")).await;
        if !d["data"][0]["attempts"].as_array().unwrap().is_empty() {
            break d;
        }
        assert!(Instant::now() < deadline, "no attempt recorded: {d}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let attempt = &deliveries["data"][0]["attempts"][0];
    assert_eq!(attempt["error"], "private address refused", "{deliveries}");
    assert_eq!(attempt["status"], Value::Null);
    let text = deliveries.to_string();
    for addr in &addrs {
        assert!(!text.contains(addr.as_str()), "{addr} shown in {text}");
    }
    // The operator's log has what the name resolved to.
    let log = std::fs::read_to_string(data.path().join("server.log")).unwrap();
    assert!(
        log.contains("webhook refused") && addrs.iter().any(|a| log.contains(a.as_str())),
        "{log}"
    );
}
