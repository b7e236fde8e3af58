//! Two server processes on one PostgreSQL schema, racing the same transitions and the same
//! idempotency keys: exactly one request wins each race, and the final state and events agree.
//!
//! Needs `ENVELOPE_TEST_DATABASE_URL` (for example `postgres://postgres@127.0.0.1:5432/test`);
//! without it the test prints why it skipped and passes. The run works in a new schema
//! `mp_<random>`, selected through the URL (`?options=-csearch_path%3D<schema>`, the way an
//! operator would), and drops it at the end.

use base64::Engine;
use futures_util::future::join_all;
use serde_json::{Value, json};

use crate::check::assert_consistent;
use crate::pdf::client_contract;
use crate::process::{Answer, BIN, ServerProcess, create_account, send};

const PG_URL_VAR: &str = "ENVELOPE_TEST_DATABASE_URL";

/// A fresh schema, dropped when the test ends (passed or failed).
pub struct Schema {
    url: String,
    pub name: String,
}

impl Schema {
    pub async fn create(url: &str) -> Schema {
        use sqlx::Connection;
        let name = format!(
            "mp_{}",
            envelope_core::ids::random_base62(16).to_ascii_lowercase()
        );
        let mut conn = sqlx::PgConnection::connect(url).await.expect("connect");
        let sql = format!("CREATE SCHEMA {name}");
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut conn)
            .await
            .unwrap();
        Schema {
            url: url.to_string(),
            name,
        }
    }

    /// The database URL that selects this schema for every connection.
    pub fn database_url(&self) -> String {
        let sep = if self.url.contains('?') { '&' } else { '?' };
        format!("{}{sep}options=-csearch_path%3D{}", self.url, self.name)
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        let (url, name) = (self.url.clone(), self.name.clone());
        // Drop runs inside the test's runtime: do the async cleanup on a thread of its own.
        let dropped = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                use sqlx::Connection;
                let mut conn = sqlx::PgConnection::connect(&url).await?;
                let sql = format!("DROP SCHEMA IF EXISTS {name} CASCADE");
                sqlx::query(sqlx::AssertSqlSafe(sql))
                    .execute(&mut conn)
                    .await
                    .map(drop)
            })
        })
        .join();
        if !matches!(dropped, Ok(Ok(()))) {
            eprintln!("could not drop schema {}: {dropped:?}", self.name);
        }
    }
}

/// The two servers and a client.
struct Pair {
    a: ServerProcess,
    b: ServerProcess,
    key: String,
    client: reqwest::Client,
    pdf_b64: String,
}

impl Pair {
    fn base(&self, i: usize) -> &str {
        if i.is_multiple_of(2) {
            &self.a.base
        } else {
            &self.b.base
        }
    }

    async fn post(&self, server: usize, path: &str, body: Option<&Value>) -> Answer {
        self.post_with(server, path, body, None).await
    }

    async fn post_with(
        &self,
        server: usize,
        path: &str,
        body: Option<&Value>,
        idempotency_key: Option<&str>,
    ) -> Answer {
        let mut req = self
            .client
            .post(format!("{}{path}", self.base(server)))
            .bearer_auth(&self.key);
        if let Some(b) = body {
            req = req.json(b);
        }
        if let Some(k) = idempotency_key {
            req = req.header("Idempotency-Key", k);
        }
        send(req).await.expect("the server answers")
    }

    async fn create(&self, server: usize, send_now: bool) -> String {
        let a = self
            .post(server, "/v1/envelopes", Some(&self.body(send_now, None)))
            .await;
        assert_eq!(a.status, 201, "{}", a.body);
        a.body["id"].as_str().unwrap().to_string()
    }

    fn body(&self, send_now: bool, tag: Option<&str>) -> Value {
        let mut b = json!({
            "file_base64": self.pdf_b64,
            "file_name": "contract.pdf",
            "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
            "send": send_now,
        });
        if let Some(t) = tag {
            b["metadata"] = json!({ "idem": t });
        }
        b
    }
}

/// What a racer asks for: `(server, action)` with action `send`, `void` or `complete`.
async fn race(p: &Pair, id: &str, racers: &[(usize, &str)]) -> Vec<Answer> {
    join_all(racers.iter().map(|&(server, action)| {
        let path = if action == "complete" {
            format!("/v1/test_helpers/envelopes/{id}/complete")
        } else {
            format!("/v1/envelopes/{id}/{action}")
        };
        async move { p.post(server, &path, None).await }
    }))
    .await
}

/// Asserts that exactly one racer won and every other got a 409 of the state machine; returns
/// the winner's index.
fn one_winner(id: &str, answers: &[Answer]) -> usize {
    let winners: Vec<usize> = (0..answers.len())
        .filter(|&i| answers[i].status == 200)
        .collect();
    assert_eq!(winners.len(), 1, "{id}: {answers:#?}");
    for (i, a) in answers.iter().enumerate() {
        if i != winners[0] {
            assert_eq!(a.status, 409, "{id}: {a:?}");
            assert!(
                matches!(a.code(), "invalid_state" | "envelope_completed"),
                "{id}: {a:?}"
            );
        }
    }
    winners[0]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_race_on_one_postgres() {
    let url = match std::env::var(PG_URL_VAR) {
        Ok(u) if !u.is_empty() => u,
        _ => {
            eprintln!("skipped: {PG_URL_VAR} is not set");
            return;
        }
    };
    let schema = Schema::create(&url).await;
    let db_url = schema.database_url();
    let dir = tempfile::tempdir().unwrap();

    // The account is made by the admin command, through the same database.
    let key = create_account(BIN, &db_url, dir.path(), "Racing");

    // Records live in the database; the data directories only receive the .eml files. Both
    // servers share the key of stored idempotency responses, as servers on one database must:
    // the first to start creates it.
    let key_file = dir.path().join("idempotency.key");
    let start = |name: &str| {
        let data = dir.path().join(name);
        let args = [
            "--database-url",
            &db_url,
            "--data-dir",
            data.to_str().unwrap(),
            "--idempotency-key-file",
            key_file.to_str().unwrap(),
        ];
        ServerProcess::start(BIN, &args, &dir.path().join(format!("{name}.log")))
    };
    let (a, b) = (start("a"), start("b"));
    let pdf = client_contract();
    let p = Pair {
        a,
        b,
        key,
        client: reqwest::Client::new(),
        pdf_b64: base64::engine::general_purpose::STANDARD.encode(&pdf),
    };

    // 1. A sent envelope: void and complete from both processes; exactly one wins.
    for n in 0..10 {
        let id = p.create(n, true).await;
        let racers = [(0, "void"), (1, "complete"), (1, "void"), (0, "complete")];
        let answers = race(&p, &id, &racers).await;
        let w = one_winner(&id, &answers);
        let want = if racers[w].1 == "void" {
            "voided"
        } else {
            "completed"
        };
        assert_eq!(answers[w].body["status"], want);
    }

    // 2. A draft: send from both processes (one wins), then void against complete.
    for n in 0..6 {
        let id = p.create(n, false).await;
        let answers = race(&p, &id, &[(0, "send"), (1, "send")]).await;
        one_winner(&id, &answers);
        let answers = race(&p, &id, &[(1, "void"), (0, "complete")]).await;
        one_winner(&id, &answers);
    }

    // 3. A draft: send against void. Void always applies (a draft or a sent envelope can be
    // voided); the send applies only if it came first.
    for n in 0..6 {
        let id = p.create(n, false).await;
        let answers = race(&p, &id, &[(n, "send"), (n + 1, "void")]).await;
        assert_eq!(answers[1].status, 200, "{id}: {answers:#?}");
        assert_eq!(answers[1].body["status"], "voided");
        if answers[0].status != 200 {
            assert_eq!(
                (answers[0].status, answers[0].code()),
                (409, "invalid_state")
            );
            assert!(answers[1].body["sent_at"].is_null(), "{id}: {answers:#?}");
        }
    }

    // 4. The same Idempotency-Key on both processes at once: one create, the rest replays of
    // it or "in use".
    let mut winners = Vec::new();
    let (mut replays, mut in_use) = (0, 0);
    for n in 0..8 {
        let idem = format!("race-{}-{n}", schema.name);
        let body = p.body(true, Some(&idem));
        let answers = join_all((0..6).map(|i| {
            let (p, body, idem) = (&p, &body, &idem);
            async move {
                p.post_with(i, "/v1/envelopes", Some(body), Some(idem))
                    .await
            }
        }))
        .await;
        let first: Vec<&Answer> = answers
            .iter()
            .filter(|a| a.status == 201 && !a.replayed)
            .collect();
        assert_eq!(first.len(), 1, "{idem}: {answers:#?}");
        let id = first[0].body["id"].as_str().unwrap().to_string();
        for a in &answers {
            match (a.status, a.replayed) {
                (201, replayed) => {
                    assert_eq!(a.body["id"], id.as_str(), "{idem}: {a:?}");
                    replays += usize::from(replayed);
                }
                (409, false) => {
                    assert_eq!(a.code(), "idempotency_key_in_use", "{a:?}");
                    in_use += 1;
                }
                _ => panic!("{idem}: unexpected answer {a:?}"),
            }
        }
        // Once the first has finished, a retry on either process is its replay.
        for server in 0..2 {
            let again = p
                .post_with(server, "/v1/envelopes", Some(&body), Some(&idem))
                .await;
            assert_eq!((again.status, again.replayed), (201, true), "{again:?}");
            assert_eq!(again.body, first[0].body);
        }
        winners.push((idem, id));
    }

    // Both processes show the same, consistent state.
    let snap_a = assert_consistent(&p.client, &p.a.base, &p.key, &pdf).await;
    let snap_b = assert_consistent(&p.client, &p.b.base, &p.key, &pdf).await;
    // Email delivery may move on between the two looks (`check::state`).
    let states = |s: &crate::check::Snapshot| {
        s.envelopes
            .iter()
            .map(|(id, e)| (id.clone(), crate::check::state(e)))
            .collect::<Vec<_>>()
    };
    assert_eq!(states(&snap_a), states(&snap_b));
    assert_eq!(snap_a.events, snap_b.events);
    for (idem, id) in &winners {
        let made: Vec<&String> = snap_a
            .envelopes
            .iter()
            .filter(|(_, e)| e["metadata"]["idem"] == idem.as_str())
            .map(|(id, _)| id)
            .collect();
        assert_eq!(made, vec![id], "one envelope per idempotency key");
    }
    assert_eq!(snap_a.envelopes.len(), 10 + 6 + 6 + 8);
    eprintln!(
        "{} envelopes and {} events consistent on both processes; idempotent creates: 8 made, \
         {replays} replays, {in_use} in use",
        snap_a.envelopes.len(),
        snap_a.events.len()
    );
}
