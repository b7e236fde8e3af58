//! Event reads and the webhook outbox rows of an event. Events and deliveries are written only
//! by the envelope transaction (see `envelopes.rs`).

use async_trait::async_trait;

use super::lists::{Filter, ListSql};
use super::packed::decode_event;
use super::{SqlStore, corrupt, from_millis, point_read};
use crate::ids::{AccountId, DeliveryId, EventId, WebhookEndpointId};
use crate::model::{DeliveryStatus, EventRecord, EventType, Mode, Scope, WebhookDelivery};
use crate::store::EventStore;
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
    DeliveryId,
    AccountId,
    String,
    EventId,
    WebhookEndpointId,
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

#[async_trait]
impl EventStore for SqlStore {
    async fn get_event(&self, scope: &Scope, id: &EventId) -> StoreResult<Option<EventRecord>> {
        let row = point_read!(
            &self.pool,
            "SELECT doc, packed FROM events WHERE id = $1 AND account = $2 AND mode = $3",
            (id, scope.account.as_str(), scope.mode.as_str()) as EventRow
        );
        row.map(|(doc, packed)| decode_event(&doc, packed.as_deref()))
            .transpose()
    }

    async fn find_event(&self, id: &EventId) -> StoreResult<Option<EventRecord>> {
        let row = point_read!(
            &self.pool,
            "SELECT doc, packed FROM events WHERE id = $1",
            (id) as EventRow
        );
        row.map(|(doc, packed)| decode_event(&doc, packed.as_deref()))
            .transpose()
    }

    async fn list_events(
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
}
