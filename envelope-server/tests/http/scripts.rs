//! Names in every script, through the real server: a signer named in Latin, Greek, Cyrillic,
//! Vietnamese, Chinese, Japanese, Korean, Arabic, Hebrew, Devanagari, Thai or Arabic mixed with
//! Latin signs through the test helper (their name typed as the signature), with the name also
//! filled by the sender into a text field. The signed copy and the audit trail, read by
//! `pdftotext`, give the name back as typed, and `pdfsig` finds the signed copy's seal valid
//! (docs/FONTS.md; Noto Sans CJK comes from scripts/install-test-deps.sh).

use serde_json::json;

use envelope_testkit::scripts::{NAMES, times_read};

use crate::common::pdf::PdfBuilder;
use crate::common::{TestServer, b64, file_bytes, file_text};

#[tokio::test]
async fn a_name_in_every_script_reads_back_from_the_signed_copy_and_the_audit_trail() {
    let s = TestServer::start().await;
    let pdf = PdfBuilder::new()
        .page(&["Agreement", "Client name:", "Client signature:"])
        .build();
    let mut failures = Vec::new();
    for (script, name) in NAMES {
        let body = json!({
            "file_base64": b64(&pdf), "file_name": "agreement.pdf", "delivery": "embedded",
            "signers": [{"name": name, "email": "client@example.com", "role": "Client"}],
            "fields": [
                {"type": "text", "key": "client_name", "page": 1, "x": 72, "y": 560,
                 "width": 300, "height": 24},
                {"type": "signature", "role": "Client", "key": "sig", "page": 1, "x": 72,
                 "y": 460, "width": 300, "height": 60},
            ],
            "data": {"client_name": name},
        });
        let env = s.post(&s.test_key, "/v1/envelopes", body).await.ok(201);
        let id = env["id"].as_str().unwrap();
        s.post_empty(
            &s.test_key,
            &format!("/v1/test_helpers/envelopes/{id}/complete"),
        )
        .await
        .ok(200);

        // Exactly the three places the signed copy draws it: the data value, "Signed by:
        // <name>" on the frame and the typed signature. The audit trail has the signer's heading,
        // name row and typed signature, and its events name the signer too.
        let signed = file_text(&s, id, "signed").await;
        let audit = file_text(&s, id, "audit_trail").await;
        let (in_signed, in_audit) = (times_read(&signed, name), times_read(&audit, name));
        println!("{script}: {name}: signed copy {in_signed}, audit trail {in_audit}");
        if in_signed != 3 {
            failures.push(format!(
                "{script}: {name:?} read {in_signed} times from:\n{signed}"
            ));
        }
        if in_audit < 3 || audit.contains("[U+") {
            failures.push(format!(
                "{script}: {name:?} read {in_audit} times from:\n{audit}"
            ));
        }

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("signed.pdf");
        std::fs::write(&path, file_bytes(&s, id, "signed").await).unwrap();
        let out = std::process::Command::new("pdfsig")
            .arg(&path)
            .output()
            .expect("pdfsig (scripts/install-test-deps.sh installs it)");
        let sig = String::from_utf8_lossy(&out.stdout);
        if !sig.contains("Signature is Valid.") || !sig.contains("Total document signed") {
            failures.push(format!("{script}: the seal does not validate:\n{sig}"));
        }
    }
    // Every script is checked before any failure is reported.
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    s.shutdown().await.unwrap();
}
