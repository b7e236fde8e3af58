//! A server-wide budget for the disk that spooled upload bodies hold.
//!
//! An upload is written to a spool file as it arrives (`body/spool.rs`) and stays there until
//! it is read back for its operation, so N concurrent 25 MB uploads hold N times 25 MB of disk
//! while they arrive. The budget bounds that total: before reading a body, a request reserves
//! what its Content-Length declares (the route's limit when it declares none), waits briefly for
//! earlier uploads to leave the spool when the budget is spent, and is answered `503
//! service_busy` with `Retry-After` when the wait is over. A reservation is given back when its
//! spool file is read into memory or dropped (the request failed or its client went away).
//!
//! One account may hold at most half of the budget at once: a client that declares large
//! bodies and trickles them (each may take the body timeouts to end) could otherwise hold the
//! whole budget and keep every other account's uploads waiting. Past its share an account's
//! upload is answered busy at once, without waiting.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use envelope_core::Error;

/// Reservations are counted in units of this many bytes.
const UNIT: usize = 64 * 1024;

/// The budget itself: shared by every request of one [`crate::App`].
#[derive(Debug, Clone)]
pub struct SpoolBudget {
    units: Arc<Semaphore>,
    total_units: usize,
    wait: Duration,
    /// Units each account holds now.
    held: Arc<Mutex<HashMap<String, usize>>>,
}

/// A reservation: dropping it gives the disk back to the budget.
#[derive(Debug)]
pub struct Reservation {
    _permit: OwnedSemaphorePermit,
    account: String,
    units: usize,
    held: Arc<Mutex<HashMap<String, usize>>>,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = held.get_mut(&self.account) {
            *n = n.saturating_sub(self.units);
            if *n == 0 {
                held.remove(&self.account);
            }
        }
    }
}

impl SpoolBudget {
    /// A budget of `max_bytes` (at least one unit), for which a request waits at most `wait`.
    pub fn new(max_bytes: usize, wait: Duration) -> SpoolBudget {
        let total_units = max_bytes.div_ceil(UNIT).max(1);
        SpoolBudget {
            units: Arc::new(Semaphore::new(total_units)),
            total_units,
            wait,
            held: Arc::default(),
        }
    }

    /// Reserves `bytes` for `account` (capped at the whole budget, so that one body larger than
    /// the budget still runs, alone), waiting for earlier uploads to leave the spool; `Error::Busy` when
    /// the wait is over, or at once when the account already holds its share.
    pub async fn reserve(&self, account: &str, bytes: usize) -> Result<Reservation, Error> {
        let busy = || Error::Busy {
            retry_after_secs: self.wait.as_secs().clamp(1, 60),
        };
        let units = bytes.div_ceil(UNIT).clamp(1, self.total_units);
        {
            // Counted before waiting, so an account's waiting uploads count against its share.
            let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
            let mine = held.get(account).copied().unwrap_or(0);
            if mine > 0 && mine + units > self.total_units.div_ceil(2) {
                return Err(busy());
            }
            *held.entry(account.to_string()).or_insert(0) += units;
        }
        let reservation = |permit| Reservation {
            _permit: permit,
            account: account.to_string(),
            units,
            held: self.held.clone(),
        };
        let acquire = self
            .units
            .clone()
            .acquire_many_owned(u32::try_from(units).unwrap_or(u32::MAX));
        match tokio::time::timeout(self.wait, acquire).await {
            Ok(Ok(permit)) => Ok(reservation(permit)),
            // The semaphore is never closed; a closed one would mean shutting down: busy too.
            Ok(Err(_)) | Err(_) => {
                let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(n) = held.get_mut(account) {
                    *n = n.saturating_sub(units);
                    if *n == 0 {
                        held.remove(account);
                    }
                }
                Err(busy())
            }
        }
    }

    /// Bytes not reserved now (for tests and logs).
    pub fn available(&self) -> usize {
        self.units.available_permits() * UNIT
    }

    /// Bytes reserved now, in whole units (for tests and logs).
    pub fn reserved(&self) -> usize {
        (self.total_units - self.units.available_permits()) * UNIT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reservations_wait_for_each_other_then_give_up() {
        let budget = SpoolBudget::new(10 * UNIT, Duration::from_millis(50));
        let a = budget.reserve("acct_a", 6 * UNIT).await.unwrap();
        assert_eq!(budget.available(), 4 * UNIT);
        // Does not fit beside `a`: waits, then busy.
        match budget.reserve("acct_c", 6 * UNIT).await {
            Err(Error::Busy { retry_after_secs }) => assert_eq!(retry_after_secs, 1),
            other => panic!("expected busy, got {:?}", other.map(|_| ())),
        }
        // Fits once `a` is dropped, even while waiting.
        let waiter = {
            let budget = budget.clone();
            tokio::spawn(async move { budget.reserve("acct_b", 6 * UNIT).await.map(|_| ()) })
        };
        tokio::time::sleep(Duration::from_millis(10)).await;
        drop(a);
        assert!(waiter.await.unwrap().is_ok());
        assert_eq!(budget.available(), 10 * UNIT);
    }

    #[tokio::test]
    async fn a_body_larger_than_the_budget_runs_alone() {
        let budget = SpoolBudget::new(4 * UNIT, Duration::from_millis(50));
        let big = budget.reserve("acct_a", 100 * UNIT).await.unwrap();
        assert_eq!(budget.available(), 0);
        assert!(budget.reserve("acct_c", 1).await.is_err());
        drop(big);
        assert!(budget.reserve("acct_c", 1).await.is_ok());
    }

    #[tokio::test]
    async fn one_account_holds_at_most_half_and_others_keep_the_rest() {
        // A long wait: the refusal past the share must not wait for it.
        let budget = SpoolBudget::new(10 * UNIT, Duration::from_secs(3600));
        let first = budget.reserve("acct_a", 4 * UNIT).await.unwrap();
        assert!(matches!(
            budget.reserve("acct_a", 2 * UNIT).await,
            Err(Error::Busy { .. })
        ));
        let other = budget.reserve("acct_b", 5 * UNIT).await.unwrap();
        assert_eq!(budget.available(), UNIT);
        drop(first);
        // Its share is free again once its upload ends.
        let again = budget.reserve("acct_a", 5 * UNIT).await.unwrap();
        drop((other, again));
        assert_eq!(budget.available(), 10 * UNIT);
        assert!(budget.held.lock().unwrap().is_empty());
    }
}
