//! Every operation of the document, driven on the real server and answered as the document
//! says: a broad scenario (templates from a PDF as multipart and JSON, envelopes as JSON and
//! multipart, send, signing links, reminders, reassignment, the test helper, downloads, void,
//! pagination, webhook endpoints, events, deliveries, account, balance) and the errors 400, 401,
//! 403, 404, 409 (among them `edit_conflict`, with its `ETag`), 413, 415 and 422. Each response is checked by [`Document::check`]; at the end
//! every documented operation must have answered a success at least once.

use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use crate::check::Document;
use crate::common::pdf::{client_contract, two_party_contract};
use crate::common::{Resp, TestServer, b64, client_signer, envelope_body};

fn pdf_part(pdf: Vec<u8>) -> Part {
    Part::bytes(pdf)
        .file_name("contract.pdf")
        .mime_str("application/pdf")
        .unwrap()
}

fn id(v: &Value) -> String {
    v["id"].as_str().expect("an id").to_string()
}

/// Path and query of a link the server made (`{public_url}/files/...`).
fn path_of(s: &TestServer, url: &str) -> String {
    url.strip_prefix(&s.base)
        .expect("a link to this server")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_responses_match_the_document() {
    let s = TestServer::start().await;
    let key = s.test_key.clone();
    let raw = s.send(s.client.get(s.url("/v1/openapi.json"))).await;
    assert_eq!(raw.status, 200, "served without a key");
    assert_eq!(raw.body, envelope_server::openapi::DOCUMENT.as_bytes());
    let d = Document::parse(envelope_server::openapi::DOCUMENT);
    d.check("GET", "/v1/openapi.json", &raw);

    let get = |path: &'static str| {
        let s = &s;
        async move { s.send(s.client.get(s.url(path))).await }
    };
    d.check("GET", "/healthz", &get("/healthz").await);
    d.check("GET", "/readyz", &get("/readyz").await);
    d.check("GET", "/v1/account", &s.get(&key, "/v1/account").await);
    d.check("GET", "/v1/balance", &s.get(&key, "/v1/balance").await);

    // Templates: multipart and JSON, pages of one, update, file link, download.
    let form = Form::new()
        .text("name", "Consulting")
        .text("roles", r#"["Client","Provider"]"#)
        .part("file", pdf_part(two_party_contract()));
    let r = s
        .send(
            s.client
                .post(s.url("/v1/templates"))
                .bearer_auth(&key)
                .multipart(form),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let tmpl = d.check("POST", "/v1/templates", &r);
    let tmpl_id = id(&tmpl);
    let r = s
        .post(
            &key,
            "/v1/templates",
            json!({"name": "Service", "file_base64": b64(&client_contract()),
                   "file_name": "service.pdf", "description": "One signer"}),
        )
        .await;
    let second = d.check("POST", "/v1/templates", &r);
    let page = d.check(
        "GET",
        "/v1/templates",
        &s.get(&key, "/v1/templates?limit=1").await,
    );
    assert_eq!(page["has_more"], true);
    let after = format!(
        "/v1/templates?limit=1&starting_after={}",
        id(&page["data"][0])
    );
    d.check("GET", "/v1/templates", &s.get(&key, &after).await);
    let t_path = format!("/v1/templates/{tmpl_id}");
    d.check("GET", "/v1/templates/{id}", &s.get(&key, &t_path).await);
    let r = s
        .patch(&key, &t_path, json!({"description": "Two parties"}))
        .await;
    d.check("PATCH", "/v1/templates/{id}", &r);
    let link = d.check(
        "GET",
        "/v1/templates/{id}/file",
        &s.get(&key, &format!("{t_path}/file")).await,
    );
    let pdf = s.send(s.client.get(link["url"].as_str().unwrap())).await;
    assert!(pdf.body.starts_with(b"%PDF"));
    d.check("GET", "/files/{token}", &pdf);
    // The builder's routes (extensions E11): a link, the layout, a page's picture.
    let r = s
        .post(
            &key,
            &format!("{t_path}/builder_url"),
            json!({"locale": "fr"}),
        )
        .await;
    d.check("POST", "/v1/templates/{id}/builder_url", &r);
    let r = s.get(&key, &format!("{t_path}/pages")).await;
    d.check("GET", "/v1/templates/{id}/pages", &r);
    let r = s.get(&key, &format!("{t_path}/pages/1")).await;
    d.check("GET", "/v1/templates/{id}/pages/{page}", &r);
    let r = s.get(&key, &format!("{t_path}/pages/99")).await;
    d.check("GET", "/v1/templates/{id}/pages/{page}", &r);
    let r = s
        .delete(&key, &format!("/v1/templates/{}", id(&second)))
        .await;
    d.check("DELETE", "/v1/templates/{id}", &r);

    // Webhook endpoints (before the envelopes, so that their events have deliveries).
    let r = s
        .post(
            &key,
            "/v1/webhook_endpoints",
            json!({"url": "https://example.com/hook", "description": "all events"}),
        )
        .await;
    let ep = d.check("POST", "/v1/webhook_endpoints", &r);
    assert!(ep["secret"].is_string());
    let ep_path = format!("/v1/webhook_endpoints/{}", id(&ep));
    d.check(
        "GET",
        "/v1/webhook_endpoints/{id}",
        &s.get(&key, &ep_path).await,
    );
    let r = s
        .patch(&key, &ep_path, json!({"events": ["envelope.completed"]}))
        .await;
    d.check("PATCH", "/v1/webhook_endpoints/{id}", &r);
    let other = s.endpoint(&key, "https://example.com/other").await;
    d.check(
        "GET",
        "/v1/webhook_endpoints",
        &s.get(&key, "/v1/webhook_endpoints?limit=1").await,
    );

    // An envelope from the template, as a draft: send, link, remind, reassign.
    let r = s
        .post(
            &key,
            "/v1/envelopes",
            json!({"template": tmpl_id, "send": false, "delivery": "email",
                   "data": {"start_date": "2026-01-01"}, "metadata": {"deal": "42"},
                   "cc": [{"name": "Carol", "email": "carol@example.com"}],
                   "signers": {"Client": {"name": "Ada", "email": "ada@example.com"},
                               "Provider": {"name": "Bob", "email": "bob@example.com"}}}),
        )
        .await;
    let draft = d.check("POST", "/v1/envelopes", &r);
    let e_path = format!("/v1/envelopes/{}", id(&draft));
    let r = s
        .post(&key, &format!("{e_path}/builder_url"), json!({}))
        .await;
    let link = d.check("POST", "/v1/envelopes/{id}/builder_url", &r);
    let token = link["url"].as_str().unwrap().rsplit('/').next().unwrap();
    let r = s.get(token, &format!("{e_path}/pages")).await;
    d.check("GET", "/v1/envelopes/{id}/pages", &r);
    let r = s.get(token, &format!("{e_path}/pages/2?document=1")).await;
    d.check("GET", "/v1/envelopes/{id}/pages/{page}", &r);
    let r = s.get(token, "/v1/envelopes").await;
    d.check("GET", "/v1/envelopes", &r);
    // A draft changes before it is sent (extensions E11).
    let r = s
        .patch(
            &key,
            &e_path,
            json!({"subject": "Consulting terms", "metadata": {"deal": "43"},
                   "expires_in_days": 30,
                   "fields": [{"type": "text", "role": "Client", "key": "title", "page": 2,
                               "x": 300, "y": 500, "width": 150, "height": 20}]}),
        )
        .await;
    assert_eq!(
        d.check("PATCH", "/v1/envelopes/{id}", &r)["metadata"]["deal"],
        "43"
    );
    let sent = d.check(
        "POST",
        "/v1/envelopes/{id}/send",
        &s.post_empty(&key, &format!("{e_path}/send")).await,
    );
    assert_eq!(sent["status"], "sent");
    let r = s
        .post(
            &key,
            &format!("{e_path}/signing_url"),
            json!({"signer": "Client"}),
        )
        .await;
    d.check("POST", "/v1/envelopes/{id}/signing_url", &r);
    let r = s.post_empty(&key, &format!("{e_path}/remind")).await;
    d.check("POST", "/v1/envelopes/{id}/remind", &r);
    let signer = id(&sent["signers"][1]);
    let r = s
        .post(
            &key,
            &format!("{e_path}/signers/{signer}/reassign"),
            json!({"name": "Bea", "email": "bea@example.com",
                   "auth": {"method": "access_code", "access_code": "4821"}}),
        )
        .await;
    d.check(
        "POST",
        "/v1/envelopes/{id}/signers/{signer_id}/reassign",
        &r,
    );
    // Five wrong codes lock Bea's link (a `signer.locked` event); the sender unlocks it.
    let bea = s
        .post(
            &key,
            &format!("{e_path}/signing_url"),
            json!({"signer": "Provider"}),
        )
        .await
        .json();
    let token = bea["url"].as_str().unwrap().rsplit('/').next().unwrap();
    let nobody = envelope_core::service::ClientInfo::default();
    for _ in 0..5 {
        assert!(s.svc.verify_signer(token, "0000", &nobody).await.is_err());
    }
    let r = s
        .post(
            &key,
            &format!("{e_path}/signers/{signer}/unlock"),
            json!({}),
        )
        .await;
    d.check("POST", "/v1/envelopes/{id}/signers/{signer_id}/unlock", &r);
    // The signed file before completion: 409 file_not_ready.
    let r = s.get(&key, &format!("{e_path}/files/signed")).await;
    assert_eq!(r.status, 409);
    d.check("GET", "/v1/envelopes/{id}/files/{kind}", &r);
    let done = d.check(
        "POST",
        "/v1/test_helpers/envelopes/{id}/complete",
        &s.post_empty(
            &key,
            &format!("/v1/test_helpers/envelopes/{}/complete", id(&draft)),
        )
        .await,
    );
    assert_eq!(done["status"], "completed");
    for kind in ["signed", "audit_trail", "original"] {
        let r = s.get(&key, &format!("{e_path}/files/{kind}")).await;
        let link = d.check("GET", "/v1/envelopes/{id}/files/{kind}", &r);
        let file = s
            .get(&key, &path_of(&s, link["url"].as_str().unwrap()))
            .await;
        d.check("GET", "/files/{token}", &file);
    }
    // Void of a completed envelope: 409 envelope_completed.
    let r = s.post_empty(&key, &format!("{e_path}/void")).await;
    assert_eq!(r.status, 409);
    d.check("POST", "/v1/envelopes/{id}/void", &r);

    // An envelope from an uploaded PDF, as multipart with JSON text parts; and one as JSON.
    let form = Form::new()
        .text("signers", client_signer().to_string())
        .text("metadata", r#"{"source":"multipart"}"#)
        .text("expires_in_days", "30")
        .part("file", pdf_part(client_contract()));
    let r = s
        .send(
            s.client
                .post(s.url("/v1/envelopes"))
                .bearer_auth(&key)
                .multipart(form),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let multi = d.check("POST", "/v1/envelopes", &r);
    let r = s
        .post(
            &key,
            &format!("/v1/envelopes/{}/void", id(&multi)),
            json!({"reason": "Wrong file"}),
        )
        .await;
    let voided = d.check("POST", "/v1/envelopes/{id}/void", &r);
    assert_eq!(voided["status"], "voided");
    let r = s
        .post(
            &key,
            "/v1/envelopes",
            envelope_body(&client_contract(), client_signer()),
        )
        .await;
    let json_env = d.check("POST", "/v1/envelopes", &r);
    d.check(
        "GET",
        "/v1/envelopes/{id}",
        &s.get(&key, &format!("/v1/envelopes/{}", id(&json_env)))
            .await,
    );
    let page = d.check(
        "GET",
        "/v1/envelopes",
        &s.get(&key, "/v1/envelopes?limit=2").await,
    );
    assert_eq!(page["has_more"], true);
    let after = format!(
        "/v1/envelopes?limit=2&starting_after={}",
        id(&page["data"][1])
    );
    d.check("GET", "/v1/envelopes", &s.get(&key, &after).await);
    let by_template = format!("/v1/envelopes?template={tmpl_id}");
    d.check("GET", "/v1/envelopes", &s.get(&key, &by_template).await);

    // Bulk sends (extensions E12): JSON rows and a CSV part; a bad row; the envelopes made.
    let rows: Vec<Value> = (0..2)
        .map(|i| {
            json!({"signers": {"Client": {"name": "Ada", "email": format!("ada{i}@example.com")},
                               "Provider": {"name": "Bob", "email": "bob@example.com"}},
                   "data": {"start_date": "2026-01-01"}, "metadata": {"row": i.to_string()},
                   "cc": [{"name": "Carol", "email": "carol@example.com"}]})
        })
        .collect();
    let r = s
        .post(
            &key,
            "/v1/bulk_sends",
            json!({"template": tmpl_id, "rows": rows, "subject": "Consulting terms",
                   "message": "Welcome", "expires_in_days": 30, "delivery": "email"}),
        )
        .await;
    let bulk = d.check("POST", "/v1/bulk_sends", &r);
    let csv = "Client.name,Client.email,Provider.name,Provider.email,data.start_date\n\
               Ada,ada@example.com,Bob,bob@example.com,2026-01-01\n";
    let form = Form::new().text("template", tmpl_id.clone()).part(
        "rows",
        Part::bytes(csv.as_bytes().to_vec())
            .file_name("rows.csv")
            .mime_str("text/csv")
            .unwrap(),
    );
    let r = s
        .send(
            s.client
                .post(s.url("/v1/bulk_sends"))
                .bearer_auth(&key)
                .multipart(form),
        )
        .await;
    let csv_bulk = d.check("POST", "/v1/bulk_sends", &r);
    let r = s
        .post(&key, "/v1/bulk_sends", rows_with_bad_email(&tmpl_id))
        .await;
    assert_eq!(r.status, 400);
    d.check("POST", "/v1/bulk_sends", &r);
    for b in [&bulk, &csv_bulk] {
        let path = format!("/v1/bulk_sends/{}", id(b));
        loop {
            let got = d.check("GET", "/v1/bulk_sends/{id}", &s.get(&key, &path).await);
            if got["status"] == "completed" {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
    d.check(
        "GET",
        "/v1/bulk_sends",
        &s.get(&key, "/v1/bulk_sends?limit=1").await,
    );
    let made = d.check(
        "GET",
        "/v1/envelopes",
        &s.get(&key, &format!("/v1/envelopes?bulk_send={}", id(&bulk)))
            .await,
    );
    assert_eq!(made["data"].as_array().unwrap().len(), 2);

    // Events and deliveries.
    let events = d.check(
        "GET",
        "/v1/events",
        &s.get(&key, "/v1/events?limit=100").await,
    );
    d.check(
        "GET",
        "/v1/events",
        &s.get(&key, "/v1/events?type=envelope.completed").await,
    );
    let completed = events["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "envelope.completed")
        .expect("a completed event");
    // Each event is also the body of a webhook delivery: the document's `webhooks` section
    // describes it per type.
    for e in events["data"].as_array().unwrap() {
        let kind = e["type"].as_str().unwrap();
        let schema = d
            .doc
            .pointer(&format!(
                "/webhooks/{kind}/post/requestBody/content/application~1json/schema"
            ))
            .unwrap_or_else(|| panic!("no webhook payload for {kind} in the document"));
        if let Err(err) = d.validate(schema, e) {
            panic!("the {kind} payload does not match the document:\n{err}\n{e:#}");
        }
    }
    let ev_path = format!("/v1/events/{}", id(completed));
    d.check("GET", "/v1/events/{id}", &s.get(&key, &ev_path).await);
    for e in events["data"].as_array().unwrap() {
        d.check(
            "GET",
            "/v1/events/{id}",
            &s.get(&key, &format!("/v1/events/{}", id(e))).await,
        );
    }
    d.check(
        "GET",
        "/v1/events/{id}/deliveries",
        &s.get(&key, &format!("{ev_path}/deliveries")).await,
    );
    let r = s
        .post(
            &key,
            &format!("{ev_path}/resend"),
            json!({"endpoint": id(&other)}),
        )
        .await;
    let resent = d.check("POST", "/v1/events/{id}/resend", &r);
    assert!(!resent["data"].as_array().unwrap().is_empty());
    d.check(
        "DELETE",
        "/v1/webhook_endpoints/{id}",
        &s.delete(&key, &ep_path).await,
    );

    errors(&s, &d, &tmpl_id, &e_path).await;

    let missing = d.not_succeeded();
    assert!(
        missing.is_empty(),
        "operations of the document that the scenario never saw succeed: {missing:?}"
    );
    // Straight to stderr: cargo test shows it even when the test passes.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "openapi: {} responses matched the document; every one of its operations answered a success",
        d.checked()
    );
}

/// A bulk send whose second row's client has no valid email.
fn rows_with_bad_email(tmpl_id: &str) -> Value {
    json!({"template": tmpl_id, "rows": [
        {"signers": {"Client": {"name": "Ada", "email": "ada@example.com"},
                     "Provider": {"name": "Bob", "email": "bob@example.com"}},
         "data": {"start_date": "2026-01-01"}},
        {"signers": {"Client": {"name": "Ada", "email": "not-an-email"},
                     "Provider": {"name": "Bob", "email": "bob@example.com"}},
         "data": {"start_date": "2026-01-01"}},
    ]})
}

/// The error statuses of the decisions table, each checked against the document.
async fn errors(s: &TestServer, d: &Document, tmpl_id: &str, e_path: &str) {
    let key = &s.test_key;
    let expect = |r: &Resp, status: u16, code: &str| {
        assert_eq!(
            (r.status, r.json()["code"].as_str().map(str::to_string)),
            (status, Some(code.to_string())),
            "{}",
            String::from_utf8_lossy(&r.body)
        );
    };
    // 400: a parameter of the wrong type, an unknown parameter, an unknown query parameter.
    let r = s
        .post(
            key,
            "/v1/envelopes",
            json!({"signers": 5, "template": tmpl_id}),
        )
        .await;
    expect(&r, 400, "parameter_invalid");
    d.check("POST", "/v1/envelopes", &r);
    let r = s
        .post(
            key,
            "/v1/webhook_endpoints",
            json!({"url": "https://example.com", "colour": "red"}),
        )
        .await;
    expect(&r, 400, "parameter_unknown");
    d.check("POST", "/v1/webhook_endpoints", &r);
    let r = s.get(key, "/v1/events?limit=0").await;
    expect(&r, 400, "parameter_invalid");
    d.check("GET", "/v1/events", &r);
    // 401: no key, a wrong key.
    let r = s.send(s.client.get(s.url("/v1/account"))).await;
    expect(&r, 401, "invalid_api_key");
    d.check("GET", "/v1/account", &r);
    let r = s.get("sk_test_wrong", "/v1/envelopes").await;
    expect(&r, 401, "invalid_api_key");
    d.check("GET", "/v1/envelopes", &r);
    // 403: the test helper with a live key.
    let r = s
        .post_empty(&s.live_key, "/v1/test_helpers/envelopes/env_x/complete")
        .await;
    expect(&r, 403, "test_mode_only");
    d.check("POST", "/v1/test_helpers/envelopes/{id}/complete", &r);
    // 404: unknown IDs.
    let r = s.get(key, "/v1/envelopes/env_missing").await;
    expect(&r, 404, "resource_missing");
    d.check("GET", "/v1/envelopes/{id}", &r);
    let r = s.get(key, "/v1/events/evt_missing/deliveries").await;
    expect(&r, 404, "resource_missing");
    d.check("GET", "/v1/events/{id}/deliveries", &r);
    let r = s.send(s.client.get(s.url("/files/no_such_token"))).await;
    expect(&r, 404, "resource_missing");
    d.check("GET", "/files/{token}", &r);
    // 409: sending or changing an envelope that is not a draft.
    let r = s.post_empty(key, &format!("{e_path}/send")).await;
    expect(&r, 409, "invalid_state");
    d.check("POST", "/v1/envelopes/{id}/send", &r);
    let r = s.patch(key, e_path, json!({"subject": "Too late"})).await;
    expect(&r, 409, "invalid_state");
    d.check("PATCH", "/v1/envelopes/{id}", &r);
    // 409: an edit conditional on a version the object is no longer at (extensions E11), with
    // its current ETag; 400: an If-Match that is not entity tags.
    let if_match = |path: &str, value: &'static str| {
        // A body each route takes: only the precondition fails.
        let body = if path == e_path {
            json!({"subject": "Stale"})
        } else {
            json!({"name": "Stale"})
        };
        s.client
            .patch(s.url(path))
            .bearer_auth(key)
            .header("if-match", value)
            .json(&body)
    };
    let t_path = format!("/v1/templates/{tmpl_id}");
    for path in [e_path, t_path.as_str()] {
        let template = if path == e_path {
            "/v1/envelopes/{id}"
        } else {
            "/v1/templates/{id}"
        };
        let r = s.send(if_match(path, "\"999999\"")).await;
        expect(&r, 409, "edit_conflict");
        assert!(
            r.header("etag").is_some(),
            "an edit_conflict names the current ETag"
        );
        d.check("PATCH", template, &r);
        let r = s.send(if_match(path, "999999")).await;
        expect(&r, 400, "parameter_invalid");
        assert_eq!(r.json()["param"], "If-Match");
        d.check("PATCH", template, &r);
    }
    // 400: both forms of a template's `fields` in one request.
    let r = s
        .patch(
            key,
            &format!("/v1/templates/{tmpl_id}"),
            json!({"fields": [{"key": "a"}, {"type": "text", "page": 1, "x": 1, "y": 1,
                                            "width": 9, "height": 9}]}),
        )
        .await;
    expect(&r, 400, "parameter_invalid");
    d.check("PATCH", "/v1/templates/{id}", &r);
    // 413: a body over the limit of small bodies (1 MiB).
    let big = json!({"reason": "x".repeat(1024 * 1024 + 1)});
    let r = s.post(key, &format!("{e_path}/void"), big).await;
    expect(&r, 413, "file_too_large");
    d.check("POST", "/v1/envelopes/{id}/void", &r);
    // 415: a body that is not JSON.
    let r = s
        .send(
            s.client
                .patch(s.url(&format!("/v1/templates/{tmpl_id}")))
                .bearer_auth(key)
                .header("content-type", "text/plain")
                .body("name=x"),
        )
        .await;
    expect(&r, 415, "unsupported_media_type");
    d.check("PATCH", "/v1/templates/{id}", &r);
    // 422: a data field left empty, with its key in `missing_keys`; an idempotency key reused.
    let r = s
        .post(
            key,
            "/v1/envelopes",
            json!({"template": tmpl_id,
                   "signers": {"Client": {"name": "Ada", "email": "ada@example.com"},
                               "Provider": {"name": "Bob", "email": "bob@example.com"}}}),
        )
        .await;
    expect(&r, 422, "missing_data");
    assert_eq!(
        d.check("POST", "/v1/envelopes", &r)["missing_keys"],
        json!(["start_date"])
    );
    let with_key = |body: Value| {
        s.client
            .post(s.url("/v1/webhook_endpoints"))
            .bearer_auth(key)
            .header("idempotency-key", "openapi-test-1")
            .json(&body)
    };
    let first = s
        .send(with_key(json!({"url": "https://example.com/a"})))
        .await;
    d.check("POST", "/v1/webhook_endpoints", &first);
    let replay = s
        .send(with_key(json!({"url": "https://example.com/a"})))
        .await;
    assert_eq!(
        replay.header("idempotent-replayed").as_deref(),
        Some("true")
    );
    d.check("POST", "/v1/webhook_endpoints", &replay);
    let r = s
        .send(with_key(json!({"url": "https://example.com/b"})))
        .await;
    expect(&r, 422, "idempotency_key_reused");
    d.check("POST", "/v1/webhook_endpoints", &r);
}
