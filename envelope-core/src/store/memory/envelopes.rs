//! [`MemoryStore`]'s envelopes.

use async_trait::async_trait;

use super::*;
use crate::model::SealRecord;

#[async_trait]
impl EnvelopeStore for MemoryStore {
    async fn create_envelope(
        &self,
        envelope: &EnvelopeRecord,
        events: &[EventRecord],
        debit: Option<&AllowanceDebit>,
    ) -> StoreResult<()> {
        let mut g = self.lock();
        if g.envelopes.by_id.contains_key(envelope.id.as_str()) {
            return Err(StoreError::Duplicate);
        }
        if let Some(t) = &envelope.template
            && g.templates.get(&envelope.scope(), t).is_none()
        {
            return Err(StoreError::Conflict);
        }
        let new = envelope.held_files();
        g.check_quota(&envelope.account, g.hold_delta(&[], &new))?;
        g.check_debit(debit)?;
        g.append_events(events)?;
        g.apply_debit(debit);
        g.apply_holds(&envelope.account, &[], &new);
        g.envelopes.insert(&envelope.id, envelope.clone())
    }

    async fn update_envelope(
        &self,
        envelope: &EnvelopeRecord,
        events: &[EventRecord],
        debit: Option<&AllowanceDebit>,
    ) -> StoreResult<()> {
        let mut g = self.lock();
        let old = match g.envelopes.by_id.get(envelope.id.as_str()) {
            Some(e) if e.version + 1 == envelope.version && e.in_scope(&envelope.scope()) => {
                e.clone()
            }
            _ => return Err(StoreError::Conflict),
        };
        g.check_debit(debit)?;
        g.append_events(events)?;
        g.apply_debit(debit);
        g.apply_holds(&envelope.account, &old.held_files(), &envelope.held_files());
        g.envelopes
            .by_id
            .insert(envelope.id.to_string(), envelope.clone());
        Ok(())
    }

    async fn erase_envelope(&self, envelope: &EnvelopeRecord) -> StoreResult<()> {
        let mut g = self.lock();
        let old = match g.envelopes.by_id.get(envelope.id.as_str()) {
            Some(e) if e.version + 1 == envelope.version && e.in_scope(&envelope.scope()) => {
                e.clone()
            }
            _ => return Err(StoreError::Conflict),
        };
        g.apply_holds(&envelope.account, &old.held_files(), &envelope.held_files());
        g.envelopes
            .by_id
            .insert(envelope.id.to_string(), envelope.clone());
        for e in g.events.by_id.values_mut() {
            if e.event.data.object.id() == envelope.id.as_str() && e.in_scope(&envelope.scope()) {
                e.erase_personal_data();
            }
        }
        Ok(())
    }

    async fn get_envelope(
        &self,
        scope: &Scope,
        id: &EnvelopeId,
    ) -> StoreResult<Option<EnvelopeRecord>> {
        Ok(self.lock().envelopes.get(scope, id))
    }

    async fn envelope_stamp(
        &self,
        scope: &Scope,
        id: &EnvelopeId,
    ) -> StoreResult<Option<EnvelopeStamp>> {
        let g = self.lock();
        Ok(g.envelopes
            .by_id
            .get(id.as_str())
            .filter(|e| e.in_scope(scope))
            .map(EnvelopeStamp::of))
    }

    async fn list_envelopes(
        &self,
        scope: &Scope,
        filter: &EnvelopeFilter,
        page: &PageRequest,
    ) -> StoreResult<Listed<EnvelopeRecord>> {
        Ok(self.lock().envelopes.list(scope, page, |e| {
            filter
                .template
                .as_ref()
                .is_none_or(|t| e.template.as_deref() == Some(t.as_str()))
                && filter
                    .bulk_send
                    .as_ref()
                    .is_none_or(|b| e.bulk_send.as_ref() == Some(b))
        }))
    }

    async fn expired_envelopes(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        use crate::model::EnvelopeStatus::{Draft, Sent};
        let g = self.lock();
        Ok(g.envelopes
            .order
            .iter()
            .map(|id| &g.envelopes.by_id[id])
            .filter(|e| matches!(e.status, Draft | Sent) && e.expires_at.is_some_and(|t| t <= now))
            .take(limit)
            .cloned()
            .collect())
    }

    async fn seal_upgrades_due(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        let g = self.lock();
        Ok(seal_due(&g, |s| s.upgrade_due_at, now, None, limit))
    }

    async fn seals_expiring(
        &self,
        before: Timestamp,
        after: Option<(Timestamp, EnvelopeId)>,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        let g = self.lock();
        Ok(seal_due(
            &g,
            |s| s.archive_expires_at,
            before,
            after.as_ref(),
            limit,
        ))
    }
}

/// The records whose seal time `at` is at or before `until` and after the cursor `after`, by
/// (time, ID), at most `limit`: a scan of every record.
fn seal_due(
    g: &Inner,
    at: impl Fn(&SealRecord) -> Option<Timestamp>,
    until: Timestamp,
    after: Option<&(Timestamp, EnvelopeId)>,
    limit: usize,
) -> Vec<EnvelopeRecord> {
    let mut due: Vec<(Timestamp, &EnvelopeRecord)> = g
        .envelopes
        .by_id
        .values()
        .filter_map(|e| Some((e.seal.as_ref().and_then(&at)?, e)))
        .filter(|&(t, e)| t <= until && after.is_none_or(|(t0, id0)| (t, &e.id) > (*t0, id0)))
        .collect();
    due.sort_by(|(t1, e1), (t2, e2)| (t1, &e1.id).cmp(&(t2, &e2.id)));
    due.into_iter()
        .take(limit)
        .map(|(_, e)| e.clone())
        .collect()
}
