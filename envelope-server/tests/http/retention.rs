//! Retention and storage quotas over HTTP: a create past the account's storage quota answers
//! `403 storage_quota_exceeded` and writes nothing (JSON and multipart, envelopes and
//! templates); after live retention a finished envelope still reads, and its downloads answer
//! `410 file_deleted` (API download links and the signer's document page), and what signers
//! left (values, decline reasons, addresses, browsers) is gone from it and its events.

use std::sync::Arc;

use chrono::Duration;
use envelope_core::model::SignerValue;
use envelope_core::service::{ClientInfo, Retention, SignInput};
use envelope_core::{ManualClock, Settings, Timestamp};
use reqwest::multipart::{Form, Part};
use serde_json::json;

use crate::common::pdf::client_contract;
use crate::common::{Options, TestServer, client_signer, envelope_body};

#[tokio::test]
async fn creates_past_the_storage_quota_answer_403_and_write_nothing() {
    let s = TestServer::start().await;
    let pdf = client_contract();
    let size = pdf.len() as u64;
    // Room for one PDF and a half.
    s.svc
        .admin()
        .set_storage_quota(&s.account, Some(size + size / 2))
        .await
        .unwrap();
    let first = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            envelope_body(&pdf, client_signer()),
        )
        .await
        .ok(201);

    let refused = s
        .post(
            &s.live_key,
            "/v1/envelopes",
            envelope_body(&pdf, client_signer()),
        )
        .await;
    let b = refused.error(403, "storage_quota_exceeded");
    assert_eq!(b["type"], "invalid_request_error");
    assert_eq!(b["param"], serde_json::Value::Null);
    let message = b["message"].as_str().unwrap();
    assert!(
        message.contains("storage quota") && message.contains("MiB"),
        "{message}"
    );

    let form = Form::new().text("name", "Agreement").part(
        "file",
        Part::bytes(pdf.clone())
            .file_name("agreement.pdf")
            .mime_str("application/pdf")
            .unwrap(),
    );
    let refused = s
        .send(
            s.client
                .post(s.url("/v1/templates"))
                .bearer_auth(&s.test_key)
                .multipart(form),
        )
        .await;
    refused.error(403, "storage_quota_exceeded");

    // Nothing was created, and what exists is untouched.
    for key in [&s.test_key, &s.live_key] {
        let envelopes = s.get(key, "/v1/envelopes").await.ok(200);
        let templates = s.get(key, "/v1/templates").await.ok(200);
        let expected = if key == &s.test_key { 1 } else { 0 };
        assert_eq!(envelopes["data"].as_array().unwrap().len(), expected);
        assert!(templates["data"].as_array().unwrap().is_empty());
    }
    assert_eq!(
        s.svc.admin().storage_used(&s.account).await.unwrap(),
        size,
        "no blob counted for the refused creates"
    );
    s.get(
        &s.test_key,
        &format!("/v1/envelopes/{}", first["id"].as_str().unwrap()),
    )
    .await
    .ok(200);

    // A larger quota: the same request goes through.
    s.svc
        .admin()
        .set_storage_quota(&s.account, Some(2 * size))
        .await
        .unwrap();
    s.post(
        &s.live_key,
        "/v1/envelopes",
        envelope_body(&pdf, client_signer()),
    )
    .await
    .ok(201);
}

#[tokio::test]
async fn downloads_of_a_live_envelope_after_live_retention_answer_410() {
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-01-15T08:00:00.000Z").unwrap(),
    ));
    let s = TestServer::start_with(Options {
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
    let mut body = envelope_body(&client_contract(), client_signer());
    body["delivery"] = json!("embedded");
    let env = s.post(&s.live_key, "/v1/envelopes", body).await.ok(201);
    let id = env["id"].as_str().unwrap().to_string();
    let link = s
        .post(
            &s.live_key,
            &format!("/v1/envelopes/{id}/signing_url"),
            json!({"signer": "Client"}),
        )
        .await
        .ok(200);
    let url = link["url"].as_str().unwrap();
    let token = url.rsplit('/').next().unwrap();
    let mut input = SignInput {
        consent: true,
        ..SignInput::default()
    };
    input.values.insert(
        "Client_signature".into(),
        SignerValue::Typed("Ada Lovelace".into()),
    );
    s.svc
        .sign(token, None, input, &ClientInfo::default())
        .await
        .unwrap();
    let signed = s
        .get(&s.live_key, &format!("/v1/envelopes/{id}/files/signed"))
        .await
        .ok(200);
    let document = format!("/sign/{token}/document");
    assert_eq!(s.send(s.client.get(s.url(&document))).await.status, 200);

    clock.advance(Duration::days(7) + Duration::seconds(1));
    let report = s.svc.retention_sweep().await.unwrap();
    assert_eq!(report.live_envelopes, 1);

    let env = s
        .get(&s.live_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(env["status"], "completed");
    assert_eq!(env["files"], json!({"signed": false, "audit_trail": false}));
    assert!(env["files_deleted_at"].is_string(), "{env}");
    for kind in ["original", "signed", "audit_trail"] {
        let r = s
            .get(&s.live_key, &format!("/v1/envelopes/{id}/files/{kind}"))
            .await;
        let b = r.error(410, "file_deleted");
        assert!(b["message"].as_str().unwrap().contains("retention"), "{b}");
    }
    // The link made before answers like any gone link.
    let old = s.send(s.client.get(signed["url"].as_str().unwrap())).await;
    old.error(404, "resource_missing");
    // The signer's page of the document says what happened.
    let page = s.send(s.client.get(s.url(&document))).await;
    assert_eq!(page.status, 410);
    let html = String::from_utf8(page.body.to_vec()).unwrap();
    assert!(html.contains("Document deleted"), "{html}");
    // Events still list the envelope.
    let events = s.get(&s.live_key, "/v1/events?limit=100").await.ok(200);
    assert!(
        events["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "envelope.completed")
    );
}

/// Live retention clears what a signer left in the record, and the API shows it: a declined
/// envelope's decline reason (also in `void_reason` and in the events' snapshots) and a
/// signed one's values, address and browser are gone, while both still read with their
/// parties, statuses and times, and their downloads answer `410 file_deleted`.
#[tokio::test]
async fn live_retention_clears_what_signers_left_and_the_api_still_reads() {
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-01-15T08:00:00.000Z").unwrap(),
    ));
    let s = TestServer::start_with(Options {
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
    let marker = format!("Marker{}", envelope_core::ids::random_base62(12));
    let client = ClientInfo {
        ip_address: Some("198.51.100.23".into()),
        user_agent: Some(format!("Browser/{marker}")),
    };
    let mut ids = Vec::new();
    for declines in [false, true] {
        let mut body = envelope_body(&client_contract(), client_signer());
        body["delivery"] = json!("embedded");
        let env = s.post(&s.live_key, "/v1/envelopes", body).await.ok(201);
        let id = env["id"].as_str().unwrap().to_string();
        let link = s
            .post(
                &s.live_key,
                &format!("/v1/envelopes/{id}/signing_url"),
                json!({"signer": "Client"}),
            )
            .await
            .ok(200);
        let token = link["url"]
            .as_str()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap()
            .to_string();
        if declines {
            let reason = format!("no, because {marker}");
            s.svc
                .decline(&token, None, Some(&reason), &client)
                .await
                .unwrap();
        } else {
            let mut input = SignInput {
                consent: true,
                ..SignInput::default()
            };
            input.values.insert(
                "Client_signature".into(),
                SignerValue::Typed(format!("Ada {marker}")),
            );
            s.svc.sign(&token, None, input, &client).await.unwrap();
        }
        ids.push(id);
    }
    let declined = s
        .get(&s.live_key, &format!("/v1/envelopes/{}", ids[1]))
        .await
        .ok(200);
    assert!(declined.to_string().contains(&marker), "{declined}");
    let events = s.get(&s.live_key, "/v1/events?limit=100").await.ok(200);
    assert!(events.to_string().contains(&marker));

    clock.advance(Duration::days(7) + Duration::seconds(1));
    let report = s.svc.retention_sweep().await.unwrap();
    assert_eq!(report.live_envelopes, 2);

    for id in &ids {
        let env = s
            .get(&s.live_key, &format!("/v1/envelopes/{id}"))
            .await
            .ok(200);
        assert!(!env.to_string().contains(&marker), "{env}");
        let signer = &env["signers"][0];
        assert_eq!(signer["name"], "Ada Lovelace");
        assert!(signer["signed_at"].is_string() || signer["declined_at"].is_string());
        assert!(signer["decline_reason"].is_null());
        s.get(&s.live_key, &format!("/v1/envelopes/{id}/files/original"))
            .await
            .error(410, "file_deleted");
    }
    let env = s
        .get(&s.live_key, &format!("/v1/envelopes/{}", ids[1]))
        .await
        .ok(200);
    assert_eq!(env["status"], "voided");
    assert_eq!(env["void_reason"], "declined by Client");
    let events = s.get(&s.live_key, "/v1/events?limit=100").await.ok(200);
    assert!(events["data"].as_array().unwrap().len() >= 6);
    assert!(!events.to_string().contains(&marker), "{events}");
}
