//! [`MemoryStore`]'s retention.

use async_trait::async_trait;

use super::*;

#[async_trait]
impl RetentionStore for MemoryStore {
    async fn purge_expired(&self, before: &PurgeBefore, limit: usize) -> StoreResult<Purged> {
        /// Removes up to `limit` entries that `gone` selects.
        fn purge<K: Clone + Eq + std::hash::Hash, V>(
            map: &mut HashMap<K, V>,
            limit: usize,
            gone: impl Fn(&V) -> bool,
        ) -> usize {
            let keys: Vec<K> = map
                .iter()
                .filter(|(_, v)| gone(v))
                .map(|(k, _)| k.clone())
                .take(limit)
                .collect();
            for k in &keys {
                map.remove(k);
            }
            keys.len()
        }
        let mut g = self.lock();
        Ok(Purged {
            idempotency_keys: purge(&mut g.idempotency, limit, |i| match i {
                Idem::Done { expires_at, .. } => *expires_at < before.idempotency,
                Idem::InFlight { started, .. } => *started < before.idempotency,
            }),
            signing_tokens: purge(&mut g.signing_tokens, limit, |t| {
                t.expires_at < before.links
            }),
            file_links: purge(&mut g.file_links, limit, |l| l.expires_at < before.links),
            builder_tokens: purge(&mut g.builder_tokens, limit, |t| {
                t.expires_at < before.links
            }),
        })
    }

    async fn delete_stale_envelopes(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Removed> {
        let mut g = self.lock();
        let stale = oldest(
            g.envelopes
                .by_id
                .values()
                .filter(|e| e.mode == mode)
                .map(|e| (e.last_change(), e.id.as_str())),
            before,
            limit,
        );
        let mut out = Removed::default();
        for id in stale {
            let env = g.envelopes.remove(&id).expect("listed above");
            // What belongs to the envelope (as `ENVELOPE_ROWS` in `sql/retention.rs`).
            let events: HashSet<String> = g
                .events
                .by_id
                .values()
                .filter(|e| e.event.data.object.id() == id.as_str())
                .map(|e| e.id().to_string())
                .collect();
            for e in &events {
                g.events.remove(e);
            }
            g.deliveries.retain(|d| !events.contains(d.event.as_str()));
            g.attempts.retain(|a| !events.contains(a.event.as_str()));
            g.signing_tokens.retain(|_, t| t.envelope != id);
            g.builder_tokens.retain(|_, t| t.target.id() != id);
            let freed = g.apply_holds(&env.account, &env.held_files(), &[]);
            out.blobs.extend(freed);
            out.records += 1;
        }
        Ok(out)
    }

    async fn delete_stale_templates(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Removed> {
        let mut g = self.lock();
        let stale = oldest(
            g.templates
                .by_id
                .values()
                .filter(|t| t.mode == mode)
                .map(|t| (t.updated_at, t.id.as_str())),
            before,
            limit,
        );
        let mut out = Removed::default();
        for id in stale {
            let t = g.templates.remove(&id).expect("listed above");
            g.builder_tokens.retain(|_, b| b.target.id() != id);
            out.blobs
                .extend(g.apply_holds(&t.account, &t.held_files(), &[]));
            out.records += 1;
        }
        Ok(out)
    }

    async fn envelopes_with_files(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        use crate::model::EnvelopeStatus::{Completed, Voided};
        let g = self.lock();
        let mut due: Vec<&EnvelopeRecord> = g
            .envelopes
            .by_id
            .values()
            .filter(|e| {
                e.mode == mode
                    && matches!(e.status, Completed | Voided)
                    && e.files_deleted_at.is_none()
                    && e.last_change() < before
            })
            .collect();
        due.sort_by_key(|e| (e.last_change(), e.id.clone()));
        Ok(due.into_iter().take(limit).cloned().collect())
    }

    async fn unheld_blobs(&self, keys: &[String]) -> StoreResult<Vec<String>> {
        let g = self.lock();
        Ok(keys
            .iter()
            .filter(|k| !g.held.contains_key(*k))
            .cloned()
            .collect())
    }
}
