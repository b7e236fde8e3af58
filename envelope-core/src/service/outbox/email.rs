//! The email outbox: sending the emails that transitions queue in their envelope records,
//! retrying them, and recording how each went.
//!
//! - A transition queues its emails in the record it writes (`notify.rs::queue_emails`), so an
//!   email exists exactly when its change committed. Each is leased to the writing process for
//!   [`EmailSettings::lease`], and that process makes the first attempt at once, in the
//!   background ([`SigningService::dispatch_emails`]): no API answer waits for a mail server.
//! - The [`EmailWorker`] finds pending emails whose time has come (a retry, or a first attempt
//!   whose process died before making it) through the store's index of
//!   `EnvelopeRecord::next_email_at`, leases them with a compare-and-set write of the record,
//!   and sends them. Several workers (processes) on one store never send the same lease twice.
//! - Every outcome is one write of the record: `sent`; a retry at the next step of
//!   [`EmailSettings::retry_schedule`]; or, when the schedule is used up or the mail server
//!   refused the message for good, `failed` with the event `envelope.email_failed`.
//!
//! Delivery is at least once: a process that dies after the mail server took a message but
//! before recording it sends that email again when the lease ends.
//!
//! Each email is taken from its account's daily email budget for the envelope's mode
//! ([`EmailSettings::daily_limit`], or the account's own) just before its first send, through
//! the store's atomic [`OutboxStore::take_email`](crate::store::OutboxStore::take_email), so that servers
//! sharing a store count together. An email past the budget is not sent: it ends `failed` with
//! `failure_reason` `email_limit` and the event `envelope.email_failed`. An email counts once,
//! whatever comes of it: a send that fails does not give its place back (a retry does not count
//! it again), so failing addresses cannot be used to send past the budget.
//!
//! Fairness between accounts: the worker takes due envelopes in turns by account
//! ([`OutboxStore::due_emails`](crate::store::OutboxStore::due_emails)), and the sends of this process wait
//! for a slot in turns by account too ([`crate::service::fair_gate`]), so one account's burst delays
//! another account's email by a few sends at most, never by the length of the burst.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use chrono::Duration;
use tokio::sync::Notify;

use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::ids::{EmailId, EnvelopeId};
use crate::model::reach::{self, IssuedLink, LinkVia};
use crate::model::{EmailFailure, EmailKind, EmailStatus, EnvelopeRecord, EventType, Mode, Scope};
use crate::service::SigningService;
use crate::service::fair_gate;
use crate::service::notify::Rendered;
use crate::store::StoreError;
use crate::webhook::RetrySchedule;

/// How emails are sent and retried.
#[derive(Debug, Clone)]
pub struct EmailSettings {
    /// Delays between attempts; when used up, the email is `failed`.
    pub retry_schedule: RetrySchedule,
    /// How long an attempt holds its email: no other process sends it meanwhile. Longer than a
    /// mailer's whole send; after a crash, an email in flight goes out again this much later.
    pub lease: Duration,
    /// How often the worker looks for due emails.
    pub poll_interval: std::time::Duration,
    /// Envelopes whose emails are being sent at once, in this process; past it, sends wait and
    /// take the freed places in turns by account. Also how many the worker starts at most.
    pub max_in_flight: usize,
    /// How many emails an account may send per UTC day in each mode, unless the account has a
    /// budget of its own (`Admin::set_email_daily_limit`).
    pub daily_limit: EmailDailyLimits,
}

/// Emails per account and UTC day, by mode; `None` is no budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmailDailyLimits {
    /// Test mode: 100 by default, so that a test key cannot be used to send bulk email.
    pub test: Option<u32>,
    /// Live mode: no budget by default.
    pub live: Option<u32>,
}

impl EmailDailyLimits {
    /// The default test-mode budget: enough for any integration test suite, too few for spam.
    pub const DEFAULT_TEST: u32 = 100;

    /// No budget in either mode.
    pub const UNLIMITED: EmailDailyLimits = EmailDailyLimits {
        test: None,
        live: None,
    };

    /// The budget of `mode`.
    pub fn of(&self, mode: Mode) -> Option<u32> {
        match mode {
            Mode::Test => self.test,
            Mode::Live => self.live,
        }
    }
}

impl Default for EmailDailyLimits {
    fn default() -> Self {
        EmailDailyLimits {
            test: Some(Self::DEFAULT_TEST),
            live: None,
        }
    }
}

impl EmailSettings {
    /// The default retry schedule: minutes first (a relay restarting), then hours (an outage),
    /// about 28 hours in all.
    pub const DEFAULT_RETRY_SCHEDULE: &'static str = "1m,5m,15m,1h,2h,4h,8h,12h";
}

impl Default for EmailSettings {
    fn default() -> Self {
        EmailSettings {
            retry_schedule: Self::DEFAULT_RETRY_SCHEDULE
                .parse()
                .expect("the default email schedule parses"),
            lease: Duration::seconds(60),
            poll_interval: std::time::Duration::from_secs(1),
            max_in_flight: 16,
            daily_limit: EmailDailyLimits::default(),
        }
    }
}

/// Sends of this process still running, so that shutdown and tests can wait for them, and the
/// slots they run in ([`fair_gate`]).
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    count: AtomicUsize,
    idle: Notify,
    /// Made on the first send, with [`EmailSettings::max_in_flight`] slots.
    gate: OnceLock<Arc<fair_gate::FairGate>>,
}

/// Holds one count of [`InFlight`] while a send runs.
struct InFlightGuard(Arc<InFlight>);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

impl InFlight {
    fn enter(self: &Arc<Self>) -> InFlightGuard {
        self.count.fetch_add(1, Ordering::AcqRel);
        InFlightGuard(self.clone())
    }

    fn len(&self) -> usize {
        self.count.load(Ordering::Acquire)
    }

    fn gate(&self, slots: usize) -> &Arc<fair_gate::FairGate> {
        self.gate.get_or_init(|| fair_gate::FairGate::new(slots))
    }

    async fn idle(&self) {
        loop {
            let notified = self.idle.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.len() == 0 {
                return;
            }
            notified.await;
        }
    }
}

/// What one attempt came to.
#[derive(Debug, Clone)]
enum Outcome {
    /// Sent; `link_to` is the address of a signing link it carried (extensions E8).
    Sent {
        link_to: Option<String>,
    },
    Canceled(&'static str),
    Failed {
        error: String,
        permanent: bool,
    },
    /// Not sent: the account's daily budget for the mode was used up.
    OverBudget,
}

/// One attempt: the email, what came of it, and whether it took its place in the daily budget
/// in this attempt.
type Attempted = (EmailId, Outcome, bool);

/// `last_error` of an email past the daily budget.
const OVER_BUDGET: &str = "the account's daily email limit was reached";

const MAX_WRITES: usize = 8;

/// An email held by this process, and until when (its `next_attempt_at` when leased).
type Lease = (EmailId, Timestamp);

impl SigningService {
    /// Queues in `next` the emails its change from `prev` causes, leased to this process; returns
    /// their IDs for [`Self::dispatch_emails`] once the write has committed.
    pub(crate) fn queue_emails(
        &self,
        prev: Option<&EnvelopeRecord>,
        next: &mut EnvelopeRecord,
        now: Timestamp,
    ) -> Vec<EmailId> {
        let lease_until = now + self.inner.settings.email.lease;
        crate::service::notify::queue_emails(prev, next, now, lease_until)
    }

    /// Writes `next`, a change made from `current`, with its events and the emails it causes,
    /// and starts sending them; `false` when the envelope changed meanwhile and the caller must
    /// apply its change again. When the only thing that changed meanwhile is email bookkeeping
    /// (a lease or an outcome of this outbox, which follow every write with emails), the change
    /// is written over the fresh record instead: work such as stamping the signed copy is not
    /// redone (and its blobs not orphaned) because an email went out.
    pub(crate) async fn write_over_emails(
        &self,
        mut current: EnvelopeRecord,
        next: &mut EnvelopeRecord,
        events: &[crate::model::EventRecord],
        now: Timestamp,
    ) -> Result<bool> {
        for _ in 0..MAX_WRITES {
            let mut attempt = next.clone();
            attempt.emails = current.emails.clone();
            carry_links(&current, &mut attempt);
            let ids = self.queue_emails(Some(&current), &mut attempt, now);
            attempt.version = current.version + 1;
            match self
                .inner
                .store
                .update_envelope(&attempt, events, None)
                .await
            {
                Ok(()) => {
                    *next = attempt;
                    self.dispatch_emails(next, ids);
                    return Ok(true);
                }
                Err(StoreError::Conflict) => {
                    let scope = current.scope();
                    let Some(fresh) = self.inner.store.get_envelope(&scope, &current.id).await?
                    else {
                        return Ok(false);
                    };
                    if !same_but_emails(&current, &fresh) {
                        return Ok(false);
                    }
                    current = fresh;
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(false)
    }

    /// Makes the first attempt of emails just queued by a committed write, in the background.
    pub(crate) fn dispatch_emails(&self, rec: &EnvelopeRecord, ids: Vec<EmailId>) {
        let leases: Vec<Lease> = rec
            .emails
            .iter()
            .filter(|e| ids.contains(&e.id))
            .filter_map(|e| Some((e.id.clone(), e.next_attempt_at?)))
            .collect();
        if leases.is_empty() {
            return;
        }
        let guard = self.inner.emails_in_flight.enter();
        let svc = self.clone();
        let (scope, id) = (rec.scope(), rec.id.clone());
        tokio::spawn(async move {
            let _guard = guard;
            let slots = svc.inner.settings.email.max_in_flight;
            let gate = svc.inner.emails_in_flight.gate(slots).clone();
            let _slot = gate.acquire(&scope.account).await;
            svc.send_emails(&scope, &id, &leases).await;
        });
    }

    /// Waits until every email send this service started has finished and been recorded. For
    /// shutdown (bound it with a timeout: a lease covers what is cut short) and for tests.
    pub async fn settle_emails(&self) {
        self.inner.emails_in_flight.idle().await;
    }

    /// Sets the gauges of what waits in the outboxes (`envelope_webhook_queue_depth`,
    /// `envelope_email_queue_depth`): for a metrics scrape (two counts in the store).
    pub async fn observe_queues(&self) -> Result<()> {
        let d = self.inner.store.queue_depths().await?;
        metrics::gauge!("envelope_webhook_queue_depth").set(d.webhook_deliveries as f64);
        metrics::gauge!("envelope_email_queue_depth").set(d.envelopes_with_emails as f64);
        Ok(())
    }

    /// The worker that retries emails and takes over those whose process died. Run one per
    /// process (`serve` does); without it, each email gets only its first attempt.
    pub fn email_worker(&self) -> EmailWorker {
        EmailWorker { svc: self.clone() }
    }

    /// Sends the emails of envelope `id` that this process holds (`leases`), one after the
    /// other, then records every outcome in one write. The record is read afresh first: an email
    /// whose lease another process took over since (its `next_attempt_at` moved) is left to it,
    /// and each message is made from the envelope as it is now.
    async fn send_emails(&self, scope: &Scope, id: &EnvelopeId, leases: &[Lease]) {
        let rec = match self.inner.store.get_envelope(scope, id).await {
            Ok(Some(rec)) => rec,
            Ok(None) => return,
            Err(e) => {
                // The lease runs out and the worker tries again.
                tracing::warn!(envelope = %id, error = %e, "emails not sent: store unavailable");
                return;
            }
        };
        let mut outcomes: Vec<Attempted> = Vec::with_capacity(leases.len());
        for (eid, lease) in leases {
            let Some(queued) = rec.emails.iter().find(|e| {
                e.id == *eid
                    && e.status == EmailStatus::Pending
                    && e.next_attempt_at == Some(*lease)
            }) else {
                continue;
            };
            let now = self.now();
            let mut taken = false;
            let outcome = match self.render_email(&rec, queued, now).await {
                Ok(Rendered::Cancel(why)) => Outcome::Canceled(why),
                Ok(Rendered::Send(email)) => {
                    let within = if queued.budget_taken {
                        Ok(true)
                    } else {
                        self.take_budget(&rec, now).await
                    };
                    match within {
                        Ok(true) => {
                            taken = !queued.budget_taken;
                            self.send_one(&rec, queued, &email).await
                        }
                        Ok(false) => Outcome::OverBudget,
                        Err(e) => {
                            tracing::warn!(envelope = %rec.id, email = %eid, error = %e, "email budget not read");
                            Outcome::Failed {
                                error: "the service could not prepare the email".into(),
                                permanent: false,
                            }
                        }
                    }
                }
                Err(e) => {
                    tracing::warn!(envelope = %rec.id, email = %eid, error = %e, "email not prepared");
                    Outcome::Failed {
                        error: "the service could not prepare the email".into(),
                        permanent: false,
                    }
                }
            };
            outcomes.push((eid.clone(), outcome, taken));
        }
        if outcomes.is_empty() {
            return;
        }
        if let Err(e) = self.record_outcomes(scope, id, &outcomes).await {
            // The lease runs out and the worker tries again: at least once.
            tracing::warn!(envelope = %id, error = %e, "email outcomes not recorded");
        }
    }

    /// Takes the email's place in its account's daily budget for the envelope's mode (the
    /// account's own, else the service's default): `false` when the budget is used up.
    async fn take_budget(&self, rec: &EnvelopeRecord, now: Timestamp) -> Result<bool> {
        let day = now.datetime().format("%Y-%m-%d").to_string();
        let default = self.inner.settings.email.daily_limit.of(rec.mode);
        Ok(self
            .inner
            .store
            .take_email(&rec.account, rec.mode, &day, default)
            .await?)
    }

    /// Hands one message to the mailer.
    async fn send_one(
        &self,
        rec: &EnvelopeRecord,
        queued: &crate::model::EmailRecord,
        email: &crate::mail::Email,
    ) -> Outcome {
        match self.inner.mailer.send(email).await {
            Ok(()) => Outcome::Sent {
                link_to: matches!(queued.kind, EmailKind::SigningRequest | EmailKind::Reminder)
                    .then(|| email.to.email.clone()),
            },
            Err(e) => {
                let (error, permanent) = crate::mail::describe_failure(&*e);
                tracing::warn!(
                    envelope = %rec.id, email = %queued.id, kind = queued.kind.as_str(),
                    attempt = queued.attempts + 1, permanent, error = %e, "email not sent"
                );
                Outcome::Failed { error, permanent }
            }
        }
    }

    /// Writes the outcomes into the record (re-reading it when another write came first), with
    /// `envelope.email_failed` for each email that failed for good.
    async fn record_outcomes(
        &self,
        scope: &Scope,
        id: &EnvelopeId,
        outcomes: &[Attempted],
    ) -> Result<()> {
        for _ in 0..MAX_WRITES {
            let Some(current) = self.inner.store.get_envelope(scope, id).await? else {
                return Ok(());
            };
            let now = self.now();
            let mut next = current.clone();
            let mut failed = Vec::new();
            let mut counted: Vec<&'static str> = Vec::new();
            for (eid, outcome, taken) in outcomes {
                let Some(e) = next.emails.iter_mut().find(|e| e.id == *eid) else {
                    continue;
                };
                if e.status != EmailStatus::Pending {
                    continue;
                }
                e.budget_taken |= *taken;
                match outcome {
                    Outcome::Sent { link_to } => {
                        if let Some(to) = link_to
                            && let Some(s) =
                                next.signers.iter_mut().find(|s| s.signer.id == e.recipient)
                        {
                            let link = IssuedLink {
                                via: LinkVia::Email,
                                at: now,
                                to: Some(to.clone()),
                                api_key: None,
                                ip_address: None,
                            };
                            reach::record_link(&mut s.links, &mut s.links_not_kept, link);
                        }
                        counted.push("sent");
                        e.attempts += 1;
                        e.status = EmailStatus::Sent;
                        e.finished_at = Some(now);
                        e.next_attempt_at = None;
                        e.last_error = None;
                    }
                    Outcome::Canceled(why) => {
                        counted.push("canceled");
                        e.status = EmailStatus::Canceled;
                        e.finished_at = Some(now);
                        e.next_attempt_at = None;
                        e.last_error = Some((*why).into());
                    }
                    Outcome::OverBudget => {
                        counted.push("over_limit");
                        e.status = EmailStatus::Failed;
                        e.finished_at = Some(now);
                        e.next_attempt_at = None;
                        e.last_error = Some(OVER_BUDGET.into());
                        e.failure_reason = Some(EmailFailure::EmailLimit);
                        failed.push(e.clone());
                    }
                    Outcome::Failed { error, permanent } => {
                        e.attempts += 1;
                        e.last_error = Some(error.clone());
                        let retry = self
                            .inner
                            .settings
                            .email
                            .retry_schedule
                            .next_delay(e.attempts);
                        match retry.filter(|_| !permanent) {
                            Some(delay) => {
                                counted.push("retry");
                                e.next_attempt_at = Some(now + delay);
                            }
                            None => {
                                counted.push("failed");
                                e.status = EmailStatus::Failed;
                                e.finished_at = Some(now);
                                e.next_attempt_at = None;
                                e.failure_reason = Some(if *permanent {
                                    EmailFailure::Refused
                                } else {
                                    EmailFailure::RetriesExhausted
                                });
                                failed.push(e.clone());
                            }
                        }
                    }
                }
            }
            if next.emails == current.emails {
                return Ok(());
            }
            crate::service::notify::prune(&mut next);
            next.version = current.version + 1;
            let events: Vec<_> = failed
                .iter()
                .map(|e| {
                    let i = next.signer_index(&e.recipient);
                    let mut ev =
                        crate::service::events::record(&next, EventType::EmailFailed, i, now);
                    ev.event.data.cc = next.cc.iter().find(|c| c.id == e.recipient).cloned();
                    ev.event.data.email = Some(e.view());
                    ev
                })
                .collect();
            match self.inner.store.update_envelope(&next, &events, None).await {
                Ok(()) => {
                    for outcome in counted {
                        metrics::counter!("envelope_emails_total", "outcome" => outcome)
                            .increment(1);
                    }
                    for e in &failed {
                        tracing::warn!(envelope = %id, email = %e.id, kind = e.kind.as_str(), attempts = e.attempts, "email failed for good");
                    }
                    return Ok(());
                }
                Err(StoreError::Conflict) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(Error::Internal(
            "recording email outcomes kept conflicting".into(),
        ))
    }

    /// Leases the due pending emails of `rec` to this process; `None` when another write came
    /// first (the next poll sees the new record).
    async fn lease_due(
        &self,
        rec: &EnvelopeRecord,
        now: Timestamp,
    ) -> Result<Option<(EnvelopeRecord, Vec<EmailId>)>> {
        let mut next = rec.clone();
        let until = now + self.inner.settings.email.lease;
        let mut ids = Vec::new();
        for e in next.emails.iter_mut().filter(|e| {
            e.status == EmailStatus::Pending && e.next_attempt_at.is_some_and(|t| t <= now)
        }) {
            e.next_attempt_at = Some(until);
            ids.push(e.id.clone());
        }
        if ids.is_empty() {
            return Ok(None);
        }
        next.version = rec.version + 1;
        match self.inner.store.update_envelope(&next, &[], None).await {
            Ok(()) => Ok(Some((next, ids))),
            Err(StoreError::Conflict) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}

/// Whether `a` and `b` differ at most in their emails (and so their version) and the links
/// those emails carried (recorded with their outcome).
fn same_but_emails(a: &EnvelopeRecord, b: &EnvelopeRecord) -> bool {
    let strip = |r: &EnvelopeRecord| {
        let mut r = EnvelopeRecord {
            version: 0,
            emails: Vec::new(),
            ..r.clone()
        };
        for s in &mut r.signers {
            s.links.clear();
            s.links_not_kept = Default::default();
        }
        r
    };
    strip(a) == strip(b)
}

/// Gives `to`'s signers the links recorded in `from` (the fresh record an email outcome was
/// written to): the change being written over it must not lose them.
fn carry_links(from: &EnvelopeRecord, to: &mut EnvelopeRecord) {
    for s in &mut to.signers {
        if let Some(f) = from.signers.iter().find(|f| f.signer.id == s.signer.id) {
            s.links.clone_from(&f.links);
            s.links_not_kept = f.links_not_kept;
        }
    }
}

/// Retries emails and sends those whose first attempt never happened. Build it with
/// [`SigningService::email_worker`]; see the module documentation.
pub struct EmailWorker {
    svc: SigningService,
}

impl std::fmt::Debug for EmailWorker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmailWorker")
            .field("settings", &self.svc.inner.settings.email)
            .finish_non_exhaustive()
    }
}

impl EmailWorker {
    /// Runs until `shutdown` resolves. Sends in flight go on in the background; the service's
    /// [`SigningService::settle_emails`] waits for them.
    pub async fn run(self, shutdown: impl std::future::Future<Output = ()>) {
        let settings = self.svc.inner.settings.email.clone();
        tokio::pin!(shutdown);
        loop {
            if let Err(e) = self.poll().await {
                tracing::warn!(error = %e, "email worker: store unavailable");
            }
            tokio::select! {
                () = &mut shutdown => return,
                () = tokio::time::sleep(settings.poll_interval) => {}
            }
        }
    }

    /// One look for due emails: leases and starts the emails of as many envelopes as there is
    /// room for; returns how many. [`Self::run`] calls it every `poll_interval`; tests call it
    /// directly (then [`SigningService::settle_emails`]).
    pub async fn poll(&self) -> Result<usize> {
        let svc = &self.svc;
        let settings = &svc.inner.settings.email;
        let room = settings
            .max_in_flight
            .max(1)
            .saturating_sub(svc.inner.emails_in_flight.len());
        if room == 0 {
            return Ok(0);
        }
        let now = svc.now();
        let due = svc.inner.store.due_emails(now, room).await?;
        let mut started = 0;
        for rec in due {
            if let Some((leased, ids)) = svc.lease_due(&rec, now).await? {
                svc.dispatch_emails(&leased, ids);
                started += 1;
            }
        }
        Ok(started)
    }
}
