//! Readiness: whether this service can serve requests now, as an orchestrator asks it every few
//! seconds (`GET /readyz` in the server).
//!
//! One probe ([`HealthStore::check_ready`](crate::store::HealthStore::check_ready): a read and a one-row
//! overwrite) runs at most once per [`READINESS_TTL`] of the service's clock; callers in
//! between share its answer, and concurrent callers wait for the one probe in flight. So a flood
//! of probes costs the store one tiny write per second, and never grows it. A store that has
//! failed for good is reported at once, without waiting for the cached answer to expire.
//!
//! Every change of readiness is logged, with the reason.

use std::time::Duration;

use super::SigningService;
use crate::clock::Timestamp;
use crate::store::{NotReady, NotReadyCause};

/// How long one probe's answer is reused.
pub const READINESS_TTL: Duration = Duration::from_secs(1);

/// A probe that takes longer is answered `store_unresponsive`: a store that hangs (a lock held
/// elsewhere, a network partition) must not hang its probes too. Orchestrators time their
/// probes out after a second or more; this stays under their usual periods.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// Whether the service can serve requests now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    /// The service can take requests.
    Ready,
    /// The service cannot take requests, for the reason given.
    Unready(UnreadyReason),
}

impl Readiness {
    /// Whether this is [`Readiness::Ready`].
    pub fn is_ready(&self) -> bool {
        matches!(self, Readiness::Ready)
    }
}

/// Why the service is not ready. The code and message are fixed words, safe to show anyone:
/// the driver's own words only go to the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnreadyReason {
    /// The store does not answer reads.
    StoreUnreadable,
    /// The store answers reads but refuses writes.
    StoreUnwritable,
    /// The store did not answer within [`PROBE_TIMEOUT`].
    StoreUnresponsive,
    /// The store has failed for good (SQLite: a failed fsync); only a restart recovers.
    StoreFailed,
}

impl UnreadyReason {
    /// A stable code (`store_unreadable`, `store_unwritable`, `store_unresponsive`,
    /// `store_failed`).
    pub fn code(self) -> &'static str {
        match self {
            UnreadyReason::StoreUnreadable => "store_unreadable",
            UnreadyReason::StoreUnwritable => "store_unwritable",
            UnreadyReason::StoreUnresponsive => "store_unresponsive",
            UnreadyReason::StoreFailed => "store_failed",
        }
    }

    /// A sentence for operators.
    pub fn message(self) -> &'static str {
        match self {
            UnreadyReason::StoreUnreadable => "The database does not answer reads.",
            UnreadyReason::StoreUnwritable => "The database answers reads but refuses writes.",
            UnreadyReason::StoreUnresponsive => "The database did not answer in time.",
            UnreadyReason::StoreFailed => {
                "The database failed to make a write durable; the process must restart."
            }
        }
    }

    /// Whether only a restart of the process can make it ready again.
    pub fn is_permanent(self) -> bool {
        matches!(self, UnreadyReason::StoreFailed)
    }
}

impl From<NotReadyCause> for UnreadyReason {
    fn from(cause: NotReadyCause) -> UnreadyReason {
        match cause {
            NotReadyCause::Unreadable => UnreadyReason::StoreUnreadable,
            NotReadyCause::Unwritable => UnreadyReason::StoreUnwritable,
            NotReadyCause::Failed => UnreadyReason::StoreFailed,
        }
    }
}

/// What a probe found wrong.
enum Probe {
    Store(NotReady),
    TimedOut,
}

/// The last probe's answer. `None` until the first probe.
#[derive(Debug, Default)]
pub(crate) struct ReadinessCache {
    last: tokio::sync::Mutex<Option<(Timestamp, Readiness)>>,
}

impl SigningService {
    /// Whether the service can serve requests now: `Ready` only when the store has just
    /// served a read and a durable write. Cheap to call often (see the module documentation).
    pub async fn readiness(&self) -> Readiness {
        let inner = &self.inner;
        // A permanent failure shows at once, even while an earlier `Ready` is cached.
        if let Some(why) = ready_now(inner.store.failed_for_good()) {
            let failed = NotReady::new(NotReadyCause::Failed, why);
            let mut last = inner.readiness.last.lock().await;
            return self.settle(&mut last, Err(Probe::Store(failed)));
        }
        let mut last = inner.readiness.last.lock().await;
        let now = inner.clock.now();
        if let Some((at, answer)) = last.as_ref() {
            let age = now.millis().saturating_sub(at.millis());
            if (0..READINESS_TTL.as_millis() as i64).contains(&age) {
                return answer.clone();
            }
        }
        let probed = tokio::time::timeout(PROBE_TIMEOUT, inner.store.check_ready(now)).await;
        let probed = match probed {
            Ok(probed) => probed.map_err(Probe::Store),
            Err(_) => Err(Probe::TimedOut),
        };
        self.settle(&mut last, probed)
    }

    /// Records a probe's outcome, logging a change of readiness.
    fn settle(
        &self,
        last: &mut Option<(Timestamp, Readiness)>,
        probed: Result<(), Probe>,
    ) -> Readiness {
        let now = self.inner.clock.now();
        let answer = match &probed {
            Ok(()) => Readiness::Ready,
            Err(Probe::Store(e)) => Readiness::Unready(e.cause.into()),
            Err(Probe::TimedOut) => Readiness::Unready(UnreadyReason::StoreUnresponsive),
        };
        let changed = last.as_ref().map(|(_, r)| r) != Some(&answer);
        if changed {
            let detail = match &probed {
                Ok(()) => String::new(),
                Err(Probe::Store(e)) => e.detail.clone(),
                Err(Probe::TimedOut) => format!("no answer within {PROBE_TIMEOUT:?}"),
            };
            match answer {
                Readiness::Ready => tracing::info!("ready: the store accepts reads and writes"),
                Readiness::Unready(reason) if reason.is_permanent() => tracing::error!(
                    reason = reason.code(),
                    %detail,
                    "not ready: {}",
                    reason.message()
                ),
                Readiness::Unready(reason) => tracing::warn!(
                    reason = reason.code(),
                    %detail,
                    "not ready: {}",
                    reason.message()
                ),
            }
        }
        *last = Some((now, answer.clone()));
        answer
    }

    /// Completes, with the reason, once the store has failed for good (see
    /// [`HealthStore::failed_for_good`](crate::store::HealthStore::failed_for_good)); a server stops
    /// then, so that its supervisor restarts it.
    pub async fn store_failed(&self) -> String {
        self.inner.store.failed_for_good().await
    }
}

/// `fut`'s output if it is ready without waiting.
fn ready_now<F: std::future::Future>(fut: F) -> Option<F::Output> {
    let mut fut = std::pin::pin!(fut);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match fut.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(out) => Some(out),
        std::task::Poll::Pending => None,
    }
}
