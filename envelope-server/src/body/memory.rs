//! A server-wide budget for the memory that upload bodies hold.
//!
//! An upload is held in memory from its first byte until its operation ends (the idempotency
//! fingerprint hashes the whole body, and the PDF reader needs all of it), so N concurrent 25 MB
//! uploads cost N times 25 MB no matter how few of them the PDF pool inspects at once. The budget
//! makes the total independent of N: before reading a body, a request reserves what its
//! Content-Length declares (the route's limit when it declares none), waits briefly for earlier
//! uploads to finish when the budget is spent, and is answered `503 service_busy` with
//! `Retry-After` when the wait is over. A reservation is released when the operation ends, not
//! when the client goes away, because the operation goes on without it.
//!
//! Small bodies (JSON actions, at most `max_small_body`) take no reservation: they are bounded
//! by the connection caps.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use envelope_core::Error;

/// Reservations are counted in units of this many bytes.
const UNIT: usize = 64 * 1024;

/// The budget itself: shared by every request of one [`crate::App`].
#[derive(Debug, Clone)]
pub struct UploadMemory {
    units: Arc<Semaphore>,
    total_units: usize,
    wait: Duration,
}

/// A reservation: dropping it gives the memory back to the budget.
#[derive(Debug)]
pub struct Reservation {
    _permit: OwnedSemaphorePermit,
}

impl UploadMemory {
    /// A budget of `max_bytes` (at least one unit), for which a request waits at most `wait`.
    pub fn new(max_bytes: usize, wait: Duration) -> UploadMemory {
        let total_units = max_bytes.div_ceil(UNIT).max(1);
        UploadMemory {
            units: Arc::new(Semaphore::new(total_units)),
            total_units,
            wait,
        }
    }

    /// Reserves `bytes` (capped at the whole budget, so that one body larger than the budget
    /// still runs, alone), waiting for earlier uploads to finish; `Error::Busy` when the wait is
    /// over.
    pub async fn reserve(&self, bytes: usize) -> Result<Reservation, Error> {
        let units = bytes.div_ceil(UNIT).clamp(1, self.total_units);
        let units = u32::try_from(units).unwrap_or(u32::MAX);
        let acquire = self.units.clone().acquire_many_owned(units);
        match tokio::time::timeout(self.wait, acquire).await {
            Ok(Ok(permit)) => Ok(Reservation { _permit: permit }),
            // The semaphore is never closed; a closed one would mean shutting down: busy too.
            Ok(Err(_)) | Err(_) => Err(Error::Busy {
                retry_after_secs: self.wait.as_secs().clamp(1, 60),
            }),
        }
    }

    /// Bytes not reserved now (for tests and logs).
    pub fn available(&self) -> usize {
        self.units.available_permits() * UNIT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reservations_wait_for_each_other_then_give_up() {
        let budget = UploadMemory::new(10 * UNIT, Duration::from_millis(50));
        let a = budget.reserve(6 * UNIT).await.unwrap();
        assert_eq!(budget.available(), 4 * UNIT);
        // Does not fit beside `a`: waits, then busy.
        match budget.reserve(6 * UNIT).await {
            Err(Error::Busy { retry_after_secs }) => assert_eq!(retry_after_secs, 1),
            other => panic!("expected busy, got {:?}", other.map(|_| ())),
        }
        // Fits once `a` is dropped, even while waiting.
        let waiter = {
            let budget = budget.clone();
            tokio::spawn(async move { budget.reserve(6 * UNIT).await.map(|_| ()) })
        };
        tokio::time::sleep(Duration::from_millis(10)).await;
        drop(a);
        assert!(waiter.await.unwrap().is_ok());
        assert_eq!(budget.available(), 10 * UNIT);
    }

    #[tokio::test]
    async fn a_body_larger_than_the_budget_runs_alone() {
        let budget = UploadMemory::new(4 * UNIT, Duration::from_millis(50));
        let big = budget.reserve(100 * UNIT).await.unwrap();
        assert_eq!(budget.available(), 0);
        assert!(budget.reserve(1).await.is_err());
        drop(big);
        assert!(budget.reserve(1).await.is_ok());
    }
}
