//! Webhook endpoints: create, get, list, update, delete.

use serde_json::json;

use crate::common::TestServer;

#[tokio::test]
async fn endpoint_lifecycle() {
    let s = TestServer::start().await;
    let r = s
        .post(
            &s.test_key,
            "/v1/webhook_endpoints",
            json!({"url": "https://example.com/hook", "description": "ops", "events": ["envelope.completed"]}),
        )
        .await;
    let ep = r.ok(201);
    assert_eq!(ep["object"], "webhook_endpoint");
    assert!(ep["id"].as_str().unwrap().starts_with("we_"));
    assert!(ep["secret"].as_str().unwrap().starts_with("whsec_"));
    assert_eq!(ep["events"], json!(["envelope.completed"]));
    assert_eq!(ep["status"], "enabled");
    assert_eq!(ep["livemode"], false);
    let id = ep["id"].as_str().unwrap();
    let path = format!("/v1/webhook_endpoints/{id}");

    let got = s.get(&s.test_key, &path).await.ok(200);
    assert!(
        got.get("secret").is_none(),
        "the secret is in the create response only"
    );
    assert_eq!(
        s.svc
            .admin()
            .reveal_webhook_secret(&id.parse().unwrap())
            .await
            .unwrap(),
        ep["secret"].as_str().unwrap()
    );

    let upd = s
        .patch(
            &s.test_key,
            &path,
            json!({"status": "disabled", "events": ["*"]}),
        )
        .await
        .ok(200);
    assert_eq!(upd["status"], "disabled");
    assert_eq!(upd["events"], json!(["*"]));
    s.patch(&s.test_key, &path, json!({"status": "paused"}))
        .await
        .error(400, "parameter_invalid");
    s.patch(&s.test_key, &path, json!({"secret": "x"}))
        .await
        .error(400, "parameter_unknown");

    let default_events = s.endpoint(&s.test_key, "https://example.com/all").await;
    assert_eq!(default_events["events"], json!(["*"]));

    let del = s.delete(&s.test_key, &path).await.ok(200);
    assert_eq!(
        del,
        json!({"id": id, "object": "webhook_endpoint", "deleted": true})
    );
    s.get(&s.test_key, &path)
        .await
        .error(404, "resource_missing");
    s.delete(&s.test_key, &path)
        .await
        .error(404, "resource_missing");
}

#[tokio::test]
async fn non_public_webhook_urls_are_refused_without_the_switch() {
    let s = TestServer::start().await;
    for url in [
        "http://127.0.0.1:9000/hook",
        "https://127.0.0.1/hook",
        "https://localhost/hook",
        "https://[::1]/hook",
        "https://10.0.0.8/hook",
        "https://169.254.169.254/latest/meta-data",
        "http://example.com/hook",
        "ftp://example.com/hook",
    ] {
        let b = s
            .post(&s.test_key, "/v1/webhook_endpoints", json!({ "url": url }))
            .await
            .error(400, "url_invalid");
        assert_eq!(b["param"], "url", "{url}");
    }
    // The same rules hold on update.
    let ep = s.endpoint(&s.test_key, "https://example.com/ok").await;
    let path = format!("/v1/webhook_endpoints/{}", ep["id"].as_str().unwrap());
    s.patch(&s.test_key, &path, json!({"url": "https://192.168.1.1/x"}))
        .await
        .error(400, "url_invalid");
}

#[tokio::test]
async fn deliveries_and_resend_routes() {
    let s = TestServer::start().await;
    let ep = s.endpoint(&s.test_key, "https://example.com/hook").await;
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            crate::common::envelope_body(
                &crate::common::pdf::client_contract(),
                crate::common::client_signer(),
            ),
        )
        .await
        .ok(201);
    let events = s
        .get(&s.test_key, "/v1/events?type=envelope.created")
        .await
        .ok(200);
    let id = events["data"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(events["data"][0]["data"]["object"]["id"], env["id"]);
    let d = s
        .get(&s.test_key, &format!("/v1/events/{id}/deliveries"))
        .await
        .ok(200);
    assert_eq!(d["object"], "list");
    assert_eq!(d["data"][0]["endpoint"], ep["id"]);
    assert_eq!(d["data"][0]["status"], "pending");
    let again = s
        .post(
            &s.test_key,
            &format!("/v1/events/{id}/resend"),
            json!({"endpoint": ep["id"]}),
        )
        .await
        .ok(200);
    assert_eq!(again["data"].as_array().unwrap().len(), 2);
    s.post(
        &s.test_key,
        &format!("/v1/events/{id}/resend"),
        json!({"endpoint": "we_nope"}),
    )
    .await
    .error(404, "resource_missing");
    // An endpoint that cannot be an ID (wrong prefix, a path, 8 KB) is the same quick 404 on
    // `endpoint`, its echo cut short: it is parsed before any read.
    for bad in [
        "tmpl_x".to_string(),
        "we_../x".to_string(),
        format!("we_{}", "a".repeat(8192)),
    ] {
        let e = s
            .post(
                &s.test_key,
                &format!("/v1/events/{id}/resend"),
                json!({"endpoint": bad}),
            )
            .await
            .error(404, "resource_missing");
        assert_eq!(e["param"], "endpoint", "{e}");
        assert!(e["message"].as_str().unwrap().len() < 200, "{e}");
    }
    s.get(&s.live_key, &format!("/v1/events/{id}/deliveries"))
        .await
        .error(404, "resource_missing");
}

/// An event with one delivery to a new endpoint of the test key; returns the event ID.
async fn event_with_endpoint(s: &TestServer) -> (String, String) {
    let ep = s.endpoint(&s.test_key, "https://example.com/hook").await;
    s.post(
        &s.test_key,
        "/v1/envelopes",
        crate::common::envelope_body(
            &crate::common::pdf::client_contract(),
            crate::common::client_signer(),
        ),
    )
    .await
    .ok(201);
    let events = s
        .get(&s.test_key, "/v1/events?type=envelope.created")
        .await
        .ok(200);
    (
        events["data"][0]["id"].as_str().unwrap().to_string(),
        ep["id"].as_str().unwrap().to_string(),
    )
}

#[tokio::test]
async fn deliveries_are_paginated_like_every_list() {
    let s = TestServer::start().await;
    let (id, ep) = event_with_endpoint(&s).await;
    for _ in 0..4 {
        s.post(
            &s.test_key,
            &format!("/v1/events/{id}/resend"),
            json!({"endpoint": ep}),
        )
        .await
        .ok(200);
    }
    let path = format!("/v1/events/{id}/deliveries");
    let all = s
        .get(&s.test_key, &format!("{path}?limit=100"))
        .await
        .ok(200);
    let all: Vec<String> = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(all.len(), 5);
    let mut seen = Vec::new();
    let mut url = format!("{path}?limit=2");
    loop {
        let page = s.get(&s.test_key, &url).await.ok(200);
        assert_eq!(page["object"], "list");
        assert_eq!(page["url"], path);
        let data = page["data"].as_array().unwrap();
        assert!(data.len() <= 2);
        seen.extend(data.iter().map(|d| d["id"].as_str().unwrap().to_string()));
        if page["has_more"] != true {
            break;
        }
        url = format!("{path}?limit=2&starting_after={}", seen.last().unwrap());
    }
    assert_eq!(seen, all, "pages walk every delivery once, oldest first");
    let default = s.get(&s.test_key, &path).await.ok(200);
    assert_eq!(
        default["data"].as_array().unwrap().len(),
        5,
        "default limit 10"
    );
    assert_eq!(default["has_more"], false);
    s.get(&s.test_key, &format!("{path}?limit=0"))
        .await
        .error(400, "parameter_invalid");
    s.get(&s.test_key, &format!("{path}?starting_after=wd_nope"))
        .await
        .error(404, "resource_missing");
    s.get(&s.test_key, &format!("{path}?color=red"))
        .await
        .error(400, "parameter_unknown");
}

#[tokio::test]
async fn endpoints_per_account_are_capped() {
    let s = TestServer::start().await;
    let max = s.svc.settings().limits.max_webhook_endpoints;
    for i in 0..max {
        s.endpoint(&s.test_key, &format!("https://example.com/hook/{i}"))
            .await;
    }
    let over = s
        .post(
            &s.test_key,
            "/v1/webhook_endpoints",
            json!({"url": "https://example.com/one-too-many"}),
        )
        .await
        .error(409, "invalid_state");
    assert!(over["message"].as_str().unwrap().contains(&max.to_string()));
    // The cap is per mode, and a deleted endpoint frees its place.
    s.endpoint(&s.live_key, "https://example.com/live").await;
    let list = s
        .get(&s.test_key, "/v1/webhook_endpoints?limit=1")
        .await
        .ok(200);
    let first = list["data"][0]["id"].as_str().unwrap().to_string();
    s.delete(&s.test_key, &format!("/v1/webhook_endpoints/{first}"))
        .await
        .ok(200);
    s.endpoint(&s.test_key, "https://example.com/again").await;
}

#[tokio::test]
async fn resend_is_rate_limited_per_account() {
    let s = TestServer::start().await;
    let (id, ep) = event_with_endpoint(&s).await;
    let per_minute = s.svc.settings().resend_per_minute;
    let path = format!("/v1/events/{id}/resend");
    // The clock may cross a minute boundary mid-loop: then the window resets and the 429 comes
    // later, so count until it comes, within two windows' worth.
    let mut ok = 0;
    let refused = loop {
        let r = s.post(&s.test_key, &path, json!({"endpoint": ep})).await;
        if r.status == 429 {
            break r;
        }
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        ok += 1;
        assert!(ok <= 2 * per_minute, "never refused");
    };
    assert!(ok >= per_minute);
    refused.error(429, "rate_limited");
    let wait: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&wait));
    // Other routes of the same key are not counted against it.
    s.get(&s.test_key, &format!("/v1/events/{id}/deliveries"))
        .await
        .ok(200);
}
