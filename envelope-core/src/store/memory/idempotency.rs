//! [`MemoryStore`]'s idempotency.

use async_trait::async_trait;

use super::*;

#[async_trait]
impl IdempotencyStore for MemoryStore {
    async fn idempotency_begin(
        &self,
        scope: &Scope,
        key: &str,
        fingerprint: &str,
        now: Timestamp,
        stale_before: Timestamp,
    ) -> StoreResult<IdempotencyBegin> {
        let mut g = self.lock();
        let k = (scope.clone(), key.to_string());
        let decision = match g.idempotency.get(&k) {
            Some(Idem::Done {
                fingerprint: f,
                response,
                expires_at,
            }) if *expires_at > now => {
                return Ok(if f == fingerprint {
                    IdempotencyBegin::Replay(response.clone())
                } else {
                    IdempotencyBegin::Mismatch
                });
            }
            Some(Idem::InFlight {
                fingerprint: f,
                started,
                ..
            }) if *started > stale_before => {
                return Ok(if f == fingerprint {
                    IdempotencyBegin::InFlight
                } else {
                    IdempotencyBegin::Mismatch
                });
            }
            // A retry of the same request after its process died continues the lineage.
            Some(Idem::InFlight {
                fingerprint: f,
                origin,
                ..
            }) if f == fingerprint => origin.clone(),
            _ => uuid::Uuid::new_v4().to_string(),
        };
        g.idempotency.insert(
            k,
            Idem::InFlight {
                fingerprint: fingerprint.to_string(),
                started: now,
                origin: decision.clone(),
            },
        );
        Ok(IdempotencyBegin::Started { origin: decision })
    }

    async fn idempotency_finish(
        &self,
        scope: &Scope,
        key: &str,
        response: &StoredResponse,
        expires_at: Timestamp,
    ) -> StoreResult<()> {
        let mut g = self.lock();
        let k = (scope.clone(), key.to_string());
        if let Some(Idem::InFlight { fingerprint, .. }) = g.idempotency.get(&k) {
            let fingerprint = fingerprint.clone();
            g.idempotency.insert(
                k,
                Idem::Done {
                    fingerprint,
                    response: response.clone(),
                    expires_at,
                },
            );
        }
        Ok(())
    }

    async fn idempotency_release(&self, scope: &Scope, key: &str) -> StoreResult<()> {
        let mut g = self.lock();
        let k = (scope.clone(), key.to_string());
        if matches!(g.idempotency.get(&k), Some(Idem::InFlight { .. })) {
            g.idempotency.remove(&k);
        }
        Ok(())
    }
}
