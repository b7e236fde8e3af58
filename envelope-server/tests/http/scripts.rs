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
use crate::kinds::says;

#[tokio::test]
async fn a_name_in_every_script_reads_back_from_the_signed_copy_and_the_audit_trail() {
    let s = TestServer::start().await;
    let pdf = PdfBuilder::new()
        .page(&["Agreement", "Client name:", "Client signature:"])
        .build();
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

        // The data value, "Signed by: <name>" on the frame and the typed signature.
        let signed = file_text(&s, id, "signed").await;
        let n = times_read(&signed, name);
        assert!(n >= 3, "{script}: {name:?} read {n} times from:\n{signed}");
        // The signer's heading and name row, and the typed signature.
        let audit = file_text(&s, id, "audit_trail").await;
        let n = times_read(&audit, name);
        assert!(n >= 3, "{script}: {name:?} read {n} times from:\n{audit}");
        assert!(
            !audit.contains("[U+"),
            "{script}: a character shown as its code point"
        );

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("signed.pdf");
        std::fs::write(&path, file_bytes(&s, id, "signed").await).unwrap();
        let out = std::process::Command::new("pdfsig")
            .arg(&path)
            .output()
            .expect("pdfsig (scripts/install-test-deps.sh installs it)");
        let sig = String::from_utf8_lossy(&out.stdout);
        says(&sig, &["Signature is Valid.", "Total document signed"]);
    }
    s.shutdown().await.unwrap();
}
