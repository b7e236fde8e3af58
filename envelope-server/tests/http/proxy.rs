//! Trusted proxies (`--trusted-proxies`, `--client-ip-header`): the client's address comes from
//! the one configured header, and only when the connection comes from a trusted proxy; that
//! address is what the audit trail records and what keyless rate limits count. Any other
//! forwarding header a client sends (`Forwarded` above all, which nginx and Caddy pass through)
//! reaches neither.

use serde_json::json;

use envelope_core::Settings;
use envelope_server::{ClientIpHeader, TrustedProxies};

use crate::common::signing::{form_token, html, link, signing_envelope};
use crate::common::{Options, TestServer};

/// What the nearest proxy says: the client is 203.0.113.7.
const XFF: &[(&str, &str)] = &[("x-forwarded-for", "203.0.113.7")];

/// Signs as the Client through the signing page with `XFF`.
async fn sign_through_proxy_and_read_the_trail(s: &TestServer) -> String {
    sign_with_headers_and_read_the_trail(s, XFF).await
}

/// Signs as the Client through the signing page, every request carrying `headers`, completes
/// the envelope and returns the audit trail's text.
async fn sign_with_headers_and_read_the_trail(s: &TestServer, headers: &[(&str, &str)]) -> String {
    let with = |mut req: reqwest::RequestBuilder| {
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        req
    };
    let env = signing_envelope(s, json!({})).await;
    let id = env["id"].as_str().unwrap();
    let path = link(s, id, "Client").await;
    let page = s.send(with(s.client.get(s.url(&path)))).await;
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
        .send(with(
            s.client
                .post(s.url(&path))
                .header("content-type", "application/x-www-form-urlencoded")
                .header("origin", &s.base)
                .body(form),
        ))
        .await;
    assert_eq!(r.status, 200, "{}", html(&r));
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200);
    // One space between words: the trail's table wraps long cells.
    crate::reach::audit_text(s, id).await
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

/// A proxy that reads `header`, trusted on loopback.
fn behind_proxy_reading(header: &str) -> Options {
    Options {
        trusted_proxies: Some(
            TrustedProxies::parse("127.0.0.1")
                .unwrap()
                .reading(ClientIpHeader::parse(header).unwrap()),
        ),
        ..Options::default()
    }
}

/// The signer adds a `Forwarded` of their own (nginx and Caddy pass it through) and an
/// `X-Real-IP`: neither is read, only the `X-Forwarded-For` the proxy appended to.
#[tokio::test]
async fn a_spoofed_forwarded_header_never_reaches_the_audit_trail() {
    let s = TestServer::start_with(behind_proxy_reading("x-forwarded-for")).await;
    let trail = sign_with_headers_and_read_the_trail(
        &s,
        &[
            ("forwarded", "for=198.51.100.66;proto=https"),
            ("x-real-ip", "198.51.100.67"),
            // The client's own leftmost entry, then the address nginx appended.
            ("x-forwarded-for", "198.51.100.68, 203.0.113.7"),
        ],
    )
    .await;
    assert!(
        trail.contains("IP 203.0.113.7, user agent unknown"),
        "{trail}"
    );
    for spoofed in ["198.51.100.66", "198.51.100.67", "198.51.100.68"] {
        assert!(!trail.contains(spoofed), "{spoofed} in {trail}");
    }
}

/// With `--client-ip-header x-real-ip` (nginx: `proxy_set_header X-Real-IP $remote_addr`),
/// that header names the client, and `X-Forwarded-For` and `Forwarded` are ignored.
#[tokio::test]
async fn the_configured_header_is_the_only_one_read() {
    let s = TestServer::start_with(behind_proxy_reading("X-Real-IP")).await;
    let trail = sign_with_headers_and_read_the_trail(
        &s,
        &[
            ("forwarded", "for=198.51.100.66"),
            ("x-forwarded-for", "198.51.100.68"),
            ("x-real-ip", "203.0.113.9"),
        ],
    )
    .await;
    assert!(
        trail.contains("IP 203.0.113.9, user agent unknown"),
        "{trail}"
    );
    assert!(!trail.contains("198.51.100."), "{trail}");
}

/// A client that writes a new `Forwarded` (or, when `Forwarded` is the header read, a new
/// `X-Forwarded-For`) on every guess still spends its own allowance, and cannot spend another's.
#[tokio::test]
async fn a_spoofed_header_neither_dodges_nor_spends_a_rate_limit() {
    for (read, real, spoofed) in [
        ("x-forwarded-for", "x-forwarded-for", "forwarded"),
        ("forwarded", "forwarded", "x-forwarded-for"),
    ] {
        let s = TestServer::start_with(Options {
            settings: Some(Settings {
                rate_limit_per_minute: 2,
                ..Settings::default()
            }),
            ..behind_proxy_reading(read)
        })
        .await;
        let as_client = |client: &str| {
            if real == "forwarded" {
                format!("for={client}")
            } else {
                client.to_string()
            }
        };
        let spoof = |n: u32| {
            let v = format!("198.51.100.{n}");
            if spoofed == "forwarded" {
                format!("for={v}")
            } else {
                v
            }
        };
        let guess = |n: u32| {
            s.client
                .get(s.url("/v1/account"))
                .bearer_auth("sk_test_guess")
                .header(real, as_client("203.0.113.1"))
                .header(spoofed, spoof(n))
        };
        s.send(guess(1)).await.error(401, "invalid_api_key");
        s.send(guess(2)).await.error(401, "invalid_api_key");
        // A new spoofed address buys no new allowance: the limit is 203.0.113.1's.
        s.send(guess(3)).await.error(429, "rate_limited");
        // The victim named in the spoofed header still has all of its own.
        let victim = || {
            s.client
                .get(s.url("/v1/account"))
                .bearer_auth("sk_test_guess")
                .header(real, as_client("198.51.100.3"))
        };
        s.send(victim()).await.error(401, "invalid_api_key");
        s.send(victim()).await.error(401, "invalid_api_key");
    }
}
