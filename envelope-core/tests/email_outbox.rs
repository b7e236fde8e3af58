//! The email outbox through the service, with a manual clock and a mailer whose failures the
//! test controls: a mail outage delays emails without losing them, the retry schedule is kept,
//! a schedule used up (or a permanent refusal) shows as `failed` on the signer with the event
//! `envelope.email_failed`, an email of a process that died goes out from another process once
//! its lease ends, and a signing request that is no longer needed is canceled.
//!
//! Runs on the memory store and on a real SQLite file (the crash case needs two services on one
//! durable store).
//!
//! Also: the daily email budget (an email past it ends `failed` with `email_limit`, a failed
//! send keeps its place, two processes on one store share it) and fairness between accounts
//! (one account's burst does not hold up another account's email, neither in the worker's
//! batches nor in the sends of one process).

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use async_trait::async_trait;
use chrono::Duration;
use envelope_core::error::BoxError;
use envelope_core::mail::{Email, EmailKind, Mailer};
use envelope_core::model::{EmailFailure, EmailStatus, Envelope, EventType};
use envelope_core::service::{
    AuthContext, CreateEnvelopeParams, EmailDailyLimits, EmailSettings, Params, Upload,
};
use envelope_core::store::{MemoryBlobStore, SqlStore};
use envelope_core::{ManualClock, MemoryStore, Settings, SigningService, Store, Timestamp};
use serde_json::json;

const CONTRACT: &[u8] = include_bytes!("../../examples/contract.pdf");

/// A mailer that fails while `down` is set (like a relay that refuses connections), refuses
/// for good while `refuse` is set, hangs while `hang` is set, waits for a permit of `gate`
/// when one is set, and records what it sent.
#[derive(Default)]
struct FlakyMailer {
    down: AtomicBool,
    refuse: AtomicBool,
    hang: AtomicBool,
    gate: Mutex<Option<Arc<tokio::sync::Semaphore>>>,
    tries: AtomicU32,
    sent: Mutex<Vec<Email>>,
}

#[derive(Debug, thiserror::Error)]
#[error("connection refused")]
struct Down;

#[async_trait]
impl Mailer for FlakyMailer {
    async fn send(&self, email: &Email) -> Result<(), BoxError> {
        self.tries.fetch_add(1, Ordering::SeqCst);
        let gate = self.gate.lock().unwrap().clone();
        if let Some(gate) = gate {
            gate.acquire().await.unwrap().forget();
        }
        if self.hang.load(Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
        if self.refuse.load(Ordering::SeqCst) {
            return Err(envelope_core::mail::MailError::InvalidAddress {
                address: email.to.email.clone(),
                source: "x@".parse::<lettre::Address>().unwrap_err(),
            }
            .into());
        }
        if self.down.load(Ordering::SeqCst) {
            return Err(Down.into());
        }
        self.sent.lock().unwrap().push(email.clone());
        Ok(())
    }
}

impl FlakyMailer {
    fn sent(&self) -> Vec<Email> {
        self.sent.lock().unwrap().clone()
    }
}

struct World {
    svc: SigningService,
    mail: Arc<FlakyMailer>,
    clock: Arc<ManualClock>,
    ctx: AuthContext,
}

fn settings(schedule: &str) -> Settings {
    Settings {
        email: EmailSettings {
            retry_schedule: schedule.parse().unwrap(),
            ..EmailSettings::default()
        },
        ..Settings::default()
    }
}

/// A service (a process) on `store`, with its own mailer.
fn service_on(
    store: Arc<dyn Store>,
    clock: Arc<ManualClock>,
    schedule: &str,
) -> (SigningService, Arc<FlakyMailer>) {
    service_with(store, clock, settings(schedule))
}

/// The same with whole settings.
fn service_with(
    store: Arc<dyn Store>,
    clock: Arc<ManualClock>,
    settings: Settings,
) -> (SigningService, Arc<FlakyMailer>) {
    let mail = Arc::new(FlakyMailer::default());
    let svc = SigningService::builder()
        .store(store)
        .blobs(Arc::new(MemoryBlobStore::new()))
        .mailer(mail.clone())
        .clock(clock)
        .settings(settings)
        .build();
    (svc, mail)
}

async fn world_on(store: Arc<dyn Store>, clock: Arc<ManualClock>, schedule: &str) -> World {
    let (svc, mail) = service_on(store, clock.clone(), schedule);
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let ctx = svc.authenticate(&acct.test_key.secret).await.unwrap();
    World {
        svc,
        mail,
        clock,
        ctx,
    }
}

fn start() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap(),
    ))
}

async fn world(schedule: &str) -> World {
    world_on(Arc::new(MemoryStore::new()), start(), schedule).await
}

impl World {
    async fn create(&self) -> Envelope {
        let body = json!({
            "signers": [
                {"name": "Zoë Client", "email": "client@example.com"},
                {"name": "Paul Provider", "email": "provider@example.com"}
            ],
            "data": {"start_date": "2027-04-01"}
        });
        let upload = Upload {
            file_name: "contract.pdf".into(),
            bytes: CONTRACT.to_vec().into(),
        };
        let limits = self.svc.settings().limits.clone();
        let p = CreateEnvelopeParams::parse(Params::json(body).unwrap(), Some(upload), &limits)
            .unwrap();
        self.svc.create_envelope(&self.ctx, p).await.unwrap()
    }

    /// Creates one, and waits for the first attempts (made at once, in the background).
    async fn create_settled(&self) -> Envelope {
        let env = self.create().await;
        self.svc.settle_emails().await;
        env
    }

    async fn envelope(&self, id: &envelope_core::ids::EnvelopeId) -> Envelope {
        self.svc.settle_emails().await;
        self.svc.get_envelope(&self.ctx, id).await.unwrap()
    }

    /// One pass of the email worker, waited for.
    async fn poll(&self) -> usize {
        let n = self.svc.email_worker().poll().await.unwrap();
        self.svc.settle_emails().await;
        n
    }

    async fn events(&self, kind: EventType) -> Vec<envelope_core::model::Event> {
        let list = self
            .svc
            .list_events(
                &self.ctx,
                &envelope_core::service::ListParams {
                    limit: 100,
                    starting_after: None,
                },
                Some(kind.as_str()),
            )
            .await
            .unwrap();
        list.data
    }
}

#[tokio::test]
async fn an_outage_delays_emails_on_the_schedule_and_loses_none() {
    let w = world("1m,5m").await;
    w.mail.down.store(true, Ordering::SeqCst);
    let env = w.create_settled().await;

    // The first attempt failed; each signer shows it, with the next attempt a minute later.
    let seen = w.envelope(&env.id).await;
    for s in &seen.signers {
        let last = s.last_email.as_ref().expect("a queued email");
        assert_eq!(last.kind, EmailKind::SigningRequest);
        assert_eq!(last.status, EmailStatus::Pending);
        assert_eq!(last.attempts, 1);
        assert_eq!(
            last.last_error.as_deref(),
            Some("the mailer could not send the message")
        );
        assert_eq!(
            last.next_attempt_at,
            Some(seen.created_at + Duration::minutes(1))
        );
    }
    // Not due yet: the worker leaves them.
    w.clock.advance(Duration::seconds(59));
    assert_eq!(w.poll().await, 0);
    assert_eq!(w.mail.tries.load(Ordering::SeqCst), 2);

    // Due, mail still down: the second attempt fails, the third is five minutes later.
    w.clock.advance(Duration::seconds(1));
    assert_eq!(w.poll().await, 1, "one envelope's emails leased and sent");
    assert_eq!(w.mail.tries.load(Ordering::SeqCst), 4);
    let seen = w.envelope(&env.id).await;
    let last = seen.signers[0].last_email.clone().unwrap();
    assert_eq!((last.status, last.attempts), (EmailStatus::Pending, 2));

    // The relay is back: the third attempt sends both, with working links.
    w.mail.down.store(false, Ordering::SeqCst);
    w.clock.advance(Duration::minutes(5));
    assert_eq!(w.poll().await, 1);
    let sent = w.mail.sent();
    assert_eq!(sent.len(), 2);
    assert!(sent.iter().all(|e| e.kind == EmailKind::SigningRequest));
    let seen = w.envelope(&env.id).await;
    for s in &seen.signers {
        let last = s.last_email.as_ref().unwrap();
        assert_eq!((last.status, last.attempts), (EmailStatus::Sent, 3));
        assert_eq!(last.last_error, None);
        assert_eq!(last.next_attempt_at, None);
    }
    let url = sent[0]
        .text
        .split_whitespace()
        .find(|w| w.contains("/sign/"))
        .unwrap();
    let token = url.rsplit('/').next().unwrap();
    let session = w
        .svc
        .open_signing_link(token, None, &Default::default())
        .await
        .unwrap();
    assert_eq!(session.envelope.id, env.id);
    assert!(w.events(EventType::EmailFailed).await.is_empty());
    // Nothing is left to send.
    w.clock.advance(Duration::days(2));
    assert_eq!(w.poll().await, 0);
}

#[tokio::test]
async fn a_used_up_schedule_fails_the_email_with_an_event() {
    let w = world("1m").await;
    w.mail.down.store(true, Ordering::SeqCst);
    let env = w.create_settled().await;
    w.clock.advance(Duration::minutes(1));
    assert_eq!(w.poll().await, 1);
    let seen = w.envelope(&env.id).await;
    for s in &seen.signers {
        let last = s.last_email.as_ref().unwrap();
        assert_eq!((last.status, last.attempts), (EmailStatus::Failed, 2));
        assert_eq!(last.finished_at, Some(w.clock_now()));
        assert!(last.last_error.is_some());
    }
    let failed = w.events(EventType::EmailFailed).await;
    assert_eq!(failed.len(), 2, "one event per email");
    for ev in &failed {
        let email = ev.data.email.as_ref().expect("data.email");
        let signer = ev.data.signer.as_ref().expect("data.signer");
        assert_eq!(email.status, EmailStatus::Failed);
        assert_eq!(email.kind, EmailKind::SigningRequest);
        assert_eq!(ev.data.object.id(), env.id.as_str());
        let s = seen.signers.iter().find(|s| s.id == signer.id).unwrap();
        assert_eq!(s.last_email.as_ref().unwrap().id, email.id);
    }
    // Failed is final: later polls send nothing.
    w.mail.down.store(false, Ordering::SeqCst);
    w.clock.advance(Duration::days(1));
    assert_eq!(w.poll().await, 0);
    assert!(w.mail.sent().is_empty());
}

impl World {
    fn clock_now(&self) -> Timestamp {
        use envelope_core::Clock;
        self.clock.now()
    }
}

#[tokio::test]
async fn a_permanent_refusal_fails_at_once() {
    let w = world("1m,5m,15m").await;
    w.mail.refuse.store(true, Ordering::SeqCst);
    let env = w.create_settled().await;
    let seen = w.envelope(&env.id).await;
    let last = seen.signers[0].last_email.as_ref().unwrap();
    assert_eq!((last.status, last.attempts), (EmailStatus::Failed, 1));
    assert_eq!(
        last.last_error.as_deref(),
        Some("the email address is not valid")
    );
    assert_eq!(w.events(EventType::EmailFailed).await.len(), 2);
}

#[tokio::test]
async fn a_request_no_longer_needed_is_canceled_not_sent() {
    let w = world("1m").await;
    w.mail.down.store(true, Ordering::SeqCst);
    let env = w.create_settled().await;
    w.svc
        .void_envelope(&w.ctx, &env.id, Some("wrong document"))
        .await
        .unwrap();
    w.mail.down.store(false, Ordering::SeqCst);
    w.clock.advance(Duration::minutes(1));
    assert_eq!(w.poll().await, 1);
    // The void notices went out (those signers had been sent a request); the requests did not.
    let kinds: Vec<EmailKind> = w.mail.sent().iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [EmailKind::Voided, EmailKind::Voided]);
    let seen = w.envelope(&env.id).await;
    assert!(
        seen.signers
            .iter()
            .all(|s| s.last_email.as_ref().unwrap().kind == EmailKind::Voided)
    );
}

/// A process that committed an envelope and died before its email went out (the mailer hangs,
/// then the service is dropped): another process on the same SQLite file sends it once the
/// lease ends, and not before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_email_of_a_dead_process_goes_out_after_its_lease() {
    let dir = tempfile::tempdir().unwrap();
    let clock = start();
    let store: Arc<dyn Store> = Arc::new(
        SqlStore::open_sqlite(dir.path().join("envelope.db"))
            .await
            .unwrap(),
    );
    let dead = world_on(store.clone(), clock.clone(), "1m").await;
    dead.mail.hang.store(true, Ordering::SeqCst);
    let env = dead.create().await;
    // The first attempt hangs (the emails of one envelope go out one after the other); the
    // process "dies" with it.
    while dead.mail.tries.load(Ordering::SeqCst) < 1 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let acct = dead.ctx.clone();
    drop(dead);

    let (svc, mail) = service_on(store, clock.clone(), "1m");
    let other = World {
        svc,
        mail,
        clock,
        ctx: acct,
    };
    assert_eq!(other.poll().await, 0, "still leased to the dead process");
    other.clock.advance(EmailSettings::default().lease);
    assert_eq!(other.poll().await, 1);
    assert_eq!(other.mail.sent().len(), 2);
    let seen = other.envelope(&env.id).await;
    for s in &seen.signers {
        let last = s.last_email.as_ref().unwrap();
        assert_eq!((last.status, last.attempts), (EmailStatus::Sent, 1));
    }
}

/// Settings whose test mode sends `test` emails a day per account.
fn budget(schedule: &str, test: Option<u32>) -> Settings {
    let mut s = settings(schedule);
    s.email.daily_limit = EmailDailyLimits { test, live: None };
    s
}

async fn world_with(store: Arc<dyn Store>, clock: Arc<ManualClock>, settings: Settings) -> World {
    let (svc, mail) = service_with(store, clock.clone(), settings);
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let ctx = svc.authenticate(&acct.test_key.secret).await.unwrap();
    World {
        svc,
        mail,
        clock,
        ctx,
    }
}

impl World {
    /// Another account of the same service (process), with its test or live key.
    async fn other_account(&self, live: bool) -> World {
        let acct = self.svc.admin().create_account("Other").await.unwrap();
        let key = if live {
            &acct.live_key.secret
        } else {
            &acct.test_key.secret
        };
        World {
            svc: self.svc.clone(),
            mail: self.mail.clone(),
            clock: self.clock.clone(),
            ctx: self.svc.authenticate(key).await.unwrap(),
        }
    }

    fn sent_for(&self, env: &Envelope) -> usize {
        let id = env.id.to_string();
        self.mail.sent().iter().filter(|e| e.envelope == id).count()
    }
}

#[tokio::test]
async fn an_email_past_the_daily_budget_fails_with_email_limit() {
    let w = world_with(Arc::new(MemoryStore::new()), start(), budget("1m", Some(3))).await;
    let first = w.create_settled().await;
    let second = w.create_settled().await;
    assert_eq!((w.sent_for(&first), w.sent_for(&second)), (2, 1));

    // The emails of one envelope go out in order: the second signer's found no place left.
    let seen = w.envelope(&second.id).await;
    let sent = seen.signers[0].last_email.clone().unwrap();
    assert_eq!(sent.status, EmailStatus::Sent);
    assert_eq!(sent.failure_reason, None);
    let over = seen.signers[1].last_email.clone().unwrap();
    assert_eq!(over.status, EmailStatus::Failed);
    assert_eq!(over.failure_reason, Some(EmailFailure::EmailLimit));
    assert_eq!(
        over.last_error.as_deref(),
        Some("the account's daily email limit was reached")
    );
    assert_eq!((over.attempts, over.next_attempt_at), (0, None));
    let failed = w.events(EventType::EmailFailed).await;
    assert_eq!(failed.len(), 1);
    let email = failed[0].data.email.as_ref().unwrap();
    assert_eq!(email.id, over.id);
    assert_eq!(email.failure_reason, Some(EmailFailure::EmailLimit));
    assert_eq!(
        failed[0].data.signer.as_ref().unwrap().id,
        seen.signers[1].id
    );

    // Failed is final: the worker does not try it again, even on a new day.
    w.clock.advance(Duration::days(1));
    assert_eq!(w.poll().await, 0);
    assert_eq!(w.mail.sent().len(), 3);

    // A new UTC day, a new budget.
    let third = w.create_settled().await;
    assert_eq!(w.sent_for(&third), 2);

    // Live mode has no budget by default; another account has its own.
    let live = w.other_account(true).await;
    for _ in 0..3 {
        let env = live.create_settled().await;
        assert_eq!(live.sent_for(&env), 2);
    }
    let other = w.other_account(false).await;
    let env = other.create_settled().await;
    assert_eq!(other.sent_for(&env), 2);

    // The account's own budget wins over the default: none left today.
    w.svc
        .admin()
        .set_email_daily_limit(&w.ctx.account.id, envelope_core::Mode::Test, Some(1))
        .await
        .unwrap();
    let fourth = w.create_settled().await;
    assert_eq!(w.sent_for(&fourth), 0);
    let seen = w.envelope(&fourth.id).await;
    assert!(seen.signers.iter().all(|s| {
        s.last_email.as_ref().unwrap().failure_reason == Some(EmailFailure::EmailLimit)
    }));
}

#[tokio::test]
async fn a_failed_send_keeps_its_place_and_a_retry_takes_no_other() {
    let w = world_with(Arc::new(MemoryStore::new()), start(), budget("1m", Some(2))).await;
    w.mail.down.store(true, Ordering::SeqCst);
    let env = w.create_settled().await;
    w.mail.down.store(false, Ordering::SeqCst);
    w.clock.advance(Duration::minutes(1));
    assert_eq!(w.poll().await, 1);
    assert_eq!(
        w.sent_for(&env),
        2,
        "the retries were counted with the first attempts"
    );

    // The two failed attempts used the day's budget: nothing more goes out today.
    let next = w.create_settled().await;
    assert_eq!(w.sent_for(&next), 0);
    let seen = w.envelope(&next.id).await;
    for s in &seen.signers {
        let last = s.last_email.as_ref().unwrap();
        assert_eq!(last.failure_reason, Some(EmailFailure::EmailLimit));
    }
}

/// Two processes on one SQLite file send concurrently: together they send exactly the budget.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_processes_share_one_budget() {
    let dir = tempfile::tempdir().unwrap();
    let clock = start();
    let store: Arc<dyn Store> = Arc::new(
        SqlStore::open_sqlite(dir.path().join("envelope.db"))
            .await
            .unwrap(),
    );
    let one = world_with(store.clone(), clock.clone(), budget("1m", Some(5))).await;
    let (svc, mail) = service_with(store, clock.clone(), budget("1m", Some(5)));
    let two = World {
        svc,
        mail,
        clock,
        ctx: one.ctx.clone(),
    };
    let (a, b) = tokio::join!(
        async {
            let mut ids = Vec::new();
            for _ in 0..4 {
                ids.push(one.create().await.id);
            }
            ids
        },
        async {
            let mut ids = Vec::new();
            for _ in 0..4 {
                ids.push(two.create().await.id);
            }
            ids
        }
    );
    one.svc.settle_emails().await;
    two.svc.settle_emails().await;
    assert_eq!(
        one.mail.sent().len() + two.mail.sent().len(),
        5,
        "16 emails, a budget of 5"
    );
    let mut over = 0;
    for id in a.iter().chain(&b) {
        for s in one.envelope(id).await.signers {
            let last = s.last_email.unwrap();
            if last.failure_reason == Some(EmailFailure::EmailLimit) {
                over += 1;
            } else {
                assert_eq!(last.status, EmailStatus::Sent);
            }
        }
    }
    assert_eq!(over, 11);
}

/// The worker's batch takes accounts in turns: account A's backlog of 200 emails, all due
/// before account B's one envelope, does not keep B's emails out of the first batch.
#[tokio::test]
async fn the_worker_takes_accounts_in_turns() {
    let a = world_with(Arc::new(MemoryStore::new()), start(), budget("1m", None)).await;
    let b = a.other_account(false).await;
    a.mail.down.store(true, Ordering::SeqCst);
    for _ in 0..100 {
        a.create().await;
    }
    let quiet = b.create_settled().await;
    a.mail.down.store(false, Ordering::SeqCst);
    a.clock.advance(Duration::minutes(1));

    // One batch: as many envelopes as the worker has room for (16 by default).
    let room = EmailSettings::default().max_in_flight;
    assert_eq!(a.poll().await, room);
    assert_eq!(a.mail.sent().len(), room * 2);
    assert_eq!(b.sent_for(&quiet), 2, "B's emails are in the first batch");

    // The rest of A's backlog follows.
    while a.poll().await > 0 {}
    assert_eq!(a.mail.sent().len(), 202);
}

/// The sends of one process take their slots in turns by account: while account A's 20
/// envelopes hold and wait for every slot, B's envelope takes the second freed slot, not the
/// twenty-first.
#[tokio::test(flavor = "current_thread")]
async fn a_burst_does_not_hold_up_another_accounts_first_attempts() {
    let mut s = budget("1m", None);
    s.email.max_in_flight = 4;
    let a = world_with(Arc::new(MemoryStore::new()), start(), s).await;
    let b = a.other_account(false).await;
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    *a.mail.gate.lock().unwrap() = Some(gate.clone());
    for _ in 0..20 {
        a.create().await;
    }
    // Four sends hold the slots (they wait in the mailer); sixteen wait for one.
    while a.mail.tries.load(Ordering::SeqCst) < 4 {
        tokio::task::yield_now().await;
    }
    let quiet = b.create().await;
    // On this one thread, B's first attempt reaches the gate while the test yields.
    for _ in 0..100 {
        tokio::task::yield_now().await;
    }
    assert_eq!(
        a.mail.tries.load(Ordering::SeqCst),
        4,
        "the slots are all held"
    );
    gate.add_permits(1_000);
    a.svc.settle_emails().await;

    let sent = a.mail.sent();
    assert_eq!(sent.len(), 42);
    let quiet_id = quiet.id.to_string();
    let first_of_b = sent.iter().position(|e| e.envelope == quiet_id).unwrap();
    // Four envelopes held the slots; the first freed one went to A (in line first), the
    // second to B. First come, first served, B would have been last (index 40).
    assert!(
        first_of_b <= 6 * 2,
        "B's first email was send number {first_of_b}"
    );
}
