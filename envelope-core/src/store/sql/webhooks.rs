//! Webhook endpoints. Their `status` is a column because the envelope transaction selects the
//! enabled endpoints of a scope to fill the outbox.

use async_trait::async_trait;

use super::events::{DeliveryRow, delivery_from_row};
use super::lists::{Filter, ListSql};
use super::{SqlStore, db_err, decode, encode, with_pool, with_write};
use crate::ids::{DeliveryId, EventId, WebhookEndpointId};
use crate::model::{
    DeliveryAttempt, EndpointStatus, Scope, WebhookDelivery, WebhookEndpointRecord,
};
use crate::store::WebhookStore;
use crate::store::{Listed, PageRequest, StoreError, StoreResult};

const LIST: ListSql = ListSql {
    cursor: "SELECT seq FROM webhook_endpoints WHERE id = $1 AND account = $2 AND mode = $3",
    page: "SELECT doc FROM webhook_endpoints WHERE account = $1 AND mode = $2 AND seq < $3 \
           ORDER BY seq DESC LIMIT $4",
};

fn status(s: EndpointStatus) -> &'static str {
    match s {
        EndpointStatus::Enabled => "enabled",
        EndpointStatus::Disabled => "disabled",
    }
}

#[async_trait]
impl WebhookStore for SqlStore {
    async fn insert_webhook_endpoint(&self, ep: &WebhookEndpointRecord) -> StoreResult<()> {
        let doc = encode(ep)?;
        with_write!(&self.pool, |e| {
            sqlx::query(
                "INSERT INTO webhook_endpoints (id, account, mode, status, doc) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(ep.id.as_str())
            .bind(&ep.account)
            .bind(ep.mode.as_str())
            .bind(status(ep.status))
            .bind(&doc)
            .execute(e)
            .await
            .map_err(db_err)?;
        });
        Ok(())
    }

    async fn get_webhook_endpoint(
        &self,
        scope: &Scope,
        id: &WebhookEndpointId,
    ) -> StoreResult<Option<WebhookEndpointRecord>> {
        self.scoped_doc(
            "SELECT doc FROM webhook_endpoints WHERE id = $1 AND account = $2 AND mode = $3",
            "webhook endpoint",
            scope,
            id,
        )
        .await
    }

    async fn find_webhook_endpoint(
        &self,
        id: &WebhookEndpointId,
    ) -> StoreResult<Option<WebhookEndpointRecord>> {
        self.doc_by_id(
            "SELECT doc FROM webhook_endpoints WHERE id = $1",
            "webhook endpoint",
            id,
        )
        .await
    }

    /// Endpoints carry no version: the last write wins, as in the memory store. The owner never
    /// changes (the scope columns are not written).
    async fn update_webhook_endpoint(&self, ep: &WebhookEndpointRecord) -> StoreResult<()> {
        let doc = encode(ep)?;
        let changed = with_write!(&self.pool, |e| {
            sqlx::query("UPDATE webhook_endpoints SET status = $2, doc = $3 WHERE id = $1")
                .bind(ep.id.as_str())
                .bind(status(ep.status))
                .bind(&doc)
                .execute(e)
                .await
                .map_err(db_err)?
                .rows_affected()
        });
        if changed == 0 {
            return Err(StoreError::Conflict);
        }
        Ok(())
    }

    async fn delete_webhook_endpoint(
        &self,
        scope: &Scope,
        id: &WebhookEndpointId,
    ) -> StoreResult<bool> {
        let changed = with_write!(&self.pool, |e| {
            sqlx::query(
                "DELETE FROM webhook_endpoints WHERE id = $1 AND account = $2 AND mode = $3",
            )
            .bind(id)
            .bind(&scope.account)
            .bind(scope.mode.as_str())
            .execute(e)
            .await
            .map_err(db_err)?
            .rows_affected()
        });
        Ok(changed > 0)
    }

    async fn list_webhook_endpoints(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> StoreResult<Listed<WebhookEndpointRecord>> {
        self.list_docs("webhook endpoint", &LIST, scope, Filter::None, page)
            .await
    }

    async fn deliveries_for_event(
        &self,
        scope: &Scope,
        event: &EventId,
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
    async fn event_deliveries_page(
        &self,
        scope: &Scope,
        event: &EventId,
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
        let docs: Vec<(DeliveryId, String)> = with_pool!(&self.pool, |p| {
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
        let mut attempts: std::collections::HashMap<DeliveryId, Vec<DeliveryAttempt>> =
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

    async fn delivery_attempts(
        &self,
        scope: &Scope,
        event: &EventId,
    ) -> StoreResult<Vec<DeliveryAttempt>> {
        let docs: Vec<String> = with_pool!(&self.pool, |p| {
            sqlx::query_scalar(
                "SELECT a.doc FROM webhook_attempts a JOIN events e ON e.id = a.event_id \
                 WHERE a.event_id = $1 AND e.account = $2 AND e.mode = $3 ORDER BY a.seq",
            )
            .bind(event)
            .bind(&scope.account)
            .bind(scope.mode.as_str())
            .fetch_all(p)
            .await
            .map_err(db_err)?
        });
        docs.iter().map(|d| decode("webhook attempt", d)).collect()
    }
}
