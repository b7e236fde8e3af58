//! Idempotency keys: [`IdempotencyStore`].

use async_trait::async_trait;

use super::*;

/// Idempotency keys: one request per key and scope, its response kept for replay.
///
/// # Contract
///
/// - [`IdempotencyStore::idempotency_begin`] admits exactly one request per key and scope,
///   also when concurrent; a retry of the same request whose earlier attempt died gets the
///   same origin.
/// - A finished key replays its response until its window ends; a released key is forgotten.
///
/// Conformance clauses: `idempotency`, `idempotency_origin`, `idempotency_raced`.
#[async_trait]
pub trait IdempotencyStore: Send + Sync + 'static {
    /// Claims `key` for a request with `fingerprint`. A claim still in flight and older than
    /// `stale_before` is considered abandoned (its process died) and is taken over.
    async fn idempotency_begin(
        &self,
        scope: &Scope,
        key: &str,
        fingerprint: &str,
        now: Timestamp,
        stale_before: Timestamp,
    ) -> StoreResult<IdempotencyBegin>;
    /// Stores the response of a claimed key until `expires_at`.
    async fn idempotency_finish(
        &self,
        scope: &Scope,
        key: &str,
        response: &StoredResponse,
        expires_at: Timestamp,
    ) -> StoreResult<()>;
    /// Forgets a claim (the request failed in a way that must not be replayed).
    async fn idempotency_release(&self, scope: &Scope, key: &str) -> StoreResult<()>;
}

/// A response kept for idempotent replay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredResponse {
    /// The HTTP status of the first response.
    pub status: u16,
    /// The body of the first response, byte for byte.
    pub body: Vec<u8>,
}

/// What [`IdempotencyStore::idempotency_begin`] decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyBegin {
    /// The caller proceeds and must finish or release the key. `origin` names the lineage of
    /// this request: new for a first use (or a different request after the previous one's
    /// window), the same as before when this is a retry of the same request whose earlier
    /// attempt died without finishing. Operations that create resources derive their IDs from
    /// it, so such a retry finds what the earlier attempt may have committed instead of
    /// creating it twice.
    Started {
        /// The lineage of the request, from which created resources derive their IDs.
        origin: String,
    },
    /// A finished request with the same fingerprint: replay this.
    Replay(StoredResponse),
    /// The key was used for a different request.
    Mismatch,
    /// A request with this key is still in flight.
    InFlight,
}
