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
        s.svc.admin().reveal_webhook_secret(id).await.unwrap(),
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
