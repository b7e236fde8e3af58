//! Retention on the real binary, with a clock the test controls: the server is restarted on the
//! same data dir under libfaketime (`LD_PRELOAD`, `FAKETIME=+Nd`), which moves the wall clock
//! the binary reads and leaves the monotonic clock (tokio's timers) alone.
//!
//! Day 0 (real time): a completed test envelope, a test template with a draft made from it, a
//! live template, and a live envelope signed through the signing page. Then, restarted:
//!
//! - day 29 (`--live-retention-days 30`): everything is still there; an unreferenced blob
//!   planted at day 0 is swept (its hour of grace is long over);
//! - day 31: the test envelopes, their events and the test template answer 404 and their blobs
//!   are gone from the database; the live envelope still reads, marked `files_deleted_at`, and
//!   its downloads answer `410 file_deleted`, and its record no longer holds what the signer
//!   typed, their browser or address, in the database file's bytes either; the live template
//!   and its file stay.
//!
//! Run with `cargo test -p envelope-server --test durability retention`; needs libfaketime
//! (Debian package `faketime`, installed by scripts/install-test-deps.sh).

use envelope_core::store::AccountStore;
use envelope_core::store::EnvelopeStore;
use envelope_core::store::TemplateStore;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use envelope_core::model::{Mode, Scope};
use envelope_core::store::{BlobStore, SqlStore};
use serde_json::{Value, json};

use crate::pdf::client_contract;
use crate::process::{BIN, ServerProcess};

/// Generous: a debug binary migrates, starts and sweeps well within this.
const SWEEP_LIMIT: Duration = Duration::from_secs(60);

/// The multi-threaded libfaketime (the server runs many threads), where Debian puts it.
fn libfaketime() -> PathBuf {
    let mut candidates = vec![
        PathBuf::from("/usr/lib/faketime/libfaketimeMT.so.1"),
        PathBuf::from("/usr/local/lib/faketime/libfaketimeMT.so.1"),
    ];
    if let Ok(dirs) = std::fs::read_dir("/usr/lib") {
        for d in dirs.flatten() {
            candidates.push(d.path().join("faketime/libfaketimeMT.so.1"));
        }
    }
    candidates
        .into_iter()
        .find(|p| p.is_file())
        .expect("libfaketime is missing: install the Debian package faketime (scripts/install-test-deps.sh)")
}

/// The environment that runs the binary `days` days in the future.
fn days_ahead(lib: &Path, days: u32) -> Vec<(String, String)> {
    vec![
        ("LD_PRELOAD".into(), lib.display().to_string()),
        ("FAKETIME".into(), format!("+{days}d")),
        // tokio's timers and deadlines read the monotonic clock: leave it real.
        ("FAKETIME_DONT_FAKE_MONOTONIC".into(), "1".into()),
        ("ENVELOPE_LOG".into(), "info".into()),
    ]
}

struct Day0 {
    account: envelope_core::AccountId,
    test_completed: String,
    test_template: String,
    test_draft: String,
    live_template: String,
    live_completed: String,
}

async fn call(req: reqwest::RequestBuilder, status: u16) -> Value {
    let res = req.send().await.unwrap();
    let got = res.status().as_u16();
    let body = res.text().await.unwrap();
    assert_eq!(got, status, "{body}");
    serde_json::from_str(&body).unwrap()
}

fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn envelope_body(extra: Value) -> Value {
    let mut body = json!({
        "file_base64": base64_of(&client_contract()),
        "file_name": "contract.pdf",
        "delivery": "embedded",
        "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
    });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    body
}

fn template_body() -> Value {
    json!({
        "name": "Service agreement",
        "file_base64": base64_of(&client_contract()),
        "file_name": "contract.pdf",
    })
}

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

/// Signs the live envelope's one signer through the signing page, as a browser would (with
/// `marker` as the typed signature and in its `User-Agent`), and waits for the completion.
async fn sign_through_page(http: &reqwest::Client, base: &str, key: &str, env: &str, marker: &str) {
    let browser = format!("Browser/{marker}");
    let link = http
        .post(format!("{base}/v1/envelopes/{env}/signing_url"))
        .bearer_auth(key)
        .json(&json!({"signer": "Client"}));
    let url = call(link, 200).await["url"].as_str().unwrap().to_string();
    let page = http
        .get(&url)
        .header("user-agent", &browser)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let form = page.split(r#"id="sign-form""#).nth(1).expect("sign form");
    let csrf = form
        .split(r#"name="csrf" value=""#)
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let body: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("csrf", csrf),
            ("mode:Client_signature", "type"),
            ("typed:Client_signature", marker),
            ("consent", "yes"),
        ])
        .finish();
    let signed = http
        .post(&url)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("origin", base)
        .header("user-agent", &browser)
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(signed.status().as_u16(), 200);
    let deadline = Instant::now() + SWEEP_LIMIT;
    loop {
        let e = call(
            http.get(format!("{base}/v1/envelopes/{env}"))
                .bearer_auth(key),
            200,
        )
        .await;
        if e["status"] == "completed" {
            return;
        }
        assert!(Instant::now() < deadline, "not completed: {e}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until the server's log shows its first retention sweep done, and returns that line.
fn first_sweep(log: &Path) -> String {
    let deadline = Instant::now() + SWEEP_LIMIT;
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if let Some(line) = text.lines().find(|l| l.contains("retention sweep done")) {
            return line.to_string();
        }
        assert!(
            !text.contains("retention sweep failed"),
            "the sweep failed:\n{text}"
        );
        assert!(Instant::now() < deadline, "no retention sweep:\n{text}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn stop(mut server: ServerProcess) {
    server.terminate();
    assert!(
        server.wait_exit(Duration::from_secs(30)).is_some(),
        "no exit after SIGTERM"
    );
}

/// The blob keys of every record the test made, by record, read from the stopped server's
/// database.
async fn blob_keys(data: &Path, d: &Day0) -> Vec<(String, Vec<String>)> {
    let store = SqlStore::open_sqlite(data.join("envelope.sqlite3"))
        .await
        .unwrap();
    let scope = |mode| Scope {
        account: d.account.clone(),
        mode,
    };
    let mut out = Vec::new();
    for (mode, env) in [
        (Mode::Test, &d.test_completed),
        (Mode::Test, &d.test_draft),
        (Mode::Live, &d.live_completed),
    ] {
        let rec = store
            .get_envelope(&scope(mode), &env.parse().unwrap())
            .await
            .unwrap()
            .unwrap();
        let keys = rec.held_files().iter().map(|f| f.blob.clone()).collect();
        out.push((env.clone(), keys));
    }
    for (mode, t) in [
        (Mode::Test, &d.test_template),
        (Mode::Live, &d.live_template),
    ] {
        let rec = store
            .get_template(&scope(mode), &t.parse().unwrap())
            .await
            .unwrap()
            .unwrap();
        out.push((t.clone(), vec![rec.file.blob.clone()]));
    }
    store.close().await;
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retention_deletes_test_data_once_a_controllable_clock_passes_the_limit() {
    let lib = libfaketime();
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let data_arg = data.to_str().unwrap().to_string();
    let http = reqwest::Client::new();

    // Day 0, real time.
    let server = ServerProcess::start(
        BIN,
        &["--data-dir", &data_arg],
        &tmp.path().join("day0.log"),
    );
    let (test_key, live_key) = server.printed_keys();
    let base = server.base.clone();
    let post = |key: &str, path: &str, body: Value| {
        http.post(format!("{base}{path}"))
            .bearer_auth(key)
            .json(&body)
    };
    let account = id(&call(
        http.get(format!("{base}/v1/account"))
            .bearer_auth(&test_key),
        200,
    )
    .await)
    .parse()
    .unwrap();
    let test_completed = id(&call(
        post(&test_key, "/v1/envelopes", envelope_body(json!({}))),
        201,
    )
    .await);
    call(
        post(
            &test_key,
            &format!("/v1/test_helpers/envelopes/{test_completed}/complete"),
            json!({}),
        ),
        200,
    )
    .await;
    let test_template = id(&call(post(&test_key, "/v1/templates", template_body()), 201).await);
    let test_draft = id(&call(
        post(
            &test_key,
            "/v1/envelopes",
            json!({"template": test_template, "send": false,
                   "signers": [{"name": "Ada", "email": "ada@example.com"}]}),
        ),
        201,
    )
    .await);
    let live_template = id(&call(post(&live_key, "/v1/templates", template_body()), 201).await);
    let live_completed = id(&call(
        post(&live_key, "/v1/envelopes", envelope_body(json!({}))),
        201,
    )
    .await);
    // What the signer typed and their browser, unique to this run.
    let marker = format!("Signed{}", envelope_core::ids::random_base62(12));
    sign_through_page(&http, &base, &live_key, &live_completed, &marker).await;
    stop(server);
    let database = data.join("envelope.sqlite3");
    assert!(
        file_holds(&database, &marker),
        "the signer's record is in the file (the check at the end can fail)"
    );
    let day0 = Day0 {
        account,
        test_completed,
        test_template,
        test_draft,
        live_template,
        live_completed,
    };
    let keys = blob_keys(&data, &day0).await;
    let held: usize = keys.iter().map(|(_, k)| k.len()).sum();
    assert_eq!(
        held,
        3 + 1 + 3 + 1 + 1,
        "the draft shares the test template's file"
    );
    {
        // An upload whose record never came (a crash between the two writes).
        let store = SqlStore::open_sqlite(data.join("envelope.sqlite3"))
            .await
            .unwrap();
        let now = envelope_core::Timestamp::from(chrono::Utc::now());
        store
            .blobs()
            .put("blob_orphan", bytes::Bytes::from_static(b"%PDF-1.7"), now)
            .await
            .unwrap();
        store.close().await;
    }

    // Day 29: nothing is old enough yet but the orphan.
    let env: Vec<(String, String)> = days_ahead(&lib, 29);
    let env_refs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let args = ["--data-dir", &data_arg, "--live-retention-days", "30"];
    let log = tmp.path().join("day29.log");
    let server = ServerProcess::start_with_env(BIN, &args, &env_refs, &log);
    let line = first_sweep(&log);
    assert!(
        line.contains("test_envelopes=0") && line.contains("orphan_blobs=1"),
        "{line}"
    );
    let base = server.base.clone();
    let get = |key: &str, path: &str| http.get(format!("{base}{path}")).bearer_auth(key);
    // The server's wall clock is 29 days ahead (its `Date` header comes from it).
    let res = get(&test_key, "/v1/account").send().await.unwrap();
    let date = res.headers()["date"].to_str().unwrap().to_string();
    let served = chrono::DateTime::parse_from_rfc2822(&date).unwrap();
    let ahead = served.with_timezone(&chrono::Utc) - chrono::Utc::now();
    assert!(
        (ahead.num_hours() - 29 * 24).abs() <= 1,
        "the server's clock is {ahead} ahead"
    );
    for (key, path) in [
        (&test_key, format!("/v1/envelopes/{}", day0.test_completed)),
        (&test_key, format!("/v1/envelopes/{}", day0.test_draft)),
        (&test_key, format!("/v1/templates/{}", day0.test_template)),
        (
            &live_key,
            format!("/v1/envelopes/{}/files/signed", day0.live_completed),
        ),
    ] {
        call(get(key, &path), 200).await;
    }
    stop(server);

    // Day 31: the limits have passed.
    let env: Vec<(String, String)> = days_ahead(&lib, 31);
    let env_refs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let log = tmp.path().join("day31.log");
    let server = ServerProcess::start_with_env(BIN, &args, &env_refs, &log);
    let line = first_sweep(&log);
    assert!(
        line.contains("test_envelopes=2")
            && line.contains("test_templates=1")
            && line.contains("live_envelopes_emptied=1"),
        "{line}"
    );
    let base = server.base.clone();
    let get = |key: &str, path: &str| http.get(format!("{base}{path}")).bearer_auth(key);
    for path in [
        format!("/v1/envelopes/{}", day0.test_completed),
        format!("/v1/envelopes/{}", day0.test_draft),
        format!("/v1/templates/{}", day0.test_template),
    ] {
        let b = call(get(&test_key, &path), 404).await;
        assert_eq!(b["code"], "resource_missing");
    }
    let events = call(get(&test_key, "/v1/events?limit=100"), 200).await;
    assert_eq!(
        events["data"],
        json!([]),
        "test events went with their envelopes"
    );
    let live = call(
        get(&live_key, &format!("/v1/envelopes/{}", day0.live_completed)),
        200,
    )
    .await;
    assert_eq!(live["status"], "completed");
    assert!(live["files_deleted_at"].is_string(), "{live}");
    for kind in ["original", "signed", "audit_trail"] {
        let path = format!("/v1/envelopes/{}/files/{kind}", day0.live_completed);
        let b = call(get(&live_key, &path), 410).await;
        assert_eq!(b["code"], "file_deleted");
    }
    let live_events = call(get(&live_key, "/v1/events?type=envelope.completed"), 200).await;
    assert_eq!(live_events["data"].as_array().unwrap().len(), 1);
    let file = call(
        get(
            &live_key,
            &format!("/v1/templates/{}/file", day0.live_template),
        ),
        200,
    )
    .await;
    let pdf = http
        .get(file["url"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(pdf.status().as_u16(), 200);
    assert_eq!(
        pdf.bytes().await.unwrap().as_ref(),
        client_contract().as_slice()
    );
    stop(server);

    // In the database: only the live template's file is left.
    let store = SqlStore::open_sqlite(data.join("envelope.sqlite3"))
        .await
        .unwrap();
    let blobs = store.blobs();
    for (record, ks) in &keys {
        for k in ks {
            let there = blobs.get(k).await.unwrap().is_some();
            assert_eq!(there, *record == day0.live_template, "{record}: {k}");
        }
    }
    assert_eq!(blobs.get("blob_orphan").await.unwrap(), None);
    let listed = blobs.list(None, 100).await.unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(
        store.storage_used(&day0.account).await.unwrap(),
        client_contract().len() as u64
    );
    // Live retention emptied the record too: no typed signature, browser or IP address in it,
    // and (`secure_delete`) none left in the file's free space.
    let live_scope = Scope {
        account: day0.account.clone(),
        mode: Mode::Live,
    };
    let record = store
        .get_envelope(&live_scope, &day0.live_completed.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    let signer = &record.signers[0];
    assert!(
        signer.values.is_empty() && signer.ip_address.is_none() && signer.user_agent.is_none(),
        "{signer:?}"
    );
    assert_eq!(signer.signer.name, "Ada Lovelace", "the party stays named");
    store.close().await;
    assert!(
        !file_holds(&database, &marker),
        "the marker is still in the file"
    );
}

/// Whether the database file (and its WAL, if any) holds `needle`.
fn file_holds(database: &Path, needle: &str) -> bool {
    let mut bytes = std::fs::read(database).unwrap();
    if let Ok(wal) = std::fs::read(database.with_extension("sqlite3-wal")) {
        bytes.extend(wal);
    }
    bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
}
