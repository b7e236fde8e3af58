//! The fonts of the real binary (docs/FONTS.md): a `--font-dir` that is not a directory stops the
//! start; a machine without Noto Sans CJK (a `--font-dir` that has none) starts with a warning,
//! and a Chinese name then reaches the audit trail as code points while an Arabic one, from the
//! compiled-in faces, reads back as typed.

use serde_json::json;

use crate::metrics::{base64_of, complete};
use crate::pdf::PdfBuilder;
use crate::process::{BIN, ServerProcess};
use crate::proxy::audit_trail_text;

#[test]
fn a_font_dir_that_is_not_a_directory_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-fonts");
    let out = std::process::Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .arg("--font-dir")
        .arg(&missing)
        .env("ENVELOPE_LOG", "warn")
        .env_remove("ENVELOPE_DATABASE_URL")
        .env_remove("ENVELOPE_BLOB_URL")
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "started: {stderr}");
    assert!(
        stderr.contains(&format!(
            "--font-dir {}: not a directory",
            missing.display()
        )),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_noto_sans_cjk_the_server_warns_and_shows_cjk_as_code_points() {
    let tmp = tempfile::tempdir().unwrap();
    let fonts = tmp.path().join("fonts");
    std::fs::create_dir(&fonts).unwrap();
    let log = tmp.path().join("server.log");
    let server = ServerProcess::start(
        BIN,
        &[
            "--data-dir",
            tmp.path().join("data").to_str().unwrap(),
            "--font-dir",
            fonts.to_str().unwrap(),
        ],
        &log,
    );
    let key = server.printed_test_key();
    let http = reqwest::Client::new();
    let body = json!({
        "file_base64": base64_of(&PdfBuilder::new().page(&[
            "Witnessed agreement",
            "Client: {{signature:Client}}",
            "Witness: {{signature:Witness}}",
        ]).build()),
        "file_name": "contract.pdf",
        "signers": [
            {"name": "李明 Li", "email": "li@example.com", "role": "Client"},
            {"name": "محمد عبد الله", "email": "m@example.com", "role": "Witness"},
        ],
    });
    let (id, _) = complete(&http, &server, &key, &body).await;
    let text = audit_trail_text(&http, &server.base, &key, &id).await;
    server.kill();

    let stderr = std::fs::read_to_string(&log).unwrap();
    assert!(stderr.contains("Noto Sans CJK not found"), "{stderr}");
    assert!(text.contains("[U+674E U+660E] Li"), "{text}");
    assert!(
        envelope_testkit::scripts::times_read(&text, "محمد عبد الله") >= 2,
        "{text}"
    );
}
