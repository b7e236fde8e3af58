//! SIGTERM ends the real binary within a few seconds whatever PDF work runs (issue 11).
//!
//! The upload is a PDF whose form XObject draws itself 20 times: a reader that interprets each
//! use again does 20^n work and never finishes. Blocking work has no await point at which it
//! could be cancelled, so the process must exit without waiting for it. Once the reader has its
//! own work budget the inspection ends by itself; the test then still measures that SIGTERM
//! during PDF work exits promptly.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::process::{ServerProcess, send};

/// Catches a hang; the measured time is printed and recorded in docs/ROBUSTNESS.md.
const EXIT_LIMIT: Duration = Duration::from_secs(15);

/// A one-page PDF whose page draws form `F`, and `F` draws itself 20 times.
fn self_drawing_pdf() -> Vec<u8> {
    let form_content = "/F Do\n".repeat(20);
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] \
         /Resources << /XObject << /F 5 0 R >> >> /Contents 4 0 R >>"
            .to_string(),
        "<< /Length 6 >>\nstream\n/F Do\n\nendstream".to_string(),
        format!(
            "<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] \
             /Resources << /XObject << /F 5 0 R >> >> /Length {} >>\nstream\n{form_content}\nendstream",
            form_content.len()
        ),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for off in offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

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
    let mut server = ServerProcess::start(&["--data-dir", &data_arg], &log);
    let key = server.printed_test_key();
    let pid = server.pid();

    let pdf = self_drawing_pdf();
    let body = json!({
        "file_base64": base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &pdf),
        "file_name": "self-drawing.pdf",
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
        "{}-byte self-drawing PDF; upload {} when SIGTERM was sent; exit after {took:?} ({status})",
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
    // Whatever the client got (no answer, or the reader's refusal), it is not a success.
    let answer = upload.await.unwrap();
    assert!(
        answer.as_ref().is_none_or(|a| a.status != 201),
        "{answer:?}"
    );
}
