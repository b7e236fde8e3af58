//! Prometheus metrics on the real binary (issue 16): `--metrics-listen` serves `GET /metrics` on
//! its own address in the text format, with the series an envelope's life leaves (requests by
//! route template and status class with latency histograms, PDF work and seals, emails by
//! outcome, store commits, queue depths); the API port has no such route.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::pdf::client_contract;
use crate::process::{BIN, ServerProcess, free_port};

pub(crate) fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// `name{labels}` -> value, from the text exposition format.
fn samples(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let (series, value) = l.rsplit_once(' ')?;
            Some((series.to_string(), value.parse().ok()?))
        })
        .collect()
}

/// One scrape of `GET /metrics` at `addr`, as `name{labels}` -> value.
pub(crate) async fn scrape(http: &reqwest::Client, addr: &str) -> BTreeMap<String, f64> {
    let text = http
        .get(format!("http://{addr}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    samples(&text)
}

fn value(all: &BTreeMap<String, f64>, series: &str) -> f64 {
    *all.get(series)
        .unwrap_or_else(|| panic!("no {series} in:\n{all:#?}"))
}

/// The real binary with `--metrics-listen` on a free port and `args`: the process, its data
/// directory (kept alive with it), its test key and the metrics address.
fn metrics_server(args: &[&str]) -> (ServerProcess, tempfile::TempDir, String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let log = tmp.path().join("server.log");
    let metrics_addr = format!("127.0.0.1:{}", free_port());
    let mut all = vec!["--data-dir", data.to_str().unwrap()];
    all.extend_from_slice(args);
    let server = ServerProcess::start_with_env(
        BIN,
        &all,
        &[("ENVELOPE_METRICS_LISTEN", metrics_addr.as_str())],
        &log,
    );
    let key = server.printed_test_key();
    (server, tmp, key, metrics_addr)
}

/// An envelope of the client contract for one signer, completed by the test helper: the
/// helper's answer (status checked: 200).
pub(crate) async fn complete_one(
    http: &reqwest::Client,
    server: &ServerProcess,
    key: &str,
) -> serde_json::Value {
    let body = json!({
        "file_base64": base64_of(&client_contract()),
        "file_name": "contract.pdf",
        "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
    });
    complete(http, server, key, &body).await.1
}

/// The envelope `body` creates, completed by the test helper: its ID and the helper's answer
/// (status checked: 200).
pub(crate) async fn complete(
    http: &reqwest::Client,
    server: &ServerProcess,
    key: &str,
    body: &serde_json::Value,
) -> (String, serde_json::Value) {
    let env: serde_json::Value = http
        .post(format!("{}/v1/envelopes", server.base))
        .bearer_auth(key)
        .json(body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = env["id"].as_str().unwrap_or_else(|| panic!("{env}"));
    let done = http
        .post(format!(
            "{}/v1/test_helpers/envelopes/{id}/complete",
            server.base
        ))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    assert_eq!(done.status().as_u16(), 200);
    (id.to_string(), done.json().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_follow_an_envelope_on_their_own_port() {
    let (server, _data, key, metrics_addr) = metrics_server(&[]);
    let http = reqwest::Client::new();
    complete_one(&http, &server, &key).await;
    let missing = http
        .get(format!("{}/v1/envelopes/env_missing", server.base))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status().as_u16(), 404);
    // Not on the API's port.
    let api = http
        .get(format!("{}/metrics", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(api.status().as_u16(), 404);

    // Emails go out in the background: scrape until the completion emails are counted.
    let deadline = Instant::now() + Duration::from_secs(20);
    let (all, text) = loop {
        let res = http
            .get(format!("http://{metrics_addr}/metrics"))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), 200);
        let content_type = res.headers()["content-type"].to_str().unwrap().to_string();
        assert!(
            content_type.starts_with("text/plain; version=0.0.4"),
            "{content_type}"
        );
        let text = res.text().await.unwrap();
        let all = samples(&text);
        if all
            .get(r#"envelope_emails_total{outcome="sent"}"#)
            .is_some_and(|n| *n >= 2.0)
        {
            break (all, text);
        }
        assert!(Instant::now() < deadline, "emails never counted: {all:#?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let create = r#"route="POST /v1/envelopes""#;
    assert_eq!(
        value(
            &all,
            &format!(r#"envelope_http_requests_total{{{create},status="2xx"}}"#)
        ),
        1.0
    );
    assert_eq!(
        value(
            &all,
            r#"envelope_http_requests_total{route="GET /v1/envelopes/{id}",status="4xx"}"#
        ),
        1.0
    );
    assert_eq!(
        value(
            &all,
            &format!(r#"envelope_http_request_duration_seconds_bucket{{{create},le="+Inf"}}"#)
        ),
        1.0
    );
    assert_eq!(
        value(&all, r#"envelope_pdf_task_seconds_count{task="inspect"}"#),
        1.0
    );
    assert!(value(&all, r#"envelope_pdf_task_seconds_count{task="stamp"}"#) >= 1.0);
    assert!(
        value(
            &all,
            r#"envelope_pdf_task_seconds_count{task="audit_trail"}"#
        ) >= 1.0
    );
    assert_eq!(
        value(&all, "envelope_seal_seconds_count"),
        2.0,
        "signed copy and trail"
    );
    assert!(
        value(
            &all,
            r#"envelope_store_commit_seconds_count{engine="sqlite"}"#
        ) >= 3.0
    );
    assert_eq!(value(&all, "envelope_webhook_queue_depth"), 0.0);
    assert!(all.contains_key("envelope_email_queue_depth"));
    drop(server);
    parses_as_prometheus_text(&text);
}

/// The scrape read by Prometheus' own Python parser (`prometheus-client` from PyPI, installed by
/// scripts/install-test-deps.sh): every line parses, and the families have the types a
/// dashboard expects. In CI (`CI=true`) a missing parser fails the test; elsewhere this step is
/// skipped with a printed reason.
fn parses_as_prometheus_text(text: &str) {
    const PARSE: &str = r#"
import sys
from prometheus_client.parser import text_string_to_metric_families
families = {f.name: f for f in text_string_to_metric_families(sys.stdin.read())}
expected = {
    "envelope_http_requests": "counter",
    "envelope_http_request_duration_seconds": "histogram",
    "envelope_pdf_task_seconds": "histogram",
    "envelope_seal_seconds": "histogram",
    "envelope_store_commit_seconds": "histogram",
    "envelope_emails": "counter",
    "envelope_webhook_queue_depth": "gauge",
    "envelope_email_queue_depth": "gauge",
}
for name, kind in expected.items():
    assert name in families, f"no family {name} in {sorted(families)}"
    assert families[name].type == kind, f"{name} is a {families[name].type}, not a {kind}"
samples = sum(len(f.samples) for f in families.values())
print(f"prometheus_client parsed {len(families)} families, {samples} samples")
"#;
    use std::io::Write;
    use std::process::{Command, Stdio};
    let has_parser = Command::new("python3")
        .args(["-c", "import prometheus_client"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_parser {
        let why =
            "prometheus-client (PyPI) is not installed (scripts/install-test-deps.sh installs it)";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
        eprintln!("metrics: the Prometheus text parser step is SKIPPED: {why}");
        return;
    }
    let mut child = Command::new("python3")
        .args(["-c", PARSE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the Prometheus parser refused the scrape:\n{}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{}", String::from_utf8_lossy(&out.stdout).trim());
}

/// A timestamp authority that cannot be reached: the envelope still completes (at `b-b`), and
/// `envelope_seal_below_target_total{missing="timestamp"}` counts it once, which is what an
/// operator alerts on (docs/OPERATIONS.md).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seal_below_its_target_is_counted() {
    // A port nobody listens on.
    let tsa = format!("http://127.0.0.1:{}/", free_port());
    let (server, _data, key, metrics_addr) = metrics_server(&["--tsa-url", &tsa]);
    let http = reqwest::Client::new();
    let done = complete_one(&http, &server, &key).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["seal"],
        json!({"level": "b-b", "target_level": "b-lta"}),
        "{done}"
    );
    let all = scrape(&http, &metrics_addr).await;
    // Once per envelope: the audit trail does not ask the TSA again after the document failed.
    assert_eq!(
        value(
            &all,
            r#"envelope_seal_below_target_total{missing="timestamp"}"#
        ),
        1.0
    );
    assert_eq!(value(&all, "envelope_seal_seconds_count"), 2.0);
}
