//! The consistency check both tests end with: read every envelope and every event through the
//! API and assert that nothing is half-written.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::process::{list_all, send};

/// An envelope without its signers' `last_email`: the state a write acknowledged. Email
/// delivery moves on after the answer (the outbox sends in the background) without an event.
pub fn state(env: &Value) -> Value {
    let mut v = env.clone();
    if let Some(signers) = v["signers"].as_array_mut() {
        for s in signers {
            if let Some(o) = s.as_object_mut() {
                o.remove("last_email");
            }
        }
    }
    v
}

/// What the API shows after the check.
pub struct Snapshot {
    /// Envelopes by ID, as `GET /v1/envelopes/{id}` returns them.
    pub envelopes: BTreeMap<String, Value>,
    /// Every event, newest first.
    pub events: Vec<Value>,
}

/// Asserts, for every envelope of the key's scope:
/// - `GET /v1/envelopes/{id}` equals its list item (apart from `last_email`: see [`state`]);
/// - exactly one `envelope.created`, one `envelope.sent` iff `sent_at` is set, one
///   `envelope.voided` iff voided, one `envelope.completed` iff completed;
/// - its newest event's snapshot (`data.object`) equals the envelope: record and events were
///   written together;
/// - a completed envelope's signed copy and audit trail download, the signed copy starting with
///   the original's bytes (`original`);
///
/// and that every event names an envelope that exists.
pub async fn assert_consistent(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    original: &[u8],
) -> Snapshot {
    let listed = list_all(client, base, key, "/v1/envelopes").await;
    let events = list_all(client, base, key, "/v1/events").await;
    let mut envelopes = BTreeMap::new();
    for env in listed {
        let id = env["id"].as_str().unwrap().to_string();
        let got = get(client, base, key, &format!("/v1/envelopes/{id}")).await;
        // An email may be sent between the list and the GET.
        assert_eq!(state(&got), state(&env), "GET and list disagree on {id}");
        assert!(
            envelopes.insert(id.clone(), env).is_none(),
            "{id} listed twice"
        );
    }
    let mut by_envelope: BTreeMap<&str, Vec<&Value>> = BTreeMap::new();
    for e in &events {
        let id = e["data"]["object"]["id"].as_str().unwrap();
        assert!(
            envelopes.contains_key(id),
            "event {} ({}) names a missing envelope {id}",
            e["id"],
            e["type"]
        );
        by_envelope.entry(id).or_default().push(e);
    }
    for (id, env) in &envelopes {
        let evs = by_envelope.get(id.as_str()).cloned().unwrap_or_default();
        let count = |t: &str| evs.iter().filter(|e| e["type"] == t).count();
        let status = env["status"].as_str().unwrap();
        let want = [
            ("envelope.created", 1),
            ("envelope.sent", usize::from(!env["sent_at"].is_null())),
            ("envelope.voided", usize::from(status == "voided")),
            ("envelope.completed", usize::from(status == "completed")),
        ];
        for (t, n) in want {
            assert_eq!(
                count(t),
                n,
                "{t} events of {status} envelope {id}: {evs:#?}"
            );
        }
        let newest = evs.first().expect("an envelope without events");
        assert_eq!(
            state(&newest["data"]["object"]),
            state(env),
            "the newest event of {id} ({}) shows another state",
            newest["type"]
        );
        if status == "completed" {
            assert_eq!(env["files"]["signed"], true, "{env}");
            let signed = download(client, base, key, id, "signed").await;
            assert!(
                signed.starts_with(original) && signed.len() > original.len(),
                "the signed copy of {id} does not extend the original"
            );
            let trail = download(client, base, key, id, "audit_trail").await;
            assert!(trail.starts_with(b"%PDF-"), "audit trail of {id}");
        }
    }
    Snapshot { envelopes, events }
}

async fn get(client: &reqwest::Client, base: &str, key: &str, path: &str) -> Value {
    let a = send(client.get(format!("{base}{path}")).bearer_auth(key))
        .await
        .unwrap_or_else(|| panic!("no answer to GET {path}"));
    assert_eq!(a.status, 200, "GET {path}: {}", a.body);
    a.body
}

/// Makes a download link for a file of an envelope and downloads it.
pub async fn download(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    id: &str,
    kind: &str,
) -> Vec<u8> {
    let link = get(
        client,
        base,
        key,
        &format!("/v1/envelopes/{id}/files/{kind}"),
    )
    .await;
    let url = link["url"].as_str().unwrap();
    let res = client.get(url).send().await.unwrap();
    assert_eq!(res.status(), 200, "download of the {kind} file of {id}");
    res.bytes().await.unwrap().to_vec()
}
