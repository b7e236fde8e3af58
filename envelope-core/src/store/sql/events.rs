//! Event reads and the webhook outbox rows of an event. Events and deliveries are written only
//! by the envelope transaction (see `envelopes.rs`).

use super::lists::{Filter, ListSql};
use super::packed::decode_event;
use super::{SqlStore, corrupt, db_err, decode, from_millis, point_read, with_pool};
use crate::model::{
    DeliveryAttempt, DeliveryStatus, EventRecord, EventType, Mode, Scope, WebhookDelivery,
};
use crate::store::{Listed, PageRequest, StoreResult};

const LIST: ListSql = ListSql {
    cursor: "SELECT seq FROM events WHERE id = $1 AND account = $2 AND mode = $3",
    page: "SELECT doc, packed FROM events WHERE account = $1 AND mode = $2 AND seq < $3 \
           ORDER BY seq DESC LIMIT $4",
};

const LIST_BY_TYPE: ListSql = ListSql {
    cursor: LIST.cursor,
    page: "SELECT doc, packed FROM events WHERE account = $1 AND mode = $2 AND seq < $3 \
           AND event_type = $5 ORDER BY seq DESC LIMIT $4",
};

/// An event row: `doc` (JSON, rows from before schema 8) and `packed`.
pub(super) type EventRow = (String, Option<Vec<u8>>);

pub(super) fn event_from_row((doc, packed): EventRow) -> StoreResult<EventRecord> {
    decode_event(&doc, packed.as_deref())
}

pub(super) type DeliveryRow = (
    String,
    String,
    String,
    String,
    String,
    String,
    i64,
    Option<i64>,
    i64,
    Option<i64>,
);

pub(super) fn delivery_from_row(r: DeliveryRow) -> StoreResult<WebhookDelivery> {
    let (id, account, mode, event, endpoint, status, attempts, next, created, last) = r;
    let what = "webhook delivery";
    Ok(WebhookDelivery {
        id,
        account,
        mode: Mode::parse(&mode).ok_or_else(|| corrupt(what, format!("mode {mode:?}")))?,
        event,
        endpoint,
        status: match status.as_str() {
            "pending" => DeliveryStatus::Pending,
            "delivered" => DeliveryStatus::Delivered,
            "failed" => DeliveryStatus::Failed,
            other => return Err(corrupt(what, format!("status {other:?}"))),
        },
        attempts: u32::try_from(attempts).unwrap_or(u32::MAX),
        next_attempt_at: next.map(|ms| from_millis(what, ms)).transpose()?,
        created_at: from_millis(what, created)?,
        last_attempt_at: last.map(|ms| from_millis(what, ms)).transpose()?,
    })
}

impl SqlStore {
    pub(super) async fn get_event_impl(
        &self,
        scope: &Scope,
        id: &str,
    ) -> StoreResult<Option<EventRecord>> {
        let row = point_read!(
            &self.pool,
            "SELECT doc, packed FROM events WHERE id = $1 AND account = $2 AND mode = $3",
            (id, scope.account.as_str(), scope.mode.as_str()) as EventRow
        );
        row.map(|(doc, packed)| decode_event(&doc, packed.as_deref()))
            .transpose()
    }

    pub(super) async fn find_event_impl(&self, id: &str) -> StoreResult<Option<EventRecord>> {
        let row = point_read!(
            &self.pool,
            "SELECT doc, packed FROM events WHERE id = $1",
            (id) as EventRow
        );
        row.map(|(doc, packed)| decode_event(&doc, packed.as_deref()))
            .transpose()
    }

    pub(super) async fn list_events_impl(
        &self,
        scope: &Scope,
        kind: Option<EventType>,
        page: &PageRequest,
    ) -> StoreResult<Listed<EventRecord>> {
        match kind {
            None => {
                self.list_rows(&LIST, scope, Filter::None, page, event_from_row)
                    .await
            }
            Some(k) => {
                let f = Filter::Text(k.as_str().to_string());
                self.list_rows(&LIST_BY_TYPE, scope, f, page, event_from_row)
                    .await
            }
        }
    }

    pub(super) async fn deliveries_for_event_impl(
        &self,
        scope: &Scope,
        event: &str,
    ) -> StoreResult<Vec<WebhookDelivery>> {
        let rows: Vec<DeliveryRow> = with_pool!(&self.pool, |p| {
            sqlx::query_as(
                "SELECT id, account, mode, event_id, endpoint_id, status, attempts, \
                 next_attempt_at, created_at, last_attempt_at FROM webhook_deliveries \
                 WHERE event_id = $1 AND account = $2 AND mode = $3 ORDER BY seq",
            )
            .bind(event)
            .bind(&scope.account)
            .bind(scope.mode.as_str())
            .fetch_all(p)
            .await
            .map_err(db_err)?
        });
        rows.into_iter().map(delivery_from_row).collect()
    }

    /// A page of an event's deliveries, oldest first, with their attempts: the page's rows by
    /// `(event_id, seq)`, then the attempts of those rows only.
    pub(super) async fn event_deliveries_page_impl(
        &self,
        scope: &Scope,
        event: &str,
        page: &PageRequest,
    ) -> StoreResult<Listed<(WebhookDelivery, Vec<DeliveryAttempt>)>> {
        let mode = scope.mode.as_str();
        let limit = i64::try_from(page.limit.min(100_000)).unwrap_or(i64::MAX);
        let after: i64 = match &page.starting_after {
            None => 0,
            Some(id) => {
                let seq: Option<i64> = with_pool!(&self.pool, |p| {
                    sqlx::query_scalar(
                        "SELECT seq FROM webhook_deliveries WHERE id = $1 AND event_id = $2 \
                         AND account = $3 AND mode = $4",
                    )
                    .bind(id)
                    .bind(event)
                    .bind(&scope.account)
                    .bind(mode)
                    .fetch_optional(p)
                    .await
                    .map_err(db_err)?
                });
                match seq {
                    Some(seq) => seq,
                    None => return Ok(Listed::UnknownCursor),
                }
            }
        };
        // One row more than the page says whether more follow.
        let rows: Vec<DeliveryRow> = with_pool!(&self.pool, |p| {
            sqlx::query_as(
                "SELECT id, account, mode, event_id, endpoint_id, status, attempts, \
                 next_attempt_at, created_at, last_attempt_at FROM webhook_deliveries \
                 WHERE event_id = $1 AND account = $2 AND mode = $3 AND seq > $4 \
                 ORDER BY seq LIMIT $5",
            )
            .bind(event)
            .bind(&scope.account)
            .bind(mode)
            .bind(after)
            .bind(limit.saturating_add(1))
            .fetch_all(p)
            .await
            .map_err(db_err)?
        });
        let mut deliveries = rows
            .into_iter()
            .map(delivery_from_row)
            .collect::<StoreResult<Vec<_>>>()?;
        let has_more = deliveries.len() as i64 > limit;
        deliveries.truncate(page.limit);
        let Some(last) = deliveries.last().map(|d| d.id.clone()) else {
            return Ok(Listed::Page(Vec::new(), false));
        };
        // The attempts of the page's deliveries: those whose delivery lies between the cursor
        // and the page's last row.
        let docs: Vec<(String, String)> = with_pool!(&self.pool, |p| {
            sqlx::query_as(
                "SELECT a.delivery_id, a.doc FROM webhook_attempts a \
                 JOIN webhook_deliveries d ON d.id = a.delivery_id \
                 WHERE a.event_id = $1 AND d.event_id = $1 AND d.account = $2 AND d.mode = $3 \
                 AND d.seq > $4 \
                 AND d.seq <= (SELECT seq FROM webhook_deliveries WHERE id = $5) \
                 ORDER BY a.seq",
            )
            .bind(event)
            .bind(&scope.account)
            .bind(mode)
            .bind(after)
            .bind(&last)
            .fetch_all(p)
            .await
            .map_err(db_err)?
        });
        let mut attempts: std::collections::HashMap<String, Vec<DeliveryAttempt>> =
            std::collections::HashMap::new();
        for (delivery, doc) in docs {
            let attempt: DeliveryAttempt = decode("webhook attempt", &doc)?;
            attempts.entry(delivery).or_default().push(attempt);
        }
        let items = deliveries
            .into_iter()
            .map(|d| {
                let a = attempts.remove(&d.id).unwrap_or_default();
                (d, a)
            })
            .collect();
        Ok(Listed::Page(items, has_more))
    }
}
