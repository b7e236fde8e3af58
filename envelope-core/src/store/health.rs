//! Readiness, failure for good, and key checks: [`HealthStore`].

use async_trait::async_trait;

use super::*;

/// What the service asks of a store at start and while it runs.
///
/// # Contract
///
/// - **Readiness**: [`HealthStore::check_ready`] answers `Ok` only after a real read and a real
///   write, and repeated calls leave the store's size unchanged.
/// - **Key checks**: [`HealthStore::key_check`] keeps the first value stored under a name for
///   good: every later or concurrent call returns that one.
///
/// Conformance clauses: `readiness`, `key_check`.
#[async_trait]
pub trait HealthStore: Send + Sync + 'static {
    /// Proves that the store serves a read and a durable write now. The write overwrites one
    /// fixed row with `now`, so calling this often never grows the store; the caller bounds how
    /// often (see `SigningService::readiness`). A store that has failed for good answers
    /// [`NotReadyCause::Failed`] without trying.
    async fn check_ready(&self, now: Timestamp) -> Result<(), NotReady>;
    /// Completes, with the reason, once the store has failed for good in this process (SQLite:
    /// a failed fsync); until then it waits. Stores that cannot fail that way never complete,
    /// which is the default.
    async fn failed_for_good(&self) -> String {
        std::future::pending().await
    }
    /// The check value stored under `name` (a known text sealed with a key that encrypts what
    /// the store keeps, see `ResponseKey::check_against`); when there is none yet, `proposed`
    /// is stored, durably, and returned. Concurrent callers all get the one value stored first.
    async fn key_check(&self, name: &str, proposed: &str) -> StoreResult<String>;
}

/// Why [`HealthStore::check_ready`] found the store unable to serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotReadyCause {
    /// A read failed (the database is down or unreachable).
    Unreadable,
    /// Reads work but a write failed (read-only database, full disk, missing privilege).
    Unwritable,
    /// The store has failed for good in this process and only a restart recovers it (SQLite:
    /// a failed fsync, after which nothing written can be promised durable).
    Failed,
}

/// What [`HealthStore::check_ready`] reports when the store cannot serve. `detail` is for the logs:
/// it may carry the driver's words and is never shown to a client.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{detail}")]
pub struct NotReady {
    /// What kind of failure the probe met, which decides what readiness reports.
    pub cause: NotReadyCause,
    /// The failure in words, for the logs only.
    pub detail: String,
}

impl NotReady {
    /// A report of `cause`, with `detail` (anything `Display`) as its words for the logs.
    pub fn new(cause: NotReadyCause, detail: impl std::fmt::Display) -> NotReady {
        NotReady {
            cause,
            detail: detail.to_string(),
        }
    }
}
