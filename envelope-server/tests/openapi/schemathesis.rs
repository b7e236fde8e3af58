//! Schemathesis (PyPI) probes every operation of the served document on the real server with a
//! test key, a bounded number of examples per operation, and five checks: no 5xx, response
//! bodies of the documented schema, documented status codes, documented content types, and
//! documented response headers. Any finding fails the test. docs/OPENAPI.md has the command for
//! a longer campaign.

use std::process::Command;

use envelope_core::Settings;

use crate::common::{Options, TestServer};
use crate::tools;

/// Examples per operation and phase: enough to reach every parameter and body shape, small
/// enough that the run stays around a minute on 2 cores.
const MAX_EXAMPLES: &str = "50";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemathesis_finds_nothing() {
    let test = "schemathesis_finds_nothing";
    if !tools::command("schemathesis", test) {
        return;
    }
    // Schemathesis sends a few thousand requests a minute: the per-key and resend limits would
    // answer most of them 429 (documented, but it would test nothing else).
    let settings = Settings {
        rate_limit_per_minute: 1_000_000,
        resend_per_minute: 1_000_000,
        ..Settings::default()
    };
    let s = TestServer::start_with(Options {
        settings: Some(settings),
        ..Options::default()
    })
    .await;
    let report = tempfile::tempdir().unwrap();
    let args: Vec<String> = vec![
        "run".into(),
        s.url("/v1/openapi.json"),
        "--url".into(),
        s.base.clone(),
        "--header".into(),
        format!("Authorization: Bearer {}", s.test_key),
        "--checks".into(),
        "not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance,response_headers_conformance".into(),
        "--max-examples".into(),
        MAX_EXAMPLES.into(),
        "--seed".into(),
        "16".into(),
        // One worker: with two, Hypothesis parses lambda sources on two threads at once, and
        // CPython 3.11 keeps the ast module's recursion counter per interpreter, not per thread.
        // A CI run failed on it with "AST constructor recursion depth mismatch" (a SystemError
        // inside the tool, see python/cpython#106905), which says nothing about the server.
        "--workers".into(),
        "1".into(),
        // CI's machine is shared: slowness is not a finding, and a PDF request may wait for the
        // pool. Neither loosens a check.
        "--suppress-health-check".into(),
        "too_slow".into(),
        "--request-timeout".into(),
        "60".into(),
        "--report".into(),
        "junit".into(),
        "--report-dir".into(),
        report.path().display().to_string(),
        "--no-color".into(),
    ];
    let workdir = report.path().to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        // Schemathesis keeps its example database in the working directory: not in the tree.
        Command::new("schemathesis")
            .current_dir(&workdir)
            .args(&args)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    let summary = summary(&stdout);
    // Straight to stderr: cargo test shows it even when the test passes, so CI's log names the
    // number of operations and test cases.
    {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "schemathesis: {summary}");
    }
    assert!(
        out.status.success(),
        "schemathesis reported findings ({summary}):\n{stdout}\n{stderr}"
    );
    assert!(
        summary.contains("operations tested") && !summary.starts_with("0 "),
        "schemathesis tested nothing: {summary}\n{stdout}"
    );
}

/// `N operations tested, M test cases generated` from the closing summary of schemathesis.
fn summary(out: &str) -> String {
    let after = |label: &str| -> Option<String> {
        let i = out.find(label)?;
        let rest = &out[i + label.len()..];
        let line = rest.lines().next()?.trim();
        Some(line.to_string())
    };
    let tested = after("  Tested: ").unwrap_or_else(|| "?".into());
    let cases = after("Test cases:\n").unwrap_or_else(|| "?".into());
    format!("{tested} operations tested, test cases: {cases}")
}
