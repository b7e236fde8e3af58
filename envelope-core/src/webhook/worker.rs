//! The delivery worker: claims due outbox rows, signs and sends them through the
//! [`WebhookSink`], records every attempt, and schedules retries.
//!
//! Safe with several workers (processes) on one store: a claim leases a delivery until
//! `now + lease`, so nobody else takes it meanwhile, and a worker that dies mid-attempt loses
//! nothing (the lease runs out and another worker retries). Fair: at most `per_endpoint`
//! attempts run per endpoint and `max_in_flight` overall, so a slow or dead endpoint occupies
//! only its own slots.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;

use super::{RetrySchedule, WebhookRequest, WebhookSink, signature_header};
use crate::clock::Clock;
use crate::ids;
use crate::model::{DeliveryAttempt, DeliveryNext, DueDelivery};
use crate::store::{Store, StoreError};

/// How the worker behaves.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    pub schedule: RetrySchedule,
    /// Total time a receiver gets to answer (10 s by the spec).
    pub timeout: Duration,
    pub max_in_flight: usize,
    pub per_endpoint: usize,
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
            max_in_flight: 64,
            per_endpoint: 4,
            lease: Duration::from_secs(60),
            poll_interval: Duration::from_millis(200),
        }
    }
}

/// Sends webhook deliveries. Build it with [`crate::SigningService::webhook_worker`].
pub struct WebhookWorker {
    store: Arc<dyn Store>,
    sink: Arc<dyn WebhookSink>,
    clock: Arc<dyn Clock>,
    settings: WorkerSettings,
    slots: Arc<Semaphore>,
    busy: Arc<Mutex<HashMap<String, usize>>>,
}

impl std::fmt::Debug for WebhookWorker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookWorker")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl WebhookWorker {
    pub(crate) fn new(
        store: Arc<dyn Store>,
        sink: Arc<dyn WebhookSink>,
        clock: Arc<dyn Clock>,
        settings: WorkerSettings,
    ) -> Self {
        let slots = Arc::new(Semaphore::new(settings.max_in_flight.max(1)));
        WebhookWorker {
            store,
            sink,
            clock,
            settings,
            slots,
            busy: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// Runs until `shutdown` resolves, then lets attempts in flight finish.
    pub async fn run(self, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        let mut tasks = JoinSet::new();
        loop {
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
            while tasks.try_join_next().is_some() {}
            if claimed == 0 {
                tokio::select! {
                    _ = &mut shutdown => break,
                    _ = tokio::time::sleep(self.settings.poll_interval) => {}
                    Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
                }
            } else if futures_ready(&mut shutdown).await {
                break;
            }
        }
        while tasks.join_next().await.is_some() {}
    }

    /// Claims and delivers everything due now, waiting for the attempts; returns how many were
    /// attempted. For tests and one-shot tools.
    pub async fn run_once(&self) -> Result<usize, StoreError> {
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
            while tasks.join_next().await.is_some() {}
        }
    }

    /// Claims as many due deliveries as there are free slots, each with its slot.
    async fn claim(&self) -> Result<Vec<(DueDelivery, OwnedSemaphorePermit)>, StoreError> {
        let mut permits = Vec::new();
        while permits.len() < 100 {
            match self.slots.clone().try_acquire_owned() {
                Ok(p) => permits.push(p),
                Err(_) => break,
            }
        }
        let free = permits.len();
        if free == 0 {
            return Ok(Vec::new());
        }
        let saturated: Vec<String> = {
            let busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
            busy.iter()
                .filter(|(_, n)| **n >= self.settings.per_endpoint)
                .map(|(k, _)| k.clone())
                .collect()
        };
        let now = self.clock.now();
        let lease = chrono::Duration::from_std(self.settings.lease)
            .unwrap_or(chrono::Duration::seconds(60));
        let batch = self
            .store
            .claim_deliveries(
                now,
                now + lease,
                free,
                self.settings.per_endpoint,
                &saturated,
            )
            .await?;
        let mut busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        for d in &batch {
            *busy.entry(d.delivery.endpoint.clone()).or_insert(0) += 1;
        }
        Ok(batch.into_iter().zip(permits).collect())
    }

    fn attempt_task(
        &self,
        due: DueDelivery,
        permit: OwnedSemaphorePermit,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        let store = self.store.clone();
        let sink = self.sink.clone();
        let clock = self.clock.clone();
        let settings = self.settings.clone();
        let busy = self.busy.clone();
        async move {
            let _permit = permit;
            let endpoint = due.delivery.endpoint.clone();
            attempt(&*store, &*sink, &*clock, &settings, due).await;
            let mut b = busy.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(n) = b.get_mut(&endpoint) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    b.remove(&endpoint);
                }
            }
        }
    }
}

async fn futures_ready(
    shutdown: &mut std::pin::Pin<&mut impl std::future::Future<Output = ()>>,
) -> bool {
    tokio::select! {
        biased;
        _ = shutdown.as_mut() => true,
        _ = tokio::task::yield_now() => false,
    }
}

/// One attempt: sign, send with the timeout, record the outcome and the next step.
async fn attempt(
    store: &dyn Store,
    sink: &dyn WebhookSink,
    clock: &dyn Clock,
    settings: &WorkerSettings,
    due: DueDelivery,
) {
    let body = match serde_json::to_vec(&due.event) {
        Ok(b) => b,
        Err(e) => {
            tracing::error!(delivery = %due.delivery.id, error = %e, "event does not serialize");
            return;
        }
    };
    let at = clock.now();
    let secrets: Vec<&str> = due.secrets.iter().map(String::as_str).collect();
    let request = WebhookRequest {
        url: due.url.clone(),
        signature: signature_header(&secrets, at.unix_seconds(), &body),
        body: body.into(),
        event_id: due.event.id.clone(),
        timeout: settings.timeout,
    };
    let started = Instant::now();
    let outcome = tokio::time::timeout(settings.timeout, sink.deliver(&request)).await;
    let duration_ms = started.elapsed().as_millis() as u64;
    let (status, error) = match outcome {
        Ok(Ok(r)) => (Some(r.status), None),
        Ok(Err(e)) => (
            None,
            Some(e.to_string().chars().take(500).collect::<String>()),
        ),
        Err(_) => (
            None,
            Some(format!("no answer within {} s", settings.timeout.as_secs())),
        ),
    };
    let number = due.delivery.attempts + 1;
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
    tracing::info!(
        delivery = %record.delivery, event = %record.event, endpoint = %record.endpoint,
        attempt = number, status = ?record.status, error = ?record.error, duration_ms, next = ?next,
        "webhook attempt"
    );
    if let Err(e) = store.record_attempt(&record, next).await {
        // The lease runs out and the delivery is attempted again: at least once, never lost.
        tracing::warn!(delivery = %record.delivery, error = %e, "attempt not recorded");
    }
}

/// A new delivery row for resending an event to an endpoint.
pub(crate) fn new_delivery(
    account: &str,
    mode: crate::model::Mode,
    event: &str,
    endpoint: &str,
    now: crate::clock::Timestamp,
) -> crate::model::WebhookDelivery {
    crate::model::WebhookDelivery {
        id: ids::new_id(ids::DELIVERY),
        account: account.into(),
        mode,
        event: event.into(),
        endpoint: endpoint.into(),
        status: crate::model::DeliveryStatus::Pending,
        attempts: 0,
        next_attempt_at: Some(now),
        created_at: now,
        last_attempt_at: None,
    }
}
