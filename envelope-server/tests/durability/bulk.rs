//! A bulk send (extensions E12) survives a SIGKILL: the real server on SQLite takes a
//! 1,000-row bulk send, is killed while some but not all envelopes are made, and is started
//! again on the same data directory. The bulk send then completes (its lease runs out and the
//! new process claims it) with exactly one envelope per row: none lost, none made twice.

use std::collections::BTreeSet;
use std::time::Duration;

use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use crate::pdf::two_party_contract;
use crate::process::{BIN, ServerProcess, send};

const ROWS: usize = 1_000;

fn rows() -> Vec<Value> {
    (0..ROWS)
        .map(|i| {
            json!({
                "signers": {
                    "Client": {"name": format!("Client {i}"), "email": format!("client{i}@example.com")},
                    "Provider": {"name": "Pat Provider", "email": "pat@example.com"},
                },
                "data": {"start_date": "2027-01-01"},
            })
        })
        .collect()
}

async fn get(client: &reqwest::Client, base: &str, key: &str, path: &str) -> Value {
    let a = send(client.get(format!("{base}{path}")).bearer_auth(key))
        .await
        .unwrap_or_else(|| panic!("no answer to GET {path}"));
    assert_eq!(a.status, 200, "{}", a.body);
    a.body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_send_killed_midway_ends_with_one_envelope_per_row() {
    let dir = tempfile::tempdir().unwrap();
    let data_arg = dir.path().join("data").to_str().unwrap().to_string();
    let log = dir.path().join("server.log");
    let store_args = ["--data-dir", data_arg.as_str()];
    let client = reqwest::Client::new();

    let server = ServerProcess::start(BIN, &store_args, &log);
    let key = server.printed_test_key();
    let form = Form::new()
        .text("name", "Onboarding")
        .text("roles", json!(["Provider", "Client"]).to_string())
        .part(
            "file",
            Part::bytes(two_party_contract())
                .file_name("onboarding.pdf")
                .mime_str("application/pdf")
                .unwrap(),
        );
    let t = send(
        client
            .post(format!("{}/v1/templates", server.base))
            .bearer_auth(&key)
            .multipart(form),
    )
    .await
    .unwrap();
    assert_eq!(t.status, 201, "{}", t.body);
    let template = t.body["id"].as_str().unwrap().to_string();

    // Until a kill lands with some rows made and some not (a bulk send that finished before
    // the kill proves nothing; another is tried, on the same data).
    let mut killed = None;
    for attempt in 0..5 {
        let created = send(
            client
                .post(format!("{}/v1/bulk_sends", server.base))
                .bearer_auth(&key)
                .json(&json!({"template": template, "rows": rows()})),
        )
        .await
        .unwrap();
        assert_eq!(created.status, 202, "{}", created.body);
        let id = created.body["id"].as_str().unwrap().to_string();
        let made = loop {
            let b = get(&client, &server.base, &key, &format!("/v1/bulk_sends/{id}")).await;
            let made = b["created"].as_u64().unwrap();
            if made > 0 {
                break made;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        };
        if made < ROWS as u64 {
            eprintln!("attempt {attempt}: killed with {made} of {ROWS} made");
            killed = Some(id);
            break;
        }
        eprintln!("attempt {attempt}: all {ROWS} made before the kill; again");
    }
    server.kill();
    let id = killed.expect("a kill landed midway in one of five bulk sends");
    let server = ServerProcess::start(BIN, &store_args, &log);

    // The new process claims the bulk send once the dead one's lease has run out.
    let done = loop {
        let b = get(&client, &server.base, &key, &format!("/v1/bulk_sends/{id}")).await;
        if b["status"] == "completed" {
            break b;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(
        (done["created"].as_u64(), done["failed"].as_u64()),
        (Some(ROWS as u64), Some(0)),
        "{done}"
    );
    let mut envelopes: Vec<Value> = Vec::new();
    loop {
        let mut path = format!("/v1/envelopes?bulk_send={id}&limit=100");
        if let Some(last) = envelopes.last() {
            path.push_str(&format!("&starting_after={}", last["id"].as_str().unwrap()));
        }
        let page = get(&client, &server.base, &key, &path).await;
        envelopes.extend(page["data"].as_array().unwrap().iter().cloned());
        if page["has_more"] != true {
            break;
        }
    }
    assert_eq!(envelopes.len(), ROWS, "exactly one envelope per row");
    let clients: BTreeSet<String> = envelopes
        .iter()
        .map(|e| {
            assert_eq!(e["bulk_send"], id.as_str());
            assert_eq!(e["status"], "sent", "{e}");
            e["signers"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["role"] == "Client")
                .unwrap()["email"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let want: BTreeSet<String> = (0..ROWS)
        .map(|i| format!("client{i}@example.com"))
        .collect();
    assert_eq!(clients, want, "each row's signer once");
    server.kill();
}
