//! [`MemoryStore`]'s health.

use async_trait::async_trait;

use super::*;

#[async_trait]
impl HealthStore for MemoryStore {
    async fn check_ready(&self, now: Timestamp) -> Result<(), NotReady> {
        // Memory takes every write while the process runs: the probe's row is only kept so that
        // this store does what the contract describes.
        self.lock().ready_checked_at = Some(now);
        Ok(())
    }

    async fn key_check(&self, name: &str, proposed: &str) -> StoreResult<String> {
        let mut g = self.lock();
        Ok(g.key_checks
            .entry(name.to_string())
            .or_insert_with(|| proposed.to_string())
            .clone())
    }
}
