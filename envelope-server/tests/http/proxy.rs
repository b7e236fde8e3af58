//! Trusted proxies (`--trusted-proxies`): the client's address comes from `X-Forwarded-For` or
//! `Forwarded` only when the connection comes from a trusted proxy, and that address is what the
//! audit trail records and what keyless rate limits count.

use serde_json::json;

use envelope_core::Settings;
use envelope_server::TrustedProxies;

use crate::common::signing::{form_token, html, link, signing_envelope};
use crate::common::{Options, TestServer};

/// Signs as the Client through the signing page, every request carrying
/// `X-Forwarded-For: 203.0.113.7`, completes the envelope and returns the audit trail's text.
async fn sign_through_proxy_and_read_the_trail(s: &TestServer) -> String {
    const XFF: (&str, &str) = ("x-forwarded-for", "203.0.113.7");
    let env = signing_envelope(s, json!({})).await;
    let id = env["id"].as_str().unwrap();
    let path = link(s, id, "Client").await;
    let page = s
        .send(s.client.get(s.url(&path)).header(XFF.0, XFF.1))
        .await;
    let csrf = form_token(&html(&page), "sign-form");
    let form: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("csrf", csrf.as_str()),
            ("text:company", "Acme"),
            ("check:terms", "on"),
            ("mode:Client_signature", "type"),
            ("typed:Client_signature", "Ada Lovelace"),
            ("mode:Client_initials", "type"),
            ("typed:Client_initials", "AL"),
            ("consent", "yes"),
        ])
        .finish();
    let r = s
        .send(
            s.client
                .post(s.url(&path))
                .header("content-type", "application/x-www-form-urlencoded")
                .header("origin", &s.base)
                .header(XFF.0, XFF.1)
                .body(form),
        )
        .await;
    assert_eq!(r.status, 200, "{}", html(&r));
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200);
    let file = s
        .get(
            &s.test_key,
            &format!("/v1/envelopes/{id}/files/audit_trail"),
        )
        .await
        .ok(200);
    let pdf = s
        .client
        .get(file["url"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path().join("audit.pdf");
    std::fs::write(&at, &pdf).unwrap();
    let out = std::process::Command::new("pdftotext")
        .arg(&at)
        .arg("-")
        .output()
        .expect("pdftotext (scripts/install-test-deps.sh installs it)");
    assert!(out.status.success(), "pdftotext failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test]
async fn through_a_trusted_proxy_the_forwarded_client_reaches_the_audit_trail() {
    let s = TestServer::start_with(Options {
        trusted_proxies: Some(TrustedProxies::parse("127.0.0.1").unwrap()),
        ..Options::default()
    })
    .await;
    let trail = sign_through_proxy_and_read_the_trail(&s).await;
    // The Client signed through the proxy (reqwest sends no user agent). The test helper signs
    // for the Provider under its own fixed address, which is not the Client's.
    assert!(
        trail.contains("IP 203.0.113.7, user agent unknown"),
        "{trail}"
    );
    assert!(
        !trail.contains("IP 127.0.0.1, user agent unknown"),
        "{trail}"
    );
}

#[tokio::test]
async fn without_trusted_proxies_the_header_is_ignored() {
    let s = TestServer::start().await;
    let trail = sign_through_proxy_and_read_the_trail(&s).await;
    assert!(
        trail.contains("IP 127.0.0.1, user agent unknown"),
        "{trail}"
    );
    assert!(!trail.contains("203.0.113.7"), "{trail}");
}

#[tokio::test]
async fn keyless_requests_are_limited_per_forwarded_client_not_per_proxy() {
    let s = TestServer::start_with(Options {
        settings: Some(Settings {
            rate_limit_per_minute: 2,
            ..Settings::default()
        }),
        trusted_proxies: Some(TrustedProxies::parse("127.0.0.0/8").unwrap()),
        ..Options::default()
    })
    .await;
    let guess = |client: &'static str| {
        s.client
            .get(s.url("/v1/account"))
            .bearer_auth("sk_test_guess")
            .header("x-forwarded-for", client)
    };
    s.send(guess("203.0.113.1"))
        .await
        .error(401, "invalid_api_key");
    s.send(guess("203.0.113.1"))
        .await
        .error(401, "invalid_api_key");
    s.send(guess("203.0.113.1"))
        .await
        .error(429, "rate_limited");
    // Another client behind the same proxy has its own allowance.
    s.send(guess("203.0.113.2"))
        .await
        .error(401, "invalid_api_key");
    // A forged leftmost entry does not buy a new allowance: the proxy appended the real one.
    s.send(guess("198.51.100.9, 203.0.113.1"))
        .await
        .error(429, "rate_limited");
}
