//! Envelopes end to end: create (JSON and both multipart forms), read, list, send, void, remind,
//! signing links, download links, the test helper, allowance, isolation.

use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use crate::common::pdf::{PdfBuilder, client_contract, two_party_contract};
use crate::common::{TestServer, client_signer, envelope_body};

async fn create(s: &TestServer, key: &str, body: Value) -> Value {
    s.post(key, "/v1/envelopes", body).await.ok(201)
}

/// Downloads what a file link points to (without an API key).
async fn download(s: &TestServer, link: &Value) -> reqwest::Response {
    assert_eq!(link["object"], "file_link");
    let url = link["url"].as_str().unwrap();
    assert!(url.starts_with(&format!("{}/files/", s.base)), "{url}");
    s.client.get(url).send().await.unwrap()
}

#[tokio::test]
async fn create_from_base64_and_read_back() {
    let s = TestServer::start().await;
    let mut body = envelope_body(&client_contract(), client_signer());
    body["metadata"] = json!({"order": "42"});
    let env = create(&s, &s.test_key, body).await;
    assert!(env["id"].as_str().unwrap().starts_with("env_"));
    assert_eq!(env["object"], "envelope");
    assert_eq!(env["status"], "sent");
    assert_eq!(env["livemode"], false);
    assert_eq!(env["name"], "contract.pdf");
    assert_eq!(env["metadata"], json!({"order": "42"}));
    assert_eq!(env["files"], json!({"signed": false, "audit_trail": false}));
    let signer = &env["signers"][0];
    assert!(signer["id"].as_str().unwrap().starts_with("sgn_"));
    assert_eq!(signer["role"], "Client");
    assert_eq!(signer["status"], "pending");

    let id = env["id"].as_str().unwrap().to_string();
    let id = id.as_str();
    let mut got = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    // The same envelope; only its email may have moved on since (sent in the background).
    let mut env = env.clone();
    let queued = env["signers"][0]["last_email"].take();
    let now = got["signers"][0]["last_email"].take();
    assert_eq!(queued["kind"], "signing_request");
    assert_eq!(queued["status"], "pending");
    assert_eq!(now["id"], queued["id"]);
    assert_eq!(got, env);
    let list = s.get(&s.test_key, "/v1/envelopes").await.ok(200);
    assert_eq!(list["url"], "/v1/envelopes");
    assert_eq!(list["data"][0]["id"], id);

    let events = s.get(&s.test_key, "/v1/events").await.ok(200);
    let types: Vec<&str> = events["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert!(types.contains(&"envelope.created") && types.contains(&"envelope.sent"));
    let evt = &events["data"][0];
    let one = s
        .get(
            &s.test_key,
            &format!("/v1/events/{}", evt["id"].as_str().unwrap()),
        )
        .await
        .ok(200);
    assert_eq!(&one, evt);
    assert_eq!(one["data"]["object"]["id"], id);
    let sent_only = s
        .get(&s.test_key, "/v1/events?type=envelope.sent")
        .await
        .ok(200);
    assert!(
        sent_only["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["type"] == "envelope.sent")
    );
}

#[tokio::test]
async fn multipart_with_json_text_parts() {
    let s = TestServer::start().await;
    let pdf = client_contract();
    let form = Form::new()
        .text("signers", client_signer().to_string())
        .text("name", "NDA {draft}")
        .text("send", "false")
        .text("metadata", json!({"a": "b"}).to_string())
        .part(
            "file",
            Part::bytes(pdf.clone())
                .file_name("nda.pdf")
                .mime_str("application/pdf")
                .unwrap(),
        );
    let r = s
        .send(
            s.client
                .post(s.url("/v1/envelopes"))
                .bearer_auth(&s.test_key)
                .multipart(form),
        )
        .await;
    let env = r.ok(201);
    assert_eq!(env["status"], "draft");
    assert_eq!(env["name"], "NDA {draft}", "strings are raw, not JSON");
    assert_eq!(env["metadata"], json!({"a": "b"}));

    // The original file is stored byte for byte.
    let id = env["id"].as_str().unwrap();
    let link = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}/files/original"))
        .await
        .ok(200);
    let res = download(&s, &link).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/pdf");
    let cd = res.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        cd.starts_with("attachment;") && cd.contains("nda.pdf"),
        "{cd}"
    );
    assert_eq!(res.bytes().await.unwrap().to_vec(), pdf);

    // A wrong type in a text part names the parameter.
    let form = Form::new()
        .text("signers", client_signer().to_string())
        .text("send", "maybe")
        .part("file", Part::bytes(client_contract()));
    let r = s
        .send(
            s.client
                .post(s.url("/v1/envelopes"))
                .bearer_auth(&s.test_key)
                .multipart(form),
        )
        .await;
    assert_eq!(r.error(400, "parameter_invalid")["param"], "send");
}

#[tokio::test]
async fn multipart_with_a_payload_part() {
    let s = TestServer::start().await;
    let payload = json!({
        "signers": client_signer(),
        "name": "Payload form",
        "signing_order": true,
    });
    let form = Form::new()
        .text("payload", payload.to_string())
        .part("file", Part::bytes(client_contract()).file_name("c.pdf"));
    let env = s
        .send(
            s.client
                .post(s.url("/v1/envelopes"))
                .bearer_auth(&s.test_key)
                .multipart(form),
        )
        .await
        .ok(201);
    assert_eq!(env["name"], "Payload form");
    assert_eq!(env["signing_order"], true);

    // Parameters beside a payload part are refused.
    let form = Form::new()
        .text("payload", payload.to_string())
        .text("name", "x")
        .part("file", Part::bytes(client_contract()));
    let r = s
        .send(
            s.client
                .post(s.url("/v1/envelopes"))
                .bearer_auth(&s.test_key)
                .multipart(form),
        )
        .await;
    r.error(400, "invalid_body");
    let form = Form::new().text("payload", "[1]");
    let r = s
        .send(
            s.client
                .post(s.url("/v1/envelopes"))
                .bearer_auth(&s.test_key)
                .multipart(form),
        )
        .await;
    r.error(400, "invalid_body");
}

#[tokio::test]
async fn draft_send_remind_void() {
    let s = TestServer::start().await;
    let mut body = envelope_body(&client_contract(), client_signer());
    body["send"] = json!(false);
    let env = create(&s, &s.test_key, body).await;
    assert_eq!(env["status"], "draft");
    let id = env["id"].as_str().unwrap();
    let p = |a: &str| format!("/v1/envelopes/{id}/{a}");

    s.post_empty(&s.test_key, &p("remind"))
        .await
        .error(409, "invalid_state");
    let sent = s.post_empty(&s.test_key, &p("send")).await.ok(200);
    assert_eq!(sent["status"], "sent");
    assert!(sent["sent_at"].is_string());
    s.post_empty(&s.test_key, &p("send"))
        .await
        .error(409, "invalid_state");

    let rem = s.post_empty(&s.test_key, &p("remind")).await.ok(200);
    assert_eq!(rem["object"], "reminder");
    assert_eq!(rem["envelope"], id);
    assert!(rem["reminded"].is_array() && rem["skipped"].is_array());
    let again = s.post_empty(&s.test_key, &p("remind")).await.ok(200);
    assert_eq!(again["reminded"], json!([]));
    assert_eq!(again["skipped"][0]["reason"], "reminded_recently");

    let voided = s
        .post(&s.test_key, &p("void"), json!({"reason": "Wrong document"}))
        .await
        .ok(200);
    assert_eq!(voided["status"], "voided");
    assert_eq!(voided["void_reason"], "Wrong document");
    s.post_empty(&s.test_key, &p("void"))
        .await
        .error(409, "invalid_state");

    // A draft voided without a reason gets the default one.
    let mut body = envelope_body(&client_contract(), client_signer());
    body["send"] = json!(false);
    let draft = create(&s, &s.test_key, body).await;
    let v = s
        .post_empty(
            &s.test_key,
            &format!("/v1/envelopes/{}/void", draft["id"].as_str().unwrap()),
        )
        .await
        .ok(200);
    assert_eq!(v["void_reason"], "This envelope was voided via the API.");
}

#[tokio::test]
async fn signing_links_and_completion() {
    let s = TestServer::start().await;
    let pdf = client_contract();
    let env = create(&s, &s.test_key, envelope_body(&pdf, client_signer())).await;
    let id = env["id"].as_str().unwrap();

    let link = s
        .post_empty(&s.test_key, &format!("/v1/envelopes/{id}/signing_url"))
        .await
        .ok(200);
    assert_eq!(link["object"], "signing_url");
    assert_eq!(link["role"], "Client");
    assert_eq!(link["signer"], env["signers"][0]["id"]);
    assert!(
        link["url"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{}/sign/", s.base))
    );
    let by_role = s
        .post(
            &s.test_key,
            &format!("/v1/envelopes/{id}/signing_url"),
            json!({"signer": "Client"}),
        )
        .await
        .ok(200);
    assert_ne!(by_role["url"], link["url"], "each link is a new token");
    s.post(
        &s.test_key,
        &format!("/v1/envelopes/{id}/signing_url"),
        json!({"signer": "Nobody"}),
    )
    .await
    .error(400, "signer_not_found");

    s.get(&s.test_key, &format!("/v1/envelopes/{id}/files/signed"))
        .await
        .error(409, "file_not_ready");
    s.get(
        &s.test_key,
        &format!("/v1/envelopes/{id}/files/audit_trail"),
    )
    .await
    .error(409, "file_not_ready");
    s.get(&s.test_key, &format!("/v1/envelopes/{id}/files/nope"))
        .await
        .error(400, "parameter_invalid");

    let done = s
        .post_empty(
            &s.test_key,
            &format!("/v1/test_helpers/envelopes/{id}/complete"),
        )
        .await
        .ok(200);
    assert_eq!(done["status"], "completed");
    assert_eq!(done["files"], json!({"signed": true, "audit_trail": true}));
    assert_eq!(done["signers"][0]["status"], "completed");
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .error(409, "invalid_state");
    s.post_empty(&s.test_key, &format!("/v1/envelopes/{id}/void"))
        .await
        .error(409, "envelope_completed");
    s.post_empty(&s.test_key, &format!("/v1/envelopes/{id}/signing_url"))
        .await
        .error(409, "invalid_state");

    // The signed PDF is the original bytes plus an incremental update.
    let link = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}/files/signed"))
        .await
        .ok(200);
    assert_eq!(link["kind"], "signed");
    let signed = download(&s, &link).await.bytes().await.unwrap();
    assert!(signed.starts_with(b"%PDF"));
    assert!(signed.len() > pdf.len());
    assert_eq!(&signed[..pdf.len()], &pdf[..], "original bytes untouched");

    let link = s
        .get(
            &s.test_key,
            &format!("/v1/envelopes/{id}/files/audit_trail"),
        )
        .await
        .ok(200);
    let audit = download(&s, &link).await.bytes().await.unwrap();
    assert!(audit.starts_with(b"%PDF"));

    let types: Vec<String> = s.get(&s.test_key, "/v1/events?limit=100").await.ok(200)["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect();
    assert!(types.contains(&"envelope.completed".to_string()));
    assert!(types.contains(&"envelope.signer_completed".to_string()));
}

#[tokio::test]
async fn test_helper_refuses_live_keys() {
    let s = TestServer::start().await;
    let b = s
        .post_empty(&s.live_key, "/v1/test_helpers/envelopes/env_any/complete")
        .await
        .error(403, "test_mode_only");
    assert_eq!(b["type"], "permission_error");
}

#[tokio::test]
async fn data_fields_and_signers() {
    let s = TestServer::start().await;
    let signers = json!([
        {"name": "Ada", "email": "ada@example.com", "role": "Client"},
        {"name": "Bob", "email": "bob@example.com", "role": "Provider"},
    ]);
    let body = envelope_body(&two_party_contract(), signers.clone());
    let b = s
        .post(&s.test_key, "/v1/envelopes", body.clone())
        .await
        .error(422, "missing_data");
    assert_eq!(b["missing_keys"], json!(["start_date"]));
    assert_eq!(b["type"], "invalid_request_error");

    let mut unknown = body.clone();
    unknown["data"] = json!({"start_date": "2026-01-01", "colour": "red"});
    let b = s
        .post(&s.test_key, "/v1/envelopes", unknown)
        .await
        .error(400, "unknown_data_fields");
    assert_eq!(b["param"], "data.colour");

    let mut missing_signer = envelope_body(&two_party_contract(), client_signer());
    missing_signer["data"] = json!({"start_date": "2026-01-01"});
    s.post(&s.test_key, "/v1/envelopes", missing_signer)
        .await
        .error(400, "missing_signer");

    let mut ok = body.clone();
    ok["data"] = json!({"start_date": "2026-01-01"});
    // Without a signing order both can sign now: the link must name one.
    let parallel = create(&s, &s.test_key, ok.clone()).await;
    s.post_empty(
        &s.test_key,
        &format!(
            "/v1/envelopes/{}/signing_url",
            parallel["id"].as_str().unwrap()
        ),
    )
    .await
    .error(400, "signer_ambiguous");
    ok["signing_order"] = json!(true);
    let env = create(&s, &s.test_key, ok).await;
    assert_eq!(env["signers"].as_array().unwrap().len(), 2);
    // Only the first signer can sign now.
    let id = env["id"].as_str().unwrap();
    s.post(
        &s.test_key,
        &format!("/v1/envelopes/{id}/signing_url"),
        json!({"signer": "Provider"}),
    )
    .await
    .error(409, "signer_not_actionable");

    // Without a tag for a signer, a signature page must be asked for.
    let plain = PdfBuilder::new().page(&["No tags here"]).build();
    let b = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            envelope_body(&plain, client_signer()),
        )
        .await
        .error(400, "signer_without_fields");
    assert_eq!(b["param"], "signers.0");
    let mut with_page = envelope_body(&plain, client_signer());
    with_page["signature_page"] = json!(true);
    create(&s, &s.test_key, with_page).await;
}

#[tokio::test]
async fn bad_files_and_limits() {
    let s = TestServer::start().await;
    let r = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            envelope_body(b"not a pdf", client_signer()),
        )
        .await;
    assert_eq!(r.error(400, "invalid_pdf")["param"], "file");
    let mut no_name = envelope_body(&client_contract(), client_signer());
    no_name.as_object_mut().unwrap().remove("file_name");
    s.post(&s.test_key, "/v1/envelopes", no_name)
        .await
        .error(400, "parameter_missing");
    let mut bad_b64 = envelope_body(&client_contract(), client_signer());
    bad_b64["file_base64"] = json!("!!!");
    s.post(&s.test_key, "/v1/envelopes", bad_b64)
        .await
        .error(400, "parameter_invalid");
    s.post(
        &s.test_key,
        "/v1/envelopes",
        json!({"signers": client_signer()}),
    )
    .await
    .error(400, "parameter_missing");
    s.post(&s.test_key, "/v1/envelopes", json!({"file_name": "x.pdf"}))
        .await
        .error(400, "parameter_missing");

    let eleven: Vec<Value> = (0..11)
        .map(|i| json!({"name": format!("S{i}"), "email": format!("s{i}@example.com")}))
        .collect();
    let b = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            envelope_body(&client_contract(), json!(eleven)),
        )
        .await
        .error(400, "too_many_signers");
    assert_eq!(b["param"], "signers");
    let mut bad_email = envelope_body(&client_contract(), client_signer());
    bad_email["signers"][0]["email"] = json!("not-an-email");
    let b = s
        .post(&s.test_key, "/v1/envelopes", bad_email)
        .await
        .error(400, "parameter_invalid");
    assert_eq!(b["param"], "signers.0.email");
    let mut days = envelope_body(&client_contract(), client_signer());
    days["expires_in_days"] = json!(91);
    s.post(&s.test_key, "/v1/envelopes", days)
        .await
        .error(400, "parameter_invalid");

    // A file over 25 MiB, as base64 in JSON: the body fits the HTTP limit, the core refuses it.
    let big = vec![b'A'; 25 * 1024 * 1024 + 10];
    let r = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            envelope_body(&big, client_signer()),
        )
        .await;
    assert_eq!(r.error(413, "file_too_large")["param"], "file");
    // Just under 25 MiB: accepted by the HTTP layer and read by the PDF engine.
    let almost = vec![b'A'; 25 * 1024 * 1024 - 1024];
    s.post(
        &s.test_key,
        "/v1/envelopes",
        envelope_body(&almost, client_signer()),
    )
    .await
    .error(400, "invalid_pdf");

    let many_pages = {
        let mut b = PdfBuilder::new().page(&["{{signature:Client}}"]);
        for _ in 0..200 {
            b = b.page(&["more"]);
        }
        b.build()
    };
    s.post(
        &s.test_key,
        "/v1/envelopes",
        envelope_body(&many_pages, client_signer()),
    )
    .await
    .error(400, "too_many_pages");
}

#[tokio::test]
async fn live_sends_use_the_allowance() {
    let s = TestServer::start().await;
    s.svc.admin().set_allowance(&s.account, 1).await.unwrap();
    let env = create(
        &s,
        &s.live_key,
        envelope_body(&client_contract(), client_signer()),
    )
    .await;
    assert_eq!(env["livemode"], true);
    let bal = s.get(&s.live_key, "/v1/balance").await.ok(200);
    assert_eq!(
        (bal["used"].clone(), bal["remaining"].clone()),
        (json!(1), json!(0))
    );

    // Nothing left: refused, and nothing is created.
    let r = s
        .post(
            &s.live_key,
            "/v1/envelopes",
            envelope_body(&client_contract(), client_signer()),
        )
        .await;
    r.error(402, "insufficient_balance");
    let list = s.get(&s.live_key, "/v1/envelopes").await.ok(200);
    assert_eq!(list["data"].as_array().unwrap().len(), 1);

    // A live draft is free; sending it is not.
    let mut draft = envelope_body(&client_contract(), client_signer());
    draft["send"] = json!(false);
    let d = create(&s, &s.live_key, draft).await;
    s.post_empty(
        &s.live_key,
        &format!("/v1/envelopes/{}/send", d["id"].as_str().unwrap()),
    )
    .await
    .error(402, "insufficient_balance");

    // Test mode never consumes it.
    create(
        &s,
        &s.test_key,
        envelope_body(&client_contract(), client_signer()),
    )
    .await;
    s.svc.admin().set_allowance(&s.account, 0).await.unwrap();
    let r = s
        .post(
            &s.live_key,
            "/v1/envelopes",
            envelope_body(&client_contract(), client_signer()),
        )
        .await;
    r.error(402, "insufficient_balance");
    assert_eq!(
        s.get(&s.live_key, "/v1/envelopes").await.ok(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[tokio::test]
async fn envelopes_are_isolated_and_paginated() {
    let s = TestServer::start().await;
    let other = s.svc.admin().create_account("Other").await.unwrap();
    let mut ids = Vec::new();
    for _ in 0..5 {
        let e = create(
            &s,
            &s.test_key,
            envelope_body(&client_contract(), client_signer()),
        )
        .await;
        ids.push(e["id"].as_str().unwrap().to_string());
    }
    let path = format!("/v1/envelopes/{}", ids[0]);
    s.get(&s.live_key, &path)
        .await
        .error(404, "resource_missing");
    s.get(&other.test_key.secret, &path)
        .await
        .error(404, "resource_missing");
    s.post_empty(&other.test_key.secret, &format!("{path}/void"))
        .await
        .error(404, "resource_missing");
    s.get(&other.test_key.secret, &format!("{path}/files/original"))
        .await
        .error(404, "resource_missing");
    let listed = s.get(&other.test_key.secret, "/v1/envelopes").await.ok(200);
    assert_eq!(listed["data"], json!([]));

    let p1 = s.get(&s.test_key, "/v1/envelopes?limit=2").await.ok(200);
    assert_eq!(p1["has_more"], true);
    let last = p1["data"][1]["id"].as_str().unwrap();
    let p2 = s
        .get(
            &s.test_key,
            &format!("/v1/envelopes?limit=2&starting_after={last}"),
        )
        .await
        .ok(200);
    let p3 = s
        .get(
            &s.test_key,
            &format!(
                "/v1/envelopes?limit=2&starting_after={}",
                p2["data"][1]["id"].as_str().unwrap()
            ),
        )
        .await
        .ok(200);
    assert_eq!(p3["has_more"], false);
    let mut seen: Vec<String> = [p1, p2, p3]
        .iter()
        .flat_map(|p| p["data"].as_array().unwrap().clone())
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    seen.reverse();
    assert_eq!(seen, ids);
}

#[tokio::test]
async fn idempotent_envelope_create() {
    let s = TestServer::start().await;
    let body = envelope_body(&client_contract(), client_signer());
    let send = || {
        s.client
            .post(s.url("/v1/envelopes"))
            .bearer_auth(&s.test_key)
            .header("idempotency-key", "create-1")
            .json(&body)
    };
    let a = s.send(send()).await;
    let b = s.send(send()).await;
    assert_eq!(a.ok(201), b.ok(201));
    assert_eq!(b.header("idempotent-replayed").as_deref(), Some("true"));
    let list = s.get(&s.test_key, "/v1/envelopes").await.ok(200);
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
}

/// Extensions E1 over HTTP: `cc` on create (JSON and multipart), on the envelope object
/// (`[]` when none), and `400 parameter_invalid` naming `cc[N].email`.
#[tokio::test]
async fn carbon_copies_over_http() {
    let s = TestServer::start().await;
    let mut body = envelope_body(&client_contract(), client_signer());
    let plain = s
        .post(&s.test_key, "/v1/envelopes", body.clone())
        .await
        .ok(201);
    assert_eq!(plain["cc"], json!([]));

    body["cc"] = json!([{"name": "Carla Copy", "email": "carla@example.org"}]);
    let env = s
        .post(&s.test_key, "/v1/envelopes", body.clone())
        .await
        .ok(201);
    let cc = env["cc"].as_array().unwrap();
    assert_eq!(cc.len(), 1);
    let keys: Vec<&str> = cc[0]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(keys, ["id", "name", "email"]);
    assert_eq!(cc[0]["email"], "carla@example.org");
    let id = env["id"].as_str().unwrap();
    let got = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(got["cc"], env["cc"]);

    body["cc"] =
        json!([{"name": "Carla Copy", "email": "carla@example.org"}, {"name": "B", "email": "b@"}]);
    let err = s
        .post(&s.test_key, "/v1/envelopes", body)
        .await
        .error(400, "parameter_invalid");
    assert_eq!(err["param"], "cc[1].email");
}

/// Extensions E3 over HTTP: the route, its answer, its errors, and the event in the events API.
#[tokio::test]
async fn reassigning_a_signer_over_http() {
    let s = TestServer::start().await;
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            envelope_body(&client_contract(), client_signer()),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap();
    let signer = env["signers"][0]["id"].as_str().unwrap();
    let path = format!("/v1/envelopes/{id}/signers/{signer}/reassign");
    let got = s
        .post(
            &s.test_key,
            &path,
            json!({"name": "Nora New", "email": "nora@example.net"}),
        )
        .await
        .ok(200);
    assert_eq!(got["object"], "envelope");
    assert_eq!(got["signers"][0]["id"], signer);
    assert_eq!(got["signers"][0]["email"], "nora@example.net");

    let events = s
        .get(&s.test_key, "/v1/events?type=signer.reassigned")
        .await
        .ok(200);
    let ev = &events["data"][0];
    assert_eq!(ev["type"], "signer.reassigned");
    assert_eq!(
        ev["data"]["previous"],
        json!({"name": "Ada Lovelace", "email": "ada@example.com"})
    );

    s.post(&s.test_key, &path, json!({"name": "Nora"}))
        .await
        .error(400, "parameter_missing");
    s.post(
        &s.test_key,
        &path,
        json!({"name": "N", "email": "n@x.io", "extra": true}),
    )
    .await
    .error(400, "parameter_unknown");
    // `auth` is a parameter since extensions E2 (tests/http/identity.rs).
    let e = s
        .post(
            &s.test_key,
            &path,
            json!({"name": "N", "email": "n@x.io", "auth": 1}),
        )
        .await
        .error(400, "parameter_invalid");
    assert_eq!(e["param"], "auth");
    s.post(
        &s.test_key,
        &format!("/v1/envelopes/{id}/signers/sgn_nope/reassign"),
        json!({"name": "N", "email": "n@x.io"}),
    )
    .await
    .error(404, "resource_missing");
    s.post(&s.test_key, &format!("/v1/envelopes/{id}/void"), json!({}))
        .await
        .ok(200);
    s.post(&s.test_key, &path, json!({"name": "N", "email": "n@x.io"}))
        .await
        .error(409, "invalid_state");
}
