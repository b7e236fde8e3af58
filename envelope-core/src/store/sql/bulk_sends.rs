//! Bulk sends (extensions E12): the record in `doc`, the rows apart in `rows` (deleted when it
//! completes), the lease in `lease_until`; the reserved allowance and the refunds of failed
//! rows in the same transactions as the record.

use async_trait::async_trait;

use super::envelopes::{ENABLED_ENDPOINTS, INSERT_DELIVERY, INSERT_EVENT, insert_events};
use super::lists::{Filter, ListSql};
use super::{SqlStore, db_err, decode, encode, millis, version, with_tx};
use crate::clock::Timestamp;
use crate::ids::{self, BulkSendId};
use crate::model::{
    BulkRow, BulkSendRecord, BulkSendStatus, EventRecord, Scope, WebhookEndpointRecord,
};
use crate::store::{AllowanceDebit, BulkSendStore, Listed, PageRequest, StoreError, StoreResult};

const INSERT: &str = "INSERT INTO bulk_sends \
    (id, account, mode, version, status, lease_until, doc, rows) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";

/// Reserves `$4` units at once, only when they all fit under the allowance `$3` (zero rows
/// changed: refused). Serialized on the usage row as the envelope debit is.
const RESERVE: &str = "INSERT INTO allowance_usage (account, period, used) \
    SELECT $1, $2, $4 WHERE $4 <= $3 \
    ON CONFLICT (account, period) DO UPDATE SET used = allowance_usage.used + $4 \
    WHERE allowance_usage.used + $4 <= $3";

/// Gives `$3` units back, never below zero.
const REFUND: &str = "UPDATE allowance_usage \
    SET used = CASE WHEN used > $3 THEN used - $3 ELSE 0 END \
    WHERE account = $1 AND period = $2";

/// The oldest claimable bulk send (the partial index on processing ones).
const CLAIMABLE: &str = "SELECT id, version, doc, rows FROM bulk_sends \
    WHERE status = 'processing' AND (lease_until IS NULL OR lease_until <= $1) \
    ORDER BY seq LIMIT 1";

/// Compare-and-set on `version` (and scope): zero rows changed is a conflict. `$8` keeps the
/// rows (1) or deletes them (0).
const UPDATE: &str = "UPDATE bulk_sends SET version = $4, status = $5, lease_until = $6, \
    doc = $7, rows = CASE WHEN $8 = 1 THEN rows ELSE NULL END \
    WHERE id = $1 AND account = $2 AND mode = $3 AND version = $9";

const LIST: ListSql = ListSql {
    cursor: "SELECT seq FROM bulk_sends WHERE id = $1 AND account = $2 AND mode = $3",
    page: "SELECT doc FROM bulk_sends WHERE account = $1 AND mode = $2 AND seq < $3 \
           ORDER BY seq DESC LIMIT $4",
};

#[async_trait]
impl BulkSendStore for SqlStore {
    async fn create_bulk_send(
        &self,
        record: &BulkSendRecord,
        rows: &[BulkRow],
        debit: Option<&AllowanceDebit>,
    ) -> StoreResult<()> {
        let doc = encode(record)?;
        let rows = encode(&rows)?;
        let v = version(record.version)?;
        with_tx!(&self.pool, |tx| {
            sqlx::query(INSERT)
                .bind(record.id.as_str())
                .bind(&record.account)
                .bind(record.mode.as_str())
                .bind(v)
                .bind(record.status.as_str())
                .bind(record.lease_until.map(millis))
                .bind(&doc)
                .bind(&rows)
                .execute(&mut *tx)
                .await
                .map_err(db_err)?;
            if let Some(d) = debit {
                let changed = sqlx::query(RESERVE)
                    .bind(&d.account)
                    .bind(&d.period)
                    .bind(i64::from(d.allowance))
                    .bind(i64::from(record.total))
                    .execute(&mut *tx)
                    .await
                    .map_err(db_err)?
                    .rows_affected();
                if changed == 0 {
                    return Err(StoreError::InsufficientBalance);
                }
            }
        });
        Ok(())
    }

    async fn get_bulk_send(
        &self,
        scope: &Scope,
        id: &BulkSendId,
    ) -> StoreResult<Option<BulkSendRecord>> {
        self.scoped_doc(
            "SELECT doc FROM bulk_sends WHERE id = $1 AND account = $2 AND mode = $3",
            "bulk send",
            scope,
            id,
        )
        .await
    }

    async fn list_bulk_sends(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> StoreResult<Listed<BulkSendRecord>> {
        self.list_docs("bulk send", &LIST, scope, Filter::None, page)
            .await
    }

    async fn claim_bulk_send(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> StoreResult<Option<(BulkSendRecord, Vec<BulkRow>)>> {
        let claimed = with_tx!(&self.pool, |tx| {
            let row: Option<(String, i64, String, Option<String>)> = sqlx::query_as(CLAIMABLE)
                .bind(millis(now))
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_err)?;
            match row {
                None => None,
                Some((id, old, doc, rows)) => {
                    let mut record: BulkSendRecord = decode("bulk send", &doc)?;
                    record.version = u64::try_from(old).unwrap_or(0) + 1;
                    record.lease_until = Some(lease_until);
                    let changed = sqlx::query(UPDATE)
                        .bind(&id)
                        .bind(&record.account)
                        .bind(record.mode.as_str())
                        .bind(version(record.version)?)
                        .bind(record.status.as_str())
                        .bind(millis(lease_until))
                        .bind(encode(&record)?)
                        .bind(1_i64)
                        .bind(old)
                        .execute(&mut *tx)
                        .await
                        .map_err(db_err)?
                        .rows_affected();
                    // Another process claimed it between the read and the write (PostgreSQL).
                    if changed == 0 {
                        None
                    } else {
                        let rows: Vec<BulkRow> = match rows {
                            Some(r) => decode("bulk send rows", &r)?,
                            None => Vec::new(),
                        };
                        Some((record, rows))
                    }
                }
            }
        });
        Ok(claimed)
    }

    async fn update_bulk_send(
        &self,
        record: &BulkSendRecord,
        events: &[EventRecord],
        refund: u32,
    ) -> StoreResult<()> {
        let doc = encode(record)?;
        let new = version(record.version)?;
        let old = new.checked_sub(1).ok_or(StoreError::Conflict)?;
        let keep_rows = i64::from(record.status == BulkSendStatus::Processing);
        let event_docs = events
            .iter()
            .map(super::packed::pack)
            .collect::<StoreResult<Vec<_>>>()?;
        with_tx!(&self.pool, |tx| {
            let changed = sqlx::query(UPDATE)
                .bind(record.id.as_str())
                .bind(&record.account)
                .bind(record.mode.as_str())
                .bind(new)
                .bind(record.status.as_str())
                .bind(record.lease_until.map(millis))
                .bind(&doc)
                .bind(keep_rows)
                .bind(old)
                .execute(&mut *tx)
                .await
                .map_err(db_err)?
                .rows_affected();
            if changed == 0 {
                return Err(StoreError::Conflict);
            }
            if let Some(period) = record.period.as_ref().filter(|_| refund > 0) {
                sqlx::query(REFUND)
                    .bind(&record.account)
                    .bind(period)
                    .bind(i64::from(refund))
                    .execute(&mut *tx)
                    .await
                    .map_err(db_err)?;
            }
            insert_events!(tx, events, &event_docs);
        });
        Ok(())
    }
}
