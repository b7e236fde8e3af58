//! Bulk send (extensions E12) over real HTTP: JSON and CSV rows from one template, every row
//! checked before anything is created, the live allowance reserved up front, the envelopes made
//! and sent in the background (listed by `?bulk_send=`, each carrying it, each with its signing
//! requests queued), Idempotency-Key, and `bulk_send.completed` delivered. The happy paths run
//! on the memory store, SQLite, and PostgreSQL when `ENVELOPE_TEST_DATABASE_URL` is set.

use std::sync::Arc;
use std::time::Duration;

use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use envelope_core::store::SqlStore;
use envelope_core::{BlobStore, MemoryBlobStore, MemorySink, MemoryStore, Store};

use crate::common::pdf::two_party_contract;
use crate::common::{Options, Resp, TestServer};

/// A store to run on, and what keeps it alive (a temporary directory).
pub(crate) struct Backend {
    pub(crate) name: &'static str,
    pub(crate) store: (Arc<dyn Store>, Arc<dyn BlobStore>),
    _dir: Option<tempfile::TempDir>,
}

/// Memory, SQLite, and PostgreSQL when `ENVELOPE_TEST_DATABASE_URL` is set (a fresh schema).
pub(crate) async fn backends() -> Vec<Backend> {
    let dir = tempfile::tempdir().unwrap();
    let lite = SqlStore::open_sqlite(dir.path().join("e.db"))
        .await
        .unwrap();
    let mut out = vec![
        Backend {
            name: "memory",
            store: (
                Arc::new(MemoryStore::new()),
                Arc::new(MemoryBlobStore::new()),
            ),
            _dir: None,
        },
        Backend {
            name: "sqlite",
            store: (Arc::new(lite.clone()), Arc::new(lite.blobs())),
            _dir: Some(dir),
        },
    ];
    match std::env::var("ENVELOPE_TEST_DATABASE_URL") {
        Ok(url) => {
            let schema = format!(
                "bulk_{}",
                envelope_core::ids::random_base62(10).to_lowercase()
            );
            let pg = SqlStore::connect_postgres_in_schema(&url, &schema)
                .await
                .unwrap();
            out.push(Backend {
                name: "postgres",
                store: (Arc::new(pg.clone()), Arc::new(pg.blobs())),
                _dir: None,
            });
        }
        Err(_) => {
            eprintln!("bulk send on PostgreSQL skipped: ENVELOPE_TEST_DATABASE_URL is not set")
        }
    }
    out
}

/// A template of the two-party contract: roles `Provider` and `Client`, data `start_date`.
async fn template(s: &TestServer, key: &str) -> String {
    let form = Form::new()
        .text("name", "Consulting")
        .text("roles", json!(["Provider", "Client"]).to_string())
        .part(
            "file",
            Part::bytes(two_party_contract())
                .file_name("consulting.pdf")
                .mime_str("application/pdf")
                .unwrap(),
        );
    let t = s
        .send(
            s.client
                .post(s.url("/v1/templates"))
                .bearer_auth(key)
                .multipart(form),
        )
        .await
        .ok(201);
    t["id"].as_str().unwrap().to_string()
}

/// Row `i`: its client's email is `client{i}@example.com`.
fn row(i: usize) -> Value {
    json!({
        "signers": {
            "Client": {"name": format!("Client {i}"), "email": format!("client{i}@example.com")},
            "Provider": {"name": "Pat Provider", "email": "pat@example.com"},
        },
        "data": {"start_date": "2027-01-01"},
        "metadata": {"row": i.to_string()},
    })
}

fn rows(n: usize) -> Vec<Value> {
    (0..n).map(row).collect()
}

/// Reads the bulk send until it is completed (the background work has no other end to wait
/// for); panics after a minute.
async fn completed(s: &TestServer, key: &str, id: &str) -> Value {
    for _ in 0..600 {
        let b = s.get(key, &format!("/v1/bulk_sends/{id}")).await.ok(200);
        if b["status"] == "completed" {
            return b;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("bulk send {id} did not complete");
}

/// Every envelope of the bulk send `id`, through the list filter, page by page.
async fn envelopes_of(s: &TestServer, key: &str, id: &str) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut after = String::new();
    loop {
        let page = s
            .get(
                key,
                &format!("/v1/envelopes?bulk_send={id}&limit=100{after}"),
            )
            .await
            .ok(200);
        let data = page["data"].as_array().unwrap().clone();
        if let Some(last) = data.last() {
            after = format!("&starting_after={}", last["id"].as_str().unwrap());
        }
        out.extend(data);
        if page["has_more"] != true {
            return out;
        }
    }
}

/// The envelopes of a completed bulk send: one per row, sent, carrying the bulk send, their
/// clients the rows' (each once), each signer asked to sign (the request queued).
fn assert_made(envelopes: &[Value], id: &str, n: usize, what: &str) {
    assert_eq!(envelopes.len(), n, "{what}");
    let mut clients: Vec<String> = Vec::new();
    for e in envelopes {
        assert_eq!(e["bulk_send"], id, "{what}: {e}");
        assert_eq!(e["status"], "sent", "{what}: {e}");
        let client = e["signers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["role"] == "Client")
            .unwrap();
        for signer in e["signers"].as_array().unwrap() {
            assert_eq!(
                signer["last_email"]["kind"], "signing_request",
                "{what}: each signer's request is queued: {e}"
            );
        }
        clients.push(client["email"].as_str().unwrap().to_string());
    }
    clients.sort();
    let mut want: Vec<String> = (0..n).map(|i| format!("client{i}@example.com")).collect();
    want.sort();
    assert_eq!(clients, want, "{what}: one envelope per row");
}

#[tokio::test]
async fn json_rows_become_sent_envelopes_on_every_store() {
    for b in backends().await {
        let s = TestServer::start_with(Options {
            store: Some(b.store.clone()),
            ..Options::default()
        })
        .await;
        let tmpl = template(&s, &s.test_key).await;
        let stored = b.store.0.storage_used(&s.account).await.unwrap();
        assert!(stored > 0, "the template's PDF is stored");
        let r = s
            .post(
                &s.test_key,
                "/v1/bulk_sends",
                json!({"template": tmpl, "rows": rows(3), "subject": "Please sign",
                       "expires_in_days": 30}),
            )
            .await;
        let created = r.ok(202);
        let id = created["id"].as_str().unwrap().to_string();
        assert!(id.starts_with("bulk_"), "{created}");
        assert_eq!(created["object"], "bulk_send");
        assert_eq!(created["template"], tmpl.as_str());
        assert_eq!(
            (created["total"].as_u64(), created["livemode"].as_bool()),
            (Some(3), Some(false))
        );

        let done = completed(&s, &s.test_key, &id).await;
        assert_eq!(
            (done["created"].as_u64(), done["failed"].as_u64()),
            (Some(3), Some(0)),
            "{}: {done}",
            b.name
        );
        assert!(done["completed_at"].is_string() && done["failures"] == json!([]));
        let envelopes = envelopes_of(&s, &s.test_key, &id).await;
        assert_made(&envelopes, &id, 3, b.name);
        // The envelopes hold the template's PDF: nothing more is stored.
        assert_eq!(
            b.store.0.storage_used(&s.account).await.unwrap(),
            stored,
            "{}",
            b.name
        );
        for e in &envelopes {
            assert_eq!(e["template"], tmpl.as_str());
            assert!(e["expires_at"].is_string(), "{e}");
        }

        // Listed, and found by ID; the event completes it.
        let list = s.get(&s.test_key, "/v1/bulk_sends").await.ok(200);
        assert_eq!(
            (list["url"].as_str(), list["data"][0]["id"].as_str()),
            (Some("/v1/bulk_sends"), Some(id.as_str()))
        );
        let events = s
            .get(&s.test_key, "/v1/events?type=bulk_send.completed")
            .await
            .ok(200);
        assert_eq!(events["data"][0]["data"]["object"], done, "{}", b.name);
        // An envelope made alone carries `bulk_send: null`; other keys and modes see nothing.
        let alone = s
            .post(
                &s.test_key,
                "/v1/envelopes",
                json!({"template": tmpl, "signers": row(9)["signers"], "data": row(9)["data"]}),
            )
            .await
            .ok(201);
        assert_eq!(alone["bulk_send"], Value::Null);
        assert!(envelopes_of(&s, &s.live_key, &id).await.is_empty());
        s.get(&s.live_key, &format!("/v1/bulk_sends/{id}"))
            .await
            .error(404, "resource_missing");
        // An unknown or malformed ID filters as the `template` filter does: nothing.
        for bad in ["bulk_nope", "nope", "tmpl_x"] {
            for filter in ["bulk_send", "template"] {
                let page = s
                    .get(&s.test_key, &format!("/v1/envelopes?{filter}={bad}"))
                    .await
                    .ok(200);
                assert_eq!(page["data"], json!([]), "{filter}={bad}");
            }
        }
        s.get(&s.test_key, "/v1/bulk_sends/bulk_nope")
            .await
            .error(404, "resource_missing");
        s.shutdown().await.unwrap();
    }
}

/// The CSV of `n` rows, with a header.
fn csv(n: usize) -> String {
    let mut text = String::from(
        "Client.name,Client.email,Provider.name,Provider.email,data.start_date,metadata.row\n",
    );
    for i in 0..n {
        text.push_str(&format!(
            "\"Client {i}, Jr\",client{i}@example.com,Pat Provider,pat@example.com,2027-01-01,{i}\n"
        ));
    }
    text
}

async fn post_csv(s: &TestServer, key: &str, tmpl: &str, text: String) -> Resp {
    let form = Form::new()
        .text("template", tmpl.to_string())
        .text("delivery", "email")
        .part(
            "rows",
            Part::bytes(text.into_bytes())
                .file_name("rows.csv")
                .mime_str("text/csv")
                .unwrap(),
        );
    s.send(
        s.client
            .post(s.url("/v1/bulk_sends"))
            .bearer_auth(key)
            .multipart(form),
    )
    .await
}

#[tokio::test]
async fn csv_rows_become_sent_envelopes() {
    let s = TestServer::start().await;
    let tmpl = template(&s, &s.test_key).await;
    let created = post_csv(&s, &s.test_key, &tmpl, csv(4)).await.ok(202);
    let id = created["id"].as_str().unwrap();
    let done = completed(&s, &s.test_key, id).await;
    assert_eq!(done["created"], 4, "{done}");
    let envelopes = envelopes_of(&s, &s.test_key, id).await;
    assert_made(&envelopes, id, 4, "csv");
    let names: Vec<&str> = envelopes
        .iter()
        .map(|e| {
            e["signers"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["role"] == "Client")
                .unwrap()["name"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(names.contains(&"Client 0, Jr"), "{names:?}");
    assert!(envelopes.iter().all(|e| e["metadata"]["row"].is_string()));
}

/// Nothing was created for the test key: no bulk send, no envelope.
async fn nothing_created(s: &TestServer) {
    let bulk = s.get(&s.test_key, "/v1/bulk_sends").await.ok(200);
    assert_eq!(bulk["data"], json!([]), "{bulk}");
    let envelopes = s.get(&s.test_key, "/v1/envelopes").await.ok(200);
    assert_eq!(envelopes["data"], json!([]), "{envelopes}");
}

#[tokio::test]
async fn a_bad_row_names_itself_and_creates_nothing() {
    let s = TestServer::start().await;
    let tmpl = template(&s, &s.test_key).await;

    // JSON: the path inside the row, as `POST /v1/envelopes` names it.
    let mut bad = rows(20);
    bad[17]["signers"]["Client"]["email"] = json!("not-an-email");
    let e = s
        .post(
            &s.test_key,
            "/v1/bulk_sends",
            json!({"template": tmpl, "rows": bad}),
        )
        .await
        .error(400, "parameter_invalid");
    assert_eq!(e["param"], "rows[17].signers.Client.email", "{e}");
    assert!(e["message"].as_str().unwrap().starts_with("Row 17"), "{e}");
    // A rule of the template (a role with fields and no signer) names the row too.
    let mut missing = rows(3);
    missing[2]["signers"]
        .as_object_mut()
        .unwrap()
        .remove("Provider");
    let e = s
        .post(
            &s.test_key,
            "/v1/bulk_sends",
            json!({"template": tmpl, "rows": missing}),
        )
        .await
        .error(400, "missing_signer");
    assert_eq!(e["param"], "rows[2].signers", "{e}");
    // An unknown data field, as on create.
    let mut unknown = rows(2);
    unknown[1]["data"]["nope"] = json!("x");
    let e = s
        .post(
            &s.test_key,
            "/v1/bulk_sends",
            json!({"template": tmpl, "rows": unknown}),
        )
        .await
        .error(400, "unknown_data_fields");
    assert_eq!(e["param"], "rows[1].data.nope", "{e}");

    // CSV: the column as the header writes it, and the line.
    let mut text = csv(20);
    text = text.replace("client17@example.com", "not-an-email");
    let e = post_csv(&s, &s.test_key, &tmpl, text)
        .await
        .error(400, "parameter_invalid");
    assert_eq!(e["param"], "rows[17].Client.email", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("CSV line 19"),
        "{e}"
    );
    let e = post_csv(
        &s,
        &s.test_key,
        &tmpl,
        csv(3).replace(",2027-01-01,1\n", ",,1\n"),
    )
    .await
    .error(422, "missing_data");
    assert_eq!(e["param"], "rows[1]", "{e}");
    assert_eq!(e["missing_keys"], json!(["start_date"]), "{e}");

    // The template itself, and the limits of the list.
    s.post(
        &s.test_key,
        "/v1/bulk_sends",
        json!({"template": "tmpl_nope", "rows": rows(1)}),
    )
    .await
    .error(404, "resource_missing");
    let e = s
        .post(
            &s.test_key,
            "/v1/bulk_sends",
            json!({"template": tmpl, "rows": []}),
        )
        .await
        .error(400, "parameter_invalid");
    assert_eq!(e["param"], "rows");
    nothing_created(&s).await;
}

#[tokio::test]
async fn more_than_a_thousand_rows_are_refused() {
    let s = TestServer::start().await;
    let tmpl = template(&s, &s.test_key).await;
    let e = s
        .post(
            &s.test_key,
            "/v1/bulk_sends",
            json!({"template": tmpl, "rows": rows(1001)}),
        )
        .await
        .error(400, "parameter_invalid");
    assert_eq!(e["param"], "rows", "{e}");
    let e = post_csv(&s, &s.test_key, &tmpl, csv(1001))
        .await
        .error(400, "parameter_invalid");
    assert_eq!(e["param"], "rows", "{e}");
    nothing_created(&s).await;
}

#[tokio::test]
async fn live_mode_reserves_the_allowance_of_every_row_up_front() {
    let s = TestServer::start().await;
    let tmpl = template(&s, &s.live_key).await;
    let balance = s.get(&s.live_key, "/v1/balance").await.ok(200);
    let allowance = balance["allowance"].as_u64().unwrap() as usize;
    assert_eq!(balance["used"], 0);

    // One more row than the allowance: 402, nothing written, nothing used.
    s.post(
        &s.live_key,
        "/v1/bulk_sends",
        json!({"template": tmpl, "rows": rows(allowance + 1)}),
    )
    .await
    .error(402, "insufficient_balance");
    assert_eq!(s.get(&s.live_key, "/v1/balance").await.ok(200)["used"], 0);
    let listed = s.get(&s.live_key, "/v1/bulk_sends").await.ok(200);
    assert_eq!(listed["data"], json!([]));
    assert_eq!(
        s.get(&s.live_key, "/v1/envelopes").await.ok(200)["data"],
        json!([])
    );

    // Three rows: three units at once, and no more once the envelopes are made.
    let created = s
        .post(
            &s.live_key,
            "/v1/bulk_sends",
            json!({"template": tmpl, "rows": rows(3)}),
        )
        .await
        .ok(202);
    assert_eq!(created["livemode"], true);
    assert_eq!(s.get(&s.live_key, "/v1/balance").await.ok(200)["used"], 3);
    let id = created["id"].as_str().unwrap();
    completed(&s, &s.live_key, id).await;
    assert_made(&envelopes_of(&s, &s.live_key, id).await, id, 3, "live");
    assert_eq!(s.get(&s.live_key, "/v1/balance").await.ok(200)["used"], 3);
    // What is left does not fit a bulk send one row larger.
    s.post(
        &s.live_key,
        "/v1/bulk_sends",
        json!({"template": tmpl, "rows": rows(allowance - 2)}),
    )
    .await
    .error(402, "insufficient_balance");
}

#[tokio::test]
async fn an_idempotency_key_replays_the_same_bulk_send() {
    let s = TestServer::start().await;
    let tmpl = template(&s, &s.test_key).await;
    let body = json!({"template": tmpl, "rows": rows(2)});
    let post = || {
        s.client
            .post(s.url("/v1/bulk_sends"))
            .bearer_auth(&s.test_key)
            .header("Idempotency-Key", "bulk-1")
            .json(&body)
    };
    let first = s.send(post()).await;
    let second = s.send(post()).await;
    assert_eq!(second.status, 202);
    assert_eq!(
        second.header("idempotent-replayed").as_deref(),
        Some("true")
    );
    assert_eq!(first.ok(202)["id"], second.json()["id"]);
    let id = first.json()["id"].as_str().unwrap().to_string();
    completed(&s, &s.test_key, &id).await;
    let listed = s.get(&s.test_key, "/v1/bulk_sends").await.ok(200);
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);
    assert_eq!(envelopes_of(&s, &s.test_key, &id).await.len(), 2);
    // The same key with another body is refused.
    s.send(
        s.client
            .post(s.url("/v1/bulk_sends"))
            .bearer_auth(&s.test_key)
            .header("Idempotency-Key", "bulk-1")
            .json(&json!({"template": tmpl, "rows": rows(3)})),
    )
    .await
    .error(422, "idempotency_key_reused");
}

#[tokio::test]
async fn bulk_send_completed_reaches_a_webhook_endpoint() {
    let sink = Arc::new(MemorySink::new());
    let s = TestServer::start_with(Options {
        sink: Some(sink.clone()),
        ..Options::default()
    })
    .await;
    s.post(
        &s.test_key,
        "/v1/webhook_endpoints",
        json!({"url": "https://example.com/hook", "events": ["bulk_send.completed"]}),
    )
    .await
    .ok(201);
    let tmpl = template(&s, &s.test_key).await;
    let created = s
        .post(
            &s.test_key,
            "/v1/bulk_sends",
            json!({"template": tmpl, "rows": rows(2)}),
        )
        .await
        .ok(202);
    let id = created["id"].as_str().unwrap();
    let done = completed(&s, &s.test_key, id).await;
    let mut worker = s
        .svc
        .webhook_worker(envelope_core::service::WorkerSettings::default());
    worker.run_once().await.unwrap();
    let got: Vec<Value> = sink
        .requests()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(got.len(), 1, "only the subscribed type: {got:?}");
    assert_eq!(got[0]["type"], "bulk_send.completed");
    assert_eq!(got[0]["data"]["object"], done);
}
