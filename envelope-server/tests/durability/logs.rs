//! `--log-format json` on the real binary (issue 16): every stderr line is one JSON object, and a
//! request's line carries its request ID (the same as the response header), its route template,
//! status and duration.

use serde_json::Value;

use crate::process::{BIN, ServerProcess};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_logs_name_the_request_and_its_route() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let log = tmp.path().join("server.log");
    let server = ServerProcess::start_with_env(
        BIN,
        &["--data-dir", data.to_str().unwrap()],
        &[("ENVELOPE_LOG_FORMAT", "json"), ("ENVELOPE_LOG", "info")],
        &log,
    );
    let key = server.printed_test_key();
    let res = reqwest::Client::new()
        .get(format!("{}/v1/envelopes/env_missing", server.base))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 404);
    let request_id = res.headers()["service-request-id"]
        .to_str()
        .unwrap()
        .to_string();
    server.kill();

    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    assert!(lines.iter().any(|l| l["message"] == "listening"));
    let request = lines
        .iter()
        .find(|l| l["message"] == "request" && l["request_id"] == request_id.as_str())
        .unwrap_or_else(|| panic!("no request line in:\n{text}"));
    assert_eq!(request["route"], "GET /v1/envelopes/{id}");
    assert_eq!(request["status"], 404);
    assert_eq!(request["method"], "GET");
    assert!(request["duration_ms"].is_u64());
    assert_eq!(request["level"], "INFO");
    assert!(request["timestamp"].is_string());
}
