//! `attachment` fields (extensions E14) over real HTTP: the signing page's multipart post, a
//! junk "PNG" refused with the envelope still signable, a photo stored as the service's own
//! re-encoding, the file embedded in the sealed signed copy (qpdf and pypdf list it, pdfsig
//! still finds the seal valid), the audit trail's line with its SHA-256, and
//! `files/attachment?field=KEY`. On the memory store, SQLite, and PostgreSQL when
//! `ENVELOPE_TEST_DATABASE_URL` is set.

use std::io::Cursor;
use std::path::Path;
use std::process::Command;

use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::common::pdf::PdfBuilder;
use crate::common::signing::{form_token, html, link};
use crate::common::{Options, Resp, TestServer, b64};
use crate::kinds::{audit_text, says};

/// An envelope for `Client`: an attachment field `id_doc` (required unless `optional`) and a
/// signature, signed on the page (`embedded`).
fn body(optional: bool) -> Value {
    let pdf = PdfBuilder::new().page(&["Rental application"]).build();
    json!({"file_base64": b64(&pdf), "file_name": "application.pdf", "delivery": "embedded",
           "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
           "fields": [
               {"type": "attachment", "role": "Client", "key": "id_doc", "label": "Passport",
                "required": !optional, "page": 1, "x": 72, "y": 200, "width": 240, "height": 20},
               {"type": "signature", "role": "Client", "key": "sig",
                "page": 1, "x": 72, "y": 400, "width": 200, "height": 40}]})
}

/// A photo as a phone sends it: a JPEG.
pub(crate) fn photo() -> Vec<u8> {
    let img = image::RgbImage::from_fn(320, 200, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 90])
    });
    let mut out = Vec::new();
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Jpeg)
        .unwrap();
    out
}

/// Posts the signing form at `path` as multipart: the file (if any) for `id_doc`, a typed
/// signature and consent.
pub(crate) async fn post_with_file(
    s: &TestServer,
    path: &str,
    file: Option<(&str, &str, Vec<u8>)>,
) -> Resp {
    let page = html(&s.send(s.client.get(s.url(path))).await);
    let csrf = form_token(&page, "sign-form");
    let mut form = Form::new()
        .text("csrf", csrf)
        .text("mode:sig", "type")
        .text("typed:sig", "Ada Lovelace")
        .text("consent", "yes");
    if let Some((name, mime, bytes)) = file {
        let part = Part::bytes(bytes)
            .file_name(name.to_string())
            .mime_str(mime)
            .unwrap();
        form = form.part("file:id_doc", part);
    }
    let req = s
        .client
        .post(s.url(path))
        .header("origin", &s.base)
        .multipart(form);
    s.send(req).await
}

async fn fetch(s: &TestServer, url: &str) -> (String, bytes::Bytes) {
    let r = s.client.get(url).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let content_type = r.headers()["content-type"].to_str().unwrap().to_string();
    (content_type, r.bytes().await.unwrap())
}

fn tool(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program} ({e}): run scripts/install-test-deps.sh"));
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The signed copy's embedded files as pypdf reads them: `name<TAB>sha256` lines.
const PYPDF_LIST: &str = r#"
import hashlib, sys, pypdf
r = pypdf.PdfReader(sys.argv[1])
for name, datas in sorted(r.attachments.items()):
    for d in datas:
        print(name + '\t' + hashlib.sha256(d).hexdigest())
"#;

#[tokio::test]
async fn a_photo_is_checked_stored_embedded_and_linked() {
    for b in crate::bulk::backends().await {
        let s = TestServer::start_with(Options {
            store: Some(b.store.clone()),
            ..Options::default()
        })
        .await;
        let env = s
            .post(&s.test_key, "/v1/envelopes", body(false))
            .await
            .ok(201);
        let id = env["id"].as_str().unwrap().to_string();
        let path = link(&s, &id, "Client").await;

        // The page: a multipart form, a file input with the accepted types, and the camera.
        let page = html(&s.send(s.client.get(s.url(&path))).await);
        for needle in [
            r#"enctype="multipart/form-data""#,
            r#"name="file:id_doc" accept="application/pdf,image/png,image/jpeg""#,
            r#"capture="environment""#,
        ] {
            assert!(page.contains(needle), "{}: {needle} in {page}", b.name);
        }

        // A junk "PNG": refused, in words, and nothing changed.
        let r = post_with_file(&s, &path, Some(("id.png", "image/png", b"junk".repeat(50)))).await;
        let text = html(&r);
        assert_eq!(r.status, 400, "{}: {text}", b.name);
        assert!(
            text.contains("must be a PDF, PNG or JPEG file"),
            "{}: {text}",
            b.name
        );
        let got = s
            .get(&s.test_key, &format!("/v1/envelopes/{id}"))
            .await
            .ok(200);
        assert_eq!(got["status"], "sent");
        assert!(got.get("attachments").is_none(), "{got}");
        // A required file left out is named.
        let r = post_with_file(&s, &path, None).await;
        assert_eq!(r.status, 400, "{}", b.name);
        assert!(html(&r).contains("Passport"), "{}", html(&r));

        // The photo: accepted, the envelope completes.
        let sent = photo();
        let r = post_with_file(
            &s,
            &path,
            Some(("../passport.jpeg", "image/jpeg", sent.clone())),
        )
        .await;
        assert_eq!(r.status, 200, "{}: {}", b.name, html(&r));
        let got = s
            .get(&s.test_key, &format!("/v1/envelopes/{id}"))
            .await
            .ok(200);
        assert_eq!(got["status"], "completed", "{got}");
        let a = &got["attachments"][0];
        assert_eq!(a["field"], "id_doc");
        assert_eq!(a["signer"], got["signers"][0]["id"]);
        assert_eq!(a["name"], "passport.jpg");
        assert_eq!(a["content_type"], "image/jpeg");
        let sha = a["sha256"].as_str().unwrap().to_string();
        // The webhook's (and the events API's) envelope shows the same description.
        let events = s
            .get(&s.test_key, "/v1/events?type=envelope.completed")
            .await
            .ok(200);
        assert_eq!(events["data"][0]["data"]["object"]["attachments"][0], *a);

        // The link gives the service's re-encoding (never the bytes sent) as a JPEG.
        let link = s
            .get(
                &s.test_key,
                &format!("/v1/envelopes/{id}/files/attachment?field=id_doc"),
            )
            .await
            .ok(200);
        assert_eq!(link["kind"], "attachment");
        let (content_type, bytes) = fetch(&s, link["url"].as_str().unwrap()).await;
        assert_eq!(content_type, "image/jpeg");
        assert_eq!(hex(&Sha256::digest(&bytes)), sha);
        assert_eq!(a["size"], bytes.len());
        assert_ne!(&bytes[..], &sent[..], "stored as re-encoded, not as sent");
        let back = image::load_from_memory(&bytes).unwrap();
        assert_eq!((back.width(), back.height()), (320, 200));

        // The signed copy holds it: qpdf and pypdf list it, the seal is still valid.
        let signed = s
            .get(&s.test_key, &format!("/v1/envelopes/{id}/files/signed"))
            .await
            .ok(200);
        let (_, pdf) = fetch(&s, signed["url"].as_str().unwrap()).await;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("signed.pdf"), &pdf).unwrap();
        let listed = tool(dir.path(), "qpdf", &["--list-attachments", "signed.pdf"]);
        assert!(listed.contains("id_doc - passport.jpg"), "{listed}");
        let check = tool(dir.path(), "qpdf", &["--check", "signed.pdf"]);
        assert!(
            check.contains("No syntax or stream encoding errors"),
            "{check}"
        );
        let py = tool(dir.path(), "python3", &["-c", PYPDF_LIST, "signed.pdf"]);
        // pypdf lists an embedded file under its name tree entry and its file name.
        let lines: Vec<&str> = py.lines().collect();
        assert!(
            lines.contains(&format!("id_doc - passport.jpg\t{sha}").as_str()),
            "{py}"
        );
        assert!(lines.iter().all(|l| l.ends_with(&sha)), "{py}");
        let sig = tool(dir.path(), "pdfsig", &["signed.pdf"]);
        says(&sig, &["Signature is Valid.", "Total document signed"]);

        // The audit trail lists it with its SHA-256.
        let audit = audit_text(&s, &id).await;
        says(&audit, &["File attached", "passport.jpg", &sha[..32]]);
        s.shutdown().await.unwrap();
    }
}

#[tokio::test]
async fn attachment_links_name_their_field() {
    let s = TestServer::start().await;
    let env = s
        .post(&s.test_key, "/v1/envelopes", body(true))
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap().to_string();
    let files = |q: &str| format!("/v1/envelopes/{id}/files/{q}");
    s.get(&s.test_key, &files("attachment"))
        .await
        .error(400, "parameter_missing");
    let e = s
        .get(&s.test_key, &files("attachment?field=sig"))
        .await
        .error(400, "parameter_invalid");
    assert_eq!(e["param"], "field");
    let e = s
        .get(&s.test_key, &files("signed?field=id_doc"))
        .await
        .error(400, "parameter_invalid");
    assert_eq!(e["param"], "field");
    let e = s
        .get(&s.test_key, &files("attachment?field=id_doc&document=1"))
        .await
        .error(400, "parameter_invalid");
    assert_eq!(e["param"], "document");
    // Not signed yet; then signed with the optional file left out: nothing to link.
    s.get(&s.test_key, &files("attachment?field=id_doc"))
        .await
        .error(409, "file_not_ready");
    let path = link(&s, &id, "Client").await;
    let r = post_with_file(&s, &path, None).await;
    assert_eq!(r.status, 200, "{}", html(&r));
    s.get(&s.test_key, &files("attachment?field=id_doc"))
        .await
        .error(409, "file_not_ready");
}

#[tokio::test]
async fn a_pdf_is_kept_as_sent_and_the_test_helper_attaches_a_picture() {
    let s = TestServer::start().await;
    let env = s
        .post(&s.test_key, "/v1/envelopes", body(false))
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap().to_string();
    let path = link(&s, &id, "Client").await;
    let statement = PdfBuilder::new().page(&["Bank statement"]).build();
    let r = post_with_file(
        &s,
        &path,
        Some(("statement.pdf", "application/pdf", statement.clone())),
    )
    .await;
    assert_eq!(r.status, 200, "{}", html(&r));
    let link = s
        .get(
            &s.test_key,
            &format!("/v1/envelopes/{id}/files/attachment?field=id_doc"),
        )
        .await
        .ok(200);
    let (content_type, bytes) = fetch(&s, link["url"].as_str().unwrap()).await;
    assert_eq!(content_type, "application/pdf");
    assert_eq!(&bytes[..], &statement[..]);

    // The test helper gives a required attachment field its own picture.
    let mut b = body(false);
    b["delivery"] = json!("email");
    let env = s.post(&s.test_key, "/v1/envelopes", b).await.ok(201);
    let id = env["id"].as_str().unwrap().to_string();
    let done = s
        .post_empty(
            &s.test_key,
            &format!("/v1/test_helpers/envelopes/{id}/complete"),
        )
        .await
        .ok(200);
    assert_eq!(done["attachments"][0]["name"], "test-attachment.png");
    assert_eq!(done["attachments"][0]["content_type"], "image/png");
    let audit = audit_text(&s, &id).await;
    says(&audit, &["File attached", "test-attachment.png"]);
}

#[tokio::test]
async fn attachment_fields_belong_to_signers_and_are_few() {
    let s = TestServer::start().await;
    let mut b = body(false);
    b["fields"][0]["role"] = Value::Null;
    let e = s
        .post(&s.test_key, "/v1/envelopes", b)
        .await
        .error(400, "parameter_invalid");
    assert_eq!(e["param"], "fields.0.role");
    let mut b = body(false);
    let more = (0..6).map(|i| {
        json!({"type": "attachment", "role": "Client", "key": format!("f{i}"), "page": 1,
               "x": 72, "y": 500, "width": 100, "height": 20})
    });
    b["fields"] = Value::Array(
        b["fields"]
            .as_array()
            .unwrap()
            .iter()
            .skip(1)
            .cloned()
            .chain(more)
            .collect(),
    );
    let e = s
        .post(&s.test_key, "/v1/envelopes", b)
        .await
        .error(400, "parameter_invalid");
    assert_eq!(e["param"], "fields");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Through the core's own API (`SigningService::sign` with `SignInput::attachments`), on a live
/// envelope, on each store: a file counts towards the stored bytes and is not refused on a full
/// account (its creates are, after); live retention deletes it with the envelope's files (its
/// link then answers 410) and the orphan sweep finds nothing left.
#[tokio::test]
async fn attachments_count_towards_the_quota_and_go_with_retention() {
    use std::sync::Arc;

    use chrono::Duration;
    use envelope_core::model::SignerValue;
    use envelope_core::service::{AttachmentUpload, ClientInfo, Retention, SignInput};
    use envelope_core::{ManualClock, Settings, Timestamp};

    for b in crate::bulk::backends().await {
        let clock = Arc::new(ManualClock::new(
            Timestamp::parse("2027-01-15T08:00:00.000Z").unwrap(),
        ));
        let s = TestServer::start_with(Options {
            store: Some(b.store.clone()),
            clock: Some(clock.clone()),
            settings: Some(Settings {
                retention: Retention {
                    live_days: Some(7),
                    ..Retention::default()
                },
                ..Settings::default()
            }),
            ..Options::default()
        })
        .await;
        let env = s
            .post(&s.live_key, "/v1/envelopes", body(false))
            .await
            .ok(201);
        let id = env["id"].as_str().unwrap().to_string();
        let url = s
            .post(
                &s.live_key,
                &format!("/v1/envelopes/{id}/signing_url"),
                json!({"signer": "Client"}),
            )
            .await
            .ok(200)["url"]
            .as_str()
            .unwrap()
            .to_string();
        let token = url.rsplit('/').next().unwrap().to_string();
        let input = || {
            let mut input = SignInput {
                consent: true,
                ..SignInput::default()
            };
            input
                .values
                .insert("sig".into(), SignerValue::Typed("Ada Lovelace".into()));
            input
                .attachments
                .insert("id_doc".into(), AttachmentUpload::new("scan.jpg", photo()));
            input
        };
        let admin = s.svc.admin();
        let before = admin.storage_used(&s.account).await.unwrap();
        admin
            .set_storage_quota(&s.account, Some(before + 100))
            .await
            .unwrap();
        // A full account: the signature is not refused for it (a signer must not fail for
        // the sender's storage); the file counts, and the account's creates are refused after.
        let done = s
            .svc
            .sign(&token, None, input(), &ClientInfo::default())
            .await
            .unwrap();
        let size = done.attachments[0].size;
        let used = admin.storage_used(&s.account).await.unwrap();
        assert!(
            used >= before + size,
            "{used} counts the attachment ({size}) beside the documents ({before})"
        );
        s.post(&s.live_key, "/v1/envelopes", body(false))
            .await
            .error(403, "storage_quota_exceeded");

        clock.advance(Duration::days(7) + Duration::seconds(1));
        let report = s.svc.retention_sweep().await.unwrap();
        assert_eq!(report.live_envelopes, 1);
        assert_eq!(admin.storage_used(&s.account).await.unwrap(), 0);
        let got = s
            .get(&s.live_key, &format!("/v1/envelopes/{id}"))
            .await
            .ok(200);
        assert!(got.get("attachments").is_none(), "{got}");
        s.get(
            &s.live_key,
            &format!("/v1/envelopes/{id}/files/attachment?field=id_doc"),
        )
        .await
        .error(410, "file_deleted");
        // Nothing of it is left for the orphan sweep, an hour on.
        clock.advance(Duration::hours(2));
        assert_eq!(
            s.svc.retention_sweep().await.unwrap().orphan_blobs,
            0,
            "{}",
            b.name
        );
        s.shutdown().await.unwrap();
    }
}

/// A refused file is explained in the page's language.
#[tokio::test]
async fn a_refused_file_is_explained_in_the_signers_language() {
    let s = TestServer::start().await;
    let env = s
        .post(&s.test_key, "/v1/envelopes", body(false))
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap().to_string();
    let path = link(&s, &id, "Client").await;
    let page = html(
        &s.send(s.client.get(s.url(&path)).header("accept-language", "fr"))
            .await,
    );
    let csrf = form_token(&page, "sign-form");
    let junk = Part::bytes(b"GIF89a and more".to_vec())
        .file_name("passport.png")
        .mime_str("image/png")
        .unwrap();
    let form = Form::new()
        .text("csrf", csrf)
        .text("mode:sig", "type")
        .text("typed:sig", "Ada Lovelace")
        .text("consent", "yes")
        .part("file:id_doc", junk);
    let r = s
        .send(
            s.client
                .post(s.url(&path))
                .header("origin", &s.base)
                .header("accept-language", "fr")
                .multipart(form),
        )
        .await;
    let text = html(&r);
    assert_eq!(r.status, 400, "{text}");
    assert!(
        text.contains("« Passport » doit être un fichier PDF, PNG ou JPEG."),
        "{text}"
    );
}

/// A condition reads an attachment field (`filled`): the passport number is asked for only
/// once a file is given; the event of the completion shows the file, not its bytes.
#[tokio::test]
async fn a_condition_reads_whether_a_file_was_given() {
    let s = TestServer::start().await;
    let mut b = body(true);
    b["fields"].as_array_mut().unwrap().push(json!(
        {"type": "text", "role": "Client", "key": "id_number", "label": "Passport number",
         "page": 1, "x": 72, "y": 300, "width": 200, "height": 20,
         "condition": {"field": "id_doc", "filled": true}}));
    // Without a file the number is not asked for.
    let env = s
        .post(&s.test_key, "/v1/envelopes", b.clone())
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap().to_string();
    let path = link(&s, &id, "Client").await;
    let r = post_with_file(&s, &path, None).await;
    assert_eq!(r.status, 200, "{}", html(&r));
    // With one, it is required.
    let env = s.post(&s.test_key, "/v1/envelopes", b).await.ok(201);
    let id = env["id"].as_str().unwrap().to_string();
    let path = link(&s, &id, "Client").await;
    let r = post_with_file(&s, &path, Some(("id.jpg", "image/jpeg", photo()))).await;
    assert_eq!(r.status, 400);
    assert!(html(&r).contains("Passport number"), "{}", html(&r));
    let events = s
        .get(&s.test_key, "/v1/events?type=envelope.completed")
        .await
        .ok(200);
    assert_eq!(events["data"].as_array().unwrap().len(), 1);
    assert!(
        events["data"][0]["data"]["object"]
            .get("attachments")
            .is_none(),
        "the first envelope has no file"
    );
}

#[tokio::test]
async fn oversized_files_are_refused_at_once_and_the_envelope_stays_signable() {
    let s = TestServer::start().await;
    let env = s
        .post(&s.test_key, "/v1/envelopes", body(false))
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap().to_string();
    let path = link(&s, &id, "Client").await;
    // Within the form's body cap but over 10 MB: the core's check names the limit.
    let mut big = photo();
    big.resize(10 * 1024 * 1024 + 1, 0);
    let r = post_with_file(&s, &path, Some(("id.jpg", "image/jpeg", big))).await;
    assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(&r.body));
    assert!(String::from_utf8_lossy(&r.body).contains("10 MB"));
    // Far over the body cap: refused by its declared length, before it is read.
    let huge = vec![0u8; 40 * 1024 * 1024];
    let r = post_with_file(&s, &path, Some(("id.jpg", "image/jpeg", huge))).await;
    assert_eq!(r.status, 413, "{}", String::from_utf8_lossy(&r.body));
    let r = post_with_file(&s, &path, Some(("id.jpg", "image/jpeg", photo()))).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
}
