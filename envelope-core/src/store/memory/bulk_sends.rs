//! [`MemoryStore`]'s bulk sends.

use async_trait::async_trait;

use super::*;
use crate::ids::BulkSendId;
use crate::model::{BulkRow, BulkSendStatus};

#[async_trait]
impl BulkSendStore for MemoryStore {
    async fn create_bulk_send(
        &self,
        record: &BulkSendRecord,
        rows: &[BulkRow],
        debit: Option<&AllowanceDebit>,
    ) -> StoreResult<()> {
        let mut g = self.lock();
        if g.bulk_sends.by_id.contains_key(record.id.as_str()) {
            return Err(StoreError::Duplicate);
        }
        if let Some(d) = debit {
            let key = (d.account.to_string(), d.period.clone());
            let used = g.usage.get(&key).copied().unwrap_or(0);
            if u64::from(used) + u64::from(record.total) > u64::from(d.allowance) {
                return Err(StoreError::InsufficientBalance);
            }
            g.usage.insert(key, used + record.total);
        }
        g.bulk_rows.insert(record.id.to_string(), rows.to_vec());
        g.bulk_sends.insert(&record.id, record.clone())
    }

    async fn get_bulk_send(
        &self,
        scope: &Scope,
        id: &BulkSendId,
    ) -> StoreResult<Option<BulkSendRecord>> {
        Ok(self.lock().bulk_sends.get(scope, id))
    }

    async fn list_bulk_sends(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> StoreResult<Listed<BulkSendRecord>> {
        Ok(self.lock().bulk_sends.list(scope, page, |_| true))
    }

    async fn claim_bulk_send(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> StoreResult<Option<(BulkSendRecord, Vec<BulkRow>)>> {
        let mut g = self.lock();
        let Some(id) = g
            .bulk_sends
            .order
            .iter()
            .find(|id| {
                let b = &g.bulk_sends.by_id[*id];
                b.status == BulkSendStatus::Processing && b.lease_until.is_none_or(|t| t <= now)
            })
            .cloned()
        else {
            return Ok(None);
        };
        let b = g.bulk_sends.by_id.get_mut(&id).expect("found above");
        b.version += 1;
        b.lease_until = Some(lease_until);
        let claimed = b.clone();
        let rows = g.bulk_rows.get(&id).cloned().unwrap_or_default();
        Ok(Some((claimed, rows)))
    }

    async fn update_bulk_send(
        &self,
        record: &BulkSendRecord,
        events: &[EventRecord],
        refund: u32,
    ) -> StoreResult<()> {
        let mut g = self.lock();
        match g.bulk_sends.by_id.get(record.id.as_str()) {
            Some(b) if b.version + 1 == record.version && b.in_scope(&record.scope()) => {}
            _ => return Err(StoreError::Conflict),
        }
        g.append_events(events)?;
        if let Some(period) = record.period.as_ref().filter(|_| refund > 0)
            && let Some(used) = g
                .usage
                .get_mut(&(record.account.to_string(), period.clone()))
        {
            *used = used.saturating_sub(refund);
        }
        if record.status == BulkSendStatus::Completed {
            g.bulk_rows.remove(record.id.as_str());
        }
        g.bulk_sends
            .by_id
            .insert(record.id.to_string(), record.clone());
        Ok(())
    }
}
