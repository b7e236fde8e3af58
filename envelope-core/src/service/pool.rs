//! The bounded pool of PDF work: inspection, stamping, audit trails and seals.
//!
//! PDF work is CPU-bound and holds a document's bytes and the reader's structures while it runs,
//! so how many documents are in work at once decides both how busy the cores are and how much
//! memory requests hold. The pool has a fixed number of slots (by default the number of cores).
//! A caller past capacity waits in line (first come, first served) for a short while, then gets
//! [`Error::Busy`], which changes nothing and can be retried. Completing an envelope waits
//! longer: it is a signer's accepted submission, not a new request that can be refused cheaply.
//!
//! A slot is held by the blocking task itself, not by the caller's future: a caller that goes
//! away does not free the slot while its work still runs on a core.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::{Error, Result};

/// Settings of the PDF pool (`Settings::pdf_pool`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfPoolSettings {
    /// Documents in work at once. At least 1.
    pub capacity: usize,
    /// How long a request waits for a slot before it is answered [`Error::Busy`].
    pub queue_wait: Duration,
    /// How long completing an envelope (the last signature, the test helper) waits for a slot.
    /// Past it the completion fails as busy and nothing of it is recorded.
    pub completion_wait: Duration,
}

impl Default for PdfPoolSettings {
    /// One slot per core, and at least 2; a request waits up to 2 s, a completion up to 60 s.
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        PdfPoolSettings {
            capacity: cores.max(2),
            queue_wait: Duration::from_secs(2),
            completion_wait: Duration::from_secs(60),
        }
    }
}

/// How long a caller may wait for a slot.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Patience {
    /// A new request: `queue_wait`.
    Request,
    /// The completion of an envelope: `completion_wait`.
    Completion,
}

pub(crate) struct PdfPool {
    slots: Arc<Semaphore>,
    settings: PdfPoolSettings,
}

impl std::fmt::Debug for PdfPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PdfPool")
            .field("settings", &self.settings)
            .field("free", &self.slots.available_permits())
            .finish()
    }
}

/// One taken slot of the PDF pool; dropping it frees the slot.
#[derive(Debug)]
pub struct PdfSlot {
    _permit: OwnedSemaphorePermit,
}

impl PdfPool {
    pub(crate) fn new(settings: PdfPoolSettings) -> PdfPool {
        PdfPool {
            slots: Arc::new(Semaphore::new(settings.capacity.max(1))),
            settings,
        }
    }

    /// Takes a slot, waiting at most as long as `patience` allows.
    pub(crate) async fn slot(&self, patience: Patience) -> Result<PdfSlot> {
        let wait = match patience {
            Patience::Request => self.settings.queue_wait,
            Patience::Completion => self.settings.completion_wait,
        };
        match tokio::time::timeout(wait, self.slots.clone().acquire_owned()).await {
            Ok(Ok(permit)) => Ok(PdfSlot { _permit: permit }),
            // The semaphore is never closed; this arm only keeps the match total.
            Ok(Err(_)) => Err(Error::Internal("the PDF pool is closed".into())),
            Err(_) => Err(Error::Busy {
                retry_after_secs: self.retry_after_secs(),
            }),
        }
    }

    /// Runs `f` on a blocking thread once a slot is free; the slot goes with the task. `task`
    /// names it in the metrics (`envelope_pdf_task_seconds{task}`, docs/OPERATIONS.md).
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        patience: Patience,
        task: &'static str,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T> {
        let slot = match self.slot(patience).await {
            Ok(slot) => slot,
            Err(e) => {
                metrics::counter!("envelope_pdf_busy_total", "task" => task).increment(1);
                return Err(e);
            }
        };
        tokio::task::spawn_blocking(move || {
            let _slot = slot;
            let started = std::time::Instant::now();
            let out = f();
            metrics::histogram!("envelope_pdf_task_seconds", "task" => task)
                .record(started.elapsed().as_secs_f64());
            out
        })
        .await
        .map_err(|e| Error::Internal(format!("PDF task failed: {e}")))
    }

    /// A queue that stayed full for `queue_wait` is likely to stay full about as long again.
    fn retry_after_secs(&self) -> u64 {
        self.settings.queue_wait.as_secs_f64().ceil().max(1.0) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(capacity: usize) -> PdfPool {
        PdfPool::new(PdfPoolSettings {
            capacity,
            queue_wait: Duration::from_millis(20),
            completion_wait: Duration::from_secs(30),
        })
    }

    #[tokio::test]
    async fn past_capacity_a_request_is_busy_and_changes_nothing() {
        let pool = pool(1);
        let held = pool.slot(Patience::Request).await.unwrap();
        let e = pool.run(Patience::Request, "test", || 1).await.unwrap_err();
        assert_eq!(e.code(), "service_busy");
        assert!(matches!(
            e,
            Error::Busy {
                retry_after_secs: 1
            }
        ));
        drop(held);
        assert_eq!(pool.run(Patience::Request, "test", || 2).await.unwrap(), 2);
    }

    #[tokio::test]
    async fn a_completion_waits_for_the_slot() {
        let pool = Arc::new(pool(1));
        let held = pool.slot(Patience::Request).await.unwrap();
        let waiting = {
            let pool = pool.clone();
            tokio::spawn(async move { pool.run(Patience::Completion, "test", || 3).await })
        };
        // A request arriving meanwhile is refused; the completion is still in line.
        let e = pool.run(Patience::Request, "test", || 0).await.unwrap_err();
        assert_eq!(e.code(), "service_busy");
        assert!(!waiting.is_finished());
        drop(held);
        assert_eq!(waiting.await.unwrap().unwrap(), 3);
    }

    #[tokio::test]
    async fn the_slot_stays_taken_while_abandoned_work_runs() {
        let pool = Arc::new(pool(1));
        let (started_tx, started_rx) = std::sync::mpsc::channel::<()>();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let work = {
            let pool = pool.clone();
            tokio::spawn(async move {
                pool.run(Patience::Request, "test", move || {
                    started_tx.send(()).unwrap();
                    release_rx.recv().unwrap();
                })
                .await
            })
        };
        tokio::task::spawn_blocking(move || started_rx.recv().unwrap())
            .await
            .unwrap();
        // The caller gives up; the PDF work itself is still on a core.
        work.abort();
        assert_eq!(
            pool.run(Patience::Request, "test", || ())
                .await
                .unwrap_err()
                .code(),
            "service_busy"
        );
        release_tx.send(()).unwrap();
        let slot = pool.slot(Patience::Completion).await;
        assert!(slot.is_ok());
    }
}
