//! The webhook outbox: the delivery worker claims due outbox rows, signs and sends them through
//! the [`WebhookSink`], records every attempt, and schedules retries.
//!
//! Safe with several workers (processes) on one store: a claim leases a delivery until
//! `now + lease`, so nobody else takes it meanwhile, and a worker that dies mid-attempt loses
//! nothing (the lease runs out and another worker retries). Fair: at most `per_endpoint`
//! attempts run per endpoint, `per_account` per account and `max_in_flight` overall, so a slow
//! or dead endpoint occupies only its own slots, and one account's slow endpoints (however
//! many) leave the other slots to everyone else.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;

use crate::clock::Clock;
use crate::ids::{AccountId, WebhookEndpointId};
use crate::model::{DeliveryAttempt, DeliveryNext, DueDelivery};
use crate::store::{ClaimLimits, Store, StoreError};
use crate::webhook::{
    DeliveryFailure, RetrySchedule, WebhookRequest, WebhookSink, signature_header,
};

/// How the worker behaves.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// When failed deliveries are retried, and how many attempts each gets.
    pub schedule: RetrySchedule,
    /// Total time a receiver gets to answer (10 s by the spec).
    pub timeout: Duration,
    /// Attempts running at once, all endpoints together.
    pub max_in_flight: usize,
    /// Attempts running at once for one endpoint.
    pub per_endpoint: usize,
    /// Attempts running at once for one account (all its endpoints, both modes).
    pub per_account: usize,
    /// How long a claim holds a delivery; longer than `timeout` plus the time to record.
    pub lease: Duration,
    /// How often the worker looks for due deliveries when idle.
    pub poll_interval: Duration,
}

impl Default for WorkerSettings {
    fn default() -> Self {
        WorkerSettings {
            schedule: RetrySchedule::default(),
            timeout: Duration::from_secs(10),
            max_in_flight: 128,
            per_endpoint: 16,
            // A quarter of the slots: an account whose endpoints all hang for the whole timeout
            // leaves three quarters to the others.
            per_account: 32,
            lease: Duration::from_secs(60),
            poll_interval: Duration::from_millis(200),
        }
    }
}

/// Sends webhook deliveries. Build it with [`crate::SigningService::webhook_worker`].
///
/// The loop: record the attempts that finished (one store transaction for all of them), claim
/// as many due deliveries as there are free slots (skipping endpoints that still have attempts
/// running, so one endpoint never holds more than `per_endpoint` slots), start them, repeat.
pub struct WebhookWorker {
    store: Arc<dyn Store>,
    sink: Arc<dyn WebhookSink>,
    clock: Arc<dyn Clock>,
    settings: WorkerSettings,
    open_secret: OpenSecret,
    slots: Arc<Semaphore>,
    busy: HashMap<WebhookEndpointId, usize>,
    /// Attempts running per account.
    busy_accounts: HashMap<AccountId, usize>,
}

impl std::fmt::Debug for WebhookWorker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookWorker")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// Opens the signing secret an endpoint's record keeps (sealed with the service's key, or in
/// the clear from before sealing): `(endpoint ID, stored) -> secret`, `None` when it does not
/// open. Given by the service, which holds the key.
pub(crate) type OpenSecret = Arc<dyn Fn(&str, &str) -> Option<String> + Send + Sync>;

/// What an attempt task hands back: the attempt to record and the next step.
type Outcome = (DeliveryAttempt, DeliveryNext);
/// An outcome and the account whose slot it held.
type Finished = (Outcome, AccountId);

impl WebhookWorker {
    pub(crate) fn new(
        store: Arc<dyn Store>,
        sink: Arc<dyn WebhookSink>,
        clock: Arc<dyn Clock>,
        settings: WorkerSettings,
        open_secret: OpenSecret,
    ) -> Self {
        let slots = Arc::new(Semaphore::new(settings.max_in_flight.max(1)));
        WebhookWorker {
            store,
            sink,
            clock,
            settings,
            open_secret,
            slots,
            busy: HashMap::new(),
            busy_accounts: HashMap::new(),
        }
    }

    /// Runs until `shutdown` resolves, then lets attempts in flight finish and records them.
    pub async fn run(mut self, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        let mut tasks: JoinSet<Finished> = JoinSet::new();
        let mut done: Vec<Outcome> = Vec::new();
        loop {
            while let Some(r) = tasks.try_join_next() {
                self.finished(r, &mut done);
            }
            self.record(&mut done).await;
            let claimed = match self.claim().await {
                Ok(batch) => {
                    let n = batch.len();
                    for (due, permit) in batch {
                        tasks.spawn(self.attempt_task(due, permit));
                    }
                    n
                }
                Err(e) => {
                    tracing::warn!(error = %e, "webhook claim failed; retrying");
                    0
                }
            };
            if claimed > 0 {
                continue;
            }
            tokio::select! {
                _ = &mut shutdown => break,
                _ = tokio::time::sleep(self.settings.poll_interval) => {}
                Some(r) = tasks.join_next(), if !tasks.is_empty() => self.finished(r, &mut done),
            }
        }
        while let Some(r) = tasks.join_next().await {
            self.finished(r, &mut done);
        }
        self.record(&mut done).await;
    }

    /// Claims and delivers everything due now, waiting for the attempts; returns how many were
    /// attempted. For tests and one-shot tools.
    pub async fn run_once(&mut self) -> Result<usize, StoreError> {
        let mut total = 0;
        loop {
            let batch = self.claim().await?;
            if batch.is_empty() {
                return Ok(total);
            }
            total += batch.len();
            let mut tasks = JoinSet::new();
            for (due, permit) in batch {
                tasks.spawn(self.attempt_task(due, permit));
            }
            let mut done = Vec::new();
            while let Some(r) = tasks.join_next().await {
                self.finished(r, &mut done);
            }
            self.store.record_attempts(&done).await?;
        }
    }

    fn finished(&mut self, r: Result<Finished, tokio::task::JoinError>, done: &mut Vec<Outcome>) {
        match r {
            Ok((outcome, account)) => {
                release(&mut self.busy, &outcome.0.endpoint);
                release(&mut self.busy_accounts, &account);
                done.push(outcome);
            }
            // A panicked attempt is not recorded: its lease runs out and it is tried again.
            Err(e) => tracing::error!(error = %e, "webhook attempt task failed"),
        }
    }

    /// Stores finished attempts in one transaction. On failure they are dropped: the leases run
    /// out and the deliveries are attempted again (at least once, never lost).
    async fn record(&self, done: &mut Vec<Outcome>) {
        if done.is_empty() {
            return;
        }
        match self.store.record_attempts(done).await {
            Ok(()) => {
                for (_, next) in done.iter() {
                    let outcome = match next {
                        DeliveryNext::Delivered => "delivered",
                        DeliveryNext::Retry(_) => "retry",
                        DeliveryNext::Failed => "failed",
                    };
                    metrics::counter!("envelope_webhook_deliveries_total", "outcome" => outcome)
                        .increment(1);
                }
            }
            Err(e) => {
                tracing::warn!(count = done.len(), error = %e, "attempts not recorded; they will be retried");
            }
        }
        done.clear();
    }

    /// Claims as many due deliveries as there are free slots, each with its slot.
    async fn claim(&mut self) -> Result<Vec<(DueDelivery, OwnedSemaphorePermit)>, StoreError> {
        let mut permits = Vec::new();
        while permits.len() < 256 {
            match self.slots.clone().try_acquire_owned() {
                Ok(p) => permits.push(p),
                Err(_) => break,
            }
        }
        if permits.is_empty() {
            return Ok(Vec::new());
        }
        let busy: Vec<WebhookEndpointId> = self.busy.keys().cloned().collect();
        let busy_accounts: Vec<(AccountId, usize)> = self
            .busy_accounts
            .iter()
            .map(|(a, n)| (a.clone(), *n))
            .collect();
        let now = self.clock.now();
        let lease = chrono::Duration::from_std(self.settings.lease)
            .unwrap_or(chrono::Duration::seconds(60));
        let limits = ClaimLimits {
            limit: permits.len(),
            per_endpoint: self.settings.per_endpoint,
            busy_endpoints: &busy,
            per_account: self.settings.per_account.max(1),
            busy_accounts: &busy_accounts,
        };
        let batch = self
            .store
            .claim_deliveries(now, now + lease, &limits)
            .await?;
        for d in &batch {
            *self.busy.entry(d.delivery.endpoint.clone()).or_insert(0) += 1;
            *self
                .busy_accounts
                .entry(d.delivery.account.clone())
                .or_insert(0) += 1;
        }
        Ok(batch.into_iter().zip(permits).collect())
    }

    fn attempt_task(
        &self,
        due: DueDelivery,
        permit: OwnedSemaphorePermit,
    ) -> impl std::future::Future<Output = Finished> + Send + 'static {
        let sink = self.sink.clone();
        let clock = self.clock.clone();
        let settings = self.settings.clone();
        let open = self.open_secret.clone();
        async move {
            let _permit = permit;
            let account = due.delivery.account.clone();
            (
                attempt(&*sink, &*clock, &settings, &open, due).await,
                account,
            )
        }
    }
}

/// One attempt of `key` finished: count it down, forgetting keys with none left.
fn release<K: Eq + std::hash::Hash>(busy: &mut HashMap<K, usize>, key: &K) {
    if let Some(n) = busy.get_mut(key) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            busy.remove(key);
        }
    }
}

/// One attempt: sign, send with the timeout, and decide the next step.
async fn attempt(
    sink: &dyn WebhookSink,
    clock: &dyn Clock,
    settings: &WorkerSettings,
    open: &OpenSecret,
    due: DueDelivery,
) -> Outcome {
    let at = clock.now();
    let number = due.delivery.attempts + 1;
    let secrets: Option<Vec<String>> = due
        .secrets
        .iter()
        .map(|s| open(&due.delivery.endpoint, s))
        .collect();
    let (status, error, duration_ms) = match (secrets, serde_json::to_vec(&due.event)) {
        // Nothing is sent unsigned: the attempt fails and is retried on the schedule.
        (None, _) => (
            None,
            Some("the endpoint's signing secret cannot be read with this server's key".into()),
            0,
        ),
        (Some(secrets), Ok(body)) => {
            let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
            let request = WebhookRequest {
                url: due.url.clone(),
                signature: signature_header(&secrets, at.unix_seconds(), &body),
                body: body.into(),
                event_id: due.event.id.to_string(),
                timeout: settings.timeout,
            };
            let started = Instant::now();
            let outcome = tokio::time::timeout(settings.timeout, sink.deliver(&request)).await;
            let ms = started.elapsed().as_millis() as u64;
            // The error shown to the customer is a category, never a sink's own message (it
            // may name what the resolver answered or an internal address); the log has it.
            match outcome {
                Ok(Ok(r)) => {
                    let refused = !(200..300).contains(&r.status);
                    let error = refused.then(|| DeliveryFailure::Status(r.status).to_string());
                    (Some(r.status), error, ms)
                }
                Ok(Err(e)) => {
                    tracing::debug!(event = %request.event_id, error = %e, "webhook sink failed");
                    (None, Some(DeliveryFailure::of(e.as_ref()).to_string()), ms)
                }
                Err(_) => (None, Some(DeliveryFailure::Timeout.to_string()), ms),
            }
        }
        (Some(_), Err(e)) => (None, Some(format!("event does not serialize: {e}")), 0),
    };
    let delivered = status.is_some_and(|s| (200..300).contains(&s));
    let next = if delivered {
        DeliveryNext::Delivered
    } else {
        match settings.schedule.next_delay(number) {
            Some(d) => DeliveryNext::Retry(clock.now() + d),
            None => DeliveryNext::Failed,
        }
    };
    let record = DeliveryAttempt {
        delivery: due.delivery.id.clone(),
        event: due.event.id.clone(),
        endpoint: due.delivery.endpoint.clone(),
        number,
        at,
        status,
        error,
        duration_ms,
    };
    tracing::debug!(
        delivery = %record.delivery, event = %record.event, endpoint = %record.endpoint,
        attempt = number, status = ?record.status, error = ?record.error, duration_ms, next = ?next,
        "webhook attempt"
    );
    (record, next)
}
