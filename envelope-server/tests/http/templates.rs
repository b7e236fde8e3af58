//! Templates: create (multipart and JSON), get, list, update, file link, archive, and envelopes
//! made from them.

use reqwest::multipart::{Form, Part};
use serde_json::json;

use crate::common::pdf::two_party_contract;
use crate::common::{TestServer, b64};

#[tokio::test]
async fn template_lifecycle() {
    let s = TestServer::start().await;
    let pdf = two_party_contract();
    let form = Form::new()
        .text("name", "Consulting")
        .text("description", "Standard terms")
        .text("roles", json!(["Provider", "Client"]).to_string())
        .part(
            "file",
            Part::bytes(pdf.clone())
                .file_name("consulting.pdf")
                .mime_str("application/pdf")
                .unwrap(),
        );
    let t = s
        .send(
            s.client
                .post(s.url("/v1/templates"))
                .bearer_auth(&s.test_key)
                .multipart(form),
        )
        .await
        .ok(201);
    assert!(t["id"].as_str().unwrap().starts_with("tmpl_"));
    assert_eq!(t["object"], "template");
    assert_eq!(t["name"], "Consulting");
    assert_eq!(t["roles"], json!(["Provider", "Client"]));
    assert_eq!(t["page_count"], 2);
    assert_eq!(t["archived"], false);
    let keys: Vec<&str> = t["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["key"].as_str().unwrap())
        .collect();
    assert!(
        keys.contains(&"start_date") && keys.contains(&"Client_signature"),
        "{keys:?}"
    );
    let id = t["id"].as_str().unwrap();
    let path = format!("/v1/templates/{id}");

    assert_eq!(s.get(&s.test_key, &path).await.ok(200), t);
    let list = s.get(&s.test_key, "/v1/templates").await.ok(200);
    assert_eq!(list["url"], "/v1/templates");
    assert_eq!(list["data"][0]["id"], id);

    let upd = s
        .patch(&s.test_key, &path, json!({"name": "Consulting v2"}))
        .await
        .ok(200);
    assert_eq!(upd["name"], "Consulting v2");
    s.patch(&s.test_key, &path, json!({"name": 3}))
        .await
        .error(400, "parameter_invalid");
    s.patch(&s.test_key, &path, json!({"file_base64": "x"}))
        .await
        .error(400, "parameter_unknown");

    let link = s.get(&s.test_key, &format!("{path}/file")).await.ok(200);
    assert_eq!(link["object"], "file_link");
    let bytes = s
        .client
        .get(link["url"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(bytes.to_vec(), pdf);

    // An envelope from the template, signers keyed by role.
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({
                "template": id,
                "signers": {
                    "Client": {"name": "Ada", "email": "ada@example.com"},
                    "Provider": {"name": "Bob", "email": "bob@example.com"},
                },
                "data": {"start_date": "2026-01-01"},
            }),
        )
        .await
        .ok(201);
    assert_eq!(env["template"], id);
    assert_eq!(env["name"], "Consulting v2");
    let filtered = s
        .get(&s.test_key, &format!("/v1/envelopes?template={id}"))
        .await
        .ok(200);
    assert_eq!(filtered["data"][0]["id"], env["id"]);
    // A filter that cannot be a template ID names no template: an empty page, at once.
    for bad in [
        "env_x".to_string(),
        "tmpl_%2F..".to_string(),
        format!("tmpl_{}", "a".repeat(4096)),
    ] {
        let none = s
            .get(&s.test_key, &format!("/v1/envelopes?template={bad}"))
            .await
            .ok(200);
        assert_eq!(none["data"], json!([]), "{bad}");
        assert_eq!(none["has_more"], false);
    }

    let del = s.delete(&s.test_key, &path).await.ok(200);
    assert_eq!(
        del,
        json!({"id": id, "object": "template", "deleted": true})
    );
    s.get(&s.test_key, "/v1/templates").await.ok(200)["data"]
        .as_array()
        .unwrap()
        .iter()
        .for_each(|t| assert_ne!(t["id"], id));
    let r = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({"template": id, "signers": {"Client": {"name": "A", "email": "a@example.com"}}}),
        )
        .await;
    assert_eq!(r.error(404, "resource_missing")["param"], "template");
}

#[tokio::test]
async fn template_from_json_and_its_errors() {
    let s = TestServer::start().await;
    let t = s
        .post(
            &s.test_key,
            "/v1/templates",
            json!({"name": "JSON", "file_base64": b64(&two_party_contract()), "file_name": "t.pdf"}),
        )
        .await
        .ok(201);
    assert_eq!(t["roles"], json!(["Client", "Provider"]));
    s.post(&s.test_key, "/v1/templates", json!({"name": "No file"}))
        .await
        .error(400, "parameter_missing");
    let b = s
        .post(
            &s.test_key,
            "/v1/templates",
            json!({"file_base64": b64(&two_party_contract()), "file_name": "t.pdf"}),
        )
        .await
        .error(400, "parameter_missing");
    assert_eq!(b["param"], "name");
    // A template of one mode is invisible to the other.
    s.get(
        &s.live_key,
        &format!("/v1/templates/{}", t["id"].as_str().unwrap()),
    )
    .await
    .error(404, "resource_missing");
}
