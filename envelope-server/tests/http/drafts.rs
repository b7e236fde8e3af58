//! Editing before sending (extensions E11): `PATCH /v1/envelopes/{id}` on a draft (signers,
//! fields with positions, subject, message, metadata, expiry) and template `PATCH` whose
//! `fields` entries place fields, replacing them whole; each with the errors of creation.

use std::process::Command;
use std::sync::Arc;

use envelope_core::MemoryMailer;
use serde_json::{Value, json};

use crate::common::pdf::{PdfBuilder, client_contract};
use crate::common::{Options, TestServer, b64, client_signer, envelope_body};

/// A box on page `page` of a Letter page (612 x 792 points).
fn placed(kind: &str, role: Option<&str>, key: &str, page: u32, x: f64, y: f64) -> Value {
    let mut f = json!({"type": kind, "key": key, "page": page, "x": x, "y": y,
                       "width": 150, "height": 24});
    if let Some(r) = role {
        f["role"] = json!(r);
    }
    f
}

/// The text `pdftotext` finds inside the box (points, origin top-left) of page `page`.
fn text_in_box(pdf: &[u8], page: u32, x: f64, y: f64, w: f64, h: f64) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.pdf");
    std::fs::write(&path, pdf).unwrap();
    let n = page.to_string();
    let [x, y, w, h] = [x, y, w, h].map(|v| (v as i64).to_string());
    let out = Command::new("pdftotext")
        .args([
            "-f", &n, "-l", &n, "-r", "72", "-x", &x, "-y", &y, "-W", &w, "-H", &h,
        ])
        .arg(&path)
        .arg("-")
        .output()
        .unwrap_or_else(|e| panic!("pdftotext (scripts/install-test-deps.sh installs it): {e}"));
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The signed copy of the envelope at `path` (`/v1/envelopes/{id}`), through its download link.
async fn signed_copy(s: &TestServer, path: &str) -> bytes::Bytes {
    let link = s
        .get(&s.test_key, &format!("{path}/files/signed"))
        .await
        .ok(200);
    s.client
        .get(link["url"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
}

async fn draft(s: &TestServer) -> Value {
    let mut body = envelope_body(&client_contract(), client_signer());
    body["send"] = json!(false);
    body["subject"] = json!("Old subject");
    body["metadata"] = json!({"old": "1"});
    s.post(&s.test_key, "/v1/envelopes", body).await.ok(201)
}

#[tokio::test]
async fn a_draft_is_changed_whole_then_sent_and_completed() {
    let mail = Arc::new(MemoryMailer::new());
    let s = TestServer::start_with(Options {
        mailer: Some(mail.clone()),
        ..Options::default()
    })
    .await;
    let env = draft(&s).await;
    let path = format!("/v1/envelopes/{}", env["id"].as_str().unwrap());
    let note = placed("text", Some("Client"), "note", 1, 300.0, 500.0);
    let witness = placed("signature", Some("Witness"), "witness_sig", 1, 300.0, 600.0);
    let changed = s
        .patch(
            &s.test_key,
            &path,
            json!({
                "signers": [
                    {"name": "Ada Byron", "email": "ada.byron@example.com", "role": "Client"},
                    {"name": "Walt Witness", "email": "walt@example.com", "role": "Witness"},
                ],
                "fields": [note, witness],
                "subject": "Please sign the new terms",
                "message": "Two signers now.",
                "metadata": {"deal": "7"},
                "expires_in_days": 5,
            }),
        )
        .await
        .ok(200);
    assert_eq!(changed["status"], "draft");
    assert_eq!(changed["metadata"], json!({"deal": "7"}), "replaced whole");
    let signers: Vec<(&str, &str, i64)> = changed["signers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["role"].as_str().unwrap(),
                s["email"].as_str().unwrap(),
                s["order"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        signers,
        [
            ("Client", "ada.byron@example.com", 1),
            ("Witness", "walt@example.com", 2)
        ]
    );
    assert_eq!(s.get(&s.test_key, &path).await.ok(200), changed);
    // A PATCH of one member leaves the others as they are.
    let again = s
        .patch(&s.test_key, &path, json!({"message": "Two signers now!"}))
        .await
        .ok(200);
    assert_eq!(again["signers"], changed["signers"]);
    assert_eq!(again["metadata"], changed["metadata"]);

    let sent = s
        .post_empty(&s.test_key, &format!("{path}/send"))
        .await
        .ok(200);
    let sent_at = envelope_core::Timestamp::parse(sent["sent_at"].as_str().unwrap()).unwrap();
    let expires_at = envelope_core::Timestamp::parse(sent["expires_at"].as_str().unwrap()).unwrap();
    assert_eq!(
        expires_at,
        sent_at + chrono::Duration::days(5),
        "counted from the send"
    );
    s.svc.settle_emails().await;
    let emails = mail.sent();
    let to: Vec<&str> = emails.iter().map(|e| e.to.email.as_str()).collect();
    assert!(!to.contains(&"ada@example.com"), "{to:?}");
    let request = emails
        .iter()
        .find(|e| e.to.email == "ada.byron@example.com")
        .unwrap_or_else(|| panic!("no email to the new signer: {to:?}"));
    assert!(
        request.subject.contains("Please sign the new terms"),
        "{}",
        request.subject
    );
    assert!(
        request.text.contains("Two signers now!"),
        "{}",
        request.text
    );

    let done = s
        .post_empty(
            &s.test_key,
            &format!(
                "/v1/test_helpers/envelopes/{}/complete",
                env["id"].as_str().unwrap()
            ),
        )
        .await
        .ok(200);
    assert_eq!(done["status"], "completed");
    let signed = signed_copy(&s, &path).await;
    // The new text field is stamped at its new place; the witness signed in theirs.
    let in_note = text_in_box(&signed, 1, 300.0, 500.0, 150.0, 24.0);
    assert!(in_note.contains("Test value"), "{in_note:?}");
    let in_witness = text_in_box(&signed, 1, 300.0, 600.0, 150.0, 24.0);
    assert!(in_witness.contains("Walt"), "{in_witness:?}");
}

#[tokio::test]
async fn draft_changes_are_refused_as_on_create() {
    let s = TestServer::start().await;
    let env = draft(&s).await;
    let path = format!("/v1/envelopes/{}", env["id"].as_str().unwrap());
    let patch = |body: Value| {
        let (s, path) = (&s, &path);
        async move { s.patch(&s.test_key, path, body).await }
    };
    let refusal = |r: crate::common::Resp, status: u16, code: &str| {
        let e = r.error(status, code);
        e["param"].as_str().map(str::to_string)
    };
    let field = |page: u32, x: f64| json!([placed("text", Some("Client"), "t", page, x, 100.0)]);
    let cases = [
        // A box past the right edge of the page.
        (
            json!({"fields": field(1, 500.0)}),
            400,
            "parameter_invalid",
            Some("fields.0"),
        ),
        // A page the document does not have.
        (
            json!({"fields": field(2, 10.0)}),
            400,
            "parameter_invalid",
            Some("fields.0"),
        ),
        // A document the envelope does not have.
        (
            json!({"fields": [{"type": "text", "role": "Client", "page": 1, "x": 1, "y": 1,
                               "width": 10, "height": 10, "document": 2}]}),
            400,
            "parameter_invalid",
            Some("fields.0.document"),
        ),
        // More fields than an envelope may carry: refused before any of them is looked at.
        (
            json!({"fields": (0..501)
                .map(|i| placed("text", Some("Client"), &format!("f{i}"), 1, 10.0, 10.0))
                .collect::<Vec<_>>()}),
            400,
            "parameter_invalid",
            Some("fields"),
        ),
        // A field of a role that no signer takes.
        (
            json!({"fields": [placed("signature", Some("Witness"), "w", 1, 10.0, 10.0)]}),
            400,
            "missing_signer",
            Some("signers"),
        ),
        // The role with fields (the document's tags) left without a signer.
        (
            json!({"signers": [{"name": "Nobody", "email": "n@example.com", "role": "Other"}]}),
            400,
            "missing_signer",
            Some("signers"),
        ),
        // A signer of a role that has no field to sign.
        (
            json!({"signers": [
                {"name": "Ada", "email": "ada@example.com", "role": "Client"},
                {"name": "Extra", "email": "x@example.com", "role": "Stranger"}]}),
            400,
            "signer_without_fields",
            Some("signers.1"),
        ),
        (
            json!({"signers": [{"name": "Ada", "email": "not an email"}]}),
            400,
            "parameter_invalid",
            Some("signers.0.email"),
        ),
        (
            json!({"fields": [{"type": "stamp", "page": 1, "x": 1, "y": 1, "width": 1,
                               "height": 1}]}),
            400,
            "parameter_invalid",
            Some("fields.0.type"),
        ),
        (
            json!({"expires_in_days": 0}),
            400,
            "parameter_invalid",
            Some("expires_in_days"),
        ),
        (
            json!({"metadata": {"k": 1}}),
            400,
            "parameter_invalid",
            Some("metadata.k"),
        ),
        (
            json!({"colour": "red"}),
            400,
            "parameter_unknown",
            Some("colour"),
        ),
        (
            json!({"send": true}),
            400,
            "parameter_unknown",
            Some("send"),
        ),
    ];
    for (body, status, code, param) in cases {
        let r = patch(body.clone()).await;
        assert_eq!(refusal(r, status, code).as_deref(), param, "{body}");
    }
    // Nothing of the refused requests was written.
    let now = s.get(&s.test_key, &path).await.ok(200);
    assert_eq!(now, env);

    s.patch(&s.test_key, "/v1/envelopes/env_missing", json!({}))
        .await
        .error(404, "resource_missing");
    // A sent envelope nobody signed is corrected (extensions E14, `corrections.rs`); a voided
    // one answers 409 invalid_state.
    s.post_empty(&s.test_key, &format!("{path}/send"))
        .await
        .ok(200);
    patch(json!({"subject": "Corrected"})).await.ok(200);
    s.post_empty(&s.test_key, &format!("{path}/void"))
        .await
        .ok(200);
    patch(json!({"subject": "Too late"}))
        .await
        .error(409, "invalid_state");
    // Another account's (or mode's) draft is not found.
    s.patch(&s.live_key, &path, json!({"subject": "x"}))
        .await
        .error(404, "resource_missing");
}

/// Two blank Letter pages: every field of a template made from it is explicit.
fn blank_two_pages() -> Vec<u8> {
    PdfBuilder::new()
        .page(&["Terms of service"])
        .page(&["Signatures"])
        .build()
}

fn positions(fields: &Value) -> Vec<(String, String, i64, f64, f64)> {
    fields
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["key"].as_str().unwrap().to_string(),
                f["type"].as_str().unwrap().to_string(),
                f["page"].as_i64().unwrap(),
                f["x"].as_f64().unwrap(),
                f["y"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn template_fields_are_replaced_whole_or_edited_in_place() {
    let s = TestServer::start().await;
    let t = s
        .post(
            &s.test_key,
            "/v1/templates",
            json!({"name": "Blank", "file_base64": b64(&blank_two_pages()), "file_name": "b.pdf",
                   "roles": ["Client", "Provider"],
                   "fields": [placed("signature", Some("Client"), "c_sig", 2, 400.0, 50.0),
                              placed("signature", Some("Provider"), "p_sig", 2, 400.0, 150.0)]}),
        )
        .await
        .ok(201);
    let path = format!("/v1/templates/{}", t["id"].as_str().unwrap());
    let new_fields = json!([
        placed("text", None, "company", 1, 72.0, 100.0),
        placed(
            "signature",
            Some("Provider"),
            "provider_sig",
            2,
            300.0,
            400.0
        ),
        placed("signature", Some("Client"), "client_sig", 2, 300.0, 500.0),
        placed("date", Some("Client"), "client_date", 2, 300.0, 540.0),
    ]);
    let upd = s
        .patch(&s.test_key, &path, json!({"fields": new_fields}))
        .await
        .ok(200);
    let expected = vec![
        ("company".to_string(), "text".to_string(), 1, 72.0, 100.0),
        ("provider_sig".into(), "signature".into(), 2, 300.0, 400.0),
        ("client_sig".into(), "signature".into(), 2, 300.0, 500.0),
        ("client_date".into(), "date".into(), 2, 300.0, 540.0),
    ];
    assert_eq!(positions(&upd["fields"]), expected);
    assert_eq!(upd["fields"][0]["filled_by"], "sender");
    assert_eq!(
        upd["roles"],
        json!(["Client", "Provider"]),
        "the order is kept"
    );
    assert_eq!(s.get(&s.test_key, &path).await.ok(200), upd);

    // An envelope made from it now has exactly these fields, where they were put.
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({"template": t["id"], "send": false, "data": {"company": "ACME"},
                   "signers": {"Client": {"name": "Ada", "email": "ada@example.com"},
                               "Provider": {"name": "Bob", "email": "bob@example.com"}}}),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap();
    s.post_empty(&s.test_key, &format!("/v1/envelopes/{id}/send"))
        .await
        .ok(200);
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200);
    let signed = signed_copy(&s, &format!("/v1/envelopes/{id}")).await;
    assert!(text_in_box(&signed, 1, 72.0, 100.0, 150.0, 24.0).contains("ACME"));
    assert!(text_in_box(&signed, 2, 300.0, 400.0, 150.0, 24.0).contains("Bob"));
    assert!(text_in_box(&signed, 2, 300.0, 500.0, 150.0, 24.0).contains("Ada"));
    // Nothing is stamped where the old fields were.
    for y in [50.0, 150.0] {
        let old = text_in_box(&signed, 2, 400.0, y, 150.0, 24.0);
        assert!(old.trim().is_empty(), "{old:?}");
    }

    // The seed's form still edits the fields in place, one entry per field.
    let edited = s
        .patch(
            &s.test_key,
            &path,
            json!({"fields": [{"key": "company_name"}, {}, {}, {"required": false}]}),
        )
        .await
        .ok(200);
    assert_eq!(edited["fields"][0]["key"], "company_name");
    assert_eq!(edited["fields"][3]["required"], false);
    assert_eq!(edited["fields"][1]["x"], 300.0);
    s.patch(&s.test_key, &path, json!({"fields": [{"key": "x"}]}))
        .await
        .error(400, "parameter_invalid");

    // A new role, given in `roles` in the same request.
    let with_witness = s
        .patch(
            &s.test_key,
            &path,
            json!({"roles": ["Client", "Provider", "Witness"],
                   "fields": [placed("signature", Some("Witness"), "w", 1, 10.0, 10.0)]}),
        )
        .await
        .ok(200);
    assert_eq!(
        with_witness["roles"],
        json!(["Client", "Provider", "Witness"])
    );
    assert_eq!(with_witness["fields"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn template_field_replacement_is_refused_as_on_create() {
    let s = TestServer::start().await;
    let t = s
        .post(
            &s.test_key,
            "/v1/templates",
            json!({"name": "Blank", "file_base64": b64(&blank_two_pages()), "file_name": "b.pdf",
                   "fields": [placed("signature", Some("Client"), "c_sig", 2, 50.0, 50.0)]}),
        )
        .await
        .ok(201);
    let path = format!("/v1/templates/{}", t["id"].as_str().unwrap());
    let one = |f: Value| json!({"fields": [f]});
    let cases = [
        // A box past the bottom of the page.
        (
            one(placed("text", Some("Client"), "t", 1, 10.0, 780.0)),
            "parameter_invalid",
            "fields.0",
        ),
        // A page the template's document does not have.
        (
            one(placed("text", Some("Client"), "t", 3, 10.0, 10.0)),
            "parameter_invalid",
            "fields.0",
        ),
        // A role the template does not have.
        (
            one(placed("signature", Some("Witness"), "w", 1, 10.0, 10.0)),
            "parameter_invalid",
            "fields.0.role",
        ),
        // With `roles` in the request, a role with fields must be in it (as on create).
        (
            json!({"roles": ["Client"],
                   "fields": [placed("signature", Some("Witness"), "w", 1, 10.0, 10.0)]}),
            "parameter_invalid",
            "roles",
        ),
        (
            one(
                json!({"type": "text", "role": "Client", "page": 1, "x": 1, "y": 1,
                       "width": 10, "height": 10, "document": 2}),
            ),
            "parameter_invalid",
            "fields.0.document",
        ),
        (
            one(json!({"type": "text", "page": 1, "x": 1, "y": 1, "width": 10})),
            "parameter_missing",
            "fields.0.height",
        ),
        (
            one(
                json!({"type": "text", "page": 1, "x": 1, "y": 1, "width": 10, "height": 10,
                       "colour": "red"}),
            ),
            "parameter_unknown",
            "fields.0.colour",
        ),
        // Both forms in one request.
        (
            json!({"fields": [placed("text", None, "a", 1, 1.0, 1.0), {"key": "b"}]}),
            "parameter_invalid",
            "fields",
        ),
    ];
    for (body, code, param) in cases {
        let e = s
            .patch(&s.test_key, &path, body.clone())
            .await
            .error(400, code);
        assert_eq!(e["param"], param, "{body}: {e}");
        if param == "fields" {
            let m = e["message"].as_str().unwrap();
            assert!(m.contains("fields"), "{m}");
        }
    }
    assert_eq!(
        s.get(&s.test_key, &path).await.ok(200),
        t,
        "nothing written"
    );
}
