//! The seal upgrade sweep (extensions E10) through the `SigningService`, with a manual clock and
//! a timestamp authority that can be switched off, on the in-memory store and on SQLite: an
//! envelope completed while the authority is down is sealed PAdES B-B, and the sweep brings its
//! files to B-LTA on the retry schedule (each file grows by incremental updates, so the bytes
//! downloaded before stay a prefix of those downloaded after), gives up once the schedule is used
//! up, upgrades once when two processes on one SQLite file sweep together, and drops envelopes
//! whose files live retention deleted.
//!
//! No OCSP or CRL is needed: the development certificates are self-signed, so B-LT's Document
//! Security Store holds the certificates alone and the revocation source stays empty.

use envelope_testkit::pdf as support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use async_trait::async_trait;
use chrono::Duration;
use envelope_core::error::BoxError;
use envelope_core::ids::EnvelopeId;
use envelope_core::model::{
    Envelope, EnvelopeRecord, EnvelopeSeal, EnvelopeStatus, EventType, SealLevel, SignerValue,
};
use envelope_core::seal::{
    LocalSealer, LocalTimestampAuthority, MemoryRevocationSource, RevocationFetcher, Sealer,
    SigningIdentity, TimestampAuthority,
};
use envelope_core::service::{
    AuthContext, ClientInfo, CreateEnvelopeParams, FileKind, ListParams, Params, Retention,
    SealSettings, SealSweepReport, SignInput, Upload,
};
use envelope_core::store::{BlobStore, MemoryBlobStore, MemoryStore, SqlStore, Store};
use envelope_core::{Clock, ManualClock, Settings, SigningService, SystemClock, Timestamp};
use serde_json::json;
use sha2::{Digest, Sha256};
use tokio::sync::{Notify, Semaphore};

/// A timestamp authority that can be switched off: then every exchange fails as a refused
/// connection does. It counts what it answered and what it refused, and can hold its answers
/// from a given one on until the test releases them.
#[derive(Debug)]
struct SwitchableAuthority {
    authority: LocalTimestampAuthority,
    on: AtomicBool,
    answered: AtomicUsize,
    refused: AtomicUsize,
    /// Answers from this number on (counting from 1) wait for a permit of `release`; 0: none.
    hold_from: AtomicUsize,
    /// Told when an answer starts waiting.
    held: Notify,
    release: Semaphore,
}

impl SwitchableAuthority {
    fn switch(&self, on: bool) {
        self.on.store(on, Ordering::SeqCst);
    }
    /// Holds the `n`th answer (from 1) and those after it until [`Self::release`].
    fn hold_from(&self, n: usize) {
        self.hold_from.store(n, Ordering::SeqCst);
    }
    fn release(&self) {
        self.release.add_permits(1);
    }
    fn answered(&self) -> usize {
        self.answered.load(Ordering::SeqCst)
    }
    fn refused(&self) -> usize {
        self.refused.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl TimestampAuthority for SwitchableAuthority {
    async fn exchange(&self, request: Vec<u8>) -> Result<Vec<u8>, BoxError> {
        if !self.on.load(Ordering::SeqCst) {
            self.refused.fetch_add(1, Ordering::SeqCst);
            return Err("connection refused (the authority is switched off)".into());
        }
        let n = self.answered.fetch_add(1, Ordering::SeqCst) + 1;
        let hold = self.hold_from.load(Ordering::SeqCst);
        if hold != 0 && n >= hold {
            self.held.notify_one();
            // Given back when dropped: once released, every later answer goes through.
            let _permit = self.release.acquire().await?;
        }
        self.authority.exchange(request).await
    }
}

#[derive(Clone, Copy, Debug)]
enum Backend {
    Memory,
    Sqlite,
}

const BACKENDS: [Backend; 2] = [Backend::Memory, Backend::Sqlite];

/// What every service of a test shares: the clock, the authority (off at first), the sealers
/// that use it, and the revocation fetcher over an empty source.
struct Parts {
    clock: Arc<ManualClock>,
    tsa: Arc<SwitchableAuthority>,
    live_sealer: Arc<dyn Sealer>,
    test_sealer: Arc<dyn Sealer>,
    revocation: Arc<RevocationFetcher>,
}

fn parts() -> Parts {
    let clock = Arc::new(ManualClock::new(SystemClock.now()));
    let tsa_id = SigningIdentity::generate_timestamp_authority("Envelope sweep test TSA").unwrap();
    let tsa = Arc::new(SwitchableAuthority {
        authority: LocalTimestampAuthority::new(tsa_id.identity).with_clock(clock.clone()),
        on: AtomicBool::new(false),
        answered: AtomicUsize::new(0),
        refused: AtomicUsize::new(0),
        hold_from: AtomicUsize::new(0),
        held: Notify::new(),
        release: Semaphore::new(0),
    });
    let sealer = |name: &str| -> Arc<dyn Sealer> {
        let id = SigningIdentity::generate_development(name).unwrap();
        Arc::new(LocalSealer::new(id.identity).with_timestamps(tsa.clone()))
    };
    let revocation = Arc::new(
        RevocationFetcher::new(Arc::new(MemoryRevocationSource::new())).with_clock(clock.clone()),
    );
    Parts {
        live_sealer: sealer("Envelope sweep live seal"),
        test_sealer: sealer("Envelope sweep test seal"),
        clock,
        tsa,
        revocation,
    }
}

fn service(
    parts: &Parts,
    store: Arc<dyn Store>,
    blobs: Arc<dyn BlobStore>,
    retention: Retention,
) -> SigningService {
    SigningService::builder()
        .store(store)
        .blobs(blobs)
        .clock(parts.clock.clone())
        .sealer(parts.live_sealer.clone())
        .test_sealer(parts.test_sealer.clone())
        .revocation(parts.revocation.clone())
        .settings(Settings {
            seal: SealSettings {
                level: None,
                retry_schedule: "1m,5m".parse().unwrap(),
            },
            retention,
            ..Settings::default()
        })
        .build()
}

struct World {
    svc: SigningService,
    store: Arc<dyn Store>,
    blobs: Arc<dyn BlobStore>,
    parts: Parts,
    test: AuthContext,
    live: AuthContext,
    _dir: Option<tempfile::TempDir>,
}

async fn world(backend: Backend, retention: Retention) -> World {
    let parts = parts();
    let (store, blobs, dir): (Arc<dyn Store>, Arc<dyn BlobStore>, _) = match backend {
        Backend::Memory => (
            Arc::new(MemoryStore::new()),
            Arc::new(MemoryBlobStore::new()),
            None,
        ),
        Backend::Sqlite => {
            let dir = tempfile::tempdir().unwrap();
            let sql = SqlStore::open_sqlite(dir.path().join("envelope.db"))
                .await
                .unwrap();
            (Arc::new(sql.clone()), Arc::new(sql.blobs()), Some(dir))
        }
    };
    let svc = service(&parts, store.clone(), blobs.clone(), retention);
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let test = svc.authenticate(&acct.test_key.secret).await.unwrap();
    let live = svc.authenticate(&acct.live_key.secret).await.unwrap();
    World {
        svc,
        store,
        blobs,
        parts,
        test,
        live,
        _dir: dir,
    }
}

/// A sent envelope for one signer, `Client`, with one signature field.
async fn create(svc: &SigningService, ctx: &AuthContext) -> EnvelopeId {
    let body = json!({
        "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
    });
    let file = Upload {
        file_name: "agreement.pdf".into(),
        bytes: support::simple_pdf(&["Agreement", "{{signature:Client}}"]).into(),
    };
    let limits = svc.settings().limits.clone();
    let p = CreateEnvelopeParams::parse(Params::json(body).unwrap(), Some(file), &limits).unwrap();
    svc.create_envelope(ctx, p).await.unwrap().id
}

/// Completes a sent test envelope through the test helper and waits for the emails it sends (their
/// delivery is recorded on the envelope, a write that would race the sweep's claim).
async fn complete(svc: &SigningService, ctx: &AuthContext, id: &EnvelopeId) -> Envelope {
    let env = svc.test_complete(ctx, id).await.unwrap();
    svc.settle_emails().await;
    env
}

/// Signs the one signer of a sent live envelope through its signing link (live mode has no test
/// helper), and waits for the emails that the completion sends.
async fn sign(svc: &SigningService, ctx: &AuthContext, id: &EnvelopeId) -> Envelope {
    let link = svc.signing_url(ctx, id, Some("Client")).await.unwrap();
    let token = link.url.rsplit('/').next().unwrap();
    let mut input = SignInput {
        consent: true,
        ..SignInput::default()
    };
    input.values.insert(
        "Client_signature".into(),
        SignerValue::Typed("Ada Lovelace".into()),
    );
    let env = svc
        .sign(token, None, input, &ClientInfo::default())
        .await
        .unwrap();
    svc.settle_emails().await;
    env
}

/// The file of `kind` as a download link gives it.
async fn download(
    svc: &SigningService,
    ctx: &AuthContext,
    id: &EnvelopeId,
    kind: FileKind,
) -> Vec<u8> {
    let link = svc.envelope_file_link(ctx, id, kind).await.unwrap();
    let token = link.url.rsplit('/').next().unwrap();
    svc.open_file_link(token).await.unwrap().1.to_vec()
}

/// The envelope's `envelope.seal_upgraded` events.
async fn upgrade_events(svc: &SigningService, ctx: &AuthContext, id: &EnvelopeId) -> usize {
    let all = ListParams {
        limit: 100,
        starting_after: None,
    };
    let kind = EventType::SealUpgraded.as_str();
    let events = svc.list_events(ctx, &all, Some(kind)).await.unwrap().data;
    assert!(events.iter().all(|e| e.kind == EventType::SealUpgraded));
    events
        .iter()
        .filter(|e| e.data.object.id() == id.as_str())
        .count()
}

async fn record(store: &Arc<dyn Store>, ctx: &AuthContext, id: &EnvelopeId) -> EnvelopeRecord {
    store
        .get_envelope(&ctx.scope(), id)
        .await
        .unwrap()
        .expect("envelope record")
}

/// Whether the store would hand the envelope to a sweep at any time in the next ten years.
async fn ever_due(store: &Arc<dyn Store>, now: Timestamp, id: &EnvelopeId) -> bool {
    let far = now + Duration::days(3650);
    let due = store.seal_upgrades_due(far, 1000).await.unwrap();
    due.iter().any(|r| r.id == *id)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn b_b_of_b_lta() -> Option<EnvelopeSeal> {
    Some(EnvelopeSeal {
        level: SealLevel::BB,
        target_level: SealLevel::BLta,
    })
}

/// The signed copy and the audit trail, as downloads give them.
async fn files(w: &World, ctx: &AuthContext, id: &EnvelopeId) -> [Vec<u8>; 2] {
    [
        download(&w.svc, ctx, id, FileKind::Signed).await,
        download(&w.svc, ctx, id, FileKind::AuditTrail).await,
    ]
}

/// Completed while the authority is down: B-B, due a minute later. Not due at once; once the
/// authority is back and the minute has passed, one sweep brings both files to B-LTA by appending
/// a document timestamp, the DSS and a second document timestamp, with one
/// `envelope.seal_upgraded`; later sweeps find nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_b_b_envelope_is_upgraded_to_b_lta_on_schedule() {
    for backend in BACKENDS {
        let w = world(backend, Retention::default()).await;
        let id = create(&w.svc, &w.test).await;
        let completed_at = w.parts.clock.now();
        let env = complete(&w.svc, &w.test, &id).await;
        assert_eq!(env.status, EnvelopeStatus::Completed);
        assert_eq!(env.seal, b_b_of_b_lta(), "{backend:?}");
        assert!(w.parts.tsa.refused() > 0, "the seal asked the authority");
        let seal = record(&w.store, &w.test, &id).await.seal.unwrap();
        assert_eq!(seal.documents, [SealLevel::BB]);
        assert_eq!(seal.audit_trail, SealLevel::BB);
        assert_eq!(seal.upgrade_attempts, 0);
        assert_eq!(
            seal.upgrade_due_at,
            Some(completed_at + Duration::minutes(1))
        );
        let before = files(&w, &w.test, &id).await;

        // Not due yet, even with the authority back.
        w.parts.tsa.switch(true);
        w.parts.clock.advance(Duration::seconds(59));
        let report = w.svc.seal_sweep().await.unwrap();
        assert_eq!(report, SealSweepReport::default(), "{backend:?}");
        assert_eq!(w.parts.tsa.answered(), 0);

        w.parts.clock.advance(Duration::seconds(1));
        let report = w.svc.seal_sweep().await.unwrap();
        assert_eq!(
            report,
            SealSweepReport {
                upgraded: 1,
                improved: 0,
                unchanged: 0
            },
            "{backend:?}"
        );
        let env = w.svc.get_envelope(&w.test, &id).await.unwrap();
        assert_eq!(env.status, EnvelopeStatus::Completed);
        assert_eq!(
            env.seal,
            Some(EnvelopeSeal {
                level: SealLevel::BLta,
                target_level: SealLevel::BLta,
            })
        );
        let rec = record(&w.store, &w.test, &id).await;
        let seal = rec.seal.clone().unwrap();
        assert_eq!(seal.documents, [SealLevel::BLta]);
        assert_eq!(seal.audit_trail, SealLevel::BLta);
        assert_eq!(seal.upgrade_attempts, 1);
        assert_eq!(seal.upgrade_due_at, None);
        assert!(
            seal.archive_expires_at.is_some(),
            "renewal watches the document timestamps"
        );
        // Two document timestamps per file (B-T, then B-LTA over the DSS).
        assert_eq!(w.parts.tsa.answered(), 4, "{backend:?}");

        let after = files(&w, &w.test, &id).await;
        for (name, (old, new)) in ["signed copy", "audit trail"]
            .iter()
            .zip(before.iter().zip(&after))
        {
            assert!(new.len() > old.len(), "{backend:?}: the {name} grew");
            assert!(
                new.starts_with(old),
                "{backend:?}: the {name} keeps its bytes"
            );
            let appended = String::from_utf8_lossy(&new[old.len()..]);
            assert!(appended.contains("/DSS"), "{backend:?}: the {name}'s DSS");
            let signatures = envelope_core::pdf::signatures(new).unwrap();
            let kinds: Vec<bool> = signatures.iter().map(|s| s.doc_timestamp).collect();
            assert_eq!(kinds, [false, true, true], "{backend:?}: the {name}");
        }
        let signed = rec.signed.as_ref().unwrap();
        assert_eq!(signed.size as usize, after[0].len());
        assert_eq!(signed.sha256, hex(&Sha256::digest(&after[0])));
        let audit = rec.audit_trail.as_ref().unwrap();
        assert_eq!(audit.size as usize, after[1].len());
        assert_eq!(audit.sha256, hex(&Sha256::digest(&after[1])));
        assert_eq!(upgrade_events(&w.svc, &w.test, &id).await, 1);

        // Nothing more to do, now or later.
        assert_eq!(
            w.svc.seal_sweep().await.unwrap(),
            SealSweepReport::default()
        );
        w.parts.clock.advance(Duration::hours(1));
        assert_eq!(
            w.svc.seal_sweep().await.unwrap(),
            SealSweepReport::default()
        );
        assert!(!ever_due(&w.store, w.parts.clock.now(), &id).await);
        assert_eq!(upgrade_events(&w.svc, &w.test, &id).await, 1);
        assert_eq!(files(&w, &w.test, &id).await, after);
    }
}

/// The authority stays down: the attempt at 1 minute plans the next 5 minutes later, the attempt
/// then finds the schedule used up and stops asking. The envelope stays completed at B-B, its
/// files as they were, and no `envelope.seal_upgraded` is recorded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_used_up_schedule_leaves_the_envelope_at_its_level() {
    for backend in BACKENDS {
        let w = world(backend, Retention::default()).await;
        let id = create(&w.svc, &w.test).await;
        let env = complete(&w.svc, &w.test, &id).await;
        assert_eq!(env.seal, b_b_of_b_lta());
        let before = files(&w, &w.test, &id).await;

        w.parts.clock.advance(Duration::minutes(1));
        let refused = w.parts.tsa.refused();
        let report = w.svc.seal_sweep().await.unwrap();
        assert_eq!(
            report,
            SealSweepReport {
                upgraded: 0,
                improved: 0,
                unchanged: 1
            },
            "{backend:?}"
        );
        assert!(w.parts.tsa.refused() > refused, "the sweep asked again");
        let seal = record(&w.store, &w.test, &id).await.seal.unwrap();
        assert_eq!(seal.documents, [SealLevel::BB]);
        assert_eq!(seal.audit_trail, SealLevel::BB);
        assert_eq!(seal.upgrade_attempts, 1);
        assert_eq!(
            seal.upgrade_due_at,
            Some(w.parts.clock.now() + Duration::minutes(5)),
            "{backend:?}"
        );
        // Not before the five minutes.
        w.parts
            .clock
            .advance(Duration::minutes(5) - Duration::milliseconds(1));
        assert_eq!(
            w.svc.seal_sweep().await.unwrap(),
            SealSweepReport::default()
        );

        w.parts.clock.advance(Duration::milliseconds(1));
        let report = w.svc.seal_sweep().await.unwrap();
        assert_eq!(report.unchanged, 1, "{backend:?}: {report:?}");
        assert_eq!(report.total(), 1);
        let rec = record(&w.store, &w.test, &id).await;
        let seal = rec.seal.clone().unwrap();
        assert_eq!(seal.upgrade_attempts, 2);
        assert_eq!(
            seal.upgrade_due_at, None,
            "{backend:?}: the schedule is used up"
        );
        assert_eq!(seal.documents, [SealLevel::BB]);
        assert!(!ever_due(&w.store, w.parts.clock.now(), &id).await);

        // Even with the authority back, the sweep no longer looks at it.
        w.parts.tsa.switch(true);
        w.parts.clock.advance(Duration::days(1));
        assert_eq!(
            w.svc.seal_sweep().await.unwrap(),
            SealSweepReport::default()
        );
        assert_eq!(w.parts.tsa.answered(), 0);
        let env = w.svc.get_envelope(&w.test, &id).await.unwrap();
        assert_eq!(env.status, EnvelopeStatus::Completed);
        assert_eq!(env.seal, b_b_of_b_lta());
        assert_eq!(files(&w, &w.test, &id).await, before);
        assert_eq!(upgrade_events(&w.svc, &w.test, &id).await, 0);
    }
}

/// An attempt that fails outright (the signed copy's blob is gone, so there is nothing to extend)
/// is counted like one that gained nothing: the next is planned on the schedule, and once the
/// schedule is used up the sweep stops trying.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_attempts_follow_the_schedule_too() {
    for backend in BACKENDS {
        let w = world(backend, Retention::default()).await;
        let id = create(&w.svc, &w.test).await;
        complete(&w.svc, &w.test, &id).await;
        let rec = record(&w.store, &w.test, &id).await;
        let signed = rec.signed.as_ref().unwrap();
        assert!(w.blobs.delete(&signed.blob).await.unwrap());
        w.parts.tsa.switch(true);

        w.parts.clock.advance(Duration::minutes(1));
        let report = w.svc.seal_sweep().await.unwrap();
        assert_eq!(report.unchanged, 1, "{backend:?}: {report:?}");
        assert_eq!(report.total(), 1);
        let seal = record(&w.store, &w.test, &id).await.seal.unwrap();
        assert_eq!(seal.upgrade_attempts, 1);
        assert_eq!(
            seal.upgrade_due_at,
            Some(w.parts.clock.now() + Duration::minutes(5)),
            "{backend:?}: the schedule's next wait"
        );

        w.parts.clock.advance(Duration::minutes(5));
        let report = w.svc.seal_sweep().await.unwrap();
        assert_eq!(report.unchanged, 1, "{backend:?}: {report:?}");
        let seal = record(&w.store, &w.test, &id).await.seal.unwrap();
        assert_eq!(seal.upgrade_attempts, 2);
        assert_eq!(
            seal.upgrade_due_at, None,
            "{backend:?}: the schedule is used up"
        );
        assert_eq!(seal.documents, [SealLevel::BB]);

        w.parts.clock.advance(Duration::hours(1));
        assert_eq!(
            w.svc.seal_sweep().await.unwrap(),
            SealSweepReport::default()
        );
        assert!(!ever_due(&w.store, w.parts.clock.now(), &id).await);
        assert_eq!(upgrade_events(&w.svc, &w.test, &id).await, 0);
        let env = w.svc.get_envelope(&w.test, &id).await.unwrap();
        assert_eq!(env.status, EnvelopeStatus::Completed);
        assert_eq!(env.seal, b_b_of_b_lta());
    }
}

/// Two services on two connections to one SQLite file sweep at the same time: the compare-and-set
/// claim lets one of them upgrade each envelope, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_processes_on_one_sqlite_file_upgrade_once() {
    let parts = parts();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("envelope.db");
    let one_sql = SqlStore::open_sqlite(&path).await.unwrap();
    let two_sql = SqlStore::open_sqlite(&path).await.unwrap();
    let one_store: Arc<dyn Store> = Arc::new(one_sql.clone());
    let one = service(
        &parts,
        one_store.clone(),
        Arc::new(one_sql.blobs()),
        Retention::default(),
    );
    let two = service(
        &parts,
        Arc::new(two_sql.clone()),
        Arc::new(two_sql.blobs()),
        Retention::default(),
    );
    let acct = one.admin().create_account("Acme").await.unwrap();
    let ctx = one.authenticate(&acct.test_key.secret).await.unwrap();
    let mut ids = Vec::new();
    for _ in 0..3 {
        let id = create(&one, &ctx).await;
        let env = complete(&one, &ctx, &id).await;
        assert_eq!(env.seal, b_b_of_b_lta());
        ids.push(id);
    }

    parts.tsa.switch(true);
    parts.clock.advance(Duration::minutes(1));
    let (a, b) = tokio::join!(one.seal_sweep(), two.seal_sweep());
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.upgraded + b.upgraded, 3, "{a:?} {b:?}");
    assert_eq!(a.total() + b.total(), 3, "{a:?} {b:?}");
    for id in &ids {
        let rec = record(&one_store, &ctx, id).await;
        let seal = rec.seal.unwrap();
        assert_eq!(seal.upgrade_attempts, 1, "one claim per attempt");
        assert_eq!(seal.level(), SealLevel::BLta);
        assert_eq!(seal.upgrade_due_at, None);
        assert_eq!(upgrade_events(&one, &ctx, id).await, 1);
        assert_eq!(upgrade_events(&two, &ctx, id).await, 1);
        let signed = download(&one, &ctx, id, FileKind::Signed).await;
        assert_eq!(download(&two, &ctx, id, FileKind::Signed).await, signed);
    }
    // Two document timestamps for each of six files: none asked for twice.
    assert_eq!(parts.tsa.answered(), 12);
    let (a, b) = tokio::join!(one.seal_sweep(), two.seal_sweep());
    assert_eq!(a.unwrap().total() + b.unwrap().total(), 0);
}

/// Live retention deletes the PDFs of an envelope whose upgrade is pending: the envelope leaves
/// the sweep (no due time left), the authority is not asked, and no upgrade is recorded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_envelope_whose_files_retention_deleted_leaves_the_sweep() {
    for backend in BACKENDS {
        let w = world(backend, live_retention()).await;
        let id = create(&w.svc, &w.live).await;
        let env = sign(&w.svc, &w.live, &id).await;
        assert_eq!(env.status, EnvelopeStatus::Completed);
        assert_eq!(env.seal, b_b_of_b_lta(), "{backend:?}");

        w.parts
            .clock
            .advance(Duration::days(10) + Duration::milliseconds(1));
        let report = w.svc.retention_sweep().await.unwrap();
        assert_eq!(report.live_envelopes, 1, "{backend:?}: {report:?}");
        w.parts.tsa.switch(true);
        let report = w.svc.seal_sweep().await.unwrap();
        assert_eq!(report, SealSweepReport::default(), "{backend:?}");
        let rec = record(&w.store, &w.live, &id).await;
        assert!(rec.files_deleted_at.is_some());
        let seal = rec.seal.unwrap();
        assert_eq!(seal.upgrade_due_at, None, "{backend:?}");
        assert_eq!(seal.documents, [SealLevel::BB]);
        assert!(!ever_due(&w.store, w.parts.clock.now(), &id).await);
        assert_eq!(w.parts.tsa.answered(), 0);
        assert_eq!(upgrade_events(&w.svc, &w.live, &id).await, 0);
    }
}

/// Live retention deletes the PDFs while an attempt is under way (held in the authority's last
/// answer, every file already read): the attempt's files are not put on the record, which keeps
/// no due time and shows no upgrade; the files it stored are orphans that the retention sweep
/// removes after the grace period.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retention_during_an_attempt_wins() {
    for backend in BACKENDS {
        let w = world(backend, live_retention()).await;
        let id = create(&w.svc, &w.live).await;
        sign(&w.svc, &w.live, &id).await;
        w.parts
            .clock
            .advance(Duration::days(10) + Duration::milliseconds(1));

        // The audit trail's second document timestamp is the fourth answer.
        w.parts.tsa.switch(true);
        w.parts.tsa.hold_from(4);
        let svc = w.svc.clone();
        let sweep = tokio::spawn(async move { svc.seal_sweep().await });
        tokio::time::timeout(
            std::time::Duration::from_secs(60),
            w.parts.tsa.held.notified(),
        )
        .await
        .expect("the attempt reaches the audit trail's document timestamp");
        let claimed = record(&w.store, &w.live, &id).await.seal.unwrap();
        assert_eq!(claimed.upgrade_attempts, 1, "{backend:?}: claimed");
        let report = w.svc.retention_sweep().await.unwrap();
        assert_eq!(report.live_envelopes, 1, "{backend:?}: {report:?}");
        w.parts.tsa.release();
        let report = tokio::time::timeout(std::time::Duration::from_secs(60), sweep)
            .await
            .expect("the attempt ends")
            .unwrap()
            .unwrap();
        assert_eq!(report, SealSweepReport::default(), "{backend:?}");
        assert_eq!(w.parts.tsa.answered(), 4);

        let rec = record(&w.store, &w.live, &id).await;
        assert!(rec.files_deleted_at.is_some());
        let seal = rec.seal.unwrap();
        assert_eq!(seal.documents, [SealLevel::BB], "{backend:?}");
        assert_eq!(seal.audit_trail, SealLevel::BB);
        assert_eq!(seal.upgrade_due_at, None, "{backend:?}");
        assert!(!ever_due(&w.store, w.parts.clock.now(), &id).await);
        assert_eq!(upgrade_events(&w.svc, &w.live, &id).await, 0);
        let env = w.svc.get_envelope(&w.live, &id).await.unwrap();
        assert_eq!(env.status, EnvelopeStatus::Completed);
        assert_eq!(env.seal, b_b_of_b_lta());

        // The grown signed copy and audit trail, stored before the record was refused.
        w.parts
            .clock
            .advance(Duration::hours(1) + Duration::minutes(1));
        let report = w.svc.retention_sweep().await.unwrap();
        assert_eq!(report.orphan_blobs, 2, "{backend:?}: {report:?}");
    }
}

fn live_retention() -> Retention {
    Retention {
        live_days: Some(10),
        ..Retention::default()
    }
}
