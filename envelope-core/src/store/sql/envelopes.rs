//! Envelopes: the one transaction that writes an envelope, its events, the webhook outbox rows,
//! the allowance debit and the blobs it holds (with the storage quota), all or nothing; and the
//! envelope reads.

use async_trait::async_trait;

use super::held::{self, move_holds};
use super::lists::{Filter, ListSql};
use super::packed::decode_event;
use super::{
    Engine, SqlStore, corrupt, db_err, decode, encode, from_millis, millis, point_read, version,
    with_pool, with_tx,
};
use crate::clock::Timestamp;
use crate::ids;
use crate::ids::EnvelopeId;
use crate::model::{EnvelopeRecord, EnvelopeStatus, EventRecord, Scope, WebhookEndpointRecord};
use crate::store::{AllowanceDebit, EnvelopeFilter, Listed, PageRequest, StoreError, StoreResult};
use crate::store::{EnvelopeStamp, EnvelopeStore};

const INSERT_ENVELOPE: &str = "INSERT INTO envelopes \
    (id, account, mode, version, status, template, expires_at, doc, \
     updated_at, files_deleted_at, blobs, next_email_at, seal_due_at, seal_expires_at, \
     bulk_send) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)";

/// The blobs the version being replaced holds (no row: a stale version).
const HELD_BEFORE: &str = "SELECT blobs FROM envelopes \
    WHERE id = $1 AND account = $2 AND mode = $3 AND version = $4";

/// Compare-and-set on `version` (and scope): zero rows changed is a conflict.
const UPDATE_ENVELOPE: &str = "UPDATE envelopes \
    SET version = $4, status = $5, template = $6, expires_at = $7, doc = $8, \
    updated_at = $10, files_deleted_at = $11, blobs = $12, next_email_at = $13, \
    seal_due_at = $14, seal_expires_at = $15 \
    WHERE id = $1 AND account = $2 AND mode = $3 AND version = $9";

/// The template a new envelope names still exists. On PostgreSQL the row is share-locked until
/// the commit, so a retention delete of the template (which locks it for update) waits for the
/// envelope, then sees the blob held by it; or deletes first and this finds no row.
const TEMPLATE_EXISTS: &str =
    "SELECT COUNT(*) FROM templates WHERE id = $1 AND account = $2 AND mode = $3";
const TEMPLATE_EXISTS_LOCKED: &str = "SELECT COUNT(*) FROM \
    (SELECT 1 FROM templates WHERE id = $1 AND account = $2 AND mode = $3 FOR KEY SHARE) t";

/// One statement that debits only while `used < allowance`: no row is inserted when the allowance
/// is 0, and the conflicting row is updated only below the allowance. Zero rows changed means
/// the balance is spent. Concurrent debits serialize on the row lock (PostgreSQL) or the write
/// lock (SQLite), so the check and the increment cannot interleave.
const DEBIT: &str = "INSERT INTO allowance_usage (account, period, used) \
    SELECT $1, $2, 1 WHERE $3 > 0 \
    ON CONFLICT (account, period) DO UPDATE SET used = allowance_usage.used + 1 \
    WHERE allowance_usage.used < $3";

/// Events are stored packed (`packed.rs`), with `doc` empty.
pub(super) const INSERT_EVENT: &str = "INSERT INTO events \
    (id, account, mode, event_type, created_at, doc, packed, envelope) \
    VALUES ($1, $2, $3, $4, $5, '', $6, $7)";

/// The stored events of one envelope (the index `events_by_envelope`), and the rewrite of one
/// (live retention: `EnvelopeStore::erase_envelope`). A rewritten event is packed, as new ones are.
const EVENTS_OF: &str =
    "SELECT id, doc, packed FROM events WHERE envelope = $1 AND account = $2 AND mode = $3";
const REWRITE_EVENT: &str = "UPDATE events SET doc = '', packed = $1 WHERE id = $2";

pub(super) const ENABLED_ENDPOINTS: &str = "SELECT doc FROM webhook_endpoints \
    WHERE account = $1 AND mode = $2 AND status = 'enabled' ORDER BY seq";

pub(super) const INSERT_DELIVERY: &str = "INSERT INTO webhook_deliveries \
    (id, account, mode, event_id, endpoint_id, status, attempts, next_attempt_at, created_at) \
    VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $6)";

const LIST: ListSql = ListSql {
    cursor: "SELECT seq FROM envelopes WHERE id = $1 AND account = $2 AND mode = $3",
    page: "SELECT doc FROM envelopes WHERE account = $1 AND mode = $2 AND seq < $3 \
           ORDER BY seq DESC LIMIT $4",
};

const LIST_BY_TEMPLATE: ListSql = ListSql {
    cursor: LIST.cursor,
    page: "SELECT doc FROM envelopes WHERE account = $1 AND mode = $2 AND seq < $3 \
           AND template = $5 ORDER BY seq DESC LIMIT $4",
};

const LIST_BY_BULK_SEND: ListSql = ListSql {
    cursor: LIST.cursor,
    page: "SELECT doc FROM envelopes WHERE account = $1 AND mode = $2 AND seq < $3 \
           AND bulk_send = $5 ORDER BY seq DESC LIMIT $4",
};

const LIST_BY_BOTH: ListSql = ListSql {
    cursor: LIST.cursor,
    page: "SELECT doc FROM envelopes WHERE account = $1 AND mode = $2 AND seq < $3 \
           AND bulk_send = $5 AND template = $6 ORDER BY seq DESC LIMIT $4",
};

/// The seal sweeps' queries (`$1` = until, `$2` = limit, and the cursor `$3`, `$4`), served by
/// the partial indexes on (`seal_due_at`, `id`) and (`seal_expires_at`, `id`). IDs compare as
/// bytes, as in Rust: SQLite's default collation, `COLLATE "C"` on PostgreSQL (the indexes'
/// own), whatever the database's collation.
struct SealSql {
    sqlite: &'static str,
    postgres: &'static str,
}

const SEAL_DUE: SealSql = SealSql {
    sqlite: "SELECT doc FROM envelopes WHERE seal_due_at <= $1 \
             ORDER BY seal_due_at, id LIMIT $2",
    postgres: "SELECT doc FROM envelopes WHERE seal_due_at <= $1 \
               ORDER BY seal_due_at, id COLLATE \"C\" LIMIT $2",
};

const SEAL_EXPIRING: SealSql = SealSql {
    sqlite: "SELECT doc FROM envelopes WHERE seal_expires_at <= $1 \
             ORDER BY seal_expires_at, id LIMIT $2",
    postgres: "SELECT doc FROM envelopes WHERE seal_expires_at <= $1 \
               ORDER BY seal_expires_at, id COLLATE \"C\" LIMIT $2",
};

const SEAL_EXPIRING_AFTER: SealSql = SealSql {
    sqlite: "SELECT doc FROM envelopes WHERE seal_expires_at <= $1 \
             AND (seal_expires_at, id) > ($3, $4) \
             ORDER BY seal_expires_at, id LIMIT $2",
    postgres: "SELECT doc FROM envelopes WHERE seal_expires_at <= $1 \
               AND (seal_expires_at, id COLLATE \"C\") > ($3, $4) \
               ORDER BY seal_expires_at, id COLLATE \"C\" LIMIT $2",
};

/// Inside a transaction `$tx`: inserts `$events` (packed as `$docs`) and one pending delivery per
/// subscribed enabled endpoint of each event's scope, read once per scope. A macro, as the
/// transaction's type differs per engine (`with_tx!`); shared by the envelope writes and the
/// bulk send updates (`bulk_sends.rs`).
macro_rules! insert_events {
    ($tx:ident, $events:expr, $docs:expr) => {
        // Subscribed endpoints, read once per scope inside the transaction.
        let mut endpoints: Vec<(Scope, Vec<WebhookEndpointRecord>)> = Vec::new();
        for (e, edoc) in $events.iter().zip($docs) {
            let emode = e.mode.as_str();
            let created = millis(e.event.created_at);
            sqlx::query(INSERT_EVENT)
                .bind(e.event.id.as_str())
                .bind(&e.account)
                .bind(emode)
                .bind(e.event.kind.as_str())
                .bind(created)
                .bind(edoc)
                .bind(e.event.data.object.id())
                .execute(&mut *$tx)
                .await
                .map_err(db_err)?;
            let scope = Scope {
                account: e.account.clone(),
                mode: e.mode,
            };
            let i = match endpoints.iter().position(|(s, _)| *s == scope) {
                Some(i) => i,
                None => {
                    let docs: Vec<String> = sqlx::query_scalar(ENABLED_ENDPOINTS)
                        .bind(&e.account)
                        .bind(emode)
                        .fetch_all(&mut *$tx)
                        .await
                        .map_err(db_err)?;
                    let eps = docs
                        .iter()
                        .map(|d| decode("webhook endpoint", d))
                        .collect::<StoreResult<Vec<WebhookEndpointRecord>>>()?;
                    endpoints.push((scope, eps));
                    endpoints.len() - 1
                }
            };
            let kind = e.event.kind.as_str();
            for ep in endpoints[i].1.iter().filter(|ep| ep.subscribes_to(kind)) {
                sqlx::query(INSERT_DELIVERY)
                    .bind(ids::new_id(ids::DELIVERY))
                    .bind(&e.account)
                    .bind(emode)
                    .bind(e.event.id.as_str())
                    .bind(ep.id.as_str())
                    .bind(created)
                    .execute(&mut *$tx)
                    .await
                    .map_err(db_err)?;
            }
        }
    };
}
pub(super) use insert_events;

impl SqlStore {
    /// Envelopes of any scope that `sql` finds with `$1` = `until`, `$2` = `limit` and, when
    /// given, the cursor's time and ID as `$3` and `$4`.
    async fn seal_sweep(
        &self,
        sql: &SealSql,
        until: Timestamp,
        after: Option<(Timestamp, EnvelopeId)>,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        let sql = match self.engine() {
            Engine::Sqlite => sql.sqlite,
            Engine::Postgres => sql.postgres,
        };
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let after = after.map(|(t, id)| (millis(t), id));
        let docs: Vec<String> = with_pool!(&self.pool, |p| {
            let mut q = sqlx::query_scalar(sql).bind(millis(until)).bind(limit);
            if let Some((t, id)) = &after {
                q = q.bind(*t).bind(id.as_str());
            }
            q.fetch_all(p).await.map_err(db_err)?
        });
        docs.iter().map(|d| decode("envelope", d)).collect()
    }

    /// Inserts (`create`) or updates the envelope, debits, appends the events and fans each event
    /// out to the outbox, in one transaction. With `erase_events` (live retention,
    /// [`EnvelopeStore::erase_envelope`](crate::store::EnvelopeStore::erase_envelope)) the envelope's stored
    /// events are rewritten without their personal data in the same transaction.
    pub(super) async fn write_envelope(
        &self,
        env: &EnvelopeRecord,
        events: &[EventRecord],
        debit: Option<&AllowanceDebit>,
        create: bool,
        erase_events: bool,
    ) -> StoreResult<()> {
        let doc = encode(env)?;
        let new = version(env.version)?;
        let old = if create {
            0
        } else {
            new.checked_sub(1).ok_or(StoreError::Conflict)?
        };
        let event_docs = events
            .iter()
            .map(super::packed::pack)
            .collect::<StoreResult<Vec<_>>>()?;
        let mode = env.mode.as_str();
        let status = env.status.as_str();
        let expires_at = env.expires_at.map(millis);
        let next_email_at = env.next_email_at().map(millis);
        let updated_at = millis(env.last_change());
        let files_deleted_at = env.files_deleted_at.map(millis);
        let seal_due_at = env.seal.as_ref().and_then(|s| s.upgrade_due_at).map(millis);
        let seal_expires_at = env
            .seal
            .as_ref()
            .and_then(|s| s.archive_expires_at)
            .map(millis);
        let holds = env.held_files();
        let blobs = held::column(&holds);
        let template_exists = match self.engine() {
            Engine::Sqlite => TEMPLATE_EXISTS,
            Engine::Postgres => TEMPLATE_EXISTS_LOCKED,
        };
        with_tx!(&self.pool, |tx| {
            let mut held_before: Vec<String> = Vec::new();
            if create {
                if let Some(t) = &env.template {
                    let found: i64 = sqlx::query_scalar(template_exists)
                        .bind(t.as_str())
                        .bind(&env.account)
                        .bind(mode)
                        .fetch_one(&mut *tx)
                        .await
                        .map_err(db_err)?;
                    if found == 0 {
                        return Err(StoreError::Conflict);
                    }
                }
                sqlx::query(INSERT_ENVELOPE)
                    .bind(env.id.as_str())
                    .bind(&env.account)
                    .bind(mode)
                    .bind(new)
                    .bind(status)
                    .bind(env.template.as_deref())
                    .bind(expires_at)
                    .bind(&doc)
                    .bind(updated_at)
                    .bind(files_deleted_at)
                    .bind(&blobs)
                    .bind(next_email_at)
                    .bind(seal_due_at)
                    .bind(seal_expires_at)
                    .bind(env.bulk_send.as_deref())
                    .execute(&mut *tx)
                    .await
                    .map_err(db_err)?;
            } else {
                let before: Option<(Option<String>,)> = sqlx::query_as(HELD_BEFORE)
                    .bind(env.id.as_str())
                    .bind(&env.account)
                    .bind(mode)
                    .bind(old)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(db_err)?;
                let Some((before,)) = before else {
                    return Err(StoreError::Conflict);
                };
                held_before = held::keys(before.as_deref());
                let changed = sqlx::query(UPDATE_ENVELOPE)
                    .bind(env.id.as_str())
                    .bind(&env.account)
                    .bind(mode)
                    .bind(new)
                    .bind(status)
                    .bind(env.template.as_deref())
                    .bind(expires_at)
                    .bind(&doc)
                    .bind(old)
                    .bind(updated_at)
                    .bind(files_deleted_at)
                    .bind(&blobs)
                    .bind(next_email_at)
                    .bind(seal_due_at)
                    .bind(seal_expires_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_err)?
                    .rows_affected();
                if changed == 0 {
                    return Err(StoreError::Conflict);
                }
            }
            if let Some(d) = debit {
                let changed = sqlx::query(DEBIT)
                    .bind(&d.account)
                    .bind(&d.period)
                    .bind(i64::from(d.allowance))
                    .execute(&mut *tx)
                    .await
                    .map_err(db_err)?
                    .rows_affected();
                if changed == 0 {
                    return Err(StoreError::InsufficientBalance);
                }
            }
            insert_events!(tx, events, &event_docs);
            if erase_events {
                let rows: Vec<(String, String, Option<Vec<u8>>)> = sqlx::query_as(EVENTS_OF)
                    .bind(env.id.as_str())
                    .bind(&env.account)
                    .bind(mode)
                    .fetch_all(&mut *tx)
                    .await
                    .map_err(db_err)?;
                for (id, doc, packed) in rows {
                    let mut event = decode_event(&doc, packed.as_deref())?;
                    if event.erase_personal_data() {
                        sqlx::query(REWRITE_EVENT)
                            .bind(super::packed::pack(&event)?)
                            .bind(&id)
                            .execute(&mut *tx)
                            .await
                            .map_err(db_err)?;
                    }
                }
            }
            // Last: on PostgreSQL the usage row stays locked until the commit.
            move_holds!(tx, &env.account, &held_before, &holds, create);
        });
        Ok(())
    }

    /// Envelopes of any scope that `sql` (with `$1` = now, `$2` = limit) finds due.
    pub(super) async fn envelopes_due(
        &self,
        sql: &'static str,
        now: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let docs: Vec<String> = with_pool!(&self.pool, |p| {
            sqlx::query_scalar(sql)
                .bind(millis(now))
                .bind(limit)
                .fetch_all(p)
                .await
                .map_err(db_err)?
        });
        docs.iter().map(|d| decode("envelope", d)).collect()
    }
}

#[async_trait]
impl EnvelopeStore for SqlStore {
    async fn create_envelope(
        &self,
        envelope: &EnvelopeRecord,
        events: &[EventRecord],
        debit: Option<&AllowanceDebit>,
    ) -> StoreResult<()> {
        self.write_envelope(envelope, events, debit, true, false)
            .await
    }

    async fn update_envelope(
        &self,
        envelope: &EnvelopeRecord,
        events: &[EventRecord],
        debit: Option<&AllowanceDebit>,
    ) -> StoreResult<()> {
        self.write_envelope(envelope, events, debit, false, false)
            .await
    }

    async fn erase_envelope(&self, envelope: &EnvelopeRecord) -> StoreResult<()> {
        self.write_envelope(envelope, &[], None, false, true).await
    }

    async fn get_envelope(
        &self,
        scope: &Scope,
        id: &EnvelopeId,
    ) -> StoreResult<Option<EnvelopeRecord>> {
        self.scoped_doc(
            "SELECT doc FROM envelopes WHERE id = $1 AND account = $2 AND mode = $3",
            "envelope",
            scope,
            id,
        )
        .await
    }

    /// Three columns the writes keep beside the document, so no record is decoded.
    async fn envelope_stamp(
        &self,
        scope: &Scope,
        id: &EnvelopeId,
    ) -> StoreResult<Option<EnvelopeStamp>> {
        let (id, account, mode) = (id.as_str(), scope.account.as_str(), scope.mode.as_str());
        let row = point_read!(
            &self.pool,
            "SELECT version, status, expires_at FROM envelopes \
             WHERE id = $1 AND account = $2 AND mode = $3",
            (id, account, mode) as (i64, String, Option<i64>)
        );
        row.map(|(version, status, expires_at)| {
            Ok(EnvelopeStamp {
                version: u64::try_from(version)
                    .map_err(|_| corrupt("envelope", format!("version {version}")))?,
                status: stored_status(&status)?,
                expires_at: expires_at
                    .map(|ms| from_millis("envelope", ms))
                    .transpose()?,
            })
        })
        .transpose()
    }

    async fn list_envelopes(
        &self,
        scope: &Scope,
        filter: &EnvelopeFilter,
        page: &PageRequest,
    ) -> StoreResult<Listed<EnvelopeRecord>> {
        let (sql, f) = match (&filter.template, &filter.bulk_send) {
            (None, None) => (&LIST, Filter::None),
            (Some(t), None) => (&LIST_BY_TEMPLATE, Filter::Text(t.to_string())),
            (None, Some(b)) => (&LIST_BY_BULK_SEND, Filter::Text(b.to_string())),
            (Some(t), Some(b)) => (&LIST_BY_BOTH, Filter::Texts(b.to_string(), t.to_string())),
        };
        self.list_docs("envelope", sql, scope, f, page).await
    }

    /// Served by the partial index on `expires_at` of draft and sent envelopes.
    async fn expired_envelopes(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        self.envelopes_due(
            "SELECT doc FROM envelopes WHERE status IN ('draft', 'sent') \
             AND expires_at <= $1 ORDER BY expires_at, seq LIMIT $2",
            now,
            limit,
        )
        .await
    }

    async fn seal_upgrades_due(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        self.seal_sweep(&SEAL_DUE, now, None, limit).await
    }

    async fn seals_expiring(
        &self,
        before: Timestamp,
        after: Option<(Timestamp, EnvelopeId)>,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        let sql = match after {
            None => &SEAL_EXPIRING,
            Some(_) => &SEAL_EXPIRING_AFTER,
        };
        self.seal_sweep(sql, before, after, limit).await
    }
}

/// The `status` column as the writes set it ([`EnvelopeStatus::as_str`]).
fn stored_status(s: &str) -> StoreResult<EnvelopeStatus> {
    [
        EnvelopeStatus::Draft,
        EnvelopeStatus::Sent,
        EnvelopeStatus::Completed,
        EnvelopeStatus::Voided,
    ]
    .into_iter()
    .find(|v| v.as_str() == s)
    .ok_or_else(|| corrupt("envelope", format!("status {s:?}")))
}
