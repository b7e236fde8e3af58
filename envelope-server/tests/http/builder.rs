//! Builder links (extensions E11): `POST /v1/templates/{id}/builder_url` and
//! `POST /v1/envelopes/{id}/builder_url`, the token's scope (its one object: read, change, pages,
//! send a draft; anything else 403), its hour, its key's revocation, and the two page routes the
//! builder draws from (`GET .../pages`, `GET .../pages/{page}`).

use std::sync::Arc;

use envelope_core::{ManualClock, Mode, Timestamp};
use serde_json::{Value, json};

use crate::common::pdf::{PdfBuilder, client_contract};
use crate::common::{Options, TestServer, b64, client_signer, envelope_body};

/// A Letter page and an A4 page, no tags.
fn two_sizes() -> Vec<u8> {
    PdfBuilder::new()
        .page(&["Terms"])
        .page_sized(595.0, 842.0, &["Signatures"])
        .build()
}

async fn template(s: &TestServer, pdf: &[u8]) -> Value {
    s.post(
        &s.test_key,
        "/v1/templates",
        json!({"name": "Lease", "file_base64": b64(pdf), "file_name": "lease.pdf",
               "roles": ["Tenant"],
               "fields": [{"type": "signature", "role": "Tenant", "key": "tenant_sig", "page": 2,
                           "x": 100, "y": 700, "width": 180, "height": 40}]}),
    )
    .await
    .ok(201)
}

/// The token of a builder URL (its last path segment).
fn token_of(url: &Value) -> String {
    url["url"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string()
}

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(
        Timestamp::parse("2027-05-03T10:00:00.000Z").unwrap(),
    ))
}

#[tokio::test]
async fn a_template_link_reads_changes_and_draws_its_one_template() {
    let clock = clock();
    let s = TestServer::start_with(Options {
        clock: Some(clock.clone()),
        ..Options::default()
    })
    .await;
    let t = template(&s, &two_sizes()).await;
    let id = t["id"].as_str().unwrap();
    let other = template(&s, &two_sizes()).await;
    let other_id = other["id"].as_str().unwrap();

    let link = s
        .post(
            &s.test_key,
            &format!("/v1/templates/{id}/builder_url"),
            json!({"locale": "de-CH", "return_url": "https://app.example.com/templates"}),
        )
        .await
        .ok(200);
    assert_eq!(link["object"], "builder_url");
    assert_eq!(link["expires_at"], "2027-05-03T11:00:00.000Z");
    let url = link["url"].as_str().unwrap();
    let token = token_of(&link);
    assert!(url.ends_with(&format!("/build/{token}")), "{url}");
    assert!(token.starts_with("bld_") && token.len() >= 36, "{token}");
    assert_eq!(link.as_object().unwrap().len(), 3, "{link}");

    // The token reads the template, with its version.
    let got = s.get(&token, &format!("/v1/templates/{id}")).await;
    assert_eq!(got.json()["id"], id);
    let etag = got.header("etag").unwrap();

    // Its layout: one document, the two pages' sizes; no field came from the document.
    let layout = s
        .get(&token, &format!("/v1/templates/{id}/pages"))
        .await
        .ok(200);
    assert_eq!(
        layout,
        json!({"object": "page_layout", "document_fields": [], "fields": t["fields"],
               "documents": [{"index": 1, "name": "lease.pdf",
                              "pages": [{"width": 612.0, "height": 792.0},
                                        {"width": 595.0, "height": 842.0}]}]})
    );

    // A picture of page 2, in proportion to its points.
    let png = s.get(&token, &format!("/v1/templates/{id}/pages/2")).await;
    assert_eq!(png.status, 200);
    assert_eq!(png.header("content-type").as_deref(), Some("image/png"));
    assert_eq!(png.header("cache-control").as_deref(), Some("no-store"));
    assert!(png.body.starts_with(b"\x89PNG\r\n\x1a\n"));
    let (w, h) = (
        u32::from_be_bytes(png.body[16..20].try_into().unwrap()) as f64,
        u32::from_be_bytes(png.body[20..24].try_into().unwrap()) as f64,
    );
    assert!(((w / h) - 595.0 / 842.0).abs() < 0.01, "{w} x {h}");
    for bad in ["3", "0", "x", "01x"] {
        s.get(&token, &format!("/v1/templates/{id}/pages/{bad}"))
            .await
            .error(404, "resource_missing");
    }

    // It changes the template: fields replaced whole, under If-Match.
    let moved = json!({"fields": [{"type": "signature", "role": "Tenant", "key": "tenant_sig",
                                   "page": 1, "x": 50, "y": 600, "width": 200, "height": 50}]});
    let changed = s
        .send(
            s.client
                .patch(s.url(&format!("/v1/templates/{id}")))
                .bearer_auth(&token)
                .header("if-match", &etag)
                .json(&moved),
        )
        .await;
    let body = changed.ok(200);
    assert_eq!(body["fields"][0]["page"], 1);
    assert_eq!(body["fields"][0]["x"], 50.0);
    // The same tag again is stale now: nothing is written over the change.
    s.send(
        s.client
            .patch(s.url(&format!("/v1/templates/{id}")))
            .bearer_auth(&token)
            .header("if-match", &etag)
            .json(&json!({"name": "Stale"})),
    )
    .await
    .error(409, "edit_conflict");

    // Everything else is out of its scope.
    for (method, path) in [
        ("GET", format!("/v1/templates/{other_id}")),
        ("GET", format!("/v1/templates/{other_id}/pages")),
        ("GET", format!("/v1/templates/{other_id}/pages/1")),
        ("GET", "/v1/templates".to_string()),
        ("GET", "/v1/envelopes".to_string()),
        ("GET", "/v1/account".to_string()),
        ("GET", format!("/v1/templates/{id}/file")),
        ("DELETE", format!("/v1/templates/{id}")),
        ("POST", format!("/v1/templates/{id}/builder_url")),
        ("POST", "/v1/envelopes".to_string()),
        ("GET", "/v1/nowhere".to_string()),
    ] {
        let req = match method {
            "GET" => s.client.get(s.url(&path)),
            "DELETE" => s.client.delete(s.url(&path)),
            _ => s.client.post(s.url(&path)).json(&json!({})),
        };
        let e = s
            .send(req.bearer_auth(&token))
            .await
            .error(403, "outside_link_scope");
        assert_eq!(e["type"], "permission_error", "{method} {path}");
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .contains(&format!("template {id}")),
            "{e}"
        );
    }
    // The other template is untouched and still its own.
    let other_now = s
        .get(&s.test_key, &format!("/v1/templates/{other_id}"))
        .await
        .ok(200);
    assert_eq!(other_now["fields"], other["fields"]);

    // After its hour the token is no key at all.
    clock.advance(chrono::Duration::minutes(60));
    s.get(&token, &format!("/v1/templates/{id}"))
        .await
        .error(401, "invalid_api_key");
}

#[tokio::test]
async fn a_draft_link_edits_and_sends_its_draft_only() {
    let s = TestServer::start().await;
    let mut body = envelope_body(&client_contract(), client_signer());
    body["send"] = json!(false);
    let env = s.post(&s.test_key, "/v1/envelopes", body).await.ok(201);
    let id = env["id"].as_str().unwrap();
    let link = s
        .post(
            &s.test_key,
            &format!("/v1/envelopes/{id}/builder_url"),
            json!({}),
        )
        .await
        .ok(200);
    let token = token_of(&link);

    // Its layout names the fields the document's tags made: a PATCH leaves them in place.
    let layout = s
        .get(&token, &format!("/v1/envelopes/{id}/pages"))
        .await
        .ok(200);
    assert_eq!(layout["documents"][0]["index"], 1);
    let found: Vec<&str> = layout["document_fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    let keys: Vec<&str> = layout["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["key"].as_str().unwrap_or_default())
        .collect();
    assert!(
        !found.is_empty() && found.iter().all(|k| keys.contains(k)),
        "{layout}"
    );
    let png = s
        .get(&token, &format!("/v1/envelopes/{id}/pages/1?document=1"))
        .await;
    assert_eq!(png.status, 200);
    assert!(png.body.starts_with(b"\x89PNG"));
    s.get(&token, &format!("/v1/envelopes/{id}/pages/1?document=2"))
        .await
        .error(404, "resource_missing");
    s.get(&token, &format!("/v1/envelopes/{id}/pages/1?page=2"))
        .await
        .error(400, "parameter_unknown");

    // It adds a field and sends; the signer can no longer be changed through it.
    let added = s
        .patch(
            &token,
            &format!("/v1/envelopes/{id}"),
            json!({"fields": [{"type": "text", "role": "Client", "key": "note", "page": 1,
                               "x": 72, "y": 300, "width": 200, "height": 20}]}),
        )
        .await;
    let etag = added.header("etag").unwrap();
    added.ok(200);
    let after = s.get(&token, &format!("/v1/envelopes/{id}/pages")).await;
    assert_eq!(after.header("etag").as_deref(), Some(etag.as_str()));
    let after = after.ok(200);
    let fields = after["fields"].as_array().unwrap();
    assert!(
        fields.iter().any(|f| f["key"] == "note" && f["y"] == 300.0),
        "{after}"
    );
    assert_eq!(
        fields.len(),
        found.len() + 1,
        "the tags' fields stay: {after}"
    );
    let sent = s
        .post_empty(&token, &format!("/v1/envelopes/{id}/send"))
        .await
        .ok(200);
    assert_eq!(sent["status"], "sent");
    let e = s
        .patch(
            &token,
            &format!("/v1/envelopes/{id}"),
            json!({"subject": "x"}),
        )
        .await
        .error(409, "invalid_state");
    assert!(
        e["message"].as_str().unwrap().contains("made for a draft"),
        "the link's own refusal, before any rule of the edit: {e}"
    );
    s.post_empty(&token, &format!("/v1/envelopes/{id}/send"))
        .await
        .error(409, "invalid_state");
    // Reading stays possible (the page shows the envelope as sent).
    s.get(&token, &format!("/v1/envelopes/{id}")).await.ok(200);
    for path in [
        format!("/v1/envelopes/{id}/void"),
        format!("/v1/envelopes/{id}/remind"),
        format!("/v1/envelopes/{id}/signing_url"),
        format!("/v1/test_helpers/envelopes/{id}/complete"),
    ] {
        s.post(&token, &path, json!({}))
            .await
            .error(403, "outside_link_scope");
    }
    // A sent envelope gets no new link.
    s.post(
        &s.test_key,
        &format!("/v1/envelopes/{id}/builder_url"),
        json!({}),
    )
    .await
    .error(409, "invalid_state");
}

#[tokio::test]
async fn builder_links_are_refused_with_clear_errors() {
    let s = TestServer::start().await;
    let t = template(&s, &two_sizes()).await;
    let id = t["id"].as_str().unwrap();
    let path = format!("/v1/templates/{id}/builder_url");
    for (body, param) in [
        (json!({"locale": "not a tag"}), "locale"),
        (json!({"locale": 7}), "locale"),
        (json!({"locale": "de-".repeat(20_000)}), "locale"),
        (json!({"return_url": "javascript:alert(1)"}), "return_url"),
        (
            json!({"return_url": "https://user:pw@example.com/"}),
            "return_url",
        ),
        (json!({"return_url": "/relative"}), "return_url"),
        (
            json!({"return_url": format!("https://example.com/{}", "a".repeat(2100))}),
            "return_url",
        ),
    ] {
        let e = s
            .post(&s.test_key, &path, body.clone())
            .await
            .error(400, "parameter_invalid");
        assert_eq!(e["param"], param, "{body}");
    }
    s.post(&s.test_key, &path, json!({"expires_in": 10}))
        .await
        .error(400, "parameter_unknown");
    // A body past the small-body limit is refused before it is parsed.
    let huge = json!({"return_url": format!("https://example.com/{}", "a".repeat(2 << 20))});
    s.post(&s.test_key, &path, huge)
        .await
        .error(413, "file_too_large");
    // A page number of any length is a page the template does not have.
    s.get(
        &s.test_key,
        &format!("/v1/templates/{id}/pages/{}", "9".repeat(5_000)),
    )
    .await
    .error(404, "resource_missing");
    // Another mode's template, and an unknown one, are not found.
    s.post(&s.live_key, &path, json!({}))
        .await
        .error(404, "resource_missing");
    s.post(
        &s.test_key,
        "/v1/templates/tmpl_nope/builder_url",
        json!({}),
    )
    .await
    .error(404, "resource_missing");
    // An archived template cannot be changed.
    s.delete(&s.test_key, &format!("/v1/templates/{id}"))
        .await
        .ok(200);
    s.post(&s.test_key, &path, json!({}))
        .await
        .error(409, "invalid_state");
    // Tokens that are not links.
    for bad in ["bld_", "bld_unknown", "bld_../../etc", "bld_\u{e9}"] {
        let r = s
            .send(
                s.client
                    .get(s.url(&format!("/v1/templates/{id}")))
                    .header("authorization", format!("Bearer {bad}")),
            )
            .await;
        if r.status != 400 {
            r.error(401, "invalid_api_key");
        }
    }
}

#[tokio::test]
async fn a_revoked_key_ends_its_builder_links() {
    let s = TestServer::start().await;
    let admin = s.svc.admin();
    let key = admin.create_key(&s.account, Mode::Test).await.unwrap();
    let t = template(&s, &two_sizes()).await;
    let id = t["id"].as_str().unwrap();
    let link = s
        .post(
            &key.secret,
            &format!("/v1/templates/{id}/builder_url"),
            json!({}),
        )
        .await
        .ok(200);
    let token = token_of(&link);
    s.get(&token, &format!("/v1/templates/{id}")).await.ok(200);
    admin.revoke_key(&s.account, &key.key.id).await.unwrap();
    s.get(&token, &format!("/v1/templates/{id}"))
        .await
        .error(401, "invalid_api_key");
    // The account's other key is untouched.
    s.get(&s.test_key, &format!("/v1/templates/{id}"))
        .await
        .ok(200);
}

#[tokio::test]
async fn a_field_label_is_kept_edited_and_shown_to_the_signer() {
    let s = TestServer::start().await;
    let t = template(&s, &two_sizes()).await;
    let path = format!("/v1/templates/{}", t["id"].as_str().unwrap());
    let placed = |label: Value| {
        json!({"fields": [{"type": "signature", "role": "Tenant", "key": "tenant_sig", "page": 2,
                           "x": 100, "y": 700, "width": 180, "height": 40, "label": label}]})
    };
    let got = s
        .patch(&s.test_key, &path, placed(json!("Tenant's signature")))
        .await
        .ok(200);
    assert_eq!(got["fields"][0]["label"], "Tenant's signature");
    // Edited in place too; the other members stay.
    let got = s
        .patch(
            &s.test_key,
            &path,
            json!({"fields": [{"label": "Signature of the tenant"}]}),
        )
        .await
        .ok(200);
    assert_eq!(got["fields"][0]["label"], "Signature of the tenant");
    assert_eq!(got["fields"][0]["x"], 100.0);
    for bad in [
        json!(""),
        json!("x".repeat(101)),
        json!("a\u{7}b"),
        json!(5),
    ] {
        let e = s
            .patch(&s.test_key, &path, placed(bad.clone()))
            .await
            .error(400, "parameter_invalid");
        assert_eq!(e["param"], "fields.0.label", "{bad}");
    }
    // A field without a label has none on the wire.
    let plain = template(&s, &two_sizes()).await;
    assert!(plain["fields"][0].get("label").is_none(), "{plain}");

    // The signing page calls the field by its label.
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({"template": t["id"], "delivery": "embedded",
                   "signers": {"Tenant": {"name": "Ada", "email": "ada@example.com"}}}),
        )
        .await
        .ok(201);
    let link = s
        .post(
            &s.test_key,
            &format!("/v1/envelopes/{}/signing_url", env["id"].as_str().unwrap()),
            json!({}),
        )
        .await
        .ok(200);
    let page = s.send(s.client.get(link["url"].as_str().unwrap())).await;
    let html = String::from_utf8_lossy(&page.body);
    assert!(html.contains("Signature of the tenant"), "{html}");
}

#[tokio::test]
async fn a_rename_keeps_a_role_no_field_uses_yet() {
    let s = TestServer::start().await;
    let t = s
        .post(
            &s.test_key,
            "/v1/templates",
            json!({"name": "Lease", "file_base64": b64(&two_sizes()), "file_name": "lease.pdf",
                   "roles": ["Tenant", "Witness"],
                   "fields": [{"type": "signature", "role": "Tenant", "page": 1,
                               "x": 100, "y": 700, "width": 180, "height": 40}]}),
        )
        .await
        .ok(201);
    assert_eq!(t["roles"], json!(["Tenant", "Witness"]));
    let path = format!("/v1/templates/{}", t["id"].as_str().unwrap());
    let renamed = s
        .patch(&s.test_key, &path, json!({"name": "Lease 2027"}))
        .await
        .ok(200);
    assert_eq!(renamed["roles"], json!(["Tenant", "Witness"]));
    // Fields given without roles still settle them from the fields, as before.
    let placed = s
        .patch(
            &s.test_key,
            &path,
            json!({"fields": [{"type": "signature", "role": "Tenant", "page": 1,
                               "x": 100, "y": 600, "width": 180, "height": 40}]}),
        )
        .await
        .ok(200);
    assert_eq!(placed["roles"], json!(["Tenant"]));
}
