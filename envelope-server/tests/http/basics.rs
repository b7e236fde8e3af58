//! Authentication, common headers, routes, methods, account and balance, isolation.

use serde_json::json;

use crate::common::TestServer;

#[tokio::test]
async fn account_and_balance() {
    let s = TestServer::start().await;
    let r = s.get(&s.test_key, "/v1/account").await;
    let a = r.ok(200);
    assert_eq!(a["object"], "account");
    assert_eq!(a["id"], s.account.as_str());
    assert_eq!(a["livemode"], false);
    assert_eq!(a["key"]["mode"], "test");
    assert_eq!(a["key"]["prefix"], &s.test_key[..12]);
    // No sealer given: the builder's ephemeral development identities, one per mode.
    let test_cert = &a["signing_certificate"];
    assert_eq!(test_cert["development"], true, "{a}");
    let live = s.get(&s.live_key, "/v1/account").await.ok(200);
    let live_cert = &live["signing_certificate"];
    assert_eq!(live_cert["development"], true, "{live}");
    assert_ne!(
        test_cert["sha256_fingerprint"], live_cert["sha256_fingerprint"],
        "test mode has an identity of its own"
    );
    assert!(
        !r.body
            .windows(20)
            .any(|w| w == &s.test_key.as_bytes()[..20]),
        "the key itself is never echoed"
    );

    let b = s.get(&s.live_key, "/v1/balance").await.ok(200);
    assert_eq!(b["object"], "balance");
    assert_eq!(b["livemode"], true);
    assert_eq!(b["allowance"], 100);
    assert_eq!(b["remaining"], 100);
    assert_eq!(b["used"], 0);
    assert!(b["purchase_url"].is_string() && b["period_start"].is_string());
}

#[tokio::test]
async fn every_response_has_the_common_headers() {
    let s = TestServer::start().await;
    let responses = [
        s.get(&s.test_key, "/v1/account").await,
        s.get(&s.live_key, "/v1/account").await,
        s.get("sk_test_nope", "/v1/account").await,
        s.get(&s.test_key, "/v1/nowhere").await,
        s.get(&s.test_key, "/nowhere").await,
        s.get(&s.test_key, "/files/abc").await,
        s.delete(&s.test_key, "/v1/account").await,
    ];
    let mut ids = std::collections::HashSet::new();
    for r in &responses {
        let id = r.header("service-request-id").expect("request id");
        assert!(id.starts_with("req_") && id.len() > 12, "{id}");
        assert!(ids.insert(id), "request IDs are unique");
        let mode = r.header("service-mode").unwrap();
        assert!(mode == "test" || mode == "live");
        for h in ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"] {
            let v: u64 = r
                .header(h)
                .unwrap_or_else(|| panic!("{h}"))
                .parse()
                .unwrap();
            assert!(h != "ratelimit-reset" || (1..=60).contains(&v));
        }
        assert_eq!(r.header("idempotent-replayed").as_deref(), Some("false"));
        assert!(
            r.header("content-type")
                .unwrap()
                .starts_with("application/json")
        );
    }
    assert_eq!(responses[0].header("service-mode").as_deref(), Some("test"));
    assert_eq!(responses[1].header("service-mode").as_deref(), Some("live"));
    assert_eq!(
        responses[0].header("ratelimit-limit").as_deref(),
        Some("600")
    );
}

#[tokio::test]
async fn bad_keys_are_401() {
    let s = TestServer::start().await;
    let no_key = s.send(s.client.get(s.url("/v1/account"))).await;
    no_key.error(401, "invalid_api_key");
    assert_eq!(no_key.json()["type"], "authentication_error");
    assert_eq!(no_key.header("service-mode").as_deref(), Some("test"));

    for key in [
        "sk_test_unknownunknownunknownunknown",
        "garbage",
        "sk_test_ bad",
        "",
    ] {
        s.get(key, "/v1/envelopes")
            .await
            .error(401, "invalid_api_key");
    }
    // A live-looking key that is unknown still reports live mode.
    let r = s
        .get("sk_live_unknownunknownunknownunknown", "/v1/account")
        .await;
    r.error(401, "invalid_api_key");
    assert_eq!(r.header("service-mode").as_deref(), Some("live"));

    // Basic auth or another scheme is not a bearer key.
    let r = s
        .send(
            s.client
                .get(s.url("/v1/account"))
                .basic_auth(&s.test_key, None::<&str>),
        )
        .await;
    r.error(401, "invalid_api_key");

    // A revoked key stops working at once.
    let keys = s.svc.admin().list_keys(&s.account).await.unwrap();
    let test_key = keys
        .iter()
        .find(|k| k.mode == envelope_core::Mode::Test)
        .unwrap();
    s.svc
        .admin()
        .revoke_key(&s.account, &test_key.id)
        .await
        .unwrap();
    s.get(&s.test_key, "/v1/account")
        .await
        .error(401, "invalid_api_key");
}

#[tokio::test]
async fn unknown_routes_and_wrong_methods() {
    let s = TestServer::start().await;
    for path in [
        "/v1/nothing",
        "/v1",
        "/v1/",
        "/v1/envelopes/",
        "/v1/envelopes/env_1/sign",
        "/v2/envelopes",
        "/",
    ] {
        let r = s.get(&s.test_key, path).await;
        let b = r.error(404, "route_not_found");
        assert_eq!(b["type"], "invalid_request_error", "{path}");
    }
    let r = s.delete(&s.test_key, "/v1/envelopes").await;
    r.error(405, "method_not_allowed");
    assert_eq!(r.header("allow").as_deref(), Some("GET, POST"));
    let r = s
        .send(
            s.client
                .put(s.url("/v1/templates/tmpl_1"))
                .bearer_auth(&s.test_key),
        )
        .await;
    r.error(405, "method_not_allowed");
    assert_eq!(r.header("allow").as_deref(), Some("GET, PATCH, DELETE"));
    let r = s.post_empty(&s.test_key, "/v1/account").await;
    assert_eq!(r.header("allow").as_deref(), Some("GET"));
    let r = s.get(&s.test_key, "/v1/envelopes/env_1/send").await;
    r.error(405, "method_not_allowed");
    assert_eq!(r.header("allow").as_deref(), Some("POST"));
    let r = s.post_empty(&s.test_key, "/files/abc").await;
    r.error(405, "method_not_allowed");
}

#[tokio::test]
async fn unknown_ids_are_404_resource_missing() {
    let s = TestServer::start().await;
    for path in [
        "/v1/envelopes/env_nope",
        "/v1/templates/tmpl_nope",
        "/v1/webhook_endpoints/we_nope",
        "/v1/events/evt_nope",
        "/v1/envelopes/env_nope/files/original",
        "/v1/templates/tmpl_nope/file",
    ] {
        let b = s
            .get(&s.test_key, path)
            .await
            .error(404, "resource_missing");
        assert_eq!(b["type"], "invalid_request_error");
    }
    for path in [
        "/v1/envelopes/env_nope/send",
        "/v1/envelopes/env_nope/void",
        "/v1/envelopes/env_nope/remind",
        "/v1/envelopes/env_nope/signing_url",
        "/v1/test_helpers/envelopes/env_nope/complete",
    ] {
        s.post_empty(&s.test_key, path)
            .await
            .error(404, "resource_missing");
    }
    s.delete(&s.test_key, "/v1/templates/tmpl_nope")
        .await
        .error(404, "resource_missing");
    s.patch(
        &s.test_key,
        "/v1/webhook_endpoints/we_nope",
        json!({"description": "x"}),
    )
    .await
    .error(404, "resource_missing");
}

/// An ID of the wrong kind, the wrong shape or a hostile length is refused by its type before
/// any store read, with the same answer as an unknown ID; the message echoes at most 80
/// characters of it.
#[tokio::test]
async fn ids_that_cannot_name_anything_are_404_like_unknown_ones() {
    let s = TestServer::start().await;
    let long = format!("env_{}", "a".repeat(2000));
    for (path, message) in [
        (
            "/v1/envelopes/tmpl_abc".to_string(),
            "No such envelope: 'tmpl_abc'".to_string(),
        ),
        (
            "/v1/templates/env_abc".to_string(),
            "No such template: 'env_abc'".to_string(),
        ),
        (
            "/v1/events/evt_a%2Fb".to_string(),
            "No such event: 'evt_a%2Fb'".to_string(),
        ),
        (
            format!("/v1/envelopes/{long}"),
            format!("No such envelope: '{}'", &long[..80]),
        ),
    ] {
        let b = s
            .get(&s.test_key, &path)
            .await
            .error(404, "resource_missing");
        assert_eq!(b["message"], message, "{path}");
    }
    s.post_empty(&s.test_key, &format!("/v1/envelopes/{long}/send"))
        .await
        .error(404, "resource_missing");
}

#[tokio::test]
async fn accounts_and_modes_are_isolated() {
    let s = TestServer::start().await;
    let other = s.svc.admin().create_account("Other").await.unwrap();
    let ep = s.endpoint(&s.test_key, "https://example.com/hook").await;
    let id = ep["id"].as_str().unwrap();
    let path = format!("/v1/webhook_endpoints/{id}");
    s.get(&s.test_key, &path).await.ok(200);
    // Same account, other mode; other account, same mode: as if it did not exist.
    s.get(&s.live_key, &path)
        .await
        .error(404, "resource_missing");
    s.get(&other.test_key.secret, &path)
        .await
        .error(404, "resource_missing");
    s.delete(&other.test_key.secret, &path)
        .await
        .error(404, "resource_missing");
    let listed = s
        .get(&other.test_key.secret, "/v1/webhook_endpoints")
        .await
        .ok(200);
    assert_eq!(listed["data"], json!([]));
    let listed = s.get(&s.live_key, "/v1/webhook_endpoints").await.ok(200);
    assert_eq!(listed["data"], json!([]));
    s.get(&s.test_key, &path).await.ok(200);
}

#[tokio::test]
async fn download_links_need_a_valid_token() {
    let s = TestServer::start().await;
    for token in ["abc", "x".repeat(200).as_str(), "%00"] {
        let r = s
            .send(s.client.get(s.url(&format!("/files/{token}"))))
            .await;
        r.error(404, "resource_missing");
    }
    let r = s.send(s.client.get(s.url("/files/a/b"))).await;
    r.error(404, "route_not_found");
}

#[tokio::test]
async fn shutdown_returns_from_run() {
    let s = TestServer::start().await;
    s.get(&s.test_key, "/v1/account").await.ok(200);
    let base = s.base.clone();
    tokio::time::timeout(std::time::Duration::from_secs(10), s.shutdown())
        .await
        .expect("run returns after the shutdown signal")
        .unwrap();
    let after = reqwest::Client::new()
        .get(format!("{base}/v1/account"))
        .send()
        .await;
    assert!(after.is_err(), "the listener is closed");
}
