//! Test mode cannot pass for live (extensions E7): a test envelope's signed copies carry the
//! mark on every page and are sealed by the test-mode identity, its audit trail says it binds
//! nobody, its emails say `[Test]`; a live envelope has none of it and the live seal; the
//! account shows each mode's identity; `serve` refuses a test identity that is the live key.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};

use envelope_core::MemoryMailer;
use envelope_core::seal::SigningIdentity;

use crate::common::pdf::{PdfBuilder, client_contract};
use crate::common::signing::{form_token, html};
use crate::common::{Options, TestServer, b64, client_signer, envelope_body};
use crate::sealing::{SealedServer, check, run};

/// The words of extensions E7, as a reader sees them.
const TEST_MODE_MARK: &str = "TEST MODE - not a valid signature";
const TEST_MODE_NOTICE: &str = "Test mode: not legally binding";

/// Three pages, the signature on the middle one: the first and last get no value, only the
/// mark.
fn three_pages() -> Vec<u8> {
    PdfBuilder::new()
        .page(&["Master agreement", "Terms on the following pages."])
        .page(&["Client: {{signature:Client}}", "Date: {{date:Client}}"])
        .page(&["Schedule", "Nothing to sign here."])
        .build()
}

/// A second document of two pages with initials on the second.
fn annex() -> Vec<u8> {
    PdfBuilder::new()
        .page(&["Annex", "Prices as agreed."])
        .page(&["Initials: {{initials:Client}}"])
        .build()
}

/// The link of one file as `key` sees it, then its bytes.
async fn download(s: &TestServer, key: &str, id: &str, query: &str) -> Vec<u8> {
    let link = s
        .get(key, &format!("/v1/envelopes/{id}/files/{query}"))
        .await
        .ok(200);
    let url = link["url"].as_str().unwrap();
    let bytes = s.client.get(url).send().await.unwrap().bytes().await;
    bytes.unwrap().to_vec()
}

/// The text of page `n` (from 1), or of every page for `None`.
fn text(bytes: &[u8], page: Option<usize>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let n = page.map(|n| n.to_string());
    let args: Vec<&str> = match &n {
        Some(n) => vec!["-f", n, "-l", n],
        None => vec![],
    };
    run("pdftotext", &args, dir.path(), bytes);
    std::fs::read_to_string(dir.path().join("doc.txt")).expect("pdftotext wrote its text")
}

fn page_count(bytes: &[u8]) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let info = run("pdfinfo", &[], dir.path(), bytes);
    info.lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no page count:\n{info}"))
}

/// The subject of pdfsig's one signature (`- Signer Certificate Common Name: ...`).
fn sealed_by(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let sig = run("pdfsig", &[], dir.path(), bytes);
    sig.lines()
        .find_map(|l| l.trim().strip_prefix("- Signer Certificate Common Name:"))
        .unwrap_or_else(|| panic!("no signer named:\n{sig}"))
        .trim()
        .to_string()
}

#[tokio::test]
async fn a_test_copy_is_marked_on_every_page_and_sealed_by_the_test_identity() {
    let sealed = SealedServer::start().await;
    let s = &sealed.server;
    let (first, second) = (three_pages(), annex());
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({
                "file_name": "agreement.pdf",
                "file_base64": b64(&first),
                "files": [{"file_name": "annex.pdf", "file_base64": b64(&second)}],
                "signers": client_signer(),
            }),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap();
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200);

    let trust = sealed.trust_test();
    let trust: Vec<&Path> = trust.iter().map(|p| p.as_path()).collect();
    for (n, original, pages) in [(1, &first, 3), (2, &second, 2)] {
        let signed = download(s, &s.test_key, id, &format!("signed?document={n}")).await;
        assert!(
            signed.starts_with(original),
            "document {n}: the original is the signed copy's prefix"
        );
        assert_eq!(page_count(&signed), pages, "document {n}");
        for page in 1..=pages {
            let shown = text(&signed, Some(page));
            assert_eq!(
                shown.matches(TEST_MODE_MARK).count(),
                1,
                "document {n} page {page}:\n{shown}"
            );
        }
        // Sealed over the mark (one revision: nothing changed after the seal), by the test
        // identity and not the live one.
        check(
            &format!("document {n}"),
            &signed,
            &trust,
            &sealed.test_fingerprint,
        );
        let signer = sealed_by(&signed);
        assert!(signer.contains("test mode"), "document {n}: {signer}");
    }

    let audit = download(s, &s.test_key, id, "audit_trail").await;
    check("audit trail", &audit, &trust, &sealed.test_fingerprint);
    assert!(text(&audit, Some(1)).contains(TEST_MODE_NOTICE));
    assert_eq!(text(&audit, None).matches(TEST_MODE_NOTICE).count(), 1);
    // The trail names the certificate that sealed it.
    assert!(text(&audit, None).contains(&sealed.test_fingerprint));
}

/// Signs `id` as its Client through the signing page, with a link that `key` fetched.
async fn sign_on_the_page(s: &TestServer, key: &str, id: &str) {
    let link = s
        .post(
            key,
            &format!("/v1/envelopes/{id}/signing_url"),
            json!({"signer": "Client"}),
        )
        .await
        .ok(200);
    let path = link["url"]
        .as_str()
        .unwrap()
        .strip_prefix(&s.base)
        .unwrap()
        .to_string();
    let page = s.send(s.client.get(s.url(&path))).await;
    let csrf = form_token(&html(&page), "sign-form");
    let form: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("csrf", csrf.as_str()),
            ("mode:Client_signature", "type"),
            ("typed:Client_signature", "Ada Lovelace"),
            ("consent", "yes"),
        ])
        .finish();
    let r = s
        .send(
            s.client
                .post(s.url(&path))
                .header("content-type", "application/x-www-form-urlencoded")
                .header("origin", &s.base)
                .body(form),
        )
        .await;
    assert_eq!(r.status, 200, "{}", html(&r));
}

#[tokio::test]
async fn a_live_copy_has_no_mark_and_the_live_seal() {
    let sealed = SealedServer::start().await;
    let s = &sealed.server;
    let pdf = client_contract();
    let mut body = envelope_body(&pdf, client_signer());
    body["delivery"] = json!("embedded");
    let env = s.post(&s.live_key, "/v1/envelopes", body).await.ok(201);
    let id = env["id"].as_str().unwrap();
    sign_on_the_page(s, &s.live_key, id).await;
    let read: Value = s
        .get(&s.live_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(read["status"], "completed");

    let trust = sealed.trust();
    let trust: Vec<&Path> = trust.iter().map(|p| p.as_path()).collect();
    let signed = download(s, &s.live_key, id, "signed").await;
    assert!(signed.starts_with(&pdf));
    let shown = text(&signed, None);
    assert!(shown.contains("Ada Lovelace"), "{shown}");
    assert!(!shown.contains("TEST MODE"), "{shown}");
    check("live copy", &signed, &trust, &sealed.fingerprint);
    let signer = sealed_by(&signed);
    assert!(
        signer.contains("(development)") && !signer.contains("test mode"),
        "{signer}"
    );
    let audit = download(s, &s.live_key, id, "audit_trail").await;
    check("live audit trail", &audit, &trust, &sealed.fingerprint);
    let trail = text(&audit, None);
    assert!(!trail.contains(TEST_MODE_NOTICE), "{trail}");
    assert!(trail.contains(&sealed.fingerprint));
}

#[tokio::test]
async fn the_account_shows_the_identity_of_the_keys_mode() {
    let sealed = SealedServer::start().await;
    let s = &sealed.server;
    for (key, fingerprint) in [
        (&s.test_key, &sealed.test_fingerprint),
        (&s.live_key, &sealed.fingerprint),
    ] {
        let account = s.get(key, "/v1/account").await.ok(200);
        assert_eq!(
            account["signing_certificate"],
            json!({"development": true, "sha256_fingerprint": fingerprint}),
            "{account}"
        );
    }
    assert_ne!(sealed.test_fingerprint, sealed.fingerprint);
}

#[tokio::test]
async fn test_emails_say_test_in_their_subject_and_live_ones_do_not() {
    let mailer = Arc::new(MemoryMailer::new());
    let s = TestServer::start_with(Options {
        mailer: Some(mailer.clone()),
        ..Options::default()
    })
    .await;
    let mut subjects = Vec::new();
    for key in [&s.test_key, &s.live_key] {
        let mut body = envelope_body(&client_contract(), client_signer());
        body["subject"] = json!("Please sign the agreement");
        body["cc"] = json!([{"name": "Legal", "email": "legal@example.com"}]);
        let env = s.post(key, "/v1/envelopes", body).await.ok(201);
        let id = env["id"].as_str().unwrap();
        s.post(
            key,
            &format!("/v1/envelopes/{id}/void"),
            json!({"reason": "Wrong version"}),
        )
        .await
        .ok(200);
        s.svc.settle_emails().await;
        let sent: Vec<String> = mailer
            .sent()
            .into_iter()
            .filter(|e| e.envelope == id)
            .map(|e| e.subject)
            .collect();
        // The signing request, the signer's void notice and the copy's.
        assert_eq!(sent.len(), 3, "{sent:?}");
        subjects.push(sent);
    }
    let [test, live] = [&subjects[0], &subjects[1]];
    for subject in test {
        assert!(subject.starts_with("[Test] "), "{subject}");
    }
    for subject in live {
        assert!(!subject.contains("[Test]"), "{subject}");
    }
    assert_eq!(test[0], "[Test] Please sign the agreement");
    assert_eq!(live[0], "Please sign the agreement");
}

/// `envelope-server serve` with these extra arguments: its exit status and what it printed.
fn serve_and_stop(data: &Path, args: &[&str]) -> (std::process::ExitStatus, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_envelope-server"))
        .arg("serve")
        .args(["--listen", "127.0.0.1:0", "--data-dir"])
        .arg(data)
        .args(args)
        .env_remove("ENVELOPE_SIGNING_KEY")
        .env_remove("ENVELOPE_TEST_SIGNING_KEY")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the server binary starts");
    // A server that started would serve for ever: stop it once it has had ample time, so that
    // a wrong start fails the assertion below instead of hanging the suite.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status, printed)
}

#[test]
fn serve_refuses_a_test_identity_that_is_the_live_key() {
    let data = tempfile::tempdir().unwrap();
    let live = SigningIdentity::generate_development("Acme seal").unwrap();
    let keys = tempfile::tempdir().unwrap();
    let file = |name: &str, body: &str| {
        let path = keys.path().join(name);
        std::fs::write(&path, body).unwrap();
        path.to_str().unwrap().to_string()
    };
    let (key, cert) = (
        file("key.pem", &live.key_pem),
        file("cert.pem", &live.cert_pem),
    );
    let (status, printed) = serve_and_stop(
        data.path(),
        &[
            "--signing-key",
            &key,
            "--signing-cert",
            &cert,
            "--test-signing-key",
            &key,
            "--test-signing-cert",
            &cert,
        ],
    );
    assert!(!status.success(), "it started:\n{printed}");
    assert!(
        printed.contains("--test-signing-key is the live signing key"),
        "{printed}"
    );
    assert!(
        !printed.contains("PRIVATE KEY"),
        "the key is never printed:\n{printed}"
    );
}
