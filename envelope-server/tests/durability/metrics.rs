//! Prometheus metrics on the real binary (issue 16): `--metrics-listen` serves `GET /metrics` on
//! its own address in the text format, with the series an envelope's life leaves (requests by
//! route template and status class with latency histograms, PDF work and seals, emails by
//! outcome, store commits, queue depths); the API port has no such route.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::pdf::client_contract;
use crate::process::{ServerProcess, free_port};

fn base64_of(bytes: &[u8]) -> String {
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

fn value(all: &BTreeMap<String, f64>, series: &str) -> f64 {
    *all.get(series)
        .unwrap_or_else(|| panic!("no {series} in:\n{all:#?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_follow_an_envelope_on_their_own_port() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let log = tmp.path().join("server.log");
    let metrics_addr = format!("127.0.0.1:{}", free_port());
    let server = ServerProcess::start_with_env(
        &["--data-dir", data.to_str().unwrap()],
        &[("ENVELOPE_METRICS_LISTEN", metrics_addr.as_str())],
        &log,
    );
    let key = server.printed_test_key();
    let http = reqwest::Client::new();
    let body = json!({
        "file_base64": base64_of(&client_contract()),
        "file_name": "contract.pdf",
        "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
    });
    let env: serde_json::Value = http
        .post(format!("{}/v1/envelopes", server.base))
        .bearer_auth(&key)
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = env["id"].as_str().unwrap();
    let done = http
        .post(format!(
            "{}/v1/test_helpers/envelopes/{id}/complete",
            server.base
        ))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(done.status().as_u16(), 200);
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
    let all = loop {
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
        let all = samples(&res.text().await.unwrap());
        if all
            .get(r#"envelope_emails_total{outcome="sent"}"#)
            .is_some_and(|n| *n >= 2.0)
        {
            break all;
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
}
