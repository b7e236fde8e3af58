//! Parsing of bodies and queries: invalid JSON, wrong types, unknown parameters, content types,
//! pagination.

use serde_json::{Value, json};

use crate::common::TestServer;

const EP: &str = "/v1/webhook_endpoints";

#[tokio::test]
async fn invalid_json_is_400_invalid_body() {
    let s = TestServer::start().await;
    for body in ["{", "{\"url\": }", "[1,2]", "\"text\"", "42", "nul"] {
        let r = s
            .send(
                s.client
                    .post(s.url(EP))
                    .bearer_auth(&s.test_key)
                    .header("content-type", "application/json")
                    .body(body),
            )
            .await;
        let b = r.error(400, "invalid_body");
        assert_eq!(b["type"], "invalid_request_error", "{body}");
    }
    // Not UTF-8.
    let r = s
        .send(
            s.client
                .post(s.url(EP))
                .bearer_auth(&s.test_key)
                .header("content-type", "application/json")
                .body(vec![0xff, 0xfe, b'{']),
        )
        .await;
    r.error(400, "invalid_body");
    // Deep nesting is refused, not a crash.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let r = s
        .send(
            s.client
                .post(s.url(EP))
                .bearer_auth(&s.test_key)
                .header("content-type", "application/json")
                .body(deep),
        )
        .await;
    r.error(400, "invalid_body");
}

#[tokio::test]
async fn wrong_types_missing_and_unknown_parameters() {
    let s = TestServer::start().await;
    let b = s
        .post(&s.test_key, EP, json!({"url": 5}))
        .await
        .error(400, "parameter_invalid");
    assert_eq!(b["param"], "url");
    let b = s
        .post(
            &s.test_key,
            EP,
            json!({"url": "https://example.com/h", "events": "x"}),
        )
        .await
        .error(400, "parameter_invalid");
    assert_eq!(b["param"], "events");
    let b = s
        .post(
            &s.test_key,
            EP,
            json!({"url": "https://example.com/h", "events": ["envelope.sent", 3]}),
        )
        .await
        .error(400, "parameter_invalid");
    assert_eq!(b["param"], "events.1");
    let b = s
        .post(&s.test_key, EP, json!({}))
        .await
        .error(400, "parameter_missing");
    assert_eq!(b["param"], "url");
    let b = s
        .post(
            &s.test_key,
            EP,
            json!({"url": "https://example.com/h", "colour": "red"}),
        )
        .await
        .error(400, "parameter_unknown");
    assert_eq!(b["param"], "colour");
    let b = s
        .post(&s.test_key, EP, json!({"url": "http://127.0.0.1/h"}))
        .await
        .error(400, "url_invalid");
    assert_eq!(b["param"], "url");
    // Actions without parameters refuse any.
    let b = s
        .post(
            &s.test_key,
            "/v1/envelopes/env_x/send",
            json!({"now": true}),
        )
        .await
        .error(400, "parameter_unknown");
    assert_eq!(b["param"], "now");
    let b = s
        .post(
            &s.test_key,
            "/v1/envelopes/env_x/void",
            json!({"reason": 7}),
        )
        .await
        .error(400, "parameter_invalid");
    assert_eq!(b["param"], "reason");
    let b = s
        .post(
            &s.test_key,
            "/v1/envelopes/env_x/signing_url",
            json!({"signer": ["a"]}),
        )
        .await
        .error(400, "parameter_invalid");
    assert_eq!(b["param"], "signer");
}

#[tokio::test]
async fn content_types() {
    let s = TestServer::start().await;
    let post = |ct: &'static str, body: &'static str| {
        s.client
            .post(s.url(EP))
            .bearer_auth(&s.test_key)
            .header("content-type", ct)
            .body(body)
    };
    for ct in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "multipart/form-data",
        "application/xml",
    ] {
        let r = s.send(post(ct, "url=https://example.com")).await;
        let b = r.error(415, "unsupported_media_type");
        assert_eq!(b["type"], "invalid_request_error", "{ct}");
    }
    // A body without a Content-Type is refused; an empty one is fine.
    let r = s
        .send(
            s.client
                .post(s.url(EP))
                .bearer_auth(&s.test_key)
                .body("{\"url\":\"https://example.com/h\"}"),
        )
        .await;
    r.error(415, "unsupported_media_type");
    s.post_empty(&s.test_key, EP)
        .await
        .error(400, "parameter_missing");
    // Charset parameters are fine.
    let r = s
        .send(post(
            "application/json; charset=utf-8",
            "{\"url\":\"https://example.com/h\"}",
        ))
        .await;
    r.ok(201);
    // The creates take multipart; a malformed form is invalid_body.
    let r = s
        .send(
            s.client
                .post(s.url("/v1/envelopes"))
                .bearer_auth(&s.test_key)
                .header("content-type", "multipart/form-data; boundary=zzz")
                .body("this is not a form"),
        )
        .await;
    r.error(400, "invalid_body");
    let r = s
        .send(
            s.client
                .post(s.url("/v1/templates"))
                .bearer_auth(&s.test_key)
                .header("content-type", "text/csv")
                .body("a,b"),
        )
        .await;
    let b = r.error(415, "unsupported_media_type");
    assert!(
        b["message"]
            .as_str()
            .unwrap()
            .contains("multipart/form-data")
    );
}

#[tokio::test]
async fn query_parameters_are_checked() {
    let s = TestServer::start().await;
    let b = s
        .get(&s.test_key, "/v1/webhook_endpoints?colour=red")
        .await
        .error(400, "parameter_unknown");
    assert_eq!(b["param"], "colour");
    let b = s
        .get(&s.test_key, "/v1/envelopes?limit=0")
        .await
        .error(400, "parameter_invalid");
    assert_eq!(b["param"], "limit");
    s.get(&s.test_key, "/v1/events?limit=101")
        .await
        .error(400, "parameter_invalid");
    s.get(&s.test_key, "/v1/templates?limit=ten")
        .await
        .error(400, "parameter_invalid");
    s.get(&s.test_key, "/v1/events?limit=1&limit=2")
        .await
        .error(400, "parameter_invalid");
    s.get(&s.test_key, "/v1/events?type=envelope.nope")
        .await
        .error(400, "parameter_invalid");
    s.get(&s.test_key, "/v1/events?type=envelope.sent")
        .await
        .ok(200);
    s.get(&s.test_key, "/v1/envelopes?template=tmpl_x&limit=100")
        .await
        .ok(200);
    // Non-list routes take no query parameters.
    s.get(&s.test_key, "/v1/account?expand=x")
        .await
        .error(400, "parameter_unknown");
    s.get(&s.test_key, "/v1/envelopes?starting_after=env_missing")
        .await
        .error(404, "resource_missing");
}

#[tokio::test]
async fn pagination_across_pages() {
    let s = TestServer::start().await;
    let mut created = Vec::new();
    // 16 is the most endpoints an account may have in one mode (docs/WEBHOOKS.md).
    for i in 0..16 {
        let ep = s
            .endpoint(&s.test_key, &format!("https://example.com/hook/{i}"))
            .await;
        created.push(ep["id"].as_str().unwrap().to_string());
    }
    let first = s.get(&s.test_key, EP).await.ok(200);
    assert_eq!(first["object"], "list");
    assert_eq!(first["url"], "/v1/webhook_endpoints");
    assert_eq!(first["data"].as_array().unwrap().len(), 10, "default limit");
    assert_eq!(first["has_more"], true);

    let mut seen = Vec::new();
    let mut after: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &after {
            None => format!("{EP}?limit=7"),
            Some(a) => format!("{EP}?limit=7&starting_after={a}"),
        };
        let page = s.get(&s.test_key, &path).await.ok(200);
        pages += 1;
        let data = page["data"].as_array().unwrap();
        seen.extend(data.iter().map(|e| e["id"].as_str().unwrap().to_string()));
        if page["has_more"] == Value::Bool(false) {
            break;
        }
        after = Some(data.last().unwrap()["id"].as_str().unwrap().to_string());
    }
    assert_eq!(pages, 3);
    assert_eq!(seen.len(), 16);
    let mut sorted = seen.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 16, "no item twice");
    created.reverse();
    assert_eq!(seen, created, "newest first");
}
