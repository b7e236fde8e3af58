//! Durable emails on the real binary with a real SMTP server (aiosmtpd):
//!
//! - the relay is down when an envelope is created: the signer's `last_email` shows the failed
//!   attempt, and once the relay is up on the same port the signing request arrives on the
//!   next step of `--email-retry-schedule`;
//! - the process is SIGKILLed after the envelope committed, while its email is being sent (the
//!   relay accepted the connection and says nothing): after a restart the email arrives, once the
//!   dead process's lease has run out.
//! - the daily email budget, set by the option and by the admin command, with the file mailer.

use std::io::Read;
use std::net::{Ipv4Addr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::pdf::client_contract;
use crate::process::{BIN, ServerProcess, free_port};
use crate::smtp::Sink;

fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

async fn create(http: &reqwest::Client, base: &str, key: &str) -> String {
    let body = json!({
        "file_base64": base64_of(&client_contract()),
        "file_name": "contract.pdf",
        "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
    });
    let res = http
        .post(format!("{base}/v1/envelopes"))
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 201);
    let env: Value = res.json().await.unwrap();
    env["id"].as_str().unwrap().to_string()
}

async fn last_email(http: &reqwest::Client, base: &str, key: &str, id: &str) -> Value {
    let env: Value = http
        .get(format!("{base}/v1/envelopes/{id}"))
        .bearer_auth(key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    env["signers"][0]["last_email"].clone()
}

/// Polls the envelope until `done` holds for the signer's `last_email`.
async fn wait_for(
    http: &reqwest::Client,
    base: &str,
    key: &str,
    id: &str,
    limit: Duration,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + limit;
    loop {
        let last = last_email(http, base, key, id).await;
        if done(&last) {
            return last;
        }
        assert!(Instant::now() < deadline, "last_email stayed {last}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_sent_while_smtp_is_down_arrives_once_it_is_up() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let log = tmp.path().join("server.log");
    // Nothing listens here yet: connections are refused.
    let port = free_port();
    let smtp = format!("smtp://127.0.0.1:{port}");
    let env = [
        ("ENVELOPE_SMTP_URL", smtp.as_str()),
        (
            "ENVELOPE_EMAIL_RETRY_SCHEDULE",
            "2s,2s,2s,2s,2s,2s,2s,2s,2s,2s",
        ),
    ];
    let server =
        ServerProcess::start_with_env(BIN, &["--data-dir", data.to_str().unwrap()], &env, &log);
    let key = server.printed_test_key();
    let http = reqwest::Client::new();
    let id = create(&http, &server.base, &key).await;

    let failed = wait_for(
        &http,
        &server.base,
        &key,
        &id,
        Duration::from_secs(20),
        |l| l["attempts"].as_u64() >= Some(1),
    )
    .await;
    assert_eq!(failed["kind"], "signing_request");
    assert_eq!(failed["status"], "pending", "{failed}");
    assert_eq!(failed["last_error"], "the mail server could not be reached");
    assert!(failed["next_attempt_at"].is_string());

    // The relay comes back where the server expects it.
    let sink = Sink::start_on(port);
    let got = sink.received_within(1, Duration::from_secs(30)).await;
    assert_eq!(got[0].rcpt_tos, ["ada@example.com"]);
    let text = String::from_utf8_lossy(&got[0].eml);
    assert!(text.contains("X-Envelope-Kind: signing_request"), "{text}");

    let sent = wait_for(
        &http,
        &server.base,
        &key,
        &id,
        Duration::from_secs(20),
        |l| l["status"] == "sent",
    )
    .await;
    assert!(sent["attempts"].as_u64() >= Some(2), "{sent}");
    assert_eq!(sent["last_error"], Value::Null);
    assert_eq!(sent["next_attempt_at"], Value::Null);
}

/// A relay that accepts connections and never answers: a send hangs in it.
struct BlackHole {
    port: u16,
    accepted: Arc<AtomicUsize>,
}

impl BlackHole {
    fn start() -> BlackHole {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = accepted.clone();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { break };
                count.fetch_add(1, Ordering::SeqCst);
                // Read whatever comes, answer nothing; keep the socket open.
                let _ = conn.set_read_timeout(Some(Duration::from_millis(1)));
                let _ = conn.read(&mut [0u8; 64]);
                held.push(conn);
            }
        });
        BlackHole { port, accepted }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_email_cut_off_by_sigkill_arrives_after_a_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let data_arg = data.to_str().unwrap().to_string();
    let log = tmp.path().join("server.log");
    let hole = BlackHole::start();
    let hole_url = format!("smtp://127.0.0.1:{}", hole.port);
    let server = ServerProcess::start_with_env(
        BIN,
        &["--data-dir", &data_arg],
        &[("ENVELOPE_SMTP_URL", hole_url.as_str())],
        &log,
    );
    let key = server.printed_test_key();
    let base = server.base.clone();
    let http = reqwest::Client::new();
    let id = create(&http, &base, &key).await;

    // The envelope committed and its email is on the wire to a relay that never answers.
    let deadline = Instant::now() + Duration::from_secs(20);
    while hole.accepted.load(Ordering::SeqCst) == 0 {
        assert!(
            Instant::now() < deadline,
            "the server never connected to the relay"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let held = last_email(&http, &base, &key, &id).await;
    assert_eq!(held["status"], "pending");
    assert_eq!(held["attempts"], 0, "the first attempt has not finished");
    server.kill();

    // Restarted against a working relay: the email arrives once the dead process's lease (one
    // minute from the create) has run out.
    let sink = Sink::start();
    let restarted = ServerProcess::start_with_env(
        BIN,
        &["--data-dir", &data_arg],
        &[("ENVELOPE_SMTP_URL", sink.url().as_str())],
        &log,
    );
    let got = sink.received_within(1, Duration::from_secs(120)).await;
    assert_eq!(got[0].rcpt_tos, ["ada@example.com"]);
    let sent = wait_for(
        &http,
        &restarted.base,
        &key,
        &id,
        Duration::from_secs(20),
        |l| l["status"] == "sent",
    )
    .await;
    assert_eq!(sent["attempts"], 1, "{sent}");
    assert_eq!(sent["id"], held["id"], "the same email, not a new one");
    // Exactly one message: the cut-off attempt never reached a working relay.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(sink.received(1).await.len(), 1);
}

/// The daily email budget on the real binary, set by its option (here through its environment
/// variable) and by the admin command, with the `.eml` file mailer: past the budget the
/// signing request is not written, the signer's `last_email` says `email_limit`, and an
/// account's own budget from `accounts set-email-limit` applies to the running server's next
/// email.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daily_email_budget_holds_on_the_real_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let data_arg = data.to_str().unwrap().to_string();
    let server = ServerProcess::start_with_env(
        BIN,
        &["--data-dir", &data_arg],
        &[("ENVELOPE_TEST_EMAIL_DAILY_LIMIT", "1")],
        &tmp.path().join("server.log"),
    );
    let key = server.printed_test_key();
    let base = server.base.clone();
    let http = reqwest::Client::new();
    let mail = data.join("mail");
    let emls = || {
        std::fs::read_dir(&mail)
            .map(|d| {
                d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .filter(|n| n.ends_with(".eml"))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    let settled = |l: &Value| l["status"] != "pending";

    let first = create(&http, &base, &key).await;
    let sent = wait_for(&http, &base, &key, &first, Duration::from_secs(20), settled).await;
    assert_eq!(sent["status"], "sent", "{sent}");
    let second = create(&http, &base, &key).await;
    let over = wait_for(
        &http,
        &base,
        &key,
        &second,
        Duration::from_secs(20),
        settled,
    )
    .await;
    assert_eq!(over["status"], "failed", "{over}");
    assert_eq!(over["failure_reason"], "email_limit", "{over}");
    let written = emls();
    assert_eq!(written.len(), 1, "{written:?}");
    assert!(written[0].contains("-test-signing_request-"), "{written:?}");

    // The admin command gives the account a budget of its own, which the running server
    // applies to its next email.
    let account: Value = http
        .get(format!("{base}/v1/account"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_envelope-server"))
        .args(["accounts", "--data-dir", &data_arg, "set-email-limit"])
        .args(["--account", account["id"].as_str().unwrap()])
        .args(["--mode", "test", "--daily", "5"])
        .env("ENVELOPE_LOG", "warn")
        .env_remove("ENVELOPE_DATABASE_URL")
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("test emails limited to 5 per day"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let third = create(&http, &base, &key).await;
    let sent = wait_for(&http, &base, &key, &third, Duration::from_secs(20), settled).await;
    assert_eq!(sent["status"], "sent", "{sent}");
    assert_eq!(emls().len(), 2);
}
