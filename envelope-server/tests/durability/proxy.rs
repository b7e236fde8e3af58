//! Trusted proxies on the real binary, configured as a deployment would (`ENVELOPE_TRUSTED_PROXIES`):
//! a signer who signs through the proxy with `X-Forwarded-For: 203.0.113.7` is 203.0.113.7 in
//! the stored signer record (read back from the SQLite file), in the audit-trail PDF and in the
//! request log, which also names the socket's peer. Without the setting the same requests are
//! the socket's address everywhere. A `Forwarded` header the signer writes themselves (nginx and
//! Caddy pass it through) reaches none of them, and `ENVELOPE_CLIENT_IP_HEADER` picks the one
//! header read; a name that is not a header name stops the server at start.

use envelope_core::store::EnvelopeStore;
use std::path::Path;
use std::time::{Duration, Instant};

use envelope_core::Mode;
use envelope_core::model::Scope;
use envelope_core::store::SqlStore;
use serde_json::{Value, json};

use crate::pdf::client_contract;
use crate::process::{BIN, ServerProcess};

const FORWARDED_CLIENT: &str = "203.0.113.7";

/// Generous: completion seals and builds the audit trail in the PDF pool of a debug binary.
const COMPLETION_LIMIT: Duration = Duration::from_secs(60);

/// What one signing through a proxy left behind.
struct Traces {
    /// The stored signer record's address.
    record_ip: Option<String>,
    /// The audit-trail PDF as text.
    trail: String,
    /// The server's log (stderr).
    log: String,
}

async fn api(client: &reqwest::Client, req: reqwest::RequestBuilder, status: u16) -> Value {
    let res = client.execute(req.build().unwrap()).await.unwrap();
    let got = res.status().as_u16();
    let body = res.text().await.unwrap();
    assert_eq!(got, status, "{body}");
    serde_json::from_str(&body).unwrap()
}

/// Starts the binary with `env`, signs a one-signer envelope through its signing page with every
/// page request carrying `X-Forwarded-For`, waits for completion, and reads the traces.
async fn sign_through_proxy(env: &[(&str, &str)]) -> Traces {
    sign_with_headers(env, &[("x-forwarded-for", FORWARDED_CLIENT)]).await
}

/// [`sign_through_proxy`] with `headers` on every signing-page request.
async fn sign_with_headers(env: &[(&str, &str)], headers: &[(&str, &str)]) -> Traces {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let log = tmp.path().join("server.log");
    let data_arg = data.to_str().unwrap().to_string();
    let mut env = env.to_vec();
    // Request lines are logged at info.
    env.push(("ENVELOPE_LOG", "info"));
    let mut server = ServerProcess::start_with_env(BIN, &["--data-dir", &data_arg], &env, &log);
    let key = server.printed_test_key();
    let base = server.base.clone();
    let http = reqwest::Client::new();

    let account = api(
        &http,
        http.get(format!("{base}/v1/account")).bearer_auth(&key),
        200,
    )
    .await;
    let body = json!({
        "file_base64": base64_of(&client_contract()),
        "file_name": "contract.pdf",
        "delivery": "embedded",
        "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
    });
    let create = http
        .post(format!("{base}/v1/envelopes"))
        .bearer_auth(&key)
        .json(&body);
    let env_id = api(&http, create, 201).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let link = http
        .post(format!("{base}/v1/envelopes/{env_id}/signing_url"))
        .bearer_auth(&key)
        .json(&json!({"signer": "Client"}));
    let url = api(&http, link, 200).await["url"]
        .as_str()
        .unwrap()
        .to_string();

    let with = |mut req: reqwest::RequestBuilder| {
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        req
    };
    let page = with(http.get(&url)).send().await.unwrap();
    assert_eq!(page.status().as_u16(), 200);
    let csrf = form_token(&page.text().await.unwrap());
    let form: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("csrf", csrf.as_str()),
            ("mode:Client_signature", "type"),
            ("typed:Client_signature", "Ada Lovelace"),
            ("consent", "yes"),
        ])
        .finish();
    let signed = with(
        http.post(&url)
            .header("content-type", "application/x-www-form-urlencoded")
            .header("origin", &base)
            .body(form),
    )
    .send()
    .await
    .unwrap();
    let status = signed.status().as_u16();
    assert_eq!(status, 200, "{}", signed.text().await.unwrap());

    let trail = audit_trail_text(&http, &base, &key, &env_id).await;
    server.terminate();
    assert!(
        server.wait_exit(Duration::from_secs(30)).is_some(),
        "no exit after SIGTERM"
    );

    let store = SqlStore::open_sqlite(data.join("envelope.sqlite3"))
        .await
        .unwrap();
    let scope = Scope {
        account: account["id"].as_str().unwrap().parse().unwrap(),
        mode: Mode::Test,
    };
    let record = store
        .get_envelope(&scope, &env_id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    Traces {
        record_ip: record.signers[0].ip_address.clone(),
        trail,
        log: std::fs::read_to_string(&log).unwrap(),
    }
}

fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The hidden `csrf` value of the signing form.
fn form_token(html: &str) -> String {
    let form = html.split(r#"id="sign-form""#).nth(1).expect("sign form");
    let rest = form.split(r#"name="csrf" value=""#).nth(1).unwrap();
    rest.split('"').next().unwrap().to_string()
}

/// Waits for the envelope to complete (the last signature completes it in the background of
/// the request), then reads its audit trail with `pdftotext`.
pub(crate) async fn audit_trail_text(
    http: &reqwest::Client,
    base: &str,
    key: &str,
    id: &str,
) -> String {
    let deadline = Instant::now() + COMPLETION_LIMIT;
    let file = loop {
        let res = http
            .get(format!("{base}/v1/envelopes/{id}/files/audit_trail"))
            .bearer_auth(key)
            .send()
            .await
            .unwrap();
        if res.status().as_u16() == 200 {
            break res.json::<Value>().await.unwrap();
        }
        assert!(
            Instant::now() < deadline,
            "no audit trail: {}",
            res.text().await.unwrap()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let pdf = http
        .get(file["url"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    pdf_text(&pdf)
}

fn pdf_text(pdf: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let at: &Path = &dir.path().join("audit.pdf");
    std::fs::write(at, pdf).unwrap();
    let out = std::process::Command::new("pdftotext")
        .arg(at)
        .arg("-")
        .output()
        .expect("pdftotext (scripts/install-test-deps.sh installs it)");
    assert!(out.status.success(), "pdftotext failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The request log lines for the signing page (their paths are logged with the token redacted).
fn signing_page_lines(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| l.contains(" request ") && l.contains("path=/sign/[redacted]"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forwarded_client_reaches_the_audit_trail_only_through_a_trusted_proxy() {
    let through = sign_through_proxy(&[("ENVELOPE_TRUSTED_PROXIES", "127.0.0.1")]).await;
    assert_eq!(through.record_ip.as_deref(), Some(FORWARDED_CLIENT));
    assert!(
        through.trail.contains("IP 203.0.113.7, user agent unknown"),
        "{}",
        through.trail
    );
    // The proxy's own address is never the signer's. (The sender's API call for the signing
    // link came straight from 127.0.0.1, and the trail says so on that link's line.)
    assert!(
        !through.trail.contains("IP 127.0.0.1, user agent"),
        "{}",
        through.trail
    );
    let lines = signing_page_lines(&through.log);
    assert_eq!(lines.len(), 2, "{}", through.log);
    for line in lines {
        assert!(
            line.contains("client=203.0.113.7") && line.contains("peer=127.0.0.1:"),
            "{line}"
        );
    }

    let direct = sign_through_proxy(&[]).await;
    assert_eq!(direct.record_ip.as_deref(), Some("127.0.0.1"));
    assert!(
        direct.trail.contains("IP 127.0.0.1, user agent unknown"),
        "{}",
        direct.trail
    );
    assert!(!direct.trail.contains(FORWARDED_CLIENT), "{}", direct.trail);
    assert!(!direct.log.contains(FORWARDED_CLIENT), "{}", direct.log);
}

/// The signer writes `Forwarded: for=198.51.100.66` themselves, as nginx and Caddy let through.
/// With the default header it reaches no record, trail or log line; with
/// `ENVELOPE_CLIENT_IP_HEADER=forwarded` it is the `X-Forwarded-For` that is ignored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spoofed_forwarded_header_reaches_no_record() {
    const SPOOFED: &str = "198.51.100.66";
    let spoofed_forwarded = format!("for={SPOOFED}");
    let traces = sign_with_headers(
        &[("ENVELOPE_TRUSTED_PROXIES", "127.0.0.1")],
        &[
            ("forwarded", &spoofed_forwarded),
            ("x-forwarded-for", FORWARDED_CLIENT),
        ],
    )
    .await;
    assert_eq!(traces.record_ip.as_deref(), Some(FORWARDED_CLIENT));
    assert!(!traces.trail.contains(SPOOFED), "{}", traces.trail);
    assert!(!traces.log.contains(SPOOFED), "{}", traces.log);
    assert!(
        traces.log.contains("header=x-forwarded-for"),
        "the start log names the header read: {}",
        traces.log
    );

    let forwarded = format!("for={FORWARDED_CLIENT}");
    let traces = sign_with_headers(
        &[
            ("ENVELOPE_TRUSTED_PROXIES", "127.0.0.1"),
            ("ENVELOPE_CLIENT_IP_HEADER", "Forwarded"),
        ],
        &[("forwarded", &forwarded), ("x-forwarded-for", SPOOFED)],
    )
    .await;
    assert_eq!(traces.record_ip.as_deref(), Some(FORWARDED_CLIENT));
    assert!(!traces.trail.contains(SPOOFED), "{}", traces.trail);
    assert!(!traces.log.contains(SPOOFED), "{}", traces.log);
}

#[test]
fn a_header_name_that_is_not_one_stops_the_server_at_start() {
    let tmp = tempfile::tempdir().unwrap();
    for bad in ["x forwarded for", "x-forwarded-for:", "é"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_envelope-server"))
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(tmp.path().join("data"))
            .env("ENVELOPE_CLIENT_IP_HEADER", bad)
            .current_dir(tmp.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {stderr}");
        assert!(
            stderr.contains("--client-ip-header") && stderr.contains("is not an HTTP header name"),
            "{bad:?}: {stderr}"
        );
        assert!(!tmp.path().join("data").exists(), "nothing was started");
    }
}
