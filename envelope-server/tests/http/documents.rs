//! Several documents in one envelope (extensions E5): a template's PDF plus two uploads, each
//! signed copy sealed on its own and checked by qpdf, pdfsig and pyHanko; the limits on the
//! total; `?document=N`.

use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use crate::common::pdf::{PdfBuilder, client_contract};
use crate::common::{Options, TestServer, b64, client_signer};
use crate::sealing::{SealedServer, check, run};
use envelope_server::signing::{SigningOptions, load_sealer};

fn annex_a() -> Vec<u8> {
    PdfBuilder::new()
        .page(&[
            "Annex A",
            "Company: {{text:Client:company}}",
            "Client: {{signature:Client}}",
        ])
        .build()
}

fn annex_b() -> Vec<u8> {
    PdfBuilder::new()
        .page(&["Annex B", "Prices as agreed."])
        .page(&[
            "Initials: {{initials:Client}}",
            "Client: {{signature:Client}}",
        ])
        .build()
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn pdf_part(bytes: Vec<u8>, name: &str) -> Part {
    Part::bytes(bytes)
        .file_name(name.to_string())
        .mime_str("application/pdf")
        .unwrap()
}

async fn post_form(s: &TestServer, form: Form) -> crate::common::Resp {
    s.send(
        s.client
            .post(s.url("/v1/envelopes"))
            .bearer_auth(&s.test_key)
            .multipart(form),
    )
    .await
}

/// The link of one file, then its bytes.
async fn download(s: &TestServer, id: &str, query: &str) -> Vec<u8> {
    let link = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}/files/{query}"))
        .await
        .ok(200);
    let url = link["url"].as_str().unwrap();
    s.client
        .get(url)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .to_vec()
}

fn qpdf_check(name: &str, bytes: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.pdf");
    std::fs::write(&path, bytes).unwrap();
    let out = std::process::Command::new("qpdf")
        .arg("--check")
        .arg(&path)
        .output()
        .expect("qpdf: run scripts/install-test-deps.sh");
    assert!(
        out.status.success(),
        "{name}: qpdf --check:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The archive behind the envelope's `archive` link, unpacked by Python's `zipfile`:
/// `(name, bytes)` of each entry, in order, after `testzip()` found every CRC right.
async fn unzip(s: &TestServer, id: &str) -> Vec<(String, Vec<u8>)> {
    let link = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}/files/archive"))
        .await
        .ok(200);
    assert_eq!(link["kind"], "archive");
    let r = s.send(s.client.get(link["url"].as_str().unwrap())).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type").as_deref(), Some("application/zip"));
    assert!(
        r.header("content-disposition")
            .is_some_and(|d| d.starts_with("attachment; filename=") && d.contains(".zip")),
        "{:?}",
        r.header("content-disposition")
    );
    let dir = tempfile::tempdir().unwrap();
    let zip = dir.path().join("archive.zip");
    std::fs::write(&zip, &r.body).unwrap();
    let out = dir.path().join("out");
    let script = "import sys, zipfile, os\n\
                  z = zipfile.ZipFile(sys.argv[1])\n\
                  assert z.testzip() is None\n\
                  os.makedirs(sys.argv[2])\n\
                  for i, info in enumerate(z.infolist()):\n\
                  \x20   open(os.path.join(sys.argv[2], str(i)), 'wb').write(z.read(info))\n\
                  \x20   print(info.filename)\n";
    let run = std::process::Command::new("python3")
        .args(["-c", script, zip.to_str().unwrap(), out.to_str().unwrap()])
        .output()
        .expect("python3");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    String::from_utf8(run.stdout)
        .unwrap()
        .lines()
        .enumerate()
        .map(|(i, name)| {
            (
                name.to_string(),
                std::fs::read(out.join(i.to_string())).unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn three_documents_from_a_template_and_two_uploads_are_each_signed_and_sealed() {
    let sealed = SealedServer::start().await;
    // Test envelopes: sealed by the test-mode identity.
    let (s, fingerprint) = (&sealed.server, sealed.test_fingerprint.clone());

    let contract = client_contract();
    let (a, b) = (annex_a(), annex_b());
    let form = Form::new()
        .text("name", "Service")
        .part("file", pdf_part(contract.clone(), "service.pdf"));
    let t = s
        .send(
            s.client
                .post(s.url("/v1/templates"))
                .bearer_auth(&s.test_key)
                .multipart(form),
        )
        .await
        .ok(201);
    let tid = t["id"].as_str().unwrap();
    assert!(
        t["fields"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["document"] == 1),
        "{t}"
    );

    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({
                "template": tid,
                "signers": client_signer(),
                "files": [
                    {"file_name": "annex-a.pdf", "file_base64": b64(&a)},
                    {"file_name": "annex-b.pdf", "file_base64": b64(&b)},
                ],
            }),
        )
        .await
        .ok(201);
    assert_eq!(
        env["documents"],
        json!([
            {"index": 1, "name": "service.pdf", "page_count": 1, "sha256": sha256(&contract)},
            {"index": 2, "name": "annex-a.pdf", "page_count": 1, "sha256": sha256(&a)},
            {"index": 3, "name": "annex-b.pdf", "page_count": 2, "sha256": sha256(&b)},
        ])
    );
    let id = env["id"].as_str().unwrap();
    let read = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(read["documents"], env["documents"]);
    // Nothing signed yet: the originals are there, each one its own bytes.
    assert_eq!(download(s, id, "original?document=2").await, a);
    assert_eq!(download(s, id, "original").await, contract);
    s.get(
        &s.test_key,
        &format!("/v1/envelopes/{id}/files/signed?document=2"),
    )
    .await
    .error(409, "file_not_ready");

    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200);

    let trust = sealed.trust_test();
    let trust: Vec<&std::path::Path> = trust.iter().map(|p| p.as_path()).collect();

    let mut signed_digests = Vec::new();
    for (n, original) in [(1, &contract), (2, &a), (3, &b)] {
        let signed = download(s, id, &format!("signed?document={n}")).await;
        assert!(
            signed.len() > original.len() && signed.starts_with(original),
            "document {n}: the original is the signed copy's prefix"
        );
        qpdf_check(&format!("document {n}"), &signed);
        check(&format!("document {n}"), &signed, &trust, &fingerprint);
        signed_digests.push(sha256(&signed));
    }
    assert_eq!(
        download(s, id, "signed").await,
        download(s, id, "signed?document=1").await,
        "no document is the first"
    );
    // Each copy holds its own document's values only.
    let dir = tempfile::tempdir().unwrap();
    let second = download(s, id, "signed?document=2").await;
    let text = run("pdftotext", &[], dir.path(), &second);
    let text = std::fs::read_to_string(dir.path().join("doc.txt")).unwrap_or(text);
    assert!(text.contains("Test value"), "company in annex A:\n{text}");

    // The audit trail names every document with both digests, and is sealed.
    let audit = download(s, id, "audit_trail").await;
    check("audit trail", &audit, &trust, &fingerprint);
    let dir = tempfile::tempdir().unwrap();
    let text = run("pdftotext", &[], dir.path(), &audit);
    let text = std::fs::read_to_string(dir.path().join("doc.txt")).unwrap_or(text);
    for digest in [sha256(&contract), sha256(&a), sha256(&b)]
        .iter()
        .chain(&signed_digests)
    {
        assert!(text.contains(digest.as_str()), "{digest} missing:\n{text}");
    }
    for name in ["service.pdf", "annex-a.pdf", "annex-b.pdf"] {
        assert!(text.contains(name), "{name} missing:\n{text}");
    }

    // The archive: every signed copy and the audit trail, exactly.
    let mut expected = Vec::new();
    for (n, name) in [
        (1, "service-signed.pdf"),
        (2, "annex-a-signed.pdf"),
        (3, "annex-b-signed.pdf"),
    ] {
        expected.push((
            name.to_string(),
            download(s, id, &format!("signed?document={n}")).await,
        ));
    }
    expected.push(("service-audit-trail.pdf".to_string(), audit.clone()));
    assert_eq!(unzip(s, id).await, expected);

    // Bad `document` values name the parameter.
    for query in [
        "signed?document=0",
        "signed?document=4",
        "original?document=11",
        "signed?document=abc",
        "signed?document=-1",
        "signed?document=1&document=2",
        "audit_trail?document=1",
        "archive?document=1",
    ] {
        let e = s
            .get(&s.test_key, &format!("/v1/envelopes/{id}/files/{query}"))
            .await
            .error(400, "parameter_invalid");
        assert_eq!(e["param"], "document", "{query}: {e}");
    }
    let e = s
        .get(
            &s.test_key,
            &format!("/v1/envelopes/{id}/files/signed?doc=1"),
        )
        .await
        .error(400, "parameter_unknown");
    assert_eq!(e["param"], "doc");
}

#[tokio::test]
async fn several_file_parts_are_several_documents_and_fields_name_theirs() {
    let s = TestServer::start().await;
    let (a, b) = (client_contract(), annex_b());
    let plain = PdfBuilder::new().page(&["Schedule"]).build();
    let form = Form::new()
        .text("signers", client_signer().to_string())
        .text(
            "fields",
            json!([{"type": "text", "role": "Client", "key": "note", "page": 1,
                    "x": 72, "y": 100, "width": 200, "height": 20, "document": 3}])
            .to_string(),
        )
        .part("file", pdf_part(a.clone(), "contract.pdf"))
        .part("file", pdf_part(b.clone(), "annex.pdf"))
        .part("file", pdf_part(plain.clone(), "schedule.pdf"));
    let env = post_form(&s, form).await.ok(201);
    let names: Vec<&str> = env["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["contract.pdf", "annex.pdf", "schedule.pdf"]);
    let id = env["id"].as_str().unwrap();
    assert_eq!(download(&s, id, "original?document=3").await, plain);

    // A field on a document the envelope doesn't have.
    let form = Form::new()
        .text("signers", client_signer().to_string())
        .text(
            "fields",
            json!([{"type": "text", "role": "Client", "page": 1,
                    "x": 72, "y": 100, "width": 200, "height": 20, "document": 3}])
            .to_string(),
        )
        .part("file", pdf_part(a.clone(), "contract.pdf"))
        .part("file", pdf_part(b.clone(), "annex.pdf"));
    let e = post_form(&s, form).await.error(400, "parameter_invalid");
    assert_eq!(e["param"], "fields.0.document");
    // Off the page of its own document (annex B's page 3 does not exist; it has 2).
    let form = Form::new()
        .text("signers", client_signer().to_string())
        .text(
            "fields",
            json!([{"type": "text", "role": "Client", "page": 3,
                    "x": 72, "y": 100, "width": 200, "height": 20, "document": 2}])
            .to_string(),
        )
        .part("file", pdf_part(a.clone(), "contract.pdf"))
        .part("file", pdf_part(b.clone(), "annex.pdf"));
    let e = post_form(&s, form).await.error(400, "parameter_invalid");
    assert_eq!(e["param"], "fields.0");
}

#[tokio::test]
async fn the_limits_apply_to_the_documents_together() {
    let s = TestServer::start().await;
    let pdf = client_contract();

    // An 11th document is refused before any is decoded (these are not even base64).
    let files: Vec<Value> = (0..11)
        .map(|i| json!({"file_name": format!("d{i}.pdf"), "file_base64": "%%%"}))
        .collect();
    let e = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({"signers": client_signer(), "files": files}),
        )
        .await
        .error(400, "parameter_invalid");
    assert_eq!(e["param"], "files");
    let e = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({"signers": client_signer(), "file_base64": b64(&pdf), "file_name": "a.pdf",
                   "files": files[..10]}),
        )
        .await
        .error(400, "parameter_invalid");
    assert_eq!(e["param"], "files");
    let mut form = Form::new().text("signers", client_signer().to_string());
    for i in 0..11 {
        form = form.part("file", pdf_part(pdf.clone(), &format!("d{i}.pdf")));
    }
    let e = post_form(&s, form).await.error(400, "parameter_invalid");
    assert_eq!(e["param"], "files");
    // Ten are fine.
    let files: Vec<Value> = (0..10)
        .map(|i| json!({"file_name": format!("d{i}.pdf"), "file_base64": b64(&pdf)}))
        .collect();
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({"signers": client_signer(), "files": files}),
        )
        .await
        .ok(201);
    assert_eq!(env["documents"].as_array().unwrap().len(), 10);
    assert_eq!(env["documents"][9]["name"], "d9.pdf");

    // 25 MiB in total: two parts each under the limit, over it together.
    let half = vec![b'x'; 13_500_000];
    let form = Form::new()
        .text("signers", client_signer().to_string())
        .part("file", pdf_part(half.clone(), "a.pdf"))
        .part("file", pdf_part(half, "b.pdf"));
    let e = post_form(&s, form).await.error(413, "file_too_large");
    assert_eq!(e["param"], "files");

    // 200 pages in total: 101 + 101.
    let lines: Vec<&str> = vec!["Page"];
    let mut big = PdfBuilder::new().page(&["Signature: {{signature:Client}}"]);
    for _ in 0..100 {
        big = big.page(&lines);
    }
    let big = big.build();
    let e = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({"signers": client_signer(), "files": [
                {"file_name": "a.pdf", "file_base64": b64(&big)},
                {"file_name": "b.pdf", "file_base64": b64(&big)},
            ]}),
        )
        .await
        .error(400, "too_many_pages");
    assert_eq!(e["param"], "files");

    // A bad entry of `files` is named.
    let e = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({"signers": client_signer(), "files": [
                {"file_name": "a.pdf", "file_base64": b64(&pdf)},
                {"file_name": "b/c.pdf", "file_base64": b64(&pdf)},
            ]}),
        )
        .await
        .error(400, "parameter_invalid");
    assert_eq!(e["param"], "files.1.file_name");
    let e = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({"signers": client_signer(), "files": [
                {"file_name": "a.pdf", "file_base64": b64(&pdf)},
                {"file_name": "b.pdf", "file_base64": b64(b"not a pdf")},
            ]}),
        )
        .await
        .error(400, "invalid_pdf");
    assert_eq!(e["param"], "files.1");
}

#[tokio::test]
async fn archive_names_are_unique() {
    let s = TestServer::start().await;
    let (a, b) = (client_contract(), annex_a());
    let form = Form::new()
        .text("signers", client_signer().to_string())
        .part("file", pdf_part(a, "contract.pdf"))
        .part("file", pdf_part(b, "contract.pdf"));
    let env = post_form(&s, form).await.ok(201);
    let id = env["id"].as_str().unwrap();
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200);
    let entries = unzip(&s, id).await;
    let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "contract-signed.pdf",
            "contract-signed (2).pdf",
            "contract-audit-trail.pdf"
        ]
    );
    assert_eq!(entries[1].1, download(&s, id, "signed?document=2").await);
    assert_eq!(entries[2].1, download(&s, id, "audit_trail").await);
}

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// Figures for docs/PERFORMANCE.md: ten documents of 2.4 MB, sealed. Run with
/// `cargo test -p envelope-server --test http measure_ten_documents -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a check"]
async fn measure_ten_documents() {
    let data = tempfile::tempdir().unwrap();
    let sealer = load_sealer(&SigningOptions::default(), data.path(), "Envelope").unwrap();
    let s = TestServer::start_with(Options {
        sealer: Some(sealer),
        ..Options::default()
    })
    .await;
    let docs: Vec<Vec<u8>> = (0..10)
        .map(|i| crate::common::pdf::padded(&client_contract(), 2_400_000, i + 1))
        .collect();
    let files: Vec<Value> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| json!({"file_name": format!("part{i}.pdf"), "file_base64": b64(d)}))
        .collect();
    let body = json!({"signers": client_signer(), "files": files});
    let started = std::time::Instant::now();
    let env = s.post(&s.test_key, "/v1/envelopes", body).await.ok(201);
    let create = started.elapsed();
    let id = env["id"].as_str().unwrap();
    let started = std::time::Instant::now();
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200);
    let complete = started.elapsed();
    let link = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}/files/archive"))
        .await
        .ok(200);
    let before = rss_kb();
    let started = std::time::Instant::now();
    let mut res = s
        .client
        .get(link["url"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    let (mut first, mut total, mut peak) = (None, 0usize, before);
    while let Some(chunk) = res.chunk().await.unwrap() {
        first.get_or_insert_with(|| started.elapsed());
        total += chunk.len();
        peak = peak.max(rss_kb());
    }
    let download = started.elapsed();
    println!(
        "10 x 2.4 MB: create {create:?}, completion {complete:?}, archive {total} bytes in \
         {download:?} (first byte after {:?}), RSS {before} kB -> peak {peak} kB",
        first.unwrap()
    );
}
