//! Retention and storage quotas through the `SigningService`, with a manual clock, on the
//! in-memory store and on SQLite (records and PDFs in one database file): test data goes once
//! the clock passes its limit, live PDFs go (records stay) with live retention, orphaned blobs
//! go after their grace period, and creates past the quota are refused before anything is
//! written.

use envelope_testkit::pdf as support;

use envelope_core::ids::{EnvelopeId, TemplateId};
use std::sync::Arc;

use chrono::Duration;
use envelope_core::model::{EnvelopeStatus, SignerValue};
use envelope_core::service::{
    AuthContext, ClientInfo, CreateEnvelopeParams, CreateTemplateParams, FileKind, ListParams,
    Params, Retention, SignInput, Upload,
};
use envelope_core::store::{BlobStore, MemoryBlobStore, MemoryStore, SqlStore, Store};
use envelope_core::{ManualClock, Mode, Settings, SigningService, Timestamp};
use serde_json::{Value, json};

struct World {
    svc: SigningService,
    clock: Arc<ManualClock>,
    store: Arc<dyn Store>,
    blobs: Arc<dyn BlobStore>,
    test: AuthContext,
    live: AuthContext,
    account: envelope_core::AccountId,
    /// The SQLite store and its directory (SQLite backend only).
    sql: Option<SqlStore>,
    _dir: Option<tempfile::TempDir>,
}

#[derive(Clone, Copy, Debug)]
enum Backend {
    Memory,
    Sqlite,
}

const BACKENDS: [Backend; 2] = [Backend::Memory, Backend::Sqlite];

async fn world(backend: Backend, retention: Retention) -> World {
    let (store, blobs, dir, sql): (Arc<dyn Store>, Arc<dyn BlobStore>, _, _) = match backend {
        Backend::Memory => (
            Arc::new(MemoryStore::new()),
            Arc::new(MemoryBlobStore::new()),
            None,
            None,
        ),
        Backend::Sqlite => {
            let dir = tempfile::tempdir().unwrap();
            let sql = SqlStore::open_sqlite(dir.path().join("envelope.db"))
                .await
                .unwrap();
            (
                Arc::new(sql.clone()),
                Arc::new(sql.blobs()),
                Some(dir),
                Some(sql),
            )
        }
    };
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap(),
    ));
    let svc = SigningService::builder()
        .store(store.clone())
        .blobs(blobs.clone())
        .clock(clock.clone())
        .settings(Settings {
            retention,
            ..Settings::default()
        })
        .build();
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let test = svc.authenticate(&acct.test_key.secret).await.unwrap();
    let live = svc.authenticate(&acct.live_key.secret).await.unwrap();
    World {
        svc,
        clock,
        store,
        blobs,
        test,
        live,
        account: acct.account.id,
        sql,
        _dir: dir,
    }
}

/// One signer, `Client`, with one signature field.
fn pdf() -> Vec<u8> {
    support::simple_pdf(&["Agreement", "{{signature:Client}}"])
}

fn upload(bytes: Vec<u8>) -> Upload {
    Upload {
        file_name: "agreement.pdf".into(),
        bytes: bytes.into(),
    }
}

fn client() -> Value {
    json!([{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}])
}

impl World {
    async fn envelope(&self, ctx: &AuthContext, body: Value) -> envelope_core::Result<EnvelopeId> {
        let file = body.get("template").is_none().then(|| upload(pdf()));
        let limits = self.svc.settings().limits.clone();
        let p = CreateEnvelopeParams::parse(Params::json(body)?, file, &limits)?;
        Ok(self.svc.create_envelope(ctx, p).await?.id)
    }

    async fn template(
        &self,
        ctx: &AuthContext,
        bytes: Vec<u8>,
    ) -> envelope_core::Result<TemplateId> {
        let limits = self.svc.settings().limits.clone();
        let p = CreateTemplateParams::parse(
            Params::json(json!({"name": "Agreement"}))?,
            Some(upload(bytes)),
            &limits,
        )?;
        Ok(self.svc.create_template(ctx, p).await?.id)
    }

    /// The blob keys an envelope holds, read from its record.
    async fn envelope_blobs(&self, ctx: &AuthContext, id: &str) -> Vec<String> {
        let rec = self
            .store
            .get_envelope(&ctx.scope(), &id.parse().unwrap())
            .await
            .unwrap();
        let rec = rec.expect("envelope record");
        [
            Some(&rec.original),
            rec.signed.as_ref(),
            rec.audit_trail.as_ref(),
        ]
        .into_iter()
        .flatten()
        .map(|f| f.blob.clone())
        .collect()
    }

    async fn template_blob(&self, ctx: &AuthContext, id: &str) -> String {
        let rec = self
            .store
            .get_template(&ctx.scope(), &id.parse().unwrap())
            .await
            .unwrap();
        rec.expect("template record").file.blob
    }

    async fn blob_exists(&self, key: &str) -> bool {
        self.blobs.get(key).await.unwrap().is_some()
    }

    async fn blob_count(&self) -> usize {
        self.blobs.list(None, 100_000).await.unwrap().len()
    }

    /// Signs the one signer of a sent envelope through a signing link (live mode has no test
    /// helper); returns the link's token.
    async fn sign(&self, ctx: &AuthContext, id: &EnvelopeId) -> String {
        let link = self.svc.signing_url(ctx, id, Some("Client")).await.unwrap();
        let token = link.url.rsplit('/').next().unwrap().to_string();
        let mut input = SignInput {
            consent: true,
            ..SignInput::default()
        };
        input.values.insert(
            "Client_signature".into(),
            SignerValue::Typed("Ada Lovelace".into()),
        );
        let env = self
            .svc
            .sign(&token, None, input, &ClientInfo::default())
            .await
            .unwrap();
        assert_eq!(env.status, EnvelopeStatus::Completed);
        token
    }

    async fn used(&self) -> u64 {
        self.svc.admin().storage_used(&self.account).await.unwrap()
    }

    fn advance(&self, by: Duration) {
        self.clock.advance(by);
    }
}

fn code<T: std::fmt::Debug>(r: envelope_core::Result<T>) -> &'static str {
    r.unwrap_err().code()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_data_is_deleted_once_the_clock_passes_the_limit() {
    for backend in BACKENDS {
        let w = world(backend, Retention::default()).await;
        let completed = w
            .envelope(&w.test, json!({"signers": client()}))
            .await
            .unwrap();
        w.svc.test_complete(&w.test, &completed).await.unwrap();
        let tmpl = w.template(&w.test, pdf()).await.unwrap();
        let from_tmpl = w
            .envelope(&w.test, json!({"signers": client(), "template": tmpl}))
            .await
            .unwrap();
        let live_env = w
            .envelope(&w.live, json!({"signers": client()}))
            .await
            .unwrap();
        let live_tmpl = w.template(&w.live, pdf()).await.unwrap();
        let test_blobs: Vec<String> = [
            w.envelope_blobs(&w.test, &completed).await,
            vec![w.template_blob(&w.test, &tmpl).await],
        ]
        .concat();
        assert_eq!(
            test_blobs.len(),
            4,
            "original, signed, audit trail, template"
        );
        let live_blobs = [
            w.envelope_blobs(&w.live, &live_env).await,
            vec![w.template_blob(&w.live, &live_tmpl).await],
        ]
        .concat();
        let live_bytes: u64 = 2 * pdf().len() as u64;
        assert!(w.used().await > live_bytes);
        // A test draft changed later than the rest: its own clock starts then.
        w.advance(Duration::days(20));
        let later = w
            .envelope(&w.test, json!({"signers": client(), "send": false}))
            .await
            .unwrap();

        // Day 30 minus a millisecond since the first changes: everything stays.
        w.advance(Duration::days(10) - Duration::milliseconds(1));
        let report = w.svc.retention_sweep().await.unwrap();
        assert_eq!(report.total(), 0, "{backend:?}: {report:?}");
        w.svc.get_envelope(&w.test, &completed).await.unwrap();

        // Day 30 and a millisecond: the old test data goes, with its files and events.
        w.advance(Duration::milliseconds(2));
        let report = w.svc.retention_sweep().await.unwrap();
        assert_eq!(
            (report.test_envelopes, report.test_templates, report.blobs),
            (2, 1, 4),
            "{backend:?}: {report:?}"
        );
        for id in [&completed, &from_tmpl] {
            assert_eq!(
                code(w.svc.get_envelope(&w.test, id).await),
                "resource_missing"
            );
        }
        assert_eq!(
            code(w.svc.get_template(&w.test, &tmpl).await),
            "resource_missing"
        );
        for key in &test_blobs {
            assert!(!w.blob_exists(key).await, "{backend:?}: {key} is left");
        }
        let all = ListParams {
            limit: 100,
            starting_after: None,
        };
        let events = w.svc.list_events(&w.test, &all, None).await.unwrap().data;
        assert!(
            events.iter().all(|e| e.data.object.id() == later.as_str()),
            "{backend:?}: events of deleted envelopes are gone"
        );
        // Live data, and the later test draft, stay.
        w.svc.get_envelope(&w.test, &later).await.unwrap();
        w.svc.get_envelope(&w.live, &live_env).await.unwrap();
        w.svc.get_template(&w.live, &live_tmpl).await.unwrap();
        for key in &live_blobs {
            assert!(w.blob_exists(key).await, "{backend:?}: live {key} is gone");
        }
        assert_eq!(w.used().await, live_bytes + pdf().len() as u64);

        // The draft goes 30 days after its own change.
        w.advance(Duration::days(20));
        let report = w.svc.retention_sweep().await.unwrap();
        assert_eq!(report.test_envelopes, 1, "{backend:?}");
        assert_eq!(
            code(w.svc.get_envelope(&w.test, &later).await),
            "resource_missing"
        );
        assert_eq!(w.used().await, live_bytes);
        assert_eq!(w.blob_count().await, live_blobs.len(), "{backend:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retention_can_be_turned_off_and_works_off_a_backlog_in_batches() {
    for backend in BACKENDS {
        let off = Retention {
            test_days: None,
            ..Retention::default()
        };
        let w = world(backend, off).await;
        let id = w
            .envelope(&w.test, json!({"signers": client()}))
            .await
            .unwrap();
        w.advance(Duration::days(400));
        assert_eq!(w.svc.retention_sweep().await.unwrap().total(), 0);
        w.svc.get_envelope(&w.test, &id).await.unwrap();

        // More stale envelopes than one store batch (100) holds: one sweep takes them all.
        let w = world(backend, Retention::default()).await;
        let template = w.template(&w.test, pdf()).await.unwrap();
        for _ in 0..230 {
            w.envelope(
                &w.test,
                json!({"signers": client(), "template": template, "send": false}),
            )
            .await
            .unwrap();
        }
        w.advance(Duration::days(31));
        let report = w.svc.retention_sweep().await.unwrap();
        assert_eq!(
            (report.test_envelopes, report.test_templates, report.blobs),
            (230, 1, 1),
            "{backend:?}"
        );
        assert_eq!(w.blob_count().await, 0);
        assert_eq!(w.used().await, 0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_retention_deletes_the_pdfs_of_finished_envelopes_and_keeps_the_records() {
    for backend in BACKENDS {
        let retention = Retention {
            live_days: Some(10),
            ..Retention::default()
        };
        let w = world(backend, retention).await;
        let completed = w
            .envelope(&w.live, json!({"signers": client()}))
            .await
            .unwrap();
        let token = w.sign(&w.live, &completed).await;
        // The signer's link shows the signed copy until the files go.
        w.svc.signing_document(&token, None).await.unwrap();
        let tmpl = w.template(&w.live, pdf()).await.unwrap();
        let voided = w
            .envelope(&w.live, json!({"signers": client(), "template": tmpl}))
            .await
            .unwrap();
        w.svc.void_envelope(&w.live, &voided, None).await.unwrap();
        let sent = w
            .envelope(&w.live, json!({"signers": client()}))
            .await
            .unwrap();
        let completed_blobs = w.envelope_blobs(&w.live, &completed).await;
        let template_blob = w.template_blob(&w.live, &tmpl).await;
        let sent_blobs = w.envelope_blobs(&w.live, &sent).await;
        let link = w
            .svc
            .envelope_file_link(&w.live, &completed, FileKind::Signed)
            .await
            .unwrap();
        let before = w.used().await;

        w.advance(Duration::days(9));
        assert_eq!(w.svc.retention_sweep().await.unwrap().live_envelopes, 0);
        w.advance(Duration::days(1) + Duration::milliseconds(1));
        let report = w.svc.retention_sweep().await.unwrap();
        assert_eq!(
            (report.live_envelopes, report.blobs, report.test_envelopes),
            (2, 3, 0),
            "{backend:?}: {report:?}"
        );

        // The records stay, say so, and every download answers file_deleted.
        let env = w.svc.get_envelope(&w.live, &completed).await.unwrap();
        assert_eq!(env.status, EnvelopeStatus::Completed);
        assert_eq!(env.files_deleted_at, Some(w.clock_now()));
        assert!(!env.files.signed && !env.files.audit_trail);
        for kind in [FileKind::Original, FileKind::Signed, FileKind::AuditTrail] {
            let e = w
                .svc
                .envelope_file_link(&w.live, &completed, kind)
                .await
                .unwrap_err();
            assert_eq!(e.code(), "file_deleted", "{kind:?}");
            assert!(e.to_string().contains("retention"), "{e}");
        }
        assert_eq!(
            code(w.svc.signing_document(&token, None).await),
            "file_deleted"
        );
        let e = w
            .svc
            .envelope_file_link(&w.live, &voided, FileKind::Signed)
            .await
            .unwrap_err();
        assert_eq!(
            e.code(),
            "file_not_ready",
            "a voided envelope never had one"
        );
        // A link made before: the blob is gone and so is the link.
        let token = link.url.rsplit('/').next().unwrap();
        assert_eq!(code(w.svc.open_file_link(token).await), "resource_missing");
        let all = ListParams {
            limit: 100,
            starting_after: None,
        };
        let listed = w.svc.list_envelopes(&w.live, &all, None).await.unwrap();
        assert_eq!(listed.data.len(), 3);
        let events = w.svc.list_events(&w.live, &all, None).await.unwrap();
        assert!(
            events
                .data
                .iter()
                .any(|e| e.data.object.id() == completed.as_str())
        );
        for key in &completed_blobs {
            assert!(!w.blob_exists(key).await, "{backend:?}");
        }
        // The voided envelope's original is the template's file: kept for the template.
        assert!(w.blob_exists(&template_blob).await);
        w.svc
            .template_file_link(&w.live, &tmpl)
            .await
            .expect("the template's file is still served");
        // Unfinished envelopes keep their files.
        for key in &sent_blobs {
            assert!(w.blob_exists(key).await);
        }
        let completed_bytes: u64 = {
            // original + signed + audit trail, as the usage counted them
            before - w.used().await
        };
        assert!(completed_bytes > pdf().len() as u64, "{backend:?}");
        // Nothing more to do on the next sweep.
        assert_eq!(w.svc.retention_sweep().await.unwrap().total(), 0);
    }
}

impl World {
    fn clock_now(&self) -> Timestamp {
        use envelope_core::Clock;
        self.clock.now()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orphaned_blobs_go_after_the_grace_period() {
    for backend in BACKENDS {
        let w = world(backend, Retention::default()).await;
        let held = w
            .envelope(&w.live, json!({"signers": client()}))
            .await
            .unwrap();
        let held_blob = w.envelope_blobs(&w.live, &held).await.remove(0);
        w.blobs
            .put(
                "blob_orphan",
                bytes::Bytes::from_static(b"%PDF-"),
                w.clock_now(),
            )
            .await
            .unwrap();
        w.advance(Duration::minutes(59));
        assert_eq!(w.svc.retention_sweep().await.unwrap().orphan_blobs, 0);
        assert!(
            w.blob_exists("blob_orphan").await,
            "an upload may be in flight"
        );
        w.advance(Duration::minutes(2));
        assert_eq!(w.svc.retention_sweep().await.unwrap().orphan_blobs, 1);
        assert!(!w.blob_exists("blob_orphan").await, "{backend:?}");
        assert!(w.blob_exists(&held_blob).await, "a held blob stays");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creates_past_the_quota_are_refused_before_anything_is_written() {
    for backend in BACKENDS {
        let w = world(backend, Retention::default()).await;
        let size = pdf().len() as u64;
        w.svc
            .admin()
            .set_storage_quota(&w.account, Some(2 * size))
            .await
            .unwrap();
        // A fresh authentication reads the account's quota, as every request does.
        let test = w.svc.authenticate(&key_of(&w, Mode::Test).await).await;
        let live = w.svc.authenticate(&key_of(&w, Mode::Live).await).await;
        let w = World {
            test: test.unwrap(),
            live: live.unwrap(),
            ..w
        };
        let tmpl = w.template(&w.live, pdf()).await.unwrap();
        let first = w
            .envelope(&w.test, json!({"signers": client()}))
            .await
            .unwrap();
        assert_eq!(w.used().await, 2 * size);
        let blobs = w.blob_count().await;
        let e = w
            .envelope(&w.live, json!({"signers": client()}))
            .await
            .unwrap_err();
        assert_eq!(e.code(), "storage_quota_exceeded", "{backend:?}");
        assert!(e.to_string().contains("storage quota"), "{e}");
        let e = w.template(&w.test, pdf()).await.unwrap_err();
        assert_eq!(e.code(), "storage_quota_exceeded");
        assert_eq!(w.blob_count().await, blobs, "no blob was written");
        // An envelope from a template adds no bytes: allowed at the quota.
        w.envelope(
            &w.live,
            json!({"signers": client(), "template": tmpl, "send": false}),
        )
        .await
        .unwrap();
        // Test data counts too, and retention gives its bytes back.
        w.advance(Duration::days(31));
        w.svc.retention_sweep().await.unwrap();
        assert_eq!(
            code(w.svc.get_envelope(&w.test, &first).await),
            "resource_missing"
        );
        assert_eq!(w.used().await, size);
        w.envelope(&w.live, json!({"signers": client()}))
            .await
            .unwrap();
        // Clearing the quota lifts it.
        w.svc
            .admin()
            .set_storage_quota(&w.account, None)
            .await
            .unwrap();
        let live = w
            .svc
            .authenticate(&key_of(&w, Mode::Live).await)
            .await
            .unwrap();
        w.envelope(&live, json!({"signers": client()}))
            .await
            .unwrap();
    }
}

/// A new key of the account in `mode` (keys are shown once, so the test makes its own).
async fn key_of(w: &World, mode: Mode) -> String {
    w.svc
        .admin()
        .create_key(&w.account, mode)
        .await
        .unwrap()
        .secret
}

/// The bytes of the SQLite database file and its WAL (empty for the memory backend).
fn database_bytes(w: &World) -> Vec<u8> {
    let Some(dir) = &w._dir else {
        return Vec::new();
    };
    let mut bytes = std::fs::read(dir.path().join("envelope.db")).unwrap();
    if let Ok(wal) = std::fs::read(dir.path().join("envelope.db-wal")) {
        bytes.extend(wal);
    }
    bytes
}

fn holds(bytes: &[u8], needle: &str) -> bool {
    bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Live retention empties the records it deletes the files of: what signers typed and drew,
/// field values, the sender's data and message, IP addresses, browsers and decline reasons
/// are gone from the record, its events and (SQLite, with `secure_delete`) the database
/// file's bytes, while who signed or declined, when, and the documents' digests stay, and the
/// envelope still reads through the API.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_retention_erases_personal_data_and_keeps_the_evidence() {
    for backend in BACKENDS {
        let retention = Retention {
            live_days: Some(10),
            ..Retention::default()
        };
        let w = world(backend, retention).await;
        let marker = format!("Privacy{}Marker", envelope_core::ids::random_base62(10));
        let ip = "203.0.113.77";
        let tagged = support::simple_pdf(&[
            "Agreement",
            "{{data:salary}}",
            "{{text:Client:note}}",
            "{{signature:Client}}",
        ]);
        let create = |body: Value| {
            let limits = w.svc.settings().limits.clone();
            let p = CreateEnvelopeParams::parse(
                Params::json(body).unwrap(),
                Some(upload(tagged.clone())),
                &limits,
            )
            .unwrap();
            w.svc.create_envelope(&w.live, p)
        };
        let body = json!({
            "signers": client(),
            "data": {"salary": format!("salary of {marker}")},
            "subject": format!("Contract {marker}"),
            "message": format!("Dear Ada, {marker}"),
            "metadata": {"order": "ord_1"},
        });
        let signed = create(body.clone()).await.unwrap().id;
        let declined = create(body).await.unwrap().id;
        let client_info = ClientInfo {
            ip_address: Some(ip.into()),
            user_agent: Some(format!("Browser/{marker}")),
        };
        let token = |id: EnvelopeId| {
            let (svc, live) = (&w.svc, &w.live);
            async move {
                let link = svc.signing_url(live, &id, Some("Client")).await.unwrap();
                link.url.rsplit('/').next().unwrap().to_string()
            }
        };
        let mut input = SignInput {
            consent: true,
            ..SignInput::default()
        };
        input
            .values
            .insert("note".into(), SignerValue::Text(format!("note {marker}")));
        input.values.insert(
            "Client_signature".into(),
            SignerValue::Typed(format!("Ada {marker}")),
        );
        let t = token(signed.clone()).await;
        w.svc.sign(&t, None, input, &client_info).await.unwrap();
        let t = token(declined.clone()).await;
        let reason = format!("my reason is {marker}");
        w.svc
            .decline(&t, None, Some(&reason), &client_info)
            .await
            .unwrap();
        let before_signed = w.svc.get_envelope(&w.live, &signed).await.unwrap();
        let before_declined = w.svc.get_envelope(&w.live, &declined).await.unwrap();
        assert_eq!(
            before_declined.signers[0].decline_reason.as_deref(),
            Some(reason.as_str())
        );
        if w.sql.is_some() {
            // The check below can fail: the record is in the database's bytes (file or WAL).
            let bytes = database_bytes(&w);
            assert!(holds(&bytes, &marker) && holds(&bytes, ip), "{backend:?}");
        }

        // The signer's and the sender's emails are sent in the background and their outcomes
        // written to the records: a sweep that meets such a write leaves that record to the
        // next sweep, so the emails settle first.
        w.svc.settle_emails().await;
        w.advance(Duration::days(10) + Duration::milliseconds(1));
        let report = w.svc.retention_sweep().await.unwrap();
        assert_eq!(report.live_envelopes, 2, "{backend:?}: {report:?}");

        for (id, before) in [(&signed, &before_signed), (&declined, &before_declined)] {
            let rec = w
                .store
                .get_envelope(&w.live.scope(), id)
                .await
                .unwrap()
                .unwrap();
            let stored = serde_json::to_string(&rec).unwrap();
            for gone in [marker.as_str(), ip] {
                assert!(!stored.contains(gone), "{backend:?}: {gone} in {stored}");
            }
            let s = &rec.signers[0];
            assert!(s.values.is_empty() && s.ip_address.is_none() && s.user_agent.is_none());
            assert!(rec.data.is_empty() && rec.subject.is_none() && rec.message.is_none());
            // The evidence of what happened stays, and the API still reads the envelope.
            let after = w.svc.get_envelope(&w.live, id).await.unwrap();
            assert_eq!(after.status, before.status);
            assert_eq!(after.documents, before.documents, "names and digests");
            assert_eq!(after.metadata, before.metadata);
            assert_eq!(after.created_at, before.created_at);
            let (a, b) = (&after.signers[0], &before.signers[0]);
            assert_eq!(
                (
                    &a.id,
                    &a.name,
                    &a.email,
                    a.status,
                    a.signed_at,
                    a.declined_at
                ),
                (
                    &b.id,
                    &b.name,
                    &b.email,
                    b.status,
                    b.signed_at,
                    b.declined_at
                )
            );
            assert!(a.decline_reason.is_none());
            assert_eq!(after.files_deleted_at, Some(w.clock_now()));
            assert_eq!(
                code(
                    w.svc
                        .envelope_file_link(&w.live, id, FileKind::Original)
                        .await
                ),
                "file_deleted"
            );
        }
        let after = w.svc.get_envelope(&w.live, &declined).await.unwrap();
        assert_eq!(after.void_reason.as_deref(), Some("declined by Client"));
        // The events' snapshots lost the decline reason too.
        let all = ListParams {
            limit: 100,
            starting_after: None,
        };
        let events = w.svc.list_events(&w.live, &all, None).await.unwrap();
        assert!(events.data.len() >= 4);
        let listed = serde_json::to_string(&events.data).unwrap();
        assert!(!listed.contains(&marker), "{backend:?}: {listed}");
        if let Some(sql) = &w.sql {
            // The database file keeps no copy in freed space (secure_delete) once the WAL is
            // copied back.
            sql.close().await;
            let bytes = database_bytes(&w);
            assert!(!holds(&bytes, &marker), "{backend:?}: marker in the file");
            assert!(!holds(&bytes, ip), "{backend:?}: IP in the file");
        }
    }
}
