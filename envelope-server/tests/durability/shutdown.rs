//! SIGTERM ends the real binary within a few seconds whatever PDF work runs (issue 11).
//!
//! The upload is a small PDF whose content stream inflates to 15 million operators: the longest
//! bounded work a small upload can cause (the reader interprets operators until its operator
//! limit or its deadline stops it; before the work budget, the self-drawing form XObject of
//! issue 11 ran for ever). Blocking work has no await point at which
//! it could be cancelled, so the process must exit without waiting for it. The test measures
//! that SIGTERM during that work exits promptly and through the shutdown path, and prints
//! whether the upload was still in flight when the signal went.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::pdf::operator_flood_pdf;
use crate::process::{BIN, ServerProcess, send};

/// Catches a hang; the measured time is printed and recorded in docs/ROBUSTNESS.md.
const EXIT_LIMIT: Duration = Duration::from_secs(15);

/// CPU time the process has used, in clock ticks (utime + stime of /proc/PID/stat).
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces; the fields after it are space-separated.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_during_a_long_inspection_exits_promptly() {
    let dir = tempfile::tempdir().unwrap();
    let data_arg = dir.path().join("data").to_str().unwrap().to_string();
    let log = dir.path().join("server.log");
    let mut server = ServerProcess::start(BIN, &["--data-dir", &data_arg], &log);
    let key = server.printed_test_key();
    let pid = server.pid();

    let pdf = operator_flood_pdf();
    let body = json!({
        "file_base64": base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &pdf),
        "file_name": "operator-flood.pdf",
        "signers": [{"name": "Ada Lovelace", "email": "ada@example.com"}],
        "signature_page": true,
    });
    let before = cpu_ticks(pid).expect("the server's /proc entry");
    let upload = tokio::spawn(send(
        reqwest::Client::new()
            .post(format!("{}/v1/envelopes", server.base))
            .bearer_auth(&key)
            .json(&body),
    ));
    // The inspection is under way once the idle server has burnt 300 ms of CPU (at the usual
    // 100 ticks per second). If that never shows, SIGTERM still must end the process.
    let busy_since = Instant::now();
    while cpu_ticks(pid).is_some_and(|t| t < before + 30)
        && busy_since.elapsed() < Duration::from_secs(10)
        && !upload.is_finished()
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let still_running = !upload.is_finished();

    server.terminate();
    let signalled = Instant::now();
    let status = tokio::task::block_in_place(|| server.wait_exit(EXIT_LIMIT));
    let took = signalled.elapsed();
    let status = status.unwrap_or_else(|| {
        panic!(
            "envelope-server still runs {EXIT_LIMIT:?} after SIGTERM; stderr:\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        )
    });
    eprintln!(
        "{}-byte operator-flood PDF; upload {} when SIGTERM was sent; exit after {took:?} ({status})",
        pdf.len(),
        if still_running {
            "still in flight"
        } else {
            "already answered"
        },
    );
    assert!(
        status.success(),
        "a SIGTERM'd server exits through its shutdown path: {status}; stderr:\n{}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    // Whatever the client got: no answer (the connection closed), or the reader's refusal.
    let answer = upload.await.unwrap();
    assert!(
        answer.as_ref().is_none_or(|a| a.status == 400),
        "{answer:?}"
    );
}
