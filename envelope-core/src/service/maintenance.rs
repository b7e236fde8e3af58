//! The background work a running service needs beside its API calls, as one task:
//! [`SigningService::maintenance`]. An embedding application starts it once per process,
//! exactly as `envelope-server serve` does:
//!
//! | what | how often |
//! |---|---|
//! | void envelopes past their expiry (reads settle expiry too; this makes `envelope.voided` timely for envelopes nobody reads), then purge idempotency records and links that can no longer be used | every [`Maintenance::expiry_interval`] (1 min) |
//! | the retention sweep ([`SigningService::retention_sweep`]) | at start, then every [`Maintenance::retention_interval`] (10 min) |
//! | the seal upgrade sweep ([`SigningService::seal_sweep`]) | every 30 s, or the seal retry schedule's first wait when shorter |
//! | webhook deliveries and their retries ([`WebhookWorker`](super::WebhookWorker)) | continuously |
//! | emails and their retries ([`EmailWorker`](super::EmailWorker)) | continuously |
//! | bulk sends left unfinished (a crash, a lease run out: [`SigningService::bulk_send_step`]); a create starts its own at once | every 2 s |
//!
//! Several processes on one store may each run it: every piece claims its work through the store
//! (leases, compare-and-set writes), so nothing is done twice.
//!
//! It must never hold work past shutdown: when the `shutdown` future completes, the sweeps stop at
//! once, the workers finish what they hold, and emails in flight are recorded before `run`
//! returns. Callers that must bound shutdown wrap `run` in a timeout; an email cut short goes out
//! again once its lease ends, a delivery cut short is retried.

use std::future::Future;
use std::time::Duration;

use tokio::sync::watch;

use super::{SigningService, WorkerSettings};

/// The background work of one process: see [`SigningService::maintenance`].
#[derive(Debug)]
pub struct Maintenance {
    svc: SigningService,
    webhooks: WorkerSettings,
    expiry_interval: Duration,
    retention_interval: Duration,
}

impl SigningService {
    /// The background work this service needs (expiry, purge, retention, webhook and email
    /// delivery), to be run once per process with [`Maintenance::run`].
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let svc = envelope_core::SigningService::builder().build();
    /// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    /// let background = tokio::spawn(svc.maintenance().run(async {
    ///     let _ = stopped.await;
    /// }));
    /// // ... serve requests with `svc` ...
    /// stop.send(()).unwrap();
    /// background.await.unwrap();
    /// # }
    /// ```
    pub fn maintenance(&self) -> Maintenance {
        Maintenance {
            svc: self.clone(),
            webhooks: WorkerSettings::default(),
            expiry_interval: Duration::from_secs(60),
            retention_interval: Duration::from_secs(600),
        }
    }
}

impl Maintenance {
    /// How webhooks are delivered and retried (default: the spec's retry schedule).
    pub fn webhooks(mut self, settings: WorkerSettings) -> Self {
        self.webhooks = settings;
        self
    }

    /// How often expired envelopes are voided and expired records purged (default 1 minute).
    pub fn expiry_interval(mut self, every: Duration) -> Self {
        self.expiry_interval = every;
        self
    }

    /// How often the retention sweep runs after the first, at start (default 10 minutes).
    pub fn retention_interval(mut self, every: Duration) -> Self {
        self.retention_interval = every;
        self
    }

    /// Runs everything until `shutdown` completes, then lets the workers finish what they hold
    /// and waits for emails in flight to be recorded.
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send) {
        let (stop, stopped) = watch::channel(false);
        let until_stopped = move || {
            let mut rx = stopped.clone();
            async move {
                let _ = rx.wait_for(|s| *s).await;
            }
        };
        let svc = &self.svc;
        let signal = async {
            shutdown.await;
            let _ = stop.send(true);
        };
        let webhooks = svc.webhook_worker(self.webhooks).run(until_stopped());
        let emails = svc.email_worker().run(until_stopped());
        let expiry = until(
            until_stopped(),
            expire_periodically(svc, self.expiry_interval),
        );
        let retention = until(
            until_stopped(),
            retention_periodically(svc, self.retention_interval),
        );
        let seals = until(until_stopped(), seals_periodically(svc));
        let bulk = until(until_stopped(), bulk_sends_periodically(svc));
        tokio::join!(signal, webhooks, emails, expiry, retention, seals, bulk);
        // Emails whose first attempt started right after a commit, outside the worker.
        svc.settle_emails().await;
    }
}

/// Runs `work` until `stop` completes.
async fn until(stop: impl Future<Output = ()>, work: impl Future<Output = ()>) {
    tokio::select! {
        () = stop => {}
        () = work => {}
    }
}

async fn expire_periodically(svc: &SigningService, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match svc.expire_due().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(count = n, "expired envelopes voided"),
            Err(e) => tracing::error!(error = ?e, "expiry sweep failed"),
        }
        match svc.purge_expired().await {
            Ok(p) if p.total() == 0 => {}
            Ok(p) => tracing::info!(
                idempotency_keys = p.idempotency_keys,
                signing_tokens = p.signing_tokens,
                file_links = p.file_links,
                "purged what can no longer be used"
            ),
            Err(e) => tracing::error!(error = ?e, "purge failed"),
        }
    }
}

/// The seal upgrade sweep, as often as the schedule's first wait (at most every 30 s, at least
/// every second); not at all when the schedule is empty.
async fn seals_periodically(svc: &SigningService) {
    let Some(first) = svc.settings().seal.retry_schedule.next_delay(1) else {
        return std::future::pending().await;
    };
    let every = first
        .to_std()
        .unwrap_or(Duration::from_secs(30))
        .clamp(Duration::from_secs(1), Duration::from_secs(30));
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match svc.seal_sweep().await {
            Ok(r) if r.total() == 0 => {}
            Ok(r) => tracing::info!(
                upgraded = r.upgraded,
                improved = r.improved,
                unchanged = r.unchanged,
                "seal upgrade sweep done"
            ),
            Err(e) => tracing::error!(error = ?e, "seal upgrade sweep failed"),
        }
    }
}

/// Bulk sends whose lease is free: each step claims one and works it to the end (or until its
/// lease is lost), so one tick drains what is claimable.
async fn bulk_sends_periodically(svc: &SigningService) {
    let mut tick = tokio::time::interval(Duration::from_secs(2));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        loop {
            match svc.bulk_send_step().await {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    tracing::error!(error = ?e, "bulk send step failed");
                    break;
                }
            }
        }
    }
}

/// The first sweep is always logged, so that the log shows retention at work; later ones when
/// they deleted something.
async fn retention_periodically(svc: &SigningService, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut first = true;
    loop {
        tick.tick().await;
        match svc.retention_sweep().await {
            Ok(r) if r.total() == 0 && !first => {}
            Ok(r) => tracing::info!(
                test_envelopes = r.test_envelopes,
                test_templates = r.test_templates,
                live_envelopes_emptied = r.live_envelopes,
                blobs = r.blobs,
                orphan_blobs = r.orphan_blobs,
                emails = r.emails,
                "retention sweep done"
            ),
            Err(e) => tracing::error!(error = ?e, "retention sweep failed"),
        }
        first = false;
    }
}
