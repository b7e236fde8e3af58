//! Bounded work and memory per request: the PDF pool (503 busy), JSON bodies read into bounded
//! values, signing-page posts read only behind a working link and capped.

use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use envelope_core::Settings;
use envelope_core::service::PdfPoolSettings;

use crate::common::pdf::client_contract;
use crate::common::signing::{link, post_form, signing_envelope};
use crate::common::{Options, TestServer, client_signer, envelope_body};

async fn one_slot_server() -> TestServer {
    TestServer::start_with(Options {
        settings: Some(Settings {
            pdf_pool: PdfPoolSettings {
                capacity: 1,
                queue_wait: Duration::from_millis(100),
                completion_wait: Duration::from_secs(60),
            },
            ..Settings::default()
        }),
        ..Options::default()
    })
    .await
}

#[tokio::test]
async fn past_the_pools_capacity_an_upload_is_503_with_retry_after_then_works() {
    let s = one_slot_server().await;
    let body = envelope_body(&client_contract(), client_signer());
    // Another document holds the only slot.
    let held = s.svc.pdf_slot().await.unwrap();
    let r = s.post(&s.test_key, "/v1/envelopes", body.clone()).await;
    let b = r.error(503, "service_busy");
    assert_eq!(b["type"], "api_error");
    assert!(
        b["message"]
            .as_str()
            .unwrap()
            .contains("nothing was changed")
    );
    assert_eq!(r.header("retry-after").as_deref(), Some("1"));
    let list = s.get(&s.test_key, "/v1/envelopes").await.ok(200);
    assert_eq!(list["data"].as_array().unwrap().len(), 0, "nothing created");

    // With an idempotency key the busy answer is not stored: the retry runs.
    let post = || {
        s.client
            .post(s.url("/v1/envelopes"))
            .bearer_auth(&s.test_key)
            .header("idempotency-key", "busy-1")
            .json(&body)
    };
    s.send(post()).await.error(503, "service_busy");
    drop(held);
    let created = s.send(post()).await.ok(201);
    assert_eq!(created["status"], "sent");
    s.post(&s.test_key, "/v1/envelopes", body).await.ok(201);
}

#[tokio::test]
async fn a_completion_waits_for_a_slot_instead_of_failing() {
    let s = one_slot_server().await;
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            envelope_body(&client_contract(), client_signer()),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap().to_string();
    let held = s.svc.pdf_slot().await.unwrap();
    let complete = {
        let (client, url, key) = (
            s.client.clone(),
            s.url(&format!("/v1/test_helpers/envelopes/{id}/complete")),
            s.test_key.clone(),
        );
        tokio::spawn(async move { client.post(url).bearer_auth(key).send().await })
    };
    // Well past a request's wait, the completion is still in line, not refused.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!complete.is_finished());
    let got = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(got["status"], "sent", "nothing half-written meanwhile");
    drop(held);
    let r = complete.await.unwrap().unwrap();
    assert_eq!(r.status(), 200);
    let got = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(got["status"], "completed");
}

#[tokio::test]
async fn a_huge_json_array_is_refused_by_its_limit_not_built() {
    let s = TestServer::start().await;
    // 35 MB of zeros inside an upload-sized body: refused at the 100 001st value.
    let zeros = format!(
        "{{\"signers\":[{}0]}}",
        "0,".repeat(35 * 1024 * 1024 / 2 - 64)
    );
    assert!(zeros.len() > 35_000_000);
    let r = s
        .send(
            s.client
                .post(s.url("/v1/envelopes"))
                .bearer_auth(&s.test_key)
                .header("content-type", "application/json")
                .body(zeros),
        )
        .await;
    let b = r.error(400, "invalid_body");
    assert!(
        b["message"]
            .as_str()
            .unwrap()
            .contains("more than 100000 values"),
        "{b}"
    );
    // A top-level array is refused at its first byte; deep nesting by its depth.
    let r = s
        .send(
            s.client
                .post(s.url("/v1/envelopes"))
                .bearer_auth(&s.test_key)
                .header("content-type", "application/json")
                .body(format!("[{}0]", "0,".repeat(1_000_000))),
        )
        .await;
    r.error(400, "invalid_body");
    let deep = format!("{{\"metadata\":{}{}}}", "[".repeat(100), "]".repeat(100));
    let r = s
        .send(
            s.client
                .post(s.url("/v1/webhook_endpoints"))
                .bearer_auth(&s.test_key)
                .header("content-type", "application/json")
                .body(deep),
        )
        .await;
    let b = r.error(400, "invalid_body");
    assert!(b["message"].as_str().unwrap().contains("32 levels"), "{b}");
}

#[tokio::test]
async fn base64_uploads_with_escapes_and_line_breaks_still_decode() {
    let s = TestServer::start().await;
    let pdf = client_contract();
    let b64 = crate::common::b64(&pdf);
    // Some encoders escape every `/`; some wrap base64 at 76 characters.
    let escaped = b64.replace('/', "\\/");
    let wrapped: Vec<String> = b64
        .as_bytes()
        .chunks(76)
        .map(|c| String::from_utf8(c.to_vec()).unwrap())
        .collect();
    for text in [escaped, wrapped.join("\\r\\n")] {
        let body = format!(
            r#"{{"file_name":"c.pdf","signers":[{{"name":"Ada","email":"ada@example.com","role":"Client"}}],"file_base64":"{text}"}}"#
        );
        let env = s
            .send(
                s.client
                    .post(s.url("/v1/envelopes"))
                    .bearer_auth(&s.test_key)
                    .header("content-type", "application/json")
                    .body(body),
            )
            .await
            .ok(201);
        let id = env["id"].as_str().unwrap();
        let link = s
            .get(&s.test_key, &format!("/v1/envelopes/{id}/files/original"))
            .await
            .ok(200);
        let bytes = s
            .send(s.client.get(link["url"].as_str().unwrap()))
            .await
            .body;
        assert_eq!(&bytes[..], &pdf[..]);
    }
}

/// Sends a request head announcing `length` bytes of form, and nothing of the body; returns
/// the status line of the answer.
async fn post_head_only(s: &TestServer, path: &str, length: usize) -> String {
    let addr = s.base.trim_start_matches("http://");
    let mut c = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nOrigin: {}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {length}\r\n\r\n",
        s.base
    );
    c.write_all(head.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 1024];
    let n = tokio::time::timeout(Duration::from_secs(30), c.read(&mut buf))
        .await
        .expect("the server answers without waiting for the body")
        .unwrap();
    String::from_utf8_lossy(&buf[..n])
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

#[tokio::test]
async fn a_signing_post_is_read_only_behind_a_working_link_and_capped() {
    let s = TestServer::start().await;
    // An unknown link answers at once, its body never read.
    let status = post_head_only(
        &s,
        "/sign/Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg",
        1_000_000,
    )
    .await;
    assert!(status.contains(" 404 "), "{status}");

    let env = signing_envelope(&s, json!({})).await;
    let id = env["id"].as_str().unwrap();
    let path = link(&s, id, "Client").await;
    // Larger than this signer's form can be (two marks): refused from its declared length.
    let status = post_head_only(&s, &path, 7 * 1024 * 1024).await;
    assert!(status.contains(" 413 "), "{status}");
    // The decline form holds a reason, not drawings.
    let status = post_head_only(&s, &format!("{path}/decline"), 200_000).await;
    assert!(status.contains(" 413 "), "{status}");

    // A link that cannot act any more shows its page and reads nothing.
    s.post(&s.test_key, &format!("/v1/envelopes/{id}/void"), json!({}))
        .await
        .ok(200);
    let status = post_head_only(&s, &path, 1_000_000).await;
    assert!(status.contains(" 200 "), "{status}");
    let r = post_form(&s, &path, &[("csrf", "x")], Some(&s.base)).await;
    assert!(
        String::from_utf8_lossy(&r.body).contains("This envelope was cancelled"),
        "the voided page"
    );
}

/// A server whose uploads may hold `budget` bytes of spool at once, waiting `wait` for room.
async fn upload_budget_server(budget: usize, wait: Duration) -> TestServer {
    let mut limits = envelope_server::HttpLimits::for_max_file(25 * 1024 * 1024);
    limits.max_upload_spool = budget;
    limits.upload_wait = wait;
    TestServer::start_with(Options {
        limits: Some(limits),
        ..Options::default()
    })
    .await
}

#[tokio::test]
async fn uploads_wait_for_the_spool_budget_then_get_503_and_later_succeed() {
    let s = upload_budget_server(1024 * 1024, Duration::from_millis(300)).await;
    let body = serde_json::to_vec(&envelope_body(&client_contract(), client_signer())).unwrap();
    assert!(body.len() < 1024 * 1024, "the upload fits the budget alone");

    // A slow client declares a body as large as the whole budget and sends half of it: its
    // reservation holds the budget while it trickles.
    let addr = s.base.trim_start_matches("http://").to_string();
    let mut slow = TcpStream::connect(&addr).await.unwrap();
    let declared = 1024 * 1024;
    slow.write_all(
        format!(
            "POST /v1/envelopes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nContent-Length: {declared}\r\n\r\n",
            s.test_key
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    slow.write_all(&vec![b' '; declared / 2]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;

    let post = || {
        s.client
            .post(s.url("/v1/envelopes"))
            .bearer_auth(&s.test_key)
            .header("content-type", "application/json")
            .body(body.clone())
    };
    let r = s.send(post()).await;
    let b = r.error(503, "service_busy");
    assert_eq!(b["type"], "api_error");
    assert_eq!(r.header("retry-after").as_deref(), Some("1"));

    // Small requests take no reservation.
    s.get(&s.test_key, "/v1/envelopes").await.ok(200);

    // The slow client goes away: its reservation is given back and the upload goes through.
    drop(slow);
    let mut answered = None;
    for _ in 0..50 {
        let r = s.send(post()).await;
        if r.status != 503 {
            answered = Some(r);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    answered
        .expect("an answer other than 503 once the budget is free")
        .ok(201);
}
